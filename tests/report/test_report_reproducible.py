"""Report deliverables are byte-reproducible; a killed report leaves no debris.

- The same inputs and version give byte-identical ``report.html``, ``report.pdf`` and
  ``tables.xlsx`` (and the same hashes in ``results.json``) when the report is built from
  another folder, under another time zone, with another hash seed and another ``--jobs``.
- SIGTERM stops a report as Ctrl-C does: exit 130 with one line, its kernel and figure
  workers gone, no connection file in TMPDIR, no staging folder. After SIGKILL the
  processes die too and the next run removes the staging folder (with the kernel's
  connection file inside it).
- A workbook that cannot be written (full disk, file-size limit) is one line, without
  ``Exception ignored in: ZipFile.__del__``.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import io
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import time
import zipfile

import pytest

from hydrocalc.report.reproducible import document_datetime, normalized_ooxml

ROOT = pathlib.Path(__file__).resolve().parents[2]
SRC = ROOT / "src"
EPOCH = "1767225600"  # 2026-01-01T00:00:00Z


def _env(**extra: str) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(SRC), env.get("PYTHONPATH")) if p)
    env.update(extra)
    return env


def _copy_pelham(dest: pathlib.Path) -> pathlib.Path:
    """examples/pelham and the depth file it reads, at the same relative places."""
    shutil.copytree(ROOT / "examples" / "pelham", dest / "examples" / "pelham")
    (dest / "design_storms").mkdir(parents=True)
    shutil.copy(ROOT / "design_storms" / "pelham.toml", dest / "design_storms")
    return dest / "examples" / "pelham" / "site.toml"


def _report_cmd(site: pathlib.Path, out: pathlib.Path, *more: str) -> list[str]:
    return [sys.executable, "-c", "from hydrocalc.cli import main; main()", "report",
            str(site), "--out", str(out), "--quiet", *more]


# -- byte-reproducible deliverables ---------------------------------------------------------

def test_document_date_is_source_date_epoch_or_the_utc_day(monkeypatch):
    monkeypatch.setenv("SOURCE_DATE_EPOCH", EPOCH)
    assert document_datetime() == dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    monkeypatch.delenv("SOURCE_DATE_EPOCH")
    late = dt.datetime(2026, 3, 4, 23, 59, 58, tzinfo=dt.timezone(dt.timedelta(hours=-5)))
    assert document_datetime(late) == dt.datetime(2026, 3, 5, tzinfo=dt.UTC)


@pytest.mark.parametrize("bad", ["yesterday", "-5", "1.5", "99999999999999"])
def test_an_invalid_source_date_epoch_is_one_line_naming_it(monkeypatch, bad):
    from hydrocalc.errors import InputError

    monkeypatch.setenv("SOURCE_DATE_EPOCH", bad)
    with pytest.raises(InputError, match=r"SOURCE_DATE_EPOCH must be a whole number"):
        document_datetime()


def test_workbook_archive_metadata_is_fixed():
    def archive(stamp):
        buf = io.BytesIO()
        with zipfile.ZipFile(buf, "w") as z:
            z.writestr(zipfile.ZipInfo("docProps/core.xml", stamp),
                       b'<cp:coreProperties><dcterms:created xsi:type="dcterms:W3CDTF">'
                       b'2026-12-05T17:18:43Z</dcterms:created><dcterms:modified '
                       b'xsi:type="dcterms:W3CDTF">2026-12-05T17:18:44Z</dcterms:modified>'
                       b'</cp:coreProperties>')
            z.writestr(zipfile.ZipInfo("xl/workbook.xml", stamp), b"<workbook/>")
        return buf.getvalue()

    when = dt.datetime(2026, 1, 1, tzinfo=dt.UTC)
    a = normalized_ooxml(archive((2026, 12, 5, 17, 18, 44)), when)
    b = normalized_ooxml(archive((2025, 1, 2, 3, 4, 6)), when)
    assert a == b
    with zipfile.ZipFile(io.BytesIO(a)) as z:
        assert [i.date_time for i in z.infolist()] == [(2026, 1, 1, 0, 0, 0)] * 2
        core = z.read("docProps/core.xml")
    assert core.count(b"2026-01-01T00:00:00Z") == 2 and b"2026-12-05" not in core


@pytest.mark.slow
def test_deliverables_are_byte_identical_whatever_folder_tz_seed_or_jobs(tmp_path):
    site_a = _copy_pelham(tmp_path / "first")
    site_b = _copy_pelham(tmp_path / "second place")
    out_a, out_b = tmp_path / "first" / "out", tmp_path / "elsewhere" / "out"
    runs = [
        subprocess.run(_report_cmd(site_a, out_a), cwd=tmp_path / "first", capture_output=True,
                       text=True, timeout=600, check=False,
                       env=_env(SOURCE_DATE_EPOCH=EPOCH, TZ="UTC", PYTHONHASHSEED="1")),
        subprocess.run(_report_cmd(site_b.relative_to(tmp_path / "second place"), out_b,
                                   "--jobs", "2"), cwd=tmp_path / "second place",
                       capture_output=True, text=True, timeout=600, check=False,
                       env=_env(SOURCE_DATE_EPOCH=EPOCH, TZ="Pacific/Auckland",
                                PYTHONHASHSEED="4242")),
    ]
    for run in runs:
        assert run.returncode == 0, run.stderr
    for name in ("report.html", "report.pdf", "tables.xlsx"):
        assert (out_a / name).read_bytes() == (out_b / name).read_bytes(), name
    res_a = json.loads((out_a / "results.json").read_text())
    res_b = json.loads((out_b / "results.json").read_text())
    assert res_a["artifacts"] == res_b["artifacts"]
    assert res_a["timestamps"]["document_utc"] == "2026-01-01T00:00:00+00:00"
    assert "2026-01-01" in (out_a / "report.html").read_text(encoding="utf-8")


# -- a killed report leaves no debris ---------------------------------------------------------

def _descendants(pid: int):
    psutil = pytest.importorskip("psutil")
    with contextlib.suppress(psutil.Error):
        return psutil.Process(pid).children(recursive=True)
    return []


def _wait_for_kernel(proc: subprocess.Popen, timeout_s: float = 120.0) -> list:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end and proc.poll() is None:
        kids = _descendants(proc.pid)
        with contextlib.suppress(Exception):
            lines = [" ".join(k.cmdline()) for k in kids]
            # a kernel launched by jupyter_client, or one forked from the warm kernel server
            # (the server and its forks share its command line)
            if (any("ipykernel" in line for line in lines)
                    or sum("kernel_template" in line for line in lines) >= 2):
                return kids
        time.sleep(0.02)
    raise AssertionError("the report's kernel never started")


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGKILL], ids=["SIGTERM", "SIGKILL"])
def test_a_killed_report_leaves_no_process_connection_file_or_staging(tmp_path, sig):
    psutil = pytest.importorskip("psutil")
    site = _copy_pelham(tmp_path / "site")
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    out = tmp_path / "reports" / "pelham"
    run = subprocess.Popen(_report_cmd(site, out, "--format", "html,pdf,xlsx"),
                           env=_env(TMPDIR=str(tmpdir)), stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        started = _wait_for_kernel(run)
        os.kill(run.pid, sig)
        _, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.communicate(timeout=10)
    _, alive = psutil.wait_procs(started, timeout=15)
    assert not alive, f"left running: {[p.pid for p in alive]}"
    assert not [p for p in tmpdir.rglob("*.json")], "kernel connection file left in TMPDIR"
    assert not out.exists()
    partial = list(out.parent.glob(".pelham.partial-*"))
    if sig == signal.SIGTERM:
        assert run.returncode == 130
        lines = [ln for ln in stderr.splitlines() if ln.strip()]
        expected = (f"error: report terminated (SIGTERM); nothing was written (a previous "
                    f"report in {out} is unchanged)")
        assert lines == [expected]
        assert not partial
    else:
        from hydrocalc.report.execute import clean_stale_staging

        assert len(partial) == 1  # killed outright: what the next run removes
        assert clean_stale_staging(out) == partial
        assert not partial[0].exists()


def test_a_workbook_that_cannot_be_written_is_one_line(tmp_path):
    code = f"""
import pathlib, resource, signal, sys
sys.path.insert(0, {str(SRC)!r})
from hydrocalc.errors import ReportError
from hydrocalc.report.execute.outputs import _write_workbook
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)   # over the limit: EFBIG, as a full disk
rows = [[f"row {{i}}", i * 1.5, "text " * 20] for i in range(20000)]
results = {{"timestamps": {{"document_utc": "2026-01-01T00:00:00+00:00"}},
           "sections": {{"s": {{"tables": {{"t": {{"title": "T", "columns": ["a", "b", "c"],
                                              "rows": rows}}}}}}}}}}
resource.setrlimit(resource.RLIMIT_FSIZE, (20000, 20000))
try:
    _write_workbook(pathlib.Path({str(tmp_path)!r}) / "tables.xlsx", results)
except ReportError as exc:
    print(exc, file=sys.stderr)
    sys.exit(3)
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300, env=_env(), check=False)
    assert run.returncode == 3, run.stderr
    assert "Exception ignored" not in run.stderr and "Traceback" not in run.stderr
    assert run.stderr.strip().startswith("tables.xlsx could not be written")
    assert len(run.stderr.strip().splitlines()) == 1
    assert not list(tmp_path.iterdir())  # no partial file left behind


def test_the_previous_report_set_aside_by_a_killed_swap_is_removed_by_the_next_run(
        tmp_path, monkeypatch):
    from hydrocalc.report.execute import clean_stale_staging, staging

    target = tmp_path / "lot7"
    target.mkdir()
    (target / "report.html").write_text("old")
    new = staging._make_staging(target)
    (new / "report.html").write_text("new")
    (new / staging.STAGING_MARKER).unlink()  # as a finished run does before the swap
    # killed between the swap's renames and the removal of the old report
    monkeypatch.setattr(staging.shutil, "rmtree", lambda *a, **k: None)
    staging._swap_into_place(new, target)
    monkeypatch.undo()
    old = list(tmp_path.glob(".lot7.old-*"))
    assert (target / "report.html").read_text() == "new" and len(old) == 1
    assert clean_stale_staging(target) == old and not old[0].exists()
