"""``hydrocalc check`` and ``hydrocalc run``: exit codes, messages, outputs."""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main

ROOT = pathlib.Path(__file__).parents[2]
SMALL = ROOT / "tests" / "fixtures" / "sites" / "small"


@pytest.fixture()
def site_dir(tmp_path):
    target = tmp_path / "small"
    shutil.copytree(SMALL, target)
    return target


def invoke(*args):
    return CliRunner().invoke(main, list(map(str, args)))


def test_check_ok(site_dir):
    res = invoke("check", site_dir / "site.toml")
    assert res.exit_code == 0, res.output
    assert ("OK - 'Test Site': 5 subcatchments, 1 pond, 1 design point (DP-1), 4 storms"
            in res.output)


def test_check_lists_every_problem_without_traceback(site_dir):
    path = site_dir / "site.toml"
    text = path.read_text().replace("cn = 70", "cn = 170").replace('hsg = "B"', 'hsg = "Q"')
    path.write_text(text)
    res = invoke("check", path)
    assert res.exit_code == 1
    lines = res.output.strip().splitlines()
    assert any(line.startswith("error: site.toml: pre.subcatchment[E-1].cn must be in "
                               "(0, 100]; got 170 (line ")
               for line in lines), lines
    assert any("pre.subcatchment[E-2].cover[0].hsg must be one of A, B, C, D; got 'Q'" in line
               for line in lines), lines
    assert "Traceback" not in res.output


def test_check_missing_file_is_exit_1(tmp_path):
    res = invoke("check", tmp_path / "none.toml")
    assert res.exit_code == 1
    assert "error: site file must be a readable file" in res.output


def test_usage_error_is_exit_2():
    assert invoke("run").exit_code == 2
    assert invoke("run", "--bogus", "x.toml").exit_code == 2


def test_run_prints_tables_and_writes_outputs(site_dir, tmp_path):
    out_json = tmp_path / "res" / "results.json"
    out_csv = tmp_path / "res" / "csv"
    res = invoke("run", site_dir / "site.toml", "--json", out_json, "--csv", out_csv)
    assert res.exit_code == 0, res.output
    assert "Pre- vs post-development peak flows" in res.output
    assert "NY SMDM unified sizing criteria" in res.output
    for token in ("pre_peak_cfs", "post_peak_cfs", "wqv", "rrv", "qp", "qf", "RESULT:"):
        assert token in res.output
    doc = json.loads(out_json.read_text())
    assert doc["site"]["name"] == "Test Site"
    assert (out_csv / "comparison.csv").exists() and (out_csv / "criteria.csv").exists()
    again = tmp_path / "again.json"
    assert invoke("run", site_dir / "site.toml", "--json", again).exit_code == 0
    assert again.read_bytes() == out_json.read_bytes()


def test_run_refuses_invalid_input(site_dir):
    path = site_dir / "site.toml"
    path.write_text(path.read_text().replace("lag_hr = 0.25", "lag_hr = -1", 1))
    res = invoke("run", path)
    assert res.exit_code == 1
    assert "error: site.toml: pre.reach[R-1].lag_hr must be >= 0; got -1 (line" in res.output


def test_library_warnings_print_as_one_line_without_source(tmp_path):
    """A legal but unusual input (an adverse reach) prints one ``warning:`` line naming the
    reach; the Python file and line of the code that warned appear only with --debug."""
    text = (ROOT / "examples" / "conveyance" / "site.toml").read_text()
    storms = (ROOT / "design_storms" / "pelham.toml").as_posix()
    text = text.replace("../../design_storms/pelham.toml", storms)
    assert "slope_ftft = 0.01" in text
    text = text.replace("slope_ftft = 0.01", "slope_ftft = -0.005", 1)
    site = tmp_path / "site.toml"
    site.write_text(text)
    res = CliRunner().invoke(main, ["--allow-outside-paths", "check", str(site)])
    err = res.stderr if hasattr(res, "stderr") else res.output
    lines = [ln for ln in err.splitlines() if "adverse slope" in ln]
    assert len(lines) == 1, err
    assert lines[0].startswith("warning: reach 'post.reach[SWALE-1]' has an adverse slope")
    assert "RangeWarning" not in err and ".py:" not in err
