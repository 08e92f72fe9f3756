"""Every input file a command reads goes through one reader (hydrocalc.input_file): a pipe
is refused without being opened (it would block the command), and the pond and sweep files
have the site file's limits on size and nesting."""

from __future__ import annotations

import hashlib
import os
import pathlib
import re
import subprocess
import sys

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.errors import InputError
from hydrocalc.input_file import MAX_INPUT_DEPTH, MAX_INPUT_FILE_BYTES, read_toml_file

ROOT = pathlib.Path(__file__).parents[2]
PELHAM = ROOT / "examples" / "pelham" / "site.toml"
POND = ROOT / "examples" / "ponds" / "pond.toml"

_FIFO = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs named pipes")


@pytest.fixture
def fifo(tmp_path):
    path = tmp_path / "pipe.toml"
    os.mkfifo(path)
    return path


def _cli(*args, timeout=60):
    """The command in a fresh process: a command that blocks on the pipe times out."""
    return subprocess.run([sys.executable, "-m", "hydrocalc", *map(str, args)],
                          capture_output=True, text=True, timeout=timeout, cwd=ROOT)


def _one_error(res, pattern):
    assert res.returncode == 1, res.stderr
    assert "Traceback" not in res.stderr
    errors = [ln for ln in res.stderr.splitlines() if ln.startswith("error:")]
    assert len(errors) == 1 and re.search(pattern, errors[0]), res.stderr


@pytest.mark.parametrize("args, pattern", [
    (("rating", "{fifo}"), r"^error: pond file must be a regular file; got '.*pipe\.toml' "
                           r"\(a folder, device or pipe\)$"),
    (("route", POND, "--inflow", "{fifo}"), r"^error: --inflow CSV must be a regular file"),
    (("import", "hydrocad", "{fifo}", "--out", "{tmp}/imported"),
     r"^error: HydroCAD report must be a regular file"),
    (("review", "--submitted", "{fifo}", PELHAM), r"^error: --submitted file must be a regular "
                                                   r"file"),
])
@_FIFO
def test_a_pipe_is_refused_not_read(fifo, tmp_path, args, pattern):
    args = [str(a).format(fifo=fifo, tmp=tmp_path) for a in args]
    _one_error(_cli(*args), pattern)


@_FIFO
def test_a_batch_of_a_pipe_is_one_error_row(fifo, tmp_path):
    res = _cli("batch", fifo, "--out", tmp_path / "out", "--scheduler", "synchronous")
    assert res.returncode == 1, res.stderr
    assert "site file must be a regular file" in res.stderr


def test_a_pond_file_nested_too_deeply_is_refused_before_its_tables(tmp_path):
    deep = MAX_INPUT_DEPTH + 3
    path = tmp_path / "pond.toml"
    path.write_text('name = "p"\nx = ' + "[" * deep + "]" * deep + "\n", encoding="utf-8")
    res = CliRunner().invoke(main, ["rating", str(path)])
    assert res.exit_code == 1
    assert res.stderr.strip() == (f"error: pond.toml: tables and arrays must be nested at most "
                                  f"{MAX_INPUT_DEPTH} levels deep; got {deep} (a pond file "
                                  "needs at most 3)")


def test_a_pond_file_over_the_size_limit_is_refused_unread(tmp_path):
    path = tmp_path / "pond.toml"
    with open(path, "wb") as fh:
        fh.truncate(MAX_INPUT_FILE_BYTES + 1)
    res = CliRunner().invoke(main, ["rating", str(path)])
    assert res.exit_code == 1
    assert res.stderr.strip() == "error: pond.toml: must be at most 4 MiB; got 4.0 MiB"


def test_a_sweep_file_nested_too_deeply_is_refused(tmp_path):
    from hydrocalc.batch.sweep import load_sweep

    deep = MAX_INPUT_DEPTH + 1
    path = tmp_path / "s.toml"
    path.write_text('base = "site.toml"\nx = ' + "[" * deep + "]" * deep + "\n",
                    encoding="utf-8")
    with pytest.raises(InputError, match=rf"^s\.toml: tables and arrays must be nested at most "
                                         rf"{MAX_INPUT_DEPTH} levels deep; got {deep} \(a sweep "
                                         r"file needs at most 3\)$"):
        load_sweep(path)


def test_the_reader_keeps_the_text_and_hash_of_what_it_read(tmp_path):
    path = tmp_path / "a.toml"
    raw = b"\xef\xbb\xbfx = 1\n"  # a byte-order mark is allowed
    path.write_bytes(raw)
    got = read_toml_file(path, what="site file", deepest=5)
    assert got.doc == {"x": 1} and got.text == "x = 1\n"
    assert got.sha256 == hashlib.sha256(raw).hexdigest()


@pytest.mark.parametrize("rows, line", [
    ("0,0\n0.1,a\n0.2,b\n", "error: --inflow in.csv: flow_cfs must be a finite number; got 'a' "
                            "in data row 2 (2 such row(s))"),
    ("0,0\n0.1,1e12\n0.2,0\n", "error: --inflow in.csv: flow_cfs must be <= 100,000,000 cfs; "
                               "got 1000000000000. Check the units"),
    ("0,0\n0,1\n0,0\n", "error: --inflow in.csv: time_hr must be on a uniform increasing step; "
                        "step at index 1 is 0 h, expected a step > 0. Resample the series "
                        "first"),
])
def test_a_bad_inflow_csv_is_one_line_naming_the_file(tmp_path, rows, line):
    csv = tmp_path / "in.csv"
    csv.write_text("time_hr,flow_cfs\n" + rows, encoding="utf-8")
    res = CliRunner().invoke(main, ["route", str(POND), "--inflow", str(csv)])
    assert res.exit_code == 1
    assert res.stderr.strip() == line
