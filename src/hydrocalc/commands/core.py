"""TR-55 core commands: ``runoff``, ``cn``, ``tc``, ``peak``, ``storage-estimate``.

Thin: each command parses its flags (units in the flag names), calls the library and
formats the result. HydrocalcError becomes one line on stderr and exit 1 (the group in
:mod:`hydrocalc.cli` does that); RangeWarnings are echoed to stderr as ``warning: ...``.
"""

from __future__ import annotations

import json
import warnings

import click

from hydrocalc.errors import InputError

_RAINFALL_TYPES = click.Choice(["I", "IA", "II", "III"], case_sensitive=False)


def _emit(rows: list[tuple[str, object]], as_json: bool, title: str) -> None:
    """Print ``rows`` as an aligned two-column table, or as a JSON object."""
    if as_json:
        click.echo(json.dumps({k: v for k, v in rows}, indent=2))
        return
    click.echo(title)
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        text = f"{value:.4g}" if isinstance(value, float) else str(value)
        click.echo(f"  {key:<{width}}  {text}")


class _Warnings(warnings.catch_warnings):
    """Record warnings raised by the library and echo them to stderr on exit."""

    def __init__(self):
        super().__init__(record=True)

    def __enter__(self):
        self._log = super().__enter__()
        warnings.simplefilter("always")
        return self._log

    def __exit__(self, *exc):
        result = super().__exit__(*exc)
        for w in self._log:
            click.echo(f"warning: {w.message}", err=True)
        return result


@click.command("runoff")
@click.option("--precip-in", type=float, required=True, help="Storm rainfall depth P [in].")
@click.option("--cn", type=float, required=True, help="Runoff curve number, (0, 100].")
@click.option("--ia-ratio", type=float, default=0.2, show_default=True,
              help="Initial abstraction ratio Ia/S.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def runoff(precip_in, cn, ia_ratio, as_json):
    """Runoff depth Q by the curve-number method (TR-55 Eqs. 2-1 to 2-4)."""
    from hydrocalc import runoff as ro

    rows = [
        ("precip_in", precip_in),
        ("cn", cn),
        ("ia_ratio", ia_ratio),
        ("s_in", ro.potential_retention(cn)),
        ("ia_in", ro.initial_abstraction(cn, ia_ratio=ia_ratio)),
        ("runoff_in", ro.runoff_depth(precip_in, cn, ia_ratio=ia_ratio)),
    ]
    _emit(rows, as_json, "TR-55 curve-number runoff (Eqs. 2-1 to 2-4)")


@click.command("cn")
@click.argument("cover", required=False)
@click.argument("hsg", required=False)
@click.option("--condition", type=click.Choice(["poor", "fair", "good"], case_sensitive=False),
              default=None, help="Hydrologic condition, for a COVER key given without it.")
@click.option("--drained/--undrained", default=None,
              help="For dual groups A/D, B/D, C/D: drained uses the first letter, "
                   "undrained D.")
@click.option("--list", "list_", is_flag=True, help="List every cover key with its CNs.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def cn(cover, hsg, condition, drained, list_, as_json):
    """Curve number of COVER on soil group HSG (TR-55 Tables 2-2a to 2-2d).

    Example: hydrocalc cn open_space_good C
    """
    from hydrocalc import runoff as ro

    if list_:
        table = ro.curve_number_table()
        if as_json:
            click.echo(table.to_json(orient="records", indent=2))
            return
        width = int(table["key"].str.len().max())
        click.echo(f"{'key':<{width}}  {'table':<10}  CN_A  CN_B  CN_C  CN_D  description")
        for row in table.itertuples(index=False):
            cns = "".join(
                "     -" if v != v else f"{v:6.0f}" for v in (row.cn_a, row.cn_b, row.cn_c,
                                                            row.cn_d)
            )
            click.echo(f"{row.key:<{width}}  {row.location:<10}{cns}  {row.description}")
        return
    if cover is None or hsg is None:
        raise click.UsageError("give COVER and HSG (e.g. 'hydrocalc cn woods_good B'), or --list")
    value = ro.curve_number(cover, hsg, condition=condition, drained=drained)
    rows = [("cover", cover), ("hsg", hsg), ("condition", condition), ("cn", value)]
    _emit(rows, as_json, "TR-55 runoff curve number (Tables 2-2a to 2-2d)")


def _parse_segment(text: str) -> dict:
    """``kind:key=value,key=value`` -> segment mapping (numbers parsed as float)."""
    kind, sep, rest = text.partition(":")
    if not sep or not kind.strip():
        raise InputError(
            f"--segment must look like 'sheet:length_ft=100,slope_ftft=0.01,n=0.24,p2_in=3.6'; "
            f"got {text!r}"
        )
    segment: dict = {"kind": kind.strip()}
    for item in filter(None, (p.strip() for p in rest.split(","))):
        key, eq, value = item.partition("=")
        if not eq:
            raise InputError(f"--segment items must be key=value; got {item!r} in {text!r}")
        try:
            segment[key.strip()] = float(value)
        except ValueError:
            segment[key.strip()] = value.strip()
    return segment


@click.command("tc")
@click.option("--segment", "segments", multiple=True, required=True,
              help="One flow segment, in order: KIND:key=value,... with KIND sheet "
                   "(length_ft, slope_ftft, n, p2_in[, max_length_ft]), shallow "
                   "(length_ft, slope_ftft[, surface]) or channel (length_ft, slope_ftft, n, "
                   "area_ft2, wetted_perimeter_ft). Repeat for each segment.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def tc(segments, as_json):
    """Time of concentration of a flow path (TR-55 Chapter 3, Worksheet 3)."""
    from hydrocalc.tc import time_of_concentration

    tc_hr, table = time_of_concentration([_parse_segment(s) for s in segments])
    if as_json:
        click.echo(json.dumps({"tc_hr": tc_hr,
                               "segments": json.loads(table.to_json(orient="records"))},
                              indent=2))
        return
    click.echo("TR-55 time of concentration (Eqs. 3-1 to 3-5)")
    cols = ["segment", "kind", "length_ft", "slope_ftft", "velocity_fps", "travel_time_hr"]
    click.echo(table[cols].to_string(index=False, float_format=lambda v: f"{v:.4g}"))
    click.echo(f"tc_hr  {tc_hr:.3f}")


@click.command("peak")
@click.option("--area-mi2", type=float, required=True, help="Drainage area Am [mi2].")
@click.option("--cn", type=float, required=True, help="Runoff curve number (40-98).")
@click.option("--tc-hr", type=float, required=True, help="Time of concentration [h].")
@click.option("--precip-in", type=float, required=True, help="24-hour rainfall P [in].")
@click.option("--rainfall-type", type=_RAINFALL_TYPES, default="II", show_default=True,
              help="NRCS 24-hour rainfall distribution.")
@click.option("--pond-swamp-pct", type=float, default=0.0, show_default=True,
              help="Pond and swamp area, percent of Am (0-5).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def peak(area_mi2, cn, tc_hr, precip_in, rainfall_type, pond_swamp_pct, as_json):
    """Peak discharge by the TR-55 Graphical Peak Discharge method (Worksheet 4)."""
    from hydrocalc.peak import graphical_peak_worksheet

    with _Warnings():
        sheet = graphical_peak_worksheet(area_mi2, cn, tc_hr, precip_in,
                                         rainfall_type=rainfall_type.upper(),
                                         pond_swamp_pct=pond_swamp_pct)
    row = sheet.iloc[0]
    rows = [(k, row[k] if isinstance(row[k], str) else float(row[k])) for k in sheet.columns]
    _emit(rows, as_json, "TR-55 graphical peak discharge (Eq. 4-1, Worksheet 4)")


@click.command("storage-estimate")
@click.option("--inflow-peak-cfs", type=float, required=True, help="Peak inflow qi [cfs].")
@click.option("--outflow-peak-cfs", type=float, required=True,
              help="Allowable peak outflow qo [cfs].")
@click.option("--runoff-in", type=float, required=True, help="Runoff depth Q [in].")
@click.option("--area-mi2", type=float, required=True, help="Drainage area Am [mi2].")
@click.option("--rainfall-type", type=_RAINFALL_TYPES, default="II", show_default=True,
              help="NRCS 24-hour rainfall distribution.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
def storage_estimate(inflow_peak_cfs, outflow_peak_cfs, runoff_in, area_mi2, rainfall_type,
                     as_json):
    """Detention storage estimate of TR-55 Chapter 6 (Fig. 6-1, Worksheet 6a)."""
    from hydrocalc import storage_estimate as se

    rtype = rainfall_type.upper()
    storage = se.estimate_storage_volume(inflow_peak_cfs, outflow_peak_cfs, runoff_in, area_mi2,
                                         rainfall_type=rtype)
    rows = [
        ("inflow_peak_cfs", inflow_peak_cfs),
        ("outflow_peak_cfs", outflow_peak_cfs),
        ("runoff_in", runoff_in),
        ("area_mi2", area_mi2),
        ("rainfall_type", rtype),
        ("runoff_volume_acft", se.runoff_volume_acft(runoff_in, area_mi2)),
        ("storage_acft", storage),
    ]
    _emit(rows, as_json, "TR-55 detention storage estimate (Chapter 6, Fig. 6-1)")


COMMANDS = [runoff, cn, tc, peak, storage_estimate]
