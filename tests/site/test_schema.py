"""The declared site-file model and its published JSON Schema (hydrocalc schema site)."""

from __future__ import annotations

import copy
import datetime
import json
import pathlib
import re
import tomllib

import pytest
from jsonschema import Draft202012Validator

from hydrocalc.batch.sweep import parse as sweep_parse
from hydrocalc.commands.schema import (
    REFERENCE_END,
    REFERENCE_START,
    generated_schemas,
    reference_markdown,
    schema_text,
    shipped_schema_text,
)
from hydrocalc.criteria import ny_redevelopment, practices, state_permit
from hydrocalc.schema import DRAFT_2020_12, described_share
from hydrocalc.site import (
    devices,
    load,
    plausibility,
    ponds,
    rational,
    reaches,
    scenario,
    settings,
)
from hydrocalc.site import subcatchments as subs
from hydrocalc.site.project import construction, facts
from hydrocalc.site.schema import SiteFile

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*/site.toml"))
SCHEMA = json.loads(shipped_schema_text("site"))
VALIDATOR = Draft202012Validator(SCHEMA)


def as_json(value):
    """A parsed TOML document as JSON data: dates and times become ISO text (as in editors)."""
    if isinstance(value, dict):
        return {k: as_json(v) for k, v in value.items()}
    if isinstance(value, list):
        return [as_json(v) for v in value]
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return value


def errors(doc) -> list[str]:
    found = VALIDATOR.iter_errors(as_json(doc))
    return [f"{'.'.join(map(str, e.path))}: {e.message}" for e in found]


def example(name: str = "pelham") -> dict:
    return tomllib.loads((ROOT / "examples" / name / "site.toml").read_text(encoding="utf-8"))


def test_the_shipped_schemas_are_the_models_output():
    # regenerate with: python tools/gen_schemas.py
    for name, schema in generated_schemas().items():
        assert shipped_schema_text(name) == schema_text(schema), name


def test_the_schema_is_draft_2020_12_with_a_title_and_description():
    Draft202012Validator.check_schema(SCHEMA)
    assert SCHEMA["$schema"] == DRAFT_2020_12
    assert SCHEMA["title"] and SCHEMA["description"]


def test_at_least_90_percent_of_the_properties_are_described():
    assert described_share(SCHEMA) >= 0.9


def test_every_table_forbids_unknown_keys():
    open_tables = [name for name, d in SCHEMA["$defs"].items()
                   if d.get("type") == "object" and d.get("additionalProperties") is not False]
    assert open_tables == ["Confirmations"]  # unknown items are warnings there (site_file.md)
    assert SCHEMA["additionalProperties"] is False


def test_the_ranges_and_units_are_in_the_schema():
    area = SCHEMA["$defs"]["Subcatchment"]["properties"]["area_ac"]
    assert area["exclusiveMinimum"] == 0
    assert "[ac]" in area["description"] and "> 0" in area["description"]


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.parent.name)
def test_every_example_site_validates(path):
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    assert errors(doc) == []
    SiteFile.model_validate(doc)  # the pydantic model accepts it too


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.parent.name)
def test_every_example_names_the_schema_in_its_first_line(path):
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "#:schema ../../src/hydrocalc/data/schema/site.schema.json"
    assert (path.parent / first.split(" ", 1)[1]).resolve().is_file()


def _first_subcatchment_with(doc, key):
    return next(s for s in doc["post"]["subcatchment"] if key in s)


def _bad(mutate) -> list[str]:
    doc = copy.deepcopy(example())
    mutate(doc)
    return errors(doc)


def test_rejects_a_negative_area():
    got = _bad(lambda d: d["post"]["subcatchment"][0].__setitem__("area_ac", -3))
    assert got and any("area_ac" in e for e in got)


def test_rejects_an_area_given_as_text():
    got = _bad(lambda d: d["post"]["subcatchment"][0].__setitem__("area_ac", "0.2"))
    assert got and any("area_ac" in e for e in got)


def test_rejects_hsg_e():
    def mutate(d):
        _first_subcatchment_with(d, "cover")["cover"][0]["hsg"] = "E"
    got = _bad(mutate)
    assert got and any("hsg" in e for e in got)


def test_an_error_inside_a_subcatchment_is_reported_at_its_key():
    # the subcatchment's form is chosen by method (if/then/else), so an editor underlines
    # the key at fault, not the whole [[...subcatchment]] table
    def mutate(d):
        _first_subcatchment_with(d, "cover")["cover"][0]["hsg"] = "E"
        s = next(s for s in d["pre"]["subcatchment"] if "tc_segment" in s)
        s["tc_segment"][0]["type"] = "pipe"
    doc = copy.deepcopy(example())
    mutate(doc)
    paths = {tuple(e.path) for e in VALIDATOR.iter_errors(as_json(doc))}
    assert any(p[-3:] == ("cover", 0, "hsg") for p in paths), paths
    assert any(p[-3:] == ("tc_segment", 0, "type") for p in paths), paths


def test_accepts_a_lower_case_hsg_as_the_loader_does():
    def mutate(d):
        _first_subcatchment_with(d, "cover")["cover"][0]["hsg"] = "c"
    assert _bad(mutate) == []


def test_rejects_an_unknown_tc_segment_type():
    def mutate(d):
        s = next(s for s in d["pre"]["subcatchment"] if "tc_segment" in s)
        s["tc_segment"][0]["type"] = "pipe"
    assert _bad(mutate)


def test_rejects_an_unknown_table():
    got = _bad(lambda d: d.__setitem__("stroms", {"distribution": "III"}))
    assert got and any("stroms" in e for e in got)


def test_rejects_a_misspelled_key():
    got = _bad(lambda d: d["storms"].__setitem__("wqv_precip_inn", 1.5))
    assert got and any("wqv_precip_inn" in e for e in got)


def test_accepts_an_extra_report_section_and_rejects_a_non_notebook():
    assert _bad(lambda d: d.__setitem__("report", {"extra_sections": ["a/b.ipynb"],
                                                   "notebook_timeout_s": 600})) == []
    assert _bad(lambda d: d.__setitem__("report", {"extra_sections": ["a/b.py"]}))
    assert _bad(lambda d: d.__setitem__("report", {"notebook_timeout_s": 0}))


def _props(name: str) -> set[str]:
    table = SCHEMA if name == "SiteFile" else SCHEMA["$defs"][name]
    return set(table["properties"])


@pytest.mark.parametrize(("table", "keys"), [
    ("SiteFile", load._TOP_KEYS),
    ("Project", facts._PROJECT_KEYS),
    ("StatePermit", state_permit._KEYS),
    ("Storms", settings._STORMS_KEYS),
    ("Analysis", settings._ANALYSIS_KEYS),
    ("Report", settings._REPORT_KEYS),
    ("Criteria", settings._CRITERIA_KEYS),
    ("Checks", plausibility.CHECK_KEYS),
    ("Scenario", scenario._SCENARIO_KEYS),
    ("DesignPoint", scenario._DP_KEYS),
    ("Subcatchment", (*subs._SUB_KEYS, "method")),
    ("Cover", subs._COVER_KEYS),
    ("SheetSegment", subs._SEG_KEYS["sheet"]),
    ("ShallowSegment", subs._SEG_KEYS["shallow"]),
    ("ChannelSegment", subs._SEG_KEYS["channel"]),
    ("Rational", rational._RATIONAL_KEYS),
    ("IdfCoefficients", rational._IDF_KEYS),
    ("RationalSubcatchment", rational._SUB_KEYS),
    ("RationalCover", rational._COVER_KEYS),
    ("Pond", ponds._POND_KEYS),
    ("StageArea", (*ponds._STORAGE_KEYS["stage_area"], "elevation_ft")),
    ("StageStorage", (*ponds._STORAGE_KEYS["stage_storage"], "elevation_ft")),
    ("Basin", ponds._STORAGE_KEYS["basin"]),
    ("Drywell", ponds._STORAGE_KEYS["drywell"]),
    ("Culvert", devices._CULVERT_KEYS),
    ("Barrel", (*devices._BARREL_REQUIRED, *devices._BARREL_OPTIONAL)),
    ("Reach", reaches._REACH_KEYS),
    ("Construction", construction._CONSTRUCTION_KEYS),
    ("Trap", construction._TRAP_KEYS),
    ("Milestone", construction._MILESTONE_KEYS),
    ("Practice", (*practices._COMMON, *{k for g in practices._GEOMETRY.values() for k in g},
                  *{k for g in practices._OPTIONAL_GEOMETRY.values() for k in g})),
    ("Redevelopment", ny_redevelopment._KEYS),
])
def test_the_schema_declares_exactly_the_keys_the_loader_reads(table, keys):
    assert _props(table) == set(keys)


def test_every_outlet_type_declares_exactly_the_loader_keys():
    names = {"circular_orifice": "CircularOrifice", "rectangular_orifice": "RectangularOrifice",
             "rectangular_weir": "RectangularWeir", "vnotch_weir": "VNotchWeir",
             "broad_crested_weir": "BroadCrestedWeir", "riser": "Riser",
             "exfiltration": "Exfiltration"}
    assert set(names) == set(devices.OUTLET_FIELDS)
    for kind, (required, optional) in devices.OUTLET_FIELDS.items():
        extra = ("over",) if kind == "exfiltration" else ()
        assert _props(names[kind]) == {"type", "id", *required, *optional, *extra}, kind
        assert set(SCHEMA["$defs"][names[kind]]["required"]) == {"type", *required}, kind


def test_sweep_keys_are_those_of_the_loader():
    sweep = json.loads(shipped_schema_text("sweep"))
    assert set(sweep["properties"]) == set(sweep_parse._TOP_KEYS)
    assert set(sweep["$defs"]["Vary"]["properties"]) == set(sweep_parse._VARY_KEYS)


DOC = ROOT / "docs" / "site_file.md"


def test_the_key_reference_of_the_docs_is_generated_from_the_schema():
    # regenerate with: python tools/gen_schemas.py
    text = DOC.read_text(encoding="utf-8")
    start, end = text.index(REFERENCE_START), text.index(REFERENCE_END)
    assert text[start:end + len(REFERENCE_END) + 1] == reference_markdown(SCHEMA)


def _documented_keys() -> set[str]:
    """The keys in the first column of the hand-written key and section tables of the docs."""
    text = DOC.read_text(encoding="utf-8").split("## Key reference")[0]
    keys, in_key_table = set(), False
    for line in text.splitlines():
        if not line.startswith("|"):
            in_key_table = False
            continue
        first = line.split("|")[1].strip()
        if first in ("Key", "Section"):
            in_key_table = True
        elif in_key_table and not first.startswith("---"):
            keys |= {k for k in re.findall(r"`\[*([A-Za-z0-9_.<>]+)\]*`", first)
                     if not k.startswith("_")}  # `x_ac` / `_ft2`: the suffix alone
    return keys


def _all_properties(node, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        out |= set(node.get("properties") or ())
        for v in node.values():
            _all_properties(v, out)
    elif isinstance(node, list):
        for v in node:
            _all_properties(v, out)
    return out


def test_every_key_the_docs_describe_is_in_the_schema():
    documented = _documented_keys()
    assert len(documented) > 100
    known = _all_properties(SCHEMA, set())
    assert sorted(k.rsplit(".", 1)[-1] for k in documented
                  if k.rsplit(".", 1)[-1] not in known) == []


def test_every_schema_key_is_in_the_docs():
    text = DOC.read_text(encoding="utf-8")
    ticked = set(re.findall(r"`([A-Za-z0-9_]+)`", text))
    assert sorted(_all_properties(SCHEMA, set()) - ticked) == []


def test_confirmations_accept_any_item_as_text_only():
    # an unknown item is a warning of hydrocalc check, so the schema accepts it (as text)
    assert _bad(lambda d: d.__setitem__("confirmations", {"criterion_qp": "SMDM 4.4"})) == []
    assert _bad(lambda d: d.__setitem__("confirmations", {"criterion_qp": 3}))
    assert _bad(lambda d: d.__setitem__("confirmations", {"storm_depths": "  "}))


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*/site.toml")),
                         ids=lambda p: p.parent.name)
def test_examples_validate_as_a_toml_library_reads_them(path):
    """TOML dates reach the schema as date objects from tomllib, as text from an editor."""
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    assert [e.message for e in VALIDATOR.iter_errors(doc)] == []


def test_a_date_given_as_a_number_or_malformed_text_is_refused():
    doc = tomllib.loads((ROOT / "examples" / "pelham" / "site.toml").read_text("utf-8"))
    assert isinstance(doc["construction"]["start_date"], datetime.date)
    for bad in (20270405, "2027-4-5", True):
        doc["construction"]["start_date"] = bad
        assert list(VALIDATOR.iter_errors(doc)), bad
    doc["construction"]["start_date"] = "2027-04-05"
    assert list(VALIDATOR.iter_errors(doc)) == []
