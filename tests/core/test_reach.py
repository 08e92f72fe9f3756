"""Reach routing: translation and constant-parameter Muskingum-Cunge."""

from __future__ import annotations

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.errors import InputError
from hydrocalc.hydrograph import Hydrograph, runoff_hydrograph
from hydrocalc.rainfall import design_storm
from hydrocalc.reach import (
    manning_flow_cfs,
    muskingum_cunge,
    muskingum_cunge_coefficients,
    normal_depth_ft,
    reach_lag,
)

CHANNEL = dict(slope_ftft=0.002, manning_n=0.04, bottom_width_ft=8.0, side_slope_h_per_v=2.0)


@pytest.fixture(scope="module")
def inflow():
    return runoff_hydrograph(300.0, 80, 0.8, design_storm(5.0, distribution="III"), dt_hr=0.02)


# -- translation -------------------------------------------------------------------------


def test_lag_by_whole_steps_is_an_exact_shift(inflow):
    out = reach_lag(inflow, 0.3)
    shift = 15
    assert out.time_hr[0] == inflow.time_hr[0] and out.dt_hr == inflow.dt_hr
    assert_allclose(out.flow_cfs[shift:], inflow.flow_cfs, rtol=0, atol=0)
    assert not out.flow_cfs[:shift].any()
    assert out.volume_ft3 == pytest.approx(inflow.volume_ft3, rel=1e-12)
    assert out.time_of_peak_hr == pytest.approx(inflow.time_of_peak_hr + 0.3)


def test_lag_by_a_fraction_of_a_step_keeps_the_volume(inflow):
    out = reach_lag(inflow, 0.033)
    assert out.volume_ft3 == pytest.approx(inflow.volume_ft3, rel=1e-6)
    assert out.peak_cfs <= inflow.peak_cfs


def test_lag_without_keep_start_moves_the_time_stamps(inflow):
    out = reach_lag(inflow, 0.25, keep_start=False)
    assert_allclose(out.time_hr, inflow.time_hr + 0.25)
    assert_allclose(out.flow_cfs, inflow.flow_cfs)


def test_negative_lag_is_rejected(inflow):
    with pytest.raises(InputError, match=r"lag_hr must be in \[0, inf\); got -0\.1"):
        reach_lag(inflow, -0.1)


def test_lag_needs_a_hydrograph():
    with pytest.raises(InputError, match=r"inflow must be a Hydrograph; got list"):
        reach_lag([0.0, 1.0], 0.1)


# -- Manning -----------------------------------------------------------------------------


def test_manning_rectangle_by_hand():
    # b = 10 ft, y = 1 ft: A = 10, P = 12, R = 0.8333; Q = 1.49/0.03 A R^(2/3) S^(1/2).
    expected = 1.49 / 0.03 * 10.0 * (10.0 / 12.0) ** (2.0 / 3.0) * 0.001**0.5
    got = manning_flow_cfs(1.0, bottom_width_ft=10.0, slope_ftft=0.001, manning_n=0.03)
    assert got == pytest.approx(expected, rel=1e-12)


def test_normal_depth_inverts_manning():
    y = normal_depth_ft(123.0, **CHANNEL)
    assert manning_flow_cfs(y, **CHANNEL) == pytest.approx(123.0, rel=1e-9)


# -- Muskingum-Cunge ---------------------------------------------------------------------


def test_coefficients_sum_to_one_and_translate_at_courant_one():
    for c, d in [(0.3, 2.0), (1.0, 0.5), (1.7, 0.8)]:
        assert sum(muskingum_cunge_coefficients(c, d)) == pytest.approx(1.0, rel=1e-14)
    assert muskingum_cunge_coefficients(1.0, 0.0) == (0.0, 1.0, 0.0)


@pytest.mark.parametrize("length_ft", [500.0, 5000.0, 30000.0])
def test_routing_conserves_volume_and_attenuates(inflow, length_ft):
    out, params = muskingum_cunge(inflow, length_ft=length_ft, **CHANNEL)
    assert out.volume_ft3 == pytest.approx(inflow.volume_ft3, rel=1e-6)
    assert out.peak_cfs <= inflow.peak_cfs * (1 + 1e-9)
    assert params["c0"] >= 0.0 and params["c2"] >= 0.0
    # the peak travels at about the kinematic celerity
    delay = out.time_of_peak_hr - inflow.time_of_peak_hr
    assert delay == pytest.approx(params["travel_time_hr"], abs=0.25 * params["travel_time_hr"]
                                  + 2 * inflow.dt_hr)


def test_longer_reaches_attenuate_more(inflow):
    peaks = [muskingum_cunge(inflow, length_ft=L, **CHANNEL)[0].peak_cfs
             for L in (1000.0, 10000.0, 40000.0)]
    assert peaks[0] > peaks[1] > peaks[2]


def test_steep_short_reach_is_nearly_a_translation(inflow):
    out, params = muskingum_cunge(inflow, length_ft=800.0, slope_ftft=0.05, manning_n=0.03,
                                  bottom_width_ft=20.0)
    assert out.peak_cfs == pytest.approx(inflow.peak_cfs, rel=0.01)
    assert params["n_substeps"] >= 1


def test_muskingum_cunge_rejects_bad_channels(inflow):
    with pytest.raises(InputError, match=r"length_ft must be in \(0, inf\); got 0"):
        muskingum_cunge(inflow, length_ft=0.0, **CHANNEL)
    with pytest.raises(InputError, match=r"bottom_width_ft and side_slope_h_per_v must not both be"
                                         r" 0"):
        muskingum_cunge(inflow, length_ft=100.0, slope_ftft=0.01, manning_n=0.03,
                        bottom_width_ft=0.0)
    dry = Hydrograph([0.0, 0.1, 0.2], [0.0, 0.0, 0.0])
    with pytest.raises(InputError, match=r"inflow must carry some flow to route"):
        muskingum_cunge(dry, length_ft=100.0, **CHANNEL)


def test_reference_flow_can_be_set(inflow):
    _, params = muskingum_cunge(inflow, length_ft=2000.0, reference_flow_cfs=50.0, **CHANNEL)
    assert params["reference_flow_cfs"] == 50.0
    assert manning_flow_cfs(params["normal_depth_ft"], **CHANNEL) == pytest.approx(50.0)
    assert np.isfinite(params["celerity_fps"]) and params["celerity_fps"] > 0


@pytest.mark.parametrize("kw,pattern", [
    ({"manning_n": 0.0}, r"manning_n must be in \(0, inf\); got 0"),
    ({"slope_ftft": -0.001}, r"slope_ftft must be in \(0, inf\); got -0.001"),
    ({"bottom_width_ft": float("nan")}, r"bottom_width_ft must be in \[0, inf\); got nan"),
])
def test_manning_flow_rejects_nonphysical_channel_parameters(kw, pattern):
    args = {"bottom_width_ft": 10.0, "slope_ftft": 0.001, "manning_n": 0.03} | kw
    with pytest.raises(InputError, match=pattern):
        manning_flow_cfs(1.0, **args)
