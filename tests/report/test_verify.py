"""``hydrocalc verify``: the comparison engine and the checks on a report folder.

The report folder here is built in-process (inputs copied, every section computed by the
same section functions the notebooks call, results.json written) so these tests need no
kernel; tests/report/test_report.py verifies a report produced by the notebooks.
"""

from __future__ import annotations

import json
import pathlib
import shutil

import nbformat
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell, new_notebook

from hydrocalc.cli import main
from hydrocalc.errors import InputError
from hydrocalc.report import sections as S
from hydrocalc.report.tables import sha256_json
from hydrocalc.report.verify import DEFAULT_RTOL, compare_values, verify_report

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"


@pytest.fixture(scope="module")
def computed_report(tmp_path_factory):
    """A full report folder (HTML, PDF, Excel, CSV, results.json) of the example."""
    from hydrocalc.report.execute import run_report

    out = tmp_path_factory.mktemp("verify") / "report"
    run_report(EXAMPLE, out, progress=False)
    return out


@pytest.fixture
def report_copy(computed_report, tmp_path):
    target = tmp_path / "copy"
    shutil.copytree(computed_report, target)
    return target


def _load(folder):
    return json.loads((folder / "results.json").read_text(encoding="utf-8"))


def _save(folder, doc):
    (folder / "results.json").write_text(json.dumps(doc), encoding="utf-8")


# -- the comparison engine --------------------------------------------------------------
def test_numbers_agree_within_the_stated_relative_tolerance():
    assert compare_values({"q_cfs": 2.0}, {"q_cfs": 2.0 * (1 + 0.5 * DEFAULT_RTOL)}, "t") == []
    diffs = compare_values({"q_cfs": 2.0}, {"q_cfs": 2.0 * (1 + 3 * DEFAULT_RTOL)}, "t")
    assert [d.where for d in diffs] == ["t / q_cfs"]


def test_integers_texts_booleans_and_nulls_must_be_equal():
    rep = {"n": 3, "s": "pass", "b": True, "z": None}
    assert compare_values(rep, dict(rep), "t") == []
    diffs = compare_values(rep, {"n": 4, "s": "fail", "b": 1, "z": 0.0}, "t")
    assert sorted(d.where for d in diffs) == ["t / b", "t / n", "t / s", "t / z"]


def test_missing_and_extra_keys_and_list_lengths_are_reported():
    diffs = compare_values({"a": 1, "b": [1, 2]}, {"c": 1, "b": [1]}, "t")
    kinds = {(d.where, d.kind) for d in diffs}
    assert ("t / a", "missing") in kinds and ("t / c", "extra") in kinds
    assert ("t / b (length)", "value") in kinds


def _table(rows):
    cols = ["design_point", "storm", "peak_cfs"]
    return {"title": "t", "columns": cols, "units": {}, "key_columns": cols[:2],
            "rows": rows, "sha256": sha256_json({"columns": cols, "rows": rows})}


def test_a_table_difference_is_named_by_the_row_keys_and_column():
    rep = _table([["DP-1", "10yr", 1.5], ["DP-1", "100yr", 3.0]])
    rec = _table([["DP-1", "10yr", 1.5], ["DP-1", "100yr", 3.2]])
    diffs = compare_values({"x": rep}, {"x": rec}, "comparison")
    assert [d.where for d in diffs] == ["comparison / x [DP-1, 100yr] / peak_cfs"]
    assert (diffs[0].reported, diffs[0].recomputed) == (3.0, 3.2)


def test_a_table_whose_rows_no_longer_match_its_stored_hash_is_reported():
    rep = _table([["DP-1", "10yr", 1.5]])
    rep["sha256"] = "0" * 64
    diffs = compare_values({"x": rep}, {"x": _table([["DP-1", "10yr", 1.5]])}, "c")
    assert [d.where for d in diffs] == ["c / x / sha256 (of the reported rows)"]


# -- a whole report folder --------------------------------------------------------------
@pytest.mark.slow
def test_untouched_report_agrees(computed_report):
    # same folder as the fixture computed: the site's computation is reused (fast)
    result = verify_report(computed_report)
    assert result.ok, result.table()
    assert result.numbers_compared > 500
    assert "all agree" in result.summary()


@pytest.mark.slow
def test_edited_number_and_text_are_found_and_named_version_is_a_note(report_copy):
    doc = _load(report_copy)
    table = doc["sections"]["comparison"]["tables"]["peak_comparison"]
    col = table["columns"].index("post_peak_cfs")
    row = next(r for r in table["rows"] if r[1] == "10yr")
    row[col] = row[col] * 1.01
    doc["sections"]["criteria"]["narrative_md"] += " All criteria pass."
    doc["hydrocalc_version"] = "0.0.1"
    _save(report_copy, doc)
    result = verify_report(report_copy)
    assert not result.ok
    wheres = sorted(d.where for d in result.differences)
    assert [w for w in wheres if not w.startswith(("report.pdf", "results.json"))] == [
        "comparison / peak_comparison / sha256 (of the reported rows)",
        "comparison / peak_comparison [DP-1, 10yr] / post_peak_cfs",
        "criteria / narrative_md"]
    # the PDF still carries the results.json it was built with
    assert any(w.startswith("report.pdf (attached results.json) / sections / comparison")
               for w in wheres)
    # a different hydrocalc version explains differences; it is not one itself
    assert [n.where for n in result.notes] == ["hydrocalc_version"]


@pytest.mark.slow
def test_tampered_input_is_reported_with_its_hash(report_copy):
    site = next((report_copy / "inputs").rglob("site.toml"))
    text = site.read_text(encoding="utf-8")
    site.write_text(text.replace("area_ft2 = 15400", "area_ft2 = 14400"), encoding="utf-8")
    result = verify_report(report_copy)
    assert not result.ok
    rel = site.relative_to(report_copy).as_posix()
    inputs = [d for d in result.differences if d.kind == "input"]
    assert [d.where for d in inputs] == [f"{rel} (sha256)"]
    # ... and the numbers that depend on it differ too
    assert any(d.where.startswith("hydrology_pre") for d in result.differences)


@pytest.mark.slow
def test_missing_input_is_reported(report_copy):
    rain = next((report_copy / "inputs").rglob("*.csv"))
    rain.unlink()
    result = verify_report(report_copy)
    assert not result.ok
    assert any(d.kind == "input" and d.where.endswith(f"{rain.name} (sha256)")
               and d.recomputed is not None for d in result.differences)


@pytest.mark.slow
def test_a_malicious_notebook_in_the_report_is_never_executed(report_copy, tmp_path):
    marker = tmp_path / "PWNED"
    code = f"open({str(marker)!r}, 'w').write('x')"
    (report_copy / "notebooks").mkdir(exist_ok=True)
    nb = new_notebook()
    nb.cells = [new_code_cell(code)]
    nbformat.write(nb, report_copy / "notebooks" / "05_comparison.ipynb")
    # modules named like the package or Python's start-up hooks must not be imported either
    for name in ("hydrocalc.py", "sitecustomize.py", "usercustomize.py"):
        (report_copy / name).write_text(code + "\n")
    result = verify_report(report_copy)
    assert result.ok, result.table()
    assert not marker.exists()


@pytest.mark.slow
def test_site_path_outside_the_report_is_refused(report_copy):
    doc = _load(report_copy)
    doc["parameters"]["site_file"] = "../../../etc/passwd"
    _save(report_copy, doc)
    with pytest.raises(InputError, match="input path must stay inside the report folder"):
        verify_report(report_copy)


def test_folder_without_results_is_refused(tmp_path):
    with pytest.raises(InputError, match="REPORT_DIR must hold a results.json"):
        verify_report(tmp_path)


@pytest.mark.slow
def test_cli_exit_codes_and_difference_table(computed_report, report_copy):
    runner = CliRunner()
    ok = runner.invoke(main, ["verify", str(computed_report)])
    assert ok.exit_code == 0, ok.output
    assert "all agree" in ok.output
    next((report_copy / "inputs").rglob("*.csv")).unlink()
    bad = runner.invoke(main, ["verify", str(report_copy)])
    assert bad.exit_code == 1
    lines = bad.output.splitlines()
    assert lines[0].split() == ["kind", "where", "reported", "recomputed"]
    assert any(ln.startswith("input") and "synthetic_daily_2027.csv (sha256)" in ln
               and "(missing)" in ln for ln in lines)
    assert "differ" in lines[-1]
    missing = runner.invoke(main, ["verify", str(report_copy / "nope")])
    assert missing.exit_code == 1
    assert "REPORT_DIR must hold a results.json" in missing.output


# -- what a person reads: edited, gutted, swapped, linked ---------------------------------
def _wheres(result):
    return [d.where for d in result.differences]


@pytest.mark.slow
def test_gutted_results_json_fails_naming_every_missing_section(report_copy):
    doc = _load(report_copy)
    _save(report_copy, {"project": doc["project"], "parameters": doc["parameters"],
                        "inputs": doc["inputs"], "sections": {}})
    result = verify_report(report_copy)
    assert not result.ok
    wheres = _wheres(result)
    for key in S.SECTIONS:
        assert f"sections / {key}" in wheres
    assert "comparison / peak_comparison" in wheres
    assert "analysis" in wheres and "artifacts" in wheres


@pytest.mark.slow
def test_removed_section_and_table_csv_are_named(report_copy):
    doc = _load(report_copy)
    del doc["sections"]["ponds"]
    _save(report_copy, doc)
    (report_copy / "tables" / "comparison__peak_comparison.csv").unlink()
    wheres = _wheres(verify_report(report_copy))
    assert "sections / ponds" in wheres
    assert "tables/comparison__peak_comparison.csv" in wheres


@pytest.mark.slow
def test_edited_number_in_the_html_is_named_with_row_and_column(report_copy):
    from hydrocalc.report import sections as S_

    table = S_.build_section("comparison", EXAMPLE, figures=False).table("peak_comparison")
    row = next(r for r in table.rows() if r[1] == "10yr")
    shown, _ = table._format_cell("post_peak_cfs", row[table.columns.index("post_peak_cfs")])
    page = (report_copy / "report.html").read_text(encoding="utf-8")
    wrap = page.index('id="table-peak_comparison"')
    cell = page.index(f'<td class="num">{shown}</td>', wrap)
    edited = page[:cell] + '<td class="num">0.01</td>' + page[cell + len(shown) + 21:]
    (report_copy / "report.html").write_text(edited, encoding="utf-8")
    result = verify_report(report_copy)
    diffs = [d for d in result.differences if "(report.html)" in d.where]
    assert len(diffs) == 1
    assert diffs[0].where == "comparison / peak_comparison (report.html) [DP-1, 10yr] / " \
        "Post peak [cfs]"
    assert (diffs[0].reported, diffs[0].recomputed) == ("0.01", shown)
    assert "report.html (sha256)" in _wheres(result)


@pytest.mark.slow
def test_edited_csv_cell_is_named_at_reporting_precision(report_copy):
    path = report_copy / "tables" / "comparison__peak_comparison.csv"
    lines = path.read_text(encoding="utf-8").splitlines()
    head = lines[0].split(",")
    col = head.index("post_peak_cfs")
    i = next(n for n, ln in enumerate(lines) if ",10yr," in ln)
    cells = lines[i].split(",")
    true_value = float(cells[col])
    cells[col] = repr(true_value * 1.1)
    lines[i] = ",".join(cells)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = verify_report(report_copy)
    diff = next(d for d in result.differences if d.where.endswith(
        "(tables/comparison__peak_comparison.csv) [DP-1, 10yr] / post_peak_cfs"))
    _, where, found, expected = diff.row()
    assert len(found) <= 8 and len(expected) <= 8 and "e" not in found  # readable
    assert abs(float(expected) - true_value) < 1e-3 * true_value


@pytest.mark.slow
def test_edited_xlsx_cell_and_a_formula_are_named(report_copy):
    from openpyxl import load_workbook

    path = report_copy / "tables.xlsx"
    wb = load_workbook(path)
    sheet = next(r[0] for r in wb["contents"].iter_rows(values_only=True)
                 if r and len(r) > 2 and r[1:3] == ("comparison", "peak_comparison"))
    ws = wb[sheet]
    col = [c.value for c in ws[2]].index("post_peak_cfs") + 1
    row = next(r for r in range(3, ws.max_row + 1) if ws.cell(r, 2).value == "10yr")
    ws.cell(row, col).value = 0.01
    ws.cell(row, 1).value = '=HYPERLINK("http://example.invalid","DP-1")'
    wb.save(path)
    wheres = _wheres(verify_report(report_copy))
    assert any(w.startswith("comparison / peak_comparison (tables.xlsx)") and
               w.endswith("/ post_peak_cfs") for w in wheres)
    assert any("(tables.xlsx) sheet" in w for w in wheres)  # the formula cell


def test_text_starting_with_equals_is_written_as_text_in_excel(tmp_path):
    from openpyxl import load_workbook

    from hydrocalc.report.execute.outputs import _write_workbook

    rows = [['=HYPERLINK("http://x","y")', 1.5], ["+cmd|' /C calc'!A0", 2.0]]
    doc = {"project": {"name": "=1+1"}, "inputs": {}, "sections": {"s": {"tables": {"t": {
        "title": "@SUM(A1)", "columns": ["name", "peak_cfs"], "rows": rows,
        "sha256": "x"}}}}}
    _write_workbook(tmp_path / "t.xlsx", doc)
    wb = load_workbook(tmp_path / "t.xlsx")
    cells = [c for ws in wb.worksheets for row in ws.iter_rows() for c in row
             if c.value is not None]
    assert not [c.coordinate for c in cells if c.data_type == "f"]
    values = {c.value for c in cells}
    assert {'=HYPERLINK("http://x","y")', "=1+1", "@SUM(A1)"} <= values


@pytest.mark.slow
def test_swapped_pdf_fails_verify(report_copy, tmp_path):
    from hydrocalc.report.typeset import write_pdf

    # a PDF typeset from the same sections but carrying another results.json
    doc = _load(report_copy)
    doc["sections"]["comparison"]["narrative_md"] = "All is well."
    sections = {k: S.build_section(k, EXAMPLE, figures=False) for k in S.SECTIONS}
    write_pdf(list(sections.values()), S.cover_meta(doc), report_copy / "report.pdf",
              attachments={"results.json": json.dumps(doc).encode()})
    wheres = _wheres(verify_report(report_copy))
    assert "report.pdf (sha256)" in wheres
    assert "report.pdf (attached results.json) / sections / comparison / narrative_md" in wheres
    assert any(w.startswith("report.pdf (attached inputs/") for w in wheres)


@pytest.mark.slow
def test_the_pdf_alone_verifies_and_an_edited_attachment_fails(computed_report, tmp_path):
    pdf = tmp_path / "report.pdf"
    shutil.copyfile(computed_report / "report.pdf", pdf)
    result = verify_report(pdf)
    assert result.ok, result.table()
    assert "attachments of" in result.summary() and result.numbers_compared > 500

    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    names = [doc.get_attachment(i).get_name() for i in range(doc.count_attachments())]
    assert "results.json" in names and any(n.endswith("site.toml") for n in names)
    i = next(i for i, n in enumerate(names) if n.endswith("site.toml"))
    att = doc.get_attachment(i)
    text = bytes(att.get_data()).decode().replace("area_ft2 = 15400", "area_ft2 = 14400")
    att.set_data(text.encode())
    doc.save(str(tmp_path / "edited.pdf"))
    doc.close()
    bad = verify_report(tmp_path / "edited.pdf")
    assert not bad.ok and any(d.kind == "input" for d in bad.differences)


@pytest.mark.slow
def test_symlinked_table_file_is_refused(report_copy):
    path = report_copy / "tables" / "comparison__peak_comparison.csv"
    real = report_copy.parent / "elsewhere.csv"
    path.rename(real)
    path.symlink_to(real)
    result = verify_report(report_copy)
    refused = [d for d in result.differences if d.kind == "refused"]
    assert [d.where for d in refused] == ["tables/comparison__peak_comparison.csv"]


@pytest.mark.slow
@pytest.mark.parametrize("mutate, message", [
    (lambda d: d.update(inputs=["site.toml"]), "field 'inputs' must be a JSON object"),
    (lambda d: d["sections"].update(ponds="ponds"), "section 'ponds' must be a JSON object"),
    (lambda d: d["inputs"].update({"site.toml": 12}), "must be a SHA-256 text"),
    (lambda d: d["parameters"].update(site_file=3.5), "parameters.site_file must be a text"),
])
def test_malformed_results_json_is_one_clear_line(report_copy, mutate, message):
    doc = _load(report_copy)
    mutate(doc)
    _save(report_copy, doc)
    result = CliRunner().invoke(main, ["verify", str(report_copy)])
    assert result.exit_code == 1
    assert message in result.output and "Traceback" not in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.slow
def test_deeply_nested_json_is_one_clear_line(report_copy):
    (report_copy / "results.json").write_text('{"sections": ' + "[" * 100_000 + "]" * 100_000
                                              + "}", encoding="utf-8")
    result = CliRunner().invoke(main, ["verify", str(report_copy)])
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert "nested at most 64 levels" in result.output


def test_stale_staging_folders_of_killed_runs_are_cleaned(tmp_path):
    import os
    import socket

    from hydrocalc.report.execute import STAGING_MARKER, clean_stale_staging

    target = tmp_path / "lot"
    dead = tmp_path / ".lot.partial-abc123"
    dead.mkdir()
    (dead / STAGING_MARKER).write_text(f"999999999 {socket.gethostname()}\n")
    alive = tmp_path / ".lot.partial-live"
    alive.mkdir()
    (alive / STAGING_MARKER).write_text(f"{os.getppid()} {socket.gethostname()}\n")
    unmarked = tmp_path / ".lot.partial-user"
    unmarked.mkdir()
    other = tmp_path / "something.partial-x"
    other.mkdir()
    (other / STAGING_MARKER).write_text(f"999999999 {socket.gethostname()}\n")
    assert clean_stale_staging(target) == [dead]
    assert not dead.exists() and alive.exists() and unmarked.exists() and other.exists()


@pytest.mark.slow
def test_cli_verify_names_the_version_the_report_was_made_by(report_copy):
    import hydrocalc

    doc = _load(report_copy)
    doc["hydrocalc_version"] = "0.0.1"
    _save(report_copy, doc)
    out = CliRunner().invoke(main, ["verify", str(report_copy)])
    assert ("note: this report was made by hydrocalc 0.0.1; it was re-computed with "
            f"hydrocalc {hydrocalc.__version__}") in out.output
    assert out.output.splitlines()[-1].startswith("compared ")
