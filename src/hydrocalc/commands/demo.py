"""``hydrocalc demo``: the SWPPP hydrology report of every example site (``make demo``)."""

from __future__ import annotations

import pathlib

import click

from hydrocalc.commands._output import check_dir


@click.command("demo")
@click.option("--examples", "examples_dir", type=click.Path(file_okay=False), default="examples",
              show_default=True, help="Folder whose */site.toml files are the example sites.")
@click.option("--out", "out_dir", type=click.Path(file_okay=False), default="reports",
              show_default=True, help="Reports are written to OUT/<example name>/.")
@click.option("--format", "formats", default="html,pdf,xlsx", show_default=True,
              help="Comma-separated outputs: html, pdf, xlsx.")
@click.option("--quiet", is_flag=True, help="No progress bar.")
def demo(examples_dir, out_dir, formats, quiet):
    """Write the SWPPP hydrology report of each example site and say where it is."""
    from hydrocalc.errors import InputError
    from hydrocalc.report.execute import run_report

    check_dir(out_dir, "--out")
    sites = sorted(pathlib.Path(examples_dir).glob("*/site.toml"))
    if not sites:
        raise InputError(f"--examples must be a folder with */site.toml example sites; got "
                         f"{examples_dir!r} without any. Run from the repository root.")
    for site in sites:
        target = pathlib.Path(out_dir) / site.parent.name
        click.echo(f"{site}: writing the report ...")
        run = run_report(site, target, formats=formats, progress=not quiet)
        click.echo(f"  {run}")
        for name in ("report.html", "report.pdf", "tables.xlsx", "results.json"):
            if name in run.files:
                click.echo(f"  {run.out_dir / name}")
    click.echo(f"Re-check any of them with: hydrocalc verify {pathlib.Path(out_dir) / '<name>'}")


COMMANDS = [demo]
