"""CLI commands of the TR-55 core: runoff, cn, tc, peak, storage-estimate (click CliRunner)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from numpy.testing import assert_allclose

from hydrocalc.cli import main


@pytest.fixture
def run():
    runner = CliRunner()

    def _run(*args):
        return runner.invoke(main, list(args))

    return _run


def test_runoff_prints_q_for_table_2_1_cell(run):
    result = run("runoff", "--precip-in", "3", "--cn", "80", "--json")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert_allclose(out["runoff_in"], 1.25, rtol=0, atol=0.005)  # TR-55 Table 2-1
    assert_allclose(out["s_in"], 2.5, rtol=1e-12)


def test_runoff_table_output_names_units(run):
    result = run("runoff", "--precip-in", "3", "--cn", "80")
    assert result.exit_code == 0
    assert "runoff_in" in result.stdout and "1.25" in result.stdout


def test_runoff_bad_cn_is_one_line_on_stderr_and_exit_1(run):
    result = run("runoff", "--precip-in", "3", "--cn", "104")
    assert result.exit_code == 1
    assert result.stderr.strip() == "error: cn must be in (0, 100]; got 104"
    assert "Traceback" not in result.stderr


def test_cn_lookup(run):
    result = run("cn", "open_space_good", "C", "--json")
    assert result.exit_code == 0
    assert json.loads(result.stdout)["cn"] == 74.0


def test_cn_with_condition_and_dual_group(run):
    result = run("cn", "woods", "C/D", "--condition", "good", "--undrained", "--json")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["cn"] == 77.0


def test_cn_unknown_cover_suggests(run):
    result = run("cn", "open_space_god", "C")
    assert result.exit_code == 1
    assert "did you mean 'open_space_good'" in result.stderr
    assert "hydrocalc tables show tr55_cn_urban" in result.stderr


def test_cn_list_shows_every_key(run):
    result = run("cn", "--list")
    assert result.exit_code == 0
    for key in ("open_space_good", "row_crops_straight_row_good", "woods_good", "sagebrush_fair"):
        assert key in result.stdout


def test_cn_without_arguments_is_a_usage_error(run):
    result = run("cn")
    assert result.exit_code == 2
    assert "give COVER and HSG" in result.stderr


def test_tc_example_3_1(run):
    result = run(
        "tc",
        "--segment", "sheet:length_ft=100,slope_ftft=0.01,n=0.24,p2_in=3.6",
        "--segment", "shallow:length_ft=1400,slope_ftft=0.01,surface=unpaved",
        "--segment",
        "channel:length_ft=7300,slope_ftft=0.005,n=0.05,area_ft2=27,wetted_perimeter_ft=28.2",
        "--json",
    )
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert_allclose(out["tc_hr"], 1.53, rtol=0, atol=0.005)  # TR-55 Example 3-1
    assert [s["kind"] for s in out["segments"]] == ["sheet", "shallow", "channel"]


def test_tc_sheet_flow_limit_error(run):
    result = run("tc", "--segment", "sheet:length_ft=400,slope_ftft=0.01,n=grass_dense,p2_in=3.6")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: segments[0] (sheet): length_ft must be <= "
                                    "max_length_ft = 100 ft")


def test_tc_malformed_segment(run):
    result = run("tc", "--segment", "length_ft=100")
    assert result.exit_code == 1
    assert "--segment must look like" in result.stderr


def test_tc_segment_item_without_equals(run):
    result = run("tc", "--segment", "shallow:length_ft=100,slope")
    assert result.exit_code == 1
    assert "--segment items must be key=value; got 'slope'" in result.stderr


def test_peak_ponce_example_in_us_units(run):
    result = run("peak", "--area-mi2", "1.5444", "--cn", "74", "--tc-hr", "1.5",
                 "--precip-in", "3.5433", "--rainfall-type", "II", "--pond-swamp-pct", "1",
                 "--json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    # Ponce (1989) Example 5-9: 12.09 m3/s = 427 cfs, read from the exhibits (1.5 %).
    assert_allclose(out["peak_cfs"], 12.09 / 0.3048**3, rtol=0.015)
    assert out["fp"] == 0.87


def test_peak_range_warning_goes_to_stderr(run):
    result = run("peak", "--area-mi2", "0.39", "--cn", "98", "--tc-hr", "1.5",
                 "--precip-in", "6")
    assert result.exit_code == 0
    assert result.stderr.startswith("warning: ia_over_p outside the Table F-1 rows")


def test_peak_out_of_range_tc_exits_1(run):
    result = run("peak", "--area-mi2", "1", "--cn", "75", "--tc-hr", "20", "--precip-in", "5")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: tc_hr must be in [0.1, 10] h")


def test_peak_unknown_rainfall_type_is_a_usage_error(run):
    result = run("peak", "--area-mi2", "1", "--cn", "75", "--tc-hr", "1", "--precip-in", "5",
                 "--rainfall-type", "IV")
    assert result.exit_code == 2


def test_storage_estimate(run):
    result = run("storage-estimate", "--inflow-peak-cfs", "300", "--outflow-peak-cfs", "150",
                 "--runoff-in", "3", "--area-mi2", "0.5", "--json")
    assert result.exit_code == 0, result.stderr
    out = json.loads(result.stdout)
    assert_allclose(out["storage_acft"], 80.0 * 0.2765, rtol=1e-9)


def test_storage_estimate_outflow_above_inflow_exits_1(run):
    result = run("storage-estimate", "--inflow-peak-cfs", "100", "--outflow-peak-cfs", "150",
                 "--runoff-in", "3", "--area-mi2", "0.5")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: outflow_peak_cfs must be < inflow_peak_cfs")
