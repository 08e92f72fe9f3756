"""An interactive explorer: move P, CN, impervious share, Tc and the pond outlet, watch the
runoff, the pre/post hydrographs and the pond stage move.

:func:`explore` shows sliders (ipywidgets) wired to :func:`compute`, which only calls the
package: the composite CN (:func:`hydrocalc.runoff.impervious_composite_cn`, TR-55 Fig. 2-3),
runoff depth (:func:`hydrocalc.runoff.runoff_depth`, TR-55 Eqs. 2-1 to 2-4), the NRCS design
storm (:func:`hydrocalc.rainfall.design_storm`), the unit-hydrograph runoff
(:func:`hydrocalc.hydrograph.runoff_hydrograph`, NEH 630 Ch. 16) and storage-indication
routing (:func:`hydrocalc.hydraulics.routing.route_reservoir`). :func:`figure` and :func:`table` draw
and tabulate its result with the report's figure and table code.

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
import warnings

__all__ = ["SLIDERS", "ExplorerResult", "compute", "explore", "figure", "table"]

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
    pre: object
    post: object
    routed: object
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
    from hydrocalc.hydrograph import runoff_hydrograph
    from hydrocalc.hydraulics.outlets import CircularOrifice, RectangularWeir
    from hydrocalc.rainfall import design_storm
    from hydrocalc.hydraulics.routing import StageStorage, route_reservoir
    from hydrocalc.runoff import impervious_composite_cn, runoff_depth

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

    from hydrocalc.report.tables import Table

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
    from hydrocalc.report import figures as F

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


def explore(static: bool | None = None, **values):
    """Sliders for P, CN, impervious share, Tc, orifice diameter and weir length.

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
        The widget (interactive), or the computed result (static).
    """
    widgets = None
    if static is not True:
        try:
            import ipywidgets as widgets
        except ImportError:
            widgets = None
    if widgets is None or (static is None and not _kernel_running()):
        result = compute(**values)
        if _kernel_running() or static:
            _show(result)
        return result

    fixed = {k: v for k, v in values.items() if k not in SLIDERS}
    import inspect

    defaults = {k: p.default for k, p in inspect.signature(compute).parameters.items()}
    sliders = {}
    for name, (lo, hi, step, label) in SLIDERS.items():
        sliders[name] = widgets.FloatSlider(
            value=float(values.get(name, defaults[name])), min=lo, max=hi, step=step,
            description=label, continuous_update=False,
            style={"description_width": "110px"}, layout=widgets.Layout(width="420px"))

    def update(**current):
        _show(compute(**current, **fixed))

    out = widgets.interactive_output(update, sliders)
    return widgets.VBox([widgets.HBox([widgets.VBox(list(sliders.values())[:3]),
                                       widgets.VBox(list(sliders.values())[3:])]), out])
