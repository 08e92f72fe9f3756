"""The warm kernel server: imports what a section notebook uses, forks kernels on request.

Run as ``python -m hydrocalc.report.execute.kernel_template`` by
:class:`hydrocalc.report.execute.forked.KernelServer`. It first loads IPython, ipykernel,
the report's section code and matplotlib's Agg canvas, once (:func:`main`). It then reads
one request per line on its standard input (JSON: the kernel's arguments after ``python -m
ipykernel_launcher``, its working directory and environment), forks, and writes the new
kernel's process id on its standard output. The fork becomes an ipykernel kernel
(:func:`kernel_main`) with everything already in memory. The server ends when its standard
input closes, that is when the process that started it ends.

Part of :mod:`hydrocalc.report.execute`.
"""

from __future__ import annotations

import contextlib
import gc
import importlib
import json
import os
import signal
import sys
import traceback

__all__ = ["SERVER_MODULES", "WARM_MODULES", "kernel_main", "main", "serve", "warm_up"]

#: What every kernel loads to start and a section notebook imports (its figures' matplotlib
#: too), imported once by the server (:func:`main`); nothing is imported by importing this
#: module.
SERVER_MODULES = ("ipykernel.debugger", "ipykernel.ipkernel", "ipykernel.kernelapp",
                  "ipykernel.zmqshell", "matplotlib.figure", "matplotlib.backends.backend_agg",
                  "hydrocalc.report.build", "hydrocalc.report.figures")
#: What a section's computation imports when it first needs it (kept out of the command
#: line's start-up), imported in the server instead of in every kernel.
WARM_MODULES = ("scipy.special", "scipy.optimize", "scipy.fft", "scipy.signal",
                "hydrocalc.criteria.ny_site", "hydrocalc.reach", "hydrocalc.analysis.summary",
                "pdb", "psutil", "IPython.extensions")


def warm_up() -> None:
    """Import what a section computes with and parse the shipped tables, in the server.

    Only a warm-up: a failure here is ignored (a kernel then imports or reads on its own,
    and reports any real problem). The objects made are then frozen out of the garbage
    collector (:func:`gc.freeze`), so a kernel's collections do not walk them (nor copy
    their memory pages).
    """
    for name in WARM_MODULES:
        with contextlib.suppress(Exception):
            importlib.import_module(name)
    with contextlib.suppress(Exception):
        from hydrocalc.analysis import load_shipped_tables

        load_shipped_tables()
    gc.collect()
    gc.freeze()


def kernel_main(argv: list[str], cwd: str, env: dict[str, str]) -> None:
    """Run an ipykernel kernel in this (forked) process until it is shut down.

    Parameters
    ----------
    argv : list of str
        The kernel's command-line arguments after ``python -m ipykernel_launcher`` (the
        connection file ``-f PATH`` and the report's kernel options).
    cwd : str
        The kernel's working directory (the report's staging folder).
    env : dict
        The kernel's environment (:func:`hydrocalc.report.execute.kernel_env`).
    """
    # as jupyter_client launches a kernel: a process group of its own; the parent it watches is
    # the server it was forked from (the kernel exits when the server does, which ends with
    # the process that started it). ipykernel read JPY_PARENT_PID when the server imported
    # it, so the parent is passed as its option.
    os.setsid()
    os.chdir(cwd)
    os.environ.clear()
    os.environ.update({**env, "JPY_PARENT_PID": str(os.getppid())})
    argv = [*argv, f"--IPKernelApp.parent_handle={os.getppid()}"]
    # as ``python -m`` does: the working directory first on the module search path, so a
    # notebook imports a module beside it as in a kernel started from the command line
    sys.path.insert(0, "")
    sys.argv = ["ipykernel_launcher", *argv]
    from ipykernel.kernelapp import IPKernelApp  # loaded by the server already

    IPKernelApp.launch_instance(argv)


def _run_child(request: dict) -> None:
    """In the forked child: detach from the server's pipes, run the kernel, exit."""
    code = 1
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)  # the kernel's interrupt
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(2, 1)  # the kernel's own terminal output goes where the server's errors go
        kernel_main(request["argv"], request["cwd"], request["env"])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - printed, then the child exits with 1
        traceback.print_exc()
    finally:
        os._exit(code)


def serve(requests=None, replies=None) -> None:
    """Fork one kernel per request line until ``requests`` (standard input) closes."""
    requests = requests or sys.stdin.buffer
    replies = replies or sys.stdout.buffer
    # forked kernels are reaped by the system as they end (no zombies left behind)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    for line in requests:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _run_child(request)
        replies.write(f"{pid}\n".encode())
        replies.flush()


def main() -> None:
    """The server: import :data:`SERVER_MODULES`, warm up, then :func:`serve`."""
    # a Ctrl-C at the terminal is the calling process's to handle; the server ends with it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # matplotlib reads its backend from the environment when it is imported: the server
    # imports it for its kernels, so it first sets what ipykernel sets in a kernel before
    # any user code (the inline backend, unless the environment names one), and pyplot
    # shows figures as in any kernel
    if not os.environ.get("MPLBACKEND"):
        os.environ["MPLBACKEND"] = "module://matplotlib_inline.backend_inline"
    for name in SERVER_MODULES:
        importlib.import_module(name)
    warm_up()
    serve()


if __name__ == "__main__":
    main()
