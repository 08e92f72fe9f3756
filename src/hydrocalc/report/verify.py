"""``hydrocalc verify REPORT``: re-compute a report from its inputs and compare everything.

A reviewer receives a report folder (or only its PDF). :func:`verify_report` reads only
*data*: ``results.json`` and the copies of the input files under ``inputs/`` (TOML and CSV,
parsed, never executed), or the same files attached to ``report.pdf``
(:func:`verify_pdf`, which extracts them into an empty temporary folder). It checks each
input's SHA-256, loads the stored site file with :func:`hydrocalc.site.load_site`,
re-computes **every section the report's parameters call for** in this process
(:func:`hydrocalc.report.sections.build_section`; no notebook, no kernel, no pickle), and
fails on anything missing, extra or different:

- every value of ``results.json``: sections, tables, the analysis, the project facts;
  numbers agree when ``|reported - recomputed| <= atol + rtol * |recomputed|`` (defaults
  ``rtol = 1e-6``, ``atol = 1e-9``, stated in the output); texts, booleans, integers and
  missing values must be equal; a section or table the site calls for that is absent is
  reported as missing;
- every human-readable file of a folder (CSV tables, section JSON, ``tables.xlsx``,
  ``report.html``, ``report.pdf``): see :mod:`hydrocalc.report.verify_artifacts`;
- symbolic links anywhere in the folder are refused; malformed ``results.json`` (wrong
  types, nesting deeper than 64 levels) is one :class:`~hydrocalc.errors.InputError` line.

A difference is named ``section / table [row keys] / column`` with the value the report
shows and the recomputed one, at the fewest digits that tell them apart (never in
scientific notation). The executed notebooks are not read (a submitted notebook is data,
not code to run). The hydrocalc version and the shipped data tables' hashes are compared
and reported as notes (they explain differences; they are not differences themselves).
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import tempfile

from hydrocalc import data
from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.report import sections as S
from hydrocalc.report import verify_artifacts as VA
from hydrocalc.report.compare import (  # noqa: F401 (re-exported: public names of verify)
    _MISSING,
    _SKIP_SECTION_KEYS,
    DEFAULT_ATOL,
    DEFAULT_RTOL,
    Difference,
    Verification,
    _Counter,
    compare_values,
)
from hydrocalc.report.execute.staging import sha256_file
from hydrocalc.report.typeset import pdf_attachments_of

__all__ = ["Difference", "Verification", "verify_report", "verify_pdf", "compare_values",
           "DEFAULT_RTOL", "DEFAULT_ATOL"]


_MAX_DEPTH = 64  #: deepest JSON nesting results.json may have (it needs about 8)
_MAX_RESULTS_BYTES = 200 * 1024 * 1024
_ATTACHMENT_NAME = re.compile(r"^(results\.json|inputs/[A-Za-z0-9_][A-Za-z0-9_ .,()+\-/]*)$")


def _inside(base: pathlib.Path, rel: str) -> pathlib.Path:
    if not isinstance(rel, str) or not rel:
        raise InputError(f"results.json input path must be a non-empty text; got {rel!r}")
    path = (base / rel).resolve()
    if not path.is_relative_to(base.resolve()):
        raise InputError(f"results.json input path must stay inside the report folder; "
                         f"got {rel!r}")
    return path


def _depth(value) -> int:
    """Nesting depth of a JSON value, without recursion."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, d = stack.pop()
        deepest = max(deepest, d)
        if d > _MAX_DEPTH:
            return d
        if isinstance(item, dict):
            stack.extend((v, d + 1) for v in item.values())
        elif isinstance(item, list):
            stack.extend((v, d + 1) for v in item)
    return deepest


def _load_results(path: pathlib.Path, label: str) -> dict:
    """results.json parsed and its shape checked; any problem is one InputError line."""
    if path.is_symlink():
        raise InputError(f"{label} must be a regular file; got a symbolic link (refused)")
    if path.stat().st_size > _MAX_RESULTS_BYTES:
        raise InputError(f"{label} must be at most {_MAX_RESULTS_BYTES // 2**20} MB; got "
                         f"{path.stat().st_size // 2**20} MB")
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except RecursionError:
        raise InputError(f"{label} must be JSON nested at most {_MAX_DEPTH} levels deep; got "
                         "deeper nesting") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise InputError(f"{label} must be valid JSON; got an error: {exc}") from None
    if _depth(doc) > _MAX_DEPTH:
        raise InputError(f"{label} must be JSON nested at most {_MAX_DEPTH} levels deep; got "
                         "deeper nesting")
    if not isinstance(doc, dict):
        raise InputError(f"{label} must hold a JSON object; got {type(doc).__name__}")
    if "sections" not in doc:
        raise InputError(f"{label} must hold the 'sections' written by hydrocalc report; "
                         "got none.")
    shape = {"sections": dict, "inputs": dict, "parameters": dict, "project": dict,
             "analysis": dict, "artifacts": dict, "data_tables": dict}
    for key, kind in shape.items():
        if key in doc and not isinstance(doc[key], kind):
            raise InputError(f"{label} field {key!r} must be a JSON object; got "
                             f"{type(doc[key]).__name__}")
    for key, section in doc["sections"].items():
        if not isinstance(section, dict):
            raise InputError(f"{label} section {key!r} must be a JSON object; got "
                             f"{type(section).__name__}")
        tables = section.get("tables", {})
        if not isinstance(tables, dict) or not all(isinstance(t, dict)
                                                   for t in tables.values()):
            raise InputError(f"{label} section {key!r} field 'tables' must map names to "
                             "tables")
        for name, table in tables.items():
            _check_table_shape(table, f"{label} sections.{key}.tables.{name}")
    for key in ("inputs", "artifacts", "data_tables"):
        for rel, digest in doc.get(key, {}).items():
            if not isinstance(digest, str):
                raise InputError(f"{label} {key} entry {rel!r} must be a SHA-256 text; got "
                                 f"{type(digest).__name__}")
    params = doc.get("parameters", {})
    if "site_file" in params and not isinstance(params["site_file"], str):
        raise InputError(f"{label} parameters.site_file must be a text; got "
                         f"{type(params['site_file']).__name__}")
    for key in ("sections", "formats"):
        if key in params and not (isinstance(params[key], list)
                                  and all(isinstance(v, str) for v in params[key])):
            raise InputError(f"{label} parameters.{key} must be a list of texts; got "
                             f"{params[key]!r:.60}")
    return doc


def _check_table_shape(table: dict, where: str) -> None:
    """Check the shape of a stored table; InputError naming the field if it is wrong.

    ``columns`` and ``key_columns`` are lists of texts, ``rows`` a list of lists.
    """
    for field in ("columns", "key_columns"):
        value = table.get(field, [])
        if not (isinstance(value, list) and all(isinstance(v, str) for v in value)):
            raise InputError(f"{where}.{field} must be a list of column names (texts); got "
                             f"{_excerpt_json(value)}")
    rows = table.get("rows", [])
    if not isinstance(rows, list):
        raise InputError(f"{where}.rows must be a list of rows (lists); got "
                         f"{_excerpt_json(rows)}")
    for i, row in enumerate(rows):
        if not isinstance(row, list):
            raise InputError(f"{where}.rows[{i}] must be a list of values; got "
                             f"{_excerpt_json(row)}")


def _excerpt_json(value, width: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 3] + "..."


def _symlinks(base: pathlib.Path) -> list[str]:
    """Every symbolic link under ``base`` (not followed)."""
    out = []
    for root, dirs, files in os.walk(base, followlinks=False):
        for name in dirs + files:
            p = pathlib.Path(root, name)
            if p.is_symlink():
                out.append(p.relative_to(base).as_posix())
    return sorted(out)


def verify_report(report: str | os.PathLike, *, rtol: float = DEFAULT_RTOL,
                  atol: float = DEFAULT_ATOL) -> Verification:
    """Re-compute a report from its inputs and compare everything it shows.

    Parameters
    ----------
    report : path
        A folder written by ``hydrocalc report``, or its ``report.pdf`` alone (the inputs
        and ``results.json`` are read from the PDF's attachments into an empty temporary
        folder; nothing else is used).
    rtol, atol : float
        Tolerances for numbers (see the module docstring).

    Returns
    -------
    Verification
        ``.ok`` is True when everything agrees.

    Raises
    ------
    InputError
        If the report is unreadable or malformed (one line saying what and where).
    """
    path = pathlib.Path(report)
    if path.is_file() and path.suffix.lower() == ".pdf":
        return verify_pdf(path, rtol=rtol, atol=atol)
    return _verify_folder(path, rtol=rtol, atol=atol, artifacts=True)


def verify_pdf(pdf: str | os.PathLike, *, rtol: float = DEFAULT_RTOL,
               atol: float = DEFAULT_ATOL) -> Verification:
    """Verify a report PDF on its own from its attachments.

    Verify a report PDF on its own: extract its attachments (``results.json``,
    ``inputs/...``) into an empty temporary folder, recompute from them alone, compare.
    """
    pdf = pathlib.Path(pdf)
    attachments = pdf_attachments_of(pdf)
    if "results.json" not in attachments:
        raise InputError(f"REPORT {str(pdf)!r} must carry the results.json attachment that "
                         "hydrocalc report embeds; got none (not a hydrocalc report PDF, or "
                         "its attachments were removed)")
    with tempfile.TemporaryDirectory(prefix="hydrocalc-verify-") as tmp:
        base = pathlib.Path(tmp)
        for name, data in attachments.items():
            parts = pathlib.PurePosixPath(name).parts
            if not _ATTACHMENT_NAME.match(name) or ".." in parts:
                raise InputError(f"REPORT attachment names must be results.json or "
                                 f"inputs/<file>; got {name[:80]!r} (refused)")
            target = base / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
        result = _verify_folder(base, rtol=rtol, atol=atol, artifacts=False,
                                label=f"{pdf.name} (attached results.json)")
    result.report_dir = pdf
    result.source = f"the attachments of {pdf}"
    return result


def _verify_folder(  # noqa: C901 (one sequential checklist; splitting obscures the order)
        base: pathlib.Path, *, rtol: float, atol: float, artifacts: bool,
        label: str = "results.json") -> Verification:
    import hydrocalc

    results_path = base / "results.json"
    if not results_path.is_file():
        raise InputError(f"REPORT_DIR must hold a results.json written by hydrocalc report; "
                         f"got {str(base)!r} without one.")
    reported = _load_results(results_path, label)
    diffs: list[Difference] = []
    notes: list[Difference] = []
    counter = _Counter()
    for rel in _symlinks(base):
        diffs.append(Difference(rel, "symbolic link", "a regular file (links are refused)",
                                "refused"))

    # inputs: present and unchanged
    if not reported.get("inputs"):
        diffs.append(Difference("inputs", _MISSING, "the input files' SHA-256", "missing"))
    for rel, digest in sorted(reported.get("inputs", {}).items()):
        path = _inside(base / "inputs", rel)
        where = f"inputs/{rel} (sha256)"
        if (base / "inputs" / rel).is_symlink():
            continue  # already refused above
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

    # which sections the report must hold
    params = reported.get("parameters", {})
    for key in ("site_file", "sections", "formats"):
        if key not in params:
            diffs.append(Difference(f"parameters / {key}", _MISSING, "recorded", "missing"))
    site_rel = params.get("site_file", "")
    if not site_rel:
        return Verification(base, rtol, atol, diffs, notes, counter.numbers, counter.values)
    site_path = _inside(base, site_rel)
    try:
        expected_keys = S.resolve_sections(params.get("sections") or None)
    except HydrocalcError as exc:
        diffs.append(Difference("parameters / sections", params.get("sections"),
                                str(exc).splitlines()[0]))
        expected_keys = list(S.SECTIONS)
    try:
        S.validate_site(site_path, [])
    except HydrocalcError as exc:
        diffs.append(Difference(f"{site_rel} (load_site)", str(exc).splitlines()[0], "loads",
                                "input"))
        return Verification(base, rtol, atol, diffs, notes, counter.numbers, counter.values)

    # re-compute every section the report must hold and compare
    fresh_sections: dict = {}
    for key in expected_keys:
        try:
            fresh_sections[key] = S.build_section(key, str(site_path), sections=expected_keys,
                                                  figures=False)
        except HydrocalcError as exc:
            diffs.append(Difference(f"sections / {key}", "computed", f"error: {exc}"))
    for key in reported["sections"]:
        if key not in expected_keys:
            diffs.append(Difference(f"sections / {key}", "present", "not part of this report",
                                    "extra"))
    fresh_json = {k: json.loads(json.dumps(v.to_dict())) for k, v in fresh_sections.items()}
    for key, fresh in fresh_json.items():
        if key not in reported["sections"]:
            diffs.append(Difference(f"sections / {key}", _MISSING, "the section", "missing"))
            for name in fresh.get("tables", {}):
                diffs.append(Difference(f"{key} / {name}", _MISSING, "the table", "missing"))
            continue
        rep = {k: v for k, v in reported["sections"][key].items() if k not in _SKIP_SECTION_KEYS}
        fresh = {k: v for k, v in fresh.items() if k not in _SKIP_SECTION_KEYS}
        diffs.extend(compare_values(rep, fresh, key, rtol=rtol, atol=atol, _counter=counter))
    drop = ("format", "hydrocalc_version", "data_tables_sha256")
    fresh_analysis = {k: v for k, v in S.analysis_dict(site_path).items() if k not in drop}
    if "analysis" not in reported:
        diffs.append(Difference("analysis", _MISSING, "the analysis", "missing"))
    else:
        rep = {k: v for k, v in reported["analysis"].items() if k not in drop}
        diffs.extend(compare_values(rep, fresh_analysis, "analysis", rtol=rtol, atol=atol,
                                    _counter=counter))
    if hasattr(S, "summary_dict"):  # the compliance summary, when this hydrocalc has one
        fresh_summary = json.loads(json.dumps(S.summary_dict(site_path)))
        if "summary" not in reported:
            diffs.append(Difference("summary", _MISSING, "the compliance summary", "missing"))
        else:
            diffs.extend(compare_values(reported["summary"], fresh_summary, "summary",
                                        rtol=rtol, atol=atol, _counter=counter))
    project = S.project_facts_dict(S.validate_site(site_path, []))
    diffs.extend(compare_values(reported.get("project", _MISSING),
                                json.loads(json.dumps(project)), "project", rtol=rtol,
                                atol=atol, _counter=counter)
                 if "project" in reported else
                 [Difference("project", _MISSING, "the project facts", "missing")])

    diffs.extend(_check_custom_sections(reported, site_path, notes))
    if artifacts:
        diffs.extend(VA.check_artifacts(base, reported, fresh_sections, rtol=rtol, atol=atol))
    return Verification(base, rtol, atol, diffs, notes, counter.numbers, counter.values)


def _check_custom_sections(reported: dict, site_path: pathlib.Path,
                           notes: list[Difference]) -> list[Difference]:
    """The engineer's own sections: listed as the site file lists them, each with a note.

    They are reproduced by executing their notebook again from the report folder, not
    recomputed here; their notebooks are inputs (SHA-256 checked with the other inputs).
    """
    wanted = list(S.context(site_path).site.report.extra_sections)
    listed = reported.get("custom_sections") or []
    got = [c.get("notebook") for c in listed if isinstance(c, dict)]
    diffs = []
    if got != wanted:
        diffs.append(Difference("custom_sections", ", ".join(map(str, got)) or "none",
                                ", ".join(wanted) or "none"))
    for c in listed:
        if isinstance(c, dict):
            notes.append(Difference(
                f"custom section {c.get('key')} ({c.get('notebook')})",
                "reproduced by re-running its notebook", "not recomputed by verify", "note"))
    return diffs
