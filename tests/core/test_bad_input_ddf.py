"""Depth-frequency files: the physics a hydrologist checks, naming the row and column."""

from __future__ import annotations

import pathlib

import pandas as pd
import pytest

from hydrocalc import design_storms as ds
from hydrocalc.errors import InputError

ROOT = pathlib.Path(__file__).parents[2]


def test_every_real_file_still_reads(shared_rainfall):
    files = sorted((shared_rainfall / "pfds").glob("*.csv")) + sorted(
        (shared_rainfall / "nrcc").glob("*.csv"))
    assert len(files) >= 6
    for f in files:
        t = ds.read_precipitation_frequency(f)
        assert t.depth(2, "24-hr") > 0
    for f in sorted((ROOT / "design_storms").glob("*.toml")):
        ds.load_depth_file(f, warn=False)


@pytest.fixture
def pfds(shared_rainfall):
    return (shared_rainfall / "pfds" / "pfds_pds_depth_in_pittsburgh_pa_vol2_2019_mean_upper_lower"
            ".csv").read_text(encoding="utf-8", errors="replace")


@pytest.fixture
def nrcc(shared_rainfall):
    return next((shared_rainfall / "nrcc").glob("*.csv")).read_text(encoding="utf-8")


def _replace_line(text, start, new):
    lines = text.split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.startswith(start))
    lines[i] = new
    return "\n".join(lines)


def test_pfds_truncated_before_the_24_hour_row(pfds):
    cut = pfds[:pfds.index("24-hr:")]
    with pytest.raises(InputError, match=r"must have a 24-hr row .*Was the file truncated"):
        ds.read_pfds_csv(cut)


def test_pfds_truncated_mid_number(pfds):
    first = pfds.split("\n\n")[0] + "\n\n" + pfds.split("\n\n")[1]
    mean = (first[:first.index("24-hr:")]
            + "24-hr:, 1.98,2.35,2.88,3.31,3.91,4.40,4.92,5.46,6.22,6.")
    with pytest.raises(InputError, match=r"row '24-hr:' must have 10 numbers .*truncated"):
        ds.read_pfds_csv(mean)


@pytest.mark.parametrize("row, pattern", [
    ("24-hr:, 1.98,2.35,2.88,3.31,3.91,4.40,4.92,5.46,6.22,5.00",
     r"depth_in row 24-hr: depth must not fall as the return period rises; got 5 in at 1000 yr "
     r"< 6.22 in at 500 yr"),
    ("24-hr:, 0.5,2.35,2.88,3.31,3.91,4.40,4.92,5.46,6.22,6.83",
     r"depth_in column 1 yr: depth must not fall as the duration rises; got 0.5 in for 24-hr < "
     r"1.66 in for 12-hr"),
    ("24-hr:, 1.98,2.35,2.88,3.31,3.91,4.40,4.92,5.46,6.22,1000000",
     r"depth_in row 24-hr, 1000 yr: must be <= 112.7 in .*world-record"),
    ("24-hr:, 1.98,2.35,2.88,3.31,3.91,4.40,4.92,5.46,6.22,6.83\x00",
     r"line \d+: must be text; got a NUL byte"),
    ("24-hour storm:, 1.98,2.35,2.88,3.31,3.91,4.40,4.92,5.46,6.22,6.83",
     r"row '24-hour storm:' of the depth_in table must start with a duration"),
])
def test_pfds_physics_and_format_faults(pfds, row, pattern):
    with pytest.raises(InputError, match=pattern):
        ds.read_pfds_csv(_replace_line(pfds, "24-hr:", row))


def test_pfds_duplicate_row_and_return_periods(pfds):
    dup = _replace_line(pfds, "12-hr:",
                        "24-hr:, 1.98,2.35,2.88,3.31,3.91,4.40,4.92,5.46,6.22,6.83")
    with pytest.raises(InputError, match=r"repeats duration 24-hr"):
        ds.read_pfds_csv(dup)
    header = "by duration for ARI (years):, 1,2,5,10,25,50,100,200,500,1000"
    for bad, pattern in (("1,2,5,10,10,50,100,200,500,1000", r"10 yr repeats after 10 yr"),
                         ("1,2,10,5,25,50,100,200,500,1000", r"5 yr is out of order after 10"),
                         ("0,2,5,10,25,50,100,200,500,1000", r"return_period_yr must be in "
                                                             r"\[1, 10000\]; got 0")):
        text = pfds.replace(header, "by duration for ARI (years):, " + bad)
        with pytest.raises(InputError, match=pattern):
            ds.read_pfds_csv(text)


def test_upper_bound_below_the_mean_is_refused(pfds):
    lines = pfds.split("\n")
    upper_start = next(i for i, ln in enumerate(lines) if "UPPER BOUND" in ln)
    i = next(k for k in range(upper_start, len(lines)) if lines[k].startswith("24-hr:"))
    lines[i] = "24-hr:, 1.00,2.60,3.20,3.70,4.40,4.90,5.50,6.10,7.00,7.70"
    with pytest.raises(InputError, match=r"upper_in row 24-hr, 1 yr: the 90 % upper bound must "
                                         r"be >= the mean; got 1 vs mean 1.98"):
        ds.read_pfds_csv("\n".join(lines))


def test_nrcc_faults(nrcc):
    lines = nrcc.replace("\r\n", "\n").split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("10,"))
    dup = lines[:i] + [lines[i], lines[i]] + lines[i + 1:]
    with pytest.raises(InputError, match=r"repeats the row for 10 yr"):
        ds.read_nrcc_csv("\n".join(dup))
    bad = lines[:i] + ["ten," + lines[i].split(",", 1)[1]] + lines[i + 1:]
    with pytest.raises(InputError, match=r"row 'ten' of the depth_in table must start with a "
                                         r"return period"):
        ds.read_nrcc_csv("\n".join(bad))
    swapped = list(lines)
    j = next(k for k, ln in enumerate(lines) if ln.startswith("25,"))
    swapped[i], swapped[j] = lines[j], lines[i]
    with pytest.raises(InputError, match=r"out of order"):
        ds.read_nrcc_csv("\n".join(swapped))


def _ddf(tmp_path, body):
    p = tmp_path / "site_ddf.toml"
    p.write_text('source = "test"\nreturn_period_yr = [2, 10, 100]\n' + body, encoding="utf-8")
    return p


@pytest.mark.parametrize("body, pattern", [
    ('[depth_in]\n"1-hr" = [1.0, 1.5, 2.0]\n', r"\[depth_in\] must have a 24-hr row"),
    ('[depth_in]\n"24-hr" = [3.4, 5.0, 4.0]\n', r"row 24-hr: depth must not fall"),
    ('[depth_in]\n"1-hr" = [4.0, 5.0, 6.0]\n"24-hr" = [3.4, 5.0, 7.0]\n',
     r"column 2 yr: depth must not fall as the duration rises"),
    ('[depth_in]\n"24-hr" = [3.4, "5.0", 7.0]\n', r"must be numbers"),
    ('[depth_in]\n"24-hr" = [3.4, 5.0, 1e6]\n', r"world-record"),
    ('[depth_in]\n"2-day" = [3.5, 5.5, 8.0]\n"24-hr" = [3.4, 5.0, 7.0]\n', r"out of order"),
    ('[depth_in]\n"24-hr" = [3.4, 5.0, 7.0]\n[upper_in]\n"24-hr" = [3.0, 5.5, 8.0]\n',
     r"upper bound must be >= the mean"),
])
def test_site_depth_file_faults(tmp_path, body, pattern):
    with pytest.raises(InputError, match=pattern):
        ds.load_depth_file(_ddf(tmp_path, body), warn=False)


def test_depth_file_nul_and_nesting(tmp_path):
    p = tmp_path / "d.toml"
    p.write_bytes(b'source = "x"\x00\n')
    with pytest.raises(InputError, match=r"NUL byte"):
        ds.load_depth_file(p)
    p.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(InputError, match=r"not valid TOML"):
        ds.load_depth_file(p)


def test_return_period_zero_from_the_api_is_refused():
    with pytest.raises(InputError, match=r"return_period_yr must be in \[1, 10000\]; got 0"):
        ds.DepthFrequencyTable(pd.DataFrame({0: [1.0], 10: [5.0]}, index=["24-hr"]),
                               source="x")
