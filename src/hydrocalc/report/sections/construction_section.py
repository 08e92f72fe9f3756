"""The ``sediment`` and ``inspections`` sections of the report.

``sediment``: trap volumes, cleanout mark and dates; ``inspections``: inspection dates and
notices (the construction plan, its regulation profile and rainfall record).

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import pathlib

import pandas as pd

from hydrocalc.construction import inspections as insp
from hydrocalc.construction import sediment as sed
from hydrocalc.criteria.regulations import load_profile
from hydrocalc.daily_rain import rainfall_for_plan
from hydrocalc.errors import InputError
from hydrocalc.rainfall import tr55_rainfall_type
from hydrocalc.report import figures as F
from hydrocalc.report.sections.builder import _Builder, _fmt, _when
from hydrocalc.report.sections.computation import Context
from hydrocalc.report.tables import Table, md_escape


# -- construction: sediment traps and inspections ----------------------------------------
def _construction(ctx: Context):
    """(plan, profile, rainfall record or None) of the site's [construction] table."""
    plan = ctx.site.construction
    profile = load_profile(ctx.site.project.municipality)
    rain = None
    if plan is not None and getattr(plan, "rainfall_file", None):

        rain = ctx._cached("rainfall", rainfall_for_plan, plan)
    return plan, profile, rain


def _build_sediment(b: _Builder) -> None:
    ctx = b.ctx
    plan, profile, rain = _construction(ctx)
    traps = sed.plan_traps(plan) if plan is not None else []
    if not traps:
        b.res.narrative_md = "The site file lists no sediment traps or basins " \
                             "([[construction.trap]])."
        return
    frac = profile.cleanout_fraction or 0.5
    checks = [t.check(cleanout_frac=frac) for t in traps]
    rows = [c.to_dict() for c in checks]
    frame = pd.DataFrame(rows)
    cols = ["trap_id", "drainage_area_ac", "criteria", "required_ft3", "lower_zone_ft3",
            "upper_zone_ft3", "provided_ft3", "provided_ok", "design_capacity_ft3",
            "cleanout_frac", "cleanout_volume_ft3", "cleanout_stage_ft", "depth_ft"]
    b.res.add_table(Table("trap_checks", "Required and provided storage, cleanout mark",
                          frame[cols], labels={"provided_ok": "Provided ≥ required",
                                               "trap_id": "Trap"},
                          caption=f"Cleanout when the design capacity is reduced by "
                                  f"{_fmt(100.0 * frac, 0)} % ({profile.cite('cleanout')}).",
                          key_columns=["trap_id"]))
    crit_rows = [{"trap_id": c.trap_id, "criteria": c.criteria.key,
                  "source": c.criteria.label, "method": c.criteria.method,
                  "status": c.criteria.status, "note": c.criteria.note} for c in checks]
    b.res.add_table(Table("trap_criteria", "Sizing criteria: source and verification status",
                          pd.DataFrame(crit_rows), key_columns=["trap_id"]))
    text = []
    for c in checks:
        if c.ok is False:
            w = (f"sediment trap {c.trap_id} FAILS: provided {_fmt(c.provided_ft3, 0)} ft³ < "
                 f"required {_fmt(c.required_ft3, 0)} ft³ ({c.criteria.key})")
            b.notice(md_escape(w))
            b.res.warnings.append(w)
        ok = {True: "meets", False: "does **not** meet", None: "cannot be checked against"}[c.ok]
        text.append(f"Trap {md_escape(c.trap_id)} ({_fmt(c.drainage_area_ac, 2)} ac drainage) "
                    f"requires {_fmt(c.required_ft3, 0)} ft³ under "
                    f"{md_escape(c.criteria.key)} (status: {md_escape(c.criteria.status)}); "
                    f"its geometry provides {_fmt(c.provided_ft3, 0)} ft³ and {ok} the "
                    f"requirement. Clean it out when sediment reaches "
                    f"{_fmt(c.cleanout_volume_ft3, 0)} ft³"
                    + (f", a depth of {_fmt(c.cleanout_stage_ft)} ft above the bottom."
                       if c.cleanout_stage_ft is not None else "."))
    schedules = []
    if rain is not None and any(t.k_factor is not None for t in traps):

        rtype = getattr(plan, "rainfall_type", None)
        if rtype is None:
            rtype = tr55_rainfall_type(ctx.site.storms.distribution)
            if rtype is None:
                raise InputError(
                    "construction.rainfall_type must be given for the daily MUSLE peak "
                    "discharges (\"II\" or \"III\", TR-55 distribution); got nothing, and "
                    f"the design storms' distribution {ctx.site.storms.distribution!r} is not "
                    "an NRCS type to fall back on. Add construction.rainfall_type.")
            b.res.warnings.append(
                f"construction.rainfall_type is not given: the daily MUSLE peak discharges "
                f"use the design storms' NRCS Type {rtype} distribution. Set "
                "construction.rainfall_type to choose another.")
        schedules = ctx._cached("cleanout", sed.plan_cleanout_schedules, plan,
                                rain.precip_in, cleanout_frac=frac, rainfall_type=rtype)
    if schedules:
        rows, series = [], []
        for sch in schedules:
            d = sch.daily
            for day in sch.cleanout_dates:
                rows.append({"trap_id": sch.trap_id, "cleanout_date": day.isoformat(),
                             "accumulated_ft3": float(
                                 d.loc[pd.Timestamp(day), "accumulated_before_cleanout_ft3"])})
            dates = ", ".join(x.isoformat() for x in sch.cleanout_dates) or "none"
            text.append(f"With the daily record {md_escape(rain.station_name or rain.source)}, "
                        f"MUSLE predicts {_fmt(sch.total_yield_tons, 2)} tons of sediment "
                        f"reaching trap {md_escape(sch.trap_id)} from {plan.start_date} to "
                        f"{plan.end_date} ({_fmt(sch.total_trapped_ft3, 0)} ft³ trapped); "
                        f"predicted cleanouts: {dates}.")
            series.append((sch.trap_id, d.index.to_numpy(),
                           d["accumulated_before_cleanout_ft3"].to_numpy(),
                           sch.check.cleanout_volume_ft3))
            b.res.warnings.extend(f"trap {sch.trap_id}: {w}" for w in sch.warnings)
        summary = pd.DataFrame([{"trap_id": s.trap_id, "rainfall_type": s.rainfall_type,
                                 "total_yield_tons": s.total_yield_tons,
                                 "total_trapped_ft3": s.total_trapped_ft3,
                                 "cleanouts": len(s.cleanout_dates)} for s in schedules])
        b.res.add_heading("Predicted sediment accumulation and cleanout")
        b.res.add_table(Table("musle_summary", "MUSLE sediment yield over the construction "
                              "period", summary, key_columns=["trap_id"]))
        b.res.add_table(Table("cleanout_dates", "Predicted cleanout dates",
                              pd.DataFrame(rows, columns=["trap_id", "cleanout_date",
                                                          "accumulated_ft3"]),
                              key_columns=["trap_id", "cleanout_date"]))
        b.figure("accumulation", "Sediment accumulated in each trap",
                 lambda: F.accumulation_figure("", "", series))
    elif rain is None:
        text.append("No daily rainfall record is given (construction.rainfall_file), so no "
                    "cleanout dates are predicted.")
    b.res.narrative_md = " ".join(text)
    b.echo("inputs", "Trap inputs as entered", ["construction.trap"])
    b.res.warnings.extend(ctx.step_warnings("rainfall", "cleanout"))
    if rain is not None:
        b.res.warnings.extend(f"rainfall record: {n}" for n in rain.notes)


def _build_inspections(b: _Builder) -> None:
    ctx = b.ctx
    plan, profile, rain = _construction(ctx)
    if plan is None:
        b.res.narrative_md = "The site file has no [construction] table, so no inspection " \
                             "schedule is computed."
        return
    text = []
    if rain is not None:
        sched = ctx._cached("inspections", insp.schedule_for_profile, profile,
                            plan.start_date, plan.end_date,
                            rain.window(plan.start_date, plan.end_date),
                            threshold_in=plan.inspection_threshold_in,
                            clock=plan.inspection_clock,
                            multiday_events=plan.storm_event == "multi_day")
        frame = sched.to_frame()
        by_month = sched.count_by_month().reset_index()
        n_storm = int(frame["storm"].sum())
        text.append(
            f"From {plan.start_date} to {plan.end_date}, {md_escape(profile.name)} requires an "
            f"inspection every {sched.interval_days} days and after every day with "
            f"{_fmt(sched.threshold_in)} in of rain or more ({md_escape(sched.citation)}). "
            f"With the daily record {md_escape(rain.station_name or rain.source)} that is "
            f"{len(frame)} inspections, {n_storm} of them prompted by "
            f"{len(sched.storm_days)} storm days. {sched.storm_event_text}")
        b.res.values.update({"storm_event_reading": sched.storm_event_reading})
        b.res.values.update({"inspections": int(len(frame)),
                             "storm_days": int(len(sched.storm_days)),
                             "interval_days": sched.interval_days,
                             "threshold_in": sched.threshold_in})
        b.res.add_table(Table("inspection_dates", "Estimated inspection dates (from the daily "
                              "rainfall record named below; an estimate, not a schedule)", frame,
                              key_columns=["date"]))
        b.res.add_table(Table("inspections_by_month", "Inspections per month", by_month,
                              key_columns=["month"]))
        days = sched.precip_in
        visits = [(v.date, "storm" if v.storm and not v.routine else
                   "routine and storm" if v.storm else "routine") for v in sched.visits]
        b.figure("calendar", "Daily rainfall and required inspections",
                 lambda: F.inspection_calendar_figure(
                     "", "", days.index.to_numpy(), days.to_numpy(), visits,
                     threshold_in=sched.threshold_in))
        rec = pd.DataFrame([("file", str(pathlib.Path(rain.source).name)),
                            ("station", rain.station), ("station name", rain.station_name),
                            ("format", rain.file_format), ("units in file", rain.units_in_file),
                            ("record", f"{rain.start} to {rain.end}"),
                            ("trace days", str(rain.trace_days))], columns=["item", "value"])
        b.res.add_table(Table("rainfall_record", "Daily rainfall record", rec,
                              key_columns=["item"]))
        b.res.warnings.extend(f"rainfall record: {n}" for n in rain.notes)
    else:
        text.append("No daily rainfall record is given (construction.rainfall_file); storm "
                    "inspections cannot be dated in advance.")
    notices = insp.notice_schedule(profile, plan.milestones) if plan.milestones else []
    if notices:
        b.res.add_table(Table("notices", "Advance notices before milestones", pd.DataFrame([{
            "milestone": n.milestone_key, "milestone_text": n.milestone_text,
            "milestone_at": _when(n.milestone_at), "notice_due": _when(n.notice_due),
            "notify_by_date": n.notify_by_date.isoformat(), "citation": n.citation}
            for n in notices]), key_columns=["milestone"]))
        text.append(f"{len(notices)} advance notices are due before construction milestones "
                    f"(first: notify by {notices[0].notify_by_date}).")
    b.res.narrative_md = " ".join(text)
    b.echo("inputs", "Construction inputs as entered", ["construction"], exclude=["trap"])
    b.res.warnings.extend(ctx.step_warnings("rainfall", "inspections"))
