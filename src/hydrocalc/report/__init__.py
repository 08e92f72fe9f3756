"""The SWPPP hydrology report: section results, notebooks, HTML/PDF, verification.

Modules (imported on use; none is imported by ``import hydrocalc``):

- :mod:`~hydrocalc.report.sections` -- one function per report section returning a
  :class:`~hydrocalc.report.result.SectionResult` (narrative, tables, figures, warnings);
- :mod:`~hydrocalc.report.tables`, :mod:`~hydrocalc.report.figures` -- unit-labelled tables
  and PNG figures;
- :mod:`~hydrocalc.report.build` -- ``build.section``, the section notebooks' one call:
  the section computed in the kernel, displayed with its data beside its HTML;
- :mod:`~hydrocalc.report.custom` -- sections of the engineer's own
  (``[report] extra_sections``);
- :mod:`~hydrocalc.report.papermill_engine` -- the warm-kernel Papermill engine, registered
  through Papermill's ``papermill.engine`` entry point;
- :mod:`~hydrocalc.report.execute` -- :func:`~hydrocalc.report.execute.run_report`:
  validation, Papermill execution of the section notebooks (``report/notebooks``) in warm
  kernels, assembly from the executed notebooks, atomic replacement of the report folder;
- :mod:`~hydrocalc.report.assemble` -- the self-contained HTML from the executed notebooks;
- :mod:`~hydrocalc.report.typeset` -- the PDF (typst) from the sections' presentations, with the
  inputs and results.json attached; :mod:`~hydrocalc.report.pdf` -- PDF pages to PNG;
- :mod:`~hydrocalc.report.verify` -- re-computation and comparison of a report folder;
- :mod:`~hydrocalc.report.notebook_rules` -- the thin-notebook rules;
- :mod:`~hydrocalc.course.learn` -- the teaching notebooks' lessons.

See ``docs/report.md``.
"""

from __future__ import annotations

__all__ = ["build", "typeset", "sections", "tables", "figures", "execute", "assemble", "pdf",
           "verify", "notebook_rules", "learn", "result", "custom", "papermill_engine"]
