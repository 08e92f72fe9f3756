r"""Outlet devices of detention ponds and their stage-discharge ratings.

Each device is a small frozen object with a ``discharge_cfs(stage_ft)`` method, vectorized
over stage. Stage is measured from the pond bottom (0), the same datum as
:class:`hydrocalc.hydraulics.routing.StageStorage` (a pond given in elevations is routed with its
devices moved into that frame by :meth:`Device.shifted`). Devices discharge freely unless a
tailwater level is given (``discharge_cfs(stage_ft, tailwater_ft=...)``): orifices and barrels
then use the head difference, weirs Villemonte's submergence factor, and a tailwater above the
pond level drives flow back into the pond (negative discharge).

* :class:`CircularOrifice`, :class:`RectangularOrifice`: vertical orifices,
  Q = cd A sqrt(2 g h) with h to the centre of the opening once the crown is submerged; while
  the opening is partly submerged, SWMM 5's rule (weir-type flow that joins the orifice
  equation continuously at the crown).
* :class:`RectangularWeir` (Francis, with end contractions), :class:`VNotchWeir`,
  :class:`BroadCrestedWeir`.
* :class:`Riser`: a vertical pipe open at the top; weir flow over the rim circumference or
  orifice flow through the top, whichever is smaller.
* :class:`Barrel`: the outlet pipe through the embankment; alone it is a device, as the
  ``barrel=`` of an :class:`OutletStructure` it caps what the devices inside the structure pass
  (devices in series).
* :class:`Culvert` (defined in :mod:`hydrocalc.hydraulics.outlets.culvert`, re-exported
  here): FHWA HDS-5 inlet and outlet control of one or more circular or box barrels; a
  device alone or the ``barrel=`` of an :class:`OutletStructure`.
* :class:`Exfiltration`: a constant rate over the wetted, water-surface or bottom area. It needs
  the pond's stage-area relation, which it gets through :meth:`Exfiltration.bind` (the routing
  functions bind it automatically).
* :class:`OutletStructure`: devices in parallel (flows add), optionally discharging into a
  barrel (series: the smaller of the devices' sum and the barrel capacity). Structures nest.

:func:`rating_table` and :func:`rating_figure` give the structure's rating as a DataFrame and
a matplotlib figure.

Modules (each builds on the ones above it)
------------------------------------------
================================================  =================================================
:mod:`hydrocalc.hydraulics.outlets.device`        the :class:`Device` protocol, shared input checks
:mod:`hydrocalc.hydraulics.outlets.orifices`      :class:`CircularOrifice`,
                                                  :class:`RectangularOrifice`
:mod:`hydrocalc.hydraulics.outlets.weirs`         rectangular, V-notch, broad-crested weirs;
                                                  :class:`Riser`
:mod:`hydrocalc.hydraulics.outlets.barrel`        :class:`Barrel` (the embankment pipe)
:mod:`hydrocalc.hydraulics.outlets.exfiltration`  :class:`Exfiltration` (discarded flow)
:mod:`hydrocalc.hydraulics.outlets.structure`     :class:`OutletStructure`, :func:`as_structure`,
                                                  names
:mod:`hydrocalc.hydraulics.outlets.rating`        :func:`rating_table`, :func:`rating_figure`
================================================  =================================================

Every name is importable from :mod:`hydrocalc.hydraulics.outlets` itself.

Symbols
-------
================  ========  ====================================================
API name          Unit      Meaning
================  ========  ====================================================
stage_ft          ft        water level above the pond bottom
invert_ft         ft        stage of the bottom of an opening
crest_ft          ft        stage of a weir crest or riser rim
diameter_in       in        orifice, riser or barrel diameter
width_in          in        width of a rectangular orifice
height_in         in        height of a rectangular orifice
length_ft         ft        weir crest length or barrel length
angle_deg         deg       included angle of a V-notch weir
cd                -         orifice discharge coefficient
cw                ft^0.5/s  weir coefficient, US units (Q [cfs] = cw L H^1.5)
slope_ftft        ft/ft     barrel slope
n                 -         Manning roughness of the barrel [s/ft^(1/3)]
ke                -         barrel entrance-loss coefficient
rate_in_hr        in/h      exfiltration rate
================  ========  ====================================================

References
----------
.. [1] Brater, E.F., King, H.W., Lindell, J.E. and Wei, C.Y., *Handbook of Hydraulics*,
   7th ed., McGraw-Hill, 1996, Ch. 4 (orifices) and Ch. 5 (weirs).
.. [2] U.S. Bureau of Reclamation, *Water Measurement Manual*, 3rd ed. (revised), 2001, Ch. 7.
.. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
   Hydraulics*, EPA/600/R-17/111, 2017; SWMM 5 source ``src/solver/link.c``
   (``orifice_getWeirCoeff``, ``orifice_getInflow``, ``orifice_getFlow``, ``weir_getFlow``).
.. [4] Federal Highway Administration, *Urban Drainage Design Manual*, HEC-22, 3rd ed.,
   FHWA-NHI-10-009, 2009, Ch. 8 (detention outlet hydraulics: orifices, weirs, risers).
.. [5] Schall, J.D. et al., *Hydraulic Design of Highway Culverts*, HDS-5, 3rd ed.,
   FHWA-HIF-12-026, 2012, Ch. 3 (inlet and outlet control; full-flow energy equation).
"""

from __future__ import annotations

from hydrocalc.hydraulics.outlets.barrel import (  # noqa: F401 (re-exported)
    Barrel,
)
from hydrocalc.hydraulics.outlets.culvert import Culvert  # noqa: F401 (re-exported)
from hydrocalc.hydraulics.outlets.device import (  # noqa: F401 (re-exported)
    Device,
)
from hydrocalc.hydraulics.outlets.exfiltration import (  # noqa: F401 (re-exported)
    Exfiltration,
)
from hydrocalc.hydraulics.outlets.orifices import (  # noqa: F401 (re-exported)
    CircularOrifice,
    RectangularOrifice,
)
from hydrocalc.hydraulics.outlets.rating import (  # noqa: F401 (re-exported)
    rating_figure,
    rating_table,
)
from hydrocalc.hydraulics.outlets.structure import (  # noqa: F401 (re-exported)
    OutletStructure,
    as_structure,
    unique_names,
)
from hydrocalc.hydraulics.outlets.weirs import (  # noqa: F401 (re-exported)
    BroadCrestedWeir,
    RectangularWeir,
    Riser,
    VNotchWeir,
)

__all__ = [
    "Device",
    "CircularOrifice",
    "RectangularOrifice",
    "RectangularWeir",
    "VNotchWeir",
    "BroadCrestedWeir",
    "Riser",
    "Barrel",
    "Culvert",
    "Exfiltration",
    "OutletStructure",
    "as_structure",
    "rating_table",
    "rating_figure",
]

