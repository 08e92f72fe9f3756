"""The declared sweep-file model and its published JSON Schema (hydrocalc schema sweep)."""

from __future__ import annotations

import json
import pathlib
import tomllib

import pytest
from jsonschema import Draft202012Validator

from hydrocalc.batch.sweep import load_sweep
from hydrocalc.batch.sweep.schema import SweepFile
from hydrocalc.commands.schema import shipped_schema_text
from hydrocalc.errors import InputError
from hydrocalc.schema import described_share

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads(shipped_schema_text("sweep"))
VALIDATOR = Draft202012Validator(SCHEMA)
SWEEPS = [*sorted((ROOT / "examples" / "sweeps").glob("*.toml")),
          *sorted((ROOT / "tests" / "fixtures" / "batch").glob("sweep_*.toml"))]


def _loads(path):
    return tomllib.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.name)
def test_every_sweep_the_loader_accepts_validates(path):
    try:
        load_sweep(path)
    except InputError:
        pytest.skip("not a valid sweep (its base site is refused)")
    doc = _loads(path)
    assert [e.message for e in VALIDATOR.iter_errors(doc)] == []
    SweepFile.model_validate(doc)


def test_the_sweep_schema_describes_its_properties_and_refuses_bad_values():
    Draft202012Validator.check_schema(SCHEMA)
    assert described_share(SCHEMA) >= 0.9
    doc = _loads(ROOT / "examples" / "sweeps" / "pelham_sweep.toml")
    for bad in ({"combine": "cross"}, {"seed": -1}, {"samples": 0}, {"bsae": "x"},
                {"vary": [{"field": "storms.depths_in.*", "op": "times", "values": [1]}]},
                {"vary": [{"field": "x", "range": [1, 2]}]}):
        assert list(VALIDATOR.iter_errors({**doc, **bad})), bad


def test_the_sweep_example_names_the_schema_in_its_first_line():
    path = ROOT / "examples" / "sweeps" / "pelham_sweep.toml"
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "#:schema ../../src/hydrocalc/data/schema/sweep.schema.json"
    assert (path.parent / first.split(" ", 1)[1]).resolve().is_file()


def test_a_sweep_with_many_problems_lists_the_first_50_and_a_count(tmp_path):
    text = (ROOT / "examples" / "sweeps" / "pelham_sweep.toml").read_text(encoding="utf-8")
    text = text.replace('base = "../pelham/site.toml"',
                        f'base = "{(ROOT / "examples" / "pelham" / "site.toml").as_posix()}"')
    path = tmp_path / "sweep.toml"
    path.write_text("".join(f"junk_{i} = {i}\n" for i in range(60)) + text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_sweep(path)
    lines = str(err.value).splitlines()
    assert len(lines) == 51 and lines[0].startswith("sweep.toml: unknown key junk_0")
    assert lines[-1] == "... and 10 more problems (fix these and check again)"


def test_the_loader_reports_the_model_s_problems_in_its_own_words():
    from hydrocalc.batch.sweep import parse_sweep

    doc = {"sede": 1, "combine": "gird", "seed": True, "samples": 0, "storms": [],
           "description": 5, "vary": {}}
    with pytest.raises(InputError) as err:
        parse_sweep(doc, where="s.toml")
    assert str(err.value).splitlines() == [
        "s.toml: unknown key sede; did you mean 'seed' or 'base'?",
        "s.toml: base must be the path of the site file (relative to the sweep file); got None",
        "s.toml: description must be a string; got 5",
        "s.toml: combine must be \"grid\" or \"zip\"; got 'gird'",
        "s.toml: seed must be a non-negative integer; got True",
        "s.toml: samples must be a positive integer; got 0",
        "s.toml: storms must be a non-empty list of storm names; got []",
        "s.toml: vary must be an array of tables ([[vary]]); got {}"]


def test_an_entry_s_bad_keys_are_one_line_each():
    from hydrocalc.batch.sweep import parse_sweep

    fix = ROOT / "tests" / "fixtures" / "batch"
    doc = {"base": "lot_a.toml", "vary": [{"fild": "post.subcatchment[P-1].cn", "values": []},
                                          {"field": "post.subcatchment[P-1].cn",
                                           "normal": [2, "x"], "op": "plus"}]}
    with pytest.raises(InputError) as err:
        parse_sweep(doc, where="s.toml", base_dir=fix)
    lines = str(err.value).splitlines()
    assert lines[0] == "s.toml: vary[0]: unknown key fild; did you mean 'field'?"
    assert lines[1].startswith("s.toml: vary[0].field must be a field such as ")
    assert lines[2:] == [
        "s.toml: vary[0].values must be a non-empty list of numbers; got []",
        "s.toml: vary[1].op must be one of set, add, scale; got 'plus'",
        "s.toml: vary[1].normal must be a list of 2 numbers; got [2, 'x']"]
