"""``hydrocalc report`` / ``verify`` / ``demo`` on the command line: usage and refusals.

The successful report run through the CLI is in tests/report/test_report.py (one shared run) and
``hydrocalc verify`` exit codes in tests/report/test_verify.py; these tests start no kernel.
"""

from __future__ import annotations

import pathlib
import shutil

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.report import sections as S

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"


@pytest.fixture
def runner():
    return CliRunner()


def test_list_sections_names_every_section_and_notebook(runner):
    result = runner.invoke(main, ["report", "--list-sections"])
    assert result.exit_code == 0
    for key, spec in S.SECTIONS.items():
        assert f"{key} " in result.output and spec.notebook in result.output


def test_missing_site_file_is_one_line_and_exit_1(runner, tmp_path):
    result = runner.invoke(main, ["report", str(tmp_path / "nope.toml"), "--out",
                                  str(tmp_path / "r")])
    assert result.exit_code == 1
    assert result.output.strip() == (f"error: site file must be an existing TOML file; got "
                                      f"'{tmp_path / 'nope.toml'}'. Check the path.")
    assert not (tmp_path / "r").exists()


def test_every_input_problem_is_listed_and_nothing_is_written(runner, tmp_path):
    bad = tmp_path / "site.toml"
    bad.write_text('[project]\nname = "x"\nmunicipality = "pelhm"\n[storms]\n', "utf-8")
    result = runner.invoke(main, ["report", str(bad), "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) > 3 and all(ln.startswith("error: site.toml") for ln in lines)
    assert any("did you mean 'pelham'" in ln for ln in lines)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site.toml"]


def test_unknown_section_suggests_the_closest(runner, tmp_path):
    result = runner.invoke(main, ["report", str(EXAMPLE), "--section", "comparisn",
                                  "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert "error: --section must be one of project, storms" in result.output
    assert "did you mean 'comparison'" in result.output


def test_unknown_format_is_refused(runner, tmp_path):
    result = runner.invoke(main, ["report", str(EXAMPLE), "--format", "html,docx",
                                  "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert "error: --format must be a comma-separated subset of html, pdf, xlsx; got 'docx'" \
        in result.output


def test_out_that_is_a_file_is_refused(runner, tmp_path):
    target = tmp_path / "report.txt"
    target.write_text("keep me")
    result = runner.invoke(main, ["report", str(EXAMPLE), "--out", str(target)])
    assert result.exit_code == 2  # a usage error, caught by click before anything runs
    assert "'--out'" in result.output and "is a file" in result.output
    assert target.read_text() == "keep me"


def test_notebooks_whose_parameters_differ_from_the_sections_are_refused(runner, tmp_path):
    import shutil

    import nbformat

    from hydrocalc.report.execute import notebook_dir

    books = tmp_path / "books"
    shutil.copytree(notebook_dir(), books)
    nb = nbformat.read(books / "04_ponds.ipynb", as_version=4)
    params = next(c for c in nb.cells if "parameters" in c.metadata.get("tags", []))
    params.source += '\nstorm: str = "10yr"  # an extra parameter'
    nbformat.write(nb, books / "04_ponds.ipynb")
    result = runner.invoke(main, ["report", str(EXAMPLE), "--notebooks", str(books),
                                  "--out", str(tmp_path / "r")])
    assert result.exit_code == 1
    assert ("error: notebook 04_ponds.ipynb parameters must be out_dir, "
            "site_file (section 'ponds'); missing: none; unexpected: storm") in result.output
    assert not (tmp_path / "r").exists()


def test_usage_error_is_exit_2(runner):
    assert runner.invoke(main, ["report"]).exit_code == 2
    assert runner.invoke(main, ["verify"]).exit_code == 2


def test_demo_without_examples_says_where_to_run(runner, tmp_path):
    result = runner.invoke(main, ["demo", "--examples", str(tmp_path)])
    assert result.exit_code == 1
    assert "error: --examples must be a folder with */site.toml example sites" in result.output


def test_rrv_factor_table_shows_the_site_override_the_analysis_used(tmp_path):
    src = ROOT / "tests" / "fixtures" / "sites" / "small"
    for f in src.iterdir():
        shutil.copy(f, tmp_path / f.name)
    site = tmp_path / "site.toml"
    text = site.read_text(encoding="utf-8").replace(
        "[analysis]",
        "[criteria]\nrrv_specific_reduction_factor = { A = 0.5, B = 0.4, C = 0.3, D = 0.1 }\n\n"
        "[analysis]")
    site.write_text(text, encoding="utf-8")
    res = S.sizing_criteria(str(site), "")
    frame = res.table("rrv_factors").frame
    assert dict(zip(frame["hsg"], frame["specific_reduction_factor"], strict=True)) == {
        "A": 0.5, "B": 0.4, "C": 0.3, "D": 0.1}
    assert "status: user input" in res.table("rrv_factors").caption
