"""An interrupted or killed batch never looks complete and never half-replaces a summary.

Subprocess tests that send the signal: Ctrl-C (SIGINT to the whole process group, as a
terminal sends it) and SIGTERM give exit 130, one line, and a summary whose unfinished rows
are ``interrupted``; SIGKILL while the new summary is being written leaves the previous
files untouched; staging folders of killed batches are removed.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time

import pytest

import hydrocalc.batch.tasks  # noqa: F401 (batch.tasks below)
from hydrocalc import batch

pd = pytest.importorskip("pandas")
pytest.importorskip("pyarrow")
psutil = pytest.importorskip("psutil")

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"
SRC = pathlib.Path(__file__).resolve().parents[2] / "src"


def _env() -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    return env


def _sweep(tmp_path: pathlib.Path, n: int, name: str = "sweep.toml") -> pathlib.Path:
    """A sweep of lot_b.toml with ``n`` scenarios (valid values only)."""
    site = tmp_path / "lot_b.toml"
    site.write_text((FIX / "lot_b.toml").read_text())
    values = ", ".join(f"{0.8 + 0.5 * k / n:.6f}" for k in range(n))
    path = tmp_path / name
    path.write_text(f'base = "lot_b.toml"\n[[vary]]\nfield = "*.subcatchment[*].tc_hr"\n'
                    f'op = "scale"\nvalues = [{values}]\n')
    return path


def _terminal_signals() -> None:
    """Ctrl-C as a terminal delivers it: a test run in the background of a shell (``make
    test &``, some CI runners) inherits SIGINT ignored, and Python then never raises
    KeyboardInterrupt; a user's terminal job has the default disposition."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start(*args: str) -> subprocess.Popen:
    """``hydrocalc batch ARGS`` in its own process group (as a terminal job)."""
    return subprocess.Popen([sys.executable, "-c", "from hydrocalc.cli import main; main()",
                             "batch", *args], env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True,
                            preexec_fn=_terminal_signals)


def _wait(predicate, timeout_s: float, what: str, poll_s: float = 0.02):
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        value = predicate()
        if value:
            return value
        time.sleep(poll_s)
    raise AssertionError(f"timed out after {timeout_s} s waiting for {what}")


def _workers_started(proc: subprocess.Popen) -> bool:
    with contextlib.suppress(psutil.Error):
        return len(psutil.Process(proc.pid).children(recursive=True)) >= 3
    return False


def _sha(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        proc.communicate(timeout=10)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "SIGTERM"])
def test_an_interrupted_batch_exits_130_and_marks_unfinished_rows_interrupted(tmp_path, sig):
    out = tmp_path / "out"
    run = _start(str(_sweep(tmp_path, 4000)), "--workers", "2", "--chunk-size", "1",
                 "--out", str(out), "--quiet")
    try:
        _wait(lambda: _workers_started(run), 90, "the worker processes")
        time.sleep(1.0)
        if sig == signal.SIGINT:
            os.killpg(run.pid, sig)  # Ctrl-C reaches the whole foreground group
        else:
            os.kill(run.pid, sig)
        stdout, stderr = run.communicate(timeout=120)
    finally:
        _stop(run)
    assert run.returncode == 130, stdout + stderr
    lines = [ln for ln in stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: batch "), stderr
    assert "Traceback" not in stderr and "not completed" in lines[0]
    meta = json.loads((out / "batch.json").read_text())
    assert meta["interrupted"] is True and meta["complete"] is False
    summary = pd.read_parquet(out / "summary.parquet")
    assert set(summary["status"]) <= {"ok", "interrupted"}
    n_left = int((summary["status"] == "interrupted").sum())
    assert n_left >= 1  # one row per unfinished task of one scenario
    assert meta["not_completed_interrupted"] == n_left
    done = summary.loc[summary["status"] == "ok", "scenario"].nunique()
    assert done + n_left == 4000  # every scenario either completed or marked
    assert meta["sha256"] == {"summary.csv": _sha(out / "summary.csv"),
                              "summary.parquet": _sha(out / "summary.parquet")}


@pytest.mark.slow
def test_a_batch_killed_while_writing_leaves_the_previous_summary_untouched(tmp_path):
    out = tmp_path / "out"
    first = subprocess.run([sys.executable, "-c", "from hydrocalc.cli import main; main()",
                            "batch", str(_sweep(tmp_path, 6, "small.toml")), "--workers", "1",
                            "--scheduler", "synchronous", "--out", str(out), "--quiet"],
                           env=_env(), capture_output=True, text=True, timeout=180,
                           check=False)
    assert first.returncode == 0, first.stderr
    before = {name: _sha(out / name) for name in ("summary.csv", "summary.parquet",
                                                  "batch.json")}
    names = set(before)
    run = _start(str(_sweep(tmp_path, 300)), "--workers", "2", "--out", str(out), "--quiet")
    try:  # killed the moment the new summary starts being written into the output folder
        _wait(lambda: run.poll() is not None or set(p.name for p in out.iterdir()) - names,
              180, "the new summary", poll_s=0.0005)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(run.pid, signal.SIGKILL)
        run.communicate(timeout=30)
    finally:
        _stop(run)
    assert run.returncode == -signal.SIGKILL  # killed while writing, not finished
    after = {name: _sha(out / name) for name in before}
    assert after == before  # the previous summary, untouched
    # the next batch removes the staging folder a killed one may have left
    subprocess.run([sys.executable, "-c", "from hydrocalc.cli import main; main()",
                    "batch", str(tmp_path / "small.toml"), "--scheduler", "synchronous",
                    "--out", str(out), "--quiet"], env=_env(), capture_output=True,
                   timeout=180, check=True)
    assert not list(out.glob(batch.STAGING_PREFIX + "*"))


def test_stale_batch_staging_of_dead_processes_is_removed_and_live_ones_kept(tmp_path):
    host = socket.gethostname()
    dead, alive, foreign = (tmp_path / f"{batch.STAGING_PREFIX}{k}" for k in "abc")
    for folder in (dead, alive, foreign):
        folder.mkdir()
        (folder / "summary.csv").write_text("x\n")
    (dead / ".hydrocalc-staging").write_text(f"999999999 {host}\n")
    (alive / ".hydrocalc-staging").write_text(f"{os.getppid()} {host}\n")
    # foreign: no marker (not made by hydrocalc): left alone
    assert batch.clean_stale_batch_staging(tmp_path) == [dead]
    assert alive.is_dir() and foreign.is_dir() and not dead.exists()


def test_interrupted_rows_count_as_failed_rows(tmp_path):
    rows = [dict(batch.tasks._error_row("a.toml", "", "not completed: interrupted"),
                 status=batch.INTERRUPTED),
            {"source": "b.toml", "status": "ok", "error": ""}]
    res = batch.BatchResult(summary=batch.summary_frame(rows), n_inputs=2, n_scenarios=2,
                            n_failed=1, elapsed_s=1.0, files={}, scheduler="synchronous",
                            workers=1, n_tasks=2, worker_peak_rss_mb={},
                            parent_peak_rss_mb=1.0, n_interrupted=1)
    assert list(res.errors()["source"]) == ["a.toml"]
    assert not res.ok
