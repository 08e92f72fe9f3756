"""The version names the build: from git (setuptools-scm), shown by ``hydrocalc --version``,
written into the PDF's metadata and the cover, and named by ``hydrocalc verify``."""

from __future__ import annotations

import importlib.metadata
import pathlib
import shutil
import subprocess
import sys

import pytest
from click.testing import CliRunner

import hydrocalc
from hydrocalc.cli import main
from hydrocalc.report.result import SectionResult
from hydrocalc.report.sections import cover_meta
from hydrocalc.report.typeset import write_pdf
from hydrocalc.report.verify import Difference, Verification

ROOT = pathlib.Path(__file__).resolve().parents[1]


def test_version_is_the_installed_distributions_and_not_the_old_fixed_one():
    assert hydrocalc.__version__ == importlib.metadata.version("hydrocalc")
    assert hydrocalc.__version__ != "0.2.0"


def test_cli_version_prints_the_package_version():
    out = CliRunner().invoke(main, ["--version"])
    assert out.exit_code == 0
    assert out.output.strip() == f"hydrocalc, version {hydrocalc.__version__}"


def test_cover_carries_the_version_of_the_results():
    meta = cover_meta({"hydrocalc_version": "0.3.1.dev4+gabc1234", "project": {"name": "P"}})
    assert ("hydrocalc version", "0.3.1.dev4+gabc1234") in meta["cover_rows"]
    assert meta["hydrocalc_version"] == "0.3.1.dev4+gabc1234"


def test_pdf_metadata_names_the_hydrocalc_version(tmp_path):
    import pypdf

    meta = {"project_name": "Lot 7", "kind": "SWPPP hydrologic analysis",
            "hydrocalc_version": "0.3.1.dev4+gabc1234", "footer": "f"}
    write_pdf([SectionResult(key="project", title="Project", narrative_md="text")], meta,
              tmp_path / "r.pdf")
    info = pypdf.PdfReader(tmp_path / "r.pdf").metadata
    assert info.title == "Lot 7"
    assert "hydrocalc 0.3.1.dev4+gabc1234" in info.subject
    assert "hydrocalc 0.3.1.dev4+gabc1234" in info["/Keywords"]


def _verification(notes):
    return Verification(pathlib.Path("r"), 1e-6, 1e-9, [], notes, 0, 0)


def test_verify_says_when_the_report_was_made_by_another_version():
    other = _verification([Difference("hydrocalc_version", "0.3.0", "0.3.1.dev2+g1", "note")])
    assert other.version_note() == (
        "note: this report was made by hydrocalc 0.3.0; it was re-computed with hydrocalc "
        "0.3.1.dev2+g1 (a difference may come from the change of version)")
    assert other.ok
    assert _verification([]).version_note() == ""
    unrecorded = _verification([Difference("hydrocalc_version", None, "0.3.0", "note")])
    assert "made by hydrocalc an unrecorded version" in unrecorded.version_note()


def _git(cwd, *args):
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org",
                    "-c", "commit.gpgsign=false", *args], cwd=cwd, check=True,
                   capture_output=True, text=True)


def _scm_version(cwd) -> str:
    out = subprocess.run([sys.executable, "-m", "setuptools_scm"], cwd=cwd, check=True,
                         capture_output=True, text=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_tagged_release_and_later_commit_versions(tmp_path):
    pytest.importorskip("setuptools_scm")
    repo = tmp_path / "repo"
    repo.mkdir()
    shutil.copy(ROOT / "pyproject.toml", repo / "pyproject.toml")
    (repo / "README.md").write_text("x\n", encoding="utf-8")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "release")
    _git(repo, "tag", "v0.3.0")
    assert _scm_version(repo) == "0.3.0"
    (repo / "README.md").write_text("y\n", encoding="utf-8")
    _git(repo, "commit", "-qam", "later")
    head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout.strip()
    version = _scm_version(repo)
    assert version.startswith("0.3.1.dev1+g")
    assert head[:7] in version
    shutil.rmtree(repo / ".git")
    assert _scm_version(repo) == "0.0.0+unknown"  # no git metadata: never a release number
