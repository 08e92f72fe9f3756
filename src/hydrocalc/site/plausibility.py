"""Plausibility of a parsed site: refuse the impossible, warn on the implausible.

:func:`site_checks` runs after every field of a site file has passed its own rule (type,
range, unit): it looks at the site as a whole, the way a reviewer reads a submission, and
returns two lists of one-line messages:

* **problems** (the site is refused): values no real site can have, e.g. a 1e15-acre
  subcatchment, 10^12 identical ponds, an exfiltration rate of 1e6 in/h, design storms whose
  depth falls as the return period rises, a water-quality rainfall larger than the largest
  design storm;
* **warnings** (printed by ``check`` and ``run`` and on the report's warnings page): values
  a real site can have but that are far more often a slip, each naming the limit and the
  ``[checks]`` key that accepts it deliberately.

``[checks]`` in the site file
-----------------------------
``area_tolerance_pct`` (default 1.0)
    How much the pre- and post-development total areas, and the declared and modelled new
    impervious areas, may differ before a warning. [%]
``accept``
    Warning keys accepted deliberately (the warning is then listed as accepted, not
    raised): ``subcatchment_area``, ``exfiltration_rate``, ``pond_count``,
    ``pre_post_area``, ``impervious_cover_row``, ``tc_below_minimum``,
    ``declared_vs_network``, ``impervious_exceeds_disturbed``, ``wqv_precip``,
    ``small_impervious_share`` (impervious area of a subcatchment with cover rows below 1 %
    of it: possibly a share typed as a fraction of the area).

Limits (each a named constant below, documented in ``docs/validation.md``)
------------------------------------------------------------------------------
==============================  ==========================  =============================
Quantity                        refused above               warned above
==============================  ==========================  =============================
subcatchment area               1,000,000 ac                2,000 ac
pond ``count``                  10,000                      1,000
exfiltration ``rate_in_hr``     1,000 in/h                  20 in/h
water-quality rainfall          the largest design storm    the smallest design storm
==============================  ==========================  =============================
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping

from hydrocalc._validate import fmt_value, suggest
from hydrocalc.units import FT2_PER_AC

__all__ = [
    "CHECK_KEYS",
    "ACCEPT_KEYS",
    "IMPERVIOUS_COVER_KEYS",
    "MAX_SUBCATCHMENT_AREA_AC",
    "WARN_SUBCATCHMENT_AREA_AC",
    "WARN_IMPERVIOUS_SHARE_PCT",
    "MAX_POND_COUNT",
    "WARN_POND_COUNT",
    "MAX_EXFILTRATION_IN_HR",
    "WARN_EXFILTRATION_IN_HR",
    "DEFAULT_AREA_TOLERANCE_PCT",
    "parse_checks",
    "site_checks",
    "network_new_impervious_ac",
]


def project_warnings(facts) -> list[str]:
    """Implausible (not impossible) project facts, one line each, with how to silence them.

    ``facts`` is a :class:`~hydrocalc.site.project.ProjectFacts`.

    New impervious area larger than the disturbed area is possible (a cantilevered deck or
    roof over undisturbed ground) but is far more often two areas swapped or a unit slip, and
    it decides whether a SWPPP is required: it is warned, not refused. Silence it with
    ``[checks] accept = ["impervious_exceeds_disturbed"]`` in the site file.
    """
    dist, imp = facts.disturbed_area_ft2, facts.new_impervious_area_ft2
    if dist is not None and imp is not None and imp > dist * (1 + 1e-9):
        return [
            "impervious_exceeds_disturbed: project.new_impervious_area "
            f"({fmt_value(round(imp, 1))} ft2) is larger than project.disturbed_area "
            f"({fmt_value(round(dist, 1))} ft2); new "
            "impervious cover is normally built on disturbed soil. Check both areas and their "
            "units, or accept it with [checks] accept = [\"impervious_exceeds_disturbed\"]"
        ]
    return []


#: Keys of the ``[checks]`` table.
CHECK_KEYS = ("area_tolerance_pct", "accept")
#: Warning keys that ``[checks] accept`` may list.
ACCEPT_KEYS = ("subcatchment_area", "exfiltration_rate", "pond_count", "pre_post_area",
               "impervious_cover_row", "tc_below_minimum", "declared_vs_network",
               "impervious_exceeds_disturbed", "wqv_precip", "small_impervious_share")
#: TR-55 Table 2-2a cover keys that are impervious (CN 98): entered as a cover row they count
#: in the curve number but not in the impervious area that feeds WQv and RRv.
IMPERVIOUS_COVER_KEYS = ("impervious_paved_parking_roofs", "streets_paved_curbs_storm_sewers")

#: Impervious fields below this share of a subcatchment with cover rows are warned (a
#: share typed as a fraction of the area, or an area in the wrong unit). [%]
WARN_IMPERVIOUS_SHARE_PCT = 1.0
#: A subcatchment larger than this is impossible for a site analysis (1,562 square miles). [ac]
MAX_SUBCATCHMENT_AREA_AC = 1_000_000.0
#: A subcatchment larger than this is unusual for a site SWPPP (about 3 square miles). [ac]
WARN_SUBCATCHMENT_AREA_AC = 2_000.0
#: Identical pond units (``count``): above this, impossible; above the warning, implausible.
MAX_POND_COUNT = 10_000
WARN_POND_COUNT = 1_000
#: Exfiltration rate: above 1,000 in/h is no soil; above 20 in/h is faster than clean
#: gravel is designed for. [in/h]
MAX_EXFILTRATION_IN_HR = 1_000.0
WARN_EXFILTRATION_IN_HR = 20.0
#: Default tolerance between pre/post total areas and declared/modelled impervious areas. [%]
DEFAULT_AREA_TOLERANCE_PCT = 1.0

_RP_RE = re.compile(r"^(\d+(?:\.\d+)?)\s*-?\s*(?:yr|year|years|y)$", re.IGNORECASE)


def parse_checks(P, m, errors, doc) -> dict:
    """``[checks]``, whose keys the declared model has checked (``errors``, recorded on ``P``).

    Returns ``{"area_tolerance_pct", "accept"}``, the defaults for a table at fault.
    """
    keys = [e for e in errors if e.error.get("type") == "literal_error"
            and all(isinstance(k, str) for k in e.value)]
    for k in (k for e in keys for k in e.value if k not in ACCEPT_KEYS):  # each, with a hint
        P.add("checks.accept", f"lists an unknown warning key {k[:40]!r}"
                               f"{suggest(k, ACCEPT_KEYS)} Valid: {', '.join(ACCEPT_KEYS)}")
    P.declared([e for e in errors if e not in keys], doc)
    m = m if isinstance(m, Mapping) and not errors else {}
    return {"area_tolerance_pct": float(m.get("area_tolerance_pct", DEFAULT_AREA_TOLERANCE_PCT)),
            "accept": tuple(m.get("accept", ()))}


def _return_period(name: str) -> float | None:
    m = _RP_RE.match(str(name).strip())
    return float(m.group(1)) if m else None


def network_new_impervious_ac(site) -> tuple[float, float, float]:
    """``(pre_ac, post_ac, post - pre)``: impervious area of each scenario's network [ac].

    Counts the impervious fields of every subcatchment and the cover rows whose TR-55 key is
    impervious (:data:`IMPERVIOUS_COVER_KEYS`).
    """
    def total(sc) -> float:
        imp = 0.0
        for s in sc.subcatchments:
            imp += s.impervious_ac
            imp += sum(c.area_ac for c in s.covers if c.cover in IMPERVIOUS_COVER_KEYS)
        return imp

    pre, post = total(site.pre), total(site.post)
    return pre, post, post - pre


def site_checks(site, checks: Mapping | None = None) -> tuple[list[str], list[str]]:
    """Problems (impossible values) and warnings (implausible values) of a parsed site.

    Parameters
    ----------
    site : hydrocalc.site.Site
    checks : mapping, optional
        The parsed ``[checks]`` table (:func:`parse_checks`).

    Returns
    -------
    problems, warnings : list of str
        One line each, without the file-name prefix. A warning names its key, the limit and
        how to accept it.
    """
    checks = dict(checks or {})
    tol = float(checks.get("area_tolerance_pct", DEFAULT_AREA_TOLERANCE_PCT))
    accept = set(checks.get("accept", ()))
    problems: list[str] = []
    warnings: list[str] = []

    def warn(key: str, text: str) -> None:
        if key in accept:
            return
        warnings.append(f"{key}: {text}. If this is deliberate, add \"{key}\" to "
                        "[checks] accept")

    _network_checks(site, problems, warn)
    _storm_checks(site, problems, warn)
    _area_checks(site, tol, warn)
    try:
        for line in project_warnings(site.project):
            key = line.split(":", 1)[0]
            if key not in accept:
                warnings.append(line)
    except (ImportError, AttributeError):  # pragma: no cover - facts not a ProjectFacts
        pass
    return problems, warnings


def _network_checks(site, problems: list[str], warn: Callable[[str, str], None]) -> None:
    """Subcatchment and pond checks of :func:`site_checks` (appends to ``problems``, warns)."""
    # -- subcatchments ---------------------------------------------------------------------
    for sc in site.scenarios.values():
        for r in sc.rational:  # the rational method's areas too (they are summed into flows)
            if r.area_ac > MAX_SUBCATCHMENT_AREA_AC:
                problems.append(
                    f"{sc.name}.subcatchment[{r.id}].area_ac must be <= "
                    f"{MAX_SUBCATCHMENT_AREA_AC:,.0f} ac (no site analysis covers more); got "
                    f"{fmt_value(r.area_ac)}. Check the units (area_ft2 for square feet)")
        for s in sc.subcatchments:
            where = f"{sc.name}.subcatchment[{s.id}]"
            if s.area_ac > MAX_SUBCATCHMENT_AREA_AC:
                problems.append(
                    f"{where}.area_ac must be <= {MAX_SUBCATCHMENT_AREA_AC:,.0f} ac (no site "
                    f"analysis covers more); got {fmt_value(s.area_ac)}. Check the units "
                    "(area_ft2 for square feet)")
            elif s.area_ac > WARN_SUBCATCHMENT_AREA_AC:
                warn("subcatchment_area",
                     f"{where} is {s.area_ac:,.0f} ac, above {WARN_SUBCATCHMENT_AREA_AC:,.0f} ac "
                     "(unusual for a site SWPPP; check the units)")
            rows = [c for c in s.covers if c.cover in IMPERVIOUS_COVER_KEYS]
            if rows and s.impervious_ac == 0.0:
                area = sum(c.area_ac for c in rows)
                warn("impervious_cover_row",
                     f"{where} enters {fmt_value(round(area, 4))} ac of impervious cover as a "
                     f"cover row ({rows[0].cover}); it counts in the curve number but not in "
                     "the impervious area that feeds WQv and RRv. Enter it as "
                     "impervious_connected_ac / impervious_unconnected_ac instead")
            if s.covers and 0.0 < s.impervious_pct < WARN_IMPERVIOUS_SHARE_PCT:
                warn("small_impervious_share",
                     f"{where} impervious area is {s.impervious_pct:.2g} % of the subcatchment "
                     f"({fmt_value(round(s.impervious_ac, 6))} of "
                     f"{fmt_value(round(s.area_ac, 6))} ac), below "
                     f"{fmt_value(WARN_IMPERVIOUS_SHARE_PCT)} %; check the units of "
                     "impervious_connected / "
                     "impervious_unconnected (a share entered as a fraction of the area is far "
                     "too small)")
            if s.tc_hr < 0.1 - 1e-12:
                warn("tc_below_minimum",
                     f"{where} Tc is {fmt_value(round(s.tc_hr, 4))} h, below the 0.1 h minimum "
                     "(TR-20, NEH 630 Ch. 16): the hydrographs use 0.1 h while the tables print "
                     "the Tc as computed")
        for p in sc.ponds:
            where = f"{sc.name}.pond[{p.id}]"
            count = int(getattr(p, "count", 1) or 1)
            if count > MAX_POND_COUNT:
                problems.append(f"{where}.count must be <= {MAX_POND_COUNT:,} identical units; "
                                f"got {count:,}")
            elif count > WARN_POND_COUNT:
                warn("pond_count", f"{where} has {count:,} identical units (above "
                                   f"{WARN_POND_COUNT:,})")
            for i, (spec, kind) in enumerate(zip(getattr(p, "outlet_spec", ()),
                                                 getattr(p, "outlet_types", ()), strict=False)):
                if kind != "exfiltration" or not isinstance(spec, Mapping):
                    continue
                rate = spec.get("rate_in_hr")
                if not isinstance(rate, int | float) or isinstance(rate, bool):
                    continue
                label = spec.get("id", i)
                if rate > MAX_EXFILTRATION_IN_HR:
                    problems.append(
                        f"{where}.outlet[{label}].rate_in_hr must be <= "
                        f"{fmt_value(MAX_EXFILTRATION_IN_HR)} in/h (no soil drains faster); got "
                        f"{fmt_value(rate)}")
                elif rate > WARN_EXFILTRATION_IN_HR:
                    warn("exfiltration_rate",
                         f"{where}.outlet[{label}].rate_in_hr is {fmt_value(rate)} in/h, above "
                         f"{fmt_value(WARN_EXFILTRATION_IN_HR)} in/h (faster than clean gravel "
                         "is designed for; use a tested rate with its safety factor)")


def _storm_checks(site, problems: list[str], warn: Callable[[str, str], None]) -> None:
    """Design-storm and water-quality rainfall checks of :func:`site_checks`."""
    # -- design storms and the water-quality rainfall -----------------------------------------
    storms = site.storms
    by_rp = sorted((rp, name, float(d)) for name, d in storms.depths_in.items()
                   if (rp := _return_period(name)) is not None)
    for (rp_a, na, da), (rp_b, nb, db) in zip(by_rp, by_rp[1:], strict=False):
        if rp_b > rp_a and db < da - 1e-9:
            problems.append(
                f"storms.depths_in.{nb} must be >= storms.depths_in.{na} (a rarer storm is never "
                f"smaller); got {fmt_value(db)} in < {fmt_value(da)} in. Check the depths")
            break
    wqv = getattr(storms, "wqv_precip_in", None)
    if wqv is not None and by_rp:
        rp_max, n_max, d_max = max(by_rp)
        rp_min, n_min, d_min = min(by_rp)
        if wqv > d_max and rp_max >= 10:
            problems.append(
                f"storms.wqv_precip_in must be <= the {n_max} storm ({fmt_value(d_max)} in): the "
                f"90 % rainfall event is far smaller than any design storm; got {fmt_value(wqv)}")
        elif wqv > d_min:
            warn("wqv_precip",
                 f"storms.wqv_precip_in ({fmt_value(wqv)} in) is larger than the {n_min} storm "
                 f"({fmt_value(d_min)} in); the 90 % rainfall (SMDM Fig. 4.1) is normally about "
                 "1 in in New York")


def _area_checks(site, tol: float, warn: Callable[[str, str], None]) -> None:
    """Pre/post total areas and declared facts vs the network, for :func:`site_checks`."""
    # -- engineers' slips: pre/post total areas ----------------------------------------------
    a_pre, a_post = site.pre.area_ac, site.post.area_ac
    if a_pre > 0 and abs(a_post - a_pre) > tol / 100.0 * max(a_pre, a_post):
        warn("pre_post_area",
             f"the pre-development total area ({fmt_value(round(a_pre, 4))} ac) and the "
             f"post-development total area ({fmt_value(round(a_post, 4))} ac) differ by "
             f"{abs(a_post - a_pre) / a_pre * 100:.1f} %, more than checks.area_tolerance_pct "
             f"= {fmt_value(tol)} %; a comparison of peaks needs the same land. Check the areas")

    # -- declared facts vs the network -------------------------------------------------------
    facts = site.project
    declared = getattr(facts, "new_impervious_area_ft2", None)
    if declared is not None:
        pre_i, post_i, added = network_new_impervious_ac(site)
        added_ft2 = added * FT2_PER_AC
        slack = max(tol / 100.0 * max(abs(added_ft2), declared), 100.0)
        if abs(added_ft2 - declared) > slack:
            warn("declared_vs_network",
                 f"project.new_impervious_area ({declared:,.0f} ft2) differs from the "
                 f"impervious area the pre/post networks add ({added_ft2:,.0f} ft2: "
                 f"{pre_i * FT2_PER_AC:,.0f} -> {post_i * FT2_PER_AC:,.0f} ft2); whether a "
                 "SWPPP is required is decided from the declared value. Correct the "
                 "declaration or the network")
        dist = getattr(facts, "disturbed_area_ft2", None)
        if dist is not None and added_ft2 > dist * (1 + tol / 100.0) + 100.0:
            warn("declared_vs_network",
                 f"the pre/post networks add {added_ft2:,.0f} ft2 of impervious area, more "
                 f"than project.disturbed_area ({dist:,.0f} ft2). Correct the declaration or "
                 "the network")


def _finite(x) -> bool:
    return isinstance(x, int | float) and math.isfinite(x)
