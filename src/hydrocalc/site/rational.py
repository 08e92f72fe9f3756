r"""Rational-method subcatchments in a site.

The ``[rational]`` intensity settings, the ``[[<scenario>.subcatchment]] method =
"rational"`` entries and their design hydrographs.

The equations are those of :mod:`hydrocalc.rational` (``Q = C i A``, HEC-22 Eq. 3-1;
composite C; intensity = depth / duration from a NOAA Atlas 14 table) plus, for an
intensity given as an equation, the common IDF form

.. math:: i = \frac{b}{(t_c + d)^e}\quad[\mathrm{in/h}],\ t_c\ \text{in min}

(TxDOT *Hydraulic Design Manual*, 2019, Ch. 4 Sec. 12 "Rational Method", with b, d, e fitted
per return period; the designer gives them, they are never defaulted).

Hydrograph (a judgment call, documented in ``docs/site_file.md``)
-----------------------------------------------------------------
A rational subcatchment feeds the network with the **modified rational hydrograph for a
storm duration equal to Tc** (:func:`hydrocalc.rational.modified_rational_hydrograph` with
:math:`T_d = t_c`): a triangle rising over :math:`t_c` to :math:`Q = C i(t_c) A` and
falling over :math:`t_c`. It is the hydrograph of the peak (the duration that gives the
largest Q), not of the critical storage duration, so its volume :math:`Q t_c` is small:
pond storage estimates from it are low; use :func:`hydrocalc.rational.modified_rational_storage`
(critical duration) or TR-55 subcatchments for storage. The triangle is placed in time so its
peak falls at the end of the most intense :math:`t_c`-long window of the site's design
storm (where a TR-55 hydrograph of the same storm peaks), so TR-55 and rational flows that
join at a node add peak on peak (conservative).

Mixed networks
--------------
TR-55 and rational subcatchments may drain to the same network. Rational subcatchments add
their hydrographs to the flows; they have no curve number and no runoff volume of the
24-hour storm, so the sizing criteria (WQv, RRv, Cpv) count only the TR-55 subcatchments:
the analysis records a note saying so for every site that has both.

Return period of a storm
------------------------
A storm named ``"<T>yr"`` has return period T; other storm names need
``rational.return_periods_yr = {name = T}``.
"""

from __future__ import annotations

import dataclasses
import math
import re
import warnings
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from hydrocalc import design_storms
from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.rational import (
    composite_c,
    intensity_in_hr,
    rational_peak_cfs,
    runoff_coefficient_range,
)
from hydrocalc.site.files import _register_input, _site_path
from hydrocalc.site.model import TcSegment
from hydrocalc.site.problems import _msg
from hydrocalc.site.subcatchments import _parse_segment, _segment_travel_times
from hydrocalc.units import FT2_PER_AC

__all__ = ["RationalSettings", "RationalSubcatchment", "idf_intensity_in_hr",
           "rational_flows"]

#: The keys of ``[rational]``, its IDF tables, a rational subcatchment and its cover rows
#: (declared by :mod:`hydrocalc.site.schema`).
_RATIONAL_KEYS = ("pfds_csv", "depth_file", "idf", "idf_source", "return_periods_yr")
_IDF_KEYS = ("b", "d", "e")
_SUB_KEYS = ("id", "to", "description", "method", "c", "cover", "area_ac", "area_ft2",
             "tc_hr", "tc_segment")
_COVER_KEYS = ("cover", "c", "area_ac", "area_ft2")
_STORM_T = re.compile(r"^(\d+(?:\.\d+)?)yr$")


def idf_intensity_in_hr(b: float, d: float, e: float, duration_hr: float) -> float:
    r"""Intensity from the IDF equation :math:`i = b / (t + d)^e`, t in minutes [in/h].

    TxDOT *Hydraulic Design Manual* (2019), Ch. 4 Sec. 12 (rational method).

    Examples
    --------
    >>> round(idf_intensity_in_hr(60.0, 10.0, 0.8, 0.25), 4)      # 60 / 25**0.8
    4.5688
    """
    t_min = 60.0 * float(duration_hr)
    base = t_min + float(d)
    if t_min <= 0 or base <= 0:
        raise InputError(f"duration_hr must make t + d > 0 (t in min); got t = "
                         f"{t_min:g} min, d = {d:g}")
    return float(b) / base ** float(e)


@dataclasses.dataclass(frozen=True)
class RationalSettings:
    """``[rational]``: where the intensity comes from and each storm's return period.

    Exactly one source: ``pfds_csv`` (a NOAA Atlas 14 PFDS depth CSV, read by
    :func:`hydrocalc.design_storms.read_pfds_csv`), ``depth_file`` (a ``design_storms/``
    TOML depth file) or ``idf`` (``{storm: (b, d, e)}``).
    """

    source: str
    source_text: str
    table: Any = None
    idf: Mapping[str, tuple[float, float, float]] = dataclasses.field(default_factory=dict)
    return_periods_yr: Mapping[str, float] = dataclasses.field(default_factory=dict)

    def return_period(self, storm: str) -> float | None:
        """Return period of ``storm`` [yr]: mapped, else from a ``"<T>yr"`` name."""
        if storm in self.return_periods_yr:
            return float(self.return_periods_yr[storm])
        m = _STORM_T.match(storm)
        return float(m.group(1)) if m else None

    def intensity_in_hr(self, storm: str, duration_hr: float) -> float:
        """Average intensity of ``storm`` for ``duration_hr`` (= Tc) [in/h]."""
        if self.source == "idf":
            b, d, e = self.idf[storm]
            return idf_intensity_in_hr(b, d, e, duration_hr)

        # the site parser requires a return period for every storm of a table source
        t = cast(float, self.return_period(storm))
        rp = int(t) if float(t).is_integer() else t
        return intensity_in_hr(self.table, rp, duration_hr)

    def describe(self, storm: str) -> str:
        """The source of i for ``storm`` in a report cell."""
        if self.source == "idf":
            b, d, e = self.idf[storm]
            return f"IDF equation i = {b:g} / (Tc_min + {d:g})^{e:g}; {self.source_text}"
        t = self.return_period(storm)
        return f"{self.source_text}, {t:g}-yr depth / Tc (log-log between durations)"


@dataclasses.dataclass(frozen=True)
class RationalSubcatchment:
    """A subcatchment computed by the rational method (``method = "rational"``).

    ``c`` is the runoff coefficient used (given, or the area-weighted composite of the
    cover rows, each C chosen by the designer within the HEC-22 Table 3-1 range of its
    cover key); ``tc_hr`` given or from Tc segments (TR-55 Ch. 3).
    """

    id: str
    to: str
    area_ac: float
    c: float
    tc_hr: float
    c_method: str = "given"
    covers: tuple[Mapping, ...] = ()
    tc_segments: tuple = ()
    tc_method: str = "given"
    description: str = ""

    @property
    def kind(self) -> str:
        """Node kind: always ``"subcatchment"``."""
        return "subcatchment"

    @property
    def method(self) -> str:
        """Runoff method: always ``"rational"``."""
        return "rational"


# -- parsing (called by hydrocalc.site with its problem collector) ------------------------


def parse_settings(P, m, base_dir, input_files, storm_names, errors, doc
                   ) -> RationalSettings | None:
    """``[rational]`` -> :class:`RationalSettings` (problems recorded on ``P``).

    The declared model has checked the keys (``errors``); by hand: exactly one intensity
    source, the file it names, and an intensity for every storm.
    """
    P.declared(errors, doc)
    if not isinstance(m, Mapping):
        return None
    n0 = len(P.items)
    given = [k for k in ("pfds_csv", "depth_file", "idf") if k in m]
    if len(given) != 1:
        P.add("rational", "needs exactly one intensity source: pfds_csv (a NOAA Atlas 14 PFDS "
                          "depth CSV), depth_file (a design_storms TOML) or idf (b, d, e per "
                          f"storm); got {', '.join(given) if given else 'none'}")
        return None
    source = given[0]
    if source == "idf" and "idf_source" not in m:
        P.add("rational.idf_source", "is required; got nothing. Add it to the file.")
    bad = {e.path[1:3] for e in errors if e.kind != "unknown"}
    if (source,) in bad:
        return None
    table, text = None, m.get("idf_source", "")
    if source != "idf":
        table, text = _intensity_table(P, source, m[source], base_dir, input_files)
        if table is None:
            return None
    settings = _settings(m, source, table, text, bad)
    _check_storms(P, settings, storm_names, bad)
    if errors or len(P.items) > n0:
        return None
    return settings


def _settings(m: Mapping, source: str, table, text: str, bad: set) -> RationalSettings:
    """The settings of ``[rational]``: its valid return periods and IDF coefficients."""
    rps = m.get("return_periods_yr", {}) if ("return_periods_yr",) not in bad else {}
    idf = m.get("idf", {}) if ("idf",) not in bad else {}
    return RationalSettings(
        source=source, source_text=text, table=table,
        idf={str(k): (float(c["b"]), float(c["d"]), float(c["e"])) for k, c in idf.items()
             if ("idf", k) not in bad},
        return_periods_yr={str(k): float(v) for k, v in rps.items()
                           if ("return_periods_yr", k) not in bad})


def _intensity_table(P, source: str, raw: str, base_dir, input_files) -> tuple[Any, str]:
    """The depth table named by ``rational.pfds_csv`` or ``rational.depth_file`` and its text."""
    path = _site_path(P, f"rational.{source}", base_dir, raw,
                      what="CSV file" if source == "pfds_csv" else "depth file",
                      design_storms=source == "depth_file")
    if path is None:
        return None, ""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            table = (design_storms.read_pfds_csv(path) if source == "pfds_csv"
                     else design_storms.load_depth_file(path, warn=False))
    except HydrocalcError as exc:
        P.add(f"rational.{source}", f"could not be read: {_msg(exc)}")
        return None, ""
    _register_input(input_files, base_dir, path)
    text = f"{table.source} (file {path.name})"
    return table, text + (" [ILLUSTRATIVE depths]" if getattr(table, "illustrative", False)
                          else "")


def _check_storms(P, settings: RationalSettings, storm_names, bad: set) -> None:
    """Every storm has an intensity: IDF coefficients, or a return period in the table.

    A storm whose coefficients the declared model refused (``bad``) is not missing them.
    """
    for storm in storm_names:
        if settings.source == "idf":
            if storm not in settings.idf and ("idf", storm) not in bad and ("idf",) not in bad:
                P.add("rational.idf", f"needs b, d, e for every storm; got none for "
                                      f"{storm!r}. Add [rational.idf.{storm}]")
            continue
        t = settings.return_period(storm)
        if t is None:
            P.add("rational.return_periods_yr", f"must give the return period of storm "
                                                f"{storm!r} (its name is not '<T>yr'); got "
                                                "nothing")
        elif not any(math.isclose(float(t), float(c))
                     for c in settings.table.return_periods_yr):
            P.add(f"rational.{settings.source}",
                  f"has no {t:g}-yr column for storm {storm!r}; its return periods are "
                  f"{settings.table.return_periods_yr}")


def parse_subcatchment(P, e: Mapping, path: str, ctx, errors) -> RationalSubcatchment | None:
    """One ``method = "rational"`` subcatchment (problems recorded on ``P``).

    The declared model has checked its keys (``errors``, but the id's form, which the
    scenario checks with every node's, and the Tc segments' keys, checked by
    :func:`~hydrocalc.site.subcatchments._parse_segment`). By hand: one key of each pair
    (``c`` or cover rows, ``tc_hr`` or segments, an area in ac or ft2), each cover's C in the
    range of its HEC-22 key, the cover areas adding up to the area, the segments' Tc.
    """
    n0 = len(P.items)
    P.declared([x for x in errors if _written_here(x)], ctx.doc)
    for key, rows, both, neither in _PAIRS:
        if key in e and _tables(e, rows):
            P.add(f"{path}.{key}", f"and {rows} rows must not both be given; got both. {both}")
        elif key not in e and not _tables(e, rows):
            P.add(f"{path}.{key}", f"(or [[...{rows}]] rows) is required; got nothing.{neither}")
    area = _area_ac(P, e, path, [x for x in errors if len(x.path) == 4], required=False)
    covers: list[Any] = [_cover(P, row, f"{path}.cover[{i}]", [x for x in errors
                                                   if x.path[3:5] == ("cover", i)])
              for i, row in enumerate(_tables(e, "cover"))]
    segs: list[Any] = [_parse_segment(P, s, f"{path}.tc_segment[{i}]", ctx)
            for i, s in enumerate(_tables(e, "tc_segment"))]
    if len(P.items) > n0:
        return None
    if covers and area is not None and not math.isclose(
            total := sum(r["area_ac"] for r in covers), area, rel_tol=0.005, abs_tol=1e-4):
        P.add(f"{path}.area_ac", f"must equal the cover areas ({total:.6g} ac) within "
                                 f"0.5 %; got {area:g}. Fix the areas or omit area_ac.")
        return None
    if not covers and area is None:
        P.add(f"{path}.area_ac", "(or area_ft2) is required when c is given; got nothing.")
        return None
    try:
        tc_hr, times = _segment_travel_times(segs) if segs else (e["tc_hr"], [])
    except HydrocalcError as exc:
        P.add(f"{path}.tc_segment", f"travel time could not be computed: {_msg(exc)}")
        return None
    return _subcatchment(e, area, covers, segs, tc_hr, times)


def _subcatchment(e: Mapping, area_ac: float | None, covers: list, segs: list, tc_hr: float,
                  times: list) -> RationalSubcatchment:
    """The subcatchment of valid keys.

    C given or the composite of the cover rows (then the area is theirs when not given), Tc
    given or the sum of the segments' travel times.
    """
    c, c_method = e.get("c"), "given"
    if covers:
        c = composite_c([r["c"] for r in covers], [r["area_ac"] for r in covers])
        c_method = "composite of cover rows (C chosen within HEC-22 Table 3-1 ranges)"
        area_ac = sum(r["area_ac"] for r in covers) if area_ac is None else area_ac
    return RationalSubcatchment(
        id=e["id"], to=e["to"], area_ac=float(cast(float, area_ac)), c=float(cast(float, c)),
        tc_hr=float(tc_hr), c_method=c_method, covers=tuple(covers),
        tc_segments=tuple(TcSegment(**{**s, "travel_time_hr": t})
                          for s, t in zip(segs, times, strict=True)),
        tc_method="segments (TR-55 Ch. 3)" if segs else "given",
        description=e.get("description", ""))


#: The keys given one instead of the other: key, rows, hint when both, hint when neither.
_PAIRS = (("c", "cover", "Give c, or [[...cover]] rows each with cover, c and area_ac",
           " Give the runoff coefficient explicitly (no default: see hydrocalc tables show "
           "rational_runoff_coefficients for ranges)"),
          ("tc_hr", "tc_segment", "Keep one.", ""))


def _tables(e: Mapping, key: str) -> list:
    """The rows of ``key`` (none when it is not an array of tables: the model says so)."""
    rows = e.get(key)
    return rows if isinstance(rows, list) and all(isinstance(r, Mapping) for r in rows) else []


def _area_ac(P, m: Mapping, prefix: str, errors, *, required: bool) -> float | None:
    """``area_ac`` or ``area_ft2`` (one of them), in acres; None when absent or at fault."""
    given = [k for k in ("area_ac", "area_ft2") if k in m]
    if len(given) == 2:
        P.add(f"{prefix}.area_ac", "and area_ft2 must not both be given; got both. Keep one.")
    elif not given and required:
        P.add(f"{prefix}.area_ac", "(or area_ft2) is required; got nothing. Add one.")
    if len(given) != 1 or any(x.key == given[0] for x in errors):
        return None
    return float(m[given[0]]) / (1.0 if given[0] == "area_ac" else FT2_PER_AC)


def _cover(P, row: Mapping, cp: str, errors) -> dict | None:
    """One cover row of a composite C: its area, and its C within the range of its key."""
    a = _area_ac(P, row, cp, errors, required=True)
    key, cv = row.get("cover"), row.get("c")
    if a is None or key is None or cv is None or {"cover", "c"} & {x.key for x in errors}:
        return None
    try:
        lo, hi = runoff_coefficient_range(key)
    except InputError as exc:
        P.add(f"{cp}.cover", _msg(exc).replace("cover ", "", 1))
        return None
    if not lo - 1e-12 <= cv <= hi + 1e-12:
        P.add(f"{cp}.c", f"must be within the range of {key!r} in HEC-22 Table 3-1 "
                         f"[{lo:g}, {hi:g}]; got {cv:g}")
        return None
    return {"cover": key, "c": float(cv), "c_low": lo, "c_high": hi, "area_ac": a}


def _written_here(x) -> bool:
    """A record of the model this parser writes: not the id's form, nor a Tc segment's key."""
    return (not (x.path[3:] == ("id",) and x.error.get("type") == "string_pattern_mismatch")
            and not (x.path[3:4] == ("tc_segment",) and len(x.path) > 4))


def check_durations(P, settings: RationalSettings, scenarios, storm_names) -> None:
    """Every rational subcatchment's Tc must be inside the intensity table's durations."""
    if settings is None or settings.source == "idf":
        return
    hours = np.asarray(settings.table.duration_hr, dtype=float)
    lo, hi = float(hours.min()), float(hours.max())
    for sc in scenarios.values():
        for s in sc.rational:
            if not lo * (1 - 1e-9) <= s.tc_hr <= hi * (1 + 1e-9):
                P.add(f"{sc.name}.subcatchment[{s.id}].tc_hr",
                      f"must be within the intensity table's durations [{lo * 60:g} min, "
                      f"{hi:g} h] for the rational method; got {s.tc_hr:g} h. Use a table "
                      "that covers it (a PFDS CSV starts at 5 min)")


# -- hydrographs -----------------------------------------------------------------------


def peak_window_end_hr(hyeto, duration_hr: float) -> float:
    """End time of the ``duration_hr`` window of ``hyeto`` with the most rainfall [h]."""
    t = np.asarray(hyeto.time_hr, dtype=float)
    p = np.asarray(hyeto.cumulative_in, dtype=float)
    before = np.interp(t - duration_hr, t, p, left=0.0)
    return float(t[int(np.argmax(p - before))])


def rational_flows(sub: RationalSubcatchment, settings: RationalSettings, storm_names,
                   hyetos, time_hr: np.ndarray) -> tuple[np.ndarray, list[dict]]:
    """Hydrographs (m, nt) of one rational subcatchment on ``time_hr`` and one row per storm.

    Each row gives C, i, A, Tc, Q and the sources of i and C; see the module docstring.
    """
    dt = float(time_hr[1] - time_hr[0])
    out = np.zeros((len(storm_names), time_hr.size))
    rows = []
    for i, (storm, hyeto) in enumerate(zip(storm_names, hyetos, strict=True)):
        inten = settings.intensity_in_hr(storm, sub.tc_hr)
        q = float(rational_peak_cfs(sub.c, inten, sub.area_ac))
        t_peak = peak_window_end_hr(hyeto, sub.tc_hr)
        # the modified rational triangle with T_d = t_c (as modified_rational_hydrograph),
        # evaluated on the analysis time base so that its peak Q is an ordinate
        k = int(round(t_peak / dt))
        t_rel = (np.arange(time_hr.size) - k) * dt + sub.tc_hr   # time since the rise began
        out[i] = q * np.clip(np.minimum(t_rel / sub.tc_hr, (2 * sub.tc_hr - t_rel) / sub.tc_hr),
                             0.0, 1.0)
        t_peak = float(time_hr[min(k, time_hr.size - 1)])
        rows.append({"storm": storm, "return_period_yr": settings.return_period(storm),
                     "c": sub.c, "c_source": sub.c_method, "intensity_in_hr": inten,
                     "intensity_source": settings.describe(storm), "area_ac": sub.area_ac,
                     "tc_hr": sub.tc_hr, "peak_cfs": q, "time_of_peak_hr": t_peak,
                     "hydrograph": "modified rational, storm duration = Tc (triangle)"})
    return out, rows
