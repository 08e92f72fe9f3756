"""Running the tasks: a local process pool (or threads, or in-process) and ``dask.distributed``.

The local pool's workers die with their parent and are restarted when one dies; a cluster is
reached by address or :class:`distributed.Client`, with a wait for its workers. Also the
progress report on stderr.

Part of :mod:`hydrocalc.batch`; every name is importable from there.
"""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from tqdm.auto import tqdm

from hydrocalc.analysis import load_shipped_tables
from hydrocalc.batch.tasks import run_task
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.routing import kernel as _route_kernel

try:
    from multiprocessing import forkserver
except ImportError:  # pragma: no cover - a platform without a fork server
    forkserver = None  # type: ignore[assignment]  # checked before use

#: Seconds to wait for a dask.distributed scheduler to answer. [s]
CONNECT_TIMEOUT_S = 20.0
#: Default seconds to wait for a dask.distributed scheduler to have a worker (at the start,
#: or after every worker left mid-run) before failing with a message. [s]
WORKER_WAIT_S = 60.0
#: Times a local process pool broken by a lost worker is replaced to re-run the unfinished
#: tasks before they are recorded as errors.
POOL_RESTARTS = 2


# ----------------------------------------------------------------------------------------
# execution


class _Progress:
    """A scenario-count progress report on stderr (a tqdm bar; tqdm is in the batch extra).

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
            self.bar = tqdm(total=total, unit="scenario", desc="hydrocalc batch",
                            file=sys.stderr,
                            bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/"
                                       "{total_fmt} scenarios [{elapsed}{postfix}]")

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

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()


def _is_client(obj) -> bool:
    return type(obj).__name__ == "Client" and hasattr(obj, "submit")


#: glibc's malloc settings of the local worker processes, as the environment variables
#: glibc reads when a process starts (mallopt(3)): blocks up to 1 GiB come from the heap
#: (not mmap), the heap top is never trimmed, and the heap grows 64 MB at a time.
WORKER_MALLOC_ENV = {"MALLOC_MMAP_THRESHOLD_": str(1 << 30),
                     "MALLOC_TRIM_THRESHOLD_": str(2**31 - 1),
                     "MALLOC_TOP_PAD_": str(64 << 20)}


@contextlib.contextmanager
def worker_malloc_env() -> Iterator[dict]:
    """Keep freed memory for reuse in processes started within the block.

    Within the block, processes started by this one keep the memory they free for reuse
    (glibc, through :data:`WORKER_MALLOC_ENV`; a variable the user has set is kept).

    A sweep task allocates a few hundred MB of arrays and frees them; by default glibc
    returns such blocks to the system (``mmap``/``munmap``), so the next chunk's arrays are
    fresh pages that the kernel must fault in and zero. With these settings a worker reuses
    its heap: its memory stays at its peak (reached with or without them) until the pool
    ends. Measured on the 10,000-scenario Pelham sweep (2 workers, three interleaved pairs):
    task CPU 3.98-4.19 s with them, 5.07-5.53 s without. The local pool starts its fork
    server (and, where there is none, its spawned workers) inside this block; the calling
    process itself is never changed. Other C libraries ignore the variables. Yields the
    variables it set.
    """
    added = {k: v for k, v in WORKER_MALLOC_ENV.items() if k not in os.environ}
    if not sys.platform.startswith("linux"):
        added = {}
    os.environ.update(added)
    try:
        yield added
    finally:
        for key in added:
            os.environ.pop(key, None)


def _follow_parent() -> bool:
    """Exit this worker process as soon as the process that started it ends.

    A batch killed with SIGKILL cannot stop its workers itself; a daemon thread waits on
    :func:`multiprocessing.parent_process`'s ``sentinel`` (ready when the parent has
    ended) and exits the worker then. The fork server exits in turn once the batch and its
    workers have (its "alive" pipe is closed by all of them). Returns True when the watch
    was started (False in a process that multiprocessing did not start).
    """
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return False

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="hydrocalc-follow-parent", daemon=True).start()
    return True


def _worker_init() -> None:
    """Initialize a local worker process (exit with the batch, import, load).

    Initializer of the local worker processes: exit with the batch; import the analysis
    and load the compiled routing loop (already done when the worker was forked from the
    warmed-up fork server, see :func:`warm_up`).
    """
    _follow_parent()
    _ignore_interrupts()
    warm_up()


def _ignore_interrupts() -> None:
    """Ignore SIGINT in a worker (the batch itself stops its workers).

    Ignore SIGINT in a worker: Ctrl-C reaches the whole process group, and the batch
    itself stops its workers (a worker that died of it would look like a lost worker).
    """
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # pragma: no cover - not the main thread of the worker
        pass


_WARM = False
#: Modules a sweep task imports (the analysis, the site model the sweep is unpickled into,
#: the outlets and routing, the criteria), imported by :func:`warm_up`.
_WARM_MODULES = (
    "hydrocalc.analysis", "hydrocalc.site", "hydrocalc.site.project", "hydrocalc.batch.sweep",
    "hydrocalc.analysis.summary", "hydrocalc.hydrograph", "hydrocalc.hydraulics.routing",
    "hydrocalc.hydraulics.outlets", "hydrocalc.hydraulics", "hydrocalc.hydraulics.stage_storage",
    "hydrocalc.storage_estimate", "hydrocalc.hydraulics.pond_file", "hydrocalc.rainfall",
    "hydrocalc.design_storms", "hydrocalc.runoff", "hydrocalc.peak",
    "hydrocalc.unit_hydrograph", "hydrocalc.hydraulics.sizing", "hydrocalc.criteria.ny_site",
    "hydrocalc.batch.tasks", "scipy.fft",
)


def warm_up() -> None:
    """Import what every sweep task uses and load the compiled routing loop.

    Import what every sweep task uses and load the compiled routing loop (numba's cached
    machine code), once per process.

    Run by the fork server of the local worker pool before it forks the workers
    (:mod:`hydrocalc.batch._warm`), so each worker starts with all of this in memory instead
    of importing numpy, scipy and numba and loading the compiled loop itself; in a worker
    started another way (spawned, a cluster) it runs in the worker initializer. Only a
    warm-up: a failure here is ignored (the tasks report real problems).
    """
    global _WARM
    if _WARM:
        return
    _WARM = True
    for name in _WARM_MODULES:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    with contextlib.suppress(Exception):
        load_shipped_tables()  # the shipped tables a sweep reads, parsed once
    with contextlib.suppress(Exception):

        _route_kernel.warm_up()


def _noop() -> None:
    """A task that does nothing (starts a pool's worker processes)."""


_PRELOAD = ["hydrocalc.batch._warm"]


def _has_fork_server() -> bool:
    return sys.platform != "win32" and "forkserver" in multiprocessing.get_all_start_methods()


def _pool_context():
    """The multiprocessing context of the local pool.

    On platforms with a fork server (Linux, macOS) the workers are forked from a server
    process that has imported the analysis and loaded the compiled routing loop once
    (preloaded module :mod:`hydrocalc.batch._warm`): each worker then starts in a few
    milliseconds, and the server's start overlaps the planning in the calling process. The
    server is started without the caller's memory (a fresh interpreter), so no thread or
    lock of the caller is inherited. Elsewhere, or when dask's ``multiprocessing.context``
    configuration names another method, dask's context (``spawn`` by default).
    """
    import dask
    from dask.multiprocessing import get_context

    wanted = dask.config.get("multiprocessing.context", None)
    if wanted in (None, "forkserver") and _has_fork_server():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return get_context()


def start_server() -> bool:
    """Start the warmed-up fork server of the local pool now; True when used.

    Start the warmed-up fork server of the local pool now (it imports and loads in its own
    process while the caller goes on); True when the pool uses one, False otherwise.

    The server is started before dask is imported (a quarter of a second that the server's
    warm-up, the longest part of a batch's start, need not wait for); if dask's
    configuration then names another start method, the server stays idle until this
    process ends (it holds no work and exits with it). The server is multiprocessing's
    own: it lives as long as this process, so a later batch starts its workers at once.
    """
    if "dask" not in sys.modules and _has_fork_server():
        multiprocessing.get_context("forkserver").set_forkserver_preload(_PRELOAD)
        with worker_malloc_env():
            forkserver.ensure_running()
    ctx = _pool_context()
    if ctx.get_start_method() != "forkserver":
        return False
    with worker_malloc_env():
        forkserver.ensure_running()
    return True


class WorkerPool(ProcessPoolExecutor):
    """The local process pool, able to stop its worker processes at once.

    The local process pool: a :class:`~concurrent.futures.ProcessPoolExecutor` that can
    stop its worker processes at once (:meth:`stop`).

    Its workers are the children of this process started after the pool was made
    (:func:`multiprocessing.active_children`); a pool is made and stopped by one batch at a
    time.
    """

    def __init__(self, workers: int, mp_context) -> None:
        self.children_before = {p.pid for p in multiprocessing.active_children()}
        with worker_malloc_env():  # spawned workers (a forked worker has the server's)
            super().__init__(workers, mp_context=mp_context, initializer=_worker_init)
            # one process is started per submission without an idle one: all of them now
            for _ in range(workers):
                self.submit(_noop)

    def worker_processes(self) -> list:
        """The worker processes still alive."""
        return [p for p in multiprocessing.active_children()
                if p.pid not in self.children_before]

    def stop(self) -> None:
        """Cancel queued work and terminate the worker processes now."""
        procs = self.worker_processes()
        for proc in procs:
            proc.terminate()
        self.shutdown(wait=False, cancel_futures=True)
        for proc in procs:
            proc.join(2.0)
            if proc.is_alive():
                proc.kill()
                proc.join(2.0)


def _start_pool(workers: int) -> WorkerPool:
    """Return a local process pool whose workers start now.

    A local process pool whose workers start now (forked from the warmed-up server, or
    spawned and initialized in parallel with whatever the caller does next).
    """
    return WorkerPool(workers, _pool_context())


def _stop_pool(pool: WorkerPool) -> None:
    """Stop a local process pool now: cancel queued work and terminate its processes."""
    pool.stop()


def _run_local(tasks, scheduler: str, workers: int, on_result: Callable[[dict], None],
               done: set[int], retries: int = POOL_RESTARTS,
               restarts: list | None = None, pool=None) -> None:
    """Run ``tasks`` on the local scheduler, replacing a broken process pool.

    Run ``tasks`` on the local scheduler; a broken process pool (a worker killed) is
    replaced up to ``retries`` times to re-run the tasks not yet done (each replacement is
    appended to ``restarts``). ``pool``: a started process pool (:func:`_start_pool`) for
    the first attempt (stopped here).

    ``"processes"``: the tasks are submitted to the process pool directly, in plan order
    (scenario order), and collected as they finish (what dask's multiprocessing scheduler
    does with independent tasks, without the workers importing dask to unpickle its task
    wrapper: half a second of every worker's start). ``"threads"`` and ``"synchronous"``:
    dask's local schedulers.
    """
    attempt = 0
    while True:
        todo = [t for t in tasks if t["task"] not in done]
        if not todo:
            return
        try:
            if scheduler == "processes":
                if pool is None:
                    pool = _start_pool(workers)
                _run_pool(todo, pool, on_result)
            else:
                _run_dask_local(todo, scheduler, workers, on_result)
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


def _run_pool(todo, pool, on_result: Callable[[dict], None]) -> None:
    """Submit ``todo`` to the process pool in order; call ``on_result`` of each.

    Submit ``todo`` to the process pool in order; ``on_result`` of each as it finishes
    (in this thread). A task's exception (a lost worker: BrokenProcessPool) is raised.
    """
    from concurrent.futures import as_completed

    futures = [pool.submit(run_task, t) for t in todo]
    for fut in as_completed(futures):
        result = fut.result()
        if isinstance(result, dict) and "rows" in result:
            on_result(result)


def _run_dask_local(todo, scheduler: str, workers: int,
                    on_result: Callable[[dict], None]) -> None:
    import dask
    from dask.callbacks import Callback

    def posttask(key, result, dsk, state, worker_id):
        if isinstance(result, dict) and "rows" in result:
            on_result(result)

    delayed = [dask.delayed(run_task, pure=False)(
        t, dask_key_name=f"hydrocalc-task-{t['task']}") for t in todo]
    # the scheduler's function itself, not its name: dask resolves a name only after
    # importing dask.distributed to look for a running client (about a second of imports)
    kwargs: dict[str, Any] = {"scheduler": _local_get(scheduler)}
    if scheduler == "threads":
        kwargs["num_workers"] = workers
    with Callback(posttask=posttask):
        dask.compute(*delayed, **kwargs)


def _local_get(scheduler: str) -> Callable:
    """Return the function of dask's local scheduler ``scheduler``.

    The function of dask's local scheduler ``scheduler`` (``"threads"`` or
    ``"synchronous"``), as ``dask.compute(scheduler=...)`` would choose.
    """
    if scheduler == "threads":
        import dask.threaded

        return dask.threaded.get
    if scheduler == "synchronous":
        import dask.local

        return dask.local.get_sync
    raise AssertionError(scheduler)


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
    """Submit every task to the cluster; lost workers' tasks are re-run.

    Submit every task; lost workers' tasks are re-run by the scheduler (up to its
    ``distributed.scheduler.allowed-failures``); tasks still pending when the cluster has
    had no worker for ``worker_wait_s`` fail with that message.
    """
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
                lost = _NoWorkers(f"the scheduler has had no worker for {worker_wait_s:g} s "
                                  "(--worker-wait)")
                for fut in pending:
                    on_failure(futures[fut], lost)
                pending = set()
    finally:
        for fut in pending:
            fut.cancel()
