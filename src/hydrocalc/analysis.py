r"""A site end to end: both scenarios, every storm, every node; pre/post comparison; NY criteria.

:func:`analyze` takes a :class:`hydrocalc.site.Site` and returns :class:`SiteResults`:

1. the design-storm hyetographs (:func:`hydrocalc.rainfall.design_storm`, built once per
   distinct storm and cached);
2. for each scenario, the runoff hydrographs of **all** subcatchments for **all** storms in one
   batch call (:func:`hydrocalc.hydrograph.runoff_hydrographs`, TR-20 method);
3. the network in topological order: flows add at each node, ponds are routed by
   storage-indication for all storms at once (:mod:`hydrocalc.routing`), reaches translate
   their inflow by ``lag_hr``; exfiltration leaves the network;
4. the pre/post comparison at each design point and storm (peak flow, volume, time of peak,
   change in percent, post <= pre);
5. the NY SMDM unified sizing criteria (:mod:`hydrocalc.criteria.ny`): WQv, RRv, Cpv, Qp, Qf;
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

from hydrocalc.errors import InputError
from hydrocalc.units import FT2_PER_AC, IN_PER_FT, S_PER_HR

__all__ = ["analyze", "SiteResults", "RESULTS_FORMAT"]

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


def _route_pond(pond, inflow: np.ndarray, time_hr: np.ndarray, dt_hr: float) -> dict:
    """Route ``inflow`` (m, nt) through ``pond``; arrays (m, nt) of the whole pond (x count)."""
    from hydrocalc import routing
    from hydrocalc.hydrograph import Hydrograph

    count = pond.count
    q_in = inflow / count
    structure = pond.structure()
    m = q_in.shape[0]
    batch = getattr(routing, "route_reservoirs", None)
    results = None
    if batch is not None:
        try:
            hydros = [Hydrograph(time_hr, q_in[i]) for i in range(m)]
            results = batch(hydros, pond.stage_storage, structure,
                            initial_stage_ft=pond.initial_stage_ft)
            if not isinstance(results, list | tuple):
                results = _unbatch(results, m)
        except TypeError:
            results = None
    if results is None:
        results = [routing.route_reservoir(Hydrograph(time_hr, q_in[i]), pond.stage_storage,
                                           structure, initial_stage_ft=pond.initial_stage_ft)
                   for i in range(m)]
    out = {
        "primary_cfs": np.vstack([_field(r, "primary_cfs", "outflow_cfs") for r in results]) * count,
        "discarded_cfs": np.vstack([_discarded(r, q_in.shape[1]) for r in results]) * count,
        "stage_ft": np.vstack([np.asarray(r.stage_ft, dtype=float) for r in results]),
        "storage_ft3": np.vstack([np.asarray(r.storage_ft3, dtype=float) for r in results]) * count,
        "overtopped": np.array([bool(getattr(r, "overtopped", False)) for r in results]),
        "mass_balance_error_pct": np.array([float(getattr(r, "mass_balance_error_pct", np.nan))
                                            for r in results]),
        "device_cfs": {},
        "results": results,
    }
    names = None
    for i, r in enumerate(results):
        flows = _device_flows(r)
        if names is None:
            names = list(flows)
            out["device_cfs"] = {n: np.zeros((m, q_in.shape[1])) for n in names}
        for n in names:
            out["device_cfs"][n][i] = np.asarray(flows[n], dtype=float) * count
    return out


def _unbatch(res, m):
    return [res[i] for i in range(m)]


def _field(r, *names):
    for n in names:
        v = getattr(r, n, None)
        if v is not None:
            return np.asarray(v, dtype=float)
    raise AttributeError(names[0])


def _discarded(r, nt):
    v = getattr(r, "discarded_cfs", None)
    return np.zeros(nt) if v is None else np.asarray(v, dtype=float)


def _device_flows(r) -> dict:
    for name in ("device_flows_cfs", "device_cfs", "devices_cfs", "device_flows"):
        v = getattr(r, name, None)
        if v is not None:
            return dict(v)
    return {}


@dataclasses.dataclass
class _ScenarioRun:
    """Everything computed for one scenario (arrays indexed by storm, node, time)."""

    name: str
    node_ids: tuple[str, ...]
    kinds: tuple[str, ...]
    outflow: np.ndarray  # (m, n_nodes, nt)
    inflow: np.ndarray  # (m, n_nodes, nt)
    upstream_area_ac: np.ndarray  # (n_nodes,)
    unrouted: np.ndarray  # (m, n_nodes, nt): sum of upstream subcatchment runoff, no routing
    ponds: dict[str, dict]
    hydrograph_set: Any


def _run_scenario(site, sc, hyetos, storm_names, end_hr) -> _ScenarioRun:
    from hydrocalc.hydrograph import runoff_hydrographs

    opt = site.options
    subs = sc.subcatchments
    hs = runoff_hydrographs(
        [s.area_ac for s in subs], [s.cn for s in subs], [s.tc_hr for s in subs], hyetos,
        dt_hr=opt.dt_hr, prf=opt.prf, ia_ratio=opt.ia_ratio, end_hr=end_hr,
        names=[s.id for s in subs])
    time_hr = hs.time_hr
    dt = float(opt.dt_hr)
    m, nt = len(storm_names), time_hr.size
    order = sc.order
    index = {nid: k for k, nid in enumerate(order)}
    nodes = sc.nodes
    n_nodes = len(order)
    outflow = np.zeros((m, n_nodes, nt))
    inflow = np.zeros((m, n_nodes, nt))
    unrouted = np.zeros((m, n_nodes, nt))
    area = np.zeros(n_nodes)
    sub_index = {s.id: j for j, s in enumerate(subs)}
    ponds: dict[str, dict] = {}
    for nid in order:
        k = index[nid]
        node = nodes[nid]
        if node.kind == "subcatchment":
            j = sub_index[nid]
            outflow[:, k] = hs.flow_cfs[:, j]
            inflow[:, k] = 0.0
            unrouted[:, k] = hs.flow_cfs[:, j]
            area[k] += node.area_ac
        elif node.kind == "pond":
            res = _route_pond(node, inflow[:, k], time_hr, dt)
            ponds[nid] = res
            outflow[:, k] = res["primary_cfs"]
        elif node.kind == "reach":
            outflow[:, k] = _shift(inflow[:, k], node.lag_hr, dt)
            lost = _integrate(inflow[:, k], dt) - _integrate(outflow[:, k], dt)
            vin = _integrate(inflow[:, k], dt)
            if np.any(lost > 1e-3 * np.maximum(vin, 1e-9)):
                warnings.warn(
                    f"{sc.name}.reach[{nid}]: the lag of {node.lag_hr:g} h pushes "
                    f"{float(lost.max()):.4g} ft3 past the end of the simulation; increase "
                    "analysis.duration_hr", RuntimeWarning, stacklevel=2)
        else:  # design point
            outflow[:, k] = inflow[:, k]
        if node.to is not None:
            t = index[node.to]
            inflow[:, t] += outflow[:, k]
            unrouted[:, t] += unrouted[:, k]
            area[t] += area[k]
    return _ScenarioRun(name=sc.name, node_ids=order, kinds=tuple(nodes[n].kind for n in order),
                        outflow=outflow, inflow=inflow, upstream_area_ac=area, unrouted=unrouted,
                        ponds=ponds, hydrograph_set=hs)


def _end_hr(site, storms_duration_hr: float) -> float | None:
    """Simulation end: the user's ``analysis.duration_hr``, else automatic."""
    opt = site.options
    if opt.duration_hr is not None:
        return float(opt.duration_hr)
    from hydrocalc.unit_hydrograph import effective_tc_hr

    tcs = [s.tc_hr for sc in site.scenarios.values() for s in sc.subcatchments]
    tp = opt.dt_hr / 2.0 + 0.6 * float(np.max(effective_tc_hr(np.array(tcs))))
    lag = 0.0
    for sc in site.scenarios.values():
        lag = max(lag, sum(r.lag_hr for r in sc.reaches))
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
                 criteria_details, warning_list, end_hr):
        self.site = site
        self.storms = tuple(storms)
        self.time_hr = time_hr
        self._runs = runs
        self._rows = rows
        self._comparison_rows = comparison_rows
        self._criteria_rows = criteria_rows
        self.criteria_details = criteria_details
        self.warnings = list(warning_list)
        self.end_hr = end_hr

    # -- access ------------------------------------------------------------------------
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
        arr = {"outflow": run.outflow, "inflow": run.inflow, "unrouted": run.unrouted}[which]
        view = arr[i, k]
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
        return run.ponds[pond]["results"][self._storm_index(storm)]

    def pond_arrays(self, scenario: str, pond: str) -> dict:
        """Arrays (storm, time) of a pond: ``stage_ft``, ``storage_ft3``, ``primary_cfs``,
        ``discarded_cfs`` and ``device_cfs`` (dict by device id), all units combined."""
        run = self._run(scenario)
        if pond not in run.ponds:
            raise InputError(f"pond must be a pond of scenario {scenario}; got {pond!r}")
        return {k: v for k, v in run.ponds[pond].items() if k != "results"}

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

    def summary_rows(self, *, scenario: str = "") -> list[dict]:
        """One dict per design point and storm for a batch summary table.

        Keys: ``site, scenario, design_point, storm, precip_in, pre_peak_cfs,
        post_peak_cfs, peak_change_pct, pre_volume_ft3, post_volume_ft3, volume_change_pct,
        post_le_pre, wqv_pass, rrv_pass, cpv_pass, qp_pass, qf_pass, criteria_pass``
        (``<criterion>_pass`` is True/False, or None when not evaluated; site-wide
        criteria repeat on every row). ``scenario`` labels the rows (e.g. a sweep case).
        """
        crit: dict[str, dict[str, bool | None]] = {}
        for r in self._criteria_rows:
            key = r["criterion"].split("_")[0]
            dp = r["design_point"]
            crit.setdefault(dp, {})
            prev = crit[dp].get(key)
            crit[dp][key] = r["passed"] if prev is None else (prev and r["passed"])
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
            "warnings": self.warnings,
            "passed": self.passed,
        }
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
        try:
            for name, frame in frames.items():
                frame.to_csv(tmp / f"{name}.csv", index=False, float_format="%.10g",
                             lineterminator="\n")
            _replace_dir(tmp, target)
        except BaseException:
            shutil.rmtree(tmp, ignore_errors=True)
            raise
        return [target / f"{name}.csv" for name in frames]

    def __repr__(self) -> str:
        return (f"SiteResults(site={self.site.name!r}, storms={list(self.storms)}, "
                f"design_points={list(self.design_points)}, passed={self.passed}, "
                f"warnings={len(self.warnings)})")


def _atomic_write_text(path: pathlib.Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
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
            reaches.append({"scenario": name, "reach": r.id, "to": r.to, "lag_hr": r.lag_hr})
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


# ----------------------------------------------------------------------------------------
# the analysis


def analyze(site, *, storms: Sequence[str] | None = None) -> SiteResults:
    """Analyse a site: both scenarios, every storm and node, comparison and NY criteria.

    Parameters
    ----------
    site : hydrocalc.site.Site
        From :func:`hydrocalc.site.load_site` (or :func:`~hydrocalc.site.parse_site`, or a
        :func:`dataclasses.replace` variant of one).
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
        unit hydrograph); the message names the step.
    """
    names = tuple(site.storms.names if storms is None else storms)
    for n in names:
        if n not in site.storms.depths_in:
            from hydrocalc._validate import suggest

            raise InputError(f"storm must be one of {', '.join(site.storms.names)}; got {n!r}"
                             f"{suggest(str(n), site.storms.names)}")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hyetos = _storms(site, names)
        end_hr = _end_hr(site, float(site.storms.duration_hr))
        runs = {}
        for name in ("pre", "post"):
            runs[name] = _run_scenario(site, site.scenarios[name], hyetos, names, end_hr)
        time_hr = runs["pre"].hydrograph_set.time_hr
        rows = _input_rows(site)
        rows.update(_node_rows(site, runs, names, time_hr))
        comparison = _comparison_rows(site, runs, names)
        crit_rows, details, notes = _criteria(site, runs, names, time_hr)
        _check_drained(site, runs, names)
    messages: list[str] = list(site.notes)
    for w in caught:
        messages.append(f"{w.category.__name__}: {w.message}")
    messages += notes
    seen, unique = set(), []
    for msg in messages:
        if msg not in seen:
            seen.add(msg)
            unique.append(msg)
    return SiteResults(site, names, time_hr, runs, rows, comparison, crit_rows, details,
                       unique, end_hr)


def _check_drained(site, runs, names) -> None:
    for name, run in runs.items():
        for pid, res in run.ponds.items():
            st = res["storage_ft3"]
            peak = st.max(axis=1)
            end = st[:, -1]
            for i, storm in enumerate(names):
                if peak[i] > 0 and end[i] > 0.05 * peak[i] and end[i] > 1.0:
                    warnings.warn(
                        f"{name}.pond[{pid}] still stores {end[i]:.4g} ft3 "
                        f"({100 * end[i] / peak[i]:.0f} % of its peak) at the end of the "
                        f"{storm} simulation ({run.hydrograph_set.time_hr[-1]:g} h); volumes "
                        "leaving it later are not in the results. Increase "
                        "analysis.duration_hr to see them", RuntimeWarning, stacklevel=2)


def _node_rows(site, runs, names, time_hr) -> dict:
    dt = site.options.dt_hr
    nodes_rows, pond_rows, dev_rows = [], [], []
    for name, run in runs.items():
        sc = site.scenarios[name]
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
    return {"nodes": nodes_rows, "ponds": pond_rows, "devices": dev_rows}


def _comparison_rows(site, runs, names) -> list[dict]:
    dt = site.options.dt_hr
    time_hr = runs["pre"].hydrograph_set.time_hr
    out = []
    for dp in site.design_point_ids:
        kp = runs["pre"].node_ids.index(dp)
        kq = runs["post"].node_ids.index(dp)
        for i, storm in enumerate(names):
            a = runs["pre"].outflow[i, kp]
            b = runs["post"].outflow[i, kq]
            pa, pb = float(a.max()), float(b.max())
            va, vb = float(_integrate(a, dt)), float(_integrate(b, dt))
            out.append({
                "design_point": dp, "storm": storm,
                "precip_in": float(site.storms.depths_in[storm]),
                "pre_peak_cfs": pa, "post_peak_cfs": pb, "peak_change_cfs": pb - pa,
                "peak_change_pct": _pct_change(pa, pb),
                "pre_volume_ft3": va, "post_volume_ft3": vb,
                "volume_change_pct": _pct_change(va, vb),
                "pre_time_of_peak_hr": float(time_hr[int(np.argmax(a))]),
                "post_time_of_peak_hr": float(time_hr[int(np.argmax(b))]),
                "post_le_pre": bool(pb <= pa),
            })
    return out


# ----------------------------------------------------------------------------------------
# NY criteria


def _crit_row(table, key, criterion, design_point, storm, required, provided, units,
              comparison, passed, *, method="", details="", note="", result=None):
    info = table.get(key, {})
    if result is None:
        result = "n/a" if passed is None else ("pass" if passed else "fail")
    return {
        "criterion": criterion, "symbol": info.get("symbol", ""), "design_point": design_point,
        "storm": storm, "required": required, "provided": provided, "units": units,
        "comparison": comparison, "passed": True if passed is None else bool(passed),
        "result": result, "equation": info.get("equation", ""), "method": method,
        "details": details, "source": info.get("source", ""),
        "location": info.get("location", ""), "status": info.get("status", ""), "note": note,
    }


def _fmt(v, unit="") -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    s = f"{v:.4g}"
    return f"{s} {unit}".strip()


def _criteria(site, runs, names, time_hr):
    """Rows of the criteria table, details per row and notes for the warnings list."""
    from hydrocalc.criteria import ny

    cs = site.criteria
    rows, details, notes = [], {}, []
    if cs.standard == "none":
        return rows, details, notes
    table = {r["key"]: r for r in ny.criteria_table().to_dict(orient="records")}
    post = site.post
    pre = site.pre
    p_in = site.storms.wqv_precip_in
    dt = site.options.dt_hr

    def waived_row(key, criterion, dp, storm, units):
        rows.append(_crit_row(table, key, criterion, dp, storm, None, None, units, "", True,
                              note=f"waived: {cs.waived[key]}", result="waived"))

    # -- site-level quantities: WQv, RRv --------------------------------------------------
    area = cs.wqv_area_ac if cs.wqv_area_ac is not None else post.area_ac
    imp = cs.wqv_impervious_ac if cs.wqv_impervious_ac is not None else post.impervious_ac
    imp_pct = min(100.0, 100.0 * imp / area)

    def pond_capture_ft3(p):
        inv = p.surface_outlet_invert_ft
        return _max_storage(p) if not math.isfinite(inv) else _storage_at(p, inv)

    def pond_wqv_ft3(p):
        up = post.upstream_subcatchments(p.id)
        a = sum(s.area_ac for s in up)
        i = min(100.0, 100.0 * sum(s.impervious_ac for s in up) / a)
        return float(ny.water_quality_volume(p_in, i, a)) * FT2_PER_AC

    rrv_parts, wqv_parts = [], []
    rrv_prov = cs.rrv_provided_acft * FT2_PER_AC
    wqv_prov = cs.wqv_provided_acft * FT2_PER_AC
    for p in post.ponds:
        cap = pond_capture_ft3(p)
        contrib = pond_wqv_ft3(p)
        treated = min(cap, contrib)
        wqv_prov += treated
        wqv_parts.append(f"{p.id}: min(capture {_fmt(cap, 'ft3')}, contributing WQv "
                         f"{_fmt(contrib, 'ft3')}) = {_fmt(treated, 'ft3')}")
        if p.rrv_credit_pct:
            credit = treated * p.rrv_credit_pct / 100.0
            rrv_prov += credit
            rrv_parts.append(f"{p.id}: {_fmt(treated, 'ft3')} x {p.rrv_credit_pct:g} % = "
                             f"{_fmt(credit, 'ft3')}")
    if cs.rrv_provided_acft:
        rrv_parts.append(f"other practices: {_fmt(cs.rrv_provided_acft, 'acre-ft')} "
                         f"({cs.rrv_provided_note})")
    if cs.wqv_provided_acft:
        wqv_parts.append(f"other practices: {_fmt(cs.wqv_provided_acft, 'acre-ft')} "
                         f"({cs.wqv_provided_note})")
    rrv_prov_acft = rrv_prov / FT2_PER_AC
    wqv_prov_acft = wqv_prov / FT2_PER_AC
    rv_plain = float(ny.runoff_coefficient(imp_pct))
    wqv_plain = float(ny.water_quality_volume(p_in, imp_pct, area))
    min_rv = ny.minimum_rv_applies(cs.min_rv_rule, wqv_plain, rrv_prov_acft)
    wqv_req = float(ny.water_quality_volume(p_in, imp_pct, area,
                                            min_rv=ny.MIN_RV if min_rv else None))
    rv_used = max(rv_plain, ny.MIN_RV) if min_rv else rv_plain
    details["wqv"] = {"precip_in": p_in, "precip_source": site.storms.wqv_precip_source,
                      "area_ac": area, "impervious_ac": imp, "impervious_pct": imp_pct,
                      "rv_formula": rv_plain, "rv_used": rv_used,
                      "min_rv_rule": cs.min_rv_rule, "min_rv_applied": min_rv,
                      "wqv_formula_acft": wqv_plain, "wqv_required_acft": wqv_req,
                      "wqv_provided_acft": wqv_prov_acft, "provided_by": wqv_parts}
    if min_rv and rv_plain < ny.MIN_RV:
        notes.append(f"WQv: minimum Rv = 0.2 applied (min_rv_rule = {cs.min_rv_rule!r}; the "
                     "2015 SMDM Table 4.1 text 'Minimum Rv = 0.2 if WQv > RRv' - its "
                     "interpretation is unverified)")
    if "wqv" in cs.waived:
        waived_row("wqv", "wqv", "site", "", "acre-ft")
    else:
        rows.append(_crit_row(
            table, "wqv", "wqv", "site", "", wqv_req, wqv_prov_acft, "acre-ft",
            "provided >= required", wqv_prov_acft >= wqv_req * (1 - 1e-9),
            method=f"P = {_fmt(p_in, 'in')} ({site.storms.wqv_precip_source}); min_rv_rule = "
                   f"{cs.min_rv_rule}",
            details=f"A = {_fmt(area, 'ac')}, I = {_fmt(imp_pct, '%')}, Rv = {_fmt(rv_used)}"
                    f"{' (minimum 0.2 applied)' if min_rv and rv_plain < ny.MIN_RV else ''}; "
                    f"provided: {'; '.join(wqv_parts) or 'none'}"))

    # RRv
    if "rrv" in cs.waived:
        waived_row("rrv", "rrv", "site", "", "acre-ft")
    else:
        if cs.rrv_specific_reduction_factor is not None:
            factors = dict(cs.rrv_specific_reduction_factor)
            f_src, f_status = "site file (criteria.rrv_specific_reduction_factor)", "user input"
        else:
            f = ny.specific_reduction_factors(cs.rrv_factors)
            factors, f_src, f_status = f["factors"], f"{f['source']}, {f['location']}", f["status"]
        if cs.new_impervious_ac_by_hsg is not None:
            new_imp = dict(cs.new_impervious_ac_by_hsg)
            imp_src = "site file (criteria.new_impervious_ac_by_hsg)"
        else:
            def by_hsg(sc):
                d: dict[str, float] = {}
                for s in sc.subcatchments:
                    if s.impervious_ac > 0:
                        d[s.impervious_hsg] = d.get(s.impervious_hsg, 0.0) + s.impervious_ac
                return d
            a_post, a_pre = by_hsg(post), by_hsg(pre)
            new_imp = {h: max(a_post.get(h, 0.0) - a_pre.get(h, 0.0), 0.0)
                       for h in sorted(set(a_post) | set(a_pre))}
            imp_src = "post minus pre impervious area by HSG"
        missing = [h for h, a in new_imp.items() if a > 0 and h not in factors]
        if missing:
            raise InputError(f"criteria.rrv_specific_reduction_factor must give S for HSG "
                             f"{', '.join(missing)}; got {factors}")
        rrv_min = sum(float(ny.minimum_runoff_reduction_volume(p_in, a, factors[h]))
                      for h, a in new_imp.items() if a > 0)
        total_new = sum(new_imp.values())
        proj_new = getattr(site.project, "new_impervious_area_ac", None)
        if proj_new is not None and cs.new_impervious_ac_by_hsg is None and (
                abs(total_new - proj_new) > max(0.1 * proj_new, 0.005)):
            notes.append(f"RRv: new impervious cover from the scenarios ({total_new:.4g} ac) "
                         f"differs from project.new_impervious_area ({proj_new:.4g} ac) by more "
                         "than 10 %; check the impervious areas or give "
                         "criteria.new_impervious_ac_by_hsg")
        notes.append(f"RRv: specific reduction factors S = "
                     f"{', '.join(f'{h} {v:g}' for h, v in sorted(factors.items()))} from "
                     f"{f_src}; status: {f_status}. The minimum-RRv equation "
                     "(P Rv* Ai / 12, Ai = S Aic) is unverified in the primary SMDM text")
        aic_text = ", ".join(f"{h} {_fmt(a, 'ac')}" for h, a in new_imp.items()) or "0"
        details["rrv"] = {"precip_in": p_in, "new_impervious_ac_by_hsg": new_imp,
                          "new_impervious_source": imp_src,
                          "specific_reduction_factors": factors, "factors_source": f_src,
                          "factors_status": f_status, "rrv_min_acft": rrv_min,
                          "rrv_provided_acft": rrv_prov_acft, "provided_by": rrv_parts}
        rows.append(_crit_row(
            table, "rrv", "rrv", "site", "", rrv_min, rrv_prov_acft, "acre-ft",
            "provided >= required", rrv_prov_acft >= rrv_min * (1 - 1e-9),
            method=f"S by HSG from {f_src} (status: {f_status})",
            details=f"Aic = {aic_text}; provided: {'; '.join(rrv_parts) or 'none'}",
            note="full RRv target is the WQv; the minimum applies with documented justification"))

    # -- per design point: Cpv, Qp, Qf ----------------------------------------------------
    for dp in site.design_point_ids:
        _cpv_rows(site, runs, names, time_hr, dp, table, rows, details, notes, dt)
        for key, storm in (("qp", cs.qp_storm), ("qf", cs.qf_storm)):
            if key in cs.waived:
                waived_row(key, key, dp, storm, "cfs")
                continue
            if storm not in names:
                rows.append(_crit_row(table, key, key, dp, storm, None, None, "cfs",
                                      "provided <= required", None, result="not evaluated",
                                      note=f"storm {storm!r} was not analysed"))
                continue
            i = names.index(storm)
            pre_pk = float(runs["pre"].outflow[i, runs["pre"].node_ids.index(dp)].max())
            post_pk = float(runs["post"].outflow[i, runs["post"].node_ids.index(dp)].max())
            rows.append(_crit_row(
                table, key, key, dp, storm, pre_pk, post_pk, "cfs", "provided <= required",
                bool(ny.peak_not_increased(pre_pk, post_pk)),
                method="routed peaks at the design point (TR-20 method, storage-indication)",
                details=f"pre {_fmt(pre_pk, 'cfs')}, post {_fmt(post_pk, 'cfs')}"))
            if key == "qf":
                ups = site.post.upstream[dp]
                over = [pid for pid, res in runs["post"].ponds.items()
                        if pid in ups and bool(res["overtopped"][i])]
                ponds_up = [pid for pid in runs["post"].ponds if pid in ups]
                if ponds_up:
                    rows.append(_crit_row(
                        table, "qf", "qf_safe_passage", dp, storm, 0, len(over),
                        "ponds overtopped", "provided <= required", not over,
                        method="routed 100-year storm: no upstream pond above its top stage",
                        details=f"ponds {', '.join(ponds_up)}; overtopped: "
                                f"{', '.join(over) or 'none'}"))
    return rows, details, notes


def _cpv_rows(site, runs, names, time_hr, dp, table, rows, details, notes, dt):
    from hydrocalc.criteria import ny

    cs = site.criteria
    storm = cs.cpv_storm
    if "cpv" in cs.waived:
        rows.append(_crit_row(table, "cpv", "cpv", dp, storm, None, None, "acre-ft", "", True,
                              note=f"waived: {cs.waived['cpv']}", result="waived"))
        return
    if storm not in names:
        rows.append(_crit_row(table, "cpv", "cpv", dp, storm, None, None, "acre-ft",
                              "provided >= required", None, result="not evaluated",
                              note=f"storm {storm!r} was not analysed"))
        return
    post = site.post
    run = runs["post"]
    i = names.index(storm)
    k = run.node_ids.index(dp)
    unrouted = run.unrouted[i, k]
    routed = run.outflow[i, k]
    qi = float(unrouted.max())
    v_unrouted = float(_integrate(unrouted, dt))
    ups = post.upstream[dp]
    ponds_up = [post.nodes[p] for p in run.ponds if p in ups]
    lost = 0.0
    for p in ponds_up:
        res = run.ponds[p.id]
        lost += float(_integrate(res["discarded_cfs"][i], dt))
        inv = p.surface_outlet_invert_ft
        end = float(res["storage_ft3"][i, -1])
        below = _max_storage(p) if not math.isfinite(inv) else _storage_at(p, inv)
        lost += min(end, below)
    vr = max(v_unrouted - lost, 0.0)
    rtype = cs.cpv_rainfall_type or _tr55_type(site.storms.distribution)
    det = {"storm": storm, "inflow_peak_cfs": qi, "unrouted_volume_ft3": v_unrouted,
           "reduced_volume_ft3": min(lost, v_unrouted), "remaining_volume_ft3": vr,
           "rainfall_type": rtype, "detention_hr": cs.cpv_detention_hr,
           "ponds": [p.id for p in ponds_up]}
    details[f"cpv:{dp}"] = det
    if qi <= 0 or vr <= 1e-3 * max(v_unrouted, 1e-9):
        det.update(storage_acft=0.0, outflow_peak_cfs=0.0)
        rows.append(_crit_row(
            table, "cpv", "cpv", dp, storm, 0.0, 0.0, "acre-ft", "provided >= required", True,
            method="1-year runoff remaining after runoff reduction",
            details=f"1-year runoff {_fmt(v_unrouted, 'ft3')}; reduced (exfiltration and "
                    f"retained storage) {_fmt(min(lost, v_unrouted), 'ft3')}; remaining "
                    f"{_fmt(vr, 'ft3')}",
            note="no Cpv needed: the post-development 1-year runoff is fully reduced"))
        return
    vs_acft, qo, r = (float(x) for x in ny.channel_protection_storage(
        qi, vr, detention_hr=cs.cpv_detention_hr, rainfall_type=rtype))
    vs_ft3 = vs_acft * FT2_PER_AC
    det.update(storage_acft=vs_acft, outflow_peak_cfs=qo, qo_over_qi=r)
    # provided storage: peak storage used in the routed 1-year storm by the upstream ponds
    used = sum(float(run.ponds[p.id]["storage_ft3"][i].max()) for p in ponds_up)
    rows.append(_crit_row(
        table, "cpv", "cpv", dp, storm, vs_acft, used / FT2_PER_AC, "acre-ft",
        "provided >= required", used >= vs_ft3 * (1 - 1e-9),
        method=f"TR-55 Ch. 6 storage ratio (Table F-2, type {rtype}) with qo = Vs / "
               f"{cs.cpv_detention_hr:g} h; provided = peak storage in the routed 1-year storm",
        details=f"qi = {_fmt(qi, 'cfs')}, Vr = {_fmt(vr, 'ft3')} (after "
                f"{_fmt(min(lost, v_unrouted), 'ft3')} reduced), qo/qi = {_fmt(r)}, qo = "
                f"{_fmt(qo, 'cfs')}, Vs = {_fmt(vs_ft3, 'ft3')}"))
    # orifice
    head = cs.cpv_orifice_head_ft
    control = None
    with_surface = [p for p in ponds_up if math.isfinite(p.surface_outlet_invert_ft)]
    if len(with_surface) == 1:
        control = with_surface[0]
    d_req = math.nan
    d_prov = math.nan
    head_src = "criteria.cpv_orifice_head_ft"
    if head is None and control is not None:
        inv = control.surface_outlet_invert_ft
        s0 = _storage_at(control, inv)
        head = _stage_at(control, s0 + vs_ft3) - inv
        head_src = f"pond {control.id}: stage at Vs above the lowest outlet"
    if head is not None and head > 0:
        d = 0.0
        for _ in range(20):  # head to the orifice centre depends on d
            ho = max(head - d / 24.0, 0.05 * head)
            d = float(ny.orifice_diameter_in(qo, ho, cd=cs.cpv_orifice_cd))
        d_req = d
    if control is not None:
        lows = [(s, s.get("invert_ft", s.get("crest_ft"))) for s in control.outlet_spec
                if s["type"] != "exfiltration"]
        lowest = min(lows, key=lambda x: x[1])[0]
        if lowest["type"] == "circular_orifice":
            d_prov = float(lowest["diameter_in"])
    det.update(orifice_head_ft=head, orifice_head_source=head_src,
               orifice_diameter_required_in=d_req, orifice_diameter_provided_in=d_prov)
    if math.isfinite(d_req):
        rows.append(_crit_row(
            table, "cpv", "cpv_orifice", dp, storm, d_req, d_prov if math.isfinite(d_prov) else None,
            "in", "provided <= required",
            (d_prov <= d_req * (1 + 1e-9)) if math.isfinite(d_prov) else None,
            method=f"orifice equation, Cd = {cs.cpv_orifice_cd:g}, head from {head_src}",
            details=f"qo = {_fmt(qo, 'cfs')}, ho = {_fmt(head, 'ft')} (to the invert), "
                    f"largest diameter {_fmt(d_req, 'in')}",
            result=None if math.isfinite(d_prov) else "n/a",
            note="" if math.isfinite(d_prov) else "lowest outlet is not a circular orifice"))
    # routed detention time
    t_det = ny.centroid_detention_time_hr(time_hr, unrouted, routed)
    det["detention_time_hr"] = t_det
    rows.append(_crit_row(
        table, "cpv", "cpv_detention_time", dp, storm, cs.cpv_detention_hr,
        None if not math.isfinite(t_det) else t_det, "h", "provided >= required",
        bool(math.isfinite(t_det) and t_det >= cs.cpv_detention_hr) or not math.isfinite(t_det),
        method="centre-of-mass detention time of the routed 1-year storm at the design point",
        details=f"centroid of outflow minus centroid of unrouted inflow = {_fmt(t_det, 'h')}",
        note="" if math.isfinite(t_det) else "no outflow at the design point"))


def _tr55_type(dist):
    from hydrocalc.site import _tr55_type as f

    return f(dist) or "II"
