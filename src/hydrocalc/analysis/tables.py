"""Result rows of an analysis: input echo, nodes, ponds, devices, pre/post comparison.

Plain dicts (units in the keys) that :class:`hydrocalc.analysis.SiteResults` turns into
DataFrames and JSON, and the pass/fail of the criteria rows per design point.
"""

from __future__ import annotations

import math

import numpy as np

from hydrocalc.analysis.flows import _integrate
from hydrocalc.analysis.ponds import _max_storage, _top
from hydrocalc.units import FT2_PER_AC, IN_PER_FT

_RATIONAL_COLUMNS = ["scenario", "subcatchment", "to", "storm", "return_period_yr", "c",
                     "c_source", "intensity_in_hr", "intensity_source", "area_ac", "tc_hr",
                     "peak_cfs", "time_of_peak_hr", "hydrograph"]
_CONVEYANCE_COLUMNS = ["scenario", "storm", "reach", "section", "peak_inflow_cfs",
                       "peak_outflow_cfs", "time_of_peak_outflow_hr", "max_depth_ft",
                       "max_velocity_fps", "full_flow_capacity_cfs", "surcharged",
                       "n_subreaches", "n_substeps"]
_COVER_COLUMNS = ["scenario", "subcatchment", "cover", "hsg", "condition", "area_ac", "cn",
                  "cn_given"]
_SEG_COLUMNS = ["scenario", "subcatchment", "segment", "type", "length_ft", "slope_ftft", "n",
                "surface", "p2_in", "area_ft2", "wetted_perimeter_ft", "travel_time_hr"]
_COMPARISON_COLUMNS = ["design_point", "storm", "precip_in", "pre_peak_cfs", "post_peak_cfs",
                       "peak_change_cfs", "peak_change_pct", "pre_volume_ft3", "post_volume_ft3",
                       "volume_change_pct", "pre_time_of_peak_hr", "post_time_of_peak_hr",
                       "post_le_pre"]
_CRITERIA_COLUMNS = ["criterion", "symbol", "design_point", "storm", "required", "provided",
                     "units", "comparison", "passed", "result", "equation", "method", "details",
                     "source", "location", "status", "note"]


def _input_rows(site) -> dict:
    subs, covers, segs, ponds, reaches = [], [], [], [], []
    for name, sc in site.scenarios.items():
        for s in sc.subcatchments:
            subs.append({
                "scenario": name, "subcatchment": s.id, "to": s.to, "description": s.description,
                "area_ac": s.area_ac, "cn": s.cn, "cn_method": s.cn_method,
                "pervious_cn": s.pervious_cn, "tc_hr": s.tc_hr, "tc_method": s.tc_method,
                "impervious_connected_ac": s.impervious_connected_ac,
                "impervious_unconnected_ac": s.impervious_unconnected_ac,
                "impervious_pct": s.impervious_pct, "impervious_hsg": s.impervious_hsg,
            })
            for c in s.covers:
                covers.append({"scenario": name, "subcatchment": s.id, "cover": c.cover,
                               "hsg": c.hsg, "condition": c.condition, "area_ac": c.area_ac,
                               "cn": c.cn, "cn_given": c.cn_given})
            for i, g in enumerate(s.tc_segments):
                segs.append({"scenario": name, "subcatchment": s.id, "segment": i,
                             "type": g.type, "length_ft": g.length_ft,
                             "slope_ftft": g.slope_ftft, "n": g.n, "surface": g.surface,
                             "p2_in": g.p2_in, "area_ft2": g.area_ft2,
                             "wetted_perimeter_ft": g.wetted_perimeter_ft,
                             "travel_time_hr": g.travel_time_hr})
        for p in sc.ponds:
            ponds.append({"scenario": name, "pond": p.id, "to": p.to, "count": p.count,
                          "initial_stage_ft": p.initial_stage_ft,
                          "rrv_credit_pct": p.rrv_credit_pct, "description": p.description,
                          "storage": [dict(x) for x in p.storage_spec],
                          "outlets": [dict(x) for x in p.outlet_spec],
                          "barrel": dict(p.barrel_spec) if p.barrel_spec else None,
                          "top_stage_ft": _top(p), "max_storage_ft3": _max_storage(p)})
        for r in sc.reaches:
            row = {"scenario": name, "reach": r.id, "to": r.to, "lag_hr": r.lag_hr}
            if r.conveyance is not None:  # (lag reaches keep their original row)
                row.update(routing=r.routing, description=r.description,
                           **{k: v for k, v in (r.conveyance_spec or {}).items()})
            reaches.append(row)
    return {"subcatchments": subs, "covers": covers, "tc_segments": segs, "pond_inputs": ponds,
            "reaches": reaches}


def _pond_hydraulics(pond, res):
    """Row fields of a pond's water levels and tailwater for storm ``i``.

    Bottom, peak and top elevations (None for a pond given by stage only), the tailwater
    kind ("free", "constant", "series") and its peak level in the file's frame, and reverse
    flow.
    """
    datum = getattr(pond, "bottom_elevation_ft", None)
    tw = getattr(pond, "tailwater", None)
    kind = getattr(pond, "tailwater_kind", "free")
    if tw is None:
        tw_peak = None
    elif isinstance(tw, float):
        tw_peak = tw + (datum or 0.0)
    else:
        tw_peak = max(tw[1]) + (datum or 0.0)
    batch, j = res.get("_batch"), res.get("_index")
    out_q = None if batch is None or batch.outflow_cfs is None else batch.outflow_cfs[:, j]

    singles = res.get("_results")

    def fields(i, peak_stage, top):
        if singles is not None:
            r = singles[i]
            return {
                "bottom_elevation_ft": datum,
                "peak_elevation_ft": None if datum is None else datum + peak_stage,
                "top_elevation_ft": None if datum is None else datum + top,
                "tailwater": kind,
                "peak_tailwater_ft": (r.peak_tailwater_ft if kind == "interconnected"
                                      else tw_peak),
                "reverse_flow": bool(r.reverse_flow),
                "peak_reverse_cfs": float(r.peak_reverse_cfs) * pond.count,
            }
        rev = 0.0 if out_q is None else max(-float(out_q[i].min()), 0.0) * pond.count
        rev = rev if rev > 1e-6 else 0.0   # round-off below an empty pond is not a flow
        return {
            "bottom_elevation_ft": datum,
            "peak_elevation_ft": None if datum is None else datum + peak_stage,
            "top_elevation_ft": None if datum is None else datum + top,
            "tailwater": kind, "peak_tailwater_ft": tw_peak,
            "reverse_flow": rev > 0.0, "peak_reverse_cfs": rev,
        }
    return fields


def _node_reductions(run, m: int, time_hr, dt_hr) -> tuple[np.ndarray, ...]:
    """Peak, time of peak and volume of every node's outflow and inflow [cfs, h, ft3].

    Peak, time of peak and volume of the outflow, and the peak and volume of the inflow
    (subcatchments: NaN, they have none), each (storms, nodes).

    Reduced node by node over each node's (storm, time) view, with the operations of the
    whole (storm, node, time) array (maximum, first index of it, ``numpy.trapezoid`` along
    time): the same values without assembling that array.
    """
    n = len(run.node_ids)
    peak, tpk, vol = np.empty((m, n)), np.empty((m, n)), np.empty((m, n))
    pin, vin = np.full((m, n), np.nan), np.full((m, n), np.nan)
    for k, nid in enumerate(run.node_ids):
        out = run.node_outflow(nid)
        peak[:, k] = out.max(axis=1)
        tpk[:, k] = time_hr[np.argmax(out, axis=1)]
        vol[:, k] = _integrate(out, dt_hr)
        if run.kinds[k] != "subcatchment":
            inn = run.node_inflow(nid)
            pin[:, k] = inn.max(axis=1)
            vin[:, k] = _integrate(inn, dt_hr)
    return peak, tpk, vol, pin, vin


def _node_rows(site, runs, names, time_hr) -> dict:
    dt = site.options.dt_hr
    nodes_rows, pond_rows, dev_rows, conv_rows, rat_rows = [], [], [], [], []
    for name, run in runs.items():
        sc = site.scenarios[name]
        for sid, per_storm in run.rational.items():
            for r in per_storm:
                rat_rows.append({"scenario": name, "subcatchment": sid,
                                 "to": sc.nodes[sid].to, **r})
        for rid, per_storm in run.reaches.items():
            spec = sc.nodes[rid].conveyance_spec or {}
            for storm, r in zip(names, per_storm, strict=True):
                conv_rows.append({"scenario": name, "storm": storm, "reach": rid,
                                  "section": spec.get("section"), **r})
        # node by node on views of the network's series: no (storm, node, time) copy
        peak, tpk, vol, pin, vin = _node_reductions(run, len(names), time_hr, dt)
        for k, nid in enumerate(run.node_ids):
            node = sc.nodes[nid]
            area = float(run.upstream_area_ac[k])
            for i, storm in enumerate(names):
                v = float(vol[i, k])
                nodes_rows.append({
                    "scenario": name, "storm": storm, "node": nid, "kind": node.kind,
                    "to": node.to, "area_ac": area, "peak_cfs": float(peak[i, k]),
                    "time_of_peak_hr": float(tpk[i, k]), "volume_ft3": v,
                    "volume_acft": v / FT2_PER_AC,
                    "runoff_in": v / (area * FT2_PER_AC) * IN_PER_FT if area > 0 else math.nan,
                    "peak_inflow_cfs": (float(pin[i, k]) if node.kind != "subcatchment"
                                        else math.nan),
                    "inflow_volume_ft3": (float(vin[i, k]) if node.kind != "subcatchment"
                                          else math.nan),
                })
        for pid, res in run.ponds.items():
            pond = sc.nodes[pid]
            k = run.node_ids.index(pid)
            top = _top(pond)
            cap = _max_storage(pond)
            disc = _integrate(res["discarded_cfs"], dt)
            stage_pk = res["stage_ft"].max(axis=1)
            stor_pk = res["storage_ft3"].max(axis=1)
            hyd = _pond_hydraulics(pond, res)
            for i, storm in enumerate(names):
                row = {
                    "scenario": name, "storm": storm, "pond": pid,
                    "peak_inflow_cfs": float(pin[i, k]), "inflow_volume_ft3": float(vin[i, k]),
                    "peak_outflow_cfs": float(peak[i, k]),
                    "time_of_peak_outflow_hr": float(tpk[i, k]),
                    "outflow_volume_ft3": float(vol[i, k]),
                    "peak_stage_ft": float(stage_pk[i]), "peak_storage_ft3": float(stor_pk[i]),
                    "peak_storage_acft": float(stor_pk[i]) / FT2_PER_AC,
                    "top_stage_ft": top, "freeboard_ft": top - float(stage_pk[i]),
                    "max_storage_ft3": cap, "end_storage_ft3": float(res["storage_ft3"][i, -1]),
                    "discarded_ft3": float(disc[i]),
                    "overtopped": bool(res["overtopped"][i]),
                    "mass_balance_error_pct": float(res["mass_balance_error_pct"][i]),
                }
                row.update(hyd(i, float(stage_pk[i]), top))
                for dev, q in res["device_cfs"].items():
                    row[f"peak_{dev}_cfs"] = float(q[i].max())
                pond_rows.append(row)
                types = dict(zip(pond.outlet_ids, pond.outlet_types, strict=True))
                for dev, q in res["device_cfs"].items():
                    dev_rows.append({
                        "scenario": name, "storm": storm, "pond": pid, "device": dev,
                        "type": types.get(dev, "barrel" if dev == "barrel" else ""),
                        "peak_cfs": float(q[i].max()),
                        "time_of_peak_hr": float(time_hr[int(np.argmax(q[i]))]),
                        "volume_ft3": float(_integrate(q[i], dt)),
                    })
    return {"nodes": nodes_rows, "ponds": pond_rows, "devices": dev_rows,
            "conveyance": conv_rows, "rational": rat_rows}


def _comparison_rows(site, runs, names) -> list[dict]:
    dt = site.options.dt_hr
    time_hr = runs["pre"].time_hr
    out = []
    for dp in site.design_point_ids:
        a = runs["pre"].node_outflow(dp)  # (m, nt)
        b = runs["post"].node_outflow(dp)
        # all storms at once (row by row the same reductions as one storm at a time)
        pa, pb = a.max(axis=-1).tolist(), b.max(axis=-1).tolist()
        va, vb = _integrate(a, dt).tolist(), _integrate(b, dt).tolist()
        ta = time_hr[np.argmax(a, axis=-1)].tolist()
        tb = time_hr[np.argmax(b, axis=-1)].tolist()
        for i, storm in enumerate(names):
            out.append({
                "design_point": dp, "storm": storm,
                "precip_in": float(site.storms.depths_in[storm]),
                "pre_peak_cfs": pa[i], "post_peak_cfs": pb[i], "peak_change_cfs": pb[i] - pa[i],
                "peak_change_pct": _pct_change(pa[i], pb[i]),
                "pre_volume_ft3": va[i], "post_volume_ft3": vb[i],
                "volume_change_pct": _pct_change(va[i], vb[i]),
                "pre_time_of_peak_hr": ta[i],
                "post_time_of_peak_hr": tb[i],
                "post_le_pre": bool(pb[i] <= pa[i]),
            })
    return out


def criteria_pass_by_point(crit_rows) -> dict[str, dict[str, bool | None]]:
    """Pass/fail per design point and criterion family (``wqv``, ``qp``...) from the criteria.

    A family passes when every one of its rows passes; None when its rows were not
    evaluated.
    """
    crit: dict[str, dict[str, bool | None]] = {}
    for r in crit_rows:
        key = r["criterion"].split("_")[0]
        dp = r["design_point"]
        crit.setdefault(dp, {})
        prev = crit[dp].get(key)
        crit[dp][key] = r["passed"] if prev is None else (prev and r["passed"])
    return crit


def _pct_change(pre: float, post: float) -> float:
    if pre == 0:
        return 0.0 if post == 0 else math.inf
    return 100.0 * (post - pre) / pre
