"""Daily rainfall CSV reader: real NOAA files, and one clear error per bad-file message."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.daily_rain import rainfall_for_plan, read_daily_rainfall
from hydrocalc.errors import InputError

CDO_HEADER = '"STATION","NAME","DATE","PRCP","TMAX"\n'


def cdo_row(date, prcp, station="USC00300000", name="TEST, NY US"):
    return f'"{station}","{name}","{date}","{prcp}","70"\n'


def write(tmp_path, text, name="rain.csv"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def good_text(days=5, start=dt.date(2027, 4, 1)):
    rows = [cdo_row((start + dt.timedelta(days=i)).isoformat(), f"{0.25 * i:.2f}")
            for i in range(days)]
    return CDO_HEADER + "".join(rows)


# --- real files (../shared/rainfall/daily) --------------------------------------------------

def test_reads_cdo_daily_summaries_sitka(shared_rainfall):
    rec = read_daily_rainfall(shared_rainfall / "daily" /
                              "cdo_daily_summaries_sitka_ak_USW00025333_2018-07.csv")
    assert rec.file_format == "cdo_daily_summaries" and rec.units_in_file == "in"
    assert rec.station == "USW00025333" and rec.station_name == "SITKA AIRPORT, AK US"
    assert (rec.start, rec.end) == (dt.date(2018, 7, 1), dt.date(2018, 7, 31))
    assert rec.precip_in.iloc[0] == 0.25 and rec.precip_in.iloc[1] == 0.01  # first two rows
    assert len(rec.precip_in) == 31 and not rec.precip_in.isna().any()


def test_reads_ghcnd_custom_csv_worcester_with_trace_flags(shared_rainfall):
    rec = read_daily_rainfall(shared_rainfall / "daily" /
                              "ghcnd_custom_csv_worcester_ma_USW00094746_2003-01_excerpt.csv")
    assert rec.file_format == "ghcnd_custom_csv" and rec.station == "USW00094746"
    assert (rec.start, rec.end) == (dt.date(2003, 1, 1), dt.date(2003, 2, 14))
    # values typed from the file: 2003-01-01 0.68, 2003-02-02 0.50; 13 'T' (trace) MFLAGs
    assert rec.precip_in["2003-01-01"] == 0.68 and rec.precip_in["2003-02-02"] == 0.50
    assert rec.trace_days == 13 and rec.precip_in["2003-01-07"] == 0.0
    assert_allclose(rec.precip_in.sum(), 3.71, rtol=0, atol=1e-9)


# --- good synthetic variants ------------------------------------------------------------

def test_metric_file_needs_explicit_units_and_converts(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "12.7") + cdo_row("2027-04-02", "0.0")
    rec = read_daily_rainfall(write(tmp_path, text), units="mm")
    assert_allclose(rec.precip_in.to_numpy(), [0.5, 0.0], rtol=1e-12)
    assert rec.units_in_file == "mm"


def test_simple_format_with_unit_in_header(tmp_path):
    rec = read_daily_rainfall(write(tmp_path, "date,precip_in\n2027-04-01,0.5\n2027-04-02,1\n"))
    assert rec.precip_in.tolist() == [0.5, 1.0] and rec.file_format == "simple"


def test_multi_station_file_with_station_chosen(tmp_path):
    text = (CDO_HEADER + cdo_row("2027-04-01", "0.10", "A") + cdo_row("2027-04-02", "0.20", "A")
            + cdo_row("2027-04-01", "0.90", "B") + cdo_row("2027-04-02", "0.80", "B"))
    rec = read_daily_rainfall(write(tmp_path, text), station="B")
    assert rec.precip_in.tolist() == [0.9, 0.8] and rec.station == "B"


def test_allow_gaps_keeps_nan(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10") + cdo_row("2027-04-03", "")
    rec = read_daily_rainfall(write(tmp_path, text), allow_gaps=True)
    assert np.isnan(rec.precip_in["2027-04-02"]) and np.isnan(rec.precip_in["2027-04-03"])
    assert rec.missing_days == [dt.date(2027, 4, 2), dt.date(2027, 4, 3)]


def test_quality_flagged_value_can_be_set_missing(tmp_path):
    text = ('"STATION","DATE","PRCP","PRCP_ATTRIBUTES"\n"S","2027-04-01","0.10",",,0,2400"\n'
            '"S","2027-04-02","9.99",",X,0,2400"\n')
    rec = read_daily_rainfall(write(tmp_path, text), flagged="missing", allow_gaps=True)
    assert np.isnan(rec.precip_in.iloc[1]) and "quality-flagged" in rec.notes[0]


def test_shift_years_lays_a_past_year_over_the_construction_period(tmp_path):
    rec = read_daily_rainfall(write(tmp_path, good_text(days=5, start=dt.date(2018, 4, 1))))
    moved = rec.shift_years(9)
    assert moved.start == dt.date(2027, 4, 1)
    assert moved.precip_in.tolist() == rec.precip_in.tolist()
    assert moved.window(dt.date(2027, 4, 2), dt.date(2027, 4, 3)).tolist() == [0.25, 0.5]


def test_shift_years_merges_a_leap_day_into_28_february(tmp_path):
    text = CDO_HEADER + "".join(cdo_row(d, v) for d, v in [("2024-02-28", "0.10"),
                                                          ("2024-02-29", "0.20"),
                                                          ("2024-03-01", "0.30")])
    moved = read_daily_rainfall(write(tmp_path, text)).shift_years(3)
    assert moved.precip_in.tolist() == pytest.approx([0.30, 0.30], abs=1e-12)
    assert any("29 Feb added to 28 Feb" in n for n in moved.notes)


def test_window_outside_record_is_an_error(tmp_path):
    rec = read_daily_rainfall(write(tmp_path, good_text()))
    with pytest.raises(InputError, match=r"must cover 2027-03-01..2027-04-02; got "
                                         r"2027-04-01..2027-04-05"):
        rec.window(dt.date(2027, 3, 1), dt.date(2027, 4, 2))


def test_rainfall_for_plan_needs_a_file():
    class Plan:
        rainfall_file = None
    with pytest.raises(InputError, match=r"rainfall file must be given \(--rain FILE"):
        rainfall_for_plan(Plan())


# --- one test per error message -----------------------------------------------------------

def test_error_missing_file(tmp_path):
    with pytest.raises(InputError, match=r"rain.csv must be a readable file"):
        read_daily_rainfall(tmp_path / "rain.csv")


def test_error_empty_file(tmp_path):
    with pytest.raises(InputError, match=r"must contain a header and data rows; got an empty"):
        read_daily_rainfall(write(tmp_path, "\n\n"))


def test_error_header_without_date_and_prcp(tmp_path):
    with pytest.raises(InputError, match=r"line 1: header must have DATE and PRCP columns .*; "
                                         r"got STATION, DAY, RAIN"):
        read_daily_rainfall(write(tmp_path, "STATION,DAY,RAIN\nS,2027-04-01,0.1\n"))


def test_error_only_header(tmp_path):
    with pytest.raises(InputError, match=r"must contain data rows; got only the header"):
        read_daily_rainfall(write(tmp_path, CDO_HEADER))


def test_error_row_with_wrong_field_count(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10") + '"S","N","2027-04-02","0.10"\n'
    with pytest.raises(InputError, match=r"line 3: row must have 5 fields like the header; "
                                         r"got 4"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_several_stations(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10", "A") + cdo_row("2027-04-01", "0.10", "B")
    with pytest.raises(InputError, match=r"must hold one station or station= must choose one; "
                                         r"got 2 stations: A \(1 rows\), B \(1 rows\)"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_unknown_station(tmp_path):
    with pytest.raises(InputError, match=r"station must be a STATION id in .*; got 'USC0030000'"
                                         r"; did you mean 'USC00300000'"):
        read_daily_rainfall(write(tmp_path, good_text()), station="USC0030000")


def test_error_bad_date(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10") + cdo_row("04/02/2027", "0.10")
    with pytest.raises(InputError, match=r"line 3: DATE must be a calendar date YYYY-MM-DD; "
                                         r"got '04/02/2027'"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_impossible_calendar_date(tmp_path):
    text = CDO_HEADER + cdo_row("2027-02-30", "0.10")
    with pytest.raises(InputError, match=r"line 2: DATE must be a calendar date"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_non_numeric_prcp(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "T")
    with pytest.raises(InputError, match=r"line 2: PRCP must be a number \(a daily depth\); "
                                         r"got 'T' on 2027-04-01"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_negative_prcp(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10") + cdo_row("2027-04-02", "-0.25")
    with pytest.raises(InputError, match=r"line 3: PRCP must be >= 0; got -0.25 on 2027-04-02\. "
                                         r"Correct or delete the row"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_missing_value_code_is_explained(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "-9999")
    with pytest.raises(InputError, match=r"-9999 is NOAA's missing-value code"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_quality_flag(tmp_path):
    text = ('"STATION","DATE","PRCP","PRCP_ATTRIBUTES"\n"S","2027-04-01","0.10",",,0,2400"\n'
            '"S","2027-04-02","9.99",",X,0,2400"\n')
    with pytest.raises(InputError, match=r"line 3: PRCP must pass NOAA quality checks; got 9.99 "
                                         r"on 2027-04-02 with QFLAG 'X'"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_duplicate_date(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10") + cdo_row("2027-04-01", "0.20")
    with pytest.raises(InputError, match=r"line 3: DATE must not repeat; got 2027-04-01 again "
                                         r"\(first on line 2\)"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_units_cannot_be_told(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "6.4") + cdo_row("2027-04-02", "0.0")
    with pytest.raises(InputError, match=r"PRCP units must be stated .*; got values with \[1\] "
                                         r"decimals\. Pass units='in' or units='mm'"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_implausible_depth(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "64.0")
    with pytest.raises(InputError, match=r"line 2: PRCP must be <= 50 in per day; got 64.0 in on "
                                         r"2027-04-01\. If the file is in millimetres"):
        read_daily_rainfall(write(tmp_path, text), units="in")


def test_error_missing_day_absent_from_file(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10") + cdo_row("2027-04-04", "0.10")
    with pytest.raises(InputError, match=r"must have a value for every day; got 2 missing "
                                         r"day\(s\) .*first 2027-04-02 \(absent from the file\)"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_missing_day_blank_value(tmp_path):
    text = CDO_HEADER + cdo_row("2027-04-01", "0.10") + cdo_row("2027-04-02", "")
    with pytest.raises(InputError, match=r"got 1 missing day\(s\) .*first 2027-04-02 \(blank "
                                         r"PRCP on line 3\)"):
        read_daily_rainfall(write(tmp_path, text))


def test_error_bad_arguments(tmp_path):
    p = write(tmp_path, good_text())
    with pytest.raises(InputError, match=r"units must be one of auto, in, mm; got 'inch'"):
        read_daily_rainfall(p, units="inch")
    with pytest.raises(InputError, match=r"flagged must be one of error, missing; got 'drop'"):
        read_daily_rainfall(p, flagged="drop")


def test_shift_years_beyond_the_pandas_date_range_is_an_input_error(tmp_path):
    rec = read_daily_rainfall(write(tmp_path, good_text(days=5, start=dt.date(2018, 4, 1))))
    with pytest.raises(InputError, match=r"shift_years must be in \[-340, 243\] for a record "
                                         r"2018-04-01..2018-04-05 .*; got 100000"):
        rec.shift_years(100000)
