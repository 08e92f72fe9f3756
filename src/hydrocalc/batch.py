r"""Batch runs: many site files, or every scenario of parameter sweeps, on Dask.

:func:`run_batch` analyses every input (:func:`hydrocalc.analysis.analyze` semantics) and
collects one summary table, one row per input (or sweep scenario), design point and storm:

==================  ======  ===================================================================
Column              Unit    Meaning
==================  ======  ===================================================================
source              -       the input file (site or sweep file) as given
site                -       project name of the site
scenario            -       sweep scenario label (``"00042"``); empty for a site file
design_point        -       design point id
storm               -       storm name (``"10yr"``)
precip_in           in      24-hour storm depth
pre_peak_cfs        ft3/s   pre-development peak at the design point
post_peak_cfs       ft3/s   post-development (routed) peak
peak_change_pct     %       100 (post - pre) / pre
pre_volume_ft3      ft3     pre-development runoff volume
post_volume_ft3     ft3     post-development volume
volume_change_pct   %       100 (post - pre) / pre
post_le_pre         -       post peak <= pre peak
wqv_pass ...        -       NY SMDM criteria (``wqv, rrv, cpv, qp, qf``) pass/fail, empty
                            when not evaluated; ``criteria_pass`` all of them
status              -       ``"ok"`` or ``"error"``
error               -       the error message of a failed input/scenario (lines joined by
                            `` | ``), empty otherwise
<varied field>      (field) one column per ``[[vary]]`` entry of a sweep: the value used
==================  ======  ===================================================================

Execution
---------
Inputs are split into tasks (one per site file; sweep scenarios in chunks) run by Dask: the
local process pool by default (``workers`` processes), ``"threads"`` or ``"synchronous"``,
or a ``dask.distributed`` cluster given by its address (``tcp://host:8786``) or a
``distributed.Client``. Within a task, the scenarios of a sweep are computed in blocks by
the summary array path (:func:`hydrocalc.sweep_summary.summary_rows_many`: only the summary
quantities, as array work across the block), or, where that path does not apply (it says
why, counted in ``batch.json``) or with ``summary_arrays=False``, by
:func:`hydrocalc.analysis.analyze_many`, which batches their subcatchments, storms and ponds
into array work (one runoff-hydrograph call and one routing call per pond for the whole
block); results equal :func:`~hydrocalc.analysis.analyze` on each scenario
(``tests/test_batch.py`` and ``tests/test_sweep_summary.py`` check this to 1e-9).

A failing input or scenario becomes a row with ``status = "error"`` and its message; the
others continue. The tasks of a worker that dies are re-run (a new local process pool, or
the cluster's other workers); tasks that cannot be completed are error rows naming their
scenarios, and ``batch.json`` then says ``"complete": false``. Output files are written
atomically (a temporary file beside the target, then ``os.replace``), so a reader never
sees a half-written table.

Distributed runs need the input files at the same paths on every worker (a shared file
system) and hydrocalc installed on the workers.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import math
import os
import pathlib
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Sequence
from typing import Any

from hydrocalc.errors import InputError

__all__ = ["run_batch", "BatchResult", "SUMMARY_COLUMNS", "plan_tasks", "run_task",
           "summary_frame", "default_task_memory_mb", "tune_worker_malloc", "current_rss_mb"]

#: Fixed columns of the summary table, in order (varied-field columns follow).
SUMMARY_COLUMNS = (
    "source", "site", "scenario", "design_point", "storm", "precip_in", "pre_peak_cfs",
    "post_peak_cfs", "peak_change_pct", "pre_volume_ft3", "post_volume_ft3",
    "volume_change_pct", "post_le_pre", "wqv_pass", "rrv_pass", "cpv_pass", "qp_pass",
    "qf_pass", "criteria_pass", "status", "error",
)
_TEXT = ("source", "site", "scenario", "design_point", "storm", "status", "error")
_BOOL = ("post_le_pre", "wqv_pass", "rrv_pass", "cpv_pass", "qp_pass", "qf_pass",
         "criteria_pass")
_LOCAL = ("processes", "threads", "synchronous")
#: Default memory of the analysis arrays of one sweep task with the compiled routing loop;
#: see :func:`default_task_memory_mb`. [MB]
TASK_MEMORY_MB = 20.0
#: The same without numba (the numpy routing loop needs larger chunks to be efficient). [MB]
TASK_MEMORY_MB_NUMPY = 1024.0
#: Largest number of sweep scenarios in one task. A task computes its scenarios in blocks
#: (:data:`SUMMARY_BATCH` by the summary arrays, or as many as fit the task memory by the
#: full analysis), so its size sets only the scheduling overhead (fewer, larger tasks) and
#: the work a lost worker takes with it and that remains at the end of a run.
MAX_CHUNK = 250
#: Scenarios computed together by the summary array path
#: (:func:`hydrocalc.sweep_summary.summary_rows_many`). Measured for the Pelham sweep on
#: one core: 4.1 ms per scenario in blocks of 7, 3.1 ms in blocks of 25, 3.2 ms in blocks of
#: 50, 3.4 ms in blocks of 100 (larger arrays leave the processor's caches); a block of 25
#: holds about 40 MB of series.
SUMMARY_BATCH = 25
#: Seconds to wait for a dask.distributed scheduler to answer. [s]
CONNECT_TIMEOUT_S = 20.0
#: Default seconds to wait for a dask.distributed scheduler to have a worker (at the start,
#: or after every worker left mid-run) before failing with a message. [s]
WORKER_WAIT_S = 60.0
#: Times a local process pool broken by a lost worker is replaced to re-run the unfinished
#: tasks before they are recorded as errors.
POOL_RESTARTS = 2


# ----------------------------------------------------------------------------------------
# tasks (module-level functions: pickled by reference to the workers)


def _message(exc: BaseException) -> str:
    text = str(exc).strip() or type(exc).__name__
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    name = type(exc).__name__
    prefix = "" if name in ("InputError", "OutOfRangeError") else f"{name}: "
    return prefix + " | ".join(lines)


def _proc_status_mb(key: str) -> float | None:
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith(key + ":"):
                    return float(line.split()[1]) / 1024.0  # kB
    except OSError:
        return None
    return None


def _peak_rss_mb() -> float:
    """Peak resident memory of this process since it started its program. [MB]

    On Linux ``VmHWM`` of ``/proc/self/status``: ``getrusage`` would also count the parent's
    memory at the fork that preceded a spawned worker's ``exec``.
    """
    hwm = _proc_status_mb("VmHWM")
    if hwm is not None:
        return hwm
    try:
        import resource
    except ImportError:  # pragma: no cover - Windows
        return math.nan
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, B on macOS
    return rss / (1024.0 * 1024.0) if sys.platform == "darwin" else rss / 1024.0


def current_rss_mb() -> float:
    """Resident memory of this process now (NaN where it cannot be read). [MB]"""
    v = _proc_status_mb("VmRSS")
    return math.nan if v is None else v


def _error_row(source: str, scenario: str, message: str, *, site: str = "",
               values: dict | None = None) -> dict:
    row = {"source": source, "site": site, "scenario": scenario, "status": "error",
           "error": message}
    if values:
        row.update(values)
    return row


def _ok_rows(results, source: str, scenario: str, values: dict | None = None) -> list[dict]:
    rows = []
    for r in results.summary_rows(scenario=scenario):
        row = {"source": source, **r, "status": "ok", "error": ""}
        if values:
            row.update(values)
        rows.append(row)
    return rows


_SWEEPS: dict[str, tuple[tuple, Any]] = {}


def _stat_key(path) -> tuple:
    try:
        st = os.stat(path)
    except OSError:
        return (str(path), None, None)
    return (str(path), st.st_mtime_ns, st.st_size)


def _fingerprint(path: str, sw=None) -> tuple:
    """Stats of the sweep file, its base site and every file the site read."""
    keys = [_stat_key(path)]
    if sw is not None:
        keys.append(_stat_key(sw.base))
        keys += [_stat_key(sw.base.parent / rel) for rel in sorted(sw.site.input_files)]
    return tuple(keys)


def _cached_sweep(path: str, preload: bytes | None = None):
    """The sweep at ``path``, loaded once per process and reloaded when the sweep file, its
    base site or a file the site reads changes (long-lived distributed workers).

    ``preload`` (:func:`_sweep_blob`, made by the planning process) is the sweep as the
    planner loaded it, with the stats of its files: used when this process sees the same
    files (same paths, sizes and modification times), so a worker does not parse and
    validate the site again; otherwise the files are loaded.
    """
    from hydrocalc.sweep import load_sweep

    hit = _SWEEPS.get(path)
    if hit is not None and hit[0] == _fingerprint(path, hit[1]):
        return hit[1]
    if len(_SWEEPS) > 8:
        _SWEEPS.clear()
    sw = None
    if preload is not None:
        import pickle

        try:  # e.g. a cluster worker with another hydrocalc: load the files instead
            stamp, planned = pickle.loads(preload)
            if stamp == _fingerprint(path, planned):
                sw = planned
        except Exception:  # noqa: BLE001 - the files are the reference
            sw = None
    if sw is None:
        sw = load_sweep(path)
    _SWEEPS[path] = (_fingerprint(path, sw), sw)
    return sw


def _sweep_blob(path: str, sw) -> bytes | None:
    """The loaded sweep and the stats of its files, pickled for the workers (a few kB)."""
    import copy
    import pickle

    try:
        bare = copy.copy(sw)
        bare.__dict__.pop("_nodes", None)  # the scenarios' rebuilt nodes stay here
        return pickle.dumps((_fingerprint(path, sw), bare), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception:  # noqa: BLE001 - not picklable: the workers load the files
        return None


def run_task(spec: dict) -> dict:
    """Run one task of a batch plan (see :func:`plan_tasks`); never raises on bad input.

    Returns
    -------
    dict
        ``rows`` (summary rows with ``_input``/``_index`` ordering keys), ``n`` (inputs or
        scenarios done), ``failed``, ``pid``, ``peak_rss_mb``, ``elapsed_s``, ``cpu_s`` (CPU
        time of the task's thread), ``paths`` (sweep scenarios computed by the summary
        arrays and by the full analysis, with the reasons of the latter; empty for a site).
    """
    import warnings

    from hydrocalc import _route_kernel

    _route_kernel.use()  # the compiled routing loop pays off over many scenarios
    t0 = time.perf_counter()
    c0 = time.thread_time()
    rows: list[dict] = []
    failed = 0
    paths: dict = {}
    kind = spec["kind"]
    source = spec["source"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # analyze() records its warnings itself
        try:
            if kind == "site":
                rows, failed = _site_rows(spec)
            elif kind == "sweep":
                rows, failed, paths = _sweep_rows(spec)
            else:
                raise AssertionError(kind)
        except Exception as exc:  # noqa: BLE001 - a task reports, never raises
            n = spec.get("stop", 1) - spec.get("start", 0)
            what = "" if kind == "site" else \
                f"scenarios {spec['start']} to {spec['stop'] - 1} not completed: "
            rows = [dict(_error_row(source, "", what + _message(exc)),
                         _input=spec["input"], _index=spec.get("start", 0))]
            failed = n
    return {"rows": rows, "n": spec.get("stop", 1) - spec.get("start", 0), "failed": failed,
            "pid": os.getpid(), "peak_rss_mb": _peak_rss_mb(),
            "elapsed_s": time.perf_counter() - t0, "cpu_s": time.thread_time() - c0,
            "task": spec.get("task"), "paths": paths}


def _site_rows(spec: dict) -> tuple[list[dict], int]:
    from hydrocalc.analysis import analyze
    from hydrocalc.site import load_site

    source = spec["source"]
    site = None
    try:
        site = load_site(spec["path"])
        res = analyze(site, storms=spec.get("storms"))
    except Exception as exc:  # noqa: BLE001 - recorded in the summary
        return [dict(_error_row(source, "", _message(exc),
                                site=site.name if site is not None else ""),
                     _input=spec["input"], _index=0)], 1
    rows = _ok_rows(res, source, "")
    for r in rows:
        r.update(_input=spec["input"], _index=0)
    return rows, 0


def _sweep_rows(spec: dict) -> tuple[list[dict], int, dict]:
    """Rows of the scenarios ``start`` to ``stop - 1`` of a sweep task.

    Scenarios go in blocks: by default through the summary array path
    (:func:`hydrocalc.sweep_summary.summary_rows_many`, ``summary_batch`` scenarios at a
    time); a block that path cannot express, or that fails in it, goes through the full
    analysis (:func:`hydrocalc.analysis.analyze_many`, ``batch`` scenarios at a time) and
    the reason is counted in the third value returned, ``{"summary_arrays": n,
    "full_analysis": n, "reasons": {reason: n}}`` (reported in ``batch.json``).
    """
    source = spec["source"]
    sw = _cached_sweep(spec["path"], spec.get("preload"))
    storms = list(sw.storms) if sw.storms else spec.get("storms")
    site_name = sw.site.name
    rows: list[dict] = []
    failed = 0
    valid: list[tuple[int, Any]] = []
    for i in range(spec["start"], spec["stop"]):
        try:
            valid.append((i, sw.scenario(i)))
        except Exception as exc:  # noqa: BLE001 - an invalid scenario is one error row
            failed += 1
            rows.append(dict(_error_row(source, sw.scenario_id(i), _message(exc),
                                        site=site_name, values=sw.values(i)),
                             _input=spec["input"], _index=i))
    paths: dict = {"summary_arrays": 0, "full_analysis": 0, "reasons": {}}
    use_summary = spec.get("summary", True)
    full = max(1, int(spec.get("batch") or len(valid) or 1))
    step = max(1, int(spec.get("summary_batch") or full)) if use_summary else full
    for b in range(0, len(valid), step):
        block = valid[b:b + step]
        reason = "summary arrays turned off (per-scenario analysis requested)"
        if use_summary:
            done = _summary_block(block, storms, sw, spec, rows)
            if isinstance(done, int):
                paths["summary_arrays"] += done
                continue
            reason = done
        paths["full_analysis"] += len(block)
        paths["reasons"][reason] = paths["reasons"].get(reason, 0) + len(block)
        for c in range(0, len(block), full):
            failed += _full_block(block[c:c + full], storms, sw, spec, rows)
    return rows, failed, paths


def _summary_block(block, storms, sw, spec, rows) -> int | str:
    """Rows of ``block`` by the summary array path; the number done, or why not (str)."""
    from hydrocalc.sweep_summary import Unsupported, summary_rows_many

    try:
        results = summary_rows_many([s for _, s in block], storms=storms)
    except Unsupported as exc:
        return f"not expressed by the summary arrays: {exc}"
    except Exception as exc:  # noqa: BLE001 - the full analysis reports it per scenario
        return f"failed in the summary arrays ({_message(exc)})"
    source = spec["source"]
    for (i, _), res in zip(block, results, strict=True):
        sid = sw.scenario_id(i)
        values = sw.values(i)
        for r in res:
            rows.append({"source": source, **r, "scenario": sid, "status": "ok", "error": "",
                         **values, "_input": spec["input"], "_index": i})
    return len(block)


def _full_block(block, storms, sw, spec, rows) -> int:
    """Rows of ``block`` by the full analysis (analyze_many); returns the failures."""
    from hydrocalc.analysis import analyze_many

    source = spec["source"]
    site_name = sw.site.name
    failed = 0
    results = analyze_many([s for _, s in block], storms=storms, errors="collect") \
        if block else []
    retry = [k for k, r in enumerate(results) if isinstance(r, Exception)]
    if len(block) > 1 and retry:
        # a group failed as a whole: analyse its members one by one to isolate the culprit
        for k in retry:
            results[k] = analyze_many([block[k][1]], storms=storms, errors="collect")[0]
    for (i, _), res in zip(block, results, strict=True):
        sid = sw.scenario_id(i)
        if isinstance(res, Exception):
            failed += 1
            rows.append(dict(_error_row(source, sid, _message(res), site=site_name,
                                        values=sw.values(i)), _input=spec["input"], _index=i))
            continue
        for r in _ok_rows(res, source, sid, sw.values(i)):
            r.update(_input=spec["input"], _index=i)
            rows.append(r)
    return failed


# ----------------------------------------------------------------------------------------
# planning


def default_task_memory_mb(workers: int) -> float:
    """Memory target of the arrays of one sweep task (``workers`` is accepted for callers
    that size by worker count; the target does not depend on it). [MB]

    With the compiled routing loop (numba, the ``batch`` extra) a chunk's cost per scenario
    hardly depends on its size, so chunks are kept small: a worker's libraries (numpy,
    pandas, pyarrow, scipy, numba) take about 230 MB, and :data:`TASK_MEMORY_MB` of arrays
    keeps the worker under 300 MB. Without numba the per-step cost of the numpy loop is
    amortized over the chunk, and :data:`TASK_MEMORY_MB_NUMPY` (larger chunks, more memory)
    is used. ``--memory-mb`` overrides either.
    """
    from hydrocalc import _route_kernel

    return TASK_MEMORY_MB if _route_kernel.installed() else TASK_MEMORY_MB_NUMPY


def _bytes_per_variant(site) -> float:
    """Rough memory of one sweep variant inside analyze_many (arrays kept per variant). [B]"""
    from hydrocalc import analysis

    try:
        end_hr = analysis._end_hr(site, float(site.storms.duration_hr))
    except Exception:  # noqa: BLE001 - only an estimate
        end_hr = 48.0
    nt = end_hr / site.options.dt_hr + 1
    m = len(site.storms.names)
    post = site.post
    # node series are kept only where flow arrives (ponds, reaches, design points: one
    # inflow array each) plus the stacked pond outflows; the subcatchment runoff batch; per
    # pond the routing series (outflow, storage, stage), the pond arrays (primary,
    # discarded, storage) and the routing inflow and temporaries (about 8 series)
    targets = {n.to for n in post.nodes.values()} - {None}
    return 8.0 * nt * m * (len(targets) + len(post.subcatchments) + 8 * len(post.ponds) + 2)


def plan_tasks(inputs: Sequence, *, workers: int = 1, chunk_size: int | None = None,
               task_memory_mb: float | None = None,
               storms: Sequence[str] | None = None,
               summary_arrays: bool = True) -> tuple[list[dict], list[dict], dict]:
    """Split ``inputs`` into tasks.

    Parameters
    ----------
    inputs : sequence of path-like
        Site files and sweep files (told apart by their content: a sweep has ``base``).
    workers : int
        Parallel workers (more, smaller chunks when there are many).
    chunk_size : int, optional
        Scenarios per sweep task (default: at most :data:`MAX_CHUNK`, and small enough to
        give each worker about four tasks).
    task_memory_mb : float, optional
        Memory target of the arrays of one block of scenarios analysed together by the full
        analysis (default :func:`default_task_memory_mb`); the task's ``batch``. [MB]
    storms : sequence of str, optional
        Storms to analyse (default: all, or the sweep's ``storms``).
    summary_arrays : bool, default True
        Compute sweep scenarios by the summary array path where it applies (the task's
        ``summary``; blocks of ``summary_batch`` = :data:`SUMMARY_BATCH`); False: the full
        analysis of every scenario.

    Returns
    -------
    tasks : list of dict
        Task specs for :func:`run_task`.
    error_rows : list of dict
        Rows of inputs that failed before any task (an unreadable sweep file).
    info : dict
        ``{input index: {"source", "kind", "n", "name", "columns"}}``.
    """
    tasks: list[dict] = []
    errors: list[dict] = []
    info: dict[int, dict] = {}
    if task_memory_mb is None:
        task_memory_mb = default_task_memory_mb(workers)
    for idx, raw in enumerate(inputs):
        path = pathlib.Path(raw)
        source = str(raw)
        kind = "site"
        try:
            doc = tomllib.loads(path.read_bytes().decode("utf-8-sig"))
            from hydrocalc.sweep import is_sweep_document

            if is_sweep_document(doc):
                kind = "sweep"
        except Exception:  # noqa: BLE001 - the site task reports the file's problem
            kind = "site"
        if kind == "site":
            info[idx] = {"source": source, "kind": "site", "n": 1, "columns": []}
            tasks.append({"kind": "site", "input": idx, "source": source,
                          "path": str(path.resolve()) if path.exists() else str(path),
                          "storms": list(storms) if storms else None})
            continue
        try:
            sw = _cached_sweep(str(path.resolve()))
        except Exception as exc:  # noqa: BLE001 - recorded in the summary
            info[idx] = {"source": source, "kind": "sweep", "n": 1, "columns": []}
            errors.append(dict(_error_row(source, "", _message(exc)), _input=idx, _index=0))
            continue
        n = sw.n_scenarios
        info[idx] = {"source": source, "kind": "sweep", "n": n, "name": sw.name,
                     "columns": [v.column for v in sw.variations]}
        blob = _sweep_blob(str(path.resolve()), sw)
        per = _bytes_per_variant(sw.site)
        by_mem = max(1, int(task_memory_mb * 1e6 // max(per, 1.0)))
        if chunk_size is None:
            by_balance = max(8, math.ceil(n / (4 * max(workers, 1))))
            size = max(1, min(MAX_CHUNK, by_balance))
        else:
            size = max(1, int(chunk_size))
        for start in range(0, n, size):
            tasks.append({"kind": "sweep", "input": idx, "source": source,
                          "path": str(path.resolve()), "start": start,
                          "stop": min(n, start + size),
                          "storms": list(storms) if storms else None,
                          "batch": min(size, by_mem), "summary": bool(summary_arrays),
                          "summary_batch": min(size, SUMMARY_BATCH), "preload": blob})
    for k, t in enumerate(tasks):
        t["task"] = k
    return tasks, errors, info


# ----------------------------------------------------------------------------------------
# execution


class _Progress:
    """A scenario-count progress report on stderr (a tqdm bar when available).

    No time-remaining estimate: chunks finish in bursts after an unequal start-up (worker
    processes, imports, first tables), so an extrapolation from the first chunks misleads.
    It shows scenarios done / total, the elapsed time and, once a second chunk has
    finished, the rate since the first one (start-up excluded).
    """

    def __init__(self, total: int, enabled: bool):
        self.bar = None
        self.enabled = enabled
        self.done = 0
        self.total = total
        self.first: tuple[float, int] | None = None  # (time, scenarios) at the first chunk
        if enabled:
            try:
                from tqdm.auto import tqdm

                self.bar = tqdm(total=total, unit="scenario", desc="hydrocalc batch",
                                file=sys.stderr,
                                bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/"
                                           "{total_fmt} scenarios [{elapsed}{postfix}]")
            except ImportError:  # pragma: no cover - tqdm ships with the report extra
                self.bar = None

    def rate_text(self) -> str:
        """``"N scenarios/s after the first chunk"``, or ``""`` before a second chunk."""
        now = time.perf_counter()
        if self.first is None:
            self.first = (now, self.done)
            return ""
        t_first, n_first = self.first
        if self.done <= n_first or now <= t_first:
            return ""
        return f"{(self.done - n_first) / (now - t_first):,.0f} scenarios/s after the first chunk"

    def update(self, n: int, *, chunk: bool = True) -> None:
        """Count ``n`` more scenarios; ``chunk=False`` for ones refused before any ran."""
        if n <= 0:
            return
        self.done += n
        rate = self.rate_text() if chunk else ""
        if self.bar is not None:
            if rate:
                self.bar.set_postfix_str(rate, refresh=False)
            self.bar.update(n)
        elif self.enabled:
            print(f"\rhydrocalc batch: {self.done}/{self.total} scenarios"
                  f"{'; ' + rate if rate else ''}", end="", file=sys.stderr)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
        elif self.enabled:
            print(file=sys.stderr)


def _is_client(obj) -> bool:
    return type(obj).__name__ == "Client" and hasattr(obj, "submit")


def tune_worker_malloc() -> bool:
    """Make this process keep freed memory for reuse (glibc only; a worker initializer).

    A sweep task allocates a few hundred MB of arrays and frees them; by default glibc
    returns such blocks to the system (``mmap``/``munmap``), so the next chunk's arrays are
    fresh pages that the kernel must fault in and zero: for the Pelham sweep about a third
    of a worker's CPU time went to the kernel. With ``mallopt`` raising the mmap and trim
    thresholds, a worker reuses its heap: its memory stays at its peak (which is reached
    with or without this) until the pool ends. Called only in worker processes
    hydrocalc starts (the local ``processes`` pool), never in the caller. Returns True
    when the settings were applied.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL("libc.so.6")
        m_trim_threshold, m_top_pad, m_mmap_threshold = -1, -2, -3  # <malloc.h>
        ok = libc.mallopt(m_mmap_threshold, 1 << 30)  # blocks up to 1 GiB from the heap
        ok &= libc.mallopt(m_trim_threshold, 2**31 - 1)  # never trim the heap top
        ok &= libc.mallopt(m_top_pad, 64 << 20)  # grow the heap 64 MB at a time
        return bool(ok)
    except (OSError, AttributeError):  # not glibc (e.g. musl)
        return False


def _die_with_parent(parent_pid: int) -> bool:
    """Ask the kernel to kill this process when its parent dies (Linux ``PR_SET_PDEATHSIG``).

    A batch killed with SIGKILL cannot stop its workers itself; with this, the kernel does.
    Exits at once if the parent is already gone. Returns True when the request was applied.
    """
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes
        import signal

        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        pr_set_pdeathsig = 1  # <sys/prctl.h>
        if libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0) != 0:
            return False
    except (OSError, AttributeError):
        return False
    if os.getppid() != parent_pid:  # the parent died before the request: follow it now
        os._exit(1)
    return True


def _worker_init(parent_pid: int) -> None:
    """Initializer of the local worker processes: die with the batch; reuse freed memory;
    import the analysis and load the compiled routing loop (while the caller plans)."""
    _die_with_parent(parent_pid)
    tune_worker_malloc()
    import contextlib

    with contextlib.suppress(Exception):  # only a warm-up: the tasks report real problems
        from hydrocalc import _route_kernel, criteria, sweep, sweep_summary  # noqa: F401

        _route_kernel.use()
        _route_kernel.available()


def _noop() -> None:
    """A task that does nothing (starts a pool's worker processes)."""


def _start_pool(workers: int):
    """A local process pool whose workers start now (spawned, initialized in parallel with
    whatever the caller does next)."""
    from concurrent.futures import ProcessPoolExecutor

    from dask.multiprocessing import get_context

    pool = ProcessPoolExecutor(workers, mp_context=get_context(), initializer=_worker_init,
                               initargs=(os.getpid(),))
    for _ in range(workers):  # one process is spawned per submission without an idle one
        pool.submit(_noop)
    return pool


def _stop_pool(pool) -> None:
    """Stop a local process pool now: cancel queued work and terminate its processes."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # None once broken
    for proc in procs:
        if proc.is_alive():
            proc.terminate()
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        proc.join(2.0)
        if proc.is_alive():
            proc.kill()
            proc.join(2.0)


def _run_local(tasks, scheduler: str, workers: int, on_result: Callable[[dict], None],
               done: set[int], retries: int = POOL_RESTARTS,
               restarts: list | None = None, pool=None) -> None:
    """Run ``tasks`` on the local Dask scheduler; a broken process pool (a worker killed) is
    replaced up to ``retries`` times to re-run the tasks not yet done (each replacement is
    appended to ``restarts``). ``pool``: a started process pool (:func:`_start_pool`) for
    the first attempt (stopped here)."""
    import dask
    from dask.callbacks import Callback

    def posttask(key, result, dsk, state, worker_id):
        if isinstance(result, dict) and "rows" in result:
            on_result(result)

    attempt = 0
    while True:
        todo = [t for t in tasks if t["task"] not in done]
        if not todo:
            return
        delayed = [dask.delayed(run_task, pure=False)(
            t, dask_key_name=f"hydrocalc-task-{t['task']}") for t in todo]
        kwargs: dict[str, Any] = {"scheduler": scheduler}
        if scheduler == "threads":
            kwargs["num_workers"] = workers
        elif scheduler == "processes":
            if pool is None:
                pool = _start_pool(workers)
            kwargs.update(pool=pool, chunksize=1)
        try:
            with Callback(posttask=posttask):
                dask.compute(*delayed, **kwargs)
            return
        except Exception as exc:  # only a lost worker is retried
            from concurrent.futures.process import BrokenProcessPool

            if not isinstance(exc, BrokenProcessPool) or attempt >= retries:
                raise
            attempt += 1
            if restarts is not None:
                restarts.append(len([t for t in tasks if t["task"] not in done]))
        finally:
            if pool is not None:
                _stop_pool(pool)
                pool = None


def _connect(address: str, timeout_s: float | None = None):
    """A ``distributed.Client`` for ``address``; InputError when it cannot be reached."""
    try:
        from distributed import Client
    except ImportError:
        raise InputError("scheduler must be processes, threads or synchronous when "
                         "dask.distributed is not installed; got "
                         f"{address!r}. Install hydrocalc[batch]") from None
    try:
        return Client(address, timeout=f"{timeout_s or CONNECT_TIMEOUT_S:g}s")
    except Exception as exc:  # noqa: BLE001 - any connection failure is one message
        raise InputError(f"scheduler must be a reachable dask.distributed scheduler; got "
                         f"{address!r} ({type(exc).__name__}: {str(exc).splitlines()[0]}). "
                         "Start one with `dask scheduler` or check the address") from None


def _n_workers(client) -> int:
    try:
        return len(client.scheduler_info().get("workers", {}))
    except Exception:  # noqa: BLE001 - a scheduler that does not answer has no workers for us
        return 0


def _wait_for_workers(client, address: str, wait_s: float) -> None:
    if _n_workers(client) > 0:
        return
    try:
        client.wait_for_workers(1, timeout=wait_s)
    except Exception:  # noqa: BLE001 - distributed raises TimeoutError (its own or asyncio's)
        if _n_workers(client) == 0:
            raise InputError(f"scheduler {address} must have at least one worker; got none "
                             f"after waiting {wait_s:g} s (--worker-wait). Start workers with "
                             f"`dask worker {address}`") from None


class _NoWorkers(RuntimeError):
    """Every worker of the cluster left and none came back within the stated wait."""


def _run_distributed(tasks, client, on_result: Callable[[dict], None],
                     on_failure: Callable[[dict, BaseException], None], *,
                     worker_wait_s: float = WORKER_WAIT_S, poll_s: float = 1.0) -> None:
    """Submit every task; lost workers' tasks are re-run by the scheduler (up to its
    ``distributed.scheduler.allowed-failures``); tasks still pending when the cluster has
    had no worker for ``worker_wait_s`` fail with that message."""
    from distributed import wait

    stamp = f"{os.getpid()}-{time.monotonic_ns()}"
    futures = {client.submit(run_task, t, pure=False,
                             key=f"hydrocalc-task-{t['task']}-{stamp}"): t for t in tasks}
    pending = set(futures)
    alone_since = None
    try:
        while pending:
            try:
                done, pending = wait(pending, timeout=poll_s, return_when="FIRST_COMPLETED")
            except Exception:  # noqa: BLE001 - TimeoutError: nothing finished within poll_s
                done = set()
            for fut in done:
                try:
                    on_result(fut.result())
                except Exception as exc:  # noqa: BLE001 - KilledWorker etc.; record, go on
                    on_failure(futures[fut], exc)
            if done or _n_workers(client) > 0:
                alone_since = None
                continue
            alone_since = alone_since or time.monotonic()
            if time.monotonic() - alone_since >= worker_wait_s:
                exc = _NoWorkers(f"the scheduler has had no worker for {worker_wait_s:g} s "
                                 "(--worker-wait)")
                for fut in pending:
                    on_failure(futures[fut], exc)
                pending = set()
    finally:
        for fut in pending:
            fut.cancel()


@dataclasses.dataclass
class BatchResult:
    """Outcome of :func:`run_batch`.

    Attributes
    ----------
    summary : pandas.DataFrame
        The summary table (see the module docstring).
    n_inputs, n_scenarios, n_failed : int
        Input files, analysed units (site files + sweep scenarios) and failed units.
    elapsed_s : float
        Wall time from planning to the written files. [s]
    files : dict
        ``{"csv": path, "parquet": path, "json": path}`` written (empty without ``out_dir``).
    scheduler : str
        ``"processes"``, ``"threads"``, ``"synchronous"`` or the cluster address.
    workers : int or None
    n_tasks : int
    worker_peak_rss_mb : dict
        Peak resident memory of each process that ran tasks (by pid). [MB]
    parent_peak_rss_mb : float
        Peak resident memory of the calling process. [MB]
    task_cpu_s : float
        CPU time of all tasks (each task's thread), the work independent of how busy the
        machine was; ``n_scenarios / task_cpu_s`` is the throughput of one free core. [s]
    paths : dict
        Sweep scenarios computed by the summary arrays (``summary_arrays``) and by the full
        analysis (``full_analysis``), and ``reasons``: why scenarios took the full
        analysis, with their counts (also ``sweep_paths`` in ``batch.json``).
    """

    summary: Any
    n_inputs: int
    n_scenarios: int
    n_failed: int
    elapsed_s: float
    files: dict
    scheduler: str
    workers: int | None
    n_tasks: int
    worker_peak_rss_mb: dict
    parent_peak_rss_mb: float
    task_cpu_s: float = math.nan
    paths: dict = dataclasses.field(default_factory=dict)

    @property
    def scenarios_per_s(self) -> float:
        """Analysed units per second of wall time. [1/s]"""
        return self.n_scenarios / self.elapsed_s if self.elapsed_s > 0 else math.nan

    @property
    def ok(self) -> bool:
        """True when no input or scenario failed."""
        return self.n_failed == 0

    def errors(self):
        """The failed rows (source, scenario, error)."""
        s = self.summary
        return s.loc[s["status"] == "error", ["source", "scenario", "error"]]

    def describe(self) -> str:
        """A few lines for the terminal."""
        mem = max(self.worker_peak_rss_mb.values(), default=math.nan)
        lines = [
            f"{self.n_scenarios} run(s) (site files and sweep scenarios) from "
            f"{self.n_inputs} input(s) in "
            f"{self.elapsed_s:.1f} s ({self.scenarios_per_s:.1f}/s) on {self.scheduler}"
            + (f" with {self.workers} worker(s)" if self.workers else "")
            + f"; {self.n_tasks} task(s); peak memory per worker {mem:.0f} MB",
            f"ok: {self.n_scenarios - self.n_failed}, failed: {self.n_failed}",
        ]
        p = self.paths or {}
        if p.get("summary_arrays") or p.get("full_analysis"):
            lines.append(f"sweep scenarios by the summary arrays: {p['summary_arrays']}, by "
                         f"the full analysis: {p['full_analysis']}")
            for why, n in sorted(p.get("reasons", {}).items()):
                lines.append(f"  full analysis for {n}: {why}")
        for kind in ("csv", "parquet", "json"):
            if kind in self.files:
                lines.append(f"  {self.files[kind]}")
        return "\n".join(lines)


def summary_frame(rows: Sequence[dict], extra_columns: Sequence[str] = ()):
    """Rows -> the summary DataFrame with stable dtypes (text, nullable boolean, float)."""
    import pandas as pd

    cols = list(SUMMARY_COLUMNS) + [c for c in extra_columns if c not in SUMMARY_COLUMNS]
    rows = rows if isinstance(rows, list) else list(rows)
    # column by column (a missing key is a missing value, as DataFrame(list of dicts))
    frame = pd.DataFrame({c: [r.get(c) for r in rows] for c in cols}, columns=cols)
    for c in _TEXT:
        frame[c] = frame[c].astype(object).where(frame[c].notna(), "").astype(str)
    for c in _BOOL:
        frame[c] = frame[c].astype("boolean")
    for c in cols:
        if c in _TEXT or c in _BOOL:
            continue
        if c in SUMMARY_COLUMNS or pd.api.types.is_numeric_dtype(frame[c]):
            frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
        else:
            frame[c] = frame[c].astype(object).where(frame[c].notna(), None)
            if all(isinstance(v, str) or v is None for v in frame[c]):
                frame[c] = frame[c].astype("string")
            else:
                frame[c] = pd.to_numeric(frame[c], errors="coerce").astype(float)
    return frame


def _atomic_write(target: pathlib.Path, write: Callable[[pathlib.Path], None]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp_path = pathlib.Path(tmp)
    try:
        write(tmp_path)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp_path, 0o666 & ~umask)  # mkstemp makes 0600; give a normal file's mode
        os.replace(tmp_path, target)
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def _csv_column(series) -> list[str]:
    """The text of one summary column as ``DataFrame.to_csv(float_format="%.10g")`` writes
    it: floats with 10 significant digits, missing values empty, booleans True/False."""
    import numpy as np
    import pandas as pd

    if series.dtype.kind == "f":
        a = series.to_numpy()
        if a.size > 64 and not (np.signbit(a) & (a == 0)).any():  # -0.0 prints as "-0"
            # each distinct value formatted once (NaNs are one value: empty)
            uniq, inv = np.unique(a, return_inverse=True)
            text = np.array(["" if math.isnan(v) else f"{v:.10g}" for v in uniq.tolist()],
                            dtype=object)
            return text[inv.reshape(-1)].tolist()
        return ["" if math.isnan(v) else f"{v:.10g}" for v in a.tolist()]
    if str(series.dtype) == "boolean":
        text = np.where(series.fillna(False).to_numpy(dtype=bool), "True", "False")
        text = text.astype(object)
        text[series.isna().to_numpy()] = ""
        return text.tolist()
    values = series.tolist()
    if all(type(v) is str for v in values):  # text columns: written as they are
        return values
    return ["" if v is None or v is pd.NA or (isinstance(v, float) and v != v) else str(v)
            for v in values]


def _write_csv(frame, path: pathlib.Path) -> None:
    """``frame.to_csv(path, index=False, float_format="%.10g", lineterminator="\\n")``, the
    same bytes column by column (the csv module's minimal quoting, as pandas uses): about
    twice as fast for a sweep's summary, whose floats pandas formats one call at a time."""
    _write_csv_columns([(c, frame[c]) for c in frame.columns], path)


def _write_csv_columns(columns, path: pathlib.Path) -> None:
    """:func:`_write_csv` of ``[(name, Series), ...]`` (taken from the frame beforehand).

    Fields that may need quoting (a delimiter, quote, line break or blank) are quoted by
    the csv module itself, one distinct value at a time; the others are joined as they are
    (what the csv module writes for them)."""
    import csv
    import io

    header = [str(c) for c, _ in columns]
    cols = [_csv_column(series) for _, series in columns]
    if len(cols) < 2:  # a row of one empty field is written '""': leave it to csv
        with open(path, "w", newline="", encoding="utf-8") as fh:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            w.writerows(zip(*cols, strict=True))
        return
    buf = io.StringIO()
    one = csv.writer(buf, lineterminator="\n")
    special = set(',"\r\n \t\x0b\x0c')
    memo: dict[str, str] = {}

    def field(v: str) -> str:
        if not v or special.isdisjoint(v):
            return v
        hit = memo.get(v)
        if hit is None:
            buf.seek(0)
            buf.truncate()
            one.writerow([v])
            hit = memo[v] = buf.getvalue()[:-1]
        return hit

    cols = [col if all(not v or special.isdisjoint(v) for v in set(col))
            else [field(v) for v in col] for col in cols]
    with open(path, "w", newline="", encoding="utf-8") as fh:
        fh.write(",".join(field(h) for h in header) + "\n")
        fh.writelines(",".join(row) + "\n" for row in zip(*cols, strict=True))


def _write_outputs(frame, meta: dict, out_dir: pathlib.Path, *,
                   parallel: bool = True) -> dict:
    files = {"csv": out_dir / "summary.csv", "parquet": out_dir / "summary.parquet",
             "json": out_dir / "batch.json"}
    columns = [(c, frame[c]) for c in frame.columns]  # the frame is only read from here on

    def parquet(p):
        frame.to_parquet(p, index=False, engine="pyarrow")

    if parallel:
        try:  # imported here, in the calling thread, not by the writer thread
            import pandas.io.parquet  # noqa: F401
            import pyarrow.parquet  # noqa: F401
        except ImportError:
            parallel = False
    if not parallel:  # e.g. after an interrupt: everything in this thread
        _atomic_write(files["csv"], lambda p: _write_csv_columns(columns, p))
        _atomic_write(files["parquet"], parquet)
    else:
        from concurrent.futures import ThreadPoolExecutor

        # the Parquet file is written (pyarrow, mostly without the GIL) while the CSV text
        # is formatted; each file appears only when complete
        with ThreadPoolExecutor(1) as ex:
            done = ex.submit(_atomic_write, files["parquet"], parquet)
            _atomic_write(files["csv"], lambda p: _write_csv_columns(columns, p))
            done.result()
    meta = {**meta, "files": {k: v.name for k, v in files.items()}}
    _atomic_write(files["json"], lambda p: p.write_text(
        json.dumps(meta, indent=1, sort_keys=True, default=str) + "\n", encoding="utf-8"))
    return files


def run_batch(inputs: Sequence, *, out_dir=None, scheduler=None, workers: int | None = None,
              chunk_size: int | None = None, storms: Sequence[str] | None = None,
              progress: bool = True, task_memory_mb: float | None = None,
              worker_wait_s: float = WORKER_WAIT_S,
              summary_arrays: bool = True) -> BatchResult:
    """Analyse many site files and sweep scenarios on Dask; write one summary table.

    Parameters
    ----------
    inputs : sequence of path-like
        Site files (``hydrocalc.site`` schema) and sweep files (``hydrocalc.sweep``).
    out_dir : path-like, optional
        Folder for ``summary.csv``, ``summary.parquet`` and ``batch.json`` (written
        atomically); None writes nothing.
    scheduler : str or distributed.Client, optional
        ``None``/``"processes"`` (local process pool, the default), ``"threads"``,
        ``"synchronous"``, a ``dask.distributed`` scheduler address
        (``"tcp://10.0.0.5:8786"``) or a connected ``Client``.
    workers : int, optional
        Local workers (default: the number of CPUs). Ignored for a cluster.
    chunk_size : int, optional
        Sweep scenarios per task (default: from ``task_memory_mb``; see :func:`plan_tasks`).
    storms : sequence of str, optional
        Storms to analyse (default: all storms of each site, or a sweep's ``storms``).
    progress : bool, default True
        Show a progress bar on stderr.
    task_memory_mb : float, optional
        Memory target of the arrays of one sweep task (default
        :func:`default_task_memory_mb`: 20 MB, 1 GB without numba). [MB]
    worker_wait_s : float, default :data:`WORKER_WAIT_S`
        With a cluster: how long to wait for a worker, at the start and whenever every
        worker has left mid-run, before failing (InputError at the start; the pending
        scenarios become error rows mid-run). [s]
    summary_arrays : bool, default True
        Compute sweep scenarios by the summary array path
        (:func:`hydrocalc.sweep_summary.summary_rows_many`: only the summary quantities, as
        array work across the scenarios of a block) where it applies; the others, and all
        with False, by the full analysis (:func:`hydrocalc.analysis.analyze_many`). Both give
        the same rows; ``BatchResult.paths`` and ``batch.json`` count each and say why a
        scenario took the full analysis.

    Returns
    -------
    BatchResult

    Notes
    -----
    Lost workers: a local worker process that dies breaks the process pool; a new pool re-runs
    the unfinished tasks (up to :data:`POOL_RESTARTS` times). On a cluster the scheduler
    re-runs a lost worker's tasks on the others (Dask's ``allowed-failures``, 3 by default).
    Tasks that still fail are error rows naming the scenarios not completed, ``batch.json``
    has ``"complete": false`` and the command exits 1. Interrupting the batch (Ctrl-C or
    SIGTERM) stops every worker process it started and writes the partial summary the same
    way; on Linux the local workers also die with a batch killed by SIGKILL.

    Raises
    ------
    InputError
        For no inputs, an unknown scheduler name or a non-positive worker count (problems of
        the inputs themselves are rows of the summary, never raised).
    """
    t0 = time.perf_counter()
    inputs = [str(p) for p in inputs]
    if not inputs:
        raise InputError("inputs must name at least one site or sweep file; got none")
    if workers is not None and (not isinstance(workers, int) or workers < 1):
        raise InputError(f"workers must be a positive integer; got {workers!r}")
    workers = workers or os.cpu_count() or 1
    if scheduler is None:
        scheduler = "processes"
    if scheduler == "synchronous":
        workers = 1
    distributed = _is_client(scheduler) or (isinstance(scheduler, str) and "://" in scheduler)
    if not distributed and scheduler not in _LOCAL:
        raise InputError(f"scheduler must be one of {', '.join(_LOCAL)} or a dask.distributed "
                         f"address such as tcp://host:8786; got {scheduler!r}")
    if not (isinstance(worker_wait_s, int | float) and worker_wait_s >= 0):
        raise InputError(f"worker_wait_s must be a number of seconds >= 0; got "
                         f"{worker_wait_s!r}")
    client, own_client = None, False
    restore = _terminate_as_interrupt()
    try:
        if distributed:
            own_client = not _is_client(scheduler)
            client = _connect(scheduler) if own_client else scheduler
            _wait_for_workers(client, scheduler if isinstance(scheduler, str) else
                              getattr(client.scheduler, "address", "the scheduler"),
                              float(worker_wait_s))
        return _run(inputs, client, scheduler, distributed, workers, chunk_size, storms,
                    progress, task_memory_mb, out_dir, t0, float(worker_wait_s),
                    summary_arrays=bool(summary_arrays))
    finally:
        if own_client and client is not None:
            client.close()
        restore()


def _terminate_as_interrupt() -> Callable[[], None]:
    """Turn SIGTERM into KeyboardInterrupt while the batch runs (main thread only), so a
    terminated batch stops its workers and writes its partial summary; returns the undo."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        return lambda: None

    def handler(signum, frame):
        raise KeyboardInterrupt("terminated")

    try:
        old = signal.signal(signal.SIGTERM, handler)
    except (ValueError, OSError):  # pragma: no cover - no signals here
        return lambda: None
    return lambda: signal.signal(signal.SIGTERM, old)


@contextlib.contextmanager
def _held_interrupts():
    """Hold Ctrl-C and SIGTERM while the inputs are planned (main thread only): an interrupt
    then arrives as KeyboardInterrupt when planning ends, never in the middle of an import
    (a module left half-imported could not write the summary)."""
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    got: list[int] = []
    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        try:
            old[sig] = signal.signal(sig, lambda signum, frame: got.append(signum))
        except (ValueError, OSError):  # pragma: no cover - no signals here
            pass
    try:
        yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)
    if got:
        raise KeyboardInterrupt("interrupted while planning")


def _run(inputs, client, scheduler, distributed, workers, chunk_size, storms, progress,
         task_memory_mb, out_dir, t0, worker_wait_s=WORKER_WAIT_S,
         summary_arrays=True) -> BatchResult:
    # local worker processes start (imports, compiled loop) while the inputs are planned
    pool = _start_pool(workers) if not distributed and scheduler == "processes" else None
    try:
        with _held_interrupts():
            tasks, rows, info = plan_tasks(inputs, workers=workers, chunk_size=chunk_size,
                                           task_memory_mb=task_memory_mb, storms=storms,
                                           summary_arrays=summary_arrays)
    except KeyboardInterrupt:  # interrupted while planning: nothing ran; say so, as below
        if pool is not None:
            _stop_pool(pool)
        rows = [dict(_error_row(str(src), "", "not completed: interrupted while planning"),
                     _input=i, _index=0) for i, src in enumerate(inputs)]
        info = {i: {"source": str(src), "kind": "unplanned", "n": 1, "columns": []}
                for i, src in enumerate(inputs)}
        _finish(rows, info, out_dir, inputs, scheduler if isinstance(scheduler, str) else
                "distributed client", workers, [], t0, len(inputs), {}, interrupted=True)
        raise
    except BaseException:
        if pool is not None:
            _stop_pool(pool)
        raise
    total = sum(i["n"] for i in info.values())
    bar = _Progress(total, progress)
    done_tasks: set[int] = set()
    peaks: dict[int, float] = {}
    cpu = [0.0]
    paths: dict = {"summary_arrays": 0, "full_analysis": 0, "reasons": {}}
    restarts: list[int] = []
    failed = sum(1 for _ in rows)
    bar.update(failed, chunk=False)

    def on_result(res: dict) -> None:
        nonlocal failed
        if res["task"] in done_tasks:
            return
        done_tasks.add(res["task"])
        rows.extend(res["rows"])
        failed += res["failed"]
        cpu[0] += res.get("cpu_s", 0.0)
        got = res.get("paths") or {}
        for key in ("summary_arrays", "full_analysis"):
            paths[key] += got.get(key, 0)
        for why, n in got.get("reasons", {}).items():
            paths["reasons"][why] = paths["reasons"].get(why, 0) + n
        peaks[res["pid"]] = max(peaks.get(res["pid"], 0.0), res["peak_rss_mb"])
        bar.update(res["n"])

    def on_failure(task: dict, exc: BaseException) -> None:
        nonlocal failed
        done_tasks.add(task["task"])
        n = task.get("stop", 1) - task.get("start", 0)
        what = "" if task["kind"] == "site" else \
            f"scenarios {task['start']} to {task['stop'] - 1} "
        rows.append(dict(_error_row(task["source"], "", f"{what}not completed: "
                                    f"{_message(exc)}"), _input=task["input"],
                         _index=task.get("start", 0)))
        failed += n
        bar.update(n)

    label = scheduler if isinstance(scheduler, str) else \
        getattr(getattr(client, "scheduler", None), "address", None) or "distributed client"
    try:
        if distributed:
            _run_distributed(tasks, client, on_result, on_failure,
                             worker_wait_s=worker_wait_s)
        else:
            _run_local(tasks, scheduler, workers, on_result, done_tasks, restarts=restarts,
                       pool=pool)
    except KeyboardInterrupt:
        for t in tasks:
            if t["task"] not in done_tasks:
                on_failure(t, KeyboardInterrupt("interrupted"))
        bar.close()
        _finish(rows, info, out_dir, inputs, label, workers, tasks, t0, failed, peaks,
                cpu[0], interrupted=True, restarts=restarts, paths=paths)
        raise
    except Exception as exc:  # noqa: BLE001 - e.g. a broken process pool: keep what is done
        for t in tasks:
            if t["task"] not in done_tasks:
                on_failure(t, exc)
    finally:
        if pool is not None:  # stopped by _run_local, unless it never ran a task
            _stop_pool(pool)
    bar.close()
    return _finish(rows, info, out_dir, inputs, label, workers if not distributed else None,
                   tasks, t0, failed, peaks, cpu[0], restarts=restarts, paths=paths)


def _finish(rows, info, out_dir, inputs, label, workers, tasks, t0, failed, peaks,
            task_cpu_s=math.nan, interrupted=False, restarts=(), paths=None) -> BatchResult:
    import hydrocalc

    rows.sort(key=lambda r: (r.get("_input", 0), r.get("_index", 0)))
    for r in rows:
        r.pop("_input", None)
        r.pop("_index", None)
    extra: list[str] = []
    for i in sorted(info):
        for c in info[i]["columns"]:
            if c not in extra:
                extra.append(c)
    frame = summary_frame(rows, extra)
    n_units = sum(i["n"] for i in info.values())
    elapsed = time.perf_counter() - t0
    files: dict = {}
    meta = {
        "format": "hydrocalc-batch/1", "hydrocalc_version": hydrocalc.__version__,
        "inputs": [{"source": info[i]["source"], "kind": info[i]["kind"],
                    "scenarios": info[i]["n"]} for i in sorted(info)],
        "scheduler": label, "workers": workers, "tasks": len(tasks), "scenarios": n_units,
        "failed": failed, "elapsed_s": round(elapsed, 3), "interrupted": interrupted,
        "complete": failed == 0 and not interrupted,
        # local process pools replaced after a lost worker, with the tasks each re-ran
        "pool_restarts": list(restarts),
        "worker_peak_rss_mb": {str(k): round(v, 1) for k, v in sorted(peaks.items())},
        "task_cpu_s": round(task_cpu_s, 3),
        # sweep scenarios computed by the summary arrays and by the full analysis (with why)
        "sweep_paths": paths or {},
    }
    if out_dir is not None:
        files = _write_outputs(frame, meta, pathlib.Path(out_dir), parallel=not interrupted)
    return BatchResult(summary=frame, n_inputs=len(inputs), n_scenarios=n_units,
                       n_failed=failed, elapsed_s=time.perf_counter() - t0, files=files,
                       scheduler=str(label), workers=workers, n_tasks=len(tasks),
                       worker_peak_rss_mb=peaks, parent_peak_rss_mb=_peak_rss_mb(),
                       task_cpu_s=task_cpu_s, paths=paths or {})
