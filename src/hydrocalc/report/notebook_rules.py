"""The thin-notebook rules (STYLE 2.10) and the lesson rules, checked with :mod:`ast`.

A report notebook only presents what one call into ``hydrocalc.report`` returns.
Lessons (``notebooks/learn/``) are the one exception: they show the arithmetic step by
step before calling the package, so they follow :func:`lesson_problems` instead (listed
at the end of this docstring). :func:`notebook_problems` lists every way a notebook breaks
that contract:

- a code cell that does not parse (IPython magics and shell escapes do not);
- ``def``, ``class`` or ``lambda``; arithmetic (``BinOp``, ``AugAssign``, unary operators
  other than the sign of a number literal); control flow (``if``, ``for``, ``while``,
  ``try``, ``with``, comprehensions, ``assert``, ``del``, ``global``);
- an import from anything but ``hydrocalc`` and ``IPython``;
- a name that is neither a parameter, an imported name nor assigned in an earlier cell
  (so no builtins: ``open``, ``exec``, ``eval``, ``print``...);
- not exactly one call of a ``hydrocalc.report`` function;
- a code cell longer than 12 lines;
- a ``parameters`` cell that is missing, not the first code cell, or holds anything but
  typed, commented literal assignments (``site_file: str = "x"  # what it is``);
- saved outputs or execution counts (notebooks are committed without outputs);
- with ``markdown_numbers=False``, any digit in a Markdown cell (report notebooks' text
  must take every number from the computation).

:func:`lesson_problems` lists what a lesson must and must not do: every code cell parses
(no magics or shell escapes); imports only hydrocalc, numpy, pandas, matplotlib, datetime
and IPython; no file writes or ``open``/``exec``/``eval``; committed *with* outputs (every
code cell executed, in order, no error output, at least one figure); a Markdown cell
naming its sources; for a lesson (``NN_*.ipynb``) at least one :func:`published` check of
a worked example (or :func:`agrees` with a published equation or exact solution) and at
least two exercises with a :func:`check` cell; no reference to
folders outside the repository; a size budget so the repository stays light.
"""

from __future__ import annotations

import ast
import io
import os
import pathlib
import re
import tokenize

import nbformat

__all__ = [
    "MAX_CELL_LINES",
    "MAX_LESSON_KB",
    "called_function",
    "lesson_problems",
    "notebook_problems",
    "parameters_of",
]

MAX_CELL_LINES = 12
_ALLOWED_IMPORTS = ("hydrocalc", "IPython")
_PARAM_TYPES = {"str", "int", "float", "bool", "list"}
_FORBIDDEN = {
    ast.FunctionDef: "def", ast.AsyncFunctionDef: "async def", ast.ClassDef: "class",
    ast.Lambda: "lambda", ast.BinOp: "arithmetic", ast.AugAssign: "arithmetic (augmented "
    "assignment)", ast.BoolOp: "boolean logic", ast.Compare: "comparison", ast.IfExp:
    "conditional expression", ast.If: "if", ast.For: "for loop", ast.AsyncFor: "for loop",
    ast.While: "while loop", ast.Try: "try", ast.With: "with", ast.AsyncWith: "with",
    ast.ListComp: "comprehension", ast.SetComp: "comprehension", ast.DictComp:
    "comprehension", ast.GeneratorExp: "comprehension", ast.Assert: "assert", ast.Delete:
    "del", ast.Global: "global", ast.Nonlocal: "nonlocal", ast.Await: "await", ast.Yield:
    "yield", ast.YieldFrom: "yield", ast.Raise: "raise", ast.NamedExpr: "walrus assignment",
    ast.Starred: "star expression", ast.Subscript: "subscript", ast.JoinedStr: "f-string",
}


def _source(cell) -> str:
    src = cell.get("source", "")
    return src if isinstance(src, str) else "".join(src)


def _comments_by_line(src: str) -> dict[int, str]:
    out = {}
    try:
        for tok in tokenize.generate_tokens(io.StringIO(src).readline):
            if tok.type == tokenize.COMMENT:
                out[tok.start[0]] = tok.string
    except (tokenize.TokenError, IndentationError):
        pass
    return out


def _check_parameters_cell(src: str, where: str) -> tuple[list[str], set[str]]:
    problems: list[str] = []
    names: set[str] = set()
    try:
        tree = ast.parse(src)
    except SyntaxError as exc:
        return [f"{where}: does not parse ({exc.msg})"], names
    comments = _comments_by_line(src)
    for stmt in tree.body:
        line = f"{where} line {stmt.lineno}"
        if not (isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name)
                and stmt.value is not None):
            problems.append(f"{line}: parameters must be typed assignments "
                            "(name: type = value  # comment)")
            continue
        names.add(stmt.target.id)
        ann = stmt.annotation
        ann_name = ann.id if isinstance(ann, ast.Name) else (
            ann.value.id if isinstance(ann, ast.Subscript) and isinstance(ann.value, ast.Name)
            else None)
        if ann_name not in _PARAM_TYPES:
            problems.append(f"{line}: parameter {stmt.target.id} type must be one of "
                            f"{', '.join(sorted(_PARAM_TYPES))}")
        try:
            ast.literal_eval(stmt.value)
        except ValueError:
            problems.append(f"{line}: parameter {stmt.target.id} default must be a literal")
        if stmt.lineno not in comments or len(comments[stmt.lineno].strip("# ")) < 3:
            problems.append(f"{line}: parameter {stmt.target.id} needs a trailing comment "
                            "saying what it is (and its unit)")
    return problems, names


def parameters_of(nb) -> list[str]:
    """Names assigned in the notebook's ``parameters`` cell (in order)."""
    for cell in nb.cells:
        if cell.cell_type == "code" and "parameters" in cell.metadata.get("tags", []):
            try:
                tree = ast.parse(_source(cell))
            except SyntaxError:
                return []
            return [s.target.id for s in tree.body
                    if isinstance(s, (ast.AnnAssign,)) and isinstance(s.target, ast.Name)]
    return []


def called_function(nb) -> tuple[str, str] | None:
    """``(module, function)`` of the notebook's call into ``hydrocalc.report``, if unique."""
    modules: dict[str, str] = {}
    calls = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(_source(cell))
        except SyntaxError:
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
                    "hydrocalc.report"):
                for alias in node.names:
                    modules[alias.asname or alias.name] = f"{node.module}.{alias.name}"
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    isinstance(node.func.value, ast.Name) and node.func.value.id in modules:
                calls.append((modules[node.func.value.id], node.func.attr))
    return calls[0] if len(calls) == 1 else None


def _import_problems(node, where: str, defined: set[str], report_modules: set[str]) -> list[str]:
    """Problems of an import node; records the names it defines (and report modules)."""
    problems = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            if alias.name.split(".")[0] not in _ALLOWED_IMPORTS:
                problems.append(f"{where} line {node.lineno}: import {alias.name}; "
                                "only hydrocalc and IPython may be imported")
            defined.add((alias.asname or alias.name).split(".")[0])
    if isinstance(node, ast.ImportFrom):
        module = node.module or ""
        if node.level or module.split(".")[0] not in _ALLOWED_IMPORTS:
            problems.append(f"{where} line {node.lineno}: from {module} import ...; "
                            "only hydrocalc and IPython may be imported")
        for alias in node.names:
            if alias.name == "*":
                problems.append(f"{where} line {node.lineno}: star imports are not "
                                "allowed")
            defined.add(alias.asname or alias.name)
            if module.startswith("hydrocalc.report"):
                report_modules.add(alias.asname or alias.name)
    return problems


def _code_problems(tree, where: str, defined: set[str],
                   report_modules: set[str]) -> tuple[list[str], int]:
    """Problems of one presentation cell's code, and its calls into hydrocalc.report.

    Adds the cell's imports and assigned names to ``defined`` (and its report imports to
    ``report_modules``) for the cells after it.
    """
    problems: list[str] = []
    report_calls = 0
    assigned_here: set[str] = set()
    for node in ast.walk(tree):
        kind = _FORBIDDEN.get(type(node))
        if kind:
            problems.append(f"{where} line {getattr(node, 'lineno', '?')}: {kind} is not "
                            "allowed; notebooks only present")
        if isinstance(node, ast.UnaryOp) and not (
                isinstance(node.op, (ast.USub, ast.UAdd))
                and isinstance(node.operand, ast.Constant)
                and isinstance(node.operand.value, (int, float))):
            problems.append(f"{where} line {node.lineno}: unary operator is not allowed")
        problems.extend(_import_problems(node, where, defined, report_modules))
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned_here.add(target.id)
                else:
                    problems.append(f"{where} line {node.lineno}: only plain names may be "
                                    "assigned")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                isinstance(node.func.value, ast.Name) and \
                node.func.value.id in report_modules:
            report_calls += 1
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and \
                node.id not in defined:
            problems.append(f"{where} line {node.lineno}: name {node.id!r} is not a "
                            "parameter, an import or an earlier result")
    defined |= assigned_here
    return problems, report_calls


def _papermill_problems(path: str | os.PathLike, nb, name: str) -> list[str]:
    """Parameters that papermill cannot read from the notebook."""
    import papermill

    problems = []
    try:
        found = set(papermill.inspect_notebook(os.fspath(path)))
    except Exception as exc:  # noqa: BLE001 - any papermill failure is a problem to list
        problems.append(f"{name}: papermill cannot read the notebook's parameters "
                        f"({exc}); set its kernelspec to python3")
        found = set(parameters_of(nb))
    for missing in sorted(set(parameters_of(nb)) - found):
        problems.append(f"{name}: papermill cannot read parameter {missing!r} (an '=' in "
                        "its comment confuses papermill's parser); reword the comment")
    return problems


def notebook_problems(path: str | os.PathLike, *, markdown_numbers: bool = True) -> list[str]:
    """Every thin-notebook rule the notebook at ``path`` breaks (empty list: it complies)."""
    nb = nbformat.read(os.fspath(path), as_version=4)
    name = os.path.basename(os.fspath(path))
    problems: list[str] = []
    defined: set[str] = set()
    report_modules: set[str] = set()
    report_calls = 0
    first_code = True
    saw_parameters = False
    for index, cell in enumerate(nb.cells):
        where = f"{name} cell {index}"
        src = _source(cell)
        if cell.cell_type == "markdown":
            if not markdown_numbers and any(ch.isdigit() for ch in src):
                problems.append(f"{where}: Markdown must not hold hand-typed numbers; "
                                "put numbers in the section's narrative")
            continue
        if cell.cell_type != "code":
            continue
        if cell.get("outputs"):
            problems.append(f"{where}: has saved outputs; commit notebooks without outputs")
        if cell.get("execution_count") is not None:
            problems.append(f"{where}: has an execution count; clear it before committing")
        tags = cell.metadata.get("tags", [])
        if "parameters" in tags:
            if not first_code:
                problems.append(f"{where}: the parameters cell must be the first code cell")
            saw_parameters = True
            more, names = _check_parameters_cell(src, where)
            problems.extend(more)
            defined |= names
            first_code = False
            continue
        if first_code:
            problems.append(f"{where}: the first code cell must be the parameters cell "
                            "(tagged 'parameters')")
        first_code = False
        lines = [ln for ln in src.splitlines() if ln.strip()]
        if len(lines) > MAX_CELL_LINES:
            problems.append(f"{where}: {len(lines)} lines; at most {MAX_CELL_LINES} per cell")
        try:
            tree = ast.parse(src)
        except SyntaxError as exc:
            problems.append(f"{where}: does not parse as Python ({exc.msg}); magics and "
                            "shell escapes are not allowed")
            continue
        more, calls = _code_problems(tree, where, defined, report_modules)
        problems.extend(more)
        report_calls += calls
    if not saw_parameters:
        problems.append(f"{name}: no cell tagged 'parameters'")
    else:
        problems.extend(_papermill_problems(path, nb, name))
    if report_calls != 1:
        problems.append(f"{name}: must make exactly one call into hydrocalc.report; "
                        f"makes {report_calls}")
    return problems


# -- lessons -------------------------------------------------------------------------------
#: Largest committed lesson notebook (outputs and figures included). [KiB]
MAX_LESSON_KB = 250
_LESSON_IMPORTS = ("hydrocalc", "numpy", "pandas", "matplotlib", "datetime", "IPython")
_LESSON_FORBIDDEN_NAMES = {"open", "exec", "eval", "compile", "__import__", "input"}
#: A quoted absolute path (POSIX or a Windows drive) in a lesson cell.
_ABSOLUTE_PATH = re.compile(r"""["'](?:/[A-Za-z_]|[A-Za-z]:[\\/])""")
#: A relative path that climbs out of the notebook's folder.
_PARENT_PATH = re.compile(r"(?:\.\./)+[\w./-]*")


def _outside_references(src: str, folder: pathlib.Path, root: pathlib.Path) -> list[str]:
    """Paths in ``src`` that are absolute or resolve outside the repository ``root``."""
    found = [m.group(0) for m in _ABSOLUTE_PATH.finditer(src)]
    for m in _PARENT_PATH.finditer(src):
        target = (folder / m.group(0)).resolve()
        if target != root and root not in target.parents:
            found.append(m.group(0))
    return found


def lesson_problems(path: str | os.PathLike) -> list[str]:
    """Every lesson rule the notebook at ``path`` breaks (empty list: it complies)."""
    path = os.fspath(path)
    nb = nbformat.read(path, as_version=4)
    name = os.path.basename(path)
    is_lesson = name[:2].isdigit()
    folder = pathlib.Path(path).resolve().parent
    root = folder.parent.parent  # notebooks/learn/<lesson> -> the repository
    problems: list[str] = []
    size_kb = os.path.getsize(path) / 1024
    if size_kb > MAX_LESSON_KB:
        problems.append(f"{name}: {size_kb:.0f} KiB; at most {MAX_LESSON_KB} KiB (figures at "
                        "modest dpi)")
    counts, pngs, published, checks = [], 0, 0, 0
    markdown = "".join(_source(c) for c in nb.cells if c.cell_type == "markdown")
    if "Source" not in markdown:
        problems.append(f"{name}: no Markdown cell names its sources ('Sources.')")
    for index, cell in enumerate(nb.cells):
        where = f"{name} cell {index}"
        src = _source(cell)
        for bad in _outside_references(src, folder, root):
            problems.append(f"{where}: refers to {bad!r}, outside the repository")
        if cell.cell_type != "code":
            continue
        try:
            tree = ast.parse(src)
        except SyntaxError as exc:
            problems.append(f"{where}: does not parse as Python ({exc.msg})")
            continue
        for node in ast.walk(tree):
            if isinstance(node, ast.Import | ast.ImportFrom):
                mods = ([a.name for a in node.names] if isinstance(node, ast.Import)
                        else [node.module or ""])
                for mod in mods:
                    if mod.split(".")[0] not in _LESSON_IMPORTS:
                        problems.append(f"{where} line {node.lineno}: import {mod}; lessons "
                                        f"import only {', '.join(_LESSON_IMPORTS)}")
            if isinstance(node, ast.Name) and node.id in _LESSON_FORBIDDEN_NAMES:
                problems.append(f"{where} line {node.lineno}: {node.id} is not allowed")
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                published += node.func.id in ("published", "agrees")
                checks += node.func.id == "check"
        counts.append(cell.get("execution_count"))
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                problems.append(f"{where}: saved output is an error ({out.get('ename')})")
            data = out.get("data", {})
            pngs += "image/png" in data or "data:image/png" in str(data.get("text/html", ""))
    if counts and (None in counts or counts != sorted(counts) or len(set(counts)) != len(counts)):
        problems.append(f"{name}: not executed top to bottom before committing (execution "
                        "counts missing or out of order); run python -m hydrocalc.course.learn")
    if not pngs:
        problems.append(f"{name}: no figure among the saved outputs")
    if is_lesson and not published:
        problems.append(f"{name}: no published(...) or agrees(...) check of a worked example")
    if is_lesson and checks < 2:
        problems.append(f"{name}: {checks} exercise check(...) cells; at least 2")
    return problems
