"""``hydrocalc tables list|show NAME``: the shipped tables with their provenance."""

from __future__ import annotations

import click


@click.group("tables")
def tables():
    """List and show the shipped published tables with provenance."""


@tables.command("list")
def list_():
    """List every shipped table: name, source location and title."""
    from hydrocalc import data

    rows = [(name, data.table_info(name)) for name in data.list_tables(kind=None)]
    width = max(len(n) for n, _ in rows)
    for name, info in rows:
        click.echo(f"{name:<{width}}  {info.get('location', ''):<34}  {info.get('title', '')}")


@tables.command("show")
@click.argument("name")
@click.option("--csv", "as_csv", is_flag=True, help="Print the table as CSV.")
def show(name, as_csv):
    """Print table NAME and its provenance (source, location, units, sha256)."""
    from hydrocalc import data

    info = data.table_info(name)
    if info.get("kind", "table") != "table":
        from importlib.resources import files

        click.echo(f"# {name}: {info.get('title', '')}")
        for key in ("source", "location", "transcription", "file", "sha256"):
            if info.get(key):
                click.echo(f"# {key}: {info[key]}")
        click.echo(files("hydrocalc.data").joinpath(info["file"]).read_text(encoding="utf-8"))
        return
    frame = data.load_table(name)
    click.echo(f"# {name}: {info.get('title', '')}")
    for key in ("source", "location", "transcription", "note", "file", "sha256"):
        if info.get(key):
            click.echo(f"# {key}: {info[key]}")
    units = info.get("units", {})
    if units:
        click.echo("# units: " + ", ".join(f"{k} [{v}]" for k, v in units.items()))
    if as_csv:
        click.echo(frame.to_csv(index=False), nl=False)
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", None, "display.max_columns", None,
                               "display.width", 200, "display.max_colwidth", 60):
            click.echo(frame.to_string(index=False))


COMMANDS = [tables]
