"""What a person reads in a report folder, checked against the re-computation.

:func:`check_artifacts` is the second half of ``hydrocalc verify`` (the first,
:mod:`hydrocalc.report.verify`, re-computes every section and compares ``results.json``):

- **CSV tables** (``tables/<section>__<table>.csv``) are re-derived from the re-computed
  tables and compared cell by cell (numbers within the tolerance); a missing, extra or
  symlinked file is a difference.
- **Section JSON** (``sections/<key>.json``) is compared with the re-computed section.
- **tables.xlsx** (when the report has it): every table sheet is compared cell by cell with
  the re-computed table; a cell holding a formula is a difference. The workbook is read as
  data (openpyxl, no formula is evaluated, no macro run).
- **report.html** (when the report has it): every table of every section is compared cell
  by cell with the re-computed table as the report displays it (reporting precision), and
  each section's narrative must be the re-computed narrative.
- **report.pdf** (when the report has it): its attached ``results.json`` must equal the
  folder's (apart from timestamps and artefact hashes) and its attached inputs must be the
  folder's inputs; the numbers of every re-computed table must appear, in order, in the PDF's
  text.
- **Every artefact's SHA-256**, recorded in ``results.json`` at build time, is re-derived;
  figures (PNG) are checked this way only (a drawing cannot be re-derived bit for bit).

Nothing in the folder is executed or unpickled.
"""

from __future__ import annotations

import csv
import hashlib
import html
import io
import json
import math
import pathlib
import re
from collections.abc import Mapping, Sequence

from hydrocalc.errors import InputError
from hydrocalc.report.assemble import markdown_to_html
from hydrocalc.report.compare import _MISSING, Difference, compare_values
from hydrocalc.report.execute.outputs import artifact_hashes
from hydrocalc.report.typeset import pdf_attachments_of

__all__ = ["check_artifacts"]

_OUTPUTS = {"html": "report.html", "pdf": "report.pdf", "xlsx": "tables.xlsx"}


def _num(text):
    try:
        value = float(str(text).replace(",", ""))
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _same(a, b, rtol: float, atol: float) -> bool:
    if a == b:
        return True
    x, y = _num(a), _num(b)
    if x is not None and y is not None and not isinstance(a, bool) and not isinstance(b, bool):
        return math.isclose(x, y, rel_tol=rtol, abs_tol=atol)
    return False


def _row_name(table, row_values: list, i: int) -> str:
    cols = table.columns
    parts = [str(row_values[cols.index(k)]) for k in table.keys() if k in cols
             and cols.index(k) < len(row_values)]
    return f"[{', '.join(parts)}]" if parts else f"[row {i + 1}]"


def _compare_grid(where: str, table, expected: list[list], found: list[list], *,
                  rtol: float, atol: float, labels: list[str] | None = None,
                  exact: bool = False) -> list[Difference]:
    """Cell-by-cell comparison of a table's body rows (numbers within tolerance)."""
    out: list[Difference] = []
    names = labels or table.columns
    raw = table.rows()
    if len(found) != len(expected):
        out.append(Difference(f"{where} (number of rows)", len(found), len(expected)))
    for i, (exp, got) in enumerate(zip(expected, found, strict=False)):
        row = _row_name(table, raw[i] if i < len(raw) else exp, i)
        if len(got) != len(exp):
            out.append(Difference(f"{where} {row} (number of cells)", len(got), len(exp)))
            continue
        for col, a, b in zip(names, exp, got, strict=False):
            ok = (a == b) if exact else _same(a, b, rtol, atol)
            if not ok:
                if not exact:  # numbers read from text are shown as numbers (readable)
                    a = _num(a) if isinstance(a, str) and _num(a) is not None else a
                    b = _num(b) if isinstance(b, str) and _num(b) is not None else b
                out.append(Difference(f"{where} {row} / {col}", b, a))
    return out


# -- CSV -------------------------------------------------------------------------------
def _csv_rows(text: str) -> list[list[str]]:
    return [r for r in csv.reader(io.StringIO(text))]


def _check_csv(base: pathlib.Path, fresh_sections: Mapping, rtol, atol) -> list[Difference]:
    out: list[Difference] = []
    expected_files = set()
    for key, res in fresh_sections.items():
        for name, table in res.tables.items():
            rel = f"tables/{key}__{name}.csv"
            expected_files.add(rel)
            path = base / rel
            if path.is_symlink():
                continue  # refused with every other link
            if not path.is_file():
                out.append(Difference(rel, _MISSING, "the table", "missing"))
                continue
            try:
                found = _csv_rows(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, csv.Error) as exc:
                out.append(Difference(rel, f"unreadable ({exc})", "CSV text", "artifact"))
                continue
            exp = _csv_rows(table.to_csv())
            if not found or found[0] != exp[0]:
                out.append(Difference(f"{rel} (header)", found[0] if found else _MISSING,
                                      exp[0]))
                continue
            out.extend(_compare_grid(f"{key} / {name} ({rel})", table, exp[1:], found[1:],
                                     rtol=rtol, atol=atol))
    if (base / "tables").is_dir():
        for path in sorted((base / "tables").iterdir()):
            rel = f"tables/{path.name}"
            if rel not in expected_files and not path.is_symlink():
                out.append(Difference(rel, "present", "not part of this report", "extra"))
    return out


# -- sections/*.json and figures -------------------------------------------------------
def _check_section_files(base, fresh_sections, rtol, atol,
                         custom_keys: Sequence[str] = ()) -> list[Difference]:
    out: list[Difference] = []
    wanted_json = {f"sections/{k}.json" for k in fresh_sections}
    wanted_png = {f"figures/{k}__{n}.png" for k, r in fresh_sections.items()
                  for n in r.figures}
    # the figures a section of the engineer's own displayed: reproduced by re-running it
    folder = base / "figures"
    wanted_png |= {f"figures/{p.name}" for p in (folder.iterdir() if folder.is_dir() else ())
                   if any(p.name.startswith(f"{k}__figure_") for k in custom_keys)}
    for key, res in fresh_sections.items():
        rel = f"sections/{key}.json"
        path = base / rel
        if path.is_symlink():
            continue
        if not path.is_file():
            out.append(Difference(rel, _MISSING, "the section", "missing"))
            continue
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError) as exc:
            out.append(Difference(rel, f"unreadable ({str(exc)[:60]})", "JSON", "artifact"))
            continue
        if not isinstance(doc, dict):
            out.append(Difference(rel, type(doc).__name__, "a JSON object", "artifact"))
            continue
        fresh = json.loads(json.dumps(res.to_dict()))
        skip = ("parameters", "schema")
        out.extend(compare_values({k: v for k, v in doc.items() if k not in skip},
                                  {k: v for k, v in fresh.items() if k not in skip},
                                  rel, rtol=rtol, atol=atol))
    for sub, wanted in (("sections", wanted_json), ("figures", wanted_png)):
        folder = base / sub
        present = {f"{sub}/{p.name}" for p in folder.iterdir()} if folder.is_dir() else set()
        for rel in sorted(wanted - present):
            out.append(Difference(rel, _MISSING, "the file", "missing"))
        for rel in sorted(present - wanted):
            if not (base / rel).is_symlink():
                out.append(Difference(rel, "present", "not part of this report", "extra"))
    return out


# -- hashes recorded at build time -----------------------------------------------------
def _check_hashes(base, reported) -> list[Difference]:
    out: list[Difference] = []
    recorded = reported.get("artifacts")
    if recorded is None:
        return [Difference("artifacts", _MISSING, "the SHA-256 of every file", "missing")]
    actual = artifact_hashes(base)
    for rel in sorted(set(recorded) | set(actual)):
        a, b = actual.get(rel, _MISSING), recorded.get(rel, _MISSING)
        if a is _MISSING:
            if not (base / rel).is_symlink():
                out.append(Difference(f"{rel} (sha256)", _MISSING, b, "missing"))
        elif b is _MISSING:
            out.append(Difference(f"{rel} (sha256)", a, "not recorded at build time", "extra"))
        elif a != b:
            out.append(Difference(f"{rel} (sha256)", a, b, "artifact"))
    return out


# -- tables.xlsx -----------------------------------------------------------------------
def _check_xlsx(base, fresh_sections, rtol, atol) -> list[Difference]:
    from openpyxl import load_workbook

    path = base / "tables.xlsx"
    out: list[Difference] = []
    try:
        wb = load_workbook(path, read_only=True, data_only=False)
    except Exception as exc:  # noqa: BLE001 - any unreadable workbook is one difference
        return [Difference("tables.xlsx", f"unreadable ({type(exc).__name__})",
                           "an Excel workbook", "artifact")]
    try:
        sheets = {}
        if "contents" in wb.sheetnames:
            for row in wb["contents"].iter_rows(values_only=True):
                if row and len(row) > 2 and isinstance(row[0], str) and row[1] in fresh_sections:
                    sheets[(row[1], row[2])] = row[0]
        for key, res in fresh_sections.items():
            for name, table in res.tables.items():
                where = f"{key} / {name} (tables.xlsx)"
                sheet = sheets.get((key, name))
                if sheet is None or sheet not in wb.sheetnames:
                    out.append(Difference(where, _MISSING, "the sheet", "missing"))
                    continue
                found, formulas = [], []
                for r, cells in enumerate(wb[sheet].iter_rows()):
                    values = []
                    for c, cell in enumerate(cells):
                        if cell.data_type == "f":
                            formulas.append((r, c, cell.value))
                        values.append(cell.value)
                    found.append(values)
                for r, c, value in formulas:
                    out.append(Difference(f"{where} sheet {sheet!r} row {r + 1} column "
                                          f"{c + 1}", f"formula {str(value)[:40]}",
                                          "a value (no formulas)", "artifact"))
                head = [v for v in (found[1] if len(found) > 1 else []) if v is not None]
                if head != table.columns:
                    out.append(Difference(f"{where} (columns)", head, table.columns))
                    continue
                expected = [[_xl(v) for v in row] for row in table.rows()]
                body = [[_xl(v) for v in row[:len(table.columns)]] +
                        [None] * max(0, len(table.columns) - len(row)) for row in found[2:]]
                out.extend(_compare_grid(where, table, expected, body, rtol=rtol, atol=atol))
    finally:
        wb.close()
    return out


def _xl(value):
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False)
    if value == "":
        return None
    return value


# -- report.html -----------------------------------------------------------------------
_TAG = re.compile(r"<[^>]+>")
_ROW = re.compile(r"<tr>(.*?)</tr>", re.S)
_CELL = re.compile(r"<t[dh][^>]*>(.*?)</t[dh]>", re.S)


def _cells(fragment: str) -> list[list[str]]:
    rows = []
    for row in _ROW.findall(fragment):
        rows.append([html.unescape(_TAG.sub("", c)).strip() for c in _CELL.findall(row)])
    return rows


def _table_fragment(part: str, name: str) -> str | None:
    start = part.find(f'<div class="hc-table-wrap" id="table-{html.escape(name)}">')
    if start < 0:
        return None
    end = part.find("</table>", start)
    return part[start:end] if end >= 0 else part[start:]


def _check_html(base, fresh_sections, rtol, atol, n_custom: int = 0) -> list[Difference]:
    text = (base / "report.html").read_text(encoding="utf-8", errors="replace")
    parts = text.split('<section class="report-section">')[1:]
    out: list[Difference] = []
    keys = list(fresh_sections)
    if len(parts) != len(keys) + n_custom:
        out.append(Difference("report.html (number of sections)", len(parts),
                              len(keys) + n_custom))
    for key, part in zip(keys, parts, strict=False):
        res = fresh_sections[key]
        if res.narrative_md and markdown_to_html(res.narrative_md) not in part:
            out.append(Difference(f"{key} (report.html narrative)", "differs",
                                  res.narrative_md[:70]))
        for name, table in res.tables.items():
            where = f"{key} / {name} (report.html)"
            fragment = _table_fragment(part, name)
            if fragment is None:
                out.append(Difference(where, _MISSING, "the table", "missing"))
                continue
            exp_rows = _cells(table.to_html())
            got_rows = _cells(fragment)
            if not got_rows or got_rows[0] != exp_rows[0]:
                out.append(Difference(f"{where} (header)", got_rows[0] if got_rows
                                      else _MISSING, exp_rows[0]))
                continue
            out.extend(_compare_grid(where, table, exp_rows[1:], got_rows[1:], rtol=rtol,
                                     atol=atol, labels=exp_rows[0], exact=True))
    return out


# -- report.pdf ------------------------------------------------------------------------
_TIME_KEYS = ("timestamps", "artifacts")


def _check_pdf(base, reported, fresh_sections, rtol, atol) -> list[Difference]:
    out: list[Difference] = []
    try:
        attached = pdf_attachments_of(base / "report.pdf")
    except InputError:
        return [Difference("report.pdf", "unreadable", "a PDF", "artifact")]
    embedded = attached.get("results.json")
    if embedded is None:
        return [Difference("report.pdf (attached results.json)", _MISSING, "attached",
                           "missing")]
    try:
        doc = json.loads(embedded.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return [Difference("report.pdf (attached results.json)", "unreadable", "JSON",
                           "artifact")]
    if not isinstance(doc, dict):
        return [Difference("report.pdf (attached results.json)", type(doc).__name__,
                           "a JSON object", "artifact")]
    out.extend(compare_values({k: v for k, v in doc.items() if k not in _TIME_KEYS},
                              {k: v for k, v in reported.items() if k not in _TIME_KEYS},
                              "report.pdf (attached results.json)", rtol=0.0, atol=0.0))
    for rel, digest in reported.get("inputs", {}).items():
        data = attached.get(f"inputs/{rel}")
        got = hashlib.sha256(data).hexdigest() if data is not None else _MISSING
        if got != digest:
            out.append(Difference(f"report.pdf (attached inputs/{rel}) (sha256)", got, digest,
                                  "artifact" if data is not None else "missing"))
    out.extend(_check_pdf_text(base / "report.pdf", fresh_sections))
    return out


def _pdf_tokens(path: pathlib.Path) -> list[str]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        words = []
        for i in range(len(doc)):
            page = doc[i]
            words.extend(page.get_textpage().get_text_range().split())
            page.close()
        return words
    finally:
        doc.close()


def _check_pdf_text(path: pathlib.Path, fresh_sections) -> list[Difference]:
    """The numbers of every re-computed table, as displayed, in order in the PDF's text."""
    tokens = _pdf_tokens(path)
    out: list[Difference] = []
    pos = 0
    for key, res in fresh_sections.items():
        for name, table in res.tables.items():
            cols = table.columns
            raw = table.rows()
            for i, row in enumerate(table.frame.itertuples(index=False, name=None)):
                for col, value in zip(cols, row, strict=False):
                    text, numeric = table._format_cell(col, value)
                    if not numeric:
                        continue
                    try:
                        pos = tokens.index(text, pos) + 1
                    except ValueError:
                        out.append(Difference(
                            f"{key} / {name} (report.pdf text) "
                            f"{_row_name(table, raw[i], i)} / {col}",
                            "not found in order", text))
                        return out  # one is enough: the rest would cascade
    return out


def check_artifacts(base: pathlib.Path, reported: Mapping, fresh_sections: Mapping, *,
                    rtol: float, atol: float) -> list[Difference]:
    """Every human-readable file of a report folder against the re-computation.

    See the module docstring; returns the differences.
    """
    out: list[Difference] = []
    formats = reported.get("parameters", {}).get("formats", [])
    custom = reported.get("custom_sections") or []
    custom_keys = [str(c.get("key", "")) for c in custom if isinstance(c, Mapping)]
    for fmt, name in _OUTPUTS.items():
        present = (base / name).is_file() and not (base / name).is_symlink()
        if fmt in formats and not present and not (base / name).is_symlink():
            out.append(Difference(name, _MISSING, "the file", "missing"))
        elif fmt not in formats and present:
            out.append(Difference(name, "present", "not part of this report", "extra"))
    out.extend(_check_hashes(base, reported))
    out.extend(_check_csv(base, fresh_sections, rtol, atol))
    out.extend(_check_section_files(base, fresh_sections, rtol, atol, custom_keys))
    if "xlsx" in formats and (base / "tables.xlsx").is_file():
        out.extend(_check_xlsx(base, fresh_sections, rtol, atol))
    if "html" in formats and (base / "report.html").is_file():
        out.extend(_check_html(base, fresh_sections, rtol, atol, len(custom)))
    if "pdf" in formats and (base / "report.pdf").is_file():
        out.extend(_check_pdf(base, reported, fresh_sections, rtol, atol))
    return out
