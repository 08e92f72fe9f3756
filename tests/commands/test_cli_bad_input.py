"""Bad input to every CLI command: one actionable line, exit 1 (2 for usage), no traceback,
nothing partially written.

Each test is one case found by exercising the commands with missing files, folders, non-UTF-8
bytes, invalid TOML, out-of-range numbers and unwritable output paths (a path under a regular
file).
"""

from __future__ import annotations

import pathlib
import re

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.commands._output import write_atomic
from hydrocalc.errors import InputError

ROOT = pathlib.Path(__file__).resolve().parents[2]
SITE = ROOT / "tests" / "fixtures" / "sites" / "small" / "site.toml"
PELHAM = ROOT / "tests" / "fixtures" / "construction" / "pelham_site.toml"
SHELTER = ROOT / "tests" / "fixtures" / "construction" / "shelter_island_site.toml"
PFDS = ROOT / "tests" / "fixtures" / "rainfall" / "pfds_pds_utf8_mean_only.csv"

POND = """name = "Pond A"
[storage]
stage_ft = [0, 1, 2, 3]
area_ft2 = [1000, 1400, 1900, 2500]
[[outlet]]
type = "circular_orifice"
diameter_in = 6
invert_ft = 0
"""


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def assert_one_error(res, pattern: str, *, code: int = 1) -> None:
    """Exit ``code``, no traceback, and exactly one ``error:`` line matching ``pattern``."""
    assert res.exit_code == code, res.output
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, res.stderr
    assert re.search(pattern, errors[0]), errors[0]


@pytest.fixture
def blocker(tmp_path) -> pathlib.Path:
    """A regular file: any output path under it cannot be created."""
    path = tmp_path / "regfile"
    path.write_text("x")
    return path


@pytest.fixture
def pond(tmp_path) -> pathlib.Path:
    path = tmp_path / "pond.toml"
    path.write_text(POND)
    return path


@pytest.fixture
def latin1(tmp_path) -> pathlib.Path:
    path = tmp_path / "latin1.toml"
    path.write_bytes('name = "caf\xe9"\n'.encode("latin-1"))
    return path


# ---------------------------------------------------------------- unwritable output paths
@pytest.mark.parametrize("args", [
    ("storm", "3", "--csv"),
    ("hydrograph", "--area-ac", "10", "--cn", "80", "--tc-hr", "0.5", "--depth-in", "3",
     "--csv"),
])
def test_storm_outputs_under_a_regular_file_are_one_line(blocker, args):
    target = blocker / "out.csv"
    res = invoke(*args, target)
    assert_one_error(res, r"^error: --csv must be a file path inside a folder; got '.*regfile/"
                          r"out.csv', but '.*regfile' is a file, not a folder")


def test_rating_csv_under_a_regular_file_is_one_line(pond, blocker):
    res = invoke("rating", pond, "--csv", blocker / "r.csv")
    assert_one_error(res, r"--csv must be a file path inside a folder")


def test_route_csv_under_a_regular_file_fails_before_routing(pond, blocker, tmp_path):
    inflow = tmp_path / "inflow.csv"
    inflow.write_text("time_hr,flow_cfs\n0,0\n1,5\n2,10\n3,5\n4,0\n")
    res = invoke("route", pond, "--inflow", inflow, "--csv", blocker / "r.csv")
    assert_one_error(res, r"--csv must be a file path inside a folder")


def test_import_pfds_out_under_a_regular_file_is_one_line(blocker):
    res = invoke("import-pfds", PFDS, "--out", blocker / "ddf.toml")
    assert_one_error(res, r"--out must be a file path inside a folder")


@pytest.mark.parametrize("option,name", [("--json", "r.json"), ("--csv", "tables")])
def test_run_outputs_under_a_regular_file_fail_before_the_analysis(blocker, option, name):
    res = invoke("run", SITE, option, blocker / name)
    assert_one_error(res, rf"{option} must be a (file|folder) path inside a folder")
    assert "Site:" not in res.stdout  # refused before computing anything


@pytest.mark.parametrize("command", ["report", "batch", "demo"])
def test_out_folder_under_a_regular_file_is_one_line(blocker, command):
    args = {"report": ("report", SITE, "--quiet"), "batch": ("batch", SITE, "--quiet"),
            "demo": ("demo", "--quiet", "--examples", ROOT / "examples")}[command]
    res = invoke(*args, "--out", blocker / "report")
    assert_one_error(res, r"--out must be a folder path inside a folder; got '.*regfile/"
                          r"report', but '.*regfile' is a file")


def test_inspections_csv_under_a_regular_file_is_one_line(blocker):
    res = invoke("inspections", PELHAM, "--force", "--csv", blocker / "v.csv")
    assert_one_error(res, r"--csv must be a file path inside a folder")


def test_inspections_figure_with_an_unknown_format_fails_before_computing(tmp_path):
    res = invoke("inspections", PELHAM, "--force", "--figure", tmp_path / "cal.foo")
    assert_one_error(res, r"--figure must end in one of .*\.png.*; got '.*cal\.foo'")
    assert not (tmp_path / "cal.foo").exists()


def test_cleanout_figure_dir_under_a_regular_file_is_one_line(blocker):
    res = invoke("cleanout", SHELTER, "--figure-dir", blocker / "figs")
    assert_one_error(res, r"--figure-dir must be a folder path inside a folder")


def test_assess_csv_under_a_regular_file_is_one_line(blocker):
    res = invoke("assess", PELHAM, "--csv", blocker / "a.csv")
    assert_one_error(res, r"--csv must be a file path inside a folder")


# ---------------------------------------------------------------- non-UTF-8 and bad TOML
@pytest.mark.parametrize("command", ["assess", "inspections", "cleanout"])
def test_construction_commands_reject_non_utf8_site_files(latin1, command):
    res = invoke(command, latin1)
    assert_one_error(res, r"^error: latin1.toml: must be UTF-8 text; byte 11 is not")


@pytest.mark.parametrize("command", ["rating", "route"])
def test_pond_commands_reject_non_utf8_pond_files(latin1, tmp_path, command):
    extra = ("--inflow", tmp_path / "none.csv") if command == "route" else ()
    res = invoke(command, latin1, *extra)
    assert_one_error(res, r"pond file '.*latin1.toml' must be UTF-8 text; byte 11 is not")


def test_depths_rejects_a_non_utf8_file(latin1):
    res = invoke("depths", latin1)
    assert_one_error(res, r"^error: latin1.toml: must be UTF-8 text; byte 11 is not")


def test_report_rejects_invalid_toml_without_a_traceback(tmp_path):
    bad = tmp_path / "bad.toml"
    bad.write_text('name = "x"\n[storage\n')
    res = invoke("report", bad, "--out", tmp_path / "rep", "--quiet")
    assert_one_error(res, r"bad.toml: TOML syntax error: .*line 2, column 9")
    assert not (tmp_path / "rep").exists()


def test_report_rejects_a_non_utf8_site_file(latin1, tmp_path):
    res = invoke("report", latin1, "--out", tmp_path / "rep", "--quiet")
    assert_one_error(res, r"latin1.toml: must be UTF-8 text; byte 11 is not")


# ---------------------------------------------------------------- numbers out of range
def test_storm_step_too_fine_for_memory_is_an_input_error():
    res = invoke("storm", "3", "--dt-hr", "1e-9")
    assert_one_error(res, r"dt_hr must be >= 2\.4e-05 h \(at most 1,000,000 steps over 24 h\); "
                          r"got 1e-09")


def test_storm_step_longer_than_the_storm_is_an_input_error():
    res = invoke("storm", "3", "--dt-hr", "100")
    assert_one_error(res, r"dt_hr must be <= the storm duration 24 h; got 100")


@pytest.mark.parametrize("n", ["0", "-5"])
def test_rating_with_too_few_steps_is_a_usage_error(pond, n):
    res = invoke("rating", pond, "--n", n)
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert "--n" in res.stderr and "2<=x<=100001" in res.stderr


def test_inspections_shift_years_out_of_range_is_a_usage_error():
    res = invoke("inspections", PELHAM, "--force", "--shift-years", "100000")
    assert res.exit_code == 2
    assert "'--shift-years': 100000 is not in the range -500<=x<=500" in res.stderr


@pytest.mark.parametrize("value", ["nan", "-1", "2"])
def test_trap_runoff_in_is_not_silently_ignored_by_per_acre_criteria(value):
    res = invoke("trap", "--area-ac", "3", "--criteria", "ny_bluebook_2016_sediment_trap",
                 "--runoff-in", value)
    assert_one_error(res, rf"--runoff-in must be omitted for criteria "
                          rf"'ny_bluebook_2016_sediment_trap' .*; got {value}")


def test_trap_criteria_is_required_never_a_silent_default():
    res = invoke("trap", "--area-ac", "3")
    assert res.exit_code == 2
    assert "--criteria is required; list the keys and their verification status" in res.stderr


# ---------------------------------------------------------------- the last line of defence
@pytest.mark.parametrize("exc,pattern", [
    (OSError(13, "Permission denied", "x.csv"),
     r"^error: file 'x.csv' could not be read or written \(Permission denied\)"),
    (MemoryError(), r"^error: the computation needs more memory than is available"),
    (RuntimeError("boom\nsecond line"),
     r"^error: unexpected RuntimeError: boom second line\. This is a hydrocalc bug; rerun "
     r"with --debug"),
])
def test_unexpected_exceptions_become_one_line_without_debug(monkeypatch, exc, pattern):
    import hydrocalc.runoff

    def boom(*args, **kwargs):
        raise exc

    monkeypatch.setattr(hydrocalc.runoff, "potential_retention", boom)
    res = invoke("runoff", "--precip-in", "3", "--cn", "80")
    assert_one_error(res, pattern)
    debug = invoke("--debug", "runoff", "--precip-in", "3", "--cn", "80")
    assert debug.exception is exc  # --debug lets the traceback through


def test_write_atomic_leaves_nothing_behind_when_the_writer_fails(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("previous\n")

    def half_write(tmp):
        pathlib.Path(tmp).write_text("partial")
        raise OSError(28, "No space left on device")

    with pytest.raises(InputError, match=r"--csv must be a writable file path; got "
                                         r"'.*out.csv' \(No space left on device\)"):
        write_atomic(target, half_write, "--csv")
    assert target.read_text() == "previous\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_write_atomic_replaces_the_target_only_when_complete(tmp_path):
    target = tmp_path / "sub" / "out.csv"
    write_atomic(target, lambda tmp: pathlib.Path(tmp).write_text("a,b\n1,2\n"), "--csv")
    assert target.read_text() == "a,b\n1,2\n"
    assert sorted(p.name for p in target.parent.iterdir()) == ["out.csv"]


# ---------------------------------------------------------------- files a site file names
@pytest.fixture
def small_site(tmp_path) -> pathlib.Path:
    for f in SITE.parent.iterdir():
        (tmp_path / f.name).write_bytes(f.read_bytes())
    return tmp_path / "site.toml"


def test_check_names_a_non_utf8_subcatchment_csv(small_site):
    (small_site.parent / "post_subcatchments.csv").write_bytes(b"id,\xff\xfe\n")
    res = invoke("check", small_site)
    assert_one_error(res, r"^error: post_subcatchments.csv: must be UTF-8 text; byte 3 is not")


def test_check_refuses_a_time_grid_that_would_exhaust_memory(small_site):
    text = small_site.read_text(encoding="utf-8").replace("dt_hr = 0.02", "dt_hr = 1e-9")
    small_site.write_text(text, encoding="utf-8")
    res = invoke("check", small_site)
    assert_one_error(res, r"analysis.dt_hr and duration_hr must give at most 1,000,000 time "
                          r"steps; got 3.6e\+10 \(dt_hr = 1e-09, 36 h\)")


def test_binary_rainfall_file_is_reported_on_one_line(tmp_path):
    rain = tmp_path / "rain.csv"
    rain.write_bytes(b"\x00\x01\nbinary\x0bjunk\r\x1b\n")
    res = invoke("inspections", PELHAM, "--force", "--rain", rain)
    assert_one_error(res, r"rainfall file .*rain.csv line 1: header must have DATE and PRCP "
                          r"columns .*; got \\x00\\x01")


def test_check_refuses_a_24_hour_depth_above_the_world_record(small_site):
    text = small_site.read_text(encoding="utf-8").replace('"100yr" = 7.6', '"100yr" = 1e300')
    small_site.write_text(text, encoding="utf-8")
    res = invoke("check", small_site)
    assert_one_error(res, r"storms.depths_in.100yr must be <= 72 in, the world-record 24-hour "
                          r"rainfall .*; got 1e\+300")


def test_check_refuses_an_absurd_outlet_dimension(small_site):
    text = small_site.read_text(encoding="utf-8").replace("diameter_in = 6.0",
                                                          "diameter_in = 1e308")
    small_site.write_text(text, encoding="utf-8")
    res = invoke("check", small_site)
    assert_one_error(res, r"post.pond\[P-1\].outlet\[orifice\] is invalid: diameter_in must be "
                          r"<= 1e\+06 \(a guard against unit slips\); got 1e\+308")
