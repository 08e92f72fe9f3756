r"""One inflow hydrograph through one pond: :func:`route_reservoir`, :class:`RoutingResult`.

Storage-indication (modified Puls) routing on the pond's table
(:mod:`hydrocalc.hydraulics.routing.table`), with the inflow resampled to the routing step,
an optional tailwater (a constant level or a series; a series is solved by
:mod:`hydrocalc.hydraulics.routing.tailwater`) and the result's series, peaks, mass balance
and device flows.

References
----------
.. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill, 1988,
   Section 8.2 (level pool routing, storage-indication method, Eq. 8.2.3).
.. [2] USDA NRCS, *National Engineering Handbook*, Part 630 Hydrology, Ch. 17 "Flood
   Routing" (storage-indication routing of reservoirs).
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np

from hydrocalc._validate import as_float_array, check_choice, fmt_value
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import as_structure
from hydrocalc.hydraulics.routing.result import RoutingResult, _result
from hydrocalc.hydraulics.routing.table import (
    TABLE_POINTS,
    _build_table,
    check_devices,
    to_stage_frame,
)
from hydrocalc.hydraulics.routing.tailwater import route_with_tailwater_series
from hydrocalc.hydraulics.stage_storage import StageStorage
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.units import S_PER_HR


def _inflow_series(inflow, dt_hr, duration_hr):
    if not hasattr(inflow, "time_hr") or not hasattr(inflow, "flow_cfs"):
        raise InputError(f"inflow must be a Hydrograph (time_hr, flow_cfs); got {inflow!r}. "
                         "Build one with Hydrograph(time_hr=..., flow_cfs=...)")
    t_in = np.asarray(inflow.time_hr, dtype=float)
    q_in = np.asarray(inflow.flow_cfs, dtype=float)
    dt_in = float(t_in[1] - t_in[0])
    t_end = float(t_in[-1])
    if duration_hr is not None:
        dur = float(as_float_array(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False))
        t_end = float(t_in[0]) + dur
    return t_in, q_in, dt_in, t_end


_MAX_ROUTING_STEPS = 5_000_000  # a longer routing grid is a unit slip, not a design


def _resample(t_in, q_in, dt, t_end):
    steps = (t_end - t_in[0]) / dt
    if steps > _MAX_ROUTING_STEPS:
        raise InputError(
            f"dt_hr and duration_hr give {steps:,.0f} routing steps ({t_end - t_in[0]:.6g} h "
            f"at {dt:.6g} h); at most {_MAX_ROUTING_STEPS:,} are allowed. Check their units"
        )
    n = int(math.ceil(steps - 1e-9)) + 1
    t = t_in[0] + dt * np.arange(n)
    same = (t.size == t_in.size and np.allclose(t, t_in, rtol=0, atol=1e-9 * max(dt, 1.0)))
    q = q_in.copy() if same else np.interp(t, t_in, q_in, left=0.0, right=0.0)
    return (t_in.copy() if same else t), q


def _auto_dt(ss, structure, dt_in):
    table = _build_table(ss, structure, dt_in * S_PER_HR)
    k = table.n_inside
    do = np.diff(table.outflow[:k])
    ds = np.diff(table.storage[:k])
    with np.errstate(divide="ignore"):
        crit_s = 2.0 * np.min(np.where(do > 0, ds / do, np.inf))
    n = 1 if not np.isfinite(crit_s) else max(1, int(math.ceil(dt_in * S_PER_HR / crit_s)))
    return dt_in / min(n, 1000)


def _prepare(inflow, stage_storage, outlets, dt_hr, duration_hr):
    if not isinstance(stage_storage, StageStorage):
        raise InputError(f"stage_storage must be a StageStorage; got {stage_storage!r}. Build "
                         "one with StageStorage.from_areas(...) or a geometry constructor")
    structure = to_stage_frame(as_structure(outlets), stage_storage).bind(stage_storage)
    check_devices(structure, stage_storage)
    t_in, q_in, dt_in, t_end = _inflow_series(inflow, dt_hr, duration_hr)
    if dt_hr is None:
        dt = dt_in
    elif isinstance(dt_hr, str):
        check_choice(dt_hr, "dt_hr", ("auto",))
        dt = _auto_dt(stage_storage, structure, dt_in)
    else:
        dt = float(as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
        if dt > dt_in * (1 + 1e-9):
            raise InputError(
                f"dt_hr must be <= the inflow's step ({fmt_value(dt_in)} h); got "
                f"{fmt_value(dt)}. A coarser routing step would skip inflow ordinates: omit "
                "dt_hr or resample the inflow first")
    t, q = _resample(t_in, q_in, dt, t_end)
    return structure, t, q, dt


def route_reservoir(inflow: Hydrograph, stage_storage: StageStorage, outlets, *,
                    initial_stage_ft: float = 0.0, dt_hr: float | str | None = None,
                    duration_hr: float | None = None,
                    table_points: int = TABLE_POINTS, tailwater_ft=None,
                    flap_gate: bool = False) -> RoutingResult:
    r"""Route a hydrograph through a pond by the storage-indication (modified Puls) method.

    Parameters
    ----------
    inflow : Hydrograph
        Inflow on a uniform step. [ft3/s]
    stage_storage : StageStorage
        The pond (stage 0 = bottom).
    outlets : Device, list of Device or OutletStructure
        Outlet works; a list means devices in parallel.
        :class:`~hydrocalc.hydraulics.outlets.Exfiltration` devices are bound to
        ``stage_storage`` here.
    initial_stage_ft : float, default 0
        Starting water level (storage and outflow at that stage). [ft]
    dt_hr : float, "auto" or None
        Routing step. None: the inflow's step. A finer step: the inflow is linearly
        interpolated onto it (its volume is then integrated on the finer grid). "auto": the
        inflow's step divided into the smallest number of equal parts that keeps
        2 dS/dt >= dO everywhere below the top (no oscillation). Coarser than the inflow's step
        raises. [h]
    duration_hr : float, optional
        Route for this long from the inflow's start (zero inflow after its end), e.g. to let
        the pond drain. Default: the inflow's span. [h]
    table_points : int, default 400
        Evenly spaced stages of the storage-indication table (plus every breakpoint).
    tailwater_ft : None, float, (time_hr, level) pair or mapping, optional
        Downstream water level at the outlets, in the devices' vertical frame (an elevation
        when ``stage_storage`` has a ``datum_ft``, else a stage above the pond bottom, which
        may be negative). None: free outfall (the routing is then exactly that without this
        argument). A float: a constant level. A series: ``(time_hr, level)`` arrays or a
        mapping with keys ``time_hr`` and ``elevation_ft`` (or ``stage_ft``), interpolated
        linearly onto the routing steps and held constant beyond its ends. [ft]
    flap_gate : bool, default False
        True: the outlets have flap gates, so no flow runs back into the pond.

    Returns
    -------
    RoutingResult

    Raises
    ------
    InputError
        For an invalid inflow, a device above the top of the structure or (pond in
        elevations) below its bottom, an initial stage outside [0, top], a step coarser than
        the inflow's, a decreasing rating, or a tailwater above the top of the pond.

    Warns
    -----
    OvertoppingWarning
        When the routed stage exceeds the top of the structure (also ``overtopped=True``).
    RangeWarning
        When the step is too coarse for the pond (the outflow may oscillate), or when the
        tailwater drives flow back into the pond (reverse flow is routed, not hidden).

    Notes
    -----
    Continuity over a step with trapezoidal averages, rearranged as in [1]_ Eq. 8.2.3:

    .. math::

       \frac{2S_{j+1}}{\Delta t} + O_{j+1} = (I_j + I_{j+1})
       + \left(\frac{2S_j}{\Delta t} - O_j\right)

    The storage-indication table (stage, storage, outflow, :math:`2S/\Delta t + O`) is built
    once, on ``table_points`` even stages plus every stage-storage breakpoint and device
    invert/crown/crest, and above the top of the structure on points up to 11 times the top
    (vertical walls at the largest plan area, devices continuing). The time loop is a plain
    Python loop with one ``np.interp`` per step: each step needs the previous step's
    outflow, so the recursion is inherently sequential (vectorize across ponds and storms
    with :func:`route_reservoirs` instead). Outflow, stage and storage are linear in the
    table within each interval, so :math:`S = (x - O)\Delta t/2` holds exactly and the mass
    balance closes to round-off; the accuracy of the route is that of the table and the step
    (compare with SWMM in ``tests/hydraulics/test_swmm_agreement.py``).

    With a tailwater the outflow depends on the pond level and on the tailwater
    :math:`T_{j+1}` at the end of the step, :math:`O = O(h, T)`; the recursion is unchanged
    with :math:`O_{j+1} = O(h_{j+1}, T_{j+1})`. A constant tailwater gives one table as
    above; a tailwater series gives one table row per step, the linear blend of two rows of
    a stage x tailwater grid evaluated once (bilinear in stage and tailwater; error bound
    and tolerances against the exact evaluation in
    :mod:`hydrocalc.hydraulics.routing.tailwater`), and each step interpolates in its own
    row, so the mass balance still closes to round-off. Device rules with a tailwater (see
    :mod:`hydrocalc.hydraulics.outlets`): orifices and barrels use the head difference,
    weirs Villemonte's factor; a tailwater above the pond level gives a negative (reverse)
    flow, routed like any other, reported in ``reverse_flow`` and warned about.

    References
    ----------
    .. [1] Chow, Maidment and Mays, Applied Hydrology, 1988, Section 8.2.

    Examples
    --------
    >>> import numpy as np
    >>> from hydrocalc.hydraulics.outlets import CircularOrifice
    >>> t = np.arange(0, 6.01, 0.05)
    >>> q = 20.0 * np.clip(1 - np.abs(t - 1.0) / 1.0, 0, None)     # triangle, peak 20 cfs
    >>> res = route_reservoir(Hydrograph(t, q), StageStorage.basin(150, 100, 6),
    ...                       CircularOrifice(12.0, 0.0))
    >>> res.peak_outflow_cfs < 20.0 and res.time_of_peak_outflow_hr > 1.0
    True
    >>> abs(res.mass_balance_error_pct) < 1e-9
    True
    """
    structure, t, q, dt = _prepare(inflow, stage_storage, outlets, dt_hr, duration_hr)
    h0 = float(as_float_array(initial_stage_ft, "initial_stage_ft", lower=0.0,
                              upper=stage_storage.top_stage_ft))
    dt_s = dt * S_PER_HR
    tw = tailwater_series(tailwater_ft, t, stage_storage)
    if tw is not None and not np.all(tw == tw[0]):
        return route_with_tailwater_series(
            getattr(inflow, "name", ""), t, q, dt, stage_storage, structure, h0, tw,
            table_points, flap_gate)
    table = _build_table(stage_storage, structure, dt_s, table_points,
                         tailwater=None if tw is None else float(tw[0]), flap_gate=flap_gate)
    si, o_tab = table.si, table.outflow
    si_last = float(si[-1])
    o_last, slope_last = float(o_tab[-1]), float(table.slope[-1])

    # the storage-indication recursion (sequential: needs the previous outflow)
    n = t.size
    qsum = (q[:-1] + q[1:]).tolist()
    x = float(np.interp(h0, table.stage, si))
    o = float(np.interp(x, si, o_tab))
    xs = np.empty(n)
    os_ = np.empty(n)
    xs[0], os_[0] = x, o
    for i in range(1, n):
        x = qsum[i - 1] + x - 2.0 * o
        if x <= si_last:
            o = float(np.interp(x, si, o_tab))
        else:
            o = o_last + slope_last * (x - si_last)
        xs[i] = x
        os_[i] = o
    return _result(getattr(inflow, "name", ""), t, q, xs, os_, table, dt,
                   datum=stage_storage.datum_ft,
                   tailwater=None if tw is None else tw + stage_storage.bottom_elevation_ft)


def tailwater_series(tailwater_ft, t: np.ndarray, ss: StageStorage) -> np.ndarray | None:
    """The tailwater at every routing time, in stages above the pond bottom (None: free).

    Raises
    ------
    InputError
        For a malformed series or a tailwater above the top of the pond.
    """
    if tailwater_ft is None:
        return None
    base = ss.bottom_elevation_ft
    frame = "elevation" if ss.datum_ft is not None else "stage above the pond bottom"
    if isinstance(tailwater_ft, Mapping):
        keys = [k for k in ("elevation_ft", "stage_ft", "tailwater_ft") if k in tailwater_ft]
        if "time_hr" not in tailwater_ft or len(keys) != 1:
            raise InputError(
                "tailwater_ft as a mapping must have the keys time_hr and one of elevation_ft, "
                f"stage_ft, tailwater_ft; got {sorted(tailwater_ft)}")
        pair = (tailwater_ft["time_hr"], tailwater_ft[keys[0]])
    elif np.ndim(tailwater_ft) == 0:
        level = float(as_float_array(tailwater_ft, "tailwater_ft"))
        pair = None
    else:
        pair = tailwater_ft
    if pair is not None:
        try:
            t_tw, lv = pair
        except (TypeError, ValueError):
            raise InputError(
                "tailwater_ft must be None, a number or a (time_hr, level) pair of arrays; got "
                f"{type(tailwater_ft).__name__} of shape {np.shape(tailwater_ft)}") from None
        t_tw = as_float_array(t_tw, "tailwater time_hr")
        lv = as_float_array(lv, "tailwater_ft")
        if t_tw.ndim != 1 or t_tw.shape != lv.shape or t_tw.size < 1:
            raise InputError(f"tailwater_ft series must be two 1-D arrays of equal length; got "
                             f"{t_tw.shape} times and {lv.shape} levels")
        if t_tw.size > 1 and (np.diff(t_tw) <= 0).any():
            raise InputError("tailwater time_hr must increase strictly; got "
                             f"{t_tw.tolist()[:6]}...")
        level = np.interp(t, t_tw, lv)
    tw = np.broadcast_to(np.asarray(level, dtype=float), t.shape) - base
    top = ss.top_stage_ft
    if (tw > top + 1e-9 * max(top, 1.0)).any():
        i = int(np.argmax(tw))
        raise InputError(
            f"tailwater_ft must be <= the top of the pond ({fmt_value(top + base)} ft, "
            f"{frame}); got {fmt_value(tw[i] + base)} at {fmt_value(t[i])} h. A tailwater "
            "above the embankment floods the pond from downstream: check the level's frame "
            "(elevation or stage) and datum")
    return np.array(tw, dtype=float)
