r"""Design-storm hyetographs from the shipped NRCS 24-hour rainfall distributions.

A design storm is a storm depth spread over time by a dimensionless cumulative rainfall
distribution (mass curve). hydrocalc ships the NRCS Type I, IA, II and III distributions and
the NOAA Atlas 14 (NOAA_A..D) and NRCC (NRCC_A..D) based NRCS distributions, all tabulated by
WinTR-20 at 0.1 h; user distributions come in as :class:`RainfallDistribution` objects (see
:mod:`hydrocalc.design_storms` for the CSV loaders: file reading does not live here).

Between the tabulated times the mass curve is interpolated **linearly**, which is what
WinTR-20 does with its 0.1-h rainfall tables [2]_: rainfall intensity is constant within each
tabulated interval, the interpolated curve is monotone, and it closes at exactly the storm
depth. HydroCAD instead fits smooth curves to the NRCS types ([3]_, "coefficient-based
rainfall tables"), which gives slightly higher peaks for short Tc; see ``docs/hydrographs.md``.

Symbols
-------
==================  ======  ==================================================
API name            Unit    Meaning
==================  ======  ==================================================
time_hr             h       time since the start of the storm
cumulative_frac     -       fraction of the storm depth fallen by ``time_hr``
cumulative_in       in      rainfall depth fallen by ``time_hr``
incremental_in      in      rainfall in the step ending at ``time_hr``
depth_in            in      storm depth :math:`P`
dt_hr               h       time step of the hyetograph
duration_hr         h       storm duration (24 h for the shipped distributions)
==================  ======  ==================================================

References
----------
.. [1] USDA SCS, "Urban Hydrology for Small Watersheds," Technical Release 55, 2nd ed.,
   1986, Appendix B (Type I, IA, II, III distributions).
.. [2] USDA NRCS, "WinTR-20 Project Formulation Hydrology," version 3, 2015: rainfall
   distribution tables at 0.1 h (source of the shipped tables), user guide.
.. [3] HydroCAD Software Solutions, "Comparing SCS & SBUH Runoff Results,"
   https://www.hydrocad.net/scsresults.htm (accessed through a stored copy).
.. [4] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation,
   Oct. 2015 (regions split by the 60-min/24-h ratio of the 25-yr depths; secondary).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

if TYPE_CHECKING:
    import pandas as pd

from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.data import load_table, table_info
from hydrocalc.errors import InputError

__all__ = [
    "Hyetograph",
    "RainfallDistribution",
    "design_storm",
    "tr55_rainfall_type",
    "design_storms",
    "distribution_names",
    "rainfall_distribution",
    "hyetograph_from_cumulative",
    "max_window_fraction",
    "rank_distributions",
]

#: Shipped distributions: canonical key -> (table name, column).
SHIPPED_DISTRIBUTIONS: dict[str, tuple[str, str]] = {
    "I": ("nrcs_24hr_distributions", "typeI_frac"),
    "IA": ("nrcs_24hr_distributions", "typeIA_frac"),
    "II": ("nrcs_24hr_distributions", "typeII_frac"),
    "III": ("nrcs_24hr_distributions", "typeIII_frac"),
    **{
        f"{src}_{letter}": ("nrcs_noaa14_nrcc_distributions", f"{src}_{letter}_frac")
        for src in ("NOAA", "NRCC")
        for letter in "ABCD"
    },
}

#: Tolerance on a user distribution closing at 1 (printed to 4 decimals or better).
CLOSE_TOL_FRAC = 1e-4
_TIME_TOL_HR = 1e-9


def distribution_names() -> list[str]:
    """Canonical keys of the shipped 24-hour distributions.

    Examples
    --------
    >>> distribution_names()[:4]
    ['I', 'IA', 'II', 'III']
    """
    return list(SHIPPED_DISTRIBUTIONS)


def canonical_distribution(name: str) -> str | None:
    """Map spellings such as 'Type II', 'type_ii', 'nrcs_type_iii', 'noaa-a' to a key."""
    key = re.sub(r"[\s\-\.]+", "_", str(name).strip().upper())
    key = re.sub(r"_FRAC$", "", key)
    key = re.sub(r"^(NRCS|SCS)_?", "", key)
    key = re.sub(r"^TYPE_?", "", key)
    key = re.sub(r"_?24_?(HR|HOUR|H)$", "", key)
    key = key.strip("_")
    key = {"1": "I", "1A": "IA", "2": "II", "3": "III"}.get(key, key)
    m = re.fullmatch(r"(NOAA|NRCC)_?([A-D])", key)
    if m:
        key = f"{m.group(1)}_{m.group(2)}"
    return key if key in SHIPPED_DISTRIBUTIONS else None


@dataclass(frozen=True, eq=False)
class RainfallDistribution:
    """A dimensionless cumulative rainfall distribution (mass curve).

    Parameters
    ----------
    time_hr : array_like
        Times, strictly increasing from 0. [h]
    cumulative_frac : array_like
        Fraction of the storm depth fallen by each time: starts at 0, never decreases and
        ends at 1 (within :data:`CLOSE_TOL_FRAC`; it is then rescaled to end at exactly 1). [-]
    name : str, optional
        Label (the shipped distributions use their canonical key, e.g. ``"III"``).
    source : str, optional
        Where the numbers come from (printed in reports).

    Raises
    ------
    InputError
        If the arrays differ in length or have fewer than 2 points, the times do not start at
        0 or do not increase, or the fractions do not start at 0, decrease somewhere, or do not
        close at 1.
    """

    time_hr: np.ndarray
    cumulative_frac: np.ndarray
    name: str = "user"
    source: str = ""

    def __post_init__(self):
        t = as_float_array(self.time_hr, "time_hr", lower=0.0)
        f = as_float_array(self.cumulative_frac, "cumulative_frac")
        label = f"distribution {self.name!r}"
        if t.ndim != 1 or f.ndim != 1 or t.size != f.size or t.size < 2:
            raise InputError(
                f"time_hr and cumulative_frac of {label} must be 1-D arrays of equal length "
                f">= 2; got shapes {t.shape} and {f.shape}"
            )
        if abs(t[0]) > _TIME_TOL_HR:
            raise InputError(
                f"time_hr of {label} must start at 0; got {fmt_value(t[0])}. "
                "Add a first row 0,0"
            )
        steps = np.diff(t)
        if np.any(steps <= 0):
            i = int(np.flatnonzero(steps <= 0)[0]) + 1
            raise InputError(
                f"time_hr of {label} must increase strictly; got {fmt_value(t[i])} after "
                f"{fmt_value(t[i - 1])} at index {i}. Sort the rows and remove duplicates"
            )
        if abs(f[0]) > CLOSE_TOL_FRAC:
            raise InputError(
                f"cumulative_frac of {label} must start at 0; got {fmt_value(f[0])}. "
                "A mass curve starts with no rain fallen"
            )
        drops = np.diff(f) < 0
        if drops.any():
            i = int(np.flatnonzero(drops)[0]) + 1
            raise InputError(
                f"cumulative_frac of {label} must never decrease (a mass curve is monotone); "
                f"got {fmt_value(f[i])} after {fmt_value(f[i - 1])} at index {i} "
                f"({int(drops.sum())} of {drops.size} steps decrease). Check the column is "
                "cumulative, not incremental"
            )
        if abs(f[-1] - 1.0) > CLOSE_TOL_FRAC:
            raise InputError(
                f"cumulative_frac of {label} must end at 1 (within {CLOSE_TOL_FRAC:g}); got "
                f"{fmt_value(f[-1])}. Divide by the total, or give depths as cumulative_in"
            )
        t = t.copy()
        f = (f - f[0]) / (f[-1] - f[0])  # exact 0 and 1 (a change below the tolerance)
        for arr in (t, f):
            arr.setflags(write=False)
        object.__setattr__(self, "time_hr", t)
        object.__setattr__(self, "cumulative_frac", f)

    @property
    def duration_hr(self) -> float:
        """Time at which the distribution reaches 1 (its last tabulated time) [h]."""
        return float(self.time_hr[-1])

    def fraction(self, time_hr: npt.ArrayLike) -> np.ndarray:
        """Cumulative fraction at ``time_hr`` by linear interpolation (1 after the end) [-]."""
        t = as_float_array(time_hr, "time_hr")
        f = np.interp(t, self.time_hr, self.cumulative_frac, left=0.0, right=1.0)
        return like(f, time_hr)

    def __repr__(self) -> str:
        return (
            f"RainfallDistribution(name={self.name!r}, n={self.time_hr.size}, "
            f"duration_hr={self.duration_hr:g})"
        )


@functools.cache
def shipped_distribution(key: str) -> RainfallDistribution:
    """A shipped distribution by its key (:data:`SHIPPED_DISTRIBUTIONS`), read once per process."""
    table, column = SHIPPED_DISTRIBUTIONS[key]
    frame = load_table(table)
    info = table_info(table)
    source = f"{info.get('source', '')}, {info.get('location', '')}".strip(", ")
    return RainfallDistribution(
        frame["time_hr"].to_numpy(), frame[column].to_numpy(), name=key, source=source
    )


def rainfall_distribution(distribution: str | RainfallDistribution) -> RainfallDistribution:
    """Return a shipped distribution by name, or pass a user distribution through.

    Parameters
    ----------
    distribution : str, RainfallDistribution, tuple or DataFrame
        ``"I"``, ``"IA"``, ``"II"``, ``"III"``, ``"NOAA_A"`` .. ``"NOAA_D"``, ``"NRCC_A"`` ..
        ``"NRCC_D"``; case-insensitive, and spellings such as ``"Type II"``, ``"type_iii"``,
        ``"nrcs_type_ii"`` or ``"NRCC-C"`` are accepted. A user distribution may also be
        given as ``(time_hr, cumulative_frac)`` or a frame with those columns (validated as
        :class:`RainfallDistribution`).

    Returns
    -------
    RainfallDistribution

    Raises
    ------
    InputError
        For an unknown name, with the closest valid names.

    Examples
    --------
    >>> rainfall_distribution("Type III").fraction(12.0)   # symmetric about 12 h
    0.5
    """
    if isinstance(distribution, RainfallDistribution):
        return distribution
    if hasattr(distribution, "columns") and {"time_hr", "cumulative_frac"} <= set(
            distribution.columns):
        # a DataFrame (hasattr does not narrow the annotated str | RainfallDistribution)
        return RainfallDistribution(distribution["time_hr"],  # type: ignore[index, arg-type]
                                    distribution["cumulative_frac"])  # type: ignore[index, arg-type]
    if isinstance(distribution, tuple) and len(distribution) == 2:
        return RainfallDistribution(*distribution)
    if not isinstance(distribution, str):
        raise InputError(
            f"distribution must be a name or a RainfallDistribution; got {distribution!r}"
        )
    key = canonical_distribution(distribution)
    if key is None:
        aliases = list(SHIPPED_DISTRIBUTIONS) + [f"type_{k.lower()}"
                                                 for k in ("I", "IA", "II", "III")]
        hint = (suggest(distribution, aliases)
                or suggest(distribution.upper(), list(SHIPPED_DISTRIBUTIONS)))
        raise InputError(
            f"unknown rainfall distribution {distribution!r}{hint} Valid: "
            f"{', '.join(SHIPPED_DISTRIBUTIONS)} (or a RainfallDistribution loaded with "
            "hydrocalc.design_storms.load_distribution_csv)"
        )
    return shipped_distribution(key)


@dataclass(frozen=True, eq=False)
class Hyetograph:
    """A storm as cumulative rainfall on a uniform time step from 0.

    Parameters
    ----------
    time_hr : array_like
        Times ``0, dt, 2 dt, ...``. [h]
    cumulative_in : array_like
        Rainfall fallen by each time: starts at 0 and never decreases. [in]
    name : str, optional
        Label used in tables and reports (e.g. ``"10yr"``).

    Raises
    ------
    InputError
        If the arrays differ in length, the times are not a uniform step from 0, or the
        depths are negative, do not start at 0 or decrease.

    Examples
    --------
    >>> h = Hyetograph([0.0, 0.5, 1.0], [0.0, 0.2, 1.0], name="test")
    >>> h.incremental_in.tolist(), h.depth_in, h.dt_hr
    ([0.0, 0.2, 0.8], 1.0, 0.5)
    """

    time_hr: np.ndarray
    cumulative_in: np.ndarray
    name: str = ""
    _dt_hr: float = field(init=False, repr=False)

    def __post_init__(self):
        t = as_float_array(self.time_hr, "time_hr")
        p = as_float_array(
            self.cumulative_in, "cumulative_in", lower=0.0,
            hint="Rainfall depths cannot be negative",
        )
        if t.ndim != 1 or p.ndim != 1 or t.size != p.size or t.size < 2:
            raise InputError(
                f"time_hr and cumulative_in must be 1-D arrays of equal length >= 2; got "
                f"shapes {t.shape} and {p.shape}"
            )
        dt = float(t[1] - t[0])
        if abs(t[0]) > _TIME_TOL_HR or dt <= 0:
            raise InputError(
                f"time_hr of a hyetograph must start at 0 and increase; got {fmt_value(t[0])}, "
                f"{fmt_value(t[1])}. Use hyetograph_from_cumulative to resample"
            )
        expected = dt * np.arange(t.size)
        off = ~np.isclose(t, expected, rtol=1e-9, atol=1e-7)
        if off.any():
            i = int(np.flatnonzero(off)[0])
            raise InputError(
                f"time_hr of a hyetograph must be a uniform step from 0; got {fmt_value(t[i])} "
                f"at index {i}, expected {fmt_value(expected[i])}. Use "
                "hyetograph_from_cumulative to resample"
            )
        if p[0] != 0.0:
            raise InputError(
                f"cumulative_in must start at 0 at time 0; got {fmt_value(p[0])}"
            )
        drops = np.diff(p) < 0
        if drops.any():
            i = int(np.flatnonzero(drops)[0]) + 1
            raise InputError(
                f"cumulative_in must never decrease; got {fmt_value(p[i])} after "
                f"{fmt_value(p[i - 1])} at index {i} ({int(drops.sum())} of {drops.size} "
                "steps decrease). Check the column is cumulative, not incremental"
            )
        t = expected.copy()  # exact multiples of dt
        p = p.copy()
        t.setflags(write=False)
        p.setflags(write=False)
        object.__setattr__(self, "time_hr", t)
        object.__setattr__(self, "cumulative_in", p)
        object.__setattr__(self, "_dt_hr", dt)

    @property
    def dt_hr(self) -> float:
        """Time step [h]."""
        return self._dt_hr

    @property
    def depth_in(self) -> float:
        """Storm depth (last cumulative value) [in]."""
        return float(self.cumulative_in[-1])

    @property
    def duration_hr(self) -> float:
        """Time of the last ordinate [h]."""
        return float(self.time_hr[-1])

    @property
    def incremental_in(self) -> np.ndarray:
        """Rain in the step ending at each time (0 at time 0); sums to ``depth_in`` [in]."""
        return np.diff(self.cumulative_in, prepend=0.0)

    @property
    def intensity_in_hr(self) -> np.ndarray:
        """Average intensity in the step ending at each time (0 at time 0) [in/h]."""
        return self.incremental_in / self._dt_hr

    def cumulative_at(self, time_hr: npt.ArrayLike) -> np.ndarray:
        """Cumulative rainfall at ``time_hr`` by linear interpolation [in]."""
        t = as_float_array(time_hr, "time_hr")
        return like(np.interp(t, self.time_hr, self.cumulative_in, left=0.0), time_hr)

    def resampled(self, dt_hr: float) -> Hyetograph:
        """The same storm on another step (linear interpolation of the mass curve)."""
        return hyetograph_from_cumulative(
            self.time_hr, self.cumulative_in, dt_hr=dt_hr, name=self.name
        )

    def to_frame(self):
        """DataFrame with columns ``time_hr``, ``cumulative_in``, ``incremental_in``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "time_hr": self.time_hr,
                "cumulative_in": self.cumulative_in,
                "incremental_in": self.incremental_in,
            }
        )

    def __repr__(self) -> str:
        return (
            f"Hyetograph(name={self.name!r}, n={self.time_hr.size}, dt_hr={self._dt_hr:g}, "
            f"depth_in={self.depth_in:.4g})"
        )


_MAX_STEPS = 1_000_000  # a time grid longer than this is a unit slip, not a design storm


def _time_grid(end_hr: float, dt_hr: float) -> np.ndarray:
    """``0, dt, ...`` up to the first multiple of dt at or after ``end_hr``."""
    if dt_hr > end_hr > 0:
        raise InputError(f"dt_hr must be <= the storm duration {fmt_value(end_hr)} h; got "
                         f"{fmt_value(dt_hr)}. Use a step such as 0.1 h")
    if end_hr / dt_hr > _MAX_STEPS:
        raise InputError(f"dt_hr must be >= {fmt_value(end_hr / _MAX_STEPS)} h (at most "
                         f"{_MAX_STEPS:,} steps over {fmt_value(end_hr)} h); got "
                         f"{fmt_value(dt_hr)}. Use a step such as 0.1 h")
    n = int(np.ceil(end_hr / dt_hr - 1e-9))
    return dt_hr * np.arange(n + 1)


def _scalar(value, name: str, **bounds) -> float:
    arr = as_float_array(value, name, **bounds)
    if arr.ndim != 0:
        raise InputError(
            f"{name} must be a single number; got an array of shape {arr.shape}. Call once "
            "per value (design_storms builds several storms)"
        )
    return float(arr)


def design_storm(
    depth_in: float,
    *,
    distribution: str | RainfallDistribution = "III",
    dt_hr: float = 0.1,
    duration_hr: float = 24.0,
    name: str = "",
) -> Hyetograph:
    r"""Design-storm hyetograph: a storm depth spread by a cumulative distribution.

    Parameters
    ----------
    depth_in : float
        Storm depth :math:`P` (e.g. the 24-h depth of the design return period). [in]
    distribution : str or RainfallDistribution, default "III"
        A shipped NRCS distribution (``"I"``, ``"IA"``, ``"II"``, ``"III"``,
        ``"NOAA_A"`` .. ``"NOAA_D"``, ``"NRCC_A"`` .. ``"NRCC_D"``, case-insensitive, also
        ``"type_ii"`` style) or a user distribution. Always an explicit project choice.
    dt_hr : float, default 0.1
        Time step of the hyetograph; any positive value (the last step may end after the
        storm, with no rain in it). [h]
    duration_hr : float, default 24.0
        Storm duration; must equal the distribution's own duration (24 h for every shipped
        distribution; the NRCS shapes are defined for 24 h only). [h]
    name : str, optional
        Label (e.g. ``"10yr"``).

    Returns
    -------
    Hyetograph
        Cumulative rainfall at ``0, dt, 2 dt, ...``; monotone, ending at exactly
        ``depth_in``.

    Raises
    ------
    InputError
        If ``depth_in`` is negative or NaN, ``dt_hr`` is not positive, the distribution is
        unknown (with suggestions), or ``duration_hr`` differs from the distribution's.

    Notes
    -----
    :math:`P(t) = P \, F(t)`, with :math:`F` the tabulated mass curve interpolated linearly
    between its 0.1-h ordinates as WinTR-20 does [2]_. Linear interpolation of a monotone
    table is monotone, and :math:`F` = 1 at and after the end of the table, so the storm
    totals ``depth_in`` exactly for any ``dt_hr``.

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Appendix B.
    .. [2] USDA NRCS, WinTR-20 user guide and rainfall tables (0.1 h), 2015.

    Examples
    --------
    >>> storm = design_storm(5.0, distribution="II", dt_hr=0.1, name="10yr")
    >>> storm.depth_in, len(storm.time_hr)
    (5.0, 241)
    >>> round(storm.cumulative_at(12.0), 4)   # Type II table: 0.66300 of P by 12 h
    3.315
    """
    p_in = _scalar(depth_in, "depth_in", lower=0.0, hint="A storm depth cannot be negative")
    dt = _scalar(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False)
    duration = _scalar(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False)
    dist = rainfall_distribution(distribution)
    if abs(duration - dist.duration_hr) > 1e-6:
        raise InputError(
            f"duration_hr must equal the duration of distribution {dist.name!r} "
            f"({fmt_value(dist.duration_hr)} h); got {fmt_value(duration)}. The NRCS shapes are "
            "defined for 24 h only; load a user distribution for other durations"
        )
    t = _time_grid(dist.duration_hr, dt)
    cumulative = p_in * dist.fraction(t)
    cumulative[-1] = p_in  # F = 1 at and after the end; exact, not 1 - 1e-16
    return Hyetograph(t, cumulative, name=name or f"{dist.name} {fmt_value(p_in)} in")


def design_storms(
    depths_in: Mapping[str, float] | Sequence[float],
    *,
    distribution: str | RainfallDistribution = "III",
    dt_hr: float = 0.1,
    duration_hr: float = 24.0,
) -> list[Hyetograph]:
    """Several design storms with one distribution (e.g. every return period of a site).

    Parameters
    ----------
    depths_in : mapping or sequence of float
        ``{"2yr": 3.4, "10yr": 5.0}`` (names kept) or plain depths. [in]
    distribution, dt_hr, duration_hr
        As in :func:`design_storm`.

    Returns
    -------
    list of Hyetograph

    Examples
    --------
    >>> [s.name for s in design_storms({"2yr": 3.4, "100yr": 8.0}, distribution="III")]
    ['2yr', '100yr']
    """
    items = depths_in.items() if isinstance(depths_in, Mapping) else (
        ("", d) for d in depths_in
    )
    return [
        design_storm(d, distribution=distribution, dt_hr=dt_hr, duration_hr=duration_hr,
                     name=str(n))
        for n, d in items
    ]


def hyetograph_from_cumulative(
    time_hr: npt.ArrayLike,
    cumulative_in: npt.ArrayLike,
    *,
    dt_hr: float | None = None,
    name: str = "",
) -> Hyetograph:
    """A hyetograph from cumulative depths at arbitrary increasing times.

    Parameters
    ----------
    time_hr : array_like
        Times, strictly increasing from 0 (need not be uniform). [h]
    cumulative_in : array_like
        Rain fallen by each time; starts at 0 and never decreases. [in]
    dt_hr : float, optional
        Step of the result; default: the step of ``time_hr`` when it is uniform. [h]
    name : str, optional

    Returns
    -------
    Hyetograph
        The mass curve interpolated linearly to ``0, dt, ...`` (closing at the last depth).

    Raises
    ------
    InputError
        If the times are not increasing from 0, the depths are negative, do not start at 0 or
        decrease, or the times are not uniform and no ``dt_hr`` is given.

    Examples
    --------
    >>> h = hyetograph_from_cumulative([0, 1, 3], [0, 1.0, 2.0], dt_hr=1.0)
    >>> h.cumulative_in.tolist()
    [0.0, 1.0, 1.5, 2.0]
    """
    t = as_float_array(time_hr, "time_hr", lower=0.0)
    p = as_float_array(cumulative_in, "cumulative_in", lower=0.0,
                       hint="Rainfall depths cannot be negative")
    if t.ndim != 1 or p.ndim != 1 or t.size != p.size or t.size < 2:
        raise InputError(
            f"time_hr and cumulative_in must be 1-D arrays of equal length >= 2; got shapes "
            f"{t.shape} and {p.shape}"
        )
    total = float(p[-1])
    # Validate shape through the distribution class (start at 0, monotone), then rescale.
    frac = p / total if total > 0 else np.r_[np.zeros(p.size - 1), 1.0]
    if total > 0:
        RainfallDistribution(t, frac, name=name or "hyetograph")
    elif abs(t[0]) > _TIME_TOL_HR:
        raise InputError(f"time_hr must start at 0; got {fmt_value(t[0])}")
    if dt_hr is None:
        steps = np.diff(t)
        if not np.allclose(steps, steps[0], rtol=1e-6, atol=1e-9):
            raise InputError(
                "dt_hr must be given when time_hr is not a uniform step; got steps from "
                f"{fmt_value(steps.min())} to {fmt_value(steps.max())} h. Pass dt_hr="
            )
        dt = float(steps[0])
    else:
        dt = _scalar(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False)
    grid = _time_grid(float(t[-1]), dt)
    cumulative = np.interp(grid, t, p)
    cumulative[-1] = total
    return Hyetograph(grid, cumulative, name=name)


def max_window_fraction(
    distribution: str | RainfallDistribution, window_hr: float
) -> float:
    """Largest fraction of the storm falling in any ``window_hr`` window [-].

    Computed on the distribution's own table with linear interpolation (windows slide by
    0.01 h). For the NRCS distributions this is the design ratio :math:`P_{window}/P_{24}`
    the distribution was built to reproduce [4]_ (module references).

    References
    ----------
    .. [4] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation,
       Oct. 2015 (regions split by the 60-min/24-h ratio of the 25-yr depths; secondary).

    Examples
    --------
    >>> round(max_window_fraction("II", 1.0), 3)
    0.454
    """
    dist = rainfall_distribution(distribution)
    w = _scalar(window_hr, "window_hr", lower=0.0, lower_inclusive=False)
    start = np.arange(0.0, max(dist.duration_hr - w, 0.0) + 1e-9, 0.01)
    return float(np.max(dist.fraction(start + w) - dist.fraction(start)))


def rank_distributions(
    ratio_1hr_24hr: float, *, candidates: Sequence[str] | None = None
) -> pd.DataFrame:
    """Shipped distributions ranked by how well they match a 1-h/24-h depth ratio.

    A *suggestion* only: the distribution of a project is always an explicit setting. NRCS
    assigned the NRCC regions by the 60-min/24-h ratio of the 25-yr depths [4]_ (module
    references); this ranks by the same ratio.

    Parameters
    ----------
    ratio_1hr_24hr : float
        Site 1-hour depth divided by the 24-hour depth (same return period, e.g. 25 yr). [-]
    candidates : sequence of str, optional
        Distribution keys to rank; default all shipped ones.

    Returns
    -------
    pandas.DataFrame
        Columns ``distribution``, ``max_1hr_frac`` (largest 1-h fraction of the shape) and
        ``difference`` (``max_1hr_frac - ratio``), sorted by ``|difference|``.

    References
    ----------
    .. [4] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation,
       Oct. 2015 (regions split by the 60-min/24-h ratio of the 25-yr depths; secondary).

    Examples
    --------
    >>> rank_distributions(0.41, candidates=["II", "III"]).distribution.tolist()
    ['III', 'II']
    """
    import pandas as pd

    ratio = _scalar(ratio_1hr_24hr, "ratio_1hr_24hr", lower=0.0, upper=1.0,
                    lower_inclusive=False)
    keys = [rainfall_distribution(c).name for c in (candidates or list(SHIPPED_DISTRIBUTIONS))]
    fracs = np.array([max_window_fraction(k, 1.0) for k in keys])
    frame = pd.DataFrame(
        {"distribution": keys, "max_1hr_frac": fracs, "difference": fracs - ratio}
    )
    order = np.argsort(np.abs(frame["difference"].to_numpy()), kind="stable")
    return frame.iloc[order].reset_index(drop=True)


def tr55_rainfall_type(distribution: str | None) -> str | None:
    """The TR-55 rainfall type (``"I"``, ``"IA"``, ``"II"``, ``"III"``) a distribution names.

    None when it is not one of the four NRCS types (TR-55, 1986, Fig. B-2).

    Examples
    --------
    >>> tr55_rainfall_type("Type II"), tr55_rainfall_type("nrcs_ia"), tr55_rainfall_type("noaa_c")
    ('II', 'IA', None)
    """
    if not isinstance(distribution, str):
        return None
    key = distribution.strip().upper().replace("TYPE_", "").replace("TYPE ", "")
    key = key.replace("NRCS_", "")
    return key if key in ("I", "IA", "II", "III") else None
