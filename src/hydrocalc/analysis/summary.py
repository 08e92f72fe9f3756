r"""The summary mode of :func:`hydrocalc.analysis.analyze_many`: array work across sites.

``analyze_many(sites, detail="summary")`` returns, for each site, the rows of
:meth:`hydrocalc.analysis.SiteResults.summary_rows` (per design point and storm: the pre/post
peaks and volumes and the pass/fail flags of the criteria). For the sites this module can
express it computes exactly these as array operations over (storm, site, time), with the
functions of the full analysis:

1. the runoff hydrographs of every distinct (area, CN, Tc) of the sites' subcatchments in
   one :func:`hydrocalc.hydrograph.runoff_hydrographs` call (TR-55/TR-20 unit-hydrograph
   convolution, as :func:`hydrocalc.analysis.analyze`), reused by the next call whose
   inputs are exactly the same;
2. each node's flow for all sites at once, in topological order (subcatchment flows are
   views of the runoff batch; a node fed by one node shares its array);
3. every (site x pond x storm) routed by the storage-indication method with the tables and
   arithmetic of the full analysis, the exfiltration (discarded) flow split off the routed
   outflow as the full analysis does: with the compiled engine, one pass per pond-storm
   (:func:`hydrocalc.hydraulics.routing.route_split`; each pond object's table built once per
   process), otherwise one :func:`hydrocalc.hydraulics.routing.route_reservoirs` call and the numpy
   split;
4. peaks (maximum ordinate), volumes (trapezoidal rule) and the comparison columns as
   reductions over the time axis, and the criteria rows from
   :func:`hydrocalc.criteria.evaluate` given views of the arrays (design-point outflows,
   pond overtopping and, when the channel-protection volume is evaluated, the pond series
   of all units and the unrouted runoff); the criteria read the design-point peaks from
   these reductions (:meth:`hydrocalc.analysis.Hydrology.peak_cfs`) and keep the values
   that depend only on the site's inputs under all of those inputs
   (:meth:`hydrocalc.analysis.Hydrology.memo`: WQv, Rv, minimum RRv).

The results equal those of :func:`~hydrocalc.analysis.analyze` on each site (same
operations in the same order; ``tests/analysis/test_sweep_summary.py`` checks 1e-9 and the batch
benchmark checks a sample of the Pelham sweep).

What the arrays do not express
------------------------------
:func:`unsupported_reason` names why a site is not expressed; ``analyze_many`` then runs
the full analysis for it and records the reason in the ``paths`` of its result:

- reaches, or node kinds other than subcatchments, ponds and design points;
- a pond downstream of another pond (pond levels above 0), a pond routed with its
  neighbour (``backwater``) or a tailwater that varies in time;
- a criteria standard other than ``"ny_smdm"`` or ``"none"`` (the criteria read the
  hydrology through the attributes the NY evaluator uses; anything else they read raises
  :class:`Unsupported`);
- any error while computing (the full analysis then reports the failing sites one by one
  with their messages).

References
----------
.. [1] USDA NRCS, "National Engineering Handbook, Part 630 Hydrology," Chapter 16
   (hydrographs) and Chapter 17 (flood routing, storage-indication method).
.. [2] USDA SCS, "Urban Hydrology for Small Watersheds," Technical Release 55, 1986.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import ClassVar

import numpy as np

from hydrocalc import criteria
from hydrocalc.analysis.flows import _pond_levels
from hydrocalc.analysis.hydrology import Hydrology
from hydrocalc.analysis.ponds import _NOISE
from hydrocalc.analysis.storms import _end_hr, _storms
from hydrocalc.analysis.tables import _pct_change, criteria_pass_by_point
from hydrocalc.hydraulics import routing
from hydrocalc.hydrograph import runoff_hydrographs
from hydrocalc.site import DesignPoint, Pond, Subcatchment
from hydrocalc.units import S_PER_HR

__all__ = ["SummaryRows", "Unsupported", "summary_rows", "unsupported_reason"]

_PASS_KEYS = ("wqv", "rrv", "cpv", "qp", "qf")


class Unsupported(Exception):
    """A chunk the summary array path cannot express; ``str(exc)`` names the reason."""


class _VariantRun:
    """One scenario's run as the criteria layer reads it (views into the block's arrays).

    ``node_outflow(dp)`` (m, nt) of the design points, ``node_inflow(pond)``, ``ponds``
    (``overtopped``; with Cpv evaluated also ``primary_cfs``, ``discarded_cfs`` and
    ``storage_ft3`` of all units) and ``unrouted(i, node)``: the attributes of
    :class:`hydrocalc.analysis._ScenarioRun` that :func:`hydrocalc.criteria.evaluate` uses.
    Anything else raises :class:`Unsupported` (the block then takes the full analysis).
    """

    def __init__(self, v, dp_out, inflows, ponds, sub_series, upstream):
        self._v = v
        self._dp = dp_out
        self._inn = inflows
        self.ponds = ponds
        self._subs = sub_series
        self._up = upstream

    def node_outflow(self, node: str) -> np.ndarray:
        return self._dp[node][:, self._v]

    def node_inflow(self, node: str) -> np.ndarray:
        return self._inn[node][:, self._v]

    def unrouted(self, i_storm: int, node: str) -> np.ndarray:
        """Sum of the runoff of every subcatchment upstream of ``node``, without routing.

        The subcatchments are taken in file order, as the full analysis sums them.
        """
        rows = [f(i_storm, self._v) for sid, f in self._subs if sid in self._up[node]]
        if not rows:
            return np.zeros(self._dp[next(iter(self._dp))].shape[-1])
        return np.stack(rows).sum(axis=0)

    def __getattr__(self, name):
        raise Unsupported(f"the criteria read {name!r} of the hydrology, which the summary "
                          "path does not keep")


#: Pond quantities the criteria read (storage at a stage, ...), kept per pond object: the
#: scenarios of a sweep share rebuilt pond objects (hydrocalc.batch.sweep.apply_overrides).
_POND_MEMO: dict = {}
_POND_MEMO_SIZE = 4096


def _pond_memo(kind: str, pond, arg, compute) -> float:
    key = (kind, id(pond), arg)
    hit = _POND_MEMO.get(key)
    if hit is not None and hit[0] is pond:  # the same object (ids of dead ones are reused)
        return hit[1]
    value = compute()
    if len(_POND_MEMO) >= _POND_MEMO_SIZE:
        _POND_MEMO.clear()
    _POND_MEMO[key] = (pond, value)
    return value


class _BlockHydrology(Hydrology):
    """:class:`hydrocalc.analysis.Hydrology` whose pond look-ups are computed once per pond.

    The look-ups are deterministic functions of the frozen pond object.
    """

    #: (scenario, node) -> peaks (m,) of the variant (set per variant)
    peaks: ClassVar[dict] = {}

    @staticmethod
    def max_storage_ft3(pond) -> float:
        return _pond_memo("max", pond, None, lambda: Hydrology.max_storage_ft3(pond))

    @staticmethod
    def storage_at_ft3(pond, stage_ft: float) -> float:
        return _pond_memo("storage", pond, float(stage_ft),
                          lambda: Hydrology.storage_at_ft3(pond, stage_ft))

    @staticmethod
    def stage_at_ft(pond, storage_ft3: float) -> float:
        return _pond_memo("stage", pond, float(storage_ft3),
                          lambda: Hydrology.stage_at_ft(pond, storage_ft3))

    def peak_cfs(self, scenario: str, node: str, i_storm: int) -> float:
        # the block's reductions (largest ordinate of the same series: the same value)
        peaks = self.peaks.get((scenario, node))
        if peaks is None:
            return Hydrology.peak_cfs(self, scenario, node, i_storm)
        return float(peaks[i_storm])

    def memo(self, key: tuple, compute):
        # values of the site's inputs only (the key holds them all): kept per process
        hit = _CRIT_MEMO.get(key, _MISSING)
        if hit is _MISSING:
            hit = compute()
            if len(_CRIT_MEMO) >= _CRIT_MEMO_SIZE:
                _CRIT_MEMO.clear()
            _CRIT_MEMO[key] = hit
        return hit


#: Criteria values that depend only on their inputs (WQv, Rv, ... keyed on every input:
#: :meth:`hydrocalc.analysis.Hydrology.memo`), kept across the blocks of a process.
_CRIT_MEMO: dict = {}
_CRIT_MEMO_SIZE = 4096
_MISSING = object()


class SummaryRows(list):
    """The result of ``analyze_many(..., detail="summary")``.

    For each site, its list of summary rows (or, with ``errors="collect"``, the exception of
    its failing group).

    ``paths`` says how the rows were computed: ``{"summary_arrays": n, "full_analysis": n,
    "reasons": {why the full analysis: n}}`` (sites counted).
    """

    def __init__(self, items, paths: dict):
        super().__init__(items)
        self.paths = paths


def unsupported_reason(site, names: Sequence[str]) -> str | None:
    """Why the summary arrays cannot compute ``site`` for storms ``names`` (None when they can).

    ``analyze_many(..., detail="summary")`` then runs the full analysis for it.
    """
    for n in names:
        if n not in site.storms.depths_in:
            return f"storm {n!r} is not a storm of the site"
    for name, sc in site.scenarios.items():
        for nid in sc.order:
            node = sc.nodes[nid]
            if type(node) not in (Subcatchment, Pond, DesignPoint):
                return f"{name}: {type(node).__name__.lower()} nodes"
        for p in sc.ponds:
            if p.backwater:
                return f"{name}: a pond routed with its neighbour (backwater)"
            if p.tailwater is not None and not isinstance(p.tailwater, float):
                return f"{name}: a tailwater that varies in time"
        levels = _pond_levels(sc)
        if any(lv > 0 for lv in levels.values()):
            return f"{name}: ponds in series"
    cs = site.criteria
    if cs.standard not in ("ny_smdm", "none"):
        return f"criteria standard {cs.standard!r}"
    return None


def _message(exc: BaseException) -> str:
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def summary_rows(sites: Sequence, groups: dict[tuple, list[int]], names_of: list[tuple],
                 full_analysis, *, errors: str = "raise", engine: str = "numpy"
                 ) -> SummaryRows:
    """The summary rows of ``sites``: by the arrays where they can, else by the full analysis.

    The engine of ``analyze_many(..., detail="summary")``, which validates the arguments
    and calls it; use that.

    Parameters
    ----------
    sites : sequence of hydrocalc.site.Site
    groups : dict of tuple to list of int
        Indices of ``sites`` with the same storms, options and network topology.
    names_of : list of tuple of str
        The storm names of each site.
    full_analysis : callable
        ``full_analysis(sites, storms=..., errors=...)`` -> list of SiteResults (or
        exceptions): :func:`hydrocalc.analysis.analyze_many` with ``detail="full"``.
    errors : {"raise", "collect"}
    engine : {"numpy", "numba"}
        The routing engine (resolved): "numba" routes and splits each pond-storm in one
        compiled pass (:func:`hydrocalc.hydraulics.routing.route_split`).

    Returns
    -------
    SummaryRows
        For each site, the rows of :meth:`hydrocalc.analysis.SiteResults.summary_rows`
        (``scenario`` empty), equal to those of ``analyze(site)``.
    """
    out: list = [None] * len(sites)
    paths: dict = {"summary_arrays": 0, "full_analysis": 0, "reasons": {}}
    fallback: dict[str, list[int]] = {}
    for members in groups.values():
        names = names_of[members[0]]
        ok = []
        for i in members:
            why = unsupported_reason(sites[i], names)
            if why is None:
                ok.append(i)
            else:
                fallback.setdefault(f"not expressed by the summary arrays: {why}", []).append(i)
        if not ok:
            continue
        try:
            rows = _group_rows([sites[i] for i in ok], names, engine)
        except Unsupported as exc:
            fallback.setdefault(f"not expressed by the summary arrays: {exc}", []).extend(ok)
            continue
        except Exception as exc:  # noqa: BLE001 - the full analysis reports it per site
            fallback.setdefault(f"failed in the summary arrays ({_message(exc)})",
                                []).extend(ok)
            continue
        for i, r in zip(ok, rows, strict=True):
            out[i] = r
        paths["summary_arrays"] += len(ok)
    for reason, idx in fallback.items():
        paths["full_analysis"] += len(idx)
        paths["reasons"][reason] = paths["reasons"].get(reason, 0) + len(idx)
        by_names: dict[tuple, list[int]] = {}
        for i in idx:
            by_names.setdefault(names_of[i], []).append(i)
        for names, members in by_names.items():
            results = full_analysis([sites[i] for i in members], storms=names, errors=errors,
                                    engine=engine)
            for i, res in zip(members, results, strict=True):
                out[i] = res if isinstance(res, Exception) else res.summary_rows()
    return SummaryRows(out, paths)


def _group_rows(sites: list, names: tuple, engine: str = "numpy") -> list[list[dict]]:
    """The summary rows of sites of one group (same storms, options, topology)."""
    hydrology = _BlockHydrology
    first = sites[0]
    opt = first.options
    dt = float(opt.dt_hr)
    nv = len(sites)
    # the channel-protection (Cpv) rows read pond series and the unrouted runoff
    series = any(s.criteria.standard == "ny_smdm" and "cpv" not in s.criteria.waived
                 and s.criteria.cpv_storm in names for s in sites)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the summary carries no warnings
        hyetos = _storms(first, names)
        end_hr = max(_end_hr(s, float(s.storms.duration_hr)) for s in sites)
        # runoff: one batch for every distinct (area, CN, Tc) of the chunk
        keys: dict[tuple, int] = {}
        sub_pos: dict[str, np.ndarray] = {}
        for name in ("pre", "post"):
            for j, sub in enumerate(first.scenarios[name].subcatchments):
                pos = []
                for s in sites:
                    x = s.scenarios[name].subcatchments[j]
                    pos.append(keys.setdefault((float(x.area_ac), float(x.cn),
                                                float(x.tc_hr)), len(keys)))
                sub_pos[f"{name}:{sub.id}"] = np.asarray(pos, dtype=np.intp)
        hs = _runoff(list(keys), hyetos, dt, opt.prf, opt.ia_ratio, end_hr,
                     runoff_hydrographs)
        flows = hs.flow_cfs  # (m, K, nt)
        m, nt = len(names), flows.shape[-1]

        def sub_flow(name, sid):
            pos = sub_pos[f"{name}:{sid}"]
            if (pos == pos[0]).all():  # the same hydrograph for every variant: broadcast
                return np.broadcast_to(flows[:, pos[0]][:, None], (m, nv, nt))
            return flows[:, pos]

        # node flows (m, nv, nt) in topological order; ponds first get their inflows
        dp_out: dict[str, dict[str, np.ndarray]] = {}
        pond_info: dict[str, dict] = {}
        pond_in: dict[str, dict[str, np.ndarray]] = {}
        for name in ("pre", "post"):
            sc = first.scenarios[name]
            inn: dict[str, np.ndarray] = {}
            out: dict[str, np.ndarray] = {}

            def add(target, series, inn=inn):
                prev = inn.get(target)
                # 0 + x = x exactly: the first contribution is shared, later ones summed
                inn[target] = series if prev is None else _add_flows(prev, series)

            pond_ids = [p.id for p in sc.ponds]
            ponds_up = set().union(*(sc.upstream[p] for p in pond_ids)) if pond_ids else set()
            for nid in sc.order:  # pass 1: the inflows of the ponds (all at level 0)
                if nid not in ponds_up or nid in pond_ids:
                    continue
                node = sc.nodes[nid]
                if node.kind == "subcatchment":
                    out[nid] = sub_flow(name, nid)
                else:  # design point
                    out[nid] = inn.get(nid, np.zeros((m, nv, nt)))
                if node.to is not None:
                    add(node.to, out[nid])
            if pond_ids:
                pond_info[name] = _route(sites, name, pond_ids, inn, dt, routing,
                                         _NOISE, series, engine)
            pond_in[name] = {pid: inn[pid] for pid in pond_ids}
            inn2: dict[str, np.ndarray] = {}
            for nid in sc.order:  # pass 2: everything, with the routed pond outflows
                node = sc.nodes[nid]
                if node.kind == "subcatchment":
                    o = out.get(nid)
                    o = sub_flow(name, nid) if o is None else o
                elif node.kind == "pond":
                    o = pond_info[name][nid]["primary"]
                else:
                    o = inn2.get(nid)
                    if o is None:
                        o = np.zeros((m, nv, nt))
                out[nid] = o
                if node.to is not None:
                    add(node.to, o, inn=inn2)
            dp_out[name] = {dp: out[dp] for dp in first.design_point_ids}

    # reductions over time, all storms and variants at once
    red = {}
    for name in ("pre", "post"):
        for dp, a in dp_out[name].items():
            red[name, dp] = _peaks_volumes(a, dt)  # (m, nv) each
    subs = {name: [(sub.id, lambda i, v, f=sub_flow, n=name, sid=sub.id: f(n, sid)[i, v])
                   for sub in first.scenarios[name].subcatchments] for name in ("pre", "post")}
    rows_out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the summary carries no warnings
        for v, site in enumerate(sites):
            rows_out.append(_variant_rows(v, site, names, pond_info, pond_in, dp_out, subs,
                                          first, hydrology, hs.time_hr, dt, red, criteria))
    return rows_out


#: The last runoff batches of :func:`_group_rows` with their exact inputs (consecutive blocks
#: of a sweep chunk often have the same subcatchments and storms: only a pond varies).
_RUNOFF_MEMO: list = []
_RUNOFF_MEMO_SIZE = 2


def _runoff(ks, hyetos, dt, prf, ia_ratio, end_hr, runoff_hydrographs):
    """``runoff_hydrographs`` of the (area, CN, Tc) ``ks`` in ``hyetos``, reused when recent.

    Reused when a recent block had the same inputs (the same call: the same arrays, made
    read-only).
    """
    key = (tuple(ks), float(dt), repr(prf), repr(ia_ratio), repr(end_hr))
    for k, storms, hs in _RUNOFF_MEMO:
        if k == key and len(storms) == len(hyetos) and all(
                a is b for a, b in zip(storms, hyetos, strict=True)):
            return hs
    hs = runoff_hydrographs([k[0] for k in ks], [k[1] for k in ks], [k[2] for k in ks],
                            hyetos, dt_hr=dt, prf=prf, ia_ratio=ia_ratio, end_hr=end_hr,
                            names=[f"u{i}" for i in range(len(ks))])
    hs.flow_cfs.setflags(write=False)
    hs.time_hr.setflags(write=False)
    _RUNOFF_MEMO.append((key, tuple(hyetos), hs))
    del _RUNOFF_MEMO[:-_RUNOFF_MEMO_SIZE]
    return hs


def _variant_rows(v, site, names, pond_info, pond_in, dp_out, subs, first, hydrology,
                  time_hr, dt, red, criteria) -> list[dict]:
    """The summary rows of variant ``v`` of a block (criteria read views of its arrays)."""
    runs = {}
    for name in ("pre", "post"):
        ponds = {pid: {key: arr[:, v] for key, arr in info.items() if key != "primary"}
                 for pid, info in pond_info.get(name, {}).items()}
        for pid, info in pond_info.get(name, {}).items():
            ponds[pid]["primary_cfs"] = info["primary"][:, v]
        runs[name] = _VariantRun(v, dp_out[name], pond_in.get(name, {}), ponds,
                                 subs[name], first.scenarios[name].upstream)
    hydro = hydrology(runs, names, time_hr, dt)
    hydro.peaks = {key: peaks[:, v] for key, (peaks, _) in red.items()}
    crit_rows = [] if site.criteria.standard == "none" else criteria.evaluate(site, hydro)[0]
    return _rows(site, names, red, v, crit_rows)


def _same_for_all(a: np.ndarray) -> bool:
    """True for flows (m, nv, nt) broadcast along the variants (one series for all)."""
    return a.ndim == 3 and a.shape[1] > 1 and a.strides[1] == 0


def _add_flows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b``; flows the same for every variant are added once and stay broadcast."""
    if _same_for_all(a) and _same_for_all(b):
        return np.broadcast_to(a[:, :1] + b[:, :1], a.shape)
    return a + b


def _peaks_volumes(a: np.ndarray, dt_hr: float) -> tuple[np.ndarray, np.ndarray]:
    """Peak (maximum ordinate) and volume of flows ``a`` (m, nv, nt) over time [cfs, ft3].

    The volume is :func:`hydrocalc.analysis._integrate` (``numpy.trapezoid``) with its
    operations spelled out in place, ``(dx * (a[1:] + a[:-1]) / 2.0).sum()``: the same
    values with one temporary array. Flows the same for every variant (a broadcast view)
    are reduced once.
    """
    if _same_for_all(a):
        peak, vol = _peaks_volumes(a[:, :1], dt_hr)
        return np.broadcast_to(peak, a.shape[:2]), np.broadcast_to(vol, a.shape[:2])
    if a.ndim != 3:
        buf = np.add(a[..., 1:], a[..., :-1])
        np.multiply(dt_hr * S_PER_HR, buf, out=buf)
        np.divide(buf, 2.0, out=buf)
        return a.max(axis=-1), buf.sum(axis=-1)
    # one storm at a time (its series stay in the processor's caches); each row is reduced
    # on its own, so the values are those of the whole array at once
    peak = np.empty(a.shape[:2])
    vol = np.empty(a.shape[:2])
    buf = np.empty((a.shape[1], a.shape[2] - 1))
    for i in range(a.shape[0]):
        ai = a[i]
        ai.max(axis=-1, out=peak[i])
        np.add(ai[:, 1:], ai[:, :-1], out=buf)
        np.multiply(dt_hr * S_PER_HR, buf, out=buf)
        np.divide(buf, 2.0, out=buf)
        buf.sum(axis=-1, out=vol[i])
    return peak, vol


def _route(sites, name, pond_ids, inn, dt, routing, noise, series, engine
           ) -> dict[str, dict]:
    """Route every (variant x pond x storm) of scenario ``name`` in one batch.

    Returns ``{pond id: {"primary", "overtopped"}}`` ((m, nv, nt) and (m, nv)), with
    ``series`` also ``"discarded_cfs"`` and ``"storage_ft3"`` of all units; the same
    operations as :func:`hydrocalc.analysis._route_batch` (routing and split compiled in
    one pass per pond-storm by :func:`hydrocalc.hydraulics.routing.kernel.route_split` when
    numba is in use, else :func:`hydrocalc.hydraulics.routing.route_reservoirs` and the split).
    """
    nv = len(sites)
    items = [(s.scenarios[name].nodes[pid], pid, u) for pid in pond_ids
             for u, s in enumerate(sites)]
    m, _, nt = inn[pond_ids[0]].shape
    k = len(items)
    # one unit of each pond: inflow / count. An inflow the same for every variant of the
    # block (with one count) is divided once per storm and shared by the variants' rows
    parts, inflow_of_row = [], np.empty((m, k), dtype=np.intp)
    n_rows = 0
    for i, pid in enumerate(pond_ids):
        counts = np.array([float(p.count) for p, _, _ in items[i * nv:(i + 1) * nv]])
        src = inn[pid]
        if _same_for_all(src) and (counts == counts[0]).all():
            parts.append(np.divide(src[:, 0], counts[0]))  # (m, nt)
            inflow_of_row[:, i * nv:(i + 1) * nv] = n_rows + np.arange(m)[:, None]
            n_rows += m
        else:
            parts.append(np.divide(src, counts[None, :, None]).reshape(m * nv, nt))
            inflow_of_row[:, i * nv:(i + 1) * nv] = n_rows + np.arange(m * nv).reshape(m, nv)
            n_rows += m * nv
    q_rows = parts[0] if len(parts) == 1 else np.concatenate(parts)
    if engine == "numba":
        fused = _route_fused(q_rows, inflow_of_row.reshape(-1), (m, k, nt),
                             [p for p, _, _ in items], dt, routing, noise, series)
        primary, discarded, storage, over = fused
        return _pond_results(pond_ids, items, nv, primary, discarded, storage, over, series)
    q = q_rows[inflow_of_row.reshape(-1)].reshape(m, k, nt)
    del q_rows
    h0 = np.broadcast_to(np.array([p.initial_stage_ft for p, _, _ in items], dtype=float),
                         (m, k))
    tw = np.array([p.tailwater if isinstance(p.tailwater, float) else np.nan
                   for p, _, _ in items])
    batch = routing.route_reservoirs(
        q, dt, [p.stage_storage for p, _, _ in items], [p.structure() for p, _, _ in items],
        initial_stage_ft=h0, overtopping_warning=False,
        tailwater_ft=None if np.isnan(tw).all() else tw,
        flap_gate=[bool(p.flap_gate) for p, _, _ in items])
    del q
    tables = batch.tables
    out_q = batch.outflow_cfs  # (m, k, nt), one unit
    primary, discarded = _split_numpy(out_q, batch.storage_ft3, tables, noise, routing,
                                      series)
    storage = None
    if series:
        storage = batch.storage_ft3.copy()
        smax = np.maximum(storage.max(axis=-1, keepdims=True), 1.0)
        storage[storage < noise * smax] = 0.0
    over = np.asarray(batch.overtopped, dtype=bool)  # (m, k)
    return _pond_results(pond_ids, items, nv, primary, discarded, storage, over, series)


def _pond_results(pond_ids, items, nv, primary, discarded, storage, over, series):
    """``{pond id: {"primary", "overtopped", ...}}`` of :func:`_route` from batch arrays."""
    out = {}
    for i, pid in enumerate(pond_ids):
        sl = slice(i * nv, (i + 1) * nv)
        counts = np.array([float(p.count) for p, _, _ in items[sl]])
        res = {"primary": primary[:, sl], "overtopped": over[:, sl]}
        if series:
            res["discarded_cfs"] = discarded[:, sl]
            res["storage_ft3"] = storage[:, sl]
        if (counts != 1).any():  # all units (x 1 is exact: skipped, as the full analysis)
            for key in ("primary", "discarded_cfs", "storage_ft3"):
                if key in res:
                    res[key] = res[key] * counts[None, :, None]
        out[pid] = res
    return out


#: Storage-indication tables of the pond objects of a sweep (scenarios that vary a pond the
#: same way share one pond object), kept under the object's id with the object itself.
_TABLE_MEMO: dict = {}
_TABLE_MEMO_SIZE = 1024


def _pond_table(pond, dt_s: float, routing):
    """The routing table of ``pond`` at step ``dt_s``, built once per pond object.

    Built as :func:`hydrocalc.hydraulics.routing.route_reservoirs` builds it.
    """
    key = (id(pond), dt_s)
    hit = _TABLE_MEMO.get(key)
    if hit is not None and hit[0] is pond:
        return hit[1]
    ss = pond.stage_storage
    tw = pond.tailwater if isinstance(pond.tailwater, float) else None
    tw_stage = routing.tailwater_stages_ft(None if tw is None else np.array([tw]), [ss])[0]
    table = routing.routing_table(ss, pond.structure(), dt_s, tailwater_stage_ft=tw_stage,
                                  flap_gate=bool(pond.flap_gate), cache=True)
    h0 = float(pond.initial_stage_ft)
    if not 0.0 <= h0 <= table.top:
        raise Unsupported("an initial stage outside the pond")  # the full analysis says why
    if len(_TABLE_MEMO) >= _TABLE_MEMO_SIZE:
        _TABLE_MEMO.clear()
    _TABLE_MEMO[key] = (pond, table)
    return table


def _route_fused(q_rows, inflow_of_row, shape, ponds, dt, routing, noise, series):
    """:func:`_route`'s routing and split, the ``engine="numba"`` path.

    By :func:`hydrocalc.hydraulics.routing.kernel.route_split`, one table per distinct pond
    object; the inflow of pond-storm ``b`` = (storm ``b // k``, pond-variant ``b % k``) is
    row ``inflow_of_row[b]`` of ``q_rows``.
    """
    m, k, nt = shape
    dt_s = float(dt) * routing.S_PER_HR
    index = {}  # pond object id -> table number
    tables, stages, of_pond = [], [], np.empty(k, dtype=np.intp)
    for j, pond in enumerate(ponds):
        t = index.get(id(pond))
        if t is None:
            t = index[id(pond)] = len(tables)
            tables.append(_pond_table(pond, dt_s, routing))
            stages.append(float(pond.initial_stage_ft))
        of_pond[j] = t
    rows = np.tile(of_pond, m)  # row b = (storm b // k, pond-variant b % k)
    primary, storage, discarded, over = routing.route_split(
        q_rows, rows, tables, stages, noise, series, inflow_of_row=inflow_of_row)
    primary = primary.reshape(m, k, nt)
    if series:
        storage = storage.reshape(m, k, nt)
        discarded = discarded.reshape(m, k, nt)
        smax = np.maximum(storage.max(axis=-1, keepdims=True), 1.0)
        storage[storage < noise * smax] = 0.0
    return primary, discarded, storage, over.reshape(m, k)


def _split_numpy(out_q, storage_ft3, tables, noise, routing, series):
    """Primary and discarded flows with numpy (as :func:`hydrocalc.analysis._route_batch`)."""
    scale = np.maximum(out_q.max(axis=-1, keepdims=True), 1e-300) * noise
    discarded = None
    xs = None
    for j, table in enumerate(tables):
        parts = [qq for _, kind, qq in table.parts if kind == "discarded"]
        if not parts:
            continue
        if xs is None:  # 2 S / dt + O (same operations and order as the full analysis)
            xs = np.multiply(storage_ft3, 2.0)
            xs /= tables[0].dt_s
            xs += out_q
            discarded = np.zeros_like(out_q)
        for qq in parts:
            discarded[:, j] += routing.interp_ext(xs[:, j], table.si, qq)
    if series and discarded is None:
        discarded = np.zeros_like(out_q)
    primary = out_q - discarded if discarded is not None else out_q.copy()
    primary[primary < scale] = 0.0
    return primary, discarded


def _rows(site, names, red, v, crit_rows) -> list[dict]:
    """The rows of ``SiteResults.summary_rows`` from the reduced arrays of variant ``v``."""
    crit = criteria_pass_by_point(crit_rows)
    out = []
    for dp in site.design_point_ids:
        pa, va = (x[:, v].tolist() for x in red["pre", dp])
        pb, vb = (x[:, v].tolist() for x in red["post", dp])
        for i, storm in enumerate(names):
            row = {"site": site.name, "scenario": "", "design_point": dp, "storm": storm,
                   "precip_in": float(site.storms.depths_in[storm]),
                   "pre_peak_cfs": pa[i], "post_peak_cfs": pb[i],
                   "peak_change_pct": _pct_change(pa[i], pb[i]),
                   "pre_volume_ft3": va[i], "post_volume_ft3": vb[i],
                   "volume_change_pct": _pct_change(va[i], vb[i]),
                   "post_le_pre": bool(pb[i] <= pa[i])}
            flags = []
            for key in _PASS_KEYS:
                val = crit.get(dp, {}).get(key, crit.get("site", {}).get(key))
                row[f"{key}_pass"] = val
                if val is not None:
                    flags.append(val)
            row["criteria_pass"] = all(flags) if flags else None
            out.append(row)
    return out

