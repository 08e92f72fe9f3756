"""Vertical orifices: :class:`CircularOrifice` and :class:`RectangularOrifice`.

Q = cd A sqrt(2 g h) with h to the centre of the opening once the crown is submerged; while
the opening is partly submerged, SWMM 5's rule (weir-type flow that joins the orifice
equation continuously at the crown). References as in :mod:`hydrocalc.hydraulics.outlets`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hydrocalc._validate import fmt_value
from hydrocalc.hydraulics.equations import _villemonte
from hydrocalc.hydraulics.outlets.device import _SQRT_2G, Device, _coef, _nonneg, _positive
from hydrocalc.units import IN_PER_FT


class _VerticalOrifice(Device):
    """Shared rule of vertical orifices (area, height, invert)."""

    cd: float
    invert_ft: float

    @property
    def area_ft2(self) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def height_ft(self) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    @property
    def lowest_ft(self) -> float:
        """Invert of the opening [ft]."""
        return self.invert_ft

    @property
    def crown_ft(self) -> float:
        """Top of the opening [ft]."""
        return self.invert_ft + self.height_ft

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        return (self.invert_ft, self.crown_ft)

    def _flow(self, stage: np.ndarray) -> np.ndarray:
        height = self.height_ft
        c_orif = self.cd * self.area_ft2 * _SQRT_2G          # SWMM cOrif = cd A sqrt(2g)
        c_weir = c_orif * np.sqrt(height / 2.0)              # SWMM cWeir, side orifice
        frac = np.clip((stage - self.invert_ft) / height, 0.0, 1.0)
        head = np.clip(stage - (self.invert_ft + height / 2.0), 0.0, None)
        submerged = stage >= self.crown_ft
        return np.where(submerged, c_orif * np.sqrt(head), c_weir * frac**1.5)

    def _flow_tw(self, stage, tw):
        # SWMM 5 orifice_getInflow [3]_: h1/h2 the higher/lower level, flow from h1 to h2;
        # inlet fully submerged: head = h1 - max(h2, centre); partly submerged: weir-type
        # flow reduced by Villemonte's factor (exponent 1.5) when h2 is above the invert.
        height = self.height_ft
        c_orif = self.cd * self.area_ft2 * _SQRT_2G
        c_weir = c_orif * np.sqrt(height / 2.0)
        h1, h2 = np.maximum(stage, tw), np.minimum(stage, tw)
        sign = np.where(stage >= tw, 1.0, -1.0)
        inv = self.invert_ft
        frac = np.clip((h1 - inv) / height, 0.0, 1.0)
        head = np.clip(h1 - np.maximum(h2, inv + height / 2.0), 0.0, None)
        weir = c_weir * frac * np.sqrt(frac) * _villemonte(h1 - inv, h2 - inv, 1.5)
        return sign * np.where(h1 >= self.crown_ft, c_orif * np.sqrt(head), weir)


_ORIFICE_NOTES = r"""
    Notes
    -----
    Submerged (stage >= crown): Q = cd A sqrt(2 g h), h = stage - (invert + D/2), the head to
    the centre of the opening ([1]_ Ch. 4; [4]_ Ch. 8), g = 32.2 ft/s2.

    Partly submerged (invert < stage < crown), SWMM 5's side-orifice rule [3]_
    (``orifice_getWeirCoeff``/``orifice_getFlow``): Q = cd A sqrt(2 g D/2) f^1.5 with
    f = (stage - invert)/D the submerged fraction of the height D. It is weir-type flow
    (proportional to depth^1.5), zero at the invert and equal to the orifice equation at the
    crown, so the rating is continuous and monotone. The discharge coefficient is the
    orifice's cd throughout (no separate weir coefficient), as in SWMM.

    The outlet is free (no tailwater).
"""


@dataclass(frozen=True, eq=False)
class CircularOrifice(_VerticalOrifice):  # noqa: D101 (docstring built in __doc__: shared notes)
    __doc__ = r"""A circular orifice in a vertical wall.

    Parameters
    ----------
    diameter_in : float
        Diameter of the opening, > 0. [in]
    invert_ft : float
        Stage of the bottom of the opening above the pond bottom, >= 0. [ft]
    cd : float, default 0.6
        Discharge coefficient, sharp-edged orifice ([1]_ Ch. 4; [4]_ Ch. 8). [-]
    name : str, optional
        Label used in ratings and routing results (default ``orifice_<D>in``).

    Raises
    ------
    InputError
        If the diameter is not positive, the invert negative or cd outside (0, 1].
    """ + _ORIFICE_NOTES + r"""
    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 4.
    .. [3] SWMM 5 ``link.c`` (EPA, v5.2); Rossman (2017), EPA/600/R-17/111.
    .. [4] FHWA HEC-22, 3rd ed., 2009, Ch. 8.

    Examples
    --------
    >>> o = CircularOrifice(6.0, 0.0)
    >>> round(o.discharge_cfs(4.25), 4)    # 4 ft over the centre
    1.8908
    >>> round(o.discharge_cfs(0.5), 4)     # crown: weir rule meets the orifice equation
    0.4727
    """

    diameter_in: float
    invert_ft: float
    cd: float = 0.6
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "diameter_in", _positive(
            self.diameter_in, "diameter_in", "Give the orifice diameter in inches"))
        object.__setattr__(self, "invert_ft", _nonneg(
            self.invert_ft, "invert_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "cd", _coef(self.cd, "cd", 1.0))
        self._with_name(f"orifice_{fmt_value(self.diameter_in)}in")

    @property
    def height_ft(self) -> float:
        """Diameter of the opening [ft]."""
        return self.diameter_in / IN_PER_FT

    @property
    def area_ft2(self) -> float:
        """Area of the opening [ft2]."""
        return np.pi * self.height_ft**2 / 4.0


@dataclass(frozen=True, eq=False)
class RectangularOrifice(_VerticalOrifice):  # noqa: D101 (docstring built in __doc__: shared notes)
    __doc__ = r"""A rectangular orifice (slot) in a vertical wall.

    Parameters
    ----------
    width_in, height_in : float
        Width and height of the opening, > 0. [in]
    invert_ft : float
        Stage of the bottom of the opening, >= 0. [ft]
    cd : float, default 0.6
        Discharge coefficient ([1]_ Ch. 4). [-]
    name : str, optional
        Label (default ``rect_orifice_<W>x<H>in``).

    Raises
    ------
    InputError
        If a size is not positive, the invert negative or cd outside (0, 1].
    """ + _ORIFICE_NOTES + r"""
    References
    ----------
    .. [1] Brater et al., Handbook of Hydraulics, 7th ed., 1996, Ch. 4.
    .. [3] SWMM 5 ``link.c`` (EPA, v5.2); Rossman (2017), EPA/600/R-17/111.
    .. [4] FHWA HEC-22, 3rd ed., 2009, Ch. 8.

    Examples
    --------
    >>> o = RectangularOrifice(12.0, 6.0, 1.0)
    >>> round(o.discharge_cfs(3.25), 4)    # 2 ft over the centre: 0.6*0.5*sqrt(64.4*2)
    3.4047
    """

    width_in: float
    height_in: float
    invert_ft: float
    cd: float = 0.6
    name: str = ""

    def __post_init__(self):
        object.__setattr__(self, "width_in", _positive(self.width_in, "width_in"))
        object.__setattr__(self, "height_in", _positive(self.height_in, "height_in"))
        object.__setattr__(self, "invert_ft", _nonneg(
            self.invert_ft, "invert_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "cd", _coef(self.cd, "cd", 1.0))
        self._with_name(
            f"rect_orifice_{fmt_value(self.width_in)}x{fmt_value(self.height_in)}in")

    @property
    def height_ft(self) -> float:
        """Height of the opening [ft]."""
        return self.height_in / IN_PER_FT

    @property
    def area_ft2(self) -> float:
        """Area of the opening [ft2]."""
        return self.width_in * self.height_in / IN_PER_FT**2
