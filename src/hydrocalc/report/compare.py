"""Comparing reported with recomputed results: the tolerances and the value-by-value walk.

:func:`compare_values` walks two JSON values (``results.json`` as reported and as
recomputed) and lists every :class:`Difference` beyond the tolerances
(:data:`DEFAULT_RTOL`, :data:`DEFAULT_ATOL`). Used by :mod:`hydrocalc.report.verify` (the
numbers) and :mod:`hydrocalc.report.verify_artifacts` (the deliverables); the report writer
records the tolerances in ``results.json``.
"""

from __future__ import annotations

import dataclasses
import json
import math
import pathlib
from collections.abc import Sequence
from typing import TypeGuard

from hydrocalc.report.tables import sha256_json

DEFAULT_RTOL = 1e-6  #: relative tolerance for numbers [-]
DEFAULT_ATOL = 1e-9  #: absolute tolerance for numbers [value's own unit]
_SKIP_SECTION_KEYS = {"parameters", "schema"}  # recorded, not results


@dataclasses.dataclass(frozen=True)
class Difference:
    """One disagreement between the report and the re-computation."""

    where: str
    reported: object
    recomputed: object
    kind: str = "value"  # value | missing | extra | input | artifact | refused | note

    def row(self) -> tuple[str, str, str, str]:
        """``(kind, where, reported, recomputed)`` as display strings."""
        a, b = self.reported, self.recomputed
        if _is_number(a) and _is_number(b) and isinstance(a, float) | isinstance(b, float):
            return (self.kind, self.where) + _readable_pair(float(a), float(b))
        return (self.kind, self.where, _show(a), _show(b))


def _plain(value: float, sig: int) -> str:
    """``value`` with ``sig`` significant digits, never in scientific notation."""
    if value == 0 or not math.isfinite(value):
        return f"{value:g}"
    decimals = max(sig - 1 - math.floor(math.log10(abs(value))), 0)
    text = f"{value:,.{min(decimals, 15)}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _readable_pair(a: float, b: float) -> tuple[str, str]:
    """Two numbers at the fewest significant digits (at least 4) that tell them apart.

    Examples
    --------
    >>> _readable_pair(1.0850312345678, 1.0958815)
    ('1.085', '1.096')
    >>> _readable_pair(12.000001, 12.0)
    ('12.000001', '12')
    """
    for sig in range(4, 16):
        x, y = _plain(a, sig), _plain(b, sig)
        if x != y:
            return x, y
    return _plain(a, 15), _plain(b, 15)


@dataclasses.dataclass
class Verification:
    """Outcome of :func:`verify_report`."""

    report_dir: pathlib.Path
    rtol: float
    atol: float
    differences: list[Difference]
    notes: list[Difference]
    numbers_compared: int
    values_compared: int
    source: str = ""

    @property
    def ok(self) -> bool:
        """True when no value differs."""
        return not self.differences

    def summary(self) -> str:
        """One line: values compared, from where, tolerances, and the outcome."""
        where = self.source or f"{self.report_dir / 'results.json'} and the report's files"
        return (f"compared {self.values_compared} values ({self.numbers_compared} numbers) "
                f"from {where} with rtol={self.rtol:g}, "
                f"atol={self.atol:g}: " + ("all agree" if self.ok else
                                           f"{len(self.differences)} differ"))

    def version_note(self) -> str:
        """One line when the report was made by another hydrocalc version, else ``""``.

        The version recorded in ``results.json`` (``hydrocalc_version``) is compared with the
        running one; a change of version explains differences, it is not one itself.
        """
        for note in self.notes:
            if note.where == "hydrocalc_version":
                made_by = note.reported or "an unrecorded version"
                return (f"note: this report was made by hydrocalc {made_by}; it was "
                        f"re-computed with hydrocalc {note.recomputed} (a difference may "
                        "come from the change of version)")
        return ""

    def table(self, max_rows: int = 200) -> str:
        """Plain-text table of the differences (and notes)."""
        rows = [d.row() for d in self.differences[:max_rows]] + [n.row() for n in self.notes]
        if not rows:
            return ""
        head = ("kind", "where", "reported", "recomputed")
        widths = [min(max(len(r[i]) for r in rows + [head]), 72) for i in range(4)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=False)),
                 "  ".join("-" * w for w in widths)]
        for r in rows:
            lines.append("  ".join(_clip(c, w).ljust(w) for c, w in zip(r, widths, strict=False)))
        if len(self.differences) > max_rows:
            lines.append(f"... and {len(self.differences) - max_rows} more differences")
        return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _show(value) -> str:
    if value is _MISSING:
        return "(missing)"
    if isinstance(value, float):
        return _plain(value, 6)
    if isinstance(value, (dict, list)):
        text = json.dumps(value, ensure_ascii=False)
        return text
    return str(value) if value is not None else "null"


class _Missing:
    def __repr__(self):
        return "(missing)"


_MISSING = _Missing()


class _Counter:
    def __init__(self):
        self.numbers = 0
        self.values = 0


def _is_number(v: object) -> TypeGuard[int | float]:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def compare_values(reported, recomputed, where: str, *, rtol: float = DEFAULT_RTOL,
                   atol: float = DEFAULT_ATOL, _counter: _Counter | None = None
                   ) -> list[Difference]:
    """Compare two JSON values recursively; numbers within tolerance, the rest exactly.

    Examples
    --------
    >>> compare_values({"a_cfs": 1.0, "b": [1, "x"]}, {"a_cfs": 1.0 + 1e-12, "b": [1, "x"]},
    ...                "t")
    []
    >>> [d.where for d in compare_values({"a_cfs": 1.0}, {"a_cfs": 1.1}, "t")]
    ['t / a_cfs']
    """
    counter = _counter or _Counter()
    out: list[Difference] = []
    if isinstance(reported, dict) and isinstance(recomputed, dict):
        if _is_table(reported) and _is_table(recomputed):
            return _compare_tables(reported, recomputed, where, rtol, atol, counter)
        for key in sorted(set(reported) | set(recomputed), key=str):
            a = reported.get(key, _MISSING)
            b = recomputed.get(key, _MISSING)
            sub = where if key == "tables" else f"{where} / {key}"  # tables are named
            if a is _MISSING:
                out.append(Difference(sub, a, b, "extra"))
            elif b is _MISSING:
                out.append(Difference(sub, a, b, "missing"))
            else:
                out.extend(compare_values(a, b, sub, rtol=rtol, atol=atol, _counter=counter))
        return out
    if isinstance(reported, list) and isinstance(recomputed, list):
        if len(reported) != len(recomputed):
            out.append(Difference(f"{where} (length)", len(reported), len(recomputed)))
        for i, (a, b) in enumerate(zip(reported, recomputed, strict=False)):
            out.extend(compare_values(a, b, f"{where}[{i}]", rtol=rtol, atol=atol,
                                      _counter=counter))
        return out
    counter.values += 1
    if _is_number(reported) and _is_number(recomputed):
        counter.numbers += 1
        a, b = float(reported), float(recomputed)
        if isinstance(reported, int) and isinstance(recomputed, int):
            same = reported == recomputed
        else:
            same = math.isclose(a, b, rel_tol=rtol, abs_tol=atol) or a == b
        if not same:
            out.append(Difference(where, reported, recomputed))
        return out
    if type(reported) is not type(recomputed) or reported != recomputed:
        out.append(Difference(where, reported, recomputed))
    return out


def _is_table(d: dict) -> bool:
    return "columns" in d and "rows" in d and isinstance(d.get("rows"), list)


def _row_name(row: Sequence, columns: Sequence[str], keys: Sequence[str], i: int) -> str:
    idx = [columns.index(k) for k in keys if k in columns]
    parts = [str(row[j]) for j in idx if j < len(row)]
    return f"[{', '.join(parts)}]" if parts else f"[row {i + 1}]"


def _compare_tables(rep: dict, rec: dict, where: str, rtol: float, atol: float,
                    counter: _Counter) -> list[Difference]:
    out: list[Difference] = []
    cols_a, cols_b = list(rep.get("columns", [])), list(rec.get("columns", []))
    if cols_a != cols_b:
        out.append(Difference(f"{where} (columns)", cols_a, cols_b))
        return out
    keys = list(rec.get("key_columns", []))
    rows_a, rows_b = rep["rows"], rec["rows"]
    if len(rows_a) != len(rows_b):
        out.append(Difference(f"{where} (number of rows)", len(rows_a), len(rows_b)))
    for i, (ra, rb) in enumerate(zip(rows_a, rows_b, strict=False)):
        name = _row_name(rb, cols_b, keys, i)
        if not isinstance(ra, list) or len(ra) != len(cols_a):
            out.append(Difference(f"{where} {name}", ra, rb))
            continue
        for col, a, b in zip(cols_a, ra, rb, strict=False):
            out.extend(compare_values(a, b, f"{where} {name} / {col}", rtol=rtol, atol=atol,
                                      _counter=counter))
    for field in ("title", "units", "key_columns"):
        out.extend(compare_values(rep.get(field), rec.get(field), f"{where} / {field}",
                                  rtol=rtol, atol=atol, _counter=counter))
    # The stored hash must match the stored rows (an edit that kept the hash is caught here;
    # the recomputed hash is compared as a value above only through the rows).
    if rep.get("sha256") != sha256_json({"columns": cols_a, "rows": rows_a}):
        out.append(Difference(f"{where} / sha256 (of the reported rows)", rep.get("sha256"),
                              sha256_json({"columns": cols_a, "rows": rows_a})))
    return out
