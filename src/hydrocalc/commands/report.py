"""``hydrocalc report SITE.toml`` and ``hydrocalc verify REPORT``."""

from __future__ import annotations

import logging

import click

from hydrocalc.commands._output import check_dir


def _list_sections(ctx, param, value):
    if not value or ctx.resilient_parsing:
        return
    from hydrocalc.report.sections import ALIASES, SECTIONS

    for key, spec in SECTIONS.items():
        click.echo(f"{key:<16} {spec.title}  (src/hydrocalc/report/notebooks/{spec.notebook})")
    click.echo("aliases: " + ", ".join(f"{a} = {'+'.join(k)}" for a, k in ALIASES.items()))
    ctx.exit(0)


@click.command("report")
@click.argument("site_file", type=click.Path(dir_okay=False))
@click.option("--out", "out", type=click.Path(file_okay=False), default=None,
              help="Report folder (default reports/<site name>). Replaced atomically.")
@click.option("--section", "sections", multiple=True, metavar="KEY",
              help="Only this section (repeatable; e.g. comparison, hydrology, criteria). "
                   "Default: all.")
@click.option("--format", "formats", default="html,pdf,xlsx", show_default=True,
              help="Comma-separated outputs: html, pdf, xlsx. Notebooks, CSV, PNG and "
                   "results.json are always written.")
@click.option("--jobs", type=click.IntRange(1, 64), default=None,
              help="Warm kernels computing section notebooks at once (default 2; each "
                   "analyses the site once).")
@click.option("--notebooks", type=click.Path(file_okay=False, exists=True), default=None,
              help="Folder with section notebooks to use instead of the shipped ones.")
@click.option("--fresh-kernels", is_flag=True,
              help="Start a new kernel for every notebook (slower; default: warm kernels, "
                   "their namespace reset between notebooks).")
@click.option("--quiet", is_flag=True, help="No progress bar.")
@click.option("--list-sections", is_flag=True, is_eager=True, expose_value=False,
              callback=_list_sections, help="List the section keys and exit.")
def report(site_file, out, sections, formats, jobs, notebooks, fresh_kernels, quiet):
    """Write the SWPPP hydrology report for SITE_FILE (HTML, PDF, Excel, notebooks, JSON).

    Validates the site file first and refuses to run on any input error. Lists the
    sections with `hydrocalc report --list-sections`.
    """
    from hydrocalc.report.execute import run_report

    check_dir(out, "--out")
    try:
        run = run_report(site_file, out, sections=sections or None, formats=formats,
                         jobs=jobs, progress=not quiet, notebooks=notebooks,
                         fresh_kernels=fresh_kernels)
    except KeyboardInterrupt as exc:  # Ctrl-C, or SIGTERM (see run_report)
        # the interrupted kernel clients' pending asyncio tasks are destroyed at exit, as
        # they should be; asyncio would log each ("Task was destroyed but it is pending!")
        logging.getLogger("asyncio").setLevel(logging.CRITICAL)
        how = "terminated (SIGTERM)" if str(exc) == "terminated" else "interrupted"
        click.echo(f"error: report {how}; nothing was written (a previous report in "
                   f"{out or 'the output folder'} is unchanged)", err=True)
        click.get_current_context().exit(130)
    click.echo(str(run))
    for name in ("report.html", "report.pdf", "tables.xlsx", "results.json"):
        if name in run.files:
            click.echo(f"  {run.out_dir / name}")


@click.command("verify")
@click.argument("report", type=click.Path())
@click.option("--rtol", type=float, default=None, help="Relative tolerance (default 1e-6).")
@click.option("--atol", type=float, default=None, help="Absolute tolerance (default 1e-9).")
@click.pass_context
def verify(ctx, report, rtol, atol):
    """Re-compute REPORT (a report folder, or its report.pdf alone) and compare everything.

    A folder: results.json, every table CSV, sections/*.json, tables.xlsx, report.html and
    report.pdf are checked against a re-computation from the stored inputs (and the SHA-256
    recorded at build time). A PDF: its attached inputs and results.json are extracted into
    an empty temporary folder and the report is re-computed from them alone. Nothing from
    the report is executed or unpickled. Exit 0 when everything agrees, 1 otherwise.
    """
    from hydrocalc.report.verify import DEFAULT_ATOL, DEFAULT_RTOL, verify_report

    result = verify_report(report, rtol=DEFAULT_RTOL if rtol is None else rtol,
                           atol=DEFAULT_ATOL if atol is None else atol)
    table = result.table()
    if table:
        click.echo(table)
    if result.version_note():
        click.echo(result.version_note())
    click.echo(result.summary())
    ctx.exit(0 if result.ok else 1)


COMMANDS = [report, verify]
