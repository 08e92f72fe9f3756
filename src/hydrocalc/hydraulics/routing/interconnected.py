r"""Interconnected ponds: ponds whose connecting outlets feel the downstream water level.

:func:`route_interconnected` routes an upstream pond whose outlets discharge into a
downstream pond, solving both water levels together at every step so that the downstream
level is the upstream outlets' tailwater and flow may run back upstream (HydroCAD's "dynamic
storage-indication" for interconnected ponds); :func:`to_swmm_inp_interconnected` writes the
same system for EPA SWMM 5. :func:`route_interconnected_chain` does the same for N ponds in a
chain or a tree (several ponds backing into one), all levels solved at once by Newton's method
(see its Notes); :func:`to_swmm_inp_interconnected_chain` writes that system for SWMM.

Method (two ponds)
------------------
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
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import NamedTuple, cast

import numpy as np

from hydrocalc._validate import as_float_array, fmt_value
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import as_structure
from hydrocalc.hydraulics.pond_file import swmm_curve, swmm_link, to_swmm_inp
from hydrocalc.hydraulics.routing.reservoir import tailwater_series
from hydrocalc.hydraulics.routing.table import (
    _build_table,
    _table_stages,
    check_devices,
    to_stage_frame,
)
from hydrocalc.hydraulics.stage_storage import StageStorage
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.units import S_PER_HR

__all__ = ["ChainResult", "InterconnectedResult", "route_interconnected",
           "route_interconnected_chain", "to_swmm_inp_interconnected",
           "to_swmm_inp_interconnected_chain"]


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
        """Water-surface elevation of the upstream pond at each time step [ft]."""
        return self.stage_up_ft + self.bottom_elevation_up_ft

    @property
    def elevation_down_ft(self) -> np.ndarray:
        """Water-surface elevation of the downstream pond at each time step [ft]."""
        return self.stage_down_ft + self.bottom_elevation_down_ft

    @property
    def peak_stage_up_ft(self) -> float:
        """Highest stage of the upstream pond above its bottom [ft]."""
        return float(self.stage_up_ft.max())

    @property
    def peak_stage_down_ft(self) -> float:
        """Highest stage of the downstream pond above its bottom [ft]."""
        return float(self.stage_down_ft.max())

    @property
    def peak_elevation_up_ft(self) -> float:
        """Highest water-surface elevation of the upstream pond [ft]."""
        return self.peak_stage_up_ft + self.bottom_elevation_up_ft

    @property
    def peak_elevation_down_ft(self) -> float:
        """Highest water-surface elevation of the downstream pond [ft]."""
        return self.peak_stage_down_ft + self.bottom_elevation_down_ft

    @property
    def peak_link_cfs(self) -> float:
        """Largest forward (downstream) flow through the connecting link [ft3/s]."""
        return float(self.link_cfs.max())

    @property
    def peak_reverse_link_cfs(self) -> float:
        """Largest backward (upstream) flow through the link, >= 0 [ft3/s]."""
        return float(max(-self.link_cfs.min(), 0.0))

    @property
    def peak_outflow_down_cfs(self) -> float:
        """Peak outflow of the downstream pond [ft3/s]."""
        return float(self.outflow_down_cfs.max())

    @property
    def reverse_flow(self) -> bool:
        """True when flow ran back upstream through the link."""
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


def _time_grid(first: Hydrograph, duration_hr) -> tuple[float, np.ndarray]:
    """Routing step [h] and time grid: the hydrograph's step, over its span or duration_hr."""
    dt = float(first.dt_hr)
    t0 = float(first.time_hr[0])
    t_end = float(first.time_hr[-1]) if duration_hr is None else t0 + float(
        as_float_array(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False))
    n = int(math.ceil((t_end - t0) / dt - 1e-9)) + 1
    return dt, t0 + dt * np.arange(n)


def _mass_balance_pct(v_in, v_out, s_first, s_last):
    """Mass-balance error, 100 (in - out - change in storage) / (in + initial storage)."""
    d = v_in + s_first
    return 0.0 if d <= 0 else 100.0 * (v_in - v_out - (s_last - s_first)) / d


def _lin(v, j, w):
    """Value of table ``v`` between points ``j`` and ``j + 1`` at weight ``w``."""
    return v[j] + w * (v[j + 1] - v[j])


def _h1_of(r1, col):
    """Upstream level solving column ``col`` (1-D, monotone) = r1; index and weight."""
    j = int(np.clip(np.searchsorted(col, r1, side="right") - 1, 0, col.size - 2))
    return j, (r1 - col[j]) / (col[j + 1] - col[j])


class _PairTables(NamedTuple):
    """Routing tables of two interconnected ponds (see the module docstring)."""

    h1: np.ndarray      # upstream routing stages [ft]
    s1: np.ndarray      # upstream storage [ft3]
    d1: np.ndarray      # upstream exfiltration, depends on h1 only [ft3/s]
    a: np.ndarray       # A(h1, h2) = 2 S1/dt + L + D1, rows h1, columns h2 [ft3/s]
    h2: np.ndarray      # downstream routing stages [ft]
    s2: np.ndarray      # downstream storage [ft3]
    b2: np.ndarray      # B(h2) = 2 S2/dt + O2 [ft3/s]
    o2: np.ndarray      # downstream outflow [ft3/s]
    cols: np.ndarray    # column indices of A


def _pair_tables(pond_up, s_up, pond_down, s_dn, offset, dt_s, table_points,
                 tw2) -> _PairTables:
    """Tables of both ponds and A(h1, h2), checked to increase with the upstream level."""
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
    return _PairTables(h1, s1, d1, a, h2, s2, b2, o2, np.arange(h2.size))


def _pair_step(tb: _PairTables, r1: float, r2: float, dt_s: float, time_hr: float) -> tuple:
    """Levels, storages and flows solving both ponds' continuity over one step.

    Brackets the root of G(h2) on every column at once, then refines it by the Illinois
    method (see the module docstring). Returns (h1, h2, S1, D1, L, O2, S2).
    """
    h1, s1, d1, a, h2, s2, b2, o2, cols = tb
    n1 = h1.size
    tol = 1e-10
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
            f"the interconnected ponds could not be solved at {fmt_value(time_hr)} h: the "
            "levels leave the routing tables (over 11 times a pond's top). Check the "
            "ponds, devices and inflows")
    # Illinois refinement on the blended column between k and k + 1
    lo, hi, glo, ghi = 0.0, 1.0, float(g[k]), float(g[k + 1])
    side = 0
    w2 = 0.0
    for _ in range(60):
        w2 = lo - glo * (hi - lo) / (ghi - glo) if ghi != glo else (lo + hi) / 2.0
        col = a[:, k] + w2 * (a[:, k + 1] - a[:, k])
        j, w = _h1_of(r1, col)
        s1v, d1v = _lin(s1, j, w), _lin(d1, j, w)
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
    return (_lin(h1, j, w), h2v, s1v, d1v, r1 - 2.0 * s1v / dt_s - d1v,
            o2[k] + w2 * (o2[k + 1] - o2[k]), s2[k] + w2 * (s2[k + 1] - s2[k]))


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
    Continuity of each pond over a step (Chow, Maidment and Mays [1]_ Eq. 8.2.3), both
    levels implicit at every step, solved by a monotone bracket-and-refine search (the
    Illinois method, Dowell and Jarratt [2]_) on tables built once: the equations and the
    solver are set out in the module docstring. Checked against EPA SWMM 5 dynamic-wave
    routing through storage nodes (Rossman [3]_) in the test suite.

    References
    ----------
    .. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill,
       1988, Section 8.2, Eq. 8.2.3.
    .. [2] Dowell, M. and Jarratt, P., "A modified regula falsi method for computing the root
       of an equation", BIT Numerical Mathematics 11(2), 168-174, 1971.
    .. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
       Hydraulics*, EPA/600/R-17/111, 2017.

    Examples
    --------
    A pond draining through a 12-in orifice (invert 1 ft) into a second pond. When the
    second pond is so large that its level stays below the orifice, the pair routes as the
    first pond alone with a free outfall:

    >>> import numpy as np
    >>> from hydrocalc.hydraulics.outlets import CircularOrifice, RectangularWeir
    >>> from hydrocalc.hydraulics.routing import route_reservoir
    >>> t = np.arange(0.0, 12.001, 0.02)
    >>> storm = Hydrograph(t, 20.0 * np.exp(-((t - 3.0) / 1.0) ** 2))
    >>> up = StageStorage.from_areas([0, 2, 4, 6], [20000, 26000, 32500, 39500])
    >>> lake = StageStorage.from_areas([0, 4], [400000, 400000])
    >>> pair = route_interconnected(storm, up, CircularOrifice(12, 1.0), lake,
    ...                             RectangularWeir(20.0, 0.0))
    >>> alone = route_reservoir(storm, up, CircularOrifice(12, 1.0))
    >>> round(pair.peak_stage_up_ft, 3), round(alone.peak_stage_ft, 3)
    (3.727, 3.727)

    A small second pond with a 4-in outlet fills above the orifice and backs water up: the
    first pond rises higher and the connecting flow peaks lower.

    >>> small = StageStorage.from_areas([0, 4], [8000, 8000])
    >>> r = route_interconnected(storm, up, CircularOrifice(12, 1.0), small,
    ...                          CircularOrifice(4, 0.0))
    >>> round(r.peak_stage_down_ft, 2), round(r.peak_stage_up_ft, 2), round(r.peak_link_cfs, 2)
    (3.6, 3.8, 5.18)
    >>> round(alone.peak_outflow_cfs, 2)
    5.64
    """
    for ss, nm in ((pond_up, "pond_up"), (pond_down, "pond_down")):
        if not isinstance(ss, StageStorage):
            raise InputError(f"{nm} must be a StageStorage; got {ss!r}")
    offset = _frame_offset(pond_up, pond_down)
    s_up = to_stage_frame(as_structure(outlets_up), pond_up).bind(pond_up)
    s_dn = to_stage_frame(as_structure(outlets_down), pond_down).bind(pond_down)
    check_devices(s_up, pond_up)
    check_devices(s_dn, pond_down)
    if not isinstance(inflow_up, Hydrograph):
        raise InputError(f"inflow_up must be a Hydrograph; got {inflow_up!r}")
    dt, t = _time_grid(inflow_up, duration_hr)
    n = t.size
    q1 = _on_grid(t, inflow_up, "inflow_up")
    q2 = _on_grid(t, inflow_down, "inflow_down")
    dt_s = dt * S_PER_HR
    h1_0 = float(as_float_array(initial_stage_up_ft, "initial_stage_up_ft", lower=0.0,
                                upper=pond_up.top_stage_ft))
    h2_0 = float(as_float_array(initial_stage_down_ft, "initial_stage_down_ft", lower=0.0,
                                upper=pond_down.top_stage_ft))
    # tailwater_series returns None only for a None tailwater.
    tw2 = None if tailwater_ft is None else float(
        cast(np.ndarray, tailwater_series(float(tailwater_ft), np.zeros(1), pond_down))[0])
    tb = _pair_tables(pond_up, s_up, pond_down, s_dn, offset, dt_s, table_points, tw2)

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
    o2s[0] = float(np.interp(h2_0, tb.h2, tb.o2))
    st1[0], st2[0] = h1_0, h2_0
    sto1[0] = float(np.interp(h1_0, tb.h1, tb.s1))
    sto2[0] = float(np.interp(h2_0, tb.h2, tb.s2))
    for i in range(1, n):
        r1 = q1[i - 1] + q1[i] + 2.0 * sto1[i - 1] / dt_s - lk[i - 1] - d1s[i - 1]
        r2 = q2[i - 1] + q2[i] + 2.0 * sto2[i - 1] / dt_s - o2s[i - 1] + lk[i - 1]
        (st1[i], st2[i], sto1[i], d1s[i], lk[i], o2s[i],
         sto2[i]) = _pair_step(tb, r1, r2, dt_s, t[i])

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
        mass_balance_error_up_pct=_mass_balance_pct(v_in1, v_lk + v_d1, sto1[0], sto1[-1]),
        mass_balance_error_down_pct=_mass_balance_pct(v_in2 + v_lk, v_o2, sto2[0], sto2[-1]),
        dt_hr=dt)


# =========================================================================================
# Chains and trees of interconnected ponds
# =========================================================================================
@dataclass(frozen=True, eq=False)
class ChainResult:
    """Ponds routed together, each one's outlets feeling the next one's level.

    See :func:`route_interconnected_chain`. Arrays are (ponds, steps), in the order the ponds
    were given.

    Attributes
    ----------
    time_hr : ndarray (nt,)
    names : tuple of str
    to : tuple of int or None
        Index of the pond each pond discharges into (None: the last pond, to its outfall).
    inflow_cfs : ndarray
        Local inflow of every pond (not counting the connecting flows). [ft3/s]
    stage_ft, elevation_ft, storage_ft3 : ndarray
        Levels above each pond's bottom, the same as elevations, storage. [ft], [ft3]
    outflow_cfs : ndarray
        Flow through each pond's outlets other than exfiltration: into the pond downstream
        (negative: back upstream) or, for the last pond, to its outfall. [ft3/s]
    discarded_cfs : ndarray
        Exfiltration of every pond (leaves the system). [ft3/s]
    bottom_elevation_ft : ndarray (N,)
    mass_balance_error_pct : ndarray (N,)
        Per pond, 100 (inflows - outflows - change in storage) / (inflows + initial storage).
    links : tuple of (int, int)
        (upstream, downstream) pond indices of every connection, in pond order.
    link_cfs : ndarray (links, nt)
        Flow through every connection (negative: back upstream). [ft3/s]
    newton_iterations_max : int
        Most Newton iterations any step needed.
    """

    time_hr: np.ndarray
    names: tuple
    to: tuple
    inflow_cfs: np.ndarray
    stage_ft: np.ndarray
    storage_ft3: np.ndarray
    outflow_cfs: np.ndarray
    discarded_cfs: np.ndarray
    bottom_elevation_ft: np.ndarray
    mass_balance_error_pct: np.ndarray
    dt_hr: float
    newton_iterations_max: int
    warnings: tuple = field(default=())

    @property
    def root(self) -> int:
        """Index of the last pond (the one discharging to the outfall)."""
        return self.to.index(None)

    @property
    def elevation_ft(self) -> np.ndarray:
        """Water-surface elevation of every pond, (ponds, steps) [ft]."""
        return self.stage_ft + self.bottom_elevation_ft[:, None]

    @property
    def links(self) -> tuple:
        """The connecting links as ``(upstream index, downstream index)`` pairs."""
        return tuple((i, d) for i, d in enumerate(self.to) if d is not None)

    @property
    def link_cfs(self) -> np.ndarray:
        """Flow through every link, (links, steps), in the order of :attr:`links` [ft3/s]."""
        return self.outflow_cfs[[i for i, _ in self.links]]

    @property
    def total_inflow_cfs(self) -> np.ndarray:
        """Local inflow plus the connecting flows from the ponds upstream [ft3/s]."""
        q = self.inflow_cfs.copy()
        for i, d in self.links:
            q[d] += self.outflow_cfs[i]
        return q

    @property
    def peak_stage_ft(self) -> np.ndarray:
        """Highest stage of every pond above its bottom [ft]."""
        return self.stage_ft.max(axis=1)

    @property
    def peak_elevation_ft(self) -> np.ndarray:
        """Highest water-surface elevation of every pond [ft]."""
        return self.peak_stage_ft + self.bottom_elevation_ft

    @property
    def peak_outflow_cfs(self) -> np.ndarray:
        """Peak outflow of every pond [ft3/s]."""
        return self.outflow_cfs.max(axis=1)

    @property
    def peak_link_cfs(self) -> np.ndarray:
        """Largest forward (downstream) flow through every link [ft3/s]."""
        return self.link_cfs.max(axis=1)

    @property
    def peak_reverse_link_cfs(self) -> np.ndarray:
        """Largest backward (upstream) flow through every link, >= 0 [ft3/s]."""
        return np.maximum(-self.link_cfs.min(axis=1), 0.0)

    @property
    def reverse_flow(self) -> np.ndarray:
        """Per link: True when flow ran back upstream."""
        return self.peak_reverse_link_cfs > 1e-9 * np.maximum(self.peak_link_cfs, 1e-12)

    def summary(self) -> list[dict]:
        """One dict per pond: peaks, levels, reverse flow into it, mass balance."""
        rev_in = np.zeros(len(self.names))
        for (i, _), r in zip(self.links, self.peak_reverse_link_cfs, strict=True):
            rev_in[i] = r
        return [{"pond": nm, "to": (None if d is None else self.names[d]),
                 "peak_stage_ft": float(self.peak_stage_ft[i]),
                 "peak_elevation_ft": float(self.peak_elevation_ft[i]),
                 "peak_outflow_cfs": float(self.peak_outflow_cfs[i]),
                 "peak_reverse_cfs": float(rev_in[i]),
                 "mass_balance_error_pct": float(self.mass_balance_error_pct[i])}
                for i, (nm, d) in enumerate(zip(self.names, self.to, strict=True))]


def _chain_topology(to, n: int) -> tuple[list, int, list, list]:
    """Validated ``to`` (default: a chain), the root, children lists and a topological order.

    The order puts every pond after all ponds upstream of it.
    """
    if to is None:
        to = list(range(1, n)) + [None]
    to = list(to)
    if len(to) != n:
        raise InputError(f"to must give one downstream pond (index or None) per pond; got "
                         f"{len(to)} for {n} ponds")
    for i, d in enumerate(to):
        if d is not None and (isinstance(d, bool) or not isinstance(d, int | np.integer)
                              or not 0 <= d < n or d == i):
            raise InputError(f"to[{i}] must be None or the index of another pond (0 to "
                             f"{n - 1}); got {d!r}")
    roots = [i for i, d in enumerate(to) if d is None]
    if len(roots) != 1:
        raise InputError(f"exactly one pond must discharge to the outfall (to = None); got "
                         f"{len(roots)}: {roots}")
    depth = []
    for i in range(n):
        k, seen = i, 0
        while to[k] is not None:
            k = to[k]
            seen += 1
            if seen > n:
                raise InputError(f"to must not form a loop; got {to}")
        depth.append(seen)
    children = [[k for k in range(n) if to[k] == i] for i in range(n)]
    order = sorted(range(n), key=lambda i: -depth[i])
    return [None if d is None else int(d) for d in to], roots[0], children, order


_CHAIN_TOL = 1e-12    # a step converges when every residual is below this x the largest flow


def _chain_inputs(inflows, ponds, outlets, to, names) -> tuple:
    """Validated ponds, inflows, bound outlet structures, topology and names of a chain."""
    ponds = list(ponds)
    n_p = len(ponds)
    if n_p < 2:
        raise InputError(f"route_interconnected_chain needs at least 2 ponds; got {n_p}")
    outlets = list(outlets)
    inflows = list(inflows)
    for seq, nm in ((outlets, "outlets"), (inflows, "inflows")):
        if len(seq) != n_p:
            raise InputError(f"{nm} must have one entry per pond ({n_p}); got {len(seq)}")
    for i, ss in enumerate(ponds):
        if not isinstance(ss, StageStorage):
            raise InputError(f"ponds[{i}] must be a StageStorage; got {ss!r}")
    with_datum = [ss.datum_ft is not None for ss in ponds]
    if any(with_datum) and not all(with_datum):
        raise InputError("interconnected ponds must share one vertical frame: give every "
                         "stage-storage a datum_ft (elevations) or none; got datum_ft "
                         f"{[ss.datum_ft for ss in ponds]}")
    to, root, children, order = _chain_topology(to, n_p)
    names = tuple(str(i) for i in range(n_p)) if names is None else tuple(map(str, names))
    if len(names) != n_p:
        raise InputError(f"names must have one entry per pond ({n_p}); got {len(names)}")
    structs = []
    for i, ss in enumerate(ponds):
        st = to_stage_frame(as_structure(outlets[i]), ss).bind(ss)
        check_devices(st, ss)
        structs.append(st)
    given = [q for q in inflows if q is not None]
    if not given:
        raise InputError("inflows must give at least one Hydrograph; got only None")
    for i, q in enumerate(inflows):
        if q is not None and not isinstance(q, Hydrograph):
            raise InputError(f"inflows[{i}] must be a Hydrograph or None; got {q!r}")
    return ponds, inflows, structs, to, root, children, order, names, given[0]


def _chain_initial_stages(initial_stages_ft, ponds) -> np.ndarray:
    """Validated starting level of every pond (default 0), in ft."""
    n_p = len(ponds)
    h_init = np.zeros(n_p) if initial_stages_ft is None else np.array(
        [float(as_float_array(v, f"initial_stages_ft[{i}]", lower=0.0,
                              upper=ponds[i].top_stage_ft))
         for i, v in enumerate(initial_stages_ft)])
    if h_init.size != n_p:
        raise InputError(f"initial_stages_ft must have one level per pond ({n_p}); got "
                         f"{h_init.size}")
    return h_init


def _chain_tables(ponds, structs, to, root, names, dt_s, table_points, tw_r) -> tuple:
    """Tables as lists: stages H, storages S, exfiltration D, the root's outflow, links.

    ``links[i]`` is the flow through pond i's devices on (its stages x the downstream
    pond's stages), checked to increase with pond i's level.
    """
    # tables: every pond's routing stages; its storage and exfiltration; the root's
    # outflow; every connection's flow on (its stages x the downstream pond's stages)
    hs, ss_, ds, links = [], [], [], {}
    for i in range(len(ponds)):
        if i == root:
            tb = _build_table(ponds[i], structs[i], dt_s, table_points, tailwater=tw_r)
            h = np.asarray(tb.stage)
            disc = np.sum([q for _, k, q in tb.parts if k == "discarded"]
                          or [np.zeros_like(h)], axis=0)
            root_out = np.asarray(tb.outflow) - disc
        else:
            h = _table_stages(ponds[i], structs[i], table_points)
            comps = structs[i]._components(h)
            disc = np.sum([q for d, q in comps if d.kind == "discarded"]
                          or [np.zeros_like(h)], axis=0)
        hs.append(h)
        ss_.append(ponds[i]._storage_ext(h))
        ds.append(disc)
    for i, d in enumerate(to):
        if d is None:
            continue
        offset = ponds[d].bottom_elevation_ft - ponds[i].bottom_elevation_ft
        hh, tw = np.broadcast_arrays(hs[i][None, :], (hs[d] + offset)[:, None])
        comps = structs[i]._components_tw(hh, tw)
        lk = np.sum([q for dv, q in comps if dv.kind != "discarded"]
                    or [np.zeros(hh.shape)], axis=0).T                  # (n_i, n_d)
        a = 2.0 * ss_[i][:, None] / dt_s + lk + ds[i][:, None]
        if (np.diff(a, axis=0) <= 0).any():
            raise InputError(f"the connecting devices' rating of pond {names[i]!r} must not "
                             "decrease with its level; check its outlets")
        links[i] = lk.tolist()
    return ([h.tolist() for h in hs], [s.tolist() for s in ss_], [d.tolist() for d in ds],
            root_out.tolist(), links)


def _chain_functions(H, S, D, O_root, links, to, root, two_dt) -> tuple:
    """``locate(i, x)`` and ``residual(x, rhs)`` on the chain's interpolated tables.

    Closures over the tables (lists, for speed in the per-step Newton loop).
    """
    n_p = len(H)
    last = [len(h) - 2 for h in H]

    def locate(i, x):
        hi = H[i]
        j = bisect_right(hi, x) - 1
        j = 0 if j < 0 else min(j, last[i])
        inv = 1.0 / (hi[j + 1] - hi[j])
        return j, (x - hi[j]) * inv, inv

    def evaluate(x):
        """Residual parts: (own term G_i, its derivative), link flows and partials."""
        loc = [locate(i, x[i]) for i in range(n_p)]
        g, dg = [0.0] * n_p, [0.0] * n_p
        for i in range(n_p):
            j, w, inv = loc[i]
            s, dd = S[i], D[i]
            g[i] = two_dt * (s[j] + w * (s[j + 1] - s[j])) + dd[j] + w * (dd[j + 1] - dd[j])
            dg[i] = (two_dt * (s[j + 1] - s[j]) + dd[j + 1] - dd[j]) * inv
        j, w, inv = loc[root]
        g[root] += O_root[j] + w * (O_root[j + 1] - O_root[j])
        dg[root] += (O_root[j + 1] - O_root[j]) * inv
        lv, dli, dld = [0.0] * n_p, [0.0] * n_p, [0.0] * n_p
        for i, tab in links.items():
            ji, wi, invi = loc[i]
            jd, wd, invd = loc[to[i]]
            r0, r1 = tab[ji], tab[ji + 1]
            l00, l01, l10, l11 = r0[jd], r0[jd + 1], r1[jd], r1[jd + 1]
            a = l00 + wd * (l01 - l00)
            b = l10 + wd * (l11 - l10)
            lv[i] = a + wi * (b - a)
            dli[i] = (b - a) * invi
            dld[i] = ((l01 - l00) + wi * ((l11 - l10) - (l01 - l00))) * invd
        return g, dg, lv, dli, dld

    def residual(x, rhs):
        g, dg, lv, dli, dld = evaluate(x)
        f = [g[i] + lv[i] - rhs[i] for i in range(n_p)]
        for i in links:
            f[to[i]] -= lv[i]
        return f, (g, dg, lv, dli, dld)

    return locate, residual


def _chain_newton_delta(f, parts, to, children, order, links, time_hr) -> list:
    """Newton correction: the tree-structured M-matrix Jacobian solved by elimination.

    Eliminates from the upstream ends to the last pond without pivoting (Ortega and
    Rheinboldt 1970, Sections 13.5 and 13.1), then substitutes back.
    """
    n_p = len(f)
    _, dg, lv, dli, dld = parts
    # Jacobian: diagonal, and per link i -> d: J[i][d] = dld[i], J[d][i] = -dli[i]
    diag = [dg[i] + (dli[i] if i in links else 0.0) for i in range(n_p)]
    for i in links:
        diag[to[i]] -= dld[i]
    piv, r = [0.0] * n_p, [-v for v in f]
    for i in order:
        p = diag[i]
        for k in children[i]:
            jik, jki = -dli[k], dld[k]
            p -= jik * jki / piv[k]
            r[i] -= jik * r[k] / piv[k]
        if not p > 0.0:
            raise InputError(
                f"the interconnected ponds could not be solved at {fmt_value(time_hr)}"
                " h (singular Jacobian). Check the ponds' storage and devices")
        piv[i] = p
    delta = [0.0] * n_p
    for i in order[::-1]:
        d = to[i]
        delta[i] = (r[i] - (0.0 if d is None else dld[i] * delta[d])) / piv[i]
    return delta


def _chain_newton(x, rhs, residual, tree, time_hr) -> tuple:
    """One step's levels by Newton's method with step halving; (x, parts, iterations)."""
    to, children, order, links = tree
    n_p = len(x)
    scale = _CHAIN_TOL * max(max(abs(v) for v in rhs), 1.0)
    f, parts = residual(x, rhs)
    err = max(abs(v) for v in f)
    it = 0
    while err > scale:
        it += 1
        if it > 60:
            raise InputError(
                f"the interconnected ponds could not be solved at {fmt_value(time_hr)} h "
                f"(Newton did not converge; largest residual {fmt_value(err)} cfs). "
                "Check the ponds, devices and inflows, or use a shorter step")
        delta = _chain_newton_delta(f, parts, to, children, order, links, time_hr)
        lam = 1.0
        while True:
            xn = [x[i] + lam * delta[i] for i in range(n_p)]
            fn, pn = residual(xn, rhs)
            en = max(abs(v) for v in fn)
            if en < err or lam < 1e-3:
                break
            lam *= 0.5
        x, f, parts, err = xn, fn, pn, en
    return x, parts, it


def _chain_check_levels(x, H, names, time_hr) -> None:
    """Raise InputError when a level leaves its table or falls below its pond's bottom."""
    for i, xi in enumerate(x):
        if xi > H[i][-1] or xi < -1e-6:
            where = ("leave the routing tables (over 11 times a pond's top)" if xi > 0
                     else "fall below a pond's bottom (a step too coarse for the outlets)")
            raise InputError(
                f"the interconnected ponds could not be solved at {fmt_value(time_hr)} h: "
                f"the level of pond {names[i]!r} would {where}. Check the ponds, devices "
                "and inflows")


def _chain_state(x, lv, locate, S, D, O_root, root) -> tuple[list, list, list]:
    """Storage, exfiltration and outflow of every pond at levels ``x``, as lists."""
    n_p = len(x)
    sto_l, dis_l, out_l = [0.0] * n_p, [0.0] * n_p, [0.0] * n_p
    for i in range(n_p):
        j, w, _ = locate(i, x[i])
        sto_l[i] = S[i][j] + w * (S[i][j + 1] - S[i][j])
        dis_l[i] = D[i][j] + w * (D[i][j + 1] - D[i][j])
        out_l[i] = lv[i] if i != root else O_root[j] + w * (O_root[j + 1] - O_root[j])
    return sto_l, dis_l, out_l


def route_interconnected_chain(inflows, ponds, outlets, *, to=None, initial_stages_ft=None,
                               tailwater_ft: float | None = None,
                               duration_hr: float | None = None, table_points: int = 200,
                               names=None) -> ChainResult:
    r"""Route N interconnected ponds together, each pond's outlets feeling the next one's level.

    The ponds form a chain (or a tree, several ponds backing into one) in which every pond's
    outlets discharge into the next pond and feel its level.

    Parameters
    ----------
    inflows : sequence of Hydrograph or None
        Local inflow of every pond (None: none). The first one given sets the routing step
        and, without ``duration_hr``, the span. [ft3/s]
    ponds : sequence of StageStorage
        The ponds, all with a ``datum_ft`` (elevations) or none (then every bottom is at the
        same level, stage 0).
    outlets : sequence of Device, list or OutletStructure
        Each pond's devices (in its own frame: elevations when it has a datum). They connect
        it to the pond it discharges into; the last pond's discharge to its outfall.
        Exfiltration leaves the system.
    to : sequence of int or None, optional
        Index of the pond each pond discharges into; exactly one None (the last pond, to the
        outfall), no loops. Default: a chain, pond i into pond i + 1.
    initial_stages_ft : sequence of float, optional
        Starting levels above each pond's bottom (default 0). [ft]
    tailwater_ft : float, optional
        Constant tailwater at the last pond's outlets, in its devices' frame. [ft]
    duration_hr : float, optional
        Route this long from the start. [h]
    table_points : int, default 200
        Even stages of each pond's table (plus every breakpoint).
    names : sequence of str, optional
        Pond names for the result (default "0", "1", ...).

    Returns
    -------
    ChainResult

    Raises
    ------
    InputError
        For invalid ponds, devices, frames, topology or levels; when a level leaves the
        tables (beyond 11 times a pond's top) or falls below a pond's bottom (a step too
        coarse for the outlets); or when a step's Newton iteration does not converge.

    Notes
    -----
    Continuity of every pond over a step (trapezoidal averages, [1]_ Eq. 8.2.3), with
    :math:`L_i(h_i, h_{d(i)})` the flow through pond i's devices into its downstream pond
    :math:`d(i)` (tabulated once on both ponds' routing stages, the downstream level being
    the devices' tailwater, bilinear between points), :math:`D_i` its exfiltration and,
    for the last pond r, :math:`O_r(h_r)` its outflow:

    .. math::

       F_i(h) = \frac{2S_i(h_i)}{\Delta t} + L_i + D_i - \sum_{k: d(k) = i} L_k(h_k, h_i)
       - R_i = 0, \quad R_i = I_{i,j} + I_{i,j+1} + \frac{2S_{i,j}}{\Delta t}
       - L_{i,j} - D_{i,j} + \sum_{k: d(k) = i} L_{k,j}

    (:math:`O_r` in place of :math:`L_r`). All levels are solved at once by Newton's method
    from the previous step's levels, with the exact Jacobian of the interpolated tables and
    step halving on the largest residual. The Jacobian has the tree's sparsity (tridiagonal
    for a chain) and is an M-matrix (positive diagonal, non-positive off-diagonal, column
    sums :math:`2S_i'/\Delta t + D_i' > 0`), so it is factored by elimination from the
    upstream ends to the last pond without pivoting ([2]_ Ch. 13, M-functions; each step's
    solution is unique). A step converges when every residual is below 1e-12 of the largest
    flow term, else InputError after 60 iterations; every pond's mass balance closes to that
    tolerance. For two ponds the result equals :func:`route_interconnected` within its
    solver tolerance (1e-10 of the flows).

    References
    ----------
    .. [1] Chow, Maidment and Mays, *Applied Hydrology*, 1988, Section 8.2.
    .. [2] Ortega, J.M. and Rheinboldt, W.C., *Iterative Solution of Nonlinear Equations in
       Several Variables*, Academic Press, 1970 (SIAM reprint 2000), Sections 13.5 and 13.1.

    Examples
    --------
    Two ponds as a chain give the levels of :func:`route_interconnected` (two solvers of the
    same equations):

    >>> import numpy as np
    >>> from hydrocalc.hydraulics.outlets import CircularOrifice
    >>> t = np.arange(0.0, 12.001, 0.02)
    >>> storm = Hydrograph(t, 20.0 * np.exp(-((t - 3.0) / 1.0) ** 2))
    >>> up = StageStorage.from_areas([0, 2, 4, 6], [20000, 26000, 32500, 39500])
    >>> small = StageStorage.from_areas([0, 4], [8000, 8000])
    >>> chain = route_interconnected_chain([storm, None], [up, small],
    ...                                    [CircularOrifice(12, 1.0), CircularOrifice(4, 0.0)])
    >>> [round(float(h), 2) for h in chain.peak_stage_ft]
    [3.8, 3.6]
    """
    ponds, inflows, structs, to, root, children, order, names, first = _chain_inputs(
        inflows, ponds, outlets, to, names)
    n_p = len(ponds)
    dt, t = _time_grid(first, duration_hr)
    n = t.size
    q_in = np.stack([_on_grid(t, q, f"inflows[{i}]") for i, q in enumerate(inflows)])
    h_init = _chain_initial_stages(initial_stages_ft, ponds)
    dt_s = dt * S_PER_HR
    tw_r = None
    if tailwater_ft is not None:
        # tailwater_series returns None only for a None tailwater.
        tw_r = float(cast(np.ndarray, tailwater_series(float(tailwater_ft), np.zeros(1),
                                                       ponds[root]))[0])

    H, S, D, O_root, links = _chain_tables(ponds, structs, to, root, names, dt_s,
                                           table_points, tw_r)
    two_dt = 2.0 / dt_s
    locate, residual = _chain_functions(H, S, D, O_root, links, to, root, two_dt)

    st = np.empty((n_p, n))
    sto = np.empty((n_p, n))
    out = np.empty((n_p, n))
    dis = np.empty((n_p, n))
    x = h_init.tolist()
    _, (_, _, lv, _, _) = residual(x, [0.0] * n_p)
    sto_l, dis_l, out_l = _chain_state(x, lv, locate, S, D, O_root, root)
    sto[:, 0], dis[:, 0], out[:, 0] = sto_l, dis_l, out_l
    st[:, 0] = x
    q_l = q_in.T.tolist()
    it_max = 0
    tree = (to, children, order, links)
    for step in range(1, n):
        qa, qb = q_l[step - 1], q_l[step]
        rhs = [qa[i] + qb[i] + two_dt * sto_l[i] - out_l[i] - dis_l[i] for i in range(n_p)]
        for i in links:
            rhs[to[i]] += out_l[i]
        x, parts, it = _chain_newton(x, rhs, residual, tree, t[step])
        it_max = max(it_max, it)
        _chain_check_levels(x, H, names, t[step])
        sto_l, dis_l, out_l = _chain_state(x, parts[2], locate, S, D, O_root, root)
        st[:, step], sto[:, step] = x, sto_l
        out[:, step], dis[:, step] = out_l, dis_l

    mb = np.empty(n_p)
    for i in range(n_p):
        v_in = float(np.trapezoid(q_in[i], dx=dt_s)) + sum(
            float(np.trapezoid(out[k], dx=dt_s)) for k in children[i])
        v_out = float(np.trapezoid(out[i] + dis[i], dx=dt_s))
        mb[i] = _mass_balance_pct(v_in, v_out, sto[i, 0], sto[i, -1])
    return ChainResult(
        time_hr=t, names=names, to=tuple(to), inflow_cfs=q_in, stage_ft=st, storage_ft3=sto,
        outflow_cfs=out, discarded_cfs=dis,
        bottom_elevation_ft=np.array([ss.bottom_elevation_ft for ss in ponds]),
        mass_balance_error_pct=mb, dt_hr=dt, newton_iterations_max=it_max)


def to_swmm_inp_interconnected(inflow_up: Hydrograph, pond_up: StageStorage, outlets_up,
                               pond_down: StageStorage, outlets_down, *,
                               routing_step_s: float = 1.0, storage_points: int = 200,
                               tailwater_ft: float | None = None) -> str:
    """The two ponds as an EPA SWMM 5 input file.

    Storage ``SU0`` (upstream, inflow ``TS0``) is linked by the connecting devices (links
    ``U1``, ``U2``, ...) to ``SU1`` (downstream, outlets to ``OUT1``, ...). Dynamic wave
    carries backwater and reverse flow.

    Same conventions as :func:`hydrocalc.hydraulics.pond_file.to_swmm_inp`; the upstream
    storage's invert is its bottom's height above the downstream bottom (elevations: the datum
    difference).

    Parameters
    ----------
    inflow_up, pond_up, outlets_up, pond_down, outlets_down
        As for :func:`route_interconnected`.
    routing_step_s : float, default 1.0
        SWMM's dynamic-wave routing step. [s]
    storage_points : int, default 200
        Points of each storage curve written.
    tailwater_ft : float, optional
        Fixed stage at the downstream pond's outfalls, in its devices' frame; free outfalls
        when omitted. [ft]

    Returns
    -------
    str
        The text of the ``.inp`` file, for SWMM 5's dynamic-wave routing through storage
        nodes (Rossman [1]_).

    References
    ----------
    .. [1] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
       Hydraulics*, EPA/600/R-17/111, 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from hydrocalc.hydraulics.outlets import CircularOrifice
    >>> t = np.arange(0.0, 6.001, 0.05)
    >>> storm = Hydrograph(t, 20.0 * np.exp(-((t - 3.0) / 1.0) ** 2))
    >>> inp = to_swmm_inp_interconnected(
    ...     storm, StageStorage.from_areas([0, 6], [20000, 39500]), CircularOrifice(12, 1.0),
    ...     StageStorage.from_areas([0, 4], [8000, 8000]), CircularOrifice(4, 0.0))
    >>> [line for line in inp.splitlines() if line.startswith("[")][:4]
    ['[TITLE]', '[OPTIONS]', '[STORAGE]', '[OUTFALLS]']
    """
    offset = _frame_offset(pond_up, pond_down)
    zero = Hydrograph(inflow_up.time_hr, np.zeros_like(inflow_up.flow_cfs))
    text = to_swmm_inp(zero, pond_down, outlets_down, routing_step_s=routing_step_s,
                       storage_points=storage_points, tailwater_ft=tailwater_ft)
    lines = text.split("\n")
    s_up = to_stage_frame(as_structure(outlets_up), pond_up)
    h, area = swmm_curve(pond_up, storage_points)
    invert = -offset                     # upstream bottom above the downstream bottom
    orifices: list[str] = []
    weirs: list[str] = []
    xsect: list[str] = []
    for i, dev in enumerate(s_up.leaves()):
        swmm_link(dev, f"U{i + 1}", "SU0", "SU1", orifices, weirs, xsect)

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
                                  zip(t - t[0], inflow_up.flow_cfs, strict=True)])
    insert_after("[CURVES]", [f"SC0 {'Storage' if i == 0 else ''} {hi:.8f} {ai:.8f}"
                              for i, (hi, ai) in enumerate(zip(h, area, strict=True))])
    return "\n".join(lines)


def to_swmm_inp_interconnected_chain(inflows, ponds, outlets, *, to=None,
                                     routing_step_s: float = 1.0, storage_points: int = 200,
                                     tailwater_ft: float | None = None) -> str:
    """The ponds of :func:`route_interconnected_chain` as an EPA SWMM 5 input file.

    Storage ``P<i>`` per pond (local inflow ``T<i>``), pond i's devices as links ``P<i>_1``,
    ``P<i>_2``, ... into the pond it discharges into, and the last pond's devices to their
    outfalls (links ``L1``, ``L2``, ...). Dynamic wave carries backwater and reverse flow.

    Same conventions as :func:`hydrocalc.hydraulics.pond_file.to_swmm_inp`; every storage's
    invert is its bottom's height above the last pond's bottom.

    Parameters
    ----------
    inflows, ponds, outlets, to
        As for :func:`route_interconnected_chain`.
    routing_step_s : float, default 1.0
        SWMM's dynamic-wave routing step. [s]
    storage_points : int, default 200
        Points of each storage curve written.
    tailwater_ft : float, optional
        Fixed stage at the last pond's outfalls, in its devices' frame; free outfalls when
        omitted. [ft]

    Returns
    -------
    str
        The text of the ``.inp`` file, for SWMM 5's dynamic-wave routing through storage
        nodes (Rossman [1]_).

    References
    ----------
    .. [1] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
       Hydraulics*, EPA/600/R-17/111, 2017.
    """
    ponds, outlets, inflows = list(ponds), list(outlets), list(inflows)
    to, root, _, _ = _chain_topology(to, len(ponds))
    if any(ss.datum_ft is not None for ss in ponds) and not all(
            ss.datum_ft is not None for ss in ponds):
        raise InputError("interconnected ponds must share one vertical frame: give every "
                         "stage-storage a datum_ft or none")
    grid = next(q for q in inflows if q is not None)
    t = np.asarray(grid.time_hr, dtype=float)
    q_root = _on_grid(t, inflows[root], f"inflows[{root}]")
    text = to_swmm_inp(Hydrograph(t, q_root), ponds[root], outlets[root],
                       routing_step_s=routing_step_s, storage_points=storage_points,
                       tailwater_ft=tailwater_ft)
    for old, new in (("SU1", f"P{root}"), ("SC1", f"C{root}"), ("TS1", f"T{root}")):
        text = re.sub(rf"\b{old}\b", new, text)
    lines = text.split("\n")
    storage, curves, series, inflow_lines = [], [], [], []
    orifices: list[str] = []
    weirs: list[str] = []
    xsect: list[str] = []
    base = ponds[root].bottom_elevation_ft
    for i, ss in enumerate(ponds):
        if i == root:
            continue
        h, area = swmm_curve(ss, storage_points)
        storage.append(f"P{i} {ss.bottom_elevation_ft - base:.6f} {h[-1]:.6f} 0 TABULAR C{i} 0 0")
        curves += [f"C{i} {'Storage' if k == 0 else ''} {hk:.8f} {ak:.8f}"
                   for k, (hk, ak) in enumerate(zip(h, area, strict=True))]
        for k, dev in enumerate(to_stage_frame(as_structure(outlets[i]), ss).leaves()):
            swmm_link(dev, f"P{i}_{k + 1}", f"P{i}", f"P{to[i]}", orifices, weirs, xsect)
        if inflows[i] is not None:
            q = _on_grid(t, inflows[i], f"inflows[{i}]")
            inflow_lines.append(f"P{i} FLOW T{i} FLOW 1.0 1.0")
            series += [f"T{i} {ti:.6f} {qi:.8g}" for ti, qi in zip(t - t[0], q, strict=True)]

    def insert_after(header, new):
        k = lines.index(header)
        lines[k + 1:k + 1] = new

    insert_after("[STORAGE]", storage)
    insert_after("[ORIFICES]", orifices)
    insert_after("[WEIRS]", weirs)
    insert_after("[XSECTIONS]", xsect)
    insert_after("[INFLOWS]", inflow_lines)
    insert_after("[TIMESERIES]", series)
    insert_after("[CURVES]", curves)
    return "\n".join(lines)
