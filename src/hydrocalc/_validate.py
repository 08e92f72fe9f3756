"""Private validation helpers used by every public function.

``as_float_array`` validates numeric input with two reductions (min and max) and, only when
they show a problem, an element-wise pass that reports the first offending index and the
count; ``like`` returns a result in the container of the inputs (float, ndarray or
Series, as pvlib does); ``suggest`` and ``check_choice`` give "did you mean" messages.
"""

from __future__ import annotations

import datetime as _dt
import difflib
import os
import pathlib
from collections.abc import Iterable

import numpy as np

from hydrocalc.errors import InputError

__all__ = [
    "as_float_array",
    "like",
    "suggest",
    "check_choice",
    "fmt_value",
    "number_problem",
    "text_problem",
    "excerpt",
    "control_char",
    "confined_path",
]


def fmt_value(value) -> str:
    """Format a number for an error message (no trailing zeros, ``nan`` spelled out)."""
    try:
        v = float(value)
    except (TypeError, ValueError):
        return repr(value)
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.6g}"


def _interval(lower, upper, lower_inclusive, upper_inclusive) -> str:
    lo = "-inf" if lower is None else fmt_value(lower)
    hi = "inf" if upper is None else fmt_value(upper)
    left = "[" if (lower is not None and lower_inclusive) else "("
    right = "]" if (upper is not None and upper_inclusive) else ")"
    return f"{left}{lo}, {hi}{right}"


def as_float_array(
    value,
    name: str,
    *,
    lower: float | None = None,
    upper: float | None = None,
    lower_inclusive: bool = True,
    upper_inclusive: bool = True,
    allow_nan: bool = False,
    allow_inf: bool = False,
    hint: str = "",
) -> np.ndarray:
    """Convert ``value`` to a float ndarray and check it lies in an interval.

    Parameters
    ----------
    value : array_like
        Scalar, list, ndarray or pandas Series.
    name : str
        Argument name used in the error message.
    lower, upper : float or None
        Interval bounds (None for unbounded).
    lower_inclusive, upper_inclusive : bool
        Whether the bounds belong to the interval.
    allow_nan : bool
        Accept NaN values (they are never checked against the bounds).
    allow_inf : bool
        Accept infinite values (otherwise always invalid).
    hint : str
        Sentence appended to the error message (what to do).

    Returns
    -------
    numpy.ndarray
        Float array (0-d for scalars).

    Raises
    ------
    InputError
        ``<name> must be in <interval>; got <v> at index i (k of n values invalid)``.
    """
    if hasattr(value, "to_numpy") and not isinstance(value, np.ndarray):
        raw = value.to_numpy()
    else:
        raw = value
    try:
        arr = np.asarray(raw, dtype=float)
    except (TypeError, ValueError):
        raise InputError(f"{name} must be numeric; got {value!r}") from None
    if _looks_valid(arr, lower, upper, lower_inclusive, upper_inclusive, allow_nan, allow_inf):
        return arr
    _raise_invalid(arr, name, lower, upper, lower_inclusive, upper_inclusive, allow_nan,
                   allow_inf, hint)
    return arr  # every value valid after all (e.g. all NaN with allow_nan)


#: Largest project area accepted [ac] (156 square miles): a construction project disturbing
#: more is not a site; the value is a unit slip (square feet typed as acres, or a typo).
MAX_PROJECT_AREA_AC = 100_000.0

_SCALAR_TYPES = (float, int)


def _looks_valid(arr: np.ndarray, lower, upper, lower_inclusive: bool, upper_inclusive: bool,
                 allow_nan: bool, allow_inf: bool) -> bool:
    """Cheap check: True only if every value of ``arr`` is certainly valid.

    Two reductions (min and max, one memory pass each) instead of a boolean mask per
    condition. NaN propagates through ``np.minimum.reduce``, so a NaN min means "a NaN is
    present"; with ``allow_nan`` the NaN-ignoring ``np.fmin``/``np.fmax`` reductions are used
    (all-NaN gives NaN and defers to the exact check). False means "not sure": the caller
    then runs the exact element-wise check, which also builds the message.
    """
    if arr.size == 0:
        return True
    if (lower is not None and type(lower) not in _SCALAR_TYPES and np.ndim(lower) != 0) or (
            upper is not None and type(upper) not in _SCALAR_TYPES and np.ndim(upper) != 0):
        return False  # array bounds: element-wise check only
    if arr.ndim == 0:
        lo = hi = float(arr)
    elif allow_nan:
        lo, hi = float(np.fmin.reduce(arr, axis=None)), float(np.fmax.reduce(arr, axis=None))
    else:
        lo, hi = float(np.minimum.reduce(arr, axis=None)), float(np.maximum.reduce(arr, axis=None))
    if lo != lo or hi != hi:  # NaN: present (not allowed), or every value NaN (allowed)
        return False
    if not allow_inf and (lo == -np.inf or hi == np.inf):
        return False
    if lower is not None and not (lo >= lower if lower_inclusive else lo > lower):
        return False
    if upper is not None and not (hi <= upper if upper_inclusive else hi < upper):
        return False
    return True


def _raise_invalid(arr: np.ndarray, name: str, lower, upper, lower_inclusive: bool,
                   upper_inclusive: bool, allow_nan: bool, allow_inf: bool, hint: str) -> None:
    """Exact element-wise check; raise the InputError (first bad index, count) if any."""
    interval = _interval(lower, upper, lower_inclusive, upper_inclusive)
    bad = np.zeros(arr.shape, dtype=bool)
    nan = np.isnan(arr)
    if not allow_nan:
        bad |= nan
    with np.errstate(invalid="ignore"):
        if lower is not None:
            bad |= (arr < lower) if lower_inclusive else (arr <= lower)
        if upper is not None:
            bad |= (arr > upper) if upper_inclusive else (arr >= upper)
        if not allow_inf:
            bad |= np.isinf(arr)
    if allow_nan:
        bad &= ~nan
    if bad.any():
        flat = bad.ravel()
        first = int(np.flatnonzero(flat)[0])
        got = fmt_value(arr.ravel()[first])
        if arr.ndim == 0:
            where = ""
        else:
            where = f" at index {first} ({int(flat.sum())} of {flat.size} values invalid)"
        msg = f"{name} must be in {interval}; got {got}{where}"
        if hint:
            msg += f". {hint}"
        raise InputError(msg)


def like(values, *inputs):
    """Return ``values`` in the container of ``inputs``.

    A Series among the inputs gives a Series with that index; otherwise a 0-d result is a
    Python float and anything else an ndarray.
    """
    values = np.asarray(values, dtype=float)
    for inp in inputs:
        if hasattr(inp, "index") and hasattr(inp, "to_numpy") and getattr(inp, "ndim", 0) == 1:
            import pandas as pd

            if values.shape == (len(inp),):
                return pd.Series(values, index=inp.index, name=getattr(inp, "name", None))
            if values.ndim == 0:
                return pd.Series(np.full(len(inp), float(values)), index=inp.index)
    if values.ndim == 0:
        return float(values)
    return values


def suggest(name: str, choices: Iterable[str], n: int = 3) -> str:
    """Return a "; did you mean 'x'?" fragment, or an empty string."""
    choices = [str(c) for c in choices]
    close = difflib.get_close_matches(str(name), choices, n=n, cutoff=0.5)
    if not close:
        lowered = {c.lower(): c for c in choices}
        close = [lowered[c] for c in difflib.get_close_matches(str(name).lower(), lowered, n=n)]
    if not close:
        return ""
    return "; did you mean " + " or ".join(f"'{c}'" for c in close) + "?"


def check_choice(value, name: str, choices: Iterable[str], *, where: str = "") -> str:
    """Check ``value`` is one of ``choices``; raise ``InputError`` with suggestions otherwise."""
    choices = list(choices)
    if value in choices:
        return value
    extra = f" {where}" if where else ""
    raise InputError(
        f"unknown {name} {value!r}{extra}{suggest(str(value), choices)} "
        f"Valid: {', '.join(map(str, choices))}"
    )


# ----------------------------------------------------------------------------------------
# shared scalar rules: the site loader (which collects problems) and the public constructors
# (which raise) call the same functions, so a value is judged alike on every path.


def number_problem(value, *, lower=None, upper=None, lower_inclusive: bool = True,
                   upper_inclusive: bool = True, integer: bool = False) -> str | None:
    """The requirement a scalar number breaks, or None when it is valid.

    Returns a fragment such as ``"must be >= 0; got -2"`` that callers prefix with the
    field name (and the file name). Booleans, strings and non-finite values are refused.

    Examples
    --------
    >>> number_problem(-2, lower=0)
    'must be >= 0; got -2'
    >>> number_problem(float("nan"), lower=0)
    'must be a finite number; got nan'
    >>> number_problem(3, lower=0) is None
    True
    """
    if isinstance(value, bool) or not isinstance(value, int | float | np.integer | np.floating):
        return f"must be a number; got {_short_repr(value)}"
    if integer and not float(value).is_integer():
        return f"must be a whole number; got {fmt_value(value)}"
    v = float(value)
    if not np.isfinite(v):
        return f"must be a finite number; got {fmt_value(v)}"
    if lower is not None and (v < lower or (v == lower and not lower_inclusive)):
        return f"must be {'>=' if lower_inclusive else '>'} {fmt_value(lower)}; got {fmt_value(v)}"
    if upper is not None and (v > upper or (v == upper and not upper_inclusive)):
        return f"must be {'<=' if upper_inclusive else '<'} {fmt_value(upper)}; got {fmt_value(v)}"
    return None


#: Most problems an error message of an input file lists; the rest are counted on one line.
MAX_PROBLEMS_SHOWN = 50


def capped(problems: list[str], limit: int = MAX_PROBLEMS_SHOWN) -> list[str]:
    """The first ``limit`` problems and, when there are more, one line counting the rest.

    Examples
    --------
    >>> capped([f"p{i}" for i in range(53)])[-1]
    '... and 3 more problems (fix these and check again)'
    """
    if len(problems) <= limit:
        return list(problems)
    rest = len(problems) - limit
    return [*problems[:limit],
            f"... and {rest:,} more problem{'s' if rest > 1 else ''} (fix these and check again)"]


def control_char(text: str) -> str | None:
    r"""The first control character of ``text`` (escaped, e.g. ``'\x1b'``), or None.

    Tab is allowed; every other C0/C1 control character (ESC, NUL, BEL, CR, LF, DEL, ...)
    is not: it breaks the one-line messages, the terminal, the CSV/Excel writers and the PDF.
    """
    for ch in text:
        o = ord(ch)
        if (o < 32 and ch != "\t") or 127 <= o < 160:
            return repr(ch)[1:-1]
    return None


def text_problem(value, *, required: bool = False, max_chars: int = 1000) -> str | None:
    """The requirement a text field breaks, or None when it is valid.

    A text field is a string without control characters (see :func:`control_char`), at
    most ``max_chars`` characters long, and non-blank when ``required``.
    """
    if not isinstance(value, str):
        return f"must be a string; got {_short_repr(value)}"
    if required and not value.strip():
        return f"must be a non-empty string; got {value!r}"
    bad = control_char(value)
    if bad is not None:
        return (f"must not contain control characters; got {bad} in \""
                f"{excerpt(value)}\". Remove it (a pasted escape sequence or line break)")
    if len(value) > max_chars:
        return f"must be at most {max_chars} characters; got {len(value)}"
    return None


def iso_date(value):
    """A date (or date-time) given as a TOML value or as its ISO text, as a date object.

    For a value the declared model accepted (:class:`hydrocalc.schema.IsoDate`); None stays
    None.
    """
    if not isinstance(value, str):
        return value
    return (_dt.datetime.fromisoformat(value) if "T" in value
            else _dt.date.fromisoformat(value))


def excerpt(text, limit: int = 40) -> str:
    """A short, one-line, escaped excerpt of ``text`` for an error message.

    Control and non-printable characters are escaped and the excerpt is cut at ``limit``
    characters, so a message never echoes more than a few words of any file.
    """
    text = str(text)
    out = text[: limit + 1]
    out = "".join(ch if ch.isprintable() else repr(ch)[1:-1] for ch in out)
    return out if len(out) <= limit else out[:limit] + "..."


def _short_repr(value) -> str:
    return excerpt(repr(value), 60)


# ----------------------------------------------------------------------------------------
# paths named in a site file: confined to the site's folder


def _design_storm_roots(base: pathlib.Path) -> list[pathlib.Path]:
    """``design_storms/`` folders a site may read depth files from.

    The shipped ``design_storms/`` folder of the hydrocalc project (beside ``src/``), and a
    folder named ``design_storms`` directly inside the site's folder or any folder above it
    (``../../design_storms/pelham.toml`` from ``examples/pelham/site.toml``, also in the
    ``inputs/`` copy a report keeps).
    """
    roots = []
    shipped = pathlib.Path(__file__).resolve().parents[2] / "design_storms"
    if shipped.is_dir():
        roots.append(shipped)
    for folder in (base, *base.parents):
        cand = folder / "design_storms"
        if cand.is_dir():
            roots.append(cand.resolve())
    return roots


def confined_path(raw, base_dir, *, field: str, allow_outside: bool = False,
                  design_storms: bool = False) -> pathlib.Path:
    """Resolve a file name given in a site file, refusing one outside the site's folder.

    Parameters
    ----------
    raw : str
        The path as written (relative to ``base_dir`` or absolute).
    base_dir : path-like
        The site file's folder.
    field : str
        Key path used in the message (e.g. ``construction.rainfall_file``).
    allow_outside : bool
        Accept any path (CLI ``--allow-outside-paths``; API ``allow_outside_paths=True``):
        for site files you wrote yourself.
    design_storms : bool
        Also accept files inside a ``design_storms/`` folder (see :func:`_design_storm_roots`).

    Returns
    -------
    pathlib.Path
        The path (not resolved, so messages keep the user's spelling).

    Raises
    ------
    InputError
        The path leaves the folder (``..``, an absolute path elsewhere, or a symbolic link
        pointing out of it), contains control characters or a name longer than the
        filesystem allows (255 bytes). The message quotes the path
        written in the site file (shortened and escaped), never the file's contents.
    """
    bad = text_problem(raw, required=True, max_chars=1000)
    if bad:
        raise InputError(f"{field} {bad}")
    base = pathlib.Path(base_dir)
    p = pathlib.Path(raw)
    if any(len(os.fsencode(part)) > 255 for part in p.parts):  # NAME_MAX of common systems
        raise InputError(f"{field} must name a readable file; got {excerpt(raw, 80)!r} (a "
                         "file or folder name longer than 255 bytes)")
    cand = p if p.is_absolute() else base / p
    if allow_outside:
        return cand
    try:
        real = cand.resolve(strict=False)
        base_real = base.resolve(strict=False)
    except (OSError, RuntimeError):  # symlink loop
        raise InputError(f"{field} must name a readable file; got {excerpt(raw, 80)!r} (a "
                         "symbolic-link loop)") from None
    roots = [base_real] + (_design_storm_roots(base_real) if design_storms else [])
    if any(real == r or r in real.parents for r in roots):
        return cand
    lexical = pathlib.Path(os.path.normpath(cand.absolute()))
    via_link = any(lexical == r or r in lexical.parents for r in roots)
    how = "through a symbolic link that points outside it" if via_link else "outside it"
    where = "the site file's folder" + (" or a design_storms/ folder" if design_storms else "")
    raise InputError(
        f"{field} must name a file inside {where}; got {excerpt(raw, 80)!r}, which resolves "
        f"{how}. Move the file into the folder, or, for a site file you trust, pass "
        "--allow-outside-paths (API: allow_outside_paths=True)"
    )
