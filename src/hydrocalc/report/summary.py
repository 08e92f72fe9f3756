"""The compliance summary: one verdict and every item behind it, failures first.

:func:`compliance_summary` gathers, from the analysis (:class:`hydrocalc.analysis.SiteResults`),
the applicability assessment (:func:`hydrocalc.criteria.regulations.assess`) and the sediment-trap
checks (:meth:`hydrocalc.construction.sediment.SedimentTrap.check`), one row per

* design point and design storm: pre-development peak, post-development peak, change;
* sizing criterion (WQv, RRv, Cpv, Qp, Qf and the Qf safe-passage check): required,
  provided, units;
* sediment trap or basin: storage required and provided;

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

Judgment calls: a post-development peak above the pre-development peak at a design point
counts as a failing item for every storm (the pre/post peak check), in addition to the Qp
and Qf criteria rows; a site that needs a SWPPP but lists no sediment trap or basin gets a
``not evaluated`` trap item (sediment storage was not checked) unless the preparer states
why none is needed (``[confirmations] sediment_traps = "..."``: the item is then
``not applicable`` with that statement as its reason), and a site whose law
requires post-construction controls but whose ``criteria.standard`` is ``none`` gets a
``not evaluated`` criteria item.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence

__all__ = [
    "STATUS_WORDS",
    "compliance_summary",
    "fmt_value",
    "format_summary_text",
    "summary_tables",
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
    out, scope = [], []
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
    rows, scope = [], []
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


def compliance_summary(results, assessment=None, traps: Iterable | None = None) -> dict:
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

    Returns
    -------
    dict
        JSON-ready: ``verdict`` (``"meets"`` or ``"does_not_meet"``), ``status``
        (``"meets"``, ``"does_not_meet"`` or ``"incomplete"``), ``verdict_text``
        (``MEETS ALL CRITERIA``, ``DOES NOT MEET: N items fail`` or
        ``INCOMPLETE: N items not evaluated``), ``failures`` (one sentence per failing
        item), ``not_evaluated`` and ``waivers`` (``{"item", "reason"}``), ``peaks``,
        ``criteria``, ``traps`` (rows by group), ``rows`` (every row) and ``counts``
        (rows per status word).
    """
    traps = list(traps or ())
    peaks, scope_p = _peak_rows(results)
    crits, scope_c = _criteria_rows(results, assessment)
    statement = getattr(results.site, "confirmations", {}).get("sediment_traps", "")
    trap_rows = _trap_rows(traps, assessment, statement)
    rows = scope_p + peaks + scope_c + crits + trap_rows
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
    from hydrocalc.report.tables import to_jsonable

    return to_jsonable({
        "verdict": "meets" if status == "meets" else "does_not_meet",
        "status": status,
        "verdict_text": text,
        "failures": failures,
        "not_evaluated": not_eval,
        "waivers": waivers,
        "counts": counts,
        "peaks": peaks,
        "criteria": crits,
        "traps": trap_rows,
        "rows": rows,
    })


def summary_tables(summary: Mapping) -> list:
    """The summary as report tables: peaks, criteria, traps, waivers, items not evaluated."""
    import pandas as pd

    from hydrocalc.report.tables import Table

    out = []
    peaks = summary.get("peaks", [])
    if peaks:
        frame = pd.DataFrame([{"design_point": r["where"], "storm": r["storm"],
                               "pre_peak_cfs": r["pre_peak_cfs"],
                               "post_peak_cfs": r["post_peak_cfs"],
                               "change_cfs": r["change_cfs"], "status": r["status"]}
                              for r in peaks])
        out.append(Table("summary_peaks", "Peak flow at each design point: pre vs post",
                         frame, labels={"pre_peak_cfs": "Pre peak [cfs]",
                                        "post_peak_cfs": "Post peak [cfs]",
                                        "change_cfs": "Change [cfs]", "design_point": "Design point"},
                         key_columns=["design_point", "storm"]))
    crits = summary.get("criteria", [])
    if crits:
        frame = pd.DataFrame([{"criterion": r["item"],
                               "where": r["where"] if r["where"] != "site" else "site",
                               "storm": r["storm"],
                               "required": fmt_value(r["required"], r["units"]),
                               "provided": fmt_value(r["provided"], r["units"]),
                               "units": _unit_text(r["units"]), "status": r["status"]}
                              for r in crits])
        out.append(Table("summary_criteria", "Sizing criteria", frame,
                         caption="Qp and Qf: the post-development peak is allowed up to the "
                                 "pre-development peak (the required column gives that limit).",
                         key_columns=["criterion", "where"]))
    traps = [r for r in summary.get("traps", []) if r["where"] != "site"]
    if traps:
        frame = pd.DataFrame([{"trap": r["where"], "required_ft3": r["required"],
                               "provided_ft3": r["provided"], "status": r["status"]}
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
    return out


def format_summary_text(summary: Mapping) -> str:
    """Plain-text summary for the console: the verdict line, then every failing item,
    item not evaluated and waiver."""
    lines = [f"COMPLIANCE: {summary['verdict_text']}"]
    for f in summary.get("failures", []):
        lines.append(f"  - {f}")
    for m in summary.get("not_evaluated", []):
        lines.append(f"  - {m['item']}: not evaluated: {m['reason']}")
    for w in summary.get("waivers", []):
        lines.append(f"  - {w['item']}: waived: {w['reason']}")
    return "\n".join(lines)
