"""Hydrographs on a uniform time step: :class:`Hydrograph` and :class:`HydrographSet` containers.

:class:`Hydrograph` is the container every layer passes around: a frozen pair of arrays
``time_hr`` (uniform step, starting anywhere) and ``flow_cfs``. Volumes are integrated with
the trapezoidal rule, which for a hydrograph that starts and ends at zero equals the
rectangle (sum x dt) rule used by TR-20 [1]_. :class:`HydrographSet` holds the batch form
(storms x subcatchments x time). The hydrographs of a storm are computed by
:mod:`hydrocalc.hydrograph`, which re-exports both classes (their usual address).

References
----------
.. [1] USDA NRCS, "National Engineering Handbook Part 630 Hydrology, Chapter 16
   Hydrographs," 210-VI-NEH, 2007.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from hydrocalc import display
from hydrocalc._validate import as_float_array, suggest
from hydrocalc.errors import InputError
from hydrocalc.units import FT2_PER_AC, IN_PER_FT, S_PER_HR

__all__ = ["Hydrograph", "HydrographSet", "lag_hydrograph", "parabolic_peak"]

#: Relative tolerance of a "uniform" time step.
STEP_RTOL = 1e-6

@dataclass(frozen=True, eq=False)
class Hydrograph:
    """A discharge time series on a uniform time step.

    Parameters
    ----------
    time_hr : array_like
        Times on a uniform, increasing step. [h]
    flow_cfs : array_like
        Discharge at each time, >= 0. [ft3/s]
    area_ac : float, optional
        Contributing drainage area; enables :attr:`runoff_in`. [ac]
    name : str, optional
        Label used in tables and figures.

    Raises
    ------
    InputError
        If the arrays differ in length, the step is not uniform and positive, or a flow is
        negative or NaN.
    """

    time_hr: np.ndarray
    flow_cfs: np.ndarray
    area_ac: float | None = None
    name: str = ""
    _dt_hr: float = field(init=False, repr=False)

    def __post_init__(self):
        t = as_float_array(self.time_hr, "time_hr")
        q = as_float_array(self.flow_cfs, "flow_cfs", lower=0.0)
        if t.ndim != 1 or q.ndim != 1 or t.size != q.size:
            raise InputError(
                f"time_hr and flow_cfs must be 1-D arrays of equal length; got "
                f"{t.shape} and {q.shape}"
            )
        if t.size < 2:
            raise InputError(f"a hydrograph needs at least 2 ordinates; got {t.size}")
        steps = np.diff(t)
        dt = float(steps[0])
        if dt <= 0 or not np.allclose(steps, dt, rtol=STEP_RTOL, atol=1e-9):
            bad = int(np.flatnonzero(~np.isclose(steps, dt, rtol=STEP_RTOL, atol=1e-9))[0]) + 1 \
                if dt > 0 else 1
            expected = f"expected {dt:.6g} h" if dt > 0 else "expected a step > 0"
            raise InputError(
                f"time_hr must be on a uniform increasing step; step at index {bad} is "
                f"{steps[bad - 1]:.6g} h, {expected}. Resample the series first"
            )
        if self.area_ac is not None:
            as_float_array(self.area_ac, "area_ac", lower=0.0, lower_inclusive=False)
            object.__setattr__(self, "area_ac", float(self.area_ac))
        t = t.copy()
        q = q.copy()
        t.setflags(write=False)
        q.setflags(write=False)
        object.__setattr__(self, "time_hr", t)
        object.__setattr__(self, "flow_cfs", q)
        object.__setattr__(self, "_dt_hr", dt)

    # -- summaries ------------------------------------------------------------------------
    @property
    def dt_hr(self) -> float:
        """Time step [h]."""
        return self._dt_hr

    @property
    def peak_cfs(self) -> float:
        """Largest ordinate [ft3/s]."""
        return float(self.flow_cfs.max())

    @property
    def time_of_peak_hr(self) -> float:
        """Time of the first largest ordinate [h]."""
        return float(self.time_hr[int(np.argmax(self.flow_cfs))])

    @property
    def volume_ft3(self) -> float:
        """Volume under the hydrograph, trapezoidal rule [ft3]."""
        return float(np.trapezoid(self.flow_cfs, dx=self._dt_hr * S_PER_HR))

    @property
    def volume_acft(self) -> float:
        """Volume under the hydrograph [acre-ft]."""
        return self.volume_ft3 / FT2_PER_AC

    @property
    def runoff_in(self) -> float | None:
        """Volume spread over ``area_ac`` (None when the area is unknown) [in]."""
        if self.area_ac is None:
            return None
        return self.volume_ft3 / (self.area_ac * FT2_PER_AC) * IN_PER_FT

    # -- operations -----------------------------------------------------------------------
    def on_time_base(self, time_hr) -> Hydrograph:
        """Linearly interpolate onto ``time_hr`` (zero outside this hydrograph's span)."""
        t = as_float_array(time_hr, "time_hr")
        q = np.interp(t, self.time_hr, self.flow_cfs, left=0.0, right=0.0)
        return Hydrograph(t, q, area_ac=self.area_ac, name=self.name)

    def __add__(self, other: Hydrograph) -> Hydrograph:
        """Sum two hydrographs on a common time base (the union span, the finer step)."""
        if not isinstance(other, Hydrograph):
            return NotImplemented
        dt = min(self._dt_hr, other._dt_hr)
        t0 = min(self.time_hr[0], other.time_hr[0])
        t1 = max(self.time_hr[-1], other.time_hr[-1])
        n = int(round((t1 - t0) / dt)) + 1
        t = t0 + dt * np.arange(n)
        q = self.on_time_base(t).flow_cfs + other.on_time_base(t).flow_cfs
        area = None
        if self.area_ac is not None and other.area_ac is not None:
            area = self.area_ac + other.area_ac
        name = " + ".join(n for n in (self.name, other.name) if n)
        return Hydrograph(t, q, area_ac=area, name=name)

    def __radd__(self, other):
        if other == 0:  # lets sum([h1, h2, ...]) work
            return self
        return NotImplemented

    def lagged(self, hours: float) -> Hydrograph:
        """Translate the hydrograph later by ``hours`` (pure lag, shape unchanged) [h].

        Raises
        ------
        InputError
            If ``hours`` is negative or NaN.
        """
        lag = float(as_float_array(hours, "hours", lower=0.0))
        return Hydrograph(self.time_hr + lag, self.flow_cfs, area_ac=self.area_ac, name=self.name)

    def parabolic_peak(self) -> tuple[float, float]:
        """Peak of the parabola through the three highest ordinates (TR-20 / HydroCAD style).

        Returns
        -------
        peak_cfs, time_of_peak_hr : float
            See :func:`parabolic_peak`. [ft3/s], [h]
        """
        return parabolic_peak(self.time_hr, self.flow_cfs)

    def to_frame(self):
        """DataFrame with columns ``time_hr`` and ``flow_cfs``."""
        import pandas as pd

        return pd.DataFrame({"time_hr": self.time_hr, "flow_cfs": self.flow_cfs})

    def summary(self) -> dict:
        """Peak, time of peak, volume and (when defined) runoff depth, unit-suffixed keys."""
        out: dict[str, float | None] = {
            "peak_cfs": self.peak_cfs,
            "time_of_peak_hr": self.time_of_peak_hr,
            "volume_ft3": self.volume_ft3,
            "volume_acft": self.volume_acft,
        }
        if self.area_ac is not None:
            out["runoff_in"] = self.runoff_in
        return out

    def __repr__(self) -> str:
        return (
            f"Hydrograph(name={self.name!r}, n={self.time_hr.size}, dt_hr={self._dt_hr:g}, "
            f"peak_cfs={self.peak_cfs:.4g} at {self.time_of_peak_hr:g} h, "
            f"volume_acft={self.volume_acft:.4g})"
        )

    def _repr_html_(self) -> str:
        return display.html(self)


def parabolic_peak(time_hr: npt.ArrayLike, flow_cfs: npt.ArrayLike) -> tuple[float, float]:
    """Peak of the parabola through the largest ordinate and its two neighbours.

    Legacy TR-20 fitted "a 2nd degree polynomial through the three largest consecutive
    hydrograph values" to report peaks between ordinates, and HydroCAD reports peaks the same
    way. hydrocalc's own ``peak_cfs`` is the largest ordinate; this function is offered to
    compare with those programs.

    Parameters
    ----------
    time_hr : array_like
        Uniform times. [h]
    flow_cfs : array_like
        Discharges. [ft3/s]

    Returns
    -------
    peak_cfs, time_of_peak_hr : float
        Vertex of the parabola (the largest ordinate itself when it is at an end or the
        three points are collinear). [ft3/s], [h]

    Examples
    --------
    >>> parabolic_peak([0, 1, 2, 3], [0.0, 3.0, 4.0, 1.0])
    (4.125, 1.75)
    """
    t = np.asarray(time_hr, dtype=float)
    q = np.asarray(flow_cfs, dtype=float)
    i = int(np.argmax(q))
    if i == 0 or i == q.size - 1:
        return float(q[i]), float(t[i])
    y0, y1, y2 = q[i - 1], q[i], q[i + 1]
    curvature = y0 - 2.0 * y1 + y2
    if curvature >= 0.0:
        return float(y1), float(t[i])
    x = 0.5 * (y0 - y2) / curvature  # vertex offset in steps, within [-0.5, 0.5]
    return float(y1 - 0.25 * (y0 - y2) * x), float(t[i] + x * (t[1] - t[0]))


def lag_hydrograph(hydrograph: Hydrograph, lag_hr: float) -> Hydrograph:
    """Pure translation of a hydrograph by ``lag_hr`` (reach lag); see :meth:`Hydrograph.lagged`.

    Examples
    --------
    >>> h = Hydrograph([0.0, 0.5, 1.0], [0.0, 2.0, 0.0])
    >>> lag_hydrograph(h, 0.25).time_hr.tolist()
    [0.25, 0.75, 1.25]
    """
    if not isinstance(hydrograph, Hydrograph):
        raise InputError(f"hydrograph must be a Hydrograph; got {type(hydrograph).__name__}")
    return hydrograph.lagged(lag_hr)


# --------------------------------------------------------------------------------------
# NRCS runoff hydrographs (TR-20 method)
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class HydrographSet:
    """Runoff hydrographs of ``n`` subcatchments for ``m`` storms on one time base.

    Built by :func:`runoff_hydrographs`; all arrays are read-only.

    Attributes
    ----------
    time_hr : numpy.ndarray, shape (nt,)
        ``0, dt, 2 dt, ...``. [h]
    flow_cfs : numpy.ndarray, shape (m, n, nt)
        Direct-runoff discharge of subcatchment ``j`` for storm ``i``. [ft3/s]
    area_ac : numpy.ndarray, shape (n,)
        Drainage areas. [ac]
    storm_names : tuple of str, length m
    runoff_in : numpy.ndarray, shape (m, n)
        CN-equation runoff depth of each storm's total rainfall. [in]
    cn : numpy.ndarray, shape (n,)
        Curve numbers used. [-]
    tc_hr : numpy.ndarray, shape (n,)
        Times of concentration used (after the 0.1-h minimum). [h]
    precip_in : numpy.ndarray, shape (m,)
        Storm depths. [in]
    names : tuple of str, length n
        Subcatchment labels.
    """

    time_hr: np.ndarray
    flow_cfs: np.ndarray
    area_ac: np.ndarray
    storm_names: tuple
    runoff_in: np.ndarray
    cn: np.ndarray
    tc_hr: np.ndarray
    precip_in: np.ndarray
    names: tuple

    def __post_init__(self):
        for key in ("time_hr", "flow_cfs", "area_ac", "runoff_in", "cn", "tc_hr", "precip_in"):
            arr = np.asarray(getattr(self, key), dtype=float)
            arr.setflags(write=False)
            object.__setattr__(self, key, arr)
        object.__setattr__(self, "storm_names", tuple(self.storm_names))
        object.__setattr__(self, "names", tuple(self.names))

    @property
    def dt_hr(self) -> float:
        """Time step [h]."""
        return float(self.time_hr[1] - self.time_hr[0])

    @property
    def shape(self) -> tuple[int, int, int]:
        """``(m storms, n subcatchments, nt times)``."""
        return self.flow_cfs.shape

    @property
    def peak_cfs(self) -> np.ndarray:
        """Largest ordinate of every hydrograph, shape (m, n) [ft3/s]."""
        return self.flow_cfs.max(axis=2)

    @property
    def time_of_peak_hr(self) -> np.ndarray:
        """Time of the first largest ordinate, shape (m, n) [h]."""
        return self.time_hr[np.argmax(self.flow_cfs, axis=2)]

    @property
    def volume_ft3(self) -> np.ndarray:
        """Volume under every hydrograph (trapezoidal rule), shape (m, n) [ft3]."""
        return np.trapezoid(self.flow_cfs, dx=self.dt_hr * S_PER_HR, axis=2)

    @property
    def volume_acft(self) -> np.ndarray:
        """Volume under every hydrograph, shape (m, n) [acre-ft]."""
        return self.volume_ft3 / FT2_PER_AC

    def storm_index(self, storm: int | str) -> int:
        """Position of a storm given by index or name."""
        if isinstance(storm, str):
            if storm not in self.storm_names:
                raise InputError(
                    f"unknown storm {storm!r}{suggest(storm, self.storm_names)} Valid: "
                    f"{', '.join(self.storm_names)}"
                )
            return self.storm_names.index(storm)
        i = int(storm)
        if not -len(self.storm_names) <= i < len(self.storm_names):
            raise InputError(
                f"i_storm must be in [0, {len(self.storm_names) - 1}]; got {i}"
            )
        return i % len(self.storm_names)

    def hydrograph(self, i_storm: int | str, j_sub: int) -> Hydrograph:
        """Hydrograph of subcatchment ``j_sub`` for storm ``i_storm`` (index or name)."""
        i = self.storm_index(i_storm)
        j = int(j_sub)
        if not -len(self.names) <= j < len(self.names):
            raise InputError(f"j_sub must be in [0, {len(self.names) - 1}]; got {j}")
        return Hydrograph(
            self.time_hr, self.flow_cfs[i, j], area_ac=float(self.area_ac[j]),
            name=f"{self.names[j]} {self.storm_names[i]}".strip(),
        )

    def total(self, i_storm: int | str, indices: Sequence[int] | None = None) -> Hydrograph:
        """Sum of the listed subcatchments' hydrographs for one storm (all when None)."""
        i = self.storm_index(i_storm)
        idx = np.arange(len(self.names)) if indices is None else np.asarray(indices, dtype=int)
        if idx.ndim != 1 or idx.size == 0:
            raise InputError(
                f"indices must be a non-empty list of subcatchment positions; got {indices!r}"
            )
        if idx.min() < -len(self.names) or idx.max() >= len(self.names):
            raise InputError(
                f"indices must be in [0, {len(self.names) - 1}]; got {idx.tolist()}"
            )
        return Hydrograph(
            self.time_hr, self.flow_cfs[i, idx].sum(axis=0),
            area_ac=float(self.area_ac[idx].sum()), name=f"total {self.storm_names[i]}".strip(),
        )

    def summary(self):
        """One row per storm and subcatchment: inputs, runoff depth, peak, time, volume."""
        import pandas as pd

        m, n, _ = self.flow_cfs.shape
        return pd.DataFrame(
            {
                "storm": np.repeat(self.storm_names, n),
                "precip_in": np.repeat(self.precip_in, n),
                "subcatchment": np.tile(self.names, m),
                "area_ac": np.tile(self.area_ac, m),
                "cn": np.tile(self.cn, m),
                "tc_hr": np.tile(self.tc_hr, m),
                "runoff_in": self.runoff_in.ravel(),
                "peak_cfs": self.peak_cfs.ravel(),
                "time_of_peak_hr": self.time_of_peak_hr.ravel(),
                "volume_acft": self.volume_acft.ravel(),
            }
        )

    def to_frame(self, i_storm: int | str):
        """Wide table of one storm: ``time_hr`` and one ``<name>_cfs`` column per subcatchment."""
        import pandas as pd

        i = self.storm_index(i_storm)
        data = {"time_hr": self.time_hr}
        data.update({f"{name}_cfs": self.flow_cfs[i, j] for j, name in enumerate(self.names)})
        return pd.DataFrame(data)

    def __repr__(self) -> str:
        m, n, nt = self.flow_cfs.shape
        return (
            f"HydrographSet({m} storms x {n} subcatchments x {nt} steps, "
            f"dt_hr={self.dt_hr:g}, storms={list(self.storm_names)})"
        )

    def _repr_html_(self) -> str:
        return display.html(self)
