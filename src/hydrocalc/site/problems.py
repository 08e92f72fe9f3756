"""The one-line problem collector of the site file.

Lines are found with :func:`hydrocalc.input_file.key_lines`, which maps every key path
(``post.subcatchment[S-2].area_ac``) to its line. ``_Problems``, the one
problem collector of every input table (the site file's sections, ``[project]``,
``[construction]``, the criteria's practices and permit facts), collects
``<file>: <path> <text> (line n)`` lines: the declared model's records, written as one
line each, and the few checks of values the models do not see (CSV columns).
"""

from __future__ import annotations

import datetime as _dt
import math
import typing
from collections.abc import Mapping

from pydantic import BaseModel

from hydrocalc._validate import (  # noqa: F401 (capped, MAX_PROBLEMS_SHOWN re-exported)
    MAX_PROBLEMS_SHOWN,
    capped,
    excerpt,
    fmt_value,
    number_problem,
    suggest,
    text_problem,
)
from hydrocalc.input_file import enclosing, key_lines  # noqa: F401 (key_lines re-exported)
from hydrocalc.schema import OneOf
from hydrocalc.schema_errors import FieldError, Says, bounds

# ----------------------------------------------------------------------------------------
# problem collection


def _short(value) -> str:
    """A value for a message: its repr, shortened and escaped (never a whole file)."""
    return excerpt(repr(value), 60)


class _Problems:
    """Collects one-line problems ``<where>: <path> <text>[ (line n)]``."""

    def __init__(self, where: str, lines: Mapping[str, int] | None = None):
        self.where = where
        self.lines = dict(lines or {})
        self.items: list[str] = []
        self.csv_lines: dict[str, str] = {}

    @property
    def problems(self) -> list[str]:
        """The problems collected so far (the same list as ``items``)."""
        return self.items

    def line_of(self, path: str) -> str:
        """`` (line n)`` of ``path`` or of its closest enclosing table; '' if unknown.

        A row of a CSV table is named by its file and line (``csv_lines``).
        """
        for p in enclosing(path):
            if p in self.csv_lines:
                return f" ({self.csv_lines[p]})"
            if p in self.lines:
                return f" (line {self.lines[p]})"
        return ""

    def add(self, path: str, text: str) -> None:
        self.items.append(f"{self.where}: {path} {text}{self.line_of(path)}")

    def raw(self, line: str) -> None:
        self.items.append(line)

    def unknown_keys(self, mapping: Mapping, allowed, prefix: str) -> None:
        allowed = tuple(allowed)
        for key in mapping:
            if key not in allowed:
                hint = suggest(str(key), allowed)
                tail = hint or f". Valid keys: {', '.join(allowed)}"
                self.items.append(
                    f"{self.where}: unknown key {prefix}.{key}{tail}"
                    f"{self.line_of(f'{prefix}.{key}')}"
                )

    def declared(self, errors: list[FieldError], doc: Mapping, *, each_bound: bool = False,
                 hints: Mapping[str, str] | None = None, ids: bool = True) -> None:
        """Record the problems the declared model found, one line each.

        Written as the typed getters below write them: the range, the choices, "did you
        mean" and the TOML line come from the key's declaration and the file. With
        ``each_bound`` a number names the bound it breaks (``must be >= 0``, as
        ``number(..., each_bound=True)``), followed by ``hints[key]`` when it is out of range.
        An array entry is named by its ``id`` (by its index without ``ids``).
        """
        tables: dict = {}
        for e in errors:  # by table as the file lists them; unknown keys first in a table
            tables.setdefault(e.table if e.kind == "unknown" else e.path[:-1], []).append(e)
        for e in (e for group in tables.values()
                  for e in sorted(group, key=lambda e: e.kind != "unknown")):
            path = _path_label(doc, e.path, ids)
            if e.kind == "unknown":
                self.unknown_keys({e.key: None}, e.allowed, _path_label(doc, e.table, ids))
            elif (not each_bound and e.kind != "missing" and e.declared in (int, float)
                  and not any(isinstance(m, Says) for m in e.metadata)):
                self.check_number(e.value, path, integer=e.declared is int, **bounds(e))
            else:
                self.add(path, field_message(e, hints))

    # the few checks of values the declared models do not see (CSV columns, a key tested
    # against a shipped table): each returns a usable value or None (and records the problem)
    def text(self, m, key, prefix, *, required=False, default=None, blank_ok=False):
        """Non-blank text without control characters (blank text too when ``blank_ok``)."""
        if key not in m:
            if required:
                self.add(f"{prefix}.{key}", "is required; got nothing. Add it to the file.")
            return default
        v = m[key]
        if blank_ok and isinstance(v, str) and not v.strip():
            return v
        bad = text_problem(v, required=True)
        if bad:
            self.add(f"{prefix}.{key}", bad)
            return None
        return v

    def check_number(self, v, path, *, lower=None, upper=None, lower_inclusive=True,
                     upper_inclusive=True, integer=False):
        if isinstance(v, bool) or not isinstance(v, int | float):
            self.add(path, f"must be a number; got {_short(v)}")
            return None
        if integer and not isinstance(v, int):
            self.add(path, f"must be a whole number; got {fmt_value(v)}")
            return None
        x = float(v)
        if not math.isfinite(x):
            self.add(path, f"must be a finite number; got {fmt_value(x)}")
            return None
        lo_bad = lower is not None and (x < lower or (x == lower and not lower_inclusive))
        hi_bad = upper is not None and (x > upper or (x == upper and not upper_inclusive))
        if lo_bad or hi_bad:
            requirement = _requirement(lower, upper, lower_inclusive, upper_inclusive)
            self.add(path, f"must be {requirement}; got {fmt_value(x)}")
            return None
        return int(v) if integer else x

    def numbers(self, m, key, prefix, *, required=True, lower=None, min_len=2):
        if key not in m:
            if required:
                self.add(f"{prefix}.{key}", "is required; got nothing. Add a list of numbers.")
            return None
        v = m[key]
        if (not isinstance(v, list) or len(v) < min_len
                or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)):
            self.add(f"{prefix}.{key}",
                     f"must be a list of at least {min_len} numbers; got {_short(v)}")
            return None
        arr = [float(x) for x in v]
        for i, x in enumerate(arr):
            if not math.isfinite(x) or (lower is not None and x < lower):
                req = f">= {fmt_value(lower)}" if lower is not None else "finite"
                self.add(f"{prefix}.{key}", f"must be {req}; got {fmt_value(x)} at index {i}")
                return None
        return arr


def field_message(e: FieldError, hints: Mapping[str, str] | None = None) -> str:
    """What is wrong with a key the declared model refused, after its path.

    As the typed getters write it: the key's :class:`Says` wording, its choices with "did
    you mean", ``true or false``, the bound a number breaks (``must be >= 0``, followed by
    ``hints[key]`` when out of range) or the rule a text breaks.
    """
    if e.kind == "missing":
        how = ("as true or false" if e.declared is bool else "as a TOML date, e.g. "
               "2027-04-01" if e.declared is _dt.date else "to the file")
        return f"is required; got nothing. Add it {how}."
    says = next((m for m in e.metadata if isinstance(m, Says)), None)
    if says is not None:  # a date or date-time as written in TOML
        shown = e.value.isoformat() if isinstance(e.value, _dt.date) else _short(e.value)
        return f"{says.requirement}; got {shown}"
    if _is_table(e.declared):
        return f"must be a table; got {e.value!r}"
    if typing.get_origin(e.declared) is typing.Literal:
        return choice_message(typing.get_args(e.declared), e.value)
    if e.declared is bool:
        return f"must be true or false; got {_short(e.value)}"
    if e.declared in (int, float):
        bad = number_problem(e.value, integer=e.declared is int, **bounds(e))
        in_range = bad is not None and not bad.startswith(("must be a number",
                                                           "must be a finite"))
        return f"{bad}{(hints or {}).get(e.key, '') if in_range else ''}"
    # text, then one of its values (OneOf)
    options = next((m.values for m in e.metadata if isinstance(m, OneOf)), ())
    return text_problem(e.value, required=True) or (
        f"must be one of {', '.join(options)}; got {e.value!r}{suggest(e.value, options)}"
        if options else f"is not valid ({e.error.get('msg', '')}); got {_short(e.value)}")


def choice_message(options, value) -> str:
    """A choice's problem: ``is required ... Use one of`` (``value`` None) or ``must be one of``.

    With "did you mean" for a text close to one of ``options``.
    """
    listed = ", ".join(map(str, options))
    if value is None:
        return f"is required; got nothing. Use one of: {listed}"
    hint = suggest(value, tuple(map(str, options))) if isinstance(value, str) else ""
    return f"must be one of {listed}; got {_short(value)}{hint}"


def _requirement(lower, upper, lower_inclusive, upper_inclusive) -> str:
    if lower is not None and upper is not None:
        left = "[" if lower_inclusive else "("
        right = "]" if upper_inclusive else ")"
        return f"in {left}{fmt_value(lower)}, {fmt_value(upper)}{right}"
    if lower is not None:
        return f"{'>=' if lower_inclusive else '>'} {fmt_value(lower)}"
    return f"{'<=' if upper_inclusive else '<'} {fmt_value(upper)}"


def _is_table(tp) -> bool:
    """True for a declared table: a model or a ``dict``."""
    return typing.get_origin(tp) is dict or (isinstance(tp, type)
                                             and issubclass(tp, Mapping | BaseModel))


def _path_label(doc: Mapping, path: tuple, ids: bool = True) -> str:
    """A key path as the messages write it: array entries by id (``post.pond[P-1]``).

    By index (``construction.trap[0]``) without ``ids``.
    """
    out = ""
    node: object = doc
    for part in path:
        if isinstance(part, int):
            entry = node[part] if isinstance(node, list) and part < len(node) else {}
            out += f"[{_label(entry, part) if ids and isinstance(entry, Mapping) else part}]"
            node = entry
        else:
            out += f".{part}" if out else part
            node = node.get(part) if isinstance(node, Mapping) else None
    return out


def _label(entry: Mapping, index: int) -> str:
    v = entry.get("id")
    if isinstance(v, str) and v.strip():
        return v
    return str(index)


def _msg(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


