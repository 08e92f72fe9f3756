"""hydrocalc.storage_estimate: TR-55 Chapter 6 (Fig. 6-1 / Table F-2) storage estimate.

No Chapter 6 worked example could be verified against a stored copy of TR-55, so the tests
check the transcription (Table F-2 typed again), the published factor Vr = 53.33 Q Am, the
shape of Fig. 6-1, containers and every error message.
"""

from __future__ import annotations

import pytest
from conftest import check_container
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc import storage_estimate as se
from hydrocalc.errors import InputError, OutOfRangeError

# Double entry: TR-55 Appendix F, Table F-2 typed again.
F2 = {"I": (0.660, -1.76, 1.96, -0.730), "IA": (0.660, -1.76, 1.96, -0.730),
      "II": (0.682, -1.43, 1.64, -0.804), "III": (0.682, -1.43, 1.64, -0.804)}


@pytest.mark.parametrize("rtype", sorted(F2))
@pytest.mark.parametrize("r", [0.1, 0.25, 0.5, 0.8])
def test_storage_ratio_is_the_table_f2_polynomial(rtype, r):
    c0, c1, c2, c3 = F2[rtype]
    assert_allclose(se.storage_ratio(r, rainfall_type=rtype), c0 + c1 * r + c2 * r**2 + c3 * r**3,
                    rtol=1e-12)


def test_runoff_volume_uses_tr55_factor_53_33():
    # TR-55 Chapter 6: Vr = Q Am 53.33 (640 ac/mi2 / 12 in/ft); printed to 0.01.
    assert_allclose(se.runoff_volume_acft(1.0, 1.0), 53.33, rtol=0, atol=0.005)


def test_estimate_storage_volume_is_ratio_times_runoff_volume():
    vs = se.estimate_storage_volume(300.0, 120.0, 3.28, 0.39, rainfall_type="II")
    expected = se.storage_ratio(0.4) * 53.3333333333 * 3.28 * 0.39
    assert_allclose(vs, expected, rtol=1e-10)


def test_types_i_and_ia_share_a_curve_and_ii_iii_the_other():
    args = (200.0, 100.0, 2.0, 0.5)
    assert (se.estimate_storage_volume(*args, rainfall_type="I")
            == se.estimate_storage_volume(*args, rainfall_type="IA"))
    assert (se.estimate_storage_volume(*args, rainfall_type="II")
            == se.estimate_storage_volume(*args, rainfall_type="type III"))


def test_zero_runoff_needs_no_storage():
    assert se.estimate_storage_volume(100.0, 50.0, 0.0, 1.0) == 0.0


def test_ratio_limits_keyword_extrapolates_deliberately():
    got = se.estimate_storage_volume(100.0, 5.0, 2.0, 1.0, ratio_limits=(0.01, 0.9))
    assert got > se.estimate_storage_volume(100.0, 10.0, 2.0, 1.0)


@settings(deadline=None)
@given(r1=st.floats(0.1, 0.8), r2=st.floats(0.1, 0.8),
       rtype=st.sampled_from(["I", "IA", "II", "III"]))
def test_storage_ratio_decreases_as_allowed_outflow_grows(r1, r2, rtype):
    lo, hi = sorted((r1, r2))
    # 1e-12 absorbs floating-point round-off between arguments one ulp apart.
    assert (se.storage_ratio(hi, rainfall_type=rtype)
            <= se.storage_ratio(lo, rainfall_type=rtype) + 1e-12)


@settings(deadline=None)
@given(r=st.floats(0.1, 0.8), rtype=st.sampled_from(["I", "IA", "II", "III"]))
def test_storage_ratio_is_a_fraction_of_runoff(r, rtype):
    assert 0.0 < se.storage_ratio(r, rainfall_type=rtype) < 1.0


def test_estimate_storage_volume_preserves_container(container):
    kind, conv = container
    got = se.estimate_storage_volume(conv([300.0, 200.0]), conv([150.0, 60.0]), 3.0, 0.5)
    check_container(got, kind, 2)


def test_storage_ratio_preserves_container(container):
    kind, conv = container
    check_container(se.storage_ratio(conv([0.2, 0.5])), kind, 2)


def test_routing_reexports_the_estimate_when_present():
    routing = pytest.importorskip("hydrocalc.hydraulics.routing")
    if not hasattr(routing, "estimate_storage_volume"):
        pytest.skip("hydrocalc.hydraulics.routing does not re-export the estimate yet (issue 4)")
    assert routing.estimate_storage_volume is se.estimate_storage_volume


# --- one test per error message ---------------------------------------------------------------


def test_ratio_outside_fig_6_1_names_range_and_keyword():
    with pytest.raises(OutOfRangeError,
                       match=r"outflow_peak_cfs / inflow_peak_cfs must be in \[0\.1, 0\.8\] "
                             r"\(the range of TR-55 Fig\. 6-1\); got 0\.9\. .*pass "
                             r"ratio_limits="):
        se.estimate_storage_volume(100.0, 90.0, 2.0, 1.0)


def test_ratio_below_fig_6_1_reports_index_and_count():
    with pytest.raises(OutOfRangeError, match=r"got 0\.05 at index 1 \(1 of 2 values invalid\)"):
        se.estimate_storage_volume(100.0, [50.0, 5.0], 2.0, 1.0)


def test_outflow_not_below_inflow_is_rejected():
    with pytest.raises(InputError, match=r"outflow_peak_cfs must be < inflow_peak_cfs; got "
                                         r"120 >= 100\. No detention storage is needed"):
        se.estimate_storage_volume(100.0, 120.0, 2.0, 1.0)


@pytest.mark.parametrize("name", ["inflow_peak_cfs", "outflow_peak_cfs", "area_mi2"])
def test_non_positive_peaks_and_area_are_rejected(name):
    args = {"inflow_peak_cfs": 100.0, "outflow_peak_cfs": 50.0, "runoff_in": 2.0,
            "area_mi2": 1.0, name: 0.0}
    with pytest.raises(InputError, match=rf"{name} must be in \(0, inf\); got 0"):
        se.estimate_storage_volume(**args)


def test_negative_runoff_is_rejected():
    with pytest.raises(InputError, match=r"runoff_in must be in \[0, inf\); got -1"):
        se.estimate_storage_volume(100.0, 50.0, -1.0, 1.0)


def test_unknown_rainfall_type_is_rejected():
    with pytest.raises(InputError, match=r"rainfall_type must be one of 'I', 'IA', 'II', 'III'"
                                         r".*got 'NOAA_C'"):
        se.estimate_storage_volume(100.0, 50.0, 2.0, 1.0, rainfall_type="NOAA_C")


def test_storage_ratio_rejects_ratio_of_one_or_more():
    with pytest.raises(InputError, match=r"qo_over_qi must be in \(0, 1\); got 1"):
        se.storage_ratio(1.0)


def test_bad_ratio_limits_are_rejected():
    with pytest.raises(InputError, match=r"ratio_limits must satisfy 0 < low < high < 1"):
        se.storage_ratio(0.5, ratio_limits=(0.5, 1.5))


def test_ratio_limits_must_be_a_pair():
    with pytest.raises(InputError, match=r"ratio_limits must be a pair \(low, high\)"):
        se.storage_ratio(0.5, ratio_limits=0.8)
