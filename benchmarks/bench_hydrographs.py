"""Benchmark: NRCS runoff hydrographs for many subcatchments x storms.

Times :func:`hydrocalc.hydrograph.runoff_hydrographs` (one vectorized call: all unit
hydrographs by one interpolation, one FFT convolution per storm) against a plain Python loop
over subcatchments and storms that calls ``np.convolve`` for each hydrograph (the obvious
implementation), on the same inputs, and checks that both give the same ordinates.

Two floors show what any FFT batch must spend: allocating and writing the result once
(``floor_output_write_s``) and one forward plus one inverse real FFT per hydrograph at the
batch's FFT length (``floor_fft_only_s``), with the same library and calls as the batch
(``numpy.fft`` writing into preallocated buffers, blocks of the batch's block size) and
nothing else; ``max_speedup_fft_method`` is the loop's time over their sum, the ceiling of
the ratio for this method on one core. The batch and the floors are timed interleaved (one
of each per repeat), so a change in the machine's load hits all three alike;
``ratio_to_floors_cpu`` (CPU-time medians) is the figure least disturbed by other jobs.
The batch also transforms each subcatchment's unit hydrograph once (1,000 more forward FFTs
of the same length); they are timed interleaved too and reported beside the floor
(``fft_unit_hydrographs_cpu_s``, ``ratio_to_floors_and_uh_fft_cpu``), but the judged floor
stays the 2 x m x n transforms of the excess plus the write.

``floor_fft_alloc_s`` is reported for reference only: the same transforms through
``scipy.fft`` with a fresh result array per call, as this floor was measured before. In
this script (after the large arrays above) it costs the same as the floor; in a fresh
process glibc may return each ~0.7 MB result to the system and fault it in again, which
was measured to cost as much as the transforms themselves, which is why the batch and
the floor write into preallocated buffers.

The batch has one implementation (numpy passes; the numba passes were removed: no site,
report, CLI run or sweep reached their size threshold, so they bought nothing on real work).
``batch_numpy_cpu_median_s`` and ``ratio_to_floors_numpy_cpu`` time the same call again,
interleaved, and are kept for comparison with earlier runs.

Run ``python benchmarks/bench_hydrographs.py`` (add ``--quick`` for a smaller case), or
import :func:`run` (returns a dict) from ``benchmarks/run_all.py``. Not a test: nothing here
asserts a time.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import time

import numpy as np

from hydrocalc.data import load_table
from hydrocalc.hydrograph import runoff_hydrograph, runoff_hydrographs
from hydrocalc.rainfall import design_storm

#: The six design storms of a typical NY site (illustrative 24-h depths), NRCS Type III.
STORM_DEPTHS_IN = {"1yr": 2.8, "2yr": 3.4, "10yr": 5.1, "25yr": 6.0, "50yr": 6.9, "100yr": 7.9}


def make_inputs(n_sub: int = 1000, n_storms: int = 6, *, seed: int = 0):
    """Random but reproducible subcatchments (area, CN, Tc) and ``n_storms`` Type III storms."""
    rng = np.random.default_rng(seed)
    area_ac = rng.uniform(0.1, 50.0, n_sub)
    cn = rng.uniform(55.0, 98.0, n_sub)
    tc_hr = rng.uniform(0.1, 1.0, n_sub)
    depths = list(STORM_DEPTHS_IN.items())
    storms = [design_storm(depths[i % len(depths)][1] * (1 + i // len(depths)),
                           distribution="III", dt_hr=0.1, name=depths[i % len(depths)][0])
              for i in range(n_storms)]
    return area_ac, cn, tc_hr, storms


def loop_convolve(area_ac, cn, tc_hr, storms, *, dt_hr: float, end_hr: float) -> np.ndarray:
    """Baseline: one Python iteration and one ``np.convolve`` per subcatchment and storm."""
    duh = load_table("nrcs_dimensionless_uh")
    t_tab, q_tab = duh.t_over_tp.to_numpy(), duh.q_over_qp.to_numpy()
    nt = int(round(end_hr / dt_hr)) + 1
    out = np.zeros((len(storms), len(area_ac), nt))
    for i, storm in enumerate(storms):
        t = dt_hr * np.arange(int(round(storm.duration_hr / dt_hr)) + 1)
        p = np.interp(t, storm.time_hr, storm.cumulative_in)
        for j in range(len(area_ac)):
            s = 1000.0 / cn[j] - 10.0
            q_cum = np.where(p > 0.2 * s, (p - 0.2 * s) ** 2 / (p + 0.8 * s), 0.0)
            tp = dt_hr / 2.0 + 0.6 * tc_hr[j]
            tu = dt_hr * np.arange(int(np.ceil(5.0 * tp / dt_hr)) + 2)
            u = np.interp(tu / tp, t_tab, q_tab, right=0.0)
            u *= area_ac[j] * 43560.0 / 12.0 / (u.sum() * dt_hr * 3600.0)
            q = np.convolve(np.diff(q_cum), u)
            out[i, j, : min(q.size, nt)] = q[:nt]
    return out


def loop_single_form(area_ac, cn, tc_hr, storms, *, dt_hr: float, end_hr: float) -> np.ndarray:
    """Second reference: the public single form :func:`runoff_hydrograph` called in a loop."""
    nt = int(round(end_hr / dt_hr)) + 1
    out = np.zeros((len(storms), len(area_ac), nt))
    for i, storm in enumerate(storms):
        for j in range(len(area_ac)):
            out[i, j] = runoff_hydrograph(area_ac[j], cn[j], tc_hr[j], storm, dt_hr=dt_hr,
                                          end_hr=end_hr).flow_cfs
    return out


def output_write(m: int, n: int, nt: int) -> np.ndarray:
    """Floor 1: allocate the (m, n, nt) float64 result and write every ordinate once."""
    out = np.zeros((m, n, nt))
    out[...] = 1.0
    return out


def fft_only(m: int, n: int, nfft: int, block: int | None = None) -> None:
    """Floor 2: the transforms the FFT method cannot avoid, one forward and one inverse real
    FFT of length ``nfft`` per hydrograph (``m * n`` pairs, in blocks of ``block`` rows,
    the batch's block size by default), with the batch's calls (``numpy.fft`` writing into
    preallocated buffers) and no other work. The transforms of the unit hydrographs
    themselves (one per subcatchment) are not counted, so the floor is on the low side."""
    from hydrocalc.hydrograph import _BLOCK

    block = _BLOCK if block is None else block
    rows = min(block, n)
    x = np.random.default_rng(0).random((rows, nfft))
    spectrum = np.empty((rows, nfft // 2 + 1), dtype=complex)
    y = np.empty((rows, nfft))
    for _ in range(m):
        for r0 in range(0, n, rows):
            k = min(rows, n - r0)
            np.fft.rfft(x[:k], axis=1, out=spectrum[:k])
            np.fft.irfft(spectrum[:k], nfft, axis=1, out=y[:k])


def fft_unit_hydrographs(n: int, nfft: int, block: int | None = None) -> None:
    """Reported, not part of the judged floor: the other transforms the batch must do, one
    forward real FFT of length ``nfft`` per subcatchment (its unit hydrograph's spectrum),
    in blocks of the batch's block size into a preallocated buffer, with the batch's call."""
    from hydrocalc.hydrograph import _BLOCK

    block = _BLOCK if block is None else block
    rows = min(block, n)
    x = np.random.default_rng(1).random((rows, nfft))
    spectrum = np.empty((rows, nfft // 2 + 1), dtype=complex)
    for r0 in range(0, n, rows):
        k = min(rows, n - r0)
        np.fft.rfft(x[:k], axis=1, out=spectrum[:k])


def fft_alloc(m: int, n: int, nfft: int, block: int = 32) -> None:
    """Reference only (not a floor): the same transforms through ``scipy.fft`` with a fresh
    result array per call."""
    from scipy import fft

    x = np.random.default_rng(0).random((block, nfft))
    for _ in range(m):
        for r0 in range(0, n, block):
            k = min(block, n - r0)
            fft.irfft(fft.rfft(x[:k], axis=1), nfft, axis=1, overwrite_x=True)


def _batch_nfft(area_ac, cn, tc_hr, storms, dt_hr: float) -> int:
    """The FFT length runoff_hydrographs uses for these inputs (same rule as the code)."""
    from scipy import fft

    from hydrocalc.unit_hydrograph import effective_tc_hr, unit_hydrograph_ordinates

    n_uh = unit_hydrograph_ordinates(area_ac, effective_tc_hr(tc_hr), dt_hr=dt_hr).shape[1]
    ia_min = 0.2 * (1000.0 / np.max(cn) - 10.0)
    grids = [np.interp(dt_hr * np.arange(int(np.ceil(s.duration_hr / dt_hr - 1e-9)) + 1),
                       s.time_hr, s.cumulative_in) for s in storms]
    k_max = max(g.size for g in grids) - 1
    g = max(min(min(int(np.searchsorted(p, ia_min, side="right")) for p in grids), k_max), 1)
    return fft.next_fast_len(k_max + n_uh - g, real=True)


def _median_time(fn, repeats: int) -> tuple[float, list[float], object, float]:
    """Median wall time, all wall times, the last result and the median CPU time."""
    times, cpu, result = [], [], None
    for _ in range(repeats):
        c0, t0 = time.process_time(), time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    return statistics.median(times), times, result, statistics.median(cpu)


def run(n_sub: int = 1000, n_storms: int = 6, *, dt_hr: float = 0.01, tail_hr: float = 26.0,
        repeats: int = 7, loop_repeats: int = 3, seed: int = 0) -> dict:
    """Time the batch form and the loop baseline; return the results as a dict.

    Parameters
    ----------
    n_sub, n_storms : int
        Problem size (default 1,000 subcatchments x 6 storms).
    dt_hr : float
        Computation step (default 0.01 h). [h]
    tail_hr : float
        Time base after the 24-h storm (default 26 h, so 50 h in all). [h]
    repeats, loop_repeats : int
        Timed repetitions of the batch form and of the loop (medians are reported).
    """
    area_ac, cn, tc_hr, storms = make_inputs(n_sub, n_storms, seed=seed)
    end_hr = 24.0 + tail_hr
    call = lambda: runoff_hydrographs(area_ac, cn, tc_hr, storms, dt_hr=dt_hr,  # noqa: E731
                                      end_hr=end_hr)
    return _run(call, area_ac, cn, tc_hr, storms, n_sub, n_storms, dt_hr, end_hr, repeats,
                loop_repeats)


def _numpy_path(call):
    """``call()`` (the one implementation; kept as the numpy-path timing of earlier runs)."""
    return call()


def _run(call, area_ac, cn, tc_hr, storms, n_sub, n_storms, dt_hr, end_hr, repeats,
         loop_repeats) -> dict:
    # warm-up: imports (numba's start-up with the compiled passes), table cache,
    # first-touch of the output memory
    c0 = time.process_time()
    hs = call()
    first_cpu = time.process_time() - c0
    compiled = False
    plain = _numpy_path(call)
    identical = bool(np.array_equal(plain.flow_cfs, hs.flow_cfs)
                     and np.array_equal(plain.runoff_in, hs.runoff_in))
    del plain
    m, n, nt = hs.flow_cfs.shape
    nfft = _batch_nfft(area_ac, cn, tc_hr, storms, dt_hr)
    # The batch and its floors interleaved: one of each per repeat.
    interleaved = {"batch": call, "write": lambda: output_write(m, n, nt),
                   "fft": lambda: fft_only(m, n, nfft),
                   "fft_uh": lambda: fft_unit_hydrographs(n, nfft),
                   "batch_numpy": lambda: _numpy_path(call)}
    wall = {key: [] for key in interleaved}
    cpu = {key: [] for key in interleaved}
    for _ in range(repeats):
        for key, fn in interleaved.items():
            c0, t0 = time.process_time(), time.perf_counter()
            result = fn()
            wall[key].append(time.perf_counter() - t0)
            cpu[key].append(time.process_time() - c0)
            if key == "batch":
                hs = result
            del result
    med = {key: statistics.median(v) for key, v in wall.items()}
    med_cpu = {key: statistics.median(v) for key, v in cpu.items()}
    paired_cpu = statistics.median(
        b / (w + f) for b, w, f in zip(cpu["batch"], cpu["write"], cpu["fft"], strict=True))
    batch_s, batch_all, batch_cpu = med["batch"], wall["batch"], med_cpu["batch"]
    write_s, write_cpu, fft_s, fft_cpu = med["write"], med_cpu["write"], med["fft"], med_cpu["fft"]
    alloc_s, _, _, alloc_cpu = _median_time(lambda: fft_alloc(m, n, nfft), repeats)
    loop_s, loop_all, ref, loop_cpu = _median_time(
        lambda: loop_convolve(area_ac, cn, tc_hr, storms, dt_hr=dt_hr, end_hr=end_hr),
        loop_repeats)
    single_s, _, ref_single, single_cpu = _median_time(
        lambda: loop_single_form(area_ac, cn, tc_hr, storms, dt_hr=dt_hr, end_hr=end_hr), 1)
    scale = np.maximum(ref.max(axis=2, keepdims=True), 1e-300)
    max_rel_diff = float(np.max(np.abs(hs.flow_cfs - ref) / scale))
    max_rel_diff_single = float(np.max(np.abs(hs.flow_cfs - ref_single) / scale))
    return {
        "benchmark": "runoff_hydrographs",
        "n_subcatchments": n_sub,
        "n_storms": n_storms,
        "dt_hr": dt_hr,
        "n_steps": int(hs.time_hr.size),
        "batch_median_s": batch_s,
        "batch_times_s": batch_all,
        "loop_median_s": loop_s,
        "loop_times_s": loop_all,
        "speedup": loop_s / batch_s,
        "batch_cpu_median_s": batch_cpu,
        "loop_cpu_median_s": loop_cpu,
        "speedup_cpu": loop_cpu / batch_cpu,
        "single_form_loop_cpu_s": single_cpu,
        "max_rel_diff_vs_loop": max_rel_diff,
        "single_form_loop_s": single_s,
        "speedup_vs_single_form_loop": single_s / batch_s,
        "max_rel_diff_vs_single_form": max_rel_diff_single,
        "output_mb": hs.flow_cfs.nbytes / 1e6,
        "floor_output_write_s": write_s,
        "floor_output_write_cpu_s": write_cpu,
        "nfft": nfft,
        "floor_fft_only_s": fft_s,
        "floor_fft_only_cpu_s": fft_cpu,
        "floor_write_times_s": wall["write"],
        "floor_fft_times_s": wall["fft"],
        "fft_unit_hydrographs_cpu_s": med_cpu["fft_uh"],
        "ratio_to_floors_and_uh_fft_cpu": batch_cpu / (write_cpu + fft_cpu + med_cpu["fft_uh"]),
        "floor_fft_alloc_s": alloc_s,
        "floor_fft_alloc_cpu_s": alloc_cpu,
        "compiled_passes": compiled,
        "first_call_cpu_s": first_cpu,
        "batch_numpy_cpu_median_s": med_cpu["batch_numpy"],
        "ratio_to_floors_numpy_cpu": med_cpu["batch_numpy"] / (write_cpu + fft_cpu),
        "numpy_path_identical": identical,
        "floors_s": write_s + fft_s,
        "floors_cpu_s": write_cpu + fft_cpu,
        "ratio_to_floors": batch_s / (write_s + fft_s),
        "ratio_to_floors_cpu": batch_cpu / (write_cpu + fft_cpu),
        "ratio_to_floors_paired_cpu": paired_cpu,
        "repeats": repeats,
        # the best any FFT batch could do: transforms plus writing the result, nothing else
        "max_speedup_fft_method": loop_s / (write_s + fft_s),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "machine": f"{platform.machine()}, {os.cpu_count()} logical CPUs",
        "threads_env": {k: os.environ.get(k) for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")},
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="100 subcatchments x 2 storms")
    parser.add_argument("--json", action="store_true", help="print the result dict as JSON")
    parser.add_argument("--repeats", type=int, default=7,
                        help="interleaved repeats of the batch and its floors (default 7)")
    args = parser.parse_args(argv)
    result = run(100, 2, repeats=3, loop_repeats=1) if args.quick else run(repeats=args.repeats)
    if args.json:
        print(json.dumps(result, indent=1))
    else:
        print(f"runoff_hydrographs: {result['n_subcatchments']} subcatchments x "
              f"{result['n_storms']} storms, dt = {result['dt_hr']} h, "
              f"{result['n_steps']} steps ({result['output_mb']:.0f} MB of ordinates)")
        print("  (medians; wall clock, and CPU time of this process in brackets)")
        print(f"  batch (one call)               {result['batch_median_s']:.3f} s "
              f"[{result['batch_cpu_median_s']:.3f} s]")
        print(f"  loop of np.convolve            {result['loop_median_s']:.3f} s "
              f"[{result['loop_cpu_median_s']:.3f} s]")
        print(f"  speed-up vs np.convolve loop   {result['speedup']:.1f} x "
              f"[{result['speedup_cpu']:.1f} x]")
        print(f"  loop of runoff_hydrograph      {result['single_form_loop_s']:.3f} s "
              f"[{result['single_form_loop_cpu_s']:.3f} s] (1 run)")
        print(f"  speed-up vs single-form loop   "
              f"{result['speedup_vs_single_form_loop']:.1f} x")
        print(f"  floor: write the {result['output_mb']:.0f} MB result   "
              f"{result['floor_output_write_s']:.3f} s "
              f"[{result['floor_output_write_cpu_s']:.3f} s]")
        print(f"  floor: {2 * result['n_storms'] * result['n_subcatchments']:,} real FFTs "
              f"of {result['nfft']}  {result['floor_fft_only_s']:.3f} s "
              f"[{result['floor_fft_only_cpu_s']:.3f} s]")
        print(f"  batch / floors                 {result['ratio_to_floors']:.2f} x "
              f"[{result['ratio_to_floors_cpu']:.2f} x; median of the {result['repeats']} "
              f"paired CPU ratios {result['ratio_to_floors_paired_cpu']:.2f} x]")
        print(f"  compiled passes (numba): {'on' if result['compiled_passes'] else 'off'}; "
              f"numpy path [{result['batch_numpy_cpu_median_s']:.3f} s] = "
              f"[{result['ratio_to_floors_numpy_cpu']:.2f} x] the floors, identical: "
              f"{result['numpy_path_identical']}; warm-up call incl. start-up "
              f"[{result['first_call_cpu_s']:.3f} s]")
        print(f"  (not in the floor: the {result['n_subcatchments']:,} unit-hydrograph FFTs "
              f"[{result['fft_unit_hydrographs_cpu_s']:.3f} s]; batch / (floors + them) "
              f"[{result['ratio_to_floors_and_uh_fft_cpu']:.2f} x])")
        print(f"  (reference, not a floor: the FFTs with a fresh scipy.fft result per call "
              f"{result['floor_fft_alloc_s']:.3f} s [{result['floor_fft_alloc_cpu_s']:.3f} s])")
        print(f"  ceiling of an FFT batch vs the loop  "
              f"{result['max_speedup_fft_method']:.1f} x")
        print(f"  max |batch - loop| / peak = {result['max_rel_diff_vs_loop']:.2e}, "
              f"vs single form {result['max_rel_diff_vs_single_form']:.2e}")
    return result


if __name__ == "__main__":
    main()
