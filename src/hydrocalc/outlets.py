r"""Outlet devices of detention ponds and their stage-discharge ratings.

Each device is a small frozen object with a ``discharge_cfs(stage_ft)`` method, vectorized
over stage. Stage is measured from the pond bottom (0), the same datum as
:class:`hydrocalc.routing.StageStorage` (a pond given in elevations is routed with its
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
* :class:`Culvert` (defined in :mod:`hydrocalc.culvert`, re-exported here): FHWA HDS-5 inlet
  and outlet control of one or more circular or box barrels; a device alone or the
  ``barrel=`` of an :class:`OutletStructure`.
* :class:`Exfiltration`: a constant rate over the wetted, water-surface or bottom area. It needs
  the pond's stage-area relation, which it gets through :meth:`Exfiltration.bind` (the routing
  functions bind it automatically).
* :class:`OutletStructure`: devices in parallel (flows add), optionally discharging into a
  barrel (series: the smaller of the devices' sum and the barrel capacity). Structures nest.

:func:`rating_table` and :func:`rating_figure` give the structure's rating as a DataFrame and
a matplotlib figure.

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

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array, check_choice, fmt_value, like
from hydrocalc.errors import InputError
from hydrocalc.hydraulics import MANNING_KU, _KF_CONSTANT, _villemonte
from hydrocalc.units import GRAVITY_FT_S2, IN_PER_FT, S_PER_HR

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

_SQRT_2G = float(np.sqrt(2.0 * GRAVITY_FT_S2))


def __getattr__(name):
    # Culvert lives in hydrocalc.culvert (which imports this module); re-exported lazily so
    # that the import runs one way (culvert -> outlets).
    if name == "Culvert":
        from hydrocalc.culvert import Culvert

        return Culvert
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: Largest device dimension or stage accepted [ft or in]: a guard against unit slips and
#: float overflow (1e308 squared), far beyond any real outlet.
_MAX_DIMENSION = 1e6


def _not_huge(value: float, name: str) -> float:
    if value > _MAX_DIMENSION:
        raise InputError(f"{name} must be <= {_MAX_DIMENSION:g} (a guard against unit slips); "
                         f"got {fmt_value(value)}. Check the units in the name")
    return value


def _positive(value, name: str, hint: str = "") -> float:
    return _not_huge(float(as_float_array(value, name, lower=0.0, lower_inclusive=False,
                                          hint=hint)), name)


def _nonneg(value, name: str, hint: str = "") -> float:
    return _not_huge(float(as_float_array(value, name, lower=0.0, hint=hint)), name)


def _coef(value, name: str, upper: float | None = None) -> float:
    return float(as_float_array(value, name, lower=0.0, lower_inclusive=False, upper=upper))


def _stage(stage_ft) -> np.ndarray:
    return as_float_array(stage_ft, "stage_ft")


class Device:
    """Base class of every outlet device (see the module docstring).

    Subclasses implement ``_flow(stage)`` on a float ndarray, ``lowest_ft`` (the stage below
    which the device passes nothing) and ``breakpoints_ft`` (stages where the rating has a
    kink, used to build routing tables).
    """

    #: "primary" devices discharge downstream; "discarded" ones (exfiltration) leave the system.
    kind = "primary"
    name: str

    def discharge_cfs(self, stage_ft: npt.ArrayLike, tailwater_ft: npt.ArrayLike | None = None):
        """Discharge at ``stage_ft`` (stage above the pond bottom). [ft3/s]

        Parameters
        ----------
        stage_ft : array_like
            Water level above the pond bottom. [ft]
        tailwater_ft : array_like, optional
            Downstream water level in the same frame (stage above the pond bottom; may be
            negative, i.e. below the bottom). None: free outfall. [ft]

        Returns
        -------
        float, ndarray or Series
            Discharge, following the container of ``stage_ft``; negative when the tailwater
            is above the pond level and drives flow back into the pond. [ft3/s]
        """
        stage = _stage(stage_ft)
        if tailwater_ft is None:
            return like(self._flow(stage), stage_ft)
        tw = as_float_array(tailwater_ft, "tailwater_ft")
        stage, tw = np.broadcast_arrays(stage, tw)
        return like(self._flow_tw(stage, tw), stage_ft)

    def _flow(self, stage: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _flow_tw(self, stage: np.ndarray, tw: np.ndarray) -> np.ndarray:
        """Discharge with a tailwater ``tw`` (stage frame); default: the free rating when the
        tailwater is below the device, else a refusal (device without a submerged rule)."""
        raise InputError(f"{type(self).__name__} '{self.name}' has no tailwater rule; got a "
                         "tailwater. Route it with a free outfall")

    def shifted(self, by_ft: float) -> "Device":
        """A copy with every invert and crest moved by ``by_ft`` (e.g. from elevations to
        stages above the pond bottom: ``by_ft = -bottom elevation``)."""
        changes = {k: getattr(self, k) + by_ft for k in ("invert_ft", "crest_ft")
                   if hasattr(self, k)}
        return dataclasses.replace(self, **changes) if changes else self

    @property
    def lowest_ft(self) -> float:  # pragma: no cover - abstract
        """Stage below which the device passes nothing. [ft]"""
        raise NotImplementedError

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        """Stages where the rating changes form (inverts, crowns, crests). [ft]"""
        return (self.lowest_ft,)

    def bind(self, stage_storage) -> "Device":
        """Return the device bound to a pond's stage-storage (only Exfiltration needs it)."""
        return self

    def leaves(self) -> list["Device"]:
        """The elementary devices (itself for a simple device)."""
        return [self]

    def _components(self, stage: np.ndarray) -> list[tuple["Device", np.ndarray]]:
        """(device, flow) for every elementary device, after any series cap."""
        return [(self, self._flow(stage))]

    def _components_tw(self, stage: np.ndarray,
                       tw: np.ndarray) -> list[tuple["Device", np.ndarray]]:
        """(device, flow) with a tailwater ``tw`` (stage frame). On a 2-D grid the rows
        (first axis) hold one tailwater each and every row the same stages; rows whose
        tailwater is at or below :attr:`free_below_ft` take the free rating,
        which is then identical, so only the rows the tailwater reaches are evaluated."""
        free_below = self.free_below_ft
        if np.ndim(stage) == 2 and stage.shape[0] > 1:
            wet = tw[:, 0] > free_below
            if not wet.all():
                q = np.broadcast_to(self._flow(stage[0]), stage.shape).copy()
                if wet.any():
                    q[wet] = self._flow_tw(stage[wet], tw[wet])
                return [(self, q)]
        elif not (tw > free_below).any():
            return [(self, self._flow(stage))]
        return [(self, self._flow_tw(stage, tw))]

    @property
    def free_below_ft(self) -> float:
        """A tailwater at or below this stage leaves the rating free (identical). [ft]"""
        return self.lowest_ft

    def __add__(self, other):
        if isinstance(other, Device):
            return OutletStructure([self, other])
        return NotImplemented

    def _repr_html_(self) -> str:
        from hydrocalc import display

        return display.html(self)

    def _with_name(self, prefix: str) -> None:
        if not self.name:
            object.__setattr__(self, "name", prefix)


# -- orifices ------------------------------------------------------------------------------
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
        """Invert of the opening. [ft]"""
        return self.invert_ft

    @property
    def crown_ft(self) -> float:
        """Top of the opening. [ft]"""
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
class CircularOrifice(_VerticalOrifice):
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
        """Diameter of the opening. [ft]"""
        return self.diameter_in / IN_PER_FT

    @property
    def area_ft2(self) -> float:
        """Area of the opening. [ft2]"""
        return np.pi * self.height_ft**2 / 4.0


@dataclass(frozen=True, eq=False)
class RectangularOrifice(_VerticalOrifice):
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
        """Height of the opening. [ft]"""
        return self.height_in / IN_PER_FT

    @property
    def area_ft2(self) -> float:
        """Area of the opening. [ft2]"""
        return self.width_in * self.height_in / IN_PER_FT**2


# -- weirs ---------------------------------------------------------------------------------
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
        """Crest stage. [ft]"""
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
        ang = float(as_float_array(self.angle_deg, "angle_deg", lower=0.0, upper=180.0,
                                   lower_inclusive=False, upper_inclusive=False))
        object.__setattr__(self, "angle_deg", ang)
        object.__setattr__(self, "crest_ft", _nonneg(
            self.crest_ft, "crest_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "cw", _coef(self.cw, "cw"))
        self._with_name(f"vnotch_{fmt_value(ang)}deg")

    @property
    def lowest_ft(self) -> float:
        """Vertex stage. [ft]"""
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
        """Crest stage. [ft]"""
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
        """Rim stage. [ft]"""
        return self.crest_ft

    @property
    def transition_head_ft(self) -> float:
        """Head above the rim where orifice flow starts to control. [ft]"""
        d = self.diameter_in / IN_PER_FT
        return float(self.cd * d * _SQRT_2G / (4.0 * self.cw))

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
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


@dataclass(frozen=True, eq=False)
class Barrel(Device):
    r"""A circular outlet barrel (culvert) through the embankment.

    Alone, its discharge is its capacity; as the ``barrel=`` of an :class:`OutletStructure`
    it caps what the devices inside the structure pass (devices in series).

    Parameters
    ----------
    diameter_in : float
        Barrel diameter D, > 0. [in]
    invert_ft : float
        Stage of the barrel's inlet invert, >= 0. [ft]
    length_ft : float
        Barrel length L, > 0. [ft]
    slope_ftft : float
        Barrel slope S, > 0 (the outlet invert is ``invert_ft - S L``, below the pond bottom
        if need be). [ft/ft]
    n : float, default 0.013
        Manning roughness (concrete). [s/ft^(1/3)]
    ke : float, default 0.5
        Entrance-loss coefficient (square-edged projecting/headwall entrance, HDS-5). [-]
    cd : float, default 0.6
        Orifice coefficient of the entrance under inlet control. [-]
    name : str, optional
        Label (default ``barrel_<D>in``).

    Raises
    ------
    InputError
        If a size is not positive ("a barrel smaller than nothing"), the invert negative,
        the slope not positive or a coefficient invalid.

    Notes
    -----
    Capacity = min(inlet control, outlet control), a simplified form of HDS-5 [5]_ Ch. 3:

    * Inlet control: the entrance as a circular orifice of diameter D at ``invert_ft`` with
      ``cd`` (Q = cd A sqrt(2 g h), h to the centre of the entrance; SWMM's partly-submerged
      rule below the crown, see :class:`CircularOrifice`).
    * Outlet control: the larger of (a) the full-flow energy equation
      H = [1 + ke + 29 n^2 L / R^(4/3)] V^2 / 2g with H = stage - (outlet invert + D), i.e.
      the hydraulic grade line at the outlet crown (HDS-5's h_o = (dc + D)/2 with dc = D,
      conservative), and (b) the Manning capacity of the barrel flowing just full
      (1.49/n) A R^(2/3) S^(1/2), which a sloping barrel carries part-full before it
      pressurises.

    Tailwater is ignored (free outfall). Both parts are continuous and non-decreasing in
    stage, so the capacity is too. Flat or adverse barrels (S <= 0) are rejected: they need
    a backwater analysis; model such an outlet as a :class:`CircularOrifice` instead.

    References
    ----------
    .. [5] Schall et al., HDS-5, 3rd ed., FHWA-HIF-12-026, 2012, Ch. 3.

    Examples
    --------
    >>> b = Barrel(18.0, 0.0, 50.0, 0.01)
    >>> round(b.discharge_cfs(6.0), 2)     # inlet control: 0.6 * 1.767 * sqrt(64.4 * 5.25)
    19.5
    """

    diameter_in: float
    invert_ft: float
    length_ft: float
    slope_ftft: float
    n: float = 0.013
    ke: float = 0.5
    cd: float = 0.6
    name: str = ""

    #: may be the ``barrel=`` of an OutletStructure (devices in series)
    _series_barrel = True

    def __post_init__(self):
        object.__setattr__(self, "diameter_in", _positive(
            self.diameter_in, "diameter_in", "A barrel needs a positive diameter"))
        object.__setattr__(self, "invert_ft", _nonneg(
            self.invert_ft, "invert_ft", "Stages are measured up from the pond bottom (0)"))
        object.__setattr__(self, "length_ft", _positive(self.length_ft, "length_ft"))
        object.__setattr__(self, "slope_ftft", _positive(
            self.slope_ftft, "slope_ftft",
            "A flat or adverse barrel needs a backwater analysis; model it as a "
            "CircularOrifice instead"))
        object.__setattr__(self, "n", _coef(self.n, "n"))
        object.__setattr__(self, "ke", _nonneg(self.ke, "ke"))
        object.__setattr__(self, "cd", _coef(self.cd, "cd", 1.0))
        self._with_name(f"barrel_{fmt_value(self.diameter_in)}in")

    @property
    def diameter_ft(self) -> float:
        """Barrel diameter. [ft]"""
        return self.diameter_in / IN_PER_FT

    @property
    def lowest_ft(self) -> float:
        """Inlet invert. [ft]"""
        return self.invert_ft

    @property
    def outlet_invert_ft(self) -> float:
        """Outlet invert (may be below the pond bottom). [ft]"""
        return self.invert_ft - self.slope_ftft * self.length_ft

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        return (self.invert_ft, self.invert_ft + self.diameter_ft)

    def _flow(self, stage):
        d = self.diameter_ft
        area = np.pi * d**2 / 4.0
        inlet = CircularOrifice(self.diameter_in, self.invert_ft, cd=self.cd)._flow(stage)
        kf = _KF_CONSTANT * self.n**2 * self.length_ft / (d / 4.0) ** (4.0 / 3.0)
        head = np.clip(stage - (self.outlet_invert_ft + d), 0.0, None)
        full = area * np.sqrt(2.0 * GRAVITY_FT_S2 * head / (1.0 + self.ke + kf))
        manning = MANNING_KU / self.n * area * (d / 4.0) ** (2.0 / 3.0) * np.sqrt(self.slope_ftft)
        outlet = np.maximum(full, manning)
        return np.where(stage > self.invert_ft, np.minimum(inlet, outlet), 0.0)

    @property
    def free_below_ft(self) -> float:
        return min(self.invert_ft, self.outlet_invert_ft + self.diameter_ft)

    def _flow_tw(self, stage, tw):
        # Forward (pond above tailwater): inlet control as without tailwater; outlet control
        # by the full-flow energy equation with h_o = max(TW, outlet crown) (HDS-5 Ch. 3), the
        # Manning just-full capacity only while the tailwater is below the outlet crown.
        # Reverse (tailwater above the pond): full flow back with the head from the tailwater
        # to the higher of the pond level and the inlet crown.
        d = self.diameter_ft
        area = np.pi * d**2 / 4.0
        kf = _KF_CONSTANT * self.n**2 * self.length_ft / (d / 4.0) ** (4.0 / 3.0)
        resist = 1.0 + self.ke + kf
        crown_out = self.outlet_invert_ft + d
        inlet = CircularOrifice(self.diameter_in, self.invert_ft, cd=self.cd)._flow(stage)
        head = np.clip(stage - np.maximum(tw, crown_out), 0.0, None)
        full = area * np.sqrt(2.0 * GRAVITY_FT_S2 * head / resist)
        manning = MANNING_KU / self.n * area * (d / 4.0) ** (2.0 / 3.0) * np.sqrt(self.slope_ftft)
        outlet = np.where(tw < crown_out, np.maximum(full, manning), full)
        fwd = np.where(stage > self.invert_ft, np.minimum(inlet, outlet), 0.0)
        back_head = np.clip(tw - np.maximum(stage, self.invert_ft + d), 0.0, None)
        back = area * np.sqrt(2.0 * GRAVITY_FT_S2 * back_head / resist)
        return np.where(stage >= tw, fwd, -back)


# -- exfiltration --------------------------------------------------------------------------
_OVER = ("wetted", "surface", "bottom")


@dataclass(frozen=True, eq=False)
class Exfiltration(Device):
    r"""Exfiltration at a constant rate over the wetted, water-surface or bottom area.

    Parameters
    ----------
    rate_in_hr : float
        Exfiltration (infiltration) rate of the native soil, >= 0, design value including any
        safety factor the governing manual requires. [in/h]
    over : {"wetted", "surface", "bottom"}, default "wetted"
        Area the rate applies to: "wetted" = bottom plus submerged side walls (the soil
        interface; see :meth:`hydrocalc.routing.StageStorage.wetted_area_ft2`), "surface" =
        plan area of the water surface at the current stage, "bottom" = plan area at stage 0.
    stage_storage : StageStorage, optional
        The pond whose stage-area relation to use. Usually left out: ``route_reservoir`` and
        ``route_reservoirs`` bind the device to the pond being routed (:meth:`bind`).
    name : str, optional
        Label (default ``exfiltration``).

    Raises
    ------
    InputError
        If the rate is negative or ``over`` is unknown; ``discharge_cfs`` raises if the device
        is not bound to a stage-storage.

    Notes
    -----
    Q = rate / (12 * 3600) * A(stage) for stage > 0 and 0 when the pond is empty (a
    constant-rate "discarded" outflow as in HydroCAD's exfiltration devices). Exfiltration
    leaves the system: routing results report it as ``discarded_cfs``, apart from the
    ``primary_cfs`` that goes downstream. It may not sit inside a structure with a barrel.

    Examples
    --------
    >>> from hydrocalc.routing import StageStorage
    >>> pond = StageStorage.rectangular_basin(100.0, 50.0, 4.0)
    >>> ex = Exfiltration(1.0, over="bottom").bind(pond)
    >>> round(ex.discharge_cfs(2.0), 6)    # 1 in/h over 5000 ft2
    0.115741
    """

    rate_in_hr: float
    over: str = "wetted"
    stage_storage: object = field(default=None, repr=False)
    name: str = ""
    kind = "discarded"

    def __post_init__(self):
        object.__setattr__(self, "rate_in_hr", _nonneg(
            self.rate_in_hr, "rate_in_hr", "Give the design exfiltration rate in in/h"))
        check_choice(self.over, "over", _OVER)
        self._with_name("exfiltration")

    @property
    def lowest_ft(self) -> float:
        """Exfiltration starts with water in the pond (stage 0). [ft]"""
        return 0.0

    def bind(self, stage_storage) -> "Exfiltration":
        """Return a copy bound to ``stage_storage`` (its stage-area relation)."""
        return dataclasses.replace(self, stage_storage=stage_storage)

    def _flow(self, stage):
        ss = self.stage_storage
        if ss is None:
            raise InputError(
                f"Exfiltration '{self.name}' must be bound to a stage-storage; got none. "
                "Use .bind(stage_storage) or route it with route_reservoir, which binds it")
        if self.over == "wetted":
            area = ss._wetted_ext(stage)
        elif self.over == "surface":
            area = ss._area_ext(stage)
        else:
            area = np.full(np.shape(stage), ss._area_ext(np.array([0.0]))[0])
        rate_fps = self.rate_in_hr / IN_PER_FT / S_PER_HR
        return np.where(stage > 0.0, rate_fps * area, 0.0)

    def _flow_tw(self, stage, tw):
        return self._flow(stage)   # to the ground: the tailwater does not act on it

    @property
    def free_below_ft(self) -> float:
        return np.inf


# -- composite -----------------------------------------------------------------------------
class OutletStructure(Device):
    r"""Devices in parallel, optionally discharging through a barrel (in series).

    Parameters
    ----------
    devices : sequence of Device
        Devices in parallel; their flows add. Items may be structures themselves.
    barrel : Barrel or Culvert, optional
        Barrel the devices discharge into; the structure passes the smaller of the devices'
        total and the barrel capacity (HDS-5 / HEC-22 practice for a riser and its barrel).
    name : str, optional
        Label of the structure.

    Raises
    ------
    InputError
        If ``devices`` is empty or holds something that is not a device, if ``barrel`` is not
        a :class:`Barrel` or :class:`Culvert`, or if an :class:`Exfiltration` sits inside a structure with a barrel.

    Notes
    -----
    Series rule: Q = min(sum of device flows, barrel capacity). When the barrel controls,
    each device's reported flow is scaled by the same factor so that the parts still add up
    to the total (the split between devices under barrel control is not otherwise defined).

    Examples
    --------
    >>> s = OutletStructure([CircularOrifice(6, 0.0), Riser(36, 4.0)],
    ...                     barrel=Barrel(18, 0.0, 50.0, 0.01))
    >>> round(s.discharge_cfs(3.0), 3)
    1.568
    >>> round(s.discharge_cfs(6.0), 3)     # riser + orifice exceed the barrel: barrel controls
    19.496
    """

    def __init__(self, devices: Iterable[Device], *, barrel: Device | None = None,
                 name: str = ""):
        if isinstance(devices, Device):
            devices = [devices]
        devices = list(devices)
        if not devices:
            raise InputError("devices must hold at least one outlet device; got none. "
                             "Pass e.g. [CircularOrifice(6, 0.0)]")
        for i, dev in enumerate(devices):
            if not isinstance(dev, Device):
                raise InputError(f"devices must hold outlet devices; got {dev!r} at index {i}. "
                                 "Use CircularOrifice, RectangularWeir, Riser, ...")
        if barrel is not None and not getattr(barrel, "_series_barrel", False):
            raise InputError(f"barrel must be a Barrel or a Culvert; got {barrel!r}")
        if barrel is not None:
            for dev in devices:
                for leaf in dev.leaves():
                    if isinstance(leaf, Exfiltration):
                        raise InputError(
                            f"an Exfiltration ('{leaf.name}') cannot discharge into a barrel; "
                            "got it inside a structure with barrel "
                            f"'{barrel.name}'. List it beside the structure instead")
        self.devices = tuple(devices)
        self.barrel = barrel
        self.name = name or "structure"

    def __repr__(self) -> str:
        extra = f", barrel={self.barrel!r}" if self.barrel is not None else ""
        return f"OutletStructure({list(self.devices)!r}{extra}, name={self.name!r})"

    @property
    def lowest_ft(self) -> float:
        low = min(d.lowest_ft for d in self.devices)
        if self.barrel is not None:
            low = max(low, self.barrel.lowest_ft)
        return low

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        pts = [p for d in self.devices for p in d.breakpoints_ft]
        if self.barrel is not None:
            pts += list(self.barrel.breakpoints_ft)
        return tuple(pts)

    def bind(self, stage_storage) -> "OutletStructure":
        return OutletStructure([d.bind(stage_storage) for d in self.devices],
                               barrel=self.barrel, name=self.name)

    def shifted(self, by_ft: float) -> "OutletStructure":
        return OutletStructure([d.shifted(by_ft) for d in self.devices],
                               barrel=None if self.barrel is None else self.barrel.shifted(by_ft),
                               name=self.name)

    def _components_tw(self, stage, tw):
        """(device, flow) with a tailwater ``tw``. Devices feeding a barrel see the same
        tailwater (the box level is taken as the tailwater); series rule on magnitudes:
        |Q| = min(|sum of devices|, |barrel|), both signed by the pond-tailwater difference."""
        parts = [pair for d in self.devices for pair in d._components_tw(stage, tw)]
        if self.barrel is None:
            return parts
        total = np.sum([q for _, q in parts], axis=0)
        cap = self.barrel._flow_tw(stage, tw)
        mag = np.minimum(np.abs(total), np.abs(cap))
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(np.abs(total) > mag, mag / np.where(total != 0, np.abs(total), 1.0),
                             1.0)
        return [(dev, q * scale) for dev, q in parts]

    def _flow_tw(self, stage, tw):
        return np.sum([q for _, q in self._components_tw(stage, tw)], axis=0)

    def leaves(self) -> list[Device]:
        return [leaf for d in self.devices for leaf in d.leaves()]

    def _components(self, stage):
        parts = [pair for d in self.devices for pair in d._components(stage)]
        if self.barrel is None:
            return parts
        total = np.sum([q for _, q in parts], axis=0)
        cap = self.barrel._flow(stage)
        with np.errstate(invalid="ignore", divide="ignore"):
            scale = np.where(total > cap, cap / np.where(total > 0, total, 1.0), 1.0)
        return [(dev, q * scale) for dev, q in parts]

    def _flow(self, stage):
        return np.sum([q for _, q in self._components(stage)], axis=0)

    def component_flows_cfs(self, stage_ft: npt.ArrayLike) -> dict[str, np.ndarray]:
        """Flow of every elementary device (after any barrel cap), keyed by unique names."""
        stage = _stage(stage_ft)
        names = unique_names([dev for dev, _ in self._components(stage)])
        return {n: q for n, (_, q) in zip(names, self._components(stage))}


def _submerged_weir(dev, stage, tw, exponent):
    """Weir flow with a tailwater: the free equation at the higher level's head times
    Villemonte's factor [1 - (H2/H1)^n]^0.385 (Villemonte 1947; SWMM 5 ``weir_getInflow``),
    negative (back into the pond) when the tailwater is the higher level."""
    h1, h2 = np.maximum(stage, tw), np.minimum(stage, tw)
    sign = np.where(stage >= tw, 1.0, -1.0)
    return (sign * dev._flow(h1)
            * _villemonte(h1 - dev.crest_ft, h2 - dev.crest_ft, exponent))


def unique_names(devices: Sequence[Device]) -> list[str]:
    """Device names made unique by suffixes ``_2``, ``_3`` ... in order of appearance."""
    seen: dict[str, int] = {}
    out = []
    for dev in devices:
        base = dev.name
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}_{seen[base]}")
    return out


def as_structure(outlets) -> OutletStructure:
    """Normalize one device, a list of devices (parallel) or a structure to a structure.

    Raises
    ------
    InputError
        If ``outlets`` is empty or holds something that is not a device.
    """
    if isinstance(outlets, OutletStructure):
        return outlets
    if isinstance(outlets, Device):
        return OutletStructure([outlets], name=outlets.name)
    if isinstance(outlets, (list, tuple)):
        return OutletStructure(outlets)
    raise InputError(f"outlets must be a device, a list of devices or an OutletStructure; "
                     f"got {outlets!r}")


# -- ratings -------------------------------------------------------------------------------
def _rating_stages(structure, stage_ft, stage_storage, n):
    if stage_ft is not None:
        return as_float_array(stage_ft, "stage_ft", lower=0.0)
    if stage_storage is not None:
        top = stage_storage.top_stage_ft
    else:
        top = max(max(structure.breakpoints_ft) * 1.5, 1.0)
    if not 2 <= n <= 100_001:
        raise InputError(f"n must be an integer in [2, 100001] (even stage steps); got {n}")
    grid = np.linspace(0.0, top, n)
    pts = [p for p in structure.breakpoints_ft if 0.0 <= p <= top]
    return np.unique(np.concatenate([grid, pts]))


def rating_table(outlets, stage_ft: npt.ArrayLike | None = None, *, stage_storage=None,
                 n: int = 41):
    """Stage-discharge (and stage-storage) rating of a structure as a DataFrame.

    Parameters
    ----------
    outlets : Device, list of Device or OutletStructure
        The outlet works (a list means devices in parallel).
    stage_ft : array_like, optional
        Stages to tabulate. [ft] Default: ``n`` even steps from 0 to the top of
        ``stage_storage`` (or to 1.5 x the highest device breakpoint) plus every device
        breakpoint (inverts, crowns, crests).
    stage_storage : StageStorage, optional
        Adds ``storage_ft3`` and ``area_ft2`` columns and binds exfiltration devices.
    n : int, default 41
        Number of even steps when ``stage_ft`` is not given.

    Returns
    -------
    pandas.DataFrame
        Columns ``stage_ft``, [``area_ft2``, ``storage_ft3``], one column per elementary
        device (``<name>_cfs``, after any barrel cap) and ``total_cfs``. [ft, ft2, ft3, ft3/s]

    Examples
    --------
    >>> t = rating_table([CircularOrifice(6, 0.0), RectangularWeir(4.0, 3.0)],
    ...                  stage_ft=[0.0, 3.0, 4.0])
    >>> list(t.columns)
    ['stage_ft', 'orifice_6in_cfs', 'weir_4ft_cfs', 'total_cfs']
    >>> round(float(t.total_cfs.iloc[-1]), 3)
    15.151
    """
    import pandas as pd

    structure = as_structure(outlets)
    if stage_storage is not None:
        structure = structure.bind(stage_storage)
    stage = np.atleast_1d(_rating_stages(structure, stage_ft, stage_storage, int(n)))
    cols = {"stage_ft": stage}
    if stage_storage is not None:
        cols["area_ft2"] = stage_storage._area_ext(stage)
        cols["storage_ft3"] = stage_storage._storage_ext(stage)
    parts = structure._components(stage)
    for name, (_, q) in zip(unique_names([d for d, _ in parts]), parts):
        cols[f"{name}_cfs"] = q
    cols["total_cfs"] = np.sum([q for _, q in parts], axis=0)
    return pd.DataFrame(cols)


def rating_figure(outlets, stage_ft: npt.ArrayLike | None = None, *, stage_storage=None,
                  n: int = 81, title: str = ""):
    """Stage-discharge rating as a matplotlib Figure (stage on y, flow on x).

    Parameters are those of :func:`rating_table`; with ``stage_storage`` a second panel shows
    the stage-storage curve. matplotlib is imported here, not at module import.

    Returns
    -------
    matplotlib.figure.Figure
    """
    from matplotlib.figure import Figure

    table = rating_table(outlets, stage_ft, stage_storage=stage_storage, n=n)
    ncols = 2 if stage_storage is not None else 1
    fig = Figure(figsize=(5.0 * ncols, 4.0))
    ax = fig.add_subplot(1, ncols, 1)
    flow_cols = [c for c in table.columns if c.endswith("_cfs") and c != "total_cfs"]
    for col in flow_cols:
        ax.plot(table[col], table.stage_ft, lw=1.0, label=col[:-4])
    ax.plot(table.total_cfs, table.stage_ft, "k-", lw=2.0, label="total")
    ax.set_xlabel("discharge [ft3/s]")
    ax.set_ylabel("stage above bottom [ft]")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    if stage_storage is not None:
        ax2 = fig.add_subplot(1, 2, 2, sharey=ax)
        ax2.plot(table.storage_ft3, table.stage_ft, "b-")
        ax2.axhline(stage_storage.top_stage_ft, color="r", ls="--", lw=1.0, label="top")
        ax2.set_xlabel("storage [ft3]")
        ax2.grid(True, alpha=0.3)
        ax2.legend(fontsize=8)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    return fig
