r"""TR-55 Graphical Peak Discharge method (TR-55 Chapter 4, Appendix F).

The unit peak discharge is computed from the equation TR-55 used to draw Exhibits 4-I to
4-III (Appendix F, Table F-1) instead of reading the exhibits:

.. math:: \log_{10} q_u = C_0 + C_1 \log_{10} T_c + C_2 (\log_{10} T_c)^2

and the peak discharge is TR-55 Eq. 4-1, :math:`q_p = q_u A_m Q F_p`.

Method choices (documented in ``docs/tr55_core.md``):

- **Between Table F-1 rows** the coefficients :math:`C_0, C_1, C_2` are interpolated
  linearly in :math:`I_a/P`, which is the same as interpolating :math:`\log q_u` linearly
  (the exhibits are log-log plots). Interpolating :math:`q_u` itself gives 0.1-0.5 % higher
  values; TR-55 read values off the graphs.
- **Ia/P outside the rows** (0.10-0.50) uses the limiting row, as TR-55 Chapter 4
  instructs, with a :class:`~hydrocalc.errors.RangeWarning` counting the values.
- **Tc outside 0.1-10 h** and **CN outside 40-98** raise
  :class:`~hydrocalc.errors.OutOfRangeError` naming the keyword that moves the limit
  (``tc_limits_hr=``, ``cn_limits=``).
- **Fp between Table 4-2 rows** is interpolated linearly (:func:`pond_swamp_factor`,
  ``method="nearest"`` is available); above 5 % pond and swamp area TR-55 gives no factor
  and an error is raised.

Symbols
-------
=================  ======  ========  ===========================================
API name           Symbol  Unit      Meaning
=================  ======  ========  ===========================================
area_mi2           Am      mi2       drainage area
cn                 CN      -         runoff curve number
tc_hr              Tc      h         time of concentration
precip_in          P       in        24-hour rainfall depth
ia_in              Ia      in        initial abstraction, 0.2 S (Table 4-1)
ia_over_p          Ia/P    -         initial abstraction over rainfall
runoff_in          Q       in        runoff depth
unit_peak_csm_in   qu      csm/in    unit peak discharge, ft3/s per mi2 per inch
pond_swamp_pct     -       %         pond and swamp area, percent of Am
fp                 Fp      -         pond and swamp adjustment factor (Table 4-2)
peak_cfs           qp      ft3/s     peak discharge
=================  ======  ========  ===========================================

References
----------
.. [1] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds,"
   Technical Release 55, 2nd ed., Washington, DC, USA, 1986, Chapter 4 and Appendix F.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import numpy.typing as npt
import pandas as pd

from hydrocalc import data
from hydrocalc._typing import FloatOrArray
from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.errors import InputError, OutOfRangeError, RangeWarning
from hydrocalc.runoff import runoff_depth

__all__ = [
    "unit_peak_discharge",
    "graphical_peak_discharge",
    "graphical_peak_worksheet",
    "pond_swamp_factor",
    "normalize_rainfall_type",
    "RAINFALL_TYPES",
    "TC_LIMITS_HR",
    "CN_LIMITS",
]

#: NRCS 24-hour rainfall distributions covered by Table F-1.
RAINFALL_TYPES = ("I", "IA", "II", "III")
#: Tc range of the graphical method, TR-55 Chapter 4 "Limitations". [h]
TC_LIMITS_HR = (0.1, 10.0)
#: CN range of the graphical method: TR-55 Chapter 4 and Table 4-1 (CN 40-98). [-]
CN_LIMITS = (40.0, 98.0)
#: Largest pond and swamp area with a Table 4-2 factor. [%]
POND_SWAMP_MAX_PCT = 5.0
_IA_RATIO = 0.2  # TR-55 Table 4-1 and Exhibits 4-I..4-III assume Ia = 0.2 S


def normalize_rainfall_type(value, *, name: str = "rainfall_type") -> str:
    """Return the canonical NRCS rainfall type "I", "IA", "II" or "III".

    Accepts case-insensitive spellings such as ``"ii"``, ``"Type II"``, ``"type_ii"``.

    Raises
    ------
    InputError
        For anything else (with a suggestion); the graphical method and the Chapter 6
        storage curves exist only for these four distributions.

    Examples
    --------
    >>> normalize_rainfall_type("type_ia")
    'IA'
    """
    key = str(value).strip().upper()
    for token in ("TYPE", "_", " ", "-"):
        key = key.replace(token, "")
    if key in RAINFALL_TYPES:
        return key
    raise InputError(
        f"{name} must be one of 'I', 'IA', 'II', 'III' (the NRCS 24-hour types of TR-55 "
        f"Tables F-1 and F-2); got {value!r}{suggest(key, RAINFALL_TYPES)}"
    )


@functools.cache
def _f1_rows(rainfall_type: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    table = data.load_table("tr55_unit_peak_coefficients")
    rows = table[table["rainfall_type"] == rainfall_type].sort_values("ia_over_p")
    return tuple(rows[c].to_numpy(dtype=float) for c in ("ia_over_p", "C0", "C1", "C2"))


def rainfall_types_array(rainfall_type) -> np.ndarray:
    """Canonical rainfall types as an object array (0-d for a scalar)."""
    if isinstance(rainfall_type, pd.Series):
        rainfall_type = rainfall_type.to_numpy()
    values = np.array(rainfall_type, dtype=object)
    out = np.empty(values.shape, dtype=object)
    for idx, value in np.ndenumerate(values):
        out[idx] = normalize_rainfall_type(value)
    return out


def _check_limits(limits, name: str) -> tuple[float, float]:
    try:
        lo, hi = (float(v) for v in limits)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be a pair (low, high); got {limits!r}") from None
    if not (0.0 < lo < hi) or not np.isfinite(hi):
        raise InputError(f"{name} must satisfy 0 < low < high < inf; got {limits!r}")
    return lo, hi


def _out_of_range(values: np.ndarray, bad: np.ndarray, message: str) -> OutOfRangeError:
    flat = np.ravel(bad)
    first = int(np.flatnonzero(flat)[0])
    where = "" if values.ndim == 0 else (
        f" at index {first} ({int(flat.sum())} of {flat.size} values invalid)"
    )
    got = fmt_value(np.ravel(values)[first])
    return OutOfRangeError(message.format(got=got, where=where))


def _check_tc(tc: np.ndarray, tc_limits_hr) -> None:
    lo, hi = _check_limits(tc_limits_hr, "tc_limits_hr")
    bad = (tc < lo) | (tc > hi)
    if bad.any():
        raise _out_of_range(
            tc, bad,
            f"tc_hr must be in [{fmt_value(lo)}, {fmt_value(hi)}] h for the TR-55 graphical "
            "method (TR-55 Chapter 4 limitations: Tc 0.1-10 h); got {got}{where}. Use a "
            "hydrograph method, or pass tc_limits_hr=(low, high) to extrapolate the Table F-1 "
            "fit deliberately",
        )


def _unit_peak(tc: np.ndarray, iap: np.ndarray, types: np.ndarray):
    """Table F-1 evaluation; returns (qu, Ia/P used, mask of values moved to a limiting row)."""
    tc_b, iap_b, types_b = np.broadcast_arrays(tc, iap, types)
    qu = np.empty(tc_b.shape, dtype=float)
    used = np.empty(tc_b.shape, dtype=float)
    clipped = np.zeros(tc_b.shape, dtype=bool)
    x = np.log10(tc_b)
    for rtype in np.unique(types_b.astype(str)):
        mask = types_b == rtype
        rows, c0, c1, c2 = _f1_rows(rtype)
        r = iap_b[mask]
        r_used = np.clip(r, rows[0], rows[-1])  # TR-55 Ch. 4: use the limiting value
        clipped[mask] = r != r_used
        used[mask] = r_used
        # Linear interpolation of the coefficients == linear interpolation of log10(qu).
        a0 = np.interp(r_used, rows, c0)
        a1 = np.interp(r_used, rows, c1)
        a2 = np.interp(r_used, rows, c2)
        xm = x[mask]
        qu[mask] = 10.0 ** (a0 + a1 * xm + a2 * xm**2)  # Appendix F, Table F-1 equation
    return qu, used, clipped


def _warn_clipped(clipped: np.ndarray, types: np.ndarray, stacklevel: int) -> None:
    if clipped.any():
        kinds = sorted(set(np.broadcast_to(types, clipped.shape)[clipped].astype(str)))
        ranges = "; ".join(
            f"type {k}: {fmt_value(_f1_rows(k)[0][0])}-{fmt_value(_f1_rows(k)[0][-1])}"
            for k in kinds
        )
        warnings.warn(
            f"ia_over_p outside the Table F-1 rows ({ranges}) for {int(clipped.sum())} of "
            f"{clipped.size} values; the limiting row was used, as TR-55 Chapter 4 "
            "prescribes",
            RangeWarning,
            stacklevel=stacklevel + 1,
        )


def unit_peak_discharge(
    tc_hr: npt.ArrayLike,
    ia_over_p: npt.ArrayLike,
    *,
    rainfall_type="II",
    tc_limits_hr: tuple[float, float] = TC_LIMITS_HR,
) -> FloatOrArray:
    r"""Unit peak discharge of the TR-55 graphical method, Appendix F Table F-1.

    Parameters
    ----------
    tc_hr : numeric
        Time of concentration, > 0 and within ``tc_limits_hr``. [h]
    ia_over_p : numeric
        Ratio of initial abstraction to 24-hour rainfall, >= 0. [-]
    rainfall_type : {"I", "IA", "II", "III"} or array_like of them, default "II"
        NRCS 24-hour rainfall distribution (case-insensitive; "Type II" accepted). [-]
    tc_limits_hr : (float, float), default (0.1, 10.0)
        Tc range accepted. TR-55 Chapter 4 limits the method to 0.1-10 h; widening it
        extrapolates the Table F-1 fit. [h]

    Returns
    -------
    unit_peak_csm_in : numeric
        Unit peak discharge :math:`q_u`. Same container as the inputs. [csm/in]

    Raises
    ------
    InputError
        If ``tc_hr`` is not > 0, ``ia_over_p`` is negative or NaN, or the rainfall type is
        unknown.
    OutOfRangeError
        If ``tc_hr`` is outside ``tc_limits_hr``.

    Warns
    -----
    RangeWarning
        If some ``ia_over_p`` lie outside the Table F-1 rows (0.10-0.50): the limiting row
        is used, as TR-55 Chapter 4 prescribes. The warning counts the values.

    Notes
    -----
    Appendix F [1]_: :math:`\log_{10} q_u = C_0 + C_1 \log_{10} T_c + C_2
    (\log_{10} T_c)^2`, with :math:`C_0, C_1, C_2` from Table F-1 for the rainfall type
    and :math:`I_a/P`. Between tabulated :math:`I_a/P` rows the coefficients are
    interpolated linearly, i.e. :math:`\log q_u` is interpolated linearly (the exhibits
    4-I to 4-III are log-log plots). Interpolating :math:`q_u` itself would give
    0.1-0.5 % higher values.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 4, Exhibits 4-I to 4-III, and
       Appendix F, Table F-1.

    Examples
    --------
    >>> round(unit_peak_discharge(1.0, 0.10, rainfall_type="II"), 1)   # 10**2.55323
    357.5
    """
    tc = as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False)
    iap = as_float_array(ia_over_p, "ia_over_p", lower=0.0)
    types = rainfall_types_array(rainfall_type)
    _check_tc(tc, tc_limits_hr)
    qu, _, clipped = _unit_peak(tc, iap, types)
    _warn_clipped(clipped, types, stacklevel=2)
    return like(qu, tc_hr, ia_over_p, rainfall_type)


def pond_swamp_factor(pond_swamp_pct: npt.ArrayLike, *, method: str = "linear") -> FloatOrArray:
    """Pond and swamp adjustment factor Fp, TR-55 Table 4-2.

    Parameters
    ----------
    pond_swamp_pct : numeric
        Pond and swamp area spread throughout the watershed (not in the Tc flow path), as a
        percent of the drainage area, in [0, 5]. [%]
    method : {"linear", "nearest"}, default "linear"
        How to read between the Table 4-2 rows (0, 0.2, 1, 3, 5 %): linear interpolation
        (hydrocalc's default) or the nearest row. Tabulated percentages return the printed
        factor either way.

    Returns
    -------
    fp : numeric
        Adjustment factor. Same container as the input. [-]

    Raises
    ------
    InputError
        If ``pond_swamp_pct`` is negative or NaN, or ``method`` is unknown.
    OutOfRangeError
        If ``pond_swamp_pct`` exceeds 5 %: TR-55 gives no factor; route the ponds and swamps
        explicitly instead.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 4, Table 4-2.

    Examples
    --------
    >>> pond_swamp_factor(1.0)
    0.87
    >>> pond_swamp_factor(2.0)          # halfway between 0.87 (1 %) and 0.75 (3 %)
    0.81
    """
    pct = as_float_array(pond_swamp_pct, "pond_swamp_pct", lower=0.0)
    if method not in ("linear", "nearest"):
        raise InputError(
            f"method must be 'linear' or 'nearest'; got {method!r}"
            f"{suggest(str(method), ('linear', 'nearest'))}"
        )
    bad = pct > POND_SWAMP_MAX_PCT
    if bad.any():
        raise _out_of_range(
            pct, bad,
            "pond_swamp_pct must be <= 5 % (TR-55 Table 4-2 gives no Fp above 5 %); got "
            "{got}{where}. Route the ponds and swamps explicitly (storage routing or a "
            "hydrograph method) instead of the graphical method's Fp",
        )
    table = data.load_table("tr55_pond_swamp_factor")
    x = table["pond_swamp_area_pct"].to_numpy(dtype=float)
    y = table["Fp"].to_numpy(dtype=float)
    if method == "linear":
        fp = np.interp(pct, x, y)
    else:
        nearest = np.abs(np.asarray(pct)[..., None] - x).argmin(axis=-1)
        fp = y[nearest]
    return like(fp, pond_swamp_pct)


def _graphical(area_mi2, cn, tc_hr, precip_in, rainfall_type, pond_swamp_pct,
               tc_limits_hr, cn_limits) -> dict:
    area = as_float_array(area_mi2, "area_mi2", lower=0.0, lower_inclusive=False)
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    tc = as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False)
    p_in = as_float_array(precip_in, "precip_in", lower=0.0)
    pond = as_float_array(pond_swamp_pct, "pond_swamp_pct", lower=0.0)
    types = rainfall_types_array(rainfall_type)
    lo, hi = _check_limits(cn_limits, "cn_limits")
    bad = (cn_ < lo) | (cn_ > hi)
    if bad.any():
        raise _out_of_range(
            cn_, bad,
            f"cn must be in [{fmt_value(lo)}, {fmt_value(hi)}] for the TR-55 graphical method "
            "(TR-55 Chapter 4 and Table 4-1 cover CN 40-98); got {got}{where}. Use a "
            "hydrograph method, or pass cn_limits=(low, high) to change the limits "
            "deliberately",
        )
    _check_tc(tc, tc_limits_hr)
    fp = np.asarray(pond_swamp_factor(pond), dtype=float)
    s_in = 1000.0 / cn_ - 10.0  # Eq. 2-4
    ia_in = _IA_RATIO * s_in  # Table 4-1
    q_in = np.asarray(runoff_depth(p_in, cn_), dtype=float)  # Eq. 2-3
    with np.errstate(divide="ignore", invalid="ignore"):
        iap = np.where(p_in > 0.0, ia_in / np.where(p_in > 0.0, p_in, 1.0), np.inf)
    qu, iap_used, clipped = _unit_peak(tc, iap, types)
    with np.errstate(over="ignore"):  # an overflow is refused by the caller
        qp = qu * area * q_in * fp  # Eq. 4-1
    shape = np.broadcast_shapes(area.shape, cn_.shape, tc.shape, p_in.shape, pond.shape,
                                types.shape)
    # Where Q = 0 the peak is zero whatever qu is; only warn where the fallback matters.
    clipped = np.broadcast_to(clipped, shape) & np.broadcast_to(q_in > 0.0, shape)
    return {
        "area_mi2": area, "cn": cn_, "tc_hr": tc, "precip_in": p_in,
        "rainfall_type": types, "ia_in": ia_in, "ia_over_p": iap,
        "ia_over_p_used": iap_used, "unit_peak_csm_in": qu, "runoff_in": q_in,
        "pond_swamp_pct": pond, "fp": fp, "peak_cfs": qp, "_clipped": clipped,
        "_shape": shape,
    }


def graphical_peak_discharge(
    area_mi2: npt.ArrayLike,
    cn: npt.ArrayLike,
    tc_hr: npt.ArrayLike,
    precip_in: npt.ArrayLike,
    *,
    rainfall_type="II",
    pond_swamp_pct: npt.ArrayLike = 0.0,
    tc_limits_hr: tuple[float, float] = TC_LIMITS_HR,
    cn_limits: tuple[float, float] = CN_LIMITS,
) -> FloatOrArray:
    r"""Peak discharge by the TR-55 Graphical Peak Discharge method, Eq. 4-1.

    Parameters
    ----------
    area_mi2 : numeric
        Drainage area :math:`A_m`, > 0. [mi2]
    cn : numeric
        Runoff curve number of the (hydrologically homogeneous) watershed, within
        ``cn_limits``. TR-55 Worksheet 4 uses the CN rounded to an integer; pass
        ``round(cn)`` to reproduce it. [-]
    tc_hr : numeric
        Time of concentration, within ``tc_limits_hr``. [h]
    precip_in : numeric
        24-hour design rainfall :math:`P`, >= 0. [in]
    rainfall_type : {"I", "IA", "II", "III"} or array_like of them, default "II"
        NRCS 24-hour rainfall distribution. [-]
    pond_swamp_pct : numeric, default 0
        Pond and swamp area spread throughout the watershed and not in the Tc flow path, in
        percent of :math:`A_m`, in [0, 5] (Table 4-2, linear interpolation between rows;
        see :func:`pond_swamp_factor`). [%]
    tc_limits_hr : (float, float), default (0.1, 10.0)
        Tc range of the method (TR-55 Chapter 4). [h]
    cn_limits : (float, float), default (40, 98)
        CN range of the method (TR-55 Chapter 4; Table 4-1 covers CN 40-98). [-]

    Returns
    -------
    peak_cfs : numeric
        Peak discharge :math:`q_p`; zero where the rain does not exceed :math:`I_a`. Same
        container as the inputs. [ft3/s]

    Raises
    ------
    InputError
        For a non-positive area or Tc, a CN outside (0, 100], negative or NaN rain, a
        negative pond percentage or an unknown rainfall type.
    OutOfRangeError
        If ``cn`` or ``tc_hr`` is outside the method's range (the message names the keyword
        that changes it), or ``pond_swamp_pct`` exceeds 5 %.

    Warns
    -----
    RangeWarning
        If :math:`I_a/P` falls outside the Table F-1 rows for some values with runoff; the
        limiting row is used (TR-55 Chapter 4).

    See Also
    --------
    graphical_peak_worksheet : the same computation with every Worksheet 4 line.

    Notes
    -----
    TR-55 Chapter 4 [1]_: :math:`I_a = 0.2 S` (Table 4-1), :math:`Q` from Eq. 2-3,
    :math:`q_u` from Table F-1 (see :func:`unit_peak_discharge`), :math:`F_p` from
    Table 4-2 and

    .. math:: q_p = q_u A_m Q F_p \qquad \text{(Eq. 4-1)}

    Limitations stated by TR-55: one hydrologically homogeneous watershed with one main
    channel (or branches of nearly equal Tc), no valley or reservoir routing, Fp only for
    ponds and swamps outside the Tc flow path; accuracy decreases as Ia/P approaches the
    limits of the exhibits.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 4 (Eq. 4-1, Tables 4-1 and 4-2,
       Worksheet 4) and Appendix F (Table F-1).

    Examples
    --------
    Ponce, *Engineering Hydrology* (1989), Example 5-9 in US units: 4 km2 = 1.544 mi2,
    P = 9 cm = 3.543 in, CN 74, Tc 1.5 h, 1 % ponds, Type II; printed Qp = 12.09 m3/s
    (427 cfs), read from the exhibits.

    >>> qp = graphical_peak_discharge(4.0 / 2.589988110336, 74, 1.5, 9.0 / 2.54,
    ...                               pond_swamp_pct=1.0)
    >>> round(qp * 0.3048**3, 2)        # m3/s
    12.04
    """
    out = _graphical(area_mi2, cn, tc_hr, precip_in, rainfall_type, pond_swamp_pct,
                     tc_limits_hr, cn_limits)
    _warn_clipped(out["_clipped"], out["rainfall_type"], stacklevel=2)
    qp = np.broadcast_to(out["peak_cfs"], out["_shape"])
    if not np.all(np.isfinite(qp)):
        # Only an overflow of qu Am Q Fp can get here (every input was validated finite).
        first = int(np.flatnonzero(~np.isfinite(qp.ravel()))[0])
        raise InputError(
            f"graphical_peak_discharge overflowed to a non-finite peak at index {first}; "
            "check the units of area_mi2 (square miles) and precip_in (inches)"
        )
    return like(qp, area_mi2, cn, tc_hr, precip_in, pond_swamp_pct, rainfall_type)


def graphical_peak_worksheet(
    area_mi2: npt.ArrayLike,
    cn: npt.ArrayLike,
    tc_hr: npt.ArrayLike,
    precip_in: npt.ArrayLike,
    *,
    rainfall_type="II",
    pond_swamp_pct: npt.ArrayLike = 0.0,
    tc_limits_hr: tuple[float, float] = TC_LIMITS_HR,
    cn_limits: tuple[float, float] = CN_LIMITS,
) -> pd.DataFrame:
    """TR-55 Worksheet 4 lines for :func:`graphical_peak_discharge`, one row per value.

    Parameters and errors are those of :func:`graphical_peak_discharge`.

    Returns
    -------
    pandas.DataFrame
        Columns ``area_mi2``, ``cn``, ``tc_hr``, ``rainfall_type``, ``precip_in``,
        ``ia_in`` (Table 4-1), ``ia_over_p`` (computed), ``ia_over_p_used`` (after the
        limiting-row rule), ``unit_peak_csm_in``, ``runoff_in``, ``pond_swamp_pct``,
        ``fp`` and ``peak_cfs``. The index follows a Series input, else 0..n-1.

    Examples
    --------
    >>> ws = graphical_peak_worksheet(0.39, 75, 1.53, 6.0)
    >>> ws[["ia_in", "runoff_in"]].round(3).values.tolist()
    [[0.667, 3.282]]
    """
    out = _graphical(area_mi2, cn, tc_hr, precip_in, rainfall_type, pond_swamp_pct,
                     tc_limits_hr, cn_limits)
    _warn_clipped(out["_clipped"], out["rainfall_type"], stacklevel=2)
    shape = out["_shape"]
    n = int(np.prod(shape)) if shape else 1
    columns = ["area_mi2", "cn", "tc_hr", "rainfall_type", "precip_in", "ia_in", "ia_over_p",
               "ia_over_p_used", "unit_peak_csm_in", "runoff_in", "pond_swamp_pct", "fp",
               "peak_cfs"]
    frame = pd.DataFrame({c: np.broadcast_to(out[c], shape).reshape(n) for c in columns})
    for value in (area_mi2, cn, tc_hr, precip_in, pond_swamp_pct):
        if isinstance(value, pd.Series) and len(value) == n:
            frame.index = value.index
            break
    return frame
