"""The SWPPP hydrology report: section results, notebooks, HTML/PDF, verification.

Modules (imported on use; none is imported by ``import hydrocalc``):

- :mod:`~hydrocalc.report.sections` -- one function per report section returning a
  :class:`~hydrocalc.report.result.SectionResult` (narrative, tables, figures, warnings);
- :mod:`~hydrocalc.report.tables`, :mod:`~hydrocalc.report.figures` -- unit-labelled tables
  and PNG figures;
- :mod:`~hydrocalc.report.execute` -- :func:`~hydrocalc.report.execute.run_report`:
  validation, Papermill execution of ``notebooks/`` (shipped in ``report/notebooks``),
  assembly, atomic replacement of the report folder;
- :mod:`~hydrocalc.report.assemble`, :mod:`~hydrocalc.report.pdf` -- the self-contained HTML
  and its PDF (WeasyPrint), PDF pages to PNG;
- :mod:`~hydrocalc.report.verify` -- re-computation and comparison of a report folder;
- :mod:`~hydrocalc.report.notebook_rules` -- the thin-notebook rules;
- :mod:`~hydrocalc.report.learn` -- the teaching notebooks' lessons.

See ``docs/report.md``.
"""

from __future__ import annotations

__all__ = ["sections", "tables", "figures", "execute", "assemble", "pdf", "verify",
           "notebook_rules", "learn", "result"]
