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
   :func:`hydrocalc.report.build.figure_pool`; 0 draws them here) from the front of the
   queue and, once every section is computed, by this process from its end
   (:func:`hydrocalc.report.build.draw_queued_figure`); as each section's figures
   are done, in report order, its CSV tables, PNG figures and JSON are written and it is
   pickled to ``pickles/<key>.pkl``. A section's JSON names its figures but holds none of
   their pixels, so the content of ``results.json`` and the workbook are made while the
   last figures are being drawn.
4. **Present.** Each section notebook is parameterized (parameters are literals only: the
   injected cell is parsed back and must hold exactly the values passed), with
   ``results_file="pickles/<key>.pkl"``, and executed with Papermill in the warm kernel (its
   namespace reset between notebooks; one client stays connected to it for the whole run):
   it unpickles its section, a
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

Modules (each builds on the ones above it)
------------------------------------------
=========================================  =======================================================
:mod:`hydrocalc.report.execute.kernels`    :class:`KernelPool`, the pooled Papermill engine,
                                           :func:`kernel_env`
:mod:`hydrocalc.report.execute.notebooks`  :func:`notebook_dir`, :func:`notebook_parameters`, safe
                                           parameterization, :func:`execute_notebook`
:mod:`hydrocalc.report.execute.staging`    input copies and hashes, staging folders, the swap
:mod:`hydrocalc.report.execute.outputs`    ``results.json``, artefact hashes, PDF start, workbook
:mod:`hydrocalc.report.execute.run`        :func:`run_report`, :class:`ReportRun`,
                                           :func:`plan_jobs`
=========================================  =======================================================

Every name is importable from :mod:`hydrocalc.report.execute` itself.

Timing: see ``benchmarks/bench_report.py`` (the full report against one empty Papermill
notebook that imports hydrocalc, measured in the same run).
"""

from __future__ import annotations

# Names the single module imported stay reachable as its attributes.
from hydrocalc.errors import InputError, ReportError  # noqa: F401 (re-exported)
from hydrocalc.report.execute.interrupts import (  # noqa: F401 (re-exported)
    interrupt_on_terminate,
    terminate_as_interrupt,
)
from hydrocalc.report.execute.kernels import (  # noqa: F401 (re-exported)
    ENGINE_NAME,
    KERNEL_NAME,
    KernelPool,
    close_thread_loop,
    kernel_env,
)
from hydrocalc.report.execute.notebooks import (  # noqa: F401 (re-exported)
    check_notebook_parameters,
    execute_notebook,
    notebook_dir,
    notebook_parameters,
    parameterize_safely,
)
from hydrocalc.report.execute.outputs import (  # noqa: F401 (re-exported)
    ARTIFACT_GLOBS,
    RESULTS_SCHEMA,
    SHEET_NAME_MAX,
    SHEET_SECTION_LABELS,
    artifact_hashes,
    dump_results,
    pdf_attachments,
    results_document,
    sheet_name,
)
from hydrocalc.report.execute.run import (  # noqa: F401 (re-exported)
    FORMATS,
    ReportRun,
    plan_jobs,
    run_report,
)
from hydrocalc.report.execute.staging import (  # noqa: F401 (re-exported)
    STAGING_MARKER,
    clean_stale_staging,
    copy_inputs,
    default_report_dir,
    sha256_file,
)

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
