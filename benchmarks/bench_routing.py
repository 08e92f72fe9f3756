"""Benchmark: batch storage-indication routing vs EPA SWMM 5 (pyswmm) vs a per-pond loop.

Routes ``n_ponds`` synthetic ponds x ``n_storms`` storms (dt 0.01 h, 24 h) in one
:func:`hydrocalc.hydraulics.routing.route_reservoirs` call, then routes a sample of the same
pond-storms with SWMM 5 through pyswmm (dynamic wave, fixed routing step) and with a Python loop of
:func:`hydrocalc.hydraulics.routing.route_reservoir`, extrapolating per pond-storm. Prints medians,
ratios and the peak agreement; :func:`run` returns them as a dict (for benchmarks/run_all.py).

Two comparisons with SWMM, because they answer different questions:

* **batch, per pond-storm**: the batch call's time divided by its 6,000 pond-storms against
  one SWMM run (a sweep or a site with many ponds and storms);
* **single call**: one pond routed alone, as a user does it: one ``route_reservoir`` call
  (the hydrograph wrapped, the routing table built, the result assembled) against one SWMM
  run (``.inp`` written, engine started, run, statistics read) of the same pond-storm,
  timed back to back in this warm process; ``single_call_cold_s`` is the first
  ``route_reservoir`` call of a fresh Python process (imports excluded, first-use set-up
  included).

Ponds: trapezoidal basins given as stage-area tables at 0.5-ft steps (average-end-area
method, which is also SWMM's, so both engines see the same storage), a circular orifice at
the bottom, a rectangular weir with two end contractions higher up and, for a third of the
ponds, a V-notch weir. Storms: gamma-shaped hydrographs (shape 3.7, the NRCS dimensionless
unit hydrograph's) with times to peak 0.5-3 h, scaled to each pond's storage.

Run: ``.venv/bin/python benchmarks/bench_routing.py [--ponds 1000] [--swmm-sample 24]``
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import tempfile
import time
import warnings

import numpy as np

from hydrocalc.hydraulics.outlets import (
    CircularOrifice,
    OutletStructure,
    RectangularWeir,
    VNotchWeir,
)
from hydrocalc.hydraulics.pond_file import to_swmm_inp
from hydrocalc.hydraulics.routing import StageStorage, route_reservoir, route_reservoirs
from hydrocalc.hydrograph import Hydrograph

DT_HR = 0.01
DURATION_HR = 24.0
STORM_TP_HR = (0.5, 0.75, 1.0, 1.5, 2.0, 3.0)
STORM_VOLUME_RATIO = (0.6, 0.8, 1.0, 1.2, 1.4, 1.6)   # inflow volume / storage below the weir


def make_ponds(n_ponds: int, seed: int = 20240601):
    """Synthetic ordinary ponds: (stage_storages, structures, storage below weir crest)."""
    rng = np.random.default_rng(seed)
    ponds, structures, v_ref = [], [], []
    for i in range(n_ponds):
        length = rng.uniform(60, 220)
        width = rng.uniform(30, 110)
        z = rng.uniform(0, 3)
        depth = rng.choice([5.0, 6.0, 7.0, 8.0])
        h = np.arange(0.0, depth + 1e-9, 0.5)
        area = (length + 2 * z * h) * (width + 2 * z * h)
        ss = StageStorage.from_areas(h, area, method="average_end_area", name=f"P{i}")
        crest = round(float(rng.uniform(0.55, 0.7) * depth), 2)
        devices = [CircularOrifice(round(float(rng.uniform(4, 12)), 1), 0.0),
                   RectangularWeir(round(float(rng.uniform(2, 8)), 1), crest, end_contractions=2)]
        if i % 3 == 0:
            devices.append(VNotchWeir(90.0, round(crest - 1.0, 2)))
        ponds.append(ss)
        structures.append(OutletStructure(devices, name=f"P{i}"))
        v_ref.append(float(ss.storage_ft3(crest)))
    return ponds, structures, np.array(v_ref)


def make_inflows(v_ref: np.ndarray) -> np.ndarray:
    """Inflow ordinates (n_storms, n_ponds, nt), gamma shape m = 3.7."""
    t = np.arange(0.0, DURATION_HR + DT_HR / 2, DT_HR)
    m = 3.7
    shapes = []
    for tp, ratio in zip(STORM_TP_HR, STORM_VOLUME_RATIO, strict=True):
        s = (t / tp) ** m * np.exp(m * (1 - t / tp))
        s = s / np.trapezoid(s, dx=DT_HR * 3600.0) * ratio
        shapes.append(s)
    return np.stack(shapes)[:, None, :] * v_ref[None, :, None]


def _run_swmm(text: str, workdir: pathlib.Path, tag: str) -> tuple[float, float]:
    from pyswmm import Nodes, Simulation

    path = workdir / f"{tag}.inp"
    path.write_text(text)
    with Simulation(str(path)) as sim:
        sim.step_advance(10 * 86400)
        for _ in sim:
            pass
        nodes = Nodes(sim)
        stage = nodes["SU1"].statistics["max_depth"]
        peak = 0.0
        i = 1
        while True:
            try:
                node = nodes[f"OUT{i}"]
            except Exception:   # pyswmm raises its own error past the last outfall
                break
            peak += node.outfall_statistics["peak_flowrate"]
            i += 1
    return peak, stage


def run(n_ponds: int = 1000, swmm_sample: int = 24, loop_sample: int = 120,
        swmm_steps_s: tuple[float, ...] = (5.0, 30.0), seed: int = 20240601,
        verbose: bool = True) -> dict:
    """Run the benchmark; return timings and agreement as a dict."""
    ponds, structures, v_ref = make_ponds(n_ponds, seed)
    q = make_inflows(v_ref)
    m, k, nt = q.shape
    out: dict = {"n_ponds": k, "n_storms": m, "nt": nt, "dt_hr": DT_HR}

    # batch: one call
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        batch = route_reservoirs(q, DT_HR, ponds, structures)
        t_batch = time.perf_counter() - t0
        t0 = time.perf_counter()
        route_reservoirs(q, DT_HR, ponds, structures, keep="peaks")
        t_batch_peaks = time.perf_counter() - t0
    out["batch_total_s"] = t_batch
    out["batch_per_pond_storm_ms"] = 1e3 * t_batch / (m * k)
    out["batch_peaks_only_per_pond_storm_ms"] = 1e3 * t_batch_peaks / (m * k)
    out["overtopped"] = int(batch.overtopped.sum())
    out["attenuation_median"] = float(np.median(batch.peak_outflow_cfs / q.max(axis=-1)))

    rng = np.random.default_rng(seed + 1)
    t = np.arange(nt) * DT_HR

    # per-pond loop of route_reservoir
    picks = [(int(rng.integers(m)), int(rng.integers(k))) for _ in range(loop_sample)]
    times, max_rel = [], 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for i_s, j_p in picks:
            t0 = time.perf_counter()
            r = route_reservoir(Hydrograph(t, q[i_s, j_p]), ponds[j_p], structures[j_p])
            times.append(time.perf_counter() - t0)
            max_rel = max(max_rel, abs(r.peak_outflow_cfs / batch.peak_outflow_cfs[i_s, j_p] - 1))
    out["loop_median_per_pond_storm_ms"] = 1e3 * statistics.median(times)
    out["loop_vs_batch_max_rel_diff_peak"] = max_rel
    out["speedup_batch_vs_loop"] = out["loop_median_per_pond_storm_ms"] / out[
        "batch_per_pond_storm_ms"]

    # tailwater: constant (batch, one table per pond) and series (route_reservoir, one
    # table row per step), against the free outfall on the same ponds and storms
    tw_const = np.array([0.5 * min(d.lowest_ft for d in st.leaves() if d.lowest_ft > 0)
                         for st in structures])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t0 = time.perf_counter()
        route_reservoirs(q, DT_HR, ponds, structures, tailwater_ft=tw_const)
        out["batch_constant_tailwater_per_pond_storm_ms"] = (
            1e3 * (time.perf_counter() - t0) / (m * k))
        free_t, series_t = [], []
        for i_s, j_p in picks[: max(1, loop_sample // 4)]:
            tw = (np.array([0.0, 2.0, 6.0, DURATION_HR]),
                  np.array([0.0, 1.0, 0.5, 0.0]) * tw_const[j_p])
            inflow = Hydrograph(t, q[i_s, j_p])
            t0 = time.perf_counter()
            route_reservoir(inflow, ponds[j_p], structures[j_p])
            free_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            route_reservoir(inflow, ponds[j_p], structures[j_p], tailwater_ft=tw)
            series_t.append(time.perf_counter() - t0)
    out["tailwater_constant_batch_factor"] = (out["batch_constant_tailwater_per_pond_storm_ms"]
                                              / out["batch_per_pond_storm_ms"])
    out["tailwater_series_single_factor"] = statistics.median(series_t) / statistics.median(free_t)
    out["tailwater_series_single_median_ms"] = 1e3 * statistics.median(series_t)

    # SWMM 5 via pyswmm
    try:
        import pyswmm  # noqa: F401
    except ImportError:
        out["swmm"] = "pyswmm not installed (pip install hydrocalc[bench])"
    else:
        picks = [(int(rng.integers(m)), int(rng.integers(k))) for _ in range(swmm_sample)]
        workdir = pathlib.Path(tempfile.mkdtemp(prefix="bench_swmm_"))
        for step in swmm_steps_s:
            times, dq, dh, single = [], [], [], []
            for n, (i_s, j_p) in enumerate(picks):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    t0 = time.perf_counter()
                    route_reservoir(Hydrograph(t, q[i_s, j_p]), ponds[j_p], structures[j_p])
                    single.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                text = to_swmm_inp(Hydrograph(t, q[i_s, j_p]), ponds[j_p], structures[j_p],
                                   routing_step_s=step)
                peak, stage = _run_swmm(text, workdir, f"s{step:g}_{n}")
                times.append(time.perf_counter() - t0)
                dq.append(100 * (batch.peak_outflow_cfs[i_s, j_p] / peak - 1))
                dh.append(100 * (batch.peak_stage_ft[i_s, j_p] / stage - 1))
            key = f"swmm_dw_{step:g}s"
            med = 1e3 * statistics.median(times)
            out[key] = {
                "median_per_pond_storm_ms": med,
                "speedup_batch_vs_swmm": med / out["batch_per_pond_storm_ms"],
                "single_call_median_ms": 1e3 * statistics.median(single),
                "speedup_single_vs_swmm": statistics.median(
                    [a / b for a, b in zip(times, single, strict=True)]),
                "peak_outflow_diff_pct_median": float(np.median(np.abs(dq))),
                "peak_outflow_diff_pct_max": float(np.max(np.abs(dq))),
                "peak_stage_diff_pct_max": float(np.max(np.abs(dh))),
                "sample": len(picks),
            }
    out["single_call_cold_s"] = _cold_single_call()
    if verbose:
        _print(out)
    return out


_COLD = """
import time, warnings, numpy as np
from bench_routing import make_ponds, make_inflows, DT_HR
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.hydraulics.routing import route_reservoir
ponds, structures, v_ref = make_ponds(1)
q = make_inflows(v_ref)
t = np.arange(q.shape[-1]) * DT_HR
warnings.simplefilter("ignore")
t0 = time.perf_counter()
route_reservoir(Hydrograph(t, q[0, 0]), ponds[0], structures[0])
print(time.perf_counter() - t0)
"""


def _cold_single_call() -> float:
    """Seconds of the first ``route_reservoir`` call in a fresh Python process."""
    import subprocess
    import sys

    here = pathlib.Path(__file__).resolve().parent
    res = subprocess.run([sys.executable, "-c", _COLD], cwd=here, capture_output=True,
                         text=True, check=True)
    return float(res.stdout.strip().splitlines()[-1])


def _print(out: dict) -> None:
    print(f"routing benchmark: {out['n_ponds']} ponds x {out['n_storms']} storms, "
          f"nt = {out['nt']} (dt {out['dt_hr']} h), {out['overtopped']} overtopped, "
          f"median peak attenuation {out['attenuation_median']:.2f}")
    print(f"  batch route_reservoirs : {out['batch_total_s']:.2f} s total, "
          f"{out['batch_per_pond_storm_ms']:.3f} ms per pond-storm "
          f"(keep='peaks': {out['batch_peaks_only_per_pond_storm_ms']:.3f} ms)")
    print(f"  loop of route_reservoir: {out['loop_median_per_pond_storm_ms']:.2f} ms median "
          f"per pond-storm -> batch {out['speedup_batch_vs_loop']:.0f}x faster; max rel. "
          f"peak difference {out['loop_vs_batch_max_rel_diff_peak']:.1e}")
    print(f"  tailwater: constant, batch {out['batch_constant_tailwater_per_pond_storm_ms']:.3f} "
          f"ms per pond-storm ({out['tailwater_constant_batch_factor']:.2f}x the free outfall); "
          f"series, route_reservoir {out['tailwater_series_single_median_ms']:.1f} ms median "
          f"({out['tailwater_series_single_factor']:.2f}x the free outfall)")
    print("  first route_reservoir call in a fresh process (imports excluded): "
          f"{1e3 * out['single_call_cold_s']:.1f} ms")
    if isinstance(out.get("swmm"), str):
        print(f"  SWMM: {out['swmm']}")
    for key, val in out.items():
        if key.startswith("swmm_dw_"):
            print(f"  SWMM 5 ({key[8:]} dynamic-wave step, pyswmm, n={val['sample']}): "
                  f"{val['median_per_pond_storm_ms']:.1f} ms median per pond-storm -> batch "
                  f"{val['speedup_batch_vs_swmm']:.0f}x faster per pond-storm; one "
                  f"route_reservoir call {val['single_call_median_ms']:.1f} ms -> "
                  f"{val['speedup_single_vs_swmm']:.1f}x faster; peak outflow |diff| median "
                  f"{val['peak_outflow_diff_pct_median']:.3f} %, max "
                  f"{val['peak_outflow_diff_pct_max']:.3f} %; peak stage max "
                  f"{val['peak_stage_diff_pct_max']:.3f} %")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ponds", type=int, default=1000)
    parser.add_argument("--swmm-sample", type=int, default=24)
    parser.add_argument("--loop-sample", type=int, default=120)
    args = parser.parse_args()
    run(args.ponds, args.swmm_sample, args.loop_sample)
