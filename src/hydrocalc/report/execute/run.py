"""The entry point :func:`run_report`: validate, stage, compute, present, assemble, swap.

Part of :mod:`hydrocalc.report.execute`; every name is importable from there.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import gc
import json
import os
import pathlib
import queue
import shutil
import threading
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import FIRST_EXCEPTION, Future, ThreadPoolExecutor, wait

from hydrocalc._validate import suggest
from hydrocalc.errors import InputError, ReportError
from hydrocalc.report import build
from hydrocalc.report import sections as S
from hydrocalc.report.execute.interrupts import interrupt_on_terminate
from hydrocalc.report.execute.kernels import KernelPool, close_thread_loop
from hydrocalc.report.execute.notebooks import (
    check_notebook_parameters,
    execute_notebook,
    notebook_dir,
    notebook_parameters,
)
from hydrocalc.report.execute.outputs import (
    _canonical,
    _start_pdf,
    _write_workbook,
    _write_workbook_timed,
    artifact_hashes,
    dump_results,
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

FORMATS = ("html", "pdf", "xlsx")


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
              results_file: str = "") -> list[dict]:
    """One job per section: notebook, parameters and output name.

    ``results_file`` may hold ``{key}``, replaced by the section key.
    """
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


@interrupt_on_terminate
def run_report(
        site_file: str | os.PathLike, out: str | os.PathLike | None = None, *,
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
        Processes drawing the figures while this process computes the sections and drives
        the notebooks (see :func:`hydrocalc.report.build.figure_pool`); 0 draws them in this
        process. The figures are the largest part of a report's CPU (see "Speed" in
        docs/report.md). The worker takes them from the front of the queue; once this
        process has computed every section it draws the last ones itself
        (:func:`hydrocalc.report.build.draw_queued_figure`) instead of waiting, so both
        cores draw. The worker also writes the Excel workbook, which needs no figure,
        while this process draws (a workbook task the pool never started is written here).
        More workers compete with the kernel on a 2-core machine.

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
    t0 = time.perf_counter()
    started = _utc_now()
    doc_date = document_datetime()  # the date every deliverable carries (reproducible)
    say = echo or (lambda msg: None)
    site_path, keys, fmts, nb_dir, target, site = _check_run_inputs(
        site_file, out, sections, formats, notebooks)

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
    # The objects alive now (modules, caches, the loaded site) and, below, the analysis
    # live as long as the run: frozen, the cyclic garbage collector no longer scans them at
    # each full collection (about 0.6 s per collection in a process holding pandas and
    # matplotlib), and a forked figure worker never writes to their pages. Unfrozen at the
    # end, so a long-lived process collects them as before. A caller that froze objects
    # of its own keeps them frozen: then this run freezes nothing (gc.unfreeze cannot tell
    # its objects from the caller's).
    freeze = gc.get_freeze_count() == 0
    if freeze:
        gc.freeze()
    try:
        # figure workers forked first (before this process starts threads), then kernels:
        # both start while this process analyses the site
        drawing.enter_context(build.figure_pool(figure_workers))
        pool.start_background()
        ctx = S.context(site_path)
        ctx.results  # noqa: B018 - analysed once, before any section is presented
        if freeze:
            gc.freeze()
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
        run = _SectionRun(site=site, site_path=site_path, site_rel=site_rel,
                          input_hashes=input_hashes, keys=keys, fmts=fmts, doc_date=doc_date,
                          staging=staging, stages=stages, ready=ready)
        early = run.compute_all(presenting, abort, drawing)
        stages["compute_s"] = round(time.perf_counter() - t1, 3)
        results, meta, typesetting = run.start_outputs(early)
        section_seconds = presenting.result()
        stages["present_s"] = round(time.perf_counter() - t1, 3)
        # every notebook is executed: the kernel stops while the last files are written
        stopping = pool.close_in_background()
        say(f"executed {len(job_list)} section notebooks")
        _write_html(staging, fmts, meta, stages)
        pages = typesetting.result() if typesetting is not None else None
        _write_results_json(staging, results, section_seconds, started, t0, stages)
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
        if freeze:
            gc.unfreeze()
    stopping.join()  # the kernel's working folder is the staging folder
    pool.close()  # (already closed: returns at once)
    _swap_into_place(staging, target)
    files_out = tuple(sorted(p.relative_to(target).as_posix()
                             for p in target.rglob("*") if p.is_file()))
    return ReportRun(out_dir=target, files=files_out, sections=tuple(keys),
                     seconds=time.perf_counter() - t0, section_seconds=section_seconds,
                     stage_seconds=stages, pdf_pages=pages)


def _check_run_inputs(site_file, out, sections, formats, notebooks) -> tuple:
    """Validate a run's inputs before anything runs.

    Returns (site path, section keys, formats, notebook folder, report folder, loaded site).
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
    for key in keys:
        check_notebook_parameters(nb_dir / S.SECTIONS[key].notebook, key)
    site = S.context(site_path).site  # loads the site: InputError before anything runs
    return site_path, keys, fmts, nb_dir, target, site


def _document(res) -> dict:
    """A section's canonical JSON form (figures by name only: known before they are drawn)."""
    return json.loads(_canonical(res.to_dict()))


@dataclasses.dataclass
class _SectionRun:
    """The computing side of one report run.

    Sections computed in report order and handed to the presenter as their figures are
    drawn; results.json's content and the workbook.
    """

    site: object
    site_path: pathlib.Path
    site_rel: str
    input_hashes: dict
    keys: list
    fmts: tuple[str, ...]
    doc_date: datetime.datetime
    staging: pathlib.Path
    stages: dict
    ready: queue.Queue
    computed: dict = dataclasses.field(default_factory=dict)
    documents: dict = dataclasses.field(default_factory=dict)  # each section's JSON, once
    waiting: list = dataclasses.field(default_factory=list)
    late_warned: bool = False  # a figure drawn in the pool warned after its section
    # the workbook made by the figure worker from the early results (see compute_all)
    background: dict = dataclasses.field(default_factory=dict)

    def next_done(self, block: bool) -> int | None:
        """The first waiting section (report order) whose figures are drawn.

        The warnings section only once every other section is handed over (a figure drawn
        in the pool may still add a warning to gather).
        """
        waiting = self.waiting
        others = [i for i, (key, _) in enumerate(waiting) if key != "warnings"]
        for i in others or range(len(waiting)):
            if build.section_done(waiting[i][1]):
                return i
        return (others or [0])[0] if block and waiting else None

    def hand_over(self, block: bool) -> None:
        """Write, pickle and hand to the presenter every section whose figures are drawn."""
        while self.waiting and (i := self.next_done(block)) is not None:
            key, res = self.waiting.pop(i)
            warned = res.__dict__.get("_figure_warned")
            build.finish_section(res)
            if res.__dict__.get("_figure_warned") != warned:
                self.late_warned = True
                self.documents[key] = _document(res)
            if key == "warnings" and self.late_warned:
                # gathered before a figure's warning was known: gather again
                res = build.compute_section(key, self.site_path, self.keys,
                                            site_label=self.site_rel, computed=self.computed)
                self.documents[key] = _document(res)
            res.write(self.staging, document=self.documents[key])
            build.save_sections({key: res}, self.staging / build.PICKLE_DIR / f"{key}.pkl")
            self.computed[key] = res
            self.ready.put(key)

    def finish_documents(self) -> tuple[dict, dict]:
        """results.json's content (without timestamps and artifacts) and the cover's data."""
        sections_out = {key: self.documents[key] for key in self.keys if key in self.documents}
        results = results_document(self.site, self.site_path, self.site_rel,
                                   self.input_hashes, self.keys, self.fmts, sections_out,
                                   {"document_utc": self.doc_date.isoformat()})
        return results, S.cover_meta(results, self.site)

    def workbook(self, results) -> None:
        """Write the Excel workbook here (when asked for)."""
        if "xlsx" in self.fmts:
            t = time.perf_counter()
            _write_workbook(self.staging / "tables.xlsx", results)
            self.stages["xlsx_s"] = round(time.perf_counter() - t, 3)

    def workbook_in_pool(self, results) -> None:
        """Queue the Excel workbook in the figure pool (when asked for)."""
        if "xlsx" in self.fmts:
            future = build.run_in_figure_pool(_write_workbook_timed,
                                              self.staging / "tables.xlsx", results)
            if future is not None:
                self.background["xlsx"] = future

    def workbook_done(self, results) -> None:
        """Wait for the workbook queued in the pool, or write it here."""
        # the pool is closed by now: its task either finished or was cancelled before it
        # started (then, or if it failed, the workbook is written here)
        future = self.background.pop("xlsx", None)
        if future is None:
            self.workbook(results)
            return
        try:
            self.stages["xlsx_s"] = round(future.result(), 3)
        except Exception:  # noqa: BLE001 - cancelled or failed there: write it here
            self.workbook(results)

    def compute_all(self, presenting, abort: threading.Event,
                    drawing: contextlib.ExitStack) -> tuple[dict, dict] | None:
        """Compute every section in report order while the presenter presents those handed over.

        Returns the early results (see :meth:`finish_documents`) when made, else None.
        """
        early = None
        try:
            for key in self.keys:
                if presenting.done():
                    break  # a notebook failed: its error is raised below
                built = {**self.computed, **dict(self.waiting)}
                res = build.compute_section(key, self.site_path, self.keys,
                                            site_label=self.site_rel, wait=False,
                                            computed=built)
                self.documents[key] = _document(res)
                self.waiting.append((key, res))
                self.hand_over(block=False)
            if self.waiting and len(self.documents) == len(self.keys):
                # figures still being drawn in the pool: results.json's content and the
                # workbook need none of them, so they are made meanwhile
                early = self.finish_documents()
                # the figure worker writes the workbook next (it needs no figure), while
                # this process draws the figures no worker has started yet (the last ones
                # queued): this process and the worker meet in the middle
                self.workbook_in_pool(early[0])
                while build.draw_queued_figure():
                    self.hand_over(block=False)
                self.hand_over(block=False)
            self.hand_over(block=True)
        except BaseException:
            abort.set()
            for _ in self.keys:
                self.ready.put(None)
            try:
                presenting.result()
            except BaseException:  # noqa: BLE001 - the computation's error is the one to raise
                pass
            raise
        finally:
            drawing.close()
        return early

    def start_outputs(self, early: tuple[dict, dict] | None
                      ) -> tuple[dict, dict, Future | None]:
        """Start typesetting the PDF and make the workbook (unless made early).

        Returns (results, cover data, the PDF's future of its page count or None).
        """
        in_order = {key: self.computed[key] for key in self.keys if key in self.computed}
        # the PDF (and the workbook, unless made above) need the results only: made while
        # the notebooks finish
        if early is None or self.late_warned or len(self.computed) != len(self.keys):
            results, meta = self.finish_documents()
            typesetting = _start_pdf(self.staging, results, self.fmts, meta, self.stages,
                                     in_order)
            self.background.pop("xlsx", None)  # made from results that changed since: again
            self.workbook(results)
        else:
            results, meta = early
            typesetting = _start_pdf(self.staging, results, self.fmts, meta, self.stages,
                                     in_order)
            self.workbook_done(results)
        return results, meta, typesetting


def _write_html(staging: pathlib.Path, fmts: tuple[str, ...], meta: dict, stages: dict) -> None:
    """Assemble report.html from the executed notebooks (when asked for)."""
    if "html" in fmts:
        from hydrocalc.report.assemble import assemble_html

        t = time.perf_counter()
        executed = sorted((staging / "notebooks").glob("*.ipynb"))
        (staging / "report.html").write_text(assemble_html(executed, meta),
                                             encoding="utf-8")
        stages["html_s"] = round(time.perf_counter() - t, 3)


def _write_results_json(staging: pathlib.Path, results: dict, section_seconds: dict,
                        started: str, t0: float, stages: dict) -> None:
    """Complete results.json (timings, artifact hashes) and write it to the staging folder."""
    results["timestamps"]["sections_seconds"] = section_seconds
    shutil.rmtree(staging / build.PICKLE_DIR)
    results["artifacts"] = artifact_hashes(staging)
    results["timestamps"]["started_utc"] = started  # after the PDF embedded results
    results["timestamps"]["finished_utc"] = _utc_now()
    results["timestamps"]["seconds"] = round(time.perf_counter() - t0, 3)
    results["timestamps"]["stages_seconds"] = stages
    (staging / "results.json").write_text(dump_results(results), encoding="utf-8")


class _Aborted(Exception):
    """The computation failed; the notebooks waiting for it stop."""


def _execute_all(job_list: list[dict], staging: pathlib.Path, target: pathlib.Path, *,
                 jobs: int, progress: bool, pool: KernelPool | None,
                 next_ready=None) -> dict:
    """Execute the section notebooks, ``jobs`` at a time.

    On failure keep the staging folder as ``.<name>.failed`` and raise the first section's
    ReportError.

    With ``next_ready`` (a callable returning the key of the next section ready to present,
    blocking until there is one) the notebooks run in the order their sections become
    ready; otherwise in the order of ``job_list``.
    """
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
                             display_path=str(failed_dir / job["output"]), km=km,
                             kc=None if km is None else pool.client(km))
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
