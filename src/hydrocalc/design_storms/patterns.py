"""Rainfall time patterns from files and the NOAA Atlas 14 temporal distributions.

User distributions and hyetographs (CSV), and the NOAA Atlas 14 Volume 10 temporal
distributions [1]_.

References
----------
.. [1] NOAA, "NOAA Atlas 14 Volume 10: Precipitation-Frequency Atlas of the United States,
   Northeastern States," 2015 (temporal distributions, 24-h, by quartile).
"""

from __future__ import annotations

import io
import pathlib
from typing import cast

import numpy as np
import pandas as pd

from hydrocalc._validate import fmt_value, suggest
from hydrocalc.design_storms.ddf import DEPTH_CLOSE_TOL_IN
from hydrocalc.design_storms.reading import _excerpt, _is_float, _number, _read_text, _rows
from hydrocalc.errors import InputError
from hydrocalc.rainfall import (
    CLOSE_TOL_FRAC,
    Hyetograph,
    RainfallDistribution,
    hyetograph_from_cumulative,
)

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
                    f"{name}: {col} must be numeric; "
                    f"got {_excerpt(repr(frame[col].iloc[i]))} at row {i + 1}"
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
            columns = [f"p{int(cast(float, _number(c)))}" for c in row[1:]]
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
