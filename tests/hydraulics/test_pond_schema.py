"""The declared pond-file model and its published JSON Schema (hydrocalc schema pond)."""

from __future__ import annotations

import json
import pathlib
import tomllib

import pytest
from jsonschema import Draft202012Validator

from hydrocalc.commands.schema import shipped_schema_text
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.pond_file import load_pond, pond_from_mapping
from hydrocalc.hydraulics.pond_schema import PondFile
from hydrocalc.schema import described_share

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "ponds" / "pond.toml"
SCHEMA = json.loads(shipped_schema_text("pond"))
VALIDATOR = Draft202012Validator(SCHEMA)


def test_the_pond_example_loads_and_validates():
    load_pond(EXAMPLE)
    doc = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    assert [e.message for e in VALIDATOR.iter_errors(doc)] == []
    PondFile.model_validate(doc)


def test_the_pond_schema_describes_its_properties_and_refuses_bad_values():
    Draft202012Validator.check_schema(SCHEMA)
    assert described_share(SCHEMA) >= 0.9
    doc = tomllib.loads(EXAMPLE.read_text(encoding="utf-8"))
    outlet = doc["outlet"][0]
    for bad in ({**doc, "nmae": "x"},
                {**doc, "outlet": [{**outlet, "diameter_in": -8}]},
                {**doc, "outlet": [{**outlet, "type": "sluice_gate"}]},
                {**doc, "outlet": []},
                {**doc, "storage": {**doc["storage"], "method": "prismoidal"}}):
        assert list(VALIDATOR.iter_errors(bad)), bad


def test_the_pond_example_names_the_schema_in_its_first_line():
    first = EXAMPLE.read_text(encoding="utf-8").splitlines()[0]
    assert first == "#:schema ../../src/hydrocalc/data/schema/pond.schema.json"
    assert (EXAMPLE.parent / first.split(" ", 1)[1]).resolve().is_file()


def test_a_pond_file_with_many_problems_lists_the_first_50_and_a_count(tmp_path):
    path = tmp_path / "pond.toml"
    text = EXAMPLE.read_text(encoding="utf-8")
    path.write_text("".join(f"junk_{i} = {i}\n" for i in range(55)) + text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_pond(path)
    lines = str(err.value).splitlines()
    assert len(lines) == 51 and lines[0].startswith("pond.toml: unknown key 'junk_0'")
    assert lines[-1] == "... and 5 more problems (fix these and check again)"


def test_the_loader_reports_the_model_s_unknown_keys_in_every_table():
    # [storage], [storage.basin] and [barrel] are declared by the model too: a misspelt key
    # there is one line with "did you mean", like anywhere else in the file
    doc = {"storage": {"basin": {"bottom_length_ft": 10, "bottom_width_ft": 5, "depth_ft": 3,
                                 "side_slope": 3}},
           "outlet": [{"type": "riser", "diameter_in": 12, "crest_ft": 2,
                       "into_barrel": True}],
           "barrel": {"diameter_in": 12, "invert_ft": 0, "length_ft": 40, "slope_ftft": 0.01,
                      "manning_n": 0.012}}
    with pytest.raises(InputError) as err:
        pond_from_mapping(doc, where="p.toml")
    assert str(err.value).splitlines() == [
        "p.toml: storage.basin: unknown key 'side_slope'; did you mean 'side_slope_h_per_v'?",
        "p.toml: barrel: unknown key 'manning_n'"]


def test_a_device_missing_keys_and_a_bad_type_are_one_line_each():
    doc = {"storage": {"stage_ft": [0, 1], "area_ft2": [10, 20]},
           "outlet": [{"type": "rectangular_orifice", "width_in": 3},
                      {"diameter_in": 6, "invert_ft": 0}]}
    with pytest.raises(InputError) as err:
        pond_from_mapping(doc, where="p.toml")
    assert str(err.value).splitlines() == [
        "p.toml: outlet[0]: missing height_in, invert_ft",
        "p.toml: outlet[1].type must be one of circular_orifice, rectangular_orifice, "
        "rectangular_weir, vnotch_weir, broad_crested_weir, riser, exfiltration; got None"]
