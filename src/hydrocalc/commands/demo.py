"""``hydrocalc demo``: the README's demonstration run."""

from __future__ import annotations

import click


@click.command("demo")
def demo():
    """Run the example calculation (until the report lands: a TR-55 runoff table)."""
    from hydrocalc.runoff import runoff_depth

    click.echo("TR-55 runoff depth Q [in] for P = 1..6 in and CN 60-98 (TR-55 Eq. 2-3):")
    cns = (60, 70, 80, 90, 98)
    click.echo("P_in  " + "".join(f"CN{cn:>6}" for cn in cns))
    for p in range(1, 7):
        click.echo(f"{p:4.1f}  " + "".join(f"{runoff_depth(p, cn):8.2f}" for cn in cns))


COMMANDS = [demo]
