r"""New York unified stormwater sizing criteria (NYS SMDM Chapter 4), as pure functions.

The New York State Stormwater Management Design Manual (SMDM) [1]_ sizes post-construction
practices by five criteria (Table 4.1): the water quality volume WQv, the runoff reduction
volume RRv, the channel protection volume Cpv, overbank flood control Qp (10-year) and
extreme flood control Qf (100-year). Each function here is one equation of explicit numbers;
:mod:`hydrocalc.criteria.ny_site` composes them for a site. The criteria, their equations,
sources and **verification status** are in the shipped table ``ny_sizing_criteria``
(:func:`criteria_table`); reports print the status of every row.

What is not verified (``docs/provenance.md``) is never a silent
default here:

* the minimum-Rv rule ("Minimum Rv = 0.2 if WQv > RRv", printed in the 2015 Table 4.1 cell)
  is an explicit ``min_rv_rule`` option;
* the specific reduction factors S by hydrologic soil group and the minimum-RRv equation
  come from a table row whose status is ``unverified`` (:func:`specific_reduction_factors`),
  or from the site file;
* the Cpv computation (storage by the TR-55 Chapter 6 storage-ratio method with a 24-hour
  release, and the orifice) is hydrocalc's documented interpretation of the criterion text;
  the routed pond's detention time is checked as well.

Symbols
-------
=====================  ======  ======  ==================================================
API name               Symbol  Unit    Meaning
=====================  ======  ======  ==================================================
precip_in              P       in      90 % rainfall event depth (SMDM Fig. 4.1)
impervious_pct         I       %       impervious cover of the area, 0-100
area_ac                A       ac      site (contributing) area
rv                     Rv      -       volumetric runoff coefficient
wqv_acft               WQv     ac-ft   water quality volume
new_impervious_ac      Aic     ac      new impervious cover (by HSG)
specific_reduction...  S       -       specific reduction factor by HSG
rrv_min_acft           RRv     ac-ft   minimum runoff reduction volume
inflow_peak_cfs        qi      ft3/s   post-development 1-year peak inflow
outflow_peak_cfs       qo      ft3/s   Cpv release rate
runoff_volume_ft3      Vr      ft3     1-year runoff volume remaining after RR
storage_acft           Vs      ac-ft   Cpv storage
detention_hr           T       h       extended-detention time (24 h)
head_ft                ho      ft      head on the orifice centre at Vs
=====================  ======  ======  ==================================================

References
----------
.. [1] New York State Department of Environmental Conservation, "New York State Stormwater
   Management Design Manual," Albany, NY, Jan. 2015, Chapter 4, Table 4.1.
.. [2] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds," Technical
   Release 55, 2nd ed., 1986, Chapter 6 (Fig. 6-1) and Appendix F (Table F-2).
.. [3] Maryland Department of the Environment, "2000 Maryland Stormwater Design Manual,"
   Vol. II, Appendix D.11, "Method for Computing the Channel Protection Storage Volume."
.. [4] T. Schueler and R. Claytor, "Design of Stormwater Filtering Systems," Center for
   Watershed Protection, 1996 (origin of the Rv = 0.05 + 0.009 I relation).
"""

from __future__ import annotations

import functools
import math
import warnings

import numpy as np
import numpy.typing as npt
import pandas as pd

from hydrocalc import data
from hydrocalc._typing import FloatOrArray
from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.errors import InputError, OutOfRangeError, RangeWarning
from hydrocalc.storage_estimate import storage_ratio
from hydrocalc.units import FT2_PER_AC, GRAVITY_FT_S2, IN_PER_FT, S_PER_HR

__all__ = [
    "MIN_RV",
    "MIN_RV_RULES",
    "RV_IMPERVIOUS",
    "runoff_coefficient",
    "water_quality_volume",
    "minimum_rv_applies",
    "minimum_runoff_reduction_volume",
    "specific_reduction_factors",
    "rrv_factor_sets",
    "channel_protection_storage",
    "orifice_diameter_in",
    "centroid_detention_time_hr",
    "peak_not_increased",
    "criteria_table",
    "criteria_info",
]

#: Minimum Rv printed in the 2015 SMDM Table 4.1 cell ("Minimum Rv = 0.2 if WQv > RRv"). [-]
MIN_RV = 0.2
#: Allowed values of the minimum-Rv rule option.
MIN_RV_RULES = ("if_wqv_exceeds_rrv", "always", "never")
#: Rv of fully impervious cover, 0.05 + 0.009 * 100 (used by the minimum-RRv equation). [-]
RV_IMPERVIOUS = 0.05 + 0.009 * 100.0


def runoff_coefficient(impervious_pct: npt.ArrayLike) -> FloatOrArray:
    r"""Volumetric runoff coefficient Rv of the NY 90 % rule, SMDM Table 4.1.

    Parameters
    ----------
    impervious_pct : numeric
        Impervious cover :math:`I`, in [0, 100]. [%]

    Returns
    -------
    rv : numeric
        :math:`R_v = 0.05 + 0.009 I`. Same container as the input. [-]

    Raises
    ------
    InputError
        If ``impervious_pct`` is outside [0, 100] or NaN.

    Warns
    -----
    UserWarning
        If every value is strictly between 0 and 1 (looks like a fraction; percent expected).

    References
    ----------
    .. [1] NYSDEC, NYS Stormwater Management Design Manual, 2015, Table 4.1.

    Examples
    --------
    >>> round(runoff_coefficient(50), 10)       # worked case: Rv = 0.50
    0.5
    """
    imp = as_float_array(impervious_pct, "impervious_pct", lower=0.0, upper=100.0)
    if imp.size and np.all((imp > 0.0) & (imp < 1.0)):
        warnings.warn("impervious_pct looks like a fraction (every value is between 0 and 1); "
                      "impervious_pct expects percent, 0-100", UserWarning, stacklevel=2)
    return like(0.05 + 0.009 * imp, impervious_pct)  # SMDM Table 4.1


def water_quality_volume(
    precip_in: npt.ArrayLike,
    impervious_pct: npt.ArrayLike,
    area_ac: npt.ArrayLike,
    *,
    min_rv: float | None = None,
) -> FloatOrArray:
    r"""Water quality volume WQv ("90 % rule"), NYS SMDM Table 4.1 [acre-ft].

    Parameters
    ----------
    precip_in : numeric
        90 % rainfall event depth :math:`P` (SMDM Fig. 4.1; an explicit project input). [in]
    impervious_pct : numeric
        Impervious cover :math:`I` of the area, in [0, 100]. [%]
    area_ac : numeric
        Site (contributing) area :math:`A`, > 0. [ac]
    min_rv : float or None, default None
        Lower bound applied to :math:`R_v` (the 2015 text prints 0.2, see
        :func:`minimum_rv_applies`); None applies no bound. [-]

    Returns
    -------
    wqv_acft : numeric
        :math:`WQv = P R_v A / 12`, :math:`R_v = \max(0.05 + 0.009 I, R_{v,min})`. [acre-ft]

    Raises
    ------
    InputError
        For negative or NaN depth, impervious cover outside [0, 100], a non-positive area,
        or ``min_rv`` outside [0, 1].

    Notes
    -----
    Equivalent cubic-foot form: :math:`WQv = 3630\,P\,(0.05 A + 0.9 A_i)` with
    :math:`A_i = A I / 100` (3630 = 43,560 / 12).

    References
    ----------
    .. [1] NYSDEC, NYS Stormwater Management Design Manual, 2015, Table 4.1.

    Examples
    --------
    Computed cases (arithmetic of the equations above):

    >>> round(water_quality_volume(1.0, 50, 1.0), 6)                 # ex1
    0.041667
    >>> round(water_quality_volume(1.0, 10, 2.0, min_rv=0.2), 6)     # ex2 with the floor
    0.033333
    """
    p = as_float_array(precip_in, "precip_in", lower=0.0)
    rv = np.asarray(runoff_coefficient(impervious_pct), dtype=float)
    a = as_float_array(area_ac, "area_ac", lower=0.0, lower_inclusive=False)
    if min_rv is not None:
        floor = float(as_float_array(min_rv, "min_rv", lower=0.0, upper=1.0))
        rv = np.maximum(rv, floor)
    return like(p * rv * a / IN_PER_FT, precip_in, impervious_pct, area_ac)  # Table 4.1


def minimum_rv_applies(rule: str, wqv_acft: float, rrv_provided_acft: float) -> bool:
    """Whether the 0.2 minimum Rv applies, by the chosen reading of the 2015 rule.

    Parameters
    ----------
    rule : {"if_wqv_exceeds_rrv", "always", "never"}
        ``"if_wqv_exceeds_rrv"`` reads the printed "Minimum Rv = 0.2 if WQv > RRv" as: the
        floor applies when the WQv (computed without it) exceeds the RRv provided. The
        interpretation is unverified (docs/provenance.md), so it is an explicit
        option that reports print.
    wqv_acft : float
        WQv computed with the plain Rv. [acre-ft]
    rrv_provided_acft : float
        Runoff reduction volume provided. [acre-ft]

    Returns
    -------
    bool

    Raises
    ------
    InputError
        For an unknown rule.

    Examples
    --------
    >>> minimum_rv_applies("if_wqv_exceeds_rrv", 0.03, 0.01)
    True
    >>> minimum_rv_applies("if_wqv_exceeds_rrv", 0.03, 0.05)
    False
    """
    if rule not in MIN_RV_RULES:
        raise InputError(f"min_rv_rule must be one of {', '.join(MIN_RV_RULES)}; got {rule!r}"
                         f"{suggest(str(rule), MIN_RV_RULES)}")
    if rule == "always":
        return True
    if rule == "never":
        return False
    return float(wqv_acft) > float(rrv_provided_acft)


def minimum_runoff_reduction_volume(
    precip_in: npt.ArrayLike,
    new_impervious_ac: npt.ArrayLike,
    specific_reduction_factor: npt.ArrayLike,
) -> FloatOrArray:
    r"""Minimum runoff reduction volume, NYS SMDM Section 4.3 (equation UNVERIFIED) [acre-ft].

    Parameters
    ----------
    precip_in : numeric
        90 % rainfall event depth :math:`P`. [in]
    new_impervious_ac : numeric
        New impervious cover :math:`A_{ic}` on soils of one hydrologic soil group, >= 0. [ac]
    specific_reduction_factor : numeric
        Specific reduction factor :math:`S` of that group, in [0, 1]
        (:func:`specific_reduction_factors`; values unverified). [-]

    Returns
    -------
    rrv_min_acft : numeric
        :math:`RRv_{min} = P\,R_v^*\,A_i / 12`, :math:`A_i = S\,A_{ic}`,
        :math:`R_v^* = 0.05 + 0.009 \cdot 100 = 0.95`. Sum over soil groups for a site.
        [acre-ft]

    Notes
    -----
    SMDM Table 4.1 defines "the minimum required RRv ... as the Specified Reduction Factor
    (S)" [1]_ (text verified); the equation above and the S values are the SMDM Section 4.3
    form as commonly quoted and were **not** read in the primary text
    (docs/provenance.md). The criteria table row ``rrv`` carries that status.

    References
    ----------
    .. [1] NYSDEC, NYS Stormwater Management Design Manual, 2015, Table 4.1 and Section 4.3.

    Examples
    --------
    >>> round(minimum_runoff_reduction_volume(1.2, 0.5, 0.55), 6)   # 1.2*0.95*0.275/12
    0.026125
    """
    p = as_float_array(precip_in, "precip_in", lower=0.0)
    aic = as_float_array(new_impervious_ac, "new_impervious_ac", lower=0.0)
    s = as_float_array(specific_reduction_factor, "specific_reduction_factor", lower=0.0,
                       upper=1.0)
    ai = s * aic
    return like(p * RV_IMPERVIOUS * ai / IN_PER_FT, precip_in, new_impervious_ac,
                specific_reduction_factor)


@functools.cache
def _srf_table() -> pd.DataFrame:
    return data.load_table("ny_rrv_specific_reduction_factors")


def rrv_factor_sets() -> list[str]:
    """Keys of the shipped specific-reduction-factor sets.

    Examples
    --------
    >>> rrv_factor_sets()
    ['smdm_2015_unverified']
    """
    return list(_srf_keys())


@functools.cache
def _srf_keys() -> tuple[str, ...]:
    return tuple(sorted(str(k) for k in _srf_table()["key"].unique()))


@functools.cache
def _srf(key: str) -> dict:
    table = _srf_table()
    rows = table[table["key"] == key]
    first = rows.iloc[0]
    return {
        "key": key,
        "factors": {str(h): float(v) for h, v in zip(rows["hsg"],
                                                      rows["specific_reduction_factor"],
                                                      strict=True)},
        "source": str(first["source"]),
        "location": str(first["location"]),
        "status": str(first["status"]),
    }


def specific_reduction_factors(key: str = "smdm_2015_unverified") -> dict:
    """Specific reduction factors S by HSG from the shipped table, with source and status.

    Parameters
    ----------
    key : str
        A set in table ``ny_rrv_specific_reduction_factors`` (:func:`rrv_factor_sets`).

    Returns
    -------
    dict
        ``{"factors": {"A": 0.55, ...}, "source": ..., "location": ..., "status": ...}``.

    Raises
    ------
    InputError
        For an unknown key (with suggestions).

    Examples
    --------
    >>> f = specific_reduction_factors()
    >>> f["factors"]["A"], f["status"]
    (0.55, 'unverified')
    """
    keys = rrv_factor_sets()
    if key not in keys:
        raise InputError(f"rrv_factors must be a key of table ny_rrv_specific_reduction_factors; "
                         f"got {key!r}{suggest(key, keys)} Valid: {', '.join(keys)}")
    out = dict(_srf(key))
    out["factors"] = dict(out["factors"])
    return out


def channel_protection_storage(
    inflow_peak_cfs: npt.ArrayLike,
    runoff_volume_ft3: npt.ArrayLike,
    *,
    detention_hr: float = 24.0,
    rainfall_type: str = "II",
) -> tuple[FloatOrArray, FloatOrArray, FloatOrArray]:
    r"""Cpv storage and release rate for extended detention, TR-55 Ch. 6 storage ratio.

    Solves, for the release rate :math:`q_o`,

    .. math::

       V_s = \frac{V_s}{V_r}\!\left(\frac{q_o}{q_i}\right) V_r, \qquad
       q_o = \frac{V_s}{3600\,T}

    where :math:`V_s/V_r` is the TR-55 Fig. 6-1 curve (Appendix F, Table F-2) [2]_ and the
    second equation is hydrocalc's reading of "24-hour extended detention": a release that
    empties the storage in :math:`T` hours at the peak rate, the behaviour of a linear
    reservoir whose centre-of-mass detention time is :math:`T`. The left side decreases and
    the right side increases in :math:`q_o`, so the root is unique; it is found by bisection.

    Parameters
    ----------
    inflow_peak_cfs : numeric
        Post-development 1-year peak inflow :math:`q_i`, > 0. [ft3/s]
    runoff_volume_ft3 : numeric
        1-year runoff volume :math:`V_r` remaining after runoff reduction, >= 0. [ft3]
    detention_hr : float, default 24.0
        Extended-detention time :math:`T` (SMDM Table 4.1: 24 h). [h]
    rainfall_type : {"I", "IA", "II", "III"}, default "II"
        Selects the Table F-2 coefficients. [-]

    Returns
    -------
    storage_acft : numeric
        Required storage :math:`V_s` (0 where :math:`V_r` = 0). [acre-ft]
    outflow_peak_cfs : numeric
        Release rate :math:`q_o` for the orifice. [ft3/s]
    qo_over_qi : numeric
        :math:`q_o/q_i`. [-]

    Raises
    ------
    InputError
        For non-positive peaks, negative volume or detention time, an unknown rainfall type.
    OutOfRangeError
        If the solution needs :math:`q_o/q_i` > 0.8 (beyond the curve; the hydrograph is
        too flat for the method).

    Warns
    -----
    RangeWarning
        Where :math:`q_o/q_i` < 0.1: the Table F-2 polynomial is used below the range plotted
        in Fig. 6-1, as the Maryland Cpv procedure [3]_ does for extended detention.

    References
    ----------
    .. [1] NYSDEC, NYS Stormwater Management Design Manual, 2015, Table 4.1 (Cpv).
    .. [2] USDA SCS, TR-55, 2nd ed., 1986, Chapter 6, Fig. 6-1; Appendix F, Table F-2.
    .. [3] MDE, 2000 Maryland Stormwater Design Manual, Appendix D.11.

    Examples
    --------
    >>> import warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     vs, qo, r = channel_protection_storage(10.0, 43560.0, rainfall_type="II")
    >>> round(qo * 24 * 3600 / 43560, 6) == round(vs, 6)      # qo empties Vs in 24 h
    True
    """
    qi = as_float_array(inflow_peak_cfs, "inflow_peak_cfs", lower=0.0, lower_inclusive=False)
    vr = as_float_array(runoff_volume_ft3, "runoff_volume_ft3", lower=0.0)
    t_hr = float(as_float_array(detention_hr, "detention_hr", lower=0.0, lower_inclusive=False))
    qi_b, vr_b = np.broadcast_arrays(qi, vr)
    k = vr_b / (S_PER_HR * t_hr * qi_b)  # r = ratio(r) * k at the solution

    def ratio(r):
        return np.asarray(storage_ratio(r, rainfall_type=rainfall_type,
                                        ratio_limits=(1e-12, 0.99)))

    hi_r = 0.8
    too_flat = (ratio(np.full(k.shape, hi_r)) * k - hi_r) > 0
    if np.any(too_flat & (vr_b > 0)):
        raise OutOfRangeError(
            "the 24-hour release rate would exceed 0.8 of the 1-year peak inflow (qo/qi > 0.8, "
            "beyond TR-55 Fig. 6-1); the storage-ratio method does not apply to so flat a "
            "hydrograph. Size the extended detention by routing instead")
    lo = np.zeros(k.shape)
    hi = np.full(k.shape, hi_r)
    for _ in range(60):  # bisection on r: ratio(r) k - r is decreasing in r
        mid = 0.5 * (lo + hi)
        f = ratio(np.maximum(mid, 1e-12)) * k - mid
        lo = np.where(f > 0, mid, lo)
        hi = np.where(f > 0, hi, mid)
    r = 0.5 * (lo + hi)
    r = np.where(vr_b > 0, r, 0.0)
    low = (r > 0) & (r < 0.1)
    if low.any():
        warnings.warn(
            f"qo/qi = {fmt_value(float(np.min(r[low])))} is below 0.1 for {int(low.sum())} of "
            f"{low.size} values: the TR-55 Table F-2 storage-ratio polynomial is extrapolated "
            "below the range of Fig. 6-1, as the Maryland (2000) Appendix D.11 Cpv procedure "
            "does", RangeWarning, stacklevel=2)
    vs_ft3 = np.where(vr_b > 0, ratio(np.maximum(r, 1e-12)) * vr_b, 0.0)  # Fig. 6-1 / F-2
    qo = vs_ft3 / (S_PER_HR * t_hr)
    inputs = (inflow_peak_cfs, runoff_volume_ft3)
    return like(vs_ft3 / FT2_PER_AC, *inputs), like(qo, *inputs), like(r, *inputs)


def orifice_diameter_in(
    flow_cfs: npt.ArrayLike, head_ft: npt.ArrayLike, *, cd: float = 0.6
) -> FloatOrArray:
    r"""Diameter of a circular orifice passing ``flow_cfs`` under ``head_ft`` [in].

    Parameters
    ----------
    flow_cfs : numeric
        Discharge :math:`q_o`, >= 0. [ft3/s]
    head_ft : numeric
        Head on the orifice centre :math:`h_o`, > 0. [ft]
    cd : float, default 0.6
        Discharge coefficient. [-]

    Returns
    -------
    diameter_in : numeric
        :math:`d = 12\sqrt{4 A_o / \pi}`, :math:`A_o = q_o / (C_d \sqrt{2 g h_o})`. [in]

    Notes
    -----
    The orifice equation, as in the Maryland Cpv procedure (App. D.11: with
    :math:`C_d` = 0.6, :math:`A_o = q_o / (4.81\,h_o^{0.5})`) [1]_; g = 32.2 ft/s2.

    References
    ----------
    .. [1] MDE, 2000 Maryland Stormwater Design Manual, Appendix D.11.

    Examples
    --------
    >>> round(orifice_diameter_in(0.1, 4.0), 2)     # Ao = 0.1 / (0.6 sqrt(64.4 * 4)) ft2
    1.38
    """
    q = as_float_array(flow_cfs, "flow_cfs", lower=0.0)
    h = as_float_array(head_ft, "head_ft", lower=0.0, lower_inclusive=False)
    c = float(as_float_array(cd, "cd", lower=0.0, lower_inclusive=False, upper=1.0))
    area_ft2 = q / (c * np.sqrt(2.0 * GRAVITY_FT_S2 * h))
    return like(IN_PER_FT * np.sqrt(4.0 * area_ft2 / math.pi), flow_cfs, head_ft)


def centroid_detention_time_hr(
    time_hr: npt.ArrayLike, inflow_cfs: npt.ArrayLike, outflow_cfs: npt.ArrayLike
) -> float:
    r"""Centre-of-mass detention time: outflow centroid minus inflow centroid [h].

    Parameters
    ----------
    time_hr : array_like
        Common time base. [h]
    inflow_cfs, outflow_cfs : array_like
        Hydrographs on ``time_hr``. [ft3/s]

    Returns
    -------
    float
        :math:`\bar t_{out} - \bar t_{in}`, :math:`\bar t = \sum t q / \sum q`; NaN when the
        outflow volume is zero (nothing released). [h]

    Notes
    -----
    The detention-time measure used for extended detention ("center of mass" detention
    time) in the Maryland Cpv procedure [1]_.

    References
    ----------
    .. [1] MDE, 2000 Maryland Stormwater Design Manual, Appendix D.11.

    Examples
    --------
    >>> t = [0, 1, 2, 3, 4]
    >>> centroid_detention_time_hr(t, [0, 2, 0, 0, 0], [0, 0, 1, 1, 0])
    1.5
    """
    t = as_float_array(time_hr, "time_hr")
    qi = as_float_array(inflow_cfs, "inflow_cfs", lower=0.0)
    qo = as_float_array(outflow_cfs, "outflow_cfs", lower=0.0)
    if not (t.shape == qi.shape == qo.shape) or t.ndim != 1:
        raise InputError(f"time_hr, inflow_cfs and outflow_cfs must be 1-D of equal length; got "
                         f"{t.shape}, {qi.shape} and {qo.shape}")
    si, so = float(qi.sum()), float(qo.sum())
    if si <= 0 or so <= 0:
        return math.nan
    return float((t * qo).sum() / so - (t * qi).sum() / si)


def peak_not_increased(
    pre_peak_cfs: npt.ArrayLike, post_peak_cfs: npt.ArrayLike, *, tolerance_cfs: float = 0.0
) -> bool | np.ndarray:
    """Qp / Qf check: whether the post-development peak is at or below the pre-development one.

    Answers: is the post-development peak at or below the pre-development peak?

    Parameters
    ----------
    pre_peak_cfs, post_peak_cfs : numeric
        Peaks at a design point for one storm. [ft3/s]
    tolerance_cfs : float, default 0
        Allowance for reporting round-off (a project choice). [ft3/s]

    Returns
    -------
    bool or ndarray of bool
        ``post <= pre + tolerance_cfs``.

    References
    ----------
    .. [1] NYSDEC, NYS Stormwater Management Design Manual, 2015, Table 4.1 (Qp, Qf).

    Examples
    --------
    >>> peak_not_increased(2.0, 1.99), peak_not_increased(2.0, 2.01)
    (True, False)
    """
    pre = as_float_array(pre_peak_cfs, "pre_peak_cfs", lower=0.0)
    post = as_float_array(post_peak_cfs, "post_peak_cfs", lower=0.0)
    tol = float(as_float_array(tolerance_cfs, "tolerance_cfs", lower=0.0))
    out = post <= pre + tol
    return bool(out) if out.ndim == 0 else out


def criteria_table() -> pd.DataFrame:
    """The shipped criteria table ``ny_sizing_criteria``.

    Columns: key, symbol, rule, equation, source, location, status.

    Examples
    --------
    >>> criteria_table().set_index("key").loc["qp", "design_event"]
    '10-year 24-hour'
    """
    return data.load_table("ny_sizing_criteria")


@functools.cache
def _criteria_rows() -> dict[str, dict]:
    return {str(r["key"]): {k: str(v) for k, v in r.items()}
            for r in criteria_table().to_dict(orient="records")}


def criteria_info(key: str) -> dict:
    """One row of ``ny_sizing_criteria`` as a dict of strings (cached).

    Raises
    ------
    InputError
        For an unknown key.

    Examples
    --------
    >>> criteria_info("wqv")["units"]
    'acre-ft'
    """
    rows = _criteria_rows()
    if key not in rows:
        raise InputError(f"criterion must be one of {', '.join(rows)}; got {key!r}"
                         f"{suggest(str(key), rows)}")
    return dict(rows[key])
