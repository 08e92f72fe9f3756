"""``hydrocalc verify``: the comparison engine and the checks on a report folder.

The report folder here is built in-process (inputs copied, every section computed by the
same section functions the notebooks call, results.json written) so these tests need no
kernel; tests/test_report.py verifies a report produced by the notebooks.
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
from hydrocalc.report.execute import copy_inputs, results_document
from hydrocalc.report.tables import sha256_json
from hydrocalc.report.verify import DEFAULT_RTOL, compare_values, verify_report

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"


@pytest.fixture(scope="module")
def computed_report(tmp_path_factory):
    """A report folder (inputs + results.json) computed in this process."""
    site = S.validate_site(EXAMPLE)
    out = tmp_path_factory.mktemp("verify") / "report"
    site_rel, hashes = copy_inputs(site, EXAMPLE, out / "inputs")
    keys = list(S.SECTIONS)
    sections = {k: json.loads(json.dumps(S.build_section(k, out / site_rel, sections=keys,
                                                         figures=False).to_dict()))
                for k in keys}
    doc = results_document(site, out / site_rel, site_rel, hashes, keys, [], sections,
                           {"started_utc": "2027-01-01T00:00:00+00:00"})
    (out / "results.json").write_text(json.dumps(doc, indent=1), encoding="utf-8")
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
def test_untouched_report_agrees(computed_report):
    # same folder as the fixture computed: the site's computation is reused (fast)
    result = verify_report(computed_report)
    assert result.ok, result.table()
    assert result.numbers_compared > 500
    assert "all agree" in result.summary()


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
    assert sorted(d.where for d in result.differences) == [
        "comparison / peak_comparison / sha256 (of the reported rows)",
        "comparison / peak_comparison [DP-1, 10yr] / post_peak_cfs",
        "criteria / narrative_md"]
    # a different hydrocalc version explains differences; it is not one itself
    assert [n.where for n in result.notes] == ["hydrocalc_version"]


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


def test_missing_input_is_reported(report_copy):
    rain = next((report_copy / "inputs").rglob("*.csv"))
    rain.unlink()
    result = verify_report(report_copy)
    assert not result.ok
    assert any(d.kind == "input" and d.where.endswith(f"{rain.name} (sha256)")
               and d.recomputed is not None for d in result.differences)


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


def test_site_path_outside_the_report_is_refused(report_copy):
    doc = _load(report_copy)
    doc["parameters"]["site_file"] = "../../../etc/passwd"
    _save(report_copy, doc)
    with pytest.raises(InputError, match="input path must stay inside the report folder"):
        verify_report(report_copy)


def test_folder_without_results_is_refused(tmp_path):
    with pytest.raises(InputError, match="REPORT_DIR must hold a results.json"):
        verify_report(tmp_path)


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
