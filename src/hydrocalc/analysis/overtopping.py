r"""Ponds routed above the top of their stage-storage table: how far, how much, how fast.

The routing (:mod:`hydrocalc.hydraulics.routing`) never stops at the top of a structure:
above it the storage continues with vertical walls at the largest plan area and nothing
flows over the embankment (``RoutingResult.overtopped`` flags it). Those results above the
top are an extension of the table, not a description of the pond, so a report states them
as such:
:func:`overtopping_rows` gives, for every pond-storm that overtops,

* ``peak_stage_ft`` (as routed with the vertical-wall extension) and ``top_stage_ft``;
* ``overtopping_depth_ft`` = peak stage - top;
* ``overtopping_volume_ft3`` = peak storage - storage at the top (all units): the water the
  structure cannot hold, stored above the top by the extension;
* ``peak_overtopping_cfs``: the flow over the top if the embankment spilled freely at its
  top, :math:`Q_{over} = \max_t (I(t) - O_{top})` over the steps routed above the top,
  where :math:`I` is the inflow and :math:`O_{top}` the outflow through the outlets (primary
  plus exfiltration) when the routed stage crosses the top (linear interpolation between
  the two steps around the first crossing);
* ``time_above_top_hr``: the time the routed stage stays above the top.

These are level-pool bookkeeping (continuity, dS/dt = I - O) on the routed hydrographs, no
hydraulics of the embankment: the actual overflow also depends on the crest's length and
shape, which the site file does not describe. Model a spillway as an outlet device
(``rectangular_weir``) to route it.

Symbols
-------
=======================  ======  ====================================================
Name                     Unit    Meaning
=======================  ======  ====================================================
overtopping_depth_ft     ft      peak stage minus the top of the structure
overtopping_volume_ft3   ft3     volume held above the top by the vertical-wall extension
peak_overtopping_cfs     ft3/s   largest inflow minus outlet flow at the top, while above it
time_above_top_hr        h       time the routed stage is above the top
=======================  ======  ====================================================

References
----------
.. [1] USDA NRCS, "National Engineering Handbook Part 630 Hydrology," Ch. 17, Flood
   Routing, 2014 (storage-indication routing; continuity I - O = dS/dt).
"""

from __future__ import annotations

import numpy as np

from hydrocalc.analysis.ponds import _max_storage, _top

__all__ = ["OVERTOPPING_COLUMNS", "overtopping_rows"]

#: Columns of :func:`overtopping_rows`, in order.
OVERTOPPING_COLUMNS = ("scenario", "pond", "storm", "peak_stage_ft", "top_stage_ft",
                       "overtopping_depth_ft", "overtopping_volume_ft3",
                       "peak_overtopping_cfs", "time_above_top_hr")


def _outflow_at_top(stage_ft: np.ndarray, outflow_cfs: np.ndarray, top_ft: float) -> float:
    """Outlet flow when the routed stage first crosses ``top_ft`` (linear in stage) [ft3/s]."""
    k = int(np.argmax(stage_ft > top_ft))
    if k == 0:
        return float(outflow_cfs[0])
    h0, h1 = float(stage_ft[k - 1]), float(stage_ft[k])
    w = (top_ft - h0) / (h1 - h0) if h1 > h0 else 1.0
    return float(outflow_cfs[k - 1] + w * (outflow_cfs[k] - outflow_cfs[k - 1]))


def overtopping_rows(results, scenario: str | None = None, pond: str | None = None
                     ) -> list[dict]:
    """Every pond-storm whose routed stage exceeds the top of its structure.

    Parameters
    ----------
    results : hydrocalc.analysis.SiteResults
        The analysis.
    scenario, pond : str, optional
        Only this scenario / pond (default: all).

    Returns
    -------
    list of dict
        One dict per overtopped pond-storm, keys :data:`OVERTOPPING_COLUMNS` (see the
        module docstring for each definition), in the order of ``results.ponds``. Empty
        when no pond overtops.
    """
    pr = results.ponds
    if pr.empty:
        return []
    over = pr[pr["overtopped"].astype(bool)]
    if scenario is not None:
        over = over[over["scenario"] == scenario]
    if pond is not None:
        over = over[over["pond"] == pond]
    if over.empty:
        return []
    storms = list(results.storms)
    dt_hr = float(results.time_hr[1] - results.time_hr[0]) if len(results.time_hr) > 1 else 0.0
    out = []
    for row in over.to_dict("records"):
        name, pid, storm = row["scenario"], row["pond"], row["storm"]
        node = results.site.scenarios[name].nodes[pid]
        arrays = results.pond_arrays(name, pid)
        i = storms.index(storm)
        stage = np.asarray(arrays["stage_ft"][i], dtype=float)
        outflow = (np.asarray(arrays["primary_cfs"][i], dtype=float)
                   + np.asarray(arrays["discarded_cfs"][i], dtype=float))
        inflow = np.asarray(results.flow_cfs(name, storm, pid, which="inflow"), dtype=float)
        top = _top(node)
        above = stage > top
        o_top = _outflow_at_top(stage, outflow, top)
        # continuity with the stage held at the top: what the outlets cannot pass spills
        spill = np.clip(inflow[above] - o_top, 0.0, None)
        out.append({
            "scenario": name, "pond": pid, "storm": storm,
            "peak_stage_ft": float(row["peak_stage_ft"]), "top_stage_ft": top,
            "overtopping_depth_ft": float(row["peak_stage_ft"]) - top,
            "overtopping_volume_ft3": max(float(row["peak_storage_ft3"]) - _max_storage(node),
                                          0.0),
            "peak_overtopping_cfs": float(spill.max()) if spill.size else 0.0,
            "time_above_top_hr": float(above.sum()) * dt_hr,
        })
    return out
