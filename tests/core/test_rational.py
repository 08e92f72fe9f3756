"""Rational method: published worked examples, composite C, shipped C table, intensity from a
PFDS table, modified rational hydrograph and storage."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.data import load_table
from hydrocalc.design_storms import read_pfds_csv
from hydrocalc.errors import InputError
from hydrocalc.rational import (
    composite_c,
    intensity_in_hr,
    modified_rational_hydrograph,
    modified_rational_storage,
    rational_peak_cfs,
    runoff_coefficient_range,
)

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "rainfall"


@pytest.mark.parametrize("c, i, a, q", [
    # engineeringprep.com problem 079: 30 ac, 1.25 in/h, C 0.11 -> 4.125 cfs (printed 4.125)
    (0.11, 1.25, 30.0, 4.125),
    # homeworksource.com 978245 (textbook problem 7-3): 0.20 mi2 = 128 ac, C 0.4, 2.87 in/h
    # -> 146.944 cfs (printed to 0.001)
    (0.4, 2.87, 128.0, 146.944),
])
def test_rational_peak_reproduces_worked_examples(c, i, a, q):
    assert_allclose(rational_peak_cfs(c, i, a), q, rtol=0, atol=0.0005)


def test_composite_c_is_the_area_weighted_mean():
    assert composite_c([0.9, 0.3, 0.15], [2.0, 5.0, 3.0]) == pytest.approx(0.375, rel=1e-12)
    with pytest.raises(InputError, match="one value per sub-area"):
        composite_c([0.9], [1.0, 2.0])
    with pytest.raises(InputError, match=r"c must be in \(0, 1\]"):
        composite_c([1.2], [1.0])


def test_shipped_c_table_double_entry():
    # typed again from HEC-22 Table 3-1 as reproduced (see the manifest's transcription)
    assert runoff_coefficient_range("business_downtown") == (0.70, 0.95)
    assert runoff_coefficient_range("lawn_heavy_steep") == (0.25, 0.35)
    assert runoff_coefficient_range("street_concrete") == (0.80, 0.95)
    t = load_table("rational_runoff_coefficients")
    assert (t.c_low < t.c_high).all() and (t.c_low > 0).all() and (t.c_high <= 1).all()
    with pytest.raises(InputError, match="did you mean 'business_downtown'"):
        runoff_coefficient_range("business_downtwn")


def test_intensity_is_depth_over_duration_at_table_durations_and_loglog_between():
    table = read_pfds_csv(FIXTURES / "pfds_pds_utf8_mean_only.csv")
    assert_allclose(intensity_in_hr(table, 10, 1.0), table.depth(10, "60-min") / 1.0, rtol=1e-12)
    d5 = table.depth(10, "5-min")
    d60 = table.depth(10, "60-min")
    t = 0.5
    want = np.exp(np.interp(np.log(t), np.log([5 / 60, 1.0]), np.log([d5, d60]))) / t
    assert_allclose(intensity_in_hr(table, 10, t), want, rtol=1e-12)
    with pytest.raises(InputError, match="duration_hr must be within the table's durations"):
        intensity_in_hr(table, 10, 0.01)


def test_modified_rational_hydrograph_volume_and_shape():
    h = modified_rational_hydrograph(0.6, 5.0, 0.2, 1.0, 3.0, dt_hr=0.01)
    q = 0.6 * 3.0 * 5.0
    assert h.peak_cfs == pytest.approx(q, rel=1e-12)
    assert h.volume_ft3 == pytest.approx(q * 1.0 * 3600.0, rel=1e-9)   # trapezoid area
    with pytest.raises(InputError, match="duration_hr must be >= tc_hr"):
        modified_rational_hydrograph(0.6, 5.0, 0.5, 0.25, 3.0)


def test_modified_rational_storage_equals_the_area_between_the_hydrographs():
    # inflow trapezoid (rise tc, hold to Td, fall tc) minus an outflow rising linearly from 0
    # to Qa over the inflow's duration Td + tc: integrated numerically, independently
    c, a, tc, qa = 0.7, 4.0, 0.25, 3.0

    def idf(d):
        return 2.0 / d**0.6          # a synthetic intensity-duration curve [in/h]

    res = modified_rational_storage(c, a, tc, qa, idf, np.arange(0.25, 3.01, 0.05))
    td = res["critical_duration_hr"]
    h = modified_rational_hydrograph(c, a, tc, td, idf(td), dt_hr=1e-4)
    t, qin = h.time_hr, h.flow_cfs
    qout = qa * t / (td + tc)
    vol = np.trapezoid(qin - qout, t) * 3600.0
    assert_allclose(res["storage_ft3"], vol, rtol=2e-3)
    assert res["storages_ft3"].max() == pytest.approx(res["storage_ft3"])
