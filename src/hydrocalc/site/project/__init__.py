"""Project facts and construction plan: the ``[project]`` and ``[construction]`` site-file tables.

These two frozen dataclasses carry what the regulatory assessment
(:mod:`hydrocalc.criteria.regulations`), the inspection schedule
(:mod:`hydrocalc.construction.inspections`) and the sediment-trap checks
(:mod:`hydrocalc.construction.sediment`) need to know about a project. The parse functions
validate a mapping (a parsed TOML table) and return ``(object_or_None, problems)``:
they never raise on bad content, they collect **every** problem, one line each, in the form
``site.toml: project.disturbed_area_ac must be >= 0; got -3``, so a site loader can report all
of them at once. Unknown keys are problems with a "did you mean" suggestion.

Modules
-------
==========================================  =====================================================
:mod:`hydrocalc.site.project.facts`         ``[project]``: :class:`ProjectFacts`, its checks
                                            and :func:`parse_project`
:mod:`hydrocalc.site.project.construction`  ``[construction]``: milestones, traps, the plan,
                                            their checks and :func:`parse_construction`
:mod:`hydrocalc.site.project.collector`     the profile keys and choice hints both parsers
                                            share (the problem collector is the site
                                            file's, :mod:`hydrocalc.site.problems`)
==========================================  =====================================================

Every name is importable from :mod:`hydrocalc.site.project` itself.

Symbols
-------
============================  ==================================================  ======
Name                          Meaning                                             Unit
============================  ==================================================  ======
``disturbed_area_ac``         area of soil disturbance (land development)         ac
``new_impervious_area_ft2``   new impervious surface created by the project       ft2
``drainage_area_ac``          drainage area to a sediment trap                    ac
``inspection_threshold_in``   daily rainfall that triggers a storm inspection     in
``k_factor``                  USLE/MUSLE soil erodibility K (US customary value)  -
``ls_factor``                 topographic factor LS                               -
``dry_unit_weight_lb_ft3``    dry unit weight of deposited sediment               lb/ft3
``trap_efficiency_frac``      fraction of the incoming sediment the trap retains  -
============================  ==================================================  ======

References
----------
.. [1] Town of Shelter Island Code, Chapter 110, Article II (L.L. 5-2011), sections 110-31 to
   110-41.
.. [2] Village of Pelham Code, Chapter 83 (L.L. 1-2008).
"""

from __future__ import annotations

from hydrocalc._validate import MAX_PROJECT_AREA_AC  # noqa: F401 (re-exported)
from hydrocalc.construction.sediment.traps import trap_problems  # noqa: F401 (re-exported)
from hydrocalc.criteria.profiles import PROJECT_TYPES  # noqa: F401 (re-exported)
from hydrocalc.site.plausibility import project_warnings  # noqa: F401 (re-exported)
from hydrocalc.site.project.construction import (  # noqa: F401 (re-exported)
    INSPECTION_CLOCKS,
    RAINFALL_TYPES,
    STORM_EVENT_READINGS,
    ConstructionPlan,
    Milestone,
    TrapPlan,
    construction_problems,
    parse_construction,
)
from hydrocalc.site.project.facts import (  # noqa: F401 (re-exported)
    MUNICIPALITIES,
    ProjectFacts,
    parse_project,
    project_problems,
)

__all__ = [
    "MUNICIPALITIES",
    "PROJECT_TYPES",
    "ProjectFacts",
    "Milestone",
    "TrapPlan",
    "ConstructionPlan",
    "parse_project",
    "parse_construction",
    "RAINFALL_TYPES",
    "INSPECTION_CLOCKS",
    "STORM_EVENT_READINGS",
    "MAX_PROJECT_AREA_AC",
    "project_problems",
    "project_warnings",
    "trap_problems",
    "construction_problems",
]
