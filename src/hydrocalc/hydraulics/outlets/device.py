"""The outlet-device protocol: :class:`Device` and the input checks every device shares.

A device is a small frozen object with a vectorized ``discharge_cfs(stage_ft, tailwater_ft)``;
subclasses implement the free rating ``_flow`` and, where they have one, the submerged rule
``_flow_tw``. Stages are measured from the pond bottom (0).
"""

from __future__ import annotations

import dataclasses

import numpy as np
import numpy.typing as npt

from hydrocalc import display
from hydrocalc._validate import as_float_array, excerpt, fmt_value, like, text_problem
from hydrocalc.errors import InputError
from hydrocalc.units import GRAVITY_FT_S2

_SQRT_2G = float(np.sqrt(2.0 * GRAVITY_FT_S2))


#: Largest device dimension or stage accepted [ft or in]: a guard against unit slips and
#: float overflow (1e308 squared), far beyond any real outlet.
_MAX_DIMENSION = 1e6


def _not_huge(value: float, name: str) -> float:
    if value > _MAX_DIMENSION:
        raise InputError(f"{name} must be <= {_MAX_DIMENSION:g} (a guard against unit slips); "
                         f"got {fmt_value(value)}. Check the units in the name")
    return value


def _scalar(value, name: str, **limits) -> float:
    """``value`` as one float checked by :func:`as_float_array` (keywords ``limits``).

    Raises
    ------
    InputError
        If ``value`` is a boolean, a list or an array (one number is expected), or breaks
        ``limits``.
    """
    if isinstance(value, bool | np.bool_) or np.ndim(value) != 0:
        raise InputError(f"{name} must be a number; got {excerpt(repr(value), 60)}")
    return float(as_float_array(value, name, **limits))


def _positive(value, name: str, hint: str = "") -> float:
    return _not_huge(_scalar(value, name, lower=0.0, lower_inclusive=False, hint=hint), name)


def _nonneg(value, name: str, hint: str = "") -> float:
    return _not_huge(_scalar(value, name, lower=0.0, hint=hint), name)


def _coef(value, name: str, upper: float | None = None) -> float:
    return _scalar(value, name, lower=0.0, lower_inclusive=False, upper=upper)


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
        """Discharge at ``stage_ft`` (stage above the pond bottom) [ft3/s].

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
        """Discharge with a tailwater ``tw`` (stage frame).

        Default: the free rating when the tailwater is below the device, else a refusal
        (device without a submerged rule).
        """
        raise InputError(f"{type(self).__name__} '{self.name}' has no tailwater rule; got a "
                         "tailwater. Route it with a free outfall")

    def shifted(self, by_ft: float) -> Device:
        """A copy with every invert and crest moved by ``by_ft``.

        E.g. from elevations to stages above the pond bottom: ``by_ft = -bottom elevation``.
        """
        changes = {k: getattr(self, k) + by_ft for k in ("invert_ft", "crest_ft")
                   if hasattr(self, k)}
        # every concrete device is a dataclass; Device itself only declares the protocol
        return dataclasses.replace(self, **changes) if changes else self  # type: ignore[type-var]

    @property
    def lowest_ft(self) -> float:  # pragma: no cover - abstract
        """Stage below which the device passes nothing [ft]."""
        raise NotImplementedError

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        """Stages where the rating changes form (inverts, crowns, crests) [ft]."""
        return (self.lowest_ft,)

    def bind(self, stage_storage) -> Device:
        """Return the device bound to a pond's stage-storage (only Exfiltration needs it)."""
        return self

    def leaves(self) -> list[Device]:
        """The elementary devices (itself for a simple device)."""
        return [self]

    def _components(self, stage: np.ndarray) -> list[tuple[Device, np.ndarray]]:
        """(device, flow) for every elementary device, after any series cap."""
        return [(self, self._flow(stage))]

    def _components_tw(self, stage: np.ndarray,
                       tw: np.ndarray) -> list[tuple[Device, np.ndarray]]:
        """(device, flow) with a tailwater ``tw`` (stage frame).

        On a 2-D grid the rows
        (first axis) hold one tailwater each and every row the same stages; rows whose
        tailwater is at or below :attr:`free_below_ft` take the free rating,
        which is then identical, so only the rows the tailwater reaches are evaluated.
        """
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
        """A tailwater at or below this stage leaves the rating free (identical) [ft]."""
        return self.lowest_ft

    #: The class that combines devices in parallel (``device_a + device_b``):
    #: :class:`~hydrocalc.hydraulics.outlets.structure.OutletStructure`, which builds on this
    #: module and registers itself here when it is defined (the package imports it), so that
    #: the imports run one way (structure -> device).
    parallel_class = None

    def __add__(self, other):
        if isinstance(other, Device) and Device.parallel_class is not None:
            return Device.parallel_class([self, other])
        return NotImplemented

    def _repr_html_(self) -> str:
        return display.html(self)

    def _with_name(self, prefix: str) -> None:
        """Check the device's name (text) and give it ``prefix`` when it has none."""
        bad = text_problem(self.name)
        if bad:
            raise InputError(f"name {bad}")
        if not self.name:
            object.__setattr__(self, "name", prefix)
