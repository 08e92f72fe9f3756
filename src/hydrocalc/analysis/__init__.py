r"""A site end to end: both scenarios, every storm, every node; pre/post comparison; NY criteria.

:func:`analyze` takes a :class:`hydrocalc.site.Site` and returns :class:`SiteResults`:

1. the design-storm hyetographs (:func:`hydrocalc.rainfall.design_storm`, built once per
   distinct storm and cached);
2. for each scenario, the runoff hydrographs of **all** subcatchments for **all** storms in one
   batch call (:func:`hydrocalc.hydrograph.runoff_hydrographs`, TR-20 method);
3. the network in topological order: flows add at each node, ponds are routed by
   storage-indication for all storms at once (:mod:`hydrocalc.hydraulics.routing`), reaches
   translate their inflow by ``lag_hr`` or, for a pipe or channel, route it by
   variable-parameter Muskingum-Cunge (:func:`hydrocalc.hydraulics.conveyance.route_conveyance`,
   NEH 630 Ch. 17; one call per storm: the scheme is sequential in time); exfiltration leaves
   the network;
4. the pre/post comparison at each design point and storm (peak flow, volume, time of peak,
   change in percent, post <= pre);
5. the sizing criteria of the site's jurisdiction, evaluated by the criteria layer
   (:func:`hydrocalc.criteria.evaluate`; NY SMDM WQv, RRv, Cpv, Qp, Qf in
   :mod:`hydrocalc.criteria.ny_site`) from the :class:`Hydrology` computed here;
6. every warning raised on the way (``warnings.catch_warnings(record=True)``) in
   :attr:`SiteResults.warnings`.

:meth:`SiteResults.to_json` is deterministic: sorted keys, floats to 10 significant digits
(hydrograph ordinates to 6), no timestamps, so the same input gives byte-identical JSON.

Modules (data flow one way: storms -> ponds -> flows -> tables -> results -> run)
---------------------------------------------------------------------------------
===================================  ===========================================================
:mod:`hydrocalc.analysis.storms`     design-storm hyetographs (cached), the simulation end
:mod:`hydrocalc.analysis.ponds`      batch pond routing, interconnected groups, storage look-ups
:mod:`hydrocalc.analysis.flows`      the network walk: node flows per scenario, storm, variant
:mod:`hydrocalc.analysis.tables`     result rows: input echo, nodes, ponds, devices, comparison
:mod:`hydrocalc.analysis.export`     JSON-ready numbers, atomic file and folder writes
:mod:`hydrocalc.analysis.results`    :class:`SiteResults` (accessors, tables, JSON/CSV exports)
:mod:`hydrocalc.analysis.hydrology`  :class:`Hydrology`, the view the criteria layer reads
:mod:`hydrocalc.analysis.run`        entry points: :func:`analyze`, :func:`analyze_many`
===================================  ===========================================================

Every name is importable from :mod:`hydrocalc.analysis` itself.

Symbols
-------
=================  ======  ================================================
Name               Unit    Meaning
=================  ======  ================================================
peak_cfs           ft3/s   largest ordinate of a node's (outflow) hydrograph
time_of_peak_hr    h       time of that ordinate
volume_ft3         ft3     volume under the hydrograph
runoff_in          in      volume over the node's upstream area
peak_stage_ft      ft      largest pond stage (above the pond bottom)
peak_storage_ft3   ft3     largest pond storage
discarded_ft3      ft3     volume leaving a pond by exfiltration
=================  ======  ================================================

References
----------
.. [1] USDA NRCS, "National Engineering Handbook Part 630 Hydrology," Ch. 16 (hydrographs)
   and Ch. 17 (flood routing), 2007-2014.
.. [2] NYSDEC, "New York State Stormwater Management Design Manual," 2015, Chapter 4.
"""

from __future__ import annotations

from hydrocalc.analysis.export import (  # noqa: F401 (re-exported)
    INLINE_MAX_ORDINATES,
    read_hydrographs,
    round_significant,
    with_suppress_unlink,
    write_series,
)
from hydrocalc.analysis.hydrology import (  # noqa: F401 (re-exported)
    Hydrology,
)
from hydrocalc.analysis.results import (  # noqa: F401 (re-exported)
    RESULTS_FORMAT,
    SiteResults,
)
from hydrocalc.analysis.run import (  # noqa: F401 (re-exported)
    analyze,
    analyze_many,
    load_shipped_tables,
)
from hydrocalc.analysis.storms import (  # noqa: F401 (re-exported)
    simulation_end_hr,
)
from hydrocalc.analysis.tables import (  # noqa: F401 (re-exported)
    criteria_pass_by_point,
)

__all__ = ["analyze", "analyze_many", "load_shipped_tables", "SiteResults", "Hydrology",
           "RESULTS_FORMAT", "INLINE_MAX_ORDINATES", "read_hydrographs", "round_significant",
           "write_series"]
