"""Importers of precipitation-frequency downloads: NOAA Atlas 14 PFDS CSV and the NRCC table.

:func:`import_precipitation_frequency` writes a DDF file from either;
:func:`suggest_distribution` names the closest shipped 24-hour distribution but never
chooses it (the distribution is always an explicit project setting).

References
----------
.. [1] NOAA National Weather Service, Hydrometeorological Design Studies Center,
   "Precipitation Frequency Data Server (PFDS)," NOAA Atlas 14 point estimates, CSV export.
.. [2] Northeast Regional Climate Center / NRCS, "Extreme Precipitation in New York & New
   England," http://precip.eas.cornell.edu (2011 static data).
.. [3] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation, 2015.
"""

from __future__ import annotations

import dataclasses
import math
import re

import pandas as pd

from hydrocalc.design_storms.ddf import _SERIES, DepthFrequencyTable, _duration_key
from hydrocalc.design_storms.depth_file import write_depth_file
from hydrocalc.design_storms.reading import (
    _cells_problem,
    _excerpt,
    _is_float,
    _number,
    _read_text,
    _require_24hr,
    _rows,
)
from hydrocalc.errors import InputError
from hydrocalc.rainfall import rank_distributions

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
    meta, tables, header = _scan_pfds_rows(rows, name)
    _check_pfds(title, meta, tables, name)
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


def _scan_pfds_rows(
    rows: list[list[str]], name: str
) -> tuple[dict[str, str], dict[str, dict], dict[str, list[float]]]:
    """Split PFDS rows into header metadata, estimates tables and their return periods."""
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
            if _add_pfds_table_row(row, tables[current], header[current], current, name):
                continue
            current = None  # the table ended without a blank line
        line = ", ".join(row)
        if ":" in line:
            key, _, value = line.partition(":")
            meta[key.strip()] = value.strip().strip(",").strip()
        elif line.upper().startswith("NOAA ATLAS"):
            meta["atlas"] = line.strip()
    return meta, tables, header


def _add_pfds_table_row(
    row: list[str], table: dict, periods: list[float], kind: str, name: str
) -> bool:
    """Store one duration row of a PFDS table; False when the row ends the table."""
    first = row[0]
    try:
        label = _duration_key(first)
    except InputError:
        if not first.lower().startswith(("date/time", "pyruntime")):
            raise InputError(
                f"{name}: row {_excerpt(first)!r} of the {kind} table must start "
                "with a duration such as '5-min', '2-hr' or '2-day'; got an unknown "
                "label. Correct it or delete the row"
            ) from None
        return False
    values = row[1:]
    bad = _cells_problem(values)
    if len(values) != len(periods) or bad is not None:
        raise InputError(
            f"{name}: row {_excerpt(first)!r} must have "
            f"{len(periods)} numbers (one per return period); got "
            f"{_excerpt(','.join(values))!r} ({kind} table). Was the file "
            "truncated?"
        )
    if label in table:
        raise InputError(
            f"{name}: row {_excerpt(first)!r} of the {kind} table repeats "
            f"duration {label}; each duration must appear once"
        )
    table[label] = [float(v) for v in values]
    return True


def _check_pfds(title: str, meta: dict[str, str], tables: dict[str, dict], name: str) -> None:
    """Reject files that are not a PFDS depth CSV in inches with a 24-hour row."""
    up_title = title.upper()
    if "PRECIPITATION FREQUENCY" not in up_title and "depth_in" not in tables:
        raise InputError(
            f"{name}: not a NOAA Atlas 14 PFDS CSV (first line {_excerpt(title)!r}). Download "
            "'Estimates from the table in csv format' from the PFDS page"
        )
    data_type = meta.get("Data type", "Precipitation depth")
    if "depth" not in data_type.lower():
        raise InputError(
            f"{name}: data type must be 'Precipitation depth'; got {_excerpt(data_type)!r}. "
            "Download the depth table, not intensity"
        )
    lower_title = title.lower()
    if "(inches)" not in lower_title and ("millimet" in lower_title or "(mm)" in lower_title):
        raise InputError(
            f"{name}: depths must be in inches; got {_excerpt(title)!r}. "
            "Download the English-units table"
        )
    if "depth_in" not in tables or not tables["depth_in"]:
        raise InputError(
            f"{name}: no 'PRECIPITATION FREQUENCY ESTIMATES' table found; is this a PFDS CSV?"
        )
    _require_24hr(tables, name)


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

    References
    ----------
    .. [3] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation, 2015.
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
