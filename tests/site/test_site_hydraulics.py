"""Site files with ponds in elevations and tailwater (constant or series), end to end."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose
from test_site import BASE

from hydrocalc.analysis import analyze
from hydrocalc.errors import RangeWarning
from hydrocalc.hydraulics.routing import route_reservoir
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.site import check_site, load_site

STAGE_POND = """
[[post.pond]]
id = "P-1"
to = "DP-1"
[post.pond.storage]
type = "basin"
bottom_length_ft = 60
bottom_width_ft = 30
depth_ft = 4
side_slope_h_per_v = 3
[[post.pond.outlet]]
id = "orifice"
type = "circular_orifice"
diameter_in = 6
invert_ft = 0
[[post.pond.outlet]]
id = "weir"
type = "rectangular_weir"
length_ft = 4
crest_ft = 3
"""


def _site(tmp_path, pond_text):
    text = BASE.replace(STAGE_POND.strip(), pond_text.strip())
    assert text != BASE or pond_text.strip() == STAGE_POND.strip()
    path = tmp_path / "site.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _elevation_pond(extra=""):
    head = f'to = "DP-1"\nbottom_elevation_ft = 120.0\n{extra}'
    return STAGE_POND.replace('to = "DP-1"\n', head, 1) \
        .replace("invert_ft = 0", "invert_ft = 120.0").replace("crest_ft = 3", "crest_ft = 123.0")


def _pond_rows(results):
    return results.ponds[(results.ponds.scenario == "post")].set_index("storm")


def test_pond_in_elevations_gives_the_same_route_and_reports_elevations(tmp_path):
    a = analyze(load_site(_site(tmp_path, STAGE_POND)))
    b = analyze(load_site(_site(tmp_path, _elevation_pond())))
    ra, rb = _pond_rows(a), _pond_rows(b)
    assert_allclose(rb.peak_outflow_cfs, ra.peak_outflow_cfs, rtol=1e-9)
    assert_allclose(rb.peak_elevation_ft, ra.peak_stage_ft + 120.0, rtol=1e-12)
    assert (rb.top_elevation_ft == 124.0).all() and ra.peak_elevation_ft.isna().all()
    assert (rb.tailwater == "free").all()


def test_stage_area_table_by_elevation(tmp_path):
    pond = STAGE_POND.replace('''type = "basin"
bottom_length_ft = 60
bottom_width_ft = 30
depth_ft = 4
side_slope_h_per_v = 3''', '''type = "stage_area"
elevation_ft = [120.0, 121.0, 122.0, 123.0, 124.0]
area_ft2 = [1800, 2400, 3100, 3900, 4800]''').replace("invert_ft = 0", "invert_ft = 120.0") \
        .replace("crest_ft = 3", "crest_ft = 123.0")
    site = load_site(_site(tmp_path, pond))
    p = site.scenarios["post"].nodes["P-1"]
    assert p.bottom_elevation_ft == 120.0
    assert p.stage_storage.top_stage_ft == 4.0
    assert [o.invert_ft for o in p.outlets if hasattr(o, "invert_ft")] == [0.0]


def test_constant_and_series_tailwater_route_as_route_reservoir(tmp_path):
    const = _elevation_pond("tailwater_ft = 121.0\n")
    series = _elevation_pond("tailwater_ft = { time_hr = [0, 12, 24], "
                             "elevation_ft = [120.0, 122.5, 120.5] }\n")
    for text, tw in ((const, 1.0), (series, ([0.0, 12.0, 24.0], [0.0, 2.5, 0.5]))):
        site = load_site(_site(tmp_path, text))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RangeWarning)
            res = analyze(site, storms=["10yr"])
            pond = site.scenarios["post"].nodes["P-1"]
            r = res.routing("post", "10yr", "P-1")
            direct = route_reservoir(Hydrograph(r.time_hr, r.inflow_cfs), pond.stage_storage,
                                     pond.structure(), tailwater_ft=tw)
        row = _pond_rows(res).loc["10yr"]
        assert_allclose(row.peak_outflow_cfs, direct.peak_primary_cfs, rtol=1e-9)
        assert_allclose(row.peak_stage_ft, direct.peak_stage_ft, rtol=1e-9)
        assert row.tailwater == ("constant" if tw == 1.0 else "series")
        assert row.peak_tailwater_ft == pytest.approx(121.0 if tw == 1.0 else 122.5)
        assert row.reverse_flow == direct.reverse_flow


@pytest.mark.parametrize("extra, pattern", [
    ("tailwater_ft = 130.0\n", r"post\.pond\[P-1\]\.tailwater_ft must be <= the top of the "
                               r"pond \(124 ft, elevation\); got 130"),
    ("tailwater_ft = { time_hr = [0, 1], elevation_ft = [120] }\n",
     r"tailwater_ft\.elevation_ft must have as many values as time_hr"),
    ("flap_gate = 1\n", r"flap_gate must be true or false"),
])
def test_bad_tailwater_is_one_clear_problem(tmp_path, extra, pattern):
    probs = check_site(_site(tmp_path, _elevation_pond(extra)))
    assert any(re.search(pattern, p) for p in probs), probs


def test_device_below_the_pond_bottom_is_one_clear_problem(tmp_path):
    pond = _elevation_pond().replace("invert_ft = 120.0", "invert_ft = 119.0")
    probs = check_site(_site(tmp_path, pond))
    assert any(re.search(r"outlet\[orifice\]\.invert_ft must be at or above the pond bottom "
                         r"\(elevation 120 ft\); got 119", p) for p in probs), probs


PAIR = """
[[post.pond]]
id = "P-1"
to = "P-2"
bottom_elevation_ft = 120.0
backwater = true
[post.pond.storage]
type = "stage_area"
elevation_ft = [120.0, 121.0, 122.0, 123.0, 124.0]
area_ft2 = [1500, 2000, 2600, 3300, 4100]
[[post.pond.outlet]]
id = "orifice"
type = "circular_orifice"
diameter_in = 12
invert_ft = 120.0
[[post.pond.outlet]]
id = "weir"
type = "rectangular_weir"
length_ft = 4
crest_ft = 122.5

[[post.pond]]
id = "P-2"
to = "DP-1"
[post.pond.storage]
type = "stage_area"
elevation_ft = [119.0, 120.0, 121.0, 122.0, 123.0, 124.0]
area_ft2 = [2500, 3000, 3600, 4300, 5100, 6000]
[[post.pond.outlet]]
id = "orifice"
type = "circular_orifice"
diameter_in = 4
invert_ft = 119.0
[[post.pond.outlet]]
id = "weir"
type = "rectangular_weir"
length_ft = 2
crest_ft = 122.8
"""


def test_backwater_pair_in_a_site_routes_as_route_interconnected(tmp_path):
    from hydrocalc.hydraulics.routing.interconnected import route_interconnected

    site = load_site(_site(tmp_path, PAIR))
    res = analyze(site, storms=["100yr"])
    rows = _pond_rows(res)
    a = site.scenarios["post"].nodes["P-1"]
    b = site.scenarios["post"].nodes["P-2"]
    ra = res.routing("post", "100yr", "P-1")
    rb = res.routing("post", "100yr", "P-2")
    direct = route_interconnected(
        Hydrograph(ra.time_hr, ra.inflow_cfs), a.stage_storage.with_datum(120.0),
        a.structure().shifted(120.0), b.stage_storage.with_datum(119.0),
        b.structure().shifted(119.0),
        inflow_down=Hydrograph(rb.time_hr, np.clip(rb.inflow_cfs - ra.primary_cfs, 0, None)))
    assert_allclose(ra.peak_stage_ft, direct.peak_stage_up_ft, rtol=1e-9)
    assert_allclose(rb.peak_stage_ft, direct.peak_stage_down_ft, rtol=1e-9)
    assert_allclose(rb.peak_outflow_cfs, direct.peak_outflow_down_cfs, rtol=1e-9)
    p1 = rows[rows.pond == "P-1"].iloc[0]
    assert p1.tailwater == "interconnected"
    assert_allclose(p1.peak_tailwater_ft, direct.peak_elevation_down_ft, rtol=1e-9)
    # the downstream level backs up the connecting orifice: less flow than a free outfall
    free = route_reservoir(Hydrograph(ra.time_hr, ra.inflow_cfs), a.stage_storage, a.structure())
    assert ra.peak_stage_ft > free.peak_stage_ft
    # what reaches the design point is the pair's routed outflow plus the other subcatchment
    dp_in = np.asarray(res.hydrograph("post", "100yr", "DP-1", which="inflow").flow_cfs)
    s2 = np.asarray(res.hydrograph("post", "100yr", "S-2").flow_cfs)
    assert_allclose(dp_in, s2 + rb.primary_cfs, rtol=0, atol=1e-9)


def test_backwater_needs_a_pond_downstream_in_elevations(tmp_path):
    text = PAIR.replace('to = "P-2"', 'to = "DP-1"', 1)
    probs = check_site(_site(tmp_path, text))
    want = "backwater needs the pond to discharge into another pond"
    assert any(want in p for p in probs), probs
