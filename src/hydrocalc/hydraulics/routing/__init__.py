r"""Stage-storage relations and level-pool (storage-indication) routing of detention ponds.

* :class:`StageStorage`: storage as a function of stage above the pond bottom, from a
  stage-area table (conic or average-end-area method), a stage-storage table, a rectangular or
  trapezoidal basin, a drywell/leaching pool with a stone envelope, or the sum of several
  (``+``; e.g. a basin plus chambers).
* :func:`route_reservoir`: routes one inflow hydrograph through one pond and its outlets by the
  storage-indication (modified Puls) method; returns a :class:`RoutingResult`.
* :func:`route_reservoirs`: the batch form, many ponds x many storms in one loop over time,
  vectorized across the batch; returns a :class:`BatchRoutingResult`.
* :func:`size_orifice`, :func:`size_weir`, :func:`size_outlet`: the smallest (and largest)
  orifice diameter or weir length whose routed peaks meet the targets of several storms
  without overtopping, with the margin per storm.
* :func:`pond_from_mapping`, :func:`load_pond`: a pond (storage + outlets) from a TOML table.
* ``estimate_storage_volume`` is re-exported from :mod:`hydrocalc.storage_estimate` (TR-55
  Chapter 6 planning estimate).

Modules (each builds on the ones above it)
------------------------------------------
=============================================  ====================================================
:mod:`hydrocalc.hydraulics.routing.table`      the storage-indication table, device and frame
                                               checks, :class:`OvertoppingWarning`
:mod:`hydrocalc.hydraulics.routing.reservoir`  :func:`route_reservoir`, :class:`RoutingResult`
                                               (one pond, one inflow; constant or time-varying
                                               tailwater)
:mod:`hydrocalc.hydraulics.routing.batch`      :func:`route_reservoirs`,
                                               :class:`BatchRoutingResult` (many ponds x storms
                                               in one loop over time)
=============================================  ====================================================

The stage-storage relation (:mod:`hydrocalc.hydraulics.stage_storage`), outlet sizing
(:mod:`hydrocalc.hydraulics.sizing`), pond files and the SWMM export
(:mod:`hydrocalc.hydraulics.pond_file`) and the TR-55 planning estimate
(:mod:`hydrocalc.storage_estimate`) live in their own modules. Every name is importable
from :mod:`hydrocalc.hydraulics.routing` itself.

Symbols
-------
=====================  ======  ================================================
API name               Unit    Meaning
=====================  ======  ================================================
stage_ft               ft      water level above the pond bottom (stage 0)
storage_ft3            ft3     stored volume at a stage
area_ft2               ft2     plan (water-surface) area at a stage
wetted_area_ft2        ft2     bottom + submerged side area (soil interface)
top_stage_ft           ft      top of the structure (embankment / rim)
inflow_cfs             ft3/s   inflow I
outflow_cfs            ft3/s   total outflow O (primary + discarded)
primary_cfs            ft3/s   outflow to the downstream system
discarded_cfs          ft3/s   exfiltration (leaves the system)
dt_hr                  h       routing time step
=====================  ======  ================================================

References
----------
.. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill, 1988,
   Section 8.2 (level pool routing, storage-indication method, Eq. 8.2.3).
.. [2] USDA NRCS, *National Engineering Handbook*, Part 630 Hydrology, Ch. 17 "Flood
   Routing" (storage-indication routing of reservoirs).
.. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
   Hydraulics*, EPA/600/R-17/111, 2017; SWMM 5 source ``src/solver/table.c``
   (``table_getStorageVolume``: tabular storage by trapezoidal integration of area, i.e.
   the average-end-area method).
"""

from __future__ import annotations

import importlib
import warnings

from hydrocalc._validate import as_float_array, check_choice, fmt_value  # noqa: F401
from hydrocalc.errors import InputError, RangeWarning  # noqa: F401 (re-exported)
from hydrocalc.hydraulics.outlets import (  # noqa: F401 (re-exported)
    Device,
    OutletStructure,
    as_structure,
    unique_names,
)

# Names the single module imported stay reachable as its attributes (e.g. routing.S_PER_HR).
from hydrocalc.hydraulics.routing import kernel as _route_kernel  # noqa: F401 (re-exported)
from hydrocalc.hydraulics.routing.batch import (  # noqa: F401 (re-exported)
    BatchRoutingResult,
    route_reservoirs,
    routing_table,
    tailwater_stages_ft,
)
from hydrocalc.hydraulics.routing.kernel import (  # noqa: F401 (re-exported)
    ENGINES,
    resolve_engine,
    route_split,
)
from hydrocalc.hydraulics.routing.reservoir import (  # noqa: F401 (re-exported)
    RoutingResult,
    route_reservoir,
    tailwater_series,
)
from hydrocalc.hydraulics.routing.table import (  # noqa: F401 (re-exported)
    TABLE_POINTS,
    OvertoppingWarning,
    check_devices,
    interp_ext,
    to_stage_frame,
)
from hydrocalc.hydraulics.stage_storage import (  # noqa: F401 (re-exported)
    StageStorage,
)
from hydrocalc.hydrograph import Hydrograph  # noqa: F401 (re-exported)
from hydrocalc.units import S_PER_HR  # noqa: F401 (re-exported)

__all__ = [
    "StageStorage",
    "RoutingResult",
    "BatchRoutingResult",
    "OvertoppingWarning",
    "route_reservoir",
    "route_reservoirs",
    "routing_table",
    "tailwater_stages_ft",
    "route_split",
    "resolve_engine",
    "ENGINES",
    "estimate_storage_volume",
]

# Re-export of the TR-55 Chapter 6 planning estimate.
from hydrocalc.storage_estimate import estimate_storage_volume  # noqa: E402

#: Names that live in modules built on this package (sizing, pond files and the SWMM export)
#: and stay reachable here for one release, with a DeprecationWarning naming their address.
_MOVED_NAMES = {
    "SizingResult": "hydrocalc.hydraulics.sizing",
    "size_orifice": "hydrocalc.hydraulics.sizing",
    "size_outlet": "hydrocalc.hydraulics.sizing",
    "size_weir": "hydrocalc.hydraulics.sizing",
    "Pond": "hydrocalc.hydraulics.pond_file",
    "load_pond": "hydrocalc.hydraulics.pond_file",
    "pond_from_mapping": "hydrocalc.hydraulics.pond_file",
    "to_swmm_inp": "hydrocalc.hydraulics.pond_file",
}


def __getattr__(name):
    # sizing and pond_file import this package's modules; reaching them through an import
    # statement here would make the package and them one circle.
    if name in _MOVED_NAMES:
        warnings.warn(f"hydrocalc.hydraulics.routing.{name} moved to {_MOVED_NAMES[name]}.{name} "
                      "in hydrocalc 0.3; the old address will be removed in 0.4",
                      DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(_MOVED_NAMES[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
