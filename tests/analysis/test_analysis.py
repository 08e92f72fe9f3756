"""Site analysis: network flows, ponds, pre/post comparison, criteria rows, JSON determinism.

Reference values are computed independently here with the layer-1/2 functions the analysis
composes (runoff_hydrographs, reach_lag, route_reservoir) or by hand (WQv, RRv); the
analysis must combine them exactly (tolerances are round-off unless stated).
"""

from __future__ import annotations

import dataclasses
import json
import pathlib

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc import analysis
from hydrocalc.analysis import analyze, analyze_many
from hydrocalc.errors import InputError
from hydrocalc.hydraulics import routing
from hydrocalc.hydrograph import Hydrograph, runoff_hydrographs
from hydrocalc.rainfall import design_storm
from hydrocalc.site import load_site

ROOT = pathlib.Path(__file__).parents[2]
SMALL = ROOT / "tests" / "fixtures" / "sites" / "small" / "site.toml"
EXAMPLES = ROOT / "examples"


@pytest.fixture(scope="module")
def small():
    site = load_site(SMALL)
    return site, analyze(site)


@pytest.fixture(scope="module")
def examples():
    return {name: analyze(load_site(EXAMPLES / name / "site.toml"))
            for name in ("shelter_island", "pelham")}


def _storms(site):
    return [design_storm(site.storms.depths_in[n], distribution=site.storms.distribution,
                         dt_hr=site.storms.rain_dt_hr, name=n) for n in site.storms.names]


def test_pre_network_sums_subcatchments_and_lags_the_reach(small):
    site, res = small
    hs = runoff_hydrographs([2.0, 1.0], [70.0, site.pre.nodes["E-2"].cn], [0.4, 0.3],
                            _storms(site), dt_hr=0.02, end_hr=36.0)
    i = site.storms.names.index("10yr")
    e1 = hs.flow_cfs[i, 0]
    e2 = Hydrograph(hs.time_hr, hs.flow_cfs[i, 1]).lagged(0.25).on_time_base(hs.time_hr)
    expected = e1 + e2.flow_cfs
    assert_allclose(res.flow_cfs("pre", "10yr", "DP-1"), expected, rtol=0, atol=1e-9)
    assert_allclose(res.flow_cfs("pre", "10yr", "R-1", which="inflow"), hs.flow_cfs[i, 1],
                    rtol=0, atol=1e-12)


def test_pond_outflow_equals_route_reservoir(small):
    site, res = small
    pond = site.post.nodes["P-1"]
    inflow = Hydrograph(res.time_hr, res.flow_cfs("post", "100yr", "P-1", which="inflow"))
    direct = routing.route_reservoir(inflow, pond.stage_storage, pond.structure())
    assert_allclose(res.flow_cfs("post", "100yr", "P-1"), direct.primary_cfs, rtol=0,
                    atol=1e-9 * direct.peak_outflow_cfs)
    row = res.ponds.set_index(["scenario", "storm", "pond"]).loc[("post", "100yr", "P-1")]
    assert_allclose(row["peak_stage_ft"], direct.peak_stage_ft, rtol=1e-9)
    assert_allclose(row["peak_storage_ft3"], direct.peak_storage_ft3, rtol=1e-9)
    assert_allclose(row["peak_orifice_cfs"], direct.device_flows_cfs["orifice"].max(), rtol=1e-9)
    assert abs(row["mass_balance_error_pct"]) < 1e-6
    rr = res.routing("post", "100yr", "P-1")
    assert_allclose(rr.primary_cfs, direct.primary_cfs, rtol=0, atol=1e-9)


def test_identical_units_share_the_inflow(tmp_path, small):
    site, _ = small
    pond = site.post.nodes["P-1"]
    doubled = site.replace_node("post", "P-1", count=2)
    res2 = analyze(doubled, storms=["100yr"])
    inflow = Hydrograph(res2.time_hr, res2.flow_cfs("post", "100yr", "P-1", which="inflow"))
    half = Hydrograph(inflow.time_hr, inflow.flow_cfs / 2)
    one = routing.route_reservoir(half, pond.stage_storage, pond.structure())
    assert_allclose(res2.flow_cfs("post", "100yr", "P-1"), 2 * one.primary_cfs, rtol=0,
                    atol=1e-9)
    row = res2.ponds.iloc[0]
    assert_allclose(row["peak_storage_ft3"], 2 * one.peak_storage_ft3, rtol=1e-9)


def test_exfiltration_leaves_the_network(examples):
    res = examples["pelham"]
    dt = res.site.options.dt_hr
    for storm in res.storms:
        vin = np.trapezoid(res.flow_cfs("post", storm, "P-1", which="inflow"), dx=dt * 3600)
        vout = np.trapezoid(res.flow_cfs("post", storm, "P-1"), dx=dt * 3600)
        arrays = res.pond_arrays("post", "P-1")
        i = res.storms.index(storm)
        vdisc = np.trapezoid(arrays["discarded_cfs"][i], dx=dt * 3600)
        vend = arrays["storage_ft3"][i, -1]
        assert_allclose(vin, vout + vdisc + vend, rtol=1e-6)
        assert vdisc > 0
    dev = res.devices.set_index(["storm", "device"])
    assert (dev.xs("exfiltration", level="device")["volume_ft3"] > 0).all()


def test_comparison_table_rows_and_columns(small):
    site, res = small
    cmp_ = res.comparison
    assert list(cmp_.columns) == ["design_point", "storm", "precip_in", "pre_peak_cfs",
                                  "post_peak_cfs", "peak_change_cfs", "peak_change_pct",
                                  "pre_volume_ft3", "post_volume_ft3", "volume_change_pct",
                                  "pre_time_of_peak_hr", "post_time_of_peak_hr", "post_le_pre"]
    assert len(cmp_) == len(site.storms.names) * len(site.design_point_ids)
    r = cmp_.iloc[2]
    assert_allclose(r.peak_change_pct, 100 * (r.post_peak_cfs - r.pre_peak_cfs) / r.pre_peak_cfs)
    assert r.post_le_pre == (r.post_peak_cfs <= r.pre_peak_cfs)
    pre = res.hydrograph("pre", r.storm, "DP-1")
    assert_allclose(r.pre_peak_cfs, pre.peak_cfs, rtol=1e-12)
    assert_allclose(r.pre_volume_ft3, pre.volume_ft3, rtol=1e-12)
    assert r.pre_time_of_peak_hr == pre.time_of_peak_hr


def test_node_summaries(small):
    site, res = small
    nodes = res.nodes.set_index(["scenario", "storm", "node"])
    dp = nodes.loc[("post", "10yr", "DP-1")]
    assert dp["kind"] == "design_point"
    assert_allclose(dp["area_ac"], site.post.area_ac, rtol=1e-12)
    assert_allclose(dp["runoff_in"], dp["volume_ft3"] / (dp["area_ac"] * 43560) * 12, rtol=1e-12)
    s1 = nodes.loc[("post", "10yr", "S-1")]
    assert np.isnan(s1["peak_inflow_cfs"])
    for col in ("peak_cfs", "time_of_peak_hr", "volume_ft3", "volume_acft", "runoff_in"):
        assert col in res.nodes.columns


def test_criteria_rows_hand_checked(small):
    site, res = small
    crit = res.criteria.set_index(["criterion", "design_point"])
    # WQv: A = 4.0 ac, I = 25 % -> Rv = 0.275 (>= 0.2: the floor changes nothing);
    # WQv = 1.2 * 0.275 * 4.0 / 12 = 0.11 acre-ft; the pond's orifice is at its bottom -> 0.
    wqv = crit.loc[("wqv", "site")]
    assert_allclose(wqv["required"], 0.11, rtol=1e-12)
    assert wqv["provided"] == 0 and wqv["result"] == "fail"
    # RRv: new impervious 1.0 ac on HSG B, S = 0.40 (unverified table row):
    # 1.2 * 0.95 * 0.40 / 12 = 0.038 acre-ft
    rrv = crit.loc[("rrv", "site")]
    assert_allclose(rrv["required"], 0.038, rtol=1e-12)
    assert "unverified" in rrv["status"] and "unverified" in rrv["method"]
    qp = crit.loc[("qp", "DP-1")]
    cmp_ = res.comparison.set_index(["design_point", "storm"]).loc[("DP-1", "10yr")]
    assert qp["required"] == cmp_["pre_peak_cfs"] and qp["provided"] == cmp_["post_peak_cfs"]
    assert qp["passed"] == bool(cmp_["post_le_pre"])
    assert crit.loc[("qf", "DP-1")]["storm"] == "100yr"
    assert {"cpv", "cpv_orifice", "cpv_detention_time", "qf_safe_passage"} <= set(
        res.criteria["criterion"])
    assert any("RRv: specific reduction factors" in w and "unverified" in w for w in res.warnings)
    assert any(w.startswith("RangeWarning: qo/qi") for w in res.warnings)


@pytest.mark.filterwarnings("ignore:qo/qi")
def test_cpv_values_follow_the_storage_ratio_method(small):
    from hydrocalc.criteria import ny

    site, res = small
    d = res.criteria_details["cpv:DP-1"]
    vs, qo, r = ny.channel_protection_storage(d["inflow_peak_cfs"], d["remaining_volume_ft3"],
                                              rainfall_type="II")
    assert_allclose(d["storage_acft"], vs, rtol=1e-12)
    assert_allclose(d["outflow_peak_cfs"], qo, rtol=1e-12)
    row = res.criteria.set_index("criterion").loc["cpv_orifice"]
    assert row["provided"] == 6.0 and row["result"] == "fail"  # 6-in orifice is too large


def test_waived_and_disabled_criteria(small):
    site, _ = small
    waived = dataclasses.replace(site, criteria=dataclasses.replace(
        site.criteria, waived={"cpv": "direct discharge to tidal water (test)", "qp": "test"}))
    crit = analyze(waived, storms=["1yr", "100yr"]).criteria.set_index("criterion")
    assert crit.loc["cpv", "result"] == "waived" and crit.loc["cpv", "passed"]
    assert "tidal" in crit.loc["cpv", "note"]
    assert crit.loc["qp", "result"] == "waived"
    off = dataclasses.replace(site, criteria=dataclasses.replace(site.criteria, standard="none"))
    assert analyze(off, storms=["1yr"]).criteria.empty


def test_storm_subset_marks_criteria_not_evaluated(small):
    site, _ = small
    res = analyze(site, storms=["2yr"])
    crit = res.criteria.set_index("criterion")
    assert crit.loc["qp", "result"] == "not evaluated"
    assert res.storms == ("2yr",)
    with pytest.raises(InputError, match=r"storm must be one of 1yr, 2yr, 10yr, 100yr; got '5yr'"):
        analyze(site, storms=["5yr"])


def test_json_is_deterministic_and_complete(small, tmp_path):
    site, res = small
    text = res.to_json()
    again = analyze(load_site(SMALL)).to_json()
    assert text == again
    doc = json.loads(text)
    assert doc["format"] == analysis.RESULTS_FORMAT
    assert doc["inputs_sha256"] == site.input_files
    assert "tr55_cn_urban" in doc["data_tables_sha256"]
    assert doc["hydrocalc_version"]
    assert set(doc["hydrographs"]["flow_cfs"]) == {"pre", "post"}
    n_steps = doc["hydrographs"]["n_steps"]
    assert len(doc["hydrographs"]["flow_cfs"]["post"]["10yr"]["DP-1"]) == n_steps
    assert doc["comparison"][0]["pre_peak_cfs"] == pytest.approx(
        res.comparison.iloc[0]["pre_peak_cfs"], rel=1e-9)
    keys = set(doc["nodes"][0])
    assert {"peak_cfs", "time_of_peak_hr", "volume_ft3", "runoff_in"} <= keys
    path = tmp_path / "out" / "results.json"
    res.to_json(path)
    assert path.read_text(encoding="utf-8") == text
    assert "hydrographs" not in json.loads(res.to_json(hydrographs=False))


def test_to_frames_and_atomic_csv(small, tmp_path):
    _, res = small
    frames = res.to_frames()
    assert {"comparison", "criteria", "nodes", "ponds", "devices", "subcatchments",
            "hydrographs_post_10yr"} <= set(frames)
    assert list(frames["hydrographs_pre_1yr"].columns)[:2] == ["time_hr", "E-1_cfs"]
    out = tmp_path / "csv"
    files = res.to_csv(out)
    assert all(f.exists() for f in files)
    (out / "stale.csv").write_text("x\n")
    res.to_csv(out, hydrographs=False)  # replaces the folder as a whole
    assert not (out / "stale.csv").exists()
    assert not any(p.name.startswith(".") for p in tmp_path.iterdir())


def test_summary_rows_for_batch_tables(small):
    _, res = small
    rows = res.summary_rows(scenario="case-3")
    assert len(rows) == len(res.comparison)
    assert set(rows[0]) == {"site", "scenario", "design_point", "storm", "precip_in",
                            "pre_peak_cfs", "post_peak_cfs", "peak_change_pct",
                            "pre_volume_ft3", "post_volume_ft3", "volume_change_pct",
                            "post_le_pre", "wqv_pass", "rrv_pass", "cpv_pass", "qp_pass",
                            "qf_pass", "criteria_pass"}
    assert rows[0]["scenario"] == "case-3" and rows[0]["wqv_pass"] is False
    assert rows[0]["criteria_pass"] is False


def test_analyze_many_equals_analyze_and_shares_work(small):
    site, _ = small
    variants = [site.replace_node("post", "S-2", cn=c) for c in (68.0, 72.0, 76.0)]
    variants.append(site.with_storm_depths(**{"10yr": 5.1}))
    many = analyze_many(variants)
    for v, r in zip(variants, many, strict=True):
        single = analyze(v)
        assert r.to_json(hydrographs=False) == single.to_json(hydrographs=False)
    peaks = [r.comparison.set_index("storm").loc["10yr", "post_peak_cfs"] for r in many[:3]]
    assert peaks[0] < peaks[1] < peaks[2]


def test_analyze_many_collects_errors():
    site = load_site(SMALL)
    bad = dataclasses.replace(site, options=dataclasses.replace(site.options, dt_hr=0.5))
    out = analyze_many([site, bad], storms=["1yr"], errors="collect")
    assert isinstance(out[0], analysis.SiteResults)
    assert isinstance(out[1], InputError)
    with pytest.raises(InputError, match="errors must be 'raise' or 'collect'"):
        analyze_many([site], errors="ignore")


def test_accessors_reject_unknown_names(small):
    _, res = small
    with pytest.raises(InputError, match=r"node must be a node of scenario post; got 'P-9'"):
        res.hydrograph("post", "10yr", "P-9")
    with pytest.raises(InputError, match=r"scenario must be one of pre, post; got 'during'"):
        res.flow_cfs("during", "10yr", "DP-1")
    with pytest.raises(InputError, match=r"pond must be a pond of scenario pre; got 'P-1'"):
        res.routing("pre", "10yr", "P-1")


@pytest.mark.parametrize("name", ["shelter_island", "pelham"])
def test_examples_run_green(examples, name):
    res = examples[name]
    assert res.comparison["post_le_pre"].all()
    crit = res.criteria.set_index("criterion")
    assert bool(crit.loc["qp", "passed"].all()) and bool(crit.loc["qf", "passed"].all())
    assert res.passed
    assert any("illustrative" in w for w in res.warnings)
    assert not res.ponds["overtopped"].any()


def test_shelter_island_infiltrates_the_whole_1yr_runoff(examples):
    res = examples["shelter_island"]
    crit = res.criteria.set_index(["criterion", "design_point"])
    assert crit.loc[("cpv", "DP-1"), "required"] == 0.0
    assert "fully reduced" in crit.loc[("cpv", "DP-1"), "note"]
    ponds = res.ponds.set_index(["storm", "pond"])
    assert (ponds.xs("1yr", level="storm")["peak_outflow_cfs"] == 0).all()


def test_missing_inputs_make_criteria_not_evaluated(small):
    site, _ = small
    no_hsg = site.replace_node("post", "S-1", impervious_hsg=None, covers=())
    res = analyze(no_hsg, storms=["1yr", "10yr", "100yr"])
    rrv = res.criteria.set_index("criterion").loc["rrv"]
    assert rrv["result"] == "not evaluated" and not rrv["passed"]
    assert "impervious_hsg" in rrv["note"]
    noaa = dataclasses.replace(site,
                               storms=dataclasses.replace(site.storms, distribution="NOAA_C"))
    cpv = analyze(noaa, storms=["1yr"]).criteria.set_index("criterion").loc["cpv"]
    assert cpv["result"] == "not evaluated" and "cpv_rainfall_type" in cpv["note"]
    short = site.with_storm_depths()
    short = dataclasses.replace(short, storms=dataclasses.replace(
        short.storms, depths_in={"2yr": 3.2, "100yr": 7.6}))
    qp = analyze(short).criteria.set_index("criterion").loc["qp"]
    assert qp["result"] == "not evaluated" and "is not a design storm of the site" in qp["note"]


def test_results_pickle_for_distributed_workers(small):
    import pickle

    _, res = small
    back = pickle.loads(pickle.dumps(res))
    assert back.to_json(hydrographs=False) == res.to_json(hydrographs=False)
    assert back.devices.equals(res.devices)
