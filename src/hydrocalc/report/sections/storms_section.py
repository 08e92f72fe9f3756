"""The ``storms`` section: design-storm depths and their source, hyetographs.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from hydrocalc.design_storms import matching_distributions, storm_shape_warning
from hydrocalc.rainfall import design_storm, max_window_fraction
from hydrocalc.report import figures as F
from hydrocalc.report.sections.builder import _Builder, _fmt, distribution_label
from hydrocalc.report.tables import Table, md_escape

#: How the storms table names each depth source (:data:`hydrocalc.design_storms.DEPTH_SOURCES`).
_SOURCE_LABELS = {"noaa_atlas_14": "NOAA Atlas 14", "nrcc": "NRCC",
                  "other": "other (see source)"}


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
    shape_warning = storm_shape_warning(st.source, st.distribution,
                                        illustrative=st.illustrative,
                                        suggested=st.suggested_distribution)
    kind = _SOURCE_LABELS[st.depth_source]
    family = matching_distributions(st.depth_source)
    canon = str(st.distribution).strip().upper().replace("-", "_").replace(" ", "_")
    if shape_warning:
        shape = "MISMATCH: use " + ", ".join(family)
    elif family and canon not in family:
        shape = "another family's shape; the depths' own: " + ", ".join(family)
    elif family:
        shape = "matches"
    else:
        shape = "not checked (depths not from NOAA Atlas 14 or NRCC)"
    rows = [{"storm": h.name, "depth_in": h.depth_in, "depth_source": kind,
             "source": st.source or "(not stated)", "distribution": st.distribution,
             "shape_vs_depths": shape,
             "duration_hr": st.duration_hr, "max_1hr_depth_in": h.depth_in * one_hr,
             "peak_intensity_in_hr": float(np.max(h.intensity_in_hr))} for h in storms]
    table = Table("design_storms", "Design-storm depths", pd.DataFrame(rows),
                  caption=f"Hyetographs at {st.rain_dt_hr:g}-hr steps; peak intensity is the "
                          "largest step's average intensity.",
                  labels={"max_1hr_depth_in": "Max 1-hr depth [in]",
                          "depth_source": "Depth source", "distribution": "Storm shape",
                          "shape_vs_depths": "Shape vs depth source"},
                  key_columns=["storm"])
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
        f"with the {md_escape(distribution_label(st.distribution))} rainfall distribution: "
        f"{names}. "
        f"Depth source: {src}. The largest one-hour share of the storm under this "
        f"distribution is {_fmt(100.0 * one_hr, 1)} %. The water-quality volume uses a "
        f"90 % rainfall depth of {_fmt(st.wqv_precip_in)} in "
        f"({md_escape(st.wqv_precip_source)})."
    )
    for w in st.warnings:
        b.notice(md_escape(w))
        b.res.warnings.append(w)
    if shape_warning:
        b.notice(md_escape(shape_warning))
    b.res.add_table(table)
    b.res.add_table(wq)
    b.figure("hyetographs", "Design-storm hyetographs",
             lambda: F.hyetograph_figure(
                 "hyetographs", "Design-storm hyetographs",
                 [(h.name, np.asarray(h.time_hr), np.asarray(h.intensity_in_hr),
                   np.asarray(h.cumulative_in)) for h in storms]))
    b.echo("storm_inputs", "Design-storm inputs as entered", ["storms", "analysis"])
    b.res.warnings.extend(b.ctx.step_warnings("site"))
