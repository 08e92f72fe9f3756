r"""Hydrographs on a uniform time step.

:class:`Hydrograph` is the container every layer passes around: a frozen pair of arrays
``time_hr`` (uniform step, starting anywhere) and ``flow_cfs``. Volumes are integrated with
the trapezoidal rule, which for a hydrograph that starts and ends at zero equals the
rectangle (sum x dt) rule used by TR-20.

Symbols
-------
===============  ======  ======================================
API name         Unit    Meaning
===============  ======  ======================================
time_hr          h       time since the start of the storm
flow_cfs         ft3/s   discharge
volume_ft3       ft3     integral of flow over time
area_ac          ac      contributing drainage area (optional)
runoff_in        in      volume / area (when the area is known)
===============  ======  ======================================
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from hydrocalc._validate import as_float_array
from hydrocalc.errors import InputError
from hydrocalc.units import FT2_PER_AC, IN_PER_FT, S_PER_HR

__all__ = ["Hydrograph"]

_STEP_RTOL = 1e-6


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
        if dt <= 0 or not np.allclose(steps, dt, rtol=_STEP_RTOL, atol=1e-9):
            bad = int(np.flatnonzero(~np.isclose(steps, dt, rtol=_STEP_RTOL, atol=1e-9))[0]) + 1 \
                if dt > 0 else 1
            raise InputError(
                f"time_hr must be on a uniform increasing step; step at index {bad} is "
                f"{steps[bad - 1]:.6g} h, expected {dt:.6g} h. Resample the series first"
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
        """Time step. [h]"""
        return self._dt_hr

    @property
    def peak_cfs(self) -> float:
        """Largest ordinate. [ft3/s]"""
        return float(self.flow_cfs.max())

    @property
    def time_of_peak_hr(self) -> float:
        """Time of the first largest ordinate. [h]"""
        return float(self.time_hr[int(np.argmax(self.flow_cfs))])

    @property
    def volume_ft3(self) -> float:
        """Volume under the hydrograph, trapezoidal rule. [ft3]"""
        return float(np.trapezoid(self.flow_cfs, dx=self._dt_hr * S_PER_HR))

    @property
    def volume_acft(self) -> float:
        """Volume under the hydrograph. [acre-ft]"""
        return self.volume_ft3 / FT2_PER_AC

    @property
    def runoff_in(self) -> float | None:
        """Volume spread over ``area_ac`` (None when the area is unknown). [in]"""
        if self.area_ac is None:
            return None
        return self.volume_ft3 / (self.area_ac * FT2_PER_AC) * IN_PER_FT

    # -- operations -----------------------------------------------------------------------
    def on_time_base(self, time_hr) -> "Hydrograph":
        """Linearly interpolate onto ``time_hr`` (zero outside this hydrograph's span)."""
        t = as_float_array(time_hr, "time_hr")
        q = np.interp(t, self.time_hr, self.flow_cfs, left=0.0, right=0.0)
        return Hydrograph(t, q, area_ac=self.area_ac, name=self.name)

    def __add__(self, other: "Hydrograph") -> "Hydrograph":
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
        return Hydrograph(t, q, area_ac=area, name=" + ".join(n for n in (self.name, other.name) if n))

    def __radd__(self, other):
        if other == 0:  # lets sum([h1, h2, ...]) work
            return self
        return NotImplemented

    def lagged(self, hours: float) -> "Hydrograph":
        """Translate the hydrograph later by ``hours`` (pure lag, shape unchanged). [h]

        Raises
        ------
        InputError
            If ``hours`` is negative or NaN.
        """
        lag = float(as_float_array(hours, "hours", lower=0.0))
        return Hydrograph(self.time_hr + lag, self.flow_cfs, area_ac=self.area_ac, name=self.name)

    def to_frame(self):
        """DataFrame with columns ``time_hr`` and ``flow_cfs``."""
        import pandas as pd

        return pd.DataFrame({"time_hr": self.time_hr, "flow_cfs": self.flow_cfs})

    def summary(self) -> dict:
        """Peak, time of peak, volume and (when defined) runoff depth, unit-suffixed keys."""
        out = {
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
