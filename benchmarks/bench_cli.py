"""Start-up cost of the command line: ``hydrocalc check`` and ``hydrocalc run`` on an example.

Each command is timed as a fresh process (``python -m hydrocalc check|run SITE``: interpreter
start, imports, the work, the output), against the same work done by a bare script in a
fresh process: ``python -c "import hydrocalc; load_site(SITE)"`` (check) and
``python -c "import hydrocalc; analyze(load_site(SITE))"`` (run), i.e. importing hydrocalc
plus the analysis itself, with every import the analysis needs counted. The target is
command <= 1.5x that script: the command line may add little to the work it wraps.

Reported beside it, so that the import time is visible: ``python -c "import hydrocalc"``
alone, the work in a warm process (``load_site`` / ``load_site`` + ``analyze``, median of
repeats, modules imported and tables cached), hence the share of a cold run that is imports
and first-use set-up, and the heavy third-party packages each command imports
(``python -X importtime``).

Processes are started alternately (import, check, run, ...) so that a busy machine slows
them alike; the medians and the ratio are from one run.

Run alone: ``.venv/bin/python benchmarks/bench_cli.py [--repeats 5] [--site PATH]``.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import statistics
import subprocess
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SITE = ROOT / "examples" / "pelham" / "site.toml"
TARGET_RATIO = 1.5
#: Third-party packages that a fast start must not import unless the command needs them.
HEAVY = ("pandas", "scipy", "scipy.optimize", "numba", "matplotlib", "dask", "distributed",
         "papermill", "nbformat", "pyarrow", "openpyxl", "typst")

_WORK = r"""
import json, statistics, sys, time, warnings
warnings.simplefilter("ignore")
from hydrocalc.analysis import analyze
from hydrocalc.site import load_site
site_file, repeats = sys.argv[1], int(sys.argv[2])
analyze(load_site(site_file))  # warm-up: lazy imports, cached tables and storms
load, both = [], []
for _ in range(repeats):
    t0 = time.perf_counter()
    site = load_site(site_file)
    t1 = time.perf_counter()
    analyze(site)
    t2 = time.perf_counter()
    load.append(t1 - t0)
    both.append(t2 - t0)
print(json.dumps({"load_s": statistics.median(load), "load_analyze_s": statistics.median(both)}))
"""


def _env() -> dict:
    env = dict(os.environ)
    src = str(ROOT / "src")
    if src not in env.get("PYTHONPATH", "").split(os.pathsep):
        env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    return env


def _wall(cmd: list[str], env: dict) -> float:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          text=True, cwd=ROOT, check=False)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd[1:])} exited {proc.returncode}: "
                           f"{proc.stderr.strip().splitlines()[-1:]}")
    return dt


def _heavy_imports(cmd: list[str], env: dict) -> list[str]:
    proc = subprocess.run([cmd[0], "-X", "importtime", *cmd[1:]], env=env,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                          check=False)
    names = {line.rsplit("|", 1)[-1].strip() for line in proc.stderr.splitlines()
             if line.startswith("import time:")}
    return [h for h in HEAVY if h in names]


def run(*, site: pathlib.Path | str = SITE, repeats: int = 5) -> dict:
    """Time the commands and their parts; return medians, ratios and heavy imports."""
    env = _env()
    py = sys.executable
    site = str(site)
    load = "import sys, warnings; warnings.simplefilter('ignore'); import hydrocalc; " \
           "from hydrocalc.site import load_site; site = load_site(sys.argv[1])"
    cmds = {
        "import": [py, "-c", "import hydrocalc"],
        "script_check": [py, "-c", load, site],
        "script_run": [py, "-c", load + "; from hydrocalc.analysis import analyze; "
                       "analyze(site)", site],
        "check": [py, "-m", "hydrocalc", "check", site],
        "run": [py, "-m", "hydrocalc", "run", site],
    }
    for cmd in cmds.values():  # warm the file cache and the byte-code
        _wall(cmd, env)
    times: dict[str, list[float]] = {k: [] for k in cmds}
    for _ in range(repeats):
        for key, cmd in cmds.items():
            times[key].append(_wall(cmd, env))
    work = subprocess.run([py, "-c", _WORK, site, str(max(repeats, 3))], env=env,
                          capture_output=True, text=True, cwd=ROOT, check=True)
    w = json.loads(work.stdout.strip().splitlines()[-1])
    med = {k: statistics.median(v) for k, v in times.items()}
    out = {
        "benchmark": "cli", "site": site, "repeats": repeats,
        "import_s": med["import"], "script_check_s": med["script_check"],
        "script_run_s": med["script_run"],
        "check_s": med["check"], "run_s": med["run"],
        "load_s": w["load_s"], "load_analyze_s": w["load_analyze_s"],
        "times_s": times,
    }
    out["check_base_s"] = out["script_check_s"]
    out["run_base_s"] = out["script_run_s"]
    out["check_ratio"] = out["check_s"] / out["check_base_s"]
    out["run_ratio"] = out["run_s"] / out["run_base_s"]
    # what a cold run spends beyond the bare package and the warm work: imports of the
    # modules the work needs (pandas, scipy...) and first-use set-up (tables, storms)
    out["run_imports_and_setup_s"] = out["script_run_s"] - out["import_s"] - \
        out["load_analyze_s"]
    out["target_ratio"] = TARGET_RATIO
    out["met"] = out["check_ratio"] <= TARGET_RATIO and out["run_ratio"] <= TARGET_RATIO
    out["heavy_imports"] = {k: _heavy_imports(cmds[k], env) for k in ("import", "check", "run")}
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--site", default=str(SITE))
    args = parser.parse_args(argv)
    r = run(site=args.site, repeats=args.repeats)
    print(f"cli on {pathlib.Path(r['site']).name} (median of {r['repeats']} fresh processes)")
    print(f"  python -c 'import hydrocalc': {r['import_s']:.2f} s; warm load_site "
          f"{1e3 * r['load_s']:.0f} ms, load_site + analyze {1e3 * r['load_analyze_s']:.0f} ms;"
          f" a cold script import hydrocalc + analyze {r['script_run_s']:.2f} s, of which "
          f"{r['run_imports_and_setup_s']:.2f} s imports and first-use set-up")
    for cmd in ("check", "run"):
        print(f"  hydrocalc {cmd}: {r[cmd + '_s']:.2f} s = {r[cmd + '_ratio']:.2f}x "
              f"(script: import hydrocalc + the work {r[cmd + '_base_s']:.2f} s); "
              f"target <= {TARGET_RATIO}x; heavy imports: "
              f"{', '.join(r['heavy_imports'][cmd]) or 'none'}")
    return r


if __name__ == "__main__":
    main()
