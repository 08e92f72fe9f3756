"""Flow over a crest: rectangular, V-notch and broad-crested weirs and the riser.

:class:`RectangularWeir`, :class:`VNotchWeir`, :class:`BroadCrestedWeir` and the
:class:`Riser` (weir over the rim or orifice through the top); with a tailwater,
Villemonte's submergence factor. References as in
:mod:`hydrocalc.hydraulics.outlets`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hydrocalc._validate import fmt_value
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.equations import _villemonte
from hydrocalc.hydraulics.outlets.device import (
    _SQRT_2G,
    Device,
    _coef,
    _nonneg,
    _positive,
    _scalar,
)
from hydrocalc.units import IN_PER_FT


@dataclass(frozen=True, eq=False)
class RectangularWeir(Device):
    r"""A sharp-crested rectangular weir, Q = cw L' H^1.5 with L' = L - 0.1 n H.

    Parameters
    ----------
    length_ft : float
        Crest length L, > 0. [ft]
    crest_ft : float
        Stage of the crest, >= 0. [ft]
    cw : float, default 3.33
        Weir coefficient in US units (Francis) [ft^0.5/s]; SWMM's transverse-weir
        coefficient is the same quantity in US units.
    end_contractions : int, default 0
        Number n of end contractions (0, 1 or 2). [-]
    name : str, optional
        Label (default ``weir_<L>ft``).

    Raises
    ------
    InputError
        If the length is not positive, the crest negative, cw not positive or
        end_contractions not 0, 1 or 2.

    Notes
    -----
    Francis formula, [1]_ Ch. 5 and [2]_ Ch. 7 (each end contraction shortens the effective
    crest by 0.1 H); SWMM's TRANSVERSE weir is the same equation [3]_. H = stage - crest.
    Beyond H = 6 L / n, where the formula would decrease with head (far outside its range),
    the effective length is held at 0.4 L (documented in
    :func:`hydrocalc.hydraulics.weir_flow`). No submergence correction (free outfall).

    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 5.
    .. [2] USBR, Water Measurement Manual, 3rd ed., 2001, Ch. 7.
    .. [3] SWMM 5 ``link.c``, ``weir_getFlow``.

    Examples
    --------
    >>> RectangularWeir(10.0, 2.0).discharge_cfs(3.0)
    33.3
    """

    length_ft: float
    crest_ft: float
    cw: float = 3.33
    end_contractions: int = 0
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "length_ft", _positive(self.length_ft, "length_ft"))
        object.__setattr__(self, "crest_ft", _nonneg(
            self.crest_ft, "crest_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "cw", _coef(self.cw, "cw"))
        n = self.end_contractions
        if n not in (0, 1, 2) or isinstance(n, bool):
            raise InputError(f"end_contractions must be 0, 1 or 2; got {n!r}. "
                             "Count the contracted ends of the weir notch")
        self._with_name(f"weir_{fmt_value(self.length_ft)}ft")

    @property
    def lowest_ft(self) -> float:
        """Crest stage [ft]."""
        return self.crest_ft

    def _flow(self, stage):
        head = np.clip(stage - self.crest_ft, 0.0, None)
        eff = np.maximum(self.length_ft - 0.1 * self.end_contractions * head,
                         0.4 * self.length_ft)
        return self.cw * eff * head**1.5

    def _flow_tw(self, stage, tw):
        return _submerged_weir(self, stage, tw, 1.5)


@dataclass(frozen=True, eq=False)
class VNotchWeir(Device):
    r"""A sharp-crested V-notch weir, Q = cw tan(theta/2) H^2.5.

    Parameters
    ----------
    angle_deg : float
        Included angle theta of the notch, in (0, 180). [deg]
    crest_ft : float
        Stage of the vertex of the notch, >= 0. [ft]
    cw : float, default 2.5
        Coefficient in US units, cw = (8/15) Cd sqrt(2g) (2.5 <-> Cd = 0.58) [ft^0.5/s]. SWMM's
        V-notch weir coefficient is the same quantity (SWMM: Q = Cw S H^2.5, S = tan(theta/2)).
    name : str, optional
        Label (default ``vnotch_<theta>deg``).

    Raises
    ------
    InputError
        If the angle is outside (0, 180), the crest negative or cw not positive.

    Notes
    -----
    [1]_ Ch. 5; [2]_ Ch. 7 (Q = 2.49 H^2.48 for a 90-degree notch); [3]_ ``weir_getFlow``.
    The notch is assumed deep enough never to be overtopped.

    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 5.
    .. [2] USBR, Water Measurement Manual, 3rd ed., 2001, Ch. 7.
    .. [3] SWMM 5 ``link.c``.

    Examples
    --------
    >>> round(VNotchWeir(90.0, 1.0).discharge_cfs(2.0), 6)
    2.5
    """

    angle_deg: float
    crest_ft: float
    cw: float = 2.5
    name: str = ""

    def __post_init__(self):
        ang = _scalar(self.angle_deg, "angle_deg", lower=0.0, upper=180.0,
                      lower_inclusive=False, upper_inclusive=False)
        object.__setattr__(self, "angle_deg", ang)
        object.__setattr__(self, "crest_ft", _nonneg(
            self.crest_ft, "crest_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "cw", _coef(self.cw, "cw"))
        self._with_name(f"vnotch_{fmt_value(ang)}deg")

    @property
    def lowest_ft(self) -> float:
        """Vertex stage [ft]."""
        return self.crest_ft

    def _flow(self, stage):
        head = np.clip(stage - self.crest_ft, 0.0, None)
        return self.cw * np.tan(np.radians(self.angle_deg) / 2.0) * head**2.5

    def _flow_tw(self, stage, tw):
        return _submerged_weir(self, stage, tw, 2.5)


@dataclass(frozen=True, eq=False)
class BroadCrestedWeir(Device):
    r"""A broad-crested weir (e.g. an emergency spillway), Q = cw L H^1.5.

    Parameters
    ----------
    length_ft : float
        Crest length, > 0. [ft]
    crest_ft : float
        Stage of the crest, >= 0. [ft]
    cw : float, default 3.0
        Weir coefficient in US units; [1]_ Ch. 5 tabulates 2.6-3.3 for broad-crested weirs
        depending on head and breadth (2.6-3.1 is typical of embankment spillways).
        [ft^0.5/s]
    name : str, optional
        Label (default ``broad_weir_<L>ft``).

    Raises
    ------
    InputError
        If the length is not positive, the crest negative or cw not positive.

    Notes
    -----
    A constant coefficient is used at every head; pick it for the design head from the
    table of [1]_ Ch. 5 or [2]_ Ch. 8.

    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 5.
    .. [2] FHWA HEC-22, 3rd ed., 2009, Ch. 8.

    Examples
    --------
    >>> BroadCrestedWeir(20.0, 5.0).discharge_cfs(6.0)
    60.0
    """

    length_ft: float
    crest_ft: float
    cw: float = 3.0
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "length_ft", _positive(self.length_ft, "length_ft"))
        object.__setattr__(self, "crest_ft", _nonneg(
            self.crest_ft, "crest_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "cw", _coef(self.cw, "cw"))
        self._with_name(f"broad_weir_{fmt_value(self.length_ft)}ft")

    @property
    def lowest_ft(self) -> float:
        """Crest stage [ft]."""
        return self.crest_ft

    def _flow(self, stage):
        head = np.clip(stage - self.crest_ft, 0.0, None)
        return self.cw * self.length_ft * head**1.5

    def _flow_tw(self, stage, tw):
        return _submerged_weir(self, stage, tw, 1.5)


@dataclass(frozen=True, eq=False)
class Riser(Device):
    r"""A vertical riser pipe open at the top: weir flow over the rim or orifice flow.

    Parameters
    ----------
    diameter_in : float
        Inside diameter D of the riser, > 0. [in]
    crest_ft : float
        Stage of the rim, >= 0. [ft]
    cw : float, default 3.33
        Weir coefficient for flow over the rim (US units). [ft^0.5/s]
    cd : float, default 0.6
        Orifice coefficient for flow through the top opening. [-]
    name : str, optional
        Label (default ``riser_<D>in``).

    Raises
    ------
    InputError
        If the diameter is not positive, the crest negative or a coefficient invalid.

    Notes
    -----
    With H = stage - crest ([4]_ Ch. 8, drop inlets/risers; [1]_ Ch. 4-5):

    .. math::

       Q_w = c_w \, \pi D \, H^{1.5}, \qquad
       Q_o = c_d \frac{\pi D^2}{4} \sqrt{2 g H}, \qquad Q = \min(Q_w, Q_o)

    Weir flow over the circumference controls at low heads and orifice flow through the
    horizontal opening (head to the rim plane) at high heads; the switch is at
    H* = cd D sqrt(2g) / (4 cw). The riser's own barrel capacity is not included: give the
    structure a :class:`Barrel` for that.

    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 4-5.
    .. [4] FHWA HEC-22, 3rd ed., 2009, Ch. 8.

    Examples
    --------
    >>> r = Riser(36.0, 4.0)
    >>> round(r.discharge_cfs(4.5), 3)     # weir: 3.33 * pi * 3 * 0.5**1.5
    11.096
    >>> round(r.discharge_cfs(6.0), 3)     # orifice: 0.6 * 7.0686 * sqrt(64.4 * 2)
    48.133
    """

    diameter_in: float
    crest_ft: float
    cw: float = 3.33
    cd: float = 0.6
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "diameter_in", _positive(self.diameter_in, "diameter_in"))
        object.__setattr__(self, "crest_ft", _nonneg(
            self.crest_ft, "crest_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "cw", _coef(self.cw, "cw"))
        object.__setattr__(self, "cd", _coef(self.cd, "cd", 1.0))
        self._with_name(f"riser_{fmt_value(self.diameter_in)}in")

    @property
    def lowest_ft(self) -> float:
        """Rim stage [ft]."""
        return self.crest_ft

    @property
    def transition_head_ft(self) -> float:
        """Head above the rim where orifice flow starts to control [ft]."""
        d = self.diameter_in / IN_PER_FT
        return float(self.cd * d * _SQRT_2G / (4.0 * self.cw))

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        """Stages where the rating changes form: rim, and rim plus the transition head [ft]."""
        return (self.crest_ft, self.crest_ft + self.transition_head_ft)

    def _flow(self, stage):
        d = self.diameter_in / IN_PER_FT
        head = np.clip(stage - self.crest_ft, 0.0, None)
        q_weir = self.cw * np.pi * d * head**1.5
        q_orifice = self.cd * np.pi * d**2 / 4.0 * _SQRT_2G * np.sqrt(head)
        return np.minimum(q_weir, q_orifice)

    def _flow_tw(self, stage, tw):
        # weir over the rim reduced by Villemonte's factor; orifice through the top with the
        # head difference to the higher of the tailwater and the rim
        d = self.diameter_in / IN_PER_FT
        h1, h2 = np.maximum(stage, tw), np.minimum(stage, tw)
        sign = np.where(stage >= tw, 1.0, -1.0)
        head = np.clip(h1 - self.crest_ft, 0.0, None)
        q_weir = (self.cw * np.pi * d * head**1.5
                  * _villemonte(head, h2 - self.crest_ft, 1.5))
        dh = np.clip(h1 - np.maximum(h2, self.crest_ft), 0.0, None)
        q_orifice = self.cd * np.pi * d**2 / 4.0 * _SQRT_2G * np.sqrt(dh)
        return sign * np.minimum(q_weir, q_orifice)


def _submerged_weir(dev, stage, tw, exponent):
    """Weir flow with a tailwater (Villemonte 1947; SWMM 5 ``weir_getInflow``) [ft3/s].

    The free equation at the higher level's head times Villemonte's factor
    [1 - (H2/H1)^n]^0.385, negative (back into the pond) when the tailwater is the higher
    level.
    """
    h1, h2 = np.maximum(stage, tw), np.minimum(stage, tw)
    sign = np.where(stage >= tw, 1.0, -1.0)
    return (sign * dev._flow(h1)
            * _villemonte(h1 - dev.crest_ft, h2 - dev.crest_ft, exponent))
