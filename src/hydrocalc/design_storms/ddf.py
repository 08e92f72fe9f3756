r"""Depth-duration-frequency (DDF) tables: durations, the physics checks, the container.

:class:`DepthFrequencyTable` holds a site's precipitation depths by duration and return
period (with optional 90 % bounds, a ``source`` and an ``illustrative`` warning);
:func:`ddf_physics_problems` lists what a hydrologist checks in such a table (depths grow
with duration and return period, bounds enclose the mean, nothing beats the world record).
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hydrocalc._validate import fmt_value, suggest
from hydrocalc.errors import InputError

#: Text every report prints for a DDF file flagged ``illustrative = true``.
ILLUSTRATIVE_WARNING = "illustrative: replace with NOAA Atlas 14 / NRCC for the site"

#: Tolerance on a hyetograph file closing at the given storm depth. [in]
DEPTH_CLOSE_TOL_IN = 0.005

_SERIES = {"partial_duration": "partial duration", "annual_maximum": "annual maximum"}


# --------------------------------------------------------------------------------------
# durations
# --------------------------------------------------------------------------------------

_DURATION_RE = re.compile(
    r"^\s*(\d+(?:\.\d+)?)\s*-?\s*(min|mins|minute|minutes|hr|hrs|hour|hours|h|day|days|d)"
    r"\s*:?\s*$",
    re.IGNORECASE,
)


def parse_duration(label: str) -> tuple[str, float]:
    """Canonical label and hours of a duration such as ``"5-min:"``, ``"120-min"``, ``"2-day"``.

    Returns
    -------
    label : str
        ``"<n>-min"`` up to 60 min, ``"<n>-hr"`` for hours (``"120-min"`` -> ``"2-hr"``),
        ``"<n>-day"`` for days.
    duration_hr : float
        Duration in hours. [h]

    Raises
    ------
    InputError
        If the text is not a duration.

    Examples
    --------
    >>> parse_duration("120-min"), parse_duration("2-day:"), parse_duration(" 5-min: ")
    (('2-hr', 2.0), ('2-day', 48.0), ('5-min', 0.08333333333333333))
    """
    m = _DURATION_RE.match(str(label))
    if not m:
        raise InputError(
            f"duration must look like '5-min', '2-hr' or '2-day'; got {label!r}"
        )
    value = float(m.group(1))
    unit = m.group(2).lower()
    number = fmt_value(value)
    if unit.startswith("m"):
        if value > 60 and (value / 60).is_integer():
            return f"{int(value // 60)}-hr", value / 60.0
        return f"{number}-min", value / 60.0
    if unit.startswith("d"):
        return f"{number}-day", value * 24.0
    return f"{number}-hr", value


def _duration_key(label: str) -> str:
    return parse_duration(label)[0]


# --------------------------------------------------------------------------------------
# the physics a hydrologist checks in a depth-duration-frequency table
# --------------------------------------------------------------------------------------

#: Return periods accepted [yr]: NOAA Atlas 14 and NRCC tabulate 1 to 1,000 years.
RETURN_PERIOD_RANGE_YR = (1.0, 10_000.0)
#: Factor on the world-record envelope above which a depth is refused as impossible.
WORLD_RECORD_MARGIN = 1.5
#: How far a 90 % bound may sit on the wrong side of the mean (fraction of the mean). NRCC's
#: published smoothed tables put the upper bound up to 4 % below the mean at 2-3 h, 2-5 yr
#: (the bounds and the mean are smoothed separately); beyond 5 % the table is refused.
BOUND_TOLERANCE_FRAC = 0.05


def world_record_depth_in(duration_hr):
    r"""Envelope of the world's greatest observed point rainfalls, :math:`R = 16.6\,D^{0.475}`.

    Jennings (1950) fitted the envelope of world-record point rainfalls with ``R`` in inches
    and ``D`` in hours; later records (e.g. 71.8 in in 24 h, Foc-Foc, La Reunion, 1966) lie
    close to it. hydrocalc refuses depths above :data:`WORLD_RECORD_MARGIN` times this
    envelope as unit slips or corrupt values.

    References
    ----------
    .. [1] Jennings, A. H., 1950: "World's greatest observed point rainfalls," Monthly
       Weather Review, 78(1), 4-5.

    Examples
    --------
    >>> round(float(world_record_depth_in(24.0)), 1)
    75.1
    """
    return 16.6 * np.asarray(duration_hr, dtype=float) ** 0.475


def ddf_physics_problems(depth_in: pd.DataFrame, upper_in: pd.DataFrame | None = None,
                         lower_in: pd.DataFrame | None = None) -> list[str]:
    """Every physical inconsistency of a DDF table, naming the row (duration) and column.

    Rules (a hydrologist's checks of a precipitation-frequency table):

    * return periods lie in :data:`RETURN_PERIOD_RANGE_YR` and strictly increase (no
      duplicate, none out of order); durations strictly increase (no duplicate row, none
      out of order);
    * the mean depth never falls as the return period rises (along a row) nor as the
      duration rises (down a column: a 24-hour depth is never below the 1-hour depth);
    * the 90 % bounds bracket the mean (``lower <= mean <= upper``, within
      :data:`BOUND_TOLERANCE_FRAC` of the mean, see there) and ``lower <= upper``;
    * no depth exceeds :data:`WORLD_RECORD_MARGIN` times the world-record envelope
      (:func:`world_record_depth_in`) for its duration.

    The bounds themselves need not be monotonic (NRCC's published bounds are not).
    """
    out: list[str] = []
    rps = [float(c) for c in depth_in.columns]
    lo, hi = RETURN_PERIOD_RANGE_YR
    for c in rps:
        if not lo <= c <= hi:
            out.append(f"return_period_yr must be in [{fmt_value(lo)}, {fmt_value(hi)}]; got "
                       f"{fmt_value(c)}")
    for a, b in zip(rps, rps[1:], strict=False):
        if b <= a:
            what = "repeats" if b == a else "is out of order"
            out.append(f"return_period_yr must strictly increase; {fmt_value(b)} yr {what} "
                       f"after {fmt_value(a)} yr")
            break
    hours = [parse_duration(d)[1] for d in depth_in.index]
    for (la, a), (lb, b) in zip(zip(depth_in.index, hours, strict=True),
                                list(zip(depth_in.index, hours, strict=True))[1:], strict=False):
        if b <= a:
            what = "repeats" if b == a else "is out of order"
            out.append(f"durations must strictly increase; row {lb} {what} after row {la}")
            break
    if out:
        return out
    v = depth_in.to_numpy(dtype=float)
    limit = WORLD_RECORD_MARGIN * world_record_depth_in(np.array(hours))[:, None]
    big = np.argwhere(v > limit)
    if big.size:
        r, c = big[0]
        out.append(
            f"depth_in row {depth_in.index[r]}, {fmt_value(rps[c])} yr: must be <= "
            f"{fmt_value(round(float(limit[r, 0]), 1))} in ({fmt_value(WORLD_RECORD_MARGIN)} x "
            f"the world-record point rainfall for {depth_in.index[r]}); got "
            f"{fmt_value(v[r, c])}. Check the units (inches) and the file")
    tol = 1e-9
    fall = np.argwhere(np.diff(v, axis=1) < -tol)
    if fall.size:
        r, c = fall[0]
        out.append(
            f"depth_in row {depth_in.index[r]}: depth must not fall as the return period rises; "
            f"got {fmt_value(v[r, c + 1])} in at {fmt_value(rps[c + 1])} yr < "
            f"{fmt_value(v[r, c])} in at {fmt_value(rps[c])} yr")
    fall = np.argwhere(np.diff(v, axis=0) < -tol)
    if fall.size:
        r, c = fall[0]
        out.append(
            f"depth_in column {fmt_value(rps[c])} yr: depth must not fall as the duration rises; "
            f"got {fmt_value(v[r + 1, c])} in for {depth_in.index[r + 1]} < "
            f"{fmt_value(v[r, c])} in for {depth_in.index[r]}")
    for key, frame, sign in (("upper_in", upper_in, 1), ("lower_in", lower_in, -1)):
        if frame is None:
            continue
        b = frame.to_numpy(dtype=float)
        bad = np.argwhere(sign * (b - v) < -(BOUND_TOLERANCE_FRAC * v + tol))
        if bad.size:
            r, c = bad[0]
            word = "upper bound must be >= the mean" if sign > 0 else \
                "lower bound must be <= the mean"
            out.append(
                f"{key} row {depth_in.index[r]}, {fmt_value(rps[c])} yr: the 90 % {word}; got "
                f"{fmt_value(b[r, c])} vs mean {fmt_value(v[r, c])} "
                f"({len(bad)} of {b.size} values)")
    if upper_in is not None and lower_in is not None:
        u, lw = upper_in.to_numpy(dtype=float), lower_in.to_numpy(dtype=float)
        bad = np.argwhere(u < lw - tol)
        if bad.size:
            r, c = bad[0]
            out.append(f"upper_in row {depth_in.index[r]}, {fmt_value(rps[c])} yr: the upper "
                       f"bound must be >= the lower bound; got {fmt_value(u[r, c])} < "
                       f"{fmt_value(lw[r, c])}")
    return out


# --------------------------------------------------------------------------------------
# the DDF container
# --------------------------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class DepthFrequencyTable:
    """Precipitation depths of a site by duration and return period.

    Attributes
    ----------
    depth_in : pandas.DataFrame
        Mean estimates: index = duration labels (``"5-min"`` .. ``"60-day"``, named
        ``duration``), columns = return periods in years (int). [in]
    source : str
        Provenance (publication, volume/version, download stamp or retrieval date).
    upper_in, lower_in : pandas.DataFrame or None
        Upper and lower bounds of the 90 % confidence interval, same layout. [in]
    site : str
        Site or location name.
    series : str
        ``"partial_duration"``, ``"annual_maximum"`` or ``""`` (unknown).
    latitude_deg, longitude_deg : float or None
        Location. [deg]
    illustrative : bool
        True for placeholder numbers that must be replaced before design use.
    warning_text : str
        Warning printed by every report (defaults to :data:`ILLUSTRATIVE_WARNING` when
        ``illustrative``).
    suggested_distribution : str
        Informational only (see :func:`suggest_distribution`); never used as a default.
    metadata : dict
        Other header fields (project area, volume, elevation, download stamp, ...).
    """

    depth_in: pd.DataFrame
    source: str
    upper_in: pd.DataFrame | None = None
    lower_in: pd.DataFrame | None = None
    site: str = ""
    series: str = ""
    latitude_deg: float | None = None
    longitude_deg: float | None = None
    illustrative: bool = False
    warning_text: str = ""
    suggested_distribution: str = ""
    metadata: dict = dataclasses.field(default_factory=dict)

    def __post_init__(self):
        problems = []
        if not str(self.source).strip():
            problems.append("source must name where the depths come from; got an empty string")
        if self.series and self.series not in _SERIES:
            problems.append(
                f"series must be one of {', '.join(_SERIES)}; got {self.series!r}"
            )
        frames = {"depth_in": self.depth_in, "upper_in": self.upper_in,
                  "lower_in": self.lower_in}
        clean = {}
        for key, frame in frames.items():
            if frame is None:
                clean[key] = None
                continue
            f = pd.DataFrame(frame).astype(float)
            f.index = [_duration_key(i) for i in f.index]
            f.index.name = "duration"
            f.columns = [int(c) if float(c).is_integer() else float(c) for c in f.columns]
            f.columns.name = "return_period_yr"
            values = f.to_numpy()
            bad = ~np.isfinite(values) | (values <= 0)
            if bad.any():
                r, c = (int(x[0]) for x in np.nonzero(bad))
                problems.append(
                    f"{key} must be positive numbers; got {fmt_value(values[r, c])} for "
                    f"{f.index[r]} / {f.columns[c]} yr ({int(bad.sum())} of {bad.size} values "
                    "invalid)"
                )
            if f.index.has_duplicates:
                twice = f.index[f.index.duplicated()][0]
                problems.append(f"{key} lists a duration twice: {twice}")
            clean[key] = f
        base = clean["depth_in"]
        for key in ("upper_in", "lower_in"):
            f = clean[key]
            if f is not None and (list(f.index) != list(base.index)
                                  or list(f.columns) != list(base.columns)):
                problems.append(
                    f"{key} must have the same durations and return periods as depth_in"
                )
        if not problems:
            problems += ddf_physics_problems(clean["depth_in"], clean["upper_in"],
                                             clean["lower_in"])
        elif base is not None and not base.index.has_duplicates:
            problems[:0] = ddf_physics_problems(base)  # the mean's own faults first
        if problems:
            raise InputError("\n".join(problems))
        for key, f in clean.items():
            object.__setattr__(self, key, f)
        if self.illustrative and not self.warning_text:
            object.__setattr__(self, "warning_text", ILLUSTRATIVE_WARNING)

    # -- views ----------------------------------------------------------------------------
    @property
    def warning(self) -> str | None:
        """The text a report must print about these depths (None when there is none)."""
        if not self.warning_text:
            return None
        where = f" ({self.site})" if self.site else ""
        return f"{self.warning_text}{where}"

    @property
    def durations(self) -> list[str]:
        """Duration labels in file order."""
        return list(self.depth_in.index)

    @property
    def duration_hr(self) -> np.ndarray:
        """Durations in hours, in row order [h]."""
        return np.array([parse_duration(d)[1] for d in self.depth_in.index])

    @property
    def return_periods_yr(self) -> list:
        """Return periods in column order [yr]."""
        return list(self.depth_in.columns)

    def _row(self, duration) -> str:
        if isinstance(duration, str):
            key, hours = parse_duration(duration)
            if key in self.depth_in.index:
                return key
            match = np.flatnonzero(np.isclose(self.duration_hr, hours, rtol=1e-6))
            if match.size == 0:  # "1-hr" finds "60-min"; anything else is an error
                raise InputError(
                    f"duration {duration!r} is not in this table{suggest(key, self.durations)}"
                    f" Available: {', '.join(self.durations)}"
                )
            return self.depth_in.index[int(match[0])]
        hours = float(duration)
        match = np.flatnonzero(np.isclose(self.duration_hr, hours, rtol=1e-6))
        if match.size == 0:
            raise InputError(
                f"duration_hr {fmt_value(hours)} is not in this table; available: "
                f"{', '.join(self.durations)}"
            )
        return self.depth_in.index[int(match[0])]

    def depth(self, return_period_yr, duration: str | float = "24-hr") -> float:
        """Mean depth for one return period and duration (label or hours) [in].

        Examples
        --------
        >>> t = DepthFrequencyTable(pd.DataFrame({2: [3.4], 10: [5.0]}, index=["24-hr"]),
        ...                         source="example")
        >>> t.depth(10), t.depth(2, 24.0)
        (5.0, 3.4)
        """
        row = self._row(duration)
        rp = float(return_period_yr)
        cols = [c for c in self.depth_in.columns if math.isclose(float(c), rp)]
        if not cols:
            raise InputError(
                f"return_period_yr {fmt_value(rp)} is not in this table; available: "
                f"{', '.join(fmt_value(c) for c in self.depth_in.columns)}"
            )
        return float(self.depth_in.loc[row, cols[0]])

    def storm_depths_in(self, duration: str | float = "24-hr") -> dict[str, float]:
        """``{"2yr": depth, ...}`` for one duration (the design-storm depths) [in]."""
        row = self._row(duration)
        return {f"{fmt_value(c)}yr": float(v) for c, v in self.depth_in.loc[row].items()}

    def to_frame(self) -> pd.DataFrame:
        """Tidy table of the depths, one row per duration and return period.

        Columns ``duration``, ``duration_hr``, ``return_period_yr``, ``depth_in`` and, when
        present, ``upper_in`` and ``lower_in``.
        """
        long = self.depth_in.stack().rename("depth_in").reset_index()
        long.insert(1, "duration_hr", [parse_duration(d)[1] for d in long["duration"]])
        for key in ("upper_in", "lower_in"):
            frame = getattr(self, key)
            if frame is not None:
                long[key] = frame.stack().to_numpy()
        return long

    def ratio(self, duration: str, base: str = "24-hr", return_period_yr=25) -> float:
        """Depth ratio of two durations for one return period (e.g. 60-min / 24-hr) [-]."""
        return self.depth(return_period_yr, duration) / self.depth(return_period_yr, base)
