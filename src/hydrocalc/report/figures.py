"""Report figures: matplotlib drawings rendered to PNG, shown inline in notebooks and HTML.

Figures are drawn with matplotlib's object-oriented API on an Agg canvas (no pyplot state,
safe in any kernel or thread) at the size they are printed (6.5 in wide), so the text in the
PDF is as legible as in the notebook. Each drawing function takes plain arrays computed
elsewhere and does no arithmetic beyond what plotting needs (axis limits).
"""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Figure",
    "render",
    "new_figure",
    "line_figure",
    "hyetograph_figure",
    "hydrograph_comparison_figure",
    "stage_storage_discharge_figure",
    "accumulation_figure",
    "inspection_calendar_figure",
    "routing_figure",
    "panel_hydrograph_figure",
    "network_layout",
    "diagram_elements",
    "routing_diagram_figure",
]

WIDTH_IN = 6.5  #: printed width of every figure [in]
DPI = 150  #: PNG resolution [dots per inch]
_COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#17becf",
           "#7f7f7f")


@dataclass(frozen=True)
class Figure:
    """A rendered figure: PNG bytes plus a name (file name) and a caption."""

    name: str
    title: str
    png: bytes
    caption: str = ""

    def data_uri(self) -> str:
        """Return the PNG as a base64 ``data:`` URI."""
        return "data:image/png;base64," + base64.b64encode(self.png).decode("ascii")

    def to_html(self) -> str:
        """Return the figure as an HTML ``<figure>`` with its image and caption."""
        cap = html.escape(self.title)
        if self.caption:
            cap += f' <span class="fig-note">{html.escape(self.caption)}</span>'
        return (f'<figure class="hc-figure" id="figure-{html.escape(self.name)}">'
                f'<img alt="{html.escape(self.title)}" src="{self.data_uri()}"/>'
                f"<figcaption>{cap}</figcaption></figure>")

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"Figure({self.name!r}, {len(self.png)} bytes PNG)"


def new_figure(height_in: float = 3.0, *, nrows: int = 1, ncols: int = 1, sharex=False,
               left_in: float = 0.62, right_in: float = 0.22, bottom_in: float = 0.45,
               top_in: float = 0.1, wspace_in: float = 0.0, hspace_in: float = 0.0,
               constrained: bool = False, n_axes: int | None = None):
    """A matplotlib Figure (Agg canvas, no pyplot) and its axes, at the printed size.

    The axes sit at fixed margins given in inches (``left_in`` ... ``top_in``; gaps between
    panels ``wspace_in`` and ``hspace_in``), sized for the 8-8.5 pt tick and axis labels every
    figure uses. Fixed margins cost nothing to lay out, whereas matplotlib's constrained
    layout measures every text element again at each save (most of a figure's drawing time);
    ``constrained=True`` keeps that layout for a figure whose extent depends on its content
    (no report figure needs it: the routing diagram, which has neither ticks nor axis
    labels, reserves fixed margins for its panel titles and its one-row legend).

    ``n_axes`` (with ``sharex`` False) makes only the first ``n_axes`` panels of the grid,
    row by row; the other slots of the returned array are ``None`` and stay blank (an
    unused panel costs as much to set up as a drawn one).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure as MplFigure

    fig = MplFigure(figsize=(WIDTH_IN, height_in), dpi=DPI,
                    layout="constrained" if constrained else None)
    FigureCanvasAgg(fig)
    if n_axes is None or sharex:
        axes = fig.subplots(nrows, ncols, sharex=sharex, squeeze=False)
    else:
        grid = fig.add_gridspec(nrows, ncols)
        axes = np.full((nrows, ncols), None, dtype=object)
        for i in range(min(n_axes, nrows * ncols)):
            axes.flat[i] = fig.add_subplot(grid[i // ncols, i % ncols])
    if not constrained:
        ax_w = (WIDTH_IN - left_in - right_in - (ncols - 1) * wspace_in) / ncols
        ax_h = (height_in - bottom_in - top_in - (nrows - 1) * hspace_in) / nrows
        fig.subplots_adjust(left=left_in / WIDTH_IN, right=1.0 - right_in / WIDTH_IN,
                            bottom=bottom_in / height_in, top=1.0 - top_in / height_in,
                            wspace=wspace_in / ax_w if ncols > 1 else None,
                            hspace=hspace_in / ax_h if nrows > 1 else None)
    for ax in axes.flat:
        if ax is None:
            continue
        ax.grid(True, color="#dddddd", linewidth=0.6)
        ax.tick_params(labelsize=8)
        ax.xaxis.label.set_size(8.5)
        ax.yaxis.label.set_size(8.5)
    return fig, axes


#: zlib level of the PNG files: 1 (fastest). Report figures are flat colours and lines, so
#: the files are barely larger than at the default level 6, in about half the time.
PNG_COMPRESS_LEVEL = 1


def render(fig, name: str, title: str, caption: str = "") -> Figure:
    """Render a matplotlib figure to PNG bytes and wrap it.

    The figure is drawn once on its Agg canvas (at :data:`DPI`) and its pixels are written
    as an 8-bit RGB PNG (the figures are opaque; no alpha channel) with the resolution
    recorded and no time stamp or software tag, so the bytes depend on the drawing only
    (see :func:`_png_rgb`).
    """
    canvas = fig.canvas
    if fig.dpi != DPI:
        fig.set_dpi(DPI)
    canvas.draw()
    width, height = canvas.get_width_height()
    return Figure(name=name, title=title, caption=caption,
                  png=_png_rgb(canvas.buffer_rgba(), width, height, dpi=DPI))


def _png_rgb(rgba, width: int, height: int, *, dpi: float) -> bytes:
    """Return an 8-bit RGB PNG of an RGBA pixel buffer (alpha dropped).

    An 8-bit RGB PNG of an RGBA pixel buffer (alpha dropped), its resolution recorded,
    written by Pillow at zlib level :data:`PNG_COMPRESS_LEVEL` (no time stamp or software
    tag, so the bytes depend on the pixels only).

    A hand-written writer storing every row unfiltered encoded the 23 figures of Pelham and
    Shelter Island in 0.08 s of CPU against Pillow's 0.17 s (same pixels, files 10 % larger),
    about 0.05 s per report, under 2 % of one, so Pillow's writer is used.
    """
    from PIL import Image

    rgb = Image.frombuffer("RGBA", (width, height), rgba, "raw", "RGBA", 0, 1).convert("RGB")
    buf = io.BytesIO()
    rgb.save(buf, format="PNG", compress_level=PNG_COMPRESS_LEVEL, dpi=(dpi, dpi))
    return buf.getvalue()


def _legend(ax, **kw):
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(fontsize=7.5, frameon=False, **kw)


def line_figure(name: str, title: str, series: Sequence[tuple[str, np.ndarray, np.ndarray]], *,
                xlabel: str, ylabel: str, caption: str = "", height_in: float = 3.0,
                xlim=None, drawstyle: str = "default") -> Figure:
    """One panel of labelled lines ``(label, x, y)``."""
    fig, axes = new_figure(height_in)
    ax = axes[0, 0]
    for k, (label, x, y) in enumerate(series):
        ax.plot(x, y, label=label, color=_COLORS[k % len(_COLORS)], linewidth=1.3,
                drawstyle=drawstyle)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_ylim(bottom=0)
    _legend(ax)
    return render(fig, name, title, caption)


def hyetograph_figure(name: str, title: str,
                      storms: Sequence[tuple[str, np.ndarray, np.ndarray, np.ndarray]], *,
                      caption: str = "") -> Figure:
    """Design-storm hyetographs: ``(label, time_hr, intensity_in_hr, cumulative_in)`` each.

    Top panel: average intensity of the step *ending* at each time (step plot); bottom:
    cumulative depth.
    """
    fig, axes = new_figure(4.2, nrows=2, sharex=True, hspace_in=0.12)
    top, bottom = axes[0, 0], axes[1, 0]
    for k, (label, time_hr, intensity_in_hr, cumulative_in) in enumerate(storms):
        color = _COLORS[k % len(_COLORS)]
        top.step(time_hr, intensity_in_hr, where="pre", color=color, linewidth=1.0,
                 label=label)
        bottom.plot(time_hr, cumulative_in, color=color, linewidth=1.3, label=label)
    from matplotlib.ticker import MultipleLocator

    bottom.xaxis.set_major_locator(MultipleLocator(3.0))
    bottom.set_xlim(0.0, max(float(np.max(s[1])) for s in storms) if storms else 24.0)
    top.set_ylabel("Intensity [in/hr]")
    bottom.set_ylabel("Cumulative depth [in]")
    bottom.set_xlabel("Time [hr]")
    top.set_ylim(bottom=0)
    bottom.set_ylim(bottom=0)
    _legend(bottom, loc="upper left")
    return render(fig, name, title, caption)


def hydrograph_comparison_figure(name: str, title: str,
                                 series: Sequence[tuple[str, np.ndarray, np.ndarray]], *,
                                 caption: str = "", xlim=None, height_in: float = 2.6
                                 ) -> Figure:
    """Hydrographs ``(label, time_hr, flow_cfs)`` on one axis (pre solid blue, post red)."""
    fig, axes = new_figure(height_in)
    ax = axes[0, 0]
    styles = ("-", "-", "--", ":", "-.")
    for k, (label, time_hr, flow_cfs) in enumerate(series):
        ax.plot(time_hr, flow_cfs, styles[k % len(styles)], label=label,
                color=_COLORS[k % len(_COLORS)], linewidth=1.3)
        if len(flow_cfs):
            i = int(np.argmax(flow_cfs))
            ax.plot([time_hr[i]], [flow_cfs[i]], "o", color=_COLORS[k % len(_COLORS)],
                    markersize=3.5)
    ax.set_xlabel("Time [hr]")
    ax.set_ylabel("Flow [cfs]")
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_ylim(bottom=0)
    _legend(ax)
    return render(fig, name, title, caption)


def stage_storage_discharge_figure(name: str, title: str, stage_ft: np.ndarray,
                                   storage_ft3: np.ndarray, discharge_cfs: np.ndarray, *,
                                   marks: Sequence[tuple[str, float]] = (),
                                   caption: str = "") -> Figure:
    """Storage and discharge against stage, side by side, with labelled stage marks."""
    fig, axes = new_figure(2.8, ncols=2, wspace_in=0.7)
    left, right = axes[0, 0], axes[0, 1]
    left.plot(storage_ft3, stage_ft, color=_COLORS[0], linewidth=1.4)
    left.set_xlabel("Storage [ft³]")
    left.set_ylabel("Stage [ft]")
    right.plot(discharge_cfs, stage_ft, color=_COLORS[1], linewidth=1.4)
    right.set_xlabel("Discharge [cfs]")
    right.set_ylabel("Stage [ft]")
    for k, (label, stage) in enumerate(marks):
        for ax in (left, right):
            ax.axhline(stage, color=_COLORS[(k + 2) % len(_COLORS)], linewidth=0.9,
                       linestyle="--", label=label)
    left.set_xlim(left=0)
    right.set_xlim(left=0)
    _legend(right, loc="lower right")
    return render(fig, name, title, caption)


def accumulation_figure(name: str, title: str,
                        series: Sequence[tuple[str, np.ndarray, np.ndarray, float]], *,
                        caption: str = "") -> Figure:
    """Sediment accumulation ``(label, dates, accumulated_ft3, cleanout_ft3)`` per trap."""
    import matplotlib.dates as mdates

    fig, axes = new_figure(2.8)
    ax = axes[0, 0]
    for k, (label, dates, accumulated_ft3, cleanout_ft3) in enumerate(series):
        color = _COLORS[k % len(_COLORS)]
        ax.step(dates, accumulated_ft3, where="post", color=color, linewidth=1.3,
                label=f"{label} accumulated")
        ax.axhline(cleanout_ft3, color=color, linestyle="--", linewidth=0.9,
                   label=f"{label} cleanout volume")
    ax.set_ylabel("Sediment [ft³]")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    ax.set_ylim(bottom=0)
    _legend(ax, loc="upper left")
    return render(fig, name, title, caption)


def inspection_calendar_figure(name: str, title: str, days, rain_in, inspections, *,
                               threshold_in: float, caption: str = "") -> Figure:
    """Daily rainfall bars with inspection dates marked by reason.

    ``inspections`` is a sequence of ``(date, reason_label)``.
    """
    import matplotlib.dates as mdates

    fig, axes = new_figure(3.2, bottom_in=0.8)
    ax = axes[0, 0]
    day_arr, rain_arr = np.asarray(days), np.asarray(rain_in, dtype=float)
    wet = np.flatnonzero(rain_arr != 0.0)
    if len(wet) == 0 or len(wet) == len(day_arr):
        ax.bar(days, rain_in, width=1.0, color="#6baed6", label="Daily rainfall")
    else:
        # Only the wet days get a bar (a dry day's bar has no height, and matplotlib spends
        # most of this figure's time on one Rectangle per day); the axis spans every day
        # as before, so the picture is the same pixel for pixel.
        ax.bar(day_arr[wet], rain_arr[wet], width=1.0, color="#6baed6",
               label="Daily rainfall")
        span = ax.convert_xunits(day_arr[[0, -1]])
        ax.update_datalim([(float(span[0]) - 0.5, 0.0), (float(span[1]) + 0.5, 0.0)],
                          updatey=False)
        ax.autoscale_view()
    ax.axhline(threshold_in, color=_COLORS[1], linestyle="--", linewidth=0.9,
               label="Inspection trigger depth")
    top = max(float(np.nanmax(rain_in)) if len(rain_in) else 0.0, threshold_in) * 1.3 or 1.0
    reasons = sorted({r for _, r in inspections})
    for k, reason in enumerate(reasons):
        dates = [d for d, r in inspections if r == reason]
        ax.plot(dates, [top * (0.95 - 0.07 * k)] * len(dates), "v", markersize=4,
                color=_COLORS[(k + 2) % len(_COLORS)], label=f"Inspection: {reason}")
    ax.set_ylim(0, top)
    ax.set_ylabel("Rainfall [in]")
    ax.xaxis.set_major_formatter(mdates.ConciseDateFormatter(ax.xaxis.get_major_locator()))
    _legend(ax, loc="upper center", bbox_to_anchor=(0.5, -0.14), ncols=3)
    return render(fig, name, title, caption)


def routing_figure(name: str, title: str,
                   series: Sequence[tuple[str, np.ndarray, np.ndarray]], *, caption: str = "",
                   xlim=None) -> Figure:
    """Draw pond inflow and outflow, one colour per storm.

    Pond inflow and outflow: ``series`` alternates (inflow, outflow) per storm; one
    colour per storm, inflow dashed and thin, outflow solid.
    """
    fig, axes = new_figure(3.0)
    ax = axes[0, 0]
    for k in range(0, len(series), 2):
        color = _COLORS[(k // 2) % len(_COLORS)]
        label_in, t_in, q_in = series[k]
        ax.plot(t_in, q_in, "--", color=color, linewidth=0.9, label=label_in)
        if k + 1 < len(series):
            label_out, t_out, q_out = series[k + 1]
            ax.plot(t_out, q_out, "-", color=color, linewidth=1.5, label=label_out)
    ax.set_xlabel("Time [hr]")
    ax.set_ylabel("Flow [cfs]")
    if xlim is not None:
        ax.set_xlim(*xlim)
    ax.set_ylim(bottom=0)
    _legend(ax, ncols=2)
    return render(fig, name, title, caption)


def panel_hydrograph_figure(name: str, title: str, panels, *, window=None,
                            caption: str = "") -> Figure:
    """Draw small multiples of hydrograph comparisons, two panels per row.

    Small multiples: ``panels`` is a sequence of ``(panel_title, series)`` with series as in
    :func:`hydrograph_comparison_figure`; two panels per row, each with its own axes.
    ``window(series)`` may return x limits for a panel.
    """
    if not panels:
        raise ValueError(f"figure {name!r} needs at least one panel; got none")
    n = len(panels)
    ncols = 1 if n == 1 else 2
    nrows = (n + ncols - 1) // ncols
    fig, axes = new_figure(2.3 * nrows if n > 1 else 2.8, nrows=nrows, ncols=ncols,
                           top_in=0.3, hspace_in=0.75, wspace_in=0.65, n_axes=n)
    styles = ("-", "-", "--", ":")
    for i, ax in enumerate(axes.flat):
        if i >= n:
            continue
        panel_title, series = panels[i]
        for k, (label, time_hr, flow_cfs) in enumerate(series):
            ax.plot(time_hr, flow_cfs, styles[k % len(styles)], label=label,
                    color=_COLORS[k % len(_COLORS)], linewidth=1.3)
        ax.set_title(panel_title, fontsize=9)
        ax.set_xlabel("Time [hr]")
        ax.set_ylabel("Flow [cfs]")
        lim = window(series) if window is not None else None
        if lim is not None:
            ax.set_xlim(*lim)
        ax.set_ylim(bottom=0)
        if all(len(q) == 0 or float(np.max(q)) <= 0.0 for _, _, q in series):
            ax.text(0.5, 0.5, "no runoff", transform=ax.transAxes, ha="center",
                    va="center", fontsize=9, color="#555555")
            ax.set_ylim(0.0, 1.0)
        if i == 0:
            _legend(ax)
    return render(fig, name, title, caption)


# -- routing diagram ----------------------------------------------------------------------
_NODE_STYLE = {  # kind -> (marker shape, face colour, label)
    "subcatchment": ("hexagon", "#d9ead3", "Subcatchment"),
    "pond": ("triangle", "#cfe2f3", "Pond"),
    "reach": ("square", "#fff2cc", "Reach"),
    "design_point": ("diamond", "#f4cccc", "Design point"),
}


def network_layout(nodes: Sequence[tuple[str, str]], edges: Sequence[tuple[str, str]]
                   ) -> dict[str, tuple[float, float]]:
    """Positions of a drainage network's nodes for a routing diagram (no graph library).

    Each node's column is its longest path from a headwater node (subcatchments upstream,
    on the left; design points downstream, on the right); nodes of a column are spread
    vertically in the order given, then each column is ordered by the mean row of its
    upstream nodes so links cross as little as a simple sweep allows.

    Parameters
    ----------
    nodes : sequence of (id, kind)
    edges : sequence of (from_id, to_id)

    Returns
    -------
    dict
        ``{id: (x, y)}`` with x the column (0, 1, ...) and y the row (0 at the top).
    """
    ids = [n for n, _ in nodes]
    ups: dict[str, list[str]] = {n: [] for n in ids}
    for a, b in edges:
        if a in ups and b in ups:
            ups[b].append(a)
    col: dict[str, int] = {}

    def depth(n: str, seen: frozenset = frozenset()) -> int:
        if n in col:
            return col[n]
        if n in seen:  # a cycle cannot occur in a validated site; guard anyway
            return 0
        col[n] = 0 if not ups[n] else 1 + max(depth(u, seen | {n}) for u in ups[n])
        return col[n]

    for n in ids:
        depth(n)
    pos: dict[str, tuple[float, float]] = {}
    for c in range(max(col.values(), default=-1) + 1):
        members = [n for n in ids if col[n] == c]
        if c > 0:
            members.sort(key=lambda n: (sum(pos[u][1] for u in ups[n]) / len(ups[n])
                                        if ups[n] else 0.0))
        for i, n in enumerate(members):
            pos[n] = (float(c), float(i))
    return pos


def diagram_elements(nodes: Sequence[tuple[str, str]], edges: Sequence[tuple[str, str]]
                     ) -> dict:
    """Return what a routing-diagram panel draws (nodes and arrows).

    What a routing-diagram panel draws: ``{"nodes": [(id, kind, x, y), ...],
    "arrows": [(from_id, to_id), ...]}`` (every node given, every link between two of them;
    positions by :func:`network_layout`).
    """
    pos = network_layout(nodes, edges)
    return {"nodes": [(n, k, *pos[n]) for n, k in nodes],
            "arrows": [(a, b) for a, b in edges if a in pos and b in pos]}


def routing_diagram_figure(name: str, title: str,
                           scenarios: Sequence[tuple[str, Sequence[tuple[str, str]],
                                                     Sequence[tuple[str, str]]]]) -> Figure:
    """Routing diagram, one panel per scenario: nodes by kind, arrows along every link.

    ``scenarios`` is ``[(label, [(node_id, kind), ...], [(from_id, to_id), ...]), ...]``;
    the drawing shows exactly those nodes and links (positions by :func:`network_layout`).
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import FancyArrowPatch

    panels = [diagram_elements(nodes, edges) for _, nodes, edges in scenarios]
    layouts = [{n: (x, y) for n, _, x, y in p["nodes"]} for p in panels]
    rows = max((max((y for _, y in lay.values()), default=0) + 1 for lay in layouts), default=1)
    # fixed margins: a panel title above, one legend row below (no ticks or axis labels)
    fig, axes = new_figure(height_in=min(1.0 + 0.55 * rows, 8.5) * 1.0 + 0.4,
                           ncols=max(len(scenarios), 1), left_in=0.08, right_in=0.08,
                           top_in=0.28, bottom_in=0.34, wspace_in=0.16)
    shapes = {"hexagon": "h", "triangle": "^", "square": "s", "diamond": "D"}
    for ax, (label, nodes, _), pos, panel in zip(axes.flat, scenarios, layouts, panels,
                                                 strict=False):
        ax.grid(False)
        ax.set_xticks([])
        ax.set_yticks([])
        for spine in ax.spines.values():
            spine.set_visible(False)
        ax.set_title(label, fontsize=9)
        kinds = dict(nodes)
        for a, b in panel["arrows"]:
            ax.add_patch(FancyArrowPatch(pos[a], pos[b], arrowstyle="-|>", mutation_scale=9,
                                         color="#555555", lw=0.9, shrinkA=11, shrinkB=11))
        for nid, (x, y) in pos.items():
            shape, face, _ = _NODE_STYLE.get(kinds[nid], ("hexagon", "#eeeeee", kinds[nid]))
            ax.plot([x], [y], marker=shapes[shape], markersize=16, color=face,
                    markeredgecolor="#333333", linestyle="none")
            ax.annotate(nid, (x, y), xytext=(0, -14), textcoords="offset points",
                        ha="center", va="top", fontsize=7)
        xs = [p[0] for p in pos.values()] or [0.0]
        ys = [p[1] for p in pos.values()] or [0.0]
        ax.set_xlim(min(xs) - 0.6, max(xs) + 0.6)
        ax.set_ylim(max(ys) + 0.8, min(ys) - 0.6)
    handles = [Line2D([], [], marker=shapes[s], color=f, markeredgecolor="#333333",
                      linestyle="none", markersize=8, label=lab)
               for s, f, lab in _NODE_STYLE.values()]
    fig.legend(handles=handles, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=4,
               fontsize=7, frameon=False)
    return render(fig, name, title,
                  caption="Arrows follow each node's 'to' link, upstream to downstream.")
