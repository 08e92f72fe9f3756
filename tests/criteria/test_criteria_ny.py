"""NY SMDM unified sizing criteria (hydrocalc.criteria.ny) against computed and hand cases.

Expected values:
* WQv cases ex1-ex3 are the computed test vectors of shared/references/ny_criteria.md
  section 1.8 (tag [D]: derived from SMDM Table 4.1, printed to 6 decimals in acre-ft and
  0.1 ft3); tolerance half a unit of the last printed digit.
* Storage-ratio check values: ny_criteria.md section 1.2, TR-55 Table F-2 polynomial with
  C0 = 0.682, printed to 4 decimals.
* Everything else is hand arithmetic shown in the test.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc.criteria import ny
from hydrocalc.errors import InputError, OutOfRangeError, RangeWarning

# ny_criteria.md section 1.8: case, P_in, I_pct, A_ac, Rv, WQv_acft, WQv_cf, Rv floor,
# WQv_acft floor, WQv_cf floor
CASES = [
    ("ex1", 1.0, 50, 1.0, 0.50, 0.041667, 1815.0, 0.50, 0.041667, 1815.0),
    ("ex2", 1.0, 10, 2.0, 0.14, 0.023333, 1016.4, 0.20, 0.033333, 1452.0),
    ("ex3", 1.2, 100, 0.5, 0.95, 0.047500, 2069.1, 0.95, 0.047500, 2069.1),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_wqv_matches_ny_criteria_computed_cases(case):
    _, p, i, a, rv, wqv, wqv_cf, rv_floor, wqv_floor, wqv_cf_floor = case
    assert_allclose(ny.runoff_coefficient(i), rv, rtol=0, atol=0.005)
    assert_allclose(ny.water_quality_volume(p, i, a), wqv, rtol=0, atol=5e-7)
    assert_allclose(ny.water_quality_volume(p, i, a) * 43560, wqv_cf, rtol=0, atol=0.05)
    assert_allclose(ny.water_quality_volume(p, i, a, min_rv=0.2), wqv_floor, rtol=0, atol=5e-7)
    assert_allclose(ny.water_quality_volume(p, i, a, min_rv=0.2) * 43560, wqv_cf_floor,
                    rtol=0, atol=0.05)
    assert max(ny.runoff_coefficient(i), 0.2) == pytest.approx(rv_floor, abs=0.005)


def test_wqv_equals_the_3630_cubic_foot_form():
    # Westchester SWPPP sheet: WQv [cf] = 3630 P (0.05 A + 0.9 Ai), identical to Table 4.1
    p, a, ai = 1.3, 2.7, 0.9
    cf = 3630 * p * (0.05 * a + 0.9 * ai)
    assert_allclose(ny.water_quality_volume(p, 100 * ai / a, a) * 43560, cf, rtol=1e-12)


@pytest.mark.filterwarnings("ignore:impervious_pct looks like a fraction")
@given(i=st.floats(0, 100), p=st.floats(0.1, 3), a=st.floats(0.01, 100))
def test_wqv_grows_with_imperviousness_and_floor_never_lowers(i, p, a):
    base = ny.water_quality_volume(p, i, a)
    assert ny.water_quality_volume(p, min(i + 1.0, 100.0), a) >= base
    assert ny.water_quality_volume(p, i, a, min_rv=0.2) >= base - 1e-15


CONTAINERS = {"float": lambda v: v[0], "list": list, "ndarray": np.asarray,
              "series": lambda v: pd.Series(v, index=pd.RangeIndex(5, 5 + len(v)))}


@pytest.mark.parametrize("kind", CONTAINERS)
def test_wqv_container_follows_input(kind):
    imp = CONTAINERS[kind]([10.0, 50.0, 90.0])
    got = ny.water_quality_volume(1.2, imp, 2.0)
    if kind == "float":
        assert isinstance(got, float)
    elif kind == "series":
        assert isinstance(got, pd.Series) and list(got.index) == [5, 6, 7]
    else:
        assert isinstance(got, np.ndarray) and got.shape == (3,)


def test_wqv_rejects_bad_inputs():
    with pytest.raises(InputError, match=r"impervious_pct must be in \[0, 100\]; got 120"):
        ny.water_quality_volume(1.0, 120, 1.0)
    with pytest.raises(InputError, match=r"area_ac must be in \(0, inf\); got 0"):
        ny.water_quality_volume(1.0, 50, 0.0)
    with pytest.raises(InputError, match=r"precip_in must be in \[0, inf\); got -1"):
        ny.water_quality_volume(-1.0, 50, 1.0)
    with pytest.raises(InputError, match=r"min_rv must be in \[0, 1\]; got 2"):
        ny.water_quality_volume(1.0, 50, 1.0, min_rv=2)


def test_runoff_coefficient_warns_on_fractions():
    with pytest.warns(UserWarning, match="looks like a fraction"):
        ny.runoff_coefficient([0.2, 0.5])


def test_minimum_rv_rule_options():
    assert ny.minimum_rv_applies("if_wqv_exceeds_rrv", 0.05, 0.01) is True
    assert ny.minimum_rv_applies("if_wqv_exceeds_rrv", 0.05, 0.05) is False
    assert ny.minimum_rv_applies("always", 0.0, 1.0) is True
    assert ny.minimum_rv_applies("never", 1.0, 0.0) is False
    with pytest.raises(InputError, match=r"min_rv_rule must be one of .*; got 'allways'; "
                                         r"did you mean 'always'"):
        ny.minimum_rv_applies("allways", 1.0, 0.0)


def test_minimum_rrv_hand_case():
    # P = 1.3 in, Aic = 0.8 ac on HSG B (S = 0.40): Ai = 0.32 ac,
    # RRv = 1.3 * 0.95 * 0.32 / 12 = 0.032933 acre-ft
    assert_allclose(ny.minimum_runoff_reduction_volume(1.3, 0.8, 0.40), 0.0329333,
                    rtol=0, atol=5e-8)
    assert ny.minimum_runoff_reduction_volume(1.3, 0.0, 0.40) == 0.0
    with pytest.raises(InputError,
                       match=r"specific_reduction_factor must be in \[0, 1\]; got 1.5"):
        ny.minimum_runoff_reduction_volume(1.3, 0.8, 1.5)


def test_specific_reduction_factors_are_shipped_as_unverified():
    f = ny.specific_reduction_factors()
    assert f["factors"] == {"A": 0.55, "B": 0.40, "C": 0.30, "D": 0.20}
    assert f["status"] == "unverified"
    assert "Design Manual" in f["source"]
    f["factors"]["A"] = 0.0  # a copy: the cache is not modified
    assert ny.specific_reduction_factors()["factors"]["A"] == 0.55
    with pytest.raises(InputError,
                       match=r"rrv_factors must be a key of table "
                             r"ny_rrv_specific_reduction_factors; got 'smdm_2015'; "
                             r"did you mean 'smdm_2015_unverified'"):
        ny.specific_reduction_factors("smdm_2015")


def test_criteria_table_carries_source_and_status():
    table = ny.criteria_table().set_index("key")
    assert list(table.index) == ["wqv", "wqv_min_rv", "rrv", "cpv", "qp", "qf"]
    assert table.loc["rrv", "status"].startswith("unverified")
    assert "interpretation unverified" in table.loc["wqv_min_rv", "status"]
    assert table.loc["qp", "design_event"] == "10-year 24-hour"
    assert table.loc["qf", "design_event"] == "100-year 24-hour"
    assert all(table["source"].str.contains("Design Manual"))
    assert ny.criteria_info("cpv")["units"] == "acre-ft"
    with pytest.raises(InputError, match=r"criterion must be one of .*; got 'wqvv'"):
        ny.criteria_info("wqvv")


@pytest.mark.parametrize("r, ratio",
                         [(0.02, 0.6540), (0.05, 0.6145), (0.10, 0.5546), (0.20, 0.4552)])
def test_cpv_storage_solves_both_equations(r, ratio):
    # Choose Vr so that the 24-h release gives qo/qi = r for qi = 1 cfs: qo = ratio Vr / 86400
    # must equal r, i.e. Vr = r 86400 / ratio (ratio: ny_criteria.md 1.2, C0 = 0.682).
    qi = 1.0
    vr_ft3 = r * 86400 / ratio
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        vs_acft, qo, got_r = ny.channel_protection_storage(qi, vr_ft3, rainfall_type="III")
    assert_allclose(got_r, r, rtol=0, atol=1e-4)
    assert_allclose(vs_acft * 43560 / vr_ft3, ratio, rtol=0, atol=5e-5)
    assert_allclose(qo * 24 * 3600, vs_acft * 43560, rtol=1e-12)


def test_cpv_storage_warns_below_the_fig_6_1_range_and_handles_zero_volume():
    with pytest.warns(RangeWarning, match="below 0.1"):
        ny.channel_protection_storage(5.0, 10000.0)
    vs, qo, r = ny.channel_protection_storage(5.0, 0.0)
    assert vs == 0.0 and qo == 0.0 and r == 0.0


def test_cpv_storage_refuses_a_flat_hydrograph():
    with pytest.raises(OutOfRangeError, match=r"qo/qi > 0.8"):
        ny.channel_protection_storage(0.01, 1.0e6)


def test_cpv_storage_rejects_bad_inputs():
    with pytest.raises(InputError, match=r"inflow_peak_cfs must be in \(0, inf\); got 0"):
        ny.channel_protection_storage(0.0, 100.0)
    with pytest.raises(InputError, match=r"detention_hr must be in \(0, inf\); got 0"):
        ny.channel_protection_storage(1.0, 100.0, detention_hr=0)


def test_orifice_diameter_matches_the_md_4_81_form():
    # MD App. D.11: Ao = qo / (4.81 ho^0.5) with Cd = 0.6 (4.81 = 0.6 sqrt(64.4) = 4.815)
    qo, ho = 0.25, 3.0
    ao = qo / (4.81 * math.sqrt(ho))
    d_in = 12 * math.sqrt(4 * ao / math.pi)
    # 4.81 is printed to 3 digits (exact 4.8150): diameters agree within 0.1 %
    assert_allclose(ny.orifice_diameter_in(qo, ho), d_in, rtol=1e-3)
    assert ny.orifice_diameter_in(0.0, 2.0) == 0.0
    with pytest.raises(InputError, match=r"head_ft must be in \(0, inf\); got 0"):
        ny.orifice_diameter_in(0.1, 0.0)


def test_centroid_detention_time_hand_case():
    t = np.arange(0.0, 50.0, 1.0)
    qi = np.where(t == 2, 10.0, 0.0)
    qo = np.where((t >= 20) & (t <= 32), 1.0, 0.0)
    assert ny.centroid_detention_time_hr(t, qi, qo) == pytest.approx(26.0 - 2.0)
    assert math.isnan(ny.centroid_detention_time_hr(t, qi, np.zeros_like(t)))
    with pytest.raises(InputError, match="must be 1-D of equal length"):
        ny.centroid_detention_time_hr(t, qi, qo[:-1])


def test_peak_not_increased():
    assert ny.peak_not_increased(2.0, 2.0) is True
    assert ny.peak_not_increased(2.0, 2.0001) is False
    assert ny.peak_not_increased(2.0, 2.0001, tolerance_cfs=0.001) is True
    assert ny.peak_not_increased([1.0, 2.0], [0.5, 3.0]).tolist() == [True, False]
