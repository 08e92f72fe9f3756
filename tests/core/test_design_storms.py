"""Site rainfall files: DDF TOML, PFDS and NRCC importers, user CSVs, temporal distributions."""

from __future__ import annotations

import pathlib
import warnings

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from numpy.testing import assert_allclose

from hydrocalc import design_storms as ds
from hydrocalc.errors import InputError
from hydrocalc.rainfall import design_storm

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "rainfall"
REPO = pathlib.Path(__file__).resolve().parents[2]
SHIPPED = REPO / "design_storms"

# The fixture tables (invented numbers, written in tests/fixtures/rainfall in each dialect).
DURATIONS = ["5-min", "60-min", "2-hr", "24-hr", "2-day"]
MEAN = pd.DataFrame(
    [[0.300, 0.360, 0.520, 0.750], [1.00, 1.20, 1.70, 2.50], [1.20, 1.45, 2.05, 3.05],
     [2.50, 3.00, 4.40, 7.00], [2.90, 3.45, 5.00, 7.90]],
    index=DURATIONS, columns=[1, 2, 10, 100],
)


def _frame(table):
    return table.astype(float)


# -- durations ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "label, key, hours",
    [("5-min:", "5-min", 5 / 60), ("60-min", "60-min", 1.0), ("120-min", "2-hr", 2.0),
     ("24-hr:", "24-hr", 24.0), ("2-day", "2-day", 48.0), ("10-day:", "10-day", 240.0),
     (" 6-hr ", "6-hr", 6.0)],
)
def test_duration_labels_are_canonical(label, key, hours):
    assert ds.parse_duration(label) == (key, pytest.approx(hours))


def test_bad_duration_label_is_rejected():
    with pytest.raises(InputError, match=r"duration must look like '5-min', '2-hr' or '2-day'; "
                                         r"got 'fortnight'"):
        ds.parse_duration("fortnight")


# -- PFDS dialects (own fixtures) --------------------------------------------------------


@pytest.mark.parametrize(
    "name, bounds",
    [("pfds_pds_utf8_mean_only.csv", False),
     ("pfds_pds_ufffd_mean_upper_lower.csv", True),
     ("pfds_pds_latin1_excel_resaved.csv", False),
     ("pfds_pds_crlf_no_labels.csv", False)],
)
def test_pfds_dialects_read_the_same_table(name, bounds):
    table = ds.read_pfds_csv(FIXTURES / name)
    pd.testing.assert_frame_equal(table.depth_in, _frame(MEAN), check_names=False)
    assert table.series == "partial_duration"
    assert table.latitude_deg == pytest.approx(41.05)
    assert table.longitude_deg == pytest.approx(-72.34)
    assert table.site == "Fixture Town, New York, USA"
    assert "NOAA Atlas 14 Volume 10 Version 3" in table.source
    assert (table.upper_in is not None) is bounds and (table.lower_in is not None) is bounds
    if bounds:
        # the fixture prints the bounds (mean x 1.1 and x 0.9) to 0.01 in above 1 in
        assert_allclose(table.upper_in.to_numpy(), MEAN.to_numpy() * 1.1, rtol=0, atol=0.0051)
        assert_allclose(table.lower_in.to_numpy(), MEAN.to_numpy() * 0.9, rtol=0, atol=0.0051)
        assert table.upper_in.loc["2-hr", 2] == 1.59


def test_pfds_reads_the_download_stamp_into_the_source():
    table = ds.read_pfds_csv(FIXTURES / "pfds_pds_utf8_mean_only.csv")
    assert table.source.endswith("downloaded Mon Jun 19 14:23:29 2023")


def test_pfds_annual_maximum_with_aep_header():
    table = ds.read_pfds_csv(FIXTURES / "pfds_ams_aep_header.csv")
    assert table.series == "annual_maximum"
    assert table.return_periods_yr == [2, 10, 100, 1000]
    assert table.depth(10, "24-hr") == pytest.approx(4.40 * 0.95, abs=0.005)


def test_pfds_intensity_download_is_rejected():
    with pytest.raises(InputError, match=r"data type must be 'Precipitation depth'; got "
                                         r"'Precipitation intensity'"):
        ds.read_pfds_csv(FIXTURES / "pfds_pds_intensity.csv")


def test_pfds_without_a_table_is_rejected():
    text = "Point precipitation frequency estimates (inches)\nData type: Precipitation depth\n"
    with pytest.raises(InputError, match=r"no 'PRECIPITATION FREQUENCY ESTIMATES' table found"):
        ds.read_pfds_csv(text)


def test_pfds_short_row_is_rejected():
    lines = (FIXTURES / "pfds_pds_utf8_mean_only.csv").read_text(encoding="utf-8").splitlines()
    lines = [("60-min:, 1.00,1.20" if line.startswith("60-min") else line) for line in lines]
    with pytest.raises(InputError, match=r"row '60-min:' must have 4 numbers \(one per return "
                                         r"period\); got '1.00,1.20'"):
        ds.read_pfds_csv("\n".join(lines) + "\n")


# -- NRCC dialects -----------------------------------------------------------------------


@pytest.mark.parametrize("name, bounds", [("nrcc_pds_excel_resaved.csv", True),
                                          ("nrcc_mean_only.csv", False)])
def test_nrcc_dialects_read_the_same_table(name, bounds):
    table = ds.read_nrcc_csv(FIXTURES / name)
    pd.testing.assert_frame_equal(table.depth_in, _frame(MEAN), check_names=False)
    assert table.durations == DURATIONS  # "120-min" became "2-hr"
    assert table.series == "partial_duration"
    assert (table.latitude_deg, table.longitude_deg) == (41.05, -72.34)
    assert table.source.startswith("NRCC Extreme Precipitation in New York & New England")
    assert (table.upper_in is not None) is bounds


def test_dispatch_recognizes_each_format():
    assert "NRCC" in ds.read_precipitation_frequency(FIXTURES / "nrcc_mean_only.csv").source
    assert "NOAA" in ds.read_precipitation_frequency(
        FIXTURES / "pfds_pds_crlf_no_labels.csv").source
    with pytest.raises(InputError, match=r"not a NOAA Atlas 14 PFDS or NRCC "
                                         r"precipitation-frequency CSV"):
        ds.read_precipitation_frequency(FIXTURES / "user_distribution_6hr.csv")


# -- the real downloads in ../shared/rainfall --------------------------------------------

# (file, duration, return period, value printed in the file)
REAL_VALUES = [
    ("pfds/pfds_pds_depth_in_pittsburgh_pa_vol2_2019_mean_upper_lower.csv", "24-hr", 100, 4.92),
    ("pfds/pfds_pds_depth_in_pittsburgh_pa_vol2_2017_excel_resaved_latin1.csv", "24-hr", 100,
     4.94),
    ("pfds/pfds_pds_depth_in_pulaski_va_vol2_2022.csv", "60-min", 2, 1.16),
    ("pfds/pfds_pds_depth_in_champaign_il_vol2_2023.csv", "24-hr", 100, 6.88),
    ("pfds/pfds_pds_depth_in_ann_arbor_mi_vol8_excel_resaved.csv", "5-min", 1, 0.322),
    ("nrcc/nrcc_pds_smoothed_depth_in_ny_42.674N_73.559W_2018_excel_resaved.csv", "24-hr", 100,
     6.57),
]


@pytest.mark.parametrize("rel, duration, rp, value", REAL_VALUES)
def test_every_real_download_is_read(shared_rainfall, rel, duration, rp, value):
    table = ds.read_precipitation_frequency(shared_rainfall / rel)
    assert table.depth(rp, duration) == value
    assert table.series == "partial_duration"
    assert table.latitude_deg is not None and table.longitude_deg is not None
    expected_rows = 14 if rel.startswith("nrcc") else 19
    assert table.depth_in.shape[0] == expected_rows


def test_every_real_file_in_the_folders_is_read(shared_rainfall):
    files = sorted((shared_rainfall / "pfds").glob("*.csv")) + sorted(
        (shared_rainfall / "nrcc").glob("*.csv"))
    assert len(files) >= 6
    for path in files:
        table = ds.read_precipitation_frequency(path)
        first_rp = table.depth_in[table.return_periods_yr[0]].to_numpy()
        assert np.all(np.diff(first_rp) > 0)  # deeper with duration


def test_real_bound_tables(shared_rainfall):
    pitt = ds.read_pfds_csv(
        shared_rainfall / "pfds/pfds_pds_depth_in_pittsburgh_pa_vol2_2019_mean_upper_lower.csv")
    assert pitt.upper_in.loc["24-hr", 100] == 5.23
    assert pitt.lower_in.loc["3-day", 1] == 2.34
    nrcc = ds.read_nrcc_csv(
        shared_rainfall / "nrcc/nrcc_pds_smoothed_depth_in_ny_42.674N_73.559W_2018_excel_resaved"
                          ".csv")
    assert nrcc.upper_in.loc["2-hr", 500] == 5.8
    assert nrcc.lower_in.loc["10-day", 1] == 3.55
    assert nrcc.latitude_deg == 42.674 and nrcc.longitude_deg == -73.559


def test_real_latin1_degree_sign_and_excel_padding(shared_rainfall):
    table = ds.read_pfds_csv(
        shared_rainfall / "pfds/pfds_pds_depth_in_pittsburgh_pa_vol2_2017_excel_resaved_latin1"
                          ".csv")
    assert table.latitude_deg == 40.4332 and table.longitude_deg == -79.9237
    assert table.depth(10, "10-day") == 5.61


def test_real_temporal_distributions(shared_rainfall):
    for region in (1, 2):
        path = shared_rainfall / f"noaa_a14_temporal/a14_vol10_ne_region{region}_24h_temporal.csv"
        tables = ds.read_a14_temporal_csv(path)
        assert set(tables) == {"first_quartile", "second_quartile", "third_quartile",
                               "fourth_quartile", "all_cases"}
        for frame in tables.values():
            assert frame.shape == (49, 10)
            assert frame.time_hr.iloc[-1] == 24.0
    q1 = ds.read_a14_temporal_csv(
        shared_rainfall / "noaa_a14_temporal/a14_vol10_ne_region1_24h_temporal.csv")
    assert q1["first_quartile"].loc[1, "p90"] == pytest.approx(0.0051)  # 0.5 h, 90 %: 0.51 %
    dist = ds.a14_temporal_distribution(
        shared_rainfall / "noaa_a14_temporal/a14_vol10_ne_region1_24h_temporal.csv",
        quartile="second_quartile", occurrence_pct=50)
    storm = design_storm(4.0, distribution=dist, dt_hr=0.25)
    assert storm.depth_in == 4.0


# -- DDF files ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["shelter_island.toml", "pelham.toml"])
def test_shipped_site_files_are_illustrative_and_warn(name):
    with pytest.warns(UserWarning, match=r"illustrative: replace with NOAA Atlas 14 / NRCC for "
                                         r"the site"):
        table = ds.load_depth_file(SHIPPED / name)
    assert table.illustrative
    assert table.warning.startswith(ds.ILLUSTRATIVE_WARNING)
    assert "not NOAA Atlas 14 or NRCC" in table.source
    depths = table.storm_depths_in("24-hr")
    assert list(depths) == ["1yr", "2yr", "5yr", "10yr", "25yr", "50yr", "100yr"]
    assert np.all(np.diff(list(depths.values())) > 0)


def test_read_depth_file_returns_the_frame_and_the_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame, warning = ds.read_depth_file(SHIPPED / "pelham.toml")
    assert warning.startswith("illustrative: replace with NOAA Atlas 14 / NRCC for the site")
    assert list(frame.columns) == ["duration", "duration_hr", "return_period_yr", "depth_in"]
    assert frame.query("duration == '24-hr' and return_period_yr == 100").depth_in.item() > 0


def test_import_round_trips_through_toml(tmp_path):
    src = FIXTURES / "pfds_pds_ufffd_mean_upper_lower.csv"
    table = ds.import_precipitation_frequency(src, tmp_path / "site.toml")
    back = ds.load_depth_file(tmp_path / "site.toml")
    for key in ("depth_in", "upper_in", "lower_in"):
        pd.testing.assert_frame_equal(getattr(back, key), getattr(table, key))
    assert back.source == table.source and back.site == table.site
    assert back.warning is None and not back.illustrative
    assert back.suggested_distribution == table.suggested_distribution != ""


def test_import_suggests_but_never_sets_a_distribution(tmp_path):
    table = ds.import_precipitation_frequency(FIXTURES / "nrcc_mean_only.csv",
                                              tmp_path / "s.toml")
    ratio, ranking = ds.suggest_distribution(table)
    assert ratio == pytest.approx(1.70 / 4.40)  # no 25-yr column: the nearest (10 yr) is used
    assert table.suggested_distribution == ranking.distribution.iloc[0]
    assert set(ranking.distribution) == {"NRCC_A", "NRCC_B", "NRCC_C", "NRCC_D", "II", "III"}
    text = (tmp_path / "s.toml").read_text()
    assert "A suggestion only" in text and "\ndistribution" not in text


def test_import_refuses_to_overwrite(tmp_path):
    out = tmp_path / "x.toml"
    ds.import_precipitation_frequency(FIXTURES / "nrcc_mean_only.csv", out)
    with pytest.raises(InputError, match=r"exists; pass overwrite=True \(CLI: --force\)"):
        ds.import_precipitation_frequency(FIXTURES / "nrcc_mean_only.csv", out)


def test_depth_lookup_by_label_or_hours_and_errors():
    table = ds.read_pfds_csv(FIXTURES / "pfds_pds_utf8_mean_only.csv")
    assert table.depth(100) == 7.0 and table.depth(100, 24.0) == 7.0
    assert table.depth(2, "60-min") == 1.2 and table.depth(2, "1-hr") == 1.2
    with pytest.raises(InputError, match=r"return_period_yr 25 is not in this table; available: "
                                         r"1, 2, 10, 100"):
        table.depth(25)
    with pytest.raises(InputError, match=r"duration '6-hr' is not in this table"):
        table.depth(2, "6-hr")


def _write(tmp_path, text):
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_ddf_file_problems_are_listed_one_per_line(tmp_path):
    path = _write(tmp_path, 'site = "x"\nsourse = "typo"\nreturn_period_yr = [2, 10]\n'
                            '[depth_in]\n"24-hr" = [3.0]\n"1-hr" = [1.0, 2.0]\n')
    with pytest.raises(InputError) as info:
        ds.load_depth_file(path)
    lines = str(info.value).splitlines()
    assert "bad.toml: unknown key 'sourse'; did you mean 'source'?" in lines
    assert "bad.toml: source must name where the depths come from; got None" in lines
    assert ("bad.toml: [depth_in] '24-hr' must have 2 values (one per return_period_yr); got 1"
            in lines)


def test_ddf_negative_depth_is_rejected(tmp_path):
    path = _write(tmp_path, 'source = "x"\nreturn_period_yr = [2, 10]\n'
                            '[depth_in]\n"24-hr" = [3.0, -5.0]\n')
    with pytest.raises(InputError, match=r"bad.toml: depth_in must be positive numbers; got -5 "
                                         r"for 24-hr / 10 yr"):
        ds.load_depth_file(path)


def test_ddf_missing_file_and_bad_toml(tmp_path):
    with pytest.raises(InputError, match=r"depth file .* does not exist"):
        ds.load_depth_file(tmp_path / "nope.toml")
    with pytest.raises(InputError, match=r"bad.toml: not valid TOML"):
        ds.load_depth_file(_write(tmp_path, "source = \n"))


# -- user CSV distributions and hyetographs ----------------------------------------------


def test_user_distribution_csv_drives_a_design_storm():
    dist = ds.load_distribution_csv(FIXTURES / "user_distribution_6hr.csv")
    assert dist.name == "user_distribution_6hr" and dist.duration_hr == 6.0
    storm = design_storm(3.0, distribution=dist, dt_hr=0.5, duration_hr=6.0)
    assert storm.depth_in == 3.0
    assert storm.cumulative_at(3.0) == pytest.approx(1.8)


@pytest.mark.parametrize(
    "name, message",
    [("user_distribution_not_monotone.csv", r"user_distribution_not_monotone.csv: cumulative_frac"
                                            r" of distribution .* must never decrease"),
     ("user_distribution_not_closing.csv", r"must end at 1 \(within 0\.0001\); got 0\.95"),
     ("user_distribution_not_starting_at_zero.csv", r"must start at 0; got 0\.1"),
     ("user_hyetograph_wrong_column.csv", r"a cumulative_frac \(or cumulative_pct / cumulative_in"
                                          r"\) column is required")],
)
def test_bad_user_distributions_are_rejected(name, message):
    with pytest.raises(InputError, match=message):
        ds.load_distribution_csv(FIXTURES / name)


def test_user_hyetograph_in_inches_resamples_and_checks_the_depth():
    h = ds.load_hyetograph_csv(FIXTURES / "user_hyetograph_in.csv", dt_hr=0.25)
    assert h.depth_in == 2.0 and h.dt_hr == 0.25
    assert h.cumulative_at(1.5) == pytest.approx(1.3)
    h2 = ds.load_hyetograph_csv(FIXTURES / "user_hyetograph_in.csv", depth_in=2.004, dt_hr=0.5)
    assert h2.depth_in == pytest.approx(2.004)
    with pytest.raises(InputError, match=r"cumulative_in must end at the storm depth 2\.5 in "
                                         r"\(within 0\.005 in\); got 2"):
        ds.load_hyetograph_csv(FIXTURES / "user_hyetograph_in.csv", depth_in=2.5, dt_hr=0.5)


def test_user_hyetograph_from_fractions_needs_a_depth():
    h = ds.load_hyetograph_csv(FIXTURES / "user_distribution_6hr.csv", depth_in=2.0)
    assert h.depth_in == 2.0 and h.dt_hr == 1.0
    with pytest.raises(InputError, match=r"depth_in must be given for a cumulative_frac file"):
        ds.load_hyetograph_csv(FIXTURES / "user_distribution_6hr.csv")


def test_user_hyetograph_non_uniform_times_need_a_step():
    with pytest.raises(InputError, match=r"dt_hr must be given when time_hr is not a uniform "
                                         r"step"):
        ds.load_hyetograph_csv(FIXTURES / "user_hyetograph_in.csv")


def test_user_csv_needs_time_hr(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text("hours,cumulative_frac\n0,0\n1,1\n")
    with pytest.raises(InputError, match=r"t.csv: a time_hr column is required"):
        ds.load_distribution_csv(path)


# -- temporal distribution fixture -------------------------------------------------------


def test_a14_temporal_fixture_and_errors():
    tables = ds.read_a14_temporal_csv(FIXTURES / "a14_temporal_fixture.csv")
    assert set(tables) == {"first_quartile", "all_cases"}
    assert list(tables["all_cases"].columns) == ["time_hr", "p90", "p50", "p10"]
    assert tables["all_cases"].loc[2, "p50"] == pytest.approx(0.5)
    dist = ds.a14_temporal_distribution(FIXTURES / "a14_temporal_fixture.csv")
    assert dist.fraction(12.0) == pytest.approx(0.5)
    with pytest.raises(InputError, match=r"unknown quartile 'first'"):
        ds.a14_temporal_distribution(FIXTURES / "a14_temporal_fixture.csv", quartile="first")
    with pytest.raises(InputError, match=r"occurrence_pct must be one of 90, 50, 10; got 70"):
        ds.a14_temporal_distribution(FIXTURES / "a14_temporal_fixture.csv", occurrence_pct=70)


# -- CLI ---------------------------------------------------------------------------------


def test_cli_import_pfds_writes_the_file_and_prints_the_suggestion(tmp_path):
    from hydrocalc.cli import main

    out = tmp_path / "site.toml"
    result = CliRunner().invoke(main, ["import-pfds", str(FIXTURES / "nrcc_pds_excel_resaved.csv"),
                                       "--out", str(out), "--site", "Fixture"])
    assert result.exit_code == 0, result.output
    assert "A suggestion only" in result.output and out.exists()
    assert ds.load_depth_file(out).site == "Fixture"


def test_cli_depths_prints_the_illustrative_warning():
    from hydrocalc.cli import main

    result = CliRunner().invoke(main, ["depths", str(SHIPPED / "shelter_island.toml")])
    assert result.exit_code == 0
    assert "WARNING: illustrative: replace with NOAA Atlas 14 / NRCC for the site" in result.output
    assert "100yr 24-hr" in result.output
