"""One rule for every daily-rain input: order, duplicates, sub-daily data, size limits."""

from __future__ import annotations

import datetime as dt
import os
import pathlib

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from hydrocalc.construction import inspections as insp
from hydrocalc.construction import sediment
from hydrocalc.daily_rain import (
    MAX_RAIN_LINE_CHARS,
    as_daily_series,
    read_daily_rainfall,
)
from hydrocalc.errors import InputError

BB = "ny_bluebook_2016_sediment_trap"
START, END = "2027-04-01", "2027-05-31"
DAYS = pd.date_range(START, END, freq="D")


def trap():
    return sediment.SedimentTrap("T-1", 2.0, BB, bottom_length_ft=40, bottom_width_ft=20,
                                 depth_ft=3, side_slope_h_per_v=2, k_factor=0.3,
                                 ls_factor=1.2, c_factor=1.0, p_factor=1.0, cn=80, tc_hr=0.2,
                                 dry_unit_weight_lb_ft3=90, trap_efficiency_frac=0.8)


def schedule(p, **kw):
    s = insp.inspection_schedule(START, END, p, **kw)
    return [(v.date, v.routine, v.storm, v.reasons) for v in s.visits]


def cleanout(p):
    return sediment.cleanout_schedule(trap(), p, rainfall_type="III").cleanout_dates


depths = st.lists(st.sampled_from([0.0, 0.0, 0.0, 0.05, 0.3, 0.45, 0.5, 0.8, 1.6, 2.4]),
                  min_size=len(DAYS), max_size=len(DAYS))


# -- properties ------------------------------------------------------------------------------

@settings(max_examples=8, deadline=None)
@given(values=depths, seed=st.integers(0, 2**32 - 1))
def test_any_permutation_of_a_daily_series_gives_the_same_schedules(values, seed):
    p = pd.Series(values, index=DAYS)
    shuffled = p.iloc[np.random.default_rng(seed).permutation(len(p))]
    assert schedule(shuffled) == schedule(p)
    assert schedule(shuffled, multiday_events=False) == schedule(p, multiday_events=False)
    assert cleanout(shuffled) == cleanout(p)
    assert cleanout(p[::-1]) == cleanout(p)  # newest first


@settings(max_examples=8, deadline=None)
@given(values=depths, weights=st.lists(st.floats(0, 1), min_size=24, max_size=24))
def test_daily_totals_of_an_hourly_series_give_the_daily_schedule(values, weights):
    p = pd.Series(values, index=DAYS)
    w = np.asarray(weights) + 1e-3
    w = w / w.sum()
    hourly = pd.Series(np.outer(p.to_numpy(), w).ravel(),
                       index=pd.date_range(START, periods=24 * len(DAYS), freq="h"))
    assert np.allclose(as_daily_series(hourly).to_numpy(), p.to_numpy(), atol=1e-12)
    assert schedule(hourly) == schedule(p)
    assert cleanout(hourly) == cleanout(p)


# -- the rule itself --------------------------------------------------------------------------

def test_repeated_date_is_refused_by_inspections_and_cleanout():
    p = pd.Series(0.1, index=DAYS)
    dup = pd.concat([p, p.iloc[[3]]])
    for call in (lambda: insp.inspection_schedule(START, END, dup),
                 lambda: sediment.cleanout_schedule(trap(), dup, rainfall_type="III"),
                 lambda: insp.storm_days(dup)):
        with pytest.raises(InputError, match=r"precip_in must not repeat a date; got 2027-04-04"):
            call()


def test_sub_daily_series_must_be_regular_and_whole_days():
    idx = pd.date_range(START, periods=48, freq="h")
    h = pd.Series(0.01, index=idx)
    with pytest.raises(InputError, match=r"regularly spaced.*Fill the gap"):
        as_daily_series(h.drop(idx[5]))
    with pytest.raises(InputError, match=r"cover whole days.*got 18 of 24 values on 2027-04-02"):
        as_daily_series(h.iloc[:42])
    with pytest.raises(InputError, match=r"step that divides 24 h"):
        as_daily_series(pd.Series(0.1, index=pd.date_range(START, periods=10, freq="7h")))


def test_daily_values_at_an_observation_hour_are_days():
    p = pd.Series([0.1, 0.2], index=pd.to_datetime(["2027-04-01 07:00", "2027-04-02 07:00"]))
    assert as_daily_series(p).index.tolist() == [pd.Timestamp("2027-04-01"),
                                                 pd.Timestamp("2027-04-02")]


def test_bad_series_are_refused_with_one_line():
    with pytest.raises(InputError, match=r"must be a pandas Series on a daily DatetimeIndex"):
        as_daily_series([0.1, 0.2])
    with pytest.raises(InputError, match=r"indexed by dates"):
        as_daily_series(pd.Series([0.1, 0.2]))
    with pytest.raises(InputError, match=r"got -0.1"):
        as_daily_series(pd.Series([0.1, -0.1], index=DAYS[:2]))
    with pytest.raises(InputError, match=r"must be <= 50 in per day; got 254"):
        as_daily_series(pd.Series([254.0], index=DAYS[:1]))
    with pytest.raises(InputError, match=r"missing day"):
        as_daily_series(pd.Series([0.1, 0.2], index=DAYS[[0, 2]]))
    with pytest.raises(InputError, match=r"at least one day"):
        as_daily_series(pd.Series([], dtype=float, index=pd.DatetimeIndex([])))
    # dates as datetime.date objects or ISO strings are dates
    s = as_daily_series(pd.Series([0.2, 0.1], index=[dt.date(2027, 4, 2), dt.date(2027, 4, 1)]))
    assert s.tolist() == [0.1, 0.2]


# -- the file reader ---------------------------------------------------------------------------

def test_a_10_mb_single_line_file_fails_fast(tmp_path):
    p = tmp_path / "rain.csv"
    p.write_bytes(b"DATE,PRCP," + b"x" * (10 * 1024 * 1024))
    with pytest.raises(InputError, match=rf"line 1: lines must be at most "
                                         rf"{MAX_RAIN_LINE_CHARS:,} characters"):
        read_daily_rainfall(p)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero")
def test_a_never_ending_file_is_refused():
    with pytest.raises(InputError, match=r"must be a regular file; got a device"):
        read_daily_rainfall("/dev/zero")


def test_oversized_file_is_refused(tmp_path, monkeypatch):
    from hydrocalc import daily_rain

    p = tmp_path / "rain.csv"
    p.write_text("DATE,PRCP\n" + "".join(f"2027-04-{d:02d},0.10\n" for d in range(1, 31)))
    monkeypatch.setattr(daily_rain, "MAX_RAIN_FILE_BYTES", 100)
    with pytest.raises(InputError, match=r"must be at most 0 MiB"):
        read_daily_rainfall(p)
    monkeypatch.setattr(daily_rain, "MAX_RAIN_FILE_BYTES", 10**6)
    monkeypatch.setattr(daily_rain, "MAX_RAIN_ROWS", 10)
    with pytest.raises(InputError, match=r"at most 10 rows"):
        read_daily_rainfall(p)


def test_hourly_file_is_summed_to_daily_totals(tmp_path):
    rows = "".join(f"2027-04-0{d}T{h:02d}:00,0.05\n" for d in (1, 2) for h in range(24))
    p = tmp_path / "rain.csv"
    p.write_text("date,precip_in\n" + rows)
    rec = read_daily_rainfall(p)
    assert rec.precip_in.round(9).tolist() == [1.2, 1.2]
    assert any("48 sub-daily values summed to 2 daily totals" in n for n in rec.notes)
    p.write_text("date,precip_in\n" + rows + "2027-04-02T23:00,0.05\n")
    with pytest.raises(InputError, match=r"must not repeat"):
        read_daily_rainfall(p)


def test_a_value_from_the_file_is_echoed_short(tmp_path):
    p = tmp_path / "rain.csv"
    p.write_text("DATE,PRCP\n2027-04-01," + "A" * 500 + "\n")
    with pytest.raises(InputError) as err:
        read_daily_rainfall(p, units="in")
    assert len(str(err.value)) < 300 and "A" * 60 not in str(err.value)


# -- storms that span days ---------------------------------------------------------------------

def test_overnight_storm_split_across_two_days_gets_a_visit_by_default():
    p = pd.Series(0.0, index=DAYS)
    p["2027-04-10"], p["2027-04-11"] = 0.45, 0.45
    s = insp.inspection_schedule(START, END, p)
    assert s.storm_event_reading == "multi_day"
    assert [v.date for v in s.visits if v.storm] == [dt.date(2027, 4, 12)]
    assert "spans" not in s.storm_event_text and "consecutive" in s.storm_event_text
    one = insp.inspection_schedule(START, END, p, multiday_events=False)
    assert one.storm_event_reading == "calendar_day"
    assert not any(v.storm for v in one.visits)
    assert s.to_dict()["storm_event_reading"] == "multi_day"


def test_storm_event_reading_is_a_site_file_setting(tmp_path):
    from hydrocalc.site.project import parse_construction

    base = {"start_date": dt.date(2027, 4, 1), "end_date": dt.date(2027, 5, 31)}
    plan, problems = parse_construction(base)
    assert problems == [] and plan.storm_event == "multi_day"
    plan, problems = parse_construction({**base, "storm_event": "calendar_day"})
    assert problems == [] and plan.storm_event == "calendar_day"
    _, problems = parse_construction({**base, "storm_event": "calender_day"})
    assert problems == ["site.toml: construction.storm_event must be one of multi_day, "
                        "calendar_day; got 'calender_day'; did you mean 'calendar_day'?"]


def test_cli_inspections_prints_the_reading(tmp_path):
    from hydrocalc.cli import main

    root = pathlib.Path(__file__).parents[2] / "examples" / "pelham"
    res = CliRunner().invoke(main, ["inspections", str(root / "site.toml")])
    assert res.exit_code == 0, res.output
    assert "Storm events: a storm event may span consecutive wet days" in res.output
    res = CliRunner().invoke(main, ["inspections", str(root / "site.toml"), "--storm-event",
                                    "calendar_day"])
    assert res.exit_code == 0, res.output
    assert "each calendar day read alone" in res.output
