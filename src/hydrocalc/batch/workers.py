"""Running the tasks: a local process pool (or threads, or in-process) and ``dask.distributed``.

The local pool's workers die with their parent and are restarted when one dies; a cluster is
reached by address or :class:`distributed.Client`, with a wait for its workers. Also the
progress report on stderr.

Part of :mod:`hydrocalc.batch`; every name is importable from there.
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from typing import Any

from hydrocalc._process import pid_alive
from hydrocalc.batch.tasks import run_task
from hydrocalc.errors import InputError

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
    # the parent (the batch, or the fork server that dies with it) died before the request:
    # follow it now
    if os.getppid() == 1 or not pid_alive(parent_pid):
        os._exit(1)
    return True


def _worker_init(parent_pid: int) -> None:
    """Initializer of the local worker processes: die with the batch; reuse freed memory;
    import the analysis and load the compiled routing loop (already done when the worker
    was forked from the warmed-up fork server, see :func:`warm_up`)."""
    _release_fork_server()
    _ignore_interrupts()
    _die_with_parent(parent_pid)
    tune_worker_malloc()
    warm_up()


def _ignore_interrupts() -> None:
    """Ignore SIGINT in a worker: Ctrl-C reaches the whole process group, and the batch
    itself stops its workers (a worker that died of it would look like a lost worker)."""
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # pragma: no cover - not the main thread of the worker
        pass


def _release_fork_server() -> None:
    """In a worker forked by the fork server: close its copy of the server's "alive" pipe.

    The fork server exits when every holder of that pipe's write end has closed it; a
    worker holds a copy, and dies itself only when the server does (``PR_SET_PDEATHSIG``),
    so without this a batch killed with SIGKILL would leave the server and its workers
    waiting on each other. Workers never start processes through the server themselves.
    """
    try:
        from multiprocessing import forkserver
    except ImportError:  # pragma: no cover - Windows
        return
    server = getattr(forkserver, "_forkserver", None)
    fd = getattr(server, "_forkserver_alive_fd", None)
    if fd is None or getattr(server, "_forkserver_pid", None) is not None:
        return  # spawned (no copy), or a process that started a server of its own
    try:
        os.close(fd)
    except OSError:
        pass
    server._forkserver_alive_fd = None


_WARM = False
#: Modules a sweep task imports (the analysis, the site model the sweep is unpickled into,
#: the outlets and routing, the criteria), imported by :func:`warm_up`.
_WARM_MODULES = (
    "hydrocalc.analysis", "hydrocalc.site", "hydrocalc.project", "hydrocalc.sweep",
    "hydrocalc.sweep_summary", "hydrocalc.hydrograph", "hydrocalc.routing",
    "hydrocalc.outlets", "hydrocalc.hydraulics", "hydrocalc.stage_storage",
    "hydrocalc.storage_estimate", "hydrocalc.pond_file", "hydrocalc.rainfall",
    "hydrocalc.design_storms", "hydrocalc.runoff", "hydrocalc.peak",
    "hydrocalc.unit_hydrograph", "hydrocalc.sizing", "hydrocalc.criteria.ny_site",
    "hydrocalc.batch.tasks", "scipy.fft",
)


def warm_up() -> None:
    """Import what every sweep task uses and load the compiled routing loop (numba's cached
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
    import contextlib
    import importlib

    for name in _WARM_MODULES:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    with contextlib.suppress(Exception):
        from hydrocalc.criteria import ny

        ny.criteria_info("wqv")  # the shipped tables a sweep reads, parsed once
        ny.rrv_factor_sets()
    with contextlib.suppress(Exception):
        from hydrocalc import rainfall

        for key in rainfall._SHIPPED:
            rainfall._shipped(key)
    with contextlib.suppress(Exception):
        from hydrocalc import _route_kernel

        _route_kernel.warm_up()


def _noop() -> None:
    """A task that does nothing (starts a pool's worker processes)."""


_PRELOAD = ["hydrocalc.batch._warm"]


def _has_fork_server() -> bool:
    import multiprocessing

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
    import multiprocessing

    import dask
    from dask.multiprocessing import get_context

    wanted = dask.config.get("multiprocessing.context", None)
    if wanted in (None, "forkserver") and _has_fork_server():
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(_PRELOAD)
        return ctx
    return get_context()


def start_server() -> bool:
    """Start the warmed-up fork server of the local pool now (it imports and loads in its own
    process while the caller goes on); True when the pool uses one, False (nothing left
    running) otherwise.

    The server is started before dask is imported (a quarter of a second that the server's
    warm-up, the longest part of a batch's start, need not wait for); if dask's
    configuration then names another start method, it is stopped again.
    """
    import multiprocessing
    from multiprocessing import forkserver

    early = False
    if "dask" not in sys.modules and _has_fork_server():
        multiprocessing.get_context("forkserver").set_forkserver_preload(_PRELOAD)
        forkserver.ensure_running()
        early = True
    ctx = _pool_context()
    if ctx.get_start_method() != "forkserver":
        if early:
            import contextlib
            import signal

            with contextlib.suppress(Exception):  # private API: leave it idle if it moved
                server = forkserver._forkserver
                os.kill(server._forkserver_pid, signal.SIGTERM)  # not its warm-up's end
                server._stop()
        return False
    forkserver.ensure_running()
    return True


def _start_pool(workers: int):
    """A local process pool whose workers start now (forked from the warmed-up server, or
    spawned and initialized in parallel with whatever the caller does next)."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(workers, mp_context=_pool_context(), initializer=_worker_init,
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
    """Run ``tasks`` on the local scheduler; a broken process pool (a worker killed) is
    replaced up to ``retries`` times to re-run the tasks not yet done (each replacement is
    appended to ``restarts``). ``pool``: a started process pool (:func:`_start_pool`) for
    the first attempt (stopped here).

    ``"processes"``: the tasks are submitted to the process pool directly, in plan order
    (scenario order), and collected as they finish (what dask's multiprocessing scheduler
    does with independent tasks, without the workers importing dask to unpickle its task
    wrapper: half a second of every worker's start). ``"threads"`` and ``"synchronous"``:
    dask's local schedulers."""
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
    """Submit ``todo`` to the process pool in order; ``on_result`` of each as it finishes
    (in this thread). A task's exception (a lost worker: BrokenProcessPool) is raised."""
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
    """The function of dask's local scheduler ``scheduler`` (``"threads"`` or
    ``"synchronous"``), as ``dask.compute(scheduler=...)`` would choose."""
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
