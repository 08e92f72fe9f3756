"""The entry point :func:`run_batch`: plan, run, collect, write.

Interrupts (Ctrl-C, SIGTERM) are held while planning and turn into an incomplete summary
(unfinished rows ``status = "interrupted"``) written before :class:`BatchInterrupted` is
raised.

Part of :mod:`hydrocalc.batch`; every name is importable from there.
"""

from __future__ import annotations

import contextlib
import math
import os
import pathlib
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence

from hydrocalc.batch.output import (
    BatchInterrupted,
    BatchResult,
    _write_outputs,
    summary_frame_of,
)
from hydrocalc.batch.plan import plan_tasks
from hydrocalc.batch.tasks import _error_row, _message, _peak_rss_mb
from hydrocalc.batch.workers import (
    WORKER_WAIT_S,
    _connect,
    _is_client,
    _Progress,
    _run_distributed,
    _run_local,
    _start_pool,
    _stop_pool,
    _wait_for_workers,
    start_server,
)
from hydrocalc.errors import InputError

_LOCAL = ("processes", "threads", "synchronous")
#: ``status`` of the summary rows an interrupt (Ctrl-C, SIGTERM) left not completed.
INTERRUPTED = "interrupted"
#: Set this environment variable (to anything but "" or "0") to print the batch's timeline
#: (start, planning, each task's start and end per worker, the writing) on stderr.
TRACE_ENV = "HYDROCALC_BATCH_TRACE"
_T0 = [0.0]


def _trace(what: str) -> None:
    """Write one timeline line on stderr when :data:`TRACE_ENV` is set.

    One line of the timeline on stderr (seconds since :func:`run_batch` began) when
    :data:`TRACE_ENV` is set; nothing otherwise.
    """
    if os.environ.get(TRACE_ENV, "0") not in ("", "0"):

        print(f"[batch {time.time() - _T0[0]:7.3f} s] {what}", file=sys.stderr, flush=True)


def run_batch(inputs: Sequence, *, out_dir=None, scheduler=None, workers: int | None = None,
              chunk_size: int | None = None, storms: Sequence[str] | None = None,
              progress: bool = True, task_memory_mb: float | None = None,
              worker_wait_s: float = WORKER_WAIT_S,
              summary_arrays: bool = True) -> BatchResult:
    """Analyse many site files and sweep scenarios on Dask; write one summary table.

    Parameters
    ----------
    inputs : sequence of path-like
        Site files (``hydrocalc.site`` schema) and sweep files (``hydrocalc.batch.sweep``).
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
        (``hydrocalc.analysis.analyze_many(..., detail="summary")``: only the summary
        quantities, as array work across the scenarios of a block) where it applies; the
        others, and all with False, by the full analysis. Both give
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
    BatchInterrupted
        (a KeyboardInterrupt) when Ctrl-C or SIGTERM stopped the batch, after the partial
        summary was written: the rows not completed have ``status = "interrupted"``,
        ``batch.json`` has ``"interrupted": true``; its ``result`` is the BatchResult.
    """
    t0 = time.perf_counter()
    _T0[0] = time.time()
    _trace(f"run_batch entered at {_T0[0]:.3f} (epoch s)")
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


def _import_writers() -> None:
    """Import the summary writers' libraries now, while the fork server starts.

    Import the summary writers' libraries now (pandas' Parquet support and pyarrow's
    writer): done while the workers' fork server starts, not in the serial end.
    """
    with contextlib.suppress(ImportError):
        import pandas.io.parquet  # noqa: F401
        import pyarrow.parquet  # noqa: F401


def _terminate_as_interrupt() -> Callable[[], object]:
    """Turn SIGTERM into KeyboardInterrupt while the batch runs; return the undo.

    Turn SIGTERM into KeyboardInterrupt while the batch runs (main thread only), so a
    terminated batch stops its workers and writes its partial summary; returns the undo.
    """
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
def _held_interrupts() -> Iterator[None]:
    """Hold Ctrl-C and SIGTERM while the inputs are planned (main thread only).

    An interrupt then arrives as KeyboardInterrupt when planning ends, never in the middle of
    an import (a module left half-imported could not write the summary).
    """
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


def _plan_or_stop(inputs, pool, scheduler, workers, chunk_size, storms, task_memory_mb,
                  out_dir, t0, summary_arrays):
    """Plan the tasks with interrupts held; an interrupt writes the unplanned summary."""
    try:
        with _held_interrupts():
            return plan_tasks(inputs, workers=workers, chunk_size=chunk_size,
                              task_memory_mb=task_memory_mb, storms=storms,
                              summary_arrays=summary_arrays)
    except KeyboardInterrupt:  # interrupted while planning: nothing ran; say so, as below
        if pool is not None:
            _stop_pool(pool)
        rows = [dict(_error_row(str(src), "", "not completed: interrupted while planning"),
                     _input=i, _index=0, status=INTERRUPTED) for i, src in enumerate(inputs)]
        info = {i: {"source": str(src), "kind": "unplanned", "n": 1, "columns": []}
                for i, src in enumerate(inputs)}
        result = _finish(rows, info, out_dir, inputs, scheduler if isinstance(scheduler, str)
                         else "distributed client", workers, [], t0, len(inputs), {},
                         interrupted=len(inputs))
        raise BatchInterrupted(result) from None
    except BaseException:
        if pool is not None:
            _stop_pool(pool)
        raise


class _Tally:
    """The tasks' results as they arrive: rows, failures, peaks, CPU time, sweep paths."""

    def __init__(self, rows: list, bar: _Progress) -> None:
        """Start from the planning's rows (each a failed unit) and the progress bar."""
        self.rows = rows
        self.bar = bar
        self.done_tasks: set[int] = set()
        self.peaks: dict[int, float] = {}
        self.cpu_s = 0.0
        self.paths: dict = {"summary_arrays": 0, "full_analysis": 0, "reasons": {}}
        self.restarts: list[int] = []
        self.unfinished = 0  # units an interrupt left not completed
        self.failed = sum(1 for _ in rows)

    def on_result(self, res: dict) -> None:
        """Add one task's result (once per task)."""
        if res["task"] in self.done_tasks:
            return
        self.done_tasks.add(res["task"])
        self.rows.extend(res["rows"])
        self.failed += res["failed"]
        self.cpu_s += res.get("cpu_s", 0.0)
        got = res.get("paths") or {}
        for key in ("summary_arrays", "full_analysis"):
            self.paths[key] += got.get(key, 0)
        for why, n in got.get("reasons", {}).items():
            self.paths["reasons"][why] = self.paths["reasons"].get(why, 0) + n
        self.peaks[res["pid"]] = max(self.peaks.get(res["pid"], 0.0), res["peak_rss_mb"])
        self.bar.update(res["n"])
        if "t_start" in res:
            _trace(f"task {res['task']} on {res['pid']}: {res['t_start'] - _T0[0]:.3f} to "
                   f"{res['t_start'] - _T0[0] + res['elapsed_s']:.3f} s, cpu "
                   f"{res.get('cpu_s', 0.0):.3f} s, n {res['n']}")

    def on_failure(self, task: dict, exc: BaseException) -> None:
        """Add the error row of a task that failed or was interrupted."""
        self.done_tasks.add(task["task"])
        n = task.get("stop", 1) - task.get("start", 0)
        what = "" if task["kind"] == "site" else \
            f"scenarios {task['start']} to {task['stop'] - 1} "
        stopped = isinstance(exc, KeyboardInterrupt)
        why = f"{exc}" if stopped else _message(exc)
        self.rows.append(dict(_error_row(task["source"], "", f"{what}not completed: {why}"),
                              _input=task["input"], _index=task.get("start", 0),
                              status=INTERRUPTED if stopped else "error"))
        self.failed += n
        if stopped:
            self.unfinished += n
        self.bar.update(n)


def _run(inputs, client, scheduler, distributed, workers, chunk_size, storms, progress,
         task_memory_mb, out_dir, t0, worker_wait_s=WORKER_WAIT_S,
         summary_arrays=True) -> BatchResult:
    """Plan, run the tasks (local pool or cluster), collect and write the summary."""
    # local worker processes start (imports, compiled loop) while the inputs are planned:
    # the warmed-up fork server when there is one (the workers are forked from it after
    # planning, in milliseconds), else the spawned workers themselves
    local = not distributed and scheduler == "processes"
    server = local and start_server()
    _trace(f"fork server start requested ({server})")
    pool = _start_pool(workers) if local and not server else None
    tasks, rows, info = _plan_or_stop(inputs, pool, scheduler, workers, chunk_size, storms,
                                      task_memory_mb, out_dir, t0, summary_arrays)
    _trace(f"planned: {len(tasks)} tasks")
    total = sum(i["n"] for i in info.values())
    bar = _Progress(total, progress)
    tally = _Tally(rows, bar)
    bar.update(tally.failed, chunk=False)

    label = scheduler if isinstance(scheduler, str) else \
        getattr(getattr(client, "scheduler", None), "address", None) or "distributed client"
    try:
        if server and tasks:  # here, so that an interrupt now is handled as one mid-run
            if out_dir is not None:  # while the fork server may still be warming up
                _import_writers()
                _trace("writers imported")
            pool = _start_pool(workers)
            _trace("pool started")
        if distributed:
            _run_distributed(tasks, client, tally.on_result, tally.on_failure,
                             worker_wait_s=worker_wait_s)
        else:
            _run_local(tasks, scheduler, workers, tally.on_result, tally.done_tasks,
                       restarts=tally.restarts, pool=pool)
    except KeyboardInterrupt as exc:
        why = "terminated (SIGTERM)" if str(exc) == "terminated" else "interrupted"
        if pool is not None:  # the workers stop first: nothing more is computed
            _stop_pool(pool)
            pool = None
        for t in tasks:
            if t["task"] not in tally.done_tasks:
                tally.on_failure(t, KeyboardInterrupt(why))
        bar.close()
        result = _finish(rows, info, out_dir, inputs, label, workers, tasks, t0, tally.failed,
                         tally.peaks, tally.cpu_s, interrupted=tally.unfinished or True,
                         restarts=tally.restarts, paths=tally.paths)
        raise BatchInterrupted(result, why) from None
    except Exception as exc:  # noqa: BLE001 - e.g. a broken process pool: keep what is done
        for t in tasks:
            if t["task"] not in tally.done_tasks:
                tally.on_failure(t, exc)
    finally:
        if pool is not None:  # stopped by _run_local, unless it never ran a task
            _stop_pool(pool)
    bar.close()
    _trace("tasks done")
    return _finish(rows, info, out_dir, inputs, label, workers if not distributed else None,
                   tasks, t0, tally.failed, tally.peaks, tally.cpu_s, restarts=tally.restarts,
                   paths=tally.paths)


def _finish(rows, info, out_dir, inputs, label, workers, tasks, t0, failed, peaks,
            task_cpu_s=math.nan, interrupted: int | bool = False, restarts=(),
            paths=None) -> BatchResult:
    """The summary table and its files.

    ``interrupted``: the number of units an interrupt left not completed (True:
    interrupted, none left), or False.
    """
    import hydrocalc

    extra: list[str] = []
    for i in sorted(info):
        for c in info[i]["columns"]:
            if c not in extra:
                extra.append(c)
    frame = summary_frame_of(rows, extra)  # row dicts and the tasks' column blocks
    _trace("summary table assembled")
    n_units = sum(i["n"] for i in info.values())
    elapsed = time.perf_counter() - t0
    files: dict = {}
    meta = {
        "format": "hydrocalc-batch/1", "hydrocalc_version": hydrocalc.__version__,
        "inputs": [{"source": info[i]["source"], "kind": info[i]["kind"],
                    "scenarios": info[i]["n"]} for i in sorted(info)],
        "scheduler": label, "workers": workers, "tasks": len(tasks), "scenarios": n_units,
        "failed": failed, "elapsed_s": round(elapsed, 3), "interrupted": bool(interrupted),
        # units not completed because of the interrupt (their rows: status "interrupted")
        "not_completed_interrupted": int(interrupted) if interrupted is not True else 0,
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
        _trace("files written")
    return BatchResult(summary=frame, n_inputs=len(inputs), n_scenarios=n_units,
                       n_failed=failed, elapsed_s=time.perf_counter() - t0, files=files,
                       scheduler=str(label), workers=workers, n_tasks=len(tasks),
                       worker_peak_rss_mb=peaks, parent_peak_rss_mb=_peak_rss_mb(),
                       task_cpu_s=task_cpu_s, paths=paths or {},
                       n_interrupted=int(interrupted) if interrupted is not True else 0)
