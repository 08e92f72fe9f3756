"""NRCS unit hydrographs (NEH 630 Ch. 16): shape, volume, peak, PRF, bad input."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from conftest import check_container
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc import unit_hydrograph as uhm
from hydrocalc.data import load_table
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.unit_hydrograph import nrcs_unit_hydrograph

TABLE_16_1 = load_table("nrcs_dimensionless_uh")


# -- the published tables ----------------------------------------------------------------


def test_table_16_1_area_is_1_336_not_1_333():
    # shared/references/examples.md: trapezoidal area under q/qp vs t/Tp = 1.336.
    area = np.trapezoid(TABLE_16_1.q_over_qp, TABLE_16_1.t_over_tp)
    assert area == pytest.approx(1.336, abs=0.0005)
    assert 645.333 / 484 == pytest.approx(1.3333, abs=1e-4)


def test_table_16_1_mass_curve_is_the_integral_of_q_over_qp():
    # examples.md: the mass-curve column is reproduced by integrating q/qp to +-0.002. The
    # trapezoidal rule on the printed 0.1/0.2 steps departs from the published column (built
    # on the continuous curve) by at most 0.00204 (at t/Tp = 1.9), hence atol 0.0025.
    t, q = TABLE_16_1.t_over_tp.to_numpy(), TABLE_16_1.q_over_qp.to_numpy()
    cumulative = np.concatenate([[0.0], np.cumsum(np.diff(t) * (q[1:] + q[:-1]) / 2)])
    assert_allclose(cumulative / cumulative[-1], TABLE_16_1.Qa_over_Q_mass_curve, rtol=0,
                    atol=0.0025)


def test_gamma_relation_reproduces_table_16_5():
    # NEH 630 Table 16-5 (m vs PRF) printed to integers for PRF and 2 digits for m; the
    # printed PRFs were computed with a rounded 645.33 and disagree with the exact gamma
    # relation by up to 0.3 %, hence rtol 0.3 %.
    table = load_table("neh630_gamma_duh_m_vs_prf")
    assert_allclose(uhm.gamma_peak_rate_factor(table.m.to_numpy()), table.PRF, rtol=3e-3)
    assert_allclose(uhm.gamma_shape_factor(table.PRF.to_numpy()), table.m, rtol=0, atol=0.011)
    assert uhm.gamma_shape_factor(484.0) == pytest.approx(3.7, abs=0.005)


def test_dimensionless_uh_for_484_is_table_16_1_and_others_are_gamma():
    duh = uhm.dimensionless_unit_hydrograph(484)
    assert_allclose(duh.q_over_qp, TABLE_16_1.q_over_qp, rtol=0, atol=0)
    gamma = uhm.dimensionless_unit_hydrograph(284)
    assert gamma.q_over_qp.max() == pytest.approx(1.0, abs=1e-4)
    area = np.trapezoid(gamma.q_over_qp, gamma.t_over_tp)
    assert 645.333 / area == pytest.approx(284.0, rel=2e-3)


# -- the unit hydrograph -----------------------------------------------------------------


@pytest.mark.parametrize("prf", [484.0, 284.0, 600.0, 238.0])
@pytest.mark.parametrize("tc_hr, dt_hr", [(0.1, 0.01), (0.5, 0.05), (1.5, 0.1), (4.0, 0.25)])
def test_unit_hydrograph_holds_exactly_one_inch(prf, tc_hr, dt_hr):
    uh = nrcs_unit_hydrograph(2.0, tc_hr, dt_hr=dt_hr, prf=prf)
    assert uh.runoff_in == pytest.approx(1.0, rel=1e-12)  # identity, ours
    assert uh.flow_cfs[0] == 0.0 and uh.flow_cfs[-1] == 0.0
    assert uh.area_ac == 2.0 * 640.0


@pytest.mark.parametrize("prf", [484.0, 284.0])
def test_peak_and_time_to_peak_follow_eq_16_1_and_16_2(prf):
    # NEH 630 Eq. 16-1/16-2: qp = PRF A Q / Tp, Tp = D/2 + 0.6 Tc. With a fine step the
    # discrete peak sits within 0.3 % of qp: normalizing Table 16-1 (area 1.336) to exactly
    # 1 inch lowers it by 1.3333/1.336 = 0.998; the gamma form needs no such correction.
    area_mi2, tc_hr, dt_hr = 3.0, 2.0, 0.001
    tp_hr = dt_hr / 2 + 0.6 * tc_hr
    uh = nrcs_unit_hydrograph(area_mi2, tc_hr, dt_hr=dt_hr, prf=prf)
    assert uh.peak_cfs == pytest.approx(prf * area_mi2 / tp_hr, rel=3e-3)
    assert abs(uh.time_of_peak_hr - tp_hr) <= dt_hr


def test_unit_hydrograph_ordinates_are_table_16_1_scaled():
    # Ordinates at t = j dt are qp * q/qp(j dt / Tp), times one normalizing constant.
    dt, tc = 0.05, 1.0
    tp = dt / 2 + 0.6 * tc
    uh = nrcs_unit_hydrograph(1.0, tc, dt_hr=dt)
    shape = np.interp(uh.time_hr / tp, TABLE_16_1.t_over_tp, TABLE_16_1.q_over_qp, right=0)
    wet = shape > 0
    assert not uh.flow_cfs[~wet].any()
    ratio = uh.flow_cfs[wet] / shape[wet]
    assert_allclose(ratio, ratio[0], rtol=1e-12)
    assert ratio[0] / (484.0 / tp) == pytest.approx(1.0, abs=0.01)


def test_unit_hydrograph_time_base_is_five_tp():
    dt, tc = 0.02, 0.5
    uh = nrcs_unit_hydrograph(1.0, tc, dt_hr=dt)
    tp = dt / 2 + 0.6 * tc
    assert uh.time_hr[-1] >= 5 * tp - 1e-12
    assert uh.time_hr[-1] < 5 * tp + 2 * dt


def test_tc_below_six_minutes_is_raised_with_a_range_warning():
    with pytest.warns(RangeWarning, match=r"tc_hr below 0\.1 h \(6 min\) raised to 0\.1 h as "
                                          r"TR-20 does \(1 of 1 values; smallest 0\.05 h\)"):
        low = nrcs_unit_hydrograph(1.0, 0.05, dt_hr=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ref = nrcs_unit_hydrograph(1.0, 0.1, dt_hr=0.01)
    assert_allclose(low.flow_cfs, ref.flow_cfs, rtol=0, atol=0)


def test_dt_that_cannot_resolve_the_peak_is_rejected():
    # D <= 0.25 Tp with Tp = D/2 + 0.6 Tc  <=>  D <= 0.1714 Tc.
    with pytest.raises(InputError, match=r"dt_hr must be <= 0\.08571 h to resolve the unit "
                                         r"hydrograph \(D <= 0\.25 Tp, NEH 630 Ch\. 16, for "
                                         r"tc_hr = 0\.5\); got 0\.1\. Use dt_hr <= 0\.0857"):
        nrcs_unit_hydrograph(1.0, 0.5, dt_hr=0.1)


def test_dt_at_the_limit_is_accepted():
    dt = uhm.max_dt_hr(0.5)
    uh = nrcs_unit_hydrograph(1.0, 0.5, dt_hr=dt)
    assert uh.runoff_in == pytest.approx(1.0, rel=1e-12)


def test_non_positive_area_and_tc_are_rejected():
    with pytest.raises(InputError, match=r"area_mi2 must be in \(0, inf\); got 0"):
        nrcs_unit_hydrograph(0.0, 1.0, dt_hr=0.1)
    with pytest.raises(InputError, match=r"tc_hr must be in \(0, inf\); got -1"):
        nrcs_unit_hydrograph(1.0, -1.0, dt_hr=0.1)


def test_array_inputs_point_to_the_batch_form():
    with pytest.raises(InputError, match=r"area_mi2 and tc_hr must be single numbers; use "
                                         r"hydrocalc.hydrograph.runoff_hydrographs"):
        nrcs_unit_hydrograph([1.0, 2.0], 1.0, dt_hr=0.1)


# -- user dimensionless tables -----------------------------------------------------------


def test_user_table_equal_to_table_16_1_gives_the_standard_uh():
    user = (TABLE_16_1.t_over_tp.to_numpy(), TABLE_16_1.q_over_qp.to_numpy())
    got = nrcs_unit_hydrograph(1.0, 1.0, dt_hr=0.05, prf=None, dimensionless=user)
    ref = nrcs_unit_hydrograph(1.0, 1.0, dt_hr=0.05)
    assert_allclose(got.flow_cfs, ref.flow_cfs, rtol=1e-12)


def test_user_triangular_table_sets_its_own_peak_rate_factor():
    # Triangle peaking at 1 and ending at 2.67: area 1.3333 -> PRF 484 (NEH 630 Ch. 16).
    tri = ([0.0, 1.0, 8.0 / 3.0], [0.0, 1.0, 0.0])
    uh = nrcs_unit_hydrograph(1.0, 1.0, dt_hr=0.001, prf=None, dimensionless=tri)
    assert uh.runoff_in == pytest.approx(1.0, rel=1e-12)
    assert uh.peak_cfs == pytest.approx(484.0 * 1.0 / 0.6005, rel=2e-3)


def test_user_table_accepts_a_frame():
    uh = nrcs_unit_hydrograph(1.0, 1.0, dt_hr=0.05, prf=None, dimensionless=TABLE_16_1)
    assert uh.runoff_in == pytest.approx(1.0, rel=1e-12)


@pytest.mark.parametrize(
    "table, message",
    [
        (([0.1, 1.0, 2.0], [0.0, 1.0, 0.0]), r"must start at \(0, 0\); got \(0\.1, 0\)"),
        (([0.0, 1.0, 2.0], [0.0, 1.0, 0.2]), r"q_over_qp must end at 0 \(the recession must be "
                                             r"complete\); got 0\.2"),
        (([0.0, 1.0, 2.0], [0.0, 0.8, 0.0]), r"q_over_qp must peak at 1 at t/Tp = 1; got a peak "
                                             r"of 0\.8"),
        (([0.0, 2.0, 1.0], [0.0, 1.0, 0.0]), r"t_over_tp must increase strictly; got 1 after 2"),
    ],
)
def test_malformed_user_tables_are_rejected(table, message):
    with pytest.raises(InputError, match=message):
        nrcs_unit_hydrograph(1.0, 1.0, dt_hr=0.05, prf=None, dimensionless=table)


def test_prf_that_contradicts_the_user_table_is_rejected():
    tri = ([0.0, 1.0, 4.0], [0.0, 1.0, 0.0])  # area 2.0 -> PRF 322.7
    with pytest.raises(InputError, match=r"prf must match the user dimensionless table, whose "
                                         r"area implies PRF = 322\.7"):
        nrcs_unit_hydrograph(1.0, 1.0, dt_hr=0.05, prf=484, dimensionless=tri)


# -- helpers and containers --------------------------------------------------------------


def test_lag_tp_and_peak_helpers_follow_the_input_container(container):
    kind, convert = container
    check_container(uhm.lag_hr(convert([0.5, 1.0])), kind, 2)
    check_container(uhm.time_to_peak_hr(convert([0.5, 1.0]), 0.1), kind, 2)
    check_container(uhm.max_dt_hr(convert([0.5, 1.0])), kind, 2)
    check_container(uhm.peak_discharge_cfs(convert([1.0, 2.0]), 1.0, 1.0), kind, 2)
    assert np.ravel(uhm.lag_hr(convert([0.5, 1.0])))[0] == pytest.approx(0.3)


def test_batch_ordinates_equal_the_single_uh_row_by_row():
    areas = np.array([5.0, 40.0, 640.0])
    tcs = np.array([0.1, 0.7, 2.5])
    u = uhm.unit_hydrograph_ordinates(areas, tcs, dt_hr=0.01)
    for j in range(3):
        single = nrcs_unit_hydrograph(areas[j] / 640.0, tcs[j], dt_hr=0.01)
        n = single.flow_cfs.size
        assert_allclose(u[j, :n], single.flow_cfs, rtol=1e-12)
        assert not u[j, n:].any()


@settings(max_examples=40, deadline=None)
@given(area_mi2=st.floats(0.001, 100.0), tc_hr=st.floats(0.1, 10.0),
       frac=st.floats(0.05, 1.0), prf=st.sampled_from([484.0, 284.0, 350.0]))
def test_property_any_resolvable_uh_holds_one_inch_and_is_non_negative(area_mi2, tc_hr, frac,
                                                                        prf):
    dt = frac * uhm.max_dt_hr(tc_hr)
    uh = nrcs_unit_hydrograph(area_mi2, tc_hr, dt_hr=dt, prf=prf)
    assert uh.runoff_in == pytest.approx(1.0, rel=1e-10)
    assert np.all(uh.flow_cfs >= 0.0)
