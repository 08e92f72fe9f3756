"""The outlet pipe through the embankment: :class:`Barrel`.

The outlet pipe through the embankment: :class:`Barrel` (HDS-5 inlet and outlet control,
simplified); alone a device, as the ``barrel=`` of an
:class:`~hydrocalc.hydraulics.outlets.OutletStructure` a cap on the devices in series.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from hydrocalc._validate import fmt_value
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.equations import _KF_CONSTANT, MANNING_KU
from hydrocalc.hydraulics.outlets.device import Device, _coef, _nonneg, _positive
from hydrocalc.hydraulics.outlets.orifices import CircularOrifice
from hydrocalc.units import GRAVITY_FT_S2, IN_PER_FT


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
        self._check_friction()
        self._with_name(f"barrel_{fmt_value(self.diameter_in)}in")

    def _check_friction(self) -> None:
        """Refuse sizes whose friction loss 29 n^2 L / R^(4/3) is not finite (an overflow).

        Raises
        ------
        InputError
            One line naming diameter_in, n and length_ft with their values.
        """
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            r = np.float64(self.diameter_ft) / 4.0
            kf = _KF_CONSTANT * np.float64(self.n) ** 2 * self.length_ft / r ** (4.0 / 3.0)
        if not np.isfinite(kf):
            raise InputError(
                f"diameter_in, n and length_ft must give a finite friction loss "
                f"(29 n^2 L / R^(4/3)); got diameter_in = {fmt_value(self.diameter_in)}, "
                f"n = {fmt_value(self.n)}, length_ft = {fmt_value(self.length_ft)}. "
                "Check the units in the names")

    @property
    def diameter_ft(self) -> float:
        """Barrel diameter [ft]."""
        return self.diameter_in / IN_PER_FT

    @property
    def lowest_ft(self) -> float:
        """Inlet invert [ft]."""
        return self.invert_ft

    @property
    def outlet_invert_ft(self) -> float:
        """Outlet invert (may be below the pond bottom) [ft]."""
        return self.invert_ft - self.slope_ftft * self.length_ft

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        """Stages where the rating changes form: the inlet invert and crown [ft]."""
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
        """Tailwater level at or below which the barrel flows free [ft]."""
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
