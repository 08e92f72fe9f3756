"""The compliance summary: one verdict and every item behind it, failures first.

:func:`compliance_summary` gathers, from the analysis (:class:`hydrocalc.analysis.SiteResults`),
the applicability assessment (:func:`hydrocalc.criteria.regulations.assess`) and the sediment-trap
checks (:meth:`hydrocalc.construction.sediment.SedimentTrap.check`), one row per

* design point and design storm: pre-development peak, post-development peak, change;
* sizing criterion (WQv, RRv, Cpv, Qp, Qf and the Qf safe-passage check): required,
  provided, units;
* sediment trap or basin: storage required and provided;
* pond that overtops (routed stage above the top of its structure) in a design storm: peak
  stage, overtopping depth, volume and flow over the top
  (:func:`hydrocalc.analysis.overtopping.overtopping_rows`);

each with one status word:

=====================  ==================================================================
``meets``              the item is satisfied
``FAILS``              the item is not satisfied (named in ``failures``)
``waived``             the site file waives it (the reason is shown)
``not applicable``     the law or the site makes the item irrelevant (reason shown)
``not evaluated``      the item could not be evaluated (a storm, a criterion setting or a
                       trap is missing); the reason says what to add
=====================  ==================================================================

The verdict follows from the statuses, never from a default:

* any ``FAILS``: ``DOES NOT MEET: N items fail`` (``verdict = "does_not_meet"``);
* otherwise any ``not evaluated``: ``INCOMPLETE: N items not evaluated``
  (``status = "incomplete"``; ``verdict = "does_not_meet"``, because a summary with
  unevaluated items can never be read as a pass);
* otherwise ``MEETS ALL CRITERIA`` (``verdict = "meets"``).

Values the preparer has still to confirm (:func:`confirmation_rows`: illustrative storm
depths, unverified criteria values, unverified trap criteria or law profile) never hide
behind the verdict: while any remains, the verdict text ends with
``, N VALUES TO CONFIRM`` (``MEETS ALL CRITERIA, 4 VALUES TO CONFIRM``; the cover shows it
in its own colour, ``hydrocalc run --strict`` exits non-zero unless
``--allow-unconfirmed``), ``confirm`` is ``True``, and every row that meets while resting on
such a value lists it in ``unconfirmed`` and says so in its ``reason``.

Judgment calls: a post-development peak above the pre-development peak at a design point
counts as a failing item for every storm (the pre/post peak check), in addition to the Qp
and Qf criteria rows; a site that needs a SWPPP but lists no sediment trap or basin gets a
``not evaluated`` trap item (sediment storage was not checked) unless the preparer states
why none is needed (``[confirmations] sediment_traps = "..."``: the item is then
``not applicable`` with that statement as its reason), and a site whose law
requires post-construction controls but whose ``criteria.standard`` is ``none`` gets a
``not evaluated`` criteria item. A pond of a post-development (or any non-``pre``)
scenario that overtops in any design storm is a failing item (the design does not hold
that storm); an existing (``pre``) pond that overtops is listed in the overtopping table
without a status, since it describes the site as it is.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

from hydrocalc.analysis.overtopping import overtopping_rows
from hydrocalc.criteria import ny
from hydrocalc.criteria.ny_editions import ASSUMED_EDITION, applied_edition, design_manual_edition
from hydrocalc.report.tables import Table, to_jsonable

__all__ = [
    "STATUS_WORDS",
    "VERDICT_COLOURS",
    "compliance_summary",
    "confirmation_rows",
    "fmt_value",
    "format_summary_text",
    "status_text",
    "summary_tables",
    "verdict_class",
]

#: Status words, exactly as printed.
STATUS_WORDS = ("meets", "FAILS", "waived", "not applicable", "not evaluated")

_RESULT_STATUS = {"pass": "meets", "fail": "FAILS", "waived": "waived",
                  "n/a": "not applicable", "not evaluated": "not evaluated",
                  "not applicable": "not applicable"}

_LABELS = {"wqv": "WQv", "rrv": "RRv", "cpv": "Cpv", "qp": "Qp", "qf": "Qf"}


def _finite(v) -> bool:
    try:
        return v is not None and math.isfinite(float(v))
    except (TypeError, ValueError):
        return False


def fmt_value(value, units: str = "") -> str:
    """A number at reporting precision for its unit (no scientific notation).

    Flows two decimals (three significant digits below 0.1 cfs), volumes in acre-feet
    four decimals below one acre-foot (three above), cubic feet none, percentages one, others three
    significant digits.

    Examples
    --------
    >>> fmt_value(12.4979, "cfs"), fmt_value(0.0194, "acre-ft"), fmt_value(3456.7, "ft3")
    ('12.50', '0.0194', '3,457')
    >>> fmt_value(0.0, "acre-ft"), fmt_value(0.0004, "cfs")
    ('0.0000', '0.00040')
    """
    if not _finite(value):
        return "–"
    v = float(value)
    u = units.strip().lower()
    if u in ("cfs", "ft3/s"):
        dec = 2 if v == 0 or abs(v) >= 0.1 else min(max(2, 2 - math.floor(math.log10(abs(v)))), 5)
    elif u in ("acre-ft", "ac-ft", "af"):
        dec = 3 if abs(v) >= 1 else 4
    elif u in ("ft3", "ft³", "ft2", "ft²", "lb"):
        dec = 0
    elif u in ("%", "pct"):
        dec = 1
    elif u in ("hr", "h", "in", "ft"):
        dec = 2
    elif float(v).is_integer():
        dec = 0
    else:
        mag = math.floor(math.log10(abs(v))) if v else 0
        dec = int(min(max(2 - mag, 0), 6))
    text = f"{v:,.{dec}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text


def _unit_text(units: str) -> str:
    return {"ft3": "ft³", "acre-ft": "ac-ft", "ponds overtopped": "ponds"}.get(units, units)


def _criterion_label(row: Mapping) -> str:
    crit = str(row.get("criterion", ""))
    if crit == "qf_safe_passage":
        return "Qf safe passage (ponds overtopped)"
    sym = str(row.get("symbol") or "")
    return sym or _LABELS.get(crit.split("_")[0], crit)


def _where(row: Mapping) -> str:
    dp = str(row.get("design_point") or "")
    storm = str(row.get("storm") or "")
    parts = [] if dp in ("", "site") else [dp]
    if storm:
        parts.append(storm)
    return f" at {', '.join(parts)}" if parts else ""


def _criterion_failure(row: Mapping, label: str) -> str:
    units = str(row.get("units", ""))
    req, prov = row.get("required"), row.get("provided")
    if row.get("criterion") == "qf_safe_passage":
        return (f"{label}{_where(row)}: FAILS: {fmt_value(prov)} pond(s) overtopped in the "
                f"{row.get('storm', '')} storm; none allowed")
    u = _unit_text(units)
    if "<=" in str(row.get("comparison", "")):
        return (f"{label}{_where(row)}: FAILS: provided {fmt_value(prov, units)} {u} > "
                f"allowed {fmt_value(req, units)} {u}")
    return (f"{label}{_where(row)}: FAILS: provided {fmt_value(prov, units)} {u} < "
            f"required {fmt_value(req, units)} {u}")


def _criteria_rows(results, assessment) -> tuple[list[dict], list[dict]]:
    """(criterion rows, scope rows) of the summary."""
    site = results.site
    out: list[dict] = []
    scope: list[dict] = []
    crit = results.criteria
    standard = getattr(site.criteria, "standard", "none")
    if standard == "none" or crit.empty:
        required = getattr(assessment, "post_construction_required", None)
        if required:
            scope.append({"group": "criteria", "item": "Sizing criteria", "where": "site",
                          "status": "not evaluated",
                          "reason": "the law requires post-construction stormwater controls "
                                    "but the site file sets criteria.standard = \"none\"; set "
                                    "criteria.standard = \"ny_smdm\""})
        else:
            scope.append({"group": "criteria", "item": "Sizing criteria", "where": "site",
                          "status": "not applicable",
                          "reason": "criteria.standard = \"none\"" + (
                              "; post-construction controls are not required by the law"
                              if required is False else "")})
        return out, scope
    for row in crit.to_dict("records"):
        label = _criterion_label(row)
        status = _RESULT_STATUS.get(str(row.get("result", "")), None)
        if status is None:
            status = "meets" if row.get("passed") else "FAILS"
        reason = ""
        note = str(row.get("note") or "")
        if status == "waived":
            reason = note.split("waived:", 1)[-1].strip() if note else "waived in the site file"
        elif status in ("not evaluated", "not applicable"):
            reason = note or "no value could be computed"
        elif status == "FAILS":
            reason = _criterion_failure(row, label).split(": ", 1)[1]
        units = str(row.get("units", ""))
        out.append({
            "group": "criterion", "item": label, "criterion": str(row.get("criterion", "")),
            "where": str(row.get("design_point") or ""), "storm": str(row.get("storm") or ""),
            "required": row.get("required") if _finite(row.get("required")) else None,
            "provided": row.get("provided") if _finite(row.get("provided")) else None,
            "units": units, "status": status, "reason": reason,
            "failure": _criterion_failure(row, label) if status == "FAILS" else "",
        })
    present = {r["criterion"].split("_")[0] for r in out}
    for key, label in _LABELS.items():
        if key not in present:
            out.append({"group": "criterion", "item": label, "criterion": key, "where": "site",
                        "storm": "", "required": None, "provided": None, "units": "",
                        "status": "not evaluated",
                        "reason": f"the analysis produced no {label} result",
                        "failure": ""})
    return out, scope


def _peak_rows(results) -> tuple[list[dict], list[dict]]:
    comp = results.comparison
    rows: list[dict] = []
    scope: list[dict] = []
    if comp.empty:
        scope.append({"group": "peak", "item": "Pre/post peaks", "where": "site",
                      "status": "not evaluated",
                      "reason": "no design point is common to the pre- and post-development "
                                "networks; add [[pre.design_point]] and [[post.design_point]]"})
        return rows, scope
    for r in comp.to_dict("records"):
        ok = bool(r["post_le_pre"])
        pre, post = float(r["pre_peak_cfs"]), float(r["post_peak_cfs"])
        failure = (f"Peak at {r['design_point']}, {r['storm']}: FAILS: post-development "
                   f"{fmt_value(post, 'cfs')} cfs > pre-development {fmt_value(pre, 'cfs')} cfs")
        rows.append({"group": "peak", "item": "Post peak ≤ pre peak",
                     "where": str(r["design_point"]), "storm": str(r["storm"]),
                     "pre_peak_cfs": pre, "post_peak_cfs": post,
                     "change_cfs": post - pre,
                     "change_pct": r["peak_change_pct"] if _finite(r["peak_change_pct"]) else None,
                     "status": "meets" if ok else "FAILS",
                     "reason": "" if ok else failure.split(": ", 1)[1],
                     "failure": "" if ok else failure})
    return rows, scope


def _overtopping_items(results) -> tuple[list[dict], list[dict]]:
    """(overtopping facts, status rows): every overtopped pond-storm; non-pre ones fail."""
    facts, rows = [], []
    for o in overtopping_rows(results):
        facts.append(o)
        if o["scenario"] == "pre":
            continue
        failure = (f"Pond {o['pond']} ({o['scenario']}), {o['storm']}: FAILS: overtops: peak "
                   f"stage {fmt_value(o['peak_stage_ft'], 'ft')} ft is "
                   f"{fmt_value(o['overtopping_depth_ft'], 'ft')} ft above the top at "
                   f"{fmt_value(o['top_stage_ft'], 'ft')} ft; "
                   f"{fmt_value(o['overtopping_volume_ft3'], 'ft3')} ft³ above the top, up "
                   f"to {fmt_value(o['peak_overtopping_cfs'], 'cfs')} cfs over the top")
        rows.append({"group": "pond", "item": "Pond holds the storm", "where": str(o["pond"]),
                     "storm": str(o["storm"]), "scenario": str(o["scenario"]),
                     "status": "FAILS", "reason": failure.split(": ", 2)[2],
                     "failure": failure})
    return facts, rows


def _trap_rows(traps: Sequence | None, assessment, statement: str = "") -> list[dict]:
    rows = []
    for c in traps or ():
        ok = c.ok
        status = "not evaluated" if ok is None else ("meets" if ok else "FAILS")
        reason = ""
        if ok is None:
            reason = "the trap has no geometry, so the storage provided is unknown"
        elif not ok:
            reason = (f"provided {fmt_value(c.provided_ft3, 'ft3')} ft³ < required "
                      f"{fmt_value(c.required_ft3, 'ft3')} ft³")
        rows.append({"group": "trap", "item": f"Sediment trap {c.trap_id}",
                     "where": str(c.trap_id), "storm": "",
                     "required": float(c.required_ft3),
                     "provided": None if c.provided_ft3 is None else float(c.provided_ft3),
                     "units": "ft3", "criteria": c.criteria.key,
                     "criteria_status": c.criteria.status, "status": status,
                     "reason": reason,
                     "failure": f"Sediment trap {c.trap_id}: FAILS: {reason}"
                     if status == "FAILS" else ""})
    if not rows and getattr(assessment, "swppp_required", False):
        rows.append({"group": "trap", "item": "Sediment traps", "where": "site", "storm": "",
                     "required": None, "provided": None, "units": "ft3", "criteria": "",
                     "criteria_status": "",
                     "status": "not applicable" if statement else "not evaluated",
                     "reason": (f"no sediment trap or basin: {statement} (preparer's "
                                "statement, confirmations.sediment_traps)" if statement else
                                "the site needs a SWPPP but lists no sediment trap or basin "
                                "([[construction.trap]]); sediment storage was not checked. "
                                "Add the traps, or state why none is needed in "
                                "[confirmations] sediment_traps = \"...\""),
                     "failure": ""})
    return rows


_UNVERIFIED_WORDS = ("unverified", "illustrative", "placeholder", "not verified")


def _unverified(text) -> bool:
    low = str(text or "").lower()
    return any(w in low for w in _UNVERIFIED_WORDS)


def _num(value, decimals: int = 2) -> str:
    return f"{float(value):,.{decimals}f}" if _finite(value) else "–"


def confirmation_rows(site, results, assessment=None, traps: Iterable | None = None
                      ) -> list[dict]:
    """Every value the preparer must confirm before submission, once each.

    Parameters
    ----------
    site : hydrocalc.site.Site
        The loaded site (storms, criteria settings, ``confirmations``).
    results : hydrocalc.analysis.SiteResults
        Its analysis (the ``criteria`` table is read).
    assessment : hydrocalc.regulations.Assessment, optional
        Applicability under the local law (its profile status is read).
    traps : iterable of hydrocalc.sediment.TrapCheck, optional
        The sediment-trap checks.

    Returns
    -------
    list of dict
        One row per item: ``item`` (the key a ``[confirmations]`` entry of the site file
        uses to clear it), ``value``, ``used_for``, ``basis`` (where the value comes from
        and why it needs confirming), ``source_entered`` (the preparer's source from
        ``[confirmations]``, empty if none) and ``status`` (``to confirm`` or
        ``confirmed by preparer``). Items: the design-manual edition when the site file
        names none (``design_manual``), illustrative design-storm depths
        (``storm_depths``), a 90 % rainfall depth whose source is marked unverified or a
        placeholder, or any under an edition whose numbers were not read (the 2024 manual)
        (``wqv_precip_in``), every criteria value with an unverified status
        (``criterion_<key>``), the RRv specific reduction factors from the shipped table (or
        those entered for the 2024 manual) (``rrv_factors``), every sediment-trap criteria
        row not verified (``trap_criteria_<key>``), and a municipal profile whose status is
        not ``verified`` (``regulation_profile``).
    """
    st = site.storms
    confirmations = getattr(site, "confirmations", {}) or {}
    rows: list[dict] = []

    def add(item, value, used_for, basis):
        if any(r["item"] == item for r in rows):
            return
        src = confirmations.get(item, "")
        rows.append({"item": item, "value": value, "used_for": used_for, "basis": basis,
                     "source_entered": src,
                     "status": "confirmed by preparer" if src else "to confirm"})

    manual = getattr(site.project, "design_manual", None)
    if manual is None:
        add("design_manual", f"{ASSUMED_EDITION} (assumed)", "edition of the NYS SMDM sizing "
            "criteria", "project.design_manual is not set in the site file; state \"2015\" "
            "or \"2024\"")
    if st.warnings:
        add("storm_depths", ", ".join(f"{n} {_num(d)} in" for n, d in st.depths_in.items()),
            "design-storm runoff and peaks", "; ".join(st.warnings))
    ed = design_manual_edition(applied_edition(site.project))
    unread = ed["criteria_status"] and site.criteria.standard != "none"
    if _unverified(st.wqv_precip_source) or unread:
        add("wqv_precip_in", f"{_num(st.wqv_precip_in)} in", "WQv and RRv (90 % rainfall "
            "depth)", st.wqv_precip_source + (f"; {ed['wqv_precip_figure']}" if unread else ""))
    crit = results.criteria
    if not crit.empty:
        for row in crit.to_dict("records"):
            if _unverified(row.get("status")) and row.get("result") != "waived":
                add(f"criterion_{row['criterion']}", str(row.get("equation") or
                                                         row.get("symbol")),
                    f"{row.get('symbol') or row['criterion']} criterion",
                    f"{row.get('source', '')}, {row.get('location', '')}: "
                    f"{row.get('status', '')}")
        cs = site.criteria
        if unread and cs.rrv_specific_reduction_factor is not None and "rrv" not in cs.waived:
            add("rrv_factors", ", ".join(f"{h} {v:g}" for h, v in
                                         cs.rrv_specific_reduction_factor.items()),
                "RRv (specific reduction factor S by HSG)",
                f"site file (criteria.rrv_specific_reduction_factor) for the {ed['id']} NYS "
                f"SMDM: {ed['criteria_status']}")
        if cs.rrv_specific_reduction_factor is None and "rrv" not in cs.waived:
            f = ny.specific_reduction_factors(cs.rrv_factors)
            if _unverified(f["status"]):
                add("rrv_factors", ", ".join(f"{h} {v:g}" for h, v in f["factors"].items()),
                    "RRv (specific reduction factor S by HSG)",
                    f"{f['source']}, {f['location']}: {f['status']}")
    for c in traps or ():
        if str(c.criteria.status).lower() != "verified":
            cr = c.criteria
            value = (f"{_num(cr.storage_ft3_per_ac, 0)} ft³ per acre drained"
                     if cr.storage_ft3_per_ac is not None else cr.method)
            if cr.max_drainage_area_ac is not None:
                value += f", at most {_num(cr.max_drainage_area_ac, 1)} ac"
            add(f"trap_criteria_{cr.key}", value, f"sediment trap {c.trap_id} storage",
                f"{cr.manual}, {cr.edition}, {cr.location}: status {cr.status}")
    prof = getattr(assessment, "profile", None)
    if prof is not None and prof.status and prof.status != "verified":
        add("regulation_profile", prof.name, "applicability, inspections and notices",
            f"{prof.status}: {prof.status_note}")
    return rows


#: Criteria (key prefix) that a design-storm depth feeds.
_STORM_CRITERIA = ("cpv", "qp", "qf")


def _rests_on(row: Mapping, items: Sequence[str]) -> list[str]:
    """The values to confirm (item keys among ``items``) a summary row rests on."""
    group, crit = row.get("group"), str(row.get("criterion", ""))
    key = crit.split("_")[0]
    out = []
    for item in items:
        if item == "storm_depths":
            hit = group == "peak" or (group == "criterion" and key in _STORM_CRITERIA)
        elif item == "wqv_precip_in":
            hit = group == "criterion" and key in ("wqv", "rrv")
        elif item == "rrv_factors":
            hit = group == "criterion" and key == "rrv"
        elif item.startswith("criterion_"):
            hit = group == "criterion" and crit == item[len("criterion_"):]
        elif item.startswith("trap_criteria_"):
            hit = group == "trap" and row.get("criteria") == item[len("trap_criteria_"):]
        else:
            hit = False
        if hit:
            out.append(item)
    return out


def _mark_unconfirmed(rows: list[dict], items: Sequence[str]) -> None:
    """Name the values still to confirm on every row that meets resting on them.

    Name, on every row that meets while resting on a value still to confirm, the values
    it rests on.
    """
    for r in rows:
        # a row that meets is only as good as the values it rests on; a failing row fails
        # whatever they are
        r["unconfirmed"] = _rests_on(r, items) if r["status"] == "meets" else []
        if r["unconfirmed"]:
            note = f"rests on values to confirm: {', '.join(r['unconfirmed'])}"
            r["reason"] = f"{r['reason']}; {note}" if r["reason"] else note


def _n_to_confirm(n: int) -> str:
    return f"{n} VALUE{'' if n == 1 else 'S'} TO CONFIRM"


def compliance_summary(results, assessment=None, traps: Iterable | None = None,
                       to_confirm: Iterable[Mapping] | None = None) -> dict:
    """The compliance summary of an analysed site.

    Parameters
    ----------
    results : hydrocalc.analysis.SiteResults
        The analysis (its ``comparison`` and ``criteria`` tables are read).
    assessment : hydrocalc.criteria.regulations.Assessment, optional
        Applicability of the local law; decides whether missing criteria or traps are
        "not applicable" or "not evaluated".
    traps : iterable of hydrocalc.construction.sediment.TrapCheck, optional
        The sediment-trap checks (``SedimentTrap.check()``).
    to_confirm : iterable of mapping, optional
        The values to confirm (:func:`confirmation_rows`); rows whose ``status`` is
        ``to confirm`` count. ``None``: computed from ``results.site``, ``assessment`` and
        ``traps``.

    Returns
    -------
    dict
        JSON-ready: ``verdict`` (``"meets"`` or ``"does_not_meet"``), ``status``
        (``"meets"``, ``"does_not_meet"`` or ``"incomplete"``), ``verdict_text``
        (``MEETS ALL CRITERIA``, ``DOES NOT MEET: N items fail`` or
        ``INCOMPLETE: N items not evaluated``, followed by ``, N VALUES TO CONFIRM`` while
        any value remains to confirm), ``confirm`` (``True`` while any does),
        ``values_to_confirm`` (the rows still to confirm: ``item, value, used_for,
        basis``), ``design_manual`` (the NYS SMDM edition of the criteria, ``"2015"`` or
        ``"2024"``), ``failures`` (one sentence per failing item), ``not_evaluated`` and
        ``waivers`` (``{"item", "reason"}``), ``peaks``, ``criteria``, ``traps``, ``ponds``
        (rows by group; each row's ``unconfirmed`` lists the values to confirm it rests on),
        ``overtopping`` (every overtopped pond-storm,
        :func:`hydrocalc.analysis.overtopping.overtopping_rows`), ``rows`` (every row) and
        ``counts`` (rows per status word).
    """
    traps = list(traps or ())
    if to_confirm is None:
        to_confirm = confirmation_rows(results.site, results, assessment, traps)
    pending = [{k: r.get(k, "") for k in ("item", "value", "used_for", "basis")}
               for r in to_confirm if r.get("status", "to confirm") == "to confirm"]
    peaks, scope_p = _peak_rows(results)
    crits, scope_c = _criteria_rows(results, assessment)
    statement = getattr(results.site, "confirmations", {}).get("sediment_traps", "")
    trap_rows = _trap_rows(traps, assessment, statement)
    over_facts, over_rows = _overtopping_items(results)
    rows = scope_p + peaks + over_rows + scope_c + crits + trap_rows
    _mark_unconfirmed(rows, [p["item"] for p in pending])
    counts = {w: sum(1 for r in rows if r["status"] == w) for w in STATUS_WORDS}
    failures = [r["failure"] for r in rows if r["status"] == "FAILS"]
    not_eval = [{"item": r["item"] + (f" ({r['where']})" if r.get("where") not in ("", "site",
                                      None) else ""), "reason": r["reason"]}
                for r in rows if r["status"] == "not evaluated"]
    waivers = [{"item": r["item"] + (f" ({r['where']})" if r.get("where") not in ("", "site",
                                     None) else ""), "reason": r["reason"]}
               for r in rows if r["status"] == "waived"]
    if failures:
        status, text = "does_not_meet", f"DOES NOT MEET: {len(failures)} items fail"
    elif not_eval:
        status, text = "incomplete", f"INCOMPLETE: {len(not_eval)} items not evaluated"
    else:
        status, text = "meets", "MEETS ALL CRITERIA"
    if pending:
        text = f"{text}, {_n_to_confirm(len(pending))}"

    return to_jsonable({
        "verdict": "meets" if status == "meets" else "does_not_meet",
        "status": status,
        "verdict_text": text,
        "confirm": bool(pending),
        "values_to_confirm": pending,
        "failures": failures,
        "not_evaluated": not_eval,
        "waivers": waivers,
        "counts": counts,
        "peaks": peaks,
        "criteria": crits,
        "design_manual": applied_edition(getattr(results.site, "project", None)),
        "traps": trap_rows,
        "ponds": over_rows,
        "overtopping": over_facts,
        "rows": rows,
    })


#: Colour of the verdict box by :func:`verdict_class` (text and border).
VERDICT_COLOURS = {"meets": "#1b5e20", "confirm": "#8a4b00", "fails": "#b00020"}


def verdict_class(verdict: str | None, confirm: bool = False) -> str:
    """Return how the verdict box is drawn: meets, confirm or fails.

    How the verdict box is drawn: ``"meets"`` (green), ``"confirm"`` (amber: meets, but
    values remain to confirm) or ``"fails"`` (red: does not meet or incomplete).

    Examples
    --------
    >>> verdict_class("meets"), verdict_class("meets", True), verdict_class("incomplete", True)
    ('meets', 'confirm', 'fails')
    """
    if verdict != "meets":
        return "fails"
    return "confirm" if confirm else "meets"


def status_text(row: Mapping) -> str:
    """The status word of a summary row, with the values to confirm it rests on.

    Examples
    --------
    >>> status_text({"status": "meets", "unconfirmed": ["rrv_factors"]})
    'meets, resting on values to confirm (rrv_factors)'
    """
    items = row.get("unconfirmed") or []
    word = str(row.get("status", ""))
    return f"{word}, resting on values to confirm ({', '.join(items)})" if items else word


def summary_tables(summary: Mapping) -> list:
    """The summary as report tables: peaks, criteria, traps, waivers, items not evaluated."""
    import pandas as pd


    out = []
    peaks = summary.get("peaks", [])
    if peaks:
        frame = pd.DataFrame([{"design_point": r["where"], "storm": r["storm"],
                               "pre_peak_cfs": r["pre_peak_cfs"],
                               "post_peak_cfs": r["post_peak_cfs"],
                               "change_cfs": r["change_cfs"], "status": status_text(r)}
                              for r in peaks])
        out.append(Table("summary_peaks", "Peak flow at each design point: pre vs post",
                         frame, labels={"pre_peak_cfs": "Pre peak [cfs]",
                                        "post_peak_cfs": "Post peak [cfs]",
                                        "change_cfs": "Change [cfs]",
                                        "design_point": "Design point"},
                         key_columns=["design_point", "storm"]))
    over = summary.get("overtopping", [])
    if over:
        frame = pd.DataFrame([{k: r[k] for k in ("pond", "scenario", "storm", "peak_stage_ft",
                                                 "top_stage_ft", "overtopping_depth_ft",
                                                 "overtopping_volume_ft3",
                                                 "peak_overtopping_cfs")} for r in over])
        out.append(Table("summary_overtopping", "Ponds that overtop: routed above the top of "
                         "the structure", frame,
                         labels={"overtopping_depth_ft": "Above the top [ft]",
                                 "overtopping_volume_ft3": "Volume above the top [ft³]",
                                 "peak_overtopping_cfs": "Flow over the top [cfs]"},
                         caption="Above the top the routing continues the storage with "
                                 "vertical walls and no flow over the embankment; the volume "
                                 "above the top is the water the structure cannot hold, and "
                                 "the flow over the top is the inflow minus the outlets' flow "
                                 "at the top while the stage is above it.",
                         key_columns=["pond", "scenario", "storm"]))
    crits = summary.get("criteria", [])
    if crits:
        frame = pd.DataFrame([{"criterion": r["item"],
                               "where": r["where"] if r["where"] != "site" else "site",
                               "storm": r["storm"],
                               "required": fmt_value(r["required"], r["units"]),
                               "provided": fmt_value(r["provided"], r["units"]),
                               "units": _unit_text(r["units"]), "status": status_text(r)}
                              for r in crits])
        out.append(Table("summary_criteria", "Sizing criteria", frame,
                         caption="Qp and Qf: the post-development peak is allowed up to the "
                                 "pre-development peak (the required column gives that limit).",
                         key_columns=["criterion", "where"]))
    traps = [r for r in summary.get("traps", []) if r["where"] != "site"]
    if traps:
        frame = pd.DataFrame([{"trap": r["where"], "required_ft3": r["required"],
                               "provided_ft3": r["provided"], "status": status_text(r)}
                              for r in traps])
        out.append(Table("summary_traps", "Sediment traps and basins: storage", frame,
                         key_columns=["trap"]))
    waivers = summary.get("waivers", [])
    if waivers:
        out.append(Table("summary_waivers", "Waivers and their reasons",
                         pd.DataFrame(waivers, columns=["item", "reason"]),
                         key_columns=["item"]))
    missing = summary.get("not_evaluated", [])
    if missing:
        out.append(Table("summary_not_evaluated", "Items that could not be evaluated",
                         pd.DataFrame(missing, columns=["item", "reason"]),
                         key_columns=["item"]))
    pending = summary.get("values_to_confirm", [])
    if pending:
        out.append(Table("summary_to_confirm", "Values to confirm before submission",
                         pd.DataFrame(pending, columns=["item", "value", "used_for"]),
                         labels={"item": "Item", "value": "Value", "used_for": "Used for"},
                         caption="Clear an item by giving the source it was checked against "
                                 "in the site file: [confirmations] item = \"source\".",
                         key_columns=["item"]))
    return out


def format_summary_text(summary: Mapping) -> str:
    """Return the plain-text summary for the console.

    Plain-text summary for the console: the verdict line, then every failing item,
    item not evaluated and waiver.
    """
    lines = [f"COMPLIANCE: {summary['verdict_text']}"]
    for f in summary.get("failures", []):
        lines.append(f"  - {f}")
    for m in summary.get("not_evaluated", []):
        lines.append(f"  - {m['item']}: not evaluated: {m['reason']}")
    for w in summary.get("waivers", []):
        lines.append(f"  - {w['item']}: waived: {w['reason']}")
    for r in summary.get("rows", []):
        if r.get("unconfirmed") and r.get("status") == "meets":
            where = _where({"design_point": r.get("where"), "storm": r.get("storm")})
            lines.append(f"  - {r['item']}{where}: {status_text(r)}")
    for v in summary.get("values_to_confirm", []):
        lines.append(f"  - value to confirm: {v['item']} = {v['value']} (used for "
                     f"{v['used_for']}); record its source in [confirmations]")
    return "\n".join(lines)
