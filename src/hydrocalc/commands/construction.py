"""Construction-phase commands: ``assess``, ``inspections``, ``trap``, ``cleanout``.

Thin: each command reads the ``[project]`` / ``[construction]`` tables of a site file (with
the same parse functions :func:`hydrocalc.site.load_site` uses, so a file holding only these
two tables works too), calls :mod:`hydrocalc.criteria.regulations`,
:mod:`hydrocalc.construction.inspections` or :mod:`hydrocalc.construction.sediment`, and
formats the result. Every sediment number is printed with its criteria source and
verification status.
"""

from __future__ import annotations

import json
import pathlib

import click

from hydrocalc.commands._output import check_dir, check_file, figure_suffixes, write_atomic
from hydrocalc.errors import InputError


def _read_site(path: str, *, with_doc: bool = False):
    """(ProjectFacts, ConstructionPlan | None) from a site TOML; every problem in one error."""
    from hydrocalc.site import outside_paths_default, read_site_file
    from hydrocalc.site.project import parse_construction, parse_project

    p, _text, doc, _files = read_site_file(path)  # size limit, UTF-8, TOML (one line on failure)
    where = p.name
    facts, problems = parse_project(doc.get("project"), where=where)
    plan = None
    if "construction" in doc:
        plan, more = parse_construction(
            doc["construction"], where=where, base_dir=p.resolve().parent,
            municipality=facts.municipality if facts is not None else None,
            allow_outside_paths=outside_paths_default(),
        )
        problems += more
    if problems:
        raise InputError("\n".join(problems))
    if with_doc:
        return facts, plan, doc
    return facts, plan


def _declared_vs_site(path, doc) -> list[str]:
    """Warnings comparing the declared areas with the site's own networks (when it has them).

    A file with only ``[project]`` (and ``[construction]``) has nothing to compare; a full
    site that fails to load is reported by ``check``, not here.
    """
    if not (isinstance(doc, dict) and "pre" in doc and "post" in doc):
        return []
    from hydrocalc.site import load_site

    try:
        site = load_site(path)
    except InputError:
        return ["the site's networks could not be compared with the declared areas (the site "
                "file has problems; run hydrocalc check)"]
    keys = ("declared_vs_network:", "impervious_exceeds_disturbed:")
    return [n for n in site.notes if n.startswith(keys)]


def _rainfall_type(plan, doc) -> tuple[str | None, str]:
    """construction.rainfall_type, else a TR-55 type given as [storms].distribution."""
    from hydrocalc.peak import normalize_rainfall_type

    if plan.rainfall_type:
        return plan.rainfall_type, "construction.rainfall_type"
    dist = (doc.get("storms") or {}).get("distribution")
    if dist is None:
        return None, ""
    try:
        return normalize_rainfall_type(dist), "[storms].distribution"
    except InputError:
        raise InputError(
            f"construction.rainfall_type must be given because [storms].distribution "
            f"{dist!r} is not a TR-55 graphical-method type (I, IA, II, III); got nothing"
        ) from None


def _table(frame, columns=None) -> str:
    import pandas as pd

    with pd.option_context("display.max_rows", None, "display.max_columns", None,
                           "display.width", 220, "display.max_colwidth", 90):
        return (frame[columns] if columns else frame).to_string(index=False)


def _write_csv(frame, path):
    if path:
        write_atomic(path, lambda tmp: frame.to_csv(tmp, index=False), "--csv")
        click.echo(f"wrote {path}", err=True)


def _rain_options(func):
    """The daily-rainfall options shared by ``inspections`` and ``cleanout``."""
    for option in reversed([
        click.option("--rain", "rain", type=click.Path(dir_okay=False), default=None,
                     help="Daily rainfall CSV (default: construction.rainfall_file)."),
        click.option("--station", default=None,
                     help="Station id in a multi-station rainfall file."),
        click.option("--units", type=click.Choice(["auto", "in", "mm"]), default=None,
                     help="Units of PRCP in the rainfall file."),
        click.option("--shift-years", type=click.IntRange(-500, 500), default=None,
                     help="Move the record's dates by this many years (lay a past year over "
                          "the construction period)."),
    ]):
        func = option(func)
    return func


@click.command("assess")
@click.argument("site", type=click.Path(dir_okay=False))
@click.option("--profile", default=None,
              help="Regulation profile key (default: project.municipality).")
@click.option("--json", "as_json", is_flag=True, help="Print the assessment as JSON.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None,
              help="Write every finding (one row each) to this CSV.")
def assess(site, profile, as_json, csv_path):
    """Which local-law rules apply to SITE: SWPPP, conditions, checklist, duties."""
    from hydrocalc.criteria import regulations

    check_file(csv_path, "--csv")
    facts, _, doc = _read_site(site, with_doc=True)
    result = regulations.assess(profile or facts.municipality, facts)
    _write_csv(result.to_frame(), csv_path)
    site_warnings = _declared_vs_site(site, doc)
    if as_json:
        out = result.to_dict()
        out["site_warnings"] = site_warnings
        click.echo(json.dumps(out, indent=2, default=str))
        return
    for w in site_warnings:
        click.echo(f"warning: {w}", err=True)
    for line in result.summary_lines():
        click.echo(line)
    for e in result.exemptions:
        click.echo(f"exemption {e['key']} ({e['citation']}): "
                   f"{'accepted' if e['accepted'] else 'REJECTED'} - {e['reason']}")
    for c in result.conditions:
        click.echo(f"Condition {c['key']} ({c['citation']}): {c['reason']}")
    if result.checklist:
        click.echo("\nSWPPP content checklist ([x] applies; who produces it; report section):")
        for c in result.checklist:
            mark = {True: "x", False: " ", None: "?"}[c["applies"]]
            where = f" -> {', '.join(c['report_sections'])}" if c["report_sections"] else ""
            click.echo(f"  [{mark}] {c['id']:<14} {c['produced_by']:<9}{where}: "
                       f"{c['requirement']}")
    for title, items in (("certifications", result.certifications),
                         ("recordkeeping", result.recordkeeping)):
        rows = [r for r in items if r["applies"]]
        if rows:
            click.echo(f"\n{title}:")
            for r in rows:
                click.echo(f"  {r['citation']}: {r['text']}")
    if result.notes:
        click.echo("\nnotes:")
        for n in result.notes:
            click.echo(f"  {n}")


@click.command("inspections")
@click.argument("site", type=click.Path(dir_okay=False))
@_rain_options
@click.option("--clock", type=click.Choice(["fixed", "rolling"]), default=None,
              help="Routine 7-day clock: fixed weekly cadence (default) or restart after any "
                   "visit.")
@click.option("--multiday", is_flag=True,
              help="Storm events may span consecutive wet days (the default; kept for "
                   "compatibility).")
@click.option("--storm-event", "storm_event", type=click.Choice(["multi_day", "calendar_day"]),
              default=None,
              help="Reading of 'storm event': multi_day (default, as the law reads; or "
                   "construction.storm_event) or calendar_day (each day alone).")
@click.option("--force", is_flag=True,
              help="Compute the schedule even when the law does not require inspections.")
@click.option("--figure", "figure_path", type=click.Path(dir_okay=False), default=None,
              help="Save the calendar figure (PNG/PDF/SVG).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), default=None,
              help="Write the visits to this CSV.")
def inspections(site, rain, station, units, shift_years, clock, multiday, storm_event, force,
                figure_path, as_json, csv_path):
    """Required inspection dates (7-day and storm) and advance notices for SITE."""
    from hydrocalc.construction import inspections as insp
    from hydrocalc.criteria import regulations
    from hydrocalc.daily_rain import rainfall_for_plan

    check_file(csv_path, "--csv")
    if figure_path:
        check_file(figure_path, "--figure", suffixes=figure_suffixes())
    facts, plan = _read_site(site)
    if plan is None:
        raise InputError(f"{pathlib.Path(site).name}: [construction] section is required for "
                         "inspections; got nothing. Add start_date and end_date.")
    result = regulations.assess(facts.municipality, facts)
    notices = insp.notice_schedule(facts.municipality, plan.milestones)
    if result.inspections_required is False and not force:
        msg = "; ".join(result.inspection_reasons)
        if as_json:
            click.echo(json.dumps({"inspections_required": False, "reasons": msg,
                                   "notices": [_notice_dict(n) for n in notices]}, indent=2))
        else:
            click.echo(f"qualified-professional inspections not required: {msg}")
            click.echo("(use --force to list the dates anyway)")
            _echo_notices(notices)
        return
    record = rainfall_for_plan(plan, rain, station=station, units=units,
                               shift_years=shift_years)
    schedule = insp.schedule_for_profile(
        facts.municipality, plan.start_date, plan.end_date, record.precip_in,
        threshold_in=plan.inspection_threshold_in,
        interval_days=plan.inspection_interval_days,
        clock=clock or plan.inspection_clock,
        multiday_events=multiday or (storm_event or plan.storm_event) == "multi_day",
    )
    frame = schedule.to_frame()
    _write_csv(frame, csv_path)
    if figure_path:
        fig = schedule.figure()
        write_atomic(figure_path, lambda tmp: fig.savefig(tmp, dpi=150), "--figure")
        click.echo(f"wrote {figure_path}", err=True)
    if as_json:
        out = schedule.to_dict()
        out["inspections_required"] = result.inspections_required
        out["rainfall"] = {"source": record.source, "station": record.station,
                           "notes": list(record.notes)}
        out["notices"] = [_notice_dict(n) for n in notices]
        click.echo(json.dumps(out, indent=2, default=str))
        return
    if result.inspections_required is None:
        click.echo("note: the profile cannot tell whether inspections are required; "
                   "the values used were given explicitly")
    click.echo(f"rainfall: {record.source} (station {record.station or '-'}"
               f"{'; ' + '; '.join(record.notes) if record.notes else ''})")
    click.echo(f"inspections {schedule.start_date}..{schedule.end_date}: {len(frame)} visits, "
               f"every {schedule.interval_days} days and the day after each day with >= "
               f"{schedule.threshold_in:g} in ({schedule.citation or 'explicit values'}; "
               f"clock={schedule.clock})")
    click.echo(schedule.storm_event_text)
    click.echo(_table(frame, ["date", "weekday", "routine", "storm", "storm_precip_in",
                              "reasons"]))
    click.echo("\nper month:")
    click.echo(schedule.count_by_month().to_string())
    _echo_notices(notices)


def _notice_dict(n) -> dict:
    return {"milestone": n.milestone_key, "text": n.milestone_text,
            "milestone_at": n.milestone_at.isoformat(), "date_only": n.date_only,
            "notice_due": n.notice_due.isoformat(), "notify_by_date": n.notify_by_date.isoformat(),
            "citation": n.citation}


def _echo_notices(notices) -> None:
    if not notices:
        return
    click.echo("\nadvance notices to the Stormwater Management Officer:")
    for n in notices:
        when = n.milestone_at.date().isoformat() if n.date_only else n.milestone_at.isoformat()
        click.echo(f"  {n.citation} {n.milestone_text} on {when}: notify by "
                   f"{n.notice_due.isoformat(sep=' ', timespec='minutes')} "
                   f"(last day {n.notify_by_date})")


@click.command("trap")
@click.option("--area-ac", type=float, default=None, help="Drainage area to the trap [ac].")
@click.option("--criteria", "criteria_key", default=None,
              help="Key of the sediment criteria table (required; see --list: the NY Blue "
                   "Book row is unverified, so it is never a silent default).")
@click.option("--runoff-in", type=float, default=None,
              help="Design-storm runoff depth, for runoff-volume criteria [in].")
@click.option("--list", "list_", is_flag=True, help="List the criteria keys and statuses.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def trap(area_ac, criteria_key, runoff_in, list_, as_json):
    """Required storage of a sediment trap or basin under a named criteria."""
    from hydrocalc.construction import sediment

    if list_:
        frame = sediment.criteria_table().reset_index()
        click.echo(_table(frame, ["key", "practice", "jurisdiction", "method",
                                  "storage_ft3_per_ac", "max_drainage_area_ac", "status"]))
        return
    if area_ac is None:
        raise click.UsageError("--area-ac is required (or --list)")
    if criteria_key is None:
        raise click.UsageError("--criteria is required; list the keys and their verification "
                               "status with: hydrocalc trap --list")
    crit = sediment.criteria(criteria_key)
    if runoff_in is not None and crit.method != "runoff_volume":
        raise InputError(f"--runoff-in must be omitted for criteria {crit.key!r} (sized per "
                         f"acre of drainage area, not on runoff); got {runoff_in:g}. Drop "
                         "--runoff-in or choose a runoff-volume criteria (hydrocalc trap --list)")
    total, lower, upper = sediment.required_storage_ft3(area_ac, criteria_key,
                                                        runoff_in=runoff_in, zones=True)
    rows = {
        "criteria": crit.key,
        "source": crit.label,
        "status": crit.status,
        "drainage_area_ac": area_ac,
        "required_storage_ft3": total,
        f"{crit.lower_zone or 'lower zone'}_ft3": None if lower != lower else lower,
        f"{crit.upper_zone or 'upper zone'}_ft3": None if upper != upper else upper,
        "max_drainage_area_ac": crit.max_drainage_area_ac,
        "note": crit.note,
    }
    if as_json:
        click.echo(json.dumps(rows, indent=2))
        return
    width = max(len(k) for k in rows)
    for k, v in rows.items():
        if v is None:
            continue
        text = f"{v:,.1f}" if isinstance(v, float) else str(v)
        click.echo(f"{k:<{width}}  {text}")
    if crit.status != "verified":
        click.echo(f"WARNING: criteria {crit.key} is {crit.status.upper()}; confirm its values "
                   "in the primary document before use.", err=True)


@click.command("cleanout")
@click.argument("site", type=click.Path(dir_okay=False))
@_rain_options
@click.option("--figure-dir", type=click.Path(file_okay=False), default=None,
              help="Write one accumulation figure per trap into this folder.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def cleanout(site, rain, station, units, shift_years, figure_dir, as_json):
    """Trap checks (required vs provided storage) and predicted cleanout dates for SITE."""
    from hydrocalc.construction import sediment
    from hydrocalc.criteria import regulations
    from hydrocalc.daily_rain import rainfall_for_plan

    check_dir(figure_dir, "--figure-dir")
    facts, plan, doc = _read_site(site, with_doc=True)
    if plan is None or not plan.traps:
        raise InputError(f"{pathlib.Path(site).name}: [[construction.trap]] entries are "
                         "required; got none")
    prof = regulations.load_profile(facts.municipality)
    frac = prof.cleanout_fraction
    if frac is None:
        raise InputError(
            f"profile {prof.key!r} has no verified cleanout rule: {prof.cleanout.get('text')}"
        )
    checks = [t.check(cleanout_frac=frac) for t in sediment.plan_traps(plan)]
    schedules = []
    record = None
    if any(t.k_factor is not None for t in plan.traps):
        record = rainfall_for_plan(plan, rain, station=station, units=units,
                                   shift_years=shift_years)
        rtype, rtype_from = _rainfall_type(plan, doc)
        schedules = sediment.plan_cleanout_schedules(plan, record.precip_in, cleanout_frac=frac,
                                                     rainfall_type=rtype)
    if figure_dir:
        out = pathlib.Path(figure_dir)
        for s in schedules:
            fig = s.figure()
            write_atomic(out / f"sediment_{s.trap_id}.png",
                         lambda tmp, fig=fig: fig.savefig(tmp, dpi=150), "--figure-dir")
    if as_json:
        click.echo(json.dumps({"cleanout_rule": prof.cite("cleanout"),
                               "checks": [c.to_dict() for c in checks],
                               "schedules": [s.to_dict() for s in schedules]},
                              indent=2, default=str))
        return
    click.echo(f"cleanout rule: sediment removed when design capacity is reduced by "
               f"{frac:.0%} ({prof.cite('cleanout')})")
    if schedules:
        click.echo(f"daily peaks: TR-55 graphical method, Type {schedules[0].rainfall_type} "
                   f"(from {rtype_from})")
    for c in checks:
        d = c.to_dict()
        click.echo(f"\ntrap {c.trap_id}: criteria {c.criteria.key} - {c.criteria.label}")
        click.echo(f"  required {c.required_ft3:,.0f} ft3; provided "
                   f"{'-' if c.provided_ft3 is None else f'{c.provided_ft3:,.0f}'} ft3; "
                   f"{'OK' if c.ok else 'NOT OK' if c.ok is False else 'no geometry'}")
        if d["lower_zone_ft3"] is not None:
            click.echo(f"  {c.criteria.lower_zone} {d['lower_zone_ft3']:,.0f} ft3, "
                       f"{c.criteria.upper_zone} {d['upper_zone_ft3']:,.0f} ft3")
        stage = "-" if c.cleanout_stage_ft is None else f"{c.cleanout_stage_ft:.2f} ft"
        click.echo(f"  cleanout mark: {c.cleanout_volume_ft3:,.0f} ft3 at stage {stage} above "
                   f"the bottom ({c.capacity_basis})")
    for s in schedules:
        dates = ", ".join(d.isoformat() for d in s.cleanout_dates) or "none in the period"
        click.echo(f"\ntrap {s.trap_id}: MUSLE yield {s.total_yield_tons:,.2f} tons, trapped "
                   f"{s.total_trapped_ft3:,.0f} ft3; predicted cleanouts: {dates}")
        for w in s.warnings:
            click.echo(f"  note: {w}")
    if record is not None and record.notes:
        click.echo(f"\nrainfall: {record.source}; " + "; ".join(record.notes))


COMMANDS = [assess, inspections, trap, cleanout]
