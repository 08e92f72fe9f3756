"""Chains of interconnected ponds (``backwater = true`` on several ponds) in a site file."""

from __future__ import annotations

import json
import re
import warnings

import numpy as np
from numpy.testing import assert_allclose
from test_site import BASE
from test_site_hydraulics import STAGE_POND

from hydrocalc.analysis import analyze
from hydrocalc.hydraulics.routing.interconnected import route_interconnected_chain
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.site import check_site, load_site


def _pond(pid, to, bottom, areas, orifice_in, weir_ft, crest, backwater=True):
    elev = [bottom + k for k in range(len(areas))]
    return f"""
[[post.pond]]
id = "{pid}"
to = "{to}"
bottom_elevation_ft = {bottom}
{'backwater = true' if backwater else ''}
[post.pond.storage]
type = "stage_area"
elevation_ft = {elev}
area_ft2 = {areas}
[[post.pond.outlet]]
id = "orifice"
type = "circular_orifice"
diameter_in = {orifice_in}
invert_ft = {bottom}
[[post.pond.outlet]]
id = "weir"
type = "rectangular_weir"
length_ft = {weir_ft}
crest_ft = {crest}
"""


CHAIN = (_pond("P-1", "P-2", 121.0, [1200, 1600, 2100, 2700, 3400], 10, 3, 123.5)
         + _pond("P-2", "P-3", 120.0, [1500, 2000, 2600, 3300, 4100, 5000], 12, 4, 122.5)
         + _pond("P-3", "DP-1", 119.0, [2500, 3000, 3600, 4300, 5100, 6000, 7000], 4, 2,
                 123.0, backwater=False))


def _site(tmp_path, ponds=CHAIN):
    text = BASE.replace(STAGE_POND.strip(), ponds.strip())
    # the second subcatchment drains to the last pond: its own storm fills it from below
    text = text.replace('id = "S-2"\nto = "DP-1"\narea_ac = 0.5\ncn = 61',
                        'id = "S-2"\nto = "P-3"\narea_ac = 3.0\ncn = 90')
    path = tmp_path / "site.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_three_pond_chain_in_a_site_routes_as_route_interconnected_chain(tmp_path):
    site = load_site(_site(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = analyze(site, storms=["100yr"])
    nodes = site.scenarios["post"].nodes
    r = [res.routing("post", "100yr", f"P-{k}") for k in (1, 2, 3)]
    t = r[0].time_hr
    s1 = np.asarray(res.hydrograph("post", "100yr", "S-1").flow_cfs)
    s2 = np.asarray(res.hydrograph("post", "100yr", "S-2").flow_cfs)
    ps = [nodes[f"P-{k}"] for k in (1, 2, 3)]
    direct = route_interconnected_chain(
        [Hydrograph(t, s1), None, Hydrograph(t, s2)],
        [p.stage_storage.with_datum(p.bottom_elevation_ft) for p in ps],
        [p.structure().shifted(p.bottom_elevation_ft) for p in ps])
    for k in range(3):
        assert_allclose(r[k].stage_ft, direct.stage_ft[k], rtol=0, atol=1e-9)
        assert_allclose(r[k].primary_cfs, direct.outflow_cfs[k], rtol=0, atol=1e-9)
        assert abs(r[k].mass_balance_error_pct) < 1e-6
    # each pond's inflow is its local inflow plus the connecting flow from upstream
    assert_allclose(r[1].inflow_cfs, direct.outflow_cfs[0], atol=1e-9)
    assert_allclose(r[2].inflow_cfs, s2 + direct.outflow_cfs[1], atol=1e-9)
    dp_in = np.asarray(res.hydrograph("post", "100yr", "DP-1", which="inflow").flow_cfs)
    assert_allclose(dp_in, r[2].primary_cfs, atol=1e-9)
    rows = res.ponds[res.ponds.scenario == "post"].set_index("pond")
    assert list(rows.loc[["P-1", "P-2", "P-3"], "tailwater"]) == ["interconnected",
                                                                 "interconnected", "free"]
    assert_allclose(rows.loc["P-1", "peak_tailwater_ft"], direct.peak_elevation_ft[1],
                    rtol=1e-9)
    assert_allclose(rows.loc["P-2", "peak_tailwater_ft"], direct.peak_elevation_ft[2],
                    rtol=1e-9)
    assert_allclose(rows.loc["P-2", "peak_elevation_ft"], direct.peak_elevation_ft[1],
                    rtol=1e-9)
    # the storm on the last pond backs water up the chain
    assert direct.reverse_flow[1]
    assert bool(rows.loc["P-2", "reverse_flow"]) and rows.loc["P-2", "peak_reverse_cfs"] > 0.1
    doc = json.loads(res.to_json(hydrographs=False))
    text = json.dumps(doc)
    assert "interconnected" in text and "P-3" in text


def test_a_tree_two_ponds_backing_into_one(tmp_path):
    tree = (_pond("P-1", "P-3", 121.0, [1200, 1600, 2100, 2700, 3400], 10, 3, 123.5)
            + _pond("P-2", "P-3", 120.0, [1500, 2000, 2600, 3300, 4100, 5000], 12, 4, 122.5)
            + _pond("P-3", "DP-1", 119.0, [2500, 3000, 3600, 4300, 5100, 6000, 7000], 4, 2,
                    123.0, backwater=False))
    text = _site(tmp_path, tree).read_text().replace('id = "S-2"\nto = "P-3"',
                                                     'id = "S-2"\nto = "P-2"')
    assert 'to = "P-2"\narea_ac = 3.0' in text
    path = tmp_path / "tree.toml"
    path.write_text(text)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = analyze(load_site(path), storms=["10yr"])
    r3 = res.routing("post", "10yr", "P-3")
    r1, r2 = res.routing("post", "10yr", "P-1"), res.routing("post", "10yr", "P-2")
    assert_allclose(r3.inflow_cfs, r1.primary_cfs + r2.primary_cfs, atol=1e-9)
    for r in (r1, r2, r3):
        assert abs(r.mass_balance_error_pct) < 1e-6


def test_unsupported_backwater_setups_are_clear_problems(tmp_path):
    series = CHAIN.replace('id = "P-3"\nto = "DP-1"\n',
                           'id = "P-3"\nto = "DP-1"\ntailwater_ft = { time_hr = [0, 24], '
                           'elevation_ft = [119.0, 120.0] }\n')
    probs = check_site(_site(tmp_path, series))
    assert any(re.search(r"pond\[P-2\]\.backwater supports a constant tailwater at pond "
                         r"'P-3'; got a series", p) for p in probs), probs
    twins = CHAIN.replace('id = "P-3"\nto = "DP-1"\n', 'id = "P-3"\nto = "DP-1"\ncount = 2\n')
    probs = check_site(_site(tmp_path, twins))
    assert any("pond[P-2].backwater needs single units (count = 1) in 'P-2' and 'P-3'" in p
               for p in probs), probs


def test_report_pond_summary_shows_the_interconnection(tmp_path):
    from hydrocalc.report.sections import pond_summary

    site = load_site(_site(tmp_path))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = analyze(site, storms=["100yr"])
    nodes = site.scenarios["post"].nodes
    p2 = pond_summary(res, "post", nodes["P-2"])
    rows = res.ponds[(res.ponds.scenario == "post")].set_index("pond")
    assert p2.loc[0, "tailwater"] == "interconnected"
    assert_allclose(p2.loc[0, "peak_tailwater_ft"], rows.loc["P-2", "peak_tailwater_ft"])
    assert p2.loc[0, "peak_reverse_cfs"] > 0.1
    assert "tailwater" not in pond_summary(res, "post", nodes["P-3"]).columns


def test_full_analysis_with_reverse_flow_evaluates_every_criterion(tmp_path):
    # the 1-year storm drives flow back up the chain; the Cpv detention time uses the
    # forward flows (reverse flow is not water released downstream)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = analyze(load_site(_site(tmp_path)))
    rows = res.ponds[(res.ponds.scenario == "post")].set_index(["pond", "storm"])
    assert bool(rows.loc[("P-2", "1yr"), "reverse_flow"])
    doc = json.loads(res.to_json(hydrographs=False))
    by_pond = doc["criteria_details"]["cpv:DP-1"]["detention_time_by_pond_hr"]
    assert set(by_pond) == {"P-1", "P-2", "P-3"}
    assert all(v is not None and v > 0 for v in by_pond.values()), by_pond
