"""Run the SWPPP hydrology report: compute once, present with notebooks, assemble, swap in.

:func:`run_report` is what ``hydrocalc report`` calls:

1. **Validate first.** The requested sections and formats are checked, every section
   notebook's parameters must be those :func:`notebook_parameters` gives it, and the site
   file is loaded (:func:`hydrocalc.site.load_site` reports every input problem at once).
2. **Stage.** A folder ``.<name>.partial-XXXX`` is made *beside* the target (same file
   system) with a marker file (:data:`STAGING_MARKER`); staging folders of earlier runs that
   were killed are removed first (:func:`clean_stale_staging`). The site file and every input
   file it reads are copied into ``inputs/`` with their SHA-256. A warm kernel starts in the
   background meanwhile.
3. **Compute once.** :func:`hydrocalc.report.build.compute_sections` analyses the site once
   and builds every section (tables, figures, warnings) in this process, the figures drawn
   meanwhile by a forked worker process (``figure_workers``, default 1, see
   :func:`hydrocalc.report.build.figure_pool`; 0 draws them here); as each section's figures
   are done, in report order, its CSV tables, PNG figures and JSON are written and it is
   pickled to ``pickles/<key>.pkl``. A section's JSON names its figures but holds none of
   their pixels, so the content of ``results.json`` and the workbook are made while the
   last figures are being drawn.
4. **Present.** Each section notebook is parameterized (parameters are literals only: the
   injected cell is parsed back and must hold exactly the values passed), with
   ``results_file="pickles/<key>.pkl"``, and executed with Papermill in the warm kernel (its
   namespace reset between notebooks): it unpickles its section, a
   :class:`~hydrocalc.report.view.SectionView` whose heading, narrative, body and warnings
   this process rendered, and displays them (the kernel imports neither pandas nor
   matplotlib and renders nothing).
5. **Assemble.** ``results.json`` (every section's tables at full precision, their SHA-256,
   the inputs' SHA-256, the hydrocalc version, the shipped data tables' hashes, the
   parameters, the SHA-256 of every artefact, and timestamps), ``report.html`` (from the
   executed notebooks), ``report.pdf`` (typst, from the same section results, with the
   inputs and ``results.json`` attached), ``tables.xlsx``.
6. **Swap.** The finished folder replaces the target in two renames. If any section fails,
   the target is left untouched, the staging folder is kept as ``.<name>.failed`` beside it,
   and :class:`~hydrocalc.errors.ReportError` names the section, the cell and the executed
   notebook to open.

Timing: see ``benchmarks/bench_report.py`` (the full report against one empty Papermill
notebook that imports hydrocalc, measured in the same run).
"""

from __future__ import annotations

import ast
import contextlib
import copy
import dataclasses
import datetime as _dt
import hashlib
import inspect
import json
import os
import pathlib
import queue
import shutil
import tempfile
import threading
import time
import uuid
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from importlib.resources import files

from hydrocalc.errors import InputError, ReportError

__all__ = [
    "FORMATS",
    "ReportRun",
    "run_report",
    "notebook_dir",
    "check_notebook_parameters",
    "notebook_parameters",
    "clean_stale_staging",
    "artifact_hashes",
    "STAGING_MARKER",
    "KernelPool",
    "parameterize_safely",
    "execute_notebook",
    "default_report_dir",
    "sha256_file",
    "copy_inputs",
    "results_document",
    "RESULTS_SCHEMA",
]

FORMATS = ("html", "pdf", "xlsx")
RESULTS_SCHEMA = "hydrocalc.report.results/1"
KERNEL_NAME = "python3"
# Kernel options: silence start-up chatter; keep no input history (IPython writes every cell
# and every namespace reset to an SQLite file, about an eighth of the kernel's CPU in a
# report run, for a history nobody reads: the executed notebooks are the record).
_KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL", "--HistoryManager.enabled=False"]


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
    """Refuse a notebook whose ``parameters`` cell differs from what section ``key`` receives
    (see :func:`notebook_parameters`).

    Raises
    ------
    ReportError
        Naming the missing and unexpected parameters.
    """
    import papermill

    declared = set(papermill.inspect_notebook(str(path)))
    expected = set(notebook_parameters(key, site_file="", results_file="", out_dir="",
                                       sections=[]))
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
    nb = parameterize_notebook(nb, parameters, report_mode=True, kernel_name=kernel_name)
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
                     timeout_s: float = 900.0, km=None) -> None:
    """Parameterize and execute one notebook with Papermill in a kernel working in ``cwd``.

    With ``km`` (a started :class:`jupyter_client.KernelManager`) the notebook runs in that
    kernel after its namespace is reset (:data:`ENGINE_NAME` engine); otherwise Papermill
    starts a fresh kernel for it.

    Raises
    ------
    ReportError
        Wrapping Papermill's execution error: the section, the cell (index in the executed
        notebook and its first line), the exception, and the executed notebook's path.
    """
    import nbformat
    import papermill
    from papermill.exceptions import PapermillExecutionError

    nb = nbformat.read(str(source), as_version=4)
    nb = parameterize_safely(nb, parameters)
    output.parent.mkdir(parents=True, exist_ok=True)
    shown = display_path or str(output)
    engine = {}
    if km is not None:
        _register_engine()
        engine = {"engine_name": ENGINE_NAME, "km": km}
    try:
        done = papermill.execute_notebook(
            nb, str(output), parameters=None, kernel_name=KERNEL_NAME,
            request_save_on_cell_execute=False, progress_bar=False, report_mode=True, start_timeout=120,
            execution_timeout=timeout_s, extra_arguments=list(_KERNEL_ARGS),
            resources={"metadata": {"path": str(cwd)}}, **engine)
    except PapermillExecutionError as exc:
        first = next((ln for ln in str(exc.source).splitlines() if ln.strip()), "")
        raise ReportError(
            f"section '{section}' failed in cell {exc.cell_index} (In [{exc.exec_count}]: "
            f"{first.strip()!r}): "
            f"{exc.ename}: {exc.evalue}\nopen the executed notebook: {shown}") from exc
    except Exception as exc:  # kernel died, timeout, kernel could not start
        raise ReportError(f"section '{section}' could not be executed: "
                          f"{type(exc).__name__}: {exc}\nexecuted notebook: {shown}") from exc
    # Papermill records absolute staging paths; keep the executed notebook relocatable.
    meta = done.metadata.get("papermill", {})
    meta["input_path"] = f"hydrocalc/report/notebooks/{pathlib.Path(source).name}"
    meta["output_path"] = output.relative_to(cwd).as_posix()
    nbformat.write(done, str(output))


# --------------------------------------------------------------------------------------
# a papermill engine that reuses a kernel (one per worker) for several notebooks
# --------------------------------------------------------------------------------------
ENGINE_NAME = "hydrocalc-pooled"
# IPython's reset() ends with gc.collect(), which costs ~0.1-0.15 s per notebook in a kernel
# holding pandas and matplotlib; the namespace is cleared the same way without it (the
# objects are freed by reference counting, cycles by the next automatic collection).
_RESET = """\
def _hydrocalc_reset():
    import gc
    collect = gc.collect
    gc.collect = lambda generation=2: 0
    try:
        get_ipython().reset(new_session=True)
    finally:
        gc.collect = collect
_hydrocalc_reset()
"""


def _register_engine() -> None:
    """Register the pooled-kernel engine with papermill (idempotent)."""
    from papermill.clientwrap import PapermillNotebookClient
    from papermill.engines import NBClientEngine, papermill_engines
    from papermill.utils import merge_kwargs, remove_args

    if ENGINE_NAME in papermill_engines._engines:
        return

    class PooledKernelEngine(NBClientEngine):
        """Papermill's nbclient engine, run in a kernel the caller started (``km=``).

        Before each notebook the kernel's user namespace is reset
        (``InteractiveShell.reset``), so no variable crosses from one notebook to the next;
        imported modules stay loaded, which is the point: the imports and the site's
        computation (cached per process by :func:`hydrocalc.report.sections.context`) are
        paid once per kernel instead of once per notebook.
        """

        @classmethod
        def execute_managed_notebook(cls, nb_man, kernel_name, log_output=False,
                                     stdout_file=None, stderr_file=None, start_timeout=60,
                                     execution_timeout=None, km=None, **kwargs):
            if km is None:
                return super().execute_managed_notebook(
                    nb_man, kernel_name, log_output=log_output, stdout_file=stdout_file,
                    stderr_file=stderr_file, start_timeout=start_timeout,
                    execution_timeout=execution_timeout, **kwargs)
            kwargs = remove_args(["input_path", "timeout", "startup_timeout"], **kwargs)
            final = merge_kwargs(kwargs, timeout=execution_timeout,
                                 startup_timeout=start_timeout, kernel_name=kernel_name,
                                 log_output=log_output, stdout_file=stdout_file,
                                 stderr_file=stderr_file)
            client = PapermillNotebookClient(nb_man, km=km, **final)
            client.start_new_kernel_client()
            try:
                reply = client.wait_for_reply(
                    client.kc.execute(_RESET, silent=True, store_history=False))
                if reply is None or reply["content"].get("status") != "ok":
                    raise ReportError("the kernel could not be reset between notebooks")
                return client.execute()
            finally:
                client.kc.stop_channels()

    papermill_engines.register(ENGINE_NAME, PooledKernelEngine)


def close_thread_loop() -> None:
    """Close the event loop jupyter_core made for the calling (worker) thread.

    Left open, it is garbage-collected later, in whatever thread runs then, as a
    ``ResourceWarning: unclosed event loop`` -- which a section being computed meanwhile
    would record as one of its warnings. Never closes the main thread's loop.
    """
    if threading.current_thread() is threading.main_thread():
        return
    import asyncio

    from jupyter_core.utils import ensure_event_loop

    try:
        loop = ensure_event_loop()
        if not loop.is_running():
            loop.close()
        asyncio.set_event_loop(None)
    except Exception:  # noqa: BLE001 - best effort
        pass


def kernel_env() -> dict:
    """The kernel's environment: this process's, with the folder holding the running
    hydrocalc package first on ``PYTHONPATH`` (so the kernel presents with the very code that
    computed the sections, also when this process found it through a relative path)."""
    import hydrocalc

    env = dict(os.environ)
    here = str(pathlib.Path(hydrocalc.__file__).resolve().parents[1])
    rest = [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p]
    rest = [str(pathlib.Path(p).resolve()) for p in rest]
    env["PYTHONPATH"] = os.pathsep.join([here] + [p for p in rest if p != here])
    return env


class KernelPool:
    """Warm kernels (working directory ``cwd``) lent to one notebook at a time.

    :meth:`start_background` starts ``size`` kernels in a background thread and imports
    the report modules in each, so the start-up overlaps the parent's computation;
    :meth:`acquire` waits for a free kernel, :meth:`release` returns it, :meth:`close`
    stops them all.
    """

    # what a notebook presenting a report run's section imports (no pandas, no matplotlib)
    WARM_UP = "import hydrocalc.report.build, hydrocalc.report.view"

    def __init__(self, cwd: pathlib.Path, size: int = 1, *, fresh: bool = False):
        import queue
        import threading

        self.cwd = cwd
        self.size = max(1, int(size))
        self.fresh = fresh
        self._free: queue.Queue = queue.Queue()
        self._managers: list = []
        self._lock = threading.Lock()
        self._thread = None
        self._error: BaseException | None = None
        self._started = False
        self._local = threading.local()

    def _start_one(self):
        from jupyter_client.manager import AsyncKernelManager
        from jupyter_core.utils import run_sync

        km = AsyncKernelManager(kernel_name=KERNEL_NAME)
        run_sync(km.start_kernel)(cwd=str(self.cwd), extra_arguments=list(_KERNEL_ARGS),
                                  env=kernel_env())
        with self._lock:
            self._managers.append(km)
        kc = km.client()
        kc.start_channels()
        try:
            run_sync(kc.wait_for_ready)(timeout=120)
            run_sync(kc.execute_interactive)(self.WARM_UP, silent=True, store_history=False,
                                             timeout=120)
        finally:
            kc.stop_channels()
        return km

    def _start_all(self):
        try:
            for _ in range(self.size):
                self._free.put(self._start_one())
        except BaseException as exc:  # noqa: BLE001 - reported by acquire()
            self._error = exc
            for _ in range(self.size):
                self._free.put(None)
        finally:
            close_thread_loop()

    def start_background(self) -> None:
        import threading

        if not self._started and not self.fresh:
            self._started = True
            self._thread = threading.Thread(target=self._start_all, daemon=True)
            self._thread.start()

    def acquire(self):
        if self.fresh:
            return self._start_one()
        self.start_background()
        km = self._free.get()
        if km is None:
            raise ReportError(f"the report kernel could not be started: "
                              f"{type(self._error).__name__}: {self._error}")
        return km

    def release(self, km) -> None:
        if self.fresh:
            from jupyter_core.utils import run_sync

            run_sync(km.shutdown_kernel)(now=True)
            with self._lock:
                self._managers.remove(km)
            return
        self._free.put(km)

    def get(self):
        """The calling thread's own kernel, started on first use (kept until close())."""
        km = getattr(self._local, "km", None)
        if km is None:
            km = self._start_one()
            self._local.km = km
        return km

    def close(self) -> None:
        from jupyter_core.utils import run_sync

        if self._thread is not None:
            self._thread.join()
        for km in self._managers:
            try:
                run_sync(km.shutdown_kernel)(now=True)
            except Exception:  # noqa: BLE001 - best effort at the end of a run
                pass
        self._managers.clear()


# --------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------
def sha256_file(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def default_report_dir(site_file: str | os.PathLike) -> pathlib.Path:
    """``reports/<name>``: the site file's stem, or its folder's name for ``site.toml``."""
    p = pathlib.Path(site_file).resolve()
    name = p.parent.name if p.stem in ("site", "project") else p.stem
    return pathlib.Path("reports") / (name or "report")


def copy_inputs(site, site_path: pathlib.Path, inputs_dir: pathlib.Path
                 ) -> tuple[str, dict[str, str]]:
    """Copy the site file and every input it reads under ``inputs_dir``, keeping their
    relative layout (relative to the site file's folder, or to the common folder of all
    inputs when one lies outside it). Returns (site file relative to the staging folder,
    {path relative to ``inputs/``: sha256})."""
    base = site_path.parent
    declared = dict(getattr(site, "input_files", {}) or {})
    paths = {site_path.resolve()}
    for rel in declared:
        q = pathlib.Path(rel)
        paths.add((q if q.is_absolute() else base / q).resolve())
    root = pathlib.Path(os.path.commonpath([str(p.parent) for p in paths]))
    hashes: dict[str, str] = {}
    for src in sorted(paths):
        if not src.is_file():
            raise InputError(f"input file {src} must exist; got a missing file. "
                             "Check the paths in the site file.")
        rel = src.relative_to(root).as_posix()
        dst = inputs_dir / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        hashes[rel] = sha256_file(dst)
    site_rel = "inputs/" + site_path.resolve().relative_to(root).as_posix()
    return site_rel, dict(sorted(hashes.items()))


def _swap_into_place(staging: pathlib.Path, target: pathlib.Path) -> None:
    """Replace ``target`` by ``staging`` with two renames (the old report is removed last)."""
    old = None
    if target.exists():
        old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
        os.rename(target, old)
    try:
        os.rename(staging, target)
    except OSError:
        if old is not None:
            os.rename(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _keep_failed(staging: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    failed = target.parent / f".{target.name}.failed"
    if failed.exists():
        shutil.rmtree(failed, ignore_errors=True)
    os.rename(staging, failed)
    return failed


def _utc_now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0).isoformat()


# --------------------------------------------------------------------------------------
# staging folders: made by this module, recognised by name AND marker, cleaned when stale
# --------------------------------------------------------------------------------------
STAGING_MARKER = ".hydrocalc-staging"  #: file in every staging folder: "<pid> <host>"


def _make_staging(target: pathlib.Path) -> pathlib.Path:
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-",
                                            dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private; a report is not
    import socket

    (staging / STAGING_MARKER).write_text(f"{os.getpid()} {socket.gethostname()}\n",
                                          encoding="utf-8")
    return staging


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OSError):
        return True
    return True


def clean_stale_staging(target: str | os.PathLike) -> list[pathlib.Path]:
    """Remove staging folders of earlier, killed runs for the report folder ``target``.

    Only folders named ``.<target name>.partial-*`` (or ``.<name>.old-*``) that hold the
    :data:`STAGING_MARKER` file written by hydrocalc are removed, and only when the process
    that made them (recorded in the marker, same host) is no longer running. Anything else
    is left alone. Returns the folders removed.
    """
    import socket

    target = pathlib.Path(target)
    removed = []
    if not target.parent.is_dir():
        return removed
    for pattern in (f".{target.name}.partial-*", f".{target.name}.old-*"):
        for folder in target.parent.glob(pattern):
            marker = folder / STAGING_MARKER
            if folder.is_symlink() or not folder.is_dir() or not marker.is_file():
                continue
            try:
                pid_text, host = marker.read_text(encoding="utf-8").split()[:2]
                pid = int(pid_text)
            except (OSError, ValueError):
                continue
            if host == socket.gethostname() and pid != os.getpid() and _pid_alive(pid):
                continue  # a run in progress
            if host != socket.gethostname():
                continue  # another machine's run on a shared folder: not ours to judge
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


# --------------------------------------------------------------------------------------
# the run
# --------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class ReportRun:
    """What a report run produced."""

    out_dir: pathlib.Path
    files: tuple[str, ...]
    sections: tuple[str, ...]
    seconds: float
    section_seconds: dict
    stage_seconds: dict = dataclasses.field(default_factory=dict)
    pdf_pages: int | None = None

    def __str__(self) -> str:
        return f"report written to {self.out_dir} ({len(self.sections)} sections, " \
               f"{self.seconds:.1f} s)"


def _resolve_formats(formats) -> tuple[str, ...]:
    if formats is None:
        return FORMATS
    if isinstance(formats, str):
        formats = [f for part in formats.split(",") for f in [part.strip().lower()] if f]
    out = []
    from hydrocalc._validate import suggest

    for f in formats:
        if f not in FORMATS:
            raise InputError(f"--format must be a comma-separated subset of "
                             f"{', '.join(FORMATS)}; got {f!r}{suggest(f, FORMATS)}")
        if f not in out:
            out.append(f)
    return tuple(out)


def notebook_parameters(key: str, *, site_file: str, results_file: str, out_dir: str,
                        sections: Sequence[str]) -> dict:
    """The parameters a section notebook receives: ``site_file``, ``results_file``,
    ``out_dir`` and the section's fixed ones (``scenario``, ``section_keys``)."""
    from hydrocalc.report import sections as S

    params = S.SECTIONS[key].parameters(site_file=site_file, out_dir=out_dir,
                                        sections=list(sections))
    out = {"site_file": params.pop("site_file"), "results_file": results_file}
    out.update(params)
    return out


def plan_jobs(section_keys: Sequence[str], site_rel: str, nb_dir: pathlib.Path, *,
              results_file: str = "") -> list[dict]:
    """One job per section: notebook, parameters and output name (``results_file`` may
    hold ``{key}``, replaced by the section key)."""
    from hydrocalc.report import sections as S

    jobs = []
    for n, key in enumerate(section_keys, start=1):
        spec = S.SECTIONS[key]
        params = notebook_parameters(key, site_file=site_rel,
                                     results_file=results_file.format(key=key),
                                     out_dir="", sections=section_keys)
        jobs.append({
            "key": key,
            "source": nb_dir / spec.notebook,
            "parameters": params,
            "output": f"notebooks/{n:02d}_{key}.ipynb",
        })
    return jobs


def run_report(site_file: str | os.PathLike, out: str | os.PathLike | None = None, *,
               sections: Iterable[str] | None = None, formats=None, jobs: int | None = None,
               progress: bool = True, notebooks: str | os.PathLike | None = None,
               fresh_kernels: bool = False, echo=None, figure_workers: int = 1) -> ReportRun:
    """Produce the SWPPP hydrology report for one site file (see the module docstring).

    Parameters
    ----------
    site_file : path
        The site's TOML file.
    out : path, optional
        Report folder; default ``reports/<site name>`` (see :func:`default_report_dir`).
    sections : iterable of str, optional
        Section keys (or aliases, see :data:`hydrocalc.report.sections.ALIASES`); default all.
    formats : str or iterable of str, optional
        Subset of ``html``, ``pdf``, ``xlsx`` (default all three). The executed notebooks,
        CSV tables, PNG figures and ``results.json`` are always written.
    jobs : int, optional
        Kernels executing notebooks at once; default 1 (one warm kernel presents every
        section: the notebooks only unpickle and display, so a second kernel's start-up
        costs more than it saves on a small machine).
    progress : bool, default True
        Show a progress bar on stderr.
    notebooks : path, optional
        Folder holding the section notebooks (default: the ones shipped with hydrocalc).
    fresh_kernels : bool, default False
        Start a new kernel for every notebook (Papermill's default) instead of reusing
        warm kernels with their namespace reset between notebooks.
    echo : callable, optional
        Receives one-line status messages (default: silent).
    figure_workers : int, default 1
        Processes drawing the figures while this process computes the sections, writes the
        workbook and drives the notebooks (see :func:`hydrocalc.report.build.figure_pool`);
        0 draws them in this process. The figures are most of a report's CPU in this
        process (about 3 s of Pelham's 6); one forked worker takes them off the critical
        path at no extra CPU in all (measured: this process plus its children 8.1-8.2 s
        either way), so a report uses the second core instead of running in series. More
        workers compete with the kernel on a 2-core machine.

    Returns
    -------
    ReportRun

    Raises
    ------
    InputError
        On any input problem (nothing is executed).
    ReportError
        If a section fails (the previous report is left untouched).
    """
    from hydrocalc.report import build
    from hydrocalc.report import sections as S

    t0 = time.perf_counter()
    started = _utc_now()
    say = echo or (lambda msg: None)
    site_path = pathlib.Path(site_file)
    if not site_path.is_file():
        raise InputError(f"site file must be an existing TOML file; got {str(site_file)!r}. "
                         "Check the path.")
    keys = S.resolve_sections(sections)
    fmts = _resolve_formats(formats)
    nb_dir = pathlib.Path(notebooks) if notebooks is not None else notebook_dir()
    target = pathlib.Path(out) if out is not None else default_report_dir(site_path)
    if target.exists() and not target.is_dir():
        raise InputError(f"--out must be a folder; got the file {str(target)!r}. "
                         "Choose another path.")
    for key in keys:
        path = nb_dir / S.SECTIONS[key].notebook
        if not path.is_file():
            raise ReportError(f"section notebook {path} must exist; got a missing file. "
                              "Reinstall hydrocalc or pass --notebooks.")
    for key in keys:
        check_notebook_parameters(nb_dir / S.SECTIONS[key].notebook, key)
    site = S.context(site_path).site  # loads the site: InputError before anything runs

    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_staging(target)
    staging = _make_staging(target)
    workers = max(1, min(jobs or 1, len(keys)))
    pool = KernelPool(staging, size=workers, fresh=fresh_kernels)
    stages: dict[str, float] = {}
    # sections ready to present, in the order they become ready (a section waits for its
    # figures only; one without figures need not wait for the figures of those before it)
    ready: queue.Queue = queue.Queue()
    abort = threading.Event()

    def next_ready() -> str:
        key = ready.get()
        if key is None or abort.is_set():
            raise _Aborted()
        return key

    presenter = ThreadPoolExecutor(max_workers=1)
    drawing = contextlib.ExitStack()
    try:
        # figure workers forked first (before this process starts threads), then kernels:
        # both start while this process analyses the site
        drawing.enter_context(build.figure_pool(figure_workers))
        pool.start_background()
        ctx = S.context(site_path)
        ctx.results  # noqa: B018 - analysed once, before any section is presented
        site_rel, input_hashes = copy_inputs(site, site_path, staging / "inputs")
        job_list = plan_jobs(keys, site_rel, nb_dir,
                             results_file=f"{build.PICKLE_DIR}/{{key}}.pkl")
        t1 = time.perf_counter()
        stages["setup_s"] = round(t1 - t0, 3)  # validation, staging, the analysis
        presenting = presenter.submit(_execute_all, job_list, staging, target, jobs=workers,
                                      progress=progress, pool=pool, next_ready=next_ready)
        # compute each section here while the kernel presents the ones already computed
        # (figures drawn in a pool of processes meanwhile; each section is handed over, in
        # report order, as soon as its figures are drawn)
        computed = {}
        documents: dict = {}  # each section's canonical JSON form, computed once
        waiting: list = []
        late = {"warned": False}  # a figure drawn in the pool warned after its section

        def document(res) -> dict:
            # figures enter a section's JSON by name only, so it is known before they are drawn
            return json.loads(_canonical(res.to_dict()))

        def next_done(block: bool) -> int | None:
            # the first waiting section (report order) whose figures are drawn; the warnings
            # section only once every other section is handed over (a figure drawn in the
            # pool may still add a warning to gather)
            others = [i for i, (key, _) in enumerate(waiting) if key != "warnings"]
            for i in others or range(len(waiting)):
                if build.section_done(waiting[i][1]):
                    return i
            return (others or [0])[0] if block and waiting else None

        def hand_over(block: bool) -> None:
            while waiting and (i := next_done(block)) is not None:
                key, res = waiting.pop(i)
                warned = res.__dict__.get("_figure_warned")
                build.finish_section(res)
                if res.__dict__.get("_figure_warned") != warned:
                    late["warned"] = True
                    documents[key] = document(res)
                if key == "warnings" and late["warned"]:
                    # gathered before a figure's warning was known: gather again
                    res = build.compute_section(key, site_path, keys, site_label=site_rel,
                                                computed=computed)
                    documents[key] = document(res)
                res.write(staging, document=documents[key])
                build.save_sections({key: res}, staging / build.PICKLE_DIR / f"{key}.pkl")
                computed[key] = res
                ready.put(key)

        def finish_documents() -> tuple[dict, dict]:
            sections_out = {key: documents[key] for key in keys if key in documents}
            results = results_document(site, site_path, site_rel, input_hashes, keys, fmts,
                                       sections_out, {"started_utc": started})
            return results, S.cover_meta(results, site)

        def workbook(results) -> None:
            if "xlsx" in fmts:
                t = time.perf_counter()
                _write_workbook(staging / "tables.xlsx", results)
                stages["xlsx_s"] = round(time.perf_counter() - t, 3)

        early = None
        try:
            for key in keys:
                if presenting.done():
                    break  # a notebook failed: its error is raised below
                built = {**computed, **dict(waiting)}
                res = build.compute_section(key, site_path, keys, site_label=site_rel,
                                            wait=False, computed=built)
                documents[key] = document(res)
                waiting.append((key, res))
                hand_over(block=False)
            if waiting and len(documents) == len(keys):
                # figures still being drawn in the pool: results.json's content and the
                # workbook need none of them, so they are made meanwhile
                early = finish_documents()
                workbook(early[0])
                hand_over(block=False)
            hand_over(block=True)
        except BaseException:
            abort.set()
            for _ in keys:
                ready.put(None)
            try:
                presenting.result()
            except BaseException:  # noqa: BLE001 - the computation's error is the one to raise
                pass
            raise
        finally:
            drawing.close()
        stages["compute_s"] = round(time.perf_counter() - t1, 3)
        in_order = {key: computed[key] for key in keys if key in computed}
        # the PDF (and the workbook, unless made above) need the results only: made while
        # the notebooks finish
        if early is None or late["warned"] or len(computed) != len(keys):
            results, meta = finish_documents()
            typesetting = _start_pdf(staging, results, fmts, meta, stages, in_order)
            workbook(results)
        else:
            results, meta = early
            typesetting = _start_pdf(staging, results, fmts, meta, stages, in_order)
        section_seconds = presenting.result()
        stages["present_s"] = round(time.perf_counter() - t1, 3)
        say(f"executed {len(job_list)} section notebooks")
        if "html" in fmts:
            from hydrocalc.report.assemble import assemble_html

            t = time.perf_counter()
            notebooks = sorted((staging / "notebooks").glob("*.ipynb"))
            (staging / "report.html").write_text(assemble_html(notebooks, meta),
                                                 encoding="utf-8")
            stages["html_s"] = round(time.perf_counter() - t, 3)
        pages = typesetting.result() if typesetting is not None else None
        results["timestamps"]["sections_seconds"] = section_seconds
        shutil.rmtree(staging / build.PICKLE_DIR)
        results["artifacts"] = artifact_hashes(staging)
        results["timestamps"]["finished_utc"] = _utc_now()
        results["timestamps"]["seconds"] = round(time.perf_counter() - t0, 3)
        results["timestamps"]["stages_seconds"] = stages
        (staging / "results.json").write_text(dump_results(results), encoding="utf-8")
        (staging / STAGING_MARKER).unlink()
    except ReportError:
        pool.close()
        if staging.exists():
            _keep_failed(staging, target)
        raise
    except BaseException:
        pool.close()
        shutil.rmtree(staging, ignore_errors=True)
        raise
    finally:
        drawing.close()
        presenter.shutdown(wait=True)
    pool.close()
    _swap_into_place(staging, target)
    files_out = tuple(sorted(p.relative_to(target).as_posix()
                             for p in target.rglob("*") if p.is_file()))
    return ReportRun(out_dir=target, files=files_out, sections=tuple(keys),
                     seconds=time.perf_counter() - t0, section_seconds=section_seconds,
                     stage_seconds=stages, pdf_pages=pages)


def _canonical(value) -> str:
    from hydrocalc.report.tables import canonical_json

    return canonical_json(value)


def dump_results(results: dict) -> str:
    """results.json text (sorted keys, no NaN)."""
    return json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True,
                      allow_nan=False) + "\n"


#: Files of a report folder whose SHA-256 results.json records (``artifacts``).
ARTIFACT_GLOBS = ("report.html", "report.pdf", "tables.xlsx", "tables/*.csv",
                  "figures/*.png", "sections/*.json")


def artifact_hashes(folder: pathlib.Path) -> dict[str, str]:
    """SHA-256 of every human-readable artefact in a report folder (relative path -> hash)."""
    out = {}
    for pattern in ARTIFACT_GLOBS:
        for path in sorted(folder.glob(pattern)):
            if path.is_file() and not path.is_symlink():
                out[path.relative_to(folder).as_posix()] = sha256_file(path)
    return dict(sorted(out.items()))


class _Aborted(Exception):
    """The computation failed; the notebooks waiting for it stop."""


def _execute_all(job_list: list[dict], staging: pathlib.Path, target: pathlib.Path, *,
                 jobs: int, progress: bool, pool: KernelPool | None,
                 next_ready=None) -> dict:
    """Execute the section notebooks, ``jobs`` at a time; on failure keep the staging
    folder as ``.<name>.failed`` and raise the first section's ReportError.

    With ``next_ready`` (a callable returning the key of the next section ready to present,
    blocking until there is one) the notebooks run in the order their sections become
    ready; otherwise in the order of ``job_list``."""
    from tqdm.auto import tqdm

    failed_dir = target.parent / f".{target.name}.failed"
    seconds: dict[str, float] = {}

    by_key = {job["key"]: job for job in job_list}

    def run(job):
        if next_ready is not None:
            job = by_key[next_ready()]
        t = time.perf_counter()
        km = None if pool is None else pool.acquire()
        try:
            execute_notebook(job["source"], staging / job["output"], job["parameters"],
                             cwd=staging, section=job["key"],
                             display_path=str(failed_dir / job["output"]), km=km)
        finally:
            if km is not None:
                pool.release(km)
            close_thread_loop()
        seconds[job["key"]] = round(time.perf_counter() - t, 3)
        return job["key"]

    # No rate or ETA: the first section waits for the whole analysis, the others take
    # a fraction of a second, so an average per section would mislead.
    bar = tqdm(total=len(job_list), desc="report sections", unit="section",
               disable=not progress, leave=False,
               bar_format="{desc}: {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
        error = _drain(threads, run, job_list, bar)
    bar.close()
    if error is not None:
        if isinstance(error, ReportError):
            raise ReportError(f"{error}\nthe previous report in {target} was left untouched"
                              ) from error
        raise error
    return dict(sorted(seconds.items()))


def _drain(threads, run, job_list, bar):
    """Run the jobs; on the first failure cancel what has not started and return it."""
    error = None
    pending = {threads.submit(run, job) for job in job_list}
    while pending:
        done, pending = wait(pending, return_when=FIRST_EXCEPTION)
        for fut in done:
            exc = fut.exception()
            if exc is not None and error is None:
                error = exc
            elif exc is None:
                bar.set_postfix_str(fut.result())
                bar.update(1)
        if error is not None:
            for fut in pending:
                fut.cancel()
            wait(pending)
            pending = set()
    return error


def results_document(site, site_path: pathlib.Path, site_rel: str, input_hashes: dict,
                     keys: Sequence[str], fmts: Sequence[str], sections_out: dict,
                     timestamps: dict) -> dict:
    """The results.json document: provenance, every section's results, the analysis.

    Everything that varies from run to run lives under ``timestamps``; the rest is a
    function of the inputs and the hydrocalc version (two runs give identical documents
    apart from ``timestamps``).
    """
    import hydrocalc
    from hydrocalc import data
    from hydrocalc.report import sections as S

    return {
        "schema": RESULTS_SCHEMA,
        "hydrocalc_version": hydrocalc.__version__,
        "project": S.project_facts_dict(site),
        "parameters": {"site_file": site_rel, "sections": list(keys), "formats": list(fmts)},
        "inputs": input_hashes,
        "data_tables": data.table_hashes(),
        "tolerances": {"rtol": _verify_rtol(), "atol": _verify_atol()},
        "sections": sections_out,
        "analysis": S.analysis_dict(site_path),
        "summary": S.summary_dict(site_path),
        "timestamps": timestamps,
    }


def _verify_rtol() -> float:
    from hydrocalc.report.verify import DEFAULT_RTOL

    return DEFAULT_RTOL


def _verify_atol() -> float:
    from hydrocalc.report.verify import DEFAULT_ATOL

    return DEFAULT_ATOL


def pdf_attachments(staging: pathlib.Path, results: dict) -> dict[str, bytes]:
    """The files a report's PDF embeds: ``results.json`` and every stored input file."""
    out = {"results.json": dump_results(results).encode("utf-8")}
    for rel in results.get("inputs", {}):
        out[f"inputs/{rel}"] = (staging / "inputs" / rel).read_bytes()
    return out


def _start_pdf(staging: pathlib.Path, results: dict, fmts: Sequence[str], meta: Mapping,
               stages: dict, computed: Mapping):
    """Typeset report.pdf in a background thread (typst releases the GIL); returns a
    future of the page count, or None when no PDF is wanted."""
    if "pdf" not in fmts:
        return None
    from concurrent.futures import Future

    from hydrocalc.report.typeset import write_pdf

    attachments = pdf_attachments(staging, results)
    future: Future = Future()

    def work():
        t = time.perf_counter()
        try:
            future.set_result(write_pdf(list(computed.values()), meta,
                                        staging / "report.pdf", attachments=attachments))
        except BaseException as exc:  # noqa: BLE001 - re-raised by future.result()
            future.set_exception(exc)
        stages["pdf_s"] = round(time.perf_counter() - t, 3)

    threading.Thread(target=work, daemon=True, name="hydrocalc-typst").start()
    return future


def _sheet_name(name: str, used: set[str]) -> str:
    bad = '[]:*?/\\'
    base = "".join("_" if c in bad else c for c in name)[:31] or "sheet"
    out, n = base, 1
    while out.lower() in used:
        n += 1
        suffix = f"~{n}"
        out = base[: 31 - len(suffix)] + suffix
    used.add(out.lower())
    return out


def _text_cell(ws, value, font=None):
    """A write-only cell; text is always stored as text (never a formula)."""
    from openpyxl.cell import WriteOnlyCell

    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False)
    cell = WriteOnlyCell(ws, value=value)
    if isinstance(value, str):
        cell.data_type = "s"  # "=HYPERLINK(...)" stays the text it is
    if font is not None:
        cell.font = font
    return cell


def _write_workbook(path: pathlib.Path, results: dict) -> None:
    """One Excel workbook: a contents sheet, then one sheet per table (full precision).

    Every text cell is written as text: a name or description starting with ``=``, ``+``,
    ``-`` or ``@`` is shown as typed, never evaluated as a formula.
    """
    from openpyxl import Workbook
    from openpyxl.styles import Font

    bold, title = Font(bold=True), Font(bold=True, size=12)
    wb = Workbook(write_only=True)
    contents = wb.create_sheet("contents")
    contents.column_dimensions["A"].width = 32
    contents.column_dimensions["B"].width = 28

    def row(ws, values, font=None):
        ws.append([_text_cell(ws, v, font) for v in values])

    row(contents, ["hydrocalc SWPPP hydrology report tables"], title)
    row(contents, ["project", results.get("project", {}).get("name", "")])
    row(contents, ["hydrocalc version", results.get("hydrocalc_version", "")])
    for rel, digest in results.get("inputs", {}).items():
        row(contents, ["input file", rel, digest])
    row(contents, [])
    row(contents, ["sheet", "section", "table", "title", "sha256"], bold)
    used = {"contents"}
    sheets = []
    for key, section in results["sections"].items():
        for tname, table in section.get("tables", {}).items():
            sheet = _sheet_name(f"{key}.{tname}", used)
            row(contents, [sheet, key, tname, table.get("title", ""), table.get("sha256")])
            sheets.append((sheet, table))
    for sheet, table in sheets:
        ws = wb.create_sheet(sheet)
        ws.freeze_panes = "A3"
        row(ws, [table.get("title", "")], bold)
        row(ws, table["columns"], bold)
        for values in table["rows"]:
            row(ws, values)
    tmp = path.with_name(f".{path.name}.tmp")
    wb.save(tmp)
    os.replace(tmp, path)
