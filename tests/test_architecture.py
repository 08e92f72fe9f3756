"""The layers of docs/architecture.md, checked: no import circle, no private name across packages.

The module graph is built from every import statement of ``src/hydrocalc`` (imports inside
functions included) by grimp, the engine of import-linter; the layer contract itself is
``[tool.importlinter]`` in ``pyproject.toml`` (run by ``lint-imports`` in CI, and below).
"""

from __future__ import annotations

import ast
import pathlib
import shutil
import subprocess
import sys

import pytest

grimp = pytest.importorskip("grimp")

ROOT = pathlib.Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "hydrocalc"


def _module_name(path: pathlib.Path) -> str:
    parts = list(path.relative_to(SRC.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _modules() -> dict[str, pathlib.Path]:
    return {_module_name(p): p for p in SRC.rglob("*.py")}


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(edges.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def test_no_import_circle_between_modules():
    graph = grimp.build_graph("hydrocalc", include_external_packages=False)
    edges = {m: set(graph.find_modules_directly_imported_by(m)) for m in graph.modules}
    assert _cycles(edges) == []


def test_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def _owner_package(defining_module: str, modules: dict[str, pathlib.Path]) -> str:
    """The package inside which a private name of ``defining_module`` may be used."""
    if modules.get(defining_module, pathlib.Path()).name == "__init__.py":
        return defining_module
    parent = defining_module.rpartition(".")[0]
    # a private name of a module at the top of hydrocalc stays in that module
    return defining_module if parent == "hydrocalc" else parent


def _inside(importer: str, package: str) -> bool:
    return importer == package or importer.startswith(package + ".")


def private_imports() -> list[str]:
    """Every underscore name (or underscore module) used outside the package that owns it."""
    modules = _modules()
    found = []
    for importer, path in sorted(modules.items()):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        bound: dict[str, str] = {}  # local name -> hydrocalc module it stands for
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.name.startswith("hydrocalc") and alias.asname:
                        bound[alias.asname] = alias.name
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hydrocalc"):
                for alias in node.names:
                    name, full = alias.name, f"{node.module}.{alias.name}"
                    if full in modules:
                        bound[alias.asname or name] = full
                        defining = full.rpartition(".")[0]
                        is_private = name.startswith("_") and not name.startswith("__")
                        owner = _owner_package(defining, modules) if defining != "hydrocalc" \
                            else "hydrocalc"
                    else:
                        defining = node.module
                        is_private = name.startswith("_") and not name.startswith("__")
                        owner = _owner_package(defining, modules)
                    if is_private and not _inside(importer, owner):
                        found.append(f"{importer} imports {name} from {node.module} "
                                     f"(line {node.lineno})")
        for node in ast.walk(tree):
            if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                    and node.value.id in bound and node.attr.startswith("_")
                    and not node.attr.startswith("__")):
                owner = _owner_package(bound[node.value.id], modules)
                if not _inside(importer, owner):
                    found.append(f"{importer} uses {bound[node.value.id]}.{node.attr} "
                                 f"(line {node.lineno})")
    return found


def test_no_private_name_used_across_packages():
    assert private_imports() == []


def test_init_files_reexport_public_names_only():
    bad = []
    for path in SRC.rglob("__init__.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("hydrocalc"):
                bad += [f"{_module_name(path)}: {a.name}" for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")
                        and f"{node.module}.{a.name}" not in _modules()]
    assert bad == []


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("lint-imports") is None
                    and not (pathlib.Path(sys.executable).parent / "lint-imports").exists(),
                    reason="import-linter is not installed (pip install import-linter)")
def test_layer_contract_holds():
    exe = shutil.which("lint-imports") or str(pathlib.Path(sys.executable).parent / "lint-imports")
    run = subprocess.run([exe, "--no-cache"], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]


@pytest.mark.slow
def test_every_module_imports_alone_in_a_fresh_interpreter():
    # grimp's graph has no edge for the package __init__ that Python runs before a submodule;
    # importing each module first in its own interpreter finds such hidden circles.
    from concurrent.futures import ThreadPoolExecutor

    names = sorted(m for m in _modules() if m != "hydrocalc.__main__")

    def run(name):
        proc = subprocess.run([sys.executable, "-W", "ignore", "-c", f"import {name}"],
                              capture_output=True, text=True)
        return name, proc.returncode, proc.stderr.strip().splitlines()[-1:]

    with ThreadPoolExecutor(4) as pool:
        failed = [r for r in pool.map(run, names) if r[1]]
    assert failed == []


def test_moved_modules_answer_to_their_old_names_with_a_warning():
    import importlib
    import warnings

    import hydrocalc
    from hydrocalc import _compat

    for old, new in _compat.MOVED_MODULES.items():
        sys.modules.pop(old, None)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            module = importlib.import_module(old)
        assert module is importlib.import_module(new), old
        assert module.__name__ == new and module.__spec__.name == new
        assert any(issubclass(w.category, DeprecationWarning) and new in str(w.message)
                   for w in caught), old
    with pytest.warns(DeprecationWarning, match="hydrocalc.hydraulics.routing"):
        from hydrocalc.routing.reservoir import route_reservoir  # noqa: F401
    assert hydrocalc.culvert is importlib.import_module("hydrocalc.hydraulics.outlets.culvert")
    assert _compat.new_name("hydrocalc.sweep_summary") is None


@pytest.mark.slow
def test_import_hydrocalc_and_the_cli_do_not_import_pydantic():
    # the declared models (pydantic) are imported by the input-file loaders only, when a file
    # is read: `import hydrocalc`, `hydrocalc --help` and `hydrocalc schema` stay fast
    code = ("import sys, hydrocalc, hydrocalc.cli, hydrocalc.commands.schema; "
            "print([m for m in sys.modules if m.split('.')[0] == 'pydantic'][:3])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
