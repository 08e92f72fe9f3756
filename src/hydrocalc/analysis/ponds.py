"""Ponds of an analysis: batch routing, interconnected groups, storage look-ups.

Every pond of one level of the network (all variants and storms) is routed in one
:func:`hydrocalc.hydraulics.routing.route_reservoirs` call; ponds with a tailwater series one
storm at a time; ponds that feel each other's level (``backwater``) together by
:mod:`hydrocalc.hydraulics.routing.interconnected`. Device flows are interpolated from the
routing tables lazily.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from hydrocalc.hydraulics import routing
from hydrocalc.hydraulics.outlets import unique_names
from hydrocalc.hydraulics.routing import RoutingResult
from hydrocalc.hydraulics.routing import interp_ext as interp
from hydrocalc.hydraulics.routing.interconnected import (
    route_interconnected,
    route_interconnected_chain,
)
from hydrocalc.hydrograph import Hydrograph

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

    def devices():
        flows = {}
        for nm, _, qq in table.parts:
            q = interp(xs, table.si, qq)
            q[q < scale] = 0.0
            flows[nm] = q * count
        return flows
    return devices


def _backwater_group(first, root_id: str) -> list[str]:
    """Ponds routed together with pond ``root_id``, upstream first, the root last.

    Every pond whose ``backwater`` outlets discharge into it or into another pond of the group.
    """
    group, k = [root_id], 0
    while k < len(group):
        group += [p.id for p in first.ponds if p.backwater and p.to == group[k]]
        k += 1
    return group[::-1]


def _route_group(net, ids: list[str], time_hr, dt_hr: float) -> None:
    """Route the interconnected ponds ``ids`` together and replace their series.

    The ponds are listed upstream first, the one discharging out of the group last; they are
    routed storm by storm and variant by variant (site-file ponds are in stages; they are put
    back in elevations so the devices see the right relative levels). Two ponds:
    :func:`route_interconnected` (unless the downstream one exfiltrates); more (a chain or a
    tree): :func:`route_interconnected_chain`.
    """
    import warnings


    pos = {nid: k for k, nid in enumerate(ids)}
    to_k = [pos.get(net.first.nodes[nid].to) for nid in ids]
    to_k[-1] = None
    kids = [[c for c, d in enumerate(to_k) if d == k] for k in range(len(ids))]
    m, npd = net.m, len(ids)
    for u, sc in enumerate(net.scs):
        nodes = [sc.nodes[nid] for nid in ids]
        z = [p.bottom_elevation_ft for p in nodes]
        ss = [p.stage_storage.with_datum(zk) for p, zk in zip(nodes, z, strict=True)]
        st = [p.structure() for p in nodes]
        root = nodes[-1]
        tw_r = None if root.tailwater is None else root.tailwater + z[-1]
        out = [{f: np.empty((m, net.nt)) for f in ("stage", "storage", "primary", "disc")}
               for _ in ids]
        flows: list[dict[str, np.ndarray]] = [{} for _ in ids]
        results: list[list] = [[] for _ in ids]
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
                    errs: list[float] | np.ndarray = [r2.mass_balance_error_up_pct,
                                                      r2.mass_balance_error_down_pct]
                    t_r = r2.time_hr
                else:
                    rc = route_interconnected_chain(
                        [Hydrograph(time_hr, q) for q in local], ss,
                        [s.shifted(zk) for s, zk in zip(st, z, strict=True)], to=to_k,
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
                for nm, (_, q) in zip(unique_names([dv for dv, _ in comps]), comps, strict=True):
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
    """The batch with the ponds whose tailwater varies in time re-routed one storm at a time.

    Each is routed by :func:`hydrocalc.hydraulics.routing.route_reservoir` (same table, stage
    frame); their series replace the batch's (free-outfall) ones.
    """
    import dataclasses
    import warnings


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


def _route_batch(items: list, dt_hr: float, engine: str = "numpy"
                 ) -> tuple[list[dict], np.ndarray]:
    """Route every ``(pond, inflow (m, nt))`` of ``items`` in one batch (one time loop).

    The routing ``engine`` is "numpy" or "numba"; tables are kept per process with "numba".

    Returns one dict of series (storm, time) per item (``SiteResults.pond_arrays`` plus
    private keys; views of batch-wide arrays) and the primary outflows of all items,
    (m, K, nt), all units. Device flows are interpolated in each pond's storage-indication
    table exactly as :meth:`hydrocalc.hydraulics.routing.BatchRoutingResult.routing_result`
    does, lazily (a sweep that never looks at device flows skips them).
    """
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
                                     # one flag per pond (the parameter's hint says bool)
                                     flap_gate=flaps,  # type: ignore[arg-type]
                                     engine=engine,
                                     cache_tables=engine == "numba")
    series = [j for j, t in enumerate(tw) if t is not None and not isinstance(t, float)]
    singles = {}
    if series:
        batch, singles = _route_series_tailwater(batch, q, dt_hr, items, series, h0)
    del q
    tables = batch.tables
    # the series are kept (route_reservoirs' default): none of them is None here
    out_q = cast(np.ndarray, batch.outflow_cfs)  # (m, K, nt), one unit (not modified below)
    stage_all = cast(np.ndarray, batch.stage_ft)
    storage = cast(np.ndarray, batch.storage_ft3).copy()  # round-off is zeroed below
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
                discarded[:, j] += routing.interp_ext(xs[:, j], table.si, qq)
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
            "stage_ft": stage_all[:, j],
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


def _top(pond) -> float:
    v: Any = getattr(pond.stage_storage, "top_stage_ft", None)
    return float(v() if callable(v) else v)


def _max_storage(pond) -> float:
    v: Any = getattr(pond.stage_storage, "max_storage_ft3", None)
    return float(v() if callable(v) else v) * pond.count


def _storage_at(pond, stage_ft: float) -> float:
    """Storage of all ``count`` units at ``stage_ft`` (capped at the top) [ft3]."""
    top = _top(pond)
    return float(pond.stage_storage.storage_ft3(min(stage_ft, top))) * pond.count


def _stage_at(pond, storage_ft3: float) -> float:
    cap = _max_storage(pond)
    return float(pond.stage_storage.stage_ft(min(storage_ft3, cap) / pond.count))
