"""The declared model checks the dates, the rainfall type and each practice kind's keys."""

from __future__ import annotations

import copy
import datetime as dt
import json
import pathlib
import tomllib

import pytest

from hydrocalc.errors import InputError
from hydrocalc.site import site_problems
from hydrocalc.site.project import (
    ConstructionPlan,
    ProjectFacts,
    parse_construction,
    parse_project,
)

ROOT = pathlib.Path(__file__).resolve().parents[2]
REDEV = ROOT / "examples" / "pelham_redevelopment" / "site.toml"
PERIOD = {"start_date": dt.date(2027, 4, 1), "end_date": dt.date(2027, 10, 29)}
GOOD = dict(name="Lot 4", municipality="pelham", receiving_water="Hutchinson River",
            drains_to_impaired_water=False, project_type="commercial",
            disturbed_area_ac=0.5, new_impervious_area_ft2=800)


def test_a_date_may_be_written_as_iso_text():
    plan, problems = parse_construction({
        "start_date": "2027-04-01", "end_date": "2027-10-29",
        "milestone": [{"key": "start_of_construction", "date": "2027-04-01T07:00"}]},
        municipality="pelham")
    assert problems == []
    assert plan.start_date == dt.date(2027, 4, 1) and plan.duration_days == 212
    assert plan.milestones[0].when == dt.datetime(2027, 4, 1, 7, 0)
    facts, problems = parse_project({
        **GOOD, "exemptions_claimed": ["approved_building_permit"],
        "exemption_approved_on": {"approved_building_permit": "2007-05-01"},
        "state_permit": {"written_authorization": "DEC letter 12",
                         "written_authorization_date": "2025-06-02"}})
    assert problems == []
    assert facts.exemption_approved_on == {"approved_building_permit": dt.date(2007, 5, 1)}
    assert facts.state_permit.written_authorization_date == dt.date(2025, 6, 2)


@pytest.mark.parametrize(("value", "shown"), [
    ("20270401", "'20270401'"), ("2027-02-30", "'2027-02-30'"), (5, "5"),
    (dt.datetime(2027, 4, 1, 7), "2027-04-01T07:00:00")])
def test_a_value_that_is_not_a_date_is_named(value, shown):
    _, problems = parse_construction({**PERIOD, "start_date": value})
    assert problems == [f"site.toml: construction.start_date must be a date (YYYY-MM-DD, "
                        f"unquoted TOML date); got {shown}"]


def test_a_missing_date_is_asked_for_as_a_toml_date():
    _, problems = parse_construction({"start_date": dt.date(2027, 4, 1)})
    assert problems == ["site.toml: construction.end_date is required; got nothing. Add it as "
                        "a TOML date, e.g. 2027-04-01."]


@pytest.mark.parametrize("written", ["II", "Type II", "type_ii", " TYPE-II ", "ii"])
def test_the_rainfall_type_is_read_in_its_spellings(written):
    plan, problems = parse_construction({**PERIOD, "rainfall_type": written})
    assert problems == [] and plan.rainfall_type == "II"


@pytest.mark.parametrize("written", ["IV", "Type", "", 2])
def test_another_rainfall_type_is_refused(written):
    _, problems = parse_construction({**PERIOD, "rainfall_type": written})
    assert problems == [f"site.toml: construction.rainfall_type must be one of I, IA, II, III "
                        f"(TR-55 rainfall distribution); got {written!r}"]


def test_a_blank_rainfall_station_is_accepted_but_not_a_control_character():
    assert parse_construction({**PERIOD, "rainfall_station": " "})[1] == []
    _, problems = parse_construction({**PERIOD, "rainfall_station": "a\x01b"})
    assert problems[0].startswith("site.toml: construction.rainfall_station must not contain "
                                  "control characters")


def test_the_api_constructors_share_the_model_s_rules():
    with pytest.raises(InputError, match=r"end_date must be a date \(YYYY-MM-DD"):
        ConstructionPlan(dt.date(2027, 4, 1), "soon")
    assert ConstructionPlan(dt.date(2027, 4, 1), "2027-05-01",
                            rainfall_type="type ii").rainfall_type == "II"
    with pytest.raises(InputError, match=r"exemption_approved_on\.x must be a date"):
        ProjectFacts(**GOOD, exemptions_claimed=("x",), exemption_approved_on={"x": 3})
    with pytest.raises(InputError, match=r"municipality must be a string; got 5"):
        ProjectFacts(**{**GOOD, "municipality": 5})


def _redevelopment(change) -> list[str]:
    doc = tomllib.loads(REDEV.read_text(encoding="utf-8"))
    doc = copy.deepcopy(doc)
    change(doc["criteria"]["practice"])
    return site_problems(doc, where="site.toml", base_dir=REDEV.parent)[1]


def test_a_practice_kind_allows_only_its_own_geometry():
    def add_area_to_the_cistern(practices):
        practices[2]["area_ft2"] = 10.0

    problems = _redevelopment(add_area_to_the_cistern)
    assert len(problems) == 1
    assert problems[0].startswith("site.toml: unknown key criteria.practice[RT-1].area_ft2")


def test_a_practice_kind_requires_its_geometry():
    def drop_the_volume(practices):
        del practices[2]["volume_gal"]

    assert _redevelopment(drop_the_volume) == [
        "site.toml: criteria.practice[RT-1].volume_gal is required; got nothing. Add it to the "
        "file."]


def test_an_unknown_practice_kind_is_named_with_the_kinds():
    def misspell(practices):
        practices[0]["kind"] = "raingarden"

    problems = _redevelopment(misspell)
    assert len(problems) == 1
    assert problems[0].startswith("site.toml: criteria.practice[RG-1].kind must be one of "
                                  "bioretention, rain_garden,")
    assert "did you mean 'rain_garden'?" in problems[0]


def test_the_schema_requires_each_kind_s_geometry():
    from hydrocalc.commands.schema import shipped_schema_text

    defs = json.loads(shipped_schema_text("site"))["$defs"]
    assert {"volume_gal", "demand_gal_per_day"} <= set(defs["Cistern"]["required"])
    assert "area_ft2" not in defs["Cistern"]["properties"]
    assert defs["Practice"]["additionalProperties"] is False
