"""Batch runs (hydrocalc.batch): failing inputs are reported while the rest complete, batched
sweep results equal analyze() per scenario, local and distributed schedulers agree, outputs
are written atomically, and the CLI's exit codes."""

from __future__ import annotations

import math
import pathlib
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import hydrocalc.batch.output  # noqa: F401 (batch.output below)
import hydrocalc.batch.tasks  # noqa: F401 (batch.tasks below)
from hydrocalc import batch
from hydrocalc.analysis import analyze
from hydrocalc.batch.sweep import load_sweep
from hydrocalc.cli import main
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.routing import table as routing_table_mod

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"
SITES = [FIX / "lot_a.toml", FIX / "lot_b.toml", FIX / "broken.toml", FIX / "lot_c.toml"]
NUMERIC = ["precip_in", "pre_peak_cfs", "post_peak_cfs", "peak_change_pct", "pre_volume_ft3",
           "post_volume_ft3", "volume_change_pct"]
FLAGS = ["post_le_pre", "wqv_pass", "rrv_pass", "cpv_pass", "qp_pass", "qf_pass",
         "criteria_pass"]


def _key(frame):
    return frame.sort_values(["source", "scenario", "design_point", "storm"]).reset_index(
        drop=True)


def assert_same_summary(a, b, *, rtol=1e-9):
    a, b = _key(a), _key(b)
    assert list(a.columns) == list(b.columns)
    for c in a.columns:
        if c in NUMERIC or pd.api.types.is_float_dtype(a[c]):
            np.testing.assert_allclose(a[c].to_numpy(float), b[c].to_numpy(float), rtol=rtol,
                                       atol=1e-12, equal_nan=True, err_msg=c)
        else:
            assert a[c].astype(object).tolist() == b[c].astype(object).tolist(), c


@pytest.fixture(scope="module")
def four_sites(tmp_path_factory):
    out = tmp_path_factory.mktemp("batch")
    return batch.run_batch(SITES + [FIX / "missing.toml"], out_dir=out, scheduler="threads",
                           workers=2, progress=False), out


def test_broken_site_is_reported_and_the_rest_complete(four_sites):
    res, _ = four_sites
    s = res.summary
    assert res.n_inputs == 5 and res.n_scenarios == 5 and res.n_failed == 2
    ok = s[s["status"] == "ok"]
    assert sorted(ok["site"].unique()) == ["Batch fixture lot A", "Batch fixture lot B",
                                           "Batch fixture lot C"]
    # one row per design point and storm of each good site: 3 + 4 + 2 x 2
    assert len(ok) == 3 + 4 + 4
    err = s[s["status"] == "error"].set_index("source")
    broken = err.loc[str(FIX / "broken.toml"), "error"]
    assert "broken.toml: pre.subcatchment[E-1].cn must be in (0, 100]; got 104" in broken
    assert "site file must be a readable file" in err.loc[str(FIX / "missing.toml"), "error"]
    assert err["pre_peak_cfs"].isna().all()
    assert (ok["error"] == "").all()


def test_site_rows_equal_analyze(four_sites):
    res, _ = four_sites
    from hydrocalc.site import load_site

    s = res.summary
    got = s[s["source"] == str(FIX / "lot_b.toml")].reset_index(drop=True)
    want = pd.DataFrame(analyze(load_site(FIX / "lot_b.toml")).summary_rows())
    for c in NUMERIC:
        np.testing.assert_allclose(got[c], want[c], rtol=1e-12, atol=0)
    for c in FLAGS:
        assert got[c].astype(object).tolist() == want[c].tolist()


def test_outputs_are_written_and_read_back(four_sites):
    res, out = four_sites
    assert sorted(p.name for p in out.iterdir()) == ["batch.json", "summary.csv",
                                                      "summary.parquet"]
    back = pd.read_parquet(out / "summary.parquet")
    assert_same_summary(back, res.summary, rtol=0)
    csv = pd.read_csv(out / "summary.csv", keep_default_na=False, na_values=[""])
    np.testing.assert_allclose(csv["post_peak_cfs"], res.summary["post_peak_cfs"], rtol=1e-9,
                               equal_nan=True)
    meta = (out / "batch.json").read_text()
    assert '"failed": 2' in meta and '"scenarios": 5' in meta


def test_batched_sweep_equals_analyze_per_scenario():
    sw = load_sweep(FIX / "sweep_small.toml")
    res = batch.run_batch([FIX / "sweep_small.toml"], scheduler="synchronous", chunk_size=9,
                          progress=False)
    assert res.n_tasks == 3 and res.ok
    s = res.summary
    assert len(s) == sw.n_scenarios * 3
    # every chunk holds variants that share pre (computed once) and groups by storm depth;
    # check scenarios from each chunk and both depth groups against analyze() alone
    for i in (0, 1, 2, 5, 9, 14, 19, 23):
        got = s[s["scenario"] == sw.scenario_id(i)].reset_index(drop=True)
        want = pd.DataFrame(analyze(sw.scenario(i)).summary_rows())
        for c in NUMERIC:
            np.testing.assert_allclose(got[c], want[c], rtol=1e-9, atol=1e-12, err_msg=c)
        for c in FLAGS:
            assert got[c].astype(object).tolist() == want[c].tolist(), (i, c)
        for col, v in sw.values(i).items():
            assert (got[col] == v).all()


def test_batched_sweep_with_exfiltration_count_and_reach_equals_analyze():
    sw = load_sweep(FIX / "sweep_lot_b.toml")
    res = batch.run_batch([FIX / "sweep_lot_b.toml"], scheduler="synchronous", progress=False)
    s = res.summary
    for i in range(sw.n_scenarios):
        got = s[s["scenario"] == sw.scenario_id(i)].reset_index(drop=True)
        want = pd.DataFrame(analyze(sw.scenario(i)).summary_rows())
        for c in NUMERIC:
            np.testing.assert_allclose(got[c], want[c], rtol=1e-9, atol=1e-12, err_msg=c)
        for c in FLAGS:
            assert got[c].astype(object).tolist() == want[c].tolist(), (i, c)


def test_invalid_sweep_scenario_is_one_error_row():
    res = batch.run_batch([FIX / "sweep_some_invalid.toml"], scheduler="synchronous",
                          progress=False)
    s = res.summary
    assert res.n_scenarios == 3 and res.n_failed == 1
    assert s.loc[s["scenario"] != "2", "status"].eq("ok").all()
    bad = s[s["scenario"] == "2"]
    assert len(bad) == 1
    assert bad["error"].iloc[0] == ("sweep_some_invalid.toml: scenario 2: post.subcatchment[P-1]"
                                    ".cn must be in (0, 100]; got 101 (88 + 13)")
    assert bad["post.subcatchment[P-1].cn:add"].iloc[0] == 13.0


def test_a_failing_batch_group_is_split_to_isolate_the_culprit(monkeypatch):
    import hydrocalc.batch.tasks as tasks_mod

    real = tasks_mod.analyze_many

    def flaky(sites, **kw):  # fails any group holding a P-1 curve number of 96
        if any(s.post.nodes["P-1"].cn == 96.0 for s in sites):
            if kw.get("errors") == "collect":
                return [InputError("deliberate failure for CN 96")] * len(sites)
            raise InputError("deliberate failure for CN 96")
        return real(sites, **kw)

    monkeypatch.setattr(tasks_mod, "analyze_many", flaky)  # where the batch calls it
    res = batch.run_batch([FIX / "sweep_some_invalid.toml"], scheduler="synchronous",
                          progress=False, summary_arrays=False)
    s = res.summary
    assert res.paths["summary_arrays"] == 0 and res.paths["full_analysis"] == 2
    assert res.n_failed == 2
    assert s.loc[s["scenario"] == "0", "status"].eq("ok").all()
    assert s.loc[s["scenario"] == "1", "error"].tolist() == ["deliberate failure for CN 96"]


def test_unreadable_sweep_file_is_an_error_row(tmp_path):
    p = tmp_path / "bad_sweep.toml"
    p.write_text('base = "lot_a.toml"\n[[vary]]\nfield = "post.subcatchment[P-9].cn"\n'
                 'values = [80]\n')
    res = batch.run_batch([p, FIX / "lot_c.toml"], scheduler="synchronous", progress=False)
    s = res.summary
    assert res.n_failed == 1
    assert s["status"].tolist()[0] == "error"
    assert "bad_sweep.toml: base must be an existing site file" in s["error"].iloc[0]
    assert s["status"].tolist()[1:] == ["ok"] * 4


def test_local_and_distributed_schedulers_give_the_same_summary():
    distributed = pytest.importorskip("distributed")
    inputs = [FIX / "sweep_lot_b.toml", FIX / "lot_c.toml", FIX / "broken.toml"]
    local = batch.run_batch(inputs, scheduler="synchronous", progress=False)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = batch.run_batch(inputs, scheduler=client, progress=False)
        by_address = batch.run_batch([FIX / "lot_c.toml"], scheduler=cluster.scheduler_address,
                                     progress=False)
    assert remote.n_failed == local.n_failed == 1
    assert_same_summary(remote.summary, local.summary, rtol=0)
    cols = list(batch.SUMMARY_COLUMNS)
    assert_same_summary(by_address.summary[cols],
                        local.summary.loc[local.summary["source"] == str(FIX / "lot_c.toml"),
                                          cols], rtol=0)


@pytest.mark.slow
def test_process_pool_gives_the_same_summary_as_synchronous():
    inputs = [FIX / "lot_c.toml", FIX / "broken.toml", FIX / "sweep_some_invalid.toml"]
    procs = batch.run_batch(inputs, scheduler="processes", workers=2, chunk_size=2,
                            progress=False)
    sync = batch.run_batch(inputs, scheduler="synchronous", progress=False)
    assert_same_summary(procs.summary, sync.summary, rtol=0)
    assert procs.worker_peak_rss_mb and all(v > 0 for v in procs.worker_peak_rss_mb.values())


@pytest.mark.slow
def test_spawned_workers_give_the_same_summary_as_forked_ones():
    # the local pool forks its workers from a warmed-up server where the platform has one;
    # dask's multiprocessing.context = "spawn" (or a platform without it) spawns them, and
    # they warm up themselves: the same table either way
    import dask

    from hydrocalc.batch import workers

    inputs = [FIX / "lot_c.toml", FIX / "sweep_some_invalid.toml"]
    if sys.platform.startswith("linux"):
        assert workers._pool_context().get_start_method() == "forkserver"
    forked = batch.run_batch(inputs, scheduler="processes", workers=2, chunk_size=3,
                             progress=False)
    with dask.config.set({"multiprocessing.context": "spawn"}):
        assert workers._pool_context().get_start_method() == "spawn"
        spawned = batch.run_batch(inputs, scheduler="processes", workers=1, chunk_size=3,
                                  progress=False)
    assert_same_summary(forked.summary, spawned.summary, rtol=0)
    assert forked.n_failed == spawned.n_failed > 0


def test_plan_covers_every_scenario_once():
    tasks, errors, info = batch.plan_tasks([FIX / "sweep_small.toml", FIX / "lot_a.toml"],
                                           workers=2, chunk_size=5)
    assert not errors
    sweeps = [t for t in tasks if t["kind"] == "sweep"]
    covered = [i for t in sweeps for i in range(t["start"], t["stop"])]
    assert covered == list(range(24))
    assert max(t["stop"] - t["start"] for t in sweeps) == 5
    assert [t["kind"] for t in tasks].count("site") == 1
    assert info[0]["n"] == 24 and info[1]["n"] == 1


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    target = tmp_path / "summary.csv"
    target.write_text("old\n")

    def fail(p):
        p.write_text("half")
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        batch.output._atomic_write(target, fail)
    assert target.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["summary.csv"]


def test_bad_scheduler_name_is_an_error():
    with pytest.raises(InputError, match=r"scheduler must be one of processes, threads, "
                                         r"synchronous or a dask\.distributed address.*got "
                                         r"'thread'"):
        batch.run_batch([FIX / "lot_c.toml"], scheduler="thread", progress=False)


def test_no_inputs_is_an_error():
    with pytest.raises(InputError, match=r"inputs must name at least one site or sweep file; "
                                         r"got none"):
        batch.run_batch([], progress=False)


def test_bad_worker_count_is_an_error():
    with pytest.raises(InputError, match=r"workers must be a positive integer; got 0"):
        batch.run_batch([FIX / "lot_c.toml"], workers=0, progress=False)


def test_summary_frame_keeps_dtypes_for_all_error_rows():
    frame = batch.summary_frame([{"source": "x.toml", "status": "error", "error": "boom"}])
    assert frame["post_le_pre"].dtype == "boolean"
    assert math.isnan(frame["post_peak_cfs"].iloc[0])
    assert frame["scenario"].iloc[0] == ""


def test_cli_exit_codes_and_error_lines(tmp_path):
    runner = CliRunner()
    good = runner.invoke(main, ["batch", str(FIX / "lot_c.toml"), "--out", str(tmp_path / "a"),
                                "--scheduler", "synchronous", "--quiet"])
    assert good.exit_code == 0, good.output
    assert "ok: 1, failed: 0" in good.output
    assert (tmp_path / "a" / "summary.parquet").is_file()
    bad = runner.invoke(main, ["batch", str(FIX / "lot_c.toml"), str(FIX / "broken.toml"),
                               "--out", str(tmp_path / "b"), "--scheduler", "synchronous",
                               "--quiet"])
    assert bad.exit_code == 1
    assert f"error: {FIX / 'broken.toml'}: broken.toml: " in bad.stderr
    assert (tmp_path / "b" / "summary.csv").is_file()


def test_unreachable_scheduler_is_one_error(monkeypatch):
    pytest.importorskip("distributed")
    monkeypatch.setattr(batch.workers, "CONNECT_TIMEOUT_S", 1.0)  # where _connect reads it
    with pytest.raises(InputError, match=r"scheduler must be a reachable dask\.distributed "
                                         r"scheduler; got 'tcp://127\.0\.0\.1:9'"):
        batch.run_batch([FIX / "lot_c.toml"], scheduler="tcp://127.0.0.1:9", progress=False)


def test_cached_sweep_reloads_when_the_base_site_changes(tmp_path):
    site = tmp_path / "lot_a.toml"
    site.write_text((FIX / "lot_a.toml").read_text())
    sweep_file = tmp_path / "s.toml"
    sweep_file.write_text('base = "lot_a.toml"\n[[vary]]\nfield = "post.subcatchment[P-1].cn"'
                          '\nop = "add"\nvalues = [1.0]\n')
    first = batch.tasks._cached_sweep(str(sweep_file))
    assert batch.tasks._cached_sweep(str(sweep_file)) is first
    site.write_text(site.read_text().replace("cn = 88", "cn = 80.5"))
    second = batch.tasks._cached_sweep(str(sweep_file))
    assert second is not first
    assert second.scenario(0).post.nodes["P-1"].cn == 81.5


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc settings")
def test_local_workers_get_the_malloc_settings_and_the_caller_keeps_its_own():
    import os

    from hydrocalc.batch import WORKER_MALLOC_ENV, workers

    before = {k: os.environ.get(k) for k in WORKER_MALLOC_ENV}
    workers.start_server()
    pool = workers._start_pool(1)
    try:
        got = {k: pool.submit(os.getenv, k).result(timeout=120) for k in WORKER_MALLOC_ENV}
        assert len(pool.worker_processes()) == 1
    finally:
        pool.stop()
    assert got == {k: before[k] or v for k, v in WORKER_MALLOC_ENV.items()}
    assert {k: os.environ.get(k) for k in WORKER_MALLOC_ENV} == before
    assert pool.worker_processes() == []


def test_malloc_settings_leave_a_users_own_value(monkeypatch):
    import os

    from hydrocalc.batch import WORKER_MALLOC_ENV, worker_malloc_env

    monkeypatch.setenv("MALLOC_TOP_PAD_", "4096")
    with worker_malloc_env() as added:
        assert os.environ["MALLOC_TOP_PAD_"] == "4096"
        assert "MALLOC_TOP_PAD_" not in added
    assert os.environ["MALLOC_TOP_PAD_"] == "4096"
    assert set(added) <= set(WORKER_MALLOC_ENV)


# ----------------------------------------------------------------------------------------
# the batch internals a sweep relies on


def _overtopping_batch():
    """Three ponds x two storms; the small pond overtops far (routing above its table)."""
    from hydrocalc.hydraulics.outlets import CircularOrifice, Exfiltration, RectangularWeir
    from hydrocalc.hydraulics.routing import StageStorage

    ponds = [StageStorage.basin(40, 16, 5.0), StageStorage.basin(12, 8, 2.0),
             StageStorage.basin(60, 30, 4.0, side_slope_h_per_v=3)]
    outlets = [[Exfiltration(0.5), CircularOrifice(2.0, 1.35), RectangularWeir(1.5, 4.4)],
               [CircularOrifice(1.0, 0.5)],
               [CircularOrifice(6.0, 0.0), Exfiltration(1.0)]]
    t = np.arange(0.0, 8.0 + 1e-9, 0.02)
    storms = [3.0 * np.clip(1 - np.abs(t - 2.0) / 1.5, 0, None),
              1.0 * np.clip(1 - np.abs(t - 3.0) / 2.5, 0, None)]
    q = np.stack([[s for _ in ponds] for s in storms])  # (2, 3, nt)
    return q, ponds, outlets, t


def test_batch_routing_is_independent_of_its_time_blocks(monkeypatch):
    import warnings

    from hydrocalc.hydraulics import routing
    from hydrocalc.hydraulics.routing import batch as routing_batch  # the loop's own module global

    q, ponds, outlets, _ = _overtopping_batch()
    h0 = np.array([[0.2, 0.0, 1.0]] * 2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = routing.route_reservoirs(q, 0.02, ponds, outlets, initial_stage_ft=h0)
        for block in (1, 7, q.shape[-1] - 1, q.shape[-1] + 5):
            monkeypatch.setattr(routing_batch, "_BLOCK", block)
            got = routing.route_reservoirs(q, 0.02, ponds, outlets, initial_stage_ft=h0)
            for name in ("outflow_cfs", "stage_ft", "storage_ft3", "peak_outflow_cfs",
                         "time_of_peak_outflow_hr", "peak_stage_ft", "mass_balance_error_pct"):
                assert np.array_equal(getattr(got, name), getattr(ref, name)), (block, name)
    assert ref.overtopped[:, 1].all() and not ref.overtopped[:, 2].any()


def test_batch_routing_matches_single_routes_above_the_table():
    import warnings

    from hydrocalc.hydraulics.routing import route_reservoir, route_reservoirs
    from hydrocalc.hydrograph import Hydrograph

    q, ponds, outlets, t = _overtopping_batch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        batch = route_reservoirs(q, 0.02, ponds, outlets)
        peaks = route_reservoirs(q, 0.02, ponds, outlets, keep="peaks")
        for i in range(q.shape[0]):
            for j, (pond, outl) in enumerate(zip(ponds, outlets, strict=True)):
                one = route_reservoir(Hydrograph(t, q[i, j]), pond, outl)
                np.testing.assert_allclose(batch.outflow_cfs[i, j], one.outflow_cfs,
                                           rtol=1e-9, atol=1e-12)
                np.testing.assert_allclose(batch.stage_ft[i, j], one.stage_ft, rtol=1e-9,
                                           atol=1e-12)
                assert batch.time_of_peak_outflow_hr[i, j] == one.time_of_peak_outflow_hr
                assert peaks.peak_outflow_cfs[i, j] == batch.peak_outflow_cfs[i, j]
                assert peaks.peak_stage_ft[i, j] == batch.peak_stage_ft[i, j]
                assert bool(batch.overtopped[i, j]) == one.overtopped


def test_batch_routing_overtopping_warning_can_be_left_to_the_caller():
    import warnings

    from hydrocalc.hydraulics.routing import OvertoppingWarning, route_reservoirs

    q, ponds, outlets, _ = _overtopping_batch()
    with pytest.warns(OvertoppingWarning, match="3 of 6 pond-storms overtop"):
        route_reservoirs(q, 0.02, ponds, outlets)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        res = route_reservoirs(q, 0.02, ponds, outlets, overtopping_warning=False)
    assert not [w for w in caught if issubclass(w.category, OvertoppingWarning)]
    assert int(res.overtopped.sum()) == 3


def test_analyze_many_node_series_equal_analyze_and_pickle_per_variant():
    import pickle

    from hydrocalc.analysis import analyze_many

    sw = load_sweep(pathlib.Path(__file__).parents[2] / "examples" / "sweeps"
                    / "pelham_sweep.toml")
    picks = [0, 1, 2501, 9999]
    many = analyze_many([sw.scenario(i) for i in picks], storms=["1yr", "100yr"])
    for i, res in zip(picks, many, strict=True):
        one = analyze(sw.scenario(i), storms=["1yr", "100yr"])
        for sc in ("pre", "post"):
            run, ref = res._runs[sc], one._runs[sc]
            # node series assembled on demand equal the single analysis exactly
            assert np.array_equal(run.outflow, ref.outflow)
            assert np.array_equal(run.inflow, ref.inflow)
            for k, nid in enumerate(run.node_ids):
                assert np.array_equal(run.node_outflow(nid), ref.outflow[:, k])
        for storm in ("1yr", "100yr"):
            assert np.array_equal(res.flow_cfs("post", storm, "P-1"),
                                  one.flow_cfs("post", storm, "P-1"))
            assert np.array_equal(res.routing("post", storm, "P-1").outflow_cfs,
                                  one.routing("post", storm, "P-1").outflow_cfs)
        assert res.summary_rows() == one.summary_rows()
    # a pickled result carries its own variant's node series, not the whole batch's
    back = pickle.loads(pickle.dumps(many[1]))
    assert back._runs["post"]._net is None
    assert np.array_equal(back._runs["post"].outflow, many[1]._runs["post"].outflow)
    assert back.summary_rows() == many[1].summary_rows()


def test_compiled_routing_loop_equals_the_numpy_loop_bit_for_bit(monkeypatch):
    import warnings

    from hydrocalc.hydraulics import routing
    from hydrocalc.hydraulics.routing import kernel as _route_kernel

    if not _route_kernel.available():
        pytest.skip("numba is not installed (the batch extra)")
    q, ponds, outlets, _ = _overtopping_batch()
    h0 = np.array([[0.2, 0.0, 1.0]] * 2)
    names = ("outflow_cfs", "stage_ft", "storage_ft3", "peak_outflow_cfs",
             "time_of_peak_outflow_hr", "peak_stage_ft", "peak_storage_ft3",
             "mass_balance_error_pct", "overtopped")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled = routing.route_reservoirs(q, 0.02, ponds, outlets, initial_stage_ft=h0,
                                            engine="numba")
        plain = routing.route_reservoirs(q, 0.02, ponds, outlets, initial_stage_ft=h0)
        monkeypatch.setenv("HYDROCALC_NO_NUMBA", "1")
        assert not _route_kernel.available()
        assert routing.resolve_engine("auto") == "numpy"
        with pytest.raises(InputError, match="engine='numba' needs numba"):
            routing.route_reservoirs(q, 0.02, ponds, outlets, engine="numba")
    with pytest.raises(InputError, match="engine must be one of"):
        routing.route_reservoirs(q, 0.02, ponds, outlets, engine="fortran")
    for name in names:
        assert np.array_equal(getattr(compiled, name), getattr(plain, name)), name
    assert compiled.overtopped[:, 1].all()  # the loop ran above the table too


def test_sweep_with_and_without_the_compiled_loop_gives_identical_summaries(monkeypatch):
    from hydrocalc.hydraulics.routing import kernel as _route_kernel

    if not _route_kernel.available():
        pytest.skip("numba is not installed (the batch extra)")
    from hydrocalc.batch import tasks

    assert tasks.ENGINE == "auto"  # batch tasks route with the compiled loop when installed
    fast = batch.run_batch([FIX / "sweep_lot_b.toml"], scheduler="synchronous",
                           progress=False)
    monkeypatch.setenv("HYDROCALC_NO_NUMBA", "1")
    plain = batch.run_batch([FIX / "sweep_lot_b.toml"], scheduler="synchronous",
                            progress=False)
    assert fast.n_failed == plain.n_failed == 0
    assert_same_summary(fast.summary, plain.summary, rtol=0)


def test_default_blocks_keep_a_task_small():
    sweep_file = FIX.parents[2] / "examples" / "sweeps" / "pelham_sweep.toml"
    tasks, _, info = batch.plan_tasks([sweep_file], workers=2)
    sizes = {t["stop"] - t["start"] for t in tasks}
    assert info[0]["n"] == 10_000
    assert max(sizes) <= batch.MAX_CHUNK and len(tasks) >= 8  # about four tasks per worker
    # a task computes its scenarios in blocks that bound its arrays
    assert {t["summary_batch"] for t in tasks} == {batch.SUMMARY_BATCH}
    assert all(t["summary"] for t in tasks)
    if batch.default_task_memory_mb(2) == batch.TASK_MEMORY_MB:
        # about 20 MB of arrays per block of the full analysis (Pelham: ~2.7 MB each)
        assert max(t["batch"] for t in tasks) <= 10
    off, _, _ = batch.plan_tasks([sweep_file], workers=2, summary_arrays=False)
    assert not any(t["summary"] for t in off)


def test_batch_workers_reuse_the_table_of_an_identical_pond_only(monkeypatch):
    from hydrocalc.hydraulics import routing
    from hydrocalc.hydraulics.outlets import CircularOrifice, Exfiltration, as_structure
    from hydrocalc.hydraulics.routing import kernel as _route_kernel

    built = []

    def build(ss, structure, dt_s, points):
        built.append(1)
        return routing_table_mod._build_table(ss, structure, dt_s, points)

    def spec(diameter_in, rate_in_hr=0.5):
        ss = routing.StageStorage.basin(40, 16, 5.0)  # a new, equal object each time
        devices = [Exfiltration(rate_in_hr), CircularOrifice(diameter_in, 1.35)]
        return ss, as_structure(devices).bind(ss)

    monkeypatch.setattr(_route_kernel, "_TABLES", {})
    _route_kernel.cached_table(build, *spec(2.0), 36.0, 400)
    assert built == [1] and not _route_kernel._TABLES  # one site analysed once: no cache
    first = _route_kernel.cached_table(build, *spec(2.0), 36.0, 400, cache=True)
    again = _route_kernel.cached_table(build, *spec(2.0), 36.0, 400, cache=True)
    assert again is first and len(built) == 2
    fresh = routing_table_mod._build_table(*spec(2.0), 36.0, 400)
    for name in ("stage", "storage", "outflow", "si", "slope"):
        assert np.array_equal(getattr(first, name), getattr(fresh, name)), name
        assert not getattr(first, name).flags.writeable
    assert all(not q.flags.writeable for _, _, q in first.parts)
    # any difference in the pond, the step or the table size builds a new table
    for other in (_route_kernel.cached_table(build, *spec(2.5), 36.0, 400, cache=True),
                  _route_kernel.cached_table(build, *spec(2.0, 0.6), 36.0, 400, cache=True),
                  _route_kernel.cached_table(build, *spec(2.0), 18.0, 400, cache=True),
                  _route_kernel.cached_table(build, *spec(2.0), 36.0, 300, cache=True)):
        assert other is not first
    assert len(built) == 6
    monkeypatch.setattr(_route_kernel, "TABLE_CACHE_SIZE", 2)
    _route_kernel.cached_table(build, *spec(3.0), 36.0, 400, cache=True)
    assert len(_route_kernel._TABLES) <= 2  # bounded


def test_summary_csv_is_the_bytes_pandas_writes(tmp_path):
    rows = [
        {"source": "a,b.toml", "site": 'say "hi"', "scenario": "00001", "design_point": "DP-1",
         "storm": "10yr", "precip_in": 4.123456789012, "pre_peak_cfs": math.nan,
         "post_peak_cfs": math.inf, "post_le_pre": True, "wqv_pass": None, "status": "ok",
         "error": "", "x": 1e-20},
        {"source": "b", "site": "line\nbreak", "scenario": "", "design_point": "",
         "storm": "", "precip_in": -0.0, "post_le_pre": False, "status": "error",
         "error": "bad | worse", "x": None},
    ]
    frame = batch.summary_frame(rows, ["x"])
    batch.output._write_csv(frame, tmp_path / "a.csv")
    frame.to_csv(tmp_path / "b.csv", index=False, float_format="%.10g", lineterminator="\n")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()


def test_summary_csv_is_the_bytes_pandas_writes_for_many_rows(tmp_path):
    # more rows than the one-value-at-a-time threshold: repeated values formatted once,
    # NaN/inf/-0.0, missing booleans and fields that need quoting among many plain ones
    rng = np.random.default_rng(3)
    rows = []
    for i in range(300):
        rows.append({
            "source": "sweep.toml" if i % 7 else "a,b.toml", "site": "Lot A" if i % 2 else
            'say "hi"', "scenario": f"{i:05d}", "design_point": "DP-1", "storm": "10yr",
            "precip_in": [4.1, 5.2, math.nan][i % 3],
            "pre_peak_cfs": float(rng.normal()) if i % 5 else math.inf,
            "post_peak_cfs": [0.0, 1.5, 2.25][i % 3], "post_le_pre": [True, False, None][i % 3],
            "status": "ok", "error": "" if i % 11 else "line\nbreak, and more",
            "x": -0.0 if i == 17 else float(i % 4)})
    frame = batch.summary_frame(rows, ["x"])
    batch.output._write_csv(frame, tmp_path / "a.csv")
    frame.to_csv(tmp_path / "b.csv", index=False, float_format="%.10g", lineterminator="\n")
    assert (tmp_path / "a.csv").read_bytes() == (tmp_path / "b.csv").read_bytes()
    # and the same frame as DataFrame(list of dicts) builds it
    import pandas as pd

    old = pd.DataFrame(rows, columns=list(frame.columns))
    assert list(old.columns) == list(frame.columns)
    for c in ("precip_in", "pre_peak_cfs", "x"):
        np.testing.assert_array_equal(old[c].to_numpy(float), frame[c].to_numpy(float))


def test_tasks_use_the_planned_sweep_only_while_its_files_are_unchanged(tmp_path, monkeypatch):
    import os

    from hydrocalc.batch import sweep as sweep_mod

    for name in ("sweep_small.toml", "lot_a.toml"):
        (tmp_path / name).write_bytes((FIX / name).read_bytes())
    for extra in FIX.glob("*.csv"):
        (tmp_path / extra.name).write_bytes(extra.read_bytes())
    tasks, errors, _ = batch.plan_tasks([tmp_path / "sweep_small.toml"], workers=1)
    assert not errors and tasks[0]["preload"]
    loads = []
    real = sweep_mod.load_sweep
    monkeypatch.setattr(batch.tasks, "load_sweep", lambda p: loads.append(p) or real(p))
    monkeypatch.setattr(batch.tasks, "_SWEEPS", {})
    first = batch.run_task(tasks[0])
    assert loads == [] and first["failed"] == 0  # the planned sweep, not parsed again
    monkeypatch.setattr(batch.tasks, "_SWEEPS", {})
    site = tmp_path / "lot_a.toml"
    st = site.stat()
    os.utime(site, ns=(st.st_atime_ns, st.st_mtime_ns + 10**9))  # the base site changed
    again = batch.run_task(tasks[0])
    assert len(loads) == 1 and again["rows"] == first["rows"]
    monkeypatch.setattr(batch.tasks, "_SWEEPS", {})
    broken = dict(tasks[0], preload=b"not a pickle")  # unreadable: the files are loaded
    assert batch.run_task(broken)["rows"] == first["rows"] and len(loads) == 2


def test_column_blocks_make_the_same_table_as_the_rows():
    # the tasks send their rows as column blocks; the table must be the one of the rows
    # sorted by (input, scenario), also when an error row falls inside a block's range
    from hydrocalc.batch.output import summary_frame_of
    from hydrocalc.batch.tasks import RowBlock

    def row(i, idx, **kw):
        return {"source": f"in{i}", "scenario": f"{idx:03d}", "pre_peak_cfs": idx + 0.5,
                "status": "ok", "error": "", "_input": i, "_index": idx, **kw}

    a = [row(0, k, cn=70.0 + k) for k in (0, 0, 1, 2)]
    b = [row(0, k, cn=70.0 + k) for k in (5, 6, 6)]
    err = dict(row(0, 4), status="error", error="bad value", pre_peak_cfs=None)
    site = [row(1, 0, post_peak_cfs=2.0), row(1, 0, post_peak_cfs=3.0)]
    for pieces, rows in (
            ([RowBlock.from_rows(b), *site, RowBlock.from_rows(a), err], a + [err] + b + site),
            ([RowBlock.from_rows(a + b), err, *site], a + [err] + b + site)):  # err inside
        got = summary_frame_of(pieces, ["cn"])
        want = batch.summary_frame(sorted(rows, key=lambda r: (r["_input"], r["_index"])),
                                   ["cn"])
        assert got.equals(want)
        assert list(got["scenario"]) == [r["scenario"] for r in sorted(
            rows, key=lambda r: (r["_input"], r["_index"]))]
    block = RowBlock.from_rows([b[2], err, a[0]])  # sorted, stable, the missing value None
    assert block.columns["_index"] == [0, 4, 6] and block.columns["cn"][1] is None
    assert block.rows()[0] == a[0]
