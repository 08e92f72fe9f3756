r"""A site end to end: both scenarios, every storm, every node; pre/post comparison; NY criteria.

:func:`analyze` takes a :class:`hydrocalc.site.Site` and returns :class:`SiteResults`:

1. the design-storm hyetographs (:func:`hydrocalc.rainfall.design_storm`, built once per
   distinct storm and cached);
2. for each scenario, the runoff hydrographs of **all** subcatchments for **all** storms in one
   batch call (:func:`hydrocalc.hydrograph.runoff_hydrographs`, TR-20 method);
3. the network in topological order: flows add at each node, ponds are routed by
   storage-indication for all storms at once (:mod:`hydrocalc.routing`), reaches translate
   their inflow by ``lag_hr`` or, for a pipe or channel, route it by variable-parameter
   Muskingum-Cunge (:func:`hydrocalc.conveyance.route_conveyance`, NEH 630 Ch. 17; one call
   per storm: the scheme is sequential in time); exfiltration leaves the network;
4. the pre/post comparison at each design point and storm (peak flow, volume, time of peak,
   change in percent, post <= pre);
5. the sizing criteria of the site's jurisdiction, evaluated by the criteria layer
   (:func:`hydrocalc.criteria.evaluate`; NY SMDM WQv, RRv, Cpv, Qp, Qf in
   :mod:`hydrocalc.criteria.ny_site`) from the :class:`Hydrology` computed here;
6. every warning raised on the way (``warnings.catch_warnings(record=True)``) in
   :attr:`SiteResults.warnings`.

:meth:`SiteResults.to_json` is deterministic: sorted keys, floats to 10 significant digits
(hydrograph ordinates to 6), no timestamps, so the same input gives byte-identical JSON.

Symbols
-------
=================  ======  ================================================
Name               Unit    Meaning
=================  ======  ================================================
peak_cfs           ft3/s   largest ordinate of a node's (outflow) hydrograph
time_of_peak_hr    h       time of that ordinate
volume_ft3         ft3     volume under the hydrograph
runoff_in          in      volume over the node's upstream area
peak_stage_ft      ft      largest pond stage (above the pond bottom)
peak_storage_ft3   ft3     largest pond storage
discarded_ft3      ft3     volume leaving a pond by exfiltration
=================  ======  ================================================

References
----------
.. [1] USDA NRCS, "National Engineering Handbook Part 630 Hydrology," Ch. 16 (hydrographs)
   and Ch. 17 (flood routing), 2007-2014.
.. [2] NYSDEC, "New York State Stormwater Management Design Manual," 2015, Chapter 4.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import pathlib
import shutil
import tempfile
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from hydrocalc.errors import HydrocalcError, InputError
from hydrocalc.units import FT2_PER_AC, IN_PER_FT, S_PER_HR

__all__ = ["analyze", "analyze_many", "SiteResults", "Hydrology", "RESULTS_FORMAT"]

#: Identifier of the JSON layout written by :meth:`SiteResults.to_json`.
RESULTS_FORMAT = "hydrocalc-site-results/1"
_SIG = 10  # significant digits of numbers in JSON
_SIG_HYDRO = 6  # significant digits of hydrograph ordinates in JSON


# ----------------------------------------------------------------------------------------
# storms


@functools.lru_cache(maxsize=256)
def _hyetograph(depth_in: float, distribution: str, dt_hr: float, duration_hr: float, name: str):
    from hydrocalc.rainfall import design_storm

    return design_storm(depth_in, distribution=distribution, dt_hr=dt_hr,
                        duration_hr=duration_hr, name=name)


def _storms(site, names: Sequence[str]) -> list:
    st = site.storms
    return [_hyetograph(float(st.depths_in[n]), st.distribution, float(st.rain_dt_hr),
                        float(st.duration_hr), n) for n in names]


# ----------------------------------------------------------------------------------------
# node flows


def _shift(flow: np.ndarray, lag_hr: float, dt_hr: float) -> np.ndarray:
    """Translate rows of ``flow`` (…, nt) later by ``lag_hr`` (linear interpolation)."""
    if lag_hr <= 0:
        return flow.copy()
    steps = lag_hr / dt_hr
    k = int(math.floor(steps + 1e-9))
    f = steps - k
    if f < 1e-9:
        f = 0.0
    out = np.zeros_like(flow)
    nt = flow.shape[-1]
    if k < nt:
        out[..., k:] += (1.0 - f) * flow[..., : nt - k]
    if f > 0 and k + 1 < nt:
        out[..., k + 1:] += f * flow[..., : nt - k - 1]
    return out


def _integrate(flow: np.ndarray, dt_hr: float) -> np.ndarray:
    return np.trapezoid(flow, dx=dt_hr * S_PER_HR, axis=-1)


_NOISE = 1e-12  # relative round-off below which a routed flow is zero


class _DeviceFlows(dict):
    """``{device id: flow (m, nt)}`` interpolated from the routing table on first access."""

    def __init__(self, compute):
        super().__init__()
        self._compute = compute
        self._done = False

    def _fill(self):
        if not self._done:
            self._done = True
            self.update(self._compute())

    def __iter__(self):
        self._fill()
        return super().__iter__()

    def __getitem__(self, key):
        self._fill()
        return super().__getitem__(key)

    def __len__(self):
        self._fill()
        return super().__len__()

    def items(self):
        self._fill()
        return super().items()

    def keys(self):
        self._fill()
        return super().keys()

    def values(self):
        self._fill()
        return super().values()


def _device_flows(xs, table, scale, count):
    """Closure computing the device flows (m, nt) of one pond from its table, on demand."""
    from hydrocalc.routing import _interp_ext as interp

    def devices():
        flows = {}
        for nm, _, qq in table.parts:
            q = interp(xs, table.si, qq)
            q[q < scale] = 0.0
            flows[nm] = q * count
        return flows
    return devices


def _pond_hydraulics(pond, res):
    """Row fields of a pond's water levels and tailwater for storm ``i``: bottom, peak and
    top elevations (None for a pond given by stage only), the tailwater kind ("free",
    "constant", "series") and its peak level in the file's frame, and reverse flow."""
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


def _backwater_group(first, root_id: str) -> list[str]:
    """Ponds routed together with pond ``root_id``: every pond whose ``backwater`` outlets
    discharge into it or into another pond of the group, upstream first, the root last."""
    group, k = [root_id], 0
    while k < len(group):
        group += [p.id for p in first.ponds if p.backwater and p.to == group[k]]
        k += 1
    return group[::-1]


def _route_group(net, ids: list[str], time_hr, dt_hr: float) -> None:
    """Route the interconnected ponds ``ids`` (upstream first, the one discharging out of
    the group last) together, storm by storm and variant by variant, and replace their
    series (site-file ponds are in stages; they are put back in elevations so the devices
    see the right relative levels). Two ponds: :func:`route_interconnected` (unless the
    downstream one exfiltrates); more (a chain or a tree): :func:`route_interconnected_chain`."""
    import warnings

    from hydrocalc.hydrograph import Hydrograph
    from hydrocalc.interconnected import route_interconnected, route_interconnected_chain
    from hydrocalc.outlets import unique_names
    from hydrocalc.routing import RoutingResult

    pos = {nid: k for k, nid in enumerate(ids)}
    to_k = [pos.get(net.first.nodes[nid].to) for nid in ids]
    to_k[-1] = None
    kids = [[c for c, d in enumerate(to_k) if d == k] for k in range(len(ids))]
    m, npd = net.m, len(ids)
    for u, sc in enumerate(net.scs):
        nodes = [sc.nodes[nid] for nid in ids]
        z = [p.bottom_elevation_ft for p in nodes]
        ss = [p.stage_storage.with_datum(zk) for p, zk in zip(nodes, z)]
        st = [p.structure() for p in nodes]
        root = nodes[-1]
        tw_r = None if root.tailwater is None else root.tailwater + z[-1]
        out = [{f: np.empty((m, net.nt)) for f in ("stage", "storage", "primary", "disc")}
               for _ in ids]
        flows = [{} for _ in ids]
        results = [[] for _ in ids]
        mb = np.empty((npd, m))
        for i in range(m):
            free_in = [net.inn[nid][i, u] - sum(net.pond_out[ids[c]][i, u] for c in kids[k])
                       for k, nid in enumerate(ids)]
            local = [np.clip(q, 0.0, None) for q in free_in]
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if npd == 2 and "exfiltration" not in root.outlet_types:
                    r2 = route_interconnected(
                        Hydrograph(time_hr, local[0]), ss[0], st[0].shifted(z[0]), ss[1],
                        st[1].shifted(z[1]), inflow_down=Hydrograph(time_hr, local[1]),
                        initial_stage_up_ft=nodes[0].initial_stage_ft,
                        initial_stage_down_ft=nodes[1].initial_stage_ft, tailwater_ft=tw_r)
                    stage = np.stack([r2.stage_up_ft, r2.stage_down_ft])
                    storage = np.stack([r2.storage_up_ft3, r2.storage_down_ft3])
                    prim = np.stack([r2.link_cfs, r2.outflow_down_cfs])
                    disc = np.stack([r2.discarded_up_cfs, np.zeros_like(r2.link_cfs)])
                    errs = [r2.mass_balance_error_up_pct, r2.mass_balance_error_down_pct]
                    t_r = r2.time_hr
                else:
                    rc = route_interconnected_chain(
                        [Hydrograph(time_hr, q) for q in local], ss,
                        [s.shifted(zk) for s, zk in zip(st, z)], to=to_k,
                        initial_stages_ft=[p.initial_stage_ft for p in nodes],
                        tailwater_ft=tw_r, names=ids)
                    stage, storage = rc.stage_ft, rc.storage_ft3
                    prim, disc = rc.outflow_cfs, rc.discarded_cfs
                    errs, t_r = rc.mass_balance_error_pct, rc.time_hr
            for k, p in enumerate(nodes):
                sb = st[k].bind(p.stage_storage)
                d = to_k[k]
                if d is not None:                  # downstream level in this pond's frame
                    tw = stage[d] + (z[d] - z[k])
                    comps = sb._components_tw(stage[k], tw)
                    tw_el = stage[d] + z[d]
                elif p.tailwater is None:
                    comps, tw_el = sb._components(stage[k]), None
                else:
                    comps = sb._components_tw(stage[k], np.full(stage[k].shape, p.tailwater))
                    tw_el = np.full(t_r.shape, tw_r)
                for nm, (_, q) in zip(unique_names([dv for dv, _ in comps]), comps):
                    flows[k].setdefault(nm, np.empty((m, net.nt)))[i] = q
                qin = free_in[k] + sum(prim[c] for c in kids[k])
                qout = prim[k] + disc[k]
                o = out[k]
                o["stage"][i], o["storage"][i] = stage[k], storage[k]
                o["primary"][i], o["disc"][i] = prim[k], disc[k]
                mb[k, i] = errs[k]
                top = p.stage_storage.top_stage_ft
                rev = float(max(-prim[k].min(), 0.0))
                pk = float(stage[k].max())
                results[k].append(RoutingResult(
                    time_hr=t_r, inflow_cfs=qin, outflow_cfs=qout, stage_ft=stage[k],
                    storage_ft3=storage[k], primary_cfs=prim[k], discarded_cfs=disc[k],
                    device_flows_cfs={nm: v[i] for nm, v in flows[k].items()},
                    peak_outflow_cfs=float(qout.max()),
                    time_of_peak_outflow_hr=float(t_r[int(np.argmax(qout))]),
                    peak_primary_cfs=float(prim[k].max()), peak_stage_ft=pk,
                    time_of_peak_stage_hr=float(t_r[int(np.argmax(stage[k]))]),
                    peak_storage_ft3=float(storage[k].max()), peak_inflow_cfs=float(qin.max()),
                    time_of_peak_inflow_hr=float(t_r[int(np.argmax(qin))]),
                    mass_balance_error_pct=float(errs[k]), overtopped=bool(pk > top),
                    top_stage_ft=top, freeboard_ft=top - pk, dt_hr=dt_hr,
                    name=p.id, datum_ft=z[k], tailwater_ft=tw_el, reverse_flow=rev > 1e-6,
                    peak_reverse_cfs=rev if rev > 1e-6 else 0.0))
        for k, nid in enumerate(ids):
            o = out[k]
            net.ponds[u][nid].update({
                "primary_cfs": o["primary"], "discarded_cfs": o["disc"], "stage_ft": o["stage"],
                "storage_ft3": o["storage"], "device_cfs": flows[k],
                "overtopped": np.array([rr.overtopped for rr in results[k]]),
                "mass_balance_error_pct": mb[k], "_results": results[k], "_pair": True})
        for k, nid in enumerate(ids):
            net.pond_out[nid][:, u] = out[k]["primary"]


def _single_device_flows(results, scale, count):
    """Device flows (m, nt) of a pond routed one storm at a time (see _device_flows)."""
    def devices():
        flows = {}
        for nm in results[0].device_flows_cfs:
            q = np.stack([r.device_flows_cfs[nm] for r in results])
            q[np.abs(q) < scale] = 0.0
            flows[nm] = q * count
        return flows
    return devices


def _route_series_tailwater(batch, q, dt_hr, items, series, h0):
    """The batch with the ponds whose tailwater varies in time re-routed one storm at a time
    by :func:`hydrocalc.routing.route_reservoir` (same table, stage frame); their series
    replace the batch's (free-outfall) ones."""
    import dataclasses
    import warnings

    from hydrocalc import routing
    from hydrocalc.hydrograph import Hydrograph

    nt = q.shape[-1]
    t = dt_hr * np.arange(nt)
    results = {}
    out = {k: np.array(getattr(batch, k)) for k in (
        "outflow_cfs", "stage_ft", "storage_ft3", "peak_outflow_cfs", "time_of_peak_outflow_hr",
        "peak_stage_ft", "peak_storage_ft3", "mass_balance_error_pct", "overtopped")}
    for j in series:
        pond = items[j][0]
        results[j] = []
        for i in range(q.shape[0]):
            with warnings.catch_warnings():   # reverse flow and overtopping reported per row
                warnings.simplefilter("ignore")
                r = routing.route_reservoir(Hydrograph(t, q[i, j]), pond.stage_storage,
                                            pond.structure(), initial_stage_ft=h0[i, j],
                                            tailwater_ft=pond.tailwater,
                                            flap_gate=bool(pond.flap_gate))
            out["outflow_cfs"][i, j] = r.outflow_cfs
            out["stage_ft"][i, j] = r.stage_ft
            out["storage_ft3"][i, j] = r.storage_ft3
            out["peak_outflow_cfs"][i, j] = r.peak_outflow_cfs
            out["time_of_peak_outflow_hr"][i, j] = r.time_of_peak_outflow_hr
            out["peak_stage_ft"][i, j] = r.peak_stage_ft
            out["peak_storage_ft3"][i, j] = r.peak_storage_ft3
            out["mass_balance_error_pct"][i, j] = r.mass_balance_error_pct
            out["overtopped"][i, j] = r.overtopped
            results[j].append(r)
    return dataclasses.replace(batch, **out), results


def _route_batch(items: list, dt_hr: float) -> tuple[list[dict], np.ndarray]:
    """Route every ``(pond, inflow (m, nt))`` of ``items`` in one batch (one time loop).

    Returns one dict of series (storm, time) per item (``SiteResults.pond_arrays`` plus
    private keys; views of batch-wide arrays) and the primary outflows of all items, (m, K, nt), all units.
    Device flows are interpolated in each pond's storage-indication table exactly as
    :meth:`hydrocalc.routing.BatchRoutingResult.routing_result` does, lazily (a sweep that
    never looks at device flows skips them).
    """
    from hydrocalc import routing

    m, nt = items[0][1].shape
    k = len(items)
    q = np.empty((m, k, nt))
    for j, (pond, inflow) in enumerate(items):
        np.divide(inflow, pond.count, out=q[:, j])
    h0 = np.broadcast_to(np.array([p.initial_stage_ft for p, _ in items], dtype=float), (m, k))
    # a constant tailwater goes into the batch (one table per pond); a series is routed pond
    # by pond below (its table changes every step); NaN = free outfall (stages: the site
    # parser converts elevations to stages above each pond's bottom)
    tw = [getattr(p, "tailwater", None) for p, _ in items]
    tw_const = np.array([t if isinstance(t, float) else np.nan for t in tw])
    flaps = [bool(getattr(p, "flap_gate", False)) for p, _ in items]
    # overtopping is reported per pond and storm by _check_ponds
    batch = routing.route_reservoirs(q, dt_hr, [p.stage_storage for p, _ in items],
                                     [p.structure() for p, _ in items], initial_stage_ft=h0,
                                     overtopping_warning=False,
                                     tailwater_ft=None if np.isnan(tw_const).all() else tw_const,
                                     flap_gate=flaps)
    series = [j for j, t in enumerate(tw) if t is not None and not isinstance(t, float)]
    singles = {}
    if series:
        batch, singles = _route_series_tailwater(batch, q, dt_hr, items, series, h0)
    del q
    tables = batch._tables
    out_q = batch.outflow_cfs  # (m, K, nt), one unit (not modified below)
    storage = batch.storage_ft3.copy()  # round-off is zeroed below
    scale = np.maximum(out_q.max(axis=-1, keepdims=True), 1e-300) * _NOISE
    xs = np.multiply(storage, 2.0)  # 2 S / dt + O, in place (same operations, same order)
    xs /= tables[0].dt_s
    xs += out_q
    discarded = np.zeros_like(out_q)
    for j, table in enumerate(tables):
        if j in singles:
            discarded[:, j] = [r.discarded_cfs for r in singles[j]]
            continue
        for _, kind, qq in table.parts:
            if kind == "discarded":
                discarded[:, j] += routing._interp_ext(xs[:, j], table.si, qq)
    primary = out_q - discarded
    primary[primary < scale] = 0.0
    smax = np.maximum(storage.max(axis=-1, keepdims=True), 1.0)
    storage[storage < _NOISE * smax] = 0.0
    out = []
    for j, (pond, _) in enumerate(items):
        count = pond.count
        if count != 1:  # all units (x 1 is exact: skipped)
            primary[:, j] *= count
            discarded[:, j] *= count
            storage[:, j] *= count
        out.append({
            "primary_cfs": primary[:, j],
            "discarded_cfs": discarded[:, j],
            "stage_ft": batch.stage_ft[:, j],
            "storage_ft3": storage[:, j],
            "device_cfs": _DeviceFlows(
                _device_flows(xs[:, j], table=tables[j], scale=scale[:, j], count=count)
                if j not in singles else
                _single_device_flows(singles[j], scale=scale[:, j], count=count)),
            "overtopped": np.asarray(batch.overtopped[:, j], dtype=bool),
            "mass_balance_error_pct": np.asarray(batch.mass_balance_error_pct[:, j],
                                                 dtype=float),
            "_batch": batch, "_index": j, "_results": singles.get(j),
        })
    return out, primary


class _ScenarioRun:
    """Everything computed for one scenario of one site (arrays by storm, node, time).

    Node series live in the shared :class:`_Net` (one array per node for every variant);
    ``outflow`` and ``inflow`` (m, n_nodes, nt) are assembled from them on first use, so a
    sweep that reads only design points and ponds never copies every node's hydrographs.
    """

    def __init__(self, name, node_ids, kinds, net, u, upstream_area_ac, sub_flows, sub_index,
                 upstream, ponds, time_hr, reaches=None, rational=None):
        self.name = name
        self.node_ids = node_ids
        self.kinds = kinds
        self._net = net
        self._u = u
        self.upstream_area_ac = upstream_area_ac  # (n_nodes,)
        self.sub_flows = sub_flows  # (m, n_sub, nt): runoff hydrographs of the subcatchments
        self.sub_index = sub_index
        self.upstream = upstream
        self.ponds = ponds
        self.time_hr = time_hr
        self.reaches = reaches if reaches is not None else {}  # conveyance rows by reach id
        self.rational = rational if rational is not None else {}  # rational rows by sub id
        self._outflow = None
        self._inflow = None

    def node_outflow(self, node: str) -> np.ndarray:
        """Outflow (m, nt) of one node (a view)."""
        if self._outflow is not None:
            return self._outflow[:, self.node_ids.index(node)]
        return self._net.node_series(self._net.out, node, self._u)

    def node_inflow(self, node: str) -> np.ndarray:
        """Inflow (m, nt) of one node (a view)."""
        if self._inflow is not None:
            return self._inflow[:, self.node_ids.index(node)]
        return self._net.node_series(self._net.inn, node, self._u)

    def _assemble(self, series: dict) -> np.ndarray:
        net = self._net
        arr = np.zeros((net.m, len(self.node_ids), net.nt))
        for k, nid in enumerate(self.node_ids):
            a = series.get(nid)
            if a is not None:
                arr[:, k] = a[:, self._u]
        return arr

    @property
    def outflow(self) -> np.ndarray:  # (m, n_nodes, nt)
        if self._outflow is None:
            self._outflow = self._assemble(self._net.out)
        return self._outflow

    @property
    def inflow(self) -> np.ndarray:  # (m, n_nodes, nt)
        if self._inflow is None:
            self._inflow = self._assemble(self._net.inn)
        return self._inflow

    def __getstate__(self):  # pickle this variant's arrays, not the whole batch
        state = dict(self.__dict__)
        state["_outflow"], state["_inflow"] = self.outflow, self.inflow
        state["_net"] = None
        return state

    def unrouted(self, i_storm: int, node: str) -> np.ndarray:
        """Sum of the runoff of every subcatchment upstream of ``node``, without routing."""
        idx = [j for nid, j in self.sub_index.items() if nid in self.upstream[node]]
        total = self.sub_flows[i_storm, idx].sum(axis=0)
        for nid, arr in self._net.rational_flows.items():  # rational subcatchments
            if nid in self.upstream[node]:
                total = total + arr[i_storm, self._u]
        return total


def _pond_levels(sc) -> dict[str, int]:
    """Level of each pond: 0 without a pond upstream, else 1 + the highest upstream level."""
    levels: dict[str, int] = {}
    ups = sc.upstream
    for nid in sc.order:  # upstream first
        if sc.nodes[nid].kind == "pond":
            above = [levels[u] for u in ups[nid] if u != nid and u in levels]
            levels[nid] = 1 + max(above) if above else 0
    return levels


class _Net:
    """Node series of one scenario for all unique variants: ``{node id: (m, U, nt)}``.

    Subcatchment outflows are views of the runoff batch, pond outflows the routed primary
    flows; only nodes that receive flow (ponds, reaches, design points) get an inflow array.
    """

    def __init__(self, name, scs, flows, m, nt, time_hr=None):
        self.name = name
        self.time_hr = time_hr
        self.reach_cache: dict[tuple[str, int], tuple] = {}
        self.reach_rows: list[dict[str, list[dict]]] = [{} for _ in scs]
        self.storm_names: tuple[str, ...] = tuple(str(i) for i in range(m))
        self.rational_flows: dict[str, np.ndarray] = {}  # (m, U, nt) by rational sub id
        self.rational_rows: list[dict[str, list[dict]]] = [{} for _ in scs]
        self.scs = scs
        first = scs[0]
        self.first = first
        self.order = first.order
        self.index = {nid: k for k, nid in enumerate(self.order)}
        nv, n_nodes = len(scs), len(self.order)
        self.m, self.nt, self.nv = m, nt, nv
        self.flows = flows  # (m, U, n_sub, nt)
        self.out: dict[str, np.ndarray] = {}
        self.inn: dict[str, np.ndarray] = {}
        self.targets = {first.nodes[n].to for n in self.order} - {None}
        self.area = np.zeros((nv, n_nodes))
        self.sub_index = {s.id: j for j, s in enumerate(first.subcatchments)}
        self.levels = _pond_levels(first)
        self.ponds: list[dict[str, dict]] = [{} for _ in range(nv)]
        self.pond_out: dict[str, np.ndarray] = {}  # routed primary outflows (m, U, nt)

    def node_series(self, series: dict, node: str, u: int) -> np.ndarray:
        a = series.get(node)
        if a is None:
            return np.zeros((self.m, self.nt))
        return a[:, u]

    def _zeros(self) -> np.ndarray:
        return np.zeros((self.m, self.nv, self.nt))

    def route_reach(self, nid: str, u: int, reach, q: np.ndarray, final: bool) -> np.ndarray:
        """Route the inflow (m, nt) of a pipe/channel reach, storm by storm, by
        :func:`hydrocalc.conveyance.route_conveyance`; keeps one row per storm (peaks, depth,
        velocity, capacity, surcharge). A repeated pass with the same inflow is not re-routed.
        """
        cached = self.reach_cache.get((nid, u))
        if cached is not None and cached[0].shape == q.shape and np.array_equal(cached[0], q):
            out, rows, notes = cached[1], cached[2], cached[3]
        else:
            out, rows, notes = _route_reach_storms(f"{self.name}.reach[{nid}]", reach, q,
                                                   self.time_hr, self.storm_names)
            self.reach_cache[(nid, u)] = (q.copy(), out, rows, notes)
        if final:
            self.reach_rows[u][nid] = rows
            for category, text in notes:
                warnings.warn(text, category, stacklevel=2)
        return out

    def sweep(self, dt_hr: float, level: int | None, final: bool) -> list:
        """One topological pass; returns ``(u, pond id)`` of the ponds at ``level`` whose
        inflows are now complete. Ponds already routed pass their routed outflow."""
        if final:
            needed = None
            self.inn = {t: self._zeros() for t in self.targets}
            self.area[:] = 0.0
        else:
            targets = [p for p, lv in self.levels.items() if lv == level]
            if not targets:
                return []
            ups = self.first.upstream
            needed = set().union(*(ups[p] for p in targets))
            for p in needed:
                if p in self.targets:
                    self.inn[p] = self._zeros()
        ready = []
        for nid in self.order:
            if needed is not None and nid not in needed:
                continue
            k = self.index[nid]
            node = self.first.nodes[nid]
            if node.kind == "subcatchment" and nid in self.rational_flows:  # rational method
                out = self.rational_flows[nid]
                if final:
                    self.area[:, k] += [sc.nodes[nid].area_ac for sc in self.scs]
            elif node.kind == "subcatchment":
                j = self.sub_index[nid]
                out = self.flows[:, :, j]
                if final:
                    self.area[:, k] += [sc.subcatchments[j].area_ac for sc in self.scs]
            elif node.kind == "pond":
                if nid in self.pond_out:
                    out = self.pond_out[nid]
                else:
                    out = self._zeros()
                    if self.levels[nid] == level:
                        ready.append(nid)
            elif node.kind == "reach":
                inflow = self.inn.get(nid)
                if inflow is None:
                    inflow = self.inn[nid] = self._zeros()
                out = np.empty_like(inflow)
                for u, sc in enumerate(self.scs):
                    if sc.nodes[nid].conveyance is not None:
                        out[:, u] = self.route_reach(nid, u, sc.nodes[nid], inflow[:, u],
                                                     final)
                        continue
                    out[:, u] = _shift(inflow[:, u], sc.nodes[nid].lag_hr, dt_hr)
                    if final:
                        vin = _integrate(inflow[:, u], dt_hr)
                        lost = vin - _integrate(out[:, u], dt_hr)
                        if np.any(lost > 1e-3 * np.maximum(vin, 1e-9)):
                            warnings.warn(
                                f"{self.name}.reach[{nid}]: the lag of "
                                f"{sc.nodes[nid].lag_hr:g} h pushes {float(lost.max()):.4g} "
                                "ft3 past the end of the simulation; increase "
                                "analysis.duration_hr", RuntimeWarning, stacklevel=2)
            else:  # design point: outflow = inflow
                out = self.inn.get(nid)
                if out is None:
                    out = self.inn[nid] = self._zeros()
            self.out[nid] = out
            if node.to is not None and (needed is None or node.to in needed):
                t = self.index[node.to]
                self.inn[node.to] += out
                if final:
                    self.area[:, t] += self.area[:, k]
        return ready


def _route_reach_storms(label: str, reach, q: np.ndarray, time_hr: np.ndarray,
                        storm_names: Sequence[str]):
    """Route each storm's inflow ``q`` (m, nt) through ``reach.conveyance`` on ``time_hr``.

    Returns the outflow (m, nt), one summary row per storm and the warning texts (each names
    the reach and the storm, with their category). A storm with no inflow gives zero outflow, depth and velocity.
    """
    from hydrocalc.conveyance import route_conveyance
    from hydrocalc.hydrograph import Hydrograph

    conv = reach.conveyance
    m, nt = q.shape
    dt = float(time_hr[1] - time_hr[0])
    span = float(time_hr[-1] - time_hr[0])
    out = np.zeros_like(q)
    rows, notes = [], []
    cap = conv.full_flow_capacity_cfs
    for i in range(m):
        row = {"peak_inflow_cfs": 0.0, "peak_outflow_cfs": 0.0, "time_of_peak_outflow_hr":
               math.nan, "max_depth_ft": 0.0, "max_velocity_fps": 0.0,
               "full_flow_capacity_cfs": cap, "surcharged": False, "n_subreaches": 0,
               "n_substeps": 0}
        if float(q[i].max()) > 0.0:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                res = route_conveyance(Hydrograph(time_hr, q[i]), conv, duration_hr=span)
            o = res.outflow_cfs[:nt]
            out[i, :o.size] = o
            row.update(res.summary())
            row.update(time_of_peak_outflow_hr=float(time_hr[int(np.argmax(out[i]))]),
                       n_subreaches=res.n_subreaches, n_substeps=res.n_substeps,
                       max_depth_ft=float(res.depth_ft[:nt].max()),
                       max_velocity_fps=float(res.velocity_fps[:nt].max()))
            for w in caught:
                notes.append((w.category, f"{label}, storm {storm_names[i]}: {w.message}"))
            vin, vout = _integrate(q[i], dt), _integrate(out[i], dt)
            if vin - vout > 1e-2 * max(vin, 1e-9):
                notes.append((RuntimeWarning,
                              f"{label}, storm {storm_names[i]}: {float(vin - vout):.4g} ft3 "
                              "of the inflow is still in the reach at the end of the "
                              "simulation; increase analysis.duration_hr"))
        rows.append(row)
    return out, rows, notes


def _run_all(sites: Sequence, hyetos, names, end_hr) -> dict[str, list[_ScenarioRun]]:
    """Run both scenarios of every site (same topology) with shared batches.

    One :func:`~hydrocalc.hydrograph.runoff_hydrographs` call for every subcatchment of every
    unique scenario object; one :func:`~hydrocalc.routing.route_reservoirs` call per pond
    level for every pond of that level in both scenarios and all variants. Identical scenario
    objects (a sweep that varies only ``post`` shares ``pre``) are computed once.
    """
    from hydrocalc.hydrograph import runoff_hydrographs

    opt = sites[0].options
    dt = float(opt.dt_hr)
    uniq: dict[str, list] = {}
    pick: dict[str, list[int]] = {}
    owners: dict[str, list] = {}  # per unique scenario: its site ([rational] settings)
    for name in ("pre", "post"):
        ids: dict[Any, int] = {}
        scs, where, own = [], [], []
        for site in sites:
            sc = site.scenarios[name]
            # a scenario with rational subcatchments also depends on the site's [rational]
            key = (id(sc), id(site.rational)) if sc.rational else id(sc)
            if key not in ids:
                ids[key] = len(scs)
                scs.append(sc)
                own.append(site)
            where.append(ids[key])
        uniq[name], pick[name], owners[name] = scs, where, own
    subs = [s for name in ("pre", "post") for sc in uniq[name] for s in sc.subcatchments]
    # subcatchments with the same area, CN and Tc (variants that differ elsewhere) share
    # one hydrograph computation
    first: dict[tuple, int] = {}
    pos = [first.setdefault((float(s.area_ac), float(s.cn), float(s.tc_hr)), len(first))
           for s in subs]
    keys = list(first)
    if keys:
        hs = runoff_hydrographs([k[0] for k in keys], [k[1] for k in keys],
                                [k[2] for k in keys], hyetos, dt_hr=dt, prf=opt.prf,
                                ia_ratio=opt.ia_ratio, end_hr=end_hr,
                                names=[f"u{i}" for i in range(len(keys))])
        all_flows = hs.flow_cfs if len(keys) == len(subs) else hs.flow_cfs[:, pos]
        time_hr = hs.time_hr
    else:  # every subcatchment uses the rational method
        time_hr = dt * np.arange(int(round(end_hr / dt)) + 1)
        all_flows = np.zeros((len(names), 0, time_hr.size))
    m, nt = len(names), time_hr.size
    nets = {}
    start = 0
    for name in ("pre", "post"):
        scs = uniq[name]
        n_sub = len(scs[0].subcatchments)
        stop = start + n_sub * len(scs)
        flows = all_flows[:, start:stop].reshape(m, len(scs), n_sub, nt)
        start = stop
        nets[name] = _Net(name, scs, flows, m, nt, time_hr)
        nets[name].storm_names = tuple(names)
        _rational_into(nets[name], owners[name], hyetos, names, time_hr)
    max_level = max([max(n.levels.values(), default=-1) for n in nets.values()])
    for level in range(max_level + 1):
        items, keys = [], []
        for net in nets.values():
            for nid in net.sweep(dt, level, final=False):
                for u, sc in enumerate(net.scs):
                    items.append((sc.nodes[nid], net.inn[nid][:, u]))
                    keys.append((net, u, nid))
        if items:
            results, primary = _route_batch(items, dt)
            for j, ((net, u, nid), res) in enumerate(zip(keys, results, strict=True)):
                net.ponds[u][nid] = res
                if u == 0:  # the variants of one pond are consecutive items
                    net.pond_out[nid] = primary[:, j:j + net.nv]
            # a pond routed at this level whose upstream ponds feel its level (backwater,
            # a pair, chain or tree ending here): they are routed again, together
            # (hydrocalc.interconnected)
            for net, _, nid in keys:
                node = net.first.nodes[nid]
                up = [p.id for p in net.first.ponds if p.to == nid and p.backwater]
                if up and not node.backwater and not net.ponds[0][nid].get("_pair"):
                    _route_group(net, _backwater_group(net.first, nid), time_hr, dt)
    out = {}
    for name, net in nets.items():
        net.sweep(dt, None, final=True)
        kinds = tuple(net.first.nodes[n].kind for n in net.order)
        runs = [
            _ScenarioRun(name=name, node_ids=net.order, kinds=kinds, net=net, u=u,
                         upstream_area_ac=net.area[u], sub_flows=net.flows[:, u],
                         sub_index=net.sub_index, upstream=net.first.upstream,
                         ponds=net.ponds[u], time_hr=time_hr, reaches=net.reach_rows[u],
                         rational=net.rational_rows[u])
            for u in range(len(net.scs))
        ]
        out[name] = [runs[w] for w in pick[name]]
    return out


def _conveyance_travel_hr(reach) -> float:
    """Allowance for a routed pipe/channel reach in the automatic simulation end: three
    travel times at the full-flow velocity (0 for a lag reach). [h]"""
    conv = reach.conveyance
    if conv is None:
        return 0.0
    area = float(conv.section.area_ft2(conv.section.max_depth_ft))
    v_full = conv.full_flow_capacity_cfs / area
    return 3.0 * conv.length_ft / v_full / S_PER_HR


def _rational_into(net, owners, hyetos, names, time_hr) -> None:
    """Hydrographs and rows of the rational subcatchments of every variant of a scenario
    (:func:`hydrocalc.rational_site.rational_flows`)."""
    if not net.first.rational:
        return
    from hydrocalc.rational_site import rational_flows

    for s in net.first.rational:
        arr = np.zeros((net.m, net.nv, net.nt))
        for u, sc in enumerate(net.scs):
            arr[:, u], rows = rational_flows(sc.nodes[s.id], owners[u].rational, names,
                                             hyetos, time_hr)
            net.rational_rows[u][s.id] = rows
        net.rational_flows[s.id] = arr


def _end_hr(site, storms_duration_hr: float) -> float | None:
    """Simulation end: the user's ``analysis.duration_hr``, else automatic."""
    opt = site.options
    if opt.duration_hr is not None:
        return float(opt.duration_hr)
    from hydrocalc.unit_hydrograph import effective_tc_hr

    tcs = [s.tc_hr for sc in site.scenarios.values() for s in sc.subcatchments]
    # a rational hydrograph lasts 2 Tc around the storm's peak (no TR-20 minimum applies)
    tcs += [max(s.tc_hr, 0.1) for sc in site.scenarios.values() for s in sc.rational]
    tp = opt.dt_hr / 2.0 + 0.6 * float(np.max(effective_tc_hr(np.array(tcs))))
    lag = 0.0
    for sc in site.scenarios.values():
        lag = max(lag, sum(r.lag_hr + _conveyance_travel_hr(r) for r in sc.reaches))
    need = storms_duration_hr + 5.0 * tp + lag + 2 * opt.dt_hr
    has_ponds = any(sc.ponds for sc in site.scenarios.values())
    if has_ponds:
        need = max(need, 2.0 * storms_duration_hr)
    return float(math.ceil(need / opt.dt_hr) * opt.dt_hr)


# ----------------------------------------------------------------------------------------
# JSON helpers


def _num(x, sig=_SIG):
    if x is None:
        return None
    if isinstance(x, bool | np.bool_):
        return bool(x)
    if isinstance(x, int | np.integer):
        return int(x)
    v = float(x)
    if not math.isfinite(v):
        return None
    if v == 0:
        return 0.0
    return float(f"{v:.{sig}g}")


def _clean(obj):
    """Make ``obj`` JSON-ready: floats rounded, numpy types converted, NaN -> null."""
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple):
        return [_clean(v) for v in obj]
    if isinstance(obj, np.ndarray):
        return [_clean(v) for v in obj.tolist()]
    if isinstance(obj, str) or obj is None:
        return obj
    if isinstance(obj, pathlib.Path):
        return obj.as_posix()
    if hasattr(obj, "isoformat"):
        return obj.isoformat()
    if isinstance(obj, bool | np.bool_ | int | float | np.integer | np.floating):
        return _num(obj)
    return str(obj)


def criteria_pass_by_point(crit_rows) -> dict[str, dict[str, bool | None]]:
    """Pass/fail per design point and criterion family (``wqv``, ``qp``...) from the
    criteria rows: a family passes when every one of its rows passes; None when its rows
    were not evaluated."""
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


# ----------------------------------------------------------------------------------------
# results


class SiteResults:
    """Results of :func:`analyze` for one site.

    Attributes
    ----------
    site : hydrocalc.site.Site
        The analysed site (inputs).
    storms : tuple of str
        Storm names analysed, in file order.
    time_hr : numpy.ndarray
        Common time base of every hydrograph. [h]
    nodes : pandas.DataFrame
        One row per scenario, storm and node: ``scenario, storm, node, kind, to, area_ac,
        peak_cfs, time_of_peak_hr, volume_ft3, volume_acft, runoff_in, peak_inflow_cfs,
        inflow_volume_ft3`` (inflow of ponds, reaches and design points).
    ponds : pandas.DataFrame
        One row per scenario, storm and pond: ``peak_inflow_cfs, peak_outflow_cfs,
        time_of_peak_outflow_hr, peak_stage_ft, peak_storage_ft3, peak_storage_acft,
        top_stage_ft, freeboard_ft, max_storage_ft3, discarded_ft3, overtopped,
        mass_balance_error_pct`` and ``peak_<device>_cfs`` for every device.
    devices : pandas.DataFrame
        One row per scenario, storm, pond and device: ``device, type, peak_cfs, volume_ft3``.
    subcatchments, covers, tc_segments : pandas.DataFrame
        The inputs as used (CN and Tc after lookup/computation).
    comparison : pandas.DataFrame
        One row per design point and storm: ``design_point, storm, precip_in,
        pre_peak_cfs, post_peak_cfs, peak_change_cfs, peak_change_pct, pre_volume_ft3,
        post_volume_ft3, volume_change_pct, pre_time_of_peak_hr, post_time_of_peak_hr,
        post_le_pre``.
    criteria : pandas.DataFrame
        One row per criterion (and design point): ``criterion, symbol, design_point, storm,
        required, provided, units, comparison, passed, result, equation, method, details,
        source, location, status, note``.
    warnings : list of str
        Every warning raised during the computation and every input note (e.g. the
        illustrative design-storm depths, unverified criteria values).
    """

    def __init__(self, site, storms, time_hr, runs, rows, comparison_rows, criteria_rows,
                 criteria_details, warning_list, end_hr, *, criteria_extras=None):
        self.site = site
        self.storms = tuple(storms)
        self.time_hr = time_hr
        self._runs = runs
        self._rows_cache = rows
        self._comparison_rows = comparison_rows
        self._criteria_rows = criteria_rows
        self.criteria_details = criteria_details
        self.warnings = list(warning_list)
        self.end_hr = end_hr
        self._criteria_extras = dict(criteria_extras or {})

    # -- access ------------------------------------------------------------------------
    @property
    def _rows(self) -> dict:
        """Input echo and node/pond/device rows, built on first use (sweeps skip them)."""
        if self._rows_cache is None:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                rows = _input_rows(self.site)
                rows.update(_node_rows(self.site, self._runs, self.storms, self.time_hr))
            self._rows_cache = rows
        return self._rows_cache

    @property
    def scenarios(self) -> tuple[str, ...]:
        return tuple(self._runs)

    @property
    def design_points(self) -> tuple[str, ...]:
        return self.site.design_point_ids

    @property
    def passed(self) -> bool:
        """True when every design point's post peaks are at or below the pre peaks and every
        evaluated criterion passes (waived criteria count as passed)."""
        return (all(r["post_le_pre"] for r in self._comparison_rows)
                and all(r["passed"] for r in self._criteria_rows))

    def _run(self, scenario: str) -> _ScenarioRun:
        if scenario not in self._runs:
            from hydrocalc._validate import suggest

            raise InputError(f"scenario must be one of {', '.join(self._runs)}; got "
                             f"{scenario!r}{suggest(str(scenario), self._runs)}")
        return self._runs[scenario]

    def _storm_index(self, storm: str) -> int:
        if storm not in self.storms:
            from hydrocalc._validate import suggest

            raise InputError(f"storm must be one of {', '.join(self.storms)}; got {storm!r}"
                             f"{suggest(str(storm), self.storms)}")
        return self.storms.index(storm)

    def _node_index(self, run: _ScenarioRun, node: str) -> int:
        if node not in run.node_ids:
            from hydrocalc._validate import suggest

            raise InputError(f"node must be a node of scenario {run.name}; got {node!r}"
                             f"{suggest(str(node), run.node_ids)}")
        return run.node_ids.index(node)

    def flow_cfs(self, scenario: str, storm: str, node: str, *, which: str = "outflow"
                 ) -> np.ndarray:
        """Ordinates of a node's hydrograph on :attr:`time_hr` (read-only view). [ft3/s]

        ``which`` is ``"outflow"`` (default; for a pond the flow it passes downstream) or
        ``"inflow"`` (the sum of the flows entering the node).
        """
        run = self._run(scenario)
        i, k = self._storm_index(storm), self._node_index(run, node)
        if which not in ("outflow", "inflow", "unrouted"):
            raise InputError(f"which must be 'outflow', 'inflow' or 'unrouted'; got {which!r}")
        if which == "unrouted":
            view = run.unrouted(i, node)
        else:
            view = {"outflow": run.outflow, "inflow": run.inflow}[which][i, k]
        view.flags.writeable = False
        return view

    def hydrograph(self, scenario: str, storm: str, node: str, *, which: str = "outflow"):
        """A node's hydrograph as a :class:`hydrocalc.hydrograph.Hydrograph`."""
        from hydrocalc.hydrograph import Hydrograph

        run = self._run(scenario)
        area = float(run.upstream_area_ac[self._node_index(run, node)])
        q = self.flow_cfs(scenario, storm, node, which=which)
        return Hydrograph(self.time_hr, q, area_ac=area if area > 0 else None,
                          name=f"{scenario} {node} {storm}")

    def routing(self, scenario: str, storm: str, pond: str):
        """The :class:`hydrocalc.routing.RoutingResult` of one pond unit for one storm.

        For ``count`` > 1 it is one unit's result (inflow / count).
        """
        run = self._run(scenario)
        if pond not in run.ponds:
            from hydrocalc._validate import suggest

            raise InputError(f"pond must be a pond of scenario {scenario}; got {pond!r}"
                             f"{suggest(str(pond), run.ponds)}")
        res = run.ponds[pond]
        i = self._storm_index(storm)
        if res.get("_results") is not None:
            return res["_results"][i]
        return res["_batch"].routing_result((i, res["_index"]))

    def pond_arrays(self, scenario: str, pond: str) -> dict:
        """Arrays (storm, time) of a pond: ``stage_ft``, ``storage_ft3``, ``primary_cfs``,
        ``discarded_cfs`` and ``device_cfs`` (dict by device id), all units combined."""
        run = self._run(scenario)
        if pond not in run.ponds:
            raise InputError(f"pond must be a pond of scenario {scenario}; got {pond!r}")
        return {k: v for k, v in run.ponds[pond].items() if not k.startswith("_")}

    # -- tables ------------------------------------------------------------------------
    @functools.cached_property
    def nodes(self):
        import pandas as pd

        return pd.DataFrame(self._rows["nodes"])

    @functools.cached_property
    def ponds(self):
        import pandas as pd

        return pd.DataFrame(self._rows["ponds"])

    @functools.cached_property
    def devices(self):
        import pandas as pd

        return pd.DataFrame(self._rows["devices"])

    @functools.cached_property
    def conveyance(self):
        """One row per scenario, storm and routed pipe/channel reach: ``section,
        peak_inflow_cfs, peak_outflow_cfs, time_of_peak_outflow_hr, max_depth_ft,
        max_velocity_fps, full_flow_capacity_cfs, surcharged, n_subreaches, n_substeps``
        (:func:`hydrocalc.conveyance.route_conveyance`). Empty without such reaches."""
        import pandas as pd

        return pd.DataFrame(self._rows["conveyance"], columns=_CONVEYANCE_COLUMNS)

    @functools.cached_property
    def rational(self):
        """One row per scenario, storm and rational subcatchment: ``subcatchment, to, storm,
        return_period_yr, c, c_source, intensity_in_hr, intensity_source, area_ac, tc_hr,
        peak_cfs, time_of_peak_hr, hydrograph`` (:mod:`hydrocalc.rational_site`). Empty
        without such subcatchments."""
        import pandas as pd

        return pd.DataFrame(self._rows["rational"], columns=_RATIONAL_COLUMNS)

    @functools.cached_property
    def subcatchments(self):
        import pandas as pd

        return pd.DataFrame(self._rows["subcatchments"])

    @functools.cached_property
    def covers(self):
        import pandas as pd

        return pd.DataFrame(self._rows["covers"], columns=_COVER_COLUMNS)

    @functools.cached_property
    def tc_segments(self):
        import pandas as pd

        return pd.DataFrame(self._rows["tc_segments"], columns=_SEG_COLUMNS)

    @functools.cached_property
    def comparison(self):
        import pandas as pd

        return pd.DataFrame(self._comparison_rows, columns=_COMPARISON_COLUMNS)

    @functools.cached_property
    def criteria(self):
        import pandas as pd

        return pd.DataFrame(self._criteria_rows, columns=_CRITERIA_COLUMNS)

    @property
    def values_to_confirm(self) -> list[dict]:
        """Unverified numbers the engineer entered with their source (redevelopment option
        fractions, practice factors): rows ``name, value, units, source, verified``. JSON:
        ``values_to_confirm``."""
        extras = getattr(self, "_criteria_extras", {})
        return [dict(r) for r in extras.get("values_to_confirm", [])]

    @property
    def practices(self):
        """One row per runoff-reduction practice (:func:`hydrocalc.practices.evaluate_practice`):
        storage, drain-down, captured volume and RRv credit. JSON: ``practices``."""
        import pandas as pd

        return pd.DataFrame(getattr(self, "_criteria_extras", {}).get("practices", []))

    def summary_rows(self, *, scenario: str = "") -> list[dict]:
        """One dict per design point and storm for a batch summary table.

        Keys: ``site, scenario, design_point, storm, precip_in, pre_peak_cfs,
        post_peak_cfs, peak_change_pct, pre_volume_ft3, post_volume_ft3, volume_change_pct,
        post_le_pre, wqv_pass, rrv_pass, cpv_pass, qp_pass, qf_pass, criteria_pass``
        (``<criterion>_pass`` is True/False, or None when not evaluated; site-wide
        criteria repeat on every row). ``scenario`` labels the rows (e.g. a sweep case).
        """
        crit = criteria_pass_by_point(self._criteria_rows)
        out = []
        for r in self._comparison_rows:
            row = {"site": self.site.name, "scenario": scenario}
            row.update({k: r[k] for k in ("design_point", "storm", "precip_in", "pre_peak_cfs",
                                          "post_peak_cfs", "peak_change_pct", "pre_volume_ft3",
                                          "post_volume_ft3", "volume_change_pct",
                                          "post_le_pre")})
            flags = []
            for key in ("wqv", "rrv", "cpv", "qp", "qf"):
                v = crit.get(r["design_point"], {}).get(key, crit.get("site", {}).get(key))
                row[f"{key}_pass"] = v
                if v is not None:
                    flags.append(v)
            row["criteria_pass"] = all(flags) if flags else None
            out.append(row)
        return out

    # -- serialisation -----------------------------------------------------------------
    def to_dict(self, *, hydrographs: bool = True) -> dict:
        """Every number of the results in a JSON-ready dict (units in the keys)."""
        import hydrocalc
        from hydrocalc import data

        site = self.site
        project = site.project.to_dict() if hasattr(site.project, "to_dict") else {}
        st = site.storms
        doc: dict[str, Any] = {
            "format": RESULTS_FORMAT,
            "hydrocalc_version": hydrocalc.__version__,
            "site": {
                "name": site.name,
                "file": site.path.name if site.path is not None else None,
                "project": project,
            },
            "inputs_sha256": dict(site.input_files),
            "data_tables_sha256": data.table_hashes(),
            "options": {
                "dt_hr": site.options.dt_hr, "prf": site.options.prf,
                "ia_ratio": site.options.ia_ratio, "duration_hr": self.end_hr,
            },
            "storms": {
                "distribution": st.distribution, "source": st.source,
                "file": st.file.name if st.file is not None else None,
                "duration_hr": st.duration_hr, "rain_dt_hr": st.rain_dt_hr,
                "depths_in": {n: st.depths_in[n] for n in self.storms},
                "wqv_precip_in": st.wqv_precip_in, "wqv_precip_source": st.wqv_precip_source,
                "warnings": list(st.warnings),
            },
            "criteria_settings": _clean(dataclasses.asdict(site.criteria)),
            "subcatchments": self._rows["subcatchments"],
            "covers": self._rows["covers"],
            "tc_segments": self._rows["tc_segments"],
            "pond_inputs": self._rows["pond_inputs"],
            "reaches": self._rows["reaches"],
            "nodes": self._rows["nodes"],
            "ponds": self._rows["ponds"],
            "devices": self._rows["devices"],
            "comparison": self._comparison_rows,
            "criteria": self._criteria_rows,
            "criteria_details": self.criteria_details,
            "practices": list(getattr(self, "_criteria_extras", {}).get("practices", [])),
            "values_to_confirm": self.values_to_confirm,
            "warnings": self.warnings,
            "passed": self.passed,
        }
        if self._rows["conveyance"]:  # only sites with routed pipe/channel reaches
            doc["conveyance"] = self._rows["conveyance"]
        if self._rows["rational"]:  # only sites with rational subcatchments
            doc["rational"] = self._rows["rational"]
        if hydrographs:
            h: dict[str, Any] = {"time_start_hr": float(self.time_hr[0]),
                                 "dt_hr": site.options.dt_hr, "n_steps": int(self.time_hr.size),
                                 "flow_cfs": {}}
            for name, run in self._runs.items():
                per = {}
                for i, storm in enumerate(self.storms):
                    per[storm] = {nid: [_num(v, _SIG_HYDRO) for v in run.outflow[i, k].tolist()]
                                  for k, nid in enumerate(run.node_ids)}
                h["flow_cfs"][name] = per
            doc["hydrographs"] = h
        return _clean(doc)

    def to_json(self, path=None, *, hydrographs: bool = True) -> str:
        """Deterministic JSON text (sorted keys, fixed float digits); written atomically to
        ``path`` when given."""
        text = json.dumps(self.to_dict(hydrographs=hydrographs), sort_keys=True, indent=1,
                          allow_nan=False, ensure_ascii=False) + "\n"
        if path is not None:
            _atomic_write_text(pathlib.Path(path), text)
        return text

    def to_frames(self, *, hydrographs: bool = True) -> dict:
        """Every table as a DataFrame (unit-suffixed columns), keyed by a file-friendly name.

        Keys: ``subcatchments, covers, tc_segments, nodes, ponds, devices, comparison,
        criteria, warnings`` and, with ``hydrographs``, ``hydrographs_<scenario>_<storm>``
        (``time_hr`` and one ``<node>_cfs`` column per node).
        """
        import pandas as pd

        frames = {
            "subcatchments": self.subcatchments, "covers": self.covers,
            "tc_segments": self.tc_segments, "nodes": self.nodes, "ponds": self.ponds,
            "devices": self.devices, "comparison": self.comparison, "criteria": self.criteria,
            "warnings": pd.DataFrame({"warning": self.warnings}, columns=["warning"]),
        }
        if self._rows["conveyance"]:
            frames["conveyance"] = self.conveyance
        if self._rows["rational"]:
            frames["rational"] = self.rational
        if hydrographs:
            for name, run in self._runs.items():
                for i, storm in enumerate(self.storms):
                    cols = {"time_hr": self.time_hr}
                    cols.update({f"{nid}_cfs": run.outflow[i, k]
                                 for k, nid in enumerate(run.node_ids)})
                    frames[f"hydrographs_{name}_{storm}"] = pd.DataFrame(cols)
        return frames

    def to_csv(self, directory, *, hydrographs: bool = True) -> list[pathlib.Path]:
        """Write :meth:`to_frames` as CSV files into ``directory`` (atomically: a temporary
        folder beside it is filled, then moved into place). Returns the file paths."""
        target = pathlib.Path(directory)
        frames = self.to_frames(hydrographs=hydrographs)
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = pathlib.Path(tempfile.mkdtemp(prefix=f".{target.name}.", dir=target.parent))
        os.chmod(tmp, 0o777 & ~_umask())
        try:
            for name, frame in frames.items():
                frame.to_csv(tmp / f"{name}.csv", index=False, float_format="%.10g",
                             lineterminator="\n")
            _replace_dir(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return [target / f"{name}.csv" for name in frames]

    def __getstate__(self):
        # device flows are computed lazily by a closure: materialise them to pickle (dask)
        for run in self._runs.values():
            for res in run.ponds.values():
                if isinstance(res["device_cfs"], _DeviceFlows):
                    res["device_cfs"] = dict(res["device_cfs"].items())
        return self.__dict__

    def __repr__(self) -> str:
        return (f"SiteResults(site={self.site.name!r}, storms={list(self.storms)}, "
                f"design_points={list(self.design_points)}, passed={self.passed}, "
                f"warnings={len(self.warnings)})")

    def _repr_html_(self) -> str:
        from hydrocalc import display

        return display.html(self)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _atomic_write_text(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, path)
    except BaseException:
        with_suppress_unlink(tmp)
        raise


def with_suppress_unlink(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _replace_dir(tmp: pathlib.Path, target: pathlib.Path) -> None:
    if target.exists():
        old = target.with_name(f".{target.name}.old.{os.getpid()}")
        os.replace(target, old)
        try:
            os.replace(tmp, target)
        except BaseException:
            os.replace(old, target)
            raise
        shutil.rmtree(old, ignore_errors=True)
    else:
        os.replace(tmp, target)


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


# ----------------------------------------------------------------------------------------
# input echo rows


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


def _top(pond) -> float:
    v = getattr(pond.stage_storage, "top_stage_ft", None)
    return float(v() if callable(v) else v)


def _max_storage(pond) -> float:
    v = getattr(pond.stage_storage, "max_storage_ft3", None)
    return float(v() if callable(v) else v) * pond.count


def _storage_at(pond, stage_ft: float) -> float:
    """Storage of all ``count`` units at ``stage_ft`` (capped at the top). [ft3]"""
    top = _top(pond)
    return float(pond.stage_storage.storage_ft3(min(stage_ft, top))) * pond.count


def _stage_at(pond, storage_ft3: float) -> float:
    cap = _max_storage(pond)
    return float(pond.stage_storage.stage_ft(min(storage_ft3, cap) / pond.count))


class Hydrology:
    """The computed hydrology of one site, as the criteria layer reads it (read-only).

    :func:`analyze` builds it and passes it to :func:`hydrocalc.criteria.evaluate`; the
    criteria modules evaluate rules from it and never route or integrate on their own.

    Attributes
    ----------
    runs : dict
        Scenario name (``"pre"``, ``"post"``) -> its run: ``node_outflow(node)`` and
        ``node_inflow(node)`` give (storm, time) arrays [ft3/s], ``unrouted(i, node)`` the
        design point's inflow with ponds bypassed [ft3/s], ``ponds`` the routed pond arrays
        (``storage_ft3``, ``primary_cfs``, ``discarded_cfs``, ``overtopped``, ...).
    storms : tuple of str
        Storm names analysed; index ``i`` of the arrays.
    time_hr : numpy.ndarray
        Common time base. [h]
    dt_hr : float
        Time step. [h]
    """

    def __init__(self, runs, storms, time_hr, dt_hr: float):
        self.runs = runs
        self.storms = tuple(storms)
        self.time_hr = time_hr
        self.dt_hr = float(dt_hr)

    def volume_ft3(self, flow_cfs):
        """Volume under hydrograph ordinates (trapezoidal rule, last axis). [ft3]"""
        return _integrate(flow_cfs, self.dt_hr)

    @staticmethod
    def max_storage_ft3(pond) -> float:
        """Storage of all ``count`` units of a pond at its top stage. [ft3]"""
        return _max_storage(pond)

    @staticmethod
    def storage_at_ft3(pond, stage_ft: float) -> float:
        """Storage of all ``count`` units of a pond at ``stage_ft`` (capped at the top). [ft3]"""
        return _storage_at(pond, stage_ft)

    @staticmethod
    def stage_at_ft(pond, storage_ft3: float) -> float:
        """Stage of a pond holding ``storage_ft3`` over all its units. [ft]"""
        return _stage_at(pond, storage_ft3)


# ----------------------------------------------------------------------------------------
# the analysis


def analyze(site, *, storms: Sequence[str] | None = None) -> SiteResults:
    """Analyse a site: both scenarios, every storm and node, comparison and NY criteria.

    Parameters
    ----------
    site : hydrocalc.site.Site
        From :func:`hydrocalc.site.load_site` (or :func:`~hydrocalc.site.parse_site`, or a
        :func:`dataclasses.replace` / :meth:`~hydrocalc.site.Site.replace_node` variant).
    storms : sequence of str, optional
        Storm names to analyse (default: all). Criteria whose storm is left out are reported
        as not evaluated.

    Returns
    -------
    SiteResults

    Raises
    ------
    InputError
        If a computation step rejects its input (e.g. a time step that cannot resolve a
        unit hydrograph).

    Examples
    --------
    >>> from hydrocalc.site import load_site          # doctest: +SKIP
    >>> res = analyze(load_site("examples/pelham/site.toml"))   # doctest: +SKIP
    >>> res.comparison[["design_point", "storm", "pre_peak_cfs", "post_peak_cfs"]]  # doctest: +SKIP
    """
    return analyze_many([site], storms=storms)[0]


def _group_key(site, names) -> tuple:
    st = site.storms
    opt = site.options
    topo = tuple(
        (name, tuple((nid, sc.nodes[nid].kind, sc.nodes[nid].to) for nid in sc.order))
        for name, sc in sorted(site.scenarios.items()))
    return (tuple((n, float(st.depths_in[n])) for n in names), st.distribution,
            float(st.rain_dt_hr), float(st.duration_hr), float(opt.dt_hr), float(opt.prf),
            float(opt.ia_ratio), topo)


def analyze_many(sites: Sequence, *, storms: Sequence[str] | None = None,
                 errors: str = "raise") -> list:
    """Analyse many sites (e.g. the variants of a parameter sweep) with shared array work.

    Sites with the same storms, options and network topology (node ids, kinds and links) are
    computed together: one batch of runoff hydrographs for all their subcatchments, one batch
    routing per pond id across all variants and storms, and scenario objects shared between
    variants (``dataclasses.replace`` keeps unchanged scenarios identical) computed once.
    Results equal those of :func:`analyze` on each site.

    Parameters
    ----------
    sites : sequence of hydrocalc.site.Site
    storms : sequence of str, optional
        Storm names to analyse (default: all of each site).
    errors : {"raise", "collect"}, default "raise"
        "collect" puts the exception in place of the results of a failing group of sites
        instead of raising.

    Returns
    -------
    list of SiteResults (or exceptions, with ``errors="collect"``), in the order of ``sites``.

    Notes
    -----
    Memory is about 3 x storms x variants x nodes x time steps x 8 bytes per group; analyse
    very large sweeps in chunks of a few hundred variants.
    """
    if errors not in ("raise", "collect"):
        raise InputError(f"errors must be 'raise' or 'collect'; got {errors!r}")
    groups: dict[tuple, list[int]] = {}
    name_lists = []
    for idx, site in enumerate(sites):
        names = tuple(site.storms.names if storms is None else storms)
        for n in names:
            if n not in site.storms.depths_in:
                from hydrocalc._validate import suggest

                raise InputError(f"storm must be one of {', '.join(site.storms.names)}; got "
                                 f"{n!r}{suggest(str(n), site.storms.names)}")
        name_lists.append(names)
        groups.setdefault(_group_key(site, names), []).append(idx)
    out: list = [None] * len(sites)
    for members in groups.values():
        group_sites = [sites[i] for i in members]
        try:
            try:
                results = _analyze_group(group_sites, name_lists[members[0]])
            except HydrocalcError as exc:  # name the site in the message
                label = group_sites[0].path.name if group_sites[0].path else group_sites[0].name
                raise type(exc)(f"{label}: analysis failed: {exc}") from exc
        except Exception as exc:  # noqa: BLE001 - collected on request, re-raised otherwise
            if errors == "raise":
                raise
            results = [exc] * len(members)
        for i, r in zip(members, results, strict=True):
            out[i] = r
    return out


def _analyze_group(sites: Sequence, names: tuple[str, ...]) -> list[SiteResults]:
    from hydrocalc import criteria

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hyetos = _storms(sites[0], names)
        end_hr = max(_end_hr(s, float(s.storms.duration_hr)) for s in sites)
        per_scenario = _run_all(sites, hyetos, names, end_hr)
    shared = [f"{w.category.__name__}: {w.message}" for w in caught]
    out = []
    for v, site in enumerate(sites):
        runs = {name: per_scenario[name][v] for name in ("pre", "post")}
        time_hr = runs["pre"].time_hr
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            comparison = _comparison_rows(site, runs, names)
            crit_rows, details, notes, extras = criteria.evaluate(
                site, Hydrology(runs, names, time_hr, site.options.dt_hr))
            _check_ponds(site, runs, names, time_hr)
        messages: list[str] = list(site.notes) + shared
        messages += [f"{w.category.__name__}: {w.message}" for w in caught]
        messages += notes
        seen, unique = set(), []
        for msg in messages:
            if msg not in seen:
                seen.add(msg)
                unique.append(msg)
        out.append(SiteResults(site, names, time_hr, runs, None, comparison, crit_rows,
                               details, unique, end_hr, criteria_extras=extras))
    return out


def _check_ponds(site, runs, names, time_hr) -> None:
    for name, run in runs.items():
        for pid, res in run.ponds.items():
            pond = site.scenarios[name].nodes[pid]
            st = res["storage_ft3"]
            peak = st.max(axis=1)
            inv = pond.surface_outlet_invert_ft
            # water below the lowest outlet leaves only by exfiltration: no later outflow
            below = _storage_at(pond, inv) if math.isfinite(inv) else _max_storage(pond)
            end = np.clip(st[:, -1] - below, 0.0, None)
            top = _top(pond)
            for i, storm in enumerate(names):
                if res["overtopped"][i]:
                    warnings.warn(
                        f"{name}.pond[{pid}] overtops in the {storm} storm: peak stage "
                        f"{float(res['stage_ft'][i].max()):.4g} ft exceeds the top of the "
                        f"storage ({top:.4g} ft); results above the top assume vertical walls "
                        "and no flow over the top. Enlarge the pond or its outlets",
                        RuntimeWarning, stacklevel=2)
                if peak[i] > 0 and end[i] > 0.05 * peak[i] and end[i] > 1.0:
                    warnings.warn(
                        f"{name}.pond[{pid}] still stores {end[i]:.4g} ft3 above its lowest "
                        f"outlet ({100 * end[i] / peak[i]:.0f} % of its peak) at the end of the "
                        f"{storm} simulation ({time_hr[-1]:g} h); volumes leaving it later "
                        "are not in the results. Increase analysis.duration_hr to see them",
                        RuntimeWarning, stacklevel=2)


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
        peak = run.outflow.max(axis=2)
        tpk = time_hr[np.argmax(run.outflow, axis=2)]
        vol = _integrate(run.outflow, dt)
        pin = run.inflow.max(axis=2)
        vin = _integrate(run.inflow, dt)
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
                    "peak_inflow_cfs": float(pin[i, k]) if node.kind != "subcatchment" else math.nan,
                    "inflow_volume_ft3": float(vin[i, k]) if node.kind != "subcatchment" else math.nan,
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
