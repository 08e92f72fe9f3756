"""A site with a routed reach of a surveyed (user) cross-section analyses end to end."""

from __future__ import annotations

import numpy as np
from numpy.testing import assert_allclose
from test_site_reaches import _write

from hydrocalc.analysis import analyze
from hydrocalc.hydraulics.conveyance import UserSection
from hydrocalc.site import load_site


def test_user_section_geometry_keeps_the_shape_of_its_depths():
    # banks at 2 ft, flat bottom 2 ft wide: at 1 ft deep the water is 6 ft wide, 4 ft2
    s = UserSection(station_ft=(0, 4, 6, 10), elevation_ft=(2, 0, 0, 2))
    assert np.shape(s.area_ft2(1.0)) == ()
    assert_allclose(s.area_ft2(1.0), 4.0, rtol=1e-12)
    assert_allclose(s.top_width_ft(1.0), 6.0, rtol=1e-12)
    assert s.wetted_perimeter_ft(np.ones((2, 3))).shape == (2, 3)
    assert_allclose(s.area_ft2([0.5, 1.0]), [1.5, 4.0], rtol=1e-12)


def test_site_with_a_user_section_reach_is_analysed(tmp_path):
    site = load_site(_write(tmp_path, 'section = "user"\nstation_ft = [0, 4, 6, 10]\n'
                                      'elevation_ft = [2, 0, 0, 2]\nlength_ft = 300\n'
                                      'slope_ftft = 0.005\nn = 0.03'))
    result = analyze(site)
    cmp = result.comparison
    assert list(cmp["storm"]) == ["2yr", "100yr"]
    assert (cmp["post_peak_cfs"] > 0).all() and np.isfinite(cmp["post_peak_cfs"]).all()
    inflow = result.flow_cfs("post", "100yr", "R-1", which="inflow")
    outflow = result.flow_cfs("post", "100yr", "R-1")
    assert 0 < outflow.max() <= inflow.max() * (1 + 1e-9)  # routing does not raise the peak
