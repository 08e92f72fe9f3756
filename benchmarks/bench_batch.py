"""The 10,000-scenario sweep of the Pelham example through ``hydrocalc batch``.

Runs ``hydrocalc.batch.run_batch(["examples/sweeps/pelham_sweep.toml"], workers=2)`` on the
local Dask process pool (what ``hydrocalc batch ... --workers 2`` does) and reports
scenarios per second (wall time from planning to the written CSV/Parquet, process start-up
included), the CPU time of the tasks (the work itself, whatever else the machine runs, and
the throughput it implies on as many free cores as workers), the peak resident memory of
each worker process and the growth of the caller,
and, as the baseline, ``hydrocalc.analysis.analyze`` called once per scenario in one
process (timed on a sample of scenarios spread over the sweep, so the "N Python runs" cost
is measured, not assumed). The sampled scenarios' summary rows are also compared with the
batch's (they must agree to 1e-9; ``max_rel_diff_vs_analyze``).

Run alone: ``.venv/bin/python benchmarks/bench_batch.py [--workers 2] [--quick]
[--full-analysis]`` (``--full-analysis``: every scenario by ``analyze_many`` instead of the
summary array path, for comparison).
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import tempfile
import time
import tomllib
import warnings

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
SWEEP = ROOT / "examples" / "sweeps" / "pelham_sweep.toml"
_NUMERIC = ("pre_peak_cfs", "post_peak_cfs", "pre_volume_ft3", "post_volume_ft3")


def _quick_copy(path: pathlib.Path, folder: pathlib.Path) -> pathlib.Path:
    """A smaller variant of the sweep: one random draw, the last grid entry dropped."""
    doc = tomllib.loads(path.read_text(encoding="utf-8"))
    lines = [f"base = {str((path.parent / doc['base']).resolve())!r}".replace("'", '"'),
             'name = "pelham_sweep_quick"', f"seed = {doc.get('seed', 0)}", "samples = 1"]
    vary = [v for v in doc["vary"] if "uniform" in v or "normal" in v or "choice" in v]
    grid = [v for v in doc["vary"] if v not in vary][:-1]
    for v in grid + vary:
        lines.append("[[vary]]")
        for k, x in v.items():
            lines.append(f"{k} = {_toml(x)}")
    out = folder / "pelham_sweep_quick.toml"
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def _toml(x) -> str:
    if isinstance(x, str):
        return '"' + x.replace('"', '\\"') + '"'
    if isinstance(x, list):
        return "[" + ", ".join(_toml(v) for v in x) + "]"
    return repr(x)


def run(*, sweep: pathlib.Path | str = SWEEP, workers: int = 2, quick: bool = False,
        baseline_sample: int = 12, chunk_size: int | None = None,
        summary_arrays: bool = True) -> dict:
    """Run the sweep; return throughput, memory and the per-scenario baseline as a dict."""
    import pandas as pd

    from hydrocalc.analysis import analyze
    from hydrocalc.batch import current_rss_mb, run_batch
    from hydrocalc.batch.sweep import load_sweep

    sweep = pathlib.Path(sweep)
    if not sweep.is_file():
        raise FileNotFoundError(f"{sweep} is missing (the parameter sweep of the Pelham example)")
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="bench_batch_"))
    if quick:
        sweep = _quick_copy(sweep, tmp)
    sw = load_sweep(sweep)
    rss0 = current_rss_mb()
    kw = {} if summary_arrays else {"summary_arrays": False}
    res = run_batch([sweep], out_dir=tmp / "out", workers=workers, progress=False,
                    chunk_size=chunk_size, **kw)
    cpu = float(getattr(res, "task_cpu_s", float("nan")))  # nan: an older hydrocalc.batch
    out: dict = {
        "benchmark": "sweep", "sweep": sweep.name, "scenarios": res.n_scenarios,
        "failed": res.n_failed, "workers": workers, "tasks": res.n_tasks,
        "storms": len(sw.storms or sw.site.storms.names), "wall_s": res.elapsed_s,
        "scenarios_per_s": res.scenarios_per_s,
        "worker_peak_rss_mb_max": max(res.worker_peak_rss_mb.values(), default=float("nan")),
        "worker_peak_rss_mb_sum": sum(res.worker_peak_rss_mb.values()),
        "caller_rss_growth_mb": current_rss_mb() - rss0,
        "worker_processes": len(res.worker_peak_rss_mb),
        "summary_rows": len(res.summary),
        # CPU time of the tasks: the work itself, independent of other jobs on the machine
        "task_cpu_s": cpu,
        "cpu_ms_per_scenario": 1e3 * cpu / max(res.n_scenarios, 1),
        "free_cores_scenarios_per_s": workers * res.n_scenarios / cpu if cpu > 0 else cpu,
        # scenarios computed by the summary arrays / the full analysis, and why the latter
        "paths": dict(getattr(res, "paths", {}) or {}),
    }
    # baseline: analyze() once per scenario, in this process (one core)
    picks = np.unique(np.linspace(0, sw.n_scenarios - 1, baseline_sample).astype(int))
    times, worst = [], 0.0
    s = res.summary
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        analyze(sw.scenario(int(picks[0])))  # warm-up (imports, storm cache)
        for i in picks:
            site = sw.scenario(int(i))
            t0 = time.perf_counter()
            r = analyze(site)
            want = pd.DataFrame(r.summary_rows())
            times.append(time.perf_counter() - t0)
            got = s[s["scenario"] == sw.scenario_id(int(i))].reset_index(drop=True)
            for c in _NUMERIC:
                a, b = got[c].to_numpy(float), want[c].to_numpy(float)
                worst = max(worst, float(np.max(np.abs(a - b) / np.maximum(np.abs(b), 1e-12))))
    per = statistics.median(times)
    out.update({
        "analyze_per_scenario_ms": 1e3 * per,
        "analyze_sample": len(picks),
        "analyze_loop_scenarios_per_s": 1.0 / per,
        "speedup_vs_analyze_loop": res.scenarios_per_s * per,
        "max_rel_diff_vs_analyze": worst,
    })
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="400 scenarios instead of 10,000")
    parser.add_argument("--chunk-size", type=int, default=None)
    parser.add_argument("--full-analysis", action="store_true",
                        help="every scenario by the full analysis (no summary arrays)")
    args = parser.parse_args(argv)
    r = run(workers=args.workers, quick=args.quick, chunk_size=args.chunk_size,
            summary_arrays=not args.full_analysis)
    print(f"sweep {r['sweep']}: {r['scenarios']:,} scenarios x {r['storms']} storms, "
          f"{r['failed']} failed, {r['tasks']} tasks on {r['workers']} worker processes")
    print(f"  wall {r['wall_s']:.1f} s -> {r['scenarios_per_s']:.1f} scenarios/s; peak RSS "
          f"per worker {r['worker_peak_rss_mb_max']:.0f} MB (sum {r['worker_peak_rss_mb_sum']:.0f}"
          f" MB); caller grew by {r['caller_rss_growth_mb']:.0f} MB")
    print(f"  task CPU {r['task_cpu_s']:.1f} s = {r['cpu_ms_per_scenario']:.2f} ms per scenario "
          f"-> {r['free_cores_scenarios_per_s']:.0f} scenarios/s on {r['workers']} free cores "
          "(tasks only: no start-up, planning or writing)")
    p = r.get("paths") or {}
    if p:
        print(f"  scenarios by the summary arrays: {p.get('summary_arrays', 0):,}, by the full "
              f"analysis: {p.get('full_analysis', 0):,}"
              + "".join(f"; {n:,} because {why}" for why, n in p.get("reasons", {}).items()))
    print(f"  analyze() per scenario, one process: {r['analyze_per_scenario_ms']:.1f} ms "
          f"({r['analyze_loop_scenarios_per_s']:.1f}/s) -> batch "
          f"{r['speedup_vs_analyze_loop']:.1f}x; max rel. diff "
          f"{r['max_rel_diff_vs_analyze']:.1e}")
    return r


if __name__ == "__main__":
    main()
