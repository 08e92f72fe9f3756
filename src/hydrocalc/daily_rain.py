"""Daily rainfall records: NOAA NCEI CSV readers with validation.

Two NOAA NCEI Climate Data Online (CDO) CSV products are read, plus a minimal user format:

``cdo_daily_summaries``
    "Daily Summaries" CSV: ``"STATION","NAME","DATE","PRCP",...`` (one or more stations).
``ghcnd_custom_csv``
    "Custom GHCN-Daily CSV" with ``<ELEMENT>_ATTRIBUTES`` columns. ``PRCP_ATTRIBUTES`` holds
    ``MFLAG,QFLAG,SFLAG,OBS-TIME`` [1]_: MFLAG ``T`` marks a trace (value 0.00) and a
    non-blank QFLAG marks a value that *failed* a NOAA quality check.
``simple``
    ``date,precip_in`` or ``date,precip_mm`` (units in the header).

Validation (each problem is one :class:`~hydrocalc.errors.InputError` line naming the file,
line, field, value and the valid range): a header with DATE and PRCP; ISO dates
(``YYYY-MM-DD`` or ``YYYYMMDD``); one station (or ``station=``); no duplicate dates; no
negative, non-numeric or implausible (> 50 in/day) depths; no quality-flagged values (or
``flagged="missing"``); no missing days (blank PRCP or absent dates) unless
``allow_gaps=True``, which keeps them as NaN.

Units. Standard-unit CDO files print PRCP in inches with two decimals ("0.25"); metric files
print millimetres with one decimal ("6.4"). ``units="auto"`` accepts the file as inches only
when every value has exactly two decimals and otherwise refuses to guess: a hand-made file
with "0.5" could be either, and reading millimetres as inches inflates depths 25.4-fold.

Symbols
-------
=============  ================================  ====
Name           Meaning                           Unit
=============  ================================  ====
``precip_in``  rainfall depth of a calendar day  in
=============  ================================  ====

References
----------
.. [1] NOAA NCEI, "Global Historical Climatology Network - Daily (GHCN-Daily), Version 3",
   readme.txt (flag definitions), and "GHCN-Daily documentation" for CDO CSV output.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as _dt
import io
import os
import pathlib
import re
import stat

import numpy as np
import pandas as pd

from hydrocalc._validate import as_float_array, fmt_value, suggest
from hydrocalc.errors import InputError

__all__ = [
    "DailyRainfall",
    "read_daily_rainfall",
    "rainfall_for_plan",
    "as_daily_series",
    "MAX_DAILY_PRECIP_IN",
    "MAX_RAIN_FILE_BYTES",
    "MAX_RAIN_LINE_CHARS",
    "MAX_RAIN_ROWS",
]

#: Sanity bound for a daily depth [in]; the US record 24-h rainfall is about 43 in.
MAX_DAILY_PRECIP_IN = 50.0
#: Largest rainfall file read (64 MiB: a century of hourly values in the CDO layout).
MAX_RAIN_FILE_BYTES = 64 * 1024 * 1024
#: Longest line of a rainfall file (a CDO "all data types" row is about 2,000 characters).
MAX_RAIN_LINE_CHARS = 10_000
#: Most data rows (or series values) accepted: 1,000,000 (a century of hourly values).
MAX_RAIN_ROWS = 1_000_000
_MM_PER_IN = 25.4
_DAY_NS = 86_400 * 10**9


def as_daily_series(precip_in, *, name: str = "precip_in", allow_gaps: bool = False,
                    max_daily_in: float = MAX_DAILY_PRECIP_IN) -> pd.Series:
    """The one rule for every daily-rainfall input: a validated daily Series of depths.

    Every function that takes a daily rainfall record (the file reader, the inspection
    schedule, the sediment cleanout schedule) passes it through this rule, so a record is
    read alike wherever it enters.

    The rules:

    * A :class:`DailyRainfall` or a pandas Series indexed by date (``DatetimeIndex``, or
      ``datetime.date``/``datetime`` values, or ISO date strings); at most
      :data:`MAX_RAIN_ROWS` values; depths are numbers ``>= 0`` [in].
    * Order does not matter: the record is sorted by date (the result is the same for any
      permutation of the same values).
    * A repeated timestamp is refused (naming it), never summed or overwritten.
    * Sub-daily data (two or more values on one calendar day) are summed to calendar-day
      totals; they must be regularly spaced with a step that divides 24 h and cover whole
      days, otherwise they are refused. The value at time ``t`` is the rain of the step that
      starts at ``t`` (period-beginning labels), so it counts on ``t``'s calendar day.
    * Time-zone-aware stamps are read in their own local time.
    * Missing days (absent dates or NaN) are refused unless ``allow_gaps``, which keeps them
      as NaN; a daily total above ``max_daily_in`` is refused as a unit slip (mm as in).

    Returns
    -------
    pandas.Series
        Daily depths [in] on a complete daily ``DatetimeIndex`` at midnight, named
        ``precip_in``.

    Raises
    ------
    InputError
        One line naming the rule broken and the first offending date.

    Examples
    --------
    >>> p = pd.Series([0.2, 0.3], index=pd.to_datetime(["2027-04-02", "2027-04-01"]))
    >>> as_daily_series(p).tolist()
    [0.3, 0.2]
    >>> h = pd.Series(0.05, index=pd.date_range("2027-04-01", periods=48, freq="h"))
    >>> as_daily_series(h).round(6).tolist()
    [1.2, 1.2]
    """
    if isinstance(precip_in, DailyRainfall):
        precip_in = precip_in.precip_in
    if not isinstance(precip_in, pd.Series):
        raise InputError(
            f"{name} must be a pandas Series on a daily DatetimeIndex (depths [in] by date; "
            "see hydrocalc.daily_rain.read_daily_rainfall); got "
            f"{type(precip_in).__name__}"
        )
    n = len(precip_in)
    if n == 0:
        raise InputError(f"{name} must hold at least one day; got an empty series")
    if n > MAX_RAIN_ROWS:
        raise InputError(f"{name} must have at most {MAX_RAIN_ROWS:,} values; got {n:,}. "
                         "Pass only the period needed")
    idx = precip_in.index
    if not isinstance(idx, pd.DatetimeIndex):
        if idx.dtype == object and all(
                isinstance(v, _dt.date | str | pd.Timestamp) for v in idx[:1000]):
            try:
                idx = pd.DatetimeIndex(pd.to_datetime(list(idx), format="ISO8601"))
            except (ValueError, TypeError, OverflowError):
                raise InputError(
                    f"{name} must be indexed by dates (YYYY-MM-DD); got index values such as "
                    f"{_printable(str(idx[0]), 40)!r}"
                ) from None
        else:
            raise InputError(
                f"{name} must be indexed by dates (a DatetimeIndex); got a "
                f"{type(idx).__name__} of {idx.dtype}. Index the depths by date"
            )
    if idx.hasnans:
        raise InputError(f"{name} index must be dates; got a missing date (NaT)")
    if idx.tz is not None:
        idx = idx.tz_localize(None)

    values = as_float_array(precip_in.to_numpy(), name, lower=0.0, allow_nan=True,
                            hint="Depths are daily rainfall in inches")
    s = pd.Series(values, index=idx).sort_index(kind="stable")
    dup = s.index.duplicated()
    if dup.any():
        first = s.index[dup][0]
        raise InputError(
            f"{name} must not repeat a date; got {_stamp(first)} {int(dup.sum()) + 1} times"
            f"{'' if dup.sum() == 1 else ' (or more dates repeated)'}. Remove the duplicate "
            "(a record is one value per day, or a regular sub-daily series)"
        )
    days = s.index.normalize()
    if days.has_duplicates:  # sub-daily values: daily totals
        step = np.diff(s.index.to_numpy().astype("datetime64[ns]").astype(np.int64))
        if step.size and (step.min() != step.max() or _DAY_NS % int(step[0]) != 0):
            i = int(np.flatnonzero(step != step[0])[0]) if step.min() != step.max() else 0
            raise InputError(
                f"{name} holds sub-daily values that must be regularly spaced with a step "
                f"that divides 24 h to be summed to daily totals; got a step of "
                f"{pd.Timedelta(int(step[i]))} after {_stamp(s.index[i])}. Fill the gap or "
                "sum to daily totals first"
            )
        per_day = _DAY_NS // int(step[0])
        counts = s.groupby(days).size()
        short = counts[counts != per_day]
        if len(short):
            raise InputError(
                f"{name} holds sub-daily values ({pd.Timedelta(int(step[0]))} step) that must "
                f"cover whole days to be summed to daily totals; got {int(short.iloc[0])} of "
                f"{per_day} values on {short.index[0].date()}. Trim the series to whole days"
            )
        s = s.groupby(days).sum(min_count=per_day)
    else:
        s.index = days
    full = pd.date_range(s.index[0], s.index[-1], freq="D")
    if len(full) > MAX_RAIN_ROWS:
        raise InputError(f"{name} must span at most {MAX_RAIN_ROWS:,} days; got "
                         f"{s.index[0].date()}..{s.index[-1].date()}")
    s = s.reindex(full)
    s.name = "precip_in"
    if not allow_gaps and s.isna().any():
        nan_at = s.index[s.isna().to_numpy()]
        raise InputError(
            f"{name} must have a value for every day; got {len(nan_at)} missing day(s) "
            f"between {s.index[0].date()} and {s.index[-1].date()}, first "
            f"{nan_at[0].date()}. A missing day may hide a storm: fill it from a nearby "
            "station"
        )
    over = np.flatnonzero(np.nan_to_num(s.to_numpy()) > max_daily_in)
    if over.size:
        i = int(over[0])
        raise InputError(
            f"{name} must be <= {fmt_value(max_daily_in)} in per day; got "
            f"{fmt_value(round(float(s.iloc[i]), 4))} on {s.index[i].date()}. Check the units "
            "(inches, not millimetres)"
        )
    return s


def _stamp(ts) -> str:
    ts = pd.Timestamp(ts)
    return str(ts.date()) if ts == ts.normalize() else ts.isoformat()


@dataclasses.dataclass(frozen=True)
class DailyRainfall:
    """A validated daily rainfall record.

    Attributes
    ----------
    precip_in : pandas.Series
        Daily depth [in] on a complete daily ``DatetimeIndex`` (NaN marks a missing day,
        possible only with ``allow_gaps=True``), name ``"precip_in"``.
    station, station_name : str
        Station id and name ("" when the file has none).
    source : str
        File path as given.
    file_format : str
        ``"cdo_daily_summaries"``, ``"ghcnd_custom_csv"`` or ``"simple"``.
    units_in_file : str
        ``"in"`` or ``"mm"``.
    trace_days : int
        Days flagged as trace (MFLAG ``T``), read as 0.
    notes : tuple of str
        Processing notes (flagged values set missing, date shifts, leap days).
    """

    precip_in: pd.Series
    station: str = ""
    station_name: str = ""
    source: str = ""
    file_format: str = "simple"
    units_in_file: str = "in"
    trace_days: int = 0
    notes: tuple[str, ...] = ()

    @property
    def start(self) -> _dt.date:
        """First day of the record."""
        return self.precip_in.index[0].date()

    @property
    def end(self) -> _dt.date:
        """Last day of the record."""
        return self.precip_in.index[-1].date()

    @property
    def missing_days(self) -> list[_dt.date]:
        """Days without a value."""
        return [t.date() for t in self.precip_in.index[self.precip_in.isna().to_numpy()]]

    def window(self, start: _dt.date, end: _dt.date) -> pd.Series:
        """Daily depths [in] from ``start`` to ``end`` (both included).

        Raises
        ------
        InputError
            When the record does not cover the whole window.
        """
        s, e = pd.Timestamp(start), pd.Timestamp(end)
        if s < self.precip_in.index[0] or e > self.precip_in.index[-1]:
            raise InputError(
                f"rainfall record {self.source or '(in memory)'} must cover "
                f"{start.isoformat()}..{end.isoformat()}; got "
                f"{self.start.isoformat()}..{self.end.isoformat()}. Use a record that "
                "covers the period, or shift a historical record with shift_years()."
            )
        return self.precip_in.loc[s:e].copy()

    def shift_years(self, years: int) -> DailyRainfall:
        """The same record with every date moved by ``years`` calendar years.

        Used to lay a historical year over a future construction period. A 29 February that
        lands in a common year is added to 28 February; a 29 February of a leap target year
        that has no source day gets 0.0 in. Both are recorded in ``notes``.
        """
        if years == 0:
            return self
        idx = self.precip_in.index
        lo, hi = 1678 - idx[0].year, 2261 - idx[-1].year  # pandas Timestamp range
        if not lo <= int(years) <= hi:
            raise InputError(f"shift_years must be in [{lo}, {hi}] for a record "
                             f"{self.start}..{self.end} (dates must stay within 1678-2261); "
                             f"got {years}")
        new = idx + pd.DateOffset(years=int(years))
        series = pd.Series(self.precip_in.to_numpy(), index=new)
        notes = list(self.notes)
        n_merge = int(series.index.duplicated().sum())
        series = series.groupby(level=0).sum(min_count=1)
        full = pd.date_range(series.index[0], series.index[-1], freq="D")
        added = full.difference(series.index)
        series = series.reindex(full)
        series.loc[added] = 0.0
        notes.append(
            f"dates shifted by {years:+d} years (record {self.start}..{self.end} -> "
            f"{full[0].date()}..{full[-1].date()})"
        )
        if n_merge:
            notes.append(f"{n_merge} x 29 Feb added to 28 Feb (target year is not a leap year)")
        if len(added):
            notes.append(f"{len(added)} x 29 Feb inserted with 0.0 in (no source day)")
        series.name = "precip_in"
        return dataclasses.replace(self, precip_in=series, notes=tuple(notes))


_DATE_RE = re.compile(
    r"^(\d{4})-?(\d{2})-?(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?)?$")


def _parse_date(raw: str) -> _dt.date | None:
    """A date, or a datetime for a sub-daily stamp (``YYYY-MM-DDTHH:MM[:SS]``)."""
    m = _DATE_RE.match(raw.strip())
    if not m:
        return None
    try:
        if m.group(4) is not None:
            return _dt.datetime(int(m.group(1)), int(m.group(2)), int(m.group(3)),
                                int(m.group(4)), int(m.group(5)), int(m.group(6) or 0))
        return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        return None


def _decimals(raw: str) -> int:
    raw = raw.strip()
    return len(raw.split(".", 1)[1]) if "." in raw else 0


def _printable(text: str, limit: int = 120) -> str:
    """``text`` on one line for a message: control and undecodable bytes escaped, shortened."""
    out = text if text.isprintable() else repr(text)[1:-1]
    return out if len(out) <= limit else out[:limit] + "..."


def _read_limited(path: pathlib.Path, name: str) -> bytes:
    """Bytes of a regular file within the size, line-length and row limits (fails fast)."""
    try:
        st = os.stat(path)
    except OSError as exc:
        raise InputError(f"rainfall file {name} must be a readable file; got "
                         f"{exc.strerror or exc}") from None
    if not stat.S_ISREG(st.st_mode):
        kind = "a folder" if stat.S_ISDIR(st.st_mode) else "a device, pipe or socket"
        raise InputError(f"rainfall file {name} must be a regular file; got {kind}")
    if st.st_size > MAX_RAIN_FILE_BYTES:
        raise InputError(
            f"rainfall file {name} must be at most {MAX_RAIN_FILE_BYTES // 2**20} MiB; got "
            f"{st.st_size / 2**20:.1f} MiB. Keep only the station and years needed"
        )
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_RAIN_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"rainfall file {name} must be a readable file; got "
                         f"{exc.strerror or exc}") from None
    if len(raw) > MAX_RAIN_FILE_BYTES:
        raise InputError(f"rainfall file {name} must be at most "
                         f"{MAX_RAIN_FILE_BYTES // 2**20} MiB; got more (the file grew)")
    if len(raw) > MAX_RAIN_LINE_CHARS:
        ends = np.flatnonzero(np.frombuffer(raw, dtype=np.uint8) == 10)
        bounds = np.concatenate(([-1], ends, [len(raw)]))
        lengths = np.diff(bounds) - 1
        worst = int(np.argmax(lengths))
        if lengths[worst] > MAX_RAIN_LINE_CHARS:
            raise InputError(
                f"rainfall file {name} line {worst + 1}: lines must be at most "
                f"{MAX_RAIN_LINE_CHARS:,} characters; got {int(lengths[worst]):,}. Is this a "
                "daily rainfall CSV?"
            )
    n_lines = raw.count(b"\n")
    if n_lines > MAX_RAIN_ROWS + 1:
        raise InputError(f"rainfall file {name} must have at most {MAX_RAIN_ROWS:,} rows; "
                         f"got {n_lines:,}. Keep only the station and years needed")
    return raw


def _rain_header(reader, name: str, units: str) -> tuple:
    """Header of a rainfall CSV: (header, format, units, column indices by role)."""
    header = None
    for row in reader:
        if any(c.strip() for c in row):
            header = [c.strip() for c in row]
            header_line = reader.line_num
            break
    if header is None:
        raise InputError(f"rainfall file {name} must contain a header and data rows; got an "
                         "empty file")
    upper = [h.upper() for h in header]
    fmt = "cdo_daily_summaries"
    if "DATE" in upper and "PRCP" in upper:
        i_date, i_prcp = upper.index("DATE"), upper.index("PRCP")
        if "PRCP_ATTRIBUTES" in upper:
            fmt = "ghcnd_custom_csv"
        file_units = units
    elif "DATE" in upper and ("PRECIP_IN" in upper or "PRECIP_MM" in upper):
        fmt = "simple"
        i_date = upper.index("DATE")
        i_prcp = upper.index("PRECIP_IN") if "PRECIP_IN" in upper else upper.index("PRECIP_MM")
        file_units = "in" if upper[i_prcp] == "PRECIP_IN" else "mm"
    else:
        raise InputError(
            f"rainfall file {name} line {header_line}: header must have DATE and PRCP columns "
            f"(NOAA CDO Daily Summaries / GHCN-Daily CSV) or date and precip_in; got "
            f"{_printable(', '.join(header[:8]))}{', ...' if len(header) > 8 else ''}"
        )
    cols = {
        "date": i_date,
        "prcp": i_prcp,
        "attr": upper.index("PRCP_ATTRIBUTES") if "PRCP_ATTRIBUTES" in upper else None,
        "station": upper.index("STATION") if "STATION" in upper else None,
        "name": upper.index("NAME") if "NAME" in upper else None,
    }
    return header, fmt, file_units, cols


def _rain_rows(reader, header: list, cols: dict, name: str) -> list:
    """Data rows as (line, station, name, date, raw_value, attributes); blank lines skipped."""
    i_date, i_prcp, i_attr = cols["date"], cols["prcp"], cols["attr"]
    i_station, i_name = cols["station"], cols["name"]
    rows = []  # (line, station, name, date, raw_value, attributes)
    for row in reader:
        line = reader.line_num
        if not any(c.strip() for c in row):
            continue
        if len(row) != len(header):
            raise InputError(
                f"rainfall file {name} line {line}: row must have {len(header)} fields like the "
                f"header; got {len(row)}. Check for a stray comma or a truncated line."
            )
        rows.append((
            line,
            row[i_station].strip() if i_station is not None else "",
            row[i_name].strip() if i_name is not None else "",
            row[i_date].strip(),
            row[i_prcp].strip(),
            row[i_attr] if i_attr is not None else "",
        ))
    if not rows:
        raise InputError(f"rainfall file {name} must contain data rows; got only the header")
    return rows


def _one_station(rows: list, station: str | None, name: str) -> list:
    """The rows of the chosen station; an error when several are present and none chosen."""
    stations: dict[str, int] = {}
    for r in rows:
        stations[r[1]] = stations.get(r[1], 0) + 1
    if station is not None:
        if station not in stations:
            raise InputError(
                f"station must be a STATION id in {name}; got {station!r}"
                f"{suggest(station, stations)} Stations: {', '.join(stations)}"
            )
        rows = [r for r in rows if r[1] == station]
    elif len(stations) > 1:
        listing = ", ".join(f"{s} ({n} rows)" for s, n in stations.items())
        raise InputError(
            f"rainfall file {name} must hold one station or station= must choose one; got "
            f"{len(stations)} stations: {listing}"
        )
    return rows


def _rain_value(raw_val: str, qflag: str, d, line: int, name: str, flagged: str) -> str | None:
    """Checked raw PRCP text of one row; None when blank or quality-flagged under 'missing'."""
    if raw_val == "":
        return None
    try:
        v = float(raw_val)
    except ValueError:
        raise InputError(
            f"rainfall file {name} line {line}: PRCP must be a number (a daily depth); "
            f"got {_printable(raw_val, 40)!r} on {d.isoformat()}"
        ) from None
    if not np.isfinite(v):
        raise InputError(
            f"rainfall file {name} line {line}: PRCP must be a finite number; got "
            f"{_printable(raw_val, 40)!r} on {d.isoformat()}"
        )
    if v < 0:
        hint = (" -9999 is NOAA's missing-value code: leave PRCP blank instead."
                if v in (-9999.0, -999.0, -99.99) else " Correct or delete the row.")
        raise InputError(
            f"rainfall file {name} line {line}: PRCP must be >= 0; got {raw_val} on "
            f"{d.isoformat()}.{hint}"
        )
    if qflag:
        if flagged == "error":
            raise InputError(
                f"rainfall file {name} line {line}: PRCP must pass NOAA quality checks; "
                f"got {raw_val} on {d.isoformat()} with QFLAG {qflag!r}. Pass "
                "flagged='missing' to treat flagged values as missing days."
            )
        return None
    return raw_val


def _rain_values(rows: list, name: str, flagged: str) -> tuple:
    """Dates, raw values (None: missing), lines, trace days and quality-flagged count."""
    dates, values, lines = [], [], []
    trace = 0
    n_flagged = 0
    for line, _st, _nm, raw_date, raw_val, attrs in rows:
        d = _parse_date(raw_date)
        if d is None:
            raise InputError(
                f"rainfall file {name} line {line}: DATE must be a calendar date YYYY-MM-DD; "
                f"got {_printable(raw_date, 40)!r} (sub-daily values: YYYY-MM-DDTHH:MM)"
            )
        flags = attrs.split(",") if attrs else []
        mflag = flags[0].strip() if len(flags) > 0 else ""
        qflag = flags[1].strip() if len(flags) > 1 else ""
        values.append(_rain_value(raw_val, qflag, d, line, name, flagged))
        if raw_val != "":
            if qflag:
                n_flagged += 1
            if mflag == "T":
                trace += 1
        dates.append(d)
        lines.append(line)
    return dates, values, lines, trace, n_flagged


def _first_lines(dates: list, lines: list, name: str) -> dict:
    """Line of every date; an error naming both lines when a date repeats."""
    seen: dict[_dt.date, int] = {}
    for d, line in zip(dates, lines, strict=True):
        if d in seen:
            raise InputError(
                f"rainfall file {name} line {line}: DATE must not repeat; got {d.isoformat()} "
                f"again (first on line {seen[d]}). Remove the duplicate row."
            )
        seen[d] = line
    return seen


def _cdo_units(values: list, units: str, name: str) -> str:
    """PRCP units of a NOAA file: as given, or inches when every value has two decimals."""
    if units != "auto":
        return units
    raw_present = [v for v in values if v is not None]
    decs = {_decimals(v) for v in raw_present}
    if decs == {2}:
        return "in"
    shown = sorted(decs)
    raise InputError(
        f"rainfall file {name}: PRCP units must be stated when the file does not "
        "print every value with two decimals (NOAA standard units, inches); got "
        f"values with {shown} decimals. Pass units='in' or units='mm' "
        "(rainfall_units in the site file)."
    )


def _depth_in(values: list, file_units: str, dates: list, lines: list, name: str) -> np.ndarray:
    """Daily depths in inches (NaN: missing), checked against MAX_DAILY_PRECIP_IN."""
    factor = 1.0 if file_units == "in" else 1.0 / _MM_PER_IN
    depth = np.array([np.nan if v is None else float(v) * factor for v in values])
    too_big = np.flatnonzero(np.nan_to_num(depth) > MAX_DAILY_PRECIP_IN)
    if too_big.size:
        i = int(too_big[0])
        raise InputError(
            f"rainfall file {name} line {lines[i]}: PRCP must be <= "
            f"{fmt_value(MAX_DAILY_PRECIP_IN)} in per day; got {values[i]} {file_units} on "
            f"{dates[i].isoformat()}. If the file is in millimetres pass units='mm'."
        )
    return depth


def _check_no_gaps(series: pd.Series, absent, dates: list, values: list, seen: dict,
                   name: str) -> None:
    """Raise InputError naming the first missing day (absent or blank) of a daily record."""
    blank = [d for d, v in zip(dates, values, strict=True) if v is None]
    if len(absent) or blank:
        n = len(absent) + len(blank)
        first = min([t.date() for t in absent[:1]] + sorted(blank)[:1])
        how = ("absent from the file" if len(absent) and first == absent[0].date()
               else f"blank PRCP on line {seen[first]}")
        raise InputError(
            f"rainfall file {name}: the record must have a value for every day; got {n} "
            f"missing day(s) between {series.index[0].date()} and "
            f"{series.index[-1].date()}, first {first.isoformat()} ({how}). Fill them from "
            "a nearby station or pass allow_gaps=True."
        )


def read_daily_rainfall(
    path: str | pathlib.Path,
    *,
    station: str | None = None,
    units: str = "auto",
    allow_gaps: bool = False,
    flagged: str = "error",
) -> DailyRainfall:
    r"""Read and validate a daily rainfall CSV (NOAA CDO Daily Summaries / GHCN-Daily custom).

    Parameters
    ----------
    path : path-like
        CSV file.
    station : str, optional
        Station id (``STATION`` column) to keep when the file holds several stations.
    units : {"auto", "in", "mm"}
        Units of PRCP in the file; see the module docstring for ``"auto"``. Ignored for the
        ``simple`` format, whose header carries the unit.
    allow_gaps : bool
        Keep missing days as NaN instead of raising.
    flagged : {"error", "missing"}
        What to do with values carrying a NOAA quality flag (QFLAG).

    Returns
    -------
    DailyRainfall

    Raises
    ------
    InputError
        One line naming the file, line, field, value and valid range.

    Examples
    --------
    >>> import tempfile, os
    >>> text = 'DATE,PRCP\n2027-04-01,0.00\n2027-04-02,0.50\n2027-04-03,1.25\n'
    >>> with tempfile.TemporaryDirectory() as d:
    ...     p = os.path.join(d, "rain.csv")
    ...     _ = open(p, "w").write(text)
    ...     rec = read_daily_rainfall(p)
    >>> rec.precip_in.tolist(), rec.units_in_file
    ([0.0, 0.5, 1.25], 'in')
    """
    path = pathlib.Path(path)
    name = str(path)
    if units not in ("auto", "in", "mm"):
        raise InputError(f"units must be one of auto, in, mm; got {units!r}")
    if flagged not in ("error", "missing"):
        raise InputError(f"flagged must be one of error, missing; got {flagged!r}")
    raw_bytes = _read_limited(path, name)
    try:
        text = raw_bytes.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw_bytes.decode("latin-1")
    reader = csv.reader(io.StringIO(text))
    header, fmt, file_units, cols = _rain_header(reader, name, units)
    rows = _one_station(_rain_rows(reader, header, cols, name), station, name)
    # control characters (ESC, ...) in the station fields never reach a report: escaped
    st_id = _printable(rows[0][1], 200)
    st_name = _printable(rows[0][2], 200)

    notes: list[str] = []
    dates, values, lines, trace, n_flagged = _rain_values(rows, name, flagged)
    if n_flagged:
        notes.append(f"{n_flagged} quality-flagged value(s) set missing")
    seen = _first_lines(dates, lines, name)
    if fmt != "simple":
        file_units = _cdo_units(values, units, name)
    depth = _depth_in(values, file_units, dates, lines, name)

    if any(isinstance(d, _dt.datetime) for d in dates):  # sub-daily values: daily totals
        stamps = pd.DatetimeIndex(pd.to_datetime([pd.Timestamp(d) for d in dates]))
        daily = as_daily_series(pd.Series(depth, index=stamps),
                                name=f"rainfall file {name} PRCP", allow_gaps=allow_gaps)
        notes.append(f"{len(dates)} sub-daily values summed to {len(daily)} daily totals")
        if daily.isna().any():
            notes.append(f"{int(daily.isna().sum())} missing day(s) kept as NaN")
        return DailyRainfall(precip_in=daily, station=st_id, station_name=st_name, source=name,
                             file_format=fmt, units_in_file=file_units, trace_days=trace,
                             notes=tuple(notes))
    series = pd.Series(depth, index=pd.DatetimeIndex(pd.to_datetime(dates)), name="precip_in")
    series = series.sort_index()
    full = pd.date_range(series.index[0], series.index[-1], freq="D")
    absent = full.difference(series.index)
    series = series.reindex(full)
    series.name = "precip_in"
    if not allow_gaps:
        _check_no_gaps(series, absent, dates, values, seen, name)
    elif series.isna().any():
        notes.append(f"{int(series.isna().sum())} missing day(s) kept as NaN")
    return DailyRainfall(
        precip_in=series,
        station=st_id,
        station_name=st_name,
        source=name,
        file_format=fmt,
        units_in_file=file_units,
        trace_days=trace,
        notes=tuple(notes),
    )


def rainfall_for_plan(
    plan,
    path: str | pathlib.Path | None = None,
    *,
    station: str | None = None,
    units: str | None = None,
    shift_years: int | None = None,
) -> DailyRainfall:
    """Read the daily record of a :class:`hydrocalc.site.project.ConstructionPlan`.

    Arguments override the plan's ``rainfall_file``, ``rainfall_station``,
    ``rainfall_units`` and ``rainfall_shift_years``.

    Raises
    ------
    InputError
        No file given here or in the plan.
    """
    src = path if path is not None else getattr(plan, "rainfall_file", None)
    if src is None:
        raise InputError(
            "rainfall file must be given (--rain FILE or construction.rainfall_file); got none"
        )
    rec = read_daily_rainfall(
        src,
        station=station if station is not None else getattr(plan, "rainfall_station", None),
        units=units if units is not None else getattr(plan, "rainfall_units", "auto"),
    )
    shift = shift_years if shift_years is not None else getattr(plan, "rainfall_shift_years", 0)
    return rec.shift_years(int(shift or 0))
