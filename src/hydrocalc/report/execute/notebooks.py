"""The section notebooks and their parameters: find, check, parameterize, execute.

:func:`notebook_dir` is the shipped notebooks' folder; :func:`notebook_parameters` the
parameters a report run injects into a section's notebook, which
:func:`check_notebook_parameters` compares with the notebook's own; parameters are injected
as literals only (:func:`parameterize_safely`); :func:`execute_notebook` runs one with
Papermill and turns a failure into a :class:`~hydrocalc.errors.ReportError`.

Part of :mod:`hydrocalc.report.execute`; every name is importable from there.
"""

from __future__ import annotations

import ast
import copy
import os
import pathlib
from collections.abc import Sequence
from importlib.resources import files

from hydrocalc.errors import ReportError
from hydrocalc.report import sections as S
from hydrocalc.report.execute.kernels import (
    _KERNEL_ARGS,
    ENGINE_NAME,
    KERNEL_NAME,
    _register_engine,
)


# --------------------------------------------------------------------------------------
# notebooks and their parameters
# --------------------------------------------------------------------------------------
def notebook_dir() -> pathlib.Path:
    """The section notebooks: ``hydrocalc/report/notebooks/`` inside the package.

    This is the only copy in the repository (``notebooks/README.md`` points there); it is
    package data, so editable installs, a source checkout on ``PYTHONPATH`` and wheels all
    find it at the same place.
    """
    return pathlib.Path(str(files("hydrocalc.report").joinpath("notebooks")))


def check_notebook_parameters(path: str | os.PathLike, key: str) -> None:
    """Refuse a notebook whose ``parameters`` cell differs from what section ``key`` receives.

    See :func:`notebook_parameters`.

    Raises
    ------
    ReportError
        Naming the missing and unexpected parameters.
    """
    import papermill

    declared = set(papermill.inspect_notebook(str(path)))
    expected = set(notebook_parameters(key, site_file="", out_dir="", sections=[]))
    if declared != expected:
        missing = ", ".join(sorted(expected - declared)) or "none"
        extra = ", ".join(sorted(declared - expected)) or "none"
        raise ReportError(
            f"notebook {pathlib.Path(path).name} parameters must be "
            f"{', '.join(sorted(expected))} (section {key!r}); missing: {missing}; "
            f"unexpected: {extra}. Update the notebook's parameters cell.")


def parameterize_safely(nb, parameters: dict, *, kernel_name: str = KERNEL_NAME):
    """Inject ``parameters`` with Papermill and prove the injected cell holds only literals.

    The injected cell is parsed back: it must be a sequence of ``name = <literal>``
    assignments whose values equal the parameters passed. A site name or path holding
    quotes, newlines or code therefore reaches the kernel as a string, never as code.

    Raises
    ------
    ReportError
        If the injected cell is anything else.
    """
    from papermill.parameterize import parameterize_notebook

    for name, value in parameters.items():
        if not isinstance(value, (str, int, float, bool, list, type(None))):
            raise ReportError(f"notebook parameter {name} must be a str, number, bool, list "
                              f"or None; got {type(value).__name__}")
    import papermill

    nb = copy.deepcopy(nb)
    nb.metadata.setdefault("papermill", {"default_parameters": {}, "parameters": {},
                                         "environment_variables": {},
                                         "version": papermill.__version__})
    for cell in nb.cells:
        cell.metadata.setdefault("tags", [])
    # every report notebook runs in a Python kernel (a notebook saved without language
    # metadata, as some editors write it, is Python too)
    nb = parameterize_notebook(nb, parameters, report_mode=True, kernel_name=kernel_name,
                               language="python")
    cells = [c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", [])]
    if len(cells) != 1:
        raise ReportError("papermill did not inject exactly one parameters cell")
    try:
        tree = ast.parse(cells[0].source)
    except SyntaxError as exc:
        raise ReportError(f"injected parameters do not parse: {exc}") from None
    seen = {}
    for stmt in tree.body:
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)):
            raise ReportError("injected parameters cell holds a statement that is not a "
                              f"plain assignment: {ast.dump(stmt)[:80]}")
        try:
            seen[stmt.targets[0].id] = ast.literal_eval(stmt.value)
        except ValueError:
            raise ReportError(f"injected parameter {stmt.targets[0].id} is not a literal"
                              ) from None
    if seen != parameters:
        raise ReportError("injected parameters differ from the values passed; refusing to run")
    return nb


def execute_notebook(source: str | os.PathLike, output: pathlib.Path, parameters: dict, *,
                     cwd: pathlib.Path, section: str, display_path: str | None = None,
                     timeout_s: float = 900.0, km=None, kc=None,
                     timeout_hint: str = "", notebook: str | None = None) -> None:
    """Parameterize and execute one notebook with Papermill in a kernel working in ``cwd``.

    With ``km`` (a started :class:`jupyter_client.KernelManager`) the notebook runs in that
    kernel after its namespace is reset (:data:`ENGINE_NAME` engine), through ``kc`` (a
    connected client of that kernel, e.g. :meth:`KernelPool.client`) when given; otherwise
    Papermill starts a fresh kernel for it. The whole notebook must finish within
    ``timeout_s`` seconds: past it, the kernel is interrupted (``km``) and each cell is
    limited to the same time.

    Raises
    ------
    ReportError
        One line wrapping Papermill's execution error: the section, the cell (index in the
        executed notebook and its first line), the exception, and the executed notebook's
        path; or the time limit exceeded (``timeout_hint`` says how to raise it). A
        ``notebook`` of the engineer's own is named beside the section key.
    """
    import threading

    import nbformat
    import papermill
    from jupyter_core.utils import run_sync
    from papermill.exceptions import PapermillExecutionError

    nb = nbformat.read(str(source), as_version=4)
    nb = parameterize_safely(nb, parameters)
    output.parent.mkdir(parents=True, exist_ok=True)
    shown = display_path or str(output)
    engine = {}
    if km is not None:
        _register_engine()
        engine = {"engine_name": ENGINE_NAME, "km": km, "kc": kc}
    expired = threading.Event()

    def interrupt() -> None:
        expired.set()
        try:
            run_sync(km.interrupt_kernel)()
        except Exception:  # noqa: BLE001 - the per-cell limit still applies
            pass

    watchdog = threading.Timer(timeout_s, interrupt) if km is not None else None
    named = f"section '{section}'" + (f" (notebook {notebook})" if notebook else "")
    too_long = (f"{named} took longer than the report's per-notebook time "
                f"limit of {timeout_s:g} s{timeout_hint}; the executed notebook is kept in "
                f"{shown}")
    try:
        if watchdog is not None:
            watchdog.daemon = True
            watchdog.start()
        done = papermill.execute_notebook(
            nb, str(output), parameters=None, kernel_name=KERNEL_NAME,
            request_save_on_cell_execute=False, progress_bar=False, report_mode=True,
            start_timeout=120,
            execution_timeout=timeout_s, extra_arguments=list(_KERNEL_ARGS),
            resources={"metadata": {"path": str(cwd)}}, **engine)
    except PapermillExecutionError as exc:
        if expired.is_set():
            raise ReportError(too_long) from None
        first = next((ln for ln in str(exc.source).splitlines() if ln.strip()), "")
        evalue = " ".join(str(exc.evalue).split())
        raise ReportError(
            f"{named} failed in cell {exc.cell_index} (In [{exc.exec_count}]: "
            f"{first.strip()!r}): {exc.ename}: {evalue}; the executed notebook is kept in "
            f"{shown}") from exc
    except Exception as exc:  # kernel died, cell timeout, kernel could not start
        if expired.is_set() or "timed out" in str(exc).lower():
            raise ReportError(too_long) from None
        text = " ".join(str(exc).split())
        raise ReportError(f"{named} could not be executed: "
                          f"{type(exc).__name__}: {text}; the executed notebook is kept in "
                          f"{shown}") from exc
    finally:
        if watchdog is not None:
            watchdog.cancel()
    # Papermill records absolute staging paths; keep the executed notebook relocatable.
    meta = done.metadata.get("papermill", {})
    meta["input_path"] = relocatable_source(source, cwd)
    meta["output_path"] = output.relative_to(cwd).as_posix()
    nbformat.write(done, str(output))


def relocatable_source(source: str | os.PathLike, cwd: pathlib.Path) -> str:
    """A notebook's source as recorded in its executed copy, never an absolute path.

    A notebook inside the report folder (a custom section's copy in ``inputs/``) by its path
    there; a shipped one as ``hydrocalc/report/notebooks/<name>``.
    """
    path = pathlib.Path(source)
    try:
        return path.resolve().relative_to(cwd.resolve()).as_posix()
    except ValueError:
        return f"hydrocalc/report/notebooks/{path.name}"


def notebook_parameters(key: str, *, site_file: str, out_dir: str,
                        sections: Sequence[str]) -> dict:
    """The parameters a section notebook receives.

    ``site_file``, ``out_dir`` and the section's fixed ones (``scenario``, ``section_keys``).
    """
    params = S.section_parameters(key, site_file=site_file, out_dir=out_dir,
                                  sections=list(sections))
    out = {"site_file": params.pop("site_file")}
    out.update(params)
    return out
