"""Thin-notebook rules, parameter sync, the one copy of the report notebooks, each executed
as shipped.

The report notebooks are executed with injected parameters by tests/report/test_report.py (one
shared run); here each is also executed with its own defaults from its own folder. The
lessons in notebooks/learn/ are checked and re-run by tests/course/test_learn.py.
"""

from __future__ import annotations

import pathlib

import nbformat
import papermill
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from hydrocalc.errors import ReportError
from hydrocalc.report import sections
from hydrocalc.report.execute import notebook_dir, parameterize_safely
from hydrocalc.report.notebook_rules import called_function, notebook_problems

ROOT = pathlib.Path(__file__).resolve().parents[2]
REPORT_NOTEBOOKS = sorted((ROOT / "src" / "hydrocalc" / "report" / "notebooks").glob("*.ipynb"))
ALL = REPORT_NOTEBOOKS


def _id(path):
    return path.name


def test_every_section_has_its_notebook_and_no_notebook_is_orphaned():
    wanted = {spec.notebook for spec in sections.SECTIONS.values()}
    assert {p.name for p in REPORT_NOTEBOOKS} == wanted


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_notebook_follows_the_thin_notebook_rules(path):
    # Report notebooks may not hold any digit in Markdown (lessons: tests/course/test_learn.py).
    assert notebook_problems(path, markdown_numbers=False) == []


@pytest.mark.parametrize("path", ALL, ids=_id)
def test_notebook_is_committed_without_outputs(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code
    assert all(c.outputs == [] and c.execution_count is None for c in code)
    assert "papermill" not in nb.metadata


@pytest.mark.parametrize("path", REPORT_NOTEBOOKS, ids=_id)
def test_report_notebook_calls_build_section_with_the_parameters_it_receives(path):
    from hydrocalc.report.execute import check_notebook_parameters, notebook_parameters

    assert called_function(nbformat.read(path, as_version=4)) == (
        "hydrocalc.report.build", "section")
    specs = [s for s in sections.SECTIONS.values() if s.notebook == path.name]
    assert specs
    declared = papermill.inspect_notebook(str(path))
    assert list(declared)[0] == "site_file" and "out_dir" in declared
    for spec in specs:
        check_notebook_parameters(path, spec.key)  # raises on any mismatch
        assert set(notebook_parameters(spec.key, site_file="", out_dir="",
                                       sections=[])) == set(declared)


def test_report_notebooks_exist_once_in_the_repository():
    names = {p.name for p in REPORT_NOTEBOOKS}
    everywhere = [p for p in ROOT.rglob("*.ipynb") if p.name in names
                  and not {".venv", ".ipynb_checkpoints", "build"} & set(p.parts)]
    assert sorted(everywhere) == REPORT_NOTEBOOKS
    assert notebook_dir().resolve() == REPORT_NOTEBOOKS[0].parent.resolve()
    assert (ROOT / "notebooks" / "README.md").is_file()


@pytest.mark.notebooks
@pytest.mark.parametrize("path", REPORT_NOTEBOOKS, ids=_id)
def test_report_notebook_runs_as_shipped_from_its_folder(path):
    """Each report notebook, unmodified, with its default parameters, in its own folder
    (the default site_file is the shipped example relative to that folder)."""
    import ast

    from nbclient import NotebookClient

    from hydrocalc.report.execute import kernel_env

    nb = nbformat.read(path, as_version=4)
    defaults = papermill.inspect_notebook(str(path))
    assert "results_file" not in defaults  # the notebook computes its section itself
    assert (path.parent / ast.literal_eval(defaults["site_file"]["default"])).is_file()
    client = NotebookClient(nb, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(path.parent)}})
    client.execute(env=kernel_env())
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [o for o in outputs if o.output_type == "error"]
    html = "".join(o.get("data", {}).get("text/html", "") for o in outputs)
    assert '<h2 class="section"' in html


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
