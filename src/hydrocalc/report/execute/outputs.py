"""Assembling a report's outputs: ``results.json``, artefact hashes, PDF, workbook.

:func:`results_document` gathers every section's tables, the inputs' and data tables'
hashes and the parameters; :func:`dump_results` writes it canonically; the PDF is typeset
from the same results (:mod:`hydrocalc.report.typeset`) and the workbook written with
openpyxl.

Part of :mod:`hydrocalc.report.execute`; every name is importable from there.
"""

from __future__ import annotations

import contextlib
import datetime
import gc
import io
import json
import os
import pathlib
import re
import sys
import threading
import time
from collections.abc import Mapping, Sequence

from hydrocalc import data
from hydrocalc.errors import ReportError
from hydrocalc.report import sections as S
from hydrocalc.report.compare import DEFAULT_ATOL, DEFAULT_RTOL
from hydrocalc.report.execute.staging import sha256_file
from hydrocalc.report.reproducible import document_datetime, normalized_ooxml
from hydrocalc.report.tables import canonical_json
from hydrocalc.report.typeset import write_pdf

RESULTS_SCHEMA = "hydrocalc.report.results/1"


def _canonical(value) -> str:
    return canonical_json(value)


def dump_results(results: dict) -> str:
    """results.json text (sorted keys, no NaN)."""
    return json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True,
                      allow_nan=False) + "\n"


#: Files of a report folder whose SHA-256 results.json records (``artifacts``).
ARTIFACT_GLOBS = ("report.html", "report.pdf", "tables.xlsx", "tables/*.csv",
                  "figures/*.png", "sections/*.json")


def artifact_hashes(folder: pathlib.Path) -> dict[str, str]:
    """SHA-256 of every human-readable artefact in a report folder (relative path -> hash)."""
    out = {}
    for pattern in ARTIFACT_GLOBS:
        for path in sorted(folder.glob(pattern)):
            if path.is_file() and not path.is_symlink():
                out[path.relative_to(folder).as_posix()] = sha256_file(path)
    return dict(sorted(out.items()))


def results_document(site, site_path: pathlib.Path, site_rel: str, input_hashes: dict,
                     keys: Sequence[str], fmts: Sequence[str], sections_out: dict,
                     timestamps: dict, *, analysis: dict | None = None,
                     summary: dict | None = None) -> dict:
    """The results.json document: provenance, every section's results, the analysis.

    Everything that varies from run to run lives under ``timestamps``; the rest is a
    function of the inputs and the hydrocalc version (two runs give identical documents
    apart from ``timestamps``). ``analysis`` and ``summary`` are computed from
    ``site_path`` unless given.
    """
    import hydrocalc

    return {
        "schema": RESULTS_SCHEMA,
        "hydrocalc_version": hydrocalc.__version__,
        "project": S.project_facts_dict(site),
        "parameters": {"site_file": site_rel, "sections": list(keys), "formats": list(fmts)},
        "inputs": input_hashes,
        "data_tables": data.table_hashes(),
        "tolerances": {"rtol": _verify_rtol(), "atol": _verify_atol()},
        "sections": sections_out,
        "analysis": analysis if analysis is not None else S.analysis_dict(site_path),
        "summary": summary if summary is not None else S.summary_dict(site_path),
        "timestamps": timestamps,
    }


def _verify_rtol() -> float:
    return DEFAULT_RTOL


def _verify_atol() -> float:
    return DEFAULT_ATOL


def pdf_attachments(staging: pathlib.Path, results: dict) -> dict[str, bytes]:
    """The files a report's PDF embeds: ``results.json`` and every stored input file."""
    out = {"results.json": dump_results(results).encode("utf-8")}
    for rel in results.get("inputs", {}):
        out[f"inputs/{rel}"] = (staging / "inputs" / rel).read_bytes()
    return out


def _start_pdf(staging: pathlib.Path, results: dict, fmts: Sequence[str], meta: Mapping,
               stages: dict, shown: Sequence[Mapping]):
    """Typeset report.pdf in a background thread (typst releases the GIL).

    ``shown``: every section's presentation, in report order, as the executed notebooks
    displayed it (figures read from the staging folder). Returns a future of the page
    count, or None when no PDF is wanted.
    """
    if "pdf" not in fmts:
        return None
    from concurrent.futures import Future


    attachments = pdf_attachments(staging, results)
    future: Future = Future()

    def work():
        t = time.perf_counter()
        try:
            future.set_result(write_pdf(list(shown), meta, staging / "report.pdf",
                                        attachments=attachments,
                                        timestamp=document_date(results),
                                        figure_root=staging))
        except BaseException as exc:  # noqa: BLE001 - re-raised by future.result()
            future.set_exception(exc)
        stages["pdf_s"] = round(time.perf_counter() - t, 3)

    threading.Thread(target=work, daemon=True, name="hydrocalc-typst").start()
    return future


#: The modules each output format is written with, imported on first use.
WRITER_MODULES = {"xlsx": ("openpyxl", "openpyxl.styles"), "html": ("hydrocalc.report.assemble",),
                  "pdf": ("typst",)}


def preload_writers(fmts: Sequence[str]) -> threading.Thread:
    """Import the writers of ``fmts`` in a background thread; returns the thread (started).

    A report process waits on its kernels while they execute the notebooks; importing
    openpyxl and the others then, instead of after, takes them off the end of the run (about
    half a second for a ``hydrocalc report`` process, which imports them for the first time).
    Only an import: a failure here is raised again, with its message, where the writer runs.
    """
    import importlib

    def work() -> None:
        for fmt in fmts:
            for name in WRITER_MODULES.get(fmt, ()):
                with contextlib.suppress(Exception):
                    importlib.import_module(name)

    thread = threading.Thread(target=work, daemon=True, name="hydrocalc-writers")
    thread.start()
    return thread


def document_date(results: Mapping) -> datetime.datetime:
    """The document date of a report.

    ``timestamps.document_utc`` of its results, or for results without one,
    :func:`hydrocalc.report.reproducible.document_datetime`.
    """
    text = (results.get("timestamps") or {}).get("document_utc")
    return datetime.datetime.fromisoformat(text) if text else document_datetime()


def write_file_or_fail(path: pathlib.Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file beside it.

    The file is moved into place when complete; a full disk (or any OSError) removes the
    temporary file and is one ReportError line naming the file.
    """
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise ReportError(f"{path.name} could not be written to {path.parent}: "
                          f"{exc.strerror or exc}. Free some disk space or choose another "
                          "--out folder") from None


#: Sheet-name prefix of a section whose key is long (Excel allows 31 characters a name).
SHEET_SECTION_LABELS = {"hydrology_pre": "pre", "hydrology_post": "post"}

#: Excel's limit on the length of a sheet name.
SHEET_NAME_MAX = 31


def sheet_name(section: str, table: str, used: set[str]) -> str:
    """The Excel sheet name of a report table: ``<section>.<table>``, at most 31 characters.

    Long section keys get a short label (:data:`SHEET_SECTION_LABELS`: ``pre``, ``post``).
    A name still too long is shortened word by word, never cut mid-name at a fixed width:
    the longest word (``_``-separated; the last one on ties) loses one letter at a time, so
    sibling tables (``pre.subcatchment_methods``, ``post.subcatchment_methods``) are
    shortened alike. A name already in ``used`` (case-insensitive) gets ``~2``, ``~3``...;
    the chosen name is added to ``used``.

    Examples
    --------
    >>> used = set()
    >>> sheet_name("hydrology_post", "subcatchment_methods", used)
    'post.subcatchment_methods'
    >>> sheet_name("inspections", "inspections_by_month", used)
    'inspections.inspection_by_month'
    """
    bad = '[]:*?/\\'
    label = SHEET_SECTION_LABELS.get(section, section)
    full = "".join("_" if c in bad else c for c in f"{label}.{table}") or "sheet"
    base = _shorten_words(full, SHEET_NAME_MAX)
    out, n = base, 1
    while out.lower() in used:
        n += 1
        suffix = f"~{n}"
        out = _shorten_words(full, SHEET_NAME_MAX - len(suffix)) + suffix
    used.add(out.lower())
    return out


def _shorten_words(name: str, limit: int) -> str:
    """``name`` shortened to ``limit`` characters, a letter at a time off its longest word.

    Words: runs between ``.``, ``_``, ``-`` and spaces.
    """
    parts = re.split(r"([._\- ])", name)
    words = list(range(0, len(parts), 2))
    while sum(len(x) for x in parts) > limit:
        longest = max(words, key=lambda i: (len(parts[i]), i))
        if len(parts[longest]) <= 1:
            return "".join(parts)[:limit]
        parts[longest] = parts[longest][:-1]
    return "".join(parts)


def _text_cell(ws, value, font=None):
    """A write-only cell; text is always stored as text (never a formula)."""
    from openpyxl.cell import WriteOnlyCell

    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False)
    cell = WriteOnlyCell(ws, value=value)
    if isinstance(value, str):
        cell.data_type = "s"  # "=HYPERLINK(...)" stays the text it is
    if font is not None:
        cell.font = font
    return cell


def _write_workbook(path: pathlib.Path, results: dict) -> None:
    """One Excel workbook: a contents sheet, then one sheet per table (full precision).

    Every text cell is written as text: a name or description starting with ``=``, ``+``,
    ``-`` or ``@`` is shown as typed, never evaluated as a formula. The workbook is built
    in memory and written in one piece with fixed metadata (byte-reproducible). A full disk
    (openpyxl also writes temporary sheet files) is one ReportError line; the half-built
    workbook's streams are closed at once, without "Exception ignored" messages.
    """
    failure = None
    with _unraisable_ignored():
        try:
            data = _workbook_bytes(results)
        except Exception as exc:  # noqa: BLE001 - a full disk reaches openpyxl as OSError
            failure = f"{type(exc).__name__}: {str(exc)[:200]}"  # or lxml's IO_ENOSPC
        if failure is not None:
            gc.collect()  # the failed workbook's open streams are finalized here, quietly
    if failure is not None:
        raise ReportError(f"{path.name} could not be written: {failure}. Free some disk "
                          "space (also in the temporary folder) or choose another --out "
                          "folder")
    write_file_or_fail(path, normalized_ooxml(data, document_date(results)))


@contextlib.contextmanager
def _unraisable_ignored():
    """Within the block, errors Python cannot raise are dropped instead of printed.

    Such errors arise in ``__del__`` or in a generator being closed
    (``sys.unraisablehook``).
    """
    old = sys.unraisablehook
    sys.unraisablehook = lambda unraisable: None
    try:
        yield
    finally:
        sys.unraisablehook = old


def _workbook_bytes(results: dict) -> bytes:
    """The workbook of :func:`_write_workbook` as .xlsx bytes (metadata not yet fixed)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    bold, title = Font(bold=True), Font(bold=True, size=12)
    wb = Workbook(write_only=True)
    contents = wb.create_sheet("contents")
    contents.column_dimensions["A"].width = 32
    contents.column_dimensions["B"].width = 28

    def row(ws, values, font=None):
        ws.append([_text_cell(ws, v, font) for v in values])

    row(contents, ["hydrocalc SWPPP hydrology report tables"], title)
    row(contents, ["project", results.get("project", {}).get("name", "")])
    row(contents, ["hydrocalc version", results.get("hydrocalc_version", "")])
    for rel, digest in results.get("inputs", {}).items():
        row(contents, ["input file", rel, digest])
    row(contents, [])
    row(contents, ["sheet", "section", "table", "title", "sha256"], bold)
    used = {"contents"}
    sheets = []
    for key, section in results["sections"].items():
        for tname, table in section.get("tables", {}).items():
            sheet = sheet_name(key, tname, used)
            row(contents, [sheet, key, tname, table.get("title", ""), table.get("sha256")])
            sheets.append((sheet, table))
    for sheet, table in sheets:
        ws = wb.create_sheet(sheet)
        ws.freeze_panes = "A3"
        row(ws, [table.get("title", "")], bold)
        row(ws, table["columns"], bold)
        for values in table["rows"]:
            row(ws, values)
    buf = io.BytesIO()  # in memory: a full disk cannot interrupt the zip writer
    wb.save(buf)
    return buf.getvalue()


