"""``hydrocalc rating POND.toml`` and ``hydrocalc route POND.toml --inflow CSV``.

Thin: parse, call :mod:`hydrocalc.hydraulics.routing` / :mod:`hydrocalc.hydraulics.outlets`,
format. The pond file layout is documented in
:func:`hydrocalc.hydraulics.pond_file.pond_from_mapping` and docs/ponds.md.
"""

from __future__ import annotations

import io
import json
import pathlib
import warnings

import click

from hydrocalc.commands._output import check_file, write_atomic
from hydrocalc.errors import InputError

#: Largest inflow a ``route --inflow`` CSV may give: the Amazon's mean flow is about 7.4
#: million cfs; more is a unit slip, and would overflow the routing.
MAX_INFLOW_CFS = 1e8


def _read_inflow(path):
    """The inflow hydrograph of a ``--inflow`` CSV (columns time_hr, flow_cfs).

    Raises InputError (one line naming the file, the column and the row) for an unreadable
    file, a missing column, a value that is not a finite number or is out of scale, and a
    time step that is not uniform.
    """
    import numpy as np
    import pandas as pd

    from hydrocalc._validate import excerpt, fmt_value
    from hydrocalc.hydrograph import Hydrograph
    from hydrocalc.input_file import read_input_bytes
    from hydrocalc.site import MAX_CSV_BYTES

    raw = read_input_bytes(path, what="--inflow CSV", max_bytes=MAX_CSV_BYTES)  # not a pipe
    try:
        frame = pd.read_csv(io.BytesIO(raw), comment="#")
    except (OSError, ValueError) as exc:
        raise InputError(f"--inflow must be a readable CSV; got {path!r} ({exc})") from None
    missing = [c for c in ("time_hr", "flow_cfs") if c not in frame.columns]
    if missing:
        raise InputError(f"--inflow CSV must have columns time_hr and flow_cfs; got "
                         f"{', '.join(map(str, frame.columns))}")
    name = pathlib.Path(path).name
    columns = {}
    for col in ("time_hr", "flow_cfs"):  # each value a finite number, named by its row
        values = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
        bad = np.flatnonzero(~np.isfinite(values))
        if bad.size:
            i = int(bad[0])
            raise InputError(f"--inflow {name}: {col} must be a finite number; got "
                             f"{excerpt(repr(frame[col].iloc[i]), 40)} in data row {i + 1} "
                             f"({bad.size} such row(s))")
        columns[col] = values
    if columns["flow_cfs"].size and float(np.max(columns["flow_cfs"])) > MAX_INFLOW_CFS:
        raise InputError(f"--inflow {name}: flow_cfs must be <= {MAX_INFLOW_CFS:,.0f} cfs; got "
                         f"{fmt_value(float(np.max(columns['flow_cfs'])))}. Check the units")
    try:
        return Hydrograph(columns["time_hr"], columns["flow_cfs"], name=str(path))
    except InputError as exc:
        raise InputError(f"--inflow {name}: {exc}") from None


def _load_pond(path):
    """load_pond (every problem of the file is one InputError line)."""
    from hydrocalc.hydraulics.pond_file import load_pond

    return load_pond(path)


@click.command("rating")
@click.argument("pond_file", type=click.Path(dir_okay=False))
@click.option("--n", "n_steps", default=41, show_default=True, type=click.IntRange(2, 100_001),
              help="Even stage steps.")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Write the table here.")
@click.option("--json", "as_json", is_flag=True, help="Print the table as JSON records.")
def rating(pond_file, n_steps, csv_path, as_json):
    """Stage-storage-discharge rating of the pond in POND_FILE (TOML)."""
    from hydrocalc.hydraulics.outlets import rating_table

    check_file(csv_path, "--csv")
    pond = _load_pond(pond_file)
    table = rating_table(pond.outlets, stage_storage=pond.stage_storage, n=n_steps)
    if csv_path:
        write_atomic(csv_path, lambda tmp: table.to_csv(tmp, index=False), "--csv")
    if as_json:
        click.echo(table.to_json(orient="records", double_precision=6))
    else:
        click.echo(f"# {pond.name or pond_file}: top {pond.stage_storage.top_stage_ft:g} ft, "
                   f"max storage {pond.stage_storage.max_storage_ft3:.6g} ft3")
        click.echo(table.to_string(index=False, float_format=lambda v: f"{v:.4g}"))


@click.command("route")
@click.argument("pond_file", type=click.Path(dir_okay=False))
@click.option("--inflow", "inflow_csv", required=True, type=click.Path(dir_okay=False),
              help="CSV with columns time_hr, flow_cfs (uniform step).")
@click.option("--dt-hr", "dt_hr", default=None, help="Routing step [h], or 'auto'.")
@click.option("--initial-stage-ft", default=0.0, show_default=True, type=float)
@click.option("--duration-hr", default=None, type=float, help="Route this long [h].")
@click.option("--csv", "csv_path", type=click.Path(dir_okay=False), help="Write the series here.")
@click.option("--json", "as_json", is_flag=True, help="Print the summary as JSON.")
def route(pond_file, inflow_csv, dt_hr, initial_stage_ft, duration_hr, csv_path, as_json):
    """Route the inflow hydrograph through the pond in POND_FILE (storage indication)."""
    from hydrocalc.hydraulics.routing import route_reservoir

    check_file(csv_path, "--csv")
    pond = _load_pond(pond_file)
    inflow = _read_inflow(inflow_csv)
    if dt_hr is not None and dt_hr != "auto":
        try:
            dt_hr = float(dt_hr)
        except ValueError:
            raise InputError(f"--dt-hr must be a number or 'auto'; got {dt_hr!r}") from None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = route_reservoir(inflow, pond.stage_storage, pond.outlets,
                                 initial_stage_ft=initial_stage_ft, dt_hr=dt_hr,
                                 duration_hr=duration_hr)
    for w in caught:
        click.echo(f"warning: {w.message}", err=True)
    if csv_path:
        frame = result.to_frame()
        write_atomic(csv_path, lambda tmp: frame.to_csv(tmp, index=False), "--csv")
    summary = result.summary()
    if as_json:
        click.echo(json.dumps(summary, indent=2))
    else:
        width = max(len(k) for k in summary)
        for key, value in summary.items():
            shown = f"{value:.6g}" if isinstance(value, float) else str(value)
            click.echo(f"{key:<{width}}  {shown}")


COMMANDS = [rating, route]
