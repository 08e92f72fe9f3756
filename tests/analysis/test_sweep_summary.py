"""The summary mode of analyze_many (hydrocalc.analysis.summary) against analyze(), and its
explicit fallback to the full analysis, also inside batch runs."""

from __future__ import annotations

import json
import math
import pathlib

import numpy as np
import pytest
from click.testing import CliRunner

from hydrocalc import batch
from hydrocalc.analysis import analyze, analyze_many
from hydrocalc.analysis import summary as sweep_summary
from hydrocalc.batch.sweep import load_sweep
from hydrocalc.cli import main

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"
PELHAM = pathlib.Path(__file__).parents[2] / "examples" / "sweeps" / "pelham_sweep.toml"


def _summary(sites, arrays=True):
    """``analyze_many(sites, detail="summary")``, asserting the path every site took."""
    rows = analyze_many(sites, detail="summary")
    if arrays:
        assert rows.paths["summary_arrays"] == len(sites), rows.paths
    return rows


def _assert_rows_equal(got: list[dict], want: list[dict], rtol=1e-9):
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert list(a) == list(b)
        for k, y in b.items():
            x = a[k]
            if isinstance(y, float) and not isinstance(y, bool):
                if math.isnan(y) or math.isinf(y):
                    assert x == y or (math.isnan(x) and math.isnan(y)), k
                else:
                    assert abs(x - y) <= rtol * max(abs(y), 1e-12), (k, x, y)
            else:
                assert x == y, (k, x, y)


@pytest.mark.parametrize("first", [0, 37, 4_975, 9_990])
def test_pelham_blocks_equal_analyze_per_scenario(first):
    sw = load_sweep(PELHAM)
    idx = list(range(first, min(first + 10, sw.n_scenarios)))
    sites = [sw.scenario(i) for i in idx]
    assert sweep_summary.unsupported_reason(sites[0], sites[0].storms.names) is None
    rows = _summary(sites)
    for site, got in zip(sites, rows, strict=True):
        _assert_rows_equal(got, analyze(site).summary_rows())


def test_mixed_storm_depths_and_cpv_equal_analyze():
    # sweep_small varies the storm depths (two groups in one block) and evaluates Cpv, which
    # reads pond series and the unrouted runoff through the block's arrays
    sw = load_sweep(FIX / "sweep_small.toml")
    sites = [sw.scenario(i) for i in range(sw.n_scenarios)]
    assert not sites[0].criteria.waived.get("cpv")
    rows = _summary(sites)
    for site, got in zip(sites, rows, strict=True):
        want = analyze(site).summary_rows()
        _assert_rows_equal(got, want)
        assert any(r["cpv_pass"] is not None for r in got)


def test_reaches_are_not_expressed_and_say_why():
    sw = load_sweep(FIX / "sweep_lot_b.toml")
    site = sw.scenario(0)
    why = sweep_summary.unsupported_reason(site, site.storms.names)
    assert why is not None and "reach" in why
    rows = analyze_many([site], detail="summary")
    assert rows.paths["full_analysis"] == 1 and "reach" in next(iter(rows.paths["reasons"]))
    _assert_rows_equal(rows[0], analyze(site).summary_rows())


def test_the_criteria_view_refuses_what_it_does_not_keep():
    run = sweep_summary._VariantRun(0, {}, {}, {}, [], {})
    with pytest.raises(sweep_summary.Unsupported, match="outflow"):
        run.outflow  # noqa: B018 - the full node array is not kept


def test_batch_counts_paths_and_equals_the_full_analysis(tmp_path):
    fast = batch.run_batch([FIX / "sweep_small.toml", FIX / "sweep_lot_b.toml"],
                           out_dir=tmp_path / "fast", scheduler="synchronous", chunk_size=10,
                           progress=False)
    full = batch.run_batch([FIX / "sweep_small.toml", FIX / "sweep_lot_b.toml"],
                           scheduler="synchronous", chunk_size=10, progress=False,
                           summary_arrays=False)
    assert fast.ok and full.ok
    assert fast.paths["summary_arrays"] == 24 and fast.paths["full_analysis"] == 3
    (why, n), = fast.paths["reasons"].items()
    assert n == 3 and "reach" in why
    assert full.paths["summary_arrays"] == 0 and full.paths["full_analysis"] == 27
    a, b = fast.summary, full.summary
    assert list(a.columns) == list(b.columns) and len(a) == len(b)
    for c in a.columns:
        if a[c].dtype.kind == "f":
            np.testing.assert_allclose(a[c], b[c], rtol=1e-9, atol=1e-12, equal_nan=True,
                                       err_msg=c)
        else:
            assert a[c].astype(object).tolist() == b[c].astype(object).tolist(), c
    meta = json.loads((tmp_path / "fast" / "batch.json").read_text())
    assert meta["sweep_paths"]["summary_arrays"] == 24
    assert "full analysis for 3" in fast.describe()


def test_a_failure_in_the_summary_arrays_falls_back_and_is_reported(monkeypatch):
    def broken(sites, names, engine="numpy"):
        raise RuntimeError("deliberate")

    monkeypatch.setattr(sweep_summary, "_group_rows", broken)
    res = batch.run_batch([FIX / "sweep_small.toml"], scheduler="synchronous", chunk_size=12,
                          progress=False)
    assert res.ok and res.paths["summary_arrays"] == 0
    assert res.paths["reasons"] == {
        "failed in the summary arrays (RuntimeError: deliberate)": 24}
    sw = load_sweep(FIX / "sweep_small.toml")
    got = res.summary[res.summary["scenario"] == sw.scenario_id(5)]
    want = analyze(sw.scenario(5)).summary_rows()
    np.testing.assert_allclose(got["post_peak_cfs"], [r["post_peak_cfs"] for r in want],
                               rtol=1e-9)


def test_cli_full_analysis_flag(tmp_path):
    out = tmp_path / "out"
    r = CliRunner().invoke(main, ["batch", str(FIX / "sweep_small.toml"), "--out", str(out),
                                  "--scheduler", "synchronous", "--full-analysis", "--quiet"])
    assert r.exit_code == 0, r.output
    meta = json.loads((out / "batch.json").read_text())
    assert meta["sweep_paths"]["full_analysis"] == 24
    assert meta["sweep_paths"]["reasons"] == {
        "summary arrays turned off (per-scenario analysis requested)": 24}


@pytest.mark.parametrize("path", ["examples/shelter_island/site.toml",
                                  "examples/pelham_redevelopment/site.toml",
                                  "tests/fixtures/batch/lot_a.toml"])
def test_example_sites_through_the_summary_arrays_equal_analyze(path):
    from hydrocalc.site import load_site

    site = load_site(pathlib.Path(__file__).parents[2] / path)
    (got,) = _summary([site])
    _assert_rows_equal(got, analyze(site).summary_rows())


def test_rational_subcatchments_are_not_expressed_and_say_why():
    from hydrocalc.site import load_site

    site = load_site(pathlib.Path(__file__).parents[2] / "examples/storm_sewer/site.toml")
    why = sweep_summary.unsupported_reason(site, site.storms.names)
    assert why is not None and "rational" in why


def _rows_both_ways(monkeypatch, sites):
    """Rows with the compiled route-and-split pass and with the numpy routing."""
    from hydrocalc.hydraulics import routing

    calls = []
    real = routing.route_split

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(routing, "route_split", counted)
    compiled = analyze_many(sites, detail="summary", engine="numba")
    assert compiled.paths["summary_arrays"] == len(sites)
    used = len(calls)
    plain = _summary(sites)  # engine="numpy", the default
    assert len(calls) == used
    return list(compiled), list(plain), used


@pytest.mark.parametrize("source", ["sweep_small", "pelham", "examples/shelter_island/site.toml",
                                    "examples/pelham_redevelopment/site.toml"])
def test_compiled_route_and_split_equals_the_numpy_routing_exactly(monkeypatch, source):
    # sweep_small reads the pond series (Cpv); Shelter Island has ponds of several units;
    # Pelham has exfiltration (a discarded outflow) and pond objects shared by scenarios
    from hydrocalc.hydraulics.routing import kernel as _route_kernel
    from hydrocalc.site import load_site

    if not _route_kernel.available():
        pytest.skip("numba is not installed")
    if source == "sweep_small":
        sw = load_sweep(FIX / "sweep_small.toml")
        sites = [sw.scenario(i) for i in range(sw.n_scenarios)]
    elif source == "pelham":
        sw = load_sweep(PELHAM)
        sites = [sw.scenario(i) for i in range(4_000, 4_030)]
    else:
        sites = [load_site(pathlib.Path(__file__).parents[2] / source)]
    compiled, plain, used = _rows_both_ways(monkeypatch, sites)
    assert used > 0
    assert compiled == plain  # bit for bit, every row
    for site, got in zip(sites[:3], compiled, strict=False):
        _assert_rows_equal(got, analyze(site).summary_rows())


def _pelham_sweep(tmp_path, body: str):
    base = PELHAM.parent.parent / "pelham" / "site.toml"
    path = tmp_path / "sweep.toml"
    path.write_text(f'base = "{base.as_posix()}"\n{body}', encoding="utf-8")
    return load_sweep(path)


def test_memoized_criteria_values_follow_their_inputs(tmp_path):
    # WQv, Rv and the minimum RRv are kept per process by exact inputs (Hydrology.memo):
    # one block whose variants change the WQv depth and the impervious cover must give each
    # variant analyze()'s rows, and the WQv verdict must change across them (a value kept
    # under too coarse a key would repeat the first variant's verdict)
    sw = _pelham_sweep(tmp_path, """
[[vary]]
field = "storms.wqv_precip_in"
values = [1.3, 1.5, 1.7]
[[vary]]
field = "post.subcatchment[S-1].impervious_connected_ac"
op = "scale"
values = [0.8, 1.0, 1.3]
""")
    sites = [sw.scenario(i) for i in range(sw.n_scenarios)]
    for block in (sites, sites[::-1]):  # either variant first in the process's memo
        rows = _summary(block)
        for site, got in zip(block, rows, strict=True):
            _assert_rows_equal(got, analyze(site).summary_rows())
    verdicts = {r["wqv_pass"] for got in rows for r in got}
    assert verdicts == {True, False}


def test_reused_runoff_and_end_time_follow_the_times_of_concentration(tmp_path):
    # the runoff batch of a block is reused by the next block with the same inputs, the
    # largest effective Tc per tuple of Tc values: blocks that change Tc (and come back to
    # an earlier one) must each give analyze()'s rows, Tc below the 0.1 h minimum included
    sw = _pelham_sweep(tmp_path, """
[[vary]]
field = "*.subcatchment[*].tc_hr"
op = "scale"
values = [1.0, 0.3, 1.6]
[[vary]]
field = "post.pond[P-1].outlet[low_orifice].diameter_in"
values = [1.5, 3.0]
""")
    blocks = [[0, 1], [2, 3], [0, 1], [4, 5], [2, 3]]
    for idx in blocks:
        sites = [sw.scenario(i) for i in idx]
        for site, got in zip(sites, _summary(sites), strict=True):
            _assert_rows_equal(got, analyze(site).summary_rows())


def test_scenarios_share_the_base_topology_only_when_their_links_are_equal():
    import dataclasses

    from hydrocalc.batch.sweep.overrides import _same_topology

    site = load_sweep(PELHAM).site
    post = site.post
    same = _same_topology(post, dataclasses.replace(post, description="copy"))
    assert same.order is post.order and same.upstream is post.upstream
    # S-1 drained to the design point directly instead of the pond: other links
    sub = dataclasses.replace(post.subcatchments[0], to=post.design_points[0].id)
    moved = _same_topology(post, dataclasses.replace(
        post, subcatchments=(sub, *post.subcatchments[1:])))
    assert moved.edges[sub.id] != post.edges[sub.id]
    assert moved.upstream is not post.upstream
    assert moved.upstream[post.ponds[0].id] != post.upstream[post.ponds[0].id]


def test_detail_and_engine_are_checked_and_the_engine_changes_no_number():
    from hydrocalc.errors import InputError
    from hydrocalc.hydraulics.routing import kernel
    from hydrocalc.site import load_site

    site = load_site(pathlib.Path(__file__).parents[2] / "examples/pelham/site.toml")
    with pytest.raises(InputError, match="detail must be 'full' or 'summary'; got 'rows'"):
        analyze_many([site], detail="rows")
    with pytest.raises(InputError, match="engine must be one of numpy, numba, auto; got 'gpu'"):
        analyze_many([site], engine="gpu")
    if not kernel.available():
        pytest.skip("numba is not installed")
    assert analyze(site, engine="numba").to_json() == analyze(site).to_json()


def test_use_compiled_passes_is_a_deprecated_no_op():
    from hydrocalc.hydrograph import use_compiled_passes

    with pytest.warns(DeprecationWarning, match="no effect"):
        use_compiled_passes()
