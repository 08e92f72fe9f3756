r"""Site rainfall inputs: depth-duration-frequency files, importers and CSV loaders.

This module is the file layer of the design storms (:mod:`hydrocalc.rainfall` holds the
equations and never reads files):

* **DDF files** (``design_storms/*.toml``): a site's precipitation depths by duration and
  return period, with a mandatory ``source`` field, optional 90 % bounds, and an
  ``illustrative`` flag. :func:`load_depth_file` returns a :class:`DepthFrequencyTable`
  whose ``warning`` every report must print (and emits it as a ``UserWarning``);
  :func:`read_depth_file` returns just ``(frame, warning)``.
* **Importers** for the NOAA Atlas 14 precipitation-frequency CSV as downloaded from the
  PFDS page [1]_ (partial-duration or annual-maximum series, depth in inches, mean table and
  optional upper/lower 90 % bound tables) and for the NRCC "Extreme Precipitation in New York
  & New England" table [2]_; both tolerate UTF-8, Latin-1/cp1252 and U+FFFD degree signs,
  spreadsheet re-saves padded with commas and CRLF line ends, files without bound tables,
  and labels or colons that a spreadsheet dropped. :func:`import_precipitation_frequency`
  writes a DDF file from either.
* The importer **suggests** the closest shipped distribution from the 60-min/24-h ratio of
  the 25-yr depths (the criterion NRCS used to draw the NRCC distribution regions [3]_), but
  never chooses it: the distribution is always an explicit project setting.
* **User distributions and hyetographs** from CSV (:func:`load_distribution_csv`,
  :func:`load_hyetograph_csv`), and the NOAA Atlas 14 Volume 10 temporal distributions
  (:func:`read_a14_temporal_csv`, :func:`a14_temporal_distribution`) [4]_.

Symbols
-------
==================  ======  ==================================================
API name            Unit    Meaning
==================  ======  ==================================================
duration_hr         h       rainfall duration of a DDF row (5 min = 0.0833 h)
return_period_yr    yr      average recurrence interval (PDS) or 1/AEP (AMS)
depth_in            in      mean (point) precipitation-frequency estimate
upper_in, lower_in  in      bounds of the 90 % confidence interval
time_hr             h       time since the start of a storm
cumulative_frac     -       cumulative fraction of the storm depth
cumulative_in       in      cumulative rainfall
==================  ======  ==================================================

References
----------
.. [1] NOAA National Weather Service, Hydrometeorological Design Studies Center,
   "Precipitation Frequency Data Server (PFDS)," NOAA Atlas 14 point estimates, CSV export.
.. [2] Northeast Regional Climate Center / NRCS, "Extreme Precipitation in New York & New
   England," http://precip.eas.cornell.edu (2011 static data).
.. [3] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation, 2015.
.. [4] NOAA, "NOAA Atlas 14 Volume 10: Precipitation-Frequency Atlas of the United States,
   Northeastern States," 2015 (temporal distributions, 24-h, by quartile).
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import pathlib
import re
import tomllib
import warnings
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from hydrocalc._validate import fmt_value, suggest
from hydrocalc.errors import InputError
from hydrocalc.rainfall import (
    CLOSE_TOL_FRAC,
    Hyetograph,
    RainfallDistribution,
    hyetograph_from_cumulative,
    rank_distributions,
)

__all__ = [
    "ILLUSTRATIVE_WARNING",
    "DepthFrequencyTable",
    "load_depth_file",
    "read_depth_file",
    "write_depth_file",
    "parse_duration",
    "read_pfds_csv",
    "read_nrcc_csv",
    "read_precipitation_frequency",
    "import_precipitation_frequency",
    "suggest_distribution",
    "load_distribution_csv",
    "load_hyetograph_csv",
    "read_a14_temporal_csv",
    "a14_temporal_distribution",
]

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
        """Durations in hours, in row order. [h]"""
        return np.array([parse_duration(d)[1] for d in self.depth_in.index])

    @property
    def return_periods_yr(self) -> list:
        """Return periods in column order. [yr]"""
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
        """Mean depth for one return period and duration (label or hours). [in]

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
        """``{"2yr": depth, ...}`` for one duration (the design-storm depths). [in]"""
        row = self._row(duration)
        return {f"{fmt_value(c)}yr": float(v) for c, v in self.depth_in.loc[row].items()}

    def to_frame(self) -> pd.DataFrame:
        """Tidy table: ``duration``, ``duration_hr``, ``return_period_yr``, ``depth_in``
        and, when present, ``upper_in`` and ``lower_in``."""
        long = self.depth_in.stack().rename("depth_in").reset_index()
        long.insert(1, "duration_hr", [parse_duration(d)[1] for d in long["duration"]])
        for key in ("upper_in", "lower_in"):
            frame = getattr(self, key)
            if frame is not None:
                long[key] = frame.stack().to_numpy()
        return long

    def ratio(self, duration: str, base: str = "24-hr", return_period_yr=25) -> float:
        """Depth ratio of two durations for one return period (e.g. 60-min / 24-hr). [-]"""
        return self.depth(return_period_yr, duration) / self.depth(return_period_yr, base)


# --------------------------------------------------------------------------------------
# DDF files (TOML)
# --------------------------------------------------------------------------------------

_TOP_KEYS = {
    "format", "site", "source", "series", "units", "latitude_deg", "longitude_deg",
    "illustrative", "warning", "suggested_distribution", "return_period_yr", "depth_in",
    "upper_in", "lower_in", "metadata", "note",
}


def _parse_ddf(doc: Mapping, where: str) -> DepthFrequencyTable:
    problems = []
    for key in doc:
        if key not in _TOP_KEYS:
            problems.append(f"{where}: unknown key {key!r}{suggest(key, _TOP_KEYS)}")
    source = doc.get("source")
    if not isinstance(source, str) or not source.strip():
        problems.append(f"{where}: source must name where the depths come from; got {source!r}")
    units = doc.get("units", "in")
    if units != "in":
        problems.append(f"{where}: units must be \"in\"; got {units!r}. Convert to inches")
    rps = doc.get("return_period_yr")
    if not isinstance(rps, list) or not rps or not all(
            isinstance(r, (int, float)) and not isinstance(r, bool) and math.isfinite(r)
            and r > 0 for r in rps):
        problems.append(
            f"{where}: return_period_yr must be a list of positive numbers; got "
            f"{_excerpt(repr(rps))}"
        )
        rps = None
    for key in ("latitude_deg", "longitude_deg"):
        value = doc.get(key)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            problems.append(f"{where}: {key} must be a number; got {value!r}")
    illustrative = doc.get("illustrative", False)
    if not isinstance(illustrative, bool):
        problems.append(f"{where}: illustrative must be true or false; got {illustrative!r}")
    frames = {}
    for key in ("depth_in", "upper_in", "lower_in"):
        table = doc.get(key)
        if table is None:
            if key == "depth_in":
                problems.append(f"{where}: [depth_in] table is required")
            frames[key] = None
            continue
        if not isinstance(table, Mapping) or not table:
            problems.append(f"{where}: [{key}] must map durations to lists of depths")
            frames[key] = None
            continue
        rows = {}
        for label, values in table.items():
            try:
                canon = _duration_key(label)
            except InputError as exc:
                problems.append(f"{where}: [{key}] {exc}")
                continue
            if rps is not None and (not isinstance(values, list) or len(values) != len(rps)):
                n = len(values) if isinstance(values, list) else "not a list"
                problems.append(
                    f"{where}: [{key}] {label!r} must have {len(rps)} values (one per "
                    f"return_period_yr); got {n}"
                )
                continue
            bad = [v for v in values if isinstance(v, bool) or not isinstance(v, int | float)]
            if bad:
                problems.append(f"{where}: [{key}] {label!r} must be numbers (depths in "
                                f"inches); got {_excerpt(repr(bad[0]))}")
                continue
            if canon in rows:
                problems.append(f"{where}: [{key}] lists duration {canon} twice")
                continue
            rows[canon] = values
        if rows and "24-hr" not in rows:
            problems.append(f"{where}: [{key}] must have a 24-hr row (design storms are "
                            f"24-hour depths); got {', '.join(rows)}")
        frames[key] = pd.DataFrame.from_dict(rows, orient="index", columns=rps) if (
            rps is not None and rows) else None
    if problems:
        raise InputError("\n".join(problems))
    try:
        return DepthFrequencyTable(
            depth_in=frames["depth_in"], upper_in=frames["upper_in"],
            lower_in=frames["lower_in"], source=source, site=str(doc.get("site", "")),
            series=str(doc.get("series", "")), latitude_deg=doc.get("latitude_deg"),
            longitude_deg=doc.get("longitude_deg"), illustrative=illustrative,
            warning_text=str(doc.get("warning", "")),
            suggested_distribution=str(doc.get("suggested_distribution", "")),
            metadata=dict(doc.get("metadata", {})),
        )
    except InputError as exc:
        raise InputError("\n".join(f"{where}: {line}" for line in str(exc).splitlines())) from None


def load_depth_file(path, *, warn: bool = True) -> DepthFrequencyTable:
    """Read a depth-duration-frequency file (``design_storms/*.toml``).

    Parameters
    ----------
    path : str or pathlib.Path
        The TOML file (see ``design_storms/README.md`` for the format).
    warn : bool, default True
        Emit the file's warning (e.g. the illustrative flag) as a ``UserWarning``, so report
        sections that record warnings print it.

    Returns
    -------
    DepthFrequencyTable
        ``.warning`` holds the text to print (None when the file carries none).

    Raises
    ------
    InputError
        Listing every problem of the file, one per line, each prefixed with the file name.

    Warns
    -----
    UserWarning
        The file's warning text, when it has one.
    """
    p = pathlib.Path(path)
    if not p.exists():
        raise InputError(f"depth file {str(p)!r} does not exist")
    if p.is_dir():
        raise InputError(f"depth file must be a file; got the folder {str(p)!r}")
    raw = _read_limited(p)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{p.name}: must be UTF-8 text; byte {exc.start} is not. Save the "
                         "file as UTF-8.") from None
    _check_nul(text, p.name)  # (TOML itself refuses other control characters)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p.name}: not valid TOML ({exc})") from None
    except RecursionError:
        raise InputError(f"{p.name}: not valid TOML (arrays or tables nested too deeply)") \
            from None
    table = _parse_ddf(doc, p.name)
    if warn and table.warning:
        warnings.warn(f"{p.name}: {table.warning}", UserWarning, stacklevel=2)
    return table


def read_depth_file(path) -> tuple[pd.DataFrame, str | None]:
    """``(frame, warning)`` of a DDF file: the tidy depth table and the text to print.

    The frame is :meth:`DepthFrequencyTable.to_frame`; the warning is ``None`` for files
    without one. No ``UserWarning`` is emitted (the caller prints the text).
    """
    table = load_depth_file(path, warn=False)
    return table.to_frame(), table.warning


def _toml_str(value: str) -> str:
    return '"' + str(value).replace("\\", "\\\\").replace('"', '\\"') + '"'


def _toml_value(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return _toml_str(value)


def write_depth_file(table: DepthFrequencyTable, path, *, overwrite: bool = False) -> pathlib.Path:
    """Write a :class:`DepthFrequencyTable` as a DDF TOML file (round-trips exactly).

    Raises
    ------
    InputError
        If the file exists and ``overwrite`` is False.
    """
    p = pathlib.Path(path)
    if p.exists() and not overwrite:
        raise InputError(f"{str(p)!r} exists; pass overwrite=True (CLI: --force) to replace it")
    lines = [
        "# Depth-duration-frequency table for hydrocalc (see design_storms/README.md).",
        "# Depths in inches; one array per duration, in return_period_yr order.",
        'format = "hydrocalc-ddf-1"',
    ]
    if table.site:
        lines.append(f"site = {_toml_str(table.site)}")
    lines.append(f"source = {_toml_str(table.source)}")
    if table.series:
        lines.append(f"series = {_toml_str(table.series)}")
    lines.append('units = "in"')
    for key in ("latitude_deg", "longitude_deg"):
        if getattr(table, key) is not None:
            lines.append(f"{key} = {_toml_value(getattr(table, key))}")
    lines.append(f"illustrative = {_toml_value(table.illustrative)}")
    if table.warning_text and table.warning_text != (ILLUSTRATIVE_WARNING if table.illustrative
                                                     else ""):
        lines.append(f"warning = {_toml_str(table.warning_text)}")
    if table.suggested_distribution:
        lines.append("# A suggestion only (1-h/24-h depth ratio); the project file chooses.")
        lines.append(f"suggested_distribution = {_toml_str(table.suggested_distribution)}")
    lines.append(
        "return_period_yr = [" + ", ".join(_toml_value(c) for c in table.return_periods_yr) + "]"
    )
    headers = {"depth_in": "mean estimates", "upper_in": "upper bound of the 90 % interval",
               "lower_in": "lower bound of the 90 % interval"}
    for key, title in headers.items():
        frame = getattr(table, key)
        if frame is None:
            continue
        lines += ["", f"[{key}]  # {title}"]
        for label, row in frame.iterrows():
            lines.append(f"{_toml_str(label)} = [" + ", ".join(
                repr(float(v)) for v in row.to_numpy()) + "]")
    if table.metadata:
        lines += ["", "[metadata]"]
        for key, value in table.metadata.items():
            lines.append(f"{_toml_str(key)} = {_toml_value(value)}")
    # written beside the target and moved into place: a failure never leaves half a file
    tmp = p.with_name(f".{p.name}.partial")
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text("\n".join(lines) + "\n", encoding="utf-8")
        tmp.replace(p)
    except OSError as exc:
        if tmp.is_file():
            tmp.unlink()
        raise InputError(f"depth file {str(p)!r} must be writable; got {exc.strerror or exc}. "
                         "Choose another path.") from None
    return p


# --------------------------------------------------------------------------------------
# reading downloaded files: common helpers
# --------------------------------------------------------------------------------------


def _decode(raw: bytes) -> str:
    """UTF-8 (with or without BOM), else cp1252, else Latin-1; newlines normalized."""
    for encoding in ("utf-8-sig", "cp1252", "latin-1"):
        try:
            text = raw.decode(encoding)
            break
        except UnicodeDecodeError:
            continue
    return text.replace("\r\n", "\n").replace("\r", "\n")


#: Largest depth-frequency or distribution file read (a PFDS CSV is about 4 kB).
MAX_DDF_FILE_BYTES = 1024 * 1024


def _read_limited(p: pathlib.Path) -> bytes:
    """Bytes of a regular file of at most :data:`MAX_DDF_FILE_BYTES` (fails fast)."""
    import os
    import stat

    try:
        st = os.stat(p)
    except FileNotFoundError:
        raise InputError(f"file {str(p)!r} does not exist") from None
    except OSError as exc:
        raise InputError(f"file {str(p)!r} must be readable; got {exc.strerror or exc}") from None
    if stat.S_ISDIR(st.st_mode):
        raise InputError(f"file must be a file; got the folder {str(p)!r}")
    if not stat.S_ISREG(st.st_mode):
        raise InputError(f"file {str(p)!r} must be a regular file; got a device, pipe or socket")
    if st.st_size > MAX_DDF_FILE_BYTES:
        raise InputError(f"{p.name}: must be at most {MAX_DDF_FILE_BYTES // 1024} KiB; got "
                         f"{st.st_size / 1024:.0f} KiB. Is this a precipitation-frequency file?")
    try:
        with open(p, "rb") as fh:
            raw = fh.read(MAX_DDF_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"file {str(p)!r} must be readable; got {exc.strerror or exc}") from None
    if len(raw) > MAX_DDF_FILE_BYTES:
        raise InputError(f"{p.name}: must be at most {MAX_DDF_FILE_BYTES // 1024} KiB")
    return raw


_CONTROL_RE = re.compile(r"[\x01-\x08\x0b-\x1f\x7f-\x9f]")


def _check_nul(text: str, name: str) -> str:
    """Refuse NUL bytes; other control characters become U+FFFD (never reach a report)."""
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError(f"{name} line {line}: must be text; got a NUL byte (a binary or "
                         "damaged file)")
    return _CONTROL_RE.sub("\ufffd", text)


def _read_text(source) -> tuple[str, str]:
    """(text, display name) of a path, bytes or already-decoded text."""
    if isinstance(source, bytes):
        text, name = _decode(source), "<bytes>"
    elif isinstance(source, str) and "\n" in source:
        text, name = source.replace("\r\n", "\n").replace("\r", "\n"), "<text>"
    else:
        p = pathlib.Path(source)
        text, name = _decode(_read_limited(p)), p.name
    return _check_nul(text, name), name


_CELL_NUMBER_RE = re.compile(r"^[+-]?(?:\d+\.\d+|\d+|\.\d+)$")


def _excerpt(text) -> str:
    from hydrocalc._validate import excerpt

    return excerpt(text, 40)


def _require_24hr(tables: Mapping, name: str) -> None:
    """Refuse a table without the 24-hour row (a file truncated before it)."""
    for key, rows in tables.items():
        if rows and "24-hr" not in rows:
            raise InputError(
                f"{name}: the {key} table must have a 24-hr row (design storms are 24-hour "
                f"depths); got rows {', '.join(map(str, list(rows)[:12]))}. Was the file "
                "truncated?"
            )


def _cells_problem(values: list[str]) -> str | None:
    """None when every cell is a complete decimal number, else the first bad cell."""
    for v in values:
        if not _CELL_NUMBER_RE.match(v):
            return v
    return None


def _rows(text: str) -> list[list[str]]:
    """CSV rows with surrounding blanks and trailing empty cells removed."""
    out = []
    for row in csv.reader(io.StringIO(text)):
        cells = [c.strip() for c in row]
        while cells and cells[-1] == "":
            cells.pop()
        out.append(cells)
    return out


def _number(text: str) -> float | None:
    m = re.search(r"[-+]?\d+(?:\.\d+)?", text)
    return float(m.group(0)) if m else None


def _is_float(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


# --------------------------------------------------------------------------------------
# NOAA Atlas 14 PFDS CSV
# --------------------------------------------------------------------------------------


def _return_period(cell: str) -> float:
    """'2' (ARI, years) or '1/2' (AEP as 1-in-X) -> years."""
    cell = cell.strip().rstrip(":")
    m = re.fullmatch(r"1\s*/\s*(\d+(?:\.\d+)?)", cell)
    if m:
        return float(m.group(1))
    return float(cell)


def _pfds_table_kind(first: str) -> str | None:
    up = first.upper()
    if not up.startswith("PRECIPITATION FREQUENCY ESTIMATES"):
        return None
    if "UPPER" in up:
        return "upper_in"
    if "LOWER" in up:
        return "lower_in"
    return "depth_in"


def read_pfds_csv(source, *, site: str | None = None) -> DepthFrequencyTable:
    """Read a NOAA Atlas 14 precipitation-frequency CSV as downloaded from the PFDS page.

    Parameters
    ----------
    source : str, pathlib.Path or bytes
        The file (or its bytes / text).
    site : str, optional
        Site name to record; default the file's "Location name" or station.

    Returns
    -------
    DepthFrequencyTable
        Mean depths and, when the file has them, the 90 % bounds; ``source`` names the
        atlas volume and version, the series and the download stamp; ``metadata`` keeps the
        other header lines.

    Raises
    ------
    InputError
        If the file is not a PFDS depth CSV in inches (e.g. intensity or metric downloads),
        has no estimates table, or a table row is malformed.

    Notes
    -----
    Accepted dialects: the current and older PFDS layouts ("by duration for ARI (years):"
    or AEP "1/2" headers), UTF-8, Latin-1 and U+FFFD degree signs, spreadsheet re-saves
    (rows padded with commas, CRLF, trailing zeros dropped), files without the bound
    tables, and files whose header label or the colons after the duration labels are gone.
    """
    text, name = _read_text(source)
    return _parse_pfds(text, name, site)


def _parse_pfds(text: str, name: str, site: str | None) -> DepthFrequencyTable:
    rows = _rows(text)
    nonblank = [r for r in rows if r]
    if not nonblank:
        raise InputError(f"{name}: the file is empty")
    title = ",".join(nonblank[0])
    meta: dict[str, str] = {}
    tables: dict[str, dict] = {}
    header: dict[str, list[float]] = {}
    current = None
    for row in rows:
        if not row:
            current = None
            continue
        first = row[0]
        kind = _pfds_table_kind(first)
        if kind:
            current = kind
            tables[kind] = {}
            continue
        if current and current not in header:
            # the header row: a label cell (possibly emptied by a spreadsheet), then the
            # return periods ("2" ARI years, or "1/2" AEP)
            try:
                header[current] = [_return_period(c) for c in row[1:]]
                continue
            except ValueError:
                raise InputError(
                    f"{name}: expected the return periods after the "
                    f"'PRECIPITATION FREQUENCY ESTIMATES' line; got {_excerpt(','.join(row))!r}"
                ) from None
        if current:
            try:
                label = _duration_key(first)
            except InputError:
                if not first.lower().startswith(("date/time", "pyruntime")):
                    raise InputError(
                        f"{name}: row {_excerpt(first)!r} of the {current} table must start "
                        "with a duration such as '5-min', '2-hr' or '2-day'; got an unknown "
                        "label. Correct it or delete the row"
                    ) from None
                current = None  # the table ended without a blank line
            else:
                values = row[1:]
                bad = _cells_problem(values)
                if len(values) != len(header[current]) or bad is not None:
                    raise InputError(
                        f"{name}: row {_excerpt(first)!r} must have "
                        f"{len(header[current])} numbers (one per return period); got "
                        f"{_excerpt(','.join(values))!r} ({current} table). Was the file "
                        "truncated?"
                    )
                if label in tables[current]:
                    raise InputError(
                        f"{name}: row {_excerpt(first)!r} of the {current} table repeats "
                        f"duration {label}; each duration must appear once"
                    )
                tables[current][label] = [float(v) for v in values]
                continue
        line = ", ".join(row)
        if ":" in line:
            key, _, value = line.partition(":")
            meta[key.strip()] = value.strip().strip(",").strip()
        elif line.upper().startswith("NOAA ATLAS"):
            meta["atlas"] = line.strip()
    up_title = title.upper()
    if "PRECIPITATION FREQUENCY" not in up_title and "depth_in" not in tables:
        raise InputError(
            f"{name}: not a NOAA Atlas 14 PFDS CSV (first line {_excerpt(title)!r}). Download "
            "'Estimates from the table in csv format' from the PFDS page"
        )
    data_type = meta.get("Data type", "Precipitation depth")
    if "depth" not in data_type.lower():
        raise InputError(
            f"{name}: data type must be 'Precipitation depth'; got {_excerpt(data_type)!r}. Download the "
            "depth table, not intensity"
        )
    lower_title = title.lower()
    if "(inches)" not in lower_title and ("millimet" in lower_title or "(mm)" in lower_title):
        raise InputError(
            f"{name}: depths must be in inches; got {_excerpt(title)!r}. Download the English-units table"
        )
    if "depth_in" not in tables or not tables["depth_in"]:
        raise InputError(
            f"{name}: no 'PRECIPITATION FREQUENCY ESTIMATES' table found; is this a PFDS CSV?"
        )
    _require_24hr(tables, name)
    series_text = meta.get("Time series type", "").lower()
    series = ("annual_maximum" if "annual" in series_text else
              "partial_duration" if "partial" in series_text else "")
    frames = {
        key: pd.DataFrame.from_dict(rows_, orient="index", columns=header[key])
        for key, rows_ in tables.items() if rows_
    }
    lat = _number(meta.get("Latitude", "")) if "Latitude" in meta else None
    lon = _number(meta.get("Longitude", "")) if "Longitude" in meta else None
    location = meta.get("Location name (ESRI Maps)", "")
    station = meta.get("Station Name", "")
    stamp = meta.get("Date/time (GMT)", meta.get("Date/time", ""))
    parts = [meta.get("atlas", "NOAA Atlas 14"), "PFDS CSV",
             _SERIES.get(series, "series not stated") + " series"]
    if stamp:
        parts.append(f"downloaded {stamp}")
    keep = {k: v for k, v in meta.items()
            if k not in ("Latitude", "Longitude", "Data type") and v}
    return DepthFrequencyTable(
        depth_in=frames["depth_in"], upper_in=frames.get("upper_in"),
        lower_in=frames.get("lower_in"), source=", ".join(parts),
        site=site if site is not None else (location or (station if station != "-" else "")),
        series=series, latitude_deg=lat, longitude_deg=lon, metadata=keep,
    )


# --------------------------------------------------------------------------------------
# NRCC table
# --------------------------------------------------------------------------------------


def _nrcc_table_kind(first: str) -> str | None:
    up = first.upper()
    if not re.match(r"^(MEAN|UPPER|LOWER)\b.*PRECIPITATION FREQUENCY ESTIMATES", up):
        return None
    if "UPPER" in up:
        return "upper_in"
    if "LOWER" in up:
        return "lower_in"
    return "depth_in"


def read_nrcc_csv(source, *, site: str | None = None) -> DepthFrequencyTable:
    """Read an NRCC "Extreme Precipitation in New York & New England" table (CSV).

    The NRCC layout is transposed relative to PFDS: one row per return period
    (``Freq (yr)``) and one column per duration; there are MEAN, UPPER LIMIT and LOWER LIMIT
    tables. Spreadsheet re-saves (comma padding, CRLF) are accepted.

    Parameters
    ----------
    source : str, pathlib.Path or bytes
    site : str, optional
        Site name; default the file's Location or "lat, lon".

    Returns
    -------
    DepthFrequencyTable

    Raises
    ------
    InputError
        If the file has no MEAN table, is not in inches, or a row is malformed.
    """
    text, name = _read_text(source)
    return _parse_nrcc(text, name, site)


def _parse_nrcc(text: str, name: str, site: str | None) -> DepthFrequencyTable:
    rows = _rows(text)
    nonblank = [r for r in rows if r]
    if not nonblank:
        raise InputError(f"{name}: the file is empty")
    title = ",".join(nonblank[0])
    meta: dict[str, str] = {}
    tables: dict[str, dict] = {}
    header: dict[str, list[str]] = {}
    current = None
    for row in rows[1:]:
        if not row:
            current = None
            continue
        first = row[0]
        kind = _nrcc_table_kind(first)
        if kind:
            current = kind
            tables[kind] = {}
            continue
        if current and current not in header:
            try:
                header[current] = [_duration_key(c) for c in row[1:]]
            except InputError as exc:
                raise InputError(
                    f"{name}: expected 'Freq (yr)' and the durations after the table title; "
                    f"{exc}"
                ) from None
            continue
        if current and _is_float(first):
            values = row[1:]
            bad = _cells_problem(values)
            if len(values) != len(header[current]) or bad is not None:
                raise InputError(
                    f"{name}: row for {_excerpt(first)} yr must have "
                    f"{len(header[current])} numbers (one per duration); got "
                    f"{_excerpt(','.join(values))!r} ({current} table). Was the file truncated?"
                )
            if float(first) in tables[current]:
                raise InputError(f"{name}: the {current} table repeats the row for "
                                 f"{_excerpt(first)} yr; each return period must appear once")
            tables[current][float(first)] = [float(v) for v in values]
            continue
        if current:
            raise InputError(
                f"{name}: row {_excerpt(first)!r} of the {current} table must start with a "
                "return period in years; got an unknown label. Correct it or delete the row"
            )
        current = None
        key = first.rstrip(":").strip()
        value = ",".join(row[1:]).strip()
        if ":" in key and not value:
            key, _, value = key.partition(":")
        if key:
            meta[key.strip()] = value.strip()
    if "depth_in" not in tables or not tables["depth_in"]:
        raise InputError(
            f"{name}: no 'MEAN PRECIPITATION FREQUENCY ESTIMATES' table found; is this an NRCC "
            "extreme-precipitation CSV?"
        )
    if "(inches)" not in title.lower() and "inch" not in title.lower():
        raise InputError(f"{name}: depths must be in inches; got title {_excerpt(title)!r}")
    for key, hdr in header.items():
        if len(set(hdr)) != len(hdr):
            twice = next(h for h in hdr if hdr.count(h) > 1)
            raise InputError(f"{name}: the {key} table lists duration {twice} twice; each "
                             "duration must appear once")
    _require_24hr({k: dict.fromkeys(header.get(k, [])) for k in tables}, name)
    frames = {}
    for key, rows_ in tables.items():
        if rows_:
            wide = pd.DataFrame.from_dict(rows_, orient="index", columns=header[key])
            frames[key] = wide.T  # rows = durations, columns = return periods
    series_text = meta.get("Data series", "").lower()
    series = ("annual_maximum" if "annual" in series_text else
              "partial_duration" if "partial" in series_text else "")
    lat = _number(meta.get("Lat (dd)", "")) if meta.get("Lat (dd)") else None
    lon = _number(meta.get("Lon (dd)", "")) if meta.get("Lon (dd)") else None
    stamp = meta.get("Date/time", "")
    parts = ["NRCC Extreme Precipitation in New York & New England",
             meta.get("Point Estimates", "").lower() or "point",
             _SERIES.get(series, "series not stated") + " series"]
    if stamp:
        parts.append(f"retrieved {stamp}")
    location = meta.get("Location", "")
    default_site = location or (f"{meta.get('State', '')} {lat}, {lon}".strip()
                                if lat is not None else "")
    keep = {k: v for k, v in meta.items() if k not in ("Lat (dd)", "Lon (dd)") and v}
    return DepthFrequencyTable(
        depth_in=frames["depth_in"], upper_in=frames.get("upper_in"),
        lower_in=frames.get("lower_in"), source=", ".join(parts),
        site=site if site is not None else default_site, series=series,
        latitude_deg=lat, longitude_deg=lon, metadata=keep,
    )


def read_precipitation_frequency(source, *, site: str | None = None) -> DepthFrequencyTable:
    """Read a PFDS or an NRCC CSV, recognizing which from its content."""
    text, name = _read_text(source)
    head = text[:2000].lower()
    if "regional climate center" in head or re.search(r"^\s*freq \(yr\)", head, re.M):
        return _parse_nrcc(text, name, site)
    if "precipitation frequency" in head:
        return _parse_pfds(text, name, site)
    first = text.strip().splitlines()[0] if text.strip() else ""
    raise InputError(
        f"{name}: not a NOAA Atlas 14 PFDS or NRCC precipitation-frequency CSV (first line "
        f"{_excerpt(first)!r})"
    )


def suggest_distribution(
    table: DepthFrequencyTable, *, return_period_yr: float = 25
) -> tuple[float, pd.DataFrame]:
    """Rank the shipped distributions against a site's 60-min/24-hr depth ratio.

    A suggestion only: hydrocalc never picks the distribution from it. NRCS drew the NRCC
    distribution regions from the 60-min/24-h ratio of the 25-yr depths [3]_; this compares
    that ratio with the largest 1-h fraction of each shipped shape
    (:func:`hydrocalc.rainfall.rank_distributions`). NRCC tables are ranked among the
    NRCC_A-D shapes, PFDS tables among NOAA_A-D, both with Types II and III.

    Returns
    -------
    ratio : float
        P(60-min) / P(24-hr) of the table. [-]
    ranking : pandas.DataFrame
        As :func:`~hydrocalc.rainfall.rank_distributions`.

    Raises
    ------
    InputError
        If the table lacks a 60-min (1-hr) or 24-hr duration or the return period.
    """
    rp = return_period_yr
    if not any(math.isclose(float(c), float(rp)) for c in table.return_periods_yr):
        rp = min(table.return_periods_yr, key=lambda c: abs(math.log(float(c) / float(rp))))
    ratio = table.depth(rp, 1.0) / table.depth(rp, 24.0)
    family = "NRCC" if "NRCC" in table.source.upper() else "NOAA"
    candidates = [f"{family}_{x}" for x in "ABCD"] + ["II", "III"]
    return ratio, rank_distributions(ratio, candidates=candidates)


def import_precipitation_frequency(source, out=None, *, site: str | None = None,
                                   overwrite: bool = False) -> DepthFrequencyTable:
    """Read a PFDS or NRCC CSV and (optionally) write it as a DDF TOML file.

    The best-ranked distribution of :func:`suggest_distribution` is stored as
    ``suggested_distribution`` (informational; projects still choose explicitly).

    Returns
    -------
    DepthFrequencyTable
    """
    table = read_precipitation_frequency(source, site=site)
    try:
        _, ranking = suggest_distribution(table)
        table = dataclasses.replace(
            table, suggested_distribution=str(ranking["distribution"].iloc[0]))
    except InputError:
        pass  # no 60-min or 24-hr duration: nothing to suggest
    if out is not None:
        write_depth_file(table, out, overwrite=overwrite)
    return table


# --------------------------------------------------------------------------------------
# user distributions and hyetographs (CSV)
# --------------------------------------------------------------------------------------


def _read_user_csv(path) -> tuple[pd.DataFrame, str]:
    text, name = _read_text(path)
    try:
        frame = pd.read_csv(io.StringIO(text), comment="#", skipinitialspace=True)
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InputError(f"{name}: not a readable CSV ({exc})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    frame = frame.dropna(how="all")
    if "time_hr" not in frame.columns:
        raise InputError(
            f"{name}: a time_hr column is required; got columns {list(frame.columns)}"
            f"{suggest('time_hr', frame.columns)}"
        )
    for col in frame.columns:
        if col in ("time_hr", "cumulative_frac", "cumulative_in", "cumulative_pct"):
            values = pd.to_numeric(frame[col], errors="coerce")
            if values.isna().any():
                i = int(np.flatnonzero(values.isna().to_numpy())[0])
                raise InputError(
                    f"{name}: {col} must be numeric; got {_excerpt(repr(frame[col].iloc[i]))} at row {i + 1}"
                )
            frame[col] = values.astype(float)
    return frame, name


def load_distribution_csv(path, *, name: str | None = None) -> RainfallDistribution:
    """A user rainfall distribution from CSV (``time_hr`` and ``cumulative_frac``).

    ``cumulative_pct`` (0-100) or ``cumulative_in`` (normalized by its last value) are
    accepted instead of ``cumulative_frac``. Lines starting with ``#`` are comments.

    Raises
    ------
    InputError
        Missing columns, non-numeric cells, or a curve that does not start at 0, is not
        monotone, or (for fractions) does not end at 1.
    """
    frame, fname = _read_user_csv(path)
    label = name or pathlib.Path(str(fname)).stem
    t = frame["time_hr"].to_numpy()
    if "cumulative_frac" in frame:
        f = frame["cumulative_frac"].to_numpy()
    elif "cumulative_pct" in frame:
        f = frame["cumulative_pct"].to_numpy() / 100.0
    elif "cumulative_in" in frame:
        p = frame["cumulative_in"].to_numpy()
        if p[-1] <= 0:
            raise InputError(f"{fname}: cumulative_in must end above 0; got {fmt_value(p[-1])}")
        f = p / p[-1]
    else:
        raise InputError(
            f"{fname}: a cumulative_frac (or cumulative_pct / cumulative_in) column is "
            f"required; got columns {list(frame.columns)}"
        )
    try:
        return RainfallDistribution(t, f, name=label, source=f"user file {fname}")
    except InputError as exc:
        raise InputError(f"{fname}: {exc}") from None


def load_hyetograph_csv(path, *, depth_in: float | None = None, dt_hr: float | None = None,
                        name: str | None = None) -> Hyetograph:
    """A user storm from CSV (``time_hr`` and ``cumulative_in`` or ``cumulative_frac``).

    Parameters
    ----------
    path : str or pathlib.Path
    depth_in : float, optional
        Storm depth. Required with ``cumulative_frac``; with ``cumulative_in`` the file must
        close at this depth (within 0.005 in; it is then rescaled to end exactly there). [in]
    dt_hr : float, optional
        Step of the result (default the file's own step when uniform). [h]
    name : str, optional

    Raises
    ------
    InputError
        Missing columns or depth, a curve that does not start at 0 or is not monotone, a
        fraction column that does not end at 1, or a depth column that does not close at
        ``depth_in``.
    """
    frame, fname = _read_user_csv(path)
    label = name or pathlib.Path(str(fname)).stem
    t = frame["time_hr"].to_numpy()
    try:
        if "cumulative_in" in frame:
            p = frame["cumulative_in"].to_numpy()
            if depth_in is not None:
                target = float(depth_in)
                if target < 0 or abs(p[-1] - target) > DEPTH_CLOSE_TOL_IN:
                    raise InputError(
                        f"cumulative_in must end at the storm depth {fmt_value(target)} in "
                        f"(within {DEPTH_CLOSE_TOL_IN} in); got {fmt_value(p[-1])}"
                    )
                if p[-1] > 0:
                    p = p * (target / p[-1])
        elif "cumulative_frac" in frame or "cumulative_pct" in frame:
            if depth_in is None:
                raise InputError(
                    "depth_in must be given for a cumulative_frac file; got None. Pass the "
                    "storm depth"
                )
            f = (frame["cumulative_frac"].to_numpy() if "cumulative_frac" in frame
                 else frame["cumulative_pct"].to_numpy() / 100.0)
            dist = RainfallDistribution(t, f, name=label)
            if float(depth_in) < 0:
                raise InputError(f"depth_in must be in [0, inf); got {fmt_value(depth_in)}")
            p = float(depth_in) * dist.cumulative_frac
            t = dist.time_hr
        else:
            raise InputError(
                "a cumulative_in or cumulative_frac column is required; got columns "
                f"{list(frame.columns)}"
            )
        return hyetograph_from_cumulative(t, p, dt_hr=dt_hr, name=label)
    except InputError as exc:
        raise InputError(f"{fname}: {exc}") from None


# --------------------------------------------------------------------------------------
# NOAA Atlas 14 Volume 10 temporal distributions
# --------------------------------------------------------------------------------------

_QUARTILES = {
    "FIRST-QUARTILE": "first_quartile",
    "SECOND-QUARTILE": "second_quartile",
    "THIRD-QUARTILE": "third_quartile",
    "FOURTH-QUARTILE": "fourth_quartile",
    "ALL CASES": "all_cases",
}


def read_a14_temporal_csv(source) -> dict[str, pd.DataFrame]:
    """Read a NOAA Atlas 14 temporal-distribution CSV (e.g. ``ne_1_24h_temporal.csv``).

    Returns
    -------
    dict of str to pandas.DataFrame
        Keys ``first_quartile`` .. ``fourth_quartile`` and ``all_cases`` (those present);
        each frame has ``time_hr`` and one column per percent of occurrence, ``p90`` ..
        ``p10``, as cumulative fractions (the file's percentages / 100).

    Raises
    ------
    InputError
        If no table is found or a row is malformed.
    """
    text, name = _read_text(source)
    tables: dict[str, pd.DataFrame] = {}
    current = None
    columns: list[str] = []
    rows: list[list[float]] = []

    def close():
        if current and rows:
            frame = pd.DataFrame(rows, columns=["time_hr", *columns])
            frame[columns] = frame[columns] / 100.0
            tables[current] = frame

    for row in _rows(text):
        if not row:
            continue
        first = row[0].upper()
        hit = next((v for k, v in _QUARTILES.items() if k in first and "PERCENTAGES" in first),
                   None)
        if hit:
            close()
            current, columns, rows = hit, [], []
            continue
        if current is None:
            continue
        if first == "HOURS":
            columns = [f"p{int(_number(c))}" for c in row[1:]]
            continue
        if _is_float(row[0]) and columns:
            if len(row) - 1 != len(columns) or not all(_is_float(c) for c in row[1:]):
                raise InputError(
                    f"{name}: row {_excerpt(','.join(row))!r} must have {len(columns)} percentages"
                )
            rows.append([float(c) for c in row])
    close()
    if not tables:
        raise InputError(
            f"{name}: no 'CUMULATIVE PERCENTAGES OF TOTAL PRECIPITATION' table found; is this a "
            "NOAA Atlas 14 temporal-distribution CSV?"
        )
    return tables


def a14_temporal_distribution(source, *, quartile: str = "all_cases",
                              occurrence_pct: int = 50) -> RainfallDistribution:
    """One NOAA Atlas 14 temporal distribution as a :class:`RainfallDistribution`.

    Parameters
    ----------
    source : path or bytes
        The temporal-distribution CSV.
    quartile : str, default "all_cases"
        ``"first_quartile"`` .. ``"fourth_quartile"`` or ``"all_cases"``.
    occurrence_pct : int, default 50
        Percent of occurrence (10 .. 90): the curve exceeded in that share of the cases.

    Raises
    ------
    InputError
        Unknown quartile or percentage, or a curve that is not monotone / does not close.
    """
    tables = read_a14_temporal_csv(source)
    if quartile not in tables:
        raise InputError(
            f"unknown quartile {quartile!r}{suggest(quartile, tables)} Valid: "
            f"{', '.join(tables)}"
        )
    frame = tables[quartile]
    col = f"p{int(occurrence_pct)}"
    if col not in frame:
        raise InputError(
            f"occurrence_pct must be one of {', '.join(c[1:] for c in frame.columns[1:])}; "
            f"got {occurrence_pct}"
        )
    f = frame[col].to_numpy()
    if abs(f[-1] - 1.0) > CLOSE_TOL_FRAC:
        raise InputError(f"{quartile} {col} ends at {fmt_value(f[-1])}, not at 1")
    return RainfallDistribution(
        frame["time_hr"].to_numpy(), f, name=f"A14 {quartile} {col}",
        source="NOAA Atlas 14 temporal distribution",
    )
