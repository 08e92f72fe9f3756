"""The entry point :func:`run_report`: validate, stage, execute the notebooks, assemble, swap.

Part of :mod:`hydrocalc.report.execute`; every name is importable from there.
"""

from __future__ import annotations

import dataclasses
import json
import os
import pathlib
import shutil
import time
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from hydrocalc._validate import suggest
from hydrocalc.errors import InputError, ReportError
from hydrocalc.report import sections as S
from hydrocalc.report.custom import (
    CustomSection,
    custom_heading,
    custom_presentation,
    custom_sections,
)
from hydrocalc.report.execute.interrupts import interrupt_on_terminate
from hydrocalc.report.execute.kernels import KernelPool, close_thread_loop
from hydrocalc.report.execute.notebooks import (
    check_notebook_parameters,
    execute_notebook,
    notebook_dir,
    notebook_parameters,
)
from hydrocalc.report.execute.outputs import (
    _start_pdf,
    _write_workbook,
    artifact_hashes,
    dump_results,
    preload_writers,
    results_document,
)
from hydrocalc.report.execute.staging import (
    STAGING_MARKER,
    _keep_failed,
    _make_staging,
    _swap_into_place,
    _utc_now,
    clean_stale_staging,
    copy_inputs,
    default_report_dir,
)
from hydrocalc.report.reproducible import document_datetime
from hydrocalc.report.result import SECTION_MIME

FORMATS = ("html", "pdf", "xlsx")
#: Kernels executing section notebooks at once by default: each computes the sections it
#: is given (the site analysed once per kernel), so two use both cores of a small machine.
DEFAULT_JOBS = 2


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

    for f in formats:
        if f not in FORMATS:
            raise InputError(f"--format must be a comma-separated subset of "
                             f"{', '.join(FORMATS)}; got {f!r}{suggest(f, FORMATS)}")
        if f not in out:
            out.append(f)
    return tuple(out)


def plan_jobs(section_keys: Sequence[str], site_rel: str, nb_dir: pathlib.Path, *,
              custom: Sequence[CustomSection] = (), custom_dir: pathlib.Path | None = None,
              timeout_s: float = 120.0) -> list[dict]:
    """One job per notebook: source, parameters, executed copy, time limit.

    The standard sections in report order, then the engineer's own (``custom``, their
    sources read from ``custom_dir``: the copies in the staging folder's ``inputs/``). Every
    notebook receives ``site_file`` (relative to the report folder) and ``out_dir = "."``
    (the report folder), so that its executed copy re-runs as it stands from there.
    """
    jobs = []
    for n, key in enumerate(section_keys, start=1):
        spec = S.SECTIONS[key]
        params = notebook_parameters(key, site_file=site_rel, out_dir=".",
                                     sections=section_keys)
        jobs.append({"key": key, "source": nb_dir / spec.notebook, "parameters": params,
                     "output": f"notebooks/{n:02d}_{key}.ipynb", "timeout_s": timeout_s,
                     "custom": None})
    for n, sec in enumerate(custom, start=len(section_keys) + 1):
        source = (custom_dir / sec.notebook) if custom_dir is not None else sec.source
        jobs.append({"key": sec.key, "source": source,
                     "parameters": {"site_file": site_rel, "out_dir": "."},
                     "output": f"notebooks/{n:02d}_{sec.key}.ipynb", "timeout_s": timeout_s,
                     "custom": sec})
    return jobs


@interrupt_on_terminate
def run_report(
        site_file: str | os.PathLike, out: str | os.PathLike | None = None, *,
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
        The engineer's own sections (``[report] extra_sections``) always follow.
    formats : str or iterable of str, optional
        Subset of ``html``, ``pdf``, ``xlsx`` (default all three). The executed notebooks,
        CSV tables, PNG figures and ``results.json`` are always written.
    jobs : int, optional
        Kernels executing notebooks at once; default :data:`DEFAULT_JOBS` (each kernel
        analyses the site once and computes the sections it executes).
    progress : bool, default True
        Show a progress bar on stderr.
    notebooks : path, optional
        Folder holding the section notebooks (default: the ones shipped with hydrocalc).
    fresh_kernels : bool, default False
        Start a new kernel for every notebook (Papermill's default) instead of reusing
        warm kernels with their namespace reset between notebooks.
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
        If a notebook fails (the previous report is left untouched).
    """
    t0 = time.perf_counter()
    started = _utc_now()
    doc_date = document_datetime()  # the date every deliverable carries (reproducible)
    say = echo or (lambda msg: None)
    site_path, keys, fmts, nb_dir, target = _check_run_inputs(
        site_file, out, sections, formats, notebooks)

    target.parent.mkdir(parents=True, exist_ok=True)
    clean_stale_staging(target)
    staging = _make_staging(target)
    pool = KernelPool(staging, size=max(1, min(jobs or DEFAULT_JOBS, len(keys))),
                      fresh=fresh_kernels, prepared=True)
    # the kernels start (and import hydrocalc) while this process validates the site
    pool.start_background()
    try:
        site, custom = _check_site(site_path, keys, nb_dir)
    except BaseException:
        pool.close()
        shutil.rmtree(staging, ignore_errors=True)
        raise
    stages: dict[str, float] = {}
    executor = ThreadPoolExecutor(max_workers=1)
    try:
        site_rel, input_hashes = copy_inputs(site, site_path, staging / "inputs")
        pool.prepare(f"from hydrocalc.report import build\nbuild.prepare({site_rel!r})")
        job_list = plan_jobs(keys, site_rel, nb_dir, custom=custom,
                             custom_dir=staging / pathlib.Path(site_rel).parent,
                             timeout_s=site.report.notebook_timeout_s)
        stages["setup_s"] = round(time.perf_counter() - t0, 3)
        executing = executor.submit(_execute_all, job_list, staging, target,
                                    jobs=pool.size, progress=progress, pool=pool)
        preload_writers(fmts)
        # this process analyses the site for results.json (the analysis and the compliance
        # summary) while the kernels compute the sections
        analysis, summary = _analysis_parts(site_path, executing)
        section_seconds = executing.result()
        stages["notebooks_s"] = round(time.perf_counter() - t0 - stages["setup_s"], 3)
        if pool.ready_at:  # from the run's start until its last kernel answered
            stages["kernels_ready_s"] = round(max(pool.ready_at) - t0, 3)
        stopping = pool.close_in_background()
        say(f"executed {len(job_list)} section notebooks")
        documents, shown = read_executed(staging, job_list)
        results = results_document(site, site_path, site_rel, input_hashes, keys, fmts,
                                   documents, {"document_utc": doc_date.isoformat()},
                                   analysis=analysis, summary=summary)
        if custom:
            results["custom_sections"] = [job["custom"].to_dict(job["output"])
                                          for job in job_list if job["custom"] is not None]
        meta = S.cover_meta(results, site)
        typesetting = _start_pdf(staging, results, fmts, meta, stages, shown)
        if "xlsx" in fmts:
            t = time.perf_counter()
            _write_workbook(staging / "tables.xlsx", results)
            stages["xlsx_s"] = round(time.perf_counter() - t, 3)
        _write_html(staging, fmts, meta, stages, job_list)
        pages = typesetting.result() if typesetting is not None else None
        _write_results_json(staging, results, section_seconds, started, t0, stages)
        (staging / STAGING_MARKER).unlink()
    except ReportError:
        # the kernels stop first, so that no notebook still running writes to the folder
        pool.close()
        executor.shutdown(wait=True, cancel_futures=True)
        if staging.exists():
            _keep_failed(staging, target)
        raise
    except BaseException:
        pool.close()
        executor.shutdown(wait=True, cancel_futures=True)
        shutil.rmtree(staging, ignore_errors=True)
        raise
    executor.shutdown(wait=True)
    stopping.join()  # the kernels' working folder is the staging folder
    pool.close()  # (already closed: returns at once)
    _swap_into_place(staging, target)
    files_out = tuple(sorted(p.relative_to(target).as_posix()
                             for p in target.rglob("*") if p.is_file()))
    return ReportRun(out_dir=target, files=files_out,
                     sections=tuple(keys) + tuple(c.key for c in custom),
                     seconds=time.perf_counter() - t0, section_seconds=section_seconds,
                     stage_seconds=stages, pdf_pages=pages)


def _analysis_parts(site_path: pathlib.Path, executing) -> tuple[dict, dict]:
    """results.json's ``analysis`` and ``summary``, computed here.

    An input error only the analysis finds stops the notebooks: it is the error to report.
    """
    try:
        return S.analysis_dict(site_path), S.summary_dict(site_path)
    except BaseException:
        executing.cancel()
        raise


def _check_run_inputs(site_file, out, sections, formats, notebooks) -> tuple:
    """Validate a run's arguments before anything runs.

    Returns (site path, section keys, formats, notebook folder, report folder).
    """
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
    return site_path, keys, fmts, nb_dir, target


def _check_site(site_path: pathlib.Path, keys: Sequence[str], nb_dir: pathlib.Path
                ) -> tuple:
    """Load the site and check every notebook a run will execute, before any runs.

    Returns (the loaded site, its :class:`~hydrocalc.report.custom.CustomSection` list).
    """
    for key in keys:
        check_notebook_parameters(nb_dir / S.SECTIONS[key].notebook, key)
    site = S.context(site_path).site  # loads the site: InputError before anything runs
    return site, custom_sections(site.report.extra_sections, site_path.parent)


def read_executed(staging: pathlib.Path, job_list: Sequence[Mapping]
                  ) -> tuple[dict, list[dict]]:
    """What the executed notebooks displayed: section documents and presentations.

    Returns ``({key: document}`` of the standard sections, for results.json and the
    workbook; every section's presentation in report order, for the PDF). The presentation
    of a section of the engineer's own is made from its displayed outputs (its figures
    written to ``figures/``).

    Raises
    ------
    ReportError
        If a standard section's notebook displayed no section data, or several.
    """
    import nbformat

    documents: dict = {}
    shown: list[dict] = []
    for job in job_list:
        path = staging / job["output"]
        if job["custom"] is not None:
            shown.append(custom_presentation(path, job["custom"], staging))
            continue
        nb = nbformat.read(str(path), as_version=4)
        found = [out["data"][SECTION_MIME] for cell in nb.cells
                 if cell.get("cell_type") == "code" for out in cell.get("outputs", [])
                 if SECTION_MIME in out.get("data", {})]
        if len(found) != 1:
            raise ReportError(f"notebook {job['output']} must display its section once "
                              f"(its last cell: section); got {len(found)} displays")
        data = json.loads(json.dumps(found[0]))  # plain dicts and lists
        documents[job["key"]] = data["document"]
        shown.append(data["presentation"])
    return documents, shown


def _write_html(staging: pathlib.Path, fmts: tuple[str, ...], meta: dict, stages: dict,
                job_list: Sequence[Mapping]) -> None:
    """Assemble report.html from the executed notebooks (when asked for)."""
    if "html" in fmts:
        from hydrocalc.report.assemble import assemble_html

        t = time.perf_counter()
        executed = [staging / job["output"] for job in job_list]
        headings = {str(staging / job["output"]): custom_heading(job["custom"])
                    for job in job_list if job["custom"] is not None}
        (staging / "report.html").write_text(assemble_html(executed, meta, headings),
                                             encoding="utf-8")
        stages["html_s"] = round(time.perf_counter() - t, 3)


def _write_results_json(staging: pathlib.Path, results: dict, section_seconds: dict,
                        started: str, t0: float, stages: dict) -> None:
    """Complete results.json (timings, artifact hashes) and write it to the staging folder."""
    results["timestamps"]["sections_seconds"] = section_seconds
    results["artifacts"] = artifact_hashes(staging)
    results["timestamps"]["started_utc"] = started  # after the PDF embedded results
    results["timestamps"]["finished_utc"] = _utc_now()
    results["timestamps"]["seconds"] = round(time.perf_counter() - t0, 3)
    results["timestamps"]["stages_seconds"] = stages
    (staging / "results.json").write_text(dump_results(results), encoding="utf-8")


def _execute_all(job_list: list[dict], staging: pathlib.Path, target: pathlib.Path, *,
                 jobs: int, progress: bool, pool: KernelPool | None) -> dict:
    """Execute the notebooks, ``jobs`` at a time, each started in report order.

    On failure keep the staging folder as ``.<name>.failed`` and raise the first notebook's
    ReportError (one line).
    """
    from tqdm.auto import tqdm

    failed_dir = target.parent / f".{target.name}.failed"
    seconds: dict[str, float] = {}

    def run(job):
        t = time.perf_counter()
        km = None if pool is None else pool.acquire()
        custom = job["custom"]
        try:
            execute_notebook(job["source"], staging / job["output"], job["parameters"],
                             cwd=staging, section=job["key"],
                             notebook=custom.notebook if custom is not None else None,
                             display_path=str(failed_dir / job["output"]), km=km,
                             kc=None if km is None else pool.client(km),
                             timeout_s=job["timeout_s"],
                             timeout_hint=" ([report] notebook_timeout_s in the site file)")
        finally:
            if km is not None:
                pool.release(km)
            close_thread_loop()
        seconds[job["key"]] = round(time.perf_counter() - t, 3)
        return job["key"]

    bar = tqdm(total=len(job_list), desc="report sections", unit="section",
               disable=not progress, leave=False,
               bar_format="{desc}: {n_fmt}/{total_fmt} [{elapsed}{postfix}]")
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as threads:
        error = _drain(threads, run, job_list, bar)
    bar.close()
    if error is not None:
        if isinstance(error, ReportError):
            raise ReportError(f"{error}; the previous report in {target} was left untouched"
                              ) from error
        raise error
    return dict(sorted(seconds.items()))


def _drain(threads, run, job_list, bar):
    """Run the jobs; on the first failure cancel what has not started and return it."""
    error = None
    pending = {threads.submit(run, job) for job in job_list}
    while pending:
        done, pending = wait(pending, return_when=FIRST_COMPLETED)
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
