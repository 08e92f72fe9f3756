"""Run the SWPPP hydrology report: the notebooks compute their sections, then assemble, swap in.

:func:`run_report` is what ``hydrocalc report`` calls:

1. **Validate first.** The requested sections and formats are checked, every section
   notebook's parameters must be those :func:`notebook_parameters` gives it, the site file
   is loaded (:func:`hydrocalc.site.load_site` reports every input problem at once) and the
   engineer's own notebooks (``[report] extra_sections``) must be readable notebooks with a
   cell tagged ``parameters`` (:func:`hydrocalc.report.custom.custom_sections`).
2. **Stage.** A folder ``.<name>.partial-XXXX`` is made *beside* the target (same file
   system) with a marker file (:data:`STAGING_MARKER`); staging folders of earlier runs that
   were killed are removed first (:func:`clean_stale_staging`). The site file and every input
   file it reads (the engineer's notebooks included) are copied into ``inputs/`` with their
   SHA-256. Warm kernels start in the background meanwhile.
3. **Compute in the notebooks.** Each section notebook is parameterized (parameters are
   literals only: the injected cell is parsed back and must hold exactly the values passed)
   with ``site_file = "inputs/<site file>"`` and ``out_dir = "."``, and executed with
   Papermill in a warm kernel working in the report folder (its namespace reset between
   notebooks; ``jobs`` kernels at once, each analysing the site once and computing the
   sections it executes, :func:`hydrocalc.report.build.section`). Each notebook writes its
   section's JSON, CSV tables and PNG figures and displays the section once: its HTML and,
   beside it, its data (:data:`hydrocalc.report.result.SECTION_MIME`). The engineer's own
   notebooks follow, with the same parameters. Meanwhile this process analyses the site for
   the ``analysis`` and ``summary`` of ``results.json``.
4. **Assemble from the executed notebooks.** ``results.json`` (every section's tables at
   full precision as the notebooks displayed them, their SHA-256, the inputs' SHA-256, the
   hydrocalc version, the shipped data tables' hashes, the parameters, the SHA-256 of every
   artefact, and timestamps), ``report.html`` (the notebooks' displayed HTML),
   ``report.pdf`` (typst, from the presentations the same notebooks displayed, with the
   inputs and ``results.json`` attached), ``tables.xlsx``.
5. **Swap.** The finished folder replaces the target in two renames. If any notebook
   fails or exceeds ``[report] notebook_timeout_s``, the target is left untouched, the
   staging folder is kept as ``.<name>.failed`` beside it, and one line
   (:class:`~hydrocalc.errors.ReportError`) names the section, the cell and the executed
   notebook to open.

An executed notebook in a report's ``notebooks/`` re-runs as it stands, from the report
folder: ``papermill notebooks/04_hydrology_post.ipynb out.ipynb``.

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
