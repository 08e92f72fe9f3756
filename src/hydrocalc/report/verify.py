"""``hydrocalc verify REPORT_DIR``: re-compute a report from its stored inputs and compare.

A reviewer receives a report folder. :func:`verify_report` reads only *data* from it: the
``results.json`` file and the copies of the input files under ``inputs/`` (TOML and CSV,
parsed, never executed). It checks each input's SHA-256 against the one recorded, loads the
stored site file with :func:`hydrocalc.site.load_site`, re-computes every report section
in this process with the installed hydrocalc (:func:`hydrocalc.report.sections.build_section`,
no notebooks, no kernels), and compares every value in ``results.json``:

- numbers agree when ``|reported - recomputed| <= atol + rtol * |recomputed|``
  (defaults ``rtol = 1e-6``, ``atol = 1e-9``, stated in the output);
- texts, booleans, integers and missing values must be equal;
- table rows are named by their key columns, so a difference reads
  ``comparison / peak_comparison [DP-1, 10yr] / post_peak_cfs``.

The executed notebooks, the HTML, the PDF and the figures are not read: a submitted
notebook is data, not code to run, and verify gives the same answer when they were edited
or removed. The hydrocalc version and the shipped data tables' hashes are compared and
reported as notes (they explain differences; they are not differences themselves).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import pathlib
from collections.abc import Sequence

from hydrocalc.errors import HydrocalcError, InputError

__all__ = ["Difference", "Verification", "verify_report", "compare_values", "DEFAULT_RTOL",
           "DEFAULT_ATOL"]

DEFAULT_RTOL = 1e-6  #: relative tolerance for numbers [-]
DEFAULT_ATOL = 1e-9  #: absolute tolerance for numbers [value's own unit]
_SKIP_SECTION_KEYS = {"parameters", "schema"}  # recorded, not results


@dataclasses.dataclass(frozen=True)
class Difference:
    """One disagreement between the report and the re-computation."""

    where: str
    reported: object
    recomputed: object
    kind: str = "value"  # value | missing | extra | input | note

    def row(self) -> tuple[str, str, str, str]:
        return (self.kind, self.where, _show(self.reported), _show(self.recomputed))


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

    @property
    def ok(self) -> bool:
        return not self.differences

    def summary(self) -> str:
        return (f"compared {self.values_compared} values ({self.numbers_compared} numbers) "
                f"from {self.report_dir / 'results.json'} with rtol={self.rtol:g}, "
                f"atol={self.atol:g}: " + ("all agree" if self.ok else
                                           f"{len(self.differences)} differ"))

    def table(self, max_rows: int = 200) -> str:
        """Plain-text table of the differences (and notes)."""
        rows = [d.row() for d in self.differences[:max_rows]] + [n.row() for n in self.notes]
        if not rows:
            return ""
        head = ("kind", "where", "reported", "recomputed")
        widths = [min(max(len(r[i]) for r in rows + [head]), 72) for i in range(4)]
        lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)),
                 "  ".join("-" * w for w in widths)]
        for r in rows:
            lines.append("  ".join(_clip(c, w).ljust(w) for c, w in zip(r, widths)))
        if len(self.differences) > max_rows:
            lines.append(f"... and {len(self.differences) - max_rows} more differences")
        return "\n".join(lines)


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def _show(value) -> str:
    if value is _MISSING:
        return "(missing)"
    if isinstance(value, float):
        return repr(value)
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


def _is_number(v) -> bool:
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
        for i, (a, b) in enumerate(zip(reported, recomputed)):
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
    for i, (ra, rb) in enumerate(zip(rows_a, rows_b)):
        name = _row_name(rb, cols_b, keys, i)
        if not isinstance(ra, list) or len(ra) != len(cols_a):
            out.append(Difference(f"{where} {name}", ra, rb))
            continue
        for col, a, b in zip(cols_a, ra, rb):
            out.extend(compare_values(a, b, f"{where} {name} / {col}", rtol=rtol, atol=atol,
                                      _counter=counter))
    for field in ("title", "units", "key_columns"):
        out.extend(compare_values(rep.get(field), rec.get(field), f"{where} / {field}",
                                  rtol=rtol, atol=atol, _counter=counter))
    # The stored hash must match the stored rows (an edit that kept the hash is caught here;
    # the recomputed hash is compared as a value above only through the rows).
    from hydrocalc.report.tables import sha256_json

    if rep.get("sha256") != sha256_json({"columns": cols_a, "rows": rows_a}):
        out.append(Difference(f"{where} / sha256 (of the reported rows)", rep.get("sha256"),
                              sha256_json({"columns": cols_a, "rows": rows_a})))
    return out


def _inside(base: pathlib.Path, rel: str) -> pathlib.Path:
    path = (base / rel).resolve()
    if not path.is_relative_to(base.resolve()):
        raise InputError(f"results.json input path must stay inside the report folder; "
                         f"got {rel!r}")
    return path


def verify_report(report_dir: str | os.PathLike, *, rtol: float = DEFAULT_RTOL,
                  atol: float = DEFAULT_ATOL) -> Verification:
    """Re-compute a report from the inputs stored in it and compare with ``results.json``.

    Parameters
    ----------
    report_dir : path
        A folder written by ``hydrocalc report``.
    rtol, atol : float
        Tolerances for numbers (see the module docstring).

    Returns
    -------
    Verification
        ``.ok`` is True when every value agrees and every input's SHA-256 matches.

    Raises
    ------
    InputError
        If the folder has no readable ``results.json``.
    """
    import hydrocalc
    from hydrocalc import data
    from hydrocalc.report import sections as S
    from hydrocalc.report.execute import sha256_file

    base = pathlib.Path(report_dir)
    results_path = base / "results.json"
    if not results_path.is_file():
        raise InputError(f"REPORT_DIR must hold a results.json written by hydrocalc report; "
                         f"got {str(base)!r} without one.")
    try:
        reported = json.loads(results_path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"results.json must be valid JSON; got an error: {exc}") from None
    if not isinstance(reported, dict) or "sections" not in reported:
        raise InputError("results.json must hold the 'sections' written by hydrocalc report; "
                         "got none.")
    diffs: list[Difference] = []
    notes: list[Difference] = []
    counter = _Counter()

    # inputs: present and unchanged
    for rel, digest in sorted(reported.get("inputs", {}).items()):
        path = _inside(base / "inputs", rel)
        where = f"inputs/{rel} (sha256)"
        if not path.is_file():
            diffs.append(Difference(where, digest, _MISSING, "input"))
        else:
            got = sha256_file(path)
            if got != digest:
                diffs.append(Difference(where, digest, got, "input"))
    if reported.get("hydrocalc_version") != hydrocalc.__version__:
        notes.append(Difference("hydrocalc_version", reported.get("hydrocalc_version"),
                                hydrocalc.__version__, "note"))
    current_tables = data.table_hashes()
    for name in sorted(set(reported.get("data_tables", {})) | set(current_tables)):
        a = reported.get("data_tables", {}).get(name, _MISSING)
        b = current_tables.get(name, _MISSING)
        if a != b:
            notes.append(Difference(f"data table {name} (sha256)", a, b, "note"))

    # re-compute every section from the stored site file
    params = reported.get("parameters", {})
    site_rel = params.get("site_file", "")
    site_path = _inside(base, site_rel)
    keys = list(reported["sections"])
    try:
        S.validate_site(site_path)
    except HydrocalcError as exc:
        diffs.append(Difference(f"{site_rel} (load_site)", "loads", str(exc).splitlines()[0],
                                "input"))
        return Verification(base, rtol, atol, diffs, notes, counter.numbers, counter.values)
    for key in keys:
        if key not in S.SECTIONS:
            diffs.append(Difference(f"sections / {key}", "present", "unknown section", "extra"))
            continue
        try:
            fresh = S.build_section(key, str(site_path), sections=keys, figures=False).to_dict()
        except HydrocalcError as exc:
            diffs.append(Difference(f"sections / {key}", "computed", f"error: {exc}"))
            continue
        fresh = json.loads(json.dumps(fresh))
        rep = {k: v for k, v in reported["sections"][key].items() if k not in _SKIP_SECTION_KEYS}
        fresh = {k: v for k, v in fresh.items() if k not in _SKIP_SECTION_KEYS}
        diffs.extend(compare_values(rep, fresh, key, rtol=rtol, atol=atol, _counter=counter))
    if "analysis" in reported:
        # version and table hashes are reported as notes above, not as differences
        drop = ("format", "hydrocalc_version", "data_tables_sha256")
        rep = {k: v for k, v in reported["analysis"].items() if k not in drop}
        fresh = {k: v for k, v in S.analysis_dict(site_path).items() if k not in drop}
        diffs.extend(compare_values(rep, fresh, "analysis", rtol=rtol, atol=atol,
                                    _counter=counter))
    project = S.project_facts_dict(S.validate_site(site_path))
    diffs.extend(compare_values(reported.get("project"), json.loads(json.dumps(project)),
                                "project", rtol=rtol, atol=atol, _counter=counter))
    return Verification(base, rtol, atol, diffs, notes, counter.numbers, counter.values)
