"""``hydrocalc check SITE.toml`` and ``hydrocalc run SITE.toml [--json PATH] [--csv DIR]``.

``check`` validates a site file and lists every problem (one line each, exit 1) or prints a
one-line summary (exit 0). ``run`` validates, analyses both scenarios for every storm and
prints the pre/post comparison and the NY sizing-criteria tables, then the warnings; with
``--json`` / ``--csv`` it writes the full results atomically (temporary file or folder, then
moved into place). ``run`` ends with the compliance summary
(:func:`hydrocalc.report.summary.compliance_summary`: the verdict and every failing item,
item not evaluated and waiver). Exit codes: 0 success (whatever the criteria say; the
COMPLIANCE and RESULT lines tell), 1 an input or calculation error (one line per problem,
no traceback), 2 usage, 3 with ``--strict`` when the verdict is not MEETS ALL CRITERIA, or
when it is but values remain to confirm (``MEETS ALL CRITERIA, 4 VALUES TO CONFIRM``) and
``--allow-unconfirmed`` is not given.
"""

from __future__ import annotations

import json
import math
import pathlib

import click

from hydrocalc.commands._output import check_dir, check_file


def _site_arg(func):
    return click.argument("site_file", metavar="SITE.toml",
                          type=click.Path(dir_okay=False, path_type=str))(func)


def _load(site_file):
    from hydrocalc.site import load_site

    return load_site(site_file)  # raises InputError listing every problem


def _n(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


def _fmt(value, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "NO"
    if isinstance(value, float):
        if not math.isfinite(value):
            return "inf" if value > 0 else ("-inf" if value < 0 else "-")
        if value == 0:
            return "0"
        if abs(value) >= 10 ** (digits - 1):
            return f"{value:.0f}"
        mag = math.floor(math.log10(abs(value)))
        return f"{value:.{max(digits - 1 - mag, 0)}f}".rstrip("0").rstrip(".")
    return str(value)


def _table(headers, rows) -> str:
    cells = [[_fmt(v) for v in row] for row in rows]
    widths = [max(len(h), *(len(r[i]) for r in cells)) if cells else len(h)
              for i, h in enumerate(headers)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    for r in cells:
        lines.append("  ".join(c.rjust(w) if i > 1 else c.ljust(w)
                               for i, (c, w) in enumerate(zip(r, widths, strict=True))).rstrip())
    return "\n".join(lines)


@click.command("check")
@_site_arg
def check(site_file):
    """Validate SITE.toml and list every problem (no computation)."""
    site = _load(site_file)
    n_sub = sum(len(sc.subcatchments) for sc in site.scenarios.values())
    n_pond = sum(len(sc.ponds) for sc in site.scenarios.values())
    n_dp, n_storm = len(site.design_point_ids), len(site.storms.names)
    click.echo(
        f"{site_file}: OK - {site.name!r}: {_n(n_sub, 'subcatchment')}, {_n(n_pond, 'pond')}, "
        f"{_n(n_dp, 'design point')} ({', '.join(site.design_point_ids)}), "
        f"{_n(n_storm, 'storm')} ({', '.join(site.storms.names)})")
    from hydrocalc.criteria.ny_editions import WARNING_KEYS as EDITION_WARNINGS
    from hydrocalc.design_storms.shape import WARNING_KEY as SHAPE_WARNING
    from hydrocalc.site.plausibility import ACCEPT_KEYS

    warn_keys = (*ACCEPT_KEYS, "confirmations", *EDITION_WARNINGS, SHAPE_WARNING)
    for note in site.notes:
        # a plausibility warning (its key can be accepted), an unknown [confirmations] key,
        # a design-manual edition warning or a storm shape that does not match its depths
        label = "warning" if note.split(":", 1)[0] in warn_keys else "note"
        click.echo(f"{label}: {note}")


@click.command("run")
@_site_arg
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=str),
              help="Write every result to this JSON file (deterministic).")
@click.option("--csv", "csv_dir", type=click.Path(file_okay=False, path_type=str),
              help="Write every table (and the hydrographs) as CSV files into this folder.")
@click.option("--no-hydrographs", is_flag=True,
              help="Leave the hydrograph ordinates out of --json/--csv output.")
@click.option("--strict", is_flag=True,
              help="Exit 3 when the compliance verdict is not MEETS ALL CRITERIA (an item "
                   "fails or could not be evaluated) or values remain to confirm.")
@click.option("--allow-unconfirmed", is_flag=True,
              help="With --strict: accept values still to confirm (exit 0 when every "
                   "criterion is met).")
def run(site_file, json_path, csv_dir, no_hydrographs, strict, allow_unconfirmed):
    """Analyse SITE.toml: pre/post comparison and NY sizing criteria."""
    from hydrocalc.analysis import INLINE_MAX_ORDINATES, analyze

    check_file(json_path, "--json")
    check_dir(csv_dir, "--csv")
    site = _load(site_file)
    res = analyze(site)
    st = site.storms
    click.echo(f"Site: {site.name}")
    click.echo(f"Storms: NRCS {st.distribution} 24-hour; depths from "
               f"{st.file.name if st.file else 'the site file'} "
               f"({st.source or 'no source given'})")
    click.echo("")
    click.echo("Pre- vs post-development peak flows and volumes at the design points")
    rows = [(r["design_point"], r["storm"], r["precip_in"], r["pre_peak_cfs"],
             r["post_peak_cfs"], r["peak_change_pct"], r["pre_volume_ft3"],
             r["post_volume_ft3"], r["pre_time_of_peak_hr"], r["post_time_of_peak_hr"],
             r["post_le_pre"]) for r in res.comparison.to_dict(orient="records")]
    click.echo(_table(["design_point", "storm", "P_in", "pre_peak_cfs", "post_peak_cfs",
                       "change_pct", "pre_volume_ft3", "post_volume_ft3", "pre_tpeak_hr",
                       "post_tpeak_hr", "post<=pre"], rows))
    click.echo("")
    crit = res.criteria
    if len(crit):
        click.echo("NY SMDM unified sizing criteria (Table 4.1)")
        rows = [(r["criterion"], r["design_point"], r["storm"], r["required"], r["provided"],
                 r["units"], r["result"], r["status"].split(" (")[0])
                for r in crit.to_dict(orient="records")]
        click.echo(_table(["criterion", "design_point", "storm", "required", "provided",
                           "units", "result", "status"], rows))
        click.echo("")
    # res.warnings includes the site's plausibility notes (pre/post area check among them)
    notes = list(res.warnings)
    if notes:
        click.echo("Warnings and notes")
        for w in notes:
            click.echo(f"- {w}")
        click.echo("")
    if json_path:
        res.to_json(json_path, hydrographs=not no_hydrographs)
        click.echo(f"wrote {json_path}")
        if not no_hydrographs and res.n_ordinates() > INLINE_MAX_ORDINATES:
            with open(json_path, encoding="utf-8") as fh:
                side = json.load(fh)["hydrographs"]["flow_cfs_file"]
            click.echo(f"wrote {pathlib.Path(json_path).with_name(side)} (the "
                       f"{res.n_ordinates():,} hydrograph ordinates, named in the JSON)")
    if csv_dir:
        files = res.to_csv(csv_dir, hydrographs=not no_hydrographs)
        click.echo(f"wrote {len(files)} CSV files to {csv_dir}")
    n_up = sum(1 for r in res.comparison.to_dict(orient="records") if not r["post_le_pre"])
    n_fail = sum(1 for r in crit.to_dict(orient="records") if r["result"] == "fail")
    if n_up == 0 and n_fail == 0:
        click.echo("RESULT: post <= pre at every design point and storm; every criterion passes "
                   "or is waived")
    else:
        click.echo(f"RESULT: {n_up} design-point storms with post > pre; {n_fail} criteria "
                   "fail")
    summary = _summary(site, res)
    from hydrocalc.report.summary import format_summary_text

    click.echo(format_summary_text(summary))
    if strict and summary["status"] != "meets":
        raise SystemExit(3)
    if strict and summary.get("confirm") and not allow_unconfirmed:
        click.echo(f"--strict: {len(summary['values_to_confirm'])} values remain to confirm; "
                   "record their sources in [confirmations] of the site file, or accept them "
                   "with --allow-unconfirmed", err=True)
        raise SystemExit(3)


def _summary(site, res) -> dict:
    """The compliance summary of an analysed site (law, criteria, traps)."""
    from hydrocalc.construction import sediment as sed
    from hydrocalc.criteria.regulations import assess, load_profile
    from hydrocalc.report.summary import compliance_summary

    assessment = assess(site.project.municipality, site.project)
    plan = site.construction
    frac = load_profile(site.project.municipality).cleanout_fraction or 0.5
    traps = [t.check(cleanout_frac=frac) for t in sed.plan_traps(plan)] if plan else []
    return compliance_summary(res, assessment, traps)


COMMANDS = [check, run]
