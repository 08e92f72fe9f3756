r"""Stage-storage relations and level-pool (storage-indication) routing of detention ponds.

* :class:`StageStorage`: storage as a function of stage above the pond bottom, from a
  stage-area table (conic or average-end-area method), a stage-storage table, a rectangular or
  trapezoidal basin, a drywell/leaching pool with a stone envelope, or the sum of several
  (``+``; e.g. a basin plus chambers).
* :func:`route_reservoir`: routes one inflow hydrograph through one pond and its outlets by the
  storage-indication (modified Puls) method; returns a :class:`RoutingResult`.
* :func:`route_reservoirs`: the batch form, many ponds x many storms in one loop over time,
  vectorized across the batch; returns a :class:`BatchRoutingResult`.
* :func:`size_orifice`, :func:`size_weir`, :func:`size_outlet`: the smallest (and largest)
  orifice diameter or weir length whose routed peaks meet the targets of several storms
  without overtopping, with the margin per storm.
* :func:`pond_from_mapping`, :func:`load_pond`: a pond (storage + outlets) from a TOML table.
* ``estimate_storage_volume`` is re-exported from :mod:`hydrocalc.storage_estimate` (TR-55
  Chapter 6 planning estimate).

Symbols
-------
=====================  ======  ================================================
API name               Unit    Meaning
=====================  ======  ================================================
stage_ft               ft      water level above the pond bottom (stage 0)
storage_ft3            ft3     stored volume at a stage
area_ft2               ft2     plan (water-surface) area at a stage
wetted_area_ft2        ft2     bottom + submerged side area (soil interface)
top_stage_ft           ft      top of the structure (embankment / rim)
inflow_cfs             ft3/s   inflow I
outflow_cfs            ft3/s   total outflow O (primary + discarded)
primary_cfs            ft3/s   outflow to the downstream system
discarded_cfs          ft3/s   exfiltration (leaves the system)
dt_hr                  h       routing time step
=====================  ======  ================================================

References
----------
.. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill, 1988,
   Section 8.2 (level pool routing, storage-indication method, Eq. 8.2.3).
.. [2] USDA NRCS, *National Engineering Handbook*, Part 630 Hydrology, Ch. 17 "Flood
   Routing" (storage-indication routing of reservoirs).
.. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
   Hydraulics*, EPA/600/R-17/111, 2017; SWMM 5 source ``src/solver/table.c``
   (``table_getStorageVolume``: tabular storage by trapezoidal integration of area, i.e.
   the average-end-area method).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from hydrocalc import _route_kernel
from hydrocalc._validate import as_float_array, check_choice, fmt_value
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.outlets import Device, OutletStructure, as_structure, unique_names
from hydrocalc.stage_storage import StageStorage, _frustum_wetted  # noqa: F401
from hydrocalc.units import S_PER_HR

__all__ = [
    "StageStorage",
    "RoutingResult",
    "BatchRoutingResult",
    "SizingResult",
    "OvertoppingWarning",
    "route_reservoir",
    "route_reservoirs",
    "size_outlet",
    "size_orifice",
    "size_weir",
    "Pond",
    "pond_from_mapping",
    "load_pond",
    "to_swmm_inp",
    "estimate_storage_volume",
]


class OvertoppingWarning(RangeWarning):
    """The routed stage rose above the top of the structure (reported, never hidden)."""


# =========================================================================================
# Storage-indication table
# =========================================================================================
#: Table points above the top (fractions of the top stage): vertical walls, devices continue.
_EXTENSION = np.array([0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0,
                       5.0, 10.0])
#: Default number of evenly spaced stages in the routing table (plus every breakpoint).
TABLE_POINTS = 400


@dataclass(frozen=True)
class _Table:
    stage: np.ndarray
    storage: np.ndarray
    outflow: np.ndarray
    si: np.ndarray
    slope: np.ndarray                   # dO/dSI per interval
    parts: tuple                        # ((name, kind, flows at table points), ...)
    top: float
    n_inside: int                       # table points at or below the top
    dt_s: float


def _table_stages(ss: StageStorage, structure: OutletStructure, points: int) -> np.ndarray:
    top = ss.top_stage_ft
    pts = np.concatenate([np.linspace(0.0, top, int(points)), ss._h,
                          [p for p in structure.breakpoints_ft if 0.0 < p < top],
                          top * (1.0 + _EXTENSION)])
    h = np.unique(pts)
    keep = np.concatenate([[True], np.diff(h) > 1e-9 * max(top, 1.0)])
    return h[keep]


def _components(structure: OutletStructure, h: np.ndarray, tailwater, flap_gate: bool):
    """(device, flow) at stages ``h`` with a free outfall (tailwater None) or a tailwater
    (scalar or array broadcastable with ``h``, stage frame); a flap gate stops reverse flow."""
    if tailwater is None:
        return structure._components(h)
    hh, tw = np.broadcast_arrays(h, np.asarray(tailwater, dtype=float))
    comps = structure._components_tw(hh, tw)
    if flap_gate:
        comps = [(d, np.clip(q, 0.0, None)) for d, q in comps]
    return comps


def _build_table(ss: StageStorage, structure: OutletStructure, dt_s: float,
                 points: int = TABLE_POINTS, tailwater: float | None = None,
                 flap_gate: bool = False) -> _Table:
    h = _table_stages(ss, structure, points)
    s = ss._storage_ext(h)
    comps = _components(structure, h, tailwater, flap_gate)
    names = unique_names([d for d, _ in comps])
    parts = tuple((n, d.kind, q) for n, (d, q) in zip(names, comps))
    o = np.sum([q for _, q in comps], axis=0)
    si = 2.0 * s / dt_s + o
    dsi = np.diff(si)
    if not (dsi > 0).all():
        i = int(np.flatnonzero(dsi <= 0)[0])
        raise InputError(
            f"the outlet rating must not decrease with stage; got {fmt_value(o[i])} cfs at "
            f"{fmt_value(h[i])} ft and {fmt_value(o[i + 1])} cfs at {fmt_value(h[i + 1])} ft. "
            "Check the devices (storage-indication routing needs a monotone rating)")
    slope = np.diff(o) / dsi
    n_inside = int(np.searchsorted(h, ss.top_stage_ft, side="right"))
    for arr in (h, s, o, si, slope):
        arr.setflags(write=False)
    return _Table(h, s, o, si, slope, parts, ss.top_stage_ft, n_inside, dt_s)


def _interp_ext(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """np.interp, extended linearly beyond the last point with the last interval's slope."""
    y = np.interp(x, xp, fp)
    over = x > xp[-1]
    if np.any(over):
        slope = (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
        y = np.where(over, fp[-1] + slope * (x - xp[-1]), y)
    return y


def _check_devices(structure: OutletStructure, ss: StageStorage) -> None:
    top = ss.top_stage_ft
    items = list(structure.leaves())
    stack = [structure]
    while stack:
        node = stack.pop()
        if isinstance(node, OutletStructure):
            if node.barrel is not None:
                items.append(node.barrel)
            stack.extend(node.devices)
    for dev in items:
        if dev.lowest_ft > top:
            key = "crest_ft" if hasattr(dev, "crest_ft") else "invert_ft"
            raise InputError(
                f"{type(dev).__name__} '{dev.name}' {key} must be <= the top of the structure "
                f"({fmt_value(top)} ft); got {fmt_value(dev.lowest_ft)}. A device above the "
                "top never flows: lower it or extend the stage-storage table")


def _all_devices(structure: OutletStructure) -> list:
    items = list(structure.leaves())
    stack = [structure]
    while stack:
        node = stack.pop()
        if isinstance(node, OutletStructure):
            if node.barrel is not None:
                items.append(node.barrel)
            stack.extend(node.devices)
    return items


def _to_stage_frame(structure: OutletStructure, ss: StageStorage) -> OutletStructure:
    """Devices of a pond given in elevations moved to stages above its bottom.

    Raises
    ------
    InputError
        If a device's invert or crest (an elevation) is below the pond bottom.
    """
    base = ss.datum_ft
    if base is None:
        return structure
    for dev in _all_devices(structure):
        if dev.kind == "discarded":
            continue
        if dev.lowest_ft < base - 1e-9 * max(abs(base), 1.0):
            key = "crest_ft" if hasattr(dev, "crest_ft") else "invert_ft"
            raise InputError(
                f"{type(dev).__name__} '{dev.name}' {key} must be at or above the pond bottom "
                f"(elevation {fmt_value(base)} ft); got {fmt_value(dev.lowest_ft)}. The pond is "
                "given in elevations, so inverts and crests are elevations too")
    return structure.shifted(-base)


def _stability(table: _Table, max_index: int) -> str | None:
    """Warning text when 2S/dt - O decreases on a visited interval (step too coarse)."""
    k = min(max(max_index, 1), table.stage.size - 1)
    g = table.si[: k + 1] - 2.0 * table.outflow[: k + 1]
    dg = np.diff(g)
    if (dg >= -1e-9 * np.abs(g).max()).all():
        return None
    i = int(np.flatnonzero(dg < 0)[0])
    do = np.diff(table.outflow[: k + 1])
    ds = np.diff(table.storage[: k + 1])
    with np.errstate(divide="ignore"):
        crit = 2.0 * np.min(np.where(do > 0, ds / do, np.inf)) / S_PER_HR
    return (f"routing step dt_hr = {fmt_value(table.dt_s / S_PER_HR)} is too coarse for this "
            f"pond above stage {fmt_value(table.stage[i])} ft (2 dS/dt < dO): the outflow may "
            f"oscillate. Route with dt_hr <= {fmt_value(crit)} or dt_hr='auto'")


# =========================================================================================
# Single routing
# =========================================================================================
@dataclass(frozen=True, eq=False)
class RoutingResult:
    """Level-pool routing of one hydrograph through one pond.

    Attributes
    ----------
    time_hr, inflow_cfs, outflow_cfs, stage_ft, storage_ft3 : ndarray
        Series on the routing time step [h, ft3/s, ft3/s, ft, ft3]. ``outflow_cfs`` is the
        total outflow (primary + discarded), the quantity in the mass balance.
    primary_cfs, discarded_cfs : ndarray
        Outflow to the downstream system, and exfiltration (leaves the system). [ft3/s]
    device_flows_cfs : dict of str to ndarray
        Flow of every elementary device (after any barrel cap). [ft3/s]
    peak_outflow_cfs, time_of_peak_outflow_hr, peak_stage_ft, peak_storage_ft3 : float
        Peaks of total outflow, stage and storage. [ft3/s, h, ft, ft3]
    peak_primary_cfs : float
        Peak of the outflow to the downstream system. [ft3/s]
    mass_balance_error_pct : float
        100 (V_in - V_out - dS) / (V_in + S_0), volumes by the trapezoidal rule. [%]
    overtopped : bool
        True when the peak stage exceeds ``top_stage_ft``; results above the top assume
        vertical walls and no flow over the embankment.
    top_stage_ft, freeboard_ft, dt_hr : float
        Top of the structure, top minus peak stage (negative when overtopped), step. [ft, h]
    warnings : tuple of str
        Messages also emitted as warnings (overtopping, coarse step, reverse flow).
    datum_ft : float or None
        Elevation of the pond bottom (None: a pond described by stage only). [ft]
    tailwater_ft : ndarray or None
        Tailwater level at every step in the devices' frame (an elevation when the pond has
        a datum, else a stage above the pond bottom); None for a free outfall. [ft]
    reverse_flow : bool
        True when the tailwater drove flow back into the pond (``primary_cfs`` < 0).
    peak_reverse_cfs : float
        Largest flow back into the pond (>= 0). [ft3/s]

    Properties ``elevation_ft`` (series), ``peak_elevation_ft``, ``top_elevation_ft`` and
    ``bottom_elevation_ft`` give water levels as elevations (equal to stages without a datum).
    """

    time_hr: np.ndarray
    inflow_cfs: np.ndarray
    outflow_cfs: np.ndarray
    stage_ft: np.ndarray
    storage_ft3: np.ndarray
    primary_cfs: np.ndarray
    discarded_cfs: np.ndarray
    device_flows_cfs: dict
    peak_outflow_cfs: float
    time_of_peak_outflow_hr: float
    peak_primary_cfs: float
    peak_stage_ft: float
    time_of_peak_stage_hr: float
    peak_storage_ft3: float
    peak_inflow_cfs: float
    time_of_peak_inflow_hr: float
    mass_balance_error_pct: float
    overtopped: bool
    top_stage_ft: float
    freeboard_ft: float
    dt_hr: float
    warnings: tuple = field(default=())
    name: str = ""
    datum_ft: float | None = None
    tailwater_ft: np.ndarray | None = None
    reverse_flow: bool = False
    peak_reverse_cfs: float = 0.0

    @property
    def bottom_elevation_ft(self) -> float:
        """Elevation of the pond bottom (0 without a datum). [ft]"""
        return 0.0 if self.datum_ft is None else float(self.datum_ft)

    @property
    def elevation_ft(self) -> np.ndarray:
        """Water-surface elevation at every step (stage + bottom elevation). [ft]"""
        return self.stage_ft + self.bottom_elevation_ft

    @property
    def peak_elevation_ft(self) -> float:
        """Peak water-surface elevation. [ft]"""
        return self.peak_stage_ft + self.bottom_elevation_ft

    @property
    def top_elevation_ft(self) -> float:
        """Elevation of the top of the structure. [ft]"""
        return self.top_stage_ft + self.bottom_elevation_ft

    @property
    def peak_tailwater_ft(self) -> float | None:
        """Highest tailwater level in the devices' frame (None for a free outfall). [ft]"""
        return None if self.tailwater_ft is None else float(np.max(self.tailwater_ft))

    def outflow_hydrograph(self, which: str = "total") -> Hydrograph:
        """The outflow as a Hydrograph: ``which`` = "total" (default), "primary" (to the
        downstream system; use this to route on) or "discarded" (exfiltration)."""
        check_choice(which, "which", ("total", "primary", "discarded"))
        q = {"total": self.outflow_cfs, "primary": self.primary_cfs,
             "discarded": self.discarded_cfs}[which]
        return Hydrograph(self.time_hr, np.clip(q, 0.0, None), name=self.name)

    def primary_hydrograph(self) -> Hydrograph:
        """Outflow to the downstream system (excludes exfiltration)."""
        return self.outflow_hydrograph("primary")

    def to_frame(self):
        """DataFrame of the series, one column per device (``<name>_cfs``)."""
        import pandas as pd

        cols = {"time_hr": self.time_hr, "inflow_cfs": self.inflow_cfs,
                "stage_ft": self.stage_ft, "storage_ft3": self.storage_ft3,
                "outflow_cfs": self.outflow_cfs, "primary_cfs": self.primary_cfs,
                "discarded_cfs": self.discarded_cfs}
        if self.datum_ft is not None:
            cols["elevation_ft"] = self.elevation_ft
        if self.tailwater_ft is not None:
            cols["tailwater_ft"] = self.tailwater_ft
        for k, v in self.device_flows_cfs.items():
            cols[f"{k}_cfs"] = v
        return pd.DataFrame(cols)

    def summary(self) -> dict:
        """Peaks, times, mass balance and overtopping with unit-suffixed keys."""
        return {
            "peak_inflow_cfs": self.peak_inflow_cfs,
            "time_of_peak_inflow_hr": self.time_of_peak_inflow_hr,
            "peak_outflow_cfs": self.peak_outflow_cfs,
            "peak_primary_cfs": self.peak_primary_cfs,
            "time_of_peak_outflow_hr": self.time_of_peak_outflow_hr,
            "peak_stage_ft": self.peak_stage_ft,
            "peak_storage_ft3": self.peak_storage_ft3,
            "top_stage_ft": self.top_stage_ft,
            "freeboard_ft": self.freeboard_ft,
            "overtopped": self.overtopped,
            "mass_balance_error_pct": self.mass_balance_error_pct,
            "dt_hr": self.dt_hr,
            "bottom_elevation_ft": self.bottom_elevation_ft,
            "peak_elevation_ft": self.peak_elevation_ft,
            "top_elevation_ft": self.top_elevation_ft,
            "peak_tailwater_ft": self.peak_tailwater_ft,
            "reverse_flow": self.reverse_flow,
            "peak_reverse_cfs": self.peak_reverse_cfs,
        }

    def _repr_html_(self) -> str:
        from hydrocalc import display

        return display.html(self)

    def __repr__(self) -> str:
        from hydrocalc import display

        return display.text(self)


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
    structure = _to_stage_frame(as_structure(outlets), stage_storage).bind(stage_storage)
    _check_devices(structure, stage_storage)
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
        Outlet works; a list means devices in parallel. :class:`~hydrocalc.outlets.Exfiltration`
        devices are bound to ``stage_storage`` here.
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
    (compare with SWMM in ``tests/test_swmm_agreement.py``).

    With a tailwater the outflow depends on the pond level and on the tailwater
    :math:`T_{j+1}` at the end of the step, :math:`O = O(h, T)`; the recursion is unchanged
    with :math:`O_{j+1} = O(h_{j+1}, T_{j+1})`. A constant tailwater gives one table as
    above; a tailwater series gives one table row per step, the linear blend of two rows of
    a stage x tailwater grid evaluated once (bilinear in stage and tailwater; error bound
    and tolerances against the exact evaluation in :mod:`hydrocalc.tailwater`), and each
    step interpolates in its own row, so the mass balance still closes to round-off. Device
    rules with a tailwater (see :mod:`hydrocalc.outlets`): orifices and barrels use the head
    difference, weirs Villemonte's factor; a tailwater above the pond level gives a negative
    (reverse) flow, routed like any other, reported in ``reverse_flow`` and warned about.

    References
    ----------
    .. [1] Chow, Maidment and Mays, Applied Hydrology, 1988, Section 8.2.

    Examples
    --------
    >>> import numpy as np
    >>> from hydrocalc.outlets import CircularOrifice
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
    tw = _tailwater_series(tailwater_ft, t, stage_storage)
    if tw is not None and not np.all(tw == tw[0]):
        from hydrocalc.tailwater import route_with_tailwater_series

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


def _tailwater_series(tailwater_ft, t: np.ndarray, ss: StageStorage) -> np.ndarray | None:
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


def _result(name, t, q, xs, os_, table: _Table, dt, *, stage=None, flows=None, datum=None,
            tailwater=None) -> RoutingResult:
    dt_s = dt * S_PER_HR
    storage = (xs - os_) * dt_s / 2.0
    if stage is None:
        stage = _interp_ext(xs, table.si, table.stage)
    if flows is None:
        flows = {nm: _interp_ext(xs, table.si, qq) for nm, _, qq in table.parts}
    kinds = {nm: k for nm, k, _ in table.parts}
    discarded = np.sum([v for k, v in flows.items() if kinds[k] == "discarded"] or
                       [np.zeros_like(os_)], axis=0)
    primary = os_ - discarded
    v_in = float(np.trapezoid(q, dx=dt_s))
    v_out = float(np.trapezoid(os_, dx=dt_s))
    d_s = float(storage[-1] - storage[0])
    denom = v_in + float(storage[0])
    mb = 0.0 if denom <= 0 else 100.0 * (v_in - v_out - d_s) / denom
    i_pk = int(np.argmax(os_))
    j_pk = int(np.argmax(stage))
    peak_stage = float(stage[j_pk])
    messages = []
    over = peak_stage > table.top
    if over:
        msg = (f"{name + ': ' if name else ''}the routed stage {fmt_value(peak_stage)} ft "
               f"exceeds the top of the structure ({fmt_value(table.top)} ft) by "
               f"{fmt_value(peak_stage - table.top)} ft at {fmt_value(t[j_pk])} h: the pond "
               "overtops. Results above the top assume vertical walls and no flow over the "
               "embankment; enlarge the pond or its outlets, or model the spillway")
        messages.append(msg)
        warnings.warn(msg, OvertoppingWarning, stacklevel=3)
    k_max = int(np.searchsorted(table.si, float(xs.max()), side="left"))
    stab = _stability(table, k_max)
    if stab is not None:
        messages.append(stab)
        warnings.warn(stab, RangeWarning, stacklevel=3)
    reverse = float(-min(primary.min(), 0.0))
    has_reverse = tailwater is not None and reverse > 1e-9 * max(float(np.abs(primary).max()),
                                                                  1e-12)
    if has_reverse:
        back = primary < 0
        msg = (f"{name + ': ' if name else ''}the tailwater is above the pond level for "
               f"{fmt_value(float(back.sum()) * dt)} h and drives up to "
               f"{fmt_value(reverse)} cfs back into the pond (reverse flow is routed: "
               "outflow is negative then). Give flap_gate=True if the outlet has a flap gate")
        messages.append(msg)
        warnings.warn(msg, RangeWarning, stacklevel=3)
    i_in = int(np.argmax(q))
    return RoutingResult(
        time_hr=t, inflow_cfs=q, outflow_cfs=os_, stage_ft=stage, storage_ft3=storage,
        primary_cfs=primary, discarded_cfs=discarded, device_flows_cfs=flows,
        peak_outflow_cfs=float(os_[i_pk]), time_of_peak_outflow_hr=float(t[i_pk]),
        peak_primary_cfs=float(primary.max()), peak_stage_ft=peak_stage,
        time_of_peak_stage_hr=float(t[j_pk]), peak_storage_ft3=float(storage.max()),
        peak_inflow_cfs=float(q[i_in]), time_of_peak_inflow_hr=float(t[i_in]),
        mass_balance_error_pct=mb, overtopped=bool(over), top_stage_ft=table.top,
        freeboard_ft=table.top - peak_stage, dt_hr=dt, warnings=tuple(messages), name=name,
        datum_ft=datum, tailwater_ft=tailwater, reverse_flow=bool(has_reverse),
        peak_reverse_cfs=reverse if has_reverse else 0.0)


# =========================================================================================
# Batch routing
# =========================================================================================
@dataclass(frozen=True, eq=False)
class BatchRoutingResult:
    """Many ponds x storms routed at once (see :func:`route_reservoirs`).

    Arrays have the batch shape ``shape`` (``(k,)`` ponds or ``(m, k)`` storms x ponds), plus
    a trailing time axis for series (None when routed with ``keep="peaks"``).

    Attributes
    ----------
    time_hr : ndarray (nt,)
    outflow_cfs, stage_ft, storage_ft3 : ndarray (..., nt) or None
    peak_outflow_cfs, time_of_peak_outflow_hr, peak_stage_ft, peak_storage_ft3 : ndarray
    mass_balance_error_pct : ndarray
    overtopped : ndarray of bool
    top_stage_ft : ndarray (k,)
    """

    time_hr: np.ndarray
    inflow_cfs: np.ndarray
    outflow_cfs: np.ndarray | None
    stage_ft: np.ndarray | None
    storage_ft3: np.ndarray | None
    peak_outflow_cfs: np.ndarray
    time_of_peak_outflow_hr: np.ndarray
    peak_stage_ft: np.ndarray
    peak_storage_ft3: np.ndarray
    mass_balance_error_pct: np.ndarray
    overtopped: np.ndarray
    top_stage_ft: np.ndarray
    dt_hr: float
    _tables: tuple = field(repr=False, default=())
    bottom_elevation_ft: np.ndarray | None = None

    @property
    def peak_elevation_ft(self) -> np.ndarray:
        """Peak water-surface elevation (peak stage + each pond's bottom elevation). [ft]"""
        base = 0.0 if self.bottom_elevation_ft is None else self.bottom_elevation_ft
        return self.peak_stage_ft + base

    @property
    def shape(self) -> tuple:
        """Batch shape ((k,) or (m, k))."""
        return self.peak_outflow_cfs.shape

    def routing_result(self, index) -> RoutingResult:
        """The full :class:`RoutingResult` of one pond (or storm, pond) of the batch.

        Raises
        ------
        InputError
            If the batch was routed with ``keep="peaks"``.
        """
        if self.outflow_cfs is None:
            raise InputError("routing_result needs the series; got a batch routed with "
                             "keep='peaks'. Route again with keep='series'")
        idx = index if isinstance(index, tuple) else (index,)
        table = self._tables[idx[-1]]
        o = self.outflow_cfs[idx]
        x = 2.0 * self.storage_ft3[idx] / table.dt_s + o
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _result("", self.time_hr, self.inflow_cfs[idx], x, o, table, self.dt_hr)


def _batch_inflow(inflow_cfs, dt_hr):
    if hasattr(inflow_cfs, "flow_cfs") and hasattr(inflow_cfs, "time_hr"):
        t = np.asarray(inflow_cfs.time_hr, dtype=float)
        q = np.asarray(inflow_cfs.flow_cfs, dtype=float)
        step = float(t[1] - t[0])
        if dt_hr is not None and not math.isclose(float(dt_hr), step, rel_tol=1e-9):
            raise InputError(f"dt_hr must equal the hydrograph set's step ({fmt_value(step)} h);"
                             f" got {fmt_value(dt_hr)}. Omit dt_hr")
        return q, step, float(t[0])
    if dt_hr is None:
        raise InputError("dt_hr must be given with an inflow array; got None")
    q = as_float_array(inflow_cfs, "inflow_cfs", lower=0.0)
    dt = float(as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    return q, dt, 0.0


def route_reservoirs(inflow_cfs, dt_hr: float | None, stage_storages, outlets_list, *,
                     initial_stage_ft: npt.ArrayLike = 0.0, keep: str = "series",
                     table_points: int = TABLE_POINTS,
                     overtopping_warning: bool = True, tailwater_ft=None,
                     flap_gate: bool = False) -> BatchRoutingResult:
    r"""Route many ponds x storms at once: one loop over time, vectorized across the batch.

    Parameters
    ----------
    inflow_cfs : array_like (k, nt) or (m, k, nt), or a HydrographSet
        Inflow ordinates of k ponds (or m storms x k ponds) on a common step from t = 0
        [ft3/s]. A :class:`hydrocalc.hydrograph.HydrographSet` (``flow_cfs`` (m, n, nt),
        ``time_hr``) routes subcatchment j through pond j.
    dt_hr : float or None
        Step of the inflow ordinates (the routing step); None with a HydrographSet. [h]
    stage_storages : StageStorage or sequence of k StageStorage
        One pond shape for all, or one per pond.
    outlets_list : Device, OutletStructure or sequence of k outlet specs
        A single device or structure applies to every pond; a list or tuple must have one
        entry per pond, each a device, a list of devices (parallel) or a structure.
    initial_stage_ft : float or array_like (k,) or batch shape, default 0
        Starting stage. [ft]
    keep : {"series", "peaks"}, default "series"
        "series" stores outflow, stage and storage series (needed for
        :meth:`BatchRoutingResult.routing_result`); "peaks" keeps only peaks and volumes
        (less memory for very large batches).
    table_points : int, default 400
        As in :func:`route_reservoir`.
    overtopping_warning : bool, default True
        False: no :class:`OvertoppingWarning` (``overtopped`` still flags the pond-storms),
        for callers that report overtopping themselves; thread-safe, unlike filtering the
        warning with :func:`warnings.catch_warnings`.
    tailwater_ft : None, float or array_like (k,), optional
        Constant tailwater level of every pond (or one per pond, NaN for a free outfall),
        in each pond's devices' frame (elevation when its stage-storage has a datum). Each
        pond's table is then built at its tailwater, so the batch costs the same as with
        free outfalls. A tailwater that varies in time: :func:`route_reservoir`. [ft]
    flap_gate : bool or sequence of k bool, default False
        True: no flow back into the pond(s).

    Returns
    -------
    BatchRoutingResult

    Raises
    ------
    InputError
        If shapes disagree, or for any reason :func:`route_reservoir` would raise.

    Warns
    -----
    OvertoppingWarning
        One warning naming how many pond-storms overtop.

    Notes
    -----
    Each pond's storage-indication table is built exactly as :func:`route_reservoir` builds
    it, so the two agree to round-off. The tables have different lengths; they are
    concatenated, and each pond's :math:`2S/\Delta t + O`, normalized by its value at the
    top, is divided into 4,096 buckets that point to the table interval at the bucket's
    lower edge. Each step takes the bucket's interval, steps up once if the next table
    point is passed, and checks the interval exactly (:math:`SI_j \le x < SI_{j+1}`,
    clipped to the pond's own table, which also gives linear extrapolation above it); the
    rare pond-storms that fail the check (several table points in one bucket) are searched
    step by step. The interval is therefore exact and the arithmetic is that of
    :func:`route_reservoir`. The single loop over time costs about 25 numpy operations per
    step on arrays of the batch size; it runs over blocks of time steps whose inflows are
    transposed in and whose series are transposed out per block, so the results are
    C-contiguous ``(..., nt)`` arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from hydrocalc.outlets import CircularOrifice
    >>> t = np.arange(0, 6.01, 0.05)
    >>> q = 20.0 * np.clip(1 - np.abs(t - 1.0), 0, None)
    >>> ponds = [StageStorage.basin(150, 100, 6), StageStorage.basin(120, 80, 6)]
    >>> b = route_reservoirs(np.stack([q, q]), 0.05, ponds, CircularOrifice(12.0, 0.0))
    >>> b.peak_outflow_cfs.shape
    (2,)
    >>> bool(b.peak_outflow_cfs[1] > b.peak_outflow_cfs[0])   # smaller pond, larger outflow
    True
    """
    check_choice(keep, "keep", ("series", "peaks"))
    q, dt, t0 = _batch_inflow(inflow_cfs, dt_hr)
    if q.ndim not in (2, 3):
        raise InputError(f"inflow_cfs must have shape (k, nt) or (m, k, nt); got {q.shape}")
    k, nt = q.shape[-2], q.shape[-1]
    if nt < 2:
        raise InputError(f"inflow_cfs needs at least 2 time ordinates; got {nt}")
    batch_shape = q.shape[:-1]
    ss_list = _per_pond(stage_storages, k, "stage_storages", StageStorage)
    if isinstance(outlets_list, (Device,)):
        out_list = [outlets_list] * k
    elif isinstance(outlets_list, (list, tuple)):
        if len(outlets_list) != k:
            raise InputError(
                f"outlets_list must have one entry per pond ({k}); got {len(outlets_list)}. "
                "To use one set of devices for every pond, pass an OutletStructure")
        out_list = list(outlets_list)
    else:
        raise InputError(f"outlets_list must be a device, a structure or a list of k outlet "
                         f"specs; got {outlets_list!r}")
    dt_s = dt * S_PER_HR
    tw_k = _batch_tailwater(tailwater_ft, ss_list, k)
    flaps = (list(flap_gate) if isinstance(flap_gate, (list, tuple, np.ndarray))
             else [bool(flap_gate)] * k)
    if len(flaps) != k:
        raise InputError(f"flap_gate must be a bool or one per pond ({k}); got {len(flaps)}")
    tables = []
    for ss, outl in zip(ss_list, out_list):
        structure = _to_stage_frame(as_structure(outl), ss).bind(ss)
        _check_devices(structure, ss)
        tables.append(_route_kernel.cached_table(
            _build_table, ss, structure, dt_s, table_points,
            tailwater=tw_k[len(tables)], flap_gate=bool(flaps[len(tables)])))
    tops = np.array([tb.top for tb in tables])
    h0 = as_float_array(initial_stage_ft, "initial_stage_ft", lower=0.0)
    h0 = np.broadcast_to(h0, batch_shape)
    if (h0 > tops).any():
        raise InputError(f"initial_stage_ft must be <= the top of each pond; got "
                         f"{fmt_value(np.max(h0 - tops) + 0)} ft above a top")

    # concatenated tables; per-pond buckets over the normalized 2S/dt + O
    lens = np.array([tb.si.size for tb in tables])
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    flat_si = np.concatenate([tb.si for tb in tables])
    flat_o = np.concatenate([tb.outflow for tb in tables])
    flat_h = np.concatenate([tb.stage for tb in tables])
    flat_slope = np.concatenate([np.append(tb.slope, 0.0) for tb in tables])
    # the next table point of each interval, +inf after a pond's last interval (so the
    # interval search never steps into the next pond's table)
    next_si = np.concatenate([np.append(tb.si[1:-1], np.inf).tolist() + [np.inf]
                              for tb in tables]) if k else np.empty(0)
    edges = np.arange(_BUCKETS) / _BUCKETS
    scale = np.array([tb.si[tb.n_inside - 1] for tb in tables])   # 2S/dt + O at the top
    bucket = np.concatenate([
        st + np.clip(np.searchsorted(tb.si / sc, edges, side="left") - 1, 0, tb.si.size - 2)
        for st, tb, sc in zip(starts, tables, scale)]).astype(np.intp)

    bsize = int(np.prod(batch_shape))
    pond = np.tile(np.arange(k), bsize // k)
    inv_scale = 1.0 / scale[pond]
    factor = _BUCKETS * inv_scale     # bucket guess only: the search below is exact
    bucket_base = pond * _BUCKETS
    lo = starts[pond]
    hi = (starts + lens - 2)[pond]
    q2 = q.reshape(bsize, nt)

    x = np.empty(bsize)
    grid = x.reshape(-1, k)
    h0g = h0.reshape(-1, k)
    for p in range(k):
        grid[:, p] = np.interp(h0g[:, p], tables[p].stage, tables[p].si)
    j = _locate(x, bucket[bucket_base + np.clip((x * inv_scale * _BUCKETS).astype(np.int64),
                                                0, _BUCKETS - 1)], lo, hi, flat_si)
    o = flat_slope[j] * (x - flat_si[j]) + flat_o[j]
    series = keep == "series"
    x_first, o_first = x.copy(), o.copy()
    flat_hslope = np.append(np.diff(flat_h) / np.diff(flat_si), 0.0)
    half_dt_s = dt_s / 2.0
    # The loop works on blocks of _BLOCK steps held time-major (one contiguous row per
    # step); inflows are transposed in and series transposed out one block at a time, so
    # the results are C-contiguous (batch..., nt) without a full-size transpose.
    blk = _BLOCK
    qbuf = np.empty((blk + 1, bsize))
    if series:
        os_ = np.empty((bsize, nt))
        storage = np.empty((bsize, nt))
        stage = np.empty((bsize, nt))
        # per block: x, the interval j and O by step (row 0 of bo_ext carries the running
        # sum of O, so summing the block's rows continues it in time order, exactly as
        # ndarray.sum(axis=0) over all steps); stage and storage follow per block
        bx = np.empty((blk, bsize))
        bj = np.empty((blk, bsize), dtype=np.intp)
        bo_ext = np.empty((blk + 1, bsize))
        bo = bo_ext[1:]
        bx[0], bj[0], bo[0] = x, j, o
        v_acc = np.zeros(bsize)
        first_block = True
    else:
        v_out = np.zeros(bsize)
        o_new = np.empty(bsize)
    o_max, io_max = o.copy(), np.zeros(bsize, dtype=np.int64)
    x = x.copy()
    x_max = x.copy()
    o_prev, o2 = o.copy(), 2.0 * o
    fl = np.empty(bsize)
    ib = np.empty(bsize, dtype=np.intp)
    j = np.empty(bsize, dtype=np.intp)
    up = np.empty(bsize, dtype=bool)
    bad = np.empty(bsize, dtype=bool)
    d = np.empty(bsize)
    tmp = np.empty(bsize)
    last = _BUCKETS - 1
    add, sub, mul, less_equal, count = (np.add, np.subtract, np.multiply, np.less_equal,
                                        np.count_nonzero)
    # the same recurrence compiled, when numba is installed (identical arithmetic)
    v_compiled = _route_kernel.series_loop(
        q2, x, x_max, bj[0], o, flat_si, flat_o, flat_slope, flat_h, flat_hslope, lo, hi,
        half_dt_s, os_, storage, stage) if series and nt > 1 else None
    if v_compiled is not None:
        v_acc, nt_loop = v_compiled, 0
    else:
        nt_loop = nt
    for b0 in range(0, nt_loop, blk):
        b1 = min(b0 + blk, nt)
        s0 = max(b0 - 1, 0)
        qb = qbuf[: b1 - s0]
        np.copyto(qb, q2[:, s0:b1].T)
        qpair = add(qb[1:], qb[:-1], out=qb[1:])   # row i - s0 - 1: I_{i-1} + I_i
        for i in range(max(b0, 1), b1):
            # x_i = (I_{i-1} + I_i) + x_{i-1} - 2 O_{i-1}, with x = 2S/dt + O (in place)
            add(qpair[i - s0 - 1], x, out=x)
            sub(x, o2, out=x)
            # interval j of every pond-storm: bucket guess, one step up, then an exact check
            mul(x, factor, out=fl)
            np.copyto(ib, fl, casting="unsafe")
            _clip(ib, 0, last, out=ib)
            add(ib, bucket_base, out=ib)
            j0 = bucket[ib]
            less_equal(next_si[j0], x, out=up)
            add(j0, up, out=j)
            sub(x, flat_si[j], out=d)                   # x - SI_j (< 0: j too high)
            less_equal(next_si[j], x, out=bad)          # SI_j+1 <= x: j too low
            np.logical_or(bad, np.less(d, 0.0, out=up), out=bad)
            if count(bad):   # rare: several table points in one bucket, or outside the table
                j[:] = _locate(x, j, lo, hi, flat_si)
                sub(x, flat_si[j], out=d)
            # O_i = dO/dSI_j (x - SI_j) + O_j, by linear interpolation in the pond's table
            o = bo[i - b0] if series else o_new
            mul(flat_slope[j], d, out=tmp)
            add(tmp, flat_o[j], out=o)
            mul(o, 2.0, out=o2)
            np.maximum(x, x_max, out=x_max)
            if series:
                bx[i - b0] = x
                bj[i - b0] = j
            else:
                np.greater(o, o_max, out=up)      # the first time of the peak outflow
                np.copyto(o_max, o, where=up)
                np.copyto(io_max, i, where=up)
                add(o_prev, o, out=tmp)
                v_out += tmp
                o_prev, o_new = o_new, o_prev
        if series:
            n = b1 - b0
            xb, jb, ob = bx[:n], bj[:n], bo[:n]
            np.copyto(os_[:, b0:b1], ob.T)
            np.copyto(storage[:, b0:b1], ((xb - ob) * half_dt_s).T)
            np.copyto(stage[:, b0:b1], (flat_hslope[jb] * (xb - flat_si[jb]) + flat_h[jb]).T)
            if first_block:    # the sum starts with O_0 itself, as ndarray.sum does
                v_acc = ob.sum(axis=0)
                first_block = False
            else:
                bo_ext[0] = v_acc
                v_acc = bo_ext[: n + 1].sum(axis=0)
    if series:
        o = os_[:, -1]
        io_max = np.argmax(os_, axis=1)      # the first maximum, as a running strict maximum
        o_max = os_[np.arange(bsize), io_max]
    del qbuf

    time_hr = t0 + dt * np.arange(nt)
    v_in = dt_s * (q2.sum(axis=1) - (q2[:, 0] + q2[:, -1]) / 2.0)
    # stage and storage rise with 2S/dt + O, so their peaks are at its maximum
    b = np.clip((x_max * inv_scale * _BUCKETS).astype(np.int64), 0, _BUCKETS - 1)
    jm = _locate(x_max, bucket[bucket_base + b], lo, hi, flat_si)
    o_at = flat_slope[jm] * (x_max - flat_si[jm]) + flat_o[jm]
    peak_storage = (x_max - o_at) * dt_s / 2.0
    peak_stage = flat_hslope[jm] * (x_max - flat_si[jm]) + flat_h[jm]
    s_first = (x_first - o_first) * dt_s / 2.0
    s_last = (x - o) * dt_s / 2.0
    if series:
        v_out = dt_s * (v_acc - (os_[:, 0] + os_[:, -1]) / 2.0)
    else:
        v_out = v_out * dt_s / 2.0
    denom = v_in + s_first
    with np.errstate(invalid="ignore", divide="ignore"):
        mb = np.where(denom > 0, 100.0 * (v_in - v_out - (s_last - s_first)) / denom, 0.0)
    over = peak_stage > tops[pond]
    if overtopping_warning and over.any():
        warnings.warn(f"{int(over.sum())} of {bsize} pond-storms overtop the top of the "
                      "structure (see BatchRoutingResult.overtopped)", OvertoppingWarning,
                      stacklevel=2)

    def shaped(a):
        return np.asarray(a).reshape(batch_shape)

    def shaped_series(a):   # (B, nt) -> batch shape + (nt,), a view
        return None if a is None else a.reshape(batch_shape + (nt,))

    return BatchRoutingResult(
        time_hr=time_hr, inflow_cfs=q,
        outflow_cfs=shaped_series(os_ if series else None),
        stage_ft=shaped_series(stage if series else None),
        storage_ft3=shaped_series(storage if series else None),
        peak_outflow_cfs=shaped(o_max), time_of_peak_outflow_hr=shaped(time_hr[io_max]),
        peak_stage_ft=shaped(peak_stage), peak_storage_ft3=shaped(peak_storage),
        mass_balance_error_pct=shaped(mb), overtopped=shaped(over), top_stage_ft=tops,
        dt_hr=dt, _tables=tuple(tables),
        bottom_elevation_ft=np.array([ss.bottom_elevation_ft for ss in ss_list]))


def _batch_tailwater(tailwater_ft, ss_list, k) -> list:
    """Per-pond constant tailwater in stage frame (None: free outfall)."""
    if tailwater_ft is None:
        return [None] * k
    if isinstance(tailwater_ft, Mapping) or (np.ndim(tailwater_ft) == 2):
        raise InputError("route_reservoirs takes a constant tailwater per pond; got a series. "
                         "Route a time-varying tailwater with route_reservoir")
    tw = np.broadcast_to(as_float_array(tailwater_ft, "tailwater_ft", allow_nan=True), (k,))
    out = []
    for p, (level, ss) in enumerate(zip(tw, ss_list)):
        if np.isnan(level):
            out.append(None)
            continue
        st = float(level) - ss.bottom_elevation_ft
        if st > ss.top_stage_ft * (1 + 1e-12):
            raise InputError(
                f"tailwater_ft must be <= the top of each pond; got {fmt_value(level)} for pond "
                f"{p} (top {fmt_value(ss.top_elevation_ft)} ft). Check the level's frame "
                "(elevation or stage) and datum")
        out.append(st)
    return out


#: Buckets per pond over the normalized storage indication (batch interval search).
_BUCKETS = 4096
#: Time steps per block of the batch routing loop (transposed in and out per block).
_BLOCK = 128
try:  # the clip ufunc itself: np.clip's Python wrapper costs ~15 us per call in the loop
    _clip = np._core.umath.clip
except AttributeError:  # pragma: no cover - other numpy layouts
    _clip = np.clip


def _locate(x, j, lo, hi, flat_si):
    """Interval j with flat_si[j] <= x < flat_si[j + 1], clipped to [lo, hi] (the pond's own
    table), from a bucket guess: step up, and down for round-off, until exact."""
    while True:
        up = (j < hi) & (flat_si[j + 1] <= x)
        if not up.any():
            break
        j = j + up
    while True:
        down = (j > lo) & (x < flat_si[j])
        if not down.any():
            break
        j = j - down
    return j


def _per_pond(value, k, name, cls):
    if isinstance(value, cls):
        return [value] * k
    try:
        items = list(value)
    except TypeError:
        raise InputError(f"{name} must be a {cls.__name__} or a sequence of {k}; got "
                         f"{value!r}") from None
    if len(items) != k:
        raise InputError(f"{name} must have one entry per pond ({k}); got {len(items)}")
    for i, it in enumerate(items):
        if not isinstance(it, cls):
            raise InputError(f"{name} must hold {cls.__name__} objects; got {it!r} at index {i}")
    return items


# Re-export of the TR-55 Chapter 6 planning estimate.
from hydrocalc.storage_estimate import estimate_storage_volume  # noqa: E402


# Re-exports: the stage-storage relation, sizing, pond files and the SWMM export live in their
# own modules (one concept each); their names stay importable from here.
from hydrocalc.sizing import (  # noqa: E402
    SizingResult,
    size_orifice,
    size_outlet,
    size_weir,
)
from hydrocalc.pond_file import Pond, load_pond, pond_from_mapping, to_swmm_inp  # noqa: E402
