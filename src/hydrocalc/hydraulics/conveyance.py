r"""Pipes and channels as routed reaches.

Cross-sections, Manning's equation, capacity and variable-parameter Muskingum-Cunge routing.

* Sections: :class:`CircularSection` (a pipe), :class:`RectangularSection`,
  :class:`TrapezoidalSection` and :class:`UserSection` (station-elevation points), each
  giving flow area, wetted perimeter and top width versus depth.
* :class:`Conveyance`: a section with length, slope and Manning's n: normal depth, Manning
  capacity at full depth (``full_flow_capacity_cfs``).
* :func:`route_conveyance`: routes a hydrograph through it by the variable-parameter
  Muskingum-Cunge method and reports peak inflow and outflow, maximum depth and velocity,
  capacity and a surcharge flag (:class:`ConveyanceResult`).

Manning's equation :math:`Q = (k/n) A R^{2/3} S_0^{1/2}` with the package's one constant
:data:`hydrocalc.hydraulics.MANNING_KU` = 1.49 (TR-55 Eq. 3-4).

Method
------
Muskingum-Cunge ([1]_, [2]_ Ch. 9): the reach is cut into :math:`N` sub-reaches of length
:math:`\Delta x`; on each, :math:`O^{n+1} = C_0 I^{n+1} + C_1 I^n + C_2 O^n` with
:math:`C_0 = (-1 + C + D)/(1 + C + D)`, :math:`C_1 = (1 + C - D)/(1 + C + D)`,
:math:`C_2 = (1 - C + D)/(1 + C + D)`, Courant number :math:`C = c\Delta t/\Delta x` and cell
Reynolds number :math:`D = q_0/(S_0 c \Delta x)`, :math:`c = dQ/dA` the kinematic celerity and
:math:`q_0 = Q/T` the unit-width discharge. **Variable parameters** ([3]_; NEH 630 Ch. 17
[4]_): at every step and sub-reach, :math:`c` and :math:`q_0` are evaluated at the normal
depth of the three-point average :math:`(I^n + I^{n+1} + O^n)/3`, so the celerity follows the
flow (a pipe's wave slows when it runs shallow). :math:`N` and the sub-steps are set once from
the peak inflow by Ponce's criterion :math:`\Delta x \le \tfrac12 (c\Delta t + q_0/(S_0 c))`
and :math:`C \le 1 + D`. Depth and velocity at the outlet are the normal depth of the outflow
and :math:`Q/A`. Flow above the section's Manning capacity cannot be carried at normal depth:
the reach is then flagged **surcharged** (a pipe pressurises, a channel spills) and the flow is
routed with the celerity at full depth (results above capacity are indicative only). Because
the coefficients change from step to step, volume is conserved only approximately (about
0.2 % on the test channel; [3]_ discusses this property).

Adverse slopes
--------------
A reach whose bed rises in the flow direction (``slope_ftft < 0``) is legal but unusual: it
has no normal depth and no kinematic wave, so Muskingum-Cunge does not apply. It is accepted
with a :class:`~hydrocalc.errors.RangeWarning` naming the reach and the slope, and routed
**as a small reservoir** (judgment call): storage-indication (modified Puls) with

* storage = the conduit's own volume below a level water surface at the upstream end's
  level (the water ponds at the low, upstream end; dead storage below the downstream lip
  fills first and does not drain), and
* outflow = the steady flow whose subcritical backwater profile, integrated upstream from
  critical depth at a free outfall at the downstream lip (the outlet control relation of
  :mod:`hydrocalc.hydraulics.outlets.culvert`, no entrance loss: the reach continues the upstream
  conveyance), gives that upstream level
  (:func:`hydrocalc.hydraulics.outlets.culvert.adverse_reach_levels_ft`).

Results of an adverse reach: ``depth_ft`` is the level at the upstream end (the deepest
point), ``velocity_fps`` the velocity at critical depth at the outfall,
``full_flow_capacity_cfs`` the outflow when the upstream end reaches the crown (pipe) or
bank-full depth (channel), ``surcharged`` whether it did, one sub-reach and one sub-step.
A zero slope stays an error. The warning is repeated by :func:`route_conveyance` (callers
that label their warnings, such as the site analysis, thereby name the reach).

References
----------
.. [1] Cunge, J.A., "On the subject of a flood propagation computation method (Muskingum
   method)", J. Hydraulic Research 7(2), 205-230, 1969.
.. [2] Ponce, V.M., *Engineering Hydrology: Principles and Practices*, Prentice Hall, 1989,
   Ch. 9.
.. [3] Ponce, V.M. and Chaganti, P.V., "Variable-parameter Muskingum-Cunge method
   revisited", J. Hydrology 162, 433-439, 1994 (three-point average reference discharge).
.. [4] USDA NRCS, *National Engineering Handbook*, Part 630 Hydrology, Ch. 17 "Flood
   Routing", 2014 (Muskingum-Cunge with variable parameters, as in WinTR-20).
"""

from __future__ import annotations

import bisect
import math
import warnings
from dataclasses import dataclass

import numpy as np

from hydrocalc._validate import as_float_array, fmt_value
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydraulics.equations import MANNING_KU
from hydrocalc.hydraulics.outlets.culvert import adverse_reach_levels_ft, critical_depth_section
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.units import IN_PER_FT, S_PER_HR

__all__ = ["CircularSection", "RectangularSection", "TrapezoidalSection", "UserSection",
           "Conveyance", "ConveyanceResult", "route_conveyance"]

_DEPTH_POINTS = 400
#: Most sub-reach x sub-step x step updates :func:`route_conveyance` computes; a reach that
#: needs more is far steeper or shorter than its time step resolves.
MAX_ROUTING_CELLS = 50_000_000


class _Section:
    """Geometry on a depth table: area, wetted perimeter, top width (vectorized)."""

    closed = False

    @property
    def max_depth_ft(self) -> float:
        """Largest depth of the section: pipe crown or bank-full [ft]."""
        raise NotImplementedError

    def _geometry(self, y: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        raise NotImplementedError

    def area_ft2(self, depth_ft):
        """Flow area at ``depth_ft`` [ft2]."""
        return self._geometry(np.asarray(depth_ft, dtype=float))[0]

    def wetted_perimeter_ft(self, depth_ft):
        """Wetted perimeter at ``depth_ft`` [ft]."""
        return self._geometry(np.asarray(depth_ft, dtype=float))[1]

    def top_width_ft(self, depth_ft):
        """Water-surface width at ``depth_ft`` [ft]."""
        return self._geometry(np.asarray(depth_ft, dtype=float))[2]


@dataclass(frozen=True)
class CircularSection(_Section):
    r"""A circular pipe of diameter ``diameter_in`` (> 0) [in].

    Parameters
    ----------
    diameter_in : float
        Inside diameter D, > 0. [in]

    Notes
    -----
    With the wetted angle :math:`\theta = 2 \arccos(1 - 2y/D)` at depth y: area
    :math:`A = D^2 (\theta - \sin\theta)/8`, wetted perimeter :math:`P = D\theta/2`, top
    width :math:`T = D \sin(\theta/2)` (Chow [1]_ Table 2-1, circle).

    References
    ----------
    .. [1] Chow, V.T., *Open-Channel Hydraulics*, McGraw-Hill, 1959, Table 2-1 (geometric
       elements of channel sections).

    Examples
    --------
    A 24-in pipe half full: :math:`A = \pi D^2/8`, :math:`P = \pi D/2`, :math:`T = D`.

    >>> s = CircularSection(24.0)
    >>> float(s.area_ft2(1.0)), float(s.wetted_perimeter_ft(1.0)), float(s.top_width_ft(1.0))
    (1.5707963267948966, 3.141592653589793, 2.0)
    """

    diameter_in: float
    closed = True

    def __post_init__(self):
        object.__setattr__(self, "diameter_in", float(as_float_array(
            self.diameter_in, "diameter_in", lower=0.0, lower_inclusive=False)))

    @property
    def max_depth_ft(self) -> float:
        """Pipe diameter, the largest depth of the section [ft]."""
        return self.diameter_in / IN_PER_FT

    def _geometry(self, y):
        d = self.max_depth_ft
        yc = np.clip(y, 0.0, d)
        theta = 2.0 * np.arccos(np.clip(1.0 - 2.0 * yc / d, -1.0, 1.0))   # wetted angle
        area = d * d / 8.0 * (theta - np.sin(theta))
        perim = d * theta / 2.0
        top = d * np.sin(theta / 2.0)
        return area, perim, top


@dataclass(frozen=True)
class TrapezoidalSection(_Section):
    r"""Trapezoidal channel: bottom width, side slope z (H:V), bank-full depth [ft, -, ft].

    Parameters
    ----------
    bottom_width_ft : float
        Bottom width b, >= 0. [ft]
    side_slope_h_per_v : float
        Side slope z, horizontal per vertical, >= 0 (not both 0 with ``b``). [-]
    depth_ft : float
        Bank-full depth, > 0. [ft]

    Notes
    -----
    At depth y: :math:`A = (b + zy) y`, :math:`P = b + 2y\sqrt{1 + z^2}`, :math:`T = b + 2zy`
    (Chow [1]_ Table 2-1, trapezoid).

    References
    ----------
    .. [1] Chow, V.T., *Open-Channel Hydraulics*, McGraw-Hill, 1959, Table 2-1 (geometric
       elements of channel sections).

    Examples
    --------
    >>> t = TrapezoidalSection(4.0, 2.0, 3.0)    # b = 4 ft, 2H:1V sides, 3 ft deep
    >>> float(t.area_ft2(2.0)), float(t.top_width_ft(2.0))    # (4 + 2*2) 2, 4 + 2*2*2
    (16.0, 12.0)
    """

    bottom_width_ft: float
    side_slope_h_per_v: float
    depth_ft: float

    def __post_init__(self):
        b = float(as_float_array(self.bottom_width_ft, "bottom_width_ft", lower=0.0))
        z = float(as_float_array(self.side_slope_h_per_v, "side_slope_h_per_v", lower=0.0))
        if b == 0.0 and z == 0.0:
            raise InputError("bottom_width_ft and side_slope_h_per_v must not both be 0; got a "
                             "section without area")
        object.__setattr__(self, "bottom_width_ft", b)
        object.__setattr__(self, "side_slope_h_per_v", z)
        object.__setattr__(self, "depth_ft", float(as_float_array(
            self.depth_ft, "depth_ft", lower=0.0, lower_inclusive=False)))

    @property
    def max_depth_ft(self) -> float:
        """Bank-full depth, the largest depth of the channel [ft]."""
        return self.depth_ft

    def _geometry(self, y):
        b, z = self.bottom_width_ft, self.side_slope_h_per_v
        y = np.clip(y, 0.0, None)
        return b * y + z * y * y, b + 2.0 * y * math.sqrt(1.0 + z * z), b + 2.0 * z * y


def RectangularSection(width_ft: float, depth_ft: float) -> TrapezoidalSection:
    """A rectangular channel (a trapezoid with vertical sides) [ft].

    Parameters
    ----------
    width_ft : float
        Channel width, > 0. [ft]
    depth_ft : float
        Bank-full depth, > 0. [ft]

    Returns
    -------
    TrapezoidalSection
        With ``side_slope_h_per_v = 0``.

    Examples
    --------
    >>> float(RectangularSection(6.0, 2.0).area_ft2(1.5))
    9.0
    """
    return TrapezoidalSection(width_ft, 0.0, depth_ft)


@dataclass(frozen=True)
class UserSection(_Section):
    """An open section from station-elevation points (left bank to right bank) [ft].

    Depth is measured from the lowest point; the section is bank-full at the lower of the two
    end points. Area, wetted perimeter and top width sum the wetted part of each segment
    between consecutive points.

    Parameters
    ----------
    station_ft : sequence of float
        Horizontal stations, non-decreasing from the left bank, at least 3 points. [ft]
    elevation_ft : sequence of float
        Ground elevation at each station; both ends above the lowest point. [ft]

    Raises
    ------
    InputError
        For lists of unequal length or fewer than 3 points, decreasing stations, or ends that
        do not rise above the lowest point.

    Examples
    --------
    A V-shaped ditch 20 ft wide and 2 ft deep holds 5 ft2 at 1 ft (a triangle 10 ft x 1 ft):

    >>> u = UserSection((0.0, 10.0, 20.0), (2.0, 0.0, 2.0))
    >>> u.max_depth_ft, u.area_ft2([1.0]).tolist()
    (2.0, [5.0])
    """

    station_ft: tuple
    elevation_ft: tuple

    def __post_init__(self):
        x = as_float_array(self.station_ft, "station_ft")
        z = as_float_array(self.elevation_ft, "elevation_ft")
        if x.ndim != 1 or x.size < 3 or z.shape != x.shape:
            raise InputError(f"station_ft and elevation_ft must be equal 1-D lists of at least "
                             f"3 points; got {x.size} and {z.size}")
        if (np.diff(x) < 0).any():
            raise InputError("station_ft must not decrease from the left bank to the right; "
                             f"got {x.tolist()}")
        if min(z[0], z[-1]) <= z.min():
            raise InputError("elevation_ft must rise to both banks above the lowest point; got "
                             f"{z.tolist()}")
        object.__setattr__(self, "station_ft", tuple(x.tolist()))
        object.__setattr__(self, "elevation_ft", tuple(z.tolist()))

    @property
    def max_depth_ft(self) -> float:
        """Bank-full depth: lower end point above the lowest point [ft]."""
        z = self.elevation_ft
        return min(z[0], z[-1]) - min(z)

    def _geometry(self, y):
        x = np.array(self.station_ft)
        z = np.array(self.elevation_ft) - min(self.elevation_ft)
        shape = np.shape(y)  # a scalar depth gives scalar (0-d) results
        y = np.atleast_1d(np.clip(y, 0.0, None)).ravel()
        ws = y[:, None]
        x0, x1, z0, z1 = x[:-1], x[1:], z[:-1], z[1:]
        lo, hi = np.minimum(z0, z1), np.maximum(z0, z1)
        dx, dz = x1 - x0, hi - lo
        # wetted fraction of each segment's horizontal extent and its mean water depth
        with np.errstate(divide="ignore", invalid="ignore"):
            frac = np.where(dz > 0, np.clip((ws - lo) / np.where(dz > 0, dz, 1.0), 0, 1),
                            (ws > lo).astype(float))
        wet_w = frac * dx
        depth_at_lo = np.clip(ws - lo, 0.0, None)
        depth_at_edge = np.clip(ws - hi, 0.0, None)
        area = (wet_w * (depth_at_lo + depth_at_edge) / 2.0).sum(axis=1)
        perim = (frac * np.hypot(dx, dz)).sum(axis=1)
        top = wet_w.sum(axis=1)
        return area.reshape(shape), perim.reshape(shape), top.reshape(shape)


@dataclass(frozen=True)
class Conveyance:
    r"""A pipe or channel reach: section, length, bed slope and Manning's n.

    Parameters
    ----------
    section : CircularSection, TrapezoidalSection or UserSection
        The cross-section.
    length_ft : float
        Reach length, > 0. [ft]
    slope_ftft : float
        Bed slope, positive downhill in the flow direction; negative (adverse) accepted with
        a warning; not 0. [ft/ft]
    manning_n : float
        Manning's roughness coefficient, > 0. [-]
    name : str, optional
        Labels the reach in messages.

    Notes
    -----
    Normal flow by Manning's equation :math:`Q = (1.49/n) A R^{2/3} S_0^{1/2}` (TR-55 [1]_
    Eq. 3-4, US units; :math:`R = A/P`). ``full_flow_capacity_cfs`` evaluates it at the
    full (pipe) or bank-full (channel) section; ``normal_depth_ft`` inverts it on a table of
    400 depths (for a pipe, up to the depth of its largest normal flow, about 0.94 D).

    References
    ----------
    .. [1] USDA SCS, "Urban Hydrology for Small Watersheds", TR-55, 2nd ed., 1986,
       Eq. 3-4 (Manning's equation).

    Examples
    --------
    A 24-in pipe, n = 0.013, S = 1 %, flowing full:
    :math:`(1.49/0.013)\,\pi\,(0.5)^{2/3}(0.01)^{1/2}` = 22.68 ft3/s.

    >>> c = Conveyance(CircularSection(24.0), length_ft=500.0, slope_ftft=0.01, manning_n=0.013)
    >>> round(c.full_flow_capacity_cfs, 2)
    22.68

    Raises
    ------
    InputError
        For a non-positive length or n, or a zero slope (no kinematic celerity: model a flat
        pipe as a pond outlet).

    Warns
    -----
    RangeWarning
        For an adverse slope (< 0), naming the reach and the slope; it is routed as a small
        reservoir (module docstring, "Adverse slopes").
    """

    section: _Section
    length_ft: float
    slope_ftft: float
    manning_n: float
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "length_ft", float(as_float_array(
            self.length_ft, "length_ft", lower=0.0, lower_inclusive=False)))
        s = float(as_float_array(self.slope_ftft, "slope_ftft"))
        if s == 0.0:
            raise InputError("slope_ftft must be > 0 for a routed pipe or channel; got 0. A flat "
                             "reach has no kinematic wave: give its real slope, or model it as "
                             "a pond outlet (Barrel)")
        if s < 0.0:
            label = f"reach {self.name!r}" if self.name else "a reach"
            warnings.warn(f"{label} has an adverse slope (slope_ftft = {fmt_value(s)}: the bed "
                          "rises in the flow direction); legal but unusual. It is routed as a "
                          "small reservoir (storage-indication: the conduit's own volume, "
                          "outflow by the backwater relation from a free outfall)",
                          RangeWarning, stacklevel=3)
        object.__setattr__(self, "slope_ftft", s)
        object.__setattr__(self, "manning_n", float(as_float_array(
            self.manning_n, "manning_n", lower=0.0, lower_inclusive=False)))
        if s > 0.0:  # sizes far out of scale (a unit slip) give no usable Manning rating
            with np.errstate(all="ignore"):
                cap = self.full_flow_capacity_cfs
            if not (math.isfinite(cap) and cap > 0.0):
                raise InputError(f"the section gives a full-flow capacity of {fmt_value(cap)} "
                                 "cfs, which cannot be routed; check the units of its sizes "
                                 "(a diameter in inches, widths and depths in feet), its "
                                 "slope (ft/ft) and n")

    @property
    def adverse(self) -> bool:
        """True when the bed rises in the flow direction (slope < 0)."""
        return self.slope_ftft < 0.0

    def _adverse_rating(self, q_top: float):
        """(flow grid, upstream level, storage) of an adverse reach [ft3/s, ft, ft3]."""
        sec, length, rise = self.section, self.length_ft, -self.slope_ftft
        q = np.concatenate([[0.0], q_top * np.geomspace(1e-5, 1.0, 300)])
        y = adverse_reach_levels_ft(sec._geometry, sec.max_depth_ft, sec.closed, q,
                                    length_ft=length, slope_ftft=self.slope_ftft,
                                    n=self.manning_n)
        y = np.maximum.accumulate(np.maximum(y, rise * length))
        lip = rise * length
        dead = np.linspace(0.0, lip, 41)[:-1]        # below the lip: storage, no outflow
        levels = np.concatenate([dead, y])
        flows = np.concatenate([np.zeros(dead.size), q])
        x = (np.arange(64) + 0.5) / 64.0 * length   # midpoint rule along the reach
        depth = np.clip(levels[:, None] - rise * x[None, :], 0.0, sec.max_depth_ft)
        area = sec._geometry(depth.ravel())[0].reshape(depth.shape)
        storage = area.sum(axis=1) * (length / 64.0)
        return flows, levels, np.maximum.accumulate(storage)

    def _table(self):
        if self.adverse:
            raise InputError(f"slope_ftft must be > 0 for a normal depth; got "
                             f"{fmt_value(self.slope_ftft)} (an adverse reach has none)")
        d = self.section.max_depth_ft
        y = np.linspace(0.0, d, _DEPTH_POINTS + 1)
        a, p, t = self.section._geometry(y)
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(p > 0, a / np.where(p > 0, p, 1.0), 0.0)
        q = MANNING_KU / self.manning_n * a * r ** (2.0 / 3.0) * math.sqrt(self.slope_ftft)
        if self.section.closed:          # Q(y) of a pipe peaks near 0.94 D: keep the rising part
            k = int(np.argmax(q))
            y, a, t, q = y[: k + 1], a[: k + 1], t[: k + 1], q[: k + 1]
        return y, a, t, q

    @property
    def full_flow_capacity_cfs(self) -> float:
        """Manning capacity: the pipe flowing full, or the channel bank-full [ft3/s].

        For an adverse reach, the outflow when the upstream end reaches the crown or bank-full.
        """
        d = self.section.max_depth_ft
        if self.adverse:
            return self._adverse_capacity_cfs()
        a, p, _ = self.section._geometry(np.array([d]))
        return float(MANNING_KU / self.manning_n * a[0] * (a[0] / p[0]) ** (2.0 / 3.0)
                     * math.sqrt(self.slope_ftft))

    def _adverse_capacity_cfs(self) -> float:
        cached = self.__dict__.get("_adverse_capacity")
        if cached is not None:
            return cached
        d = self.section.max_depth_ft
        a, p, _ = self.section._geometry(np.array([d]))
        q_top = 10.0 * MANNING_KU / self.manning_n * a[0] * (a[0] / p[0]) ** (2.0 / 3.0) * \
            math.sqrt(-self.slope_ftft) + 1.0
        flows, levels, _ = self._adverse_rating(q_top)
        cap = float(np.interp(d, levels, flows)) if levels[-1] >= d else float(flows[-1])
        self.__dict__["_adverse_capacity"] = cap     # frozen: cache beside the fields
        return cap

    def normal_depth_ft(self, flow_cfs):
        """Normal depth of ``flow_cfs`` (<= the section's largest normal flow) [ft]."""
        y, _, _, q = self._table()
        return np.interp(flow_cfs, q, y)


@dataclass(frozen=True, eq=False)
class ConveyanceResult:
    """A hydrograph routed through a pipe or channel (see :func:`route_conveyance`).

    Attributes
    ----------
    time_hr, inflow_cfs, outflow_cfs, depth_ft, velocity_fps : ndarray
        Outlet depth and velocity are those of normal flow at the outflow. [h, ft3/s, ft, ft/s]
    peak_inflow_cfs, peak_outflow_cfs, max_depth_ft, max_velocity_fps : float
    full_flow_capacity_cfs : float
        Manning capacity flowing full (pipe) or bank-full (channel). [ft3/s]
    surcharged : bool
        True when the peak inflow exceeds the largest flow the section carries at normal
        depth (the pipe pressurises / the channel spills).
    n_subreaches, n_substeps : int
    """

    time_hr: np.ndarray
    inflow_cfs: np.ndarray
    outflow_cfs: np.ndarray
    depth_ft: np.ndarray
    velocity_fps: np.ndarray
    full_flow_capacity_cfs: float
    surcharged: bool
    n_subreaches: int
    n_substeps: int

    @property
    def peak_inflow_cfs(self) -> float:
        """Peak inflow [ft3/s]."""
        return float(self.inflow_cfs.max())

    @property
    def peak_outflow_cfs(self) -> float:
        """Peak routed outflow [ft3/s]."""
        return float(self.outflow_cfs.max())

    @property
    def max_depth_ft(self) -> float:
        """Maximum flow depth in the reach [ft]."""
        return float(self.depth_ft.max())

    @property
    def max_velocity_fps(self) -> float:
        """Maximum velocity [ft/s]."""
        return float(self.velocity_fps.max())

    def outflow_hydrograph(self) -> Hydrograph:
        """The routed outflow as a :class:`Hydrograph` [ft3/s]."""
        return Hydrograph(self.time_hr, self.outflow_cfs)

    def summary(self) -> dict:
        """Peaks, depth, velocity, capacity and surcharge with unit-suffixed keys."""
        return {k: getattr(self, k) for k in (
            "peak_inflow_cfs", "peak_outflow_cfs", "max_depth_ft", "max_velocity_fps",
            "full_flow_capacity_cfs", "surcharged")}


def _check_budget(conveyance: Conveyance, n_sub: int, substeps: int, n_out: int,
                  dt_hr: float, celerity_fps: float) -> None:
    """Refuse a routing of more than :data:`MAX_ROUTING_CELLS` sub-reach updates.

    Raises
    ------
    InputError
        One line naming the reach, its sub-reaches, sub-steps, celerity and slope.
    """
    cells = n_sub * substeps * n_out
    if cells <= MAX_ROUTING_CELLS:
        return
    label = f"reach {conveyance.name!r}" if conveyance.name else "the reach"
    raise InputError(
        f"{label} would need {cells:,} sub-reach steps to route ({n_sub} sub-reaches of "
        f"{fmt_value(conveyance.length_ft / n_sub)} ft, {substeps} sub-steps of each "
        f"{fmt_value(dt_hr)} h step; the kinematic wave crosses its "
        f"{fmt_value(conveyance.length_ft)} ft at {fmt_value(celerity_fps)} ft/s on slope "
        f"{fmt_value(conveyance.slope_ftft)} ft/ft); at most {MAX_ROUTING_CELLS:,} are "
        "computed. A reach this steep or short for the step passes its flow on within a "
        "step: check the slope or the inverts, or give it as a lag reach")


def route_conveyance(inflow: Hydrograph, conveyance: Conveyance, *,
                     duration_hr: float | None = None) -> ConveyanceResult:
    """Route ``inflow`` through a pipe or channel by variable-parameter Muskingum-Cunge.

    Parameters
    ----------
    inflow : Hydrograph
        Upstream hydrograph; its step is the routing step (sub-stepped when needed). [ft3/s]
    conveyance : Conveyance
    duration_hr : float, optional
        Route this long (default: the inflow's span plus three travel times). [h]

    Returns
    -------
    ConveyanceResult

    Raises
    ------
    InputError
        For an inflow of zeros.

    Warns
    -----
    RangeWarning
        When the peak inflow exceeds the section's normal-flow capacity (surcharge).

    Notes
    -----
    Variable-parameter Muskingum-Cunge (Cunge [1]_; Ponce and Chaganti [2]_; NEH 630 Ch. 17
    [3]_): the routing equation, the coefficients, the choice of sub-reaches and sub-steps and
    the treatment of surcharged and adverse reaches are set out in the module docstring.

    References
    ----------
    .. [1] Cunge, J.A., "On the subject of a flood propagation computation method (Muskingum
       method)", J. Hydraulic Research 7(2), 205-230, 1969.
    .. [2] Ponce, V.M. and Chaganti, P.V., "Variable-parameter Muskingum-Cunge method
       revisited", J. Hydrology 162, 433-439, 1994.
    .. [3] USDA NRCS, *National Engineering Handbook*, Part 630 Hydrology, Ch. 17 "Flood
       Routing", 2014.

    Examples
    --------
    A 20 ft3/s flood wave through 2,000 ft of grassed trapezoidal channel attenuates a little
    (no published example of this routing is transcribed here; the method is checked against
    EPA SWMM 5 in the test suite):

    >>> import numpy as np
    >>> from hydrocalc.hydrograph import Hydrograph
    >>> t_hr = np.arange(0.0, 6.001, 0.05)
    >>> wave = Hydrograph(t_hr, 20.0 * np.exp(-((t_hr - 2.0) / 0.5) ** 2))
    >>> ditch = Conveyance(TrapezoidalSection(4.0, 2.0, 3.0), length_ft=2000.0,
    ...                    slope_ftft=0.002, manning_n=0.035)
    >>> res = route_conveyance(wave, ditch)
    >>> round(res.peak_outflow_cfs, 1), round(res.max_depth_ft, 2), res.surcharged
    (19.3, 1.48, False)
    """
    if not isinstance(inflow, Hydrograph):
        raise InputError(f"inflow must be a Hydrograph; got {inflow!r}")
    if not isinstance(conveyance, Conveyance):
        raise InputError(f"conveyance must be a Conveyance; got {conveyance!r}")
    if conveyance.adverse:
        return _route_adverse(inflow, conveyance, duration_hr)
    y_t, a_t, t_t, q_t = conveyance._table()
    s0 = conveyance.slope_ftft
    q_cap = float(q_t[-1])
    q_in = np.asarray(inflow.flow_cfs, dtype=float)
    q_pk = float(q_in.max())
    if not np.all(np.isfinite(q_in)):
        raise InputError("inflow must be finite to route; got a hydrograph with "
                         f"{int(np.count_nonzero(~np.isfinite(q_in)))} non-finite value(s)")
    if q_pk <= 0.0:
        raise InputError("inflow must carry some flow to route; got a hydrograph of zeros")
    # celerity c = dQ/dA and q0 = Q/T on the table (midpoints), looked up by discharge
    dq, da = np.diff(q_t), np.diff(a_t)
    with np.errstate(divide="ignore", invalid="ignore"):
        c_mid = np.where(da > 0, dq / np.where(da > 0, da, 1.0), 0.0)
    q_mid = (q_t[1:] + q_t[:-1]) / 2.0
    t_mid = (t_t[1:] + t_t[:-1]) / 2.0
    keep = c_mid > 0
    c_mid, q_mid, t_mid = c_mid[keep], q_mid[keep], t_mid[keep]

    def params(q):
        qq = np.clip(q, q_mid[0], q_mid[-1])
        return np.interp(qq, q_mid, c_mid), np.interp(qq, q_mid, q_mid / t_mid)

    xs, cs, us = q_mid.tolist(), c_mid.tolist(), (q_mid / t_mid).tolist()
    last = len(xs) - 1

    dt_s = inflow.dt_hr * S_PER_HR
    c_pk, q0_pk = params(min(q_pk, q_cap))
    length = conveyance.length_ft
    substeps = 1
    while True:
        dts = dt_s / substeps
        dx_max = 0.5 * (c_pk * dts + q0_pk / (s0 * c_pk))
        n_sub = max(1, int(math.ceil(length / dx_max - 1e-9)))
        dx = length / n_sub
        if c_pk * dts / dx <= 1.0 + q0_pk / (s0 * c_pk * dx) or substeps >= 1024:
            break
        substeps *= 2
    travel_hr = length / float(params(0.5 * min(q_pk, q_cap))[0]) / S_PER_HR
    t0 = float(inflow.time_hr[0])
    end = float(inflow.time_hr[-1]) + 3.0 * travel_hr if duration_hr is None else t0 + float(
        as_float_array(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False))
    n_out = int(math.ceil((end - t0) / inflow.dt_hr - 1e-9)) + 1
    _check_budget(conveyance, n_sub, substeps, n_out, inflow.dt_hr, float(c_pk))
    t_out = t0 + inflow.dt_hr * np.arange(n_out)
    fine_t = t0 + (inflow.dt_hr / substeps) * np.arange((n_out - 1) * substeps + 1)
    q = np.interp(fine_t, inflow.time_hr, q_in, right=0.0)
    # The time loop below interpolates params() for one float inline, on Python floats and
    # lists, without numpy's per-call overhead (the same operations in the same order as
    # np.interp on the clipped value, so the same numbers).
    x_lo, x_hi, c_lo, c_hi, u_lo, u_hi = xs[0], xs[last], cs[0], cs[last], us[0], us[last]
    x_w = [xs[j + 1] - xs[j] for j in range(last)]
    c_w = [cs[j + 1] - cs[j] for j in range(last)]
    u_w = [us[j + 1] - us[j] for j in range(last)]
    bisect_right = bisect.bisect_right
    for _ in range(n_sub):          # sub-reaches in series; each sequential in time
        qs = q.tolist()
        prev = qs[0]
        out = [prev]
        append = out.append
        q_prev = prev
        for q_i in qs[1:]:
            ref = (q_prev + q_i + prev) / 3.0
            if ref <= 1e-12:
                prev = q_i
            else:
                if ref <= x_lo:
                    c, q0 = c_lo, u_lo
                elif ref >= x_hi:
                    c, q0 = c_hi, u_hi
                else:
                    j = bisect_right(xs, ref) - 1
                    f = (ref - xs[j]) / x_w[j]
                    c, q0 = cs[j] + f * c_w[j], us[j] + f * u_w[j]
                cr = c * dts / dx
                dd = q0 / (s0 * c * dx)
                den = 1.0 + cr + dd
                prev = ((-1.0 + cr + dd) * q_i + (1.0 + cr - dd) * q_prev
                        + (1.0 - cr + dd) * prev) / den
            append(prev)
            q_prev = q_i
        q = np.array(out, dtype=float)
    outflow = np.clip(q[::substeps], 0.0, None)
    depth = np.interp(outflow, q_t, y_t)
    area = np.interp(depth, y_t, a_t)
    with np.errstate(divide="ignore", invalid="ignore"):
        vel = np.where(area > 0, outflow / np.where(area > 0, area, 1.0), 0.0)
    surcharged = q_pk > q_cap * (1 + 1e-9)
    if surcharged:
        warnings.warn(f"the peak inflow {fmt_value(q_pk)} cfs exceeds the section's capacity "
                      f"at normal depth ({fmt_value(q_cap)} cfs): the reach surcharges; results "
                      "above capacity are indicative only", RangeWarning, stacklevel=2)
    q_in_out = np.interp(t_out, inflow.time_hr, q_in, right=0.0)
    return ConveyanceResult(
        time_hr=t_out, inflow_cfs=q_in_out, outflow_cfs=outflow, depth_ft=depth,
        velocity_fps=vel, full_flow_capacity_cfs=conveyance.full_flow_capacity_cfs,
        surcharged=bool(surcharged), n_subreaches=n_sub, n_substeps=substeps)


def _route_adverse(inflow: Hydrograph, conveyance: Conveyance,
                   duration_hr: float | None) -> ConveyanceResult:
    """Storage-indication routing of an adverse reach (module docstring, "Adverse slopes")."""
    q_in = np.asarray(inflow.flow_cfs, dtype=float)
    q_pk = float(q_in.max())
    if not np.all(np.isfinite(q_in)):
        raise InputError("inflow must be finite to route; got a hydrograph with "
                         f"{int(np.count_nonzero(~np.isfinite(q_in)))} non-finite value(s)")
    if q_pk <= 0.0:
        raise InputError("inflow must carry some flow to route; got a hydrograph of zeros")
    warnings.warn(f"adverse slope (slope_ftft = {fmt_value(conveyance.slope_ftft)}: the bed "
                  "rises in the flow direction): routed as a small reservoir "
                  "(storage-indication with the conduit's own volume)", RangeWarning,
                  stacklevel=3)
    flows, levels, storage = conveyance._adverse_rating(4.0 * q_pk)
    dt_s = inflow.dt_hr * S_PER_HR
    t0 = float(inflow.time_hr[0])
    span = float(inflow.time_hr[-1]) - t0
    end = t0 + 2.0 * span if duration_hr is None else t0 + float(
        as_float_array(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False))
    n_out = int(math.ceil((end - t0) / inflow.dt_hr - 1e-9)) + 1
    t_out = t0 + inflow.dt_hr * np.arange(n_out)
    inflow_out = np.interp(t_out, inflow.time_hr, q_in, right=0.0)
    indication = 2.0 * storage / dt_s + flows
    indication = indication + np.arange(indication.size) * 1e-9   # strictly increasing
    out = np.zeros(n_out)
    lvl = np.zeros(n_out)
    s_now, o_now = 0.0, 0.0
    for i in range(1, n_out):
        rhs = inflow_out[i - 1] + inflow_out[i] + 2.0 * s_now / dt_s - o_now
        o_now = float(np.interp(rhs, indication, flows))
        s_now = max((rhs - o_now) * dt_s / 2.0, 0.0)
        out[i] = o_now
        lvl[i] = float(np.interp(rhs, indication, levels))
    sec = conveyance.section

    dc = critical_depth_section(sec._geometry, out, sec.max_depth_ft * (1.0 if sec.closed
                                                                          else 20.0))
    area = sec._geometry(dc)[0]
    with np.errstate(divide="ignore", invalid="ignore"):
        vel = np.where(area > 0, out / np.where(area > 0, area, 1.0), 0.0)
    surcharged = bool(lvl.max() > sec.max_depth_ft * (1 + 1e-9))
    if surcharged:
        warnings.warn(f"the adverse reach fills to {fmt_value(float(lvl.max()))} ft at its "
                      f"upstream end, above its depth ({fmt_value(sec.max_depth_ft)} ft): it "
                      "surcharges; results above are indicative only", RangeWarning,
                      stacklevel=3)
    return ConveyanceResult(
        time_hr=t_out, inflow_cfs=inflow_out, outflow_cfs=out, depth_ft=lvl,
        velocity_fps=vel, full_flow_capacity_cfs=conveyance.full_flow_capacity_cfs,
        surcharged=surcharged, n_subreaches=1, n_substeps=1)
