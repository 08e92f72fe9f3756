"""hydrocalc.peak against TR-55 Chapter 4 / Appendix F (Tables 4-2, F-1) and the SI graphical
peak example of Ponce (1989) Example 5-9; properties, containers and every error message."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from conftest import check_container, load_reference
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc import peak
from hydrocalc.errors import InputError, OutOfRangeError, RangeWarning
from hydrocalc.runoff import initial_abstraction, runoff_depth
from hydrocalc.units import M3_PER_FT3

PONCE = load_reference("ponce_example_5_9.csv").iloc[0]
KM2_PER_MI2 = 1.609344**2  # international mile, exact
CM_PER_IN = 2.54  # exact


# --- Published examples and tables -----------------------------------------------------------


def test_graphical_peak_reproduces_ponce_example_5_9_in_si_units():
    # Convert the SI inputs exactly to TR-55's US units, compute, convert back.
    area_mi2 = PONCE.area_km2 / KM2_PER_MI2
    precip_in = PONCE.precip_cm / CM_PER_IN
    ia_over_p = initial_abstraction(PONCE.cn) / precip_in
    assert_allclose(ia_over_p, PONCE.ia_over_p, rtol=0, atol=0.0005)  # printed 0.198
    qp_cfs = peak.graphical_peak_discharge(area_mi2, PONCE.cn, PONCE.tc_hr, precip_in,
                                           rainfall_type=PONCE.rainfall_type,
                                           pond_swamp_pct=PONCE.pond_swamp_pct)
    # Published 12.09 m3/s was read from the TR-55 exhibits: 1.5 % (see the reference header).
    assert_allclose(qp_cfs * M3_PER_FT3, PONCE.peak_m3s, rtol=0.015, atol=0)


@pytest.mark.parametrize(
    ("pct", "fp"),
    # Double entry: TR-55 Table 4-2 typed again.
    [(0.0, 1.00), (0.2, 0.97), (1.0, 0.87), (3.0, 0.75), (5.0, 0.72)],
)
def test_pond_swamp_factor_reproduces_table_4_2(pct, fp):
    assert peak.pond_swamp_factor(pct) == fp
    assert peak.pond_swamp_factor(pct, method="nearest") == fp


def test_pond_swamp_factor_between_rows():
    assert_allclose(peak.pond_swamp_factor(2.0), (0.87 + 0.75) / 2, rtol=1e-12)
    assert peak.pond_swamp_factor(2.1, method="nearest") == 0.75
    assert peak.pond_swamp_factor(0.5, method="nearest") == 0.97


@pytest.mark.parametrize(
    ("rtype", "iap", "c0", "c1", "c2"),
    # Double entry: TR-55 Appendix F Table F-1 rows typed again.
    [("I", 0.10, 2.30550, -0.51429, -0.11750), ("I", 0.50, 1.67889, -0.06930, 0.00000),
     ("IA", 0.30, 1.72657, -0.19826, 0.02633), ("II", 0.10, 2.55323, -0.61512, -0.16403),
     ("II", 0.40, 2.36409, -0.59857, -0.05621), ("III", 0.50, 2.17772, -0.36803, -0.09525)],
)
def test_unit_peak_discharge_at_table_f1_rows(rtype, iap, c0, c1, c2):
    tc_hr = np.array([0.1, 0.3, 1.0, 3.0, 10.0])
    x = np.log10(tc_hr)
    expected = 10 ** (c0 + c1 * x + c2 * x**2)
    got = peak.unit_peak_discharge(tc_hr, iap, rainfall_type=rtype)
    assert_allclose(got, expected, rtol=1e-12)


def test_unit_peak_between_rows_interpolates_log_qu_linearly():
    # Documented convention: coefficients (== log10 qu) linear in Ia/P between rows, so the
    # midpoint value is the geometric mean of the two row values.
    lo = peak.unit_peak_discharge(1.5, 0.10)
    hi = peak.unit_peak_discharge(1.5, 0.30)
    mid = peak.unit_peak_discharge(1.5, 0.20)
    assert_allclose(mid, np.sqrt(lo * hi), rtol=1e-12)
    # and it differs from interpolating qu itself by well under 1 %:
    assert 0 < (lo + hi) / 2 / mid - 1 < 0.01


def test_graphical_peak_is_qu_am_q_fp():
    # Eq. 4-1 identity with the Worksheet 4 intermediate lines.
    ws = peak.graphical_peak_worksheet(0.39, 75, 1.53, 6.0, pond_swamp_pct=0.2)
    row = ws.iloc[0]
    assert_allclose(row.ia_in, 0.667, rtol=0, atol=0.0005)  # Table 4-1, CN 75
    assert_allclose(row.runoff_in, runoff_depth(6.0, 75), rtol=1e-12)
    assert_allclose(row.unit_peak_csm_in, peak.unit_peak_discharge(1.53, row.ia_over_p),
                    rtol=1e-12)
    assert row.fp == 0.97
    assert_allclose(row.peak_cfs, row.unit_peak_csm_in * 0.39 * row.runoff_in * 0.97,
                    rtol=1e-12)
    assert_allclose(row.peak_cfs,
                    peak.graphical_peak_discharge(0.39, 75, 1.53, 6.0, pond_swamp_pct=0.2),
                    rtol=1e-12)


def test_worksheet_follows_series_index():
    area = pd.Series([0.39, 0.5], index=["DA-1", "DA-2"])
    ws = peak.graphical_peak_worksheet(area, 75, 1.0, 6.0)
    assert list(ws.index) == ["DA-1", "DA-2"]


def test_no_runoff_gives_zero_peak_without_warning():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert peak.graphical_peak_discharge(1.0, 60, 1.0, 1.0) == 0.0  # P < Ia = 1.333
        assert peak.graphical_peak_discharge(1.0, 60, 1.0, 0.0) == 0.0


def test_rainfall_type_spellings():
    base = peak.unit_peak_discharge(1.0, 0.3, rainfall_type="II")
    for spelling in ("ii", "Type II", "type_ii", "TYPE-II"):
        assert peak.unit_peak_discharge(1.0, 0.3, rainfall_type=spelling) == base
    types = peak.unit_peak_discharge(1.0, 0.3, rainfall_type=["I", "IA", "II", "III"])
    assert len(set(types)) == 4


def test_tc_limits_keyword_extrapolates_deliberately():
    got = peak.unit_peak_discharge(0.05, 0.3, tc_limits_hr=(0.01, 10))
    assert got > peak.unit_peak_discharge(0.1, 0.3)


def test_cn_limits_keyword_allows_cn_100():
    with pytest.warns(RangeWarning):
        qp = peak.graphical_peak_discharge(0.1, 100, 0.5, 3.0, cn_limits=(40, 100))
    assert_allclose(qp, peak.unit_peak_discharge(0.5, 0.10) * 0.1 * 3.0, rtol=1e-12)


# --- Ia/P outside Table F-1: limiting row + RangeWarning ----------------------------------------


def test_ia_over_p_below_table_uses_limiting_row_with_counting_warning():
    with pytest.warns(RangeWarning, match=r"ia_over_p outside the Table F-1 rows \(type II: "
                                          r"0\.1-0\.5\) for 2 of 3 values; the limiting row"):
        got = peak.unit_peak_discharge(1.0, [0.05, 0.0, 0.3])
    row = peak.unit_peak_discharge(1.0, 0.10)
    assert_allclose(got[:2], row, rtol=1e-12)


def test_ia_over_p_above_table_uses_limiting_row():
    with pytest.warns(RangeWarning, match=r"for 1 of 1 values"):
        got = peak.unit_peak_discharge(1.0, 0.7, rainfall_type="IA")
    assert_allclose(got, peak.unit_peak_discharge(1.0, 0.5, rainfall_type="IA"), rtol=1e-12)


def test_graphical_peak_warns_only_where_runoff_occurs():
    # CN 98 at P = 6 in: Ia/P = 0.007 < 0.1 (runoff) -> warns; CN 60 at P = 2 in: Ia/P = 0.67
    # with Q > 0 -> warns; CN 60 at P = 1 in: Q = 0 -> no warning for that element.
    with pytest.warns(RangeWarning, match=r"for 2 of 3 values"):
        peak.graphical_peak_discharge(1.0, [98, 60, 60], 1.0, [6.0, 2.0, 1.0])


# --- properties ---------------------------------------------------------------------------------


@settings(deadline=None)
@given(t1=st.floats(0.1, 10), t2=st.floats(0.1, 10), iap=st.floats(0.1, 0.5),
       rtype=st.sampled_from(["I", "IA", "II", "III"]))
def test_unit_peak_discharge_decreases_with_tc(t1, t2, iap, rtype):
    lo, hi = sorted((t1, t2))
    assert (peak.unit_peak_discharge(hi, iap, rainfall_type=rtype)
            <= peak.unit_peak_discharge(lo, iap, rainfall_type=rtype) * (1 + 1e-12))


@settings(deadline=None)
@given(i1=st.floats(0.1, 0.5), i2=st.floats(0.1, 0.5), tc_hr=st.floats(0.1, 10),
       rtype=st.sampled_from(["I", "IA", "II", "III"]))
def test_unit_peak_discharge_decreases_with_ia_over_p(i1, i2, tc_hr, rtype):
    lo, hi = sorted((i1, i2))
    assert (peak.unit_peak_discharge(tc_hr, hi, rainfall_type=rtype)
            <= peak.unit_peak_discharge(tc_hr, lo, rainfall_type=rtype) * (1 + 1e-12))


@pytest.mark.filterwarnings("ignore::hydrocalc.errors.RangeWarning")
@settings(deadline=None)
@given(p1=st.floats(0.5, 20), p2=st.floats(0.5, 20), cn=st.floats(40, 98),
       tc_hr=st.floats(0.1, 10))
def test_graphical_peak_grows_with_rainfall(p1, p2, cn, tc_hr):
    lo, hi = sorted((p1, p2))
    assert (peak.graphical_peak_discharge(1.0, cn, tc_hr, lo)
            <= peak.graphical_peak_discharge(1.0, cn, tc_hr, hi) * (1 + 1e-12))


@settings(deadline=None)
@given(a1=st.floats(0, 5), a2=st.floats(0, 5))
def test_pond_swamp_factor_decreases_with_pond_area(a1, a2):
    lo, hi = sorted((a1, a2))
    assert peak.pond_swamp_factor(hi) <= peak.pond_swamp_factor(lo)


# --- containers ---------------------------------------------------------------------------------


def test_unit_peak_discharge_preserves_container(container):
    kind, conv = container
    check_container(peak.unit_peak_discharge(conv([0.5, 1.5]), conv([0.2, 0.3])), kind, 2)


def test_graphical_peak_discharge_preserves_container(container):
    kind, conv = container
    got = peak.graphical_peak_discharge(conv([0.39, 1.0]), conv([75.0, 70.0]), 1.53, 6.0)
    check_container(got, kind, 2)


def test_pond_swamp_factor_preserves_container(container):
    kind, conv = container
    check_container(peak.pond_swamp_factor(conv([0.5, 2.0])), kind, 2)


# --- one test per error message -----------------------------------------------------------------


def test_tc_outside_method_range_names_limit_and_keyword():
    with pytest.raises(OutOfRangeError,
                       match=r"tc_hr must be in \[0\.1, 10\] h for the TR-55 graphical method "
                             r"\(TR-55 Chapter 4 limitations: Tc 0\.1-10 h\); got 12\. .*pass "
                             r"tc_limits_hr="):
        peak.unit_peak_discharge(12.0, 0.3)


def test_tc_below_range_reports_index_and_count():
    with pytest.raises(OutOfRangeError, match=r"got 0\.05 at index 1 \(1 of 2 values invalid\)"):
        peak.graphical_peak_discharge(1.0, 75, [1.0, 0.05], 5.0)


def test_tc_must_be_positive():
    with pytest.raises(InputError, match=r"tc_hr must be in \(0, inf\); got 0"):
        peak.unit_peak_discharge(0.0, 0.3)


def test_ia_over_p_must_be_non_negative():
    with pytest.raises(InputError, match=r"ia_over_p must be in \[0, inf\); got -0\.1"):
        peak.unit_peak_discharge(1.0, -0.1)


def test_unknown_rainfall_type_suggests():
    with pytest.raises(InputError, match=r"rainfall_type must be one of 'I', 'IA', 'II', 'III' "
                                         r"\(the NRCS 24-hour types of TR-55 Tables F-1 and "
                                         r"F-2\); got 'IIII'; did you mean"):
        peak.unit_peak_discharge(1.0, 0.3, rainfall_type="IIII")


def test_bad_tc_limits_are_rejected():
    with pytest.raises(InputError, match=r"tc_limits_hr must satisfy 0 < low < high < inf"):
        peak.unit_peak_discharge(1.0, 0.3, tc_limits_hr=(5, 1))


def test_tc_limits_must_be_a_pair():
    with pytest.raises(InputError, match=r"tc_limits_hr must be a pair \(low, high\)"):
        peak.unit_peak_discharge(1.0, 0.3, tc_limits_hr=10)


def test_cn_outside_method_range_names_limit_and_keyword():
    with pytest.raises(OutOfRangeError,
                       match=r"cn must be in \[40, 98\] for the TR-55 graphical method .*got 35"
                             r".*pass cn_limits="):
        peak.graphical_peak_discharge(1.0, 35, 1.0, 5.0)


def test_cn_above_100_is_an_input_error():
    with pytest.raises(InputError, match=r"cn must be in \(0, 100\]; got 104"):
        peak.graphical_peak_discharge(1.0, 104, 1.0, 5.0)


def test_area_must_be_positive():
    with pytest.raises(InputError, match=r"area_mi2 must be in \(0, inf\); got 0"):
        peak.graphical_peak_discharge(0.0, 75, 1.0, 5.0)


def test_rain_must_not_be_negative_or_nan():
    with pytest.raises(InputError, match=r"precip_in must be in \[0, inf\); got nan"):
        peak.graphical_peak_discharge(1.0, 75, 1.0, float("nan"))


def test_pond_swamp_above_5_pct_is_out_of_range():
    with pytest.raises(OutOfRangeError,
                       match=r"pond_swamp_pct must be <= 5 % \(TR-55 Table 4-2 gives no Fp "
                             r"above 5 %\); got 7\. Route the ponds"):
        peak.graphical_peak_discharge(1.0, 75, 1.0, 5.0, pond_swamp_pct=7.0)


def test_pond_swamp_must_not_be_negative():
    with pytest.raises(InputError, match=r"pond_swamp_pct must be in \[0, inf\); got -1"):
        peak.pond_swamp_factor(-1.0)


def test_pond_swamp_factor_method_must_be_known():
    with pytest.raises(InputError, match=r"method must be 'linear' or 'nearest'; got 'lineer'"):
        peak.pond_swamp_factor(1.0, method="lineer")


def test_docs_tour_runs():
    # docs/tr55_core.md promises a runnable example; keep it runnable.
    import pathlib
    import re

    doc = pathlib.Path(__file__).resolve().parents[2] / "docs" / "tr55_core.md"
    if not doc.is_file():
        pytest.skip("docs/tr55_core.md is not present")
    code = re.findall(r"```python\n(.*?)```", doc.read_text(encoding="utf-8"), re.S)[0]
    namespace: dict = {}
    exec(compile(code, str(doc), "exec"), namespace)  # noqa: S102 - our own documentation
    assert_allclose(namespace["tc_hr"], 1.53, rtol=0, atol=0.005)
    assert_allclose(namespace["q_in"], 3.28, rtol=0, atol=0.005)


def test_overflowing_peak_is_an_error_not_inf():
    with pytest.raises(InputError, match="overflowed to a non-finite peak at index 0; check"):
        peak.graphical_peak_discharge(1e308, 80, 1.0, 5.0)
