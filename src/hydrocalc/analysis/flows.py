"""The network walk of an analysis: node flows of every scenario, storm and variant.

:func:`_run_all` computes the runoff hydrographs of every subcatchment in one batch, walks
each scenario's network in topological order (flows add at each node, reaches lag or route
their inflow, ponds are routed level by level by :mod:`hydrocalc.analysis.ponds`) and returns
one :class:`_ScenarioRun` per scenario and site.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from hydrocalc.analysis.ponds import _backwater_group, _route_batch, _route_group
from hydrocalc.hydraulics.conveyance import route_conveyance
from hydrocalc.hydrograph import Hydrograph, runoff_hydrographs
from hydrocalc.site.rational import rational_flows
from hydrocalc.units import S_PER_HR


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

    def __init__(self, name, scs, flows, m, nt, time_hr=None) -> None:
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
        """Route the inflow (m, nt) of a pipe/channel reach, storm by storm.

        Routing is by :func:`hydrocalc.hydraulics.conveyance.route_conveyance`; keeps one row
        per storm (peaks, depth, velocity, capacity, surcharge). A repeated pass with the same
        inflow is not re-routed.
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
        """One topological pass; returns ``(u, pond id)`` of the ponds ready at ``level``.

        Those are the ponds at ``level`` whose inflows are now complete. Ponds already routed
        pass their routed outflow.
        """
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
                dp_in = self.inn.get(nid)
                if dp_in is None:
                    dp_in = self.inn[nid] = self._zeros()
                out = dp_in
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
    the reach and the storm, with their category). A storm with no inflow gives zero outflow,
    depth and velocity.
    """
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
            if vin - vout > 1e-2 * max(vin, 1e-9):  # type: ignore[operator]  # 1-D: scalars
                notes.append((RuntimeWarning,
                              f"{label}, storm {storm_names[i]}: {float(vin - vout):.4g} ft3 "
                              "of the inflow is still in the reach at the end of the "
                              "simulation; increase analysis.duration_hr"))
        rows.append(row)
    return out, rows, notes


def _run_all(sites: Sequence, hyetos, names, end_hr, engine: str = "numpy"
             ) -> dict[str, list[_ScenarioRun]]:
    """Run both scenarios of every site (same topology) with shared batches.

    One :func:`~hydrocalc.hydrograph.runoff_hydrographs` call for every subcatchment of every
    unique scenario object; one :func:`~hydrocalc.hydraulics.routing.route_reservoirs` call per
    pond level for every pond of that level in both scenarios and all variants. Identical scenario
    objects (a sweep that varies only ``post`` shares ``pre``) are computed once.
    """
    opt = sites[0].options
    dt = float(opt.dt_hr)
    uniq: dict[str, list] = {}
    pick: dict[str, list[int]] = {}
    owners: dict[str, list] = {}  # per unique scenario: its site ([rational] settings)
    for name in ("pre", "post"):
        ids: dict[Any, int] = {}
        scs: list[Any] = []
        where: list[int] = []
        own: list[Any] = []
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
            results, primary = _route_batch(items, dt, engine)
            for j, ((net, u, nid), res) in enumerate(zip(keys, results, strict=True)):
                net.ponds[u][nid] = res
                if u == 0:  # the variants of one pond are consecutive items
                    net.pond_out[nid] = primary[:, j:j + net.nv]
            # a pond routed at this level whose upstream ponds feel its level (backwater,
            # a pair, chain or tree ending here): they are routed again, together
            # (hydrocalc.hydraulics.routing.interconnected)
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


def _rational_into(net, owners, hyetos, names, time_hr) -> None:
    """Hydrographs and rows of the rational subcatchments of every variant of a scenario.

    Computed by :func:`hydrocalc.site.rational.rational_flows`.
    """
    if not net.first.rational:
        return

    for s in net.first.rational:
        arr = np.zeros((net.m, net.nv, net.nt))
        for u, sc in enumerate(net.scs):
            arr[:, u], rows = rational_flows(sc.nodes[s.id], owners[u].rational, names,
                                             hyetos, time_hr)
            net.rational_rows[u][s.id] = rows
        net.rational_flows[s.id] = arr
