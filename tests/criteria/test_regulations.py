"""Local laws as data: thresholds, exemptions, conditions, checklists (Shelter Island, Pelham).

Expected outcomes come from the law texts in ../shared/seeds (Shelter Island ch. 110 art. II;
Pelham ch. 83), cited per test.
"""

from __future__ import annotations

import json
import pathlib
import re

import pytest
from click.testing import CliRunner
from conftest import SHARED_SEEDS as SEEDS  # noqa: E402

from hydrocalc.criteria import regulations
from hydrocalc.errors import InputError
from hydrocalc.site.project import ProjectFacts

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "construction"


def facts(municipality="shelter_island", **kw):
    base = dict(name="t", municipality=municipality, receiving_water="Somewhere Creek",
                drains_to_impaired_water=False, project_type="subdivision")
    if "disturbed_area_ft2" not in kw and "disturbed_area_ac" not in kw:
        kw["disturbed_area_ac"] = 2.0
    if "new_impervious_area_ac" not in kw and "new_impervious_area_ft2" not in kw:
        kw["new_impervious_area_ft2"] = 0.0
    base.update(kw)
    return ProjectFacts(**base)


# --- Shelter Island § 110-34 "land development activity": >= 1 acre or larger common plan --

@pytest.mark.parametrize("kw, required", [
    (dict(disturbed_area_ac=1.0), True),                # exactly one acre
    (dict(disturbed_area_ft2=43560.0), True),           # one acre typed in square feet
    (dict(disturbed_area_ac=0.999), False),
    (dict(disturbed_area_ac=0.5, part_of_larger_common_plan=True), True),
    (dict(disturbed_area_ac=0.0, part_of_larger_common_plan=True), False),
])
def test_shelter_island_one_acre_threshold(kw, required):
    a = regulations.assess("shelter_island", facts(**kw))
    assert a.swppp_required is required
    assert a.land_development_activity is required
    assert "110-34" in "; ".join(a.swppp_reasons)


def test_shelter_island_conditions_b_at_exactly_five_acres():
    # § 110-38C(2) "five or more acres"; C covers 1 to < 5 acres.
    a = regulations.assess("shelter_island", facts(disturbed_area_ac=5.0))
    assert a.conditions_met == ("B",)
    a = regulations.assess("shelter_island", facts(disturbed_area_ac=4.99))
    assert a.conditions_met == ("C",)


def test_shelter_island_single_family_residence_at_three_acres():
    # § 110-38C(3) excludes single-family residences; not impaired -> no A; < 5 ac -> no B.
    a = regulations.assess("shelter_island",
                           facts(disturbed_area_ac=3.0, project_type="single_family_residence"))
    assert a.swppp_required is True
    assert a.conditions_met == ()
    assert a.post_construction_required is False
    assert a.inspections_required is False          # § 110-39C applies only with A, B or C
    pc = [c for c in a.checklist if c["id"].startswith("110-38D")]
    assert pc and not any(c["applies"] for c in pc)
    esc = [c for c in a.checklist if c["id"].startswith("110-38B")]
    assert len(esc) == 16 and all(c["applies"] for c in esc)  # items (a)-(p)


def test_single_family_residence_draining_to_tmdl_water_meets_condition_a():
    a = regulations.assess("shelter_island", facts(
        disturbed_area_ac=3.0, project_type="single_family_residence",
        drains_to_impaired_water=True, impairment="Peconic Estuary nitrogen TMDL"))
    assert a.conditions_met == ("A",)
    assert a.post_construction_required is True and a.inspections_required is True
    d9 = next(c for c in a.checklist if c["id"] == "110-38D(9)")
    assert d9["applies"] is True  # Condition A: professional preparer and certification
    assert any(r["id"] == "condition_a_professional" and r["applies"]
               for r in a.certifications)


def test_agricultural_property_is_excluded_from_condition_c():
    a = regulations.assess("shelter_island", facts(disturbed_area_ac=2.0,
                                                   project_type="agricultural"))
    assert a.conditions_met == ()


def test_condition_a_professional_duty_absent_without_condition_a():
    a = regulations.assess("shelter_island", facts(disturbed_area_ac=2.0))
    assert a.conditions_met == ("C",)
    d9 = next(c for c in a.checklist if c["id"] == "110-38D(9)")
    assert d9["applies"] is False


SI_EXEMPTIONS = ["agricultural_activity", "silvicultural_activity", "routine_maintenance",
                 "stormwater_repair", "approved_subdivision_plat", "approved_building_permit",
                 "cemetery_graves", "fences_signs_poles", "emergency_activity",
                 "home_gardening", "landscaping_existing_structure"]


@pytest.mark.parametrize("letter, key", list(zip("ABCDEFGHIJK", SI_EXEMPTIONS, strict=True)))
def test_each_shelter_island_exemption_removes_the_swppp(letter, key):
    for claimed in (key, letter):
        a = regulations.assess("shelter_island",
                               facts(disturbed_area_ac=2.0, exemptions_claimed=(claimed,)))
        assert a.exempt is True and a.swppp_required is False
        assert f"§ 110-36{letter}" in a.swppp_reasons[0]
        assert a.post_construction_required is False and a.inspections_required is False


def test_shelter_island_routine_maintenance_exemption_limited_below_five_acres():
    # § 110-36C: "Routine maintenance activities that disturb less than five acres"
    ok = regulations.assess("shelter_island", facts(disturbed_area_ac=4.99,
                                                    exemptions_claimed=("C",)))
    assert ok.exempt is True
    no = regulations.assess("shelter_island", facts(disturbed_area_ac=5.0,
                                                    exemptions_claimed=("C",)))
    assert no.exempt is False and no.swppp_required is True
    assert no.exemptions[0]["accepted"] is False
    assert "less than 5 ac" in no.exemptions[0]["reason"]


# --- Pelham § 83-6: >= 2,000 sq ft disturbed or > 1,000 sq ft new impervious -------------

@pytest.mark.parametrize("disturbed, impervious, required", [
    (2000.0, 0.0, True),        # exactly 2,000 sq ft: "2,000 square feet or more"
    (1999.0, 0.0, False),
    (500.0, 1000.0, False),     # exactly 1,000 sq ft is not "more than 1,000"
    (500.0, 1001.0, True),
])
def test_pelham_thresholds(disturbed, impervious, required):
    a = regulations.assess("pelham", facts("pelham", disturbed_area_ft2=disturbed,
                                           new_impervious_area_ft2=impervious))
    assert a.swppp_required is required
    assert a.post_construction_required is required  # § 83-8B: every land development
    assert a.inspections_required is required


def test_pelham_threshold_with_areas_typed_in_acres():
    a = regulations.assess("pelham", facts("pelham", disturbed_area_ac=2000 / 43560,
                                           new_impervious_area_ac=1000 / 43560))
    assert a.swppp_required is True  # 2,000 sq ft given in acres still counts
    b = regulations.assess("pelham", facts("pelham", disturbed_area_ac=1000 / 43560,
                                           new_impervious_area_ac=1000 / 43560))
    assert b.swppp_required is False  # 1,000 sq ft of impervious is not "more than 1,000"


def test_pelham_single_family_residence_is_not_excluded():
    a = regulations.assess("pelham", facts("pelham", disturbed_area_ft2=5000,
                                           project_type="single_family_residence"))
    assert a.swppp_required and a.post_construction_required and a.conditions == ()


PELHAM_EXEMPTIONS = ["routine_maintenance", "stormwater_repair", "approved_subdivision_plat",
                     "approved_building_permit", "fences_signs_poles", "emergency_activity",
                     "home_gardening", "landscaping_existing_structure"]


@pytest.mark.parametrize("letter, key", list(zip("ABCDEFGH", PELHAM_EXEMPTIONS, strict=True)))
def test_each_pelham_exemption_removes_the_swppp(letter, key):
    area = 1500.0 if key == "routine_maintenance" else 3000.0
    a = regulations.assess("pelham", facts("pelham", disturbed_area_ft2=area,
                                           new_impervious_area_ft2=1500.0,
                                           exemptions_claimed=(key,)))
    assert a.exempt is True and a.swppp_required is False
    assert f"§ 83-5{letter}" in a.swppp_reasons[0]


def test_pelham_routine_maintenance_exemption_limited_below_2000_sq_ft():
    no = regulations.assess("pelham", facts("pelham", disturbed_area_ft2=2000.0,
                                            exemptions_claimed=("A",)))
    assert no.exempt is False and no.swppp_required is True


def test_pelham_checklist_has_17_plus_7_items():
    a = regulations.assess("pelham", facts("pelham", disturbed_area_ft2=5000))
    ids = [c["id"] for c in a.checklist]
    assert [i for i in ids if i.startswith("83-8A")] == [f"83-8A({n})" for n in range(1, 18)]
    assert [i for i in ids if i.startswith("83-8B")] == [f"83-8B({n})" for n in range(1, 8)]
    assert all(c["applies"] for c in a.checklist)
    assert "83-8B(4)" in a.hydrocalc_items and "83-8A(2)" in a.preparer_items


def test_pelham_notice_milestones_are_the_seven_listed():
    p = regulations.load_profile("pelham")
    assert p.notices["hours_before"] == 48
    assert [m.letter for m in p.notice_milestones] == list("abcdefg")
    assert p.milestone_keys[0] == "start_of_construction"
    assert p.milestone_keys[4] == "construction_interruption_over_30_days"
    assert regulations.load_profile("shelter_island").milestone_keys == ()


def test_generic_profile_is_undetermined_beyond_the_one_acre_threshold():
    a = regulations.assess("nys_generic", facts("nys_generic", disturbed_area_ac=1.0))
    assert a.swppp_required is True
    assert a.post_construction_required is None and a.inspections_required is None
    assert regulations.load_profile("nys_generic").inspection_threshold_in is None
    b = regulations.assess("nys_generic", facts("nys_generic", disturbed_area_ac=0.4,
                                                part_of_larger_common_plan=True))
    assert b.swppp_required is True and "unverified" in b.swppp_reasons[0]


def test_cleanout_rule_is_50_percent_in_both_laws():
    for key, section in (("shelter_island", "110-39B"), ("pelham", "83-14A")):
        p = regulations.load_profile(key)
        assert p.cleanout_fraction == 0.5 and p.cleanout["section"] == section
    assert regulations.load_profile("nys_generic").cleanout_fraction is None


def test_profile_object_and_mapping_are_accepted():
    prof = regulations.load_profile("shelter_island")
    a = regulations.assess(prof, {"name": "x", "municipality": "shelter_island",
                                  "receiving_water": "y", "drains_to_impaired_water": False,
                                  "disturbed_area_ac": 1.5, "new_impervious_area_ft2": 0,
                                  "project_type": "commercial"})
    assert a.conditions_met == ("C",)


def test_to_frame_and_to_dict():
    a = regulations.assess("shelter_island", facts(disturbed_area_ac=2.4,
                                                   drains_to_impaired_water=True))
    frame = a.to_frame()
    assert set(frame["kind"]) >= {"threshold", "swppp", "condition", "post_construction",
                                  "inspections", "checklist", "certification", "recordkeeping"}
    assert list(frame.columns) == ["kind", "id", "citation", "applies", "produced_by",
                                   "report_sections", "text"]
    d = json.loads(json.dumps(a.to_dict()))
    assert d["conditions_met"] == ["A", "C"] and d["swppp_required"] is True
    assert d["inspection_rule"]["interval_days"] == 7
    assert d["inspection_rule"]["storm_threshold_in"] == 0.5
    assert a.checklist_frame().shape[0] == len(a.checklist)


def test_unknown_profile_and_exemption_messages():
    with pytest.raises(InputError, match=r"profile must be one of .*; got 'shelter'; did you "
                                         r"mean 'shelter_island'"):
        regulations.load_profile("shelter")
    with pytest.raises(InputError, match=r"exemption must be a key of the pelham profile; got "
                                         r"'cemetery_graves'"):
        regulations.assess("pelham", facts("pelham", disturbed_area_ft2=3000,
                                           exemptions_claimed=("cemetery_graves",)))
    with pytest.raises(InputError, match="project must be a ProjectFacts or a"):
        regulations.assess("pelham", 42)


@pytest.mark.parametrize("key", regulations.PROFILE_KEYS)
def test_profile_structure(key):
    p = regulations.load_profile(key)
    for item in p.checklist:
        assert item.section and set(item.report_sections) <= set(regulations.REPORT_SECTIONS)
        if item.produced_by in ("hydrocalc", "partial"):
            assert item.report_sections, item.id
    for e in p.exemptions:
        assert e.section and e.letter
    for r in p.certifications + p.recordkeeping:
        assert r.section


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


@pytest.mark.parametrize("key, seed", [("shelter_island", "000_"), ("pelham", "002_")])
def test_every_quote_is_verbatim_in_the_law_text(key, seed):
    files = sorted(SEEDS.glob(f"{seed}*.txt")) if SEEDS.is_dir() else []
    if not files:
        pytest.skip("../shared/seeds is not present")
    law = _normal(files[0].read_text(encoding="utf-8"))
    p = regulations.load_profile(key)
    quotes = [p.applicability.get("quote"), p.exemptions_effect.get("quote"),
              p.inspections.get("quote"), p.cleanout.get("quote"), p.notices.get("quote"),
              p.post_construction.get("quote")]
    quotes += [c.quote for c in p.conditions] + [r.quote for r in p.certifications]
    quotes = [q for q in quotes if q]
    assert len(quotes) >= 5
    for q in quotes:
        assert _normal(q).lower() in law.lower(), q
    for m in p.notice_milestones:
        assert _normal(m.text).lower() in law.lower()


def test_cli_assess_prints_conditions_and_checklist():
    result = CliRunner().invoke(_main(), ["assess", str(FIXTURES / "shelter_island_site.toml")])
    assert result.exit_code == 0, result.output
    assert "conditions met: A, C" in result.output
    assert "[x] 110-38D(4)" in result.output


def test_cli_assess_json_and_csv(tmp_path):
    out = tmp_path / "findings.csv"
    result = CliRunner().invoke(_main(), ["assess", str(FIXTURES / "pelham_site.toml"),
                                          "--json", "--csv", str(out)])
    assert result.exit_code == 0, result.output
    d = json.loads(result.stdout)
    assert d["swppp_required"] is True and d["post_construction_required"] is True
    assert out.is_file()


def test_cli_assess_reports_every_site_problem(tmp_path):
    site = tmp_path / "bad.toml"
    site.write_text('[project]\nname = "x"\nmunicipality = "pelam"\n')
    result = CliRunner().invoke(_main(), ["assess", str(site)])
    assert result.exit_code == 1
    assert "did you mean 'pelham'" in result.stderr
    assert len(result.stderr.strip().splitlines()) >= 5


def _main():
    from hydrocalc.cli import main

    return main
