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
from hydrocalc.site.problems import _msg, _short, _to
from hydrocalc.site.subcatchments import _parse_segment, _segment_travel_times

__all__ = ["RationalSettings", "RationalSubcatchment", "idf_intensity_in_hr",
           "rational_flows"]

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


def parse_settings(P, m, base_dir, input_files, storm_names) -> RationalSettings | None:
    """``[rational]`` -> :class:`RationalSettings` (problems recorded on ``P``)."""
    prefix = "rational"
    if not isinstance(m, Mapping):
        P.add(prefix, f"must be a table; got {_short(m)}")
        return None
    n0 = len(P.items)
    P.unknown_keys(m, _RATIONAL_KEYS, prefix)
    given = [k for k in ("pfds_csv", "depth_file", "idf") if k in m]
    if len(given) != 1:
        P.add(prefix, "needs exactly one intensity source: pfds_csv (a NOAA Atlas 14 PFDS "
                      "depth CSV), depth_file (a design_storms TOML) or idf (b, d, e per "
                      f"storm); got {', '.join(given) if given else 'none'}")
        return None
    rps: dict[str, float] = {}
    raw_rps = m.get("return_periods_yr", {})
    if not isinstance(raw_rps, Mapping):
        P.add(f"{prefix}.return_periods_yr", f"must be a table of storm = years; got "
                                             f"{_short(raw_rps)}")
    else:
        for k, v in raw_rps.items():
            x = P.check_number(v, f"{prefix}.return_periods_yr.{k}", lower=0.0,
                               lower_inclusive=False)
            if x is not None:
                rps[str(k)] = x
    source = given[0]
    table, idf, text = None, {}, ""
    if source in ("pfds_csv", "depth_file"):
        raw = P.text(m, source, prefix)
        if raw is None:
            return None
        path = _site_path(P, f"{prefix}.{source}", base_dir, raw,
                                   what="CSV file" if source == "pfds_csv" else "depth file",
                                   design_storms=source == "depth_file")
        if path is None:
            return None

        try:
            with __import__("warnings").catch_warnings():
                __import__("warnings").simplefilter("ignore")
                table = (design_storms.read_pfds_csv(path) if source == "pfds_csv"
                         else design_storms.load_depth_file(path, warn=False))
        except HydrocalcError as exc:
            P.add(f"{prefix}.{source}", f"could not be read: {_msg(exc)}")
            return None
        _register_input(input_files, base_dir, path)
        text = f"{table.source} (file {path.name})"
        if getattr(table, "illustrative", False):
            text += " [ILLUSTRATIVE depths]"
    else:
        raw_idf = m["idf"]
        if not isinstance(raw_idf, Mapping):
            P.add(f"{prefix}.idf", f"must be a table of storms, each with b, d, e; got "
                                   f"{_short(raw_idf)}")
            return None
        for storm, coef in raw_idf.items():
            where = f"{prefix}.idf.{storm}"
            if not isinstance(coef, Mapping):
                P.add(where, f"must be a table with b, d, e; got {_short(coef)}")
                continue
            P.unknown_keys(coef, _IDF_KEYS, where)
            b = P.number(coef, "b", where, required=True, lower=0.0, lower_inclusive=False)
            d = P.number(coef, "d", where, required=True, lower=0.0)
            e = P.number(coef, "e", where, required=True, lower=0.0, lower_inclusive=False,
                         upper=2.0)
            if None not in (b, d, e):
                idf[str(storm)] = (b, d, e)
        src = P.text(m, "idf_source", prefix, required=True)
        text = src
    settings = RationalSettings(source=source, source_text=text, table=table, idf=idf,
                                return_periods_yr=rps)
    for storm in storm_names:
        if source == "idf":
            if storm not in idf and not any(p.startswith(f"{prefix}.idf.{storm}")
                                            for p in P.items):
                P.add(f"{prefix}.idf", f"needs b, d, e for every storm; got none for "
                                       f"{storm!r}. Add [rational.idf.{storm}]")
            continue
        t = settings.return_period(storm)
        if t is None:
            P.add(f"{prefix}.return_periods_yr", f"must give the return period of storm "
                                                 f"{storm!r} (its name is not '<T>yr'); got "
                                                 "nothing")
        elif not any(math.isclose(float(t), float(c))
                     for c in settings.table.return_periods_yr):
            P.add(f"{prefix}.{source}", f"has no {t:g}-yr column for storm {storm!r}; its "
                                        f"return periods are {settings.table.return_periods_yr}")
    if len(P.items) > n0:
        return None
    return settings


def parse_subcatchment(P, e: Mapping, path: str, ctx) -> RationalSubcatchment | None:
    """One ``method = "rational"`` subcatchment (problems recorded on ``P``)."""
    n0 = len(P.items)
    P.unknown_keys(e, _SUB_KEYS, path)
    sid = P.text(e, "id", path, required=True)
    to = _to(P, e, path)
    desc = P.text(e, "description", path, default="") or ""
    area = P.area_ac(e, path, "area", required=False, lower_inclusive=False)
    has_area = "area_ac" in e or "area_ft2" in e
    covers_raw = P.tables(e, "cover", path) if "cover" in e else []
    c = None
    if "c" in e and covers_raw:
        P.add(f"{path}.c", "and cover rows must not both be given; got both. Give c, or "
                           "[[...cover]] rows each with cover, c and area_ac")
    elif "c" not in e and not covers_raw:
        P.add(f"{path}.c", "(or [[...cover]] rows) is required; got nothing. Give the runoff "
                           "coefficient explicitly (no default: see hydrocalc tables show "
                           "rational_runoff_coefficients for ranges)")
    elif "c" in e:
        c = P.number(e, "c", path, lower=0.0, upper=1.0, lower_inclusive=False)
    covers = []
    for i, row in enumerate(covers_raw):
        cp = f"{path}.cover[{i}]"
        P.unknown_keys(row, _COVER_KEYS, cp)
        key = P.text(row, "cover", cp, required=True)
        cv = P.number(row, "c", cp, required=True, lower=0.0, upper=1.0, lower_inclusive=False)
        a = P.area_ac(row, cp, "area", required=True, lower_inclusive=False)
        if key is None or cv is None or a is None:
            continue

        try:
            lo, hi = runoff_coefficient_range(key)
        except InputError as exc:
            P.add(f"{cp}.cover", _msg(exc).replace("cover ", "", 1))
            continue
        if not lo - 1e-12 <= cv <= hi + 1e-12:
            P.add(f"{cp}.c", f"must be within the range of {key!r} in HEC-22 Table 3-1 "
                             f"[{lo:g}, {hi:g}]; got {cv:g}")
            continue
        covers.append({"cover": key, "c": cv, "c_low": lo, "c_high": hi, "area_ac": a})
    has_tc = "tc_hr" in e
    segs_raw = P.tables(e, "tc_segment", path) if "tc_segment" in e else []
    if has_tc and segs_raw:
        P.add(f"{path}.tc_hr", "and tc_segment rows must not both be given; got both. Keep one.")
    elif not has_tc and not segs_raw:
        P.add(f"{path}.tc_hr", "(or [[...tc_segment]] rows) is required; got nothing.")
    tc = P.number(e, "tc_hr", path, lower=0.0, lower_inclusive=False, upper=100.0) \
        if has_tc else None
    segs = []
    for i, s in enumerate(segs_raw):
        seg = _parse_segment(P, s, f"{path}.tc_segment[{i}]", ctx)
        if seg is not None:
            segs.append(seg)
    if len(P.items) > n0:
        return None
    c_method = "given"
    if covers:
        total = sum(r["area_ac"] for r in covers)
        if has_area and not math.isclose(total, area, rel_tol=0.005, abs_tol=1e-4):
            P.add(f"{path}.area_ac", f"must equal the cover areas ({total:.6g} ac) within "
                                     f"0.5 %; got {area:g}. Fix the areas or omit area_ac.")
            return None
        area = area if has_area else total

        c = composite_c([r["c"] for r in covers], [r["area_ac"] for r in covers])
        c_method = "composite of cover rows (C chosen within HEC-22 Table 3-1 ranges)"
    elif area is None:
        P.add(f"{path}.area_ac", "(or area_ft2) is required when c is given; got nothing.")
        return None
    tc_method = "given"
    tc_segments: tuple[TcSegment, ...] = ()
    if segs:
        try:
            tc, times = _segment_travel_times(segs)
        except HydrocalcError as exc:
            P.add(f"{path}.tc_segment", f"travel time could not be computed: "
                                        f"{_msg(exc)}")
            return None
        tc_segments = tuple(TcSegment(**{**s, "travel_time_hr": t})
                            for s, t in zip(segs, times, strict=True))
        tc_method = "segments (TR-55 Ch. 3)"
    # after the problem check above, to, c and tc are set (a missing one is a problem)
    return RationalSubcatchment(id=sid, to=cast(str, to), area_ac=float(area),
                                c=float(cast(float, c)), tc_hr=float(cast(float, tc)),
                                c_method=c_method, covers=tuple(covers),
                                tc_segments=tc_segments, tc_method=tc_method, description=desc)


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
