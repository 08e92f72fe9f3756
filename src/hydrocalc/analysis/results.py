"""The results of an analysis: :class:`SiteResults` (accessors, tables, exports).

Series by scenario, storm and node, the input echo and result tables (built on first use),
the pre/post comparison and criteria rows, and their JSON, DataFrame and CSV exports.
"""

from __future__ import annotations

import concurrent.futures
import dataclasses
import functools
import json
import os
import pathlib
import shutil
import tempfile
import warnings
from typing import Any

import numpy as np

from hydrocalc import data, display
from hydrocalc._validate import suggest
from hydrocalc.analysis.export import (
    _SIG_HYDRO,
    INLINE_MAX_ORDINATES,
    _atomic_write_text,
    _clean,
    _json_floats,
    _num,
    _replace_dir,
    _umask,
    round_significant,
    with_suppress_unlink,
    write_series,
)
from hydrocalc.analysis.flows import _ScenarioRun
from hydrocalc.analysis.ponds import _DeviceFlows
from hydrocalc.analysis.tables import (
    _COMPARISON_COLUMNS,
    _CONVEYANCE_COLUMNS,
    _COVER_COLUMNS,
    _CRITERIA_COLUMNS,
    _RATIONAL_COLUMNS,
    _SEG_COLUMNS,
    _input_rows,
    _node_rows,
    criteria_pass_by_point,
)
from hydrocalc.criteria.ny_editions import applied_edition
from hydrocalc.errors import InputError
from hydrocalc.hydrograph import Hydrograph

#: Identifier of the JSON layout written by :meth:`SiteResults.to_json`.
RESULTS_FORMAT = "hydrocalc-site-results/1"


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
        """Ids of the analysed scenarios, in run order."""
        return tuple(self._runs)

    @property
    def design_points(self) -> tuple[str, ...]:
        """Ids of the site's design points."""
        return self.site.design_point_ids

    @property
    def passed(self) -> bool:
        """True when post peaks are at or below pre peaks and every evaluated criterion passes.

        Every design point's post peaks are compared with its pre peaks; waived criteria count as
        passed.
        """
        return (all(r["post_le_pre"] for r in self._comparison_rows)
                and all(r["passed"] for r in self._criteria_rows))

    def _run(self, scenario: str) -> _ScenarioRun:
        if scenario not in self._runs:

            raise InputError(f"scenario must be one of {', '.join(self._runs)}; got "
                             f"{scenario!r}{suggest(str(scenario), self._runs)}")
        return self._runs[scenario]

    def _storm_index(self, storm: str) -> int:
        if storm not in self.storms:

            raise InputError(f"storm must be one of {', '.join(self.storms)}; got {storm!r}"
                             f"{suggest(str(storm), self.storms)}")
        return self.storms.index(storm)

    def _node_index(self, run: _ScenarioRun, node: str) -> int:
        if node not in run.node_ids:

            raise InputError(f"node must be a node of scenario {run.name}; got {node!r}"
                             f"{suggest(str(node), run.node_ids)}")
        return run.node_ids.index(node)

    def flow_cfs(self, scenario: str, storm: str, node: str, *, which: str = "outflow"
                 ) -> np.ndarray:
        """Ordinates of a node's hydrograph on :attr:`time_hr` (read-only view) [ft3/s].

        ``which`` is ``"outflow"`` (default; for a pond the flow it passes downstream) or
        ``"inflow"`` (the sum of the flows entering the node).
        """
        run = self._run(scenario)
        i, k = self._storm_index(storm), self._node_index(run, node)
        if which not in ("outflow", "inflow", "unrouted"):
            raise InputError(f"which must be 'outflow', 'inflow' or 'unrouted'; got {which!r}")
        if which == "unrouted":
            view = run.unrouted(i, node)
        elif which == "outflow":  # a view of the node's own series (no (storm, node, time) copy)
            view = run.node_outflow(run.node_ids[k])[i]
        else:
            view = run.node_inflow(run.node_ids[k])[i]
        view.flags.writeable = False
        return view

    def hydrograph(self, scenario: str, storm: str, node: str, *, which: str = "outflow"):
        """A node's hydrograph as a :class:`hydrocalc.hydrograph.Hydrograph`."""
        run = self._run(scenario)
        area = float(run.upstream_area_ac[self._node_index(run, node)])
        q = self.flow_cfs(scenario, storm, node, which=which)
        return Hydrograph(self.time_hr, q, area_ac=area if area > 0 else None,
                          name=f"{scenario} {node} {storm}")

    def routing(self, scenario: str, storm: str, pond: str):
        """The :class:`hydrocalc.hydraulics.routing.RoutingResult` of one pond unit for one storm.

        For ``count`` > 1 it is one unit's result (inflow / count).
        """
        run = self._run(scenario)
        if pond not in run.ponds:

            raise InputError(f"pond must be a pond of scenario {scenario}; got {pond!r}"
                             f"{suggest(str(pond), run.ponds)}")
        res = run.ponds[pond]
        i = self._storm_index(storm)
        if res.get("_results") is not None:
            return res["_results"][i]
        return res["_batch"].routing_result((i, res["_index"]))

    def pond_arrays(self, scenario: str, pond: str) -> dict:
        """Arrays (storm, time) of a pond, all units combined.

        Keys ``stage_ft``, ``storage_ft3``, ``primary_cfs``, ``discarded_cfs`` and ``device_cfs``
        (dict by device id).
        """
        run = self._run(scenario)
        if pond not in run.ponds:
            raise InputError(f"pond must be a pond of scenario {scenario}; got {pond!r}")
        return {k: v for k, v in run.ponds[pond].items() if not k.startswith("_")}

    # -- tables ------------------------------------------------------------------------
    @functools.cached_property
    def nodes(self):
        """Table of the node results: one row per scenario, storm and node."""
        import pandas as pd

        return pd.DataFrame(self._rows["nodes"])

    @functools.cached_property
    def ponds(self):
        """Table of the pond results: one row per scenario, storm and pond."""
        import pandas as pd

        return pd.DataFrame(self._rows["ponds"])

    @functools.cached_property
    def devices(self):
        """Table of the outlet-device results: one row per scenario, storm and device."""
        import pandas as pd

        return pd.DataFrame(self._rows["devices"])

    @functools.cached_property
    def conveyance(self):
        """One row per scenario, storm and routed pipe/channel reach.

        Columns ``section, peak_inflow_cfs, peak_outflow_cfs, time_of_peak_outflow_hr,
        max_depth_ft, max_velocity_fps, full_flow_capacity_cfs, surcharged, n_subreaches,
        n_substeps`` (:func:`hydrocalc.hydraulics.conveyance.route_conveyance`). Empty without such
        reaches.
        """
        import pandas as pd

        return pd.DataFrame(self._rows["conveyance"], columns=_CONVEYANCE_COLUMNS)

    @functools.cached_property
    def rational(self):
        """One row per scenario, storm and rational subcatchment (:mod:`hydrocalc.site.rational`).

        Columns ``subcatchment, to, storm, return_period_yr, c, c_source, intensity_in_hr,
        intensity_source, area_ac, tc_hr, peak_cfs, time_of_peak_hr, hydrograph``. Empty without
        such subcatchments.
        """
        import pandas as pd

        return pd.DataFrame(self._rows["rational"], columns=_RATIONAL_COLUMNS)

    @functools.cached_property
    def subcatchments(self):
        """Table of the subcatchments: one row per scenario and subcatchment."""
        import pandas as pd

        return pd.DataFrame(self._rows["subcatchments"])

    @functools.cached_property
    def covers(self):
        """Table of the land covers: one row per scenario, subcatchment and cover."""
        import pandas as pd

        return pd.DataFrame(self._rows["covers"], columns=_COVER_COLUMNS)

    @functools.cached_property
    def tc_segments(self):
        """Table of the Tc segments: one row per scenario, subcatchment and segment."""
        import pandas as pd

        return pd.DataFrame(self._rows["tc_segments"], columns=_SEG_COLUMNS)

    @functools.cached_property
    def comparison(self):
        """Pre/post peak comparison: one row per design point and storm."""
        import pandas as pd

        return pd.DataFrame(self._comparison_rows, columns=_COMPARISON_COLUMNS)

    @functools.cached_property
    def criteria(self):
        """Evaluated criteria: one row per criterion, design point and storm."""
        import pandas as pd

        return pd.DataFrame(self._criteria_rows, columns=_CRITERIA_COLUMNS)

    @property
    def values_to_confirm(self) -> list[dict]:
        """Unverified numbers the engineer entered, with their source.

        Redevelopment option fractions and practice factors: rows ``name, value, units, source,
        verified``. JSON: ``values_to_confirm``.
        """
        extras = getattr(self, "_criteria_extras", {})
        return [dict(r) for r in extras.get("values_to_confirm", [])]

    @property
    def practices(self):
        """One row per runoff-reduction practice.

        Storage, drain-down, captured volume and RRv credit
        (:func:`hydrocalc.criteria.practices.evaluate_practice`). JSON: ``practices``.
        """
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
            "design_manual": applied_edition(site.project),
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
        doc = _clean(doc)
        if hydrographs:
            h = self._hydrograph_header()
            h["flow_cfs"] = {
                name: {storm: {nid: _json_floats(round_significant(
                    run.node_outflow(nid)[i], _SIG_HYDRO)) for nid in run.node_ids}
                    for i, storm in enumerate(self.storms)}
                for name, run in self._runs.items()}
            doc["hydrographs"] = h
        return doc

    def _hydrograph_header(self) -> dict:
        return {"time_start_hr": _num(float(self.time_hr[0])),
                "dt_hr": _num(self.site.options.dt_hr), "n_steps": int(self.time_hr.size)}

    def n_ordinates(self) -> int:
        """Number of hydrograph ordinates (every node, storm and scenario) the results hold."""
        nodes = sum(len(run.node_ids) for run in self._runs.values())
        return nodes * len(self.storms) * int(self.time_hr.size)

    def to_json(self, path=None, *, hydrographs: bool = True) -> str | None:
        """Deterministic JSON text (sorted keys, fixed float digits).

        Without ``path`` the text is returned. With ``path`` it is written atomically and
        None is returned; when the results hold more than
        :data:`hydrocalc.analysis.INLINE_MAX_ORDINATES` hydrograph ordinates (a site of
        hundreds of subcatchments), the ordinates go to a columnar file beside it,
        ``<stem>.hydrographs.parquet`` (``.csv`` without pyarrow), written in bulk at full
        precision, and the JSON's ``hydrographs`` names it (``flow_cfs_file``,
        ``flow_cfs_format``, ``flow_cfs_columns``: scenario -> storm -> node -> column)
        instead of holding ``flow_cfs`` (:func:`hydrocalc.analysis.read_hydrographs` reads
        either form).
        """
        side = (path is not None and hydrographs
                and self.n_ordinates() > INLINE_MAX_ORDINATES)
        target = None if path is None else pathlib.Path(path)
        if not side or target is None:  # side implies a path
            text = self._json_text(self.to_dict(hydrographs=hydrographs))
            if target is None:
                return text
            _atomic_write_text(target, text)
            return None
        # the columnar file is written by a thread (its encoder releases the GIL) while
        # this one builds the JSON text
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            pending = pool.submit(self._write_series_beside, target)
            try:
                doc = self.to_dict(hydrographs=False)
            finally:
                written = pending.result()  # raises the thread's error, if any
        try:
            doc["hydrographs"] = {**self._hydrograph_header(), **written[1]}
            _atomic_write_text(target, self._json_text(doc))
        except BaseException:
            with_suppress_unlink(written[0])
            raise
        return None

    @staticmethod
    def _json_text(doc: dict) -> str:
        return json.dumps(doc, sort_keys=True, indent=1, allow_nan=False,
                          ensure_ascii=False) + "\n"

    def _write_series_beside(self, target: pathlib.Path) -> tuple[pathlib.Path, dict]:
        """Every node's outflow as columns of one file beside ``target``; (path, JSON keys)."""
        columns: dict[str, dict[str, dict[str, str]]] = {}
        series: dict[str, np.ndarray] = {"time_hr": self.time_hr}
        for name, run in self._runs.items():
            per = columns.setdefault(name, {})
            for nid in run.node_ids:
                flows = run.node_outflow(nid)
                for i, storm in enumerate(self.storms):
                    col = f"{name}/{storm}/{nid}"
                    per.setdefault(storm, {})[nid] = col
                    series[col] = flows[i]
        path, fmt = write_series(target.with_name(f"{target.stem}.hydrographs"), series)
        return path, {"flow_cfs_file": path.name, "flow_cfs_format": fmt,
                      "flow_cfs_columns": columns}

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
        """Write :meth:`to_frames` as CSV files into ``directory``; returns the file paths.

        Atomically: a temporary folder beside it is filled, then moved into place.
        """
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
        return display.html(self)
