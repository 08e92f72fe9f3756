"""The API validates like the site loader: one shared rule set for the project facts."""

from __future__ import annotations

import math

import pytest

from hydrocalc._validate import confined_path, excerpt, number_problem, text_problem
from hydrocalc.criteria import regulations
from hydrocalc.errors import InputError
from hydrocalc.site.project import ProjectFacts, parse_project, project_problems

GOOD = dict(name="Lot 4", municipality="pelham", receiving_water="Hutchinson River",
            drains_to_impaired_water=False, project_type="commercial",
            disturbed_area_ac=0.5, new_impervious_area_ft2=800)


@pytest.mark.parametrize("field, value, fragment", [
    ("disturbed_area_ac", -2, "disturbed_area_ac must be >= 0; got -2"),
    ("disturbed_area_ac", math.nan, "disturbed_area_ac must be a finite number; got nan"),
    ("disturbed_area_ac", math.inf, "disturbed_area_ac must be a finite number; got inf"),
    ("disturbed_area_ac", "2", "disturbed_area_ac must be a number; got '2'"),
    ("disturbed_area_ac", 1e15, "disturbed_area_ac must be <= 100000; got 1e+15"),
    ("new_impervious_area_ft2", -5, "new_impervious_area_ft2 must be >= 0; got -5"),
    ("municipality", "pelam", "municipality must be one of"),
    ("project_type", "house", "project_type must be one of"),
    ("name", "", "name must be a non-empty string"),
    ("owner", "a\x1bb", r"owner must not contain control characters; got \x1b"),
    ("drains_to_impaired_water", "yes", "drains_to_impaired_water must be true or false"),
])
def test_constructor_and_site_loader_share_the_rules(field, value, fragment):
    with pytest.raises(InputError) as api:
        ProjectFacts(**{**GOOD, field: value})
    assert fragment in str(api.value)
    facts, site_problems = parse_project({**GOOD, field: value})
    assert facts is None
    assert any(fragment in p for p in site_problems), site_problems


def test_assess_never_answers_for_invalid_facts():
    for bad in (-2, math.nan):
        with pytest.raises(InputError):
            regulations.assess("pelham", ProjectFacts(**{**GOOD, "disturbed_area_ac": bad}))


def test_both_units_must_agree():
    with pytest.raises(InputError, match=r"disturbed_area_ac and disturbed_area_ft2 must agree"):
        ProjectFacts(**GOOD, disturbed_area_ft2=100.0)
    f = ProjectFacts(**{**GOOD, "disturbed_area_ac": 1.0}, disturbed_area_ft2=43560.0)
    assert f.disturbed_area_ft2 == 43560.0


def test_project_problems_is_the_rule_set():
    assert project_problems(ProjectFacts(**GOOD)) == []
    assert project_problems({**GOOD, "disturbed_area_ac": -1}) == [
        "disturbed_area_ac must be >= 0; got -1"]


def test_shared_scalar_rules():
    assert number_problem(True) == "must be a number; got True"
    assert number_problem(5, upper=4) == "must be <= 4; got 5"
    assert number_problem(0, lower=0, lower_inclusive=False) == "must be > 0; got 0"
    assert text_problem("ok") is None and text_problem("tab\tok") is None
    assert "\\x00" in text_problem("nul\x00")
    assert len(excerpt("x" * 10_000)) <= 43
    assert "\\x1b" in excerpt("\x1b[31m")


def test_confined_path_rules(tmp_path):
    (tmp_path / "a.csv").write_text("x")
    assert confined_path("a.csv", tmp_path, field="f") == tmp_path / "a.csv"
    with pytest.raises(InputError, match=r"f must name a file inside the site file's folder"):
        confined_path("../a.csv", tmp_path / "sub", field="f")
    with pytest.raises(InputError, match=r"must not contain control characters"):
        confined_path("a\x00.csv", tmp_path, field="f")
    assert confined_path("/etc/passwd", tmp_path, field="f", allow_outside=True).is_absolute()


def test_trap_and_plan_constructors_share_the_site_rules():
    import datetime as dt

    from hydrocalc.construction import sediment
    from hydrocalc.site.project import ConstructionPlan, Milestone, TrapPlan, parse_construction

    bb = "ny_bluebook_2016_sediment_trap"
    for cls in (sediment.SedimentTrap, TrapPlan):
        with pytest.raises(InputError, match=r"trap X: drainage_area_ac must be > 0; got -1"):
            cls("X", -1.0, bb)
        with pytest.raises(InputError, match=r"drainage_area_ac must be a finite number"):
            cls("X", math.nan, bb)
        with pytest.raises(InputError, match=r"k_factor must be <= 1; got 5"):
            cls("X", 1.0, bb, k_factor=5)
        with pytest.raises(InputError, match=r"stage_ft must be strictly increasing"):
            cls("X", 1.0, bb, stage_ft=(0.0, 0.0), area_ft2=(1.0, 2.0))
    _, site = parse_construction({"start_date": dt.date(2027, 4, 1),
                                  "end_date": dt.date(2027, 5, 1),
                                  "trap": [{"id": "X", "drainage_area_ac": -1.0,
                                            "criteria": bb}]})
    assert any("drainage_area_ac must be > 0; got -1" in p for p in site)
    with pytest.raises(InputError, match=r"end_date must be on or after start_date"):
        ConstructionPlan(dt.date(2027, 5, 1), dt.date(2027, 4, 1))
    with pytest.raises(InputError, match=r"inspection_threshold_in must be > 0; got -1"):
        ConstructionPlan(dt.date(2027, 4, 1), dt.date(2027, 5, 1), inspection_threshold_in=-1)
    with pytest.raises(InputError, match=r"inspection_clock must be one of fixed, rolling"):
        ConstructionPlan(dt.date(2027, 4, 1), dt.date(2027, 5, 1), inspection_clock="weekly")
    with pytest.raises(InputError, match=r"when must be a date"):
        Milestone("start_of_construction", "tomorrow")


def test_subcatchment_built_in_python_validates_like_the_loader():
    import dataclasses

    from hydrocalc.site import Subcatchment, load_site

    with pytest.raises(InputError, match=r"subcatchment S: area_ac must be > 0; got -1"):
        Subcatchment("S", "DP", -1.0, 80.0, 0.2)
    with pytest.raises(InputError, match=r"cn must be <= 100; got 104"):
        Subcatchment("S", "DP", 1.0, 104.0, 0.2)
    with pytest.raises(InputError, match=r"tc_hr must be a finite number; got nan"):
        Subcatchment("S", "DP", 1.0, 80.0, math.nan)
    import pathlib

    site = load_site(pathlib.Path(__file__).parents[2] / "examples" / "pelham" / "site.toml")
    sub = site.post.subcatchments[0]
    with pytest.raises(InputError, match=r"cn must be > 0"):
        dataclasses.replace(sub, cn=0.0)
