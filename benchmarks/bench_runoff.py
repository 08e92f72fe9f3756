"""Runoff depth for 10^7 (P, CN) pairs: hydrocalc.runoff.runoff_depth vs the bare numpy
expression (the floor) and vs the WikiWatershed ``tr55`` package, cell by cell.

The floor is the shortest correct numpy form of TR-55 Eqs. 2-1 to 2-4 (no validation, no
container handling; whole arrays, so about nine 80 MB temporaries):

    s = 1000 / cn - 10;  e = max(P - 0.2 s, 0);  Q = where(e > 0, e^2 / (e + s), 0)

``tr55.model.runoff_nrcs(precip, evaptrans, soil_type, land_use)`` takes a soil group and a
land use, looks the CN up in its own table and computes one cell in pure Python. The
benchmark therefore draws every pair's CN from tr55's table (a random soil/land-use
combination; CNs of the shipped WikiWatershed table), so both libraries compute the same
numbers; tr55 is timed on a subsample (default 100,000 cells) and its time per cell
extrapolated linearly to 10^7 (the per-cell cost is constant: no vectorization, no caching
that grows with n). The result says so in ``tr55_extrapolated``.

Run alone: ``.venv/bin/python benchmarks/bench_runoff.py [--n 10000000] [--tr55-sample N]``.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np


def floor_runoff(precip_in: np.ndarray, cn: np.ndarray) -> np.ndarray:
    """The bare numpy expression (TR-55 Eqs. 2-1 to 2-4, lambda = 0.2). [in]"""
    s = 1000.0 / cn - 10.0
    e = np.maximum(precip_in - 0.2 * s, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(e > 0.0, e * e / (e + s), 0.0)


def blocked_runoff(precip_in: np.ndarray, cn: np.ndarray, block: int = 1 << 15) -> np.ndarray:
    """Reference only (not hydrocalc): the floor's arithmetic in cache-sized blocks with
    in-place ufuncs and no validation, to show how much of the floor is memory traffic.
    hydrocalc's ``runoff_depth`` evaluates large inputs the same way (after validating
    them), so it lands close to this. [in]"""
    out = np.empty_like(precip_in)
    s, e, d = np.empty(block), np.empty(block), np.empty(block)
    zero = np.empty(block, dtype=bool)
    with np.errstate(invalid="ignore", divide="ignore"):
        for i in range(0, precip_in.size, block):
            j = min(i + block, precip_in.size)
            k = j - i
            ss, ee, dd, zz, o = s[:k], e[:k], d[:k], zero[:k], out[i:j]
            np.divide(1000.0, cn[i:j], out=ss)
            ss -= 10.0
            np.multiply(ss, -0.2, out=ee)
            ee += precip_in[i:j]
            np.maximum(ee, 0.0, out=ee)
            np.add(ee, ss, out=dd)
            np.multiply(ee, ee, out=o)
            np.divide(o, dd, out=o)
            np.less_equal(ee, 0.0, out=zz)
            o[zz] = 0.0
    return out


def make_pairs(n: int, seed: int = 0):
    """``n`` pairs: P uniform in [0, 10] in; CN from tr55's table (or uniform 30-98)."""
    rng = np.random.default_rng(seed)
    precip = rng.uniform(0.0, 10.0, n)
    combos = _tr55_combos()
    if combos:
        pick = rng.integers(0, len(combos), n)
        cn = np.array([c[2] for c in combos], dtype=float)[pick]
    else:
        pick = None
        cn = rng.uniform(30.0, 98.0, n)
    return precip, cn, pick, combos


def _tr55_combos():
    try:
        from tr55.tablelookup import LAND_USE_VALUES
    except ImportError:
        return []
    out = []
    for lu, vals in sorted(LAND_USE_VALUES.items()):
        for soil, cn in sorted(vals.get("cn", {}).items()):
            if 0 < cn <= 100:
                out.append((soil, lu, float(cn)))
    return out


def _median(fn, repeats: int) -> tuple[float, list[float], object]:
    times, result = [], None
    for _ in range(repeats):
        t0 = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result


def _breakdown(precip, cn, repeats: int) -> dict:
    """Where runoff_depth spends its time beyond the floor (same data): the validation of
    both arrays (``validate_s``, :func:`~hydrocalc._validate.as_float_array`), the
    whole-array equations (``arithmetic_s``) and the output container (``like_s``)."""
    from hydrocalc import runoff
    from hydrocalc._validate import as_float_array, like

    def validate():
        as_float_array(precip, "precip_in", lower=0.0)
        as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)

    ratio = np.asarray(0.2)
    q = runoff._runoff_whole(precip, cn, ratio)
    return {
        "validate_s": _median(validate, repeats)[0],
        "arithmetic_s": _median(lambda: runoff._runoff_whole(precip, cn, ratio), repeats)[0],
        "as_float_array_s": _median(validate, repeats)[0],
        "like_s": _median(lambda: like(q, precip, cn), repeats)[0],
    }


def run(n: int = 10_000_000, *, repeats: int = 5, tr55_sample: int = 100_000,
        seed: int = 0) -> dict:
    """Time the implementations; return medians, ratios and agreement as a dict.

    The repeats are interleaved (floor, hydrocalc, blocked reference, then one slice of the
    tr55 subsample), so a machine whose load drifts affects all of them alike. Ratios are
    ratios of medians; ``*_paired`` keys give the median of the per-repeat ratios.
    """
    from hydrocalc.runoff import runoff_depth

    precip, cn, pick, combos = make_pairs(n, seed)
    floor_runoff(precip[:1000], cn[:1000])
    runoff_depth(precip[:1000], cn[:1000])
    fns = {"floor": lambda: floor_runoff(precip, cn), "hc": lambda: runoff_depth(precip, cn),
           "blocked": lambda: blocked_runoff(precip, cn)}
    slices, runoff_nrcs = [], None
    if combos:
        from tr55.model import runoff_nrcs

        k = min(int(tr55_sample), n)
        idx = np.random.default_rng(seed + 1).choice(n, k, replace=False)
        cells = [(float(precip[i]), combos[pick[i]][0], combos[pick[i]][1]) for i in idx]
        slices = [cells[r::repeats] for r in range(repeats)]
        runoff_nrcs(1.0, 0.0, combos[0][0], combos[0][1])
    times: dict[str, list[float]] = {k: [] for k in (*fns, "tr55_per_cell")}
    last: dict[str, np.ndarray] = {}
    q_tr55_parts = []
    for r in range(repeats):
        for key, fn in fns.items():
            last.pop(key, None)
            t0 = time.perf_counter()
            last[key] = fn()
            times[key].append(time.perf_counter() - t0)
        if slices:
            t0 = time.perf_counter()
            q_tr55_parts.append([runoff_nrcs(p, 0.0, soil, lu) for p, soil, lu in slices[r]])
            times["tr55_per_cell"].append((time.perf_counter() - t0) / len(slices[r]))
    floor_s, q_floor = statistics.median(times["floor"]), last["floor"]
    hc_s, q_hc = statistics.median(times["hc"]), last["hc"]
    blocked_s, q_blocked = statistics.median(times["blocked"]), last["blocked"]
    del last
    out: dict = {
        "benchmark": "runoff_depth", "n_pairs": n, "repeats": repeats,
        "floor_median_s": floor_s, "floor_times_s": times["floor"],
        "hydrocalc_median_s": hc_s, "hydrocalc_times_s": times["hc"],
        "hydrocalc_over_floor": hc_s / floor_s,
        "hydrocalc_over_floor_paired": statistics.median(
            h / f for h, f in zip(times["hc"], times["floor"], strict=True)),
        "max_abs_diff_vs_floor_in": float(np.max(np.abs(q_hc - q_floor))),
        "blocked_median_s": blocked_s,
        "blocked_max_abs_diff_in": float(np.max(np.abs(q_blocked - q_floor))),
        "breakdown": _breakdown(precip, cn, repeats),
    }
    del q_floor, q_blocked
    if not combos:
        out["tr55"] = "skipped: the tr55 package is not installed (pip install tr55)"
        return out
    per_cell = statistics.median(times["tr55_per_cell"])
    q_tr55 = np.empty(len(cells))
    for r in range(repeats):
        q_tr55[r::repeats] = q_tr55_parts[r]
    out.update({
        "tr55_version": _version("tr55"),
        "tr55_sample": len(cells),
        "tr55_sample_s": per_cell * len(cells),
        "tr55_per_cell_us": 1e6 * per_cell,
        "tr55_per_cell_us_all": [1e6 * t for t in times["tr55_per_cell"]],
        "tr55_extrapolated": len(cells) < n,
        "tr55_estimated_s": per_cell * n,
        "hydrocalc_speedup_vs_tr55": per_cell * n / hc_s,
        "hydrocalc_speedup_vs_tr55_paired": statistics.median(
            t * n / h for t, h in zip(times["tr55_per_cell"], times["hc"], strict=True)),
        "max_abs_diff_vs_tr55_in": float(np.max(np.abs(q_hc[idx] - q_tr55))),
    })
    return out


def _version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return "?"


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--tr55-sample", type=int, default=100_000)
    args = parser.parse_args(argv)
    r = run(args.n, repeats=args.repeats, tr55_sample=args.tr55_sample)
    b = r["breakdown"]
    print(f"runoff depth, {r['n_pairs']:,} (P, CN) pairs, median of {r['repeats']}:")
    print(f"  numpy floor          {r['floor_median_s']:.3f} s")
    print(f"  hydrocalc            {r['hydrocalc_median_s']:.3f} s  "
          f"({r['hydrocalc_over_floor']:.2f}x the floor; validation "
          f"{b['validate_s']:.3f} s, arithmetic {b['arithmetic_s']:.3f} s, like() "
          f"{b['like_s']:.4f} s; stand-alone as_float_array {b['as_float_array_s']:.3f} s)")
    print(f"  blocked in-place     {r['blocked_median_s']:.3f} s  (reference only, not "
          "hydrocalc: the floor's arithmetic in 32k-element blocks)")
    if isinstance(r.get("tr55"), str):
        print(f"  tr55                 {r['tr55']}")
    else:
        print(f"  tr55 {r['tr55_version']:<15} {r['tr55_estimated_s']:.1f} s estimated from "
              f"{r['tr55_sample']:,} cells ({r['tr55_per_cell_us']:.2f} us/cell) -> hydrocalc "
              f"{r['hydrocalc_speedup_vs_tr55']:.0f}x faster; max |diff| "
              f"{r['max_abs_diff_vs_tr55_in']:.1e} in")
    return r


if __name__ == "__main__":
    main()
