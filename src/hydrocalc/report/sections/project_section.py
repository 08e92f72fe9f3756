"""The ``project`` section: project facts, applicability of the local law, SWPPP checklist.

Also :func:`values_to_confirm`, the unverified or illustrative values every report lists
for the engineer to confirm.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import pandas as pd

from hydrocalc.report.sections.builder import _Builder, _fmt
from hydrocalc.report.sections.computation import Context
from hydrocalc.report.sections.registry import SECTIONS
from hydrocalc.report.summary import confirmation_rows, summary_tables
from hydrocalc.report.tables import Table, md_escape
from hydrocalc.site import confirmation_items

#: How a yes / no / undetermined finding reads in the report.
_YN = {True: "yes", False: "no", None: "undetermined"}


def _build_project(b: _Builder) -> None:
    """Build the ``project`` section: compliance summary, facts, applicability, checklist."""
    site, ctx = b.ctx.site, b.ctx
    p = site.project
    a = ctx.assessment
    b.res.values.update({
        "swppp_required": a.swppp_required,
        "post_construction_required": a.post_construction_required,
        "inspections_required": a.inspections_required,
        "conditions_met": list(a.conditions_met),
        "disturbed_area_ac": p.disturbed_area_ac,
        "new_impervious_area_ft2": p.new_impervious_area_ft2,
    })
    text = _applicability_text(b, p, a)
    summary = ctx.summary
    head = _compliance_head(b, summary, site)
    b.res.narrative_md = "\n".join(head + text)

    b.res.add_heading("Compliance summary")
    for table in summary_tables(summary):
        b.res.add_table(table)
    _add_confirmations(b)
    _add_project_facts(b, p, a.profile)
    b.echo("project_inputs", "Project inputs as entered", ["project"])
    _add_assessment_tables(b, a)
    b.res.warnings.extend(ctx.step_warnings("site", "assessment"))
    b.res.warnings.extend(f"assessment note: {n}" for n in a.notes)


def _applicability_text(b: _Builder, p, a) -> list[str]:
    """Return the narrative lines on the project and the duties; notice an unverified profile."""
    prof = a.profile
    reasons = "; ".join(md_escape(r) for r in a.swppp_reasons) or "none recorded"
    text = [
        f"**{md_escape(p.name)}** lies in the {md_escape(prof.name)} and is governed by "
        f"{md_escape(prof.law)}. The project disturbs {_fmt(p.disturbed_area_ac, 3)} acres "
        f"({_fmt(p.disturbed_area_ft2, 0)} sq ft) and adds "
        f"{_fmt(p.new_impervious_area_ft2, 0)} sq ft of impervious cover; it drains to "
        f"{md_escape(p.receiving_water)}"
        + (f", an impaired water ({md_escape(p.impairment)})." if p.drains_to_impaired_water
           and p.impairment else ", listed as impaired (303(d) or TMDL)."
           if p.drains_to_impaired_water else "."),
        "",
        f"A SWPPP is required: **{_YN[a.swppp_required]}** ({reasons}).",
    ]
    if getattr(prof, "section_note", ""):
        text.insert(1, f" Citations: {md_escape(prof.section_note)}")
    if a.conditions:
        met = ", ".join(md_escape(c) for c in a.conditions_met) or "none"
        text.append(f"Conditions met: {met}.")
    text.append(f"Post-construction stormwater controls required: "
                f"**{_YN[a.post_construction_required]}**"
                + (f" ({'; '.join(md_escape(r) for r in a.post_construction_reasons)})."
                   if a.post_construction_reasons else "."))
    text.append(f"Qualified inspections required: **{_YN[a.inspections_required]}**.")
    n_hc = len(a.hydrocalc_items)
    n_prep = len(a.preparer_items)
    text += ["", f"Of the applicable SWPPP content items, {n_hc} are produced in whole or in "
             f"part by this report and {n_prep} must be supplied or completed by the preparer "
             "(checklist below, with the report section holding each item)."]
    if prof.status and prof.status != "verified":
        b.notice(f"The {md_escape(prof.name)} profile has status "
                 f"*{md_escape(prof.status)}*: {md_escape(prof.status_note)}")
    return text


def _compliance_head(b: _Builder, summary: dict, site) -> list[str]:
    """Return the verdict lines and the input checks heading the section; record their values."""
    b.res.values["verdict"] = summary["verdict"]
    b.res.values["verdict_status"] = summary["status"]
    b.res.values["verdict_text"] = summary["verdict_text"]
    b.res.values["verdict_confirm"] = bool(summary.get("confirm"))
    head = [f"**Compliance: {summary['verdict_text']}.**", ""]
    for line in summary["failures"]:
        head.append(f"- {md_escape(line)}")
    for item in summary["not_evaluated"]:
        head.append(f"- {md_escape(item['item'])}: not evaluated: {md_escape(item['reason'])}")
    for item in summary["waivers"]:
        head.append(f"- {md_escape(item['item'])}: waived: {md_escape(item['reason'])}")
    for item in summary.get("values_to_confirm", []):
        head.append(f"- value to confirm: {md_escape(item['item'])} = "
                    f"{md_escape(item['value'])} (used for {md_escape(item['used_for'])}); "
                    "listed under \"Values to confirm before submission\"")
    if len(head) > 2:
        head.append("")
    # the loader's warnings on the inputs (implausible values, slips such as pre/post areas
    # that differ or a declaration that disagrees with the network) belong on the first page
    notes = list(dict.fromkeys(str(n) for n in getattr(site, "notes", ())))
    if notes:
        head += ["**Input checks to review before submission:**", ""]
        head += [f"- {md_escape(n)}" for n in notes]
        head.append("")
    b.res.values["input_checks"] = notes
    return head


def _add_project_facts(b: _Builder, p, prof) -> None:
    """Add the table of project facts (those entered)."""
    facts = [("Project", p.name), ("Municipality", prof.name), ("Law", prof.law),
             ("Address", p.address), ("Tax map", p.tax_map), ("Owner", p.owner),
             ("Preparer", p.preparer), ("Project type", p.project_type),
             ("Receiving water", p.receiving_water),
             ("Drains to an impaired (303(d)/TMDL) water", p.drains_to_impaired_water),
             ("Impairment", p.impairment),
             ("Part of a larger common plan", p.part_of_larger_common_plan),
             ("Exemptions claimed", ", ".join(p.exemptions_claimed) or "none")]
    b.res.add_table(Table("project_facts", "Project facts",
                          pd.DataFrame([(k, v if isinstance(v, str) else _YN.get(v, str(v)))
                                        for k, v in facts if v not in ("", None)],
                                       columns=["item", "value"]), key_columns=["item"]))


def _add_assessment_tables(b: _Builder, a) -> None:
    """Add the applicability findings and the SWPPP content checklist of the assessment."""
    frame = a.to_frame()
    findings = frame[frame["kind"] != "checklist"].copy()
    findings["applies"] = findings["applies"].map(lambda v: _YN.get(v, str(v)))
    b.res.add_heading("Applicability of the local law")
    b.res.add_table(Table("applicability", "Thresholds, exemptions, conditions and duties",
                          findings[["kind", "id", "citation", "applies", "text"]]
                          .reset_index(drop=True),
                          labels={"id": "Item", "text": "Finding"},
                          key_columns=["kind", "id"]))
    checklist = frame[frame["kind"] == "checklist"].copy()
    checklist["applies"] = checklist["applies"].map(lambda v: _YN.get(v, str(v)))
    titles = {k: s.title for k, s in SECTIONS.items()}
    checklist["where_in_report"] = checklist["report_sections"].map(
        lambda v: "; ".join(titles.get(s.strip(), s.strip()) for s in v.split(",") if s.strip()))
    b.res.add_heading("SWPPP content checklist")
    b.res.add_table(Table("swppp_checklist", "SWPPP content checklist",
                          checklist[["id", "citation", "text", "applies", "produced_by",
                                     "where_in_report"]].reset_index(drop=True),
                          labels={"id": "Item", "text": "Requirement",
                                  "where_in_report": "Where in this report"},
                          caption="produced_by: hydrocalc (this report), partial (report plus "
                                  "preparer), preparer (not produced by hydrocalc).",
                          key_columns=["id"]))


def values_to_confirm(ctx: Context) -> pd.DataFrame:
    """Return every value the preparer must confirm before submission.

    Every value the preparer must confirm before submission, once each
    (:func:`hydrocalc.report.summary.confirmation_rows` of the context's site, as a frame
    with columns ``item, value, used_for, basis, source_entered, status``).
    """
    rows = confirmation_rows(ctx.site, ctx.results, ctx.assessment, ctx.trap_checks)
    return pd.DataFrame(rows, columns=["item", "value", "used_for", "basis",
                                       "source_entered", "status"])


def _add_confirmations(b: _Builder) -> None:
    frame = values_to_confirm(b.ctx)
    known = set(frame["item"]) | {"sediment_traps"}

    vocabulary = set(confirmation_items())
    for key in b.ctx.site.confirmations:
        # a key outside the vocabulary is already among the site's input-check warnings
        if key not in known and key in vocabulary:
            b.res.warnings.append(
                f"confirmations.{key} names no value to confirm; valid items: "
                f"{', '.join(sorted(known)) or 'none'}")
    b.res.values["values_to_confirm"] = int((frame["status"] == "to confirm").sum())
    if frame.empty:
        return
    b.res.add_heading("Values to confirm before submission")
    b.res.add_table(Table(
        "values_to_confirm", "Values to confirm before submission", frame,
        caption="Clear an item by giving the source it was checked against in the site "
                "file: [confirmations] item = \"source\".",
        labels={"used_for": "Used for", "source_entered": "Source entered by the preparer"},
        key_columns=["item"]))
