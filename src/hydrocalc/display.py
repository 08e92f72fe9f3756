"""Rich displays for notebooks: compact text reprs and ``_repr_html_`` for hydrocalc objects.

Jupyter shows an object by calling its ``_repr_html_`` method; the classes people look at
(:class:`~hydrocalc.site.Site`, :class:`~hydrocalc.analysis.SiteResults`,
:class:`~hydrocalc.hydrograph.Hydrograph`, :class:`~hydrocalc.hydrograph.HydrographSet`,
:class:`~hydrocalc.hydraulics.routing.RoutingResult`,
:class:`~hydrocalc.hydraulics.routing.StageStorage`, the outlet devices of
:mod:`hydrocalc.hydraulics.outlets`, :class:`~hydrocalc.criteria.regulations.Assessment` and
:class:`~hydrocalc.construction.inspections.InspectionSchedule`) each hold a one-line method
that calls :func:`html` or :func:`text` here. All the formatting lives in this module.

The HTML is a summary table rendered by pandas with the column labels, units and number
formats of :mod:`hydrocalc.labels` (the same as the printed report's tables), plus, for
hydrographs, routing results and stage-storage relations, a small inline figure (PNG,
base64 data URI, 80 dpi).

This module computes nothing: every number shown is a property or table of the object
itself (``summary()``, ``to_frame()``...). It belongs to the foundation (it imports no
layer of hydrocalc above it) and imports matplotlib only when a figure is drawn, so the
classes of every layer can display themselves without importing the report.
"""

from __future__ import annotations

import base64
import html as _html
import io

from hydrocalc.labels import column_label, default_decimals, format_cell

__all__ = ["figure_png", "html", "table_html", "text"]

#: Resolution of the inline figures [dots per inch]: small enough for a notebook cell.
FIGURE_DPI = 80
#: Inline figure size [in] (width, height).
FIGURE_SIZE_IN = (5.5, 2.3)
#: Rows shown of a long table (the rest is summarised in a note).
MAX_ROWS = 30


# -- building blocks ------------------------------------------------------------------------
def table_html(name: str, title: str, frame, caption: str = "", *,
               decimals: dict | None = None, labels: dict | None = None) -> str:
    """HTML of ``frame`` with unit-labelled headers and display decimals (pandas ``to_html``).

    Headers and digits follow :mod:`hydrocalc.labels` (the same as the report's tables);
    ``decimals`` and ``labels`` override them per column. Frames longer than
    :data:`MAX_ROWS` are cut, with a note saying how many rows are hidden and how to see
    them all (``to_frame()``).
    """
    decimals, labels = dict(decimals or {}), dict(labels or {})
    hidden = max(len(frame) - MAX_ROWS, 0)
    if hidden:
        frame = frame.iloc[:MAX_ROWS]
        caption = (caption + " " if caption else "") + (
            f"First {MAX_ROWS} of {MAX_ROWS + hidden} rows; to_frame() has them all.")
    frame = frame.reset_index(drop=True)
    cols = [str(c) for c in frame.columns]
    shown = frame.copy()
    shown.columns = cols
    for col in cols:
        dec = decimals.get(col, default_decimals(col))
        shown[col] = [format_cell(v, dec)[0] for v in frame[col].tolist()]
    shown.columns = [labels.get(c, column_label(c)) for c in cols]
    body = shown.to_html(index=False, border=0, classes="hc-table", escape=True)
    parts = [f'<div class="hc-table-wrap" id="table-{_html.escape(name)}">']
    if title:
        parts.append(f'<p class="table-title">{_html.escape(title)}</p>')
    parts.append(body)
    if caption:
        parts.append(f'<p class="table-caption">{_html.escape(caption)}</p>')
    parts.append("</div>")
    return "".join(parts)


def figure_png(draw, *, size_in=FIGURE_SIZE_IN) -> bytes:
    """PNG bytes of a small figure drawn by ``draw(ax)`` (matplotlib, Agg, no pyplot)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=size_in, dpi=FIGURE_DPI, layout="constrained")
    FigureCanvasAgg(fig)
    ax = fig.subplots()
    ax.grid(True, color="#dddddd", linewidth=0.6)
    ax.tick_params(labelsize=7)
    draw(ax)
    ax.xaxis.label.set_fontsize(8)
    ax.yaxis.label.set_fontsize(8)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=7, frameon=False)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=FIGURE_DPI, metadata={"Software": None})
    return buf.getvalue()


def _img(png: bytes, alt: str) -> str:
    uri = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
    return f'<img alt="{_html.escape(alt)}" src="{uri}"/>'


def _wrap(title: str, *parts: str) -> str:
    return ('<div class="hc-display"><p><strong>' + _html.escape(title) + "</strong></p>"
            + "".join(parts) + "</div>")


def _name(obj) -> str:
    return type(obj).__name__


# -- text reprs -----------------------------------------------------------------------------
def text(obj) -> str:
    """Compact one-line text repr of a hydrocalc object (used by ``__repr__``)."""
    kind = _name(obj)
    if kind == "Site":
        return (f"Site({obj.name!r}, scenarios={list(obj.scenarios)}, "
                f"storms={list(obj.storms.names)}, design_points={list(obj.design_point_ids)})")
    if kind == "RoutingResult":
        return (f"RoutingResult(name={obj.name!r}, peak_inflow_cfs={obj.peak_inflow_cfs:.4g}, "
                f"peak_outflow_cfs={obj.peak_outflow_cfs:.4g}, "
                f"peak_stage_ft={obj.peak_stage_ft:.4g}, overtopped={bool(obj.overtopped)})")
    if kind == "Assessment":
        yn = {True: "yes", False: "no", None: "undetermined"}
        return (f"Assessment(profile={obj.profile.key!r}, swppp_required="
                f"{yn[obj.swppp_required]}, post_construction_required="
                f"{yn[obj.post_construction_required]}, inspections_required="
                f"{yn[obj.inspections_required]})")
    if kind == "InspectionSchedule":
        return (f"InspectionSchedule({obj.start_date.isoformat()} to "
                f"{obj.end_date.isoformat()}, {len(obj.visits)} visits, every "
                f"{obj.interval_days} days and after {obj.threshold_in:g} in of rain)")
    return repr(obj)


# -- HTML reprs -----------------------------------------------------------------------------
def html(obj) -> str:
    """HTML display of a hydrocalc object.

    Summary table(s) with units and, where it helps, a small inline figure.
    """
    kind = _name(obj)
    handler = _HANDLERS.get(kind)
    if handler is None and hasattr(obj, "leaves") and hasattr(obj, "discharge_cfs"):
        handler = _device
    if handler is None:
        return "<pre>" + _html.escape(repr(obj)) + "</pre>"
    return handler(obj)


def _hydrograph(h) -> str:
    import pandas as pd

    s = h.summary()
    row = {"name": h.name or "–"}
    if h.area_ac is not None:
        row["area_ac"] = h.area_ac
    row.update(s)
    row["dt_hr"] = h.dt_hr
    frame = pd.DataFrame([row])

    def draw(ax):
        ax.plot(h.time_hr, h.flow_cfs, color="#1f77b4", linewidth=1.2)
        ax.plot([s["time_of_peak_hr"]], [s["peak_cfs"]], "o", color="#d62728", markersize=3)
        ax.set_xlabel("Time [hr]")
        ax.set_ylabel("Flow [cfs]")
        ax.set_ylim(bottom=0)

    return _wrap("Hydrograph", table_html("hydrograph", "", frame, decimals={"dt_hr": 3}),
                 _img(figure_png(draw), "hydrograph"))


def _hydrograph_set(hs) -> str:
    m, n, _ = hs.flow_cfs.shape
    table = table_html("hydrograph_set", f"{m} storms x {n} subcatchments", hs.summary(),
                       "Direct runoff: NRCS unit hydrograph (NEH 630 Ch. 16).")
    last = m - 1

    def draw(ax):
        for j in range(min(n, 8)):
            ax.plot(hs.time_hr, hs.flow_cfs[last, j], linewidth=1.1, label=str(hs.names[j]))
        ax.set_xlabel("Time [hr]")
        ax.set_ylabel("Flow [cfs]")
        ax.set_ylim(bottom=0)
        ax.set_title(f"storm {hs.storm_names[last]}", fontsize=8)

    return _wrap("HydrographSet", table, _img(figure_png(draw), "hydrographs"))


def _routing(r) -> str:
    import pandas as pd

    s = r.summary()
    frame = pd.DataFrame([s])
    table = table_html("routing", r.name or "", frame,
                       "Storage-indication (modified Puls) routing.",
                       decimals={"mass_balance_error_pct": 3})

    def draw(ax):
        ax.plot(r.time_hr, r.inflow_cfs, "--", color="#1f77b4", linewidth=1.0, label="Inflow")
        ax.plot(r.time_hr, r.outflow_cfs, color="#d62728", linewidth=1.3, label="Outflow")
        ax.set_xlabel("Time [hr]")
        ax.set_ylabel("Flow [cfs]")
        ax.set_ylim(bottom=0)
        ax2 = ax.twinx()
        ax2.plot(r.time_hr, r.stage_ft, ":", color="#2ca02c", linewidth=1.0)
        ax2.set_ylabel("Stage [ft] (dotted)", fontsize=8)
        ax2.tick_params(labelsize=7)
        ax2.set_ylim(bottom=0)

    return _wrap("RoutingResult", table, _img(figure_png(draw), "inflow and outflow"))


def _stage_storage(ss) -> str:
    frame = ss.to_frame()
    table = table_html("stage_storage", f"{ss.name or 'stage-storage'} ({ss.method})", frame)

    def draw(ax):
        ax.plot(frame["storage_ft3"], frame["stage_ft"], "o-", color="#1f77b4",
                linewidth=1.2, markersize=3)
        ax.set_xlabel("Storage [ft³]")
        ax.set_ylabel("Stage [ft]")
        ax.set_xlim(left=0)

    return _wrap("StageStorage", table, _img(figure_png(draw, size_in=(4.0, 2.3)),
                                             "stage-storage"))


def _device_rows(device):
    import dataclasses

    rows = []
    for leaf in device.leaves():
        row = {"name": getattr(leaf, "name", ""), "type": type(leaf).__name__,
               "kind": getattr(leaf, "kind", ""), "lowest_ft": leaf.lowest_ft}
        if dataclasses.is_dataclass(leaf):
            for f in dataclasses.fields(leaf):
                if f.name not in row and not f.name.startswith("_"):
                    value = getattr(leaf, f.name)
                    if isinstance(value, (int, float, str, bool)):
                        row[f.name] = value
        rows.append(row)
    return rows


def _device(device) -> str:
    import pandas as pd

    frame = pd.DataFrame(_device_rows(device))
    return _wrap(type(device).__name__, table_html(
        "outlet", "Outlet device", frame,
        "Stages measured up from the pond bottom; coefficients as used in the rating.",
        labels={"cd": "Cd", "cw": "Cw", "lowest_ft": "Lowest active stage [ft]"}))


def _site(site) -> str:
    import pandas as pd

    rows = [{"scenario": name, "subcatchments": len(sc.subcatchments), "ponds": len(sc.ponds),
             "reaches": len(sc.reaches), "design_points": len(sc.design_points),
             "area_ac": sc.area_ac, "impervious_ac": sc.impervious_ac}
            for name, sc in site.scenarios.items()]
    subs = [{"scenario": name, "id": s.id, "to": s.to, "area_ac": s.area_ac, "cn": s.cn,
             "tc_hr": s.tc_hr, "impervious_pct": s.impervious_pct}
            for name, sc in site.scenarios.items() for s in sc.subcatchments]
    storms = pd.DataFrame({"storm": list(site.storms.depths_in),
                           "precip_in": list(site.storms.depths_in.values())})
    return _wrap(f"Site: {site.name}",
                 table_html("scenarios", "Scenarios", pd.DataFrame(rows)),
                 table_html("subcatchments", "Subcatchments", pd.DataFrame(subs),
                            decimals={"cn": 1}),
                 table_html("storms", f"Design storms (NRCS type {site.storms.distribution})",
                            storms, site.storms.source))


def _site_results(res) -> str:
    cmp_cols = ["design_point", "storm", "pre_peak_cfs", "post_peak_cfs", "peak_change_pct",
                "post_le_pre"]
    crit_cols = ["criterion", "design_point", "storm", "required", "provided", "units",
                 "result"]
    comparison = res.comparison[[c for c in cmp_cols if c in res.comparison.columns]]
    criteria = res.criteria[[c for c in crit_cols if c in res.criteria.columns]]
    verdict = "meets every criterion" if res.passed else "does NOT meet every criterion"
    warn = f" {len(res.warnings)} warnings (see .warnings)." if res.warnings else ""
    return _wrap(f"SiteResults: {res.site.name}: {verdict}.{warn}",
                 table_html("comparison", "Peak flow at each design point, pre and post",
                            comparison, labels={"post_le_pre": "Post ≤ pre"}),
                 table_html("criteria", "Sizing criteria", criteria))


def _assessment(a) -> str:
    frame = a.to_frame()
    findings = frame[frame["kind"] != "checklist"][["kind", "id", "citation", "applies",
                                                    "text"]]
    checklist = a.checklist_frame()[["id", "citation", "applies", "produced_by"]]
    lines = "".join(f"<li>{_html.escape(line)}</li>" for line in a.summary_lines())
    return _wrap(f"Assessment: {a.profile.name}", f"<ul>{lines}</ul>",
                 table_html("findings", "Findings", findings),
                 table_html("checklist", "SWPPP content checklist", checklist))


def _inspections(sch) -> str:
    by_month = sch.count_by_month().reset_index()
    visits = sch.to_frame()
    return _wrap(text(sch),
                 table_html("by_month", "Visits per month (estimate from the rainfall record)",
                            by_month, sch.citation),
                 table_html("visits", "Inspection visits (estimate)", visits))


_HANDLERS = {
    "Hydrograph": _hydrograph,
    "HydrographSet": _hydrograph_set,
    "RoutingResult": _routing,
    "StageStorage": _stage_storage,
    "Site": _site,
    "SiteResults": _site_results,
    "Assessment": _assessment,
    "InspectionSchedule": _inspections,
}
