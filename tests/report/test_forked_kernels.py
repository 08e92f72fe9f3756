"""Report kernels forked from the warm kernel server behave as kernels jupyter_client starts."""

from __future__ import annotations

import os
import signal
import sys
import time

import pytest

from hydrocalc.report.execute import forked as F
from hydrocalc.report.execute import kernels as K

pytestmark = pytest.mark.notebooks

needs_fork = pytest.mark.skipif(not F.fork_available(), reason="no fork on this platform")


def _value(kc, expression: str) -> str:
    from jupyter_core.utils import run_sync

    reply = run_sync(kc.execute_interactive)("pass", timeout=60,
                                             user_expressions={"v": expression})
    return reply["content"]["user_expressions"]["v"]["data"]["text/plain"]


def test_kernel_command_is_split_only_for_this_interpreters_ipykernel():
    exe = sys.executable
    assert F._kernel_command([exe, "-Xfrozen_modules=off", "-m", "ipykernel_launcher", "-f",
                              "k.json"]) == (["-Xfrozen_modules=off"], ["-f", "k.json"])
    assert F._kernel_command([exe, "-m", "ipykernel_launcher", "-f", "k.json"]) == (
        [], ["-f", "k.json"])
    # another program, or another interpreter: launched as jupyter_client always does
    assert F._kernel_command([exe, "-m", "other_kernel", "-f", "k.json"]) is None
    assert F._kernel_command(["/no/such/python", "-m", "ipykernel_launcher"]) is None


@needs_fork
def test_a_pooled_kernel_is_forked_and_runs_like_a_launched_one(tmp_path):
    (tmp_path / "beside.py").write_text("VALUE = 42\n", encoding="utf-8")
    pool = K.KernelPool(tmp_path, size=1)
    try:
        km = pool.acquire()
        assert isinstance(km.provisioner, F.ForkedKernelProvisioner)
        kc = pool.client(km)
        # its working folder, the module beside it, the kernel's environment and the
        # inline figures of any kernel
        assert _value(kc, "__import__('os').getcwd()") == repr(str(tmp_path))
        assert _value(kc, "__import__('beside').VALUE") == "42"
        assert _value(kc, "__import__('os').environ['PYTHONPATH']") == repr(
            K.kernel_env()["PYTHONPATH"])
        assert "inline" in _value(kc, "__import__('matplotlib').get_backend()")
        # it leads its own process group and watches the server it was forked from
        pid = int(_value(kc, "__import__('os').getpid()"))
        assert os.getpgid(pid) == pid
        assert int(_value(kc, "__import__('os').getppid()")) != os.getpid()
        # an interrupt reaches the running cell
        msg_id = kc.execute("import time; time.sleep(30)")
        time.sleep(0.5)
        from jupyter_core.utils import run_sync

        run_sync(km.interrupt_kernel)()
        while True:
            reply = run_sync(kc.get_shell_msg)(timeout=20)
            if reply["parent_header"].get("msg_id") == msg_id:
                break
        assert reply["content"]["status"] == "error"
        assert reply["content"]["ename"] == "KeyboardInterrupt"
        pool.release(km)
    finally:
        pool.close()
    deadline = time.monotonic() + 10  # closed: the kernel process has ended
    while time.monotonic() < deadline and F._ForkedKernel(pid).poll() is None:
        time.sleep(0.05)
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


@needs_fork
def test_a_server_that_ended_is_one_clear_error_then_replaced():
    env = K.kernel_env()
    server = F.KernelServer.for_env([], env)
    assert F.KernelServer.for_env([], env) is server  # one per process and environment
    server.process.send_signal(signal.SIGKILL)
    server.process.wait(timeout=30)
    with pytest.raises(RuntimeError, match="warm kernel server ended"):
        server.fork(["-f", "nothing.json"], os.getcwd(), env)
    assert F.KernelServer.for_env([], env) is not server  # a new one for the next kernel
