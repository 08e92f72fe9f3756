"""Compute a report's sections once, hand them to the notebooks, and present one section.

A report analyses its site **once**, in the process that runs ``hydrocalc report``:
:func:`compute_sections` loads and analyses the site (:func:`hydrocalc.report.sections.context`)
and builds every requested :class:`~hydrocalc.report.result.SectionResult`, figures included
(a report run may have the figures drawn by worker processes, :func:`figure_pool`, while
the next sections compute).
:func:`save_sections` pickles each into the report's staging folder (``pickles/<key>.pkl``),
and its section notebook, executed by Papermill with ``results_file`` pointing at that file,
only unpickles the section (a :class:`~hydrocalc.report.view.SectionView`, its presentation
rendered here) and displays it (while the next section is being computed). The pickle is
written and read by the same run (a trusted file in a folder this run created);
``hydrocalc verify`` never reads it, and the pickles are removed before the report folder
is moved into place.

A notebook opened on its own (JupyterLab, as shipped) has ``results_file = ""`` and
computes its section from ``site_file``, so the same notebook works both ways. Its one code
call is::

    result = build.section(KEY, site_file=site_file, results_file=results_file, ...)
"""

from __future__ import annotations

import contextlib
import dataclasses
import multiprocessing
import multiprocessing.connection
import os
import pathlib
import pickle
import sys
import threading
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from hydrocalc.errors import InputError, ReportError

__all__ = ["section", "section_key", "compute_sections", "save_sections", "load_sections",
           "compute_section", "finish_section", "section_done", "figure_pool",
           "draw_queued_figure", "PICKLE_DIR",
           "PICKLE_SCHEMA"]

PICKLE_DIR = "pickles"  #: staging sub-folder holding one ``<key>.pkl`` per section
PICKLE_SCHEMA = "hydrocalc.report.sections-pickle/2"


def section_key(key: str, scenario: str | None = None) -> str:
    """The section key for a notebook's ``KEY`` (``"hydrology"`` + scenario -> ``hydrology_post``).

    Examples
    --------
    >>> section_key("hydrology", "pre"), section_key("ponds")
    ('hydrology_pre', 'ponds')
    """
    from hydrocalc.report import sections as S

    if key == "hydrology":
        if scenario not in ("pre", "post"):
            from hydrocalc._validate import suggest

            raise InputError(f"scenario must be 'pre' or 'post'; got {scenario!r}"
                             f"{suggest(str(scenario), ('pre', 'post'))}")
        key = f"hydrology_{scenario}"
    if key not in S.SECTIONS:
        from hydrocalc._validate import suggest

        raise InputError(f"section must be one of {', '.join(S.SECTIONS)}; got {key!r}"
                         f"{suggest(str(key), list(S.SECTIONS))}")
    return key


def _parameters(key: str, site_file: str, out_dir: str, keys: Sequence[str]) -> dict:
    from hydrocalc.report import sections as S

    return S.section_parameters(key, site_file=site_file, out_dir=out_dir, sections=keys)


def compute_section(key: str, site_file: str | os.PathLike, keys: Sequence[str], *,
                    site_label: str | None = None, out_dir: str = ".", figures: bool = True,
                    wait: bool = True, computed: Mapping | None = None):
    """One section of a report of ``keys``, from the site's one analysis.

    The analysis is cached per process by :func:`hydrocalc.report.sections.context`;
    parameters are recorded with ``site_label`` (default ``site_file``).

    Inside :func:`figure_pool` with ``wait=False`` the section returns while its figures
    are still being drawn in the pool; :func:`finish_section` completes it. ``computed``
    (the sections of ``keys`` built before this one) saves the ``warnings`` section from
    building them again (see :func:`hydrocalc.report.sections.build_section`).
    """
    from hydrocalc.report import sections as S

    res = S.build_section(key, site_file, sections=list(keys), figures=figures,
                          computed=computed)
    label = str(site_file) if site_label is None else site_label
    res.parameters = _parameters(key, label, out_dir, keys)
    return finish_section(res) if wait else res


def section_done(res) -> bool:
    """True when every figure of ``res`` drawn in a :func:`figure_pool` is finished."""
    from hydrocalc.report import sections as S

    return all(fut.done() for _, fut in S.PENDING_FIGURES.get(id(res), ()))


def finish_section(res: Any) -> Any:
    """``res`` with the figures drawn in a :func:`figure_pool` in place.

    Waits for them; a drawing error is raised here.
    """
    from hydrocalc.report import sections as S

    pending = S.PENDING_FIGURES.pop(id(res), [])
    if pending:
        drawn = {}
        raised: list[str] = []
        for placeholder, fut in pending:
            fig = fut.result()
            if isinstance(fig, tuple):  # (figure, warnings the drawing raised)
                fig, warned = fig
                raised.extend(f"{category}: {message}" for category, message in warned)
            drawn[id(placeholder)] = fig
        res.blocks = [(kind, dataclasses.replace(v, png=drawn[id(v)].png,
                                                 caption=drawn[id(v)].caption))
                      if kind == "figure" and id(v) in drawn else (kind, v)
                      for kind, v in res.blocks]
        if raised:
            # as drawn in this process: the section lists them, and the warnings section
            # must not reuse this section's warnings gathered before they were known
            res.warnings = S.dedupe([*res.warnings, *raised])
            res.__dict__["_figure_warned"] = True
    return res


def draw_queued_figure() -> bool:
    """Draw here the last figure still waiting for the :func:`figure_pool`; False when none.

    Drawn in this process: the figure is one no worker has started.

    A report run calls it while it would otherwise wait for the pool, so that this process
    and the worker draw the figures from both ends of the queue (same code, same bytes,
    and a warning the drawing raises is reported the same way).
    """
    from hydrocalc.report import figures as F

    queue = F._POOL
    taken = queue.take_last() if queue is not None else None
    if taken is None:
        return False
    future, call = taken
    if future.set_running_or_notify_cancel():
        try:
            future.set_result(F._draw_in_worker(*call))
        except Exception as exc:  # noqa: BLE001 - raised by finish_section, as from the pool
            future.set_exception(exc)
    return True


def run_in_figure_pool(func, *args):
    """A future of ``func(*args)`` run in the worker of the active :func:`figure_pool`, or None.

    None when no pool is active (the caller then runs it itself).

    A report run hands the pool's worker the work that needs neither this process's state
    nor the figures (the Excel workbook) so that it runs on the other core while this
    process draws the last figures. ``func`` must be a module-level function; its
    arguments are pickled. A task still waiting when the pool closes is cancelled (its
    future's ``result()`` raises ``CancelledError``), so a caller that must have it done
    runs it itself then.
    """
    from hydrocalc.report import figures as F

    queue = F._POOL
    return queue.submit_task(func, *args) if queue is not None else None


def _exit_with_parent() -> bool:
    """Exit this figure worker as soon as the report run that forked it ends.

    Even one killed by SIGKILL: a daemon thread waits on
    :func:`multiprocessing.parent_process`'s ``sentinel``. Returns True when the watch was
    started.
    """
    parent = multiprocessing.parent_process()
    if parent is None or parent.sentinel is None:
        return False

    def watch() -> None:
        multiprocessing.connection.wait([parent.sentinel])
        os._exit(1)

    threading.Thread(target=watch, name="hydrocalc-follow-parent", daemon=True).start()
    return True


def _warm_worker() -> None:
    """Import the drawing code in a pool worker before its first task arrives.

    The workbook writer too (see :func:`run_in_figure_pool`); the worker exits with the report
    run (:func:`_exit_with_parent`).
    """
    import gc

    _exit_with_parent()

    import matplotlib.backends.backend_agg  # noqa: F401
    import matplotlib.figure  # noqa: F401
    import openpyxl  # noqa: F401

    # the modules live as long as the worker: the garbage collector need not scan them at
    # each full collection (only the figures' own objects come and go)
    gc.freeze()


@contextlib.contextmanager
def figure_pool(workers: int = 2) -> Iterator[object]:
    """Draw report figures in ``workers`` processes while this process computes.

    matplotlib is not thread-safe, so the figures are drawn in separate processes; each
    drawing function called inside the block returns a future, and a section built with
    ``compute_section(..., wait=False)`` is completed by :func:`finish_section`. The figures
    are the same bytes as when drawn in this process (same code, same matplotlib).

    The workers are forked from this process, all at once, when the block is entered, so
    they share its loaded modules and never re-run the calling script (a ``spawn`` or
    ``forkserver`` worker re-imports an unguarded ``__main__``). Enter the block before
    starting threads of your own. Where ``fork`` is not available (Windows; macOS, where
    it is unsafe) or ``workers`` is 0, the figures are drawn in this process.
    """
    import multiprocessing

    from hydrocalc.report import figures as F

    if (workers <= 0 or F._POOL is not None or sys.platform == "darwin"
            or "fork" not in multiprocessing.get_all_start_methods()):
        yield None
        return
    from concurrent.futures import ProcessPoolExecutor

    executor = ProcessPoolExecutor(max_workers=workers,
                                   mp_context=multiprocessing.get_context("fork"),
                                   initializer=_warm_worker)
    executor.submit(int)  # forks every worker now: they warm up while this process computes
    pool = F.FigureQueue(executor, in_flight=workers + 1)
    F._POOL = pool  # type: ignore[assignment]  # declared as None in figures
    try:
        yield pool
    finally:
        F._POOL = None
        pool.close()
        executor.shutdown(wait=True, cancel_futures=True)


def compute_sections(site_file: str | os.PathLike, keys: Sequence[str], *,
                     site_label: str | None = None, out_dir: str = ".",
                     figures: bool = True) -> dict:
    """Every section in ``keys`` computed from one analysis of the site, in report order.

    Parameters
    ----------
    site_file : path
        The site file (TOML).
    keys : sequence of str
        Section keys (see :data:`hydrocalc.report.sections.SECTIONS`).
    site_label : str, optional
        The site file as recorded in each section's ``parameters`` (default: ``site_file``).
    out_dir : str, default "."
        Recorded in each section's ``parameters``.
    figures : bool, default True
        Draw the figures.

    Returns
    -------
    dict
        Section key -> :class:`~hydrocalc.report.result.SectionResult`.

    Raises
    ------
    InputError
        On any input problem.
    """
    from hydrocalc.report import sections as S

    ctx = S.context(site_file)
    ctx.results  # noqa: B018 - the analysis is part of validation
    out: dict = {}
    for key in keys:
        out[key] = compute_section(key, site_file, keys, site_label=site_label,
                                   out_dir=out_dir, figures=figures, computed=out)
    return out


def save_sections(results: Mapping, path: str | os.PathLike) -> pathlib.Path:
    """Pickle computed sections (key -> SectionResult) to ``path``.

    ``path`` is a ``.pkl`` file in the report's staging folder (trusted: read back only by the
    same run's notebooks).

    Each section is stored as a :class:`~hydrocalc.report.view.SectionView`: its
    presentation rendered here, once, so the notebook that unpickles it only displays it
    (no pandas or matplotlib to import in the kernel); the full result travels with it.
    """
    from hydrocalc.report.view import SectionView

    path = pathlib.Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {"schema": PICKLE_SCHEMA,
               "sections": {key: res if isinstance(res, SectionView) else SectionView(res)
                            for key, res in results.items()}}
    tmp = path.with_name(f".{path.name}.tmp")
    with open(tmp, "wb") as fh:
        pickle.dump(payload, fh, protocol=pickle.HIGHEST_PROTOCOL)
    os.replace(tmp, path)
    return path


def load_sections(results_file: str | os.PathLike) -> dict:
    """The sections pickled by :func:`save_sections` (only for a file this run wrote).

    Raises
    ------
    ReportError
        If the file is not a sections pickle written by hydrocalc.
    """
    path = pathlib.Path(results_file)
    if path.suffix == ".pkl" and path.is_file():
        stat = path.stat()
        stamp = (str(path.resolve()), stat.st_mtime_ns, stat.st_size)
        if _LOADED.get("stamp") == stamp:
            return _LOADED["payload"]
    if path.suffix != ".pkl" or not path.is_file():
        raise ReportError(f"results_file must be a sections file (.pkl) written by the same "
                          f"report run; got {str(results_file)!r}. Leave results_file empty "
                          "to compute the section from site_file.")
    with open(path, "rb") as fh:
        payload = pickle.load(fh)  # noqa: S301 - written by this run into its own folder
    if not isinstance(payload, dict) or payload.get("schema") != PICKLE_SCHEMA:
        raise ReportError(f"{results_file} is not a hydrocalc sections file "
                          f"(schema {PICKLE_SCHEMA})")
    _LOADED.clear()
    _LOADED.update(stamp=stamp, payload=payload)
    return payload


# The last file loaded, kept per process: a warm kernel presenting eleven sections reads
# the file once (its namespace is reset between notebooks; this module stays imported).
_LOADED: dict = {}


def section(key: str, site_file: str = "", results_file: str = "", out_dir: str = "", *,
            scenario: str | None = None, section_keys: Sequence[str] | None = None):
    """The one call a report notebook makes: its section's result, ready to display.

    Parameters
    ----------
    key : str
        Section key, or ``"hydrology"`` with ``scenario``.
    site_file : str
        The site file (TOML); with ``results_file`` empty the section is computed from it.
    results_file : str, default ""
        A sections file (``.pkl``) a report run wrote; the section is read from it (no
        computation).
    out_dir : str, default ""
        When not empty, write ``sections/<key>.json``, the CSV tables and PNG figures there.
    scenario : {"pre", "post"}, optional
        For ``key="hydrology"``.
    section_keys : sequence of str, optional
        For ``key="warnings"``: the sections whose warnings are gathered (default all).

    Returns
    -------
    SectionResult or SectionView
        With ``results_file``, the section's :class:`~hydrocalc.report.view.SectionView`
        (its presentation rendered by the report run; every other attribute is the
        SectionResult's).

    Raises
    ------
    InputError
        Unknown key, missing or invalid site file.
    ReportError
        ``results_file`` is not this run's sections file or lacks the section.
    """
    if results_file:
        # presenting a report run's section imports nothing heavy: the key is checked
        # against the computed sections, and against the registry only when it is unknown
        wanted = f"hydrology_{scenario}" if key == "hydrology" and scenario in ("pre", "post") \
            else key
        payload = load_sections(results_file)
        res = payload["sections"].get(wanted)
        if res is None:
            key = section_key(key, scenario)
            raise ReportError(f"section '{key}' is not in {results_file}; the report run "
                              f"computed {', '.join(payload['sections']) or 'none'}")
    else:
        from hydrocalc.report import sections as S

        key = section_key(key, scenario)
        keys = list(section_keys) if section_keys else None
        res = S.build_section(key, site_file, sections=keys, figures=True)
        res.parameters = _parameters(key, site_file, out_dir, keys or list(S.SECTIONS))
    if out_dir:
        res.write(out_dir)
    return res
