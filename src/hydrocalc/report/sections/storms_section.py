"""The ``storms`` section: design-storm depths and their source, hyetographs.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hydrocalc.report import figures as F
from hydrocalc.report.sections.builder import _Builder, _fmt, distribution_label
from hydrocalc.report.tables import Table, md_escape
from hydrocalc.rainfall import design_storm, max_window_fraction


def _storm_list(site):

    st = site.storms
    return [design_storm(depth, distribution=st.distribution, dt_hr=st.rain_dt_hr,
                         duration_hr=st.duration_hr, name=name)
            for name, depth in st.depths_in.items()]


def _build_storms(b: _Builder) -> None:

    site = b.ctx.site
    st = site.storms
    storms = _storm_list(site)
    one_hr = max_window_fraction(st.distribution, 1.0)
    rows = [{"storm": h.name, "depth_in": h.depth_in, "distribution": st.distribution,
             "duration_hr": st.duration_hr, "max_1hr_depth_in": h.depth_in * one_hr,
             "peak_intensity_in_hr": float(np.max(h.intensity_in_hr)),
             "source": st.source or "(not stated)"} for h in storms]
    table = Table("design_storms", "Design-storm depths", pd.DataFrame(rows),
                  caption=f"Hyetographs at {st.rain_dt_hr:g}-hr steps; peak intensity is the "
                          "largest step's average intensity.",
                  labels={"max_1hr_depth_in": "Max 1-hr depth [in]"}, key_columns=["storm"])
    wq = Table("wqv_rainfall", "Water-quality rainfall (90 % rainfall event)",
               pd.DataFrame([{"quantity": "90 % rainfall depth P for WQv",
                              "precip_in": st.wqv_precip_in,
                              "source": st.wqv_precip_source}]), key_columns=["quantity"])
    b.res.values.update({"distribution": st.distribution, "duration_hr": st.duration_hr,
                         "rain_dt_hr": st.rain_dt_hr, "wqv_precip_in": st.wqv_precip_in,
                         "max_1hr_fraction": one_hr})
    names = ", ".join(f"{md_escape(h.name)} ({_fmt(h.depth_in)} in)" for h in storms)
    src = md_escape(st.source) if st.source else "no source stated in the site file"
    b.res.narrative_md = (
        f"The analysis uses {len(storms)} design storms of {_fmt(st.duration_hr, 0)} hours "
        f"with the {md_escape(distribution_label(st.distribution))} rainfall distribution: {names}. "
        f"Depth source: {src}. The largest one-hour share of the storm under this "
        f"distribution is {_fmt(100.0 * one_hr, 1)} %. The water-quality volume uses a "
        f"90 % rainfall depth of {_fmt(st.wqv_precip_in)} in "
        f"({md_escape(st.wqv_precip_source)})."
    )
    for w in st.warnings:
        b.notice(md_escape(w))
        b.res.warnings.append(w)
    b.res.add_table(table)
    b.res.add_table(wq)
    b.figure("hyetographs", "Design-storm hyetographs",
             lambda: F.hyetograph_figure(
                 "hyetographs", "Design-storm hyetographs",
                 [(h.name, np.asarray(h.time_hr), np.asarray(h.intensity_in_hr),
                   np.asarray(h.cumulative_in)) for h in storms]))
    b.echo("storm_inputs", "Design-storm inputs as entered", ["storms", "analysis"])
    b.res.warnings.extend(b.ctx.step_warnings("site"))
