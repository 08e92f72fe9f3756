"""[project] and [construction] parsing: every problem collected, one line each."""

from __future__ import annotations

import datetime as dt

import pytest

from hydrocalc.errors import InputError
from hydrocalc.site.project import (
    ConstructionPlan,
    ProjectFacts,
    TrapPlan,
    parse_construction,
    parse_project,
)

GOOD = {
    "name": "Ram's Head Lane Subdivision",
    "municipality": "shelter_island",
    "receiving_water": "Coecles Harbor",
    "drains_to_impaired_water": True,
    "impairment": "Peconic Estuary nitrogen TMDL",
    "disturbed_area_ac": 2.4,
    "new_impervious_area_ft2": 21000,
    "project_type": "subdivision",
}


def test_good_project_parses_without_problems():
    facts, problems = parse_project(GOOD)
    assert problems == []
    assert isinstance(facts, ProjectFacts)
    assert facts.disturbed_area_ac == 2.4
    assert facts.disturbed_area_ft2 == pytest.approx(2.4 * 43560, rel=1e-12)
    assert facts.new_impervious_area_ac == pytest.approx(21000 / 43560, rel=1e-12)
    assert facts.part_of_larger_common_plan is False
    assert facts.exemptions_claimed == ()


def test_area_given_in_square_feet_is_kept_exactly():
    # 2000 / 43560 * 43560 != 2000 in floating point; the typed value must survive.
    facts, _ = parse_project({**_without(GOOD, "disturbed_area_ac", "new_impervious_area_ft2"),
                            "disturbed_area_ft2": 2000, "new_impervious_area_ft2": 1500})
    assert facts.disturbed_area_ft2 == 2000.0


def _without(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}


def test_every_problem_is_reported_at_once():
    bad = {**GOOD, "disturbed_area_ac": -3, "municipality": "shelter_isle",
           "project_type": "house", "colour": "red"}
    facts, problems = parse_project(bad)
    assert facts is None
    assert len(problems) == 4
    assert "site.toml: project.disturbed_area_ac must be >= 0; got -3" in problems
    assert any("did you mean 'shelter_island'" in p for p in problems)
    assert any("project.project_type must be one of" in p for p in problems)
    assert any(p.startswith("site.toml: unknown key project.colour") for p in problems)


def test_unknown_key_suggests_the_close_name():
    _, problems = parse_project({**GOOD, "recieving_water": "x"})
    assert problems == ["site.toml: unknown key project.recieving_water; did you mean "
                        "'receiving_water'?"]


def test_missing_required_keys_are_each_one_line():
    _, problems = parse_project({"name": "x"}, where="a.toml")
    text = "\n".join(problems)
    for key in ("municipality", "receiving_water", "drains_to_impaired_water", "project_type",
                "disturbed_area_ac", "new_impervious_area_ft2"):
        assert f"a.toml: project.{key}" in text
    assert all("\n" not in p for p in problems)


def test_both_units_of_one_area_is_a_problem():
    _, problems = parse_project({**GOOD, "disturbed_area_ft2": 100})
    assert problems == ["site.toml: project.disturbed_area_ac and project.disturbed_area_ft2 "
                        "must not both be given; got both. Keep one."]


def test_missing_section_is_a_problem():
    facts, problems = parse_project(None)
    assert facts is None and problems[0].startswith("site.toml: [project] section is required")


def test_non_boolean_flag_is_a_problem():
    _, problems = parse_project({**GOOD, "drains_to_impaired_water": "yes"})
    assert problems == ["site.toml: project.drains_to_impaired_water must be true or false; "
                        "got 'yes'"]


def test_exemption_keys_are_checked_against_the_profile():
    facts, problems = parse_project({**GOOD, "exemptions_claimed": ["routine_maintenance", "K"]})
    assert problems == [] and facts.exemptions_claimed == ("routine_maintenance", "K")
    _, problems = parse_project({**GOOD, "exemptions_claimed": ["home_gardnening"]})
    assert problems and "did you mean 'home_gardening'" in problems[0]


def test_directly_built_facts_need_one_unit_of_each_area():
    with pytest.raises(InputError, match="disturbed_area_ac or disturbed_area_ft2 must be given"):
        ProjectFacts(name="x", municipality="pelham", receiving_water="y",
                     drains_to_impaired_water=False, project_type="other",
                     new_impervious_area_ft2=0)


CONSTRUCTION = {
    "start_date": dt.date(2027, 4, 1),
    "end_date": dt.date(2027, 10, 29),
    "milestone": [{"key": "start_of_construction", "date": dt.date(2027, 4, 1)}],
    "trap": [{
        "id": "ST-1", "drainage_area_ac": 2.1, "criteria": "ny_bluebook_2016_sediment_trap",
        "bottom_length_ft": 40.0, "bottom_width_ft": 20.0, "depth_ft": 4.0,
        "side_slope_h_per_v": 2.0, "k_factor": 0.28, "slope_length_ft": 200.0,
        "slope_pct": 6.0, "c_factor": 1.0, "p_factor": 1.0, "cn": 86, "tc_hr": 0.2,
        "dry_unit_weight_lb_ft3": 90.0, "trap_efficiency_frac": 0.8,
    }],
}


def test_good_construction_parses(tmp_path):
    plan, problems = parse_construction(CONSTRUCTION, base_dir=tmp_path)
    assert problems == []
    assert isinstance(plan, ConstructionPlan) and plan.duration_days == 212
    (trap,) = plan.traps
    assert isinstance(trap, TrapPlan) and trap.geometry == "trapezoidal" and trap.has_musle
    assert plan.milestones[0].key == "start_of_construction"
    assert plan.inspection_clock == "fixed" and plan.rainfall_shift_years == 0


def test_absent_construction_section_is_not_a_problem():
    assert parse_construction(None) == (None, [])


def test_construction_problems_are_collected(tmp_path):
    bad = {
        "start_date": dt.date(2027, 4, 1),
        "end_date": dt.date(2027, 3, 1),
        "rainfall_file": "nowhere.csv",
        "inspection_clock": "weekly",
        "milestone": [{"key": "start_of_constrution", "date": "tomorrow"}],
        "trap": [{"id": "ST-1", "drainage_area_ac": 0, "criteria": "bluebook",
                  "k_factor": 0.3}],
    }
    plan, problems = parse_construction(bad, where="s.toml", base_dir=tmp_path,
                                        municipality="pelham")
    assert plan is None
    text = "\n".join(problems)
    assert "s.toml: construction.end_date must be on or after start_date (2027-04-01); got " \
           "2027-03-01" in text
    assert "construction.rainfall_file must be an existing file" in text
    assert "construction.inspection_clock must be one of fixed, rolling" in text
    assert "did you mean 'start_of_construction'" in text
    assert "construction.milestone[0].date must be a date" in text
    assert "construction.trap[0].drainage_area_ac must be > 0; got 0" in text
    assert "construction.trap[0].criteria must be a key of the sediment criteria table" in text
    assert "MUSLE inputs must be complete when any is given; missing" in text


def test_milestone_key_of_another_municipality_is_rejected():
    _, problems = parse_construction(CONSTRUCTION, municipality="shelter_island")
    assert problems and "must be a milestone key of the shelter_island profile" in problems[0]


def test_trap_tc_below_tr55_range_explains_the_limit():
    trap = {**CONSTRUCTION["trap"][0], "tc_hr": 0.05}
    _, problems = parse_construction({**CONSTRUCTION, "trap": [trap]})
    assert problems == ["site.toml: construction.trap[0].tc_hr must be >= 0.1; got 0.05. The "
                        "TR-55 graphical peak method covers Tc 0.1-10 h; TR-55 uses 0.1 h as "
                        "the minimum Tc."]


def test_trap_with_stage_area_table_and_duplicate_ids():
    t = {"id": "A", "drainage_area_ac": 1.0, "criteria": "nh_envwq_1506_10_sediment_trap",
         "stage_ft": [0, 1, 2], "area_ft2": [100, 200, 300]}
    plan, problems = parse_construction({**CONSTRUCTION, "trap": [t]})
    assert problems == [] and plan.traps[0].geometry == "stage_area"
    _, problems = parse_construction({**CONSTRUCTION, "trap": [t, t]})
    assert problems == ["site.toml: construction.trap[1].id must be unique; got 'A' twice"]
    _, problems = parse_construction({**CONSTRUCTION, "trap": [{**t, "stage_ft": [0, 2, 1]}]})
    assert "construction.trap[0].stage_ft must be strictly increasing" in problems[0]


def test_datetime_milestone_is_accepted():
    ms = [{"key": "installation_of_erosion_controls", "date": dt.datetime(2027, 4, 2, 7, 30)}]
    plan, problems = parse_construction({**CONSTRUCTION, "milestone": ms}, municipality="pelham")
    assert problems == [] and plan.milestones[0].when == dt.datetime(2027, 4, 2, 7, 30)


def test_rainfall_type_accepts_tr55_spellings():
    plan, problems = parse_construction({**CONSTRUCTION, "rainfall_type": "Type III"})
    assert problems == [] and plan.rainfall_type == "III"
    _, problems = parse_construction({**CONSTRUCTION, "rainfall_type": "NOAA_C"})
    assert problems == ["site.toml: construction.rainfall_type must be one of I, IA, II, III "
                        "(TR-55 rainfall distribution); got 'NOAA_C'"]
