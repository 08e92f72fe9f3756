"""Run the SWPPP hydrology report: validate, execute the section notebooks, assemble, swap in.

:func:`run_report` is what ``hydrocalc report`` calls:

1. **Validate first.** The site file is loaded and analysed in this process
   (:func:`hydrocalc.site.load_site` reports every input problem at once), the requested
   sections and formats are checked, and every notebook's parameters must equal its section
   function's signature. Nothing runs on any error.
2. **Stage.** A temporary folder is made *beside* the target (same file system), and the
   site file and every input file it reads are copied into ``inputs/`` with their SHA-256.
3. **Execute.** Each section notebook is parameterized (parameters are literals only: the
   injected cell is parsed back and must hold exactly the values passed) and executed with
   Papermill in its own kernel, whose working directory is the staging folder; up to
   ``jobs`` kernels run at once (default: the number of CPUs), with a progress bar.
4. **Assemble.** ``results.json`` (every section's tables at full precision, their SHA-256,
   the inputs' SHA-256, the hydrocalc version, the shipped data tables' hashes, the
   parameters, and timestamps), ``report.html`` (self-contained), ``report.pdf``,
   ``tables.xlsx``; the sections' CSV tables and PNG figures are already in place.
5. **Swap.** The finished folder replaces the target in two renames. If any section fails,
   the target is left untouched, the staging folder is kept as ``.<name>.failed`` beside it,
   and :class:`~hydrocalc.errors.ReportError` names the section, the cell and the executed
   notebook to open.

Timing: each notebook costs a kernel start and the imports (about 1.5-3 s on the 2-core
development machine); see ``benchmarks/bench_report.py`` for the measured floor.
"""

from __future__ import annotations

import ast
import copy
import dataclasses
import datetime as _dt
import hashlib
import inspect
import json
import os
import pathlib
import shutil
import tempfile
import time
import uuid
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from importlib.resources import files

from hydrocalc.errors import InputError, ReportError

__all__ = [
    "FORMATS",
    "ReportRun",
    "run_report",
    "notebook_dir",
    "check_notebook_parameters",
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
_KERNEL_ARGS = ["--IPKernelApp.log_level=CRITICAL"]  # silence kernel start-up chatter


# --------------------------------------------------------------------------------------
# notebooks and their parameters
# --------------------------------------------------------------------------------------
def notebook_dir() -> pathlib.Path:
    """The section notebooks shipped with the package (a copy of the repository's notebooks/)."""
    return pathlib.Path(str(files("hydrocalc.report").joinpath("notebooks")))


def check_notebook_parameters(path: str | os.PathLike, function) -> None:
    """Refuse a notebook whose ``parameters`` cell differs from ``function``'s signature.

    Raises
    ------
    ReportError
        Naming the missing and unexpected parameters.
    """
    import papermill

    declared = set(papermill.inspect_notebook(str(path)))
    expected = set(inspect.signature(function).parameters)
    if declared != expected:
        missing = ", ".join(sorted(expected - declared)) or "none"
        extra = ", ".join(sorted(declared - expected)) or "none"
        raise ReportError(
            f"notebook {pathlib.Path(path).name} parameters must equal the arguments of "
            f"hydrocalc.report.sections.{function.__name__}; missing: {missing}; "
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
    nbformat.write(nb, str(output))
    shown = display_path or str(output)
    engine = {}
    if km is not None:
        _register_engine()
        engine = {"engine_name": ENGINE_NAME, "km": km}
    try:
        papermill.execute_notebook(
            str(output), str(output), parameters=None, kernel_name=KERNEL_NAME,
            progress_bar=False, report_mode=True, start_timeout=120,
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
    done = nbformat.read(str(output), as_version=4)
    meta = done.metadata.get("papermill", {})
    meta["input_path"] = f"hydrocalc/report/notebooks/{pathlib.Path(source).name}"
    meta["output_path"] = output.relative_to(cwd).as_posix()
    nbformat.write(done, str(output))


# --------------------------------------------------------------------------------------
# a papermill engine that reuses a kernel (one per worker) for several notebooks
# --------------------------------------------------------------------------------------
ENGINE_NAME = "hydrocalc-pooled"
_RESET = "get_ipython().reset(new_session=True)"


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


class KernelPool:
    """One started kernel per worker thread, working directory ``cwd``; close() stops them."""

    def __init__(self, cwd: pathlib.Path):
        import threading

        self.cwd = cwd
        self._local = threading.local()
        self._managers: list = []
        self._lock = threading.Lock()

    def get(self):
        km = getattr(self._local, "km", None)
        if km is None:
            from jupyter_client.manager import AsyncKernelManager
            from jupyter_core.utils import run_sync

            km = AsyncKernelManager(kernel_name=KERNEL_NAME)
            run_sync(km.start_kernel)(cwd=str(self.cwd), extra_arguments=list(_KERNEL_ARGS))
            with self._lock:
                self._managers.append(km)
            self._local.km = km
        return km

    def close(self) -> None:
        from jupyter_core.utils import run_sync

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


def plan_jobs(section_keys: Sequence[str], site_rel: str, nb_dir: pathlib.Path) -> list[dict]:
    """One job per section: notebook, section function, parameters and output name."""
    from hydrocalc.report import sections as S

    jobs = []
    for n, key in enumerate(section_keys, start=1):
        spec = S.SECTIONS[key]
        params = spec.parameters(site_file=site_rel, out_dir=".", sections=list(section_keys))
        jobs.append({
            "key": key,
            "source": nb_dir / spec.notebook,
            "function": getattr(S, spec.function),
            "parameters": params,
            "output": f"notebooks/{n:02d}_{key}.ipynb",
        })
    return jobs


def run_report(site_file: str | os.PathLike, out: str | os.PathLike | None = None, *,
               sections: Iterable[str] | None = None, formats=None, jobs: int | None = None,
               progress: bool = True, notebooks: str | os.PathLike | None = None,
               fresh_kernels: bool = False, echo=None) -> ReportRun:
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
        Kernels run at once; default the number of CPUs.
    progress : bool, default True
        Show a progress bar on stderr.
    notebooks : path, optional
        Folder holding the section notebooks (default: the ones shipped with hydrocalc).
    fresh_kernels : bool, default False
        Start a new kernel for every notebook (Papermill's default) instead of one kernel
        per worker reused with its namespace reset between notebooks (faster: the imports
        and the site computation are paid once per worker).
    echo : callable, optional
        Receives one-line status messages (default: silent).

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

    # 1. validate everything before any kernel starts
    for spec in {S.SECTIONS[k].notebook: S.SECTIONS[k] for k in keys}.values():
        path = nb_dir / spec.notebook
        if not path.is_file():
            raise ReportError(f"section notebook {path} must exist; got a missing file. "
                              "Reinstall hydrocalc or pass --notebooks.")
        check_notebook_parameters(path, getattr(S, spec.function))
    site = S.validate_site(site_path, keys)  # raises InputError on any input problem
    stages = {"validate_s": round(time.perf_counter() - t0, 3)}

    # 2. stage
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-",
                                            dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private; a report is not
    try:
        site_rel, input_hashes = copy_inputs(site, site_path, staging / "inputs")
        job_list = plan_jobs(keys, site_rel, nb_dir)
        t1 = time.perf_counter()
        section_seconds = _execute_all(job_list, staging, target, jobs=jobs,
                                       progress=progress, fresh_kernels=fresh_kernels)
        stages["execute_s"] = round(time.perf_counter() - t1, 3)
        say(f"executed {len(job_list)} section notebooks")
        results = _results_json(staging, site, site_rel, input_hashes, keys, fmts,
                                started, section_seconds)
        written = _write_outputs(staging, results, fmts, site, stages)
        results["timestamps"]["finished_utc"] = _utc_now()
        results["timestamps"]["seconds"] = round(time.perf_counter() - t0, 3)
        results["timestamps"]["stages_seconds"] = stages
        (staging / "results.json").write_text(
            json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True, allow_nan=False)
            + "\n", encoding="utf-8")
    except ReportError:
        if staging.exists():
            _keep_failed(staging, target)
        raise
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    _swap_into_place(staging, target)
    files_out = tuple(sorted(p.relative_to(target).as_posix()
                             for p in target.rglob("*") if p.is_file()))
    return ReportRun(out_dir=target, files=files_out, sections=tuple(keys),
                     seconds=time.perf_counter() - t0, section_seconds=section_seconds,
                     stage_seconds=stages)


def _execute_all(job_list: list[dict], staging: pathlib.Path, target: pathlib.Path, *,
                 jobs: int | None, progress: bool, fresh_kernels: bool = False) -> dict:
    """Execute the section notebooks, ``jobs`` at a time; on failure keep the staging
    folder as ``.<name>.failed`` and raise the first section's ReportError."""
    from tqdm.auto import tqdm

    workers = max(1, min(jobs or os.cpu_count() or 1, len(job_list)))
    failed_dir = target.parent / f".{target.name}.failed"
    seconds: dict[str, float] = {}

    pool = None if fresh_kernels else KernelPool(staging)

    def run(job):
        t = time.perf_counter()
        execute_notebook(job["source"], staging / job["output"], job["parameters"],
                         cwd=staging, section=job["key"],
                         display_path=str(failed_dir / job["output"]),
                         km=None if pool is None else pool.get())
        seconds[job["key"]] = round(time.perf_counter() - t, 3)
        return job["key"]

    bar = tqdm(total=len(job_list), desc="report sections", unit="section",
               disable=not progress, leave=False)
    error = None
    try:
        with ThreadPoolExecutor(max_workers=workers) as threads:
            error = _drain(threads, run, job_list, bar)
    finally:
        if pool is not None:
            pool.close()
    bar.close()
    if error is not None:
        _keep_failed(staging, target)
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


def _results_json(staging: pathlib.Path, site, site_rel: str, input_hashes: dict,
                  keys: Sequence[str], fmts: Sequence[str], started: str,
                  section_seconds: dict) -> dict:
    """Gather the sections' JSON written by the notebooks into results.json."""
    sections_out = {}
    for key in keys:
        path = staging / "sections" / f"{key}.json"
        if not path.is_file():
            raise ReportError(f"section '{key}' wrote no sections/{key}.json; the notebook "
                              "must call its section function with out_dir")
        sections_out[key] = json.loads(path.read_text(encoding="utf-8"))
    return results_document(site, staging / site_rel, site_rel, input_hashes, keys, fmts,
                            sections_out, {"started_utc": started,
                                           "sections_seconds": section_seconds})


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


def _write_outputs(staging: pathlib.Path, results: dict, fmts: Sequence[str], site,
                   stages: dict) -> list[str]:
    from hydrocalc.report import sections as S

    written = []
    notebooks = sorted((staging / "notebooks").glob("*.ipynb"))
    if "html" in fmts or "pdf" in fmts:
        from hydrocalc.report.assemble import assemble_html

        t = time.perf_counter()
        html_text = assemble_html(notebooks, S.cover_meta(results, site))
        stages["html_s"] = round(time.perf_counter() - t, 3)
        if "html" in fmts:
            (staging / "report.html").write_text(html_text, encoding="utf-8")
            written.append("report.html")
        if "pdf" in fmts:
            from hydrocalc.report.pdf import write_pdf

            t = time.perf_counter()
            write_pdf(html_text, staging / "report.pdf")
            stages["pdf_s"] = round(time.perf_counter() - t, 3)
            written.append("report.pdf")
    if "xlsx" in fmts:
        t = time.perf_counter()
        _write_workbook(staging / "tables.xlsx", results)
        stages["xlsx_s"] = round(time.perf_counter() - t, 3)
        written.append("tables.xlsx")
    return written


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


def _write_workbook(path: pathlib.Path, results: dict) -> None:
    """One Excel workbook: a contents sheet, then one sheet per table (full precision)."""
    from openpyxl import Workbook
    from openpyxl.styles import Font

    wb = Workbook()
    contents = wb.active
    contents.title = "contents"
    contents.append(["hydrocalc SWPPP hydrology report tables"])
    contents["A1"].font = Font(bold=True, size=12)
    contents.append(["project", results.get("project", {}).get("name", "")])
    contents.append(["hydrocalc version", results.get("hydrocalc_version", "")])
    for rel, digest in results.get("inputs", {}).items():
        contents.append(["input file", rel, digest])
    contents.append([])
    contents.append(["sheet", "section", "table", "title", "sha256"])
    for cell in contents[contents.max_row]:
        cell.font = Font(bold=True)
    used = {"contents"}
    for key, section in results["sections"].items():
        for tname, table in section.get("tables", {}).items():
            sheet = _sheet_name(f"{key}.{tname}", used)
            contents.append([sheet, key, tname, table.get("title", ""), table.get("sha256")])
            ws = wb.create_sheet(sheet)
            ws.append([table.get("title", "")])
            ws["A1"].font = Font(bold=True)
            ws.append(table["columns"])
            for cell in ws[2]:
                cell.font = Font(bold=True)
            for row in table["rows"]:
                ws.append([v if not isinstance(v, (list, dict)) else json.dumps(v)
                           for v in row])
            ws.freeze_panes = "A3"
    contents.column_dimensions["A"].width = 32
    contents.column_dimensions["B"].width = 28
    wb.save(path)
