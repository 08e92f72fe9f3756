"""Reviewing other programs' calculations: import, review, diff.

* ``hydrocalc import hydrocad REPORT --out FOLDER [--allow-partial] [--links LINKS.toml]``:
  read a HydroCAD report (PDF or its text) and write ``FOLDER/site.toml`` and
  ``FOLDER/submitted.json`` (written into a temporary folder, moved into place when
  complete). Exit 0 when imported (an incomplete import says INCOMPLETE and lists what was
  not imported), 1 when the report
  cannot be imported (one line saying what was expected; nothing written).
* ``hydrocalc review [SITE] --submitted SUBMITTED.json [--json PATH] [--html PATH]``: re-run
  the site and compare, and audit the printed inputs (without SITE: the audit only); exit 0
  when nothing is unexplained and no input finding is an error, 1 otherwise.
* ``hydrocalc diff A B [--html PATH] [--json PATH] [--inputs-only]``: inputs and results that
  changed, at reporting precision; exit 0 when equal, 1 when they differ.
"""

from __future__ import annotations

import json

import click

from hydrocalc.commands._output import check_file, write_atomic


@click.group("import")
def import_group():
    """Import another program's calculation as a hydrocalc site."""


@import_group.command("hydrocad")
@click.argument("report", type=click.Path(dir_okay=False, path_type=str))
@click.option("--out", "out", required=True, type=click.Path(path_type=str),
              help="Folder to write site.toml and submitted.json into.")
@click.option("--allow-partial", is_flag=True,
              help="Import the complete records of a truncated report (marked INCOMPLETE).")
@click.option("--links", "links", type=click.Path(dir_okay=False, path_type=str),
              help="TOML [links] table NODE = \"DOWNSTREAM\" read off the routing diagram "
                   "(a printed report does not state links); enables pond import.")
def import_hydrocad_cmd(report, out, allow_partial, links):
    """Import a HydroCAD report (PDF or text) into FOLDER/site.toml + submitted.json."""
    from hydrocalc.review.importers.hydrocad_site import import_hydrocad

    result = import_hydrocad(report, out, allow_partial=allow_partial, links=links)
    click.echo(result.message())
    site = f"{out}/site.toml " if result.has_site else ""
    click.echo(f"next: hydrocalc review {site}--submitted {out}/submitted.json")


@click.command("review")
@click.argument("site_file", metavar="[SITE]", required=False,
                type=click.Path(dir_okay=False, path_type=str))
@click.option("--submitted", "submitted", required=True,
              type=click.Path(dir_okay=False, path_type=str),
              help="submitted.json written by `hydrocalc import hydrocad`.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=str),
              help="Also write the review as JSON.")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=str),
              help="Also write the review as an HTML page.")
@click.pass_context
def review_cmd(ctx, site_file, submitted, json_path, html_path):
    """Re-run SITE and compare with the submitted results; audit the printed inputs.

    Without SITE only the input audit runs (for an import that wrote no site.toml).
    """
    from hydrocalc.review import review_site

    check_file(json_path, "--json")
    check_file(html_path, "--html")
    rev = review_site(site_file, submitted)
    click.echo(rev.table())
    if json_path:
        write_atomic(json_path, lambda tmp: _write(tmp, rev.to_json()), "--json")
        click.echo(f"wrote {json_path}")
    if html_path:
        write_atomic(html_path, lambda tmp: _write(tmp, rev.to_html()), "--html")
        click.echo(f"wrote {html_path}")
    ctx.exit(1 if rev.failed else 0)


@click.command("diff")
@click.argument("a", type=click.Path(path_type=str))
@click.argument("b", type=click.Path(path_type=str))
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=str),
              help="Also write the differences as an HTML page.")
@click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=str),
              help="Also write the differences as JSON.")
@click.option("--inputs-only", is_flag=True, help="Compare inputs only (no analysis).")
@click.pass_context
def diff_cmd(ctx, a, b, html_path, json_path, inputs_only):
    """What changed from A to B (site files or folders): inputs and results."""
    from hydrocalc.review.diff import diff_paths

    check_file(html_path, "--html")
    check_file(json_path, "--json")
    d = diff_paths(a, b, results=not inputs_only)
    click.echo(d.text())
    if html_path:
        write_atomic(html_path, lambda tmp: _write(tmp, d.to_html()), "--html")
        click.echo(f"wrote {html_path}")
    if json_path:
        text = json.dumps(d.to_dict(), indent=1, sort_keys=True) + "\n"
        write_atomic(json_path, lambda tmp: _write(tmp, text), "--json")
        click.echo(f"wrote {json_path}")
    ctx.exit(0 if d.equal else 1)


def _write(path: str, text: str) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)


COMMANDS = [import_group, review_cmd, diff_cmd]
