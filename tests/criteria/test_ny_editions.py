"""NYS design-manual editions, GP-0-25-001 and storm shape vs depth source.

Covers: ``[project] design_manual`` / ``design_manual_justification`` (parsing, bad input,
warnings, results.json, the report's methods and "Values to confirm"), the storm-shape
warning for NOAA Atlas 14 / NRCC depths with NRCS Type I/IA/II/III shapes, the HydroCAD
NOAA/NRCC A-D storm types, and the GP-0-25-001 state-permit thresholds.
"""

from __future__ import annotations

import datetime
import json
import pathlib
import re
import shutil

import pytest
from click.testing import CliRunner

from hydrocalc.analysis import analyze
from hydrocalc.cli import main
from hydrocalc.criteria import ny_editions
from hydrocalc.criteria.state_permit import (
    StatePermitPlan,
    assess_state_permit,
    load_permit_rules,
)
from hydrocalc.design_storms import depth_source_kind, storm_shape_warning
from hydrocalc.report import sections
from hydrocalc.report.summary import compliance_summary
from hydrocalc.site import check_site, load_site
from hydrocalc.site import project as project_mod
from hydrocalc.site.project import ProjectFacts

HERE = pathlib.Path(__file__).parents[1]  # tests/
SMALL = HERE / "fixtures" / "sites" / "small"
RAIN = HERE / "fixtures" / "rainfall"
EXAMPLES = HERE.parent / "examples"

_BASE_PROJECT = '''[project]
name = "Test Site"
municipality = "nys_generic"
receiving_water = "Test Brook"
drains_to_impaired_water = false
disturbed_area_ac = 3.0
new_impervious_area_ac = 1.0
project_type = "commercial"
'''


def _site(tmp_path, extra_project: str = "", *, replace=None, append: str = "") -> pathlib.Path:
    """The small test site, copied to ``tmp_path`` with ``extra_project`` lines in
    ``[project]`` (and text replacements / appended tables)."""
    d = tmp_path / "site"
    shutil.copytree(SMALL, d)
    text = (d / "site.toml").read_text()
    assert _BASE_PROJECT in text
    text = text.replace(_BASE_PROJECT, _BASE_PROJECT + extra_project)
    for old, new in (replace or {}).items():
        assert old in text
        text = text.replace(old, new)
    (d / "site.toml").write_text(text + append)
    return d / "site.toml"


def _check(path):
    return CliRunner().invoke(main, ["check", str(path)])


# ---------------------------------------------------------------------------- editions


@pytest.mark.parametrize("edition", ["2015", "2024"])
def test_design_manual_is_read_into_the_project_facts(tmp_path, edition):
    extra = f'design_manual = "{edition}"\n'
    replace = None
    if edition == "2024":  # the 2024 manual ships no specific reduction factors
        replace = {"[storms]": "[criteria]\nrrv_specific_reduction_factor = "
                               "{ A = 0.55, B = 0.4, C = 0.3, D = 0.2 }\n\n[storms]"}
    site = load_site(_site(tmp_path, extra, replace=replace))
    assert site.project.design_manual == edition
    assert site.project.to_dict()["design_manual"] == edition
    assert not any(n.startswith("design_manual_missing") for n in site.notes)


def test_a_file_without_design_manual_is_read_as_2015_with_a_warning(tmp_path):
    site = load_site(_site(tmp_path))
    assert site.project.design_manual is None
    assert ny_editions.applied_edition(site.project) == "2015"
    missing = [n for n in site.notes if n.startswith("design_manual_missing:")]
    assert len(missing) == 1 and 'design_manual = "2015" or "2024"' in missing[0]
    res = _check(site.path)
    assert res.exit_code == 0
    assert "warning: design_manual_missing: project.design_manual is not set" in res.output


def test_every_example_states_its_design_manual():
    for path in sorted(EXAMPLES.glob("*/site.toml")):
        site = load_site(path)
        assert site.project.design_manual in ny_editions.DESIGN_MANUAL_EDITIONS, path
        assert not any(n.split(":", 1)[0] in ny_editions.WARNING_KEYS for n in site.notes), path
        # the reason is written next to the key
        text = path.read_text()
        i = text.index("design_manual =")
        assert "# NYS SMDM edition:" in text[max(0, i - 400):i], path


def test_results_json_records_the_design_manual(tmp_path):
    site = load_site(_site(tmp_path, 'design_manual = "2015"\n'))
    results = analyze(site)
    doc = json.loads(results.to_json(hydrographs=False))
    assert doc["design_manual"] == "2015"
    assert doc["site"]["project"]["design_manual"] == "2015"
    assert compliance_summary(results)["design_manual"] == "2015"


def test_criteria_rows_under_2024_are_marked_not_verified_and_need_explicit_factors(tmp_path):
    path = _site(tmp_path, 'design_manual = "2024"\n')
    problems = check_site(path)
    assert len(problems) == 1
    assert re.fullmatch(r"site\.toml: criteria\.rrv_specific_reduction_factor is required with "
                        r"project\.design_manual = \"2024\": .* got nothing", problems[0])
    path.write_text(path.read_text().replace(
        "[storms]", "[criteria]\nrrv_specific_reduction_factor = { A = 0.55, B = 0.4, C = 0.3, "
                    "D = 0.2 }\n\n[storms]"))
    site = load_site(path)
    results = analyze(site)
    rows = results.criteria
    assert len(rows) and rows["status"].str.startswith("not verified in the 2024 text").all()
    assert rows["source"].str.startswith("NYSDEC (2024)").all()
    confirm = {r["key"]: r for r in results.values_to_confirm}
    assert confirm["rrv_factors"]["value"] == "A 0.55, B 0.4, C 0.3, D 0.2"
    assert confirm["wqv_precip_in"]["value"] == 1.2
    assert not any(r["verified"] for r in confirm.values())


def test_2015_criteria_rows_are_unchanged_by_stating_the_edition(tmp_path):
    plain = analyze(load_site(_site(tmp_path / "a"))).criteria
    stated = analyze(load_site(_site(tmp_path / "b", 'design_manual = "2015"\n'))).criteria
    assert plain.equals(stated)


def test_methods_cite_the_edition_and_the_justification(tmp_path):
    path = _site(tmp_path, 'design_manual = "2015"\ndesign_manual_justification = '
                           '"NOI filed under GP-0-20-001"\n',
                 append='\n[project.state_permit]\nedition = "GP-0-25-001"\n'
                        'max_disturbed_at_one_time_ac = 3.0\n')
    site = load_site(path)
    assert not any(n.startswith("design_manual_justification") for n in site.notes)
    res = sections.build_section("methods", str(path), figures=False)
    methods = res.table("methods").frame.set_index("step")
    assert methods.loc["Design manual", "method"] == (
        "NYS SMDM, 2015 edition (project.design_manual); justification for the 2015 manual: "
        "NOI filed under GP-0-20-001")
    assert methods.loc["Design manual", "reference"] == "NYS SMDM (2015)"
    assert "Sizing criteria follow the NYS SMDM, 2015 edition." in res.narrative_md


def test_2024_report_cites_the_2024_manual_and_lists_its_inputs_to_confirm(tmp_path):
    path = _site(tmp_path, 'design_manual = "2024"\n', replace={
        "[storms]": "[criteria]\nrrv_specific_reduction_factor = { A = 0.5, B = 0.4, C = 0.3, "
                    "D = 0.2 }\n\n[storms]"})
    res = sections.build_section("methods", str(path), figures=False)
    refs = res.table("references").frame.set_index("key")
    assert refs.loc["NYS SMDM", "reference"].startswith("NYSDEC (2024)")
    ctx = sections.context(path)
    frame = sections.values_to_confirm(ctx).set_index("item")
    assert frame.loc["rrv_factors", "value"] == "A 0.5, B 0.4, C 0.3, D 0.2"
    assert "2024" in frame.loc["rrv_factors", "basis"]
    assert "wqv_precip_in" in frame.index
    assert {"criterion_wqv", "criterion_qp", "criterion_qf"} <= set(frame.index)


# ---------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(("value", "message"), [
    ('"2010"', "site.toml: project.design_manual must be \"2015\" or \"2024\" (the NYS SMDM "
               "edition); got '2010'"),
    ("2015", "site.toml: project.design_manual must be \"2015\" or \"2024\" (the NYS SMDM "
             "edition); got 2015 (write it quoted, as text)"),
])
def test_unknown_edition_is_one_clear_line(tmp_path, value, message):
    path = _site(tmp_path, f"design_manual = {value}\n")
    res = _check(path)
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: " + message)
    assert lines[0].endswith("(line 10)")


@pytest.mark.parametrize("edition_line", ['design_manual = "2024"\n', ""])
def test_justification_without_the_2015_edition_is_one_clear_line(tmp_path, edition_line):
    path = _site(tmp_path, edition_line + 'design_manual_justification = "approved earlier"\n')
    res = _check(path)
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1
    got = "'2024'" if edition_line else "nothing"
    assert lines[0].startswith(
        "error: site.toml: project.design_manual_justification is only for "
        "design_manual = \"2015\" "
        f"(the reason to use the 2015 manual); got design_manual = {got}"), lines[0]


def test_gp_0_25_001_project_starting_before_its_effective_date_is_one_clear_line(tmp_path):
    path = _site(tmp_path, 'design_manual = "2024"\n', replace={
        "[storms]": "[criteria]\nrrv_specific_reduction_factor = { A = 0.5, B = 0.4, C = 0.3, "
                    "D = 0.2 }\n\n[storms]"},
        append='\n[project.state_permit]\nedition = "GP-0-25-001"\n\n'
               '[construction]\nstart_date = 2024-11-04\nend_date = 2025-06-30\n')
    res = _check(path)
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(
        "error: site.toml: construction.start_date must be on or after 2025-01-29, "
        "when GP-0-25-001 "
        "(project.state_permit.edition) took effect; got 2024-11-04."), lines[0]
    assert "(line " in lines[0]
    path.write_text(path.read_text().replace("start_date = 2024-11-04", "start_date = 2025-01-29"))
    assert check_site(path) == []


def test_project_facts_api_applies_the_same_edition_rules():
    base = dict(name="x", municipality="pelham", receiving_water="r",
                drains_to_impaired_water=False, project_type="other", disturbed_area_ft2=100.0,
                new_impervious_area_ft2=0.0)
    with pytest.raises(Exception, match=r"ProjectFacts: design_manual must be \"2015\" or "
                                        r"\"2024\""):
        ProjectFacts(**base, design_manual="2020")
    with pytest.raises(Exception, match="design_manual_justification is only for"):
        ProjectFacts(**base, design_manual="2024", design_manual_justification="why")
    assert ProjectFacts(**base, design_manual="2015",
                        design_manual_justification="why").design_manual == "2015"


# ---------------------------------------------------------------------------- GP-0-25-001 + 2015


def test_2015_manual_under_gp_0_25_001_without_justification_warns_naming_both(tmp_path):
    path = _site(tmp_path, 'design_manual = "2015"\n',
                 append='\n[project.state_permit]\nedition = "GP-0-25-001"\n'
                        'max_disturbed_at_one_time_ac = 3.0\n')
    res = _check(path)
    assert res.exit_code == 0
    line = next(x for x in res.output.splitlines() if "design_manual_justification" in x)
    assert line.startswith('warning: design_manual_justification: project.state_permit.edition = '
                           '"GP-0-25-001" with the 2015 NYS SMDM (project.design_manual)')
    assert "Give it in project.design_manual_justification" in line
    warnings = sections.build_section("warnings", str(path), figures=False)
    assert any("design_manual_justification" in str(row)
               for row in warnings.table("warnings").frame.itertuples())


def test_2024_manual_under_gp_0_20_001_or_2015_under_gp_0_20_001_gives_no_warning():
    assert ny_editions.design_manual_warnings("2015", "", "GP-0-20-001") == []
    assert ny_editions.design_manual_warnings("2024", "", "GP-0-25-001") == []
    assert ny_editions.design_manual_warnings("2015", "", None) == []


# ---------------------------------------------------------------------------- storm shape


@pytest.mark.parametrize(("fixture", "family"), [("pfds_pds_utf8_mean_only.csv", "NOAA"),
                                                 ("nrcc_mean_only.csv", "NRCC")])
def test_atlas_depths_with_an_nrcs_type_shape_warn_and_the_matching_shape_does_not(
        tmp_path, fixture, family):
    d = tmp_path / "site"
    shutil.copytree(SMALL, d)
    runner = CliRunner()
    res = runner.invoke(main, ["import-pfds", str(RAIN / fixture), "--out",
                               str(d / "depths.toml")])
    assert res.exit_code == 0, res.output
    text = (d / "site.toml").read_text()
    text = text.replace('source = "test depths"\n', 'file = "depths.toml"\nuse = ["2yr", '
                                                    '"10yr", "100yr"]\n')
    text = re.sub(r"\[storms\.depths_in\]\n(\"\d+yr\" = [\d.]+\n)+", "", text)
    (d / "site.toml").write_text(text)
    res = _check(d / "site.toml")
    assert res.exit_code == 0, res.output
    label = {"NOAA": "NOAA Atlas 14", "NRCC": "NRCC"}[family]
    line = next(x for x in res.output.splitlines() if "storm_shape_mismatch" in x)
    assert line.startswith(f"warning: storm_shape_mismatch: the design-storm depths come from "
                           f"{label} (")
    assert "the NRCS Type II distribution (storms.distribution)" in line
    assert f"{family}_A, {family}_B, {family}_C, {family}_D" in line
    storms = sections.build_section("storms", str(d / "site.toml"), figures=False)
    table = storms.table("design_storms").frame
    cols = list(table.columns)
    assert cols.index("depth_source") + 1 == cols.index("source")
    assert cols.index("source") + 1 == cols.index("distribution")
    assert set(table["depth_source"]) == {label}
    assert table["shape_vs_depths"].str.startswith(f"MISMATCH: use {family}_A").all()
    (d / "site.toml").write_text((d / "site.toml").read_text().replace(
        'distribution = "II"', f'distribution = "{family}_C"'))
    res = _check(d / "site.toml")
    assert res.exit_code == 0 and "storm_shape_mismatch" not in res.output


def test_depth_source_classification_and_no_warning_for_illustrative_depths():
    assert depth_source_kind("NOAA Atlas 14 Volume 10 Version 3, PFDS CSV") == "noaa_atlas_14"
    assert depth_source_kind("NRCC Extreme Precipitation in New York & New England") == "nrcc"
    src = "illustrative placeholder of regional magnitude; not NOAA Atlas 14 or NRCC values"
    assert depth_source_kind(src) == "other"
    assert depth_source_kind("NOAA Atlas 14", illustrative=True) == "other"
    assert storm_shape_warning(src, "III") is None
    assert storm_shape_warning("NOAA Atlas 14, PFDS CSV", "NOAA_D") is None
    for shape in ("I", "IA", "Type II", "type_iii"):
        assert storm_shape_warning("NOAA Atlas 14, PFDS CSV", shape).startswith(
            "storm_shape_mismatch:")
    w = storm_shape_warning("NRCC table", "III", suggested="NRCC_C")
    assert w.endswith("; the depth file suggests NRCC_C")


def test_examples_with_illustrative_depths_do_not_warn_on_the_shape():
    for path in sorted(EXAMPLES.glob("*/site.toml")):
        assert not any(n.startswith("storm_shape_mismatch") for n in load_site(path).notes)


# ---------------------------------------------------------------------------- GP-0-25-001


def _facts(ft2, imp_ft2, **plan):
    return ProjectFacts(name="x", municipality="nys_generic", receiving_water="r",
                        drains_to_impaired_water=False, project_type="other",
                        disturbed_area_ft2=float(ft2), new_impervious_area_ft2=float(imp_ft2),
                        state_permit=StatePermitPlan(**plan))


def test_permit_data_quotes_the_new_york_city_thresholds_with_their_source():
    nyc = load_permit_rules()["coverage"]["new_york_city"]
    assert nyc["editions"] == ["GP-0-25-001"]
    assert nyc["disturbed_area_ft2_at_least"] == 20000.0
    assert nyc["new_impervious_area_ft2_at_least"] == 5000.0
    assert "20,000 sq ft" in nyc["quote"] and "5,000 sq ft" in nyc["quote"]
    assert nyc["source"] and nyc["verified"] is False


@pytest.mark.parametrize(("ft2", "imp_ft2", "required"), [
    (20000, 0, True),        # 20,000 sq ft disturbed: at the threshold
    (19999, 0, False),
    (8000, 5000, True),      # 5,000 sq ft of new impervious area
    (8000, 4999, False),
])
def test_gp_0_25_001_new_york_city_thresholds(ft2, imp_ft2, required):
    r = assess_state_permit(_facts(ft2, imp_ft2, edition="GP-0-25-001",
                                   within_new_york_city=True))
    assert r["coverage_required"] is required
    if required:
        assert any("within New York City" in x for x in r["coverage_reasons"])
        assert "state_permit_new_york_city" in {c["key"] for c in r["values_to_confirm"]}


def test_new_york_city_thresholds_need_the_location_and_apply_only_to_gp_0_25_001():
    unknown = assess_state_permit(_facts(25000, 0, edition="GP-0-25-001"))
    assert unknown["coverage_required"] is None
    assert any("within_new_york_city" in x for x in unknown["coverage_reasons"])
    outside = assess_state_permit(_facts(25000, 0, edition="GP-0-25-001",
                                         within_new_york_city=False,
                                         nyc_east_of_hudson_watershed=False))
    assert outside["coverage_required"] is False
    assert "outside New York City" in outside["coverage_reasons"][0]
    older = assess_state_permit(_facts(25000, 0, edition="GP-0-20-001",
                                       within_new_york_city=True))
    assert not any("New York City" in x for x in older["coverage_reasons"])
    assert older["coverage_required"] is False


def test_more_than_five_acres_at_once_under_gp_0_25_001_needs_a_dated_written_approval():
    ac7 = 7 * 43560.0
    base = dict(edition="GP-0-25-001", max_disturbed_at_one_time_ac=7.0)
    none = assess_state_permit(_facts(ac7, 0, **base))["disturbance_limit"]
    assert none["passed"] is False
    undated = assess_state_permit(_facts(ac7, 0, written_authorization="DEC letter 3-4608",
                                         **base))["disturbance_limit"]
    assert undated["passed"] is False
    assert "project.state_permit.written_authorization_date" in undated["reason"]
    dated = assess_state_permit(_facts(
        ac7, 0, written_authorization="DEC letter 3-4608",
        written_authorization_date=datetime.date(2025, 5, 2), **base))["disturbance_limit"]
    assert dated["passed"] is True
    assert dated["written_authorization_date"] == "2025-05-02"
    assert "of 2025-05-02: DEC letter 3-4608" in dated["reason"]
    # GP-0-20-001: the reference alone, as before
    old = assess_state_permit(_facts(ac7, 0, edition="GP-0-20-001",
                                     max_disturbed_at_one_time_ac=7.0,
                                     written_authorization="DEC letter"))["disturbance_limit"]
    assert old["passed"] is True


def test_written_authorization_date_in_the_site_file(tmp_path):
    facts, problems = project_mod.parse_project({
        "name": "x", "municipality": "nys_generic", "receiving_water": "r",
        "drains_to_impaired_water": False, "project_type": "other", "disturbed_area_ac": 7.0,
        "new_impervious_area_ac": 0.0, "design_manual": "2024",
        "state_permit": {"edition": "GP-0-25-001", "written_authorization": "DEC letter",
                         "written_authorization_date": datetime.date(2025, 5, 2),
                         "within_new_york_city": False}})
    assert problems == []
    assert facts.state_permit.written_authorization_date == datetime.date(2025, 5, 2)
    assert facts.to_dict()["state_permit"]["written_authorization_date"] == "2025-05-02"
    _, problems = project_mod.parse_project({
        "name": "x", "municipality": "nys_generic", "receiving_water": "r",
        "drains_to_impaired_water": False, "project_type": "other", "disturbed_area_ac": 7.0,
        "new_impervious_area_ac": 0.0,
        "state_permit": {"written_authorization_date": datetime.date(2025, 5, 2)}})
    assert problems == ["site.toml: project.state_permit.written_authorization_date needs "
                        "project.state_permit.written_authorization (the reference of the "
                        "Department's written authorization); got a date (2025-05-02) "
                        "without it"]
