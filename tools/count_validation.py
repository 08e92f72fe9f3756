"""Count the code lines of the hand-written validation of the input files.

    .venv/bin/python tools/count_validation.py            # per module, then the total
    .venv/bin/python tools/count_validation.py --functions  # also each function counted

What counts (the rule, applied to the source as it is, so the count is reproducible):

* A **code line** is a line holding a Python token other than a comment: blank lines,
  comment lines and docstrings (the first string of a module, class or function) are not
  counted. A statement over three lines counts three.
* **Whole modules**: the problem collector and its typed getters (``site/problems.py``,
  ``site/project/collector.py``) and the table-to-message translator of the declared models
  (``schema_errors.py``, when it exists).
* **The TOML key -> line scanner** of ``input_file.py`` (from its ``# key -> line scanner``
  marker to the end of the module): it was part of ``site/problems.py`` and moved to the
  foundation so the pond and sweep files name their lines too; it stays counted.
* **Named functions**: the message formatters of ``_validate.py`` (``number_problem``,
  ``text_problem``, ``suggest``, ``check_choice``, ``capped``, ``control_char``,
  ``excerpt``, ``_short_repr``).
* **Loader functions**: in the loader modules (``site/*.py`` but ``schema.py``,
  ``site/project/*.py``, ``batch/sweep/{parse,fields,overrides}.py``,
  ``hydraulics/pond_file.py``, ``criteria/{practices,state_permit}.py``), every top-level
  function or method that records a problem: it calls a collector method (``P.add``,
  ``P.number``, ``col.text``, ...; receivers ``P``, ``col``, ``c``), appends to a list named
  ``problems`` (or ``col.problems``), or calls ``number_problem``, ``text_problem``,
  ``suggest`` or ``field_errors`` (the glue of a model's errors to a loader counts too;
  ``check_choice`` alone marks an API argument check, not a loader). The
  whole function counts, cross-field and physical rules included: they are hand-written
  validation too, and they stay.
* **Model validators**: any function decorated with pydantic's ``field_validator`` /
  ``model_validator`` (or ``AfterValidator``/``BeforeValidator``/``PlainValidator``
  callables) in the schema modules counts as hand-written validation. Declarative constraints
  (``Field(ge=...)``, ``Literal[...]``, ``json_schema_extra`` wording) do not.
"""

from __future__ import annotations

import ast
import io
import pathlib
import sys
import tokenize

ROOT = pathlib.Path(__file__).resolve().parents[1]
PKG = ROOT / "src" / "hydrocalc"

WHOLE = ("site/problems.py", "site/project/collector.py", "schema_errors.py")
#: Modules counted from a marker line to their end.
FROM_MARKER = {"input_file.py": "# key -> line scanner"}
FORMATTERS = {"_validate.py": ("number_problem", "text_problem", "suggest", "check_choice",
                               "capped", "control_char", "excerpt", "_short_repr")}
LOADERS = ("site/*.py", "site/project/*.py", "batch/sweep/parse.py", "batch/sweep/fields.py",
           "batch/sweep/overrides.py", "hydraulics/pond_file.py", "criteria/practices.py",
           "criteria/state_permit.py")
SCHEMAS = ("schema.py", "site/schema.py", "batch/sweep/schema.py", "hydraulics/pond_schema.py")
EXCLUDED = ("site/schema.py",)

_COLLECTOR_RECEIVERS = {"P", "col", "c"}
_COLLECTOR_METHODS = {"add", "raw", "number", "check_number", "text", "choice", "boolean", "date",
                      "area_ac", "table", "tables", "numbers", "unknown_keys"}
_FORMATTER_CALLS = {"number_problem", "text_problem", "suggest", "_number_list", "field_errors"}
_VALIDATOR_DECORATORS = {"field_validator", "model_validator"}
_VALIDATOR_WRAPPERS = {"AfterValidator", "BeforeValidator", "PlainValidator", "WrapValidator"}


def code_lines(source: str) -> set[int]:
    """Line numbers of ``source`` that hold code (no blanks, comments or docstrings)."""
    lines: set[int] = set()
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
            tokenize.ENDMARKER, tokenize.ENCODING}
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type not in skip:
            lines.update(range(tok.start[0], tok.end[0] + 1))
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                lines -= set(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    return lines


def _records_problem(fn: ast.AST) -> bool:
    for node in ast.walk(fn):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        if isinstance(f, ast.Name) and f.id in _FORMATTER_CALLS:
            return True
        if isinstance(f, ast.Attribute):
            recv = f.value
            if (isinstance(recv, ast.Name) and recv.id in _COLLECTOR_RECEIVERS
                    and f.attr in _COLLECTOR_METHODS):
                return True
            if f.attr == "append" and (
                    (isinstance(recv, ast.Name) and recv.id == "problems")
                    or (isinstance(recv, ast.Attribute) and recv.attr == "problems")):
                return True
    return False


def _is_validator(fn: ast.FunctionDef | ast.AsyncFunctionDef, wrapped: set[str]) -> bool:
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
        if name in _VALIDATOR_DECORATORS:
            return True
    return fn.name in wrapped


def _units(tree: ast.Module):
    """Top-level functions and the methods of top-level classes, with their qualified name."""
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node.name, node
        elif isinstance(node, ast.ClassDef):
            for sub in node.body:
                if isinstance(sub, ast.FunctionDef | ast.AsyncFunctionDef):
                    yield f"{node.name}.{sub.name}", sub


def _span(node: ast.AST) -> set[int]:
    first = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return set(range(first, (node.end_lineno or node.lineno) + 1))


def count(pkg: pathlib.Path = PKG) -> dict[str, dict[str, int]]:
    """Counted code lines: ``{module: {unit: lines}}`` (unit ``*`` for a whole module)."""
    out: dict[str, dict[str, int]] = {}

    def add(rel: str, unit: str, n: int) -> None:
        if n:
            out.setdefault(rel, {})[unit] = n

    for rel in WHOLE:
        path = pkg / rel
        if path.is_file():
            add(rel, "*", len(code_lines(path.read_text(encoding="utf-8"))))
    for rel, marker in FROM_MARKER.items():
        path = pkg / rel
        if path.is_file():
            src = path.read_text(encoding="utf-8")
            start = next((i for i, ln in enumerate(src.splitlines(), 1) if marker in ln), None)
            if start is not None:
                add(rel, "scanner", len({n for n in code_lines(src) if n >= start}))
    for rel, names in FORMATTERS.items():
        src = (pkg / rel).read_text(encoding="utf-8")
        lines = code_lines(src)
        for name, node in _units(ast.parse(src)):
            if name in names:
                add(rel, name, len(lines & _span(node)))
    loaders = sorted({p for pat in LOADERS for p in pkg.glob(pat)})
    for path in loaders:
        rel = path.relative_to(pkg).as_posix()
        if rel in WHOLE or rel in EXCLUDED or path.name == "__init__.py":
            continue
        src = path.read_text(encoding="utf-8")
        lines = code_lines(src)
        for name, node in _units(ast.parse(src)):
            if _records_problem(node):
                add(rel, name, len(lines & _span(node)))
    for rel in SCHEMAS:
        src = (pkg / rel).read_text(encoding="utf-8")
        tree = ast.parse(src)
        wrapped = {a.id for n in ast.walk(tree) if isinstance(n, ast.Call)
                   and getattr(n.func, "id", "") in _VALIDATOR_WRAPPERS
                   for a in n.args if isinstance(a, ast.Name)}
        lines = code_lines(src)
        for name, node in _units(tree):
            if _is_validator(node, wrapped):
                add(rel, name, len(lines & _span(node)))
    return out


def main(argv: list[str]) -> int:
    counted = count()
    total = 0
    for rel in sorted(counted):
        n = sum(counted[rel].values())
        total += n
        print(f"{n:6d}  {rel}")
        if "--functions" in argv:
            for unit, k in sorted(counted[rel].items()):
                print(f"{'':8}{k:6d}  {unit}")
    print(f"{total:6d}  total")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
