"""The named sediment-trap criteria table, required storage, and the C and P factor look-ups.

Each criteria row (:class:`SedimentCriteria`) carries its source and verification status;
:func:`required_storage_ft3` applies a row's per-acre storage to a drainage area.
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np
import numpy.typing as npt
import pandas as pd

from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.data import load_table
from hydrocalc.errors import InputError, OutOfRangeError
from hydrocalc.units import FT2_PER_AC

# ----------------------------------------------------------------------------------------
# criteria table


@functools.cache
def _criteria_frame() -> pd.DataFrame:
    return load_table("sediment_trap_criteria").set_index("key")


def criteria_table() -> pd.DataFrame:
    """The named sediment storage criteria (one row per manual, edition and section)."""
    return _criteria_frame().copy()


def criteria_keys() -> tuple[str, ...]:
    """Keys of :func:`criteria_table`."""
    return tuple(_criteria_frame().index)


def _opt(v):
    if pd.isna(v):
        return None
    if isinstance(v, np.generic):
        return v.item()
    return v


@dataclasses.dataclass(frozen=True)
class SedimentCriteria:
    """One row of the criteria table, with its source and verification status."""

    key: str
    practice: str
    jurisdiction: str
    manual: str
    edition: str
    location: str
    method: str
    status: str
    note: str
    source_url: str = ""
    storage_ft3_per_ac: float | None = None
    lower_zone: str | None = None
    lower_zone_ft3_per_ac: float | None = None
    upper_zone: str | None = None
    upper_zone_ft3_per_ac: float | None = None
    runoff_return_period_yr: float | None = None
    lower_zone_runoff_multiple: float | None = None
    upper_zone_runoff_multiple: float | None = None
    max_drainage_area_ac: float | None = None
    max_drainage_area_inclusive: bool = True

    @property
    def label(self) -> str:
        """``manual, edition, location [status]`` as printed with every result."""
        parts = [self.manual]
        if self.edition:
            parts.append(self.edition)
        parts.append(self.location)
        return f"{', '.join(parts)} [status: {self.status}]"

    def check_drainage_area(self, drainage_area_ac) -> None:
        """Raise :class:`OutOfRangeError` if any area exceeds the criteria's maximum."""
        if self.max_drainage_area_ac is None:
            return
        a = as_float_array(drainage_area_ac, "drainage_area_ac", lower=0.0,
                           lower_inclusive=False)
        lim = self.max_drainage_area_ac
        bad = a > lim if self.max_drainage_area_inclusive else a >= lim
        if np.any(bad):
            flat = np.ravel(bad)
            i = int(np.flatnonzero(flat)[0])
            where = "" if a.ndim == 0 else f" at index {i} ({int(flat.sum())} of {flat.size})"
            rel = "<=" if self.max_drainage_area_inclusive else "<"
            basins = [k for k, r in _criteria_frame().iterrows() if r["practice"] == "basin"]
            raise OutOfRangeError(
                f"drainage_area_ac must be {rel} {fmt_value(lim)} ac for criteria "
                f"{self.key!r} ({self.label}); got {fmt_value(np.ravel(a)[i])}{where}. Use a "
                f"sediment basin (criteria {', '.join(repr(b) for b in basins)}) or split the "
                "drainage area among several traps."
            )


def criteria(key: str) -> SedimentCriteria:
    """Look up a row of the criteria table.

    Examples
    --------
    >>> c = criteria("ny_bluebook_2016_sediment_trap")
    >>> c.storage_ft3_per_ac, c.status
    (3600.0, 'unverified')
    """
    frame = _criteria_frame()
    if key not in frame.index:
        raise InputError(
            f"criteria must be a key of the sediment criteria table; got {key!r}"
            f"{suggest(key, frame.index)} Valid: {', '.join(frame.index)}"
        )
    r = frame.loc[key]
    inclusive = _opt(r["max_drainage_area_inclusive"])
    return SedimentCriteria(
        key=key,
        practice=r["practice"],
        jurisdiction=r["jurisdiction"],
        manual=r["manual"],
        edition=_opt(r["edition"]) or "",
        location=r["location"],
        method=r["method"],
        status=r["status"],
        note=_opt(r["note"]) or "",
        source_url=_opt(r["source_url"]) or "",
        storage_ft3_per_ac=_opt(r["storage_ft3_per_ac"]),
        lower_zone=_opt(r["lower_zone"]),
        lower_zone_ft3_per_ac=_opt(r["lower_zone_ft3_per_ac"]),
        upper_zone=_opt(r["upper_zone"]),
        upper_zone_ft3_per_ac=_opt(r["upper_zone_ft3_per_ac"]),
        runoff_return_period_yr=_opt(r["runoff_return_period_yr"]),
        lower_zone_runoff_multiple=_opt(r["lower_zone_runoff_multiple"]),
        upper_zone_runoff_multiple=_opt(r["upper_zone_runoff_multiple"]),
        max_drainage_area_ac=_opt(r["max_drainage_area_ac"]),
        max_drainage_area_inclusive=True if inclusive is None else bool(inclusive),
    )


def required_storage_ft3(
    drainage_area_ac: npt.ArrayLike,
    criteria_key: str = "ny_bluebook_2016_sediment_trap",
    *,
    runoff_in: npt.ArrayLike | None = None,
    zones: bool = False,
):
    r"""Required storage of a sediment trap or basin under a named criteria.

    Parameters
    ----------
    drainage_area_ac : numeric
        Drainage area to the practice, > 0 and within the criteria's maximum. [ac]
    criteria_key : str
        Key of :func:`criteria_table`.
    runoff_in : numeric, optional
        Runoff depth of the criteria's design storm; required by ``method = runoff_volume``
        rows (e.g. the 2-year 24-hour runoff, :func:`hydrocalc.runoff.runoff_depth`). [in]
    zones : bool
        Also return the lower and upper zone volumes (wet/dry storage, sediment/dewatering).

    Returns
    -------
    storage_ft3 : numeric
        Required storage; with ``zones=True`` a tuple ``(total, lower, upper)`` (zones NaN
        where the criteria has none). [ft3]

    Raises
    ------
    OutOfRangeError
        Drainage area above the criteria's maximum (the message suggests a basin).

    Notes
    -----
    ``per_acre``: :math:`V = v_{ac} A`. ``runoff_volume``: each zone holds
    ``multiple x runoff`` over the drainage area, :math:`V = (m_l + m_u)\,Q A`.
    Every result carries the criteria's source and verification status; print
    ``criteria(key).label`` with it.

    Examples
    --------
    >>> required_storage_ft3(2.1)      # NY Blue Book row, status unverified
    7560.0
    >>> required_storage_ft3(2.1, "pa_es_manual_sediment_trap", zones=True)
    (4200.0, 1470.0, 2730.0)
    """
    crit = criteria(criteria_key)
    area = as_float_array(drainage_area_ac, "drainage_area_ac", lower=0.0,
                          lower_inclusive=False)
    crit.check_drainage_area(area)
    if runoff_in is not None:  # validated even where unused: NaN or < 0 is never a runoff depth
        as_float_array(runoff_in, "runoff_in", lower=0.0)
    if crit.method == "per_acre":
        total = crit.storage_ft3_per_ac * area
        lower = (np.nan if crit.lower_zone_ft3_per_ac is None
                 else crit.lower_zone_ft3_per_ac * area)
        upper = (np.nan if crit.upper_zone_ft3_per_ac is None
                 else crit.upper_zone_ft3_per_ac * area)
    elif crit.method == "runoff_volume":
        if runoff_in is None:
            raise InputError(
                f"runoff_in must be given for criteria {criteria_key!r} (sized on the "
                f"{fmt_value(crit.runoff_return_period_yr)}-year 24-hour runoff); got nothing. "
                "Compute it with hydrocalc.runoff.runoff_depth(precip_in, cn)."
            )
        q = as_float_array(runoff_in, "runoff_in", lower=0.0)
        base = q / 12.0 * area * FT2_PER_AC
        lower = crit.lower_zone_runoff_multiple * base
        upper = crit.upper_zone_runoff_multiple * base
        total = lower + upper
    else:  # pragma: no cover - guarded by the data tests
        raise InputError(f"criteria {criteria_key!r} has an unknown method {crit.method!r}")
    total = np.asarray(total, dtype=float)
    lower = np.broadcast_to(np.asarray(lower, dtype=float), total.shape)
    upper = np.broadcast_to(np.asarray(upper, dtype=float), total.shape)
    src = (drainage_area_ac,) if runoff_in is None else (drainage_area_ac, runoff_in)
    if not zones:
        return like(total, *src)
    return like(total, *src), like(lower, *src), like(upper, *src)


@functools.cache
def _factor_frame(name: str) -> pd.DataFrame:
    return load_table(name).set_index("key")


def c_factor(cover_key: str) -> float:
    """Cover-management factor C from the shipped table ``musle_c_factors`` (cited rows).

    Examples
    --------
    >>> c_factor("goldman_straw_mulch_1p5_ton_ac")
    0.2
    """
    frame = _factor_frame("musle_c_factors")
    if cover_key not in frame.index:
        raise InputError(
            f"cover_key must be a key of table musle_c_factors; got {cover_key!r}"
            f"{suggest(cover_key, frame.index)} List them with: hydrocalc tables show "
            "musle_c_factors"
        )
    return float(frame.loc[cover_key, "c_factor"])


def p_factor(practice_key: str) -> float:
    """Support-practice factor P from the shipped table ``musle_p_factors``.

    Examples
    --------
    >>> p_factor("track_walking_up_down_slope")
    0.9
    """
    frame = _factor_frame("musle_p_factors")
    if practice_key not in frame.index:
        raise InputError(
            f"practice_key must be a key of table musle_p_factors; got {practice_key!r}"
            f"{suggest(practice_key, frame.index)} List them with: hydrocalc tables show "
            "musle_p_factors"
        )
    return float(frame.loc[practice_key, "p_factor"])
