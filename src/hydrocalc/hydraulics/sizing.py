"""Outlet sizing: the smallest (and largest) orifice or weir meeting several storms' targets.

:func:`size_outlet` (general), :func:`size_orifice`, :func:`size_weir`; each candidate set is
routed in one batched call of :func:`hydrocalc.hydraulics.routing.route_reservoirs`.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array, fmt_value
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydraulics.outlets import CircularOrifice, Device, OutletStructure, RectangularWeir
from hydrocalc.hydraulics.routing.batch import route_reservoirs
from hydrocalc.hydraulics.routing.reservoir import route_reservoir
from hydrocalc.hydraulics.stage_storage import StageStorage
from hydrocalc.hydrograph import Hydrograph

__all__ = ["SizingResult", "size_outlet", "size_orifice", "size_weir"]


# =========================================================================================
# Sizing
# =========================================================================================
@dataclass(frozen=True)
class SizingResult:
    """Outcome of :func:`size_outlet` (one row per storm in :meth:`to_frame`).

    Attributes
    ----------
    size : float
        The smallest size meeting every storm's target without exceeding the stage limit
        (NaN when no size in the range does). [in or ft]
    largest_size : float
        The largest size meeting every target (NaN when infeasible). [in or ft]
    feasible : bool
    storm_names : tuple of str
    target_peak_cfs, peak_outflow_cfs, margin_cfs, margin_pct, peak_stage_ft : ndarray (m,)
        Per storm, routed with ``size`` (margin = target - peak; at the smallest size of the
        range when infeasible).
    max_stage_ft : float
        The stage limit used (the top of the structure unless given). [ft]
    reason : str
        Why the design is infeasible (empty when feasible).
    """

    size: float
    largest_size: float
    feasible: bool
    size_unit: str
    storm_names: tuple
    target_peak_cfs: np.ndarray
    peak_outflow_cfs: np.ndarray
    margin_cfs: np.ndarray
    margin_pct: np.ndarray
    peak_stage_ft: np.ndarray
    overtopped: np.ndarray
    max_stage_ft: float
    device: object = None
    reason: str = ""

    @property
    def diameter_in(self) -> float:
        """The (smallest feasible) size, for an orifice [in]."""
        return self.size

    @property
    def length_ft(self) -> float:
        """The (smallest feasible) size, for a weir [ft]."""
        return self.size

    def to_frame(self):
        """One row per storm: target, peak, margin, peak stage."""
        import pandas as pd

        return pd.DataFrame({"storm": list(self.storm_names),
                             "target_peak_cfs": self.target_peak_cfs,
                             "peak_outflow_cfs": self.peak_outflow_cfs,
                             "margin_cfs": self.margin_cfs, "margin_pct": self.margin_pct,
                             "peak_stage_ft": self.peak_stage_ft,
                             "overtopped": self.overtopped})


def _common_inflows(inflows, dt_hr):
    if isinstance(inflows, Hydrograph) or (hasattr(inflows, "time_hr")
                                           and hasattr(inflows, "flow_cfs")):
        inflows = [inflows]
    inflows = list(inflows)
    if not inflows:
        raise InputError("inflows must hold at least one Hydrograph; got none")
    for i, h in enumerate(inflows):
        if not isinstance(h, Hydrograph):
            raise InputError(f"inflows must be Hydrographs; got {h!r} at index {i}")
    dt = min(h.dt_hr for h in inflows) if dt_hr is None else float(
        as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    t0 = min(float(h.time_hr[0]) for h in inflows)
    t1 = max(float(h.time_hr[-1]) for h in inflows)
    n = int(math.ceil((t1 - t0) / dt - 1e-9)) + 1
    t = t0 + dt * np.arange(n)
    q = np.stack([np.interp(t, h.time_hr, h.flow_cfs, left=0.0, right=0.0) for h in inflows])
    names = tuple(h.name or f"storm {i + 1}" for i, h in enumerate(inflows))
    return inflows, t, q, dt, names


#: Candidate sizes per batched evaluation of the sizing search.
_SIZING_GRID = 65


def size_outlet(inflows, stage_storage: StageStorage, make_device: Callable[[float], Device],
                target_peak_cfs: npt.ArrayLike, *, size_range: tuple[float, float],
                other_outlets=(), max_stage_ft: float | None = None,
                tolerance: float | None = None, dt_hr: float | None = None,
                size_unit: str = "") -> SizingResult:
    """Smallest (and largest) device size whose routed peaks meet every storm's target.

    Parameters
    ----------
    inflows : Hydrograph or sequence of m Hydrographs
        Design storms' inflows (put on a common step: the finest of them, or ``dt_hr``).
    stage_storage : StageStorage
    make_device : callable
        ``make_device(size) -> Device``, the device being sized.
    target_peak_cfs : float or array_like (m,)
        Allowable peak outflow per storm (e.g. the pre-development peaks); the primary
        outflow (to the downstream system) is compared. [ft3/s]
    size_range : (float, float)
        Smallest and largest size to consider, 0 < lo < hi.
    other_outlets : Device or sequence of Device, optional
        Fixed devices in parallel with the sized one (e.g. an overflow weir, exfiltration).
    max_stage_ft : float, optional
        Stage no storm may exceed; default the top of the structure (no overtopping). [ft]
    tolerance : float, optional
        Resolution of the answer (default (hi - lo) / 10,000).
    dt_hr : float, optional
        Routing step (default: the finest inflow step). [h]
    size_unit : str
        Unit label of the size ("in", "ft").

    Returns
    -------
    SizingResult
        ``size``: the smallest feasible size; ``largest_size``: the largest; margins per
        storm from routing ``size`` with :func:`route_reservoir`.

    Notes
    -----
    A size is feasible when, for every storm, the routed peak primary outflow is at most
    the target and the peak stage at most ``max_stage_ft``. A small opening holds the peak
    outflow down until the pond fills (then it overtops, or spills over the other outlets,
    so the peak rises again); a large one releases too much. The feasible sizes therefore
    usually form one interval: its lower end is the most restrictive design that still
    contains the storms (most detention), its upper end the least restrictive one (least
    storage used). The search routes 65 candidate sizes, evenly spaced in log(size), x m
    storms in one batched call (:func:`route_reservoirs`), then narrows each end of the
    feasible set with further batched rounds until it is known to ``tolerance``. A feasible
    range narrower than one grid step, a factor (hi/lo)^(1/64), could be missed: narrow
    ``size_range`` when it is wide.

    Each candidate is routed by the storage-indication method (Chow, Maidment and Mays [1]_
    Section 8.2) through the device's own rating (orifice and weir equations of HEC-22 [2]_
    Ch. 8, see :mod:`hydrocalc.hydraulics.outlets`); sizing adds no equation of its own, only the
    search.

    References
    ----------
    .. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill,
       1988, Section 8.2 (level-pool routing, storage-indication method).
    .. [2] Federal Highway Administration, *Urban Drainage Design Manual*, HEC-22, 3rd ed.,
       FHWA-NHI-10-009, 2009, Ch. 8 (detention outlet hydraulics: orifices, weirs, risers).

    Examples
    --------
    A 10-year and a 2-year inflow (30 and 15 ft3/s peaks) into a 200 ft x 150 ft basin with
    allowable peaks of 8 and 3 ft3/s: the largest orifice at the bottom that meets both
    targets is about 9.3 in, where the 2-year peak reaches its 3 ft3/s limit.

    >>> import numpy as np
    >>> from hydrocalc.hydraulics.routing import route_reservoir
    >>> t = np.arange(0, 8.01, 0.05)
    >>> tri = np.clip(1 - np.abs(t - 1.5) / 1.5, 0, None)
    >>> ten, two = Hydrograph(t, 30.0 * tri, name="10-yr"), Hydrograph(t, 15.0 * tri, name="2-yr")
    >>> pond = StageStorage.basin(200, 150, 6)
    >>> r = size_outlet([ten, two], pond, lambda d: CircularOrifice(d, 0.0), [8.0, 3.0],
    ...                 size_range=(1.0, 36.0), size_unit="in")
    >>> round(r.largest_size, 1)
    9.3
    >>> peak = route_reservoir(two, pond, CircularOrifice(r.largest_size, 0.0)).peak_outflow_cfs
    >>> round(peak, 2)      # the 2-year target, met to the search's tolerance
    3.0
    """
    inflows, t, q, dt, names = _common_inflows(inflows, dt_hr)
    m = len(inflows)
    target = np.broadcast_to(as_float_array(target_peak_cfs, "target_peak_cfs", lower=0.0),
                             (m,)).astype(float)
    try:
        lo, hi = (float(v) for v in size_range)
    except (TypeError, ValueError):
        raise InputError(f"size_range must be (lo, hi); got {size_range!r}") from None
    if not (0 < lo < hi):
        raise InputError(f"size_range must be (lo, hi) with 0 < lo < hi; got {size_range!r}")
    tol = (hi - lo) / 1e4 if tolerance is None else float(
        as_float_array(tolerance, "tolerance", lower=0.0, lower_inclusive=False))
    stage_cap = stage_storage.top_stage_ft if max_stage_ft is None else float(
        as_float_array(max_stage_ft, "max_stage_ft", lower=0.0))
    if isinstance(other_outlets, Device):
        other_outlets = [other_outlets]
    others = list(other_outlets)

    def structure(size):
        return OutletStructure([make_device(size), *others])

    def feasible(sizes):
        sizes = list(sizes)
        qq = np.broadcast_to(q[:, None, :], (m, len(sizes), q.shape[-1]))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RangeWarning)
            res = route_reservoirs(qq, dt, stage_storage, [structure(s) for s in sizes],
                                   keep="series" if _has_discarded(others) else "peaks")
            peak = (res.peak_outflow_cfs if not _has_discarded(others) else
                    np.array([[res.routing_result((i, j)).peak_primary_cfs
                               for j in range(len(sizes))] for i in range(m)]))
        ok = (peak <= target[:, None] * (1 + 1e-12)).all(axis=0)
        return ok & (res.peak_stage_ft <= stage_cap * (1 + 1e-12)).all(axis=0)

    grid = np.geomspace(lo, hi, _SIZING_GRID)
    ok = feasible(grid)
    size = largest = math.nan
    reason = ""
    if not ok.any():
        reason = (f"no size in [{fmt_value(lo)}, {fmt_value(hi)}] {size_unit} meets every "
                  f"target with the peak stage <= {fmt_value(stage_cap)} ft; the pond needs "
                  "more storage (or other outlets)")
    else:
        first, last = int(np.flatnonzero(ok)[0]), int(np.flatnonzero(ok)[-1])
        size = grid[first]
        if first > 0:                          # bracket [infeasible, feasible]: narrow it
            a, b = grid[first - 1], grid[first]
            while b - a > tol:
                cand = np.linspace(a, b, 33)
                okc = feasible(cand[1:-1])
                hit = np.flatnonzero(okc)
                k = int(hit[0]) + 1 if hit.size else 32
                a, b = cand[k - 1], cand[k]
            size = b
        largest = grid[last]
        if last < grid.size - 1:               # bracket [feasible, infeasible]
            a, b = grid[last], grid[last + 1]
            while b - a > tol:
                cand = np.linspace(a, b, 33)
                okc = feasible(cand[1:-1])
                hit = np.flatnonzero(~okc)
                k = int(hit[0]) + 1 if hit.size else 32
                a, b = cand[k - 1], cand[k]
            largest = a
    chosen = size if math.isfinite(size) else lo
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        final = [route_reservoir(h, stage_storage, structure(chosen),
                                 dt_hr=dt if dt < h.dt_hr else None) for h in inflows]
    peaks = np.array([r.peak_primary_cfs for r in final])
    with np.errstate(divide="ignore", invalid="ignore"):
        pct = np.where(target > 0, 100.0 * (target - peaks) / target, np.nan)
    return SizingResult(
        size=float(size), largest_size=float(largest), feasible=math.isfinite(size),
        size_unit=size_unit,
        storm_names=names, target_peak_cfs=target, peak_outflow_cfs=peaks,
        margin_cfs=target - peaks, margin_pct=pct,
        peak_stage_ft=np.array([r.peak_stage_ft for r in final]),
        overtopped=np.array([r.overtopped for r in final]), max_stage_ft=stage_cap,
        device=make_device(chosen) if math.isfinite(size) else None, reason=reason)


def _has_discarded(devices) -> bool:
    return any(leaf.kind == "discarded" for d in devices for leaf in d.leaves())


def size_orifice(inflows, stage_storage: StageStorage, target_peak_cfs: npt.ArrayLike, *,
                 invert_ft: float = 0.0, cd: float = 0.6, other_outlets=(),
                 min_diameter_in: float = 0.5, max_diameter_in: float | None = None,
                 max_stage_ft: float | None = None, tolerance_in: float = 0.01,
                 dt_hr: float | None = None) -> SizingResult:
    r"""Smallest circular-orifice diameter whose routed peaks meet every storm's target.

    The orifice is :class:`~hydrocalc.hydraulics.outlets.CircularOrifice`
    (:math:`Q = C_d A \sqrt{2gh}`, HEC-22 [2]_ Ch. 8); each candidate is routed by the
    storage-indication method ([1]_ Section 8.2) in :func:`size_outlet`.

    Parameters
    ----------
    inflows : Hydrograph or sequence of Hydrograph
    stage_storage : StageStorage
    target_peak_cfs : float or array_like (m,)
        Allowable peak outflow per storm. [ft3/s]
    invert_ft, cd : float
        Orifice invert [ft] and discharge coefficient [-].
    other_outlets : Device or sequence of Device
        Fixed devices in parallel (e.g. a weir for larger storms).
    min_diameter_in, max_diameter_in : float
        Search range [in]; the default maximum is the largest orifice that fits below the top.
    max_stage_ft : float, optional
        Stage no storm may exceed (default: the top of the structure). [ft]
    tolerance_in : float, default 0.01
        Resolution of the diameter. [in]
    dt_hr : float, optional
        Routing step. [h]

    Returns
    -------
    SizingResult
        ``diameter_in`` (smallest feasible), ``largest_size`` and per-storm margins (see
        :func:`size_outlet`).

    References
    ----------
    .. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill,
       1988, Section 8.2 (level-pool routing, storage-indication method).
    .. [2] Federal Highway Administration, *Urban Drainage Design Manual*, HEC-22, 3rd ed.,
       FHWA-NHI-10-009, 2009, Ch. 8 (detention outlet hydraulics: orifices, weirs, risers).

    Examples
    --------
    >>> import numpy as np
    >>> t = np.arange(0, 8.01, 0.05)
    >>> q = 30.0 * np.clip(1 - np.abs(t - 1.5) / 1.5, 0, None)
    >>> r = size_orifice(Hydrograph(t, q, name="10-yr"), StageStorage.basin(200, 150, 6), 8.0)
    >>> bool(r.feasible and r.margin_cfs[0] >= 0 and r.largest_size > r.diameter_in)
    True
    """
    top = stage_storage.top_stage_ft
    hi = max_diameter_in if max_diameter_in is not None else 12.0 * (top - float(invert_ft))
    return size_outlet(inflows, stage_storage,
                       lambda d: CircularOrifice(d, invert_ft, cd=cd, name="sized_orifice"),
                       target_peak_cfs, size_range=(min_diameter_in, hi),
                       other_outlets=other_outlets, max_stage_ft=max_stage_ft,
                       tolerance=tolerance_in, dt_hr=dt_hr, size_unit="in")


def size_weir(inflows, stage_storage: StageStorage, target_peak_cfs: npt.ArrayLike, *,
              crest_ft: float, cw: float = 3.33, end_contractions: int = 0, other_outlets=(),
              min_length_ft: float = 0.1, max_length_ft: float = 100.0,
              max_stage_ft: float | None = None, tolerance_ft: float = 0.01,
              dt_hr: float | None = None) -> SizingResult:
    """Smallest rectangular-weir length whose routed peaks meet every storm's target.

    The weir is :class:`~hydrocalc.hydraulics.outlets.RectangularWeir`
    (:math:`Q = C_w L H^{1.5}`, with end contractions, HEC-22 [2]_ Ch. 8); each candidate is
    routed by the storage-indication method ([1]_ Section 8.2) in :func:`size_outlet`.

    Parameters
    ----------
    inflows : Hydrograph or sequence of Hydrograph
        Design storms' inflows.
    stage_storage : StageStorage
    target_peak_cfs : float or array_like (m,)
        Allowable peak outflow per storm. [ft3/s]
    crest_ft : float
        Weir crest stage. [ft]
    cw : float, default 3.33
        Weir coefficient (US units). [ft^0.5/s]
    end_contractions : int, default 0
        Number of end contractions (0, 1 or 2).
    other_outlets : Device or sequence of Device
        Fixed devices in parallel (e.g. a low-flow orifice).
    min_length_ft, max_length_ft : float
        Search range of the crest length. [ft]
    max_stage_ft : float, optional
        Stage no storm may exceed (default: the top of the structure). [ft]
    tolerance_ft : float, default 0.01
        Resolution of the length. [ft]
    dt_hr : float, optional
        Routing step. [h]

    Returns
    -------
    SizingResult
        ``length_ft`` (smallest feasible), ``largest_size`` and per-storm margins (see
        :func:`size_outlet`).

    References
    ----------
    .. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill,
       1988, Section 8.2 (level-pool routing, storage-indication method).
    .. [2] Federal Highway Administration, *Urban Drainage Design Manual*, HEC-22, 3rd ed.,
       FHWA-NHI-10-009, 2009, Ch. 8 (detention outlet hydraulics: orifices, weirs, risers).

    Examples
    --------
    A weir with its crest 2 ft above the basin bottom, the only outlet, holding a 30 ft3/s
    inflow to 8 ft3/s: every length up to about 0.62 ft does.

    >>> import numpy as np
    >>> t = np.arange(0, 8.01, 0.05)
    >>> q = 30.0 * np.clip(1 - np.abs(t - 1.5) / 1.5, 0, None)
    >>> r = size_weir(Hydrograph(t, q), StageStorage.basin(200, 150, 6), 8.0, crest_ft=2.0)
    >>> bool(r.feasible), round(r.largest_size, 2)
    (True, 0.62)
    """
    return size_outlet(inflows, stage_storage,
                       lambda L: RectangularWeir(L, crest_ft, cw=cw,
                                                 end_contractions=end_contractions,
                                                 name="sized_weir"),
                       target_peak_cfs, size_range=(min_length_ft, max_length_ft),
                       other_outlets=other_outlets, max_stage_ft=max_stage_ft,
                       tolerance=tolerance_ft, dt_hr=dt_hr, size_unit="ft")


