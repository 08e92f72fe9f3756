"""Unit-suffix vocabulary and conversion constants (US customary).

Every dimensional quantity in hydrocalc carries its unit in its name; this module is the
glossary (mirrored in ``docs/nomenclature.md``) and holds the few exact conversion factors.

===========  ==============================  =====================
Suffix       Unit                            Example
===========  ==============================  =====================
``_in``      inch (depth)                    ``precip_in``
``_in_hr``   inch per hour                   ``rate_in_hr``
``_ft``      foot                            ``length_ft``
``_ft2``     square foot                     ``area_ft2``
``_ft3``     cubic foot                      ``storage_ft3``
``_ac``      acre                            ``area_ac``
``_mi2``     square mile                     ``area_mi2``
``_acft``    acre-foot                       ``volume_acft``
``_hr``      hour                            ``tc_hr``
``_min``     minute                          ``dt_min``
``_s``       second                          ``time_s``
``_cfs``     cubic foot per second           ``peak_cfs``
``_fps``     foot per second                 ``velocity_fps``
``_ftft``    slope, ft/ft                    ``slope_ftft``
``_pct``     percent (0-100)                 ``impervious_pct``
``_frac``    fraction (0-1)                  ``cumulative_frac``
``_csm_in``  cfs per square mile per inch    ``unit_peak_csm_in``
===========  ==============================  =====================
"""

from __future__ import annotations

FT2_PER_AC = 43_560.0  #: square feet per acre (exact, US survey definition of the acre)
AC_PER_MI2 = 640.0  #: acres per square mile (exact)
FT2_PER_MI2 = FT2_PER_AC * AC_PER_MI2  #: square feet per square mile
IN_PER_FT = 12.0  #: inches per foot (exact)
S_PER_HR = 3_600.0  #: seconds per hour (exact)
MIN_PER_HR = 60.0  #: minutes per hour (exact)
GRAVITY_FT_S2 = 32.2  #: gravitational acceleration used by US hydraulics practice [ft/s2]
#: Manning's constant in US customary units, 1.49 ft^(1/3)/s: the one value used across the
#: package (Tc channel flow, reaches, pipes, barrels). It is the value of TR-55 (1986) Eq. 3-4
#: and NEH 630 Ch. 15, so the NRCS worked examples reproduce at their printed precision; the
#: unrounded conversion (1 m / 0.3048 m)^(1/3) = 1.4859 (Chow, *Open-Channel Hydraulics*,
#: 1959, Sec. 6-2; FHWA HDS-5, 2012, Ch. 3: k_u = 1.486) is 0.27 % lower.
MANNING_KU = 1.49
M3_PER_FT3 = 0.3048**3  #: cubic metres per cubic foot (exact, international foot)
M_PER_FT = 0.3048  #: metres per foot (exact)
LB_PER_SHORT_TON = 2_000.0  #: pounds per short ton (exact)
KG_PER_LB = 0.45359237  #: kilograms per pound (exact)


def ac_to_mi2(area_ac):
    """Convert acres to square miles [mi2]."""
    return area_ac / AC_PER_MI2


def mi2_to_ac(area_mi2):
    """Convert square miles to acres [ac]."""
    return area_mi2 * AC_PER_MI2


def ac_in_to_ft3(area_ac, depth_in):
    """Volume of ``depth_in`` inches over ``area_ac`` acres [ft3]."""
    return area_ac * FT2_PER_AC * depth_in / IN_PER_FT


def ft3_to_acft(volume_ft3):
    """Convert cubic feet to acre-feet [acft]."""
    return volume_ft3 / FT2_PER_AC
