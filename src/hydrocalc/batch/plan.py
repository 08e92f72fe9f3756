"""Planning a batch: :func:`plan_tasks` splits the inputs into tasks.

One task per site file; the scenarios of a sweep in chunks sized from the workers' count
and the memory a scenario needs (:func:`default_task_memory_mb`).

Part of :mod:`hydrocalc.batch`; every name is importable from there.
"""

from __future__ import annotations

import math
import pathlib
from collections.abc import Sequence

from hydrocalc import analysis
from hydrocalc.batch.sweep import is_sweep_document
from hydrocalc.batch.tasks import _cached_sweep, _error_row, _message, _sweep_blob
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.routing import kernel as _route_kernel
from hydrocalc.input_file import read_toml_file

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
#: (``hydrocalc.analysis.analyze_many(..., detail="summary")``). Measured for the Pelham sweep on
#: one core: 4.1 ms per scenario in blocks of 7, 3.1 ms in blocks of 25, 3.2 ms in blocks of
#: 50, 3.4 ms in blocks of 100 (larger arrays leave the processor's caches); a block of 25
#: holds about 40 MB of series.
SUMMARY_BATCH = 25


# ----------------------------------------------------------------------------------------
# planning


def default_task_memory_mb(workers: int) -> float:
    """Memory target of the arrays of one sweep task [MB].

    ``workers`` is accepted for callers that size by worker count; the target does not
    depend on it.

    With the compiled routing loop (numba, the ``batch`` extra) a chunk's cost per scenario
    hardly depends on its size, so chunks are kept small: a worker's libraries (numpy,
    pandas, pyarrow, scipy, numba) take about 230 MB, and :data:`TASK_MEMORY_MB` of arrays
    keeps the worker under 300 MB. Without numba the per-step cost of the numpy loop is
    amortized over the chunk, and :data:`TASK_MEMORY_MB_NUMPY` (larger chunks, more memory)
    is used. ``--memory-mb`` overrides either.
    """
    return TASK_MEMORY_MB if _route_kernel.installed() else TASK_MEMORY_MB_NUMPY


def _bytes_per_variant(site) -> float:
    """Rough memory of one sweep variant inside analyze_many (arrays kept per variant) [B]."""
    try:
        end_hr = analysis.simulation_end_hr(site, float(site.storms.duration_hr))
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
        try:  # with the input files' limits: a pipe or a huge file is refused, not read
            if is_sweep_document(read_toml_file(path, what="site file", deepest=5).doc):
                kind = "sweep"
        except InputError:  # the site task reports the file's problem
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
