r"""Interconnected ponds: two ponds whose connecting outlets feel the downstream water level.

:func:`route_interconnected` routes an upstream pond whose outlets discharge into a
downstream pond, solving both water levels together at every step so that the downstream
level is the upstream outlets' tailwater and flow may run back upstream (HydroCAD's "dynamic
storage-indication" for interconnected ponds); :func:`to_swmm_inp_interconnected` writes the
same system for EPA SWMM 5.

Method
------
Continuity of each pond over a step (trapezoidal averages, [1]_ Eq. 8.2.3), with
:math:`L(h_1, h_2)` the flow through the connecting devices (negative: back upstream),
:math:`D_1(h_1)` the upstream pond's discarded flow (exfiltration) and :math:`O_2(h_2)` the
downstream pond's outflow:

.. math::

   \frac{2S_1(h_1)}{\Delta t} + L(h_1, h_2) + D_1(h_1) &= R_1 =
       I_{1,j} + I_{1,j+1} + \frac{2S_{1,j}}{\Delta t} - L_j - D_{1,j} \\
   \frac{2S_2(h_2)}{\Delta t} + O_2(h_2) - L(h_1, h_2) &= R_2 =
       I_{2,j} + I_{2,j+1} + \frac{2S_{2,j}}{\Delta t} - O_{2,j} + L_j

Both equations are solved at once (implicit in both levels) on tables built once:
:math:`A(h_1, h_2) = 2S_1/\Delta t + L + D_1` on the upstream pond's routing stages x the
downstream pond's routing stages (one vectorized evaluation of the devices with the
downstream level as their tailwater), and :math:`B(h_2) = 2S_2/\Delta t + O_2`. For a given
:math:`h_2` the first equation is monotone in :math:`h_1` (a column of A), which gives
:math:`h_1(h_2)`; then :math:`L = R_1 - 2S_1(h_1)/\Delta t - D_1(h_1)` exactly, and the residual
of the second equation, :math:`G(h_2) = B(h_2) - L - R_2`, increases with :math:`h_2` (a
higher downstream level lowers L and raises B). Each step evaluates G on every column at
once to bracket the root, then refines it by the Illinois (modified regula falsi) method on
the columns blended linearly in :math:`h_2`, to a residual below 1e-10 of the flows. The
upstream pond's mass balance closes to round-off by construction; the downstream pond's to
the solver's tolerance. Tables are linear between their points in each level (bilinear in
the connecting flow), like the single-pond routing table.

References
----------
.. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill, 1988,
   Section 8.2.
.. [2] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
   Hydraulics*, EPA/600/R-17/111, 2017 (dynamic-wave routing through storage nodes; the
   independent check in the tests).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from hydrocalc._validate import as_float_array, fmt_value
from hydrocalc.errors import InputError
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.outlets import as_structure
from hydrocalc.stage_storage import StageStorage
from hydrocalc.units import S_PER_HR

__all__ = ["InterconnectedResult", "route_interconnected", "to_swmm_inp_interconnected"]


@dataclass(frozen=True, eq=False)
class InterconnectedResult:
    """Two interconnected ponds routed together (see :func:`route_interconnected`).

    Attributes
    ----------
    time_hr : ndarray
    stage_up_ft, stage_down_ft : ndarray
        Water levels above each pond's bottom. [ft]
    elevation_up_ft, elevation_down_ft : ndarray
        The same as elevations (stage + bottom elevation; equal to stages without datums). [ft]
    link_cfs : ndarray
        Flow through the connecting devices, upstream to downstream (negative: back
        upstream). [ft3/s]
    outflow_down_cfs : ndarray
        Outflow of the downstream pond (to its outfall and discarded). [ft3/s]
    discarded_up_cfs : ndarray
        Exfiltration of the upstream pond. [ft3/s]
    storage_up_ft3, storage_down_ft3 : ndarray
    peak_stage_up_ft, peak_stage_down_ft, peak_elevation_up_ft, peak_elevation_down_ft : float
    peak_link_cfs, peak_reverse_link_cfs, peak_outflow_down_cfs : float
        Largest forward and (>= 0) backward connecting flow; peak downstream outflow.
    mass_balance_error_up_pct, mass_balance_error_down_pct : float
    reverse_flow : bool
        True when flow ran back upstream.
    """

    time_hr: np.ndarray
    stage_up_ft: np.ndarray
    stage_down_ft: np.ndarray
    link_cfs: np.ndarray
    outflow_down_cfs: np.ndarray
    discarded_up_cfs: np.ndarray
    storage_up_ft3: np.ndarray
    storage_down_ft3: np.ndarray
    bottom_elevation_up_ft: float
    bottom_elevation_down_ft: float
    mass_balance_error_up_pct: float
    mass_balance_error_down_pct: float
    dt_hr: float
    warnings: tuple = field(default=())

    @property
    def elevation_up_ft(self) -> np.ndarray:
        return self.stage_up_ft + self.bottom_elevation_up_ft

    @property
    def elevation_down_ft(self) -> np.ndarray:
        return self.stage_down_ft + self.bottom_elevation_down_ft

    @property
    def peak_stage_up_ft(self) -> float:
        return float(self.stage_up_ft.max())

    @property
    def peak_stage_down_ft(self) -> float:
        return float(self.stage_down_ft.max())

    @property
    def peak_elevation_up_ft(self) -> float:
        return self.peak_stage_up_ft + self.bottom_elevation_up_ft

    @property
    def peak_elevation_down_ft(self) -> float:
        return self.peak_stage_down_ft + self.bottom_elevation_down_ft

    @property
    def peak_link_cfs(self) -> float:
        return float(self.link_cfs.max())

    @property
    def peak_reverse_link_cfs(self) -> float:
        return float(max(-self.link_cfs.min(), 0.0))

    @property
    def peak_outflow_down_cfs(self) -> float:
        return float(self.outflow_down_cfs.max())

    @property
    def reverse_flow(self) -> bool:
        return self.peak_reverse_link_cfs > 1e-9 * max(self.peak_link_cfs, 1e-12)

    def summary(self) -> dict:
        """Peaks, levels and mass balances with unit-suffixed keys."""
        return {k: getattr(self, k) for k in (
            "peak_stage_up_ft", "peak_stage_down_ft", "peak_elevation_up_ft",
            "peak_elevation_down_ft", "peak_link_cfs", "peak_reverse_link_cfs",
            "peak_outflow_down_cfs", "reverse_flow", "mass_balance_error_up_pct",
            "mass_balance_error_down_pct", "dt_hr")}


def _frame_offset(up: StageStorage, down: StageStorage) -> float:
    """Downstream stage -> stage in the upstream pond's frame: + (bottom_down - bottom_up)."""
    if (up.datum_ft is None) != (down.datum_ft is None):
        raise InputError(
            "interconnected ponds must share one vertical frame: give both stage-storages a "
            f"datum_ft (elevations) or neither; got datum_ft {up.datum_ft} upstream and "
            f"{down.datum_ft} downstream")
    return down.bottom_elevation_ft - up.bottom_elevation_ft


def _on_grid(t, hyd, name):
    if hyd is None:
        return np.zeros_like(t)
    if not isinstance(hyd, Hydrograph):
        raise InputError(f"{name} must be a Hydrograph; got {hyd!r}")
    return np.interp(t, hyd.time_hr, hyd.flow_cfs, left=0.0, right=0.0)


def route_interconnected(inflow_up: Hydrograph, pond_up: StageStorage, outlets_up,
                         pond_down: StageStorage, outlets_down, *,
                         inflow_down: Hydrograph | None = None,
                         initial_stage_up_ft: float = 0.0, initial_stage_down_ft: float = 0.0,
                         tailwater_ft: float | None = None, duration_hr: float | None = None,
                         table_points: int = 200) -> InterconnectedResult:
    """Route two interconnected ponds together (dynamic storage-indication).

    Parameters
    ----------
    inflow_up : Hydrograph
        Inflow to the upstream pond; its step is the routing step. [ft3/s]
    pond_up, pond_down : StageStorage
        The two ponds, both with a ``datum_ft`` (elevations) or neither (then both bottoms
        are at the same level, stage 0).
    outlets_up : Device, list or OutletStructure
        Devices connecting the upstream pond to the downstream one (in the upstream pond's
        frame: elevations when it has a datum); exfiltration leaves the system.
    outlets_down : Device, list or OutletStructure
        Outlets of the downstream pond to its outfall.
    inflow_down : Hydrograph, optional
        Local inflow to the downstream pond. [ft3/s]
    initial_stage_up_ft, initial_stage_down_ft : float, default 0
        Starting levels above each pond's bottom. [ft]
    tailwater_ft : float, optional
        Constant tailwater at the downstream pond's outlets, in its devices' frame. [ft]
    duration_hr : float, optional
        Route this long from the start (default: the upstream inflow's span). [h]
    table_points : int, default 200
        Even stages of each pond's table (plus every breakpoint).

    Returns
    -------
    InterconnectedResult

    Raises
    ------
    InputError
        For invalid ponds, devices, frames or levels, or when a step cannot be solved within
        the tables (a level beyond 11 times a pond's top).

    Notes
    -----
    Numerical scheme: see the module docstring (both levels implicit at every step, a
    monotone bracket-and-refine solve on tables built once).
    """
    from hydrocalc.routing import (
        _build_table,
        _check_devices,
        _tailwater_series,
        _to_stage_frame,
    )

    for ss, nm in ((pond_up, "pond_up"), (pond_down, "pond_down")):
        if not isinstance(ss, StageStorage):
            raise InputError(f"{nm} must be a StageStorage; got {ss!r}")
    offset = _frame_offset(pond_up, pond_down)
    s_up = _to_stage_frame(as_structure(outlets_up), pond_up).bind(pond_up)
    s_dn = _to_stage_frame(as_structure(outlets_down), pond_down).bind(pond_down)
    _check_devices(s_up, pond_up)
    _check_devices(s_dn, pond_down)
    if not isinstance(inflow_up, Hydrograph):
        raise InputError(f"inflow_up must be a Hydrograph; got {inflow_up!r}")
    dt = float(inflow_up.dt_hr)
    t0 = float(inflow_up.time_hr[0])
    t_end = float(inflow_up.time_hr[-1]) if duration_hr is None else t0 + float(
        as_float_array(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False))
    n = int(math.ceil((t_end - t0) / dt - 1e-9)) + 1
    t = t0 + dt * np.arange(n)
    q1 = _on_grid(t, inflow_up, "inflow_up")
    q2 = _on_grid(t, inflow_down, "inflow_down")
    dt_s = dt * S_PER_HR
    h1_0 = float(as_float_array(initial_stage_up_ft, "initial_stage_up_ft", lower=0.0,
                                upper=pond_up.top_stage_ft))
    h2_0 = float(as_float_array(initial_stage_down_ft, "initial_stage_down_ft", lower=0.0,
                                upper=pond_down.top_stage_ft))
    tw2 = None if tailwater_ft is None else float(
        _tailwater_series(float(tailwater_ft), np.zeros(1), pond_down)[0])

    # tables: the ordinary routing stages of each pond (with their extensions above the top)
    tb1 = _build_table(pond_up, s_up, dt_s, table_points)
    tb2 = _build_table(pond_down, s_dn, dt_s, table_points, tailwater=tw2)
    h1, s1 = tb1.stage, tb1.storage
    h2, s2 = tb2.stage, tb2.storage
    b2 = tb2.si                                                       # 2 S2/dt + O2
    o2 = tb2.outflow
    # grid rows = downstream levels (the devices' tailwater), columns = upstream levels
    hh1, tw = np.broadcast_arrays(h1[None, :], (h2 + offset)[:, None])
    comps = s_up._components_tw(hh1, tw)
    link = np.sum([q for d, q in comps if d.kind != "discarded"] or [np.zeros(hh1.shape)],
                  axis=0).T
    disc = np.sum([q for d, q in comps if d.kind == "discarded"] or [np.zeros(hh1.shape)],
                  axis=0).T
    d1 = disc[:, 0]                                                  # depends on h1 only
    a = 2.0 * s1[:, None] / dt_s + link + d1[:, None]
    if (np.diff(a, axis=0) <= 0).any():
        raise InputError("the connecting devices' rating must not decrease with the upstream "
                         "level; check the upstream pond's outlets")
    n1 = h1.size
    cols = np.arange(h2.size)

    def h1_of(r1, col):
        """Upstream level solving column ``col`` (1-D, monotone) = r1; index and weight."""
        j = int(np.clip(np.searchsorted(col, r1, side="right") - 1, 0, n1 - 2))
        return j, (r1 - col[j]) / (col[j + 1] - col[j])

    def lin(v, j, w):
        return v[j] + w * (v[j + 1] - v[j])

    st1 = np.empty(n)
    st2 = np.empty(n)
    lk = np.empty(n)
    o2s = np.empty(n)
    d1s = np.empty(n)
    sto1 = np.empty(n)
    sto2 = np.empty(n)
    # initial state
    q0 = s_up._components_tw(np.array([h1_0]), np.array([h2_0 + offset]))
    lk[0] = float(sum(q[0] for d, q in q0 if d.kind != "discarded"))
    d1s[0] = float(sum(q[0] for d, q in q0 if d.kind == "discarded"))
    o2s[0] = float(np.interp(h2_0, h2, o2))
    st1[0], st2[0] = h1_0, h2_0
    sto1[0] = float(np.interp(h1_0, h1, s1))
    sto2[0] = float(np.interp(h2_0, h2, s2))
    tol = 1e-10
    for i in range(1, n):
        r1 = q1[i - 1] + q1[i] + 2.0 * sto1[i - 1] / dt_s - lk[i - 1] - d1s[i - 1]
        r2 = q2[i - 1] + q2[i] + 2.0 * sto2[i - 1] / dt_s - o2s[i - 1] + lk[i - 1]
        # every column at once: h1(h2_k) and the residual G_k
        jj = np.clip((a <= r1).sum(axis=0) - 1, 0, n1 - 2)
        a0, a1 = a[jj, cols], a[jj + 1, cols]
        ww = (r1 - a0) / (a1 - a0)
        s1k = s1[jj] + ww * (s1[jj + 1] - s1[jj])
        d1k = d1[jj] + ww * (d1[jj + 1] - d1[jj])
        g = b2 - (r1 - 2.0 * s1k / dt_s - d1k) - r2
        k = int(np.searchsorted(g, 0.0, side="right")) - 1
        scale = max(abs(r1), abs(r2), 1.0)
        if k < 0 and g[0] <= tol * scale:    # round-off at an empty downstream pond
            k = 0
        if k < 0 or k >= h2.size - 1:
            raise InputError(
                f"the interconnected ponds could not be solved at {fmt_value(t[i])} h: the "
                "levels leave the routing tables (over 11 times a pond's top). Check the "
                "ponds, devices and inflows")
        # Illinois refinement on the blended column between k and k + 1
        lo, hi, glo, ghi = 0.0, 1.0, float(g[k]), float(g[k + 1])
        side = 0
        w2 = 0.0
        for _ in range(60):
            w2 = lo - glo * (hi - lo) / (ghi - glo) if ghi != glo else (lo + hi) / 2.0
            col = a[:, k] + w2 * (a[:, k + 1] - a[:, k])
            j, w = h1_of(r1, col)
            s1v, d1v = lin(s1, j, w), lin(d1, j, w)
            gv = (b2[k] + w2 * (b2[k + 1] - b2[k])) - (r1 - 2.0 * s1v / dt_s - d1v) - r2
            if abs(gv) <= tol * scale:
                break
            if gv > 0:
                hi, ghi = w2, gv
                if side == 1:
                    glo /= 2.0
                side = 1
            else:
                lo, glo = w2, gv
                if side == -1:
                    ghi /= 2.0
                side = -1
        h2v = h2[k] + w2 * (h2[k + 1] - h2[k])
        st1[i] = lin(h1, j, w)
        st2[i] = h2v
        sto1[i] = s1v
        d1s[i] = d1v
        lk[i] = r1 - 2.0 * s1v / dt_s - d1v
        o2s[i] = o2[k] + w2 * (o2[k + 1] - o2[k])
        sto2[i] = s2[k] + w2 * (s2[k + 1] - s2[k])

    def mb(vin, vout, s_first, s_last):
        d = vin + s_first
        return 0.0 if d <= 0 else 100.0 * (vin - vout - (s_last - s_first)) / d

    v_in1 = float(np.trapezoid(q1, dx=dt_s))
    v_lk = float(np.trapezoid(lk, dx=dt_s))
    v_d1 = float(np.trapezoid(d1s, dx=dt_s))
    v_in2 = float(np.trapezoid(q2, dx=dt_s))
    v_o2 = float(np.trapezoid(o2s, dx=dt_s))
    return InterconnectedResult(
        time_hr=t, stage_up_ft=st1, stage_down_ft=st2, link_cfs=lk, outflow_down_cfs=o2s,
        discarded_up_cfs=d1s, storage_up_ft3=sto1, storage_down_ft3=sto2,
        bottom_elevation_up_ft=pond_up.bottom_elevation_ft,
        bottom_elevation_down_ft=pond_down.bottom_elevation_ft,
        mass_balance_error_up_pct=mb(v_in1, v_lk + v_d1, sto1[0], sto1[-1]),
        mass_balance_error_down_pct=mb(v_in2 + v_lk, v_o2, sto2[0], sto2[-1]), dt_hr=dt)


def to_swmm_inp_interconnected(inflow_up: Hydrograph, pond_up: StageStorage, outlets_up,
                               pond_down: StageStorage, outlets_down, *,
                               routing_step_s: float = 1.0, storage_points: int = 200,
                               tailwater_ft: float | None = None) -> str:
    """The two ponds as an EPA SWMM 5 input file: storage ``SU0`` (upstream, inflow
    ``TS0``) linked by the connecting devices (links ``U1``, ``U2``, ...) to ``SU1``
    (downstream, outlets to ``OUT1``, ...). Dynamic wave carries backwater and reverse flow.

    Same conventions as :func:`hydrocalc.routing.to_swmm_inp`; the upstream storage's invert
    is its bottom's height above the downstream bottom (elevations: the datum difference).
    """
    from hydrocalc.pond_file import _swmm_curve, _swmm_link, to_swmm_inp
    from hydrocalc.routing import _to_stage_frame

    offset = _frame_offset(pond_up, pond_down)
    zero = Hydrograph(inflow_up.time_hr, np.zeros_like(inflow_up.flow_cfs))
    text = to_swmm_inp(zero, pond_down, outlets_down, routing_step_s=routing_step_s,
                       storage_points=storage_points, tailwater_ft=tailwater_ft)
    lines = text.split("\n")
    s_up = _to_stage_frame(as_structure(outlets_up), pond_up)
    h, area = _swmm_curve(pond_up, storage_points)
    invert = -offset                     # upstream bottom above the downstream bottom
    orifices, weirs, xsect = [], [], []
    for i, dev in enumerate(s_up.leaves()):
        _swmm_link(dev, f"U{i + 1}", "SU0", "SU1", orifices, weirs, xsect)

    def insert_after(header, new):
        k = lines.index(header)
        lines[k + 1:k + 1] = new

    insert_after("[STORAGE]", [f"SU0 {invert:.6f} {h[-1]:.6f} 0 TABULAR SC0 0 0"])
    insert_after("[ORIFICES]", orifices)
    insert_after("[WEIRS]", weirs)
    insert_after("[XSECTIONS]", xsect)
    k = lines.index("[INFLOWS]")
    lines[k + 1] = "SU0 FLOW TS0 FLOW 1.0 1.0"
    t = np.asarray(inflow_up.time_hr, dtype=float)
    insert_after("[TIMESERIES]", [f"TS0 {ti:.6f} {qi:.8g}" for ti, qi in
                                  zip(t - t[0], inflow_up.flow_cfs)])
    insert_after("[CURVES]", [f"SC0 {'Storage' if i == 0 else ''} {hi:.8f} {ai:.8f}"
                              for i, (hi, ai) in enumerate(zip(h, area))])
    return "\n".join(lines)
