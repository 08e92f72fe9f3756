"""Benchmark: the cost of a tailwater per pond-storm (free vs constant vs time-varying).

Same synthetic ponds and storms as ``bench_routing.py`` (trapezoidal basins, orifice +
contracted weir, a V-notch on a third; gamma storms; dt 0.01 h, 24 h = 2,401 steps).
Per pond-storm, interleaved in one loop so that machine load hits every variant alike:

* single routes (:func:`hydrocalc.hydraulics.routing.route_reservoir`): free outfall; a
  constant tailwater at half the lowest device above the bottom (the orifice drowned); a
  tailwater series rising from 0 to that level at 2 h and falling back (the default method,
  bilinear on a stage x tailwater grid); and, on a quarter of the sample, the exact
  evaluation at every step's tailwater
  (``hydrocalc.hydraulics.routing.tailwater.route_with_tailwater_series_exact``, the former
  method) for reference;
* the batch (:func:`hydrocalc.hydraulics.routing.route_reservoirs`): free vs one constant
  tailwater per pond (a series is single-route only), three interleaved repeats, medians.

The target: a tailwater costs at most 2x the free outfall per pond-storm. :func:`run` returns
medians (ms per pond-storm), ratios and the grid method's largest peak difference from the
exact one over the sample.

Run: ``.venv/bin/python benchmarks/bench_tailwater.py [--sample 24] [--batch-ponds 200]``
"""

from __future__ import annotations

import argparse
import pathlib
import statistics
import sys
import time
import warnings

import numpy as np

from hydrocalc.hydraulics.routing import route_reservoir, route_reservoirs, tailwater_series
from hydrocalc.hydraulics.routing.reservoir import _prepare
from hydrocalc.hydraulics.routing.tailwater import route_with_tailwater_series_exact
from hydrocalc.hydrograph import Hydrograph

HERE = pathlib.Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

# this sibling module is importable once this folder is on sys.path
from bench_routing import DT_HR, DURATION_HR, make_inflows, make_ponds  # noqa: E402

TARGET = 2.0


def _tw_level(structure) -> float:
    return 0.5 * min(d.lowest_ft for d in structure.leaves() if d.lowest_ft > 0)


def run(sample: int = 24, batch_ponds: int = 200, seed: int = 20240601,
        verbose: bool = True) -> dict:
    """Time free / constant / series tailwater per pond-storm; see the module docstring."""
    ponds, structures, v_ref = make_ponds(max(batch_ponds, sample))
    q = make_inflows(v_ref)                                  # (storms, ponds, nt)
    m, k, nt = q.shape
    t = np.arange(nt) * DT_HR
    rng = np.random.default_rng(seed + 7)
    picks = [(int(rng.integers(m)), int(rng.integers(k))) for _ in range(sample)]
    times = {"free": [], "constant": [], "series": [], "exact": []}
    peak_diff = 0.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        route_reservoir(Hydrograph(t, q[0, 0]), ponds[0], structures[0])      # warm-up
        for n, (i_s, j_p) in enumerate(picks):
            inflow = Hydrograph(t, q[i_s, j_p])
            ss, st = ponds[j_p], structures[j_p]
            level = _tw_level(st)
            series = (np.array([0.0, 2.0, 6.0, DURATION_HR]),
                      np.array([0.0, 1.0, 0.5, 0.0]) * level)
            t0 = time.perf_counter()
            route_reservoir(inflow, ss, st)
            times["free"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            route_reservoir(inflow, ss, st, tailwater_ft=level)
            times["constant"].append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            grid = route_reservoir(inflow, ss, st, tailwater_ft=series)
            times["series"].append(time.perf_counter() - t0)
            if n % 4 == 0:
                t0 = time.perf_counter()
                structure, tt, qq, dt = _prepare(inflow, ss, st, None, None)
                tw = tailwater_series(series, tt, ss)
                exact = route_with_tailwater_series_exact("", tt, qq, dt, ss, structure, 0.0,
                                                          tw, 400, False)
                times["exact"].append(time.perf_counter() - t0)
                peak_diff = max(peak_diff,
                                abs(grid.peak_outflow_cfs / exact.peak_outflow_cfs - 1),
                                abs(grid.peak_stage_ft / exact.peak_stage_ft - 1))
        qb = q[:, :batch_ponds]
        tw_const = np.array([_tw_level(s) for s in structures[:batch_ponds]])
        route_reservoirs(qb[:, :2], DT_HR, ponds[:2], structures[:2])          # warm-up
        b_free, b_const = [], []
        for _ in range(3):                      # interleaved repeats, medians
            t0 = time.perf_counter()
            route_reservoirs(qb, DT_HR, ponds[:batch_ponds], structures[:batch_ponds])
            b_free.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            route_reservoirs(qb, DT_HR, ponds[:batch_ponds], structures[:batch_ponds],
                             tailwater_ft=tw_const)
            b_const.append(time.perf_counter() - t0)
        batch_free, batch_const = statistics.median(b_free), statistics.median(b_const)
    med = {key: 1e3 * statistics.median(v) for key, v in times.items()}
    per = m * batch_ponds
    out = {
        "sample": sample, "n_steps": nt, "dt_hr": DT_HR, "batch_pond_storms": per,
        "single_free_ms": med["free"], "single_constant_ms": med["constant"],
        "single_series_ms": med["series"], "single_series_exact_ms": med["exact"],
        "single_constant_factor": med["constant"] / med["free"],
        "single_series_factor": med["series"] / med["free"],
        "single_series_exact_factor": med["exact"] / med["free"],
        "batch_free_per_pond_storm_ms": 1e3 * batch_free / per,
        "batch_constant_per_pond_storm_ms": 1e3 * batch_const / per,
        "batch_constant_factor": batch_const / batch_free,
        "series_vs_exact_max_rel_peak_diff": peak_diff,
        "target_factor": TARGET,
    }
    out["target_met"] = bool(out["single_series_factor"] <= TARGET
                             and out["single_constant_factor"] <= TARGET
                             and out["batch_constant_factor"] <= TARGET)
    if verbose:
        print(f"tailwater cost per pond-storm ({nt:,} steps; single routes: median of {sample})")
        print(f"  single free      {med['free']:.2f} ms")
        print(f"  single constant  {med['constant']:.2f} ms "
              f"({out['single_constant_factor']:.2f}x)")
        print(f"  single series    {med['series']:.2f} ms ({out['single_series_factor']:.2f}x; "
              f"exact evaluation {med['exact']:.1f} ms = "
              f"{out['single_series_exact_factor']:.1f}x, peaks within "
              f"{100 * peak_diff:.4f} %)")
        print(f"  batch free       {out['batch_free_per_pond_storm_ms']:.3f} ms, constant "
              f"{out['batch_constant_per_pond_storm_ms']:.3f} ms "
              f"({out['batch_constant_factor']:.2f}x), {per:,} pond-storms")
        print(f"  target <= {TARGET:g}x free outfall: {'met' if out['target_met'] else 'NOT met'}")
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=24)
    parser.add_argument("--batch-ponds", type=int, default=200)
    args = parser.parse_args(argv)
    return run(sample=args.sample, batch_ponds=args.batch_ponds)


if __name__ == "__main__":
    main()
