r"""The site file: one validated TOML description of a site analysed before and after development.

:func:`load_site` reads ``site.toml`` (stdlib :mod:`tomllib`) and any CSV files beside it,
checks **everything**, and either returns a :class:`Site` or raises one
:class:`~hydrocalc.errors.InputError` whose message lists every problem, one per line::

    site.toml: post.subcatchment[S-2].area_ac must be > 0; got -3 (line 41)
    site.toml: unknown key post.pond[P-1].outlet[0].diameter_ft; did you mean 'diameter_in'?
        (line 57)
    site.toml: post.design_point[DP-2] is missing from scenario pre; every design point must
        be in both scenarios (line 63)

(the last two messages are wrapped here; each is one line).

The schema is documented field by field in ``docs/site_file.md``. Sections:

``[project]`` and ``[construction]``
    Parsed by :func:`hydrocalc.site.project.parse_project` /
    :func:`~hydrocalc.site.project.parse_construction`.
``[storms]``
    Design-storm depths by name (``"10yr"``), their distribution, or a file in
    ``design_storms/``; and the 90 % rainfall depth for the water-quality volume.
``[analysis]``
    Computation options (time step, peak rate factor, Ia/S ratio).
``[criteria]``
    NY SMDM unified sizing-criteria settings (see :mod:`hydrocalc.criteria.ny`).
``[pre]`` and ``[post]``
    The two scenarios: ``[[pre.subcatchment]]``, ``[[pre.pond]]``, ``[[pre.reach]]``,
    ``[[pre.design_point]]`` (and the same under ``post``). A reach is a lag (``lag_hr``)
    or a routed pipe/channel (``section``, :mod:`hydrocalc.hydraulics.conveyance`); a
    subcatchment with ``method = "rational"`` is parsed by :mod:`hydrocalc.site.rational`.
``[rational]``
    Intensity source of rational-method subcatchments (:mod:`hydrocalc.site.rational`).

The loader is split so that a parsed site can be analysed repeatedly with varied fields
(parameter sweeps): :func:`parse_site` turns a parsed TOML mapping into a :class:`Site`;
every container is a frozen dataclass, so ``dataclasses.replace`` and
:meth:`Site.replace_node` produce variants without re-reading files.

Modules (data flow one way: files and line numbers -> sections -> the site)
---------------------------------------------------------------------------
===================================  ===========================================================
:mod:`hydrocalc.site.model`          the frozen dataclasses (:class:`Site`, :class:`Scenario`, ...)
:mod:`hydrocalc.site.problems`       TOML key -> line scanner (:func:`key_lines`), problems
:mod:`hydrocalc.site.files`          files a site names (CSV tables, confined paths), the site file
:mod:`hydrocalc.site.settings`       ``[storms]``, ``[analysis]``, ``[criteria]``, confirmations
:mod:`hydrocalc.site.subcatchments`  ``[[*.subcatchment]]`` (covers, Tc segments, CSV rows)
:mod:`hydrocalc.site.devices`        outlet, culvert, barrel and storage builders of a pond
:mod:`hydrocalc.site.ponds`          ``[[*.pond]]`` (storage, outlets, stages, tailwater)
:mod:`hydrocalc.site.reaches`        ``[[*.reach]]`` (lag or routed pipe/channel sections)
:mod:`hydrocalc.site.scenario`       ``[pre]`` / ``[post]``: nodes, design points, network checks
:mod:`hydrocalc.site.load`           entry points: :func:`load_site`, :func:`check_site`, ...
===================================  ===========================================================

Every name is importable from :mod:`hydrocalc.site` itself.

Symbols
-------
=============================  ==============================================  ======
Name                           Meaning                                         Unit
=============================  ==============================================  ======
``area_ac``                    subcatchment drainage area                      ac
``cn``                         runoff curve number (TR-55 Tables 2-2a..d)      -
``tc_hr``                      time of concentration                           h
``impervious_connected_ac``    directly connected impervious area              ac
``impervious_unconnected_ac``  unconnected impervious area (TR-55 Fig. 2-4)    ac
``lag_hr``                     reach translation time                          h
``slope_ftft``                 bed slope of a routed reach                     ft/ft
``n``                          Manning's n of a routed reach                   -
``c``                          rational runoff coefficient (HEC-22 Table 3-1)  -
``wqv_precip_in``              90 % rainfall event depth (SMDM Fig. 4.1)       in
``depths_in``                  24-hour design-storm depths by storm name       in
=============================  ==============================================  ======

References
----------
.. [1] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds," Technical
   Release 55, 2nd ed., 1986 (curve numbers, Figs. 2-3 and 2-4, travel time).
.. [2] New York State Department of Environmental Conservation, "New York State Stormwater
   Management Design Manual," Albany, NY, 2015, Chapter 4 (unified sizing criteria).
"""

from __future__ import annotations

from hydrocalc.site.devices import (  # noqa: F401 (re-exported)
    LEVEL_KEYS,
    OUTLET_FIELDS,
    build_barrel,
    build_device,
    build_outlet,
    build_storage,
    combine_storage,
    device_level_ft,
    storage_top_ft,
)
from hydrocalc.site.files import (  # noqa: F401 (re-exported)
    MAX_CSV_BYTES,
    MAX_CSV_LINE_CHARS,
    MAX_CSV_ROWS,
    MAX_SITE_FILE_BYTES,
    outside_paths_default,
    read_site_file,
)
from hydrocalc.site.load import (  # noqa: F401 (re-exported)
    check_site,
    load_site,
    parse_site,
    site_problems,
)
from hydrocalc.site.model import (  # noqa: F401 (re-exported)
    HSGS,
    SCENARIOS,
    AnalysisOptions,
    Cover,
    CriteriaSettings,
    DesignPoint,
    Pond,
    Reach,
    ReportSettings,
    Scenario,
    Site,
    Storms,
    Subcatchment,
    TcSegment,
)
from hydrocalc.site.problems import (  # noqa: F401 (re-exported)
    key_lines,
)
from hydrocalc.site.settings import (  # noqa: F401 (re-exported)
    CONFIRMABLE_CRITERIA,
    CONFIRMATION_ITEMS,
    MAX_24HR_DEPTH_IN,
    analysis_steps_problem,
    confirmation_items,
)

__all__ = [
    "Cover",
    "TcSegment",
    "Subcatchment",
    "Pond",
    "Reach",
    "DesignPoint",
    "Scenario",
    "Storms",
    "CriteriaSettings",
    "AnalysisOptions",
    "ReportSettings",
    "Site",
    "SCENARIOS",
    "load_site",
    "parse_site",
    "check_site",
    "site_problems",
]
