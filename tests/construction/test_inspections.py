"""Inspection dates (7-day and 24 h after >= 0.5 in) and Pelham 48-hour notices.

Rules: Shelter Island § 110-39C; Pelham ch. 83 maintenance during construction and
construction-inspection notices (numbers inferred). Judgment calls are in
hydrocalc.construction.inspections and docs/construction.md.
"""

from __future__ import annotations

import datetime as dt
import json
import pathlib

import pandas as pd
import pytest
from click.testing import CliRunner

from hydrocalc.construction import inspections as insp
from hydrocalc.errors import InputError

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "construction"
D = dt.date


def record(start="2027-04-01", end="2027-05-31", **rain):
    p = pd.Series(0.0, index=pd.date_range(start, end))
    for day, depth in rain.items():
        p[pd.Timestamp(day.replace("_", "-"))] = depth
    return p


def visits(schedule):
    return [(v.date, v.routine, v.storm) for v in schedule.visits]


def test_exactly_half_an_inch_triggers_a_storm_inspection_next_day():
    p = record(**{"2027_04_03": 0.50, "2027_04_05": 0.49})
    s = insp.inspection_schedule(D(2027, 4, 1), D(2027, 4, 20), p)
    assert (D(2027, 4, 4), False, True) in visits(s)
    assert not any(v.date == D(2027, 4, 6) for v in s.visits)   # 0.49 in does not count
    assert s.storm_days == [D(2027, 4, 3)]


def test_routine_dates_every_seven_days_up_to_the_end_date():
    s = insp.inspection_schedule("2027-04-01", "2027-04-29", record())
    assert s.dates == [D(2027, 4, 8), D(2027, 4, 15), D(2027, 4, 22), D(2027, 4, 29)]
    assert all(v.routine and not v.storm for v in s.visits)


def test_storm_on_a_scheduled_day_gives_two_visits():
    # Routine visit on 04-08 may precede that day's rain: the storm visit is 04-09.
    s = insp.inspection_schedule("2027-04-01", "2027-04-20", record(**{"2027_04_08": 0.8}))
    assert visits(s)[:2] == [(D(2027, 4, 8), True, False), (D(2027, 4, 9), False, True)]


def test_storm_the_day_before_a_scheduled_day_is_one_merged_visit():
    s = insp.inspection_schedule("2027-04-01", "2027-04-20", record(**{"2027_04_07": 1.2}))
    (merged,) = [v for v in s.visits if v.date == D(2027, 4, 8)]
    assert merged.routine and merged.storm
    assert merged.storm_dates == (D(2027, 4, 7),) and merged.storm_precip_in == (1.2,)
    assert len(merged.reasons) == 2
    assert len(s.visits) == 2  # 04-08 (both) and 04-15


def test_storms_on_consecutive_days_each_get_a_next_day_visit():
    s = insp.inspection_schedule("2027-04-01", "2027-04-30",
                                 record(**{"2027_04_12": 0.6, "2027_04_13": 1.1}))
    storm_visits = [v.date for v in s.visits if v.storm]
    assert storm_visits == [D(2027, 4, 13), D(2027, 4, 14)]


def test_storm_on_the_end_date_gives_a_visit_the_day_after():
    s = insp.inspection_schedule("2027-04-01", "2027-04-10",
                                 record(**{"2027_04_10": 0.7}))
    assert s.visits[-1].date == D(2027, 4, 11) and s.visits[-1].storm


def test_storm_before_start_is_ignored():
    p = record(start="2027-03-25", **{"2027_03_31": 2.0})
    s = insp.inspection_schedule("2027-04-01", "2027-04-10", p)
    assert visits(s) == [(D(2027, 4, 8), True, False)]


def test_fixed_clock_does_not_restart_but_rolling_does():
    p = record(**{"2027_04_03": 0.9})
    fixed = insp.inspection_schedule("2027-04-01", "2027-04-30", p)
    assert [v.date for v in fixed.visits if v.routine] == [D(2027, 4, 8), D(2027, 4, 15),
                                                           D(2027, 4, 22), D(2027, 4, 29)]
    rolling = insp.inspection_schedule("2027-04-01", "2027-04-30", p, clock="rolling")
    assert rolling.dates == [D(2027, 4, 4), D(2027, 4, 11), D(2027, 4, 18), D(2027, 4, 25)]
    assert "7-day clock restarts" in rolling.visits[0].reasons[-1]
    gaps = [(b - a).days for a, b in zip(rolling.dates, rolling.dates[1:], strict=False)]
    assert max(gaps) <= 7


def test_gap_between_visits_never_exceeds_the_interval():
    p = record(**{"2027_04_03": 0.9, "2027_04_19": 0.5, "2027_05_02": 2.0})
    for clock in ("fixed", "rolling"):
        s = insp.inspection_schedule("2027-04-01", "2027-05-31", p, clock=clock)
        days = [D(2027, 4, 1)] + s.dates
        assert max((b - a).days for a, b in zip(days, days[1:], strict=False)) <= 7


def test_multiday_event_option():
    p = record(**{"2027_04_10": 0.30, "2027_04_11": 0.25})
    assert not any(v.storm for v in insp.inspection_schedule("2027-04-01", "2027-04-30",
                                                             p, multiday_events=False).visits)
    s = insp.inspection_schedule("2027-04-01", "2027-04-30", p)  # the law's reading: default
    assert s.storm_event_reading == "multi_day"
    (v,) = [v for v in s.visits if v.storm]
    assert v.date == D(2027, 4, 12) and "0.55 in over 2027-04-10..2027-04-11" in v.reasons[0]


def test_count_by_month_adds_up():
    p = record(**{"2027_04_07": 1.0, "2027_04_20": 0.6, "2027_05_10": 0.5})
    s = insp.inspection_schedule("2027-04-01", "2027-05-31", p)
    by = s.count_by_month()
    assert by["visits"].sum() == len(s.visits)
    assert (by[["routine_only", "storm_only", "routine_and_storm"]].sum(axis=1)
            == by["visits"]).all()
    assert by.loc["2027-04", "routine_and_storm"] == 1 and by["storm_days"].sum() == 3
    frame = s.to_frame()
    assert list(frame.columns)[:4] == ["date", "weekday", "routine", "storm"]
    json.dumps(s.to_dict())


def test_threshold_compare_tolerates_unit_conversion():
    p = record(**{"2027_04_03": 12.7 / 25.4})   # 12.7 mm
    s = insp.inspection_schedule("2027-04-01", "2027-04-06", p)
    assert [v.date for v in s.visits if v.storm] == [D(2027, 4, 4)]


def test_worcester_record_has_an_exact_half_inch_day(shared_rainfall):
    from hydrocalc.daily_rain import read_daily_rainfall

    rec = read_daily_rainfall(shared_rainfall / "daily" /
                              "ghcnd_custom_csv_worcester_ma_USW00094746_2003-01_excerpt.csv")
    s = insp.inspection_schedule("2003-01-01", "2003-02-14", rec.precip_in,
                                 multiday_events=False)
    # storm days from the file: 2003-01-01 0.68 in and 2003-02-02 0.50 in (exactly)
    assert s.storm_days == [D(2003, 1, 1), D(2003, 2, 2)]
    assert [v.date for v in s.visits if v.storm] == [D(2003, 1, 2), D(2003, 2, 3)]
    assert len([v for v in s.visits if v.routine]) == 6  # 01-08 ... 02-12


def test_profile_defaults_and_citation():
    s = insp.schedule_for_profile("shelter_island", "2027-04-01", "2027-04-30",
                                  record(**{"2027_04_03": 0.5}))
    assert (s.interval_days, s.threshold_in, s.citation) == (7, 0.5, "§ 110-39C")
    assert "§ 110-39C" in s.visits[0].reasons[0]
    p = insp.schedule_for_profile("pelham", "2027-04-01", "2027-04-30", record())
    assert p.citation == "Ch. 83"  # section number not known from the published text
    with pytest.raises(InputError, match=r"inspection_threshold_in and inspection_interval_days "
                                         r"must be given for profile 'nys_generic'"):
        insp.schedule_for_profile("nys_generic", "2027-04-01", "2027-04-30", record())
    g = insp.schedule_for_profile("nys_generic", "2027-04-01", "2027-04-30", record(),
                                  threshold_in=0.25, interval_days=14)
    assert g.dates == [D(2027, 4, 15), D(2027, 4, 29)]


def test_schedule_errors():
    p = record()
    with pytest.raises(InputError, match=r"rainfall record must cover the construction period "
                                         r"2027-03-01..2027-04-10; got 2027-04-01..2027-05-31"):
        insp.inspection_schedule("2027-03-01", "2027-04-10", p)
    gap = p.drop(pd.Timestamp("2027-04-05"))
    with pytest.raises(InputError, match=r"precip_in must have a value for every day .*; got 1 "
                                         r"missing day\(s\), first 2027-04-05"):
        insp.inspection_schedule("2027-04-01", "2027-04-10", gap)
    with pytest.raises(InputError, match=r"end_date must be on or after start_date"):
        insp.inspection_schedule("2027-04-10", "2027-04-01", p)
    with pytest.raises(InputError, match=r"interval_days must be a whole number >= 1; got 0"):
        insp.inspection_schedule("2027-04-01", "2027-04-10", p, interval_days=0)
    with pytest.raises(InputError, match=r"clock must be 'fixed' or 'rolling'; got 'weekly'"):
        insp.inspection_schedule("2027-04-01", "2027-04-10", p, clock="weekly")
    with pytest.raises(InputError, match=r"threshold_in must be in \(0, inf\); got 0"):
        insp.inspection_schedule("2027-04-01", "2027-04-10", p, threshold_in=0.0)
    with pytest.raises(InputError, match=r"start_date must be a date \(YYYY-MM-DD\); got 'April'"):
        insp.inspection_schedule("April", "2027-04-10", p)
    with pytest.raises(InputError, match=r"precip_in must be a pandas Series on a daily "
                                         r"DatetimeIndex"):
        insp.inspection_schedule("2027-04-01", "2027-04-10", [0.0] * 10)


def test_calendar_figure():
    s = insp.inspection_schedule("2027-04-01", "2027-05-31", record(**{"2027_04_07": 1.0}))
    fig = s.figure()
    assert type(fig).__name__ == "Figure" and len(fig.axes) == 2


# --- Pelham 48-hour notices ---------------------------------------------------------------

def test_notice_is_48_hours_before_the_milestone():
    n = insp.notice_schedule("pelham", [
        ("completion_of_final_grading", dt.datetime(2027, 6, 10, 8, 0)),
        ("start_of_construction", D(2027, 4, 5)),
    ])
    assert [x.milestone_key for x in n] == ["start_of_construction",
                                            "completion_of_final_grading"]
    assert n[0].notice_due == dt.datetime(2027, 4, 3, 0, 0)   # date-only -> 00:00
    assert n[0].notify_by_date == D(2027, 4, 2) and n[0].date_only
    assert n[1].notice_due == dt.datetime(2027, 6, 8, 8, 0)
    assert n[1].notify_by_date == D(2027, 6, 8)
    assert n[1].citation == "Ch. 83"


def test_notice_accepts_plan_milestones_and_mappings():
    from hydrocalc.site.project import Milestone

    n = insp.notice_schedule("pelham", [Milestone("construction_interruption_over_30_days",
                                                  D(2027, 7, 1)),
                                        {"key": "public_landscaping_established",
                                         "date": D(2027, 9, 1)}])
    assert [x.letter for x in n] == ["e", "g"]


def test_notice_errors_and_profiles_without_notices():
    with pytest.raises(InputError, match=r"milestone key must be one of the pelham notice "
                                         r"milestones; got 'start'"):
        insp.notice_schedule("pelham", [("start", D(2027, 4, 1))])
    assert insp.notice_schedule("shelter_island", []) == []
    with pytest.raises(InputError, match=r"must be one of the shelter_island notice milestones"):
        insp.notice_schedule("shelter_island", [("start_of_construction", D(2027, 4, 1))])


# --- CLI ----------------------------------------------------------------------------------

def _main():
    from hydrocalc.cli import main

    return main


def test_cli_inspections_pelham_with_notices():
    r = CliRunner().invoke(_main(), ["inspections", str(FIXTURES / "pelham_site.toml")])
    assert r.exit_code == 0, r.output
    assert "2027-04-09" in r.stdout and "storm: 0.80 in on 2027-04-08" in r.stdout
    assert "notify by 2027-04-03 00:00 (last day 2027-04-02)" in r.stdout
    assert "notify by 2027-04-03 07:30" in r.stdout


def test_cli_inspections_not_required_for_shelter_island_residence():
    site = str(FIXTURES / "shelter_island_sfr.toml")
    r = CliRunner().invoke(_main(), ["inspections", site])
    assert r.exit_code == 0 and "inspections not required" in r.stdout
    r = CliRunner().invoke(_main(), ["inspections", site, "--force", "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["inspections_required"] is False and d["n_visits"] > 0


def test_cli_inspections_rain_override_and_outputs(tmp_path):
    rain = tmp_path / "r.csv"
    rows = "".join(f"{(D(2018, 4, 1) + dt.timedelta(days=i)).isoformat()},"
                   f"{'0.75' if i == 9 else '0.00'}\n" for i in range(120))
    rain.write_text("DATE,PRCP\n" + rows)
    out_csv, fig = tmp_path / "v.csv", tmp_path / "cal.png"
    r = CliRunner().invoke(_main(), ["inspections", str(FIXTURES / "pelham_site.toml"),
                                     "--rain", str(rain), "--shift-years", "9",
                                     "--csv", str(out_csv), "--figure", str(fig)])
    assert r.exit_code == 0, r.output
    assert "storm: 0.75 in on 2027-04-10" in r.stdout
    assert out_csv.is_file() and fig.stat().st_size > 1000


def test_cli_inspections_uncovered_period_is_one_line():
    r = CliRunner().invoke(_main(), ["inspections", str(FIXTURES / "pelham_site.toml"),
                                     "--shift-years", "-1"])
    assert r.exit_code == 1
    assert r.stderr.startswith("error: rainfall record must cover the construction period")
