"""The SWPPP hydrology report: section results, notebooks, HTML/PDF, verification.

Modules (imported on use; none is imported by ``import hydrocalc``):

- :mod:`~hydrocalc.report.sections` -- one function per report section returning a
  :class:`~hydrocalc.report.result.SectionResult` (narrative, tables, figures, warnings);
- :mod:`~hydrocalc.report.tables`, :mod:`~hydrocalc.report.figures` -- unit-labelled tables
  and PNG figures;
- :mod:`~hydrocalc.report.build` -- every section computed once per report and handed to
  the notebooks (``build.section``, the notebooks' one call) as a
  :class:`~hydrocalc.report.view.SectionView` (:mod:`~hydrocalc.report.view`: presentation
  rendered by the report run);
- :mod:`~hydrocalc.report.execute` -- :func:`~hydrocalc.report.execute.run_report`:
  validation, Papermill execution of the section notebooks (``report/notebooks``) in a warm
  kernel, assembly, atomic replacement of the report folder;
- :mod:`~hydrocalc.report.assemble` -- the self-contained HTML from the executed notebooks;
- :mod:`~hydrocalc.report.typeset` -- the PDF (typst) from the section results, with the
  inputs and results.json attached; :mod:`~hydrocalc.report.pdf` -- PDF pages to PNG;
- :mod:`~hydrocalc.report.verify` -- re-computation and comparison of a report folder;
- :mod:`~hydrocalc.report.notebook_rules` -- the thin-notebook rules;
- :mod:`~hydrocalc.course.learn` -- the teaching notebooks' lessons.

See ``docs/report.md``.
"""

from __future__ import annotations

__all__ = ["build", "typeset", "sections", "tables", "figures", "execute", "assemble", "pdf",
           "verify", "notebook_rules", "learn", "result", "view"]
