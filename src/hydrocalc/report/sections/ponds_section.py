"""The ``ponds`` section: stage-storage-discharge, devices, routed peaks per pond.

:func:`device_table` and :func:`pond_summary` give one pond's device and per-storm tables.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import pandas as pd

from hydrocalc.analysis.overtopping import overtopping_rows
from hydrocalc.hydraulics.outlets import rating_table
from hydrocalc.report import figures as F
from hydrocalc.report.sections.builder import (
    _SCENARIO_TITLE,
    _active_window,
    _analysis_warnings,
    _as_text,
    _Builder,
    _fmt,
)
from hydrocalc.report.tables import Table, md_escape


# -- ponds -------------------------------------------------------------------------------
def _spec_text(spec: Mapping) -> str:
    return ", ".join(f"{k} = {_as_text(v)}" for k, v in spec.items() if k not in ("id", "type"))


def device_table(pond) -> pd.DataFrame:
    """Every device of a pond with every coefficient as used (defaults included).

    Columns: ``device, type, invert_ft`` (invert or crest above the bottom; with
    ``invert_elevation_ft`` when the pond has ``bottom_elevation_ft``) and one column
    per coefficient or dimension (``diameter_in``, ``cd``, ``length_ft``, ``cw``,
    ``end_contractions``...), then the barrel (``n``, ``ke``...) when the pond has one.
    A culvert (``hydrocalc.hydraulics.outlets.culvert.Culvert``) lists its inlet invert as
    ``invert_ft``, its outlet invert, slope, size, n, ke and its HDS-5 Table A.1 constants
    (form, K, M, c, Y, Ks, chart, scale).
    """
    import dataclasses

    rows = []
    devices = list(zip(pond.outlet_ids, pond.outlet_types, pond.outlets, strict=False))
    if getattr(pond, "barrel", None) is not None:
        devices.append(("barrel", "barrel", pond.barrel))
    for dev_id, kind, dev in devices:
        fields = (dataclasses.asdict(dev)  # type: ignore[arg-type]  # devices are instances
                  if dataclasses.is_dataclass(dev) else dict(vars(dev)))
        row = {"device": dev_id, "type": kind,
               "invert_ft": fields.pop("invert_ft", fields.pop(
                   "crest_ft", fields.pop("inlet_invert_ft", None)))}
        fields.update(getattr(dev, "coefficients", None) or {})
        for k, v in fields.items():
            if k in ("name", "stage_storage") or v is None:
                continue
            row[k] = v if isinstance(v, (int, float, str)) else _as_text(v)
        datum = getattr(pond, "bottom_elevation_ft", None)
        if datum is not None and row["invert_ft"] is not None:
            row["invert_elevation_ft"] = float(row["invert_ft"]) + float(datum)
            if isinstance(row.get("outlet_invert_ft"), float):
                row["outlet_invert_elevation_ft"] = row["outlet_invert_ft"] + float(datum)
        rows.append(row)
    frame = pd.DataFrame(rows)
    return frame.astype(object).where(frame.notna(), None) if len(frame) else frame


def pond_summary(r, scenario: str, pond) -> pd.DataFrame:
    """Return the per-storm routing summary of one pond.

    Per storm: peak elevation (or stage), surface area and storage at peak, attenuation,
    lag, plug-flow and centre-of-mass detention times, inflow and outflow volumes; for a
    pond with a tailwater (constant, series or interconnected), its kind, peak level and
    the peak flow it drove back into the pond.

    Attenuation [%] = 100 (1 - Qout,peak / Qin,peak); lag [min] = time of the outflow peak
    minus time of the inflow peak (empty when nothing flows out). Detention times follow
    the two definitions HydroCAD prints in its pond summary (HydroCAD Software Solutions,
    "Detention Time", https://www.hydrocad.net/detentiontime.htm):

    * centre of mass: t_c,out - t_c,in with t_c = sum(t Q) / sum(Q) of each hydrograph;
    * plug flow (first in, first out): the mean, over the volume passed downstream, of
      t_out(V) - t_in(V), the times at which the cumulative outflow and inflow volumes reach
      V (199 equal volume steps, linear interpolation of the mass curves).

    The outflow is the flow passed downstream; exfiltrated water is not part of it.

    A storm that routes the pond above the top of its structure gives no surface area (the
    table ends at the top; the routing's vertical-wall extension above it is not a
    surface) and, for every storm of a pond that overtops in any storm, the columns
    ``overtopping_depth_ft``, ``overtopping_volume_ft3`` and ``peak_overtopping_cfs`` of
    :func:`hydrocalc.analysis.overtopping.overtopping_rows` (0 for the storms that stay
    below the top).
    """
    pr = r.ponds
    rows = pr[(pr["scenario"] == scenario) & (pr["pond"] == pond.id)]
    datum = getattr(pond, "bottom_elevation_ft", None)
    ss = pond.stage_storage
    t = np.asarray(r.time_hr, dtype=float)
    over = {o["storm"]: o for o in overtopping_rows(r, scenario, pond.id)}
    out = []
    for row in rows.to_dict("records"):
        storm = row["storm"]
        qin = np.asarray(r.flow_cfs(scenario, storm, pond.id, which="inflow"), dtype=float)
        qout = np.asarray(r.flow_cfs(scenario, storm, pond.id), dtype=float)
        pin, pout = float(qin.max()), float(qout.max())
        com = plug = math.nan
        if qin.sum() > 0 and qout.sum() > 0:
            com = (float((t * qout).sum() / qout.sum()) - float((t * qin).sum() / qin.sum()))
            cin, cout = np.cumsum(qin), np.cumsum(qout)
            levels = np.linspace(0.0, float(cout[-1]), 201)[1:-1]
            if len(levels):
                t_in = np.interp(levels, cin, t)
                t_out = np.interp(levels, cout, t)
                plug = float(np.mean(t_out - t_in))
        stage = float(row["peak_stage_ft"])
        area = math.nan
        if hasattr(ss, "area_ft2") and not bool(row["overtopped"]):
            area = float(np.asarray(ss.area_ft2(min(stage, float(row["top_stage_ft"])))))
        out.append({
            "storm": storm,
            ("peak_elevation_ft" if datum is not None else "peak_stage_ft"):
                stage + float(datum) if datum is not None else stage,
            "surface_area_ft2": area,
            "storage_ft3": float(row["peak_storage_ft3"]),
            "peak_inflow_cfs": pin, "peak_outflow_cfs": pout,
            "attenuation_pct": 100.0 * (1.0 - pout / pin) if pin > 0 else math.nan,
            "lag_min": 60.0 * (float(t[int(np.argmax(qout))]) - float(t[int(np.argmax(qin))]))
            if pout > 0 else math.nan,
            "plug_flow_detention_min": 60.0 * plug,
            "center_of_mass_detention_min": 60.0 * com,
            "inflow_volume_acft": float(row["inflow_volume_ft3"]) / 43560.0,
            "outflow_volume_acft": float(row["outflow_volume_ft3"]) / 43560.0,
        })
        if over:
            o = over.get(storm, {})
            out[-1].update({k: float(o.get(k, 0.0)) for k in (
                "overtopping_depth_ft", "overtopping_volume_ft3", "peak_overtopping_cfs")})
        if row.get("tailwater") not in (None, "free"):
            # tailwater at the outlets (a constant, a series or the level of the pond
            # downstream for interconnected ponds) and any flow it drove back into the pond
            out[-1].update({"tailwater": row["tailwater"],
                            "peak_tailwater_ft": row.get("peak_tailwater_ft"),
                            "peak_reverse_cfs": float(row.get("peak_reverse_cfs") or 0.0)})
    return pd.DataFrame(out)


def _overtopping_text(r, scenario: str, pond_id: str) -> str:
    """Markdown sentences for each storm that routes the pond above its top ("" if none)."""
    parts = []
    for o in overtopping_rows(r, scenario, pond_id):
        parts.append(
            f" **Overtopped** in {md_escape(o['storm'])}: the routed stage reaches "
            f"{_fmt(o['peak_stage_ft'])} ft, {_fmt(o['overtopping_depth_ft'])} ft above the "
            f"top at {_fmt(o['top_stage_ft'])} ft, with {_fmt(o['overtopping_volume_ft3'], 0)}"
            f" ft³ above the top and up to {_fmt(o['peak_overtopping_cfs'])} cfs over the top "
            f"for {_fmt(o['time_above_top_hr'])} h. Above the top the stage-storage table is "
            "continued with vertical walls and no flow over the embankment (an extension, not "
            "the pond); the design does not hold this storm.")
    return "".join(parts)


def _build_ponds(b: _Builder) -> None:
    ctx = b.ctx
    site, r = ctx.site, ctx.results
    ponds = [(name, p) for name, sc in site.scenarios.items() for p in sc.ponds]
    if not ponds:
        b.res.narrative_md = "Neither scenario has a pond, infiltration practice or other " \
                             "storage node; flows pass the network unrouted."
        return
    pr = r.ponds
    text = []
    for name, pond in ponds:
        rows = pr[(pr["scenario"] == name) & (pr["pond"] == pond.id)]
        worst = rows.loc[rows["freeboard_ft"].idxmin()]
        text.append(
            f"{md_escape(pond.id)} ({_SCENARIO_TITLE[name]}): the largest storm routed, "
            f"{md_escape(worst['storm'])}, reaches a stage of {_fmt(worst['peak_stage_ft'])} ft "
            f"(storage {_fmt(worst['peak_storage_ft3'], 0)} ft³) with "
            + (f"{_fmt(worst['freeboard_ft'])} ft of freeboard to the top at "
               if float(worst["freeboard_ft"]) >= 0 else
               f"no freeboard, {_fmt(-float(worst['freeboard_ft']))} ft above the top at ")
            + f"{_fmt(worst['top_stage_ft'])} ft; peak inflow {_fmt(worst['peak_inflow_cfs'])} "
            f"cfs is reduced to {_fmt(worst['peak_outflow_cfs'])} cfs."
            + _overtopping_text(r, name, pond.id))
    b.res.narrative_md = " ".join(text)
    for name, pond in ponds:
        label = f"{pond.id} ({_SCENARIO_TITLE[name]})"
        b.res.add_heading(f"Pond {label}")
        tag = f"{name}_{pond.id}"
        facts = [("storage", "; ".join(f"{sp.get('type', '')}: {_spec_text(sp)}"
                                       for sp in pond.storage_spec)),
                 ("units (identical, sharing the inflow)", str(pond.count)),
                 ("initial stage [ft]", _as_text(pond.initial_stage_ft)),
                 ("discharges to", pond.to)]
        if pond.barrel_spec:
            facts.append(("barrel", _spec_text(pond.barrel_spec)))
        if pond.description:
            facts.append(("description", pond.description))
        b.res.add_table(Table(f"{tag}_storage", f"Storage of {label}",
                              pd.DataFrame(facts, columns=["item", "value"]),
                              key_columns=["item"]))
        b.res.add_table(Table(f"{tag}_devices", f"Outlet devices of {label} (in parallel), "
                              "every coefficient", device_table(pond), key_columns=["device"],
                              caption="Coefficients as used, defaults included (cd orifice, "
                                      "cw weir, end contractions, barrel n and ke)."))
        rating = rating_table(pond.structure(), stage_storage=pond.stage_storage, n=16)
        b.res.add_table(Table(f"{tag}_rating", f"Stage-storage-discharge of {label} (one unit)",
                              rating, decimals={"stage_ft": 2},
                              caption="Orifices Q = Cd A (2 g h)^0.5, weirs Q = Cw L H^1.5 "
                                      "(hydrocalc.hydraulics.outlets); storage from the geometry.",
                              key_columns=["stage_ft"]))
        rows = pr[(pr["scenario"] == name) & (pr["pond"] == pond.id)]
        cols = ["storm", "peak_inflow_cfs", "peak_outflow_cfs", "time_of_peak_outflow_hr",
                "peak_stage_ft", "peak_storage_ft3", "top_stage_ft", "freeboard_ft",
                "discarded_ft3", "end_storage_ft3", "overtopped", "mass_balance_error_pct"]
        b.res.add_table(Table(f"{tag}_summary", f"Summary of {label} per storm",
                              pond_summary(r, name, pond), key_columns=["storm"],
                              decimals={"attenuation_pct": 1, "lag_min": 1,
                                        "plug_flow_detention_min": 1,
                                        "center_of_mass_detention_min": 1},
                              caption="Attenuation = 1 - peak out / peak in; lag = time of "
                                      "peak outflow - time of peak inflow; centre-of-mass "
                                      "detention = outflow centroid - inflow centroid; "
                                      "plug-flow detention = mean time between equal "
                                      "cumulative inflow and outflow volumes. Outflow is the "
                                      "flow passed downstream (exfiltration excluded), so "
                                      "losses can make the detention times short or "
                                      "negative. Elevation = stage + the pond's "
                                      "bottom_elevation_ft when given, else the stage."))
        b.res.add_table(Table(f"{tag}_routing", f"Routed peaks of {label}", rows[cols],
                              decimals={"mass_balance_error_pct": 4},
                              labels={"discarded_ft3": "Exfiltrated [ft³]"},
                              key_columns=["storm"]))
        devs = r.devices
        devs = devs[(devs["scenario"] == name) & (devs["pond"] == pond.id)]
        if len(devs):
            b.res.add_table(Table(f"{tag}_device_flows", f"Peak flow through each device of "
                                  f"{label}", devs[["storm", "device", "type", "peak_cfs",
                                                    "time_of_peak_hr", "volume_ft3"]],
                                  key_columns=["storm", "device"]))
        marks = [(f"{s} peak stage", float(v)) for s, v in
                 zip(rows["storm"], rows["peak_stage_ft"], strict=True)]
        b.figure(f"{tag}_rating", f"Stage-storage-discharge of {label}",
                 # mypy cannot type a lambda whose defaults bind values (ignored below)
                 lambda rating=rating, marks=marks: (  # type: ignore[misc]
                     F.stage_storage_discharge_figure(
                         "", "", rating["stage_ft"].to_numpy(), rating["storage_ft3"].to_numpy(),
                         rating["total_cfs"].to_numpy(), marks=marks)))
        series = []
        for storm in r.storms:
            series.append((f"{storm} inflow", r.time_hr,
                           np.asarray(r.flow_cfs(name, storm, pond.id, which="inflow"))))
            series.append((f"{storm} outflow", r.time_hr,
                           np.asarray(r.flow_cfs(name, storm, pond.id))))
        b.figure(f"{tag}_routing", f"Inflow and outflow of {label}",
                 lambda series=series: (  # type: ignore[misc]  # defaults bind the values
                     F.routing_figure("", "", series, xlim=_active_window(series))))
    b.echo("inputs", "Pond inputs as entered", ["pre.pond", "post.pond"])
    b.res.warnings.extend(_analysis_warnings(ctx, "ponds"))
