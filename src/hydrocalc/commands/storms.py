"""``hydrocalc storm | hydrograph | import-pfds | depths``: design storms and hydrographs.

Thin layer: parse the flags, call :mod:`hydrocalc.rainfall`, :mod:`hydrocalc.hydrograph` and
:mod:`hydrocalc.design_storms`, format the result. No arithmetic here.
"""

from __future__ import annotations

import json
import warnings

import click

from hydrocalc.commands._output import check_file, write_atomic
from hydrocalc.errors import InputError


def _emit(frame, *, as_json: bool, csv_path: str | None, header: list[str]) -> None:
    if csv_path:
        write_atomic(csv_path, lambda tmp: frame.to_csv(tmp, index=False), "--csv")
    if as_json:
        click.echo(json.dumps({"notes": header, "rows": frame.to_dict(orient="records")},
                              indent=1))
        return
    for line in header:
        click.echo(f"# {line}")
    click.echo(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


@click.command("storm")
@click.argument("depth_in", type=float)
@click.option("--distribution", default="III", show_default=True,
              help="I, IA, II, III, NOAA_A..D, NRCC_A..D, or a CSV (time_hr, cumulative_frac).")
@click.option("--dt-hr", type=float, default=0.1, show_default=True, help="Time step [h].")
@click.option("--duration-hr", type=float, default=24.0, show_default=True,
              help="Storm duration [h] (24 for the NRCS distributions).")
@click.option("--name", default="", help="Storm label.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Also write a CSV.")
def storm(depth_in, distribution, dt_hr, duration_hr, name, as_json, csv_path):
    """Design-storm hyetograph of DEPTH_IN inches (cumulative and incremental rain)."""
    from hydrocalc.rainfall import design_storm

    check_file(csv_path, "--csv")
    dist = distribution
    if distribution.lower().endswith(".csv"):
        from hydrocalc.design_storms import load_distribution_csv

        dist = load_distribution_csv(distribution)
    hyet = design_storm(depth_in, distribution=dist, dt_hr=dt_hr, duration_hr=duration_hr,
                        name=name)
    header = [f"design storm {hyet.name}: depth {hyet.depth_in:g} in, distribution "
              f"{getattr(dist, 'name', dist)}, dt {hyet.dt_hr:g} h (mass curve interpolated "
              "linearly, as WinTR-20)"]
    _emit(hyet.to_frame(), as_json=as_json, csv_path=csv_path, header=header)


@click.command("hydrograph")
@click.option("--area-ac", type=float, required=True, help="Drainage area [ac].")
@click.option("--cn", type=float, required=True, help="Runoff curve number (used as given).")
@click.option("--tc-hr", type=float, required=True, help="Time of concentration [h].")
@click.option("--depth-in", type=float, required=True, help="Storm depth [in].")
@click.option("--distribution", default="III", show_default=True,
              help="Rainfall distribution (I, IA, II, III, NOAA_A..D, NRCC_A..D).")
@click.option("--dt-hr", type=float, default=0.01, show_default=True,
              help="Computation step = UH duration [h].")
@click.option("--prf", type=float, default=484.0, show_default=True, help="Peak rate factor.")
@click.option("--ia-ratio", type=float, default=0.2, show_default=True, help="Ia/S.")
@click.option("--ordinates", is_flag=True, help="Print every ordinate, not just the summary.")
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False),
              help="Write the ordinates (time_hr, flow_cfs) to a CSV.")
def hydrograph(area_ac, cn, tc_hr, depth_in, distribution, dt_hr, prf, ia_ratio, ordinates,
               as_json, csv_path):
    """NRCS (TR-20 method) runoff hydrograph of one subcatchment for one design storm."""
    from hydrocalc.hydrograph import runoff_hydrograph
    from hydrocalc.rainfall import design_storm

    check_file(csv_path, "--csv")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        hyet = design_storm(depth_in, distribution=distribution, dt_hr=0.1)
        h = runoff_hydrograph(area_ac, cn, tc_hr, hyet, dt_hr=dt_hr, prf=prf,
                              ia_ratio=ia_ratio)
    notes = [str(w.message) for w in caught]
    summary = h.summary()
    summary.update({"area_ac": area_ac, "cn": cn, "tc_hr": tc_hr, "depth_in": depth_in,
                    "distribution": distribution, "dt_hr": dt_hr, "prf": prf})
    frame = h.to_frame()
    if csv_path:
        write_atomic(csv_path, lambda tmp: frame.to_csv(tmp, index=False), "--csv")
    if as_json:
        out = {"summary": summary, "warnings": notes}
        if ordinates:
            out["ordinates"] = frame.to_dict(orient="list")
        click.echo(json.dumps(out, indent=1))
        return
    for note in notes:
        click.echo(f"warning: {note}", err=True)
    click.echo(
        f"Runoff hydrograph (NRCS UH, PRF {prf:g}): A = {area_ac:g} ac, CN = {cn:g}, "
        f"Tc = {tc_hr:g} h, P = {depth_in:g} in ({distribution}), dt = {dt_hr:g} h"
    )
    for key in ("runoff_in", "peak_cfs", "time_of_peak_hr", "volume_ft3", "volume_acft"):
        click.echo(f"  {key:<16} {summary[key]:.4f}")
    if ordinates:
        click.echo(frame.to_string(index=False, float_format=lambda v: f"{v:.4f}"))


@click.command("import-pfds")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--out", type=click.Path(dir_okay=False), help="DDF TOML file to write.")
@click.option("--site", default=None, help="Site name to record (default: from the file).")
@click.option("--force", is_flag=True, help="Overwrite --out if it exists.")
def import_pfds(file, out, site, force):
    """Import a NOAA Atlas 14 PFDS CSV or an NRCC table into a design_storms/ TOML file."""
    from hydrocalc.design_storms import import_precipitation_frequency, suggest_distribution

    check_file(out, "--out")
    table = import_precipitation_frequency(file, out, site=site, overwrite=force)
    click.echo(f"read {file}: {table.site or 'unnamed site'}")
    click.echo(f"  source: {table.source}")
    bounds = "with" if table.upper_in is not None else "without"
    click.echo(f"  {len(table.durations)} durations x {len(table.return_periods_yr)} return "
               f"periods ({', '.join(str(r) for r in table.return_periods_yr)} yr), {bounds} "
               "90 % bounds")
    try:
        ratio, ranking = suggest_distribution(table)
    except InputError:  # no 60-min or 24-hr duration: nothing to suggest
        ratio = None
    if ratio is not None:
        best = ranking.iloc[0]
        click.echo(
            f"  60-min/24-hr ratio (25 yr, or the nearest return period given) = {ratio:.3f}; "
            "closest shipped distribution "
            f"{best.distribution} (max 1-h fraction {best.max_1hr_frac:.3f}). A suggestion "
            "only: set the distribution explicitly in the project file."
        )
    if out:
        click.echo(f"wrote {out}")


@click.command("depths")
@click.argument("file", type=click.Path(exists=True, dir_okay=False))
@click.option("--duration", default="24-hr", show_default=True, help="Duration to list.")
def depths(file, duration):
    """Show the storm depths of a design_storms/ TOML file (and its warning)."""
    from hydrocalc.design_storms import load_depth_file

    table = load_depth_file(file, warn=False)
    if table.warning:
        click.echo(f"WARNING: {table.warning}", err=True)
    click.echo(f"{table.site}: {table.source}")
    for key, value in table.storm_depths_in(duration).items():
        click.echo(f"  {key:>7} {duration}: {value:.2f} in")


COMMANDS = [storm, hydrograph, import_pfds, depths]
