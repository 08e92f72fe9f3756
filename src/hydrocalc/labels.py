"""Readable labels and display formats of unit-suffixed names (``peak_cfs`` -> ``Peak [cfs]``).

The unit-suffix vocabulary of ``docs/nomenclature.md`` (:mod:`hydrocalc.units`) turned into
column headers and display decimals, and the one rule that rounds a number for display. Used
by the notebook displays (:mod:`hydrocalc.display`) and the report tables
(:mod:`hydrocalc.report.tables`), so both show the same labels and the same digits. Numbers
are rounded for display only; every machine-readable output keeps full precision.
"""

from __future__ import annotations

import datetime as _dt
import math

import numpy as np
import pandas as pd

__all__ = ["SUFFIXES", "column_label", "column_unit", "default_decimals", "format_cell"]

# Unit suffix -> (display unit, default decimals). Longest suffixes are tried first.
SUFFIXES: dict[str, tuple[str, int]] = {
    "_csm_in": ("csm/in", 0),
    "_in_hr": ("in/hr", 2),
    "_lb_ft3": ("lb/ft³", 1),
    "_ft2": ("ft²", 0),
    "_ft3": ("ft³", 0),
    "_acft": ("ac-ft", 3),
    "_mi2": ("mi²", 4),
    "_cfs": ("cfs", 2),
    "_fps": ("ft/s", 2),
    "_ftft": ("ft/ft", 4),
    "_pct": ("%", 1),
    "_frac": ("-", 3),
    "_tons": ("tons", 2),
    "_ton": ("tons", 2),
    "_lb": ("lb", 0),
    "_ac": ("ac", 3),
    "_ft": ("ft", 2),
    "_in": ("in", 2),
    "_hr": ("hr", 2),
    "_min": ("min", 1),
    "_s": ("s", 1),
}
SUFFIX_ORDER = sorted(SUFFIXES, key=len, reverse=True)

# Abbreviations written in their customary case in labels.
_WORDS = {
    "cn": "CN",
    "tc": "Tc",
    "hsg": "HSG",
    "wqv": "WQv",
    "rrv": "RRv",
    "cpv": "Cpv",
    "qp": "Qp",
    "qf": "Qf",
    "id": "ID",
    "ia": "Ia",
    "p": "P",
    "rv": "Rv",
    "musle": "MUSLE",
    "ls": "LS",
    "sha256": "SHA-256",
    "nrcs": "NRCS",
    "noaa": "NOAA",
    "ny": "NY",
    "uh": "UH",
    "prf": "PRF",
    "dp": "DP",
    "vs": "Vs",
    "vr": "Vr",
    "qo": "qo",
    "qi": "qi",
}

# Columns with no unit suffix but a customary number of decimals.
_PLAIN_DECIMALS = {"cn": 1, "n": 3, "ia_over_p": 3, "rv": 3}


def column_unit(name: str) -> str:
    """Display unit of a unit-suffixed column name ("" when dimensionless or unknown).

    Examples
    --------
    >>> column_unit("peak_cfs"), column_unit("storage_ft3"), column_unit("cn")
    ('cfs', 'ft³', '')
    """
    for suffix in SUFFIX_ORDER:
        if name.endswith(suffix) and len(name) > len(suffix):
            return SUFFIXES[suffix][0]
    return ""


def _strip_unit(name: str) -> str:
    for suffix in SUFFIX_ORDER:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def column_label(name: str) -> str:
    """Readable header for a unit-suffixed column name.

    Examples
    --------
    >>> column_label("time_of_peak_hr")
    'Time of peak [hr]'
    >>> column_label("composite_cn")
    'Composite CN'
    """
    words = [w for w in _strip_unit(str(name)).split("_") if w]
    words = [_WORDS.get(w.lower(), w) for w in words]
    if words and words[0] == words[0].lower():
        words[0] = words[0][:1].upper() + words[0][1:]
    unit = column_unit(str(name))
    label = " ".join(words) if words else str(name)
    return f"{label} [{unit}]" if unit else label


def default_decimals(name: str) -> int | None:
    """Display decimals of a column by its unit suffix (None: chosen from the magnitude)."""
    for suffix in SUFFIX_ORDER:
        if name.endswith(suffix) and len(name) > len(suffix):
            return SUFFIXES[suffix][1]
    return _PLAIN_DECIMALS.get(name)




def format_cell(value, decimals: int | None = None) -> tuple[str, bool]:
    """Display text of one value and whether it is numeric: ``(text, is_numeric)``.

    Floats are rounded to ``decimals`` (None: 3 significant digits before the point, at most
    6 decimals) with thousands separators; a value that rounds to zero loses its sign;
    missing and non-finite values show as a dash; booleans as yes/no; dates as ISO dates.

    Examples
    --------
    >>> format_cell(1234.567, 1), format_cell(-0.001, 2), format_cell(True)
    (('1,234.6', True), ('0.00', True), ('yes', False))
    """
    if value is None:
        return "–", False
    if isinstance(value, (bool, np.bool_)):
        return ("yes" if value else "no"), False
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}", True
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            return "–", False
        dec = decimals
        if dec is None:
            if v == 0:
                return "0", True
            mag = math.floor(math.log10(abs(v)))
            dec = int(min(max(3 - mag, 0), 6))
        text = f"{v:,.{dec}f}"
        if text.startswith("-") and not text.strip("-0.,"):
            text = text[1:]  # -0.00: a value that rounds to zero has no sign
        return text, True
    if isinstance(value, (pd.Timestamp, _dt.date)):
        return value.strftime("%Y-%m-%d"), False
    try:
        if pd.isna(value):
            return "–", False
    except (TypeError, ValueError):
        pass
    return str(value), False
