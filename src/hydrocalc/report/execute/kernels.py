"""Warm Jupyter kernels for presenting the section notebooks: :class:`KernelPool`.

A Papermill engine (``ENGINE_NAME``) that reuses a kernel for several notebooks, the
namespace reset between them; :func:`kernel_env` is the kernel's environment.

Part of :mod:`hydrocalc.report.execute`; every name is importable from there.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pathlib
import queue
import threading
import time
import uuid

from hydrocalc.errors import ReportError
from hydrocalc.report.papermill_engine import ENGINE_NAME

__all__ = ["ENGINE_NAME", "KERNEL_NAME", "KernelPool", "close_thread_loop", "kernel_env",
           "wait_until_ready"]

KERNEL_NAME = "python3"
# Kernel options: silence start-up chatter; keep no input history (IPython writes every cell
# and every namespace reset to an SQLite file, about an eighth of the kernel's CPU in a
# report run, for a history nobody reads: the executed notebooks are the record); keep no
# output cache (``Out``, ``_``, ``__``: no section notebook reads them; with the cache on,
# every namespace reset between two notebooks flushes it and runs a full gc.collect(),
# about 0.1-0.15 s in a kernel holding pandas and matplotlib).
_KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL", "--HistoryManager.enabled=False",
                "--InteractiveShell.cache_size=0"]


@functools.cache
def _register_engine() -> None:
    """Make sure :data:`ENGINE_NAME` is registered with Papermill, once per process.

    An installed hydrocalc registers it through Papermill's ``papermill.engine`` entry
    point; a source tree used without installing (``PYTHONPATH=src``) has no entry points,
    so the engine is then registered with ``papermill_engines.register``, Papermill's
    public registry.
    """
    from papermill.engines import papermill_engines
    from papermill.exceptions import PapermillException

    from hydrocalc.report import papermill_engine

    try:
        papermill_engines.get_engine(ENGINE_NAME)
    except PapermillException:
        papermill_engines.register(ENGINE_NAME, papermill_engine.PooledKernelEngine)


def close_thread_loop() -> None:
    """Close the event loop jupyter_core made for the calling (worker) thread.

    Left open, it is garbage-collected later, in whatever thread runs then, as a
    ``ResourceWarning: unclosed event loop`` -- which a section being computed meanwhile
    would record as one of its warnings. Never closes the main thread's loop.
    """
    if threading.current_thread() is threading.main_thread():
        return
    import asyncio

    from jupyter_core.utils import ensure_event_loop

    try:
        loop = ensure_event_loop()
        if not loop.is_running():
            loop.close()
        asyncio.set_event_loop(None)
    except Exception:  # noqa: BLE001 - best effort
        pass


def kernel_env() -> dict:
    """The kernel's environment: this process's, with this hydrocalc first on ``PYTHONPATH``.

    The folder holding the running hydrocalc package comes first on ``PYTHONPATH``, so the
    kernel presents with the very code that computed the sections, also when this process
    found it through a relative path.
    """
    import hydrocalc

    env = dict(os.environ)
    here = str(pathlib.Path(hydrocalc.__file__).resolve().parents[1])
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    rest = [str(pathlib.Path(p).resolve()) for p in rest]
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in rest if p != here])
    return env


async def wait_until_ready(km, kc, *, timeout_s: float) -> None:
    """Wait until kernel ``km`` answers on ``kc``'s shell channel and its IOPub reaches ``kc``.

    What :meth:`jupyter_client.KernelClient.wait_for_ready` does, without its fixed 0.2 s
    wait for IOPub messages after the kernel has answered (its guard against ZeroMQ's "slow
    joiner", a subscription still being set up): every ``kernel_info`` request makes the
    kernel publish its busy and idle status, so the subscription is known to work as soon
    as one such message arrives. Uses the client's public messaging methods only.

    Raises
    ------
    RuntimeError
        If the kernel dies or does not answer within ``timeout_s`` seconds.
    """
    end = time.monotonic() + timeout_s

    def check() -> None:
        if time.monotonic() > end:
            raise RuntimeError(f"the kernel did not answer within {timeout_s:g} s")

    answered = False
    while not answered:
        if not await km.is_alive():
            raise RuntimeError("the kernel died before it answered")
        check()
        msg_id = kc.kernel_info()
        with contextlib.suppress(queue.Empty):
            while not answered:
                msg = await kc.get_shell_msg(timeout=0.05)
                answered = msg["parent_header"].get("msg_id") == msg_id
    subscribed = False
    while not subscribed:
        check()
        try:
            await kc.get_iopub_msg(timeout=0.02)
            subscribed = True
        except queue.Empty:
            kc.kernel_info()
    for get in (kc.get_iopub_msg, kc.get_shell_msg):  # the other requests' messages
        with contextlib.suppress(queue.Empty):
            while True:
                await get(timeout=0.01)


class KernelPool:
    """Warm kernels (working directory ``cwd``) lent to one notebook at a time.

    :meth:`start_background` starts ``size`` kernels in a background thread and imports
    the report modules in each, so the start-up overlaps the parent's computation;
    :meth:`acquire` waits for a free kernel, :meth:`release` returns it, :meth:`close`
    stops them all. With ``prepared=True`` each kernel, once started, waits for the code
    given to :meth:`prepare` and runs it before it is lent.
    """

    # what a section notebook imports (the figures' matplotlib too): loaded while the report
    # run validates the site
    WARM_UP = ("import hydrocalc.report.build, hydrocalc.report.figures, "
               "matplotlib.figure, matplotlib.backends.backend_agg")

    def __init__(self, cwd: pathlib.Path, size: int = 1, *, fresh: bool = False,
                 prepared: bool = False):
        import queue

        self.cwd = cwd
        self.size = max(1, int(size))
        self.fresh = fresh
        self._free: queue.Queue = queue.Queue()
        self._managers: list = []
        # {id(kernel manager): its connected client} (see _start_one)
        self._clients: dict = {}
        self._lock = threading.Lock()
        self._closing = threading.Lock()
        self._thread: threading.Thread | None = None
        self._error: BaseException | None = None
        self._started = False
        self._local = threading.local()
        self._prepare_code: str | None = None
        #: time.perf_counter() when each pooled kernel was started and ready (before the
        #: prepare code), in the order they became ready
        self.ready_at: list[float] = []
        # with prepared=True, a started kernel waits for prepare() before it is lent
        self._prepared = threading.Event()
        if not prepared:
            self._prepared.set()

    def _start_one(self):
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        # the connection file (ports and key) in the run's staging folder, not in the
        # temporary folder: a run killed before it could stop its kernel leaves it where
        # the next run removes it (with the stale staging folder)
        km = AsyncKernelManager(kernel_name=KERNEL_NAME, connection_file=str(
            self.cwd / f".kernel-{uuid.uuid4().hex[:12]}.json"))
        if not self.fresh:
            # forked from the warm fork server (see hydrocalc.report.execute.forked)
            from hydrocalc.report.execute.forked import ForkedKernelProvisioner

            km.kernel_id = str(uuid.uuid4())
            km.provisioner = ForkedKernelProvisioner(kernel_id=km.kernel_id,
                                                     kernel_spec=km.kernel_spec, parent=km)
        run_sync(km.start_kernel)(cwd=str(self.cwd), extra_arguments=list(_KERNEL_ARGS),
                                  env=kernel_env())
        with self._lock:
            self._managers.append(km)
        kc = km.client()
        kc.start_channels()
        try:
            run_sync(wait_until_ready)(km, kc, timeout_s=120)
            run_sync(kc.execute_interactive)(self.WARM_UP, silent=True, store_history=False,
                                             timeout=120)
        except BaseException:
            kc.stop_channels()
            raise
        if self.fresh:
            kc.stop_channels()
        else:
            # kept connected for every notebook this kernel presents: a new client's
            # wait_for_ready loses the first IOPub message to the subscription still
            # being set up (ZeroMQ's "slow joiner") and waits 0.2 s for it, once per
            # notebook; stopped by close()
            with self._lock:
                self._clients[id(km)] = kc
        return km

    def _start_all(self):
        """Start every kernel at once, each in its own thread."""
        threads = [threading.Thread(target=self._start_and_offer, daemon=True,
                                    name=f"hydrocalc-kernel-{n}") for n in range(self.size)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()

    def _start_and_offer(self) -> None:
        """Start one kernel, run the :meth:`prepare` code in it, and offer it to acquire()."""
        try:
            km = self._start_one()
            with self._lock:
                self.ready_at.append(time.perf_counter())
            self._prepared.wait(timeout=600)
            code = self._prepare_code
            with self._lock:
                kc = self._clients.get(id(km))
            if code and kc is not None:
                from jupyter_core.utils import run_sync

                run_sync(kc.execute_interactive)(code, silent=True, store_history=False,
                                                 timeout=600, output_hook=lambda msg: None)
            self._free.put(km)
        except BaseException as exc:  # noqa: BLE001 - reported by acquire()
            self._error = exc
            self._free.put(None)
        finally:
            close_thread_loop()

    def prepare(self, code: str | None) -> None:
        """Code each pooled kernel runs once before its first notebook (None: nothing).

        A report run has each kernel load and analyse the site (the cache the section
        notebooks use, :func:`hydrocalc.report.build.prepare`) as soon as the inputs are
        staged, so that a kernel started before them does not wait idle for its first
        notebook.
        """
        self._prepare_code = code
        self._prepared.set()

    def start_background(self) -> None:
        """Start the pool's kernels in a background thread (once; not for a fresh pool)."""
        if not self._started and not self.fresh:
            self._started = True
            # imported in the calling thread first: jupyter_client's modules import each
            # other, and two threads importing them at once (the kernels' threads, or one
            # of them and the caller importing Papermill) can find a module half made
            import jupyter_client.manager  # noqa: F401

            import hydrocalc.report.execute.forked  # noqa: F401

            thread = threading.Thread(target=self._start_all, daemon=True)
            self._thread = thread
            thread.start()

    def acquire(self):
        """A kernel manager for one notebook: a new one when fresh, else the next pooled one."""
        if self.fresh:
            return self._start_one()
        self.start_background()
        km = self._free.get()
        if km is None:
            raise ReportError(f"the report kernel could not be started: "
                              f"{type(self._error).__name__}: {self._error}")
        return km

    def release(self, km) -> None:
        """Give kernel ``km`` back to the pool (a fresh kernel is shut down instead)."""
        if self.fresh:
            from jupyter_core.utils import run_sync

            run_sync(km.shutdown_kernel)(now=True)
            with self._lock:
                self._managers.remove(km)
            return
        self._free.put(km)

    def client(self, km):
        """The connected client this pool keeps for kernel ``km``.

        None for a fresh kernel, or once the pool is closed. Pass it to
        :func:`execute_notebook` with ``km``.
        """
        with self._lock:
            return self._clients.get(id(km))

    def get(self):
        """The calling thread's own kernel, started on first use (kept until close())."""
        km = getattr(self._local, "km", None)
        if km is None:
            km = self._start_one()
            self._local.km = km
        return km

    def close_in_background(self) -> threading.Thread:
        """Stop the kernels in a thread, and return that thread (started).

        Join it before moving the kernels' working folder. Stopping waits for each kernel
        process to exit, about 0.1 s of idle time that the caller can spend on its last
        files meanwhile.
        """
        def stop() -> None:
            try:
                self.close()
            finally:
                close_thread_loop()

        thread = threading.Thread(target=stop, name="hydrocalc-kernel-stop", daemon=True)
        thread.start()
        return thread

    def close(self) -> None:
        """Stop every kernel (safe to call again, and from several threads)."""
        with self._closing:
            self._close()

    def _close(self) -> None:
        from jupyter_core.utils import run_sync

        self._prepared.set()  # a kernel waiting for its prepare code goes on
        if self._thread is not None:
            self._thread.join()
        for km in self._managers:
            with self._lock:
                kc = self._clients.pop(id(km), None)
            if kc is not None:
                try:
                    kc.stop_channels()
                except Exception:  # noqa: BLE001 - best effort at the end of a run
                    pass
            try:
                run_sync(km.shutdown_kernel)(now=True)
            except Exception:  # noqa: BLE001 - best effort at the end of a run
                pass
            with contextlib.suppress(OSError):  # removed by the shutdown, unless it failed
                pathlib.Path(km.connection_file).unlink(missing_ok=True)
        self._managers.clear()
