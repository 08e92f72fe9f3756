"""Cost of ``hydrocalc run --json`` as a site grows from 1 to 1,000 subcatchments.

A synthetic site with ``n`` subcatchments in each scenario (pre: ``n`` catchments to one
design point; post: ``n`` catchments, half of them through one pond) and four design storms
is written to a temporary folder. For each ``n`` two fresh processes are timed, alternately:

- the analysis alone: ``python -c "import hydrocalc; analyze(load_site(SITE))"`` (import,
  load, analyse);
- the command: ``python -m hydrocalc run SITE --json OUT`` (the same, plus the verdict and
  the full results with every hydrograph ordinate written).

Wall time (median of ``--repeats``) and peak resident memory (``ru_maxrss`` of the child,
from :func:`os.wait4`) of each. Targets (at 1,000 subcatchments): command <= 2x the analysis
alone, peak memory < 1 GiB.

Run alone: ``.venv/bin/python benchmarks/bench_export.py [--repeats 3] [--sizes 1,10,100,1000]``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_RATIO = 2.0
TARGET_PEAK_MB = 1024.0

_HEAD = """\
[project]
name = "Export benchmark, {n} subcatchments"
municipality = "nys_generic"
receiving_water = "Test Brook"
drains_to_impaired_water = false
disturbed_area_ac = {area}
new_impervious_area_ac = {imp}
project_type = "commercial"

[storms]
distribution = "III"
wqv_precip_in = 1.2
wqv_precip_source = "benchmark"
[storms.depths_in]
"1yr" = 2.7
"2yr" = 3.3
"10yr" = 5.0
"100yr" = 8.0
"""

_POND = """
[[post.pond]]
id = "P-1"
to = "DP-1"
[post.pond.storage]
type = "basin"
bottom_length_ft = {length}
bottom_width_ft = 60
depth_ft = 5
side_slope_h_per_v = 3
[[post.pond.outlet]]
id = "orifice"
type = "circular_orifice"
diameter_in = 8
invert_ft = 0
[[post.pond.outlet]]
id = "weir"
type = "rectangular_weir"
length_ft = 8
crest_ft = 4
"""


def site_text(n: int) -> str:
    """A valid site file with ``n`` subcatchments in each scenario (0.5 ac each)."""
    parts = [_HEAD.format(n=n, area=0.5 * n, imp=0.1 * n)]
    for i in range(n):
        parts.append(f'\n[[pre.subcatchment]]\nid = "E-{i + 1}"\nto = "DP-1"\n'
                     f"area_ac = 0.5\ncn = {60 + i % 15}\ntc_hr = {0.15 + 0.01 * (i % 20):.2f}\n")
    parts.append('\n[[pre.design_point]]\nid = "DP-1"\n')
    for i in range(n):
        to = "P-1" if i % 2 == 0 else "DP-1"
        parts.append(f'\n[[post.subcatchment]]\nid = "S-{i + 1}"\nto = "{to}"\n'
                     f"area_ac = 0.5\ncn = {70 + i % 20}\ntc_hr = {0.1 + 0.01 * (i % 15):.2f}\n")
    parts.append(_POND.format(length=max(60, int(8 * n))))
    parts.append('\n[[post.design_point]]\nid = "DP-1"\n')
    return "".join(parts)


_ANALYZE = ("import warnings; warnings.simplefilter('ignore'); import hydrocalc; "
            "from hydrocalc.analysis import analyze; from hydrocalc.site import load_site; "
            "import sys; analyze(load_site(sys.argv[1]))")


def _child(cmd: list[str]) -> tuple[float, float]:
    """Wall time [s] and peak resident memory [MB] of one child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    err = proc.stderr.read().decode() if proc.stderr else ""
    if proc.stderr:
        proc.stderr.close()
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({proc.returncode}): {err[-400:]}")
    return wall, usage.ru_maxrss / 1024.0  # Linux: kB


def run(*, sizes=(1, 10, 100, 1000), repeats: int = 3) -> dict:
    """Time the analysis alone and ``run --json`` for each size; one row per size."""
    py = sys.executable
    rows = []
    with tempfile.TemporaryDirectory(prefix="hydrocalc-bench-export-") as tmp:
        for n in sizes:
            site = pathlib.Path(tmp) / f"site_{n}.toml"
            site.write_text(site_text(n), encoding="utf-8")
            out = pathlib.Path(tmp) / f"out_{n}.json"
            a_t, a_m, r_t, r_m = [], [], [], []
            for _ in range(repeats):
                t, m = _child([py, "-c", _ANALYZE, str(site)])
                a_t.append(t)
                a_m.append(m)
                t, m = _child([py, "-m", "hydrocalc", "run", str(site), "--json", str(out)])
                r_t.append(t)
                r_m.append(m)
            size_mb = sum(p.stat().st_size for p in pathlib.Path(tmp).glob(f"out_{n}*")) / 1e6
            row = {"subcatchments": n, "analysis_s": statistics.median(a_t),
                   "run_json_s": statistics.median(r_t), "analysis_peak_mb": max(a_m),
                   "run_json_peak_mb": max(r_m), "output_mb": size_mb}
            row["ratio"] = row["run_json_s"] / row["analysis_s"]
            rows.append(row)
            print(f"{n:>5} subcatchments: analysis {row['analysis_s']:.2f} s "
                  f"({row['analysis_peak_mb']:.0f} MB), run --json {row['run_json_s']:.2f} s "
                  f"({row['run_json_peak_mb']:.0f} MB) = {row['ratio']:.2f}x; output "
                  f"{size_mb:.1f} MB", flush=True)
    last = rows[-1]
    met = last["ratio"] <= TARGET_RATIO and last["run_json_peak_mb"] < TARGET_PEAK_MB
    return {"rows": rows, "target_ratio": TARGET_RATIO, "target_peak_mb": TARGET_PEAK_MB,
            "met": bool(met)}


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--sizes", default="1,10,100,1000")
    args = ap.parse_args(argv)
    res = run(sizes=tuple(int(s) for s in args.sizes.split(",")), repeats=args.repeats)
    print(json.dumps({"met": res["met"]}))
    return res


if __name__ == "__main__":
    main()
