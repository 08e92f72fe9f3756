r"""Building-block hydraulic equations for outlet structures (US customary units).

Pure, vectorized equations; the device classes of :mod:`hydrocalc.hydraulics.outlets` combine them
(geometry, inverts, partial-submergence rules). Every function takes heads and sizes in feet
and returns discharge in ft3/s; negative heads give zero flow (the water is below the
opening or crest).

Symbols
-------
=================  ========  ==================================================
API name           Unit      Meaning
=================  ========  ==================================================
head_ft            ft        head on the opening (see each function)
area_ft2           ft2       area of an orifice opening
length_ft          ft        weir crest length, barrel length
diameter_ft        ft        pipe diameter
cd                 -         orifice discharge coefficient
cw                 ft^0.5/s  weir coefficient (US units: Q [cfs] = cw L H^1.5)
end_contractions   -         number of end contractions of a rectangular weir
angle_deg          deg       included angle of a V-notch
n                  s/ft^1/3  Manning roughness
ke                 -         entrance-loss coefficient
g                  ft/s2     32.2 (``hydrocalc.units.GRAVITY_FT_S2``)
=================  ========  ==================================================

References
----------
.. [1] Brater, E.F., King, H.W., Lindell, J.E. and Wei, C.Y., *Handbook of Hydraulics*,
   7th ed., McGraw-Hill, 1996. Ch. 4 (orifices), Ch. 5 (weirs: Francis formula with end
   contractions, triangular weirs, broad-crested weir coefficients 2.6-3.3 in US units).
.. [2] U.S. Bureau of Reclamation, *Water Measurement Manual*, 3rd ed. (revised), 2001,
   Ch. 7 (sharp-crested rectangular weirs with end contractions, V-notch weirs).
.. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
   Hydraulics*, EPA/600/R-17/111, U.S. EPA, 2017 (orifice and weir links), and the SWMM 5
   source, ``src/solver/link.c`` (``orifice_getWeirCoeff``, ``orifice_getFlow``,
   ``weir_getFlow``).
.. [4] Schall, J.D., Thompson, P.L., Zerges, S.M., Kilgore, R.T. and Morris, J.L.,
   *Hydraulic Design of Highway Culverts*, HDS-5, 3rd ed., FHWA-HIF-12-026, 2012,
   Ch. 3 (outlet control, full flow: H = [1 + ke + 29 n^2 L / R^(4/3)] V^2 / 2g).
.. [5] Villemonte, J.R., "Submerged-weir discharge studies", *Engineering News-Record*,
   vol. 139, no. 26, pp. 54-56, 25 December 1947 (Q/Q1 = [1 - (H2/H1)^n]^0.385).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array, like
from hydrocalc.units import GRAVITY_FT_S2, MANNING_KU

__all__ = [
    "MANNING_KU",
    "orifice_flow",
    "weir_flow",
    "vnotch_weir_flow",
    "full_pipe_flow",
    "manning_full_pipe_flow",
    "villemonte_factor",
]

#: Friction-loss constant of HDS-5's full-flow equation: 2 g / ku^2 = 29.01 (printed 29).
_KF_CONSTANT = 2.0 * GRAVITY_FT_S2 / MANNING_KU**2


def orifice_flow(head_ft: npt.ArrayLike, area_ft2: npt.ArrayLike, *, cd: float = 0.6):
    r"""Flow through a submerged orifice, Q = cd A sqrt(2 g h) [ft3/s].

    Parameters
    ----------
    head_ft : array_like
        Head on the orifice: water level minus the centre of the opening for a vertical
        orifice, minus the plane of the opening for a horizontal one. Heads <= 0 give 0. [ft]
    area_ft2 : array_like
        Area of the opening, > 0. [ft2]
    cd : float, default 0.6
        Discharge coefficient (sharp-edged orifice, [1]_ Ch. 4). [-]

    Returns
    -------
    float, ndarray or Series
        Discharge. [ft3/s]

    Raises
    ------
    InputError
        If ``area_ft2`` is not positive or ``cd`` not in (0, 1].

    Notes
    -----
    Torricelli's law with a discharge coefficient, [1]_ Ch. 4; SWMM uses the same form
    (``cOrif = cd A sqrt(2g)``) [3]_. g = 32.2 ft/s2.

    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 4.
    .. [3] Rossman, SWMM Reference Manual Vol. II, EPA/600/R-17/111, 2017.

    Examples
    --------
    >>> round(orifice_flow(4.0, 0.19635), 4)   # 6-in orifice under 4 ft of head
    1.8908
    """
    h = as_float_array(head_ft, "head_ft", allow_inf=False)
    a = as_float_array(area_ft2, "area_ft2", lower=0.0, lower_inclusive=False)
    c = float(as_float_array(cd, "cd", lower=0.0, lower_inclusive=False, upper=1.0))
    q = c * a * np.sqrt(2.0 * GRAVITY_FT_S2 * np.clip(h, 0.0, None))
    return like(q, head_ft, area_ft2)


def weir_flow(head_ft: npt.ArrayLike, length_ft: npt.ArrayLike, *, cw: float = 3.33,
              end_contractions: int = 0):
    r"""Rectangular (or broad-crested) weir, Q = cw L' H^1.5, L' = L - 0.1 n H [ft3/s].

    Parameters
    ----------
    head_ft : array_like
        Head above the crest; <= 0 gives 0. [ft]
    length_ft : array_like
        Crest length L, > 0. [ft]
    cw : float, default 3.33
        Weir coefficient in US units (Francis: 3.33 for a sharp-crested weir; 2.6-3.3 for
        broad-crested weirs, [1]_ Ch. 5). [ft^0.5/s]
    end_contractions : int, default 0
        Number n of end contractions (0, 1 or 2). [-]

    Returns
    -------
    float, ndarray or Series
        Discharge. [ft3/s]

    Notes
    -----
    Francis formula with end contractions, [1]_ Ch. 5 and [2]_ Ch. 7; SWMM's transverse
    weir uses the same L - 0.1 n H reduction [3]_. The formula decreases with head beyond
    H = 6 L / n (far outside its range of validity); there the effective length is held at
    0.4 L, its value at H = 6 L / n, so the rating stays monotone (SWMM instead clips
    L' at 0).

    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 5.
    .. [2] USBR, Water Measurement Manual, 3rd ed., 2001, Ch. 7.
    .. [3] SWMM 5 ``link.c``, ``weir_getFlow`` (TRANSVERSE_WEIR).

    Examples
    --------
    >>> weir_flow(1.0, 10.0)
    33.3
    >>> round(weir_flow(1.0, 10.0, end_contractions=2), 3)   # 3.33 (10 - 0.2) 1
    32.634
    """
    h = np.clip(as_float_array(head_ft, "head_ft"), 0.0, None)
    length = as_float_array(length_ft, "length_ft", lower=0.0, lower_inclusive=False)
    n = float(as_float_array(end_contractions, "end_contractions", lower=0.0, upper=2.0))
    c = float(as_float_array(cw, "cw", lower=0.0, lower_inclusive=False))
    eff = np.maximum(length - 0.1 * n * h, 0.4 * length)
    q = c * eff * h**1.5
    return like(q, head_ft, length_ft)


def vnotch_weir_flow(head_ft: npt.ArrayLike, angle_deg: npt.ArrayLike, *, cw: float = 2.5):
    r"""V-notch (triangular) weir, Q = cw tan(theta/2) H^2.5 [ft3/s].

    Parameters
    ----------
    head_ft : array_like
        Head above the vertex of the notch; <= 0 gives 0. [ft]
    angle_deg : array_like
        Included angle theta of the notch, in (0, 180). [deg]
    cw : float, default 2.5
        Coefficient in US units; cw = (8/15) Cd sqrt(2g), so 2.5 corresponds to Cd = 0.58
        ([1]_ Ch. 5; [2]_ Ch. 7 gives Q = 2.49 H^2.48 for a 90-degree notch). SWMM's V-notch
        weir uses Q = Cw S H^2.5 with S = tan(theta/2) [3]_. [ft^0.5/s]

    Returns
    -------
    float, ndarray or Series
        Discharge. [ft3/s]

    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 5.
    .. [2] USBR, Water Measurement Manual, 3rd ed., 2001, Ch. 7.
    .. [3] SWMM 5 ``link.c``, ``weir_getFlow`` (VNOTCH_WEIR) and ``xsect.c`` (TRIANGULAR).

    Examples
    --------
    >>> round(vnotch_weir_flow(1.0, 90.0), 6)
    2.5
    """
    h = np.clip(as_float_array(head_ft, "head_ft"), 0.0, None)
    ang = as_float_array(angle_deg, "angle_deg", lower=0.0, upper=180.0, lower_inclusive=False,
                         upper_inclusive=False)
    c = float(as_float_array(cw, "cw", lower=0.0, lower_inclusive=False))
    q = c * np.tan(np.radians(ang) / 2.0) * h**2.5
    return like(q, head_ft, angle_deg)


def full_pipe_flow(head_ft: npt.ArrayLike, diameter_ft: float, length_ft: float, *,
                   n: float = 0.013, ke: float = 0.5):
    r"""Full-flow (outlet-control) capacity of a circular barrel for a given head [ft3/s].

    Solves the energy equation of HDS-5 [1]_ Ch. 3 for the velocity,

    .. math::

       H = \left(1 + k_e + \frac{29\,n^2 L}{R^{4/3}}\right)\frac{V^2}{2g}, \qquad
       Q = A V, \quad A = \pi D^2 / 4, \quad R = D / 4

    (29 is 2g/k_u^2 = 29.01 with k_u = 1.49, used unrounded here).

    Parameters
    ----------
    head_ft : array_like
        H, the difference between the headwater and the hydraulic grade line at the
        outlet; <= 0 gives 0. [ft]
    diameter_ft, length_ft : float
        Barrel diameter D and length L, > 0. [ft]
    n : float, default 0.013
        Manning roughness (concrete pipe). [s/ft^(1/3)]
    ke : float, default 0.5
        Entrance-loss coefficient (square-edged headwall, HDS-5 Appendix). [-]

    Returns
    -------
    float or ndarray
        Discharge. [ft3/s]

    References
    ----------
    .. [1] Schall et al., Hydraulic Design of Highway Culverts, HDS-5, 3rd ed.,
       FHWA-HIF-12-026, 2012, Ch. 3.

    Examples
    --------
    >>> round(full_pipe_flow(2.0, 1.5, 50.0), 3)
    12.928
    """
    h = np.clip(as_float_array(head_ft, "head_ft"), 0.0, None)
    d = float(as_float_array(diameter_ft, "diameter_ft", lower=0.0, lower_inclusive=False))
    length = float(as_float_array(length_ft, "length_ft", lower=0.0, lower_inclusive=False))
    area = np.pi * d**2 / 4.0
    r = d / 4.0
    kf = _KF_CONSTANT * n**2 * length / r ** (4.0 / 3.0)
    q = area * np.sqrt(2.0 * GRAVITY_FT_S2 * h / (1.0 + ke + kf))
    return like(q, head_ft)


def manning_full_pipe_flow(diameter_ft: float, slope_ftft: float, *, n: float = 0.013) -> float:
    r"""Manning capacity of a circular pipe flowing just full, Q = (1.49/n) A R^(2/3) S^(1/2).

    Parameters
    ----------
    diameter_ft : float
        Pipe diameter, > 0. [ft]
    slope_ftft : float
        Barrel slope, >= 0. [ft/ft]
    n : float, default 0.013
        Manning roughness. [s/ft^(1/3)]

    Returns
    -------
    float
        Discharge. [ft3/s]

    References
    ----------
    .. [1] Chow, V.T., *Open-Channel Hydraulics*, McGraw-Hill, 1959, Ch. 5 (Manning formula).

    Examples
    --------
    >>> round(manning_full_pipe_flow(1.5, 0.01), 3)
    10.533
    """
    d = float(as_float_array(diameter_ft, "diameter_ft", lower=0.0, lower_inclusive=False))
    s = float(as_float_array(slope_ftft, "slope_ftft", lower=0.0))
    area = np.pi * d**2 / 4.0
    return float(MANNING_KU / n * area * (d / 4.0) ** (2.0 / 3.0) * np.sqrt(s))


def villemonte_factor(upstream_head_ft: npt.ArrayLike, downstream_head_ft: npt.ArrayLike,
                      exponent: float = 1.5):
    r"""Villemonte's submerged-weir reduction factor, Q_s / Q_free = [1 - (H2/H1)^n]^0.385.

    Parameters
    ----------
    upstream_head_ft : array_like
        Head H1 of the upstream water level above the crest (or invert). [ft]
    downstream_head_ft : array_like
        Head H2 of the downstream (tailwater) level above the same crest; <= 0 is a free
        outfall. [ft]
    exponent : float, default 1.5
        n, the exponent of the weir's free-flow equation Q = C H^n: 1.5 for rectangular
        weirs, 2.5 for V-notch weirs. [-]

    Returns
    -------
    float or ndarray
        Factor in [0, 1]: 1 when H2 <= 0, 0 when H2 >= H1 (no head difference). [-]

    Notes
    -----
    Villemonte (1947) [5]_, from sharp-crested weir tests: :math:`Q_s = Q_1 [1 - (H_2/H_1)^n]
    ^{0.385}`, with :math:`Q_1` the free discharge at the upstream head :math:`H_1`. SWMM 5
    applies the same equation to submerged weirs and to partly submerged orifices ([3]_
    ``weir_getInflow``, ``orifice_getInflow``).

    References
    ----------
    .. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
       Hydraulics*, EPA/600/R-17/111, U.S. EPA, 2017 (orifice and weir links), and the SWMM 5
       source, ``src/solver/link.c`` (``orifice_getWeirCoeff``, ``orifice_getFlow``,
       ``weir_getFlow``).
    .. [5] Villemonte, J.R., "Submerged-weir discharge studies", *Engineering News-Record*,
       vol. 139, no. 26, pp. 54-56, 25 December 1947 (Q/Q1 = [1 - (H2/H1)^n]^0.385).

    Examples
    --------
    >>> round(float(villemonte_factor(1.0, 0.5)), 4)      # (1 - 0.5**1.5)**0.385
    0.8454
    >>> float(villemonte_factor(1.0, -0.2))
    1.0
    """
    h1 = as_float_array(upstream_head_ft, "upstream_head_ft")
    h2 = as_float_array(downstream_head_ft, "downstream_head_ft")
    return like(_villemonte(h1, h2, float(exponent)), upstream_head_ft)


def _villemonte(h1: np.ndarray, h2: np.ndarray, n: float) -> np.ndarray:
    """Villemonte factor on float arrays (no validation); see :func:`villemonte_factor`."""
    h1, h2 = np.broadcast_arrays(np.asarray(h1, dtype=float), np.asarray(h2, dtype=float))
    out = np.where(h2 >= h1, 0.0, 1.0)      # no head difference: no flow; H2 <= 0: free
    part = (h2 > 0.0) & (h2 < h1)           # only the submerged points need the powers
    if part.any():
        ratio = h2[part] / h1[part]
        out[part] = (1.0 - ratio**n) ** 0.385
    return out
