"""Local stormwater laws as data: applicability, exemptions, conditions and SWPPP checklists.

One profile per municipality lives in ``hydrocalc/data/regulations/<key>.toml`` (TOML, so the
table-manifest test does not treat it as a transcribed CSV). Every rule in a profile cites its
section and quotes a short verbatim anchor from the law. :func:`assess` applies a profile to
:class:`hydrocalc.site.project.ProjectFacts` and returns an :class:`Assessment`: whether a SWPPP is
required and why, which conditions are met, whether post-construction controls and qualified
inspections are required, the SWPPP content checklist (which items hydrocalc produces and in
which report section, which the preparer supplies), and the certification and recordkeeping
duties.

Profiles shipped
----------------
``shelter_island``
    Town of Shelter Island Code ch. 110 art. II (L.L. 5-2011), sections 110-31 to 110-41 [1]_.
``pelham``
    Village of Pelham Code ch. 83 (L.L. 1-2008) [2]_. Section numbers after 83-8 are not known
    from the published text; those provisions are cited by chapter (``inferred = true``).
``nys_generic``
    Generic New York State: only the one-acre threshold of the SPDES construction general
    permit is verified (through the permit definition quoted in both laws); post-construction
    controls, inspections and cleanout are *undetermined* (``None``) [3]_.

Threshold comparisons
---------------------
Areas are compared in the unit the law states (acres for Shelter Island, square feet for
Pelham), with a relative tolerance of 1e-9 that only absorbs floating-point unit conversion
(``2000 / 43560 * 43560 == 1999.9999999999998``): exactly 1 acre *is* "one acre or more",
exactly 1,000 sq ft is *not* "more than 1,000 square feet".

Symbols
-------
=============================  =============================================  ====
Name                           Meaning                                        Unit
=============================  =============================================  ====
``disturbed_area_ac``          land disturbance of the project                ac
``disturbed_area_ft2``         same, in square feet                           ft2
``new_impervious_area_ft2``    new impervious surface                         ft2
``storm_threshold_in``         daily rainfall that triggers an inspection     in
``interval_days``              routine inspection interval                    d
=============================  =============================================  ====

References
----------
.. [1] Town of Shelter Island, Code Chapter 110, Article II, Stormwater Management and Erosion
   and Sediment Control, L.L. No. 5-2011.
.. [2] Village of Pelham, Code Chapter 83, Stormwater Management and Erosion and Sediment
   Control Local Law, L.L. No. 1-2008.
.. [3] NYSDEC, SPDES General Permit for Stormwater Discharges from Construction Activity
   (GP-0-25-001); see docs/provenance.md.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

import pandas as pd

from hydrocalc import display
from hydrocalc._validate import fmt_value
from hydrocalc.criteria.profiles import (  # noqa: F401 (re-exported: public addresses)
    APPLIES,
    PREDICATE_NAMES,
    PROFILE_KEYS,
    REPORT_SECTIONS,
    ChecklistItem,
    Condition,
    Exemption,
    NoticeMilestone,
    RegulationProfile,
    Rule,
    citation,
    list_profiles,
    load_profile,
)
from hydrocalc.criteria.state_permit import assess_state_permit, summary_lines
from hydrocalc.errors import InputError
from hydrocalc.site.project import (  # the one upward import: pyproject [tool.importlinter]
    ProjectFacts,
    parse_project,
)

__all__ = [
    "PROFILE_KEYS",
    "REPORT_SECTIONS",
    "Rule",
    "Exemption",
    "Condition",
    "ChecklistItem",
    "NoticeMilestone",
    "RegulationProfile",
    "Assessment",
    "list_profiles",
    "load_profile",
    "assess",
]

#: Relative tolerance of area comparisons (absorbs floating-point unit conversion only).
_EPS = 1e-9


# ----------------------------------------------------------------------------------------
# predicates over ProjectFacts: each returns (met, description)


def _ge(x: float, v: float) -> bool:
    return x >= v - _EPS * max(1.0, abs(v))


def _gt(x: float, v: float) -> bool:
    return x > v + _EPS * max(1.0, abs(v))


def _lt(x: float, v: float) -> bool:
    return x < v - _EPS * max(1.0, abs(v))


def _area(v: float, unit: str) -> str:
    return f"{v:,.4g} {unit}" if v < 1000 else f"{v:,.0f} {unit}"


def _p_ac_at_least(f, v):
    ok = _ge(f.disturbed_area_ac, v)
    rel = "is at least" if ok else "is less than"
    return ok, f"disturbed area {_area(f.disturbed_area_ac, 'ac')} {rel} {fmt_value(v)} ac"


def _p_ac_more_than(f, v):
    ok = _gt(f.disturbed_area_ac, v)
    rel = "is more than" if ok else "is not more than"
    return ok, f"disturbed area {_area(f.disturbed_area_ac, 'ac')} {rel} {fmt_value(v)} ac"


def _p_ac_less_than(f, v):
    ok = _lt(f.disturbed_area_ac, v)
    rel = "is less than" if ok else "is not less than"
    return ok, f"disturbed area {_area(f.disturbed_area_ac, 'ac')} {rel} {fmt_value(v)} ac"


def _p_ft2_at_least(f, v):
    ok = _ge(f.disturbed_area_ft2, v)
    rel = "is at least" if ok else "is less than"
    return ok, f"disturbed area {_area(f.disturbed_area_ft2, 'sq ft')} {rel} {v:,.0f} sq ft"


def _p_ft2_less_than(f, v):
    ok = _lt(f.disturbed_area_ft2, v)
    rel = "is less than" if ok else "is not less than"
    return ok, f"disturbed area {_area(f.disturbed_area_ft2, 'sq ft')} {rel} {v:,.0f} sq ft"


def _p_imp_more_than(f, v):
    ok = _gt(f.new_impervious_area_ft2, v)
    rel = "is more than" if ok else "is not more than"
    return ok, (
        f"new impervious area {_area(f.new_impervious_area_ft2, 'sq ft')} {rel} {v:,.0f} sq ft"
    )


def _p_impaired(f, v):
    ok = f.drains_to_impaired_water == bool(v)
    what = f.impairment or f.receiving_water
    if f.drains_to_impaired_water:
        return ok, f"drains to a 303(d)-listed or TMDL water ({what})"
    return ok, f"does not drain to a 303(d)-listed or TMDL water ({f.receiving_water})"


def _p_larger_plan(f, v):
    ok = f.part_of_larger_common_plan == bool(v)
    if f.part_of_larger_common_plan:
        return ok, "is part of a larger common plan of development or sale"
    return ok, "is not part of a larger common plan of development or sale"


def _p_type_not_in(f, v):
    ok = f.project_type not in v
    if ok:
        return ok, f"project type {f.project_type!r} is not excluded ({', '.join(v)})"
    return ok, f"project type {f.project_type!r} is excluded"


def _p_type_in(f, v):
    ok = f.project_type in v
    return ok, f"project type {f.project_type!r} {'is' if ok else 'is not'} in {', '.join(v)}"


_PREDICATES = {
    "disturbed_area_ac_at_least": _p_ac_at_least,
    "disturbed_area_ac_more_than": _p_ac_more_than,
    "disturbed_area_ac_less_than": _p_ac_less_than,
    "disturbed_area_ft2_at_least": _p_ft2_at_least,
    "disturbed_area_ft2_less_than": _p_ft2_less_than,
    "new_impervious_area_ft2_more_than": _p_imp_more_than,
    "drains_to_impaired_water": _p_impaired,
    "part_of_larger_common_plan": _p_larger_plan,
    "project_type_not_in": _p_type_not_in,
    "project_type_in": _p_type_in,
}


def _all_of(facts, preds: Mapping) -> tuple[bool, list[str]]:
    ok, parts = True, []
    for name, value in preds.items():
        if name == "unverified":
            continue
        met, text = _PREDICATES[name](facts, value)
        ok &= met
        parts.append(text)
    return ok, parts


# ----------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Assessment:
    """Result of :func:`assess`: what a law requires of a project, with citations.

    ``post_construction_required`` and ``inspections_required`` are ``None`` when the
    profile cannot determine them (``nys_generic``).
    """

    profile: RegulationProfile
    project: Any
    land_development_activity: bool
    threshold_reasons: tuple[str, ...]
    exemptions: tuple[dict, ...]
    exempt: bool
    swppp_required: bool
    swppp_reasons: tuple[str, ...]
    conditions: tuple[dict, ...]
    conditions_met: tuple[str, ...]
    post_construction_required: bool | None
    post_construction_reasons: tuple[str, ...]
    inspections_required: bool | None
    inspection_reasons: tuple[str, ...]
    checklist: tuple[dict, ...]
    certifications: tuple[dict, ...]
    recordkeeping: tuple[dict, ...]
    notes: tuple[str, ...]
    #: NYS construction-permit findings
    #: (:func:`hydrocalc.criteria.state_permit.assess_state_permit`).
    state_permit: dict | None = None

    @property
    def hydrocalc_items(self) -> list[str]:
        """Ids of the applicable checklist items hydrocalc produces fully or in part."""
        return [
            c["id"] for c in self.checklist if c["applies"] and c["produced_by"] != "preparer"
        ]

    @property
    def preparer_items(self) -> list[str]:
        """Ids of the applicable checklist items the preparer must supply (also partial)."""
        return [
            c["id"] for c in self.checklist if c["applies"] and c["produced_by"] != "hydrocalc"
        ]

    def checklist_frame(self) -> pd.DataFrame:
        """The SWPPP content checklist as a DataFrame (one row per item)."""
        cols = ["id", "citation", "requirement", "applies", "produced_by", "report_sections",
                "note"]
        rows = [{k: c[k] for k in cols} for c in self.checklist]
        for r in rows:
            r["report_sections"] = ", ".join(r["report_sections"])
        return pd.DataFrame(rows, columns=cols)

    def to_frame(self) -> pd.DataFrame:
        """Every finding as one long table.

        Columns ``kind`` (threshold, exemption, swppp, condition, post_construction,
        inspections, checklist, certification, recordkeeping), ``id``, ``citation``,
        ``applies`` (bool or None), ``produced_by``, ``report_sections``, ``text``.
        """
        rows = []
        law_cite = citation(self.profile.applicability.get("section", ""), False)
        rows.append(dict(kind="threshold", id="land_development_activity", citation=law_cite,
                         applies=self.land_development_activity,
                         text="; ".join(self.threshold_reasons)))
        for e in self.exemptions:
            rows.append(dict(kind="exemption", id=e["key"], citation=e["citation"],
                             applies=e["accepted"], text=e["reason"]))
        rows.append(dict(kind="swppp", id="swppp_required", citation=law_cite,
                         applies=self.swppp_required, text="; ".join(self.swppp_reasons)))
        for c in self.conditions:
            rows.append(dict(kind="condition", id=c["key"], citation=c["citation"],
                             applies=c["met"], text=c["reason"]))
        rows.append(dict(kind="post_construction", id="post_construction",
                         citation=self.profile.cite("post_construction"),
                         applies=self.post_construction_required,
                         text="; ".join(self.post_construction_reasons)))
        rows.append(dict(kind="inspections", id="qualified_inspections",
                         citation=self.profile.cite("inspections"),
                         applies=self.inspections_required,
                         text="; ".join(self.inspection_reasons)))
        for c in self.checklist:
            rows.append(dict(kind="checklist", id=c["id"], citation=c["citation"],
                             applies=c["applies"], produced_by=c["produced_by"],
                             report_sections=", ".join(c["report_sections"]),
                             text=c["requirement"]))
        for kind, items in (("certification", self.certifications),
                            ("recordkeeping", self.recordkeeping)):
            for r in items:
                rows.append(dict(kind=kind, id=r["id"], citation=r["citation"],
                                 applies=r["applies"], text=r["text"]))
        if self.state_permit is not None:
            sp = self.state_permit
            rows.append(dict(kind="state_permit", id="state_permit_coverage",
                             citation=sp["permit"], applies=sp["coverage_required"],
                             text="; ".join(sp["coverage_reasons"])))
            lim = sp["disturbance_limit"]
            rows.append(dict(kind="state_permit", id="soil_disturbed_at_one_time",
                             citation=lim["source"], applies=lim["passed"], text=lim["reason"]))
        cols = ["kind", "id", "citation", "applies", "produced_by", "report_sections", "text"]
        frame = pd.DataFrame(rows, columns=cols)
        frame["produced_by"] = frame["produced_by"].fillna("")
        frame["report_sections"] = frame["report_sections"].apply(
            lambda v: v if isinstance(v, str) else ""
        )
        return frame

    def to_dict(self) -> dict:
        """JSON-serialisable dict of the whole assessment."""
        p = self.profile
        project = self.project.to_dict() if hasattr(self.project, "to_dict") else self.project
        return {
            "profile": {"key": p.key, "name": p.name, "law": p.law, "status": p.status,
                        "status_note": p.status_note, "section_note": p.section_note},
            "project": project,
            "land_development_activity": self.land_development_activity,
            "threshold_reasons": list(self.threshold_reasons),
            "exemptions": [dict(e) for e in self.exemptions],
            "exempt": self.exempt,
            "swppp_required": self.swppp_required,
            "swppp_reasons": list(self.swppp_reasons),
            "conditions": [dict(c) for c in self.conditions],
            "conditions_met": list(self.conditions_met),
            "post_construction_required": self.post_construction_required,
            "post_construction_reasons": list(self.post_construction_reasons),
            "inspections_required": self.inspections_required,
            "inspection_reasons": list(self.inspection_reasons),
            "inspection_rule": {
                "citation": p.cite("inspections"),
                "interval_days": p.inspection_interval_days,
                "storm_threshold_in": p.inspection_threshold_in,
                "within_hours": p.inspections.get("within_hours"),
                "who": p.inspections.get("who", ""),
            },
            "cleanout": {"citation": p.cite("cleanout"),
                         "fraction_of_design_capacity": p.cleanout_fraction},
            "notices": {"citation": p.cite("notices"),
                        "hours_before": p.notices.get("hours_before", 0),
                        "milestones": [dataclasses.asdict(m) for m in p.notice_milestones]},
            "checklist": [dict(c, report_sections=list(c["report_sections"]))
                          for c in self.checklist],
            "certifications": [dict(r) for r in self.certifications],
            "recordkeeping": [dict(r) for r in self.recordkeeping],
            "notes": list(self.notes),
            "state_permit": self.state_permit,
        }

    def summary_lines(self) -> list[str]:
        """Short human-readable summary (one finding per line)."""
        p = self.profile
        yn = {True: "yes", False: "no", None: "undetermined"}
        out = [f"{p.name}: {p.law}", f"profile status: {p.status}. {p.status_note}"]
        out.append(f"SWPPP required: {yn[self.swppp_required]} - " + "; ".join(self.swppp_reasons))
        if self.conditions:
            met = ", ".join(self.conditions_met) or "none"
            out.append(f"conditions met: {met}")
        out.append(
            f"post-construction controls required: {yn[self.post_construction_required]} - "
            + "; ".join(self.post_construction_reasons)
        )
        out.append(
            f"qualified inspections required: {yn[self.inspections_required]} - "
            + "; ".join(self.inspection_reasons)
        )
        if self.state_permit is not None:

            out.extend(summary_lines(self.state_permit))
        return out

    def _repr_html_(self) -> str:
        return display.html(self)

    def __repr__(self) -> str:
        return display.text(self)


def _coerce_project(project):
    if isinstance(project, ProjectFacts):
        return project
    if isinstance(project, Mapping):
        facts, problems = parse_project(project, where="project")
        if problems:
            raise InputError("\n".join(problems))
        return facts
    raise InputError(
        f"project must be a ProjectFacts or a [project] mapping; got {type(project).__name__}"
    )


def _applies(rule_applies: str, swppp: bool, post: bool | None, met: tuple[str, ...]):
    if not swppp:
        return False
    if rule_applies == "always":
        return True
    if rule_applies == "post_construction":
        return post
    if rule_applies == "any_condition":
        return bool(met)
    if rule_applies.startswith("condition:"):
        return rule_applies.split(":", 1)[1] in met
    raise InputError(f"applies must be one of {APPLIES} or condition:X; got {rule_applies!r}")


def _thresholds(prof, facts) -> tuple[bool, tuple[str, ...]]:
    """Whether any applicability clause is met (a land development activity), and why."""
    law = prof.applicability
    law_cite = citation(law.get("section", ""), False)
    clause_results = []
    for clause in law["any_of"]:
        met, parts = _all_of(facts, clause)
        text = " and ".join(parts)
        if clause.get("unverified"):
            text += " (clause unverified for this profile)"
        clause_results.append((met, text))
    land_dev = any(m for m, _ in clause_results)
    if land_dev:
        threshold_reasons = tuple(
            f"{t} ({law_cite})" for m, t in clause_results if m
        )
    else:
        threshold_reasons = (
            "below the applicability thresholds: " + "; ".join(t for _, t in clause_results)
            + f" ({law_cite})",
        )
    return land_dev, threshold_reasons


def _exemption(prof, facts, claimed: str) -> dict:
    """One claimed exemption: accepted or rejected against its area limit, and why."""
    ex = prof.exemption(claimed)
    accepted, reason = True, (
        f"claimed: {ex.text} The facts of this exemption are the preparer's statement; "
        "hydrocalc cannot verify them."
    )
    if ex.disturbed_area_ac_less_than is not None:
        ok, text = _p_ac_less_than(facts, ex.disturbed_area_ac_less_than)
        if not ok:
            accepted = False
            reason = f"rejected: the exemption requires disturbance of less than " \
                     f"{fmt_value(ex.disturbed_area_ac_less_than)} ac; {text}"
    if ex.disturbed_area_ft2_less_than is not None:
        ok, text = _p_ft2_less_than(facts, ex.disturbed_area_ft2_less_than)
        if not ok:
            accepted = False
            reason = f"rejected: the exemption requires disturbance of less than " \
                     f"{ex.disturbed_area_ft2_less_than:,.0f} sq ft; {text}"
    checked = None
    if accepted and "effective date" in ex.text:  # date-dependent: recorded as unchecked
        dates = getattr(facts, "exemption_approved_on", {}) or {}
        when = dates.get(ex.key) or dates.get(ex.letter)
        stated = (f" Approval date stated: {when.isoformat()}." if when is not None else
                  " No approval date given (project.exemption_approved_on).")
        reason += (f"{stated} UNCHECKED: the law's effective date is not recorded in the "
                   f"{prof.key} profile, so hydrocalc cannot check that the approval came on "
                   "or before it; the reviewer must.")
        checked = False
    if accepted and ex.note:
        reason += f" Note: {ex.note}"
    return dict(key=ex.key, letter=ex.letter, citation=ex.citation,
                accepted=accepted, reason=f"{reason} ({ex.citation})",
                date_checked=checked)


def _swppp_required(prof, accepted_ex, land_dev, threshold_reasons) -> tuple:
    """Whether a SWPPP is required (an accepted exemption removes it), and why."""
    if accepted_ex:
        effect = prof.exemptions_effect.get("text", "exempt")
        return False, tuple(
            f"exempt under {e['citation']} ({e['key']}): {effect}" for e in accepted_ex
        )
    if land_dev:
        return True, threshold_reasons
    return False, threshold_reasons


def _conditions(prof, facts, swppp: bool) -> tuple[list[dict], tuple[str, ...]]:
    """The profile's conditions, evaluated only when a SWPPP is required; the keys met."""
    conditions = []
    met_keys = []
    for c in prof.conditions:
        if not swppp:
            conditions.append(dict(key=c.key, citation=c.citation, met=False,
                                   reason="not evaluated: no SWPPP is required",
                                   text=c.text))
            continue
        ok, parts = _all_of(facts, c.all_of)
        conditions.append(dict(key=c.key, citation=c.citation, met=ok,
                               reason=("met: " if ok else "not met: ") + "; ".join(parts),
                               text=c.text))
        if ok:
            met_keys.append(c.key)
    return conditions, tuple(met_keys)


def _post_construction(prof, swppp: bool, met: tuple[str, ...]) -> tuple:
    """Whether post-construction controls are required (None: undetermined), and why."""
    pc = prof.post_construction
    pc_cite = prof.cite("post_construction")
    if not swppp:
        post, post_reasons = False, ("no SWPPP is required",)
    elif pc["required_when"] == "always":
        post, post_reasons = True, (f"{pc['text']} ({pc_cite})",)
    elif pc["required_when"] == "any_condition":
        post = bool(met)
        if post:
            post_reasons = (f"Condition(s) {', '.join(met)} met ({pc_cite})",)
        else:
            post_reasons = (f"no Condition A, B or C is met ({pc_cite})",)
    else:
        post, post_reasons = None, (pc["text"],)
    return post, post_reasons


def _inspections(prof, swppp: bool, met: tuple[str, ...]) -> tuple:
    """Whether qualified inspections are required (None: undetermined), and why."""
    ins = prof.inspections
    ins_cite = prof.cite("inspections")
    if not swppp:
        insp, insp_reasons = False, ("no SWPPP is required",)
    elif ins["required_when"] == "always":
        insp, insp_reasons = True, (f"{ins['text']} ({ins_cite})",)
    elif ins["required_when"] == "any_condition":
        insp = bool(met)
        insp_reasons = (
            (f"Condition(s) {', '.join(met)} met: {ins['text']} ({ins_cite})",)
            if insp
            else (f"no Condition A, B or C is met, so {ins_cite} does not apply",)
        )
    else:
        insp, insp_reasons = None, (ins["text"],)
    return insp, insp_reasons


def _duties(rules, swppp: bool, post, met: tuple[str, ...]) -> tuple[dict, ...]:
    """Certification or recordkeeping duties, each with whether it applies."""
    return tuple(
        dict(id=r.id, citation=r.citation, applies=_applies(r.applies, swppp, post, met),
             text=r.text, quote=r.quote)
        for r in rules
    )


def assess(profile: str | RegulationProfile, project) -> Assessment:
    """Apply a municipality's stormwater law to a project.

    Parameters
    ----------
    profile : str or RegulationProfile
        Profile key (``"shelter_island"``, ``"pelham"``, ``"nys_generic"``) or a profile from
        :func:`load_profile`.
    project : ProjectFacts or mapping
        The project facts (a mapping is parsed with :func:`hydrocalc.site.project.parse_project`).

    Returns
    -------
    Assessment
        ``swppp_required`` and its reasons, the exemptions claimed (accepted or rejected),
        the conditions and which are met, ``post_construction_required``,
        ``inspections_required``, the checklist, certification and recordkeeping duties,
        each with its citation.

    Raises
    ------
    InputError
        Unknown profile, invalid project mapping, or an exemption key the profile lacks.

    Notes
    -----
    Decision sequence:

    1. *Threshold*: any clause of the profile's ``applicability.any_of`` (Shelter Island
       § 110-34: >= 1 ac, or > 0 ac as part of a larger common plan; Pelham § 83-6: >=
       2,000 sq ft disturbed or > 1,000 sq ft new impervious).
    2. *Exemptions* claimed in ``project.exemptions_claimed``: an exemption with an area
       limit (Shelter Island § 110-36C < 5 ac; Pelham § 83-5A < 2,000 sq ft) is rejected
       when the project exceeds it; the facts of the others cannot be checked and the claim
       is accepted as the preparer's statement. An accepted exemption removes the SWPPP
       requirement.
    3. *Conditions* (Shelter Island § 110-38C) are evaluated only when a SWPPP is required.
       Condition C is taken as 1 ac <= disturbed < 5 ac (5 ac or more is Condition B),
       excluding project types ``single_family_residence`` and ``agricultural``.
    4. *Post-construction controls*: Shelter Island when any condition is met (§ 110-38C);
       Pelham for every land development activity (§ 83-8B); generic: undetermined.
    5. *Qualified inspections*: Shelter Island only with Condition A, B or C (§ 110-39C);
       Pelham always (Ch. 83); generic: undetermined.
    6. *State permit* (every profile): whether NYSDEC SPDES construction-permit coverage is
       needed as well as the local SWPPP (one acre or more, or less as part of a larger
       common plan; > 5,000 sq ft in the NYC East-of-Hudson watershed), and the construction
       plan against the 5-acre limit on soil disturbed at one time, under the edition named
       in ``project.state_permit`` (:func:`hydrocalc.criteria.state_permit.assess_state_permit`).

    Examples
    --------
    >>> from hydrocalc.site.project import ProjectFacts
    >>> lot = ProjectFacts(name="Lot 7", municipality="shelter_island",
    ...     receiving_water="Coecles Harbor", drains_to_impaired_water=False,
    ...     project_type="single_family_residence", disturbed_area_ac=3.0,
    ...     new_impervious_area_ft2=6000)
    >>> a = assess("shelter_island", lot)
    >>> a.swppp_required, a.conditions_met, a.post_construction_required
    (True, (), False)
    """
    prof = load_profile(profile)
    facts = _coerce_project(project)

    # 1. thresholds
    land_dev, threshold_reasons = _thresholds(prof, facts)

    # 2. exemptions
    exemptions = [_exemption(prof, facts, claimed) for claimed in facts.exemptions_claimed]
    accepted_ex = [e for e in exemptions if e["accepted"]]
    exempt = bool(accepted_ex)

    # SWPPP
    swppp, swppp_reasons = _swppp_required(prof, accepted_ex, land_dev, threshold_reasons)

    # 3. conditions
    conditions, met = _conditions(prof, facts, swppp)

    # 4. post-construction
    post, post_reasons = _post_construction(prof, swppp, met)

    # 5. inspections
    insp, insp_reasons = _inspections(prof, swppp, met)

    checklist = []
    for item in prof.checklist:
        applies = _applies(item.applies, swppp, post, met)
        checklist.append(dict(
            id=item.id, citation=item.citation, requirement=item.text, applies=applies,
            produced_by=item.produced_by, report_sections=item.report_sections,
            note=item.note,
        ))

    state = assess_state_permit(facts)
    notes = list(prof.notes)
    if facts.municipality != prof.key:
        notes.insert(0, f"project.municipality is {facts.municipality!r} but the "
                        f"{prof.key!r} profile was applied")
    return Assessment(
        profile=prof,
        project=facts,
        land_development_activity=land_dev,
        threshold_reasons=threshold_reasons,
        exemptions=tuple(exemptions),
        exempt=exempt,
        swppp_required=swppp,
        swppp_reasons=swppp_reasons,
        conditions=tuple(conditions),
        conditions_met=met,
        post_construction_required=post,
        post_construction_reasons=post_reasons,
        inspections_required=insp,
        inspection_reasons=insp_reasons,
        checklist=tuple(checklist),
        certifications=_duties(prof.certifications, swppp, post, met),
        recordkeeping=_duties(prof.recordkeeping, swppp, post, met),
        notes=tuple(notes + state["notes"]),
        state_permit=state,
    )


assert tuple(_PREDICATES) == PREDICATE_NAMES, "profiles.PREDICATE_NAMES must list _PREDICATES"
