r"""Sediment traps and basins: storage criteria, geometry, MUSLE sediment yield, cleanout.

Layer 1 (equations, vectorized):

- :func:`trapezoidal_basin_volume`, :func:`trapezoidal_basin_area`,
  :func:`trapezoidal_basin_stage` -- a rectangular-bottom basin with uniform side slopes
  (prismoidal formula, exact for this solid);
- :func:`ls_factor` -- Wischmeier & Smith (1978) topographic factor;
- :func:`musle_yield_t` (metric) and :func:`musle_yield_tons` (US customary) -- Williams
  (1975) MUSLE sediment yield of one runoff event;
- :func:`sediment_volume_ft3` -- mass to volume by a stated dry unit weight.

Layer 2 (tables and containers): the named criteria table
(:func:`criteria_table`, :func:`criteria`), C and P factor look-ups (:func:`c_factor`,
:func:`p_factor`), :func:`required_storage_ft3`, :class:`SedimentTrap` (one trap with its
geometry and MUSLE inputs: required vs provided storage and the cleanout mark) and
:func:`cleanout_schedule` (daily MUSLE accumulation through a construction period).

Cleanout rule. Shelter Island § 110-39B and Pelham ch. 83 (maintenance during construction)
require sediment removal "whenever their design capacity has been reduced by 50%". The
*design capacity* is taken as the storage the trap's geometry provides up to ``depth_ft``
(or the top of the stage-area table), from :class:`hydrocalc.routing.StageStorage`; without
geometry, the required storage of the criteria. The cleanout mark is the stage at which the
accumulated sediment (filling from the bottom) occupies ``cleanout_frac`` of that capacity.

Symbols
-------
=========================  =======  ==========  ===========================================
API name                   Symbol   Unit        Meaning
=========================  =======  ==========  ===========================================
drainage_area_ac           A        ac          drainage area to the trap
storage_ft3                V        ft3         storage below a stage
stage_ft                   h        ft          height above the trap bottom
bottom_length_ft           L        ft          bottom length
bottom_width_ft            W        ft          bottom width
side_slope_h_per_v         z        ft/ft       side slope, horizontal per vertical
runoff_m3, runoff_acft     Q        m3, ac-ft   event runoff volume
peak_m3_s, peak_cfs        qp       m3/s, cfs   event peak runoff rate
k_factor                   K        (US)        soil erodibility (US customary numeric value)
ls_factor                  LS       -           topographic factor
c_factor                   C        -           cover-management factor
p_factor                   P        -           support-practice factor
yield_t, yield_tons        Y        t, ton      sediment yield (metric tonnes; short tons)
slope_length_ft            lambda   ft          slope length
slope_pct                  s        %           slope steepness
dry_unit_weight_lb_ft3     gamma    lb/ft3      dry unit weight of deposited sediment
trap_efficiency_frac       E        -           fraction of the incoming sediment retained
=========================  =======  ==========  ===========================================

References
----------
.. [1] Williams, J. R. (1975). Sediment-yield prediction with universal equation using
   runoff energy factor. In *Present and Prospective Technology for Predicting Sediment
   Yields and Sources*, ARS-S-40, USDA Agricultural Research Service, pp. 244-252.
.. [2] Smith, S. J., Williams, J. R., Menzel, R. G., and Coleman, G. A. (1984). Prediction of
   sediment yield from Southern Plains grasslands with the Modified Universal Soil Loss
   Equation. *J. Range Management* 37(4):295-297.
.. [3] Wischmeier, W. H., and Smith, D. D. (1978). *Predicting Rainfall Erosion Losses*,
   USDA Agriculture Handbook 537 (LS equation as transcribed in R package VFS, MUSLE.LS).
.. [4] USDA NRCS Indiana (2000). IN-ENG-38, Estimating Sediment Accumulation in Ponds and
   Sediment Basins.
.. [5] Town of Shelter Island Code § 110-39B; Village of Pelham Code ch. 83 (maintenance
   during construction): 50 % cleanout rule.
.. [6] USDA SCS (1986). TR-55, 2nd ed., Chapter 4 (graphical peak discharge).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import warnings

import numpy as np
import numpy.typing as npt
import pandas as pd

from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.errors import InputError, OutOfRangeError, RangeWarning
from hydrocalc.units import FT2_PER_AC, LB_PER_SHORT_TON, M3_PER_FT3

__all__ = [
    "MUSLE_A_METRIC",
    "MUSLE_B",
    "MUSLE_A_US_ROUNDED",
    "musle_coefficient_us",
    "trapezoidal_basin_volume",
    "trapezoidal_basin_area",
    "trapezoidal_basin_stage",
    "ls_factor",
    "musle_yield_t",
    "musle_yield_tons",
    "musle_yield_from_hydrograph",
    "sediment_volume_ft3",
    "criteria_table",
    "criteria_keys",
    "criteria",
    "SedimentCriteria",
    "required_storage_ft3",
    "c_factor",
    "p_factor",
    "SedimentTrap",
    "TrapCheck",
    "CleanoutSchedule",
    "cleanout_schedule",
    "plan_traps",
    "plan_cleanout_schedules",
]

FloatOrArray = float | npt.NDArray[np.float64] | pd.Series

#: MUSLE coefficient a of the metric form (Williams 1975), Y [t] with Q [m3], qp [m3/s].
MUSLE_A_METRIC = 11.8
#: MUSLE exponent b (Williams 1975).
MUSLE_B = 0.56
#: Rounded US-customary coefficient found in practice (derived from the metric form; docs/provenance.md).
MUSLE_A_US_ROUNDED = 95.0

M3_PER_ACFT = FT2_PER_AC * M3_PER_FT3  #: cubic metres per acre-foot (exact)
M3_S_PER_CFS = M3_PER_FT3  #: m3/s per ft3/s (exact)
T_PER_SHORT_TON = LB_PER_SHORT_TON * 0.45359237 / 1000.0  #: metric tonnes per short ton


def musle_coefficient_us() -> float:
    r"""Exact US-customary MUSLE coefficient converted from the metric form.

    .. math:: a_{US} = 11.8\,(1233.48\ \mathrm{m^3/ac\text{-}ft}\times
        0.0283168\ \mathrm{m^3 s^{-1}/cfs})^{0.56} / 0.907185\ \mathrm{t/ton} = 95.14

    K keeps its usual US-customary numeric value in both forms (docs/provenance.md;
    SWAT documents the same convention). The rounded 95 used in practice is
    :data:`MUSLE_A_US_ROUNDED`.

    Examples
    --------
    >>> round(musle_coefficient_us(), 2)
    95.14
    """
    return MUSLE_A_METRIC * (M3_PER_ACFT * M3_S_PER_CFS) ** MUSLE_B / T_PER_SHORT_TON


# ----------------------------------------------------------------------------------------
# geometry


def trapezoidal_basin_volume(
    stage_ft: npt.ArrayLike,
    bottom_length_ft: float,
    bottom_width_ft: float,
    side_slope_h_per_v: float,
) -> FloatOrArray:
    r"""Storage below ``stage_ft`` of a rectangular-bottom basin with uniform side slopes.

    Parameters
    ----------
    stage_ft : numeric
        Height above the bottom, >= 0. [ft]
    bottom_length_ft, bottom_width_ft : float
        Bottom dimensions L and W, > 0. [ft]
    side_slope_h_per_v : float
        Side slope z (horizontal per vertical), >= 0. [ft/ft]

    Returns
    -------
    storage_ft3 : numeric
        Volume below the stage. [ft3]

    Notes
    -----
    Prismoidal formula :math:`V = h (A_1 + 4 A_m + A_2)/6`, exact for this solid, which
    expands to

    .. math:: V(h) = L W h + z (L + W) h^2 + \tfrac{4}{3} z^2 h^3 .

    Examples
    --------
    >>> trapezoidal_basin_volume(4.0, 40.0, 20.0, 2.0)   # 3200 + 1920 + 341.33
    5461.333333333333
    """
    h = as_float_array(stage_ft, "stage_ft", lower=0.0)
    length, width, z = _geometry(bottom_length_ft, bottom_width_ft, side_slope_h_per_v)
    vol = length * width * h + z * (length + width) * h**2 + 4.0 / 3.0 * z**2 * h**3
    return like(vol, stage_ft)


def trapezoidal_basin_area(
    stage_ft: npt.ArrayLike,
    bottom_length_ft: float,
    bottom_width_ft: float,
    side_slope_h_per_v: float,
) -> FloatOrArray:
    """Water-surface area ``(L + 2 z h)(W + 2 z h)`` at ``stage_ft``. [ft2]

    Examples
    --------
    >>> trapezoidal_basin_area(4.0, 40.0, 20.0, 2.0)
    2016.0
    """
    h = as_float_array(stage_ft, "stage_ft", lower=0.0)
    length, width, z = _geometry(bottom_length_ft, bottom_width_ft, side_slope_h_per_v)
    return like((length + 2 * z * h) * (width + 2 * z * h), stage_ft)


def trapezoidal_basin_stage(
    storage_ft3: npt.ArrayLike,
    bottom_length_ft: float,
    bottom_width_ft: float,
    side_slope_h_per_v: float,
) -> FloatOrArray:
    r"""Stage at which the basin of :func:`trapezoidal_basin_volume` holds ``storage_ft3``.

    Solves the cubic :math:`V(h) = V` by Newton's method started at the upper bound
    :math:`h_0 = V/(LW)`; :math:`V(h)` is increasing and convex, so the iterates decrease
    monotonically to the root (converged to 1e-12 relative).

    Returns
    -------
    stage_ft : numeric
        [ft]

    Examples
    --------
    >>> round(trapezoidal_basin_stage(5461.333333333333, 40.0, 20.0, 2.0), 9)
    4.0
    """
    v = as_float_array(storage_ft3, "storage_ft3", lower=0.0)
    length, width, z = _geometry(bottom_length_ft, bottom_width_ft, side_slope_h_per_v)
    h = v / (length * width)
    for _ in range(100):
        f = length * width * h + z * (length + width) * h**2 + 4.0 / 3.0 * z**2 * h**3 - v
        df = (length + 2 * z * h) * (width + 2 * z * h)
        step = f / df
        h = h - step
        if np.all(np.abs(step) <= 1e-12 * np.maximum(h, 1.0)):
            break
    return like(h, storage_ft3)


def _geometry(length, width, z):
    length = float(as_float_array(length, "bottom_length_ft", lower=0.0, lower_inclusive=False))
    width = float(as_float_array(width, "bottom_width_ft", lower=0.0, lower_inclusive=False))
    z = float(as_float_array(z, "side_slope_h_per_v", lower=0.0))
    return length, width, z


# ----------------------------------------------------------------------------------------
# MUSLE


def ls_factor(slope_length_ft: npt.ArrayLike, slope_pct: npt.ArrayLike) -> FloatOrArray:
    r"""Topographic factor LS of Wischmeier & Smith (1978).

    Parameters
    ----------
    slope_length_ft : numeric
        Slope length :math:`\lambda`, > 0. [ft]
    slope_pct : numeric
        Slope steepness s, in [0, 100]. [%]

    Returns
    -------
    ls_factor : numeric
        [-]

    Notes
    -----
    Wischmeier & Smith (1978), as transcribed in R package VFS (``MUSLE.LS``) [3]_:

    .. math:: LS = (\lambda/72.6)^m (65.41 \sin^2\theta + 4.56 \sin\theta + 0.065),
        \quad \theta = \arctan(s/100)

    with m = 0.5 for s > 5 %, 0.4 for 3 % < s <= 5 %, 0.3 for 1 % < s <= 3 % and 0.2 for
    s <= 1 %. Some sheets switch to m = 0.5 at s >= 5 %; at exactly 5 % this function
    follows the VFS transcription (m = 0.4). LS = 1 on the unit plot (72.6 ft, 9 %).

    Examples
    --------
    >>> round(ls_factor(72.6, 9.0), 4)
    0.9993
    """
    lam = as_float_array(slope_length_ft, "slope_length_ft", lower=0.0, lower_inclusive=False)
    s = as_float_array(slope_pct, "slope_pct", lower=0.0, upper=100.0)
    theta = np.arctan(s / 100.0)
    m = np.select([s > 5.0, s > 3.0, s > 1.0], [0.5, 0.4, 0.3], default=0.2)
    sin_t = np.sin(theta)
    ls = (lam / 72.6) ** m * (65.41 * sin_t**2 + 4.56 * sin_t + 0.065)
    return like(ls, slope_length_ft, slope_pct)


def _musle_factors(k, ls, c, p):
    k_ = as_float_array(k, "k_factor", lower=0.0, upper=1.0)
    ls_ = as_float_array(ls, "ls_factor", lower=0.0)
    c_ = as_float_array(c, "c_factor", lower=0.0, upper=1.0)
    p_ = as_float_array(p, "p_factor", lower=0.0, upper=1.0)
    return k_ * ls_ * c_ * p_


def musle_yield_t(
    runoff_m3: npt.ArrayLike,
    peak_m3_s: npt.ArrayLike,
    k_factor: npt.ArrayLike,
    ls_factor: npt.ArrayLike,
    c_factor: npt.ArrayLike,
    p_factor: npt.ArrayLike,
) -> FloatOrArray:
    r"""Sediment yield of one runoff event by MUSLE, metric form (Williams 1975).

    Parameters
    ----------
    runoff_m3 : numeric
        Event runoff volume Q, >= 0. [m3]
    peak_m3_s : numeric
        Event peak runoff rate qp, >= 0. [m3/s]
    k_factor : numeric
        Soil erodibility K in its US-customary numeric value, [0, 1]. [-]
    ls_factor, c_factor, p_factor : numeric
        Topographic, cover-management and support-practice factors. [-]

    Returns
    -------
    yield_t : numeric
        Sediment yield Y delivered at the outlet of the area that produced Q and qp.
        [metric t]

    Notes
    -----
    Williams (1975) [1]_, as written by Smith et al. (1984) [2]_:

    .. math:: Y = 11.8\,(Q\,q_p)^{0.56}\,K\,C\,P\,LS

    The runoff-energy term replaces the rainfall factor R and a delivery ratio; K, C, P and
    LS are averages over the drainage area.

    Examples
    --------
    Hand-computed: Q = 0.5 ac-ft, qp = 5 cfs, K = 0.30,
    LS = 0.5, C = P = 1 gives 21.63 t.

    >>> round(musle_yield_t(0.5 * 1233.48183754752, 5 * 0.028316846592, 0.30, 0.5, 1, 1), 2)
    21.63
    """
    q = as_float_array(runoff_m3, "runoff_m3", lower=0.0)
    qp = as_float_array(peak_m3_s, "peak_m3_s", lower=0.0)
    y = MUSLE_A_METRIC * (q * qp) ** MUSLE_B * _musle_factors(k_factor, ls_factor, c_factor,
                                                              p_factor)
    return like(y, runoff_m3, peak_m3_s, k_factor, ls_factor, c_factor, p_factor)


def musle_yield_tons(
    runoff_acft: npt.ArrayLike,
    peak_cfs: npt.ArrayLike,
    k_factor: npt.ArrayLike,
    ls_factor: npt.ArrayLike,
    c_factor: npt.ArrayLike,
    p_factor: npt.ArrayLike,
    *,
    coefficient: str = "exact",
) -> FloatOrArray:
    r"""Sediment yield of one runoff event by MUSLE, US-customary form.

    Parameters
    ----------
    runoff_acft : numeric
        Event runoff volume Q, >= 0. [ac-ft]
    peak_cfs : numeric
        Event peak runoff rate qp, >= 0. [ft3/s]
    k_factor, ls_factor, c_factor, p_factor : numeric
        As in :func:`musle_yield_t`. [-]
    coefficient : {"exact", "95"}
        ``"exact"`` uses :func:`musle_coefficient_us` (95.14, the exact unit conversion of
        the metric form, so both forms give the same yield); ``"95"`` the rounded
        coefficient found in practice (0.15 % lower).

    Returns
    -------
    yield_tons : numeric
        Sediment yield. [short ton]

    Notes
    -----
    .. math:: Y = a\,(Q\,q_p)^{0.56}\,K\,C\,P\,LS, \quad a = 95.14\ (\text{or } 95)

    derived from Williams (1975) [1]_ by unit conversion.

    Examples
    --------
    >>> round(musle_yield_tons(0.5, 5.0, 0.30, 0.5, 1.0, 1.0), 2)
    23.84
    >>> round(musle_yield_tons(0.5, 5.0, 0.30, 0.5, 1.0, 1.0, coefficient="95"), 2)
    23.8
    """
    if coefficient == "exact":
        a = musle_coefficient_us()
    elif coefficient == "95":
        a = MUSLE_A_US_ROUNDED
    else:
        raise InputError(f"coefficient must be 'exact' or '95'; got {coefficient!r}")
    q = as_float_array(runoff_acft, "runoff_acft", lower=0.0)
    qp = as_float_array(peak_cfs, "peak_cfs", lower=0.0)
    y = a * (q * qp) ** MUSLE_B * _musle_factors(k_factor, ls_factor, c_factor, p_factor)
    return like(y, runoff_acft, peak_cfs, k_factor, ls_factor, c_factor, p_factor)


def musle_yield_from_hydrograph(
    hydrograph,
    k_factor: float,
    ls_factor: float,
    c_factor: float,
    p_factor: float,
    *,
    coefficient: str = "exact",
) -> float:
    """MUSLE yield of one storm from its runoff :class:`~hydrocalc.hydrograph.Hydrograph`.

    Uses the hydrograph's runoff volume (``volume_acft``) and peak (``peak_cfs``) in
    :func:`musle_yield_tons`.

    Returns
    -------
    yield_tons : float
        [short ton]

    Examples
    --------
    >>> from hydrocalc.hydrograph import Hydrograph
    >>> h = Hydrograph(time_hr=[0.0, 1.0, 2.0], flow_cfs=[0.0, 5.0, 0.0])  # 0.4132 ac-ft
    >>> round(musle_yield_from_hydrograph(h, 0.3, 0.5, 1.0, 1.0), 2)
    21.43
    """
    return float(musle_yield_tons(hydrograph.volume_acft, hydrograph.peak_cfs, k_factor,
                                  ls_factor, c_factor, p_factor, coefficient=coefficient))


def sediment_volume_ft3(
    mass_tons: npt.ArrayLike, dry_unit_weight_lb_ft3: npt.ArrayLike
) -> FloatOrArray:
    r"""Volume of deposited sediment: :math:`V = 2000\,M/\gamma`.

    Parameters
    ----------
    mass_tons : numeric
        Dry mass, >= 0. [short ton]
    dry_unit_weight_lb_ft3 : numeric
        Dry unit weight of the deposit, > 0 (IN-ENG-38 lists 50 for most soils to 70 for
        sand or gravel [4]_). [lb/ft3]

    Returns
    -------
    volume_ft3 : numeric
        [ft3]

    Examples
    --------
    IN-ENG-38 prints 0.00092 ac-ft per ton at 50 lb/ft3:

    >>> round(sediment_volume_ft3(1.0, 50.0) / 43560, 5)
    0.00092
    """
    m = as_float_array(mass_tons, "mass_tons", lower=0.0)
    g = as_float_array(dry_unit_weight_lb_ft3, "dry_unit_weight_lb_ft3", lower=0.0,
                       lower_inclusive=False)
    return like(m * LB_PER_SHORT_TON / g, mass_tons, dry_unit_weight_lb_ft3)


# ----------------------------------------------------------------------------------------
# criteria table


@functools.cache
def _criteria_frame() -> pd.DataFrame:
    from hydrocalc.data import load_table

    return load_table("sediment_trap_criteria").set_index("key")


def criteria_table() -> pd.DataFrame:
    """The named sediment storage criteria (one row per manual, edition and section)."""
    return _criteria_frame().copy()


def criteria_keys() -> tuple[str, ...]:
    """Keys of :func:`criteria_table`."""
    return tuple(_criteria_frame().index)


def _opt(v):
    if pd.isna(v):
        return None
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclasses.dataclass(frozen=True)
class SedimentCriteria:
    """One row of the criteria table, with its source and verification status."""

    key: str
    practice: str
    jurisdiction: str
    manual: str
    edition: str
    location: str
    method: str
    status: str
    note: str
    source_url: str = ""
    storage_ft3_per_ac: float | None = None
    lower_zone: str | None = None
    lower_zone_ft3_per_ac: float | None = None
    upper_zone: str | None = None
    upper_zone_ft3_per_ac: float | None = None
    runoff_return_period_yr: float | None = None
    lower_zone_runoff_multiple: float | None = None
    upper_zone_runoff_multiple: float | None = None
    max_drainage_area_ac: float | None = None
    max_drainage_area_inclusive: bool = True

    @property
    def label(self) -> str:
        """``manual, edition, location [status]`` as printed with every result."""
        parts = [self.manual]
        if self.edition:
            parts.append(self.edition)
        parts.append(self.location)
        return f"{', '.join(parts)} [status: {self.status}]"

    def check_drainage_area(self, drainage_area_ac) -> None:
        """Raise :class:`OutOfRangeError` if any area exceeds the criteria's maximum."""
        if self.max_drainage_area_ac is None:
            return
        a = as_float_array(drainage_area_ac, "drainage_area_ac", lower=0.0,
                           lower_inclusive=False)
        lim = self.max_drainage_area_ac
        bad = a > lim if self.max_drainage_area_inclusive else a >= lim
        if np.any(bad):
            flat = np.ravel(bad)
            i = int(np.flatnonzero(flat)[0])
            where = "" if a.ndim == 0 else f" at index {i} ({int(flat.sum())} of {flat.size})"
            rel = "<=" if self.max_drainage_area_inclusive else "<"
            basins = [k for k, r in _criteria_frame().iterrows() if r["practice"] == "basin"]
            raise OutOfRangeError(
                f"drainage_area_ac must be {rel} {fmt_value(lim)} ac for criteria "
                f"{self.key!r} ({self.label}); got {fmt_value(np.ravel(a)[i])}{where}. Use a "
                f"sediment basin (criteria {', '.join(repr(b) for b in basins)}) or split the "
                "drainage area among several traps."
            )


def criteria(key: str) -> SedimentCriteria:
    """Look up a row of the criteria table.

    Examples
    --------
    >>> c = criteria("ny_bluebook_2016_sediment_trap")
    >>> c.storage_ft3_per_ac, c.status
    (3600.0, 'unverified')
    """
    frame = _criteria_frame()
    if key not in frame.index:
        raise InputError(
            f"criteria must be a key of the sediment criteria table; got {key!r}"
            f"{suggest(key, frame.index)} Valid: {', '.join(frame.index)}"
        )
    r = frame.loc[key]
    inclusive = _opt(r["max_drainage_area_inclusive"])
    return SedimentCriteria(
        key=key,
        practice=r["practice"],
        jurisdiction=r["jurisdiction"],
        manual=r["manual"],
        edition=_opt(r["edition"]) or "",
        location=r["location"],
        method=r["method"],
        status=r["status"],
        note=_opt(r["note"]) or "",
        source_url=_opt(r["source_url"]) or "",
        storage_ft3_per_ac=_opt(r["storage_ft3_per_ac"]),
        lower_zone=_opt(r["lower_zone"]),
        lower_zone_ft3_per_ac=_opt(r["lower_zone_ft3_per_ac"]),
        upper_zone=_opt(r["upper_zone"]),
        upper_zone_ft3_per_ac=_opt(r["upper_zone_ft3_per_ac"]),
        runoff_return_period_yr=_opt(r["runoff_return_period_yr"]),
        lower_zone_runoff_multiple=_opt(r["lower_zone_runoff_multiple"]),
        upper_zone_runoff_multiple=_opt(r["upper_zone_runoff_multiple"]),
        max_drainage_area_ac=_opt(r["max_drainage_area_ac"]),
        max_drainage_area_inclusive=True if inclusive is None else bool(inclusive),
    )


def required_storage_ft3(
    drainage_area_ac: npt.ArrayLike,
    criteria_key: str = "ny_bluebook_2016_sediment_trap",
    *,
    runoff_in: npt.ArrayLike | None = None,
    zones: bool = False,
):
    """Required storage of a sediment trap or basin under a named criteria.

    Parameters
    ----------
    drainage_area_ac : numeric
        Drainage area to the practice, > 0 and within the criteria's maximum. [ac]
    criteria_key : str
        Key of :func:`criteria_table`.
    runoff_in : numeric, optional
        Runoff depth of the criteria's design storm; required by ``method = runoff_volume``
        rows (e.g. the 2-year 24-hour runoff, :func:`hydrocalc.runoff.runoff_depth`). [in]
    zones : bool
        Also return the lower and upper zone volumes (wet/dry storage, sediment/dewatering).

    Returns
    -------
    storage_ft3 : numeric
        Required storage; with ``zones=True`` a tuple ``(total, lower, upper)`` (zones NaN
        where the criteria has none). [ft3]

    Raises
    ------
    OutOfRangeError
        Drainage area above the criteria's maximum (the message suggests a basin).

    Notes
    -----
    ``per_acre``: :math:`V = v_{ac} A`. ``runoff_volume``: each zone holds
    ``multiple x runoff`` over the drainage area, :math:`V = (m_l + m_u)\\,Q A`.
    Every result carries the criteria's source and verification status; print
    ``criteria(key).label`` with it.

    Examples
    --------
    >>> required_storage_ft3(2.1)      # NY Blue Book row, status unverified
    7560.0
    >>> required_storage_ft3(2.1, "pa_es_manual_sediment_trap", zones=True)
    (4200.0, 1470.0, 2730.0)
    """
    crit = criteria(criteria_key)
    area = as_float_array(drainage_area_ac, "drainage_area_ac", lower=0.0,
                          lower_inclusive=False)
    crit.check_drainage_area(area)
    if runoff_in is not None:  # validated even where unused: NaN or < 0 is never a runoff depth
        as_float_array(runoff_in, "runoff_in", lower=0.0)
    if crit.method == "per_acre":
        total = crit.storage_ft3_per_ac * area
        lower = (np.nan if crit.lower_zone_ft3_per_ac is None
                 else crit.lower_zone_ft3_per_ac * area)
        upper = (np.nan if crit.upper_zone_ft3_per_ac is None
                 else crit.upper_zone_ft3_per_ac * area)
    elif crit.method == "runoff_volume":
        if runoff_in is None:
            raise InputError(
                f"runoff_in must be given for criteria {criteria_key!r} (sized on the "
                f"{fmt_value(crit.runoff_return_period_yr)}-year 24-hour runoff); got nothing. "
                "Compute it with hydrocalc.runoff.runoff_depth(precip_in, cn)."
            )
        q = as_float_array(runoff_in, "runoff_in", lower=0.0)
        base = q / 12.0 * area * FT2_PER_AC
        lower = crit.lower_zone_runoff_multiple * base
        upper = crit.upper_zone_runoff_multiple * base
        total = lower + upper
    else:  # pragma: no cover - guarded by the data tests
        raise InputError(f"criteria {criteria_key!r} has an unknown method {crit.method!r}")
    total = np.asarray(total, dtype=float)
    lower = np.broadcast_to(np.asarray(lower, dtype=float), total.shape)
    upper = np.broadcast_to(np.asarray(upper, dtype=float), total.shape)
    src = (drainage_area_ac,) if runoff_in is None else (drainage_area_ac, runoff_in)
    if not zones:
        return like(total, *src)
    return like(total, *src), like(lower, *src), like(upper, *src)


@functools.cache
def _factor_frame(name: str) -> pd.DataFrame:
    from hydrocalc.data import load_table

    return load_table(name).set_index("key")


def c_factor(cover_key: str) -> float:
    """Cover-management factor C from the shipped table ``musle_c_factors`` (cited rows).

    Examples
    --------
    >>> c_factor("goldman_straw_mulch_1p5_ton_ac")
    0.2
    """
    frame = _factor_frame("musle_c_factors")
    if cover_key not in frame.index:
        raise InputError(
            f"cover_key must be a key of table musle_c_factors; got {cover_key!r}"
            f"{suggest(cover_key, frame.index)} List them with: hydrocalc tables show "
            "musle_c_factors"
        )
    return float(frame.loc[cover_key, "c_factor"])


def p_factor(practice_key: str) -> float:
    """Support-practice factor P from the shipped table ``musle_p_factors``.

    Examples
    --------
    >>> p_factor("track_walking_up_down_slope")
    0.9
    """
    frame = _factor_frame("musle_p_factors")
    if practice_key not in frame.index:
        raise InputError(
            f"practice_key must be a key of table musle_p_factors; got {practice_key!r}"
            f"{suggest(practice_key, frame.index)} List them with: hydrocalc tables show "
            "musle_p_factors"
        )
    return float(frame.loc[practice_key, "p_factor"])


# ----------------------------------------------------------------------------------------
# containers


@dataclasses.dataclass(frozen=True)
class TrapCheck:
    """Required vs provided storage of one trap and its cleanout mark."""

    trap_id: str
    criteria: SedimentCriteria
    drainage_area_ac: float
    required_ft3: float
    lower_zone_ft3: float
    upper_zone_ft3: float
    provided_ft3: float | None
    design_capacity_ft3: float
    capacity_basis: str
    cleanout_frac: float
    cleanout_volume_ft3: float
    cleanout_stage_ft: float | None
    depth_ft: float | None

    @property
    def ok(self) -> bool | None:
        """provided >= required (None without geometry)."""
        if self.provided_ft3 is None:
            return None
        return self.provided_ft3 >= self.required_ft3 * (1 - 1e-12)

    def to_dict(self) -> dict:
        """Plain dict with the criteria's source and status."""
        return {
            "trap_id": self.trap_id,
            "criteria": self.criteria.key,
            "criteria_source": self.criteria.label,
            "criteria_status": self.criteria.status,
            "drainage_area_ac": self.drainage_area_ac,
            "required_ft3": self.required_ft3,
            "lower_zone": self.criteria.lower_zone,
            "lower_zone_ft3": None if np.isnan(self.lower_zone_ft3) else self.lower_zone_ft3,
            "upper_zone": self.criteria.upper_zone,
            "upper_zone_ft3": None if np.isnan(self.upper_zone_ft3) else self.upper_zone_ft3,
            "provided_ft3": self.provided_ft3,
            "provided_ok": self.ok,
            "design_capacity_ft3": self.design_capacity_ft3,
            "capacity_basis": self.capacity_basis,
            "cleanout_frac": self.cleanout_frac,
            "cleanout_volume_ft3": self.cleanout_volume_ft3,
            "cleanout_stage_ft": self.cleanout_stage_ft,
            "depth_ft": self.depth_ft,
        }


@dataclasses.dataclass(frozen=True)
class SedimentTrap:
    """A sediment trap or basin: drainage area, criteria, geometry and MUSLE inputs.

    Build it directly or from a site-file entry with :meth:`from_plan`. Geometry is a
    trapezoidal basin (``bottom_length_ft``, ``bottom_width_ft``, ``depth_ft``,
    ``side_slope_h_per_v``) or a stage-area table (``stage_ft``, ``area_ft2``, stages
    measured from the trap bottom), or absent.
    """

    id: str
    drainage_area_ac: float
    criteria: str  # required: the NY Blue Book row is unverified, so it is never a silent default
    bottom_length_ft: float | None = None
    bottom_width_ft: float | None = None
    depth_ft: float | None = None
    side_slope_h_per_v: float | None = None
    stage_ft: tuple[float, ...] | None = None
    area_ft2: tuple[float, ...] | None = None
    k_factor: float | None = None
    ls_factor: float | None = None
    slope_length_ft: float | None = None
    slope_pct: float | None = None
    c_factor: float | None = None
    p_factor: float | None = None
    cn: float | None = None
    tc_hr: float | None = None
    dry_unit_weight_lb_ft3: float | None = None
    trap_efficiency_frac: float | None = None
    design_precip_in: float | None = None

    def __post_init__(self):
        from hydrocalc.project import trap_problems  # the rules of [[construction.trap]]

        problems = trap_problems(self)
        if problems:
            raise InputError("\n".join(f"trap {self.id}: {p}" for p in problems))

    @classmethod
    def from_plan(cls, plan) -> SedimentTrap:
        """Build from a :class:`hydrocalc.project.TrapPlan`."""
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in dataclasses.asdict(plan).items() if k in fields}
        return cls(**values)

    # geometry ---------------------------------------------------------------------------
    @property
    def geometry(self) -> str | None:
        """``"trapezoidal"``, ``"stage_area"`` or ``None``."""
        if self.bottom_length_ft is not None:
            return "trapezoidal"
        if self.stage_ft is not None:
            return "stage_area"
        return None

    @property
    def stage_storage(self):
        """The trap's :class:`hydrocalc.routing.StageStorage` (stage 0 = trap bottom).

        A trapezoidal trap uses ``StageStorage.basin`` (exact prismoid); a stage-area table
        uses ``StageStorage.from_areas(..., method="conic")`` (frustum formula between rows),
        with stages shifted so the first row is 0.
        """
        from hydrocalc.routing import StageStorage

        if self.geometry == "trapezoidal":
            return StageStorage.basin(self.bottom_length_ft, self.bottom_width_ft,
                                      self.depth_ft, side_slope_h_per_v=self.side_slope_h_per_v,
                                      name=self.id)
        if self.geometry == "stage_area":
            h = np.asarray(self.stage_ft, dtype=float)
            return StageStorage.from_areas(h - h[0], self.area_ft2, method="conic",
                                           name=self.id)
        raise InputError(f"trap {self.id}: geometry must be given for a stage-storage "
                         "relation; got none")

    def storage_ft3(self, stage_ft) -> FloatOrArray:
        """Storage below a stage measured from the trap bottom. [ft3]"""
        return self.stage_storage.storage_ft3(stage_ft)

    def stage_at_storage_ft(self, storage_ft3) -> FloatOrArray:
        """Stage (from the bottom) holding ``storage_ft3``. [ft]"""
        return self.stage_storage.stage_ft(storage_ft3)

    @property
    def top_stage_ft(self) -> float | None:
        """Depth of the storage (``depth_ft`` or the last table stage). [ft]"""
        if self.geometry == "trapezoidal":
            return float(self.depth_ft)
        if self.geometry == "stage_area":
            return float(self.stage_ft[-1] - self.stage_ft[0])
        return None

    @property
    def provided_ft3(self) -> float | None:
        """Storage the geometry provides up to its top stage. [ft3]"""
        top = self.top_stage_ft
        return None if top is None else float(self.storage_ft3(top))

    # criteria ---------------------------------------------------------------------------
    @property
    def criteria_row(self) -> SedimentCriteria:
        """The criteria row (source and status)."""
        return criteria(self.criteria)

    def design_runoff_in(self) -> float | None:
        """Runoff of ``design_precip_in`` with the trap's CN (runoff_volume criteria). [in]"""
        if self.design_precip_in is None:
            return None
        if self.cn is None:
            raise InputError(f"trap {self.id}: cn must be given with design_precip_in; got none")
        from hydrocalc.runoff import runoff_depth

        return float(runoff_depth(self.design_precip_in, self.cn))

    def check(self, *, cleanout_frac: float = 0.5) -> TrapCheck:
        """Required vs provided storage and the cleanout mark.

        Parameters
        ----------
        cleanout_frac : float
            Fraction of the design capacity at which sediment must be removed (0.5 in
            Shelter Island § 110-39B and Pelham ch. 83). [-]
        """
        frac = float(as_float_array(cleanout_frac, "cleanout_frac", lower=0.0, upper=1.0,
                                    lower_inclusive=False))
        crit = self.criteria_row
        if crit.method == "runoff_volume" and self.design_precip_in is None:
            raise InputError(
                f"trap {self.id}: design_precip_in must be given for criteria {crit.key!r} "
                f"(the {fmt_value(crit.runoff_return_period_yr)}-year 24-hour rainfall); got "
                "nothing"
            )
        total, lower, upper = required_storage_ft3(
            self.drainage_area_ac, crit.key, runoff_in=self.design_runoff_in(), zones=True
        )
        provided = self.provided_ft3
        if provided is not None:
            capacity, basis = provided, "provided storage of the trap geometry"
        else:
            capacity, basis = float(total), "required storage of the criteria (no geometry)"
        volume = frac * capacity
        stage = None if provided is None else float(self.stage_at_storage_ft(volume))
        return TrapCheck(
            trap_id=self.id,
            criteria=crit,
            drainage_area_ac=float(self.drainage_area_ac),
            required_ft3=float(total),
            lower_zone_ft3=float(lower),
            upper_zone_ft3=float(upper),
            provided_ft3=provided,
            design_capacity_ft3=capacity,
            capacity_basis=basis,
            cleanout_frac=frac,
            cleanout_volume_ft3=volume,
            cleanout_stage_ft=stage,
            depth_ft=self.top_stage_ft,
        )

    # MUSLE ------------------------------------------------------------------------------
    @property
    def ls(self) -> float:
        """LS given or computed from slope length and steepness."""
        if self.ls_factor is not None:
            return float(self.ls_factor)
        if self.slope_length_ft is None or self.slope_pct is None:
            raise InputError(
                f"trap {self.id}: ls_factor or slope_length_ft and slope_pct must be given; "
                "got neither"
            )
        return float(ls_factor(self.slope_length_ft, self.slope_pct))

    def require_musle(self) -> None:
        """Raise when a MUSLE input is missing."""
        need = ("k_factor", "c_factor", "p_factor", "cn", "tc_hr", "dry_unit_weight_lb_ft3",
                "trap_efficiency_frac")
        missing = [k for k in need if getattr(self, k) is None]
        if missing:
            raise InputError(
                f"trap {self.id}: MUSLE inputs must be given for a cleanout schedule; missing "
                f"{', '.join(missing)}"
            )
        _ = self.ls


@dataclasses.dataclass(frozen=True)
class CleanoutSchedule:
    """Daily sediment accumulation in one trap and the predicted cleanout dates.

    ``daily`` columns: ``precip_in``, ``runoff_in``, ``runoff_acft``, ``peak_cfs``,
    ``yield_tons`` (MUSLE, at the trap inlet), ``trapped_ft3`` (deposited that day),
    ``accumulated_ft3`` (in the trap at the end of the day, after any cleanout that day),
    ``fraction_of_capacity``, ``cleanout`` (bool).
    """

    trap_id: str
    check: TrapCheck
    daily: pd.DataFrame
    cleanout_dates: tuple[_dt.date, ...]
    rainfall_type: str
    warnings: tuple[str, ...] = ()

    @property
    def total_yield_tons(self) -> float:
        """MUSLE yield over the period. [short ton]"""
        return float(self.daily["yield_tons"].sum())

    @property
    def total_trapped_ft3(self) -> float:
        """Sediment volume deposited over the period. [ft3]"""
        return float(self.daily["trapped_ft3"].sum())

    def to_dict(self) -> dict:
        """Summary dict (no daily rows)."""
        return {
            "trap_id": self.trap_id,
            "check": self.check.to_dict(),
            "rainfall_type": self.rainfall_type,
            "total_yield_tons": self.total_yield_tons,
            "total_trapped_ft3": self.total_trapped_ft3,
            "peak_accumulated_ft3": float(self.daily["accumulated_before_cleanout_ft3"].max()),
            "cleanout_dates": [d.isoformat() for d in self.cleanout_dates],
            "warnings": list(self.warnings),
        }

    def figure(self):
        """Accumulated sediment volume against time, with the cleanout volume and dates.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8, 4.5))
        ax = fig.add_subplot(1, 1, 1)
        d = self.daily
        ax.step(d.index, d["accumulated_before_cleanout_ft3"], where="post", color="tab:brown",
                label="sediment in trap")
        ax.axhline(self.check.cleanout_volume_ft3, color="tab:red", ls="--",
                   label=f"cleanout at {self.check.cleanout_frac:.0%} of design capacity "
                         f"({self.check.cleanout_volume_ft3:,.0f} ft3)")
        for i, day in enumerate(self.cleanout_dates):
            ax.axvline(pd.Timestamp(day), color="tab:red", alpha=0.4, lw=1,
                       label="predicted cleanout" if i == 0 else None)
        ax.set_ylabel("accumulated sediment [ft3]")
        ax.set_title(f"Trap {self.trap_id}: MUSLE sediment accumulation "
                     f"({self.check.criteria.key}, status {self.check.criteria.status})",
                     fontsize=9)
        ax2 = ax.twinx()
        ax2.bar(d.index, d["precip_in"], color="tab:blue", alpha=0.3, width=1.0)
        ax2.set_ylabel("daily rainfall [in]")
        ax2.set_ylim(max(float(d["precip_in"].max()), 0.1) * 3.0, 0.0)  # bars in the top third
        ax.legend(loc="upper left", fontsize=8)
        fig.autofmt_xdate()
        fig.tight_layout()
        return fig


def cleanout_schedule(
    trap: SedimentTrap,
    precip_in: pd.Series,
    *,
    rainfall_type: str,
    cleanout_frac: float = 0.5,
    coefficient: str = "exact",
) -> CleanoutSchedule:
    r"""Sediment accumulation in a trap through a daily rainfall record, with cleanout dates.

    Parameters
    ----------
    trap : SedimentTrap
        With MUSLE inputs (K, LS or slope, C, P, CN, Tc, dry unit weight, trap efficiency).
    precip_in : pandas.Series or DailyRainfall
        Daily rainfall over the construction period, indexed by date, no missing days; read
        by :func:`hydrocalc.daily_rain.as_daily_series` (any order, duplicates refused,
        sub-daily values summed to daily totals). [in]
    rainfall_type : {"I", "IA", "II", "III"}
        NRCS 24-hour distribution assumed for every rain day (TR-55 graphical peak).
    cleanout_frac : float
        Fraction of the design capacity that triggers a cleanout (0.5 per the local laws).
    coefficient : {"exact", "95"}
        US MUSLE coefficient, see :func:`musle_yield_tons`.

    Returns
    -------
    CleanoutSchedule

    Notes
    -----
    For every day: runoff depth :math:`Q` from the curve-number equation
    (:func:`hydrocalc.runoff.runoff_depth`, TR-55 Eq. 2-3) with the trap's CN; peak
    :math:`q_p` by the TR-55 graphical method (:func:`hydrocalc.peak.graphical_peak_discharge`,
    Eq. 4-1) treating the day's total as a 24-hour storm of ``rainfall_type``; MUSLE yield
    :func:`musle_yield_tons`; deposited volume
    :math:`E\,Y\,2000/\gamma`. The accumulation is a running sum that **resets to zero at
    the end of the day on which it first reaches** ``cleanout_frac`` of the design capacity
    (the predicted cleanout date; the sediment is assumed removed that day, all of it).

    Assumptions to state in a report: a calendar day's rain is one storm (multi-day storms
    are split, which lowers Q and the yield of long events; short intense storms get the
    24-hour distribution's peak); antecedent moisture is average (CN unchanged); C, K, LS
    and P are constant through the period; Ia/P outside the Table F-1 range uses the
    limiting value (TR-55) and is reported in ``warnings``.
    """
    from hydrocalc.peak import graphical_peak_discharge

    trap.require_musle()
    chk = trap.check(cleanout_frac=cleanout_frac)
    from hydrocalc.daily_rain import as_daily_series

    precip_in = as_daily_series(precip_in)  # the one daily-rain rule: sorted, no duplicates
    p = precip_in.to_numpy()
    area_ac = float(trap.drainage_area_ac)
    from hydrocalc.runoff import runoff_depth

    q_in = np.asarray(runoff_depth(p, trap.cn), dtype=float)
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RangeWarning)
        qp = np.asarray(
            graphical_peak_discharge(area_ac / 640.0, trap.cn, trap.tc_hr, p,
                                     rainfall_type=rainfall_type),
            dtype=float,
        )
    for w in caught:
        if issubclass(w.category, RangeWarning):
            notes.append(f"TR-55 peak: {w.message}")
    q_acft = q_in * area_ac / 12.0
    y = np.asarray(
        musle_yield_tons(q_acft, qp, trap.k_factor, trap.ls, trap.c_factor, trap.p_factor,
                         coefficient=coefficient),
        dtype=float,
    )
    trapped = np.asarray(sediment_volume_ft3(y * trap.trap_efficiency_frac,
                                             trap.dry_unit_weight_lb_ft3), dtype=float)
    limit = chk.cleanout_volume_ft3
    acc = np.empty_like(trapped)
    before = np.empty_like(trapped)
    clean = np.zeros(trapped.shape, dtype=bool)
    level = 0.0
    for i, v in enumerate(trapped):  # sequential: the cleanout resets the running sum
        level += v
        before[i] = level
        if level >= limit * (1 - 1e-12):
            clean[i] = True
            if v >= chk.design_capacity_ft3:
                notes.append(
                    f"{precip_in.index[i].date()}: one day's sediment ({v:,.0f} ft3) exceeds "
                    f"the design capacity ({chk.design_capacity_ft3:,.0f} ft3)"
                )
            level = 0.0
        acc[i] = level
    daily = pd.DataFrame(
        {
            "precip_in": p,
            "runoff_in": q_in,
            "runoff_acft": q_acft,
            "peak_cfs": qp,
            "yield_tons": y,
            "trapped_ft3": trapped,
            "accumulated_before_cleanout_ft3": before,
            "accumulated_ft3": acc,
            "fraction_of_capacity": before / chk.design_capacity_ft3,
            "cleanout": clean,
        },
        index=precip_in.index,
    )
    dates = tuple(pd.Timestamp(t).date() for t in daily.index[clean])
    return CleanoutSchedule(
        trap_id=trap.id,
        check=chk,
        daily=daily,
        cleanout_dates=dates,
        rainfall_type=rainfall_type,
        warnings=tuple(notes),
    )


def plan_traps(plan) -> list[SedimentTrap]:
    """The traps of a :class:`hydrocalc.project.ConstructionPlan` as :class:`SedimentTrap`."""
    return [SedimentTrap.from_plan(t) for t in getattr(plan, "traps", ())]


def plan_cleanout_schedules(
    plan,
    precip_in: pd.Series,
    *,
    cleanout_frac: float = 0.5,
    rainfall_type: str | None = None,
) -> list[CleanoutSchedule]:
    """Cleanout schedules of every trap of a plan that has MUSLE inputs.

    ``precip_in`` must cover ``plan.start_date..plan.end_date``; ``rainfall_type`` defaults
    to ``plan.rainfall_type`` and is required (the TR-55 distribution of the daily peaks).
    """
    rtype = rainfall_type or getattr(plan, "rainfall_type", None)
    if rtype is None:
        raise InputError(
            "rainfall_type must be given for the daily peak discharges (construction."
            "rainfall_type = \"II\" or \"III\", TR-55 distribution); got nothing"
        )
    from hydrocalc.daily_rain import as_daily_series

    precip_in = as_daily_series(precip_in, allow_gaps=True)
    s, e = pd.Timestamp(plan.start_date), pd.Timestamp(plan.end_date)
    if precip_in.index[0] > s or precip_in.index[-1] < e:
        raise InputError(
            f"rainfall record must cover the construction period {plan.start_date}.."
            f"{plan.end_date}; got {precip_in.index[0].date()}..{precip_in.index[-1].date()}. "
            "Shift a historical year with rainfall_shift_years."
        )
    window = precip_in.loc[s:e]
    return [
        cleanout_schedule(t, window, rainfall_type=rtype, cleanout_frac=cleanout_frac)
        for t in plan_traps(plan)
        if t.k_factor is not None
    ]
