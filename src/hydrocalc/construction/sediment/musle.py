r"""MUSLE sediment yield of one runoff event, the LS topographic factor, mass to volume.

Williams (1975) MUSLE in its metric form [1]_ (as written by Smith et al. [2]_) and the US
customary form derived from it by unit conversion; the Wischmeier & Smith (1978) LS factor
[3]_; :func:`sediment_volume_ft3` converts a mass to a deposited volume by a stated dry unit
weight [4]_.

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
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hydrocalc._typing import FloatOrArray
from hydrocalc._validate import as_float_array, like
from hydrocalc.errors import InputError
from hydrocalc.units import FT2_PER_AC, LB_PER_SHORT_TON, M3_PER_FT3

#: MUSLE coefficient a of the metric form (Williams 1975), Y [t] with Q [m3], qp [m3/s].
MUSLE_A_METRIC = 11.8
#: MUSLE exponent b (Williams 1975).
MUSLE_B = 0.56
#: Rounded US-customary coefficient found in practice (derived from the metric form;
#: docs/provenance.md).
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

    References
    ----------
    .. [3] Wischmeier, W. H., and Smith, D. D. (1978). *Predicting Rainfall Erosion Losses*,
       USDA Agriculture Handbook 537 (LS equation as transcribed in R package VFS, MUSLE.LS).

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

    References
    ----------
    .. [1] Williams, J. R. (1975). Sediment-yield prediction with universal equation using
       runoff energy factor. In *Present and Prospective Technology for Predicting Sediment
       Yields and Sources*, ARS-S-40, USDA Agricultural Research Service, pp. 244-252.
    .. [2] Smith, S. J., Williams, J. R., Menzel, R. G., and Coleman, G. A. (1984). Prediction of
       sediment yield from Southern Plains grasslands with the Modified Universal Soil Loss
       Equation. *J. Range Management* 37(4):295-297.

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

    References
    ----------
    .. [1] Williams, J. R. (1975). Sediment-yield prediction with universal equation using
       runoff energy factor. In *Present and Prospective Technology for Predicting Sediment
       Yields and Sources*, ARS-S-40, USDA Agricultural Research Service, pp. 244-252.

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

    References
    ----------
    .. [4] USDA NRCS Indiana (2000). IN-ENG-38, Estimating Sediment Accumulation in Ponds and
       Sediment Basins.

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
