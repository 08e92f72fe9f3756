"""`make lab`: the command line it runs, and that it would start JupyterLab with the project's
kernel (checked without starting a server)."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_lab_runs_jupyter_lab_on_the_notebooks_folder():
    # run as a top-level make (under `make test` the parent's MAKEFLAGS/MAKELEVEL would add
    # "make[1]: Entering directory" lines)
    env = {k: v for k, v in os.environ.items() if k not in ("MAKEFLAGS", "MAKELEVEL", "MFLAGS")}
    out = subprocess.run(["make", "--no-print-directory", "-n", "-B", "lab",
                          "LAB_ARGS=--no-browser"], cwd=ROOT, env=env,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    out = [line for line in out if not line.startswith("make")]
    assert '.venv/bin/python -m pip install --quiet -e ".[lab]"' in out
    assert out[-1].split() == [".venv/bin/python", "-m", "jupyter", "lab",
                               "--notebook-dir=notebooks", "--no-browser"]
    assert (ROOT / "notebooks" / "learn").is_dir()


def test_lab_extra_holds_jupyterlab_and_ipywidgets():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    names = {spec.split(">")[0].split("=")[0] for spec in extras["lab"]}
    assert {"jupyterlab", "ipywidgets"} <= names


@pytest.mark.slow
def test_jupyter_lab_starts_from_this_python_with_its_own_kernel():
    pytest.importorskip("jupyterlab")
    version = subprocess.run([sys.executable, "-m", "jupyter", "lab", "--version"],
                             capture_output=True, text=True, check=True).stdout.strip()
    assert version[0].isdigit()
    specs = json.loads(subprocess.run(
        [sys.executable, "-m", "jupyter", "kernelspec", "list", "--json"],
        capture_output=True, text=True, check=True).stdout)["kernelspecs"]
    # the notebooks' kernel (python3) runs this very interpreter (the project's venv)
    argv0 = pathlib.Path(specs["python3"]["spec"]["argv"][0])
    assert argv0.name.startswith("python")
    assert argv0.parent.resolve() == pathlib.Path(sys.executable).parent.resolve() or \
        argv0.name == "python"
