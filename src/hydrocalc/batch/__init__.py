r"""Batch runs: many site files, or every scenario of parameter sweeps, on Dask.

:func:`run_batch` analyses every input (:func:`hydrocalc.analysis.analyze` semantics) and
collects one summary table, one row per input (or sweep scenario), design point and storm:

==================  =======  ==================================================================
Column              Unit     Meaning
==================  =======  ==================================================================
source              -        the input file (site or sweep file) as given
site                -        project name of the site
scenario            -        sweep scenario label (``"00042"``); empty for a site file
design_point        -        design point id
storm               -        storm name (``"10yr"``)
precip_in           in       24-hour storm depth
pre_peak_cfs        ft3/s    pre-development peak at the design point
post_peak_cfs       ft3/s    post-development (routed) peak
peak_change_pct     %        100 (post - pre) / pre
pre_volume_ft3      ft3      pre-development runoff volume
post_volume_ft3     ft3      post-development volume
volume_change_pct   %        100 (post - pre) / pre
post_le_pre         -        post peak <= pre peak
wqv_pass ...        -        NY SMDM criteria (``wqv, rrv, cpv, qp, qf``) pass/fail, empty
                             when not evaluated; ``criteria_pass`` all of them
status              -        ``"ok"``, ``"error"`` or ``"interrupted"`` (Ctrl-C/SIGTERM)
error               -        the error message of a failed input/scenario (lines joined by
                             ``" | "``), empty otherwise
<varied field>      (field)  one column per ``[[vary]]`` entry of a sweep: the value used
==================  =======  ==================================================================

Execution
---------
Inputs are split into tasks (one per site file; sweep scenarios in chunks) run by Dask: the
local process pool by default (``workers`` processes), ``"threads"`` or ``"synchronous"``,
or a ``dask.distributed`` cluster given by its address (``tcp://host:8786``) or a
``distributed.Client``. Within a task, the scenarios of a sweep are computed in blocks by
:func:`hydrocalc.analysis.analyze_many` with ``detail="summary"`` (only the summary
quantities, as array work across the block where :mod:`hydrocalc.analysis.summary`
expresses the scenarios; the others, with the reason counted in ``batch.json``, by the full
analysis), or with ``summary_arrays=False`` by the full analysis, which batches their
subcatchments, storms and ponds into array work (one runoff-hydrograph call and one routing
call per pond for the whole block); results equal :func:`~hydrocalc.analysis.analyze` on each
scenario (``tests/batch/test_batch.py`` and ``tests/analysis/test_sweep_summary.py`` check
this to 1e-9).

A failing input or scenario becomes a row with ``status = "error"`` and its message; the
others continue. The tasks of a worker that dies are re-run (a new local process pool, or
the cluster's other workers); tasks that cannot be completed are error rows naming their
scenarios, and ``batch.json`` then says ``"complete": false``. Output files are written
atomically (a temporary file beside the target, then ``os.replace``), so a reader never
sees a half-written table.

Distributed runs need the input files at the same paths on every worker (a shared file
system) and hydrocalc installed on the workers.

Modules (each builds on the ones above it)
------------------------------------------
==============================  ===================================================================
:mod:`hydrocalc.batch.tasks`    one task's work in a worker: :func:`run_task`, the summary rows
                                (a sweep task's as one :class:`RowBlock` of columns)
:mod:`hydrocalc.batch.plan`     :func:`plan_tasks`, :func:`default_task_memory_mb` (chunk sizes)
:mod:`hydrocalc.batch.workers`  the local process pool, ``dask.distributed``, the progress report
:mod:`hydrocalc.batch.output`   :class:`BatchResult`, :func:`summary_frame`, atomic CSV/JSON writes
:mod:`hydrocalc.batch.run`      :func:`run_batch` (plan, run, collect, write; interrupts)
==============================  ===================================================================

Every name is importable from :mod:`hydrocalc.batch` itself.
"""

from __future__ import annotations

# Names the single module imported stay reachable as its attributes.
import time  # noqa: F401 (re-exported: hydrocalc.batch.time, the progress clock)

from hydrocalc.batch.output import (  # noqa: F401 (re-exported)
    STAGING_PREFIX,
    SUMMARY_COLUMNS,
    BatchInterrupted,
    BatchResult,
    clean_stale_batch_staging,
    summary_frame,
    summary_frame_of,
)
from hydrocalc.batch.plan import (  # noqa: F401 (re-exported)
    MAX_CHUNK,
    SUMMARY_BATCH,
    TASK_MEMORY_MB,
    TASK_MEMORY_MB_NUMPY,
    default_task_memory_mb,
    plan_tasks,
)
from hydrocalc.batch.run import (  # noqa: F401 (re-exported)
    INTERRUPTED,
    run_batch,
)
from hydrocalc.batch.tasks import (  # noqa: F401 (re-exported)
    RowBlock,
    current_rss_mb,
    run_task,
)
from hydrocalc.batch.workers import (  # noqa: F401 (re-exported)
    CONNECT_TIMEOUT_S,
    POOL_RESTARTS,
    WORKER_MALLOC_ENV,
    WORKER_WAIT_S,
    WorkerPool,
    start_server,
    warm_up,
    worker_malloc_env,
)
from hydrocalc.errors import InputError  # noqa: F401 (re-exported)

__all__ = ["run_batch", "BatchResult", "SUMMARY_COLUMNS", "plan_tasks", "run_task",
           "summary_frame", "default_task_memory_mb", "worker_malloc_env", "WORKER_MALLOC_ENV",
           "WorkerPool", "current_rss_mb", "BatchInterrupted", "INTERRUPTED",
           "clean_stale_batch_staging"]
