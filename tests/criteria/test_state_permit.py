"""NYS construction-permit coverage and the 5-acre limit, through regulations.assess."""

from __future__ import annotations

import pytest

from hydrocalc.criteria import regulations, state_permit
from hydrocalc.errors import InputError
from hydrocalc.site.project import parse_project

BASE = {"name": "Lot", "municipality": "shelter_island", "receiving_water": "Coecles Harbor",
        "drains_to_impaired_water": False, "project_type": "commercial",
        "new_impervious_area_ft2": 0}


def _assess(**kw):
    doc = dict(BASE, **kw)
    facts, problems = parse_project(doc, where="site.toml")
    assert problems == []
    return regulations.assess(facts.municipality, facts)


def test_one_acre_or_more_needs_coverage_with_quote_and_source():
    a = _assess(disturbed_area_ac=1.0, state_permit={"edition": "GP-0-20-001"})
    sp = a.state_permit
    assert sp["coverage_required"] is True
    assert "one or more acres must obtain coverage" in sp["coverage_reasons"][0]
    assert "https://dec.ny.gov/" in sp["coverage_reasons"][0]
    assert a.to_dict()["state_permit"]["coverage_required"] is True
    assert any(line.startswith("NYS SPDES construction permit coverage required: yes")
               for line in a.summary_lines())
    assert "state_permit_coverage" in set(a.to_frame()["id"])


def test_just_below_one_acre_is_not_covered_unless_larger_plan():
    small = _assess(disturbed_area_ac=0.1)
    assert small.state_permit["coverage_required"] is False
    plan = _assess(disturbed_area_ac=0.5, part_of_larger_common_plan=True)
    assert plan.state_permit["coverage_required"] is True
    rows = plan.state_permit["values_to_confirm"]
    assert any("larger-common-plan" in r["name"] and r["verified"] is False for r in rows)


def test_east_of_hudson_threshold_needs_the_fact():
    unknown = _assess(disturbed_area_ft2=6000)
    assert unknown.state_permit["coverage_required"] is None
    assert "nyc_east_of_hudson_watershed" in unknown.state_permit["coverage_reasons"][0]
    inside = _assess(disturbed_area_ft2=6000, state_permit={"nyc_east_of_hudson_watershed": True})
    assert inside.state_permit["coverage_required"] is True
    outside = _assess(disturbed_area_ft2=6000,
                      state_permit={"nyc_east_of_hudson_watershed": False})
    assert outside.state_permit["coverage_required"] is False
    at_limit = _assess(disturbed_area_ft2=5000,
                       state_permit={"nyc_east_of_hudson_watershed": True})
    assert at_limit.state_permit["coverage_required"] is False  # "more than 5,000 sq ft"


@pytest.mark.parametrize(("most", "auth", "passed"), [
    (5.0, "", True),         # exactly five acres is not "greater than five"
    (5.01, "", False),
    (6.0, "DEC letter 2027-03-01", True),
    (None, "", None),        # 7 ac in total and no phasing: cannot check
])
def test_soil_disturbed_at_one_time(most, auth, passed):
    sp = {"edition": "GP-0-15-002", "written_authorization": auth}
    if most is not None:
        sp["max_disturbed_at_one_time_ac"] = most
    lim = _assess(disturbed_area_ac=7.0, state_permit=sp).state_permit["disturbance_limit"]
    assert lim["passed"] is passed
    assert lim["verified_for_edition"] is True
    assert "five (5) acres of soil at any one time" in lim["quote"]


def test_small_total_meets_limit_without_phasing():
    lim = _assess(disturbed_area_ac=2.0).state_permit["disturbance_limit"]
    assert lim["passed"] is True and "total disturbed area" in lim["reason"]


def test_edition_is_never_defaulted_and_unverified_items_are_listed():
    sp = _assess(disturbed_area_ac=2.0).state_permit
    assert sp["edition"] is None
    names = [r["name"] for r in sp["values_to_confirm"]]
    assert "state permit edition" in names
    sp25 = _assess(disturbed_area_ac=2.0, state_permit={"edition": "GP-0-25-001"}).state_permit
    assert sp25["disturbance_limit"]["verified_for_edition"] is False
    assert any("GP-0-25-001" in r["name"] for r in sp25["values_to_confirm"])
    assert any("not verified for GP-0-25-001" in r["source"] for r in sp25["values_to_confirm"])


def test_bad_state_permit_input_is_one_line_each():
    doc = dict(BASE, disturbed_area_ac=2.0,
               state_permit={"edition": "GP-0-20-01", "max_disturbed_at_one_time_ac": -1,
                             "colour": 1})
    facts, problems = parse_project(doc, where="site.toml")
    assert facts is None
    assert len(problems) == 3
    assert all("\n" not in p and p.startswith("site.toml: ") for p in problems)
    assert any("project.state_permit.edition must be one of" in p and "GP-0-20-001" in p
               for p in problems)


def test_rules_carry_quotes_and_public_sources():
    rules = state_permit.load_permit_rules()
    for block in (rules["coverage"], rules["coverage"]["nyc_east_of_hudson"],
                  rules["disturbance_limit"]):
        assert block["quote"] and "https://" in block["source"]
    assert state_permit.permit_editions() == ("GP-0-15-002", "GP-0-20-001", "GP-0-25-001")


def test_assess_signature_unchanged():
    with pytest.raises(InputError):
        regulations.assess("pelham", 3)
