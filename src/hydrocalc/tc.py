r"""Travel time and time of concentration (TR-55 Chapter 3).

One function per flow regime, each a vectorized equation of explicit numbers:
:func:`sheet_flow_time` (Eq. 3-3), :func:`shallow_concentrated_flow_time` (Fig. 3-1 /
Appendix F) and :func:`channel_flow_time` (Manning, Eqs. 3-4 and 3-1). The dispatcher
:func:`time_of_concentration` only routes a flow path's segments to them and sums
(Eq. 3-2); :func:`segment_travel_times` is the same computation returning plain rows (no
DataFrame, for the site loader). :func:`sheet_flow_n` looks up Manning's n for sheet flow
(Table 3-1) by key.

Symbols
-------
====================  ======  ======  ==============================================
API name              Symbol  Unit    Meaning
====================  ======  ======  ==============================================
length_ft             L       ft      flow length of the segment
slope_ftft            s       ft/ft   slope of the hydraulic grade line (land slope)
n                     n       -       Manning's roughness coefficient
p2_in                 P2      in      2-year, 24-hour rainfall depth
area_ft2              a       ft2     cross-sectional flow area (channel)
wetted_perimeter_ft   pw      ft      wetted perimeter (channel)
hydraulic_radius_ft   r       ft      a / pw
velocity_fps          V       ft/s    average velocity
travel_time_hr        Tt      h       travel time of a segment
tc_hr                 Tc      h       time of concentration, the sum of Tt
====================  ======  ======  ==============================================

References
----------
.. [1] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds,"
   Technical Release 55, 2nd ed., Washington, DC, USA, 1986, Chapter 3 and Appendix F.
.. [2] USDA NRCS, "National Engineering Handbook Part 630 Hydrology, Chapter 15: Time of
   Concentration," 210-VI-NEH, Washington, DC, USA, 2010.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from hydrocalc import data
from hydrocalc._typing import FloatOrArray
from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.errors import InputError, OutOfRangeError
from hydrocalc.units import MANNING_KU, S_PER_HR

__all__ = [
    "sheet_flow_time",
    "shallow_concentrated_flow_velocity",
    "shallow_concentrated_flow_time",
    "channel_flow_velocity",
    "channel_flow_time",
    "time_of_concentration",
    "segment_travel_times",
    "sheet_flow_n",
    "SHEET_FLOW_N_KEYS",
    "SHEET_FLOW_LIMIT_FT",
    "SHEET_FLOW_LIMIT_TR55_1986_FT",
]

#: Coefficient of the kinematic sheet-flow equation, TR-55 Eq. 3-3 (ft, in, h).
SHEET_FLOW_COEFF = 0.007
#: Default sheet-flow length limit, NEH 630 Ch. 15 (2010). [ft]
SHEET_FLOW_LIMIT_FT = 100.0
#: Sheet-flow length limit of TR-55 (1986), Chapter 3 and Worksheet 3. [ft]
SHEET_FLOW_LIMIT_TR55_1986_FT = 300.0
#: Manning's equation constant in US customary units, TR-55 Eq. 3-4: the package's one value
#: (:data:`hydrocalc.units.MANNING_KU`). [ft^(1/3)/s]
MANNING_K_US = MANNING_KU
#: Shallow concentrated flow, V = k s^0.5, TR-55 Appendix F (equations behind Fig. 3-1).
SHALLOW_K_FPS = {"unpaved": 16.1345, "paved": 20.3282}

#: Stable keys of TR-55 Table 3-1 rows (value: the printed surface description).
SHEET_FLOW_N_KEYS = {
    "smooth": "Smooth surfaces (concrete, asphalt, gravel, or bare soil)",
    "fallow": "Fallow (no residue)",
    "cultivated_residue_le_20": "Cultivated soils: residue cover <= 20%",
    "cultivated_residue_gt_20": "Cultivated soils: residue cover > 20%",
    "grass_short_prairie": "Grass: short grass prairie",
    "grass_dense": "Grass: dense grasses",
    "grass_bermuda": "Grass: Bermudagrass",
    "range_natural": "Range (natural)",
    "woods_light_underbrush": "Woods: light underbrush",
    "woods_dense_underbrush": "Woods: dense underbrush",
}


def _positive(value, name: str) -> np.ndarray:
    return as_float_array(value, name, lower=0.0, lower_inclusive=False)


def sheet_flow_time(
    length_ft: npt.ArrayLike,
    slope_ftft: npt.ArrayLike,
    n: npt.ArrayLike,
    p2_in: npt.ArrayLike,
    *,
    max_length_ft: float = SHEET_FLOW_LIMIT_FT,
) -> FloatOrArray:
    r"""Sheet-flow travel time, TR-55 Eq. 3-3 (Manning kinematic solution).

    Parameters
    ----------
    length_ft : numeric
        Sheet-flow length, > 0 and <= ``max_length_ft``. [ft]
    slope_ftft : numeric
        Land slope, > 0. [ft/ft]
    n : numeric
        Manning's roughness coefficient for sheet flow, > 0 (TR-55 Table 3-1; see
        :func:`sheet_flow_n`). [-]
    p2_in : numeric
        2-year, 24-hour rainfall depth, > 0. [in]
    max_length_ft : float, default 100
        Longest sheet-flow length accepted. NRCS guidance (NEH 630 Ch. 15, 2010) limits
        sheet flow to 100 ft; TR-55 (1986) allowed 300 ft
        (:data:`SHEET_FLOW_LIMIT_TR55_1986_FT`). Change it deliberately. [ft]

    Returns
    -------
    travel_time_hr : numeric
        Travel time :math:`T_t`. Same container as the inputs. [h]

    Raises
    ------
    InputError
        If a length, slope, n or P2 is not > 0 (or NaN).
    OutOfRangeError
        If ``length_ft`` exceeds ``max_length_ft``; the message names the limit, its source
        and the keyword.

    Notes
    -----
    TR-55 Eq. 3-3 [1]_, valid in these units only (L ft, P2 in, s ft/ft):

    .. math:: T_t = \frac{0.007 (n L)^{0.8}}{P_2^{0.5} s^{0.4}}

    The 1986 worksheet limited L to 300 ft; NEH 630 Ch. 15 [2]_ reduced the limit to
    100 ft (and discusses the McCuen-Spiess criterion :math:`L \le 100 \sqrt{s} / n`,
    Table 15-2). Longer overland reaches are shallow concentrated flow.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eq. 3-3 and Table 3-1.
    .. [2] USDA NRCS, NEH Part 630, Chapter 15, 2010.

    Examples
    --------
    TR-55 Example 3-1, segment AB (dense grass, 100 ft, s = 0.01, P2 = 3.6 in): 0.30 h.

    >>> round(sheet_flow_time(100, 0.01, 0.24, 3.6), 2)
    0.3
    """
    length = _positive(length_ft, "length_ft")
    slope = _positive(slope_ftft, "slope_ftft")
    n_ = _positive(n, "n")
    p2 = _positive(p2_in, "p2_in")
    limit = float(_positive(max_length_ft, "max_length_ft"))
    too_long = length > limit
    if too_long.any():
        flat = np.ravel(too_long)
        first = int(np.flatnonzero(flat)[0])
        where = "" if length.ndim == 0 else (
            f" at index {first} ({int(flat.sum())} of {flat.size} values invalid)"
        )
        raise OutOfRangeError(
            f"length_ft must be <= max_length_ft = {fmt_value(limit)} ft (sheet-flow limit: "
            f"NEH 630 Ch. 15 (2010) uses 100 ft, TR-55 (1986) allowed 300 ft); got "
            f"{fmt_value(np.ravel(length)[first])}{where}. Route the remainder as shallow "
            "concentrated flow, or pass max_length_ft= to change the limit deliberately"
        )
    tt = SHEET_FLOW_COEFF * (n_ * length) ** 0.8 / (p2**0.5 * slope**0.4)  # Eq. 3-3
    return like(tt, length_ft, slope_ftft, n, p2_in)


def _surface_k(surface) -> np.ndarray:
    """Map surface name(s) to the Appendix F coefficient (broadcastable array)."""
    if isinstance(surface, pd.Series):
        surface = surface.to_numpy()
    values = np.array(surface, dtype=object)
    out = np.empty(values.shape, dtype=float)
    for idx, value in np.ndenumerate(values):
        key = str(value).strip().lower()
        if key not in SHALLOW_K_FPS:
            where = "" if values.ndim == 0 else f" at index {idx[0] if len(idx) == 1 else idx}"
            raise InputError(
                f"surface must be 'unpaved' or 'paved'; got {value!r}{where}"
                f"{suggest(key, SHALLOW_K_FPS)}"
            )
        out[idx] = SHALLOW_K_FPS[key]
    return out


def shallow_concentrated_flow_velocity(
    slope_ftft: npt.ArrayLike, *, surface="unpaved"
) -> FloatOrArray:
    r"""Average velocity of shallow concentrated flow, TR-55 Fig. 3-1 / Appendix F.

    Parameters
    ----------
    slope_ftft : numeric
        Watercourse slope, > 0. [ft/ft]
    surface : {"unpaved", "paved"} or array_like of them, default "unpaved"
        Surface type of Fig. 3-1. [-]

    Returns
    -------
    velocity_fps : numeric
        :math:`V = 16.1345 \sqrt{s}` (unpaved) or :math:`20.3282 \sqrt{s}` (paved). [ft/s]

    Raises
    ------
    InputError
        If a slope is not > 0, or ``surface`` is not "unpaved"/"paved".

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Fig. 3-1 and Appendix F.

    Examples
    --------
    >>> round(shallow_concentrated_flow_velocity(0.01), 3)   # Fig. 3-1, unpaved, s = 1 %
    1.613
    """
    slope = _positive(slope_ftft, "slope_ftft")
    k = _surface_k(surface)
    return like(k * np.sqrt(slope), slope_ftft)  # Appendix F


def shallow_concentrated_flow_time(
    length_ft: npt.ArrayLike, slope_ftft: npt.ArrayLike, *, surface="unpaved"
) -> FloatOrArray:
    r"""Travel time of shallow concentrated flow, TR-55 Eq. 3-1 with Fig. 3-1 velocity.

    Parameters
    ----------
    length_ft : numeric
        Flow length, > 0. [ft]
    slope_ftft : numeric
        Watercourse slope, > 0. [ft/ft]
    surface : {"unpaved", "paved"} or array_like of them, default "unpaved"
        Surface type of Fig. 3-1. [-]

    Returns
    -------
    travel_time_hr : numeric
        :math:`T_t = L / (3600 V)`, :math:`V = k \sqrt{s}` (Appendix F: k = 16.1345 ft/s
        unpaved, 20.3282 ft/s paved). Same container as the inputs. [h]

    Raises
    ------
    InputError
        If a length or slope is not > 0, or ``surface`` is not "unpaved"/"paved".

    Notes
    -----
    TR-55 Eq. 3-1 [1]_: :math:`T_t = L / (3600 V)`. Fig. 3-1 plots the velocity equations of
    Appendix F, which are used here instead of reading the figure.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eq. 3-1, Fig. 3-1 and Appendix F.

    Examples
    --------
    TR-55 Example 3-1, segment BC (unpaved, 1400 ft, s = 0.01): 0.24 h.

    >>> round(shallow_concentrated_flow_time(1400, 0.01), 2)
    0.24
    """
    length = _positive(length_ft, "length_ft")
    slope = _positive(slope_ftft, "slope_ftft")
    velocity = _surface_k(surface) * np.sqrt(slope)  # Appendix F
    return like(length / (S_PER_HR * velocity), length_ft, slope_ftft)  # Eq. 3-1


def channel_flow_velocity(
    slope_ftft: npt.ArrayLike,
    n: npt.ArrayLike,
    area_ft2: npt.ArrayLike,
    wetted_perimeter_ft: npt.ArrayLike,
) -> FloatOrArray:
    r"""Average channel velocity by Manning's equation, TR-55 Eqs. 3-4 and 3-5.

    Parameters
    ----------
    slope_ftft : numeric
        Slope of the hydraulic grade line, > 0. [ft/ft]
    n : numeric
        Manning's roughness coefficient, > 0. [-]
    area_ft2 : numeric
        Cross-sectional flow area, > 0 (usually at bankfull). [ft2]
    wetted_perimeter_ft : numeric
        Wetted perimeter, > 0. [ft]

    Returns
    -------
    velocity_fps : numeric
        :math:`V = 1.49 r^{2/3} s^{1/2} / n` with :math:`r = a / p_w`. [ft/s]

    Raises
    ------
    InputError
        If any argument is not > 0.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eqs. 3-4 and 3-5.

    Examples
    --------
    >>> round(channel_flow_velocity(0.005, 0.05, 27.0, 28.2), 2)
    2.05
    """
    slope = _positive(slope_ftft, "slope_ftft")
    n_ = _positive(n, "n")
    area = _positive(area_ft2, "area_ft2")
    pw = _positive(wetted_perimeter_ft, "wetted_perimeter_ft")
    r = area / pw  # Eq. 3-5
    velocity = MANNING_K_US * r ** (2.0 / 3.0) * slope**0.5 / n_  # Eq. 3-4
    return like(velocity, slope_ftft, n, area_ft2, wetted_perimeter_ft)


def channel_flow_time(
    length_ft: npt.ArrayLike,
    slope_ftft: npt.ArrayLike,
    n: npt.ArrayLike,
    area_ft2: npt.ArrayLike,
    wetted_perimeter_ft: npt.ArrayLike,
) -> FloatOrArray:
    r"""Open-channel travel time, TR-55 Eq. 3-1 with the Manning velocity of Eq. 3-4.

    Parameters
    ----------
    length_ft : numeric
        Channel flow length, > 0. [ft]
    slope_ftft : numeric
        Slope of the hydraulic grade line (channel slope), > 0. [ft/ft]
    n : numeric
        Manning's roughness coefficient, > 0. [-]
    area_ft2 : numeric
        Cross-sectional flow area, > 0. [ft2]
    wetted_perimeter_ft : numeric
        Wetted perimeter, > 0. [ft]

    Returns
    -------
    travel_time_hr : numeric
        :math:`T_t = L / (3600 V)`. Same container as the inputs. [h]

    Raises
    ------
    InputError
        If any argument is not > 0.

    Notes
    -----
    TR-55 Eqs. 3-4 and 3-5 [1]_:

    .. math::

       V = \frac{1.49\, r^{2/3} s^{1/2}}{n}, \qquad r = \frac{a}{p_w}, \qquad
       T_t = \frac{L}{3600 V}

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eqs. 3-1, 3-4 and 3-5.

    Examples
    --------
    TR-55 Example 3-1, segment CD (n = 0.05, a = 27 ft2, pw = 28.2 ft, 7300 ft,
    s = 0.005): 0.99 h.

    >>> round(channel_flow_time(7300, 0.005, 0.05, 27.0, 28.2), 2)
    0.99
    """
    length = _positive(length_ft, "length_ft")
    velocity = np.asarray(channel_flow_velocity(slope_ftft, n, area_ft2, wetted_perimeter_ft))
    tt = length / (S_PER_HR * velocity)  # Eq. 3-1
    return like(tt, length_ft, slope_ftft, n, area_ft2, wetted_perimeter_ft)


@functools.cache
def _sheet_flow_n_by_description() -> dict[str, float]:
    """Table 3-1 as ``{surface description: n}``, read once per process."""
    table = data.load_table("tr55_sheet_flow_n")
    return dict(zip(table["surface_description"], table["manning_n"].astype(float), strict=False))


def sheet_flow_n(surface) -> FloatOrArray:
    """Manning's n for sheet flow from TR-55 Table 3-1 by a stable key.

    Parameters
    ----------
    surface : str or array_like of str
        One of :data:`SHEET_FLOW_N_KEYS`: ``"smooth"``, ``"fallow"``,
        ``"cultivated_residue_le_20"``, ``"cultivated_residue_gt_20"``,
        ``"grass_short_prairie"``, ``"grass_dense"``, ``"grass_bermuda"``,
        ``"range_natural"``, ``"woods_light_underbrush"``, ``"woods_dense_underbrush"``.

    Returns
    -------
    n : float or numpy.ndarray
        Manning's n as printed in Table 3-1 (shipped table ``tr55_sheet_flow_n``). [-]

    Raises
    ------
    InputError
        For an unknown key (the message suggests close matches).

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Table 3-1.

    Examples
    --------
    >>> sheet_flow_n("grass_dense")
    0.24
    """
    table = _sheet_flow_n_by_description()
    values = np.array(surface.to_numpy() if isinstance(surface, pd.Series) else surface,
                      dtype=object)
    out = np.empty(values.shape, dtype=float)
    for idx, value in np.ndenumerate(values):
        key = str(value).strip().lower().replace(" ", "_").replace("-", "_")
        if key not in SHEET_FLOW_N_KEYS:
            raise InputError(
                f"unknown sheet-flow surface {value!r} in table tr55_sheet_flow_n"
                f"{suggest(key, SHEET_FLOW_N_KEYS) or '.'} Valid: "
                f"{', '.join(SHEET_FLOW_N_KEYS)}"
            )
        out[idx] = float(table[SHEET_FLOW_N_KEYS[key]])
    return like(out, surface)


# --------------------------------------------------------------------------------------
# Time of concentration: a dispatcher over the segment functions
# --------------------------------------------------------------------------------------

_KIND_ALIASES = {
    "sheet": "sheet",
    "shallow": "shallow",
    "shallow_concentrated": "shallow",
    "channel": "channel",
}
_SEGMENT_ARGS = {
    "sheet": (("length_ft", "slope_ftft", "n", "p2_in"), ("max_length_ft", "surface")),
    "shallow": (("length_ft", "slope_ftft"), ("surface",)),
    "channel": (("length_ft", "slope_ftft", "n", "area_ft2", "wetted_perimeter_ft"), ()),
}
_TABLE_COLUMNS = [
    "segment", "name", "kind", "length_ft", "slope_ftft", "n", "p2_in", "surface",
    "area_ft2", "wetted_perimeter_ft", "hydraulic_radius_ft", "velocity_fps",
    "travel_time_hr",
]


def _segment_rows(segments) -> list[dict]:
    if isinstance(segments, pd.DataFrame):
        rows = []
        for record in segments.to_dict(orient="records"):
            rows.append({k: v for k, v in record.items()
                         if not (isinstance(v, float) and np.isnan(v))})
        return rows
    if isinstance(segments, Mapping) or isinstance(segments, str):
        raise InputError(
            "segments must be a list of mappings (one per segment, each with a 'kind'); got "
            f"a single {type(segments).__name__}. Wrap it in a list"
        )
    if not isinstance(segments, Iterable):
        raise InputError(
            f"segments must be a list of mappings; got {type(segments).__name__}"
        )
    rows = []
    for i, seg in enumerate(segments):
        if not isinstance(seg, Mapping):
            raise InputError(
                f"segments[{i}] must be a mapping with a 'kind' and its arguments; got "
                f"{type(seg).__name__}"
            )
        rows.append(dict(seg))
    return rows


def _scalar(value, name: str, prefix: str) -> float:
    arr = np.asarray(value.to_numpy() if isinstance(value, pd.Series) else value)
    if arr.ndim != 0:
        raise InputError(
            f"{prefix}{name} must be a single number per segment; got shape {arr.shape}. "
            "Call the segment functions directly to vectorize over many flow paths"
        )
    return value


def time_of_concentration(segments) -> tuple[float, pd.DataFrame]:
    r"""Time of concentration of one flow path, TR-55 Eq. 3-2, and its per-segment table.

    Parameters
    ----------
    segments : list of mappings or pandas.DataFrame
        The flow path from the hydraulically most distant point to the outlet, in order.
        Each segment is a mapping with ``"kind"`` and that kind's arguments (scalars):

        - ``"sheet"``: ``length_ft``, ``slope_ftft``, ``n``, ``p2_in`` [, ``max_length_ft``]
          (:func:`sheet_flow_time`); instead of a number, ``n`` may be a Table 3-1 key such
          as ``"grass_dense"`` (:func:`sheet_flow_n`), also accepted as ``surface``;
        - ``"shallow"`` (or ``"shallow_concentrated"``): ``length_ft``, ``slope_ftft``
          [, ``surface``] (:func:`shallow_concentrated_flow_time`);
        - ``"channel"``: ``length_ft``, ``slope_ftft``, ``n``, ``area_ft2``,
          ``wetted_perimeter_ft`` (:func:`channel_flow_time`).

        An optional ``"name"`` labels the segment (e.g. ``"AB"``). A DataFrame is read row by
        row with NaN cells treated as absent.

    Returns
    -------
    tc_hr : float
        Time of concentration, the sum of the segment travel times. [h]
    table : pandas.DataFrame
        One row per segment: ``segment`` (0-based position), ``name``, ``kind``, the inputs
        (``length_ft``, ``slope_ftft``, ``n``, ``p2_in``, ``surface``, ``area_ft2``,
        ``wetted_perimeter_ft``; NaN/None where not applicable), ``hydraulic_radius_ft``,
        ``velocity_fps`` (L / 3600 Tt) and ``travel_time_hr``.

    Raises
    ------
    InputError
        If ``segments`` is empty or not a list of mappings, a kind is unknown, an argument
        is missing, unknown or invalid (the message starts with ``segments[i] (kind):``).
    OutOfRangeError
        If a sheet-flow length exceeds its ``max_length_ft``.

    Notes
    -----
    TR-55 Eq. 3-2 [1]_: :math:`T_c = T_{t1} + T_{t2} + \dots + T_{tm}`. Travel times are
    summed unrounded; TR-55 Worksheet 3 rounds each to 0.01 h before summing, which can
    change the last digit.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eq. 3-2 and Worksheet 3.

    Examples
    --------
    TR-55 Example 3-1 (printed Tc = 1.53 h):

    >>> tc, table = time_of_concentration([
    ...     {"kind": "sheet", "name": "AB", "length_ft": 100, "slope_ftft": 0.01,
    ...      "n": 0.24, "p2_in": 3.6},
    ...     {"kind": "shallow", "name": "BC", "length_ft": 1400, "slope_ftft": 0.01},
    ...     {"kind": "channel", "name": "CD", "length_ft": 7300, "slope_ftft": 0.005,
    ...      "n": 0.05, "area_ft2": 27, "wetted_perimeter_ft": 28.2},
    ... ])
    >>> round(tc, 2)
    1.53
    >>> table.travel_time_hr.round(2).tolist()
    [0.3, 0.24, 0.99]
    """
    total, records = segment_travel_times(segments)
    return total, pd.DataFrame.from_records(records, columns=_TABLE_COLUMNS)


def segment_travel_times(segments) -> tuple[float, list[dict]]:
    """Time of concentration of one flow path and its segments as plain rows (no pandas).

    The computation of :func:`time_of_concentration` (TR-55 Eqs. 3-1 to 3-4, summed by
    Eq. 3-2) with the per-segment table returned as a list of dicts, for callers that
    handle many flow paths (the site loader) and need no DataFrame per path.

    Parameters
    ----------
    segments : list of mappings or pandas.DataFrame
        As for :func:`time_of_concentration`.

    Returns
    -------
    tc_hr : float
        Sum of the segment travel times. [h]
    rows : list of dict
        One dict per segment with the keys of :func:`time_of_concentration`'s table
        (``segment``, ``name``, ``kind``, the inputs, ``hydraulic_radius_ft``,
        ``velocity_fps``, ``travel_time_hr``).

    Raises
    ------
    InputError, OutOfRangeError
        As for :func:`time_of_concentration`.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Chapter 3, Eqs. 3-1 to 3-4.

    Examples
    --------
    >>> tc_hr, rows = segment_travel_times([
    ...     {"kind": "shallow", "length_ft": 1400, "slope_ftft": 0.01}])
    >>> round(tc_hr, 2), round(rows[0]["velocity_fps"], 2)
    (0.24, 1.61)
    """
    rows = _segment_rows(segments)
    if not rows:
        raise InputError("segments must contain at least one segment; got none")
    records = []
    for i, seg in enumerate(rows):
        raw_kind = seg.get("kind")
        if raw_kind is None:
            raise InputError(
                f"segments[{i}] must have a 'kind' ('sheet', 'shallow' or 'channel'); "
                f"got keys {sorted(seg)}"
            )
        kind_key = str(raw_kind).strip().lower().replace(" ", "_")
        if kind_key not in _KIND_ALIASES:
            raise InputError(
                f"segments[{i}] kind must be 'sheet', 'shallow' or 'channel'; got "
                f"{raw_kind!r}{suggest(kind_key, _KIND_ALIASES)}"
            )
        kind = _KIND_ALIASES[kind_key]
        prefix = f"segments[{i}] ({kind}): "
        required, optional = _SEGMENT_ARGS[kind]
        allowed = set(required) | set(optional) | {"kind", "name"}
        unknown = sorted(set(seg) - allowed)
        if unknown:
            raise InputError(
                f"{prefix}unknown argument {unknown[0]!r}{suggest(unknown[0], allowed)} "
                f"Valid: {', '.join(sorted(allowed))}"
            )
        if kind == "sheet" and "surface" in seg:
            if "n" in seg:
                raise InputError(
                    f"{prefix}give either n or surface (a Table 3-1 key), not both; got "
                    f"n={seg['n']!r} and surface={seg['surface']!r}"
                )
            seg = {**seg, "n": seg["surface"]}
            del seg["surface"]
        missing = [k for k in required if k not in seg]
        if missing:
            raise InputError(
                f"{prefix}{missing[0]} is required; got only {sorted(seg)}"
            )
        args = {k: seg[k] for k in required + optional if k in seg}
        for k, v in args.items():
            if k != "surface" and not (k == "n" and isinstance(v, str)):
                _scalar(v, k, prefix)
        row: dict[str, Any] = {c: np.nan for c in _TABLE_COLUMNS}
        row.update(segment=i, name=str(seg.get("name", "")), kind=kind, surface=None)
        try:
            with np.errstate(over="ignore", divide="ignore", under="ignore"):
                if kind == "sheet":
                    if isinstance(args["n"], str):
                        args["n"] = sheet_flow_n(args["n"])
                    tt = sheet_flow_time(**args)
                elif kind == "shallow":
                    args.setdefault("surface", "unpaved")
                    tt = shallow_concentrated_flow_time(**args)
                else:
                    tt = channel_flow_time(**args)
        except InputError as exc:
            raise type(exc)(f"{prefix}{exc}") from None
        if not (np.isfinite(tt) and tt > 0):
            raise InputError(
                f"{prefix}travel_time_hr must be finite and > 0; got {fmt_value(float(tt))} "
                f"from length_ft = {fmt_value(float(args['length_ft']))} and slope_ftft = "
                f"{fmt_value(float(args['slope_ftft']))}. Check them for a unit slip"
            )
        for k, v in args.items():
            if k in row:
                row[k] = v if k == "surface" else float(v)
        if kind == "channel":
            row["hydraulic_radius_ft"] = float(args["area_ft2"]) / float(
                args["wetted_perimeter_ft"]
            )
        row["travel_time_hr"] = float(tt)
        row["velocity_fps"] = float(args["length_ft"]) / (S_PER_HR * float(tt))
        records.append(row)
    return float(sum(r["travel_time_hr"] for r in records)), records
