r"""The storage-indication table of a pond and the checks behind it.

:func:`_build_table` tabulates stage, storage, outflow and the storage indication 2S/dt + O of one
pond and its outlet structure (the stage frame of
:class:`~hydrocalc.hydraulics.stage_storage.StageStorage`, extended above the top with vertical
walls); both routing forms (:mod:`hydrocalc.hydraulics.routing.reservoir`,
:mod:`hydrocalc.hydraulics.routing.batch`) and the tailwater and interconnected solvers route on
it. Also here: the device checks against the structure, the move of devices given in elevations
into the stage frame, the time-step stability note and :class:`OvertoppingWarning`.

References
----------
.. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill, 1988,
   Section 8.2 (level pool routing, storage-indication method, Eq. 8.2.3).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np

from hydrocalc._validate import fmt_value
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydraulics.outlets import Device, OutletStructure, unique_names
from hydrocalc.hydraulics.stage_storage import StageStorage
from hydrocalc.units import S_PER_HR


class OvertoppingWarning(RangeWarning):
    """The routed stage rose above the top of the structure (reported, never hidden)."""


# =========================================================================================
# Storage-indication table
# =========================================================================================
#: Table points above the top (fractions of the top stage): vertical walls, devices continue.
_EXTENSION = np.array([0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0,
                       5.0, 10.0])
#: Default number of evenly spaced stages in the routing table (plus every breakpoint).
TABLE_POINTS = 400
#: Buckets per pond over the normalized storage indication (batch interval search).
_BUCKETS = 4096


@dataclass(frozen=True)
class _Table:
    stage: np.ndarray
    storage: np.ndarray
    outflow: np.ndarray
    si: np.ndarray
    slope: np.ndarray                   # dO/dSI per interval
    parts: tuple                        # ((name, kind, flows at table points), ...)
    top: float
    n_inside: int                       # table points at or below the top
    dt_s: float

    @functools.cached_property
    def bucket(self) -> np.ndarray:
        """Table interval at the lower edge of each of the ``_BUCKETS`` buckets.

        The buckets are of 2S/dt + O normalized by its value at the top (route_reservoirs'
        interval guess); kept with the table, which a batch worker reuses.
        """
        sc = self.si[self.n_inside - 1]
        return np.clip(np.searchsorted(self.si / sc, np.arange(_BUCKETS) / _BUCKETS,
                                       side="left") - 1, 0, self.si.size - 2)

    @functools.cached_property
    def next_si(self) -> np.ndarray:
        """The next table point of each interval, +inf after the last (route_reservoirs)."""
        return np.array(np.append(self.si[1:-1], np.inf).tolist() + [np.inf])


def _table_stages(ss: StageStorage, structure: OutletStructure, points: int) -> np.ndarray:
    top = ss.top_stage_ft
    pts = np.concatenate([np.linspace(0.0, top, int(points)), ss._h,
                          [p for p in structure.breakpoints_ft if 0.0 < p < top],
                          top * (1.0 + _EXTENSION)])
    h = np.unique(pts)
    keep = np.concatenate([[True], np.diff(h) > 1e-9 * max(top, 1.0)])
    return h[keep]


def _components(structure: OutletStructure, h: np.ndarray, tailwater, flap_gate: bool):
    """(device, flow) at stages ``h`` with a free outfall or a tailwater.

    Free outfall: tailwater None; else a tailwater (scalar or array broadcastable with ``h``,
    stage frame). A flap gate stops reverse flow.
    """
    if tailwater is None:
        return structure._components(h)
    hh, tw = np.broadcast_arrays(h, np.asarray(tailwater, dtype=float))
    comps = structure._components_tw(hh, tw)
    if flap_gate:
        comps = [(d, np.clip(q, 0.0, None)) for d, q in comps]
    return comps


def _build_table(ss: StageStorage, structure: OutletStructure, dt_s: float,
                 points: int = TABLE_POINTS, tailwater: float | None = None,
                 flap_gate: bool = False) -> _Table:
    h = _table_stages(ss, structure, points)
    s = ss._storage_ext(h)
    comps = _components(structure, h, tailwater, flap_gate)
    names = unique_names([d for d, _ in comps])
    parts = tuple((n, d.kind, q) for n, (d, q) in zip(names, comps, strict=False))
    o = np.sum([q for _, q in comps], axis=0)
    si = 2.0 * s / dt_s + o
    dsi = np.diff(si)
    if not (dsi > 0).all():
        i = int(np.flatnonzero(dsi <= 0)[0])
        raise InputError(
            f"the outlet rating must not decrease with stage; got {fmt_value(o[i])} cfs at "
            f"{fmt_value(h[i])} ft and {fmt_value(o[i + 1])} cfs at {fmt_value(h[i + 1])} ft. "
            "Check the devices (storage-indication routing needs a monotone rating)")
    slope = np.diff(o) / dsi
    n_inside = int(np.searchsorted(h, ss.top_stage_ft, side="right"))
    for arr in (h, s, o, si, slope):
        arr.setflags(write=False)
    return _Table(h, s, o, si, slope, parts, ss.top_stage_ft, n_inside, dt_s)


def interp_ext(x: np.ndarray, xp: np.ndarray, fp: np.ndarray) -> np.ndarray:
    """np.interp, extended linearly beyond the last point with the last interval's slope."""
    y = np.interp(x, xp, fp)
    over = x > xp[-1]
    if np.any(over):
        slope = (fp[-1] - fp[-2]) / (xp[-1] - xp[-2])
        y = np.where(over, fp[-1] + slope * (x - xp[-1]), y)
    return y


def check_devices(structure: OutletStructure, ss: StageStorage) -> None:
    """Refuse a device that starts to act above the top of the pond's stage-storage table.

    Every device of ``structure`` (its barrel included) must have its lowest active stage
    (invert or crest) at or below the top stage of ``ss``: a device above the top never flows.

    Raises
    ------
    InputError
        One line naming the device, its level and the valid range.
    """
    top = ss.top_stage_ft
    items = list(structure.leaves())
    stack: list[Device] = [structure]
    while stack:
        node = stack.pop()
        if isinstance(node, OutletStructure):
            if node.barrel is not None:
                items.append(node.barrel)
            stack.extend(node.devices)
    for dev in items:
        if dev.lowest_ft > top:
            key = "crest_ft" if hasattr(dev, "crest_ft") else "invert_ft"
            raise InputError(
                f"{type(dev).__name__} '{dev.name}' {key} must be <= the top of the structure "
                f"({fmt_value(top)} ft); got {fmt_value(dev.lowest_ft)}. A device above the "
                "top never flows: lower it or extend the stage-storage table")


def _all_devices(structure: OutletStructure) -> list:
    items = list(structure.leaves())
    stack: list[Device] = [structure]
    while stack:
        node = stack.pop()
        if isinstance(node, OutletStructure):
            if node.barrel is not None:
                items.append(node.barrel)
            stack.extend(node.devices)
    return items


def to_stage_frame(structure: OutletStructure, ss: StageStorage) -> OutletStructure:
    """Devices of a pond given in elevations moved to stages above its bottom.

    Raises
    ------
    InputError
        If a device's invert or crest (an elevation) is below the pond bottom.
    """
    base = ss.datum_ft
    if base is None:
        return structure
    for dev in _all_devices(structure):
        if dev.kind == "discarded":
            continue
        if dev.lowest_ft < base - 1e-9 * max(abs(base), 1.0):
            key = "crest_ft" if hasattr(dev, "crest_ft") else "invert_ft"
            raise InputError(
                f"{type(dev).__name__} '{dev.name}' {key} must be at or above the pond bottom "
                f"(elevation {fmt_value(base)} ft); got {fmt_value(dev.lowest_ft)}. The pond is "
                "given in elevations, so inverts and crests are elevations too")
    return structure.shifted(-base)


def _stability(table: _Table, max_index: int) -> str | None:
    """Warning text when 2S/dt - O decreases on a visited interval (step too coarse)."""
    k = min(max(max_index, 1), table.stage.size - 1)
    g = table.si[: k + 1] - 2.0 * table.outflow[: k + 1]
    dg = np.diff(g)
    if (dg >= -1e-9 * np.abs(g).max()).all():
        return None
    i = int(np.flatnonzero(dg < 0)[0])
    do = np.diff(table.outflow[: k + 1])
    ds = np.diff(table.storage[: k + 1])
    with np.errstate(divide="ignore"):
        crit = 2.0 * np.min(np.where(do > 0, ds / do, np.inf)) / S_PER_HR
    return (f"routing step dt_hr = {fmt_value(table.dt_s / S_PER_HR)} is too coarse for this "
            f"pond above stage {fmt_value(table.stage[i])} ft (2 dS/dt < dO): the outflow may "
            f"oscillate. Route with dt_hr <= {fmt_value(crit)} or dt_hr='auto'")

