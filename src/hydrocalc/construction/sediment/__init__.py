r"""Sediment traps and basins: storage criteria, geometry, MUSLE sediment yield, cleanout.

Layer 1 (equations, vectorized):

- :func:`trapezoidal_basin_volume`, :func:`trapezoidal_basin_area`,
  :func:`trapezoidal_basin_stage` -- a rectangular-bottom basin with uniform side slopes
  (prismoidal formula, exact for this solid);
- :func:`ls_factor` -- Wischmeier & Smith (1978) topographic factor;
- :func:`musle_yield_t` (metric) and :func:`musle_yield_tons` (US customary) -- Williams
  (1975) MUSLE sediment yield of one runoff event;
- :func:`sediment_volume_ft3` -- mass to volume by a stated dry unit weight.

Layer 2 (tables and containers): the named criteria table
(:func:`criteria_table`, :func:`criteria`), C and P factor look-ups (:func:`c_factor`,
:func:`p_factor`), :func:`required_storage_ft3`, :class:`SedimentTrap` (one trap with its
geometry and MUSLE inputs: required vs provided storage and the cleanout mark) and
:func:`cleanout_schedule` (daily MUSLE accumulation through a construction period).

Cleanout rule. Shelter Island § 110-39B and Pelham ch. 83 (maintenance during construction)
require sediment removal "whenever their design capacity has been reduced by 50%". The
*design capacity* is taken as the storage the trap's geometry provides up to ``depth_ft``
(or the top of the stage-area table), from
:class:`hydrocalc.hydraulics.routing.StageStorage`; without geometry, the required storage
of the criteria. The cleanout mark is the stage at which the accumulated sediment (filling
from the bottom) occupies ``cleanout_frac`` of that capacity.

Modules
-------
====================================================  =============================================
:mod:`hydrocalc.construction.sediment.basin`          trapezoidal basin volume, area and stage
:mod:`hydrocalc.construction.sediment.musle`          LS factor, MUSLE yield, mass to volume
:mod:`hydrocalc.construction.sediment.trap_criteria`  criteria table, required storage, C and P
:mod:`hydrocalc.construction.sediment.traps`          :class:`SedimentTrap`, :class:`TrapCheck`,
                                                      :func:`plan_traps`
:mod:`hydrocalc.construction.sediment.cleanout`       :func:`cleanout_schedule` and its container
====================================================  =============================================

Every name is importable from :mod:`hydrocalc.construction.sediment` itself.

Symbols
-------
=========================  =======  ==========  ===========================================
API name                   Symbol   Unit        Meaning
=========================  =======  ==========  ===========================================
drainage_area_ac           A        ac          drainage area to the trap
storage_ft3                V        ft3         storage below a stage
stage_ft                   h        ft          height above the trap bottom
bottom_length_ft           L        ft          bottom length
bottom_width_ft            W        ft          bottom width
side_slope_h_per_v         z        ft/ft       side slope, horizontal per vertical
runoff_m3, runoff_acft     Q        m3, ac-ft   event runoff volume
peak_m3_s, peak_cfs        qp       m3/s, cfs   event peak runoff rate
k_factor                   K        (US)        soil erodibility (US customary numeric value)
ls_factor                  LS       -           topographic factor
c_factor                   C        -           cover-management factor
p_factor                   P        -           support-practice factor
yield_t, yield_tons        Y        t, ton      sediment yield (metric tonnes; short tons)
slope_length_ft            lambda   ft          slope length
slope_pct                  s        %           slope steepness
dry_unit_weight_lb_ft3     gamma    lb/ft3      dry unit weight of deposited sediment
trap_efficiency_frac       E        -           fraction of the incoming sediment retained
=========================  =======  ==========  ===========================================

References
----------
.. [1] Williams, J. R. (1975). Sediment-yield prediction with universal equation using
   runoff energy factor. In *Present and Prospective Technology for Predicting Sediment
   Yields and Sources*, ARS-S-40, USDA Agricultural Research Service, pp. 244-252.
.. [2] Smith, S. J., Williams, J. R., Menzel, R. G., and Coleman, G. A. (1984). Prediction of
   sediment yield from Southern Plains grasslands with the Modified Universal Soil Loss
   Equation. *J. Range Management* 37(4):295-297.
.. [3] Wischmeier, W. H., and Smith, D. D. (1978). *Predicting Rainfall Erosion Losses*,
   USDA Agriculture Handbook 537 (LS equation as transcribed in R package VFS, MUSLE.LS).
.. [4] USDA NRCS Indiana (2000). IN-ENG-38, Estimating Sediment Accumulation in Ponds and
   Sediment Basins.
.. [5] Town of Shelter Island Code § 110-39B; Village of Pelham Code ch. 83 (maintenance
   during construction): 50 % cleanout rule.
.. [6] USDA SCS (1986). TR-55, 2nd ed., Chapter 4 (graphical peak discharge).
"""

from __future__ import annotations

from hydrocalc._typing import FloatOrArray  # noqa: F401 (re-exported)
from hydrocalc.construction.sediment.basin import (  # noqa: F401 (re-exported)
    trapezoidal_basin_area,
    trapezoidal_basin_stage,
    trapezoidal_basin_volume,
)
from hydrocalc.construction.sediment.cleanout import (  # noqa: F401 (re-exported)
    CleanoutSchedule,
    cleanout_schedule,
    plan_cleanout_schedules,
)
from hydrocalc.construction.sediment.musle import (  # noqa: F401 (re-exported)
    M3_PER_ACFT,
    M3_S_PER_CFS,
    MUSLE_A_METRIC,
    MUSLE_A_US_ROUNDED,
    MUSLE_B,
    T_PER_SHORT_TON,
    ls_factor,
    musle_coefficient_us,
    musle_yield_from_hydrograph,
    musle_yield_t,
    musle_yield_tons,
    sediment_volume_ft3,
)
from hydrocalc.construction.sediment.trap_criteria import (  # noqa: F401 (re-exported)
    SedimentCriteria,
    c_factor,
    criteria,
    criteria_keys,
    criteria_table,
    p_factor,
    required_storage_ft3,
)
from hydrocalc.construction.sediment.traps import (  # noqa: F401 (re-exported)
    SedimentTrap,
    TrapCheck,
    plan_traps,
)

__all__ = [
    "MUSLE_A_METRIC",
    "MUSLE_B",
    "MUSLE_A_US_ROUNDED",
    "musle_coefficient_us",
    "trapezoidal_basin_volume",
    "trapezoidal_basin_area",
    "trapezoidal_basin_stage",
    "ls_factor",
    "musle_yield_t",
    "musle_yield_tons",
    "musle_yield_from_hydrograph",
    "sediment_volume_ft3",
    "criteria_table",
    "criteria_keys",
    "criteria",
    "SedimentCriteria",
    "required_storage_ft3",
    "c_factor",
    "p_factor",
    "SedimentTrap",
    "TrapCheck",
    "CleanoutSchedule",
    "cleanout_schedule",
    "plan_traps",
    "plan_cleanout_schedules",
]
