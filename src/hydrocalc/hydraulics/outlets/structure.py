"""Devices combined: :class:`OutletStructure`, :func:`as_structure` and :func:`unique_names`.

An :class:`OutletStructure` combines devices in parallel, optionally into a barrel in
series.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np
import numpy.typing as npt

from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets.device import Device, _stage
from hydrocalc.hydraulics.outlets.exfiltration import Exfiltration


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
        a :class:`Barrel` or :class:`Culvert`, or if an :class:`Exfiltration` sits inside a
        structure with a barrel.

    Notes
    -----
    Series rule: Q = min(sum of device flows, barrel capacity). When the barrel controls,
    each device's reported flow is scaled by the same factor so that the parts still add up
    to the total (the split between devices under barrel control is not otherwise defined).

    Examples
    --------
    >>> from hydrocalc.hydraulics.outlets import Barrel, CircularOrifice, Riser
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
        """Stage below which the structure passes nothing (barrel included) [ft]."""
        low = min(d.lowest_ft for d in self.devices)
        if self.barrel is not None:
            low = max(low, self.barrel.lowest_ft)
        return low

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        """Stages where a device's or the barrel's rating changes form [ft]."""
        pts = [p for d in self.devices for p in d.breakpoints_ft]
        if self.barrel is not None:
            pts += list(self.barrel.breakpoints_ft)
        return tuple(pts)

    def bind(self, stage_storage) -> OutletStructure:
        """Return the structure with every device bound to a pond's stage-storage."""
        return OutletStructure([d.bind(stage_storage) for d in self.devices],
                               barrel=self.barrel, name=self.name)

    def shifted(self, by_ft: float) -> OutletStructure:
        """A copy with every device (and the barrel) moved by ``by_ft`` [ft]."""
        return OutletStructure([d.shifted(by_ft) for d in self.devices],
                               barrel=None if self.barrel is None else self.barrel.shifted(by_ft),
                               name=self.name)

    def _components_tw(self, stage, tw):
        """(device, flow) pairs with a tailwater ``tw``.

        Devices feeding a barrel see the same tailwater (the box level is taken as the tailwater);
        series rule on magnitudes: |Q| = min(|sum of devices|, |barrel|), both signed by the
        pond-tailwater difference.
        """
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
        """The elementary devices of the structure (the barrel excluded)."""
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
        return {n: q for n, (_, q) in zip(names, self._components(stage), strict=True)}


def unique_names(devices: Sequence[Device]) -> list[str]:
    """Device names made unique by suffixes ``_2``, ``_3`` ... in order of appearance."""
    seen: dict[str, int] = {}
    out = []
    for dev in devices:
        base = dev.name
        seen[base] = seen.get(base, 0) + 1
        out.append(base if seen[base] == 1 else f"{base}_{seen[base]}")
    return out


# device_a + device_b -> OutletStructure (Device declares the attribute as None: set here)
Device.parallel_class = OutletStructure  # type: ignore[assignment]


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
