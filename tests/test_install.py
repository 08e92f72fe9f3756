"""The pip route: ``pip install ".[report]"`` in a fresh virtual environment writes a report.

This is what a user without ``make`` (Windows) does. The checkout is copied first (pip and
setuptools build in the source tree), then installed as a wheel into a new venv made with
``python -m venv``; ``hydrocalc report`` runs there on the Pelham example with no
``PYTHONPATH``, and ``hydrocalc verify`` checks the PDF from its attachments. The same venv
then gets an editable install (``pip install -e``), which must find the same section
notebooks in the source tree. Needs the package index (PyPI) and a few minutes.
"""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]

pytestmark = [pytest.mark.slow, pytest.mark.notebooks]

_SKIP = {".git", ".venv", "reports", "build", "dist", "__pycache__", ".pytest_cache",
         ".ipynb_checkpoints", ".hypothesis", "benchmarks"}


def _run(args, cwd, env, timeout=1800):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, (f"{' '.join(map(str, args))} failed:\n"
                                  f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return done.stdout


def test_pip_install_report_extra_in_a_fresh_venv_writes_and_verifies_a_report(tmp_path):
    src = tmp_path / "checkout"
    shutil.copytree(ROOT, src, ignore=lambda d, names: [n for n in names if n in _SKIP
                                                         or n.endswith(".egg-info")])
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python = bindir / ("python.exe" if os.name == "nt" else "python")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME")}
    env["PATH"] = str(bindir) + os.pathsep + env.get("PATH", "")
    _run([python, "-m", "pip", "install", "-q", "--disable-pip-version-check",
          f"{src}[report]"], cwd=tmp_path, env=env)

    where = _run([python, "-c", "import hydrocalc, hydrocalc.report.execute as e; "
                  "print(hydrocalc.__file__); print(e.notebook_dir())"], cwd=tmp_path, env=env)
    package, notebooks = where.split()
    assert str(venv) in package and str(venv) in notebooks
    assert len(list(pathlib.Path(notebooks).glob("*.ipynb"))) == 10

    out = tmp_path / "report"
    _run([bindir / "hydrocalc", "report", str(src / "examples" / "pelham" / "site.toml"),
          "--out", str(out), "--quiet"], cwd=tmp_path, env=env)
    for name in ("report.html", "report.pdf", "tables.xlsx", "results.json"):
        assert (out / name).is_file()
    text = _run([bindir / "hydrocalc", "verify", str(out / "report.pdf")], cwd=tmp_path,
                env=env)
    assert "all agree" in text
    # the input files' JSON Schemas are package data of the installed wheel
    schema = _run([bindir / "hydrocalc", "schema", "site"], cwd=tmp_path, env=env)
    assert schema == (src / "src" / "hydrocalc" / "data" / "schema" / "site.schema.json"
                      ).read_text(encoding="utf-8")

    # an editable install of the same checkout finds the notebooks in the source tree
    _run([python, "-m", "pip", "install", "-q", "--no-deps", "--disable-pip-version-check",
          "-e", str(src)], cwd=tmp_path, env=env)
    where = _run([python, "-c", "import hydrocalc.report.execute as e; "
                  "print(e.notebook_dir())"], cwd=tmp_path, env=env)
    assert pathlib.Path(where.strip()) == src / "src" / "hydrocalc" / "report" / "notebooks"
    _run([bindir / "hydrocalc", "report", str(src / "examples" / "pelham" / "site.toml"),
          "--out", str(tmp_path / "editable"), "--section", "project", "--format", "pdf",
          "--quiet"], cwd=tmp_path, env=env)
    assert (tmp_path / "editable" / "report.pdf").is_file()
