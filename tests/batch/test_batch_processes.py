"""Batches that survive a lost worker and leave no process behind.

A real dask.distributed cluster (a scheduler and two workers started here as separate
processes on localhost, and stopped here) runs a sweep while one worker is killed by PID:
the batch completes on the other. A local worker killed by PID is replaced and its tasks
re-run. A batch killed (SIGTERM or SIGKILL) leaves none of its worker processes running.
A scheduler without workers fails with a clear message after the stated wait.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import signal
import subprocess
import sys
import time

import pytest

from hydrocalc import batch
from hydrocalc.errors import InputError

psutil = pytest.importorskip("psutil")
distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"
SRC = pathlib.Path(__file__).resolve().parents[2] / "src"


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    return env


def _sweep(tmp_path: pathlib.Path, n: int = 24) -> pathlib.Path:
    """A sweep of lot_b.toml with ``n`` scenarios (valid values only)."""
    site = tmp_path / "lot_b.toml"
    site.write_text((FIX / "lot_b.toml").read_text())
    values = ", ".join(f"{0.8 + 0.5 * k / n:.6f}" for k in range(n))
    path = tmp_path / "sweep.toml"
    path.write_text(f'base = "lot_b.toml"\n[[vary]]\nfield = "*.subcatchment[*].tc_hr"\n'
                    f'op = "scale"\nvalues = [{values}]\n')
    return path


def _batch_cmd(*args: str) -> list[str]:
    return [sys.executable, "-c", "from hydrocalc.cli import main; main()", "batch", *args]


def _wait(predicate, timeout_s: float, what: str, poll_s: float = 0.02):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(poll_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def _workers_of(proc: psutil.Process) -> list:
    """The local worker processes of a batch: its descendants except multiprocessing's
    helpers (the resource tracker; the fork server, a child of the batch, whose own children
    are the workers) and processes not yet started (still the batch's command line)."""
    out = []
    own = proc.cmdline()
    for child in proc.children(recursive=True):
        with contextlib.suppress(psutil.Error):
            cmd = child.cmdline()
            text = " ".join(cmd)
            if "resource_tracker" in text or cmd == own:
                continue
            if "forkserver" in text and child.ppid() == proc.pid:
                continue
            out.append(child)
    return out


def _stop(*procs) -> None:
    for p in procs:
        if p is not None and p.poll() is None:
            p.kill()
    for p in procs:
        if p is not None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                p.wait(10)


@pytest.fixture
def scheduler(tmp_path):
    """A dask scheduler on localhost in its own process; yields (address, tmp folder)."""
    info = tmp_path / "scheduler.json"
    proc = subprocess.Popen(
        [sys.executable, "-m", "distributed.cli.dask_scheduler", "--host", "127.0.0.1",
         "--port", "0", "--dashboard-address", ":0", "--scheduler-file", str(info),
         "--no-show"], env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers: list[subprocess.Popen] = []
    try:
        _wait(lambda: info.is_file() and info.stat().st_size > 0, 40, "the scheduler file")
        address = _wait(lambda: json.loads(info.read_text()).get("address"), 10,
                        "the scheduler address")

        def start_worker(name: str) -> subprocess.Popen:
            w = subprocess.Popen(
                [sys.executable, "-m", "distributed.cli.dask_worker", address, "--no-nanny",
                 "--nthreads", "1", "--name", name, "--dashboard-address", ":0"],
                env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            workers.append(w)
            return w

        yield address, start_worker
    finally:
        _stop(*workers, proc)


def test_distributed_batch_survives_a_worker_killed_by_pid(tmp_path, scheduler):
    address, start_worker = scheduler
    sweep = _sweep(tmp_path)
    w1, w2 = start_worker("w1"), start_worker("w2")
    with distributed.Client(address, timeout="30s") as client:
        client.wait_for_workers(2, timeout=60)
        names = {info["name"]: addr for addr, info in client.scheduler_info()["workers"].items()}
        out = tmp_path / "out"
        run = subprocess.Popen(_batch_cmd(str(sweep), "--scheduler", address, "--chunk-size",
                                          "1", "--out", str(out), "--quiet"),
                               env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
        try:
            # kill w1 while it holds hydrocalc tasks: they must be re-run on w2
            _wait(lambda: any("hydrocalc-task" in str(k)
                              for k in client.processing().get(names["w1"], ())),
                  60, "a task on worker w1", poll_s=0.005)
            os.kill(w1.pid, signal.SIGKILL)
            stdout, stderr = run.communicate(timeout=120)
        finally:
            _stop(run)
    assert w1.wait(10) == -signal.SIGKILL and w2.poll() is None
    assert run.returncode == 0, stdout + stderr
    assert "ok: 24, failed: 0" in stdout
    meta = json.loads((out / "batch.json").read_text())
    assert meta["complete"] is True and meta["failed"] == 0 and meta["scenarios"] == 24
    summary = (out / "summary.csv").read_text().splitlines()
    assert len({line.split(",")[2] for line in summary[1:]}) == 24  # every scenario present


def test_scheduler_without_workers_fails_after_the_stated_wait(scheduler):
    address, _ = scheduler
    t0 = time.monotonic()
    with pytest.raises(InputError, match=rf"scheduler {address} must have at least one worker; "
                                         r"got none after waiting 1\.5 s \(--worker-wait\)\. "
                                         r"Start workers with `dask worker "):
        batch.run_batch([FIX / "lot_c.toml"], scheduler=address, worker_wait_s=1.5,
                        progress=False)
    assert time.monotonic() - t0 >= 1.5


def test_local_worker_killed_by_pid_is_replaced_and_the_batch_completes(tmp_path):
    sweep = _sweep(tmp_path, n=400)  # long enough to be killed mid-run
    out = tmp_path / "out"
    run = subprocess.Popen(_batch_cmd(str(sweep), "--workers", "2", "--chunk-size", "1",
                                      "--out", str(out), "--quiet"),
                           env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        parent = psutil.Process(run.pid)
        victim = _wait(lambda: (_workers_of(parent) or [None])[0], 60, "a worker process")
        time.sleep(0.2)
        victim.kill()
        stdout, stderr = run.communicate(timeout=180)
    finally:
        _stop(run)
    assert run.returncode == 0, stdout + stderr
    assert "ok: 400, failed: 0" in stdout
    meta = json.loads((out / "batch.json").read_text())
    assert meta["complete"] is True and meta["failed"] == 0
    assert len(meta["pool_restarts"]) == 1 and meta["pool_restarts"][0] >= 1  # tasks re-run


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_batch_leaves_no_worker_process(tmp_path, sig):
    sweep = _sweep(tmp_path, n=4000)  # tens of seconds uninterrupted: killed mid-run
    out = tmp_path / "out"
    run = subprocess.Popen(_batch_cmd(str(sweep), "--workers", "2", "--chunk-size", "1",
                                      "--out", str(out), "--quiet"),
                           env=_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
    try:
        parent = psutil.Process(run.pid)
        _wait(lambda: len(_workers_of(parent)) >= 2, 60, "two worker processes")
        started = parent.children(recursive=True)  # workers and multiprocessing's helper
        time.sleep(1.0)
        os.kill(run.pid, sig)
        run.communicate(timeout=60)
    finally:
        _stop(run)
    _, alive = psutil.wait_procs(started, timeout=15)
    assert not alive, f"left running: {[p.pid for p in alive]}"
    if sig == signal.SIGTERM:
        meta = json.loads((out / "batch.json").read_text())
        assert meta["complete"] is False and meta["interrupted"] is True
        assert meta["failed"] > 0
    else:
        assert not (out / "batch.json").exists()


def test_pid_alive_tells_a_live_process_from_a_finished_one():
    import subprocess
    import sys

    from hydrocalc._process import pid_alive

    assert pid_alive(os.getpid())
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()  # reaped: its id no longer names a process
    assert not pid_alive(proc.pid)
