"""Thin-notebook rules, parameter sync and the shipped copy of the report notebooks.

The report notebooks themselves are executed by tests/test_report.py (one shared run); the
lessons in notebooks/learn/ are checked and re-run by tests/test_learn.py.
"""

from __future__ import annotations

import inspect
import pathlib

import nbformat
import papermill
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from hydrocalc.errors import ReportError
from hydrocalc.report import sections
from hydrocalc.report.execute import notebook_dir, parameterize_safely
from hydrocalc.report.notebook_rules import called_function, notebook_problems

ROOT = pathlib.Path(__file__).resolve().parents[1]
REPORT_NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
ALL = REPORT_NOTEBOOKS


def _id(path):
    return path.relative_to(ROOT / "notebooks").as_posix()


def test_every_section_has_its_notebook_and_no_notebook_is_orphaned():
    wanted = {spec.notebook for spec in sections.SECTIONS.values()}
    assert {p.name for p in REPORT_NOTEBOOKS} == wanted


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_notebook_follows_the_thin_notebook_rules(path):
    # Report notebooks may not hold any digit in Markdown (lessons: tests/test_learn.py).
    assert notebook_problems(path, markdown_numbers=False) == []


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_notebook_is_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert "papermill" not in nb.metadata


def _function_of(path):
    module, name = called_function(nbformat.read(path, as_version=4))
    return getattr({"hydrocalc.report.sections": sections}[module], name)


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_notebook_parameters_equal_its_function_signature(path):
    declared = papermill.inspect_notebook(str(path))
    function = _function_of(path)
    assert list(declared) == list(inspect.signature(function).parameters)
    if path in REPORT_NOTEBOOKS:
        specs = [s for s in sections.SECTIONS.values() if s.notebook == path.name]
        assert {s.function for s in specs} == {function.__name__}


@pytest.mark.parametrize("path", REPORT_NOTEBOOKS, ids=_id)
def test_shipped_copy_equals_the_repository_notebook(path):
    shipped = notebook_dir() / path.name
    assert shipped.is_file(), f"cp notebooks/{path.name} src/hydrocalc/report/notebooks/"
    assert shipped.read_bytes() == path.read_bytes(), (
        "the shipped copy differs; run: cp notebooks/*.ipynb src/hydrocalc/report/notebooks/")


def test_shipped_copy_has_no_extra_notebooks():
    assert {p.name for p in notebook_dir().glob("*.ipynb")} == {p.name for p in REPORT_NOTEBOOKS}


def _bad_notebook(tmp_path):
    nb = new_notebook()
    params = new_code_cell('site_file = "x"\nn: int = 3')
    params.metadata["tags"] = ["parameters"]
    with_output = new_code_cell("from hydrocalc.report import sections\n"
                                "result = sections.comparison(site_file=site_file, out_dir='')")
    with_output.outputs = [new_output("stream", name="stdout", text="hi")]
    nb.cells = [
        new_markdown_cell("The peak drops by 12 %."),
        params,
        with_output,
        new_code_cell("import numpy as np\ndef f(x):\n    return x\ng = lambda y: y"),
        new_code_cell("total = result.values + 2\nresult.n += 1"),
        new_code_cell("%matplotlib inline"),
        new_code_cell("open('x', 'w')"),
        new_code_cell("sections.ponds(site_file=site_file, out_dir='')"),
    ]
    path = tmp_path / "bad.ipynb"
    nbformat.write(nb, path)
    return path


def test_rules_catch_every_kind_of_logic(tmp_path):
    problems = "\n".join(notebook_problems(_bad_notebook(tmp_path), markdown_numbers=False))
    for expected in ("hand-typed numbers", "typed assignments", "needs a trailing comment",
                     "saved outputs", "import numpy", "def is not allowed",
                     "lambda is not allowed", "arithmetic is not allowed",
                     "arithmetic (augmented assignment)", "does not parse as Python",
                     "name 'open' is not a parameter", "exactly one call into "
                     "hydrocalc.report; makes 2"):
        assert expected in problems


def test_hostile_parameter_strings_are_injected_as_data():
    nb = nbformat.read(REPORT_NOTEBOOKS[0], as_version=4)
    hostile = 'x"; import os; os.system("touch PWNED"); y="\n"""\n\\\'; exec(\'1\')'
    out = parameterize_safely(nb, {"site_file": hostile, "out_dir": "."})
    injected = [c for c in out.cells if "injected-parameters" in c.metadata["tags"]]
    namespace: dict = {}
    exec(compile(injected[0].source, "<injected>", "exec"), {"__builtins__": {}}, namespace)
    assert namespace == {"site_file": hostile, "out_dir": "."}


def test_non_literal_parameters_are_refused():
    nb = nbformat.read(REPORT_NOTEBOOKS[0], as_version=4)
    with pytest.raises(ReportError, match="must be a str, number, bool, list or None; got dict"):
        parameterize_safely(nb, {"site_file": {"a": 1}, "out_dir": "."})
