"""Flow that leaves the system through the pond's soil: :class:`Exfiltration`.

A constant rate over the wetted, water-surface or bottom area; a "discarded" outflow.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import numpy as np

from hydrocalc._validate import check_choice
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets.device import Device, _nonneg
from hydrocalc.units import IN_PER_FT, S_PER_HR

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
        interface; see :meth:`hydrocalc.hydraulics.routing.StageStorage.wetted_area_ft2`),
        "surface" = plan area of the water surface at the current stage, "bottom" = plan area
        at stage 0.
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
    >>> from hydrocalc.hydraulics.routing import StageStorage
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
        """Exfiltration starts with water in the pond (stage 0) [ft]."""
        return 0.0

    def bind(self, stage_storage) -> Exfiltration:
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
        """Tailwater never acts on exfiltration: infinite [ft]."""
        return np.inf
