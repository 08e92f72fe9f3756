r"""Detention storage estimate of TR-55 Chapter 6 (Fig. 6-1, Appendix F Table F-2).

A planning estimate of the storage a detention basin needs to cut a peak inflow
:math:`q_i` to a peak outflow :math:`q_o`, from the curve of Fig. 6-1 written as the
Appendix F polynomial

.. math:: \frac{V_s}{V_r} = C_0 + C_1 r + C_2 r^2 + C_3 r^3, \qquad r = q_o / q_i

with the runoff volume :math:`V_r = 53.33\, Q\, A_m` [acre-ft]. TR-55 warns that the
procedure can be off by about 25 % and should not be used for final design where that is
not acceptable; route a hydrograph through the stage-storage-discharge relation
(:mod:`hydrocalc.hydraulics.routing`) for design. ``hydrocalc.hydraulics.routing`` re-exports
:func:`estimate_storage_volume`.

Symbols
-------
==================  ======  ======  ================================================
API name            Symbol  Unit    Meaning
==================  ======  ======  ================================================
inflow_peak_cfs     qi      ft3/s   peak inflow to the basin (developed condition)
outflow_peak_cfs    qo      ft3/s   allowable peak outflow
qo_over_qi          r       -       peak outflow over peak inflow
runoff_in           Q       in      runoff depth of the design storm
area_mi2            Am      mi2     drainage area
runoff_volume_acft  Vr      ac-ft   runoff volume, 53.33 Q Am
storage_acft        Vs      ac-ft   storage volume required
==================  ======  ======  ================================================

References
----------
.. [1] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds,"
   Technical Release 55, 2nd ed., Washington, DC, USA, 1986, Chapter 6 (Fig. 6-1,
   Worksheet 6a) and Appendix F (Table F-2).
"""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt

from hydrocalc import data
from hydrocalc._typing import FloatOrArray
from hydrocalc._validate import as_float_array, fmt_value, like
from hydrocalc.errors import InputError, OutOfRangeError
from hydrocalc.peak import rainfall_types_array as _types  # one canonicalizer for both modules
from hydrocalc.units import AC_PER_MI2, IN_PER_FT

__all__ = [
    "estimate_storage_volume",
    "storage_ratio",
    "runoff_volume_acft",
    "RATIO_LIMITS",
]

#: Range of qo/qi plotted in TR-55 Fig. 6-1 (the polynomial of Table F-2 is a fit to it).
RATIO_LIMITS = (0.1, 0.8)
#: acre-ft per (inch x square mile): 640 / 12 = 53.33 (TR-55 Chapter 6, Vr = Q Am 53.33).
ACFT_PER_IN_MI2 = AC_PER_MI2 / IN_PER_FT


@functools.cache
def _f2(rainfall_type: str) -> tuple[float, float, float, float]:
    table = data.load_table("tr55_storage_routing_coefficients")
    for _, row in table.iterrows():
        if rainfall_type in str(row["rainfall_types"]).split(";"):
            c0, c1, c2, c3 = (float(row[c]) for c in ("C0", "C1", "C2", "C3"))
            return c0, c1, c2, c3
    raise InputError(f"rainfall_type {rainfall_type!r} has no row in TR-55 Table F-2")


def _check_ratio(r: np.ndarray, ratio_limits) -> None:
    try:
        lo, hi = (float(v) for v in ratio_limits)
    except (TypeError, ValueError):
        raise InputError(f"ratio_limits must be a pair (low, high); got {ratio_limits!r}") \
            from None
    if not (0.0 < lo < hi < 1.0):
        raise InputError(f"ratio_limits must satisfy 0 < low < high < 1; got {ratio_limits!r}")
    bad = (r < lo) | (r > hi)
    if bad.any():
        flat = np.ravel(bad)
        first = int(np.flatnonzero(flat)[0])
        where = "" if r.ndim == 0 else (
            f" at index {first} ({int(flat.sum())} of {flat.size} values invalid)"
        )
        raise OutOfRangeError(
            f"outflow_peak_cfs / inflow_peak_cfs must be in [{fmt_value(lo)}, {fmt_value(hi)}] "
            f"(the range of TR-55 Fig. 6-1); got {fmt_value(np.ravel(r)[first])}{where}. Route "
            "a hydrograph through the pond instead, or pass ratio_limits=(low, high) to "
            "extrapolate the Table F-2 fit deliberately"
        )


def storage_ratio(
    qo_over_qi: npt.ArrayLike,
    *,
    rainfall_type="II",
    ratio_limits: tuple[float, float] = RATIO_LIMITS,
) -> FloatOrArray:
    r"""Storage over runoff volume, Vs/Vr, of TR-55 Fig. 6-1 (Appendix F, Table F-2).

    Parameters
    ----------
    qo_over_qi : numeric
        Peak outflow over peak inflow, within ``ratio_limits``. [-]
    rainfall_type : {"I", "IA", "II", "III"} or array_like of them, default "II"
        NRCS 24-hour rainfall distribution; Types I and IA share one curve, II and III the
        other. [-]
    ratio_limits : (float, float), default (0.1, 0.8)
        Accepted qo/qi range: the range plotted in Fig. 6-1. [-]

    Returns
    -------
    vs_over_vr : numeric
        :math:`V_s/V_r = C_0 + C_1 r + C_2 r^2 + C_3 r^3`. Same container as the input. [-]

    Raises
    ------
    InputError
        If ``qo_over_qi`` is not in (0, 1) or the rainfall type is unknown.
    OutOfRangeError
        If ``qo_over_qi`` is outside ``ratio_limits``.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 6, Fig. 6-1, and Appendix F, Table F-2.

    Examples
    --------
    >>> round(storage_ratio(0.5, rainfall_type="II"), 4)   # 0.682 - 1.43/2 + 1.64/4 - 0.804/8
    0.2765
    """
    r = as_float_array(qo_over_qi, "qo_over_qi", lower=0.0, upper=1.0,
                       lower_inclusive=False, upper_inclusive=False)
    _check_ratio(r, ratio_limits)
    return like(_ratio(r, _types(rainfall_type)), qo_over_qi, rainfall_type)


def _ratio(r: np.ndarray, types: np.ndarray) -> np.ndarray:
    r_b, t_b = np.broadcast_arrays(r, types)
    out = np.empty(r_b.shape, dtype=float)
    for rtype in np.unique(t_b.astype(str)):
        mask = t_b == rtype
        c0, c1, c2, c3 = _f2(rtype)
        x = r_b[mask]
        out[mask] = c0 + c1 * x + c2 * x**2 + c3 * x**3  # Appendix F, Table F-2
    return out


def runoff_volume_acft(runoff_in: npt.ArrayLike, area_mi2: npt.ArrayLike) -> FloatOrArray:
    r"""Runoff volume Vr = 53.33 Q Am, TR-55 Chapter 6 [acre-ft].

    Parameters
    ----------
    runoff_in : numeric
        Runoff depth Q, >= 0. [in]
    area_mi2 : numeric
        Drainage area Am, > 0. [mi2]

    Returns
    -------
    runoff_volume_acft : numeric
        :math:`V_r = Q A_m \cdot 640 / 12` (TR-55 prints the factor as 53.33). [acre-ft]

    Examples
    --------
    >>> round(runoff_volume_acft(3.0, 0.5), 2)
    80.0
    """
    q_in = as_float_array(runoff_in, "runoff_in", lower=0.0)
    area = as_float_array(area_mi2, "area_mi2", lower=0.0, lower_inclusive=False)
    return like(ACFT_PER_IN_MI2 * q_in * area, runoff_in, area_mi2)


def estimate_storage_volume(
    inflow_peak_cfs: npt.ArrayLike,
    outflow_peak_cfs: npt.ArrayLike,
    runoff_in: npt.ArrayLike,
    area_mi2: npt.ArrayLike,
    *,
    rainfall_type="II",
    ratio_limits: tuple[float, float] = RATIO_LIMITS,
) -> FloatOrArray:
    r"""Detention storage required to reduce a peak, TR-55 Chapter 6 (Fig. 6-1).

    Parameters
    ----------
    inflow_peak_cfs : numeric
        Peak inflow :math:`q_i` to the basin, > 0. [ft3/s]
    outflow_peak_cfs : numeric
        Allowable peak outflow :math:`q_o`, > 0 and < ``inflow_peak_cfs``. [ft3/s]
    runoff_in : numeric
        Runoff depth :math:`Q` of the design storm, >= 0. [in]
    area_mi2 : numeric
        Drainage area :math:`A_m`, > 0. [mi2]
    rainfall_type : {"I", "IA", "II", "III"} or array_like of them, default "II"
        NRCS 24-hour rainfall distribution (Types I/IA and II/III share a curve). [-]
    ratio_limits : (float, float), default (0.1, 0.8)
        Accepted :math:`q_o/q_i` range: the range plotted in Fig. 6-1. [-]

    Returns
    -------
    storage_acft : numeric
        Storage volume :math:`V_s`. Same container as the inputs. [acre-ft]

    Raises
    ------
    InputError
        For non-positive peaks or area, negative or NaN runoff, an outflow not below the
        inflow (no storage is needed), or an unknown rainfall type.
    OutOfRangeError
        If :math:`q_o/q_i` is outside ``ratio_limits`` (the message names the keyword).

    Notes
    -----
    TR-55 Chapter 6 and Appendix F [1]_:

    .. math::

       r = \frac{q_o}{q_i}, \qquad
       \frac{V_s}{V_r} = C_0 + C_1 r + C_2 r^2 + C_3 r^3, \qquad
       V_r = 53.33\, Q\, A_m, \qquad V_s = V_r \frac{V_s}{V_r}

    with Table F-2: Types I and IA :math:`C = (0.660, -1.76, 1.96, -0.730)`; Types II and
    III :math:`C = (0.682, -1.43, 1.64, -0.804)`. The factor 53.33 = 640 ac/mi2 / 12 in/ft
    is used exactly. Fig. 6-1 is plotted for :math:`q_o/q_i` of about 0.1-0.8; outside that
    range this function raises instead of extrapolating silently. TR-55 states the
    procedure may be in error by up to about 25 % and biases toward oversizing; it is a
    planning estimate, not a routing.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 6 (Fig. 6-1, Worksheet 6a) and
       Appendix F (Table F-2).

    Examples
    --------
    >>> vs = estimate_storage_volume(300.0, 150.0, 3.0, 0.5, rainfall_type="II")
    >>> round(vs, 2)          # Vr = 80 acre-ft, Vs/Vr = 0.2765
    22.12
    """
    qi = as_float_array(inflow_peak_cfs, "inflow_peak_cfs", lower=0.0, lower_inclusive=False)
    qo = as_float_array(outflow_peak_cfs, "outflow_peak_cfs", lower=0.0, lower_inclusive=False)
    q_in = as_float_array(runoff_in, "runoff_in", lower=0.0)
    area = as_float_array(area_mi2, "area_mi2", lower=0.0, lower_inclusive=False)
    types = _types(rainfall_type)
    qi_b, qo_b = np.broadcast_arrays(qi, qo)
    not_below = qo_b >= qi_b
    if not_below.any():
        flat = np.ravel(not_below)
        first = int(np.flatnonzero(flat)[0])
        where = "" if qo_b.ndim == 0 else (
            f" at index {first} ({int(flat.sum())} of {flat.size} values invalid)"
        )
        raise InputError(
            f"outflow_peak_cfs must be < inflow_peak_cfs; got "
            f"{fmt_value(np.ravel(qo_b)[first])} >= {fmt_value(np.ravel(qi_b)[first])}{where}. "
            "No detention storage is needed when the allowable outflow is not below the inflow"
        )
    r = qo_b / qi_b
    _check_ratio(r, ratio_limits)
    vr = ACFT_PER_IN_MI2 * q_in * area  # Chapter 6: Vr = 53.33 Q Am
    vs = vr * _ratio(r, types)  # Fig. 6-1 / Table F-2
    return like(vs, inflow_peak_cfs, outflow_peak_cfs, runoff_in, area_mi2, rainfall_type)
