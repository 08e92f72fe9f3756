r"""SCS/NRCS curve-number runoff (TR-55 Chapter 2).

Equations (:func:`runoff_depth`, :func:`potential_retention`, :func:`initial_abstraction`,
:func:`composite_cn`, :func:`impervious_composite_cn`) take numbers only; the table lookup
:func:`curve_number` maps a stable cover key and a hydrologic soil group to a CN from the
shipped TR-55 Tables 2-2a to 2-2d, and never sees a rainfall depth.

Symbols
-------
==================  ==========  ======  ==============================================
API name            Symbol      Unit    Meaning
==================  ==========  ======  ==============================================
precip_in           P           in      rainfall depth
cn                  CN          -       runoff curve number, (0, 100]
ia_ratio            lambda      -       initial abstraction ratio Ia/S (0.2)
s_in                S           in      potential maximum retention after runoff begins
ia_in               Ia          in      initial abstraction
runoff_in           Q           in      direct runoff depth
area                A           any     sub-area weight of a composite CN
pervious_cn         CNp         -       CN of the pervious part of a composite area
impervious_pct      Pimp        %       total impervious share of the area, 0-100
unconnected_pct     100 R       %       unconnected share of the impervious area, 0-100
hsg                 HSG         -       hydrologic soil group A, B, C or D
==================  ==========  ======  ==============================================

References
----------
.. [1] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds,"
   Technical Release 55, 2nd ed., Washington, DC, USA, 1986.
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
from hydrocalc.errors import InputError, RangeWarning

__all__ = [
    "runoff_depth",
    "potential_retention",
    "initial_abstraction",
    "composite_cn",
    "impervious_composite_cn",
    "curve_number",
    "curve_number_table",
    "CN_TABLES",
    "IMPERVIOUS_CN",
]

#: CN of impervious area assumed by TR-55 Table 2-2a footnote 2 and Figs. 2-3, 2-4.
IMPERVIOUS_CN = 98.0
#: Fig. 2-4 (unconnected impervious area) applies only below this total impervious share
#: (TR-55 Chapter 2, "Unconnected impervious areas"). [%]
UNCONNECTED_LIMIT_PCT = 30.0
#: Shipped CN tables searched by :func:`curve_number`, in TR-55 order.
CN_TABLES = (
    "tr55_cn_urban",
    "tr55_cn_cultivated",
    "tr55_cn_other_agricultural",
    "tr55_cn_arid_rangeland",
)
_CONDITIONS = ("poor", "fair", "good")
_HSGS = ("A", "B", "C", "D")
_DUAL_HSGS = ("A/D", "B/D", "C/D")


def potential_retention(cn: npt.ArrayLike) -> FloatOrArray:
    r"""Potential maximum retention after runoff begins, TR-55 Eq. 2-4.

    Parameters
    ----------
    cn : numeric
        Runoff curve number in (0, 100]. [-]

    Returns
    -------
    s_in : numeric
        :math:`S = 1000 / CN - 10`. [in]

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Eq. 2-4.

    Examples
    --------
    >>> round(potential_retention(70), 2)      # TR-55 Example 2-1 prints 4.29 in
    4.29
    """
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    return like(1000.0 / cn_ - 10.0, cn)


def initial_abstraction(cn: npt.ArrayLike, *, ia_ratio: float = 0.2) -> FloatOrArray:
    r"""Initial abstraction :math:`I_a = \lambda S`, TR-55 Eq. 2-2 (Table 4-1) [in].

    Parameters
    ----------
    cn : numeric
        Runoff curve number in (0, 100]. [-]
    ia_ratio : float, default 0.2
        :math:`\lambda = I_a / S`; TR-55 uses 0.2. [-]

    Returns
    -------
    ia_in : numeric
        Initial abstraction. [in]

    Examples
    --------
    >>> round(initial_abstraction(40), 3)      # TR-55 Table 4-1 prints 3.000
    3.0
    """
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    ratio = as_float_array(ia_ratio, "ia_ratio", lower=0.0, upper=1.0)
    return like(ratio * (1000.0 / cn_ - 10.0), cn)


def runoff_depth(
    precip_in: npt.ArrayLike, cn: npt.ArrayLike, *, ia_ratio: float = 0.2
) -> FloatOrArray:
    r"""Direct runoff depth from the NRCS curve-number equation.

    Parameters
    ----------
    precip_in : numeric
        Storm rainfall depth, :math:`P`. [in]
    cn : numeric
        Runoff curve number, :math:`CN`, in (0, 100]. [-]
    ia_ratio : float, default 0.2
        Initial-abstraction ratio :math:`\lambda = I_a / S`. The curve numbers in
        TR-55 Tables 2-2a to 2-2d assume 0.2. [-]

    Returns
    -------
    runoff_in : numeric
        Direct runoff depth, :math:`Q`; zero where :math:`P \le I_a`. Same container
        as the inputs (float, ndarray or Series). [in]

    Raises
    ------
    InputError
        If ``precip_in`` is negative or NaN, or ``cn`` is outside (0, 100].

    Notes
    -----
    TR-55, Chapter 2, Eqs. 2-1 to 2-4 [1]_:

    .. math::

       S = \frac{1000}{CN} - 10, \qquad I_a = \lambda S, \qquad
       Q = \frac{(P - I_a)^2}{P - I_a + S} \quad \text{for } P > I_a

    References
    ----------
    .. [1] USDA Soil Conservation Service, "Urban Hydrology for Small
       Watersheds," Technical Release 55, 2nd ed., Washington, DC, USA, 1986.

    Examples
    --------
    >>> round(runoff_depth(3.0, 80), 2)      # TR-55 Table 2-1 prints 1.25 in
    1.25
    """
    p_in = as_float_array(precip_in, "precip_in", lower=0.0)
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    ratio = as_float_array(ia_ratio, "ia_ratio", lower=0.0, upper=1.0)
    return like(_runoff_whole(p_in, cn_, ratio), precip_in, cn)


def _runoff_whole(p_in: np.ndarray, cn_: np.ndarray, ratio: np.ndarray) -> np.ndarray:
    """TR-55 Eqs. 2-2 to 2-4 on whole (broadcast) arrays (validated inputs)."""
    s_in = 1000.0 / cn_ - 10.0  # Eq. 2-4
    ia_in = ratio * s_in  # Eq. 2-2 generalised to lambda
    excess_in = np.clip(p_in - ia_in, 0.0, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        # CN = 100 with P = 0 gives 0/0 here; np.where discards that branch.
        q_in = np.where(excess_in > 0.0, excess_in**2 / (excess_in + s_in), 0.0)  # Eq. 2-3
    return q_in


def composite_cn(cn: npt.ArrayLike, area: npt.ArrayLike) -> FloatOrArray:
    r"""Area-weighted (composite) curve number, TR-55 Chapter 2 / Worksheet 2.

    Parameters
    ----------
    cn : array_like
        Curve numbers of the sub-areas, each in (0, 100]. [-]
    area : array_like
        Sub-area sizes, each > 0, in any one consistent unit (acres, ft2, percent of the
        watershed ...); broadcast against ``cn``. [any]

    Returns
    -------
    cn : float or numpy.ndarray
        :math:`\sum CN_i A_i / \sum A_i`, **not rounded**. A 1-D input (list, ndarray or
        Series) gives a float; a 2-D input gives one composite per row (the weighting runs
        along the last axis). [-]

    Raises
    ------
    InputError
        If a ``cn`` is outside (0, 100] or an ``area`` is not > 0 (drop zero-area rows
        before weighting).

    Notes
    -----
    TR-55 Worksheet 2 [1]_ weights the CN of each cover/soil complex by its area and rounds
    the result to an integer before computing runoff. Rounding is left to the caller so that
    the worksheet's rounding stays visible (``round(composite_cn(...))``).

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 2 and Worksheet 2 (Example 2-1).

    Examples
    --------
    TR-55 Example 2-1: pasture in good condition, 75 ac of HSG B (CN 61) and 175 ac of
    HSG C (CN 74); the worksheet prints CN = 70.

    >>> round(composite_cn([61, 74], [75, 175]), 2)
    70.1
    """
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    area_ = as_float_array(
        area, "area", lower=0.0, lower_inclusive=False,
        hint="Drop zero-area sub-areas before weighting",
    )
    cn_b, area_b = np.broadcast_arrays(cn_, area_)
    if cn_b.ndim == 0:
        return float(cn_b)
    weighted = np.sum(cn_b * area_b, axis=-1) / np.sum(area_b, axis=-1)
    if np.ndim(weighted) == 0:
        return float(weighted)
    return weighted


def impervious_composite_cn(
    pervious_cn: npt.ArrayLike,
    impervious_pct: npt.ArrayLike,
    *,
    unconnected_pct: npt.ArrayLike = 0.0,
) -> FloatOrArray:
    r"""Composite CN of a pervious area with impervious cover, TR-55 Figs. 2-3 and 2-4.

    Parameters
    ----------
    pervious_cn : numeric
        CN of the pervious part, :math:`CN_p`, in (0, 100]. [-]
    impervious_pct : numeric
        Total impervious share of the area, :math:`P_{imp}`, in [0, 100]. [%]
    unconnected_pct : numeric, default 0
        Share of the *impervious* area that is unconnected (drains over pervious area before
        reaching the drainage system), :math:`100 R`, in [0, 100]. Only used where
        ``impervious_pct`` < 30 (Fig. 2-4). [%]

    Returns
    -------
    cn : numeric
        Composite curve number, not rounded. Same container as the inputs. [-]

    Raises
    ------
    InputError
        If ``pervious_cn`` is outside (0, 100] or a percentage is outside [0, 100].

    Warns
    -----
    RangeWarning
        Where ``unconnected_pct`` > 0 and ``impervious_pct`` >= 30: TR-55 uses Fig. 2-3
        (all impervious area treated as connected) there, and the unconnected share is
        ignored. The warning counts the values affected.
    UserWarning
        If every ``impervious_pct`` lies strictly between 0 and 1 (looks like a fraction;
        the argument expects percent, 0-100).

    Notes
    -----
    Impervious area has CN 98 (TR-55 Table 2-2a footnote 2). Fig. 2-3 (connected
    impervious area) plots

    .. math:: CN_c = CN_p + \frac{P_{imp}}{100} (98 - CN_p)

    and Fig. 2-4 (unconnected impervious area, total impervious area < 30 %) plots

    .. math:: CN_c = CN_p + \frac{P_{imp}}{100} (98 - CN_p) (1 - 0.5 R)

    with :math:`R` the ratio of unconnected to total impervious area [1]_. At 30 % or more
    impervious TR-55 directs the user to Fig. 2-3 because the absorptive capacity of the
    remaining pervious area no longer affects runoff significantly; this function applies
    that rule and emits a :class:`~hydrocalc.errors.RangeWarning` when it discards a
    non-zero ``unconnected_pct``.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 2, Figs. 2-3 and 2-4 and Examples 2-3,
       2-4.

    Examples
    --------
    Fig. 2-3 text example: pervious CN 61 with 20 % connected impervious area gives 68.

    >>> round(impervious_composite_cn(61, 20), 1)
    68.4

    Example 2-4: pervious CN 74, 25 % impervious, half of it unconnected (worksheet: 78).

    >>> impervious_composite_cn(74, 25, unconnected_pct=50)
    78.5
    """
    cnp = as_float_array(pervious_cn, "pervious_cn", lower=0.0, lower_inclusive=False,
                         upper=100.0)
    imp = as_float_array(impervious_pct, "impervious_pct", lower=0.0, upper=100.0)
    unc = as_float_array(unconnected_pct, "unconnected_pct", lower=0.0, upper=100.0)
    if imp.size and np.all((imp > 0.0) & (imp < 1.0)):
        warnings.warn(
            "impervious_pct looks like a fraction (every value is between 0 and 1); "
            "impervious_pct expects percent, 0-100",
            UserWarning,
            stacklevel=2,
        )
    cnp_b, imp_b, unc_b = np.broadcast_arrays(cnp, imp, unc)
    ignored = (imp_b >= UNCONNECTED_LIMIT_PCT) & (unc_b > 0.0)
    if ignored.any():
        warnings.warn(
            f"unconnected_pct ignored for {int(ignored.sum())} of {ignored.size} values with "
            f"impervious_pct >= {fmt_value(UNCONNECTED_LIMIT_PCT)}: TR-55 Fig. 2-4 applies "
            "only below 30 % impervious, so Fig. 2-3 (all impervious area connected) was used",
            RangeWarning,
            stacklevel=2,
        )
    r = np.where(imp_b < UNCONNECTED_LIMIT_PCT, unc_b / 100.0, 0.0)  # R, Fig. 2-4
    cnc = cnp_b + imp_b / 100.0 * (IMPERVIOUS_CN - cnp_b) * (1.0 - 0.5 * r)  # Figs. 2-3, 2-4
    return like(cnc, pervious_cn, impervious_pct, unconnected_pct)


# --------------------------------------------------------------------------------------
# Curve-number lookup (TR-55 Tables 2-2a to 2-2d)
# --------------------------------------------------------------------------------------


def _describe(row: pd.Series) -> str:
    parts = []
    for col in ("category", "cover_type", "treatment"):
        value = row.get(col)
        if isinstance(value, str) and value.strip():
            parts.append(value.strip())
    return "; ".join(parts)


@functools.cache
def cn_frame() -> pd.DataFrame:
    """Every row of the shipped TR-55 curve-number tables (Tables 2-2a to 2-2d) in one frame.

    With the table each row comes from (read once per process).
    """
    frames = []
    for name in CN_TABLES:
        table = data.load_table(name)
        info = data.table_info(name)
        cond = table["hydrologic_condition"] if "hydrologic_condition" in table else None
        frame = pd.DataFrame(
            {
                "key": table["key"].astype(str),
                "table": name,
                "location": info.get("location", ""),
                "description": table.apply(_describe, axis=1),
                "condition": (
                    cond.str.lower() if cond is not None else pd.Series([np.nan] * len(table))
                ),
                "cn_a": table["CN_A"].astype(float),
                "cn_b": table["CN_B"].astype(float),
                "cn_c": table["CN_C"].astype(float),
                "cn_d": table["CN_D"].astype(float),
                "note": table["note"] if "note" in table else "",
            }
        )
        frames.append(frame)
    out = pd.concat(frames, ignore_index=True)
    out["note"] = out["note"].fillna("")
    if out["key"].duplicated().any():  # guarded by tests; a data error, not user input
        dup = out.loc[out["key"].duplicated(), "key"].tolist()
        raise InputError(f"cover keys must be unique across {CN_TABLES}; duplicated: {dup}")
    return out


@functools.cache
def _cn_by_key() -> pd.DataFrame:
    return cn_frame().set_index("key", drop=False)


def curve_number_table() -> pd.DataFrame:
    """All cover keys of TR-55 Tables 2-2a to 2-2d with their CNs (a fresh copy).

    Returns
    -------
    pandas.DataFrame
        Columns ``key``, ``table`` (shipped table name), ``location`` (TR-55 table number),
        ``description`` (printed wording), ``condition`` (poor / fair / good or NaN),
        ``cn_a``, ``cn_b``, ``cn_c``, ``cn_d`` (NaN where the source cell is blank) and
        ``note``.

    Examples
    --------
    >>> t = curve_number_table()
    >>> t.loc[t.key == "open_space_good", ["cn_a", "cn_b", "cn_c", "cn_d"]].values.tolist()
    [[39.0, 61.0, 74.0, 80.0]]
    """
    return cn_frame().copy()


def _norm_key(value) -> str:
    return str(value).strip().lower().replace("-", "_").replace(" ", "_")


def _where(index: int | None) -> str:
    return "" if index is None else f" at index {index}"


def _resolve_cover(cover, condition, index: int | None) -> pd.Series:
    frame = cn_frame()
    by_key = _cn_by_key()
    key = _norm_key(cover)
    cond = None
    if condition is not None and not (isinstance(condition, float) and np.isnan(condition)):
        cond = str(condition).strip().lower()
        if cond not in _CONDITIONS:
            raise InputError(
                f"condition must be one of 'poor', 'fair', 'good' or None; got "
                f"{condition!r}{_where(index)}{suggest(cond, _CONDITIONS)}"
            )
    if key in by_key.index:
        row = by_key.loc[key]
        row_cond = row["condition"] if isinstance(row["condition"], str) else None
        if cond is not None and cond != row_cond:
            base = key[: -len(row_cond) - 1] if row_cond else key
            if row_cond is None:
                raise InputError(
                    f"condition must be None for cover {key!r}{_where(index)} (TR-55 "
                    f"{row['location']} gives it no hydrologic condition); got {condition!r}"
                )
            raise InputError(
                f"condition must agree with cover {key!r}{_where(index)}; got {condition!r}. "
                f"Pass cover={base!r} with condition={condition!r}, or the full key"
            )
        return row
    if cond is not None and f"{key}_{cond}" in by_key.index:
        return by_key.loc[f"{key}_{cond}"]
    variants = [c for c in _CONDITIONS if f"{key}_{c}" in by_key.index]
    if variants:
        options = ", ".join(repr(c) for c in variants)
        if cond is None:
            raise InputError(
                f"condition must be given for cover {key!r}{_where(index)}; got None. "
                f"Pass condition= one of {options} (or a full key such as "
                f"'{key}_{variants[-1]}')"
            )
        raise InputError(
            f"condition must be one of {options} for cover {key!r}{_where(index)}; got "
            f"{condition!r}"
        )
    keys = frame["key"].tolist()
    hint = suggest(key, keys)
    close = [k for k in keys if f"'{k}'" in hint]
    if close:
        table = frame.loc[frame.key == close[0], "table"].iloc[0]
        where = f" in table {table}"
        listing = f"hydrocalc tables show {table}"
    else:
        where = ""
        listing = "hydrocalc cn --list"
    raise InputError(
        f"unknown cover {str(cover)!r}{_where(index)}{where}{hint or '.'} "
        f"List all with: {listing}"
    )


def _resolve_hsg(hsg, drained, index: int | None) -> str:
    group = str(hsg).strip().upper().replace(" ", "")
    if group in _HSGS:
        return group
    if group in _DUAL_HSGS:
        if drained is None:
            raise InputError(
                f"hsg must be A, B, C or D; got {str(hsg)!r}{_where(index)}, a dual group: "
                f"TR-55 Chapter 2 gives the first letter to drained and the second to "
                f"undrained soil. Pass drained=True (-> {group[0]}) or drained=False (-> D)"
            )
        return group[0] if drained else "D"
    raise InputError(
        f"hsg must be A, B, C or D; got {str(hsg)!r}{_where(index)}"
        f"{suggest(group, _HSGS + _DUAL_HSGS)}"
    )


def _lookup(cover, hsg, condition, drained, index: int | None) -> float:
    row = _resolve_cover(cover, condition, index)
    group = _resolve_hsg(hsg, drained, index)
    value = float(row[f"cn_{group.lower()}"])
    if np.isnan(value):
        have = [g for g in _HSGS if not np.isnan(float(row[f"cn_{g.lower()}"]))]
        why = f" ({row['note']})" if row["note"] else ""
        if not have:
            raise InputError(
                f"cover must be a key with tabulated curve numbers; got {row['key']!r}"
                f"{_where(index)}. TR-55 {row['location']} gives it none{why}: use a cover "
                "key of Table 2-2c such as 'pasture_good', 'meadow' or 'brush_good'"
            )
        raise InputError(
            f"hsg must be one of {', '.join(have)} for cover {row['key']!r}; got {group!r}"
            f"{_where(index)}. TR-55 {row['location']} leaves the CN_{group} cell blank{why}"
        )
    return value


def curve_number(
    cover,
    hsg,
    *,
    condition: str | None = None,
    drained: bool | None = None,
) -> FloatOrArray:
    """Runoff curve number from TR-55 Tables 2-2a to 2-2d by a stable cover key.

    Parameters
    ----------
    cover : str or array_like of str
        Cover key, e.g. ``"open_space_good"``, ``"impervious_paved_parking_roofs"``,
        ``"residential_1_2_acre"``, ``"woods_good"``, ``"pasture_good"``, ``"meadow"``,
        ``"row_crops_straight_row_good"``. Keys are unique across the four tables (see
        :func:`curve_number_table` or ``hydrocalc cn --list``); case, spaces and hyphens
        are normalised. A key without its condition suffix (``"woods"``) is combined with
        ``condition``.
    hsg : str or array_like of str
        Hydrologic soil group ``"A"``, ``"B"``, ``"C"`` or ``"D"`` (case-insensitive). Dual
        groups ``"A/D"``, ``"B/D"``, ``"C/D"`` need ``drained``.
    condition : {"poor", "fair", "good"} or None, optional
        Hydrologic condition, for a ``cover`` given without it. Must agree with the key
        when the key already names a condition.
    drained : bool or None, optional
        Only for dual groups: TR-55 Chapter 2 assigns the first letter to the drained and
        the second (D) to the undrained condition. ``True`` -> A/B/C, ``False`` -> D.

    Returns
    -------
    cn : float, numpy.ndarray or pandas.Series
        Tabulated curve number (average runoff condition, Ia = 0.2 S). Broadcasts over
        ``cover``, ``hsg`` and ``condition``; a Series input gives a Series. [-]

    Raises
    ------
    InputError
        Unknown cover key (the message suggests close matches and the
        ``hydrocalc tables show`` command listing them); an ``hsg`` other than A-D; a dual
        group without ``drained``; a missing or contradictory ``condition``; or a blank
        cell in the source table (e.g. HSG A of the Table 2-2d covers other than desert
        shrub, and "idle lands", which TR-55 refers to Table 2-2c).

    Notes
    -----
    The values are TR-55 (1986) Tables 2-2a (urban), 2-2b (cultivated agricultural),
    2-2c (other agricultural) and 2-2d (arid and semiarid rangelands) [1]_, shipped as
    ``tr55_cn_*`` with a stable ``key`` column. Urban composite CNs in Table 2-2a assume
    directly connected impervious area with CN 98 and pervious area equivalent to open
    space in good condition; use :func:`impervious_composite_cn` for other combinations.
    Table 2-2c footnote 4 (actual CN < 30 for woods and brush in good condition on HSG A;
    use 30) is already applied in the table.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Tables 2-2a to 2-2d.

    Examples
    --------
    >>> curve_number("open_space_good", "C")        # TR-55 Table 2-2a
    74.0
    >>> curve_number("pasture", "B", condition="good")   # Table 2-2c (Example 2-1)
    61.0
    >>> curve_number("woods_good", "C/D", drained=False)
    77.0
    """
    scalar = all(isinstance(v, str) or v is None for v in (cover, hsg, condition))
    if scalar:
        return _lookup(cover, hsg, condition, drained, None)

    def _objects(value):
        if isinstance(value, pd.Series):
            value = value.to_numpy()
        if value is None or isinstance(value, str):
            return np.array(value, dtype=object)
        return np.array(list(value), dtype=object)

    try:
        arrays = np.broadcast_arrays(_objects(cover), _objects(hsg), _objects(condition))
    except ValueError:
        raise InputError(
            f"cover, hsg and condition must broadcast to one shape; got lengths "
            f"{np.shape(_objects(cover))}, {np.shape(_objects(hsg))} and "
            f"{np.shape(_objects(condition))}"
        ) from None
    covers, hsgs, conds = (a.ravel() for a in arrays)
    cache: dict = {}
    out = np.empty(covers.size, dtype=float)
    for i, args in enumerate(zip(covers, hsgs, conds, strict=False)):
        if args not in cache:
            cache[args] = _lookup(args[0], args[1], args[2], drained, i)
        out[i] = cache[args]
    return like(out.reshape(arrays[0].shape), cover, hsg, condition)
