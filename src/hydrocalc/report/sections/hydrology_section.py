"""The ``hydrology_pre`` and ``hydrology_post`` sections.

Subcatchments, covers and CN, Tc segments, conveyance and Rational-method tables, node flows.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from hydrocalc.report import figures as F
from hydrocalc.report.sections.builder import (
    _SCENARIO_TITLE,
    _active_window,
    _analysis_warnings,
    _Builder,
    _fmt,
    _q,
)
from hydrocalc.report.sections.registry import SECTIONS
from hydrocalc.report.tables import Table, md_escape
from hydrocalc.report.wording import cover_label, flow_label, surface_label
from hydrocalc.tc import sheet_flow_n
from hydrocalc.unit_hydrograph import MIN_TC_HR


def _scenario_frame(frame: pd.DataFrame, scenario: str) -> pd.DataFrame:
    if frame.empty or "scenario" not in frame:
        return frame
    return frame[frame["scenario"] == scenario].drop(columns="scenario").reset_index(drop=True)


def area_listing(subs: pd.DataFrame, covers: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(area listing, soil listing) of one scenario's subcatchments.

    The area listing has one row per cover description (:func:`hydrocalc.report.wording.
    cover_label`, TR-55 words) and HSG: ``description, hsg, area_ac, cn, subcatchments``;
    impervious areas are listed as "Impervious, directly connected" and "Impervious,
    unconnected" with CN 98, and a subcatchment whose CN is given
    without covers as "CN given". The soil listing gives the area by HSG (``unknown`` for
    given-CN areas without an HSG) and its share of the total.
    """
    rows: list[dict] = []
    for c in covers.to_dict("records"):
        rows.append({"description": cover_label(str(c["cover"])),
                     "hsg": str(c["hsg"] or "unknown"),
                     "area_ac": float(c["area_ac"]), "cn": float(c["cn"]),
                     "subcatchment": str(c["subcatchment"])})
    with_covers = set(covers["subcatchment"]) if len(covers) else set()
    for sb in subs.to_dict("records"):
        hsg = str(sb.get("impervious_hsg") or "unknown")
        for key, label in (("impervious_connected_ac",
                            "Impervious, directly connected (TR-55 Fig. 2-3)"),
                           ("impervious_unconnected_ac",
                            "Impervious, unconnected (TR-55 Fig. 2-4)")):
            if float(sb.get(key) or 0.0) > 0:
                rows.append({"description": label, "hsg": hsg, "area_ac": float(sb[key]),
                             "cn": 98.0, "subcatchment": str(sb["subcatchment"])})
        if sb["subcatchment"] not in with_covers:
            imp = float(sb.get("impervious_connected_ac") or 0) + \
                float(sb.get("impervious_unconnected_ac") or 0)
            rest = float(sb["area_ac"]) - imp
            if rest > 1e-9:
                rows.append({"description": "CN given", "hsg": "unknown", "area_ac": rest,
                             "cn": float(sb.get("pervious_cn") or sb["cn"]),
                             "subcatchment": str(sb["subcatchment"])})
    frame = pd.DataFrame(rows, columns=["description", "hsg", "area_ac", "cn", "subcatchment"])
    if frame.empty:
        return (pd.DataFrame(columns=["description", "hsg", "area_ac", "cn", "subcatchments"]),
                pd.DataFrame(columns=["hsg", "area_ac", "share_pct"]))
    areas = (frame.groupby(["description", "hsg", "cn"], sort=True)
             .agg(area_ac=("area_ac", "sum"),
                  subcatchments=("subcatchment", lambda v: ", ".join(dict.fromkeys(v))))
             .reset_index()[["description", "hsg", "area_ac", "cn", "subcatchments"]])
    total = float(frame["area_ac"].sum())
    areas = pd.concat([areas, pd.DataFrame([{"description": "total", "hsg": "",
                                             "area_ac": total, "cn": np.nan,
                                             "subcatchments": ""}])], ignore_index=True)
    soils = frame.groupby("hsg", sort=True)["area_ac"].sum().reset_index()
    soils["share_pct"] = 100.0 * soils["area_ac"] / total if total > 0 else np.nan
    soils = pd.concat([soils, pd.DataFrame([{"hsg": "total", "area_ac": total,
                                             "share_pct": 100.0}])], ignore_index=True)
    return areas, soils


def tc_segment_table(segs: pd.DataFrame) -> pd.DataFrame:
    """Tc segments with the n used, velocity, channel capacity and travel time in minutes.

    ``n_used`` is the Manning n entered or the TR-55 Table 3-1 value of the surface key
    (sheet flow); ``velocity_fps`` = length / travel time; ``capacity_cfs`` = V a for a
    channel segment (Manning, TR-55 Eq. 3-4), empty otherwise.
    """
    out = segs.copy()
    n_used = []
    for row in out.itertuples(index=False):
        n = row.n
        if (n is None or (isinstance(n, float) and math.isnan(n))) and row.type == "sheet" \
                and isinstance(row.surface, str) and row.surface:
            n = float(sheet_flow_n(row.surface))
        n_used.append(None if n is None or (isinstance(n, float) and math.isnan(n))
                      else float(n))
    out["n_used"] = pd.Series(n_used, dtype=float)
    t_hr = pd.to_numeric(out["travel_time_hr"], errors="coerce")
    out["velocity_fps"] = pd.to_numeric(out["length_ft"], errors="coerce") / (t_hr * 3600.0)
    area = pd.to_numeric(out["area_ft2"], errors="coerce")
    out["capacity_cfs"] = out["velocity_fps"].where(out["type"] == "channel") * area
    out["travel_time_min"] = t_hr * 60.0
    return out[["subcatchment", "segment", "type", "surface", "length_ft", "slope_ftft",
                "n_used", "p2_in", "velocity_fps", "capacity_cfs", "travel_time_min"]]


def tc_used_table(subs: pd.DataFrame) -> pd.DataFrame:
    """Per subcatchment: Tc computed and Tc used by the unit hydrograph, in minutes."""
    tc_hr = subs["tc_hr"].astype(float)
    return pd.DataFrame({"subcatchment": subs["subcatchment"],
                         "tc_method": subs["tc_method"],
                         "tc_min": tc_hr * 60.0,
                         "tc_used_min": np.maximum(tc_hr, MIN_TC_HR) * 60.0})


def conveyance_input_table(sc) -> pd.DataFrame:
    """One row per routed pipe/channel reach of a scenario (empty without such reaches).

    Columns: section, size, length, slope, Manning's n and full-flow capacity.
    """
    rows = []
    for rch in sc.reaches:
        if rch.conveyance is None:
            continue
        spec = rch.conveyance_spec or {}
        sec = spec.get("section", "")
        if sec == "circular":
            size = f"{_fmt(spec['diameter_in'], 1)} in diameter"
        elif sec == "rectangular":
            size = f"{_fmt(spec['bottom_width_ft'])} ft wide, {_fmt(spec['depth_ft'])} ft deep"
        elif sec == "trapezoidal":
            size = (f"{_fmt(spec['bottom_width_ft'])} ft bottom, "
                    f"{_fmt(spec['side_slope_h_per_v'], 1)}:1 sides, "
                    f"{_fmt(spec['depth_ft'])} ft deep")
        else:
            size = (f"{len(spec.get('station_ft', ()))} station-elevation points, "
                    f"{_fmt(spec.get('depth_full_ft'))} ft bank-full")
        rows.append({"reach": rch.id, "to": rch.to, "section": sec, "size": size,
                     "length_ft": rch.conveyance.length_ft,
                     "slope_ftft": rch.conveyance.slope_ftft,
                     "manning_n": rch.conveyance.manning_n,
                     "full_flow_capacity_cfs": rch.conveyance.full_flow_capacity_cfs})
    return pd.DataFrame(rows, columns=["reach", "to", "section", "size", "length_ft",
                                       "slope_ftft", "manning_n", "full_flow_capacity_cfs"])


def conveyance_result_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Reach results per storm (from :attr:`SiteResults.conveyance` of one scenario).

    Peak inflow and outflow, maximum depth and velocity, capacity and surcharge ("yes"/"no").
    """
    out = frame[["reach", "storm", "peak_inflow_cfs", "peak_outflow_cfs",
                 "time_of_peak_outflow_hr", "max_depth_ft", "max_velocity_fps",
                 "full_flow_capacity_cfs", "surcharged"]].copy()
    out["surcharged"] = np.where(out["surcharged"].astype(bool), "yes", "no")
    return out.reset_index(drop=True)


def _rational_sentence(sc) -> str:
    n = len(sc.rational)
    area = sum(s.area_ac for s in sc.rational)
    return (f"{n} further subcatchment{'s' if n != 1 else ''} ({_fmt(area, 3)} acres) "
            f"{'are' if n != 1 else 'is'} computed by the rational method (Q = C i A) and "
            "feed the network with a modified rational hydrograph (storm duration = Tc) "
            "whose peak coincides with the design storm's most intense Tc; they are not in "
            "the curve-number totals above.")


def rational_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Rational-method rows (from :attr:`SiteResults.rational` of one scenario).

    C, i, A, Tc, Q and the sources of i and C.
    """
    return frame[["subcatchment", "storm", "c", "intensity_in_hr", "area_ac", "tc_hr",
                  "peak_cfs", "intensity_source", "c_source"]].reset_index(drop=True)


def _add_rational_tables(b: _Builder, scenario: str) -> None:
    """The rational-method table of a scenario (nothing when it has no such subcatchment)."""
    sc = b.ctx.site.scenarios[scenario]
    if not sc.rational:
        return
    frame = _scenario_frame(b.ctx.results.rational, scenario)
    b.res.add_heading("Rational method subcatchments")
    b.res.add_table(Table("rational", "Rational method: Q = C i A by subcatchment and storm",
                          rational_table(frame),
                          caption="RATIONAL METHOD (not TR-55): Q = C i A with K = 1.0 "
                                  "(HEC-22 Eq. 3-1); i = average intensity for a duration "
                                  "equal to Tc; composite C area-weighted, each C chosen "
                                  "within its HEC-22 Table 3-1 range. Hydrograph: modified "
                                  "rational triangle with storm duration = Tc (peak flow, "
                                  "not a storage design volume).",
                          labels={"c": "C", "intensity_in_hr": "i [in/h]",
                                  "intensity_source": "source of i", "c_source": "source of C"},
                          decimals={"c": 3, "tc_hr": 3, "intensity_in_hr": 2},
                          key_columns=["subcatchment", "storm"]))


def _add_conveyance_tables(b: _Builder, scenario: str) -> None:
    """The pipe/channel reach tables of a scenario (nothing when it has none)."""
    sc = b.ctx.site.scenarios[scenario]
    if not any(rch.conveyance is not None for rch in sc.reaches):
        return
    conv = _scenario_frame(b.ctx.results.conveyance, scenario)
    b.res.add_heading("Pipe and channel reaches")
    b.res.add_table(Table("reach_inputs", "Pipe and channel reaches: section and capacity",
                          conveyance_input_table(sc),
                          caption="Capacity: Manning's equation (k = 1.49) flowing full "
                                  "(pipe) or bank-full (channel).",
                          labels={"manning_n": "n"},
                          decimals={"slope_ftft": 4, "manning_n": 3},
                          key_columns=["reach"]))
    b.res.add_table(Table("reaches", "Reach routing by storm: peaks, depth, velocity and "
                                     "surcharge", conveyance_result_table(conv),
                          caption="Variable-parameter Muskingum-Cunge routing (NEH 630 Ch. 17; "
                                  "Ponce and Chaganti 1994). Depth and velocity are those of "
                                  "normal flow at the reach outlet. Surcharged: the peak "
                                  "inflow exceeds the section's normal-flow capacity (a pipe "
                                  "pressurises, a channel spills); results above capacity "
                                  "are indicative only.",
                          key_columns=["reach", "storm"]))
    worst = conv[conv["surcharged"].astype(bool)]
    for _, row in worst.iterrows():
        w = (f"{scenario}.reach[{row['reach']}], storm {row['storm']}: peak inflow "
             f"{_q(row['peak_inflow_cfs'])} cfs exceeds the capacity "
             f"{_q(row['full_flow_capacity_cfs'])} cfs (surcharged)")
        b.notice(md_escape(w))


def _build_hydrology(b: _Builder, scenario: str) -> None:
    ctx = b.ctx
    r = ctx.results
    sc = ctx.site.scenarios[scenario]
    b.res.key = f"hydrology_{scenario}"
    b.res.title = SECTIONS[b.res.key].title
    subs = _scenario_frame(r.subcatchments, scenario)
    covers = _scenario_frame(r.covers, scenario)
    segs = _scenario_frame(r.tc_segments, scenario)
    nodes = _scenario_frame(r.nodes, scenario)
    area = float(subs["area_ac"].sum()) if len(subs) else 0.0
    imp = float((subs["impervious_connected_ac"] + subs["impervious_unconnected_ac"]).sum()) \
        if len(subs) else 0.0
    b.res.values.update({"area_ac": area, "impervious_ac": imp,
                         "subcatchments": int(len(subs))})
    b.res.narrative_md = _hydrology_narrative(b, scenario, sc, subs, nodes, area, imp)
    _add_subcatchment_tables(b, subs, covers)
    _add_tc_tables(b, scenario, subs, segs)
    _add_runoff_tables(b, sc, nodes)
    _add_rational_tables(b, scenario)
    _add_conveyance_tables(b, scenario)
    _add_design_point_figures(b, scenario, sc)
    b.echo("inputs", f"{_SCENARIO_TITLE[scenario].capitalize()} "
                               "inputs as entered", [scenario], exclude=["pond"])
    b.res.warnings.extend(_analysis_warnings(ctx, f"hydrology_{scenario}"))


def _hydrology_narrative(b: _Builder, scenario: str, sc, subs: pd.DataFrame,
                         nodes: pd.DataFrame, area: float, imp: float) -> str:
    """The section's narrative: areas, CN and Tc ranges, and design-point peaks."""
    site, r = b.ctx.site, b.ctx.results
    dps = nodes[nodes["kind"] == "design_point"]
    text = [f"The {_SCENARIO_TITLE[scenario]} condition has {len(subs)} subcatchment"
            f"{'s' if len(subs) != 1 else ''} totalling {_fmt(area, 3)} acres, of which "
            f"{_fmt(imp, 3)} acres ({_fmt(100.0 * imp / area if area else 0.0, 1)} %) are "
            f"impervious. Curve numbers range from {_fmt(subs['cn'].min(), 1)} to "
            f"{_fmt(subs['cn'].max(), 1)} and times of concentration from "
            f"{_fmt(60.0 * subs['tc_hr'].min(), 1)} to {_fmt(60.0 * subs['tc_hr'].max(), 1)} "
            "min."]
    if sc.rational:
        text.append(_rational_sentence(sc))
    if sc.description:
        text.insert(0, md_escape(sc.description))
    if len(dps):
        depths = site.storms.depths_in
        largest = max(r.storms, key=lambda name: depths[name])
        for _, row in dps[dps["storm"] == largest].iterrows():
            text.append(f"At design point {md_escape(row['node'])} the largest design storm, "
                        f"{md_escape(row['storm'])}, peaks at {_q(row['peak_cfs'])} cfs at "
                        f"{_fmt(row['time_of_peak_hr'])} hr with "
                        f"{_fmt(row['volume_ft3'], 0)} ft³ of runoff "
                        f"({_fmt(row['runoff_in'])} in).")
        text.append("The tables below give every storm.")
    return "\n\n".join([text[0], " ".join(text[1:])]) if len(text) > 1 else text[0]


def _add_subcatchment_tables(b: _Builder, subs: pd.DataFrame, covers: pd.DataFrame) -> None:
    """Subcatchment, CN/Tc method, cover, area listing and soil listing tables."""
    cols = ["subcatchment", "to", "area_ac", "impervious_connected_ac",
            "impervious_unconnected_ac", "impervious_pct", "cn", "tc_hr"]
    b.res.add_table(Table("subcatchments", "Subcatchments", subs[cols],
                          decimals={"cn": 1, "tc_hr": 3, "impervious_pct": 1},
                          key_columns=["subcatchment"]))
    b.res.add_table(Table("subcatchment_methods", "How each curve number and Tc was obtained",
                          subs[["subcatchment", "cn_method", "tc_method", "description"]],
                          labels={"cn_method": "CN from", "tc_method": "Tc from"},
                          key_columns=["subcatchment"]))
    if len(covers):
        shown = covers[["subcatchment", "cover", "hsg", "condition", "area_ac", "cn",
                        "cn_given"]].copy()
        shown.insert(1, "description", [cover_label(str(k)) for k in shown["cover"]])
        b.res.add_table(Table("covers", "Land cover, hydrologic soil group and curve number",
                              shown,
                              caption="CN from TR-55 Tables 2-2a to 2-2d unless given "
                                      "(CN given: yes); composite CN area-weighted (TR-55 "
                                      "Ch. 2). Cover key: the site-file key of the row.",
                              labels={"hsg": "HSG", "description": "Cover",
                                      "cover": "Cover key", "cn_given": "CN given"},
                              key_columns=["subcatchment", "cover", "hsg"]))
    areas, soils = area_listing(subs, covers)
    b.res.add_table(Table("area_listing", "Area listing: cover, HSG, CN and subcatchments",
                          areas, decimals={"cn": 0}, key_columns=["description", "hsg"],
                          labels={"description": "Description", "hsg": "HSG",
                                  "subcatchments": "Subcatchments"}))
    b.res.add_table(Table("soil_listing", "Soil listing: area by hydrologic soil group",
                          soils, labels={"hsg": "HSG"}, key_columns=["hsg"]))


def _add_tc_tables(b: _Builder, scenario: str, subs: pd.DataFrame, segs: pd.DataFrame) -> None:
    """Tc flow-path segment and Tc used tables, with a notice for each Tc raised to 6 min."""
    if len(segs):
        b.res.add_table(Table("tc_segments", "Time of concentration flow path segments",
                              tc_segment_table(segs),
                              caption="Sheet flow TR-55 Eq. 3-3 (n shown even when given by a "
                                      "surface key); shallow concentrated flow TR-55 Fig. 3-1 "
                                      "/ App. F; channel flow Manning (Eq. 3-4), capacity = "
                                      "V a.",
                              labels={"n_used": "Manning's n", "p2_in": "P2 [in]",
                                      "type": "Flow", "surface": "Surface"},
                              display={"type": flow_label, "surface": surface_label},
                              decimals={"n_used": 3, "travel_time_min": 2},
                              key_columns=["subcatchment", "segment"]))
    tcs = tc_used_table(subs)
    b.res.add_table(Table("tc_used", "Time of concentration: computed and used", tcs,
                          decimals={"tc_min": 2, "tc_used_min": 2},
                          caption="The unit hydrograph uses Tc no shorter than 6 min "
                                  "(0.1 h, as TR-20 does).", key_columns=["subcatchment"]))
    for row in tcs.itertuples(index=False):
        if row.tc_used_min > row.tc_min + 1e-9:
            w = (f"{scenario}.subcatchment[{row.subcatchment}]: Tc {_fmt(row.tc_min)} min is "
                 f"below the 6-min minimum; the hydrograph uses {_fmt(row.tc_used_min)} min")
            b.notice(md_escape(w))
            b.res.warnings.append(w)


def _add_runoff_tables(b: _Builder, sc, nodes: pd.DataFrame) -> None:
    """Runoff by subcatchment and storm, and flows at the other network nodes."""
    sub_nodes = nodes[nodes["kind"] == "subcatchment"]
    b.res.add_heading("Runoff by subcatchment and storm")
    b.res.add_table(Table("subcatchment_runoff", "Peak, time of peak, volume and depth",
                          sub_nodes[["node", "storm", "area_ac", "peak_cfs",
                                     "time_of_peak_hr", "volume_ft3", "volume_acft",
                                     "runoff_in"]].rename(columns={"node": "subcatchment"}),
                          caption=("Rational-method subcatchments ("
                                   + ", ".join(md_escape(x.id) for x in sc.rational)
                                   + "): the volume is that of the modified rational "
                                     "triangle (Q Tc), not a storm runoff volume."
                                   if sc.rational else ""),
                          key_columns=["subcatchment", "storm"]))
    others = nodes[nodes["kind"] != "subcatchment"]
    if len(others):
        b.res.add_table(Table("network_nodes", "Flows at ponds, reaches and design points",
                              others[["node", "kind", "storm", "area_ac", "peak_inflow_cfs",
                                      "peak_cfs", "time_of_peak_hr", "volume_ft3",
                                      "volume_acft", "runoff_in"]],
                              caption="peak_cfs is the flow leaving the node (a pond's "
                                      "routed outflow).", key_columns=["node", "storm"]))


def _add_design_point_figures(b: _Builder, scenario: str, sc) -> None:
    """One hydrograph figure (every storm) per design point of the scenario."""
    r = b.ctx.results
    for dp in sc.design_points:
        series = [(storm, r.time_hr, np.asarray(r.flow_cfs(scenario, storm, dp.id)))
                  for storm in r.storms]
        b.figure(f"hydrographs_{dp.id}", f"{_SCENARIO_TITLE[scenario].capitalize()} "
                 f"hydrographs at {dp.id}",
                 lambda series=series, dp=dp: F.hydrograph_comparison_figure(  # type: ignore[misc]
                     f"hydrographs_{dp.id}", "", series, xlim=_active_window(series),
                     height_in=2.8))
