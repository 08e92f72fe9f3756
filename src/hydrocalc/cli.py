"""Command-line interface: ``hydrocalc <command> ...``.

The CLI is thin: every command parses its input, calls the library and formats the result.
Commands live in ``hydrocalc/commands/<topic>.py``; each module exposes ``COMMANDS``, a list
of click commands or groups, and is registered here.

Exit codes: 0 success; 1 a calculation or input error (one line per problem on stderr, no
traceback unless ``--debug``); 2 usage errors (click's default).
"""

from __future__ import annotations

import importlib
import sys

import click

from hydrocalc import __version__
from hydrocalc.errors import HydrocalcError

# Topic modules under hydrocalc.commands, in help order.
_COMMAND_MODULES = (
    "tables",
    "core",
    "storms",
    "ponds",
    "site",
    "construction",
    "report",
    "batch",
    "demo",
)


class _Group(click.Group):
    """Click group that turns HydrocalcError into one line on stderr and exit 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except HydrocalcError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            for line in str(exc).splitlines() or [type(exc).__name__]:
                click.echo(f"error: {line}" if not line.startswith("error") else line, err=True)
            ctx.exit(1)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hydrocalc")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.pass_context
def main(ctx, debug):
    """hydrocalc: TR-55/TR-20 hydrology, ponds, NY criteria and SWPPP reports."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug


def _register():
    for topic in _COMMAND_MODULES:
        name = f"hydrocalc.commands.{topic}"
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name == name:  # topic not built (yet); anything else is a real bug
                continue
            raise
        for command in getattr(module, "COMMANDS", []):
            main.add_command(command)


_register()

if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
