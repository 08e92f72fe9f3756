"""Report kernels forked from a warm server: :class:`ForkedKernelProvisioner`.

A Jupyter kernel normally starts as a new interpreter (``python -m ipykernel_launcher``)
that imports IPython, ipykernel, hydrocalc, pandas and matplotlib before it runs a cell:
about 0.9 s of CPU per kernel, twice per report on two kernels, most of what a report costs
beyond its computation. The report's kernels are instead forked from a server process that
has imported all of that once (:mod:`hydrocalc.report.execute.kernel_template`, started by
:class:`KernelServer`). The server lives as long as the calling process, so every report of a
process after the first (a batch of reports, a notebook, the benchmark) starts its kernels in
milliseconds, and the first pays one import instead of one per kernel. The server is a fresh
interpreter started with the kernels' environment: a kernel inherits nothing of the calling
process, and forking a process that imported numpy, pandas and matplotlib is what
multiprocessing's ``fork`` and ``forkserver`` start methods do too. (The ``forkserver`` start
method itself is not used: every child it starts imports the caller's main script again,
which breaks a script that calls :func:`~hydrocalc.report.execute.run_report` at its top
level.)

How a kernel process is launched is jupyter_client's documented extension point, the kernel
provisioner. :class:`ForkedKernelProvisioner` is jupyter_client's own
:class:`~jupyter_client.provisioning.LocalProvisioner` (connection file, ports, shutdown,
interrupts by signal) with its one launching method replaced; the kernel manager is given it
through its public ``provisioner`` attribute before the kernel starts. The kernel is
ipykernel's ``IPKernelApp`` with exactly the arguments the kernel spec passes. Where ``fork``
does not exist (Windows), or the kernel spec runs another program than this interpreter's
ipykernel, the kernel is launched as jupyter_client always does: the same results, a slower
start.

Part of :mod:`hydrocalc.report.execute` (imported when a pooled kernel starts).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import pathlib
import subprocess
import sys
import threading
import time
from typing import Any

from jupyter_client.provisioning import LocalProvisioner

__all__ = ["ForkedKernelProvisioner", "KernelServer", "fork_available"]


def fork_available() -> bool:
    """True where a process can fork (not on Windows)."""
    return hasattr(os, "fork") and sys.platform != "win32"


class KernelServer:
    """The warm kernel server of this process for one kernel environment (see the module).

    :meth:`for_env` returns the process's server for an environment (started on first
    use, and again if it has ended); :meth:`fork` asks it for one kernel.
    """

    _servers: dict[tuple, KernelServer] = {}
    _servers_lock = threading.Lock()

    def __init__(self, options: list[str], env: dict[str, str]) -> None:
        self._lock = threading.Lock()
        self.process = subprocess.Popen(
            [sys.executable, *options, "-m", "hydrocalc.report.execute.kernel_template"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=env, close_fds=True,
            # a Ctrl-C at the terminal is for the calling process; the server ends when
            # its standard input closes, with the process that started it
            start_new_session=True)
        atexit.register(self.close)

    def close(self) -> None:
        """End the server (its standard input closes; the kernels it forked are not touched).

        Called at this process's exit; the server would end then anyway.
        """
        for pipe in (self.process.stdin, self.process.stdout):
            with contextlib.suppress(OSError):
                if pipe is not None:
                    pipe.close()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    @classmethod
    def for_env(cls, options: list[str], env: dict[str, str]) -> KernelServer:
        """The process's server run with interpreter ``options`` and ``env``'s module path."""
        key = (sys.executable, tuple(options), env.get("PYTHONPATH", ""))
        with cls._servers_lock:
            server = cls._servers.get(key)
            if server is None or server.process.poll() is not None:
                server = cls(options, env)
                cls._servers[key] = server
            return server

    def fork(self, argv: list[str], cwd: str, env: dict[str, str]) -> int:
        """Fork one kernel (arguments after ``-m ipykernel_launcher``); its process id.

        Waits for the server to finish its imports (the first kernel of a process).

        Raises
        ------
        RuntimeError
            If the server has ended (its error is on this process's standard error).
        """
        request = json.dumps({"argv": argv, "cwd": cwd, "env": env}) + "\n"
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None  # both are pipes
        with self._lock:
            try:
                stdin.write(request.encode())
                stdin.flush()
                reply = stdout.readline()
            except (BrokenPipeError, ValueError):
                reply = b""
        if not reply.strip().isdigit():
            raise RuntimeError(f"the warm kernel server ended (exit code "
                               f"{self.process.poll()}); see the error above")
        return int(reply)


class _ForkedKernel:
    """A forked kernel's process, as much of :class:`subprocess.Popen` as the provisioner uses.

    The server reaps its kernels, so an ended kernel's exit code is not known: 0.
    """

    stdin = stdout = stderr = None

    def __init__(self, pid: int) -> None:
        self.pid = pid

    def poll(self) -> int | None:
        try:
            os.kill(self.pid, 0)
        except ProcessLookupError:
            return 0
        except PermissionError:  # the id was taken by a process not ours: ours ended
            return 0
        return None

    def wait(self, timeout: float | None = None) -> int | None:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired("kernel", timeout or 0.0)
            time.sleep(0.02)
        return 0

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def kill(self) -> None:
        import signal

        self.send_signal(signal.SIGKILL)

    def terminate(self) -> None:
        import signal

        self.send_signal(signal.SIGTERM)


def _kernel_command(cmd: list[str]) -> tuple[list[str], list[str]] | None:
    """``cmd``'s interpreter options and kernel arguments (None: not this ipykernel).

    Split when ``cmd`` runs this interpreter's ipykernel (``python [-X...] -m
    ipykernel_launcher ARGS``); None for any other program. ipykernel's kernel spec passes
    interpreter options (``-Xfrozen_modules=off``, for its debugger); the server runs with
    them, and the kernels it forks inherit them.
    """
    at = 1
    while at < len(cmd) and cmd[at].startswith("-X"):
        at += 1
    if cmd[at:at + 2] != ["-m", "ipykernel_launcher"]:
        return None
    try:
        same = pathlib.Path(cmd[0]).resolve() == pathlib.Path(sys.executable).resolve()
    except OSError:
        return None
    return (list(cmd[1:at]), list(cmd[at + 2:])) if same else None


class ForkedKernelProvisioner(LocalProvisioner):
    """jupyter_client's local provisioner, launching the kernel by a fork of the warm server."""

    async def launch_kernel(self, cmd: list[str], **kwargs: Any):
        """Fork the kernel from the warm server (or launch ``cmd`` as usual, see the module)."""
        command = _kernel_command(cmd)
        if command is None or not fork_available():
            return await super().launch_kernel(cmd, **kwargs)
        options, argv = command
        cwd = str(kwargs.get("cwd") or pathlib.Path.cwd())
        env = {str(k): str(v) for k, v in (kwargs.get("env") or os.environ).items()}
        pid = KernelServer.for_env(options, env).fork(argv, cwd, env)
        self.process = _ForkedKernel(pid)  # type: ignore[assignment]
        self.pid = pid
        self.pgid = pid  # the kernel leads its own process group (os.setsid in the fork)
        self.cwd = cwd
        return self.connection_info
