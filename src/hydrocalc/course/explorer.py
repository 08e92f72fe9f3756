"""An interactive explorer of runoff, hydrographs and pond stage.

An interactive explorer: move P, CN, impervious share, Tc and the pond outlet, watch the
runoff, the pre/post hydrographs and the pond stage move.

:func:`explore` shows sliders (ipywidgets) wired to :func:`compute`, which only calls the
package: the composite CN (:func:`hydrocalc.runoff.impervious_composite_cn`, TR-55 Fig. 2-3),
runoff depth (:func:`hydrocalc.runoff.runoff_depth`, TR-55 Eqs. 2-1 to 2-4), the NRCS design
storm (:func:`hydrocalc.rainfall.design_storm`), the unit-hydrograph runoff
(:func:`hydrocalc.hydrograph.runoff_hydrograph`, NEH 630 Ch. 16) and storage-indication
routing (:func:`hydrocalc.hydraulics.routing.route_reservoir`). :func:`figure` and
:func:`table` draw and tabulate its result with the report's figure and table code.

Without ipywidgets, or outside a running Jupyter kernel, or with ``static=True``,
:func:`explore` shows the static figure and table for the given values instead of sliders.

The watershed is one subcatchment. Before development it is the pervious cover alone (CN
``cn``, time of concentration ``pre_tc_hr``); after development ``impervious_pct`` of it is
directly connected impervious cover (CN 98) and its time of concentration is ``tc_hr``;
the developed runoff passes through a trapezoidal basin with a circular orifice at its
bottom and a rectangular weir at ``weir_crest_ft``. These are teaching choices, stated in
the figure caption, not a design.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import warnings

from hydrocalc.hydraulics.outlets import CircularOrifice, RectangularWeir
from hydrocalc.hydraulics.routing import StageStorage, route_reservoir
from hydrocalc.hydraulics.routing.result import RoutingResult
from hydrocalc.hydrograph import runoff_hydrograph
from hydrocalc.rainfall import design_storm
from hydrocalc.report import figures as F
from hydrocalc.report.tables import Table
from hydrocalc.runoff import impervious_composite_cn, runoff_depth
from hydrocalc.timeseries import Hydrograph

__all__ = ["HINT", "SLIDERS", "ExplorerResult", "compute", "explore", "figure", "panel_html",
           "preview_html", "svg_plot", "table", "verdict"]

#: Slider ranges: name -> (minimum, maximum, step, label with unit).
SLIDERS = {
    "precip_in": (1.0, 10.0, 0.1, "P [in]"),
    "cn": (40.0, 98.0, 1.0, "Pervious CN"),
    "impervious_pct": (0.0, 100.0, 5.0, "Impervious [%]"),
    "tc_hr": (0.1, 2.0, 0.05, "Post Tc [hr]"),
    "orifice_diameter_in": (1.0, 24.0, 0.5, "Orifice D [in]"),
    "weir_length_ft": (0.5, 20.0, 0.5, "Weir L [ft]"),
}


@dataclasses.dataclass(frozen=True)
class ExplorerResult:
    """What :func:`compute` returns.

    Attributes
    ----------
    pre_cn, post_cn : float
        Curve numbers before and after development. [-]
    pre_runoff_in, post_runoff_in : float
        Runoff depths of the storm. [in]
    pre, post : hydrocalc.hydrograph.Hydrograph
        Runoff hydrographs before and after development (post: into the pond).
    routed : hydrocalc.hydraulics.routing.RoutingResult
        The post hydrograph routed through the pond.
    inputs : dict
        The arguments of :func:`compute`.
    warnings : tuple of str
        Warnings the package raised (e.g. Tc raised to 0.1 h, overtopping).
    """

    pre_cn: float
    post_cn: float
    pre_runoff_in: float
    post_runoff_in: float
    pre: Hydrograph
    post: Hydrograph
    routed: RoutingResult
    inputs: dict
    warnings: tuple = ()


def compute(precip_in: float = 5.0, cn: float = 70.0, impervious_pct: float = 40.0,
            tc_hr: float = 0.25, orifice_diameter_in: float = 6.0,
            weir_length_ft: float = 4.0, *, area_ac: float = 5.0, pre_tc_hr: float = 0.5,
            distribution: str = "III", weir_crest_ft: float = 3.5,
            bottom_length_ft: float = 100.0, bottom_width_ft: float = 50.0,
            depth_ft: float = 5.0, side_slope_h_per_v: float = 3.0) -> ExplorerResult:
    """Runoff, pre/post hydrographs and pond routing for one set of slider values.

    Parameters
    ----------
    precip_in : float
        24-hour storm depth. [in]
    cn : float
        Curve number of the pervious cover (the whole watershed before development). [-]
    impervious_pct : float
        Directly connected impervious share after development. [%]
    tc_hr : float
        Time of concentration after development. [hr]
    orifice_diameter_in : float
        Diameter of the pond's low orifice (invert at the pond bottom). [in]
    weir_length_ft : float
        Crest length of the pond's rectangular weir. [ft]
    area_ac : float
        Watershed area. [ac]
    pre_tc_hr : float
        Time of concentration before development. [hr]
    distribution : str
        NRCS 24-hour distribution key.
    weir_crest_ft : float
        Weir crest stage above the pond bottom. [ft]
    bottom_length_ft, bottom_width_ft, depth_ft, side_slope_h_per_v : float
        Basin bottom, depth [ft] and side slope [H per V].

    Returns
    -------
    ExplorerResult
    """
    inputs = dict(precip_in=precip_in, cn=cn, impervious_pct=impervious_pct, tc_hr=tc_hr,
                  orifice_diameter_in=orifice_diameter_in, weir_length_ft=weir_length_ft,
                  area_ac=area_ac, pre_tc_hr=pre_tc_hr, distribution=distribution,
                  weir_crest_ft=weir_crest_ft, bottom_length_ft=bottom_length_ft,
                  bottom_width_ft=bottom_width_ft, depth_ft=depth_ft,
                  side_slope_h_per_v=side_slope_h_per_v)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        post_cn = float(impervious_composite_cn(cn, impervious_pct))
        storm = design_storm(precip_in, distribution=distribution, dt_hr=0.1,
                             name=f"{precip_in:g} in")
        pre = runoff_hydrograph(area_ac, cn, pre_tc_hr, storm, name="pre")
        post = runoff_hydrograph(area_ac, post_cn, tc_hr, storm, name="post")
        basin = StageStorage.basin(bottom_length_ft, bottom_width_ft, depth_ft,
                                   side_slope_h_per_v=side_slope_h_per_v, name="pond")
        devices = [CircularOrifice(orifice_diameter_in, 0.0),
                   RectangularWeir(weir_length_ft, weir_crest_ft)]
        routed = route_reservoir(post, basin, devices)
        result = ExplorerResult(
            pre_cn=float(cn), post_cn=post_cn,
            pre_runoff_in=float(runoff_depth(precip_in, cn)),
            post_runoff_in=float(runoff_depth(precip_in, post_cn)),
            pre=pre, post=post, routed=routed, inputs=inputs)
    messages = tuple(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    return dataclasses.replace(result, warnings=messages)


def table(result: ExplorerResult):
    """The result as a report :class:`~hydrocalc.report.tables.Table` (one row per case)."""
    import pandas as pd


    r = result.routed
    frame = pd.DataFrame({
        "case": ["pre-development", "post, into the pond", "post, out of the pond"],
        "cn": [result.pre_cn, result.post_cn, result.post_cn],
        "runoff_in": [result.pre_runoff_in, result.post_runoff_in, result.post_runoff_in],
        "peak_cfs": [result.pre.peak_cfs, result.post.peak_cfs, r.peak_outflow_cfs],
        "time_of_peak_hr": [result.pre.time_of_peak_hr, result.post.time_of_peak_hr,
                            r.time_of_peak_outflow_hr],
        "peak_stage_ft": [None, None, r.peak_stage_ft],
    })
    note = f"Pond top {r.top_stage_ft:g} ft" + (": OVERTOPPED." if r.overtopped else ".")
    return Table("explorer", "Runoff and peaks", frame, caption=note, decimals={"cn": 1})


def figure(result: ExplorerResult):
    """Pre/post/routed hydrographs (top) and pond stage (bottom), a report Figure."""
    r = result.routed
    fig, axes = F.new_figure(4.2, nrows=2, sharex=True)
    top, bottom = axes[0, 0], axes[1, 0]
    top.plot(result.pre.time_hr, result.pre.flow_cfs, color="#1f77b4", label="Pre")
    top.plot(result.post.time_hr, result.post.flow_cfs, color="#d62728", label="Post")
    top.plot(r.time_hr, r.outflow_cfs, "--", color="#2ca02c", label="Post, routed")
    top.set_ylabel("Flow [cfs]")
    top.set_ylim(bottom=0)
    top.legend(fontsize=7.5, frameon=False)
    bottom.plot(r.time_hr, r.stage_ft, color="#9467bd", label="Pond stage")
    bottom.axhline(result.inputs["weir_crest_ft"], color="#7f7f7f", linestyle=":",
                   label="Weir crest")
    bottom.axhline(r.top_stage_ft, color="#000000", linestyle="--", linewidth=0.8,
                   label="Top of pond")
    bottom.set_ylabel("Stage [ft]")
    bottom.set_xlabel("Time [hr]")
    bottom.set_ylim(bottom=0)
    bottom.set_xlim(8.0, 24.0)
    bottom.legend(fontsize=7.5, frameon=False)
    i = result.inputs
    caption = (f"{i['area_ac']:g} ac, type {i['distribution']} storm of {i['precip_in']:g} in; "
               f"pond {i['bottom_length_ft']:g} x {i['bottom_width_ft']:g} ft bottom, "
               f"{i['depth_ft']:g} ft deep; teaching example, not a design.")
    return F.render(fig, "explorer", "Pre vs post hydrographs and pond stage", caption)


def verdict(result: ExplorerResult) -> tuple[str, str]:
    """Return the verdict (``"meets"`` or ``"fails"``, one line).

    (``"meets"`` or ``"fails"``, one line): is the routed post-development peak at most
    the pre-development peak, and does the pond hold the storm (no overtopping)?

    Examples
    --------
    >>> verdict(compute())[0]
    'meets'
    """
    r = result.routed
    pre, out = result.pre.peak_cfs, r.peak_outflow_cfs
    if r.overtopped:
        return "fails", (f"POND OVERTOPPED: peak stage {r.peak_stage_ft:.2f} ft above the top "
                         f"({r.top_stage_ft:g} ft)")
    if out <= pre:
        return "meets", (f"MEETS: post-development peak out of the pond {out:.2f} cfs <= "
                         f"pre-development {pre:.2f} cfs")
    return "fails", (f"EXCEEDS: post-development peak out of the pond {out:.2f} cfs > "
                     f"pre-development {pre:.2f} cfs")


def _nice_top(value: float) -> tuple[float, float]:
    """(axis top, tick step): the next 1-2-2.5-5 x 10^k step above ``value``."""
    import math

    value = max(float(value), 1e-6)
    raw = value / 4.0
    mag = 10.0 ** math.floor(math.log10(raw))
    step = next(m * mag for m in (1.0, 2.0, 2.5, 5.0, 10.0) if m * mag >= raw)
    return step * math.ceil(value / step), step


#: Plot window of the explorer (the storm's active hours). [h]
PLOT_WINDOW_HR = (8.0, 24.0)
#: Largest number of points drawn per line of the live plot (the series is thinned evenly).
PLOT_MAX_POINTS = 400


def _panel(series, box, y_label, lines_extra=()) -> list[str]:
    """SVG elements of one panel: frame, ticks, the series as polylines."""
    import numpy as np

    x0, y0, w, h = box
    t0, t1 = PLOT_WINDOW_HR
    top, step = _nice_top(max([float(np.max(y)) for _, y, _, _ in series] +
                              [v for v, _, _ in lines_extra] + [1e-6]) * 1.05)
    out = [f'<rect x="{x0}" y="{y0}" width="{w}" height="{h}" fill="none" stroke="#888"/>']
    for k in range(round(top / step) + 1):
        v = k * step
        yy = y0 + h - h * v / top
        out.append(f'<line x1="{x0 - 4}" y1="{yy:.1f}" x2="{x0}" y2="{yy:.1f}" stroke="#888"/>'
                   f'<text x="{x0 - 6}" y="{yy + 4:.1f}" text-anchor="end">{v:g}</text>')
    out.append(f'<text x="{x0 - 44}" y="{y0 + h / 2:.1f}" text-anchor="middle" '
               f'transform="rotate(-90 {x0 - 44} {y0 + h / 2:.1f})">{y_label}</text>')
    for t, y, colour, dash in series:
        t, y = np.asarray(t, dtype=float), np.asarray(y, dtype=float)
        keep = np.flatnonzero((t >= t0) & (t <= t1))
        keep = keep[::max(1, keep.size // PLOT_MAX_POINTS)]
        px = x0 + w * (t[keep] - t0) / (t1 - t0)
        py = y0 + h - h * np.clip(y[keep], 0.0, top) / top
        pts = " ".join(f"{a:.1f},{b:.1f}" for a, b in zip(px, py, strict=True))
        out.append(f'<polyline fill="none" stroke="{colour}" stroke-width="1.6"'
                   f'{dash} points="{pts}"/>')
    for v, colour, dash in lines_extra:
        yy = y0 + h - h * min(v, top) / top
        out.append(f'<line x1="{x0}" y1="{yy:.1f}" x2="{x0 + w}" y2="{yy:.1f}" '
                   f'stroke="{colour}"{dash}/>')
    return out


def svg_plot(result: ExplorerResult, width_px: int = 640, height_px: int = 400) -> str:
    """Return the explorer's live plot as inline SVG.

    The explorer's live plot as inline SVG: pre, post and routed hydrographs (top), pond
    stage with the weir crest and the top of the pond (bottom), 8 to 24 h.

    Drawn as text (no raster step), so a slider change redraws in a few milliseconds; the
    report's :func:`figure` draws the same content with matplotlib for print.
    """
    r, i = result.routed, result.inputs
    left, right, gap = 62, 120, 34
    w = width_px - left - right
    h = (height_px - 30 - gap - 36) / 2.0
    dashed = ' stroke-dasharray="6 4"'
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" id="explorer-plot" '
             f'width="{width_px}" height="{height_px}" font-family="sans-serif" '
             f'font-size="11" data-precip-in="{i["precip_in"]:g}" data-cn="{i["cn"]:g}" '
             f'data-peak-outflow-cfs="{r.peak_outflow_cfs:.4f}">']
    parts += _panel([(result.pre.time_hr, result.pre.flow_cfs, "#1f77b4", ""),
                     (result.post.time_hr, result.post.flow_cfs, "#d62728", ""),
                     (r.time_hr, r.outflow_cfs, "#2ca02c", dashed)],
                    (left, 10, w, h), "Flow [cfs]")
    parts += _panel([(r.time_hr, r.stage_ft, "#9467bd", "")], (left, 10 + h + gap, w, h),
                    "Stage [ft]", [(i["weir_crest_ft"], "#7f7f7f", ' stroke-dasharray="2 3"'),
                                   (r.top_stage_ft, "#000000", dashed)])
    t0, t1 = PLOT_WINDOW_HR
    base = 10 + 2 * h + gap
    for t in range(int(t0), int(t1) + 1, 2):
        x = left + w * (t - t0) / (t1 - t0)
        parts.append(f'<text x="{x:.1f}" y="{base + 16:.1f}" text-anchor="middle">{t}</text>')
    parts.append(f'<text x="{left + w / 2:.1f}" y="{base + 32:.1f}" '
                 'text-anchor="middle">Time [hr]</text>')
    legend = [("Pre", "#1f77b4"), ("Post", "#d62728"), ("Post, routed", "#2ca02c"),
              ("Pond stage", "#9467bd"), ("Weir crest", "#7f7f7f"), ("Top of pond", "#000")]
    for k, (label, colour) in enumerate(legend):
        y = 24 + 18 * k + (gap + h - 54 if k >= 3 else 0)
        parts.append(f'<line x1="{left + w + 10}" y1="{y - 4}" x2="{left + w + 30}" '
                     f'y2="{y - 4}" stroke="{colour}" stroke-width="2"/>'
                     f'<text x="{left + w + 36}" y="{y}">{label}</text>')
    parts.append("</svg>")
    return "".join(parts)


#: The line a notebook shows where the explorer will appear, before its cell runs.
HINT = ("Interactive explorer: run this cell (Shift+Enter) in JupyterLab to move the "
        "sliders; the plot and the verdict update as you drag. Below: a preview at the "
        "starting values.")

_STYLE = ("<style>.hc-verdict{font-weight:700;padding:4px 8px;border:1.5px solid;"
          "border-radius:3px;display:inline-block;margin:4px 0}"
          ".hc-verdict.meets{color:#1b5e20;border-color:#1b5e20}"
          ".hc-verdict.fails{color:#b00020;border-color:#b00020}</style>")


def panel_html(result: ExplorerResult, plot: str | None = None) -> str:
    """The explorer's output as HTML: the verdict line, the plot and the table."""
    import html

    cls, line = verdict(result)
    warn = "".join(f"<p>{html.escape(w)}</p>" for w in result.warnings)
    return (f'{_STYLE}<div class="hc-explorer"><p class="hc-verdict {cls}" '
            f'id="explorer-verdict">{html.escape(line)}</p>'
            f"<div>{svg_plot(result) if plot is None else plot}</div>"
            f"{table(result).to_html()}{warn}</div>")


def preview_html(result: ExplorerResult) -> str:
    """Return what a notebook shows before the explorer's cell runs.

    What a notebook shows before the explorer's cell runs: :data:`HINT`, then the
    verdict, plot (as an image, which a notebook shows even before it is trusted) and table
    at the starting values.
    """
    import base64
    import html

    svg = base64.b64encode(svg_plot(result).encode("utf-8")).decode("ascii")
    img = (f'<img alt="Explorer preview at the starting values" '
           f'src="data:image/svg+xml;base64,{svg}"/>')
    return f"<p><b>{html.escape(HINT)}</b></p>" + panel_html(result, plot=img)


def _show(result: ExplorerResult) -> None:
    from IPython.display import display

    display(table(result), figure(result))
    if result.warnings:
        display({"text/plain": "\n".join(result.warnings)}, raw=True)


def _kernel_running() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _bundle(self, **kwargs) -> dict:
    """Return the widget's display bundle.

    The widget's display bundle: the widget view, and for a notebook that cannot show
    it yet (not run, not trusted) the one-line hint and a static preview.
    """
    data = super(type(self), self)._repr_mimebundle_(**kwargs)
    data["text/plain"] = HINT
    data["text/html"] = self.preview_html
    return data


@functools.lru_cache(maxsize=2)
def _box_class(vbox: type) -> type:
    """A VBox whose display bundle carries :func:`_bundle`'s hint and preview."""
    return type("ExplorerBox", (vbox,), {"_repr_mimebundle_": _bundle,
                                         "__doc__": "The explorer's widget."})


def explore(static: bool | None = None, **values):
    """Sliders for P, CN, impervious share, Tc, orifice diameter and weir length.

    The plot (:func:`svg_plot`), the verdict line (:func:`verdict`) and the table update
    while a slider is dragged. Before the cell runs (or in a notebook not yet trusted), the
    cell shows :data:`HINT` and a static preview at the starting values.

    Parameters
    ----------
    static : bool, optional
        True: show the static figure and table for ``values`` (no widgets). Default: static
        only when ipywidgets is not installed or no Jupyter kernel is running.
    **values
        Starting values of the sliders and the fixed arguments of :func:`compute`.

    Returns
    -------
    ipywidgets.VBox or ExplorerResult
        The widget (interactive; ``.children[1]`` is the HTML output updated on every
        change), or the computed result (static).
    """
    widgets = None
    if static is not True:
        try:
            import ipywidgets
        except ImportError:
            pass
        else:
            widgets = ipywidgets
    if widgets is None or (static is None and not _kernel_running()):
        result = compute(**values)
        if _kernel_running() or static:
            _show(result)
        return result

    fixed = {k: v for k, v in values.items() if k not in SLIDERS}
    defaults = {k: p.default for k, p in inspect.signature(compute).parameters.items()}
    sliders = {}
    for name, (lo, hi, step, label) in SLIDERS.items():
        sliders[name] = widgets.FloatSlider(
            value=float(values.get(name, defaults[name])), min=lo, max=hi, step=step,
            description=label, continuous_update=True,
            style={"description_width": "110px"}, layout=widgets.Layout(width="420px"))
    first = compute(**{k: s.value for k, s in sliders.items()}, **fixed)
    out = widgets.HTML(value=panel_html(first))

    def update(change=None):
        # the front end sends at most one update in flight per slider and keeps the latest
        # value while the kernel is busy, so a drag never queues stale work
        out.value = panel_html(compute(**{k: s.value for k, s in sliders.items()}, **fixed))

    for s in sliders.values():
        s.observe(update, names="value")
    box = _box_class(widgets.VBox)(
        [widgets.HBox([widgets.VBox(list(sliders.values())[:3]),
                       widgets.VBox(list(sliders.values())[3:])]), out])
    box.preview_html = preview_html(first)
    return box
