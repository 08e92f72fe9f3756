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
