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
import pathlib
import tomllib
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from hydrocalc import _route_kernel
from hydrocalc._validate import as_float_array, check_choice, fmt_value, like, suggest
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.outlets import (
    Barrel,
    BroadCrestedWeir,
    CircularOrifice,
    Device,
    Exfiltration,
    OutletStructure,
    RectangularOrifice,
    RectangularWeir,
    Riser,
    VNotchWeir,
    as_structure,
    unique_names,
)
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


_METHODS = ("conic", "average_end_area")


# =========================================================================================
# Stage-storage
# =========================================================================================
class StageStorage:
    r"""Storage versus stage above the pond bottom (stage 0), monotone and validated.

    Build it with a constructor: :meth:`from_areas`, :meth:`from_volumes`, :meth:`basin`
    (rectangular/trapezoidal), :meth:`drywell`; combine with ``+`` (parallel storages sharing
    one water level, e.g. a basin plus chambers), ``k * ss`` (k identical units) and
    :meth:`raised` (a unit whose bottom is above the system's bottom).

    Notes
    -----
    Representation: stage points :math:`h_i`, storage :math:`S_i` and, on each interval, the
    plan area at its two ends (:math:`A^+_i` just above :math:`h_i`, :math:`A^-_{i+1}` just
    below :math:`h_{i+1}`). Within an interval the storage is the cubic Hermite interpolant of
    :math:`S` with slopes :math:`dS/dh = A`. This is exact for every constructor:

    * conic method: :math:`\Delta S = \frac{\Delta h}{3}(A_1 + A_2 + \sqrt{A_1 A_2})`, the
      frustum formula (plan area quadratic in stage, storage cubic; HydroCAD/PondPack
      "conic" method);
    * average end area: :math:`\Delta S = \frac{\Delta h}{2}(A_1 + A_2)` (area linear in
      stage, storage quadratic); the method SWMM 5 uses for tabular storage curves [3]_;
    * stage-storage tables: storage linear between points (area constant per interval);
    * basins (cubic storage) and drywells (piecewise linear).

    Sums keep every breakpoint, so they stay exact. Above a component's own top (e.g.
    chambers under a basin), that component holds its full capacity and adds no area.
    The wetted area (for exfiltration) is linear between stage points; for tables it assumes
    each interval is a frustum of a cone with the given end areas (lateral area
    :math:`\pi (r_1 + r_2)\sqrt{(r_2 - r_1)^2 + \Delta h^2}`, :math:`r = \sqrt{A/\pi}`).

    Public queries accept stages in [0, ``top_stage_ft``]; above the top the pond overtops,
    which routing reports (see :func:`route_reservoir`).
    """

    __slots__ = ("_h", "_s", "_alo", "_ahi", "_w", "name", "method")

    def __init__(self, stage_ft, storage_ft3, area_lo_ft2, area_hi_ft2, wetted_area_ft2, *,
                 name: str = "", method: str = "", _allow_flat: bool = False):
        h = np.asarray(stage_ft, dtype=float)
        s = np.asarray(storage_ft3, dtype=float)
        alo = np.asarray(area_lo_ft2, dtype=float)
        ahi = np.asarray(area_hi_ft2, dtype=float)
        w = np.asarray(wetted_area_ft2, dtype=float)
        k = h.size
        if not (h.ndim == s.ndim == 1 and s.size == k and alo.size == ahi.size == k - 1
                and w.size == k and k >= 2):
            raise InputError("StageStorage tables must be 1-D with matching lengths; use "
                             "StageStorage.from_areas / from_volumes / basin / drywell")
        ds = np.diff(s)
        bad = ds < 0 if _allow_flat else ds <= 0
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise InputError(
                f"storage_ft3 must increase with stage; got {fmt_value(s[i])} at "
                f"{fmt_value(h[i])} ft and {fmt_value(s[i + 1])} at {fmt_value(h[i + 1])} ft. "
                "Give a positive area on every stage interval")
        for arr in (h, s, alo, ahi, w):
            arr.setflags(write=False)
        self._h, self._s, self._alo, self._ahi, self._w = h, s, alo, ahi, w
        self.name = name
        self.method = method

    # -- constructors ---------------------------------------------------------------------
    @staticmethod
    def _check_stages(stage_ft) -> np.ndarray:
        h = as_float_array(stage_ft, "stage_ft")
        if h.ndim != 1 or h.size < 2:
            raise InputError(f"stage_ft must be a 1-D table of at least 2 stages; got "
                             f"{h.size} value(s). Give the stages from the bottom (0) up")
        if h[0] != 0.0:
            raise InputError(
                f"stage_ft must start at 0 (the pond bottom); got {fmt_value(h[0])}. "
                f"Measure stages from the bottom: stage = elevation - {fmt_value(h[0])}")
        steps = np.diff(h)
        if (steps <= 0).any():
            bad = np.flatnonzero(steps <= 0)
            i = int(bad[0]) + 1
            raise InputError(
                f"stage_ft must increase strictly; got {fmt_value(h[i])} after "
                f"{fmt_value(h[i - 1])} at index {i} ({bad.size} of {steps.size} steps "
                "invalid). Sort the table and remove repeated stages")
        return h

    @classmethod
    def from_areas(cls, stage_ft: npt.ArrayLike, area_ft2: npt.ArrayLike, *,
                   method: str = "conic", name: str = "") -> "StageStorage":
        r"""Stage-storage from a stage-area table (contour areas).

        Parameters
        ----------
        stage_ft : array_like
            Stages from 0 (the bottom), strictly increasing; the last is the top. [ft]
        area_ft2 : array_like
            Plan area at each stage, >= 0. [ft2]
        method : {"conic", "average_end_area"}, default "conic"
            Volume between stages: frustum (conic) formula
            :math:`\frac{\Delta h}{3}(A_1 + A_2 + \sqrt{A_1 A_2})` or average end area
            :math:`\frac{\Delta h}{2}(A_1 + A_2)` (SWMM's tabular storage [3]_).
        name : str, optional

        Returns
        -------
        StageStorage

        Raises
        ------
        InputError
            If the stages do not start at 0 or do not increase strictly, an area is negative
            or NaN, an interval has zero area at both ends, or the method is unknown.

        Examples
        --------
        >>> ss = StageStorage.from_areas([0, 1, 2], [1000, 1500, 2100])
        >>> round(ss.max_storage_ft3, 1)     # 1/3 (1000+1500+1224.7) + 1/3 (1500+2100+1774.8)
        3033.2
        >>> StageStorage.from_areas([0, 2], [100, 300], method="average_end_area").max_storage_ft3
        400.0
        """
        check_choice(method, "method", _METHODS)
        h = cls._check_stages(stage_ft)
        a = as_float_array(area_ft2, "area_ft2", lower=0.0)
        if a.shape != h.shape:
            raise InputError(f"area_ft2 must have one value per stage; got {a.size} areas for "
                             f"{h.size} stages")
        dh = np.diff(h)
        zero = (a[:-1] == 0) & (a[1:] == 0)
        if zero.any():
            i = int(np.flatnonzero(zero)[0])
            raise InputError(
                f"area_ft2 must be > 0 at one end of every stage interval at least; got 0 and "
                f"0 between {fmt_value(h[i])} and {fmt_value(h[i + 1])} ft. Remove the "
                "empty interval")
        if method == "conic":
            ds = dh / 3.0 * (a[:-1] + a[1:] + np.sqrt(a[:-1] * a[1:]))
        else:
            ds = dh / 2.0 * (a[:-1] + a[1:])
        s = np.concatenate([[0.0], np.cumsum(ds)])
        return cls(h, s, a[:-1], a[1:], _frustum_wetted(h, a), name=name, method=method)

    @classmethod
    def from_volumes(cls, stage_ft: npt.ArrayLike, storage_ft3: npt.ArrayLike, *,
                     name: str = "") -> "StageStorage":
        """Stage-storage from a stage-storage table (storage linear between points).

        Parameters
        ----------
        stage_ft : array_like
            Stages from 0, strictly increasing. [ft]
        storage_ft3 : array_like
            Storage at each stage: 0 at stage 0, strictly increasing. [ft3]
        name : str, optional

        Returns
        -------
        StageStorage
            Plan area is constant on each interval (the slope of the table); the wetted
            area uses a frustum through the mid-point areas (see the class Notes).

        Raises
        ------
        InputError
            If the stages are invalid, the storage does not start at 0 or does not increase.

        Examples
        --------
        >>> ss = StageStorage.from_volumes([0, 1, 3], [0, 1000, 5000])
        >>> ss.stage_ft(3000.0)
        2.0
        """
        h = cls._check_stages(stage_ft)
        s = as_float_array(storage_ft3, "storage_ft3", lower=0.0)
        if s.shape != h.shape:
            raise InputError(f"storage_ft3 must have one value per stage; got {s.size} values "
                             f"for {h.size} stages")
        if s[0] != 0.0:
            raise InputError(f"storage_ft3 must be 0 at stage 0; got {fmt_value(s[0])}. "
                             "Measure storage from the pond bottom (dead storage below the "
                             "lowest outlet is part of the table)")
        steps = np.diff(s)
        if (steps <= 0).any():
            bad = np.flatnonzero(steps <= 0)
            i = int(bad[0]) + 1
            raise InputError(
                f"storage_ft3 must increase strictly with stage; got {fmt_value(s[i])} after "
                f"{fmt_value(s[i - 1])} at index {i} ({bad.size} of {steps.size} steps "
                "invalid). Check the table")
        slope = steps / np.diff(h)
        pts = np.concatenate([[slope[0]], (slope[:-1] + slope[1:]) / 2.0, [slope[-1]]])
        return cls(h, s, slope, slope, _frustum_wetted(h, pts), name=name, method="volumes")

    @classmethod
    def basin(cls, bottom_length_ft: float, bottom_width_ft: float, depth_ft: float, *,
              side_slope_h_per_v: float = 0.0, porosity_frac: float = 1.0,
              name: str = "") -> "StageStorage":
        r"""Rectangular (vertical walls) or trapezoidal basin with equal side slopes.

        Parameters
        ----------
        bottom_length_ft, bottom_width_ft : float
            Bottom dimensions L and W, > 0. [ft]
        depth_ft : float
            Depth to the top of the structure, > 0. [ft]
        side_slope_h_per_v : float, default 0
            Side slope z (horizontal per vertical), >= 0; 0 is a box. [-]
        porosity_frac : float, default 1
            Void fraction when the basin is filled with stone (e.g. a stone bed), in (0, 1];
            storage and areas are multiplied by it, the wetted (soil) area is not. [-]
        name : str, optional

        Returns
        -------
        StageStorage

        Raises
        ------
        InputError
            If a dimension is not positive, the side slope negative or the porosity outside
            (0, 1].

        Notes
        -----
        Frustum of a rectangular pyramid (exact):
        :math:`A(h) = (L + 2zh)(W + 2zh)`,
        :math:`S(h) = LWh + z(L + W)h^2 + \tfrac{4}{3}z^2h^3`; wetted area
        :math:`LW + 2h\sqrt{1 + z^2}(L + W + 2zh)`.

        Examples
        --------
        >>> round(StageStorage.basin(40, 20, 4, side_slope_h_per_v=2).max_storage_ft3, 1)
        5461.3
        """
        length = float(as_float_array(bottom_length_ft, "bottom_length_ft", lower=0.0,
                                      lower_inclusive=False))
        width = float(as_float_array(bottom_width_ft, "bottom_width_ft", lower=0.0,
                                     lower_inclusive=False))
        depth = float(as_float_array(depth_ft, "depth_ft", lower=0.0, lower_inclusive=False))
        z = float(as_float_array(side_slope_h_per_v, "side_slope_h_per_v", lower=0.0))
        por = float(as_float_array(porosity_frac, "porosity_frac", lower=0.0, upper=1.0,
                                   lower_inclusive=False))
        h = np.linspace(0.0, depth, 21)
        area = (length + 2 * z * h) * (width + 2 * z * h)
        stor = length * width * h + z * (length + width) * h**2 + 4.0 / 3.0 * z**2 * h**3
        wet = length * width + 2 * h * np.sqrt(1 + z * z) * (length + width + 2 * z * h)
        return cls(h, por * stor, por * area[:-1], por * area[1:], wet, name=name,
                   method="basin")

    rectangular_basin = basin
    trapezoidal_basin = basin

    @classmethod
    def drywell(cls, diameter_ft: float, depth_ft: float, *,
                stone_porosity_frac: float | None = None, stone_width_ft: float = 0.0,
                stone_depth_below_ft: float = 0.0, wall_thickness_ft: float = 0.0,
                count: int = 1, name: str = "") -> "StageStorage":
        r"""Cylindrical drywell / leaching pool with an optional stone envelope.

        Parameters
        ----------
        diameter_ft : float
            Inside diameter d of the pool (open interior), > 0. [ft]
        depth_ft : float
            Effective depth of the pool (and of the side envelope), > 0. [ft]
        stone_porosity_frac : float, optional
            Void fraction n of the stone, in (0, 1); required when there is stone (no default:
            use the value your manual prescribes). [-]
        stone_width_ft : float, default 0
            Radial width of the stone ring outside the pool wall. [ft]
        stone_depth_below_ft : float, default 0
            Thickness of the stone layer under the pool (stage 0 is its bottom). [ft]
        wall_thickness_ft : float, default 0
            Thickness of the pool wall (holds no water). [ft]
        count : int, default 1
            Number of identical pools sharing the water level.
        name : str, optional

        Returns
        -------
        StageStorage
            Top = ``stone_depth_below_ft + depth_ft``.

        Raises
        ------
        InputError
            If a size is not positive/negative as required, the porosity is missing with
            stone present or outside (0, 1), or count < 1.

        Notes
        -----
        With :math:`R_i = d/2`, :math:`R_o = R_i + t_{wall}`, :math:`R_e = R_o + w`:
        plan area of the stone layer below the pool :math:`n \pi R_e^2`; beside the pool
        :math:`\pi R_i^2 + n\pi(R_e^2 - R_o^2)`. Wetted (soil-interface) area
        :math:`\pi R_e^2 + 2\pi R_e h`.

        Examples
        --------
        >>> dw = StageStorage.drywell(8.0, 10.0, stone_porosity_frac=0.4, stone_width_ft=2.0)
        >>> round(dw.max_storage_ft3, 1)       # pi*16*10 + 0.4*pi*(36-16)*10
        754.0
        """
        d = float(as_float_array(diameter_ft, "diameter_ft", lower=0.0, lower_inclusive=False))
        depth = float(as_float_array(depth_ft, "depth_ft", lower=0.0, lower_inclusive=False))
        w = float(as_float_array(stone_width_ft, "stone_width_ft", lower=0.0))
        below = float(as_float_array(stone_depth_below_ft, "stone_depth_below_ft", lower=0.0))
        wall = float(as_float_array(wall_thickness_ft, "wall_thickness_ft", lower=0.0))
        if isinstance(count, bool) or int(count) != count or count < 1:
            raise InputError(f"count must be an integer >= 1; got {count!r}")
        if (w > 0 or below > 0) and stone_porosity_frac is None:
            raise InputError("stone_porosity_frac must be given when the drywell has stone; "
                             "got None. Use the void ratio your design manual prescribes")
        n = 0.0 if stone_porosity_frac is None else float(as_float_array(
            stone_porosity_frac, "stone_porosity_frac", lower=0.0, upper=1.0,
            lower_inclusive=False, upper_inclusive=False))
        r_i, r_o = d / 2.0, d / 2.0 + wall
        r_e = r_o + w
        a_side = np.pi * r_i**2 + n * np.pi * (r_e**2 - r_o**2)
        if below > 0:
            h = np.array([0.0, below, below + depth])
            alo = np.array([n * np.pi * r_e**2, a_side])
            ahi = alo.copy()
        else:
            h = np.array([0.0, depth])
            alo = ahi = np.array([a_side])
        s = np.concatenate([[0.0], np.cumsum(alo * np.diff(h))])
        wet = np.pi * r_e**2 + 2 * np.pi * r_e * h
        k = int(count)
        return cls(h, k * s, k * alo, k * ahi, k * wet, name=name, method="drywell")

    leaching_pool = drywell

    # -- combination ----------------------------------------------------------------------
    def raised(self, by_ft: float) -> "StageStorage":
        """The same storage with its bottom ``by_ft`` above the system's bottom (stage 0).

        Raises
        ------
        InputError
            If ``by_ft`` is negative.
        """
        dz = float(as_float_array(by_ft, "by_ft", lower=0.0))
        if dz == 0.0:
            return self
        h = np.concatenate([[0.0], self._h + dz])
        return StageStorage(h, np.concatenate([[0.0], self._s]),
                            np.concatenate([[0.0], self._alo]),
                            np.concatenate([[0.0], self._ahi]),
                            np.concatenate([[0.0], self._w]), name=self.name,
                            method=self.method, _allow_flat=True)

    def _segments(self, a: np.ndarray, b: np.ndarray):
        """S(a), S(b), area just above a, area just below b, wetted(a), wetted(b).

        Every [a, b] must lie inside one of this table's intervals or outside its range
        (below the bottom: empty; above the top: full, no area).
        """
        top = self.top_stage_ft
        mid = (a + b) / 2.0
        out_s_a = np.where(a >= top, self._s[-1], 0.0)
        inside = (mid > 0.0) & (mid < top)
        i = np.clip(np.searchsorted(self._h, mid, side="right") - 1, 0, self._h.size - 2)
        sa = self._hermite(i, a)
        sb = self._hermite(i, b)
        aa = self._hermite_slope(i, a)
        ab = self._hermite_slope(i, b)
        wa = np.interp(a, self._h, self._w)
        wb = np.interp(b, self._h, self._w)
        s_a = np.where(inside, sa, out_s_a)
        s_b = np.where(inside, sb, np.where(b >= top, self._s[-1], 0.0))
        above = mid >= top
        w_a = np.where(inside | above, wa, 0.0)
        w_b = np.where(inside | above, wb, 0.0)
        return (s_a, s_b, np.where(inside, aa, 0.0), np.where(inside, ab, 0.0), w_a, w_b)

    def __add__(self, other: "StageStorage") -> "StageStorage":
        if not isinstance(other, StageStorage):
            return NotImplemented
        h = np.unique(np.concatenate([self._h, other._h]))
        a, b = h[:-1], h[1:]
        p = self._segments(a, b)
        q = other._segments(a, b)
        s = np.concatenate([[p[0][0] + q[0][0]], p[1] + q[1]])
        w = np.concatenate([[p[4][0] + q[4][0]], p[5] + q[5]])
        name = " + ".join(n for n in (self.name, other.name) if n)
        return StageStorage(h, s, p[2] + q[2], p[3] + q[3], w, name=name, method="sum")

    def __radd__(self, other):
        if other == 0:  # sum([...]) works
            return self
        return NotImplemented

    def __mul__(self, count) -> "StageStorage":
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            return NotImplemented
        k = int(count)
        return StageStorage(self._h, k * self._s, k * self._alo, k * self._ahi, k * self._w,
                            name=f"{k} x {self.name}" if self.name else "", method=self.method)

    __rmul__ = __mul__

    # -- evaluation -----------------------------------------------------------------------
    def _hermite(self, i, h):
        h0, h1 = self._h[i], self._h[i + 1]
        dh = h1 - h0
        t = (h - h0) / dh
        t2, t3 = t * t, t * t * t
        return ((2 * t3 - 3 * t2 + 1) * self._s[i] + (t3 - 2 * t2 + t) * dh * self._alo[i]
                + (-2 * t3 + 3 * t2) * self._s[i + 1] + (t3 - t2) * dh * self._ahi[i])

    def _hermite_slope(self, i, h):
        h0, h1 = self._h[i], self._h[i + 1]
        dh = h1 - h0
        t = (h - h0) / dh
        t2 = t * t
        return ((6 * t2 - 6 * t) * (self._s[i] - self._s[i + 1]) / dh
                + (3 * t2 - 4 * t + 1) * self._alo[i] + (3 * t2 - 2 * t) * self._ahi[i])

    def _index(self, h):
        return np.clip(np.searchsorted(self._h, h, side="right") - 1, 0, self._h.size - 2)

    @property
    def extension_area_ft2(self) -> float:
        """Plan area assumed above the top (vertical walls at the largest area). [ft2]"""
        return float(max(self._alo.max(), self._ahi.max()))

    def _storage_ext(self, h):
        h = np.asarray(h, dtype=float)
        top = self.top_stage_ft
        hc = np.clip(h, 0.0, top)
        s = self._hermite(self._index(hc), hc)
        return np.where(h > top, self._s[-1] + self.extension_area_ft2 * (h - top),
                        np.where(h <= 0.0, 0.0, s))

    def _area_ext(self, h):
        h = np.asarray(h, dtype=float)
        top = self.top_stage_ft
        hc = np.clip(h, 0.0, top)
        a = self._hermite_slope(self._index(hc), hc)
        return np.where(h > top, self.extension_area_ft2, np.clip(a, 0.0, None))

    def _wetted_ext(self, h):
        h = np.asarray(h, dtype=float)
        return np.interp(np.clip(h, 0.0, None), self._h, self._w)

    def _check(self, stage_ft):
        return as_float_array(stage_ft, "stage_ft", lower=0.0, upper=self.top_stage_ft,
                              hint=f"The top of this structure is {fmt_value(self.top_stage_ft)} "
                                   "ft; above it the pond overtops")

    def storage_ft3(self, stage_ft: npt.ArrayLike):
        """Storage at ``stage_ft`` in [0, top]. [ft3]

        Examples
        --------
        >>> StageStorage.basin(100, 50, 4).storage_ft3([1.0, 2.5])
        array([ 5000., 12500.])
        """
        h = self._check(stage_ft)
        return like(self._storage_ext(h), stage_ft)

    def area_ft2(self, stage_ft: npt.ArrayLike):
        """Plan (water-surface) area at ``stage_ft`` in [0, top]; at a table breakpoint the
        area just above it. [ft2]"""
        h = self._check(stage_ft)
        return like(self._area_ext(h), stage_ft)

    def wetted_area_ft2(self, stage_ft: npt.ArrayLike):
        """Bottom plus submerged side area at ``stage_ft`` in [0, top] (soil interface). [ft2]"""
        h = self._check(stage_ft)
        return like(self._wetted_ext(h), stage_ft)

    def stage_ft(self, storage_ft3: npt.ArrayLike):
        """Stage holding ``storage_ft3`` in [0, max_storage_ft3] (inverse of storage). [ft]

        Solved on the Hermite interval by bisection to machine precision.
        """
        v = as_float_array(storage_ft3, "storage_ft3", lower=0.0, upper=self.max_storage_ft3,
                           hint="Above the maximum storage the pond overtops")
        flat = np.atleast_1d(v).ravel()
        i = np.clip(np.searchsorted(self._s, flat, side="right") - 1, 0, self._s.size - 2)
        lo, hi = self._h[i].copy(), self._h[i + 1].copy()
        for _ in range(60):
            mid = (lo + hi) / 2.0
            below = self._hermite(i, mid) < flat
            lo = np.where(below, mid, lo)
            hi = np.where(below, hi, mid)
        out = ((lo + hi) / 2.0).reshape(np.shape(v))
        return like(out, storage_ft3)

    @property
    def top_stage_ft(self) -> float:
        """Stage of the top of the structure (last table stage). [ft]"""
        return float(self._h[-1])

    @property
    def max_storage_ft3(self) -> float:
        """Storage at the top. [ft3]"""
        return float(self._s[-1])

    @property
    def bottom_area_ft2(self) -> float:
        """Plan area just above stage 0. [ft2]"""
        return float(self._alo[0])

    @property
    def breakpoints_ft(self) -> np.ndarray:
        """Stages of the table points. [ft]"""
        return self._h.copy()

    def to_frame(self):
        """DataFrame of the table points: stage_ft, area_ft2, storage_ft3, wetted_area_ft2."""
        import pandas as pd

        area = np.concatenate([self._alo, [self._ahi[-1]]])
        return pd.DataFrame({"stage_ft": self._h, "area_ft2": area, "storage_ft3": self._s,
                             "wetted_area_ft2": self._w})

    def __repr__(self) -> str:
        return (f"StageStorage(name={self.name!r}, method={self.method!r}, "
                f"top_stage_ft={self.top_stage_ft:g}, max_storage_ft3={self.max_storage_ft3:.6g},"
                f" points={self._h.size})")

    def _repr_html_(self) -> str:
        from hydrocalc import display

        return display.html(self)


def _frustum_wetted(h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Bottom area + cumulative lateral area of conical frusta through the given areas."""
    r = np.sqrt(np.clip(a, 0.0, None) / np.pi)
    lateral = np.pi * (r[:-1] + r[1:]) * np.sqrt(np.diff(r) ** 2 + np.diff(h) ** 2)
    return a[0] + np.concatenate([[0.0], np.cumsum(lateral)])


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


def _build_table(ss: StageStorage, structure: OutletStructure, dt_s: float,
                 points: int = TABLE_POINTS) -> _Table:
    h = _table_stages(ss, structure, points)
    s = ss._storage_ext(h)
    comps = structure._components(h)
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
        Messages also emitted as warnings (overtopping, coarse step).
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
    structure = as_structure(outlets).bind(stage_storage)
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
                    table_points: int = TABLE_POINTS) -> RoutingResult:
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

    Returns
    -------
    RoutingResult

    Raises
    ------
    InputError
        For an invalid inflow, a device above the top of the structure, an initial stage
        outside [0, top], a step coarser than the inflow's, or a decreasing rating.

    Warns
    -----
    OvertoppingWarning
        When the routed stage exceeds the top of the structure (also ``overtopped=True``).
    RangeWarning
        When the step is too coarse for the pond (the outflow may oscillate).

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
    table = _build_table(stage_storage, structure, dt_s, table_points)
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
    return _result(getattr(inflow, "name", ""), t, q, xs, os_, table, dt)


def _result(name, t, q, xs, os_, table: _Table, dt) -> RoutingResult:
    dt_s = dt * S_PER_HR
    storage = (xs - os_) * dt_s / 2.0
    stage = _interp_ext(xs, table.si, table.stage)
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
    i_in = int(np.argmax(q))
    return RoutingResult(
        time_hr=t, inflow_cfs=q, outflow_cfs=os_, stage_ft=stage, storage_ft3=storage,
        primary_cfs=primary, discarded_cfs=discarded, device_flows_cfs=flows,
        peak_outflow_cfs=float(os_[i_pk]), time_of_peak_outflow_hr=float(t[i_pk]),
        peak_primary_cfs=float(primary.max()), peak_stage_ft=peak_stage,
        time_of_peak_stage_hr=float(t[j_pk]), peak_storage_ft3=float(storage.max()),
        peak_inflow_cfs=float(q[i_in]), time_of_peak_inflow_hr=float(t[i_in]),
        mass_balance_error_pct=mb, overtopped=bool(over), top_stage_ft=table.top,
        freeboard_ft=table.top - peak_stage, dt_hr=dt, warnings=tuple(messages), name=name)


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
                     overtopping_warning: bool = True) -> BatchRoutingResult:
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
    tables = []
    for ss, outl in zip(ss_list, out_list):
        structure = as_structure(outl).bind(ss)
        _check_devices(structure, ss)
        tables.append(_route_kernel.cached_table(_build_table, ss, structure, dt_s,
                                                 table_points))
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
        dt_hr=dt, _tables=tuple(tables))


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


# =========================================================================================
# Sizing
# =========================================================================================
@dataclass(frozen=True)
class SizingResult:
    """Outcome of :func:`size_outlet` (one row per storm in :meth:`to_frame`).

    Attributes
    ----------
    size : float
        The smallest size meeting every storm's target without exceeding the stage limit
        (NaN when no size in the range does). [in or ft]
    largest_size : float
        The largest size meeting every target (NaN when infeasible). [in or ft]
    feasible : bool
    storm_names : tuple of str
    target_peak_cfs, peak_outflow_cfs, margin_cfs, margin_pct, peak_stage_ft : ndarray (m,)
        Per storm, routed with ``size`` (margin = target - peak; at the smallest size of the
        range when infeasible).
    max_stage_ft : float
        The stage limit used (the top of the structure unless given). [ft]
    reason : str
        Why the design is infeasible (empty when feasible).
    """

    size: float
    largest_size: float
    feasible: bool
    size_unit: str
    storm_names: tuple
    target_peak_cfs: np.ndarray
    peak_outflow_cfs: np.ndarray
    margin_cfs: np.ndarray
    margin_pct: np.ndarray
    peak_stage_ft: np.ndarray
    overtopped: np.ndarray
    max_stage_ft: float
    device: object = None
    reason: str = ""

    @property
    def diameter_in(self) -> float:
        """The (smallest feasible) size, for an orifice. [in]"""
        return self.size

    @property
    def length_ft(self) -> float:
        """The (smallest feasible) size, for a weir. [ft]"""
        return self.size

    def to_frame(self):
        """One row per storm: target, peak, margin, peak stage."""
        import pandas as pd

        return pd.DataFrame({"storm": list(self.storm_names),
                             "target_peak_cfs": self.target_peak_cfs,
                             "peak_outflow_cfs": self.peak_outflow_cfs,
                             "margin_cfs": self.margin_cfs, "margin_pct": self.margin_pct,
                             "peak_stage_ft": self.peak_stage_ft,
                             "overtopped": self.overtopped})


def _common_inflows(inflows, dt_hr):
    if isinstance(inflows, Hydrograph) or (hasattr(inflows, "time_hr")
                                           and hasattr(inflows, "flow_cfs")):
        inflows = [inflows]
    inflows = list(inflows)
    if not inflows:
        raise InputError("inflows must hold at least one Hydrograph; got none")
    for i, h in enumerate(inflows):
        if not isinstance(h, Hydrograph):
            raise InputError(f"inflows must be Hydrographs; got {h!r} at index {i}")
    dt = min(h.dt_hr for h in inflows) if dt_hr is None else float(
        as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    t0 = min(float(h.time_hr[0]) for h in inflows)
    t1 = max(float(h.time_hr[-1]) for h in inflows)
    n = int(math.ceil((t1 - t0) / dt - 1e-9)) + 1
    t = t0 + dt * np.arange(n)
    q = np.stack([np.interp(t, h.time_hr, h.flow_cfs, left=0.0, right=0.0) for h in inflows])
    names = tuple(h.name or f"storm {i + 1}" for i, h in enumerate(inflows))
    return inflows, t, q, dt, names


#: Candidate sizes per batched evaluation of the sizing search.
_SIZING_GRID = 65


def size_outlet(inflows, stage_storage: StageStorage, make_device: Callable[[float], Device],
                target_peak_cfs: npt.ArrayLike, *, size_range: tuple[float, float],
                other_outlets=(), max_stage_ft: float | None = None,
                tolerance: float | None = None, dt_hr: float | None = None,
                size_unit: str = "") -> SizingResult:
    """Smallest (and largest) device size whose routed peaks meet every storm's target.

    Parameters
    ----------
    inflows : Hydrograph or sequence of m Hydrographs
        Design storms' inflows (put on a common step: the finest of them, or ``dt_hr``).
    stage_storage : StageStorage
    make_device : callable
        ``make_device(size) -> Device``, the device being sized.
    target_peak_cfs : float or array_like (m,)
        Allowable peak outflow per storm (e.g. the pre-development peaks); the primary
        outflow (to the downstream system) is compared. [ft3/s]
    size_range : (float, float)
        Smallest and largest size to consider, 0 < lo < hi.
    other_outlets : Device or sequence of Device, optional
        Fixed devices in parallel with the sized one (e.g. an overflow weir, exfiltration).
    max_stage_ft : float, optional
        Stage no storm may exceed; default the top of the structure (no overtopping). [ft]
    tolerance : float, optional
        Resolution of the answer (default (hi - lo) / 10,000).
    dt_hr : float, optional
        Routing step (default: the finest inflow step). [h]
    size_unit : str
        Unit label of the size ("in", "ft").

    Returns
    -------
    SizingResult
        ``size``: the smallest feasible size; ``largest_size``: the largest; margins per
        storm from routing ``size`` with :func:`route_reservoir`.

    Notes
    -----
    A size is feasible when, for every storm, the routed peak primary outflow is at most
    the target and the peak stage at most ``max_stage_ft``. A small opening holds the peak
    outflow down until the pond fills (then it overtops, or spills over the other outlets,
    so the peak rises again); a large one releases too much. The feasible sizes therefore
    usually form one interval: its lower end is the most restrictive design that still
    contains the storms (most detention), its upper end the least restrictive one (least
    storage used). The search routes 65 candidate sizes, evenly spaced in log(size), x m
    storms in one batched call (:func:`route_reservoirs`), then narrows each end of the
    feasible set with further batched rounds until it is known to ``tolerance``. A feasible
    range narrower than one grid step, a factor (hi/lo)^(1/64), could be missed: narrow
    ``size_range`` when it is wide.
    """
    inflows, t, q, dt, names = _common_inflows(inflows, dt_hr)
    m = len(inflows)
    target = np.broadcast_to(as_float_array(target_peak_cfs, "target_peak_cfs", lower=0.0),
                             (m,)).astype(float)
    try:
        lo, hi = (float(v) for v in size_range)
    except (TypeError, ValueError):
        raise InputError(f"size_range must be (lo, hi); got {size_range!r}") from None
    if not (0 < lo < hi):
        raise InputError(f"size_range must be (lo, hi) with 0 < lo < hi; got {size_range!r}")
    tol = (hi - lo) / 1e4 if tolerance is None else float(
        as_float_array(tolerance, "tolerance", lower=0.0, lower_inclusive=False))
    stage_cap = stage_storage.top_stage_ft if max_stage_ft is None else float(
        as_float_array(max_stage_ft, "max_stage_ft", lower=0.0))
    if isinstance(other_outlets, Device):
        other_outlets = [other_outlets]
    others = list(other_outlets)

    def structure(size):
        return OutletStructure([make_device(size), *others])

    def feasible(sizes):
        sizes = list(sizes)
        qq = np.broadcast_to(q[:, None, :], (m, len(sizes), q.shape[-1]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RangeWarning)
            res = route_reservoirs(qq, dt, stage_storage, [structure(s) for s in sizes],
                                   keep="series" if _has_discarded(others) else "peaks")
            peak = (res.peak_outflow_cfs if not _has_discarded(others) else
                    np.array([[res.routing_result((i, j)).peak_primary_cfs
                               for j in range(len(sizes))] for i in range(m)]))
        ok = (peak <= target[:, None] * (1 + 1e-12)).all(axis=0)
        return ok & (res.peak_stage_ft <= stage_cap * (1 + 1e-12)).all(axis=0)

    grid = np.geomspace(lo, hi, _SIZING_GRID)
    ok = feasible(grid)
    size = largest = math.nan
    reason = ""
    if not ok.any():
        reason = (f"no size in [{fmt_value(lo)}, {fmt_value(hi)}] {size_unit} meets every "
                  f"target with the peak stage <= {fmt_value(stage_cap)} ft; the pond needs "
                  "more storage (or other outlets)")
    else:
        first, last = int(np.flatnonzero(ok)[0]), int(np.flatnonzero(ok)[-1])
        size = grid[first]
        if first > 0:                          # bracket [infeasible, feasible]: narrow it
            a, b = grid[first - 1], grid[first]
            while b - a > tol:
                cand = np.linspace(a, b, 33)
                okc = feasible(cand[1:-1])
                hit = np.flatnonzero(okc)
                k = int(hit[0]) + 1 if hit.size else 32
                a, b = cand[k - 1], cand[k]
            size = b
        largest = grid[last]
        if last < grid.size - 1:               # bracket [feasible, infeasible]
            a, b = grid[last], grid[last + 1]
            while b - a > tol:
                cand = np.linspace(a, b, 33)
                okc = feasible(cand[1:-1])
                hit = np.flatnonzero(~okc)
                k = int(hit[0]) + 1 if hit.size else 32
                a, b = cand[k - 1], cand[k]
            largest = a
    chosen = size if math.isfinite(size) else lo
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        final = [route_reservoir(h, stage_storage, structure(chosen),
                                 dt_hr=dt if dt < h.dt_hr else None) for h in inflows]
    peaks = np.array([r.peak_primary_cfs for r in final])
    with np.errstate(divide="ignore", invalid="ignore"):
        pct = np.where(target > 0, 100.0 * (target - peaks) / target, np.nan)
    return SizingResult(
        size=size, largest_size=largest, feasible=math.isfinite(size), size_unit=size_unit,
        storm_names=names, target_peak_cfs=target, peak_outflow_cfs=peaks,
        margin_cfs=target - peaks, margin_pct=pct,
        peak_stage_ft=np.array([r.peak_stage_ft for r in final]),
        overtopped=np.array([r.overtopped for r in final]), max_stage_ft=stage_cap,
        device=make_device(chosen) if math.isfinite(size) else None, reason=reason)


def _has_discarded(devices) -> bool:
    return any(leaf.kind == "discarded" for d in devices for leaf in d.leaves())


def size_orifice(inflows, stage_storage: StageStorage, target_peak_cfs: npt.ArrayLike, *,
                 invert_ft: float = 0.0, cd: float = 0.6, other_outlets=(),
                 min_diameter_in: float = 0.5, max_diameter_in: float | None = None,
                 max_stage_ft: float | None = None, tolerance_in: float = 0.01,
                 dt_hr: float | None = None) -> SizingResult:
    """Smallest circular-orifice diameter whose routed peaks meet every storm's target.

    Parameters
    ----------
    inflows : Hydrograph or sequence of Hydrograph
    stage_storage : StageStorage
    target_peak_cfs : float or array_like (m,)
        Allowable peak outflow per storm. [ft3/s]
    invert_ft, cd : float
        Orifice invert [ft] and discharge coefficient [-].
    other_outlets : Device or sequence of Device
        Fixed devices in parallel (e.g. a weir for larger storms).
    min_diameter_in, max_diameter_in : float
        Search range [in]; the default maximum is the largest orifice that fits below the top.
    max_stage_ft : float, optional
        Stage no storm may exceed (default: the top of the structure). [ft]
    tolerance_in : float, default 0.01
        Resolution of the diameter. [in]
    dt_hr : float, optional
        Routing step. [h]

    Returns
    -------
    SizingResult
        ``diameter_in`` (smallest feasible), ``largest_size`` and per-storm margins (see
        :func:`size_outlet`).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(0, 8.01, 0.05)
    >>> q = 30.0 * np.clip(1 - np.abs(t - 1.5) / 1.5, 0, None)
    >>> r = size_orifice(Hydrograph(t, q, name="10-yr"), StageStorage.basin(200, 150, 6), 8.0)
    >>> bool(r.feasible and r.margin_cfs[0] >= 0 and r.largest_size > r.diameter_in)
    True
    """
    top = stage_storage.top_stage_ft
    hi = max_diameter_in if max_diameter_in is not None else 12.0 * (top - float(invert_ft))
    return size_outlet(inflows, stage_storage,
                       lambda d: CircularOrifice(d, invert_ft, cd=cd, name="sized_orifice"),
                       target_peak_cfs, size_range=(min_diameter_in, hi),
                       other_outlets=other_outlets, max_stage_ft=max_stage_ft,
                       tolerance=tolerance_in, dt_hr=dt_hr, size_unit="in")


def size_weir(inflows, stage_storage: StageStorage, target_peak_cfs: npt.ArrayLike, *,
              crest_ft: float, cw: float = 3.33, end_contractions: int = 0, other_outlets=(),
              min_length_ft: float = 0.1, max_length_ft: float = 100.0,
              max_stage_ft: float | None = None, tolerance_ft: float = 0.01,
              dt_hr: float | None = None) -> SizingResult:
    """Smallest rectangular-weir length whose routed peaks meet every storm's target.

    Same as :func:`size_orifice` for :class:`~hydrocalc.outlets.RectangularWeir`
    (``length_ft`` in [``min_length_ft``, ``max_length_ft``], resolution ``tolerance_ft``).
    """
    return size_outlet(inflows, stage_storage,
                       lambda L: RectangularWeir(L, crest_ft, cw=cw,
                                                 end_contractions=end_contractions,
                                                 name="sized_weir"),
                       target_peak_cfs, size_range=(min_length_ft, max_length_ft),
                       other_outlets=other_outlets, max_stage_ft=max_stage_ft,
                       tolerance=tolerance_ft, dt_hr=dt_hr, size_unit="ft")


# =========================================================================================
# Pond files
# =========================================================================================
_DEVICE_TYPES = {
    "circular_orifice": (CircularOrifice, ("diameter_in", "invert_ft"), ("cd",)),
    "rectangular_orifice": (RectangularOrifice, ("width_in", "height_in", "invert_ft"), ("cd",)),
    "rectangular_weir": (RectangularWeir, ("length_ft", "crest_ft"), ("cw", "end_contractions")),
    "vnotch_weir": (VNotchWeir, ("angle_deg", "crest_ft"), ("cw",)),
    "broad_crested_weir": (BroadCrestedWeir, ("length_ft", "crest_ft"), ("cw",)),
    "riser": (Riser, ("diameter_in", "crest_ft"), ("cw", "cd")),
    "exfiltration": (Exfiltration, ("rate_in_hr",), ("over",)),
}
_BARREL_KEYS = (("diameter_in", "invert_ft", "length_ft", "slope_ftft"), ("n", "ke", "cd"))


@dataclass(frozen=True)
class Pond:
    """A pond read from a file: its stage-storage and outlet structure."""

    name: str
    stage_storage: StageStorage
    outlets: OutletStructure


def _storage_from(spec: Mapping, where: str, problems: list[str]):
    kinds = [k for k in ("area_ft2", "storage_ft3", "basin", "drywell") if k in spec]
    if len(kinds) != 1:
        problems.append(f"{where}: [storage] must give exactly one of area_ft2, storage_ft3, "
                        f"[storage.basin] or [storage.drywell]; got {kinds or 'none'}")
        return None
    try:
        if kinds[0] == "area_ft2":
            return StageStorage.from_areas(spec.get("stage_ft"), spec["area_ft2"],
                                           method=spec.get("method", "conic"))
        if kinds[0] == "storage_ft3":
            return StageStorage.from_volumes(spec.get("stage_ft"), spec["storage_ft3"])
        if kinds[0] == "basin":
            return StageStorage.basin(**spec["basin"])
        return StageStorage.drywell(**spec["drywell"])
    except InputError as exc:
        problems.append(f"{where}: storage: {exc}")
    except TypeError as exc:
        problems.append(f"{where}: storage: {exc}")
    return None


def _device_from(spec: Mapping, label: str, problems: list[str]):
    kind = spec.get("type")
    if kind not in _DEVICE_TYPES:
        problems.append(f"{label}.type must be one of {', '.join(_DEVICE_TYPES)}; got "
                        f"{kind!r}{suggest(str(kind), _DEVICE_TYPES)}")
        return None
    cls, required, optional = _DEVICE_TYPES[kind]
    allowed = set(required) | set(optional) | {"type", "name", "into_barrel"}
    for key in spec:
        if key not in allowed:
            problems.append(f"{label}: unknown key {key!r}{suggest(key, allowed)}")
    missing = [k for k in required if k not in spec]
    if missing:
        problems.append(f"{label}: missing {', '.join(missing)}")
        return None
    try:
        return cls(*[spec[k] for k in required],
                   **{k: spec[k] for k in optional if k in spec}, name=spec.get("name", ""))
    except InputError as exc:
        problems.append(f"{label}: {exc}")
    return None


def pond_from_mapping(mapping: Mapping, *, where: str = "pond.toml") -> Pond:
    """A :class:`Pond` from a mapping (a parsed TOML pond file).

    Layout::

        name = "Pond A"
        [storage]                 # exactly one of the four forms
        stage_ft = [0, 1, 2, 3]
        area_ft2 = [1000, 1400, 1900, 2500]
        method = "conic"          # or "average_end_area"
        # storage_ft3 = [...]     (with stage_ft)
        # [storage.basin]   bottom_length_ft, bottom_width_ft, depth_ft, side_slope_h_per_v
        # [storage.drywell] diameter_ft, depth_ft, stone_porosity_frac, stone_width_ft, ...
        [[outlet]]
        type = "circular_orifice" # circular_orifice, rectangular_orifice, rectangular_weir,
        diameter_in = 6           # vnotch_weir, broad_crested_weir, riser, exfiltration
        invert_ft = 0
        into_barrel = true        # optional: discharges through [barrel]
        [barrel]                  # optional
        diameter_in = 18; invert_ft = 0; length_ft = 60; slope_ftft = 0.01

    Raises
    ------
    InputError
        Listing every problem found, one per line.
    """
    problems: list[str] = []
    allowed = {"name", "storage", "outlet", "barrel"}
    for key in mapping:
        if key not in allowed:
            problems.append(f"{where}: unknown key {key!r}{suggest(key, allowed)}")
    ss = _storage_from(mapping.get("storage", {}), where, problems)
    devices, into = [], []
    specs = mapping.get("outlet", [])
    if not specs:
        problems.append(f"{where}: at least one [[outlet]] is required; got none")
    for i, spec in enumerate(specs):
        dev = _device_from(spec, f"{where}: outlet[{i}]", problems)
        if dev is not None:
            (into if spec.get("into_barrel") else devices).append(dev)
    barrel = None
    if "barrel" in mapping:
        b = dict(mapping["barrel"])
        req, opt = _BARREL_KEYS
        missing = [k for k in req if k not in b]
        if missing:
            problems.append(f"{where}: barrel: missing {', '.join(missing)}")
        else:
            try:
                barrel = Barrel(*[b[k] for k in req], **{k: b[k] for k in opt if k in b})
            except InputError as exc:
                problems.append(f"{where}: barrel: {exc}")
    elif into:
        problems.append(f"{where}: outlets marked into_barrel need a [barrel]; got none")
    if problems:
        raise InputError("\n".join(problems))
    parts = list(devices)
    if into:
        parts.insert(0, OutletStructure(into, barrel=barrel, name="riser"))
    elif barrel is not None:
        parts.append(barrel)
    name = str(mapping.get("name", ""))
    structure = OutletStructure(parts, name=name or "outlets")
    try:
        _check_devices(structure.bind(ss), ss)
    except InputError as exc:
        raise InputError(f"{where}: {exc}") from None
    return Pond(name, ss, structure)


def load_pond(path) -> Pond:
    """Read a pond TOML file (layout in :func:`pond_from_mapping`).

    Raises
    ------
    InputError
        If the file is missing, is not valid TOML, or describes an invalid pond.
    """
    p = pathlib.Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as exc:
        raise InputError(f"pond file must be readable; got {str(p)!r} ({exc.strerror})") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p.name} must be valid TOML; got: {exc}") from None
    return pond_from_mapping(data, where=p.name)


# =========================================================================================
# Export to EPA SWMM 5 (independent check)
# =========================================================================================
def to_swmm_inp(inflow: Hydrograph, stage_storage: StageStorage, outlets, *,
                initial_stage_ft: float = 0.0, routing_step_s: float = 1.0,
                flow_routing: str = "DYNWAVE", duration_hr: float | None = None,
                storage_points: int = 200) -> str:
    """The pond as an EPA SWMM 5 input file (text), for an independent check of a route.

    The inflow is an external inflow time series on a storage unit ``SU1`` (tabular
    depth-area curve; SWMM integrates it by average end areas [3]_). Each device is one link
    to its own free outfall (``OUT<i>``, fixed stage 100 ft below the pond bottom, so there is
    never tailwater); because every device's flow rises with stage, the peak total outflow
    is the sum of the outfalls' peak flows. Coefficient conventions, identical to hydrocalc's:

    * CircularOrifice / RectangularOrifice -> SIDE orifice (CIRCULAR / RECT_CLOSED), Qcoeff =
      cd; SWMM: Q = cd A sqrt(2 g h) submerged, cd A sqrt(2 g D/2) f^1.5 partly submerged.
    * RectangularWeir -> TRANSVERSE weir, Qcoeff = cw (US units), EndCon = end_contractions.
    * BroadCrestedWeir -> TRANSVERSE weir, Qcoeff = cw (same equation, no contractions).
    * VNotchWeir -> V-NOTCH weir on a TRIANGULAR section whose top width is
      2 height tan(theta/2), Qcoeff = cw (SWMM: Q = Cw S H^2.5, S = tan(theta/2)).

    Weir openings are made 100 ft high so SWMM never switches them to orifice flow. Risers,
    barrels and exfiltration have no exact SWMM equivalent here and raise InputError.

    Parameters
    ----------
    inflow : Hydrograph
    stage_storage : StageStorage
        Exported as a depth-area curve: the table points plus ``storage_points`` even stages
        (exact for ``from_areas(..., method="average_end_area")``), extended at the largest
        area to three times the top (SWMM's maximum depth) so a small overtopping is routed
        the same way hydrocalc routes it.
    outlets : Device, list or OutletStructure (without barrel)
    initial_stage_ft : float
    routing_step_s : float, default 1
        SWMM routing step (fixed, no variable step). [s]
    flow_routing : {"DYNWAVE", "KINWAVE"}
    duration_hr : float, optional
        Simulation length (default: the inflow's span). [h]
    storage_points : int, default 200

    Returns
    -------
    str
        The .inp text. Run it with pyswmm; read ``SU1``'s maximum depth and the outfalls'
        peak flows.
    """
    import datetime

    check_choice(flow_routing, "flow_routing", ("DYNWAVE", "KINWAVE"))
    structure = as_structure(outlets)
    if structure.barrel is not None:
        raise InputError("to_swmm_inp supports devices in parallel only; got a structure with "
                         "a barrel")
    leaves = structure.leaves()
    top = stage_storage.top_stage_ft
    h = np.unique(np.concatenate([stage_storage._h, np.linspace(0.0, top, storage_points)]))
    area = stage_storage._area_ext(h)
    if stage_storage.method != "average_end_area":
        # midpoint areas reproduce the stage-storage's own volume between points best
        area = np.concatenate([[area[0]], np.diff(stage_storage._storage_ext(h)) / np.diff(h)])
        area = np.concatenate([[area[1]], (area[1:-1] + area[2:]) / 2.0, [area[-1]]])
    a_ext = stage_storage.extension_area_ft2
    h = np.concatenate([h, [3.0 * top]])
    area = np.concatenate([area, [a_ext]])
    t = np.asarray(inflow.time_hr, dtype=float)
    q = np.asarray(inflow.flow_cfs, dtype=float)
    t_end = float(t[-1]) if duration_hr is None else float(t[0]) + float(duration_hr)
    start = datetime.datetime(2020, 1, 1)
    end = start + datetime.timedelta(hours=t_end)
    lines = [
        "[TITLE]", "hydrocalc pond export", "",
        "[OPTIONS]", "FLOW_UNITS CFS", "INFILTRATION HORTON", f"FLOW_ROUTING {flow_routing}",
        "LINK_OFFSETS DEPTH", "START_DATE 01/01/2020", "START_TIME 00:00:00",
        "REPORT_START_DATE 01/01/2020", "REPORT_START_TIME 00:00:00",
        f"END_DATE {end:%m/%d/%Y}", f"END_TIME {end:%H:%M:%S}",
        "DRY_DAYS 0", "REPORT_STEP 00:15:00", "WET_STEP 00:15:00", "DRY_STEP 01:00:00",
        f"ROUTING_STEP {routing_step_s:g}", "ALLOW_PONDING NO", "INERTIAL_DAMPING PARTIAL",
        "VARIABLE_STEP 0.00", "LENGTHENING_STEP 0", "MIN_SURFAREA 0",
        "NORMAL_FLOW_LIMITED BOTH", "SKIP_STEADY_STATE NO", "MAX_TRIALS 20",
        "HEAD_TOLERANCE 0.00001", "SYS_FLOW_TOL 5", "LAT_FLOW_TOL 5", "MINIMUM_STEP 0.1",
        "THREADS 1", "",
        "[STORAGE]",
        f"SU1 0 {3.0 * top:.6f} {float(initial_stage_ft):.6f} TABULAR SC1 0 0", "",
        "[OUTFALLS]",
    ]
    lines += [f"OUT{i + 1} -100 FIXED -100 NO" for i in range(len(leaves))]
    orifices, weirs, xsect = ["", "[ORIFICES]"], ["", "[WEIRS]"], ["", "[XSECTIONS]"]
    for i, dev in enumerate(leaves):
        link, out = f"L{i + 1}", f"OUT{i + 1}"
        if isinstance(dev, CircularOrifice):
            orifices.append(f"{link} SU1 {out} SIDE {dev.invert_ft:.6f} {dev.cd:g} NO 0")
            xsect.append(f"{link} CIRCULAR {dev.height_ft:.8f} 0 0 0")
        elif isinstance(dev, RectangularOrifice):
            orifices.append(f"{link} SU1 {out} SIDE {dev.invert_ft:.6f} {dev.cd:g} NO 0")
            xsect.append(f"{link} RECT_CLOSED {dev.height_ft:.8f} {dev.width_in / 12.0:.8f} 0 0")
        elif isinstance(dev, (RectangularWeir, BroadCrestedWeir)):
            nc = getattr(dev, "end_contractions", 0)
            weirs.append(f"{link} SU1 {out} TRANSVERSE {dev.crest_ft:.6f} {dev.cw:g} NO {nc} 0 NO")
            xsect.append(f"{link} RECT_OPEN 100 {dev.length_ft:.8f} 0 0")
        elif isinstance(dev, VNotchWeir):
            width = 2.0 * 100.0 * math.tan(math.radians(dev.angle_deg) / 2.0)
            weirs.append(f"{link} SU1 {out} V-NOTCH {dev.crest_ft:.6f} {dev.cw:g} NO 0 0 NO")
            xsect.append(f"{link} TRIANGULAR 100 {width:.8f} 0 0")
        else:
            raise InputError(f"to_swmm_inp supports orifices and weirs; got "
                             f"{type(dev).__name__} '{dev.name}'")
    lines += orifices + weirs + xsect
    lines += ["", "[INFLOWS]", "SU1 FLOW TS1 FLOW 1.0 1.0", "", "[TIMESERIES]"]
    lines += [f"TS1 {ti:.6f} {qi:.8g}" for ti, qi in zip(t - t[0], q)]
    lines += ["", "[CURVES]"]
    lines += [f"SC1 {'Storage' if i == 0 else ''} {hi:.8f} {ai:.8f}"
              for i, (hi, ai) in enumerate(zip(h, area))]
    lines += ["", "[REPORT]", "INPUT NO", "CONTROLS NO", ""]
    return "\n".join(lines)


# Re-export of the TR-55 Chapter 6 planning estimate (issue #2).
from hydrocalc.storage_estimate import estimate_storage_volume  # noqa: E402
