"""The ``comparison`` and ``criteria`` sections of the report.

``comparison``: pre vs post at each design point and storm; ``criteria``: the sizing
criteria of the site's jurisdiction (NY SMDM WQv, RRv, Cpv, Qp, Qf).

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import functools
import math
from typing import Any

import numpy as np
import pandas as pd

from hydrocalc.criteria import ny
from hydrocalc.report import figures as F
from hydrocalc.report.sections.builder import (
    _SCENARIO_TITLE,
    _active_window,
    _analysis_warnings,
    _as_text,
    _Builder,
    _fmt,
    _q,
    _unit_of,
)
from hydrocalc.report.summary import status_text
from hydrocalc.report.tables import Table, md_escape


# -- pre/post comparison -----------------------------------------------------------------
def _build_comparison(b: _Builder) -> None:
    ctx = b.ctx
    site, r = ctx.site, ctx.results
    comp = r.comparison
    n_ok = int(comp["post_le_pre"].sum())
    text = [f"The post-development peak is at or below the pre-development peak in {n_ok} of "
            f"{len(comp)} design-point and storm combinations."]
    for _, row in comp.iterrows():
        where = f"{md_escape(row['design_point'])}, {md_escape(row['storm'])}"
        if _q(row["pre_peak_cfs"]) == _q(row["post_peak_cfs"]):
            sentence = f"{where}: the peak is unchanged at {_q(row['pre_peak_cfs'])} cfs"
        else:
            verb = "falls" if row["peak_change_cfs"] < 0 else "rises"
            sentence = (f"{where}: the peak {verb} from {_q(row['pre_peak_cfs'])} to "
                        f"{_q(row['post_peak_cfs'])} cfs ({_fmt(row['peak_change_pct'], 1)} %)")
        if math.isfinite(row["volume_change_pct"]):
            sentence += f", the runoff volume changes by {_fmt(row['volume_change_pct'], 1)} %"
        text.append(sentence + ".")
    b.res.narrative_md = text[0] + "\n\n" + " ".join(text[1:])
    b.res.values.update({"combinations": int(len(comp)), "post_le_pre": n_ok})
    scen = []
    for name in ("pre", "post"):
        sc = site.scenarios[name]
        scen.append((f"{_SCENARIO_TITLE[name].capitalize()}",
                     [(n.id, n.kind) for n in sc.nodes.values()],
                     [(n.id, n.to) for n in sc.nodes.values() if n.to]))
    b.res.values["routing_diagram"] = {
        name: F.diagram_elements(nodes, edges)
        for name, (_, nodes, edges) in zip(("pre", "post"), scen, strict=True)}
    b.figure("routing_diagram", "Routing diagram (pre- and post-development)",
             lambda: F.routing_diagram_figure("routing_diagram", "", scen))
    areas = {name: float(site.scenarios[name].area_ac) for name in ("pre", "post")}
    tol = float(getattr(site.options, "area_tolerance_pct", 1.0))
    diff_pct = 100.0 * abs(areas["post"] - areas["pre"]) / areas["pre"] if areas["pre"] else 0.0
    b.res.values.update({"pre_area_ac": areas["pre"], "post_area_ac": areas["post"],
                         "area_difference_pct": diff_pct, "area_tolerance_pct": tol})
    if diff_pct > tol:
        w = (f"pre- and post-development total areas differ: pre {_fmt(areas['pre'], 3)} ac, "
             f"post {_fmt(areas['post'], 3)} ac ({_fmt(diff_pct, 1)} %, more than the "
             f"{_fmt(tol, 1)} % tolerance, checks.area_tolerance_pct); check the "
             "subcatchment areas")
        b.notice(md_escape(w))
        b.res.warnings.append(w)
    b.res.add_table(Table("peak_comparison", "Pre- and post-development peaks and volumes",
                          comp, decimals={"peak_change_pct": 1, "volume_change_pct": 1},
                          labels={"post_le_pre": "Post ≤ pre"},
                          key_columns=["design_point", "storm"]))
    for dp in site.design_point_ids:
        b.res.add_heading(f"Design point {dp}")
        panels = []
        for storm in r.storms:
            panels.append((storm, [
                ("Pre-development", r.time_hr, np.asarray(r.flow_cfs("pre", storm, dp))),
                ("Post-development", r.time_hr, np.asarray(r.flow_cfs("post", storm, dp)))]))
        b.figure(f"hydrographs_{dp}", f"Pre- and post-development hydrographs at {dp}, "
                 "one panel per storm",
                 functools.partial(F.panel_hydrograph_figure,
                                   "", "", panels, window=_active_window))
    b.res.warnings.extend(_analysis_warnings(ctx, "comparison"))


# -- NY sizing criteria ------------------------------------------------------------------
def _build_criteria(b: _Builder) -> None:
    ctx = b.ctx
    site, r = ctx.site, ctx.results
    crit = r.criteria
    if site.criteria.standard == "none" or crit.empty:
        b.res.narrative_md = "No sizing-criteria standard applies to this site " \
                             "(criteria.standard = none)."
        b.echo("inputs", "Criteria settings as entered", ["criteria"])
        return
    failed = crit[crit["result"] == "fail"]
    waived = crit[crit["result"] == "waived"]
    text = [f"{len(crit)} checks of the NY unified sizing criteria were evaluated: "
            f"{int((crit['result'] == 'pass').sum())} meet, {len(failed)} FAIL"
            + (f", {len(waived)} waived" if len(waived) else "") + "."]
    crit_summary = [r for r in ctx.summary["criteria"]]
    for cr in crit_summary:
        if cr["status"] == "FAILS":
            text.append(md_escape(cr["failure"]) + ".")
    for cr in crit_summary:
        if cr["status"] == "not evaluated":
            text.append(f"{md_escape(cr['item'])}: not evaluated: {md_escape(cr['reason'])}.")
    unverified = sorted({s for s in crit["symbol"][crit["status"].str.contains(
        "unverified", case=False, na=False)]})
    if unverified:
        text.append("Criteria values whose source is not yet verified ("
                    + ", ".join(md_escape(s) for s in unverified)
                    + ") are listed once, in \"Values to confirm before submission\" in the "
                      "project summary.")
    b.res.narrative_md = text[0] + "\n\n" + " ".join(text[1:])
    b.res.values.update({"checks": int(len(crit)), "failed": int(len(failed)),
                         "passed_all": bool(len(failed) == 0)})
    shown = crit[["symbol", "criterion", "design_point", "storm", "required",
                  "provided", "units", "comparison", "result"]].copy()
    shown["status"] = [status_text(cr) for cr in crit_summary[:len(shown)]]
    shown["comparison"] = shown["comparison"].map(
        lambda c: "needs provided ≤ allowed (the pre-development peak)" if "<=" in str(c)
        else "needs provided ≥ required" if ">=" in str(c) else str(c))
    b.res.add_table(Table("criteria_results", "Required, provided and status",
                          shown.drop(columns=["result"]),
                          labels={"comparison": "Rule"},
                          key_columns=["criterion", "design_point"]))
    b.res.add_table(Table("criteria_basis", "Equations and methods",
                          crit[["symbol", "criterion", "design_point", "equation", "method",
                                "note"]],
                          key_columns=["criterion", "design_point"]))
    b.res.add_table(Table("criteria_sources", "Sources and verification status",
                          crit[["symbol", "criterion", "design_point", "source", "location",
                                "status"]],
                          key_columns=["criterion", "design_point"]))
    rows = []
    for key, det in (r.criteria_details or {}).items():
        for name, value in det.items():
            rows.append({"criterion": key, "quantity": name,
                         "value": value if isinstance(value, (int, float, bool)) or
                         value is None else _as_text(value),
                         "unit": _unit_of(name)})
    b.res.add_table(Table("criteria_details", "Computation details", pd.DataFrame(
        rows, columns=["criterion", "quantity", "value", "unit"]),
        key_columns=["criterion", "quantity"]))
    table = ny.criteria_table()
    b.res.add_table(Table("criteria_values", "NY SMDM criteria as shipped (source and status)",
                          table[["symbol", "criterion", "design_event", "rule", "source",
                                 "location", "status"]], key_columns=["symbol"]))
    if site.criteria.rrv_specific_reduction_factor is not None:
        # the analysis used the site's own factors (analysis.py, RRv): show those, not the table
        srf: dict[str, Any] = {"factors": dict(site.criteria.rrv_specific_reduction_factor),
               "source": "site file", "location": "criteria.rrv_specific_reduction_factor",
               "status": "user input"}
    else:
        srf = ny.specific_reduction_factors(site.criteria.rrv_factors)
    b.res.add_table(Table("rrv_factors", "Specific reduction factors S by HSG used for RRv",
                          pd.DataFrame([{"hsg": k, "specific_reduction_factor": v}
                                        for k, v in srf["factors"].items()]),
                          caption=f"{srf['source']}, {srf['location']}; status: "
                                  f"{srf['status']}.", labels={"hsg": "HSG"},
                          key_columns=["hsg"]))
    b.echo("inputs", "Criteria settings as entered", ["criteria"])
    b.res.warnings.extend(_analysis_warnings(ctx, "criteria"))
