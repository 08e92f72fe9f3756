"""The full SWPPP hydrology report per example site vs one empty Papermill notebook.

Target: the full report (HTML + PDF + Excel + results.json) of each example site takes at
most **3x** one empty Papermill notebook that imports hydrocalc, measured in the same run.

- **Baseline**: ``papermill.execute_notebook`` of a notebook whose one cell is
  ``import hydrocalc``, in a fresh kernel (what any notebook-based tool pays before it
  computes anything).
- **Report**: ``hydrocalc.report.execute.run_report`` into a temporary folder, timed from
  the call to the finished folder, with its stages (compute: analysis and every section;
  present: notebooks in the warm kernel; HTML, PDF, Excel) and the CPU seconds of this
  process, and the seconds of each section notebook. The per-process cache of the site's
  analysis is cleared before every run, so each run analyses the site afresh. The first
  report of the run also pays this process's first imports of the report's modules
  (matplotlib, typst, openpyxl...) and the start of its warm kernel server (one
  interpreter that imports what a kernel needs, from which every report kernel of the
  process is forked: ``hydrocalc.report.execute.forked``), as a ``hydrocalc report``
  process does; it is made once before the timed repeats and reported on its own
  (``first_report``), never among the medians. The kernels are the server's children, not
  this process's: their CPU is not counted here. Each site is timed three times and its
  median kept, so one run that pays a site's own first uses in this process (modules and
  tables no earlier site needed) or a moment of a busy machine does not decide the ratio.

Both are timed in this process (papermill, hydrocalc and their imports loaded once),
interleaved ``repeats`` times (baseline twice, site 1, site 2, ..., baseline twice); medians
are compared. The baseline is timed twice per slot because a fresh kernel now and then
takes about 3 s longer to start (seen with "Address already in use" from the kernel's
heartbeat socket: jupyter_client picks its TCP ports before the kernel binds them, a race
its ``LocalPortCache`` notes, and the kernel is restarted). Every baseline time is listed
(``empty_all_s``), so such a start shows. The PDF's page count is recorded.

**Fresh processes** (``cli``, reported beside the target, not part of it): the command
``hydrocalc report SITE --quiet`` in a new process per site against ``papermill`` run as a
command on the empty notebook, a new process each, so every import and the kernel
server's start are paid every time; one run each per repeat, medians compared.

Run alone: ``.venv/bin/python benchmarks/bench_report.py [--quick]``; ``run()`` returns a
dict (``empty_median_s``, ``per_site``, ``ratio`` per site, ``met``...).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"
TARGET_RATIO = 3.0  #: full report <= 3x one empty notebook that imports hydrocalc


def _empty_notebook(path: pathlib.Path) -> None:
    import nbformat
    from nbformat.v4 import new_code_cell, new_notebook

    nb = new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nb.cells = [new_code_cell("import hydrocalc")]
    nbformat.write(nb, path)


def empty_notebook_s() -> float:
    """Wall time of one Papermill run of a notebook that imports hydrocalc (fresh kernel)."""
    import papermill

    from hydrocalc.report.execute import kernel_env  # noqa: F401 - same kernel environment

    with tempfile.TemporaryDirectory(prefix="hc-bench-empty-") as tmp:
        folder = pathlib.Path(tmp)
        _empty_notebook(folder / "empty.ipynb")
        t0 = time.perf_counter()
        papermill.execute_notebook(str(folder / "empty.ipynb"), str(folder / "out.ipynb"),
                                   kernel_name="python3", progress_bar=False,
                                   cwd=str(folder))
        return time.perf_counter() - t0


def report_s(site: pathlib.Path) -> dict:
    """One full report of ``site`` into a temporary folder: seconds, stages, PDF pages."""
    from hydrocalc.report.execute import run_report
    from hydrocalc.report.sections import computation

    computation._context_cached.cache_clear()
    with tempfile.TemporaryDirectory(prefix="hc-bench-report-") as tmp:
        c0 = time.process_time()
        t0 = time.perf_counter()
        run = run_report(site, pathlib.Path(tmp) / "report", progress=False)
        seconds = time.perf_counter() - t0
        cpu = time.process_time() - c0
    return {"seconds": seconds, "stages_s": dict(run.stage_seconds), "cpu_s": cpu,
            "pages": run.pdf_pages, "notebooks": len(run.sections),
            "notebook_s": {k: round(v, 3) for k, v in run.section_seconds.items()}}


def _load() -> list[float] | None:
    """The 1-, 5- and 15-minute load averages (None where the OS has none)."""
    import os

    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def _cli_s(args: list[str], cwd: pathlib.Path) -> float:
    """Wall seconds of one command in a new process (it must succeed)."""
    import os
    import subprocess

    t0 = time.perf_counter()
    subprocess.run(args, cwd=cwd, env=dict(os.environ), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - t0


def cli_seconds(sites: list[pathlib.Path], repeats: int) -> dict:
    """``hydrocalc report`` per site and ``papermill`` on the empty notebook, new processes."""
    import sys

    bindir = pathlib.Path(sys.executable).parent
    with tempfile.TemporaryDirectory(prefix="hc-bench-cli-") as tmp:
        folder = pathlib.Path(tmp)
        _empty_notebook(folder / "empty.ipynb")
        empty = [_cli_s([str(bindir / "papermill"), "-k", "python3", "--no-progress-bar",
                         "empty.ipynb", "out.ipynb"], folder) for _ in range(repeats + 1)]
        per = {s.parent.name: statistics.median(
            _cli_s([sys.executable, "-m", "hydrocalc", "report", str(s), "--out",
                    str(folder / s.parent.name), "--quiet"], folder) for _ in range(repeats))
            for s in sites}
    base = statistics.median(empty)
    return {"empty_median_s": base, "empty_all_s": [round(x, 2) for x in empty],
            "per_site": {k: {"seconds": round(v, 2), "ratio": round(v / base, 2)}
                         for k, v in per.items()}}


def run(quick: bool = False, repeats: int | None = None) -> dict:
    import os

    # the kernel must import the hydrocalc under test, like the report's kernels do
    src = str(ROOT / "src")
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [src] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and
                 pathlib.Path(p).resolve() != pathlib.Path(src)])
    sites = sorted(EXAMPLES.glob("*/site.toml"))
    repeats = repeats or (1 if quick else 3)
    load_start = _load()
    empty: list[float] = []
    per: dict[str, list[dict]] = {s.parent.name: [] for s in sites}
    # pays this process's first imports, as `hydrocalc report` does: reported on its own
    first = {"site": sites[0].parent.name, **report_s(sites[0])}
    for _ in range(repeats):
        empty.extend((empty_notebook_s(), empty_notebook_s()))
        for site in sites:
            per[site.parent.name].append(report_s(site))
    empty.extend((empty_notebook_s(), empty_notebook_s()))
    base = statistics.median(empty)
    per_site = {}
    for name, runs in per.items():
        sec = statistics.median(r["seconds"] for r in runs)
        best = min(runs, key=lambda r: abs(r["seconds"] - sec))
        per_site[name] = {"seconds": sec, "all_s": [round(r["seconds"], 2) for r in runs],
                          "stages_s": best["stages_s"], "pages": best["pages"],
                          "cpu_s": best["cpu_s"],
                          "notebooks": best["notebooks"], "notebook_s": best["notebook_s"],
                          "ratio": sec / base,
                          "met": sec / base <= TARGET_RATIO}
    stages = "; ".join(
        f"{k}: {r['seconds']:.1f} s, {r['ratio']:.2f}x ({r['pages']} PDF pages; "
        + ", ".join(f"{s[:-2]} {v:.1f}" for s, v in r["stages_s"].items())
        + f"; CPU of this process {r['cpu_s']:.1f} s)"
        for k, r in per_site.items())
    out = {
        "sites": len(sites),
        "repeats": repeats,
        "notebooks_per_report": max(r["notebooks"] for r in per_site.values()),
        "empty_median_s": base,
        "empty_all_s": [round(x, 2) for x in empty],
        "report_median_s": statistics.median(r["seconds"] for r in per_site.values()),
        "per_site": per_site,
        "target_ratio": TARGET_RATIO,
        "met": all(r["met"] for r in per_site.values()),
        "first_report": {"site": first["site"], "seconds": first["seconds"],
                         "ratio": first["seconds"] / base, "cpu_s": first["cpu_s"]},
        "cli": cli_seconds(sites, repeats),
        "load_average_start": load_start,
        "load_average": _load(),
        "note": (f"baseline: one empty Papermill notebook importing hydrocalc, median "
                 f"{base:.2f} s of {len(empty)} ({', '.join(f'{x:.2f}' for x in empty)}); "
                 f"per site {stages}; the first report of "
                 f"the run ({first['site']}, paying this process's first imports of the "
                 f"report modules, matplotlib, typst, openpyxl, and the warm kernel server's "
                 f"start) {first['seconds']:.1f} s = "
                 f"{first['seconds'] / base:.2f}x; target <= {TARGET_RATIO:g}x; load "
                 f"average {load_start} at the start, {_load()} at the end"),
    }
    return out


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one repeat")
    args = parser.parse_args(argv)
    result = run(quick=args.quick)
    print(json.dumps(result, indent=1))
    for name, r in result["per_site"].items():
        print(f"full report {name}: {r['seconds']:.2f} s = {r['ratio']:.2f}x one empty "
              f"notebook ({result['empty_median_s']:.2f} s); target <= "
              f"{TARGET_RATIO:g}x: {'met' if r['met'] else 'not met'}")
    cli = result["cli"]
    for name, r in cli["per_site"].items():
        print(f"fresh processes {name}: hydrocalc report {r['seconds']:.2f} s = "
              f"{r['ratio']:.2f}x papermill on the empty notebook ({cli['empty_median_s']:.2f} s)")
    return result


if __name__ == "__main__":
    main()
