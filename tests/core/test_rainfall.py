"""Design storms: shipped distributions, interpolation, user distributions, bad input."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import check_container
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc import rainfall
from hydrocalc.errors import InputError
from hydrocalc.rainfall import (
    Hyetograph,
    RainfallDistribution,
    design_storm,
    design_storms,
    hyetograph_from_cumulative,
    rainfall_distribution,
)

ALL = rainfall.distribution_names()


# -- the shipped tables ------------------------------------------------------------------


@pytest.mark.parametrize("key", ALL)
def test_every_shipped_distribution_is_a_24_hour_mass_curve(key):
    # shared/references/examples.md "Table checks": monotone, reaches 1.0 at 24 h.
    dist = rainfall_distribution(key)
    assert dist.duration_hr == 24.0
    assert dist.cumulative_frac[0] == 0.0
    assert dist.cumulative_frac[-1] == 1.0
    assert np.all(np.diff(dist.cumulative_frac) >= 0.0)
    assert_allclose(np.diff(dist.time_hr), 0.1, rtol=0, atol=1e-9)


@pytest.mark.parametrize("key", [k for k in ALL if k.startswith(("NOAA", "NRCC"))])
def test_noaa_and_nrcc_distributions_are_symmetric_about_noon(key):
    # examples.md: F(12 - t) + F(12 + t) = 1 within 1e-5, for the tabulated t >= 0.1 h (the
    # 12.0-h ordinate itself lies inside the peak interval and is not 0.5).
    dist = rainfall_distribution(key)
    t = np.arange(0.1, 12.0001, 0.1)
    total = dist.fraction(12.0 - t) + dist.fraction(12.0 + t)
    assert_allclose(total, 1.0, rtol=0, atol=1e-5 + 1e-12)


def test_shipped_values_double_entry():
    # Typed again from shared/references/README.md (WinTR-20 5-decimal tables).
    assert rainfall_distribution("IA").fraction(9.9) == pytest.approx(0.57184, abs=5e-6)
    assert rainfall_distribution("III").fraction(11.9) == pytest.approx(0.41600, abs=5e-6)
    assert rainfall_distribution("II").fraction(12.0) == pytest.approx(0.66300, abs=5e-6)


# -- design_storm ------------------------------------------------------------------------


@pytest.mark.parametrize("key", ALL)
@pytest.mark.parametrize("dt_hr", [0.01, 0.07, 0.1, 0.25, 1.0])
def test_design_storm_totals_the_depth_exactly_and_is_monotone(key, dt_hr):
    storm = design_storm(4.3, distribution=key, dt_hr=dt_hr)
    assert storm.depth_in == 4.3  # exact, not approximately
    assert storm.cumulative_in[0] == 0.0
    assert np.all(np.diff(storm.cumulative_in) >= 0.0)
    assert storm.time_hr[-1] >= 24.0 - 1e-9
    assert storm.time_hr[-1] < 24.0 + dt_hr
    assert_allclose(np.diff(storm.time_hr), dt_hr, rtol=1e-12)
    assert_allclose(storm.incremental_in.sum(), 4.3, rtol=1e-12)


def test_design_storm_at_the_table_step_reproduces_the_table():
    table = rainfall_distribution("III")
    storm = design_storm(2.0, distribution="III", dt_hr=0.1)
    assert_allclose(storm.cumulative_in, 2.0 * table.cumulative_frac, rtol=1e-12, atol=0)


def test_design_storm_interpolates_the_mass_curve_linearly_like_wintr20():
    # Between the 0.1-h ordinates the mass curve is a straight line (WinTR-20 convention).
    table = rainfall_distribution("II")
    storm = design_storm(1.0, distribution="II", dt_hr=0.05)
    mid = storm.cumulative_at(11.95)
    assert mid == pytest.approx(0.5 * (table.fraction(11.9) + table.fraction(12.0)), rel=1e-12)


@pytest.mark.parametrize(
    "spelling, key",
    [("Type II", "II"), ("type_ii", "II"), ("nrcs_type_iii", "III"), ("TYPE IA", "IA"),
     ("scs type i", "I"), ("NRCC-C", "NRCC_C"), ("noaa_b", "NOAA_B"), ("Type 3", "III"),
     ("typeIII_frac", "III"), ("Type II 24-hr", "II")],
)
def test_distribution_names_accept_common_spellings(spelling, key):
    assert rainfall_distribution(spelling) is rainfall_distribution(key)


def test_unknown_distribution_suggests_close_names():
    with pytest.raises(InputError, match=r"unknown rainfall distribution 'IIII'; did you mean "
                                         r"'III' or 'II'\? Valid: I, IA, II, III, NOAA_A"):
        design_storm(3.0, distribution="IIII")


def test_unknown_distribution_of_wrong_type_is_rejected():
    with pytest.raises(InputError, match="distribution must be a name or a RainfallDistribution"):
        design_storm(3.0, distribution=2)


def test_negative_depth_is_rejected():
    with pytest.raises(InputError, match=r"depth_in must be in \[0, inf\); got -1\. A storm depth "
                                         r"cannot be negative"):
        design_storm(-1.0)


def test_nan_depth_is_rejected():
    with pytest.raises(InputError, match=r"depth_in must be in \[0, inf\); got nan"):
        design_storm(float("nan"))


def test_array_depth_points_to_design_storms():
    with pytest.raises(InputError, match=r"depth_in must be a single number; got an array of "
                                         r"shape \(2,\)"):
        design_storm([3.0, 4.0])


def test_non_positive_step_is_rejected():
    with pytest.raises(InputError, match=r"dt_hr must be in \(0, inf\); got 0"):
        design_storm(3.0, dt_hr=0.0)


def test_duration_other_than_the_distributions_is_rejected():
    with pytest.raises(InputError, match=r"duration_hr must equal the duration of distribution "
                                         r"'III' \(24 h\); got 6"):
        design_storm(3.0, distribution="III", duration_hr=6.0)


def test_zero_depth_gives_a_dry_storm():
    storm = design_storm(0.0)
    assert storm.depth_in == 0.0
    assert not storm.cumulative_in.any()


def test_design_storms_keeps_names_and_order():
    storms = design_storms({"2yr": 3.4, "100yr": 8.0}, distribution="II", dt_hr=0.5)
    assert [s.name for s in storms] == ["2yr", "100yr"]
    assert [s.depth_in for s in storms] == [3.4, 8.0]


@settings(max_examples=60, deadline=None)
@given(depth_in=st.floats(0.0, 30.0), dt_hr=st.floats(0.005, 2.0),
       key=st.sampled_from(ALL))
def test_property_any_step_closes_at_the_depth(depth_in, dt_hr, key):
    storm = design_storm(depth_in, distribution=key, dt_hr=dt_hr)
    assert storm.depth_in == depth_in
    assert np.all(storm.incremental_in >= 0.0)


# -- user distributions ------------------------------------------------------------------


def test_user_distribution_is_used_like_a_shipped_one():
    dist = RainfallDistribution([0, 1, 2, 3], [0, 0.2, 0.9, 1.0], name="triangle")
    storm = design_storm(2.0, distribution=dist, dt_hr=0.5, duration_hr=3.0)
    assert_allclose(storm.cumulative_in, [0, 0.2, 0.4, 1.1, 1.8, 1.9, 2.0], rtol=1e-12)


def test_user_distribution_as_a_tuple_or_frame():
    pair = ([0.0, 6.0, 12.0], [0.0, 0.25, 1.0])
    storm = design_storm(4.0, distribution=pair, dt_hr=3.0, duration_hr=12.0)
    assert_allclose(storm.cumulative_in, [0.0, 0.5, 1.0, 2.5, 4.0], rtol=1e-12)
    frame = pd.DataFrame({"time_hr": pair[0], "cumulative_frac": pair[1]})
    assert rainfall_distribution(frame).fraction(9.0) == pytest.approx(0.625)
    with pytest.raises(InputError, match=r"must end at 1"):
        design_storm(4.0, distribution=([0.0, 1.0], [0.0, 0.5]), duration_hr=1.0)


def test_user_distribution_closing_within_tolerance_is_rescaled_to_one():
    dist = RainfallDistribution([0, 1, 2], [0, 0.5, 0.99995])
    assert dist.cumulative_frac[-1] == 1.0


def test_user_distribution_must_be_monotone():
    with pytest.raises(InputError, match=r"cumulative_frac of distribution 'user' must never "
                                         r"decrease \(a mass curve is monotone\); got 0\.25 after "
                                         r"0\.3 at index 2"):
        RainfallDistribution([0, 1, 2, 3], [0, 0.3, 0.25, 1.0])


def test_user_distribution_must_close_at_one():
    with pytest.raises(InputError, match=r"must end at 1 \(within 0\.0001\); got 0\.95"):
        RainfallDistribution([0, 1, 2], [0, 0.5, 0.95])


def test_user_distribution_must_start_at_zero():
    with pytest.raises(InputError, match=r"cumulative_frac of distribution 'x' must start at 0; "
                                         r"got 0\.1"):
        RainfallDistribution([0, 1, 2], [0.1, 0.5, 1.0], name="x")


def test_user_distribution_times_must_start_at_zero_and_increase():
    with pytest.raises(InputError, match=r"time_hr of distribution 'user' must start at 0; got 1"):
        RainfallDistribution([1, 2, 3], [0, 0.5, 1.0])
    with pytest.raises(InputError, match=r"must increase strictly; got 1 after 1 at index 2"):
        RainfallDistribution([0, 1, 1, 3], [0, 0.5, 0.6, 1.0])


def test_user_distribution_arrays_must_match():
    with pytest.raises(InputError, match=r"must be 1-D arrays of equal length >= 2"):
        RainfallDistribution([0, 1, 2], [0, 1.0])


# -- Hyetograph --------------------------------------------------------------------------


def test_hyetograph_rejects_a_non_uniform_step():
    with pytest.raises(InputError, match=r"must be a uniform step from 0; got 2\.5 at index 2"):
        Hyetograph([0, 1, 2.5], [0, 1, 2])


def test_hyetograph_rejects_decreasing_depths():
    with pytest.raises(InputError, match=r"cumulative_in must never decrease; got 0\.5 after 1 "
                                         r"at index 2"):
        Hyetograph([0, 1, 2], [0, 1, 0.5])


def test_hyetograph_rejects_negative_depths():
    with pytest.raises(InputError, match=r"cumulative_in must be in \[0, inf\); got -0\.1 at "
                                         r"index 1 \(1 of 3 values invalid\)"):
        Hyetograph([0, 1, 2], [0, -0.1, 0.5])


def test_hyetograph_must_start_dry():
    with pytest.raises(InputError, match=r"cumulative_in must start at 0 at time 0; got 0\.2"):
        Hyetograph([0, 1, 2], [0.2, 1, 2])


def test_hyetograph_arrays_are_read_only_copies():
    p = np.array([0.0, 1.0, 2.0])
    h = Hyetograph([0, 1, 2], p)
    p[1] = 5.0
    assert h.cumulative_in[1] == 1.0
    with pytest.raises(ValueError):
        h.cumulative_in[1] = 3.0


def test_hyetograph_from_uneven_times_resamples_and_keeps_the_total():
    h = hyetograph_from_cumulative([0, 0.3, 1.0, 2.2], [0, 0.1, 1.0, 1.7], dt_hr=0.25)
    assert h.depth_in == 1.7
    assert h.cumulative_at(1.0) == pytest.approx(1.0, rel=1e-12)
    with pytest.raises(InputError, match=r"dt_hr must be given when time_hr is not a uniform"):
        hyetograph_from_cumulative([0, 0.3, 1.0], [0, 0.1, 1.0])


def test_resampled_storm_keeps_its_depth():
    storm = design_storm(3.3, distribution="II", dt_hr=0.1)
    fine = storm.resampled(0.01)
    assert fine.depth_in == 3.3
    assert_allclose(fine.cumulative_at(storm.time_hr), storm.cumulative_in, rtol=1e-12, atol=1e-12)


def test_cumulative_at_follows_the_input_container(container):
    kind, convert = container
    storm = design_storm(2.0, distribution="III")
    got = storm.cumulative_at(convert([12.0, 24.0, 0.0]))
    check_container(got, kind, 3)
    assert np.asarray(got).ravel()[0] == pytest.approx(1.0, rel=1e-12)


def test_to_frame_has_unit_suffixed_columns():
    frame = design_storm(2.0, dt_hr=1.0).to_frame()
    assert list(frame.columns) == ["time_hr", "cumulative_in", "incremental_in"]
    assert isinstance(frame, pd.DataFrame) and len(frame) == 25


# -- distribution suggestion -------------------------------------------------------------


def test_max_window_fraction_is_the_steepest_hour():
    dist = rainfall_distribution("III")
    t = np.arange(0.0, 23.0001, 0.01)
    expected = np.max(dist.fraction(t + 1.0) - dist.fraction(t))
    assert rainfall.max_window_fraction("III", 1.0) == pytest.approx(expected, rel=1e-12)
    assert rainfall.max_window_fraction("III", 24.0) == pytest.approx(1.0)


def test_rank_distributions_orders_by_distance_and_never_returns_just_one():
    ranking = rainfall.rank_distributions(0.40)
    assert len(ranking) == len(ALL)
    diffs = np.abs(ranking["difference"].to_numpy())
    assert np.all(np.diff(diffs) >= 0)
    assert ranking.distribution.iloc[0] in ("III", "NOAA_C")


def test_rank_distributions_rejects_a_ratio_outside_zero_one():
    with pytest.raises(InputError, match=r"ratio_1hr_24hr must be in \(0, 1\]; got 1\.5"):
        rainfall.rank_distributions(1.5)


# -- CLI ---------------------------------------------------------------------------------


def test_cli_storm_prints_the_hyetograph():
    from hydrocalc.cli import main

    result = CliRunner().invoke(main, ["storm", "3.4", "--distribution", "II", "--dt-hr", "1"])
    assert result.exit_code == 0, result.output
    assert "time_hr" in result.output and "24.0000" in result.output


def test_cli_storm_unknown_distribution_is_one_line_and_exit_1():
    from hydrocalc.cli import main

    result = CliRunner().invoke(main, ["storm", "3", "--distribution", "IIII"])
    assert result.exit_code == 1
    assert result.output.strip().startswith("error: unknown rainfall distribution 'IIII'")
