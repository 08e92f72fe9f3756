"""Hydraulics: what happens to a hydrograph once it reaches a structure or a channel.

This layer sits above the hydrology core (:mod:`hydrocalc.runoff`, :mod:`hydrocalc.hydrograph`,
...) and below the criteria, the site file and the analysis. It holds:

- :mod:`hydrocalc.hydraulics.equations` -- building-block equations (orifice, weir, V-notch,
  full pipe, Villemonte submergence); re-exported here, so ``hydrocalc.hydraulics.orifice_flow``
  works as before;
- :mod:`hydrocalc.hydraulics.stage_storage` -- stage-area-storage tables of ponds, vaults and
  chambers;
- :mod:`hydrocalc.hydraulics.outlets` -- outlet devices (orifices, weirs, risers, culverts,
  exfiltration) and multi-stage structures;
- :mod:`hydrocalc.hydraulics.conveyance` -- pipes and channels that carry a hydrograph;
- :mod:`hydrocalc.hydraulics.routing` -- storage-indication (level-pool) routing, with
  tailwater and interconnected ponds;
- :mod:`hydrocalc.hydraulics.sizing` -- outlet sizing against several storms' targets;
- :mod:`hydrocalc.hydraulics.pond_file` -- pond files and their EPA SWMM 5 export.

Modules here import the foundation and the hydrology core, never the criteria, the site file,
the analysis or the products.
"""

from __future__ import annotations

from hydrocalc.hydraulics.equations import (
    MANNING_KU,
    full_pipe_flow,
    manning_full_pipe_flow,
    orifice_flow,
    villemonte_factor,
    vnotch_weir_flow,
    weir_flow,
)

__all__ = [
    "MANNING_KU",
    "full_pipe_flow",
    "manning_full_pipe_flow",
    "orifice_flow",
    "villemonte_factor",
    "vnotch_weir_flow",
    "weir_flow",
]
