"""Property test: mutated example site files either run as a fresh run does or fail in one
line naming the file and the field; never a traceback, never exit 0 on an invalid value.

Each example draws one single-line numeric assignment of an example's ``site.toml`` (every
such line is a candidate) and replaces its value by

- an invalid one for any numeric field (NaN, infinity, text, a boolean): ``hydrocalc
  check`` must exit 1 with ``error:`` lines, one of them naming ``site.toml`` and the key;
- a plausible one (the value scaled by 0.5 to 2, or its sign flipped): either ``check``
  passes and ``hydrocalc run --json`` gives the results a fresh in-process analysis gives,
  or ``check`` fails with ``error:`` lines that each name a file.

An unknown key added to a table must be refused the same way. Derandomized (the ``ci``
profile of ``conftest.py``), few examples per site: about half a minute in all.
"""

from __future__ import annotations

import pathlib
import re
import shutil

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hydrocalc.analysis import analyze
from hydrocalc.cli import main
from hydrocalc.site import load_site

pytestmark = pytest.mark.slow

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLES = ("pelham", "shelter_island", "conveyance", "storm_sewer", "pelham_redevelopment")
NUMERIC_LINE = re.compile(r"^(?P<key>[A-Za-z_][A-Za-z0-9_]*)\s*=\s*"
                          r"(?P<value>[-+]?\d[\d_]*(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*(?:#.*)?$")
INVALID = ("nan", "inf", "-inf", '"12"', "true")


@pytest.fixture(scope="module")
def sites(tmp_path_factory) -> dict[str, tuple[pathlib.Path, str]]:
    """Each example copied with the depth files it reads: {name: (site.toml, text)}."""
    base = tmp_path_factory.mktemp("examples")
    shutil.copytree(ROOT / "design_storms", base / "design_storms")
    out = {}
    for name in EXAMPLES:
        shutil.copytree(ROOT / "examples" / name, base / "examples" / name)
        path = base / "examples" / name / "site.toml"
        out[name] = (path, path.read_text(encoding="utf-8"))
    return out


def _numeric_lines(text: str) -> list[int]:
    return [i for i, ln in enumerate(text.split("\n")) if NUMERIC_LINE.match(ln.strip())]


def _check(path: pathlib.Path):
    res = CliRunner().invoke(main, ["check", str(path)])
    assert "Traceback" not in res.output and "hydrocalc bug" not in res.output, res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), res.output
    return res


def _errors(res) -> list[str]:
    return [ln for ln in res.output.splitlines() if ln.startswith("error")]


def _fresh_results_equal_the_command_s(path: pathlib.Path, tmp: pathlib.Path) -> None:
    out = tmp / "results.json"
    out.unlink(missing_ok=True)
    res = CliRunner().invoke(main, ["run", str(path), "--json", str(out), "--no-hydrographs"])
    assert res.exit_code == 0, res.output
    fresh = analyze(load_site(path)).to_json(hydrographs=False)
    assert out.read_text(encoding="utf-8") == fresh


def _mutate(text: str, line_no: int, new_value: str) -> tuple[str, str]:
    lines = text.split("\n")
    m = NUMERIC_LINE.match(lines[line_no].strip())
    indent = lines[line_no][: len(lines[line_no]) - len(lines[line_no].lstrip())]
    lines[line_no] = f"{indent}{m['key']} = {new_value}"
    return "\n".join(lines), m["key"]


@pytest.mark.parametrize("name", EXAMPLES)
@settings(max_examples=6, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_an_invalid_numeric_value_is_refused_naming_the_field(sites, name, data):
    path, text = sites[name]
    line_no = data.draw(st.sampled_from(_numeric_lines(text)), label="line")
    bad = data.draw(st.sampled_from(INVALID), label="value")
    mutated, key = _mutate(text, line_no, bad)
    path.write_text(mutated, encoding="utf-8")
    try:
        res = _check(path)
    finally:
        path.write_text(text, encoding="utf-8")
    assert res.exit_code == 1, f"{key} = {bad} accepted:\n{res.output}"
    errors = _errors(res)
    assert errors and any("site.toml" in e and key in e for e in errors), res.output


@pytest.mark.parametrize("name", EXAMPLES)
@settings(max_examples=4, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_a_plausible_change_runs_as_a_fresh_run_or_fails_in_one_line(sites, name, data,
                                                                     tmp_path):
    path, text = sites[name]
    line_no = data.draw(st.sampled_from(_numeric_lines(text)), label="line")
    old = float(NUMERIC_LINE.match(text.split("\n")[line_no].strip())["value"])
    factor = data.draw(st.sampled_from([0.5, 0.9, 1.1, 2.0, -1.0]), label="factor")
    new = old * factor
    value = str(int(new)) if float(new).is_integer() and abs(new) < 1e15 else repr(new)
    mutated, _ = _mutate(text, line_no, value)
    path.write_text(mutated, encoding="utf-8")
    try:
        res = _check(path)
        if res.exit_code == 0:
            _fresh_results_equal_the_command_s(path, tmp_path)
        else:
            assert res.exit_code == 1, res.output
            errors = _errors(res)
            assert errors, res.output
            for line in errors:
                assert re.match(r"error: [^:]+\.(toml|csv)", line), line
    finally:
        path.write_text(text, encoding="utf-8")


@pytest.mark.parametrize("name", EXAMPLES)
def test_an_unknown_key_is_refused_naming_it(sites, name):
    path, text = sites[name]
    mutated = text.replace("[project]\n", "[project]\nconstruction_budget_usd = 1\n", 1)
    path.write_text(mutated, encoding="utf-8")
    try:
        res = _check(path)
    finally:
        path.write_text(text, encoding="utf-8")
    assert res.exit_code == 1
    assert any("site.toml" in e and "construction_budget_usd" in e for e in _errors(res))
