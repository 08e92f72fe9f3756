"""The section notebooks compute their sections; executed notebooks re-run as they stand;
sections of the engineer's own (``[report] extra_sections``) reach the HTML, the PDF and the
table of contents, and their bad inputs are one line that leaves the previous report as it
was."""

from __future__ import annotations

import json
import os
import pathlib
import shutil
import subprocess
import sys

import nbformat
import pytest
from click.testing import CliRunner
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

from hydrocalc.cli import main
from hydrocalc.errors import InputError, ReportError
from hydrocalc.report import sections as S
from hydrocalc.report.custom import html_tables
from hydrocalc.report.execute import run_report
from hydrocalc.report.result import SECTION_MIME

ROOT = pathlib.Path(__file__).resolve().parents[2]
PELHAM = ROOT / "examples" / "pelham"

pytestmark = pytest.mark.notebooks


def _site_copy(dest: pathlib.Path) -> pathlib.Path:
    """The Pelham example with its own section listed, and the design storms it names."""
    shutil.copytree(PELHAM, dest / "examples" / "pelham")
    shutil.copytree(ROOT / "design_storms", dest / "design_storms")
    site = dest / "examples" / "pelham" / "site.toml"
    with open(site, "a", encoding="utf-8") as fh:
        fh.write('\n[report]\nextra_sections = ["sections/peak_check.ipynb"]\n')
    return site


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("computed")
    site = _site_copy(tmp)
    run = run_report(site, tmp / "report", progress=False)
    return run.out_dir


def _outputs(path: pathlib.Path) -> list:
    """Every displayed output of an executed notebook's code cells (data and text)."""
    nb = nbformat.read(path, as_version=4)
    out = []
    for cell in nb.cells:
        if cell.cell_type != "code" or "injected-parameters" in cell.metadata.get("tags", []):
            continue
        for o in cell.outputs:
            out.append(o.get("data") if "data" in o else o.get("text"))
    return out


def test_each_notebook_displays_its_section_once_with_its_data(report):
    doc = json.loads((report / "results.json").read_text("utf-8"))
    for n, key in enumerate(S.SECTIONS, start=1):
        nb = nbformat.read(report / "notebooks" / f"{n:02d}_{key}.ipynb", as_version=4)
        found = [o.data[SECTION_MIME] for c in nb.cells if c.cell_type == "code"
                 for o in c.outputs if SECTION_MIME in o.get("data", {})]
        assert len(found) == 1, key
        # results.json holds exactly what the kernel displayed
        assert found[0]["document"] == doc["sections"][key]
        assert found[0]["presentation"]["key"] == key
        params = nb.metadata["papermill"]["parameters"]
        assert params["site_file"] == doc["parameters"]["site_file"]
        assert params["site_file"].startswith("inputs/") and params["out_dir"] == "."
        assert "results_file" not in params
    assert not (report / "pickles").exists()


def test_executed_notebooks_rerun_as_they_stand_with_the_same_outputs(report, tmp_path):
    """papermill notebooks/<nb> out.ipynb, from the report folder, no parameters added."""
    books = sorted((report / "notebooks").glob("*.ipynb"))
    assert len(books) == len(S.SECTIONS) + 1  # and the engineer's own section
    picks = [b for b in books if b.stem.split("_", 1)[1] in
             ("hydrology_post", "ponds", "warnings", "custom_peak_check")]
    assert len(picks) == 4
    before = {p: p.read_bytes() for p in report.rglob("*") if p.is_file()}
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for book in picks:
        out = tmp_path / f"{book.stem}.ipynb"
        done = subprocess.run([sys.executable, "-m", "papermill", str(book.relative_to(report)),
                               str(out), "--no-progress-bar"], cwd=report, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr[-2000:]
        assert _outputs(out) == _outputs(book), book.name
    # the re-run wrote the section's files again, byte for byte
    after = {p: p.read_bytes() for p in report.rglob("*") if p.is_file()}
    assert after == before


def test_the_engineers_section_is_in_html_pdf_contents_and_results(report):
    import pypdfium2 as pdfium

    html = (report / "report.html").read_text("utf-8")
    title = "Peak check at the design points (engineer&#x27;s section)"
    assert 'href="#sec-custom_peak_check"' in html and title in html
    assert html.index('id="sec-warnings"') < html.index('id="sec-custom_peak_check"')
    assert "post_peak_cfs" in html.split('id="sec-custom_peak_check"')[1]
    pdf = pdfium.PdfDocument(str(report / "report.pdf"))
    pages = [pdf[i].get_textpage().get_text_range() for i in range(len(pdf))]
    contents = "\n".join(pages[:3])
    assert "Peak check at the design points" in contents  # the table of contents
    last = "\n".join(pages[-2:])
    assert "Peak check at the design points" in last and "post_peak_cfs" in last
    assert ".dataframe" not in last  # no style sheet typeset as text
    doc = json.loads((report / "results.json").read_text("utf-8"))
    [custom] = doc["custom_sections"]
    assert custom["notebook"] == "sections/peak_check.ipynb"
    assert custom["executed_notebook"] == "notebooks/12_custom_peak_check.ipynb"
    assert any(k.endswith("pelham/sections/peak_check.ipynb") for k in doc["inputs"])
    assert (report / "figures" / "custom_peak_check__figure_1.png").is_file()


def test_verify_agrees_and_says_custom_sections_are_not_recomputed(report):
    result = CliRunner().invoke(main, ["verify", str(report)])
    assert result.exit_code == 0, result.output
    assert "custom section custom_peak_check" in result.output
    assert "not recomputed by verify" in result.output
    pdf = CliRunner().invoke(main, ["verify", str(report / "report.pdf")])
    assert pdf.exit_code == 0, pdf.output


def test_html_tables_read_a_dataframe_as_shown():
    import pandas as pd

    frame = pd.DataFrame({"storm": ["1yr", "10yr"], "peak_cfs": [1.25, 12.5]})
    tables, text = html_tables("<style>.x{}</style><p>Peaks</p>" + frame.to_html())
    assert text == "Peaks"
    [t] = tables
    assert t["labels"] == ["", "storm", "peak_cfs"]
    assert t["numeric"] == [True, False, True]
    assert t["cells"] == [["0", "1yr", "1.25"], ["1", "10yr", "12.50"]]


# -- bad input: one line, exit 1, the previous report as it was ------------------------
def _custom(tmp_path: pathlib.Path, *cells, params: bool = True) -> pathlib.Path:
    site = _site_copy(tmp_path)
    nb = new_notebook()
    nb.cells = [new_markdown_cell("# My check")]
    if params:
        p = new_code_cell('site_file = "../site.toml"')
        p.metadata["tags"] = ["parameters"]
        nb.cells.append(p)
    nb.cells += [new_code_cell(c) for c in cells]
    nbformat.write(nb, site.parent / "sections" / "mine.ipynb")
    return site


def _point_to(site: pathlib.Path, listing: str, extra: str = "") -> None:
    import re

    text = site.read_text("utf-8")
    text = re.sub(r"(?m)^extra_sections = .*$", f"extra_sections = {listing}{extra}", text)
    site.write_text(text, "utf-8")


def _report_over_previous(site: pathlib.Path, tmp_path: pathlib.Path):
    out = tmp_path / "previous"
    out.mkdir()
    (out / "results.json").write_text("{}", "utf-8")
    result = CliRunner().invoke(main, ["report", str(site), "--out", str(out), "--quiet"])
    assert [p.name for p in out.iterdir()] == ["results.json"]
    assert not list(tmp_path.glob(".previous.partial-*"))
    return result


@pytest.mark.parametrize("listing, expected", [
    ('["../outside.ipynb"]', "report.extra_sections[0] must name a file inside the site"),
    ('["sections/missing.ipynb"]', "report.extra_sections[0] must be an existing notebook"),
])
def test_a_custom_section_outside_the_folder_or_missing_is_one_line(tmp_path, listing,
                                                                     expected):
    site = _custom(tmp_path, "1")
    (tmp_path / "examples" / "outside.ipynb").write_text("{}", "utf-8")
    _point_to(site, listing)
    result = _report_over_previous(site, tmp_path)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], result.output


def test_a_custom_section_without_parameters_cell_is_one_line(tmp_path):
    site = _custom(tmp_path, "1", params=False)
    _point_to(site, '["sections/mine.ipynb"]')
    result = _report_over_previous(site, tmp_path)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and "must have a code cell tagged 'parameters'" in lines[0]
    assert "sections/mine.ipynb" in lines[0]


def test_a_custom_section_that_raises_names_the_notebook_and_the_cell(tmp_path):
    site = _custom(tmp_path, "x = 1", "raise ValueError('peak too high')")
    _point_to(site, '["sections/mine.ipynb"]')
    result = _report_over_previous(site, tmp_path)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "section 'custom_mine' (notebook sections/mine.ipynb) failed in cell" in lines[0]
    assert "raise ValueError('peak too high')" in lines[0]
    assert "ValueError: peak too high" in lines[0] and "left untouched" in lines[0]


def test_a_custom_section_over_the_time_limit_is_one_line(tmp_path):
    site = _custom(tmp_path, "import time\ntime.sleep(60)")
    _point_to(site, '["sections/mine.ipynb"]', "\nnotebook_timeout_s = 3")
    result = _report_over_previous(site, tmp_path)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "took longer than the report's per-notebook time limit of 3 s" in lines[0]
    assert "notebook_timeout_s" in lines[0]


def test_run_report_raises_the_same_errors(tmp_path):
    site = _custom(tmp_path, "1", params=False)
    _point_to(site, '["sections/mine.ipynb"]')
    with pytest.raises(ReportError):
        run_report(site, tmp_path / "r", progress=False)
    _point_to(site, '["nope.ipynb"]')
    with pytest.raises(InputError):
        run_report(site, tmp_path / "r", progress=False)


@pytest.mark.parametrize("text", ["not json", '{"cells": 5}', '{"nbformat": 4}'])
def test_a_custom_section_that_is_not_a_notebook_is_one_line(tmp_path, text):
    site = _custom(tmp_path, "1")
    (site.parent / "sections" / "mine.ipynb").write_text(text, "utf-8")
    _point_to(site, '["sections/mine.ipynb"]')
    result = _report_over_previous(site, tmp_path)
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert "sections/mine.ipynb must be a readable Jupyter notebook" in lines[0]
