"""The course in notebooks/learn/: lesson rules, published checks, exercises, and a re-run of
every lesson (nbclient) that fails when a checked value changes."""

from __future__ import annotations

import math
import pathlib
import re
from concurrent.futures import ThreadPoolExecutor

import nbformat
import pytest
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook, new_output

from hydrocalc.course import learn
from hydrocalc.report.notebook_rules import MAX_LESSON_KB, lesson_problems

ROOT = pathlib.Path(__file__).resolve().parents[2]
FOLDER = ROOT / "notebooks" / "learn"
NOTEBOOKS = learn.lesson_paths(FOLDER)
LESSONS = [p for p in NOTEBOOKS if p.name[:2].isdigit()]

TOPICS = ["curve_number", "time_of_concentration", "design_storms", "unit_hydrograph",
          "pond_routing", "pre_vs_post", "water_quality_volume", "sediment_traps"]


def _id(path):
    return path.name


def test_the_course_has_eight_lessons_in_order_and_the_explorer():
    assert len(LESSONS) >= 8
    for k, (path, topic) in enumerate(zip(LESSONS, TOPICS, strict=False), start=1):
        assert path.name.startswith(f"{k:02d}_") and topic in path.name
    assert (FOLDER / "explorer.ipynb") in NOTEBOOKS


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_lesson_follows_the_lesson_rules(path):
    assert lesson_problems(path) == []


def _sources(nb):
    return "\n".join(c.source for c in nb.cells)


@pytest.mark.parametrize("path", LESSONS, ids=_id)
def test_lesson_cites_equations_and_checks_only_known_values(path):
    nb = nbformat.read(path, as_version=4)
    text = _sources(nb)
    assert "$$" in text  # equations are written out
    assert set(re.findall(r'published\("([a-z0-9_]+)"', text)) <= set(learn.PUBLISHED)
    named = set(re.findall(r'"([a-z0-9_]+)"', text)) & set(learn.PUBLISHED)
    assert (named and "published(" in text) or "agrees(" in text
    for key in re.findall(r'check\("([a-z0-9_]+)"', text):
        assert key in learn.EXERCISES and key.startswith(f"l{int(path.name[:2])}_")


def test_every_published_value_and_exercise_is_used_by_a_lesson():
    text = "\n".join(_sources(nbformat.read(p, as_version=4)) for p in LESSONS)
    for key in learn.PUBLISHED:
        assert f'"{key}"' in text, key
    for key in learn.EXERCISES:
        assert f'check("{key}"' in text, key


@pytest.mark.parametrize("key", sorted(learn.EXERCISES))
def test_every_exercise_answer_is_computed_by_the_package(key):
    value = float(learn.EXERCISES[key].answer())
    assert math.isfinite(value)
    assert learn.check(key, value) is True


def test_check_says_right_or_not_yet_without_revealing(capsys):
    ex = learn.EXERCISES["l1_runoff"]
    answer = float(ex.answer())
    assert learn.check("l1_runoff", None) is None
    assert learn.check("l1_runoff", answer + 0.5 * ex.tolerance) is True
    assert learn.check("l1_runoff", answer + 0.2) is False
    assert learn.check("l1_runoff", "three") is False
    out = capsys.readouterr().out
    assert "too high" in out and "Right" in out
    for digits in (f"{answer:.2f}", f"{answer:.3f}", f"{answer:g}"):
        assert digits not in out


def test_published_agrees_within_the_printed_precision_and_fails_outside(capsys):
    assert learn.published("tr55_ex2_2_runoff_in", 3.284)
    assert "AGREES" in capsys.readouterr().out
    with pytest.raises(AssertionError, match="tr55_ex2_2_runoff_in"):
        learn.published("tr55_ex2_2_runoff_in", 3.29)
    assert "DISAGREES" in capsys.readouterr().out


def _bad_lesson(tmp_path):
    nb = new_notebook()
    code = new_code_cell("import os\nresult = eval('1')")
    code.execution_count = 2
    err = new_code_cell("x = 1")
    err.execution_count = 1
    err.outputs = [new_output("error", ename="AssertionError", evalue="", traceback=[])]
    never = new_code_cell("%matplotlib inline")
    nb.cells = [new_markdown_cell("# A lesson reading ../../../outside/data.csv"), code, err,
                never]
    path = tmp_path / "09_bad.ipynb"
    nbformat.write(nb, path)
    return path


def test_lesson_rules_catch_each_problem(tmp_path):
    problems = "\n".join(lesson_problems(_bad_lesson(tmp_path)))
    for expected in ("names its sources", "outside the repository", "import os",
                     "eval is not allowed", "saved output is an error", "does not parse",
                     "not executed top to bottom", "no figure", "no published",
                     "0 exercise check"):
        assert expected in problems, expected


def test_lessons_are_committed_light():
    total_kb = sum(p.stat().st_size for p in NOTEBOOKS) / 1024
    assert all(p.stat().st_size / 1024 <= MAX_LESSON_KB for p in NOTEBOOKS)
    assert total_kb < 1200


# -- re-run every lesson as shipped ---------------------------------------------------------
@pytest.fixture(scope="module")
def rerun():
    """Every notebook of notebooks/learn/ executed again from its folder (two at a time)."""
    with ThreadPoolExecutor(2) as pool:
        return dict(zip([p.name for p in NOTEBOOKS], pool.map(learn.run_lesson, NOTEBOOKS),
                        strict=True))


@pytest.mark.notebooks
@pytest.mark.parametrize("path", NOTEBOOKS, ids=_id)
def test_lesson_runs_as_shipped_and_its_checked_values_are_unchanged(rerun, path):
    committed = nbformat.read(path, as_version=4)
    fresh = rerun[path.name]
    # the published() checks raise inside the notebook if a value leaves its tolerance;
    # here the printed comparisons must equal the committed ones, digit for digit
    assert learn.checked_outputs(fresh) == learn.checked_outputs(committed)
    assert all("AGREES" in text and "DISAGREES" not in text
               for text in learn.checked_outputs(fresh) if "published" not in text)
    n_figures = [sum("image/png" in o.get("data", {}) or "data:image/png" in str(
        o.get("data", {}).get("text/html", "")) for c in nb.cells if c.cell_type == "code"
        for o in c.outputs) for nb in (committed, fresh)]
    assert n_figures[0] == n_figures[1] > 0


def test_lesson_rule_refuses_paths_outside_the_repository(tmp_path):
    from hydrocalc.report.notebook_rules import _outside_references

    root = tmp_path / "repo"
    folder = root / "notebooks" / "learn"
    src = 'a = "../../../elsewhere/x.csv"; b = "/etc/passwd"; c = "../../design_storms/p.toml"'
    assert _outside_references(src, folder, root) == ['"/e', "../../../elsewhere/x.csv"]
