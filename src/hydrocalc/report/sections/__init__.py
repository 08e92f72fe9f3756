"""The SWPPP hydrology report's sections: one function per section, each returning a result.

Every public section function takes the site file (and, for the hydrology section, the
scenario) plus ``out_dir``, and returns a :class:`~hydrocalc.report.result.SectionResult`
holding the narrative (every number in it formatted from the computation), the tables
(full precision, unit-suffixed columns), the figures (PNG) and every warning raised while
computing it. With a non-empty ``out_dir`` it also writes ``sections/<key>.json``, the CSV
tables and the PNG figures there. The notebooks in ``notebooks/`` call exactly one of these
functions and display the result; ``hydrocalc verify`` calls :func:`build_section` directly.

==================  ==========================  ===============================================
Key                 Function                    Content
==================  ==========================  ===============================================
``project``         :func:`project_summary`     project facts as entered; applicability of the
                                                local law
                                                (:func:`hydrocalc.criteria.regulations.assess`)
                                                and the SWPPP content checklist
``storms``          :func:`design_storms`       depths and their source, hyetographs
``hydrology_pre``   :func:`hydrology`           subcatchments, covers/CN, Tc segments, results
``hydrology_post``  :func:`hydrology`           the same after development
``ponds``           :func:`ponds`               stage-storage-discharge, devices, routed peaks
``comparison``      :func:`comparison`          pre vs post at each design point and storm
``criteria``        :func:`sizing_criteria`     NY SMDM WQv, RRv, Cpv, Qp, Qf
``sediment``        :func:`sediment_traps`      trap volumes, cleanout mark and dates
``inspections``     :func:`inspections`         inspection dates and notices
``methods``         :func:`methods_references`  methods, data tables, references
``warnings``        :func:`all_warnings`        every warning of the computation
==================  ==========================  ===============================================

The computation behind a site (load, analysis, assessment, construction tools) runs once per
process and site-file content (:func:`context`), so a kernel presenting one section does not
repeat work, and the warnings each step raised are kept with it.

Modules of the package (each builds on the ones above it)
---------------------------------------------------------
========================  ========================================================================
``registry``              :class:`SectionSpec`, :data:`SECTIONS`, :data:`ALIASES`,
                          :func:`resolve_sections`
``computation``           :class:`Context`, :func:`context` (once per process), results.json views
``builder``               formatting helpers, echo tables, the section builder,
                          which warnings belong to which section
``project_section``       ``project`` (and :func:`values_to_confirm`)
``storms_section``        ``storms``
``hydrology_section``     ``hydrology_pre``, ``hydrology_post``
``ponds_section``         ``ponds`` (:func:`device_table`, :func:`pond_summary`)
``results_section``       ``comparison``, ``criteria``
``construction_section``  ``sediment``, ``inspections``
``methods_section``       ``methods`` (:func:`tables_used`)
``warnings_section``      ``warnings``
``run``                   :func:`build_section`, :func:`validate_site`, the public
                          section functions, :func:`cover_meta`
========================  ========================================================================

Every name is importable from :mod:`hydrocalc.report.sections` itself.
"""

from __future__ import annotations

# Names the single module imported stay reachable as its attributes (e.g. routing.S_PER_HR).
from hydrocalc.errors import InputError  # noqa: F401 (re-exported)
from hydrocalc.report import figures as F  # noqa: F401 (re-exported)
from hydrocalc.report.figures import Figure  # noqa: F401 (re-exported)
from hydrocalc.report.result import SectionResult  # noqa: F401 (re-exported)
from hydrocalc.report.sections.builder import (  # noqa: F401 (re-exported)
    distribution_label,
    echo_table,
    warning_sections,
)
from hydrocalc.report.sections.computation import (  # noqa: F401 (re-exported)
    Context,
    analysis_dict,
    context,
    dedupe,
    project_facts_dict,
    summary_dict,
)
from hydrocalc.report.sections.hydrology_section import (  # noqa: F401 (re-exported)
    area_listing,
    conveyance_input_table,
    conveyance_result_table,
    rational_table,
    tc_segment_table,
    tc_used_table,
)
from hydrocalc.report.sections.methods_section import (  # noqa: F401 (re-exported)
    tables_used,
)
from hydrocalc.report.sections.ponds_section import (  # noqa: F401 (re-exported)
    device_table,
    pond_summary,
)
from hydrocalc.report.sections.project_section import (  # noqa: F401 (re-exported)
    values_to_confirm,
)
from hydrocalc.report.sections.registry import (  # noqa: F401 (re-exported)
    ALIASES,
    SECTIONS,
    SectionSpec,
    resolve_sections,
)
from hydrocalc.report.sections.run import (  # noqa: F401 (re-exported)
    all_warnings,
    build_section,
    comparison,
    cover_meta,
    design_storms,
    hydrology,
    inspections,
    methods_references,
    ponds,
    project_summary,
    section_parameters,
    sediment_traps,
    sizing_criteria,
    validate_site,
)
from hydrocalc.report.tables import Table, column_unit, md_escape  # noqa: F401 (re-exported)

__all__ = [
    "SECTIONS",
    "ALIASES",
    "SectionSpec",
    "resolve_sections",
    "context",
    "validate_site",
    "section_parameters",
    "build_section",
    "project_summary",
    "design_storms",
    "hydrology",
    "ponds",
    "comparison",
    "sizing_criteria",
    "sediment_traps",
    "inspections",
    "methods_references",
    "all_warnings",
    "project_facts_dict",
    "analysis_dict",
    "cover_meta",
    "summary_dict",
]
