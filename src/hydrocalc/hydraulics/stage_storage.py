r"""Stage-storage relations of detention ponds: storage versus water level.

:class:`StageStorage` holds storage as a function of stage above the pond bottom (stage 0),
from a stage-area table (conic or average-end-area method), a stage-storage table, a
rectangular or trapezoidal basin, a drywell/leaching pool with a stone envelope, or the sum of
several (``+``; e.g. a basin plus chambers). A stage-storage may carry the elevation of its
bottom (``datum_ft``): the pond is then described in elevations (tables given by elevation,
device inverts and crests as elevations, results reported in elevations with the stage from
the bottom alongside). See :mod:`hydrocalc.hydraulics.routing` for routing.

References
----------
.. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
   Hydraulics*, EPA/600/R-17/111, 2017; SWMM 5 source ``src/solver/table.c``
   (``table_getStorageVolume``: tabular storage by trapezoidal integration of area, i.e.
   the average-end-area method).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hydrocalc import display
from hydrocalc._validate import as_float_array, check_choice, excerpt, fmt_value, like
from hydrocalc.errors import InputError

__all__ = ["StageStorage"]

_METHODS = ("conic", "average_end_area")

#: Largest storage [ft3] and plan area [ft2] of a stage-storage: a guard against unit slips
#: and the overflow of routing (2S/dt + O), far beyond any pond (23 million acre-ft).
MAX_STORAGE_FT3 = 1e15


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

    References
    ----------
    .. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
       Hydraulics*, EPA/600/R-17/111, 2017; SWMM 5 source ``src/solver/table.c``
       (``table_getStorageVolume``: tabular storage by trapezoidal integration of area, i.e.
       the average-end-area method).
    """

    __slots__ = ("_h", "_s", "_alo", "_ahi", "_w", "name", "method", "_datum")

    def __init__(self, stage_ft, storage_ft3, area_lo_ft2, area_hi_ft2, wetted_area_ft2, *,
                 name: str = "", method: str = "", _allow_flat: bool = False,
                 datum_ft: float | None = None):
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
        _check_finite(h, s, alo, ahi, w)
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
        self._datum = _datum(datum_ft)

    # -- constructors ---------------------------------------------------------------------
    @staticmethod
    def _levels(stage_ft, elevation: bool, datum_ft) -> tuple[np.ndarray, float | None]:
        """Stages from the bottom and the datum.

        From stages or (``elevation=True``) elevations.
        """
        if not elevation:
            return StageStorage._check_stages(stage_ft), _datum(datum_ft)
        e = as_float_array(stage_ft, "elevation_ft")
        if e.ndim != 1 or e.size < 2:
            raise InputError(f"elevation_ft must be a 1-D table of at least 2 elevations; got "
                             f"{e.size} value(s). Give the elevations from the bottom up")
        bottom = float(e[0])
        if datum_ft is not None and not np.isclose(float(datum_ft), bottom, rtol=0,
                                                   atol=1e-9 * max(abs(bottom), 1.0)):
            raise InputError(
                f"datum_ft must equal the first elevation of the table (the pond bottom, "
                f"{fmt_value(bottom)} ft); got {fmt_value(datum_ft)}. Start the table at the "
                "bottom or omit datum_ft")
        steps = np.diff(e)
        if (steps <= 0).any():
            bad = np.flatnonzero(steps <= 0)
            i = int(bad[0]) + 1
            raise InputError(
                f"elevation_ft must increase strictly; got {fmt_value(e[i])} after "
                f"{fmt_value(e[i - 1])} at index {i} ({bad.size} of {steps.size} steps "
                "invalid). Sort the table and remove repeated elevations")
        return e - bottom, bottom

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
                   method: str = "conic", name: str = "", elevation: bool = False,
                   datum_ft: float | None = None) -> StageStorage:
        r"""Stage-storage from a stage-area table (contour areas).

        Parameters
        ----------
        stage_ft : array_like
            Stages from 0 (the bottom), strictly increasing; the last is the top. With
            ``elevation=True``: elevations, strictly increasing, the first is the bottom. [ft]
        area_ft2 : array_like
            Plan area at each stage, >= 0. [ft2]
        method : {"conic", "average_end_area"}, default "conic"
            Volume between stages: frustum (conic) formula
            :math:`\frac{\Delta h}{3}(A_1 + A_2 + \sqrt{A_1 A_2})` or average end area
            :math:`\frac{\Delta h}{2}(A_1 + A_2)` (SWMM's tabular storage [3]_).
        name : str, optional
        elevation : bool, default False
            True: ``stage_ft`` holds elevations (plan datum); the pond bottom is the first
            one and the pond is "in elevations" (see :attr:`datum_ft`).
        datum_ft : float, optional
            Elevation of the pond bottom (stage 0). Given with stages, it puts the pond in
            elevations; with ``elevation=True`` it must equal the first elevation. [ft]

        Returns
        -------
        StageStorage

        Raises
        ------
        InputError
            If the stages do not start at 0 or do not increase strictly, an area is negative
            or NaN, an interval has zero area at both ends, or the method is unknown.

        References
        ----------
        .. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
           Hydraulics*, EPA/600/R-17/111, 2017; SWMM 5 source ``src/solver/table.c``
           (``table_getStorageVolume``: tabular storage by trapezoidal integration of area, i.e.
           the average-end-area method).

        Examples
        --------
        >>> ss = StageStorage.from_areas([0, 1, 2], [1000, 1500, 2100])
        >>> round(ss.max_storage_ft3, 1)     # 1/3 (1000+1500+1224.7) + 1/3 (1500+2100+1774.8)
        3033.2
        >>> StageStorage.from_areas([0, 2], [100, 300], method="average_end_area").max_storage_ft3
        400.0
        """
        check_choice(method, "method", _METHODS)
        h, datum = cls._levels(stage_ft, elevation, datum_ft)
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
        with np.errstate(over="ignore", invalid="ignore"):
            if method == "conic":
                ds = dh / 3.0 * (a[:-1] + a[1:] + np.sqrt(a[:-1] * a[1:]))
            else:
                ds = dh / 2.0 * (a[:-1] + a[1:])
            s = np.concatenate([[0.0], np.cumsum(ds)])
            wet = _frustum_wetted(h, a)
        _check_finite(h, s, a[:-1], a[1:], wet, given={"stage_ft": h, "area_ft2": a})
        return cls(h, s, a[:-1], a[1:], wet, name=name, method=method, datum_ft=datum)

    @classmethod
    def from_volumes(cls, stage_ft: npt.ArrayLike, storage_ft3: npt.ArrayLike, *,
                     name: str = "", elevation: bool = False,
                     datum_ft: float | None = None) -> StageStorage:
        """Stage-storage from a stage-storage table (storage linear between points).

        Parameters
        ----------
        stage_ft : array_like
            Stages from 0, strictly increasing. [ft]
        storage_ft3 : array_like
            Storage at each stage: 0 at stage 0, strictly increasing. [ft3]
        name : str, optional
        elevation, datum_ft
            As in :meth:`from_areas` (a table by elevation; the bottom's elevation).

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
        h, datum = cls._levels(stage_ft, elevation, datum_ft)
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
        with np.errstate(over="ignore", invalid="ignore"):
            slope = steps / np.diff(h)
            pts = np.concatenate([[slope[0]], (slope[:-1] + slope[1:]) / 2.0, [slope[-1]]])
            wet = _frustum_wetted(h, pts)
        _check_finite(h, s, slope, slope, wet, given={"stage_ft": h, "storage_ft3": s})
        return cls(h, s, slope, slope, wet, name=name, method="volumes", datum_ft=datum)

    @classmethod
    def basin(cls, bottom_length_ft: float, bottom_width_ft: float, depth_ft: float, *,
              side_slope_h_per_v: float = 0.0, porosity_frac: float = 1.0,
              name: str = "", datum_ft: float | None = None) -> StageStorage:
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
        datum_ft : float, optional
            Elevation of the basin bottom; puts the pond in elevations. [ft]

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
        length, width, z = np.float64(length), np.float64(width), np.float64(z)
        with np.errstate(over="ignore", invalid="ignore"):  # huge sizes: refused below
            area = (length + 2 * z * h) * (width + 2 * z * h)
            stor = length * width * h + z * (length + width) * h**2 + 4.0 / 3.0 * z**2 * h**3
            wet = length * width + 2 * h * np.sqrt(1 + z * z) * (length + width + 2 * z * h)
            stor, area = por * stor, por * area
        _check_finite(h, stor, area[:-1], area[1:], wet, given={
            "bottom_length_ft": length, "bottom_width_ft": width, "depth_ft": depth,
            "side_slope_h_per_v": z})
        return cls(h, stor, area[:-1], area[1:], wet, name=name, method="basin",
                   datum_ft=datum_ft)

    rectangular_basin = basin
    trapezoidal_basin = basin

    @classmethod
    def drywell(cls, diameter_ft: float, depth_ft: float, *,
                stone_porosity_frac: float | None = None, stone_width_ft: float = 0.0,
                stone_depth_below_ft: float = 0.0, wall_thickness_ft: float = 0.0,
                count: int = 1, name: str = "",
                datum_ft: float | None = None) -> StageStorage:
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
        datum_ft : float, optional
            Elevation of stage 0 (the bottom of the stone below the pool); puts the pool in
            elevations. [ft]

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
        k = _count(count)
        if (w > 0 or below > 0) and stone_porosity_frac is None:
            raise InputError("stone_porosity_frac must be given when the drywell has stone; "
                             "got None. Use the void ratio your design manual prescribes")
        n = 0.0 if stone_porosity_frac is None else float(as_float_array(
            stone_porosity_frac, "stone_porosity_frac", lower=0.0, upper=1.0,
            lower_inclusive=False, upper_inclusive=False))
        r_i = np.float64(d) / 2.0
        r_o = r_i + wall
        r_e = r_o + w
        h = np.array([0.0, below, below + depth]) if below > 0 else np.array([0.0, depth])
        with np.errstate(over="ignore", invalid="ignore"):  # huge sizes: refused below
            a_side = np.pi * r_i**2 + n * np.pi * (r_e**2 - r_o**2)
            alo = np.array([n * np.pi * r_e**2, a_side]) if below > 0 else np.array([a_side])
            s = np.concatenate([[0.0], np.cumsum(alo * np.diff(h))])
            wet = np.pi * r_e**2 + 2 * np.pi * r_e * h
            s, alo, wet = k * s, k * alo, k * wet
        _check_finite(h, s, alo, alo, wet, given={
            "diameter_ft": d, "depth_ft": depth, "stone_width_ft": w,
            "stone_depth_below_ft": below, "wall_thickness_ft": wall, "count": k})
        return cls(h, s, alo, alo.copy(), wet, name=name, method="drywell",
                   datum_ft=datum_ft)

    leaching_pool = drywell

    # -- combination ----------------------------------------------------------------------
    def raised(self, by_ft: float) -> StageStorage:
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
                            method=self.method, _allow_flat=True,
                            datum_ft=None if self._datum is None else self._datum - dz)

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

    def __add__(self, other: StageStorage) -> StageStorage:
        if not isinstance(other, StageStorage):
            return NotImplemented
        h = np.unique(np.concatenate([self._h, other._h]))
        a, b = h[:-1], h[1:]
        p = self._segments(a, b)
        q = other._segments(a, b)
        s = np.concatenate([[p[0][0] + q[0][0]], p[1] + q[1]])
        w = np.concatenate([[p[4][0] + q[4][0]], p[5] + q[5]])
        name = " + ".join(n for n in (self.name, other.name) if n)
        datum = self._datum if other._datum is None else other._datum
        if (self._datum is not None and other._datum is not None
                and not np.isclose(self._datum, other._datum, rtol=0, atol=1e-9)):
            raise InputError(
                f"parallel storages must share one bottom elevation (datum_ft); got "
                f"{fmt_value(self._datum)} and {fmt_value(other._datum)}. Give the higher one "
                "with .raised(by_ft=difference) on the lower one's datum")
        return StageStorage(h, s, p[2] + q[2], p[3] + q[3], w, name=name, method="sum",
                            datum_ft=datum)

    def __radd__(self, other):
        if other == 0:  # sum([...]) works
            return self
        return NotImplemented

    def __mul__(self, count) -> StageStorage:
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            return NotImplemented
        k = int(count)
        return StageStorage(self._h, k * self._s, k * self._alo, k * self._ahi, k * self._w,
                            name=f"{k} x {self.name}" if self.name else "", method=self.method,
                            datum_ft=self._datum)

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
        """Plan area assumed above the top (vertical walls at the largest area) [ft2]."""
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
        """Storage at ``stage_ft`` in [0, top] [ft3].

        Examples
        --------
        >>> StageStorage.basin(100, 50, 4).storage_ft3([1.0, 2.5])
        array([ 5000., 12500.])
        """
        h = self._check(stage_ft)
        return like(self._storage_ext(h), stage_ft)

    def area_ft2(self, stage_ft: npt.ArrayLike):
        """Plan (water-surface) area at ``stage_ft`` in [0, top] [ft2].

        At a table breakpoint, the area just above it.
        """
        h = self._check(stage_ft)
        return like(self._area_ext(h), stage_ft)

    def wetted_area_ft2(self, stage_ft: npt.ArrayLike):
        """Bottom plus submerged side area at ``stage_ft`` in [0, top] (soil interface) [ft2]."""
        h = self._check(stage_ft)
        return like(self._wetted_ext(h), stage_ft)

    def stage_ft(self, storage_ft3: npt.ArrayLike):
        """Stage holding ``storage_ft3`` in [0, max_storage_ft3] (inverse of storage) [ft].

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
        """Stage of the top of the structure (last table stage) [ft]."""
        return float(self._h[-1])

    @property
    def datum_ft(self) -> float | None:
        """Elevation of the pond bottom (stage 0), or None for a pond described by stage only.

        When set, the pond is "in elevations": device inverts and crests, the tailwater and
        the reported water levels are elevations in the same vertical datum. [ft]
        """
        return self._datum

    @property
    def bottom_elevation_ft(self) -> float:
        """Elevation of the bottom: ``datum_ft``, or 0 for a stage-only pond [ft]."""
        return 0.0 if self._datum is None else self._datum

    @property
    def top_elevation_ft(self) -> float:
        """Elevation of the top of the structure (equals the top stage without a datum) [ft]."""
        return self.bottom_elevation_ft + self.top_stage_ft

    def elevation_ft(self, stage_ft: npt.ArrayLike):
        """Elevation of a stage above the bottom (stage + ``bottom_elevation_ft``) [ft]."""
        return like(as_float_array(stage_ft, "stage_ft") + self.bottom_elevation_ft, stage_ft)

    def with_datum(self, datum_ft: float | None) -> StageStorage:
        """The same storage with another bottom elevation (None: stage only)."""
        return StageStorage(self._h, self._s, self._alo, self._ahi, self._w, name=self.name,
                            method=self.method, _allow_flat=True, datum_ft=datum_ft)

    @property
    def max_storage_ft3(self) -> float:
        """Storage at the top [ft3]."""
        return float(self._s[-1])

    @property
    def bottom_area_ft2(self) -> float:
        """Plan area just above stage 0 [ft2]."""
        return float(self._alo[0])

    @property
    def breakpoints_ft(self) -> np.ndarray:
        """Stages of the table points [ft]."""
        return self._h.copy()

    def to_frame(self):
        """DataFrame of the table points: stage_ft, area_ft2, storage_ft3, wetted_area_ft2."""
        import pandas as pd

        area = np.concatenate([self._alo, [self._ahi[-1]]])
        cols = {"stage_ft": self._h, "area_ft2": area, "storage_ft3": self._s,
                "wetted_area_ft2": self._w}
        if self._datum is not None:
            cols = {"elevation_ft": self._h + self._datum, **cols}
        return pd.DataFrame(cols)

    def __repr__(self) -> str:
        return (f"StageStorage(name={self.name!r}, method={self.method!r}, "
                f"top_stage_ft={self.top_stage_ft:g}, max_storage_ft3={self.max_storage_ft3:.6g},"
                f" points={self._h.size}"
                + ("" if self._datum is None else f", datum_ft={self._datum:g}") + ")")

    def _repr_html_(self) -> str:
        return display.html(self)


def _datum(datum_ft) -> float | None:
    if datum_ft is None:
        return None
    return float(as_float_array(datum_ft, "datum_ft", lower=-1e5, upper=1e5,
                                hint="The bottom elevation must be a finite elevation in feet"))


def _count(count) -> float:
    """The number of identical units ``count`` (a whole number >= 1), as a float.

    Raises
    ------
    InputError
        If ``count`` is not a number, not whole, not finite or < 1.
    """
    ok = not isinstance(count, bool) and isinstance(count, int | float | np.integer | np.floating)
    try:
        k = float(count) if ok else float("nan")
    except OverflowError:  # an integer beyond any float
        k = float("inf")
    if not (np.isfinite(k) and k.is_integer() and k >= 1):
        shown = fmt_value(count) if ok and abs(k) < np.inf else excerpt(repr(count), 20)
        raise InputError(f"count must be an integer >= 1; got {shown}")
    return k


def _check_finite(h, s, alo, ahi, w, given: dict | None = None) -> None:
    """Refuse a stage-storage that is not finite or whose storage or areas are huge.

    Storage and plan areas must be at most :data:`MAX_STORAGE_FT3` (ft3, ft2): a guard
    against unit slips and against the overflow of routing (2S/dt + O), far beyond any pond.

    Parameters
    ----------
    h, s, alo, ahi, w : ndarray
        Stages, storage, areas at the ends of each interval and wetted areas.
    given : dict, optional
        The sizes the storage was computed from, by key: the message names the largest in
        magnitude (the one that overflowed). None: the message names the table at fault.

    Raises
    ------
    InputError
        One line naming the key and its value.
    """
    tables = {"stage_ft": h, "storage_ft3": s, "area_ft2": np.concatenate([alo, ahi]),
              "wetted_area_ft2": w}
    with np.errstate(invalid="ignore"):
        bad = [key for key, arr in tables.items()
               if not (np.isfinite(arr).all() and (key in ("stage_ft", "wetted_area_ft2")
                                                   or np.abs(arr).max() <= MAX_STORAGE_FT3))]
    if not bad:
        return
    limit = (f"a finite storage of at most {MAX_STORAGE_FT3:g} ft3 and areas of at most "
             f"{MAX_STORAGE_FT3:g} ft2 (a guard against unit slips)")
    if given:
        key = max(given, key=lambda k: float(np.max(np.abs(given[k]))))
        values = np.atleast_1d(np.asarray(given[key], dtype=float))
        i = int(np.argmax(np.abs(values)))
        at = f" at index {i}" if np.ndim(given[key]) else ""
        hint = "Check the count" if key == "count" else "Check the units in the name"
        raise InputError(f"{key} must give {limit}; got {fmt_value(values[i])}{at}. {hint}")
    arr = np.asarray(tables[bad[0]], dtype=float).ravel()
    capped = bad[0] in ("storage_ft3", "area_ft2")
    with np.errstate(invalid="ignore"):
        i = int(np.flatnonzero(~(np.abs(arr) <= (MAX_STORAGE_FT3 if capped else np.inf)))[0])
    need = f"finite and at most {MAX_STORAGE_FT3:g}" if capped else "finite"
    raise InputError(f"{bad[0]} must be {need}; got {fmt_value(arr[i])} at index {i}. "
                     "Check the sizes of the storage")


def _frustum_wetted(h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Bottom area + cumulative lateral area of conical frusta through the given areas."""
    r = np.sqrt(np.clip(a, 0.0, None) / np.pi)
    lateral = np.pi * (r[:-1] + r[1:]) * np.sqrt(np.diff(r) ** 2 + np.diff(h) ** 2)
    return a[0] + np.concatenate([[0.0], np.cumsum(lateral)])


