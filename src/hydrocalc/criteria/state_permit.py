r"""New York State construction stormwater permit: is coverage needed, and the 5-acre limit.

Besides the local law's SWPPP (:func:`hydrocalc.criteria.regulations.assess`), a New York
construction project may need coverage under the NYSDEC SPDES General Permit for Stormwater
Discharges from Construction Activity (the construction general permit, CGP) [1]_. The rules
applied here, each quoted with its public source in ``hydrocalc/data/regulations/nys_cgp.toml``
(:func:`load_permit_rules`):

* **coverage**: soil disturbance of one acre or more [1]_; or less than one acre that is
  part of a larger common plan of development or sale that disturbs one acre or more (the
  clause as restated by the local laws [3]_; the permit's own wording was not read); in the
  New York City East-of-Hudson watershed, disturbance of more than 5,000 sq ft [1]_; under
  GP-0-25-001 within New York City, disturbance of 20,000 sq ft or more, or 5,000 sq ft or
  more of new impervious area (secondary summaries of the permit [4]_);
* **soil disturbed at one time**: "shall not disturb greater than five (5) acres of soil at
  any one time without prior written authorization from the Department" (GP-0-15-002 Part
  II.C.3 [2]_). Applied to a later edition, the quote is flagged as not verified for it.
  Under GP-0-25-001 the written approval is recorded with its reference *and* date
  (``written_authorization``, ``written_authorization_date``); without both, a plan that
  disturbs more than five acres at once fails the item.

A GP-0-25-001 project cannot start before the permit took effect (January 29, 2025):
:func:`start_date_problem` is the one-line bad-input message.

The engineer names the permit edition (``project.state_permit.edition``: ``GP-0-15-002``,
``GP-0-20-001`` or ``GP-0-25-001``); hydrocalc never assumes one. When coverage is needed and
no edition is named, the finding says so and lists it among the values to confirm.

Site-file fields (``[project.state_permit]``)
---------------------------------------------
=================================  =====  ==================================================
key                                unit   meaning
=================================  =====  ==================================================
``edition``                        -      permit edition the project is covered under
``max_disturbed_at_one_time_ac``   ac     largest area of soil disturbed at any one time in
                                          the construction plan (phasing)
``written_authorization``          -      reference of the Department's prior written
                                          authorization to disturb more than 5 acres at once
``written_authorization_date``     -      date of that authorization (TOML date; required
                                          with it under GP-0-25-001)
``nyc_east_of_hudson_watershed``   -      true/false: site in the NYC East-of-Hudson
                                          watershed (lower threshold); omitted = unknown
``within_new_york_city``           -      true/false: site within New York City (the
                                          GP-0-25-001 thresholds); omitted = unknown
=================================  =====  ==================================================

References
----------
.. [1] NYSDEC, "Stormwater Permit For Construction Activity," web page,
   https://dec.ny.gov/environmental-protection/water/water-quality/stormwater/construction-activity-permit
.. [2] NYSDEC, SPDES General Permit for Stormwater Discharges from Construction Activity,
   GP-0-15-002 (2015), Part II.C.3.
.. [3] Town of Shelter Island Code, Chapter 110, section 110-34 (definition of land
   development activity).
.. [4] Core Environmental, "New York Stormwater Compliance 2025 Guide," web page,
   https://coreenv.com/new-york-stormwater-compliance-2025-guide (secondary).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import functools
import tomllib
from importlib.resources import files
from typing import cast

from hydrocalc._validate import fmt_value, iso_date

__all__ = ["StatePermitPlan", "load_permit_rules", "permit_editions", "parse_state_permit",
           "assess_state_permit", "start_date_problem"]

_KEYS = ("edition", "max_disturbed_at_one_time_ac", "written_authorization",
         "written_authorization_date", "nyc_east_of_hudson_watershed", "within_new_york_city")
_EPS = 1e-9


@dataclasses.dataclass(frozen=True)
class StatePermitPlan:
    """``[project.state_permit]``: the permit edition and the construction plan's phasing."""

    edition: str | None = None
    max_disturbed_at_one_time_ac: float | None = None
    written_authorization: str = ""
    nyc_east_of_hudson_watershed: bool | None = None
    written_authorization_date: _dt.date | None = None
    within_new_york_city: bool | None = None


@functools.cache
def load_permit_rules() -> dict:
    """The permit rules, quotes and sources shipped in ``data/regulations/nys_cgp.toml``."""
    text = files("hydrocalc.data").joinpath("regulations", "nys_cgp.toml").read_text(
        encoding="utf-8")
    return tomllib.loads(text)


def permit_editions() -> tuple[str, ...]:
    """Permit edition ids known to hydrocalc (e.g. ``"GP-0-20-001"``)."""
    return tuple(e["id"] for e in load_permit_rules()["edition"])


def parse_state_permit(col, mapping, prefix: str, bad=frozenset()) -> StatePermitPlan | None:
    """Parse ``[project.state_permit]`` with a :mod:`hydrocalc.site.project` collector.

    Its keys were checked by the site file's declared model (``bad``: the keys at fault, their
    problems recorded; a ``mapping`` that is not a table is recorded there too); the rules
    between keys are checked here. Every problem is one line appended to ``col.problems``;
    returns None when any.
    """
    n0 = len(col.problems)
    if not isinstance(mapping, dict):
        return None

    def given(key: str):
        return mapping.get(key) if key not in bad else None

    auth_date = given("written_authorization_date")
    if auth_date is not None and not (given("written_authorization") or "").strip():
        col.add(f"{prefix}.written_authorization_date",
                "needs project.state_permit.written_authorization (the reference of the "
                f"Department's written authorization); got a date ({auth_date}) without it")
    if given("nyc_east_of_hudson_watershed") is True and given("within_new_york_city") is True:
        col.add(f"{prefix}.within_new_york_city", "and nyc_east_of_hudson_watershed cannot "
                "both be true (the East-of-Hudson watershed lies outside the city); got both")
    if bad or len(col.problems) > n0:
        return None
    return _plan(mapping)


def _plan(mapping: dict) -> StatePermitPlan:
    """The plan of a valid ``[project.state_permit]`` table."""
    most = mapping.get("max_disturbed_at_one_time_ac")
    return StatePermitPlan(edition=mapping.get("edition"),
                           max_disturbed_at_one_time_ac=None if most is None else float(most),
                           written_authorization=(mapping.get("written_authorization")
                                                  or "").strip(),
                           nyc_east_of_hudson_watershed=mapping.get("nyc_east_of_hudson_watershed"),
                           written_authorization_date=iso_date(
                               mapping.get("written_authorization_date")),
                           within_new_york_city=mapping.get("within_new_york_city"))


def start_date_problem(edition: str | None, start_date) -> str | None:
    """The bad-input line when construction starts before the named permit took effect.

    Parameters
    ----------
    edition : str or None
        ``project.state_permit.edition``.
    start_date : datetime.date or None
        ``construction.start_date``.

    Returns
    -------
    str or None
        ``"construction.start_date must be on or after ..."`` (no file prefix) for a
        GP-0-25-001 project starting before January 29, 2025; None otherwise.

    Examples
    --------
    >>> import datetime
    >>> start_date_problem("GP-0-25-001", datetime.date(2024, 11, 1)).startswith(
    ...     "construction.start_date must be on or after 2025-01-29")
    True
    >>> start_date_problem("GP-0-25-001", datetime.date(2025, 3, 1)) is None
    True
    """
    if edition != "GP-0-25-001" or start_date is None:
        return None
    ed = cast(dict, _edition(load_permit_rules(), edition))  # a shipped edition
    effective = _dt.date.fromisoformat(ed["effective"])
    if start_date >= effective:
        return None
    return (f"construction.start_date must be on or after {effective.isoformat()}, when "
            f"{edition} (project.state_permit.edition) took effect; got "
            f"{start_date.isoformat()}. A project that started earlier was covered under the "
            "permit then in force (GP-0-20-001): correct the start date or the edition")


def _edition(rules: dict, key: str | None) -> dict | None:
    for e in rules["edition"]:
        if e["id"] == key:
            return e
    return None


def _small_site_coverage(cov: dict, plan: StatePermitPlan, facts, reasons: list[str],
                         confirm: list[dict]) -> bool | None:
    """Coverage of a site disturbing less than one acre, not part of a larger common plan.

    Applies the NYC East-of-Hudson watershed threshold and (GP-0-25-001) the New York City ones.

    Appends the reasons (and a "Values to confirm" row for an unverified rule applied);
    returns True, False or None (a deciding fact is unknown).
    """
    ac, ft2 = float(facts.disturbed_area_ac), float(facts.disturbed_area_ft2)
    imp_ft2 = float(getattr(facts, "new_impervious_area_ft2", None) or 0.0)
    decisions: list[bool | None] = []
    eoh = cov["nyc_east_of_hudson"]
    limit_ft2 = float(eoh["disturbed_area_ft2_more_than"])
    # the East-of-Hudson watershed lies outside the city: a site within it is not in it
    in_eoh = False if plan.within_new_york_city is True else plan.nyc_east_of_hudson_watershed
    if ft2 > limit_ft2 * (1 + _EPS):
        if in_eoh is True:
            decisions.append(True)
            reasons.append(f"disturbs {ft2:,.0f} sq ft in the NYC East-of-Hudson "
                           f"watershed: \"{eoh['quote']}\" ({eoh['source']})")
        elif in_eoh is None:
            decisions.append(None)
            reasons.append(f"disturbs {ft2:,.0f} sq ft: less than one acre, but more than "
                           f"{limit_ft2:,.0f} sq ft, the threshold in the NYC East-of-Hudson "
                           "watershed; set project.state_permit.nyc_east_of_hudson_watershed "
                           "(true or false) to decide")
    nyc = cov["new_york_city"]
    nyc_dist, nyc_imp = (float(nyc["disturbed_area_ft2_at_least"]),
                         float(nyc["new_impervious_area_ft2_at_least"]))
    over = [f"{ft2:,.0f} sq ft disturbed (at least {nyc_dist:,.0f})"
            if ft2 >= nyc_dist * (1 - _EPS) else "",
            f"{imp_ft2:,.0f} sq ft of new impervious area (at least {nyc_imp:,.0f})"
            if imp_ft2 >= nyc_imp * (1 - _EPS) else ""]
    over = [o for o in over if o]
    applies = plan.edition in nyc["editions"] or plan.edition is None
    if over and applies and plan.within_new_york_city is not False:
        named = f"{', '.join(nyc['editions'])} New York City thresholds"
        if plan.within_new_york_city is True and plan.edition is not None:
            decisions.append(True)
            reasons.append(f"within New York City, {' and '.join(over)}: \"{nyc['quote']}\" "
                           f"({nyc['source']})")
            if not nyc["verified"]:
                confirm.append(dict(key="state_permit_new_york_city",
                                    name=f"state permit: {named}",
                                    value=f"{nyc_dist:,.0f} sq ft disturbed or {nyc_imp:,.0f} "
                                          "sq ft new impervious", units="ft2",
                                    source=nyc["source"], verified=False))
        else:
            decisions.append(None)
            need = ("set project.state_permit.within_new_york_city (true or false)"
                    if plan.within_new_york_city is None else
                    "name the permit edition (project.state_permit.edition)")
            reasons.append(f"{' and '.join(over)}: the {named} may apply; {need} to decide")
    if True in decisions:
        return True
    if None in decisions:
        return None
    nyc_out = "; outside New York City" if plan.within_new_york_city is False and over else ""
    if ft2 > limit_ft2 * (1 + _EPS) and plan.nyc_east_of_hudson_watershed is False:
        reasons.append(f"disturbs {fmt_value(ac)} ac ({ft2:,.0f} sq ft), less than one "
                       "acre, not part of a larger common plan, outside the NYC "
                       f"East-of-Hudson watershed{nyc_out}")
    else:
        reasons.append(f"disturbs {fmt_value(ac)} ac ({ft2:,.0f} sq ft): less than one acre "
                       f"and not part of a larger common plan of development or sale{nyc_out}")
    return False


def _coverage_required(cov: dict, plan: StatePermitPlan, facts, ac: float,
                       reasons: list[str], confirm: list[dict]) -> bool | None:
    """Whether permit coverage is needed (None: depends on an unknown fact); appends why."""
    one_ac = float(cov["disturbed_area_ac_at_least"])
    if ac >= one_ac * (1 - _EPS):
        reasons.append(f"disturbs {fmt_value(ac)} ac, one acre or more: \"{cov['quote']}\" "
                       f"({cov['source']})")
        return True
    if facts.part_of_larger_common_plan and ac > 0:
        lcp = cov["larger_common_plan"]
        reasons.append(f"disturbs {fmt_value(ac)} ac, less than one acre, as part of a larger "
                       f"common plan of development or sale: \"{lcp['quote']}\" "
                       f"({lcp['source']})")
        confirm.append(dict(key="state_permit_larger_common_plan",
                            name="state permit: larger-common-plan clause", value=one_ac,
                            units="ac", source=lcp["source"], verified=bool(lcp["verified"])))
        return True
    return _small_site_coverage(cov, plan, facts, reasons, confirm)


def _edition_note(rules: dict, plan: StatePermitPlan, required: bool | None,
                  confirm: list[dict]) -> str:
    """The permit edition named (or not) and its dates; appends what to confirm."""
    # Read only when plan.edition is named: a known edition (parse_state_permit).
    ed = cast(dict, _edition(rules, plan.edition))
    if plan.edition is None:
        edition_note = ("no permit edition named: set project.state_permit.edition "
                        f"({', '.join(permit_editions())})")
        if required is not False:
            confirm.append(dict(key="state_permit_edition", name="state permit edition",
                                value=None, units="",
                                source="not named in the site file", verified=False))
    else:
        checked = "verified" if ed["verified"] else "NOT verified"
        edition_note = (f"{ed['id']}, effective {ed['effective']} to {ed['expires']} "
                        f"({ed['source']}; dates {checked})")
        if not ed["verified"]:
            confirm.append(dict(key="state_permit_edition_dates",
                                name=f"state permit edition {ed['id']} dates",
                                value=f"{ed['effective']} to {ed['expires']}", units="",
                                source=ed["source"], verified=False))
    return edition_note


def _disturbance_check(lim: dict, plan: StatePermitPlan, required: bool | None, ac: float,
                       basis: str) -> tuple[bool | None, str]:
    """Soil disturbed at one time against the limit: passed (None: not checked), reason."""
    limit_ac = float(lim["max_disturbed_at_one_time_ac"])
    most = plan.max_disturbed_at_one_time_ac
    at_once = most if most is not None else ac
    if required is False:
        passed, reason = None, "not applicable: no state permit coverage is needed"
    elif at_once <= limit_ac * (1 + _EPS):
        passed = True
        reason = f"{basis}, {fmt_value(at_once)} ac, is within {fmt_value(limit_ac)} ac"
    elif plan.edition in lim["approval_record_editions"] and not (
            plan.written_authorization and plan.written_authorization_date):
        passed = False
        missing = " and ".join(
            k for k, v in (("written_authorization (its reference)", plan.written_authorization),
                           ("written_authorization_date", plan.written_authorization_date))
            if not v)
        reason = (f"{basis}, {fmt_value(at_once)} ac, exceeds {fmt_value(limit_ac)} ac: under "
                  f"{plan.edition} the Department's written approval to disturb more than "
                  f"{fmt_value(limit_ac)} acres at once is recorded with its date and reference "
                  f"(\"{lim['approval_quote']}\", {lim['approval_source']}); set "
                  f"project.state_permit.{missing}, or phase the work")
    elif plan.written_authorization:
        passed = True
        dated = (f" of {plan.written_authorization_date.isoformat()}"
                 if plan.written_authorization_date else "")
        reason = (f"{basis}, {fmt_value(at_once)} ac, exceeds {fmt_value(limit_ac)} ac under the "
                  f"Department's prior written authorization{dated}: "
                  f"{plan.written_authorization}")
    elif most is None:
        passed = None
        reason = (f"the project disturbs {fmt_value(ac)} ac in total: give "
                  "project.state_permit.max_disturbed_at_one_time_ac (the phasing) to check "
                  f"the {fmt_value(limit_ac)}-acre limit")
    else:
        passed = False
        reason = (f"{basis}, {fmt_value(at_once)} ac, exceeds {fmt_value(limit_ac)} ac without "
                  "prior written authorization (set project.state_permit.written_authorization "
                  "or phase the work)")
    return passed, reason


def assess_state_permit(facts) -> dict:
    """Whether NYS construction-permit coverage is needed and the phasing respects 5 acres.

    Parameters
    ----------
    facts : hydrocalc.site.project.ProjectFacts
        ``disturbed_area_ac``/``_ft2``, ``part_of_larger_common_plan`` and ``state_permit``
        (a :class:`StatePermitPlan` or None).

    Returns
    -------
    dict
        ``coverage_required`` (True, False, or None when it depends on an unknown fact),
        ``coverage_reasons`` (each with its quote's source), ``edition`` (named or None),
        ``edition_note``, ``disturbance_limit`` (``limit_ac``, ``max_disturbed_at_one_time_ac``,
        ``passed`` True/False/None, ``reason``, ``quote``, ``source``,
        ``verified_for_edition``), ``values_to_confirm`` (rows ``key, name, value,
        units, source, verified``) and ``notes``.
    """
    rules = load_permit_rules()
    cov = rules["coverage"]
    plan = getattr(facts, "state_permit", None) or StatePermitPlan()
    ac = float(facts.disturbed_area_ac)
    reasons: list[str] = []
    confirm: list[dict] = []
    notes: list[str] = []
    required = _coverage_required(cov, plan, facts, ac, reasons, confirm)

    # edition
    edition_note = _edition_note(rules, plan, required, confirm)

    # soil disturbed at one time
    lim = rules["disturbance_limit"]
    limit_ac = float(lim["max_disturbed_at_one_time_ac"])
    verified_for = plan.edition is not None and plan.edition in lim["verified_editions"]
    most = plan.max_disturbed_at_one_time_ac
    if most is not None and most > ac * (1 + _EPS):
        notes.append(f"project.state_permit.max_disturbed_at_one_time_ac "
                     f"({fmt_value(most)} ac) exceeds the total disturbed area "
                     f"({fmt_value(ac)} ac)")
    basis = ("the construction plan's largest area disturbed at one time"
             if most is not None else "the total disturbed area (no phasing given)")
    passed, reason = _disturbance_check(lim, plan, required, ac, basis)
    if required is not False and not verified_for:
        confirm.append(dict(
            key="state_permit_disturbance_limit",
            name="state permit: soil disturbed at one time without written authorization",
            value=limit_ac, units="ac",
            source=f"{lim['source']}; quoted from {', '.join(lim['verified_editions'])}, not "
                   f"verified for {plan.edition or 'the (unnamed) edition'}",
            verified=False))
    return {
        "permit": rules["name"],
        "coverage_required": required,
        "coverage_reasons": reasons,
        "edition": plan.edition,
        "edition_note": edition_note,
        "disturbance_limit": {
            "limit_ac": limit_ac,
            "max_disturbed_at_one_time_ac": most,
            "basis": basis,
            "written_authorization": plan.written_authorization,
            "written_authorization_date": (plan.written_authorization_date.isoformat()
                                           if plan.written_authorization_date else None),
            "passed": passed,
            "reason": reason,
            "quote": lim["quote"],
            "source": lim["source"],
            "verified_for_edition": verified_for,
        },
        "values_to_confirm": confirm,
        "notes": notes,
    }


def summary_lines(result: dict) -> list[str]:
    """Human-readable lines of :func:`assess_state_permit`'s result."""
    yn = {True: "yes", False: "no", None: "undetermined"}
    status = {True: "meets", False: "EXCEEDS", None: "not checked"}
    lim = result["disturbance_limit"]
    return [
        f"NYS SPDES construction permit coverage required: {yn[result['coverage_required']]} - "
        + "; ".join(result["coverage_reasons"]),
        f"permit edition: {result['edition_note']}",
        f"soil disturbed at one time (limit {fmt_value(lim['limit_ac'])} ac without prior "
        f"written authorization): {status[lim['passed']]} - {lim['reason']}",
    ]
