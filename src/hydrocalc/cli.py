"""Command-line interface: ``hydrocalc <command> ...``.

The CLI is thin: every command parses its input, calls the library and formats the result.
Commands live in ``hydrocalc/commands/<topic>.py``; each module exposes ``COMMANDS``, a list
of click commands or groups, and is registered here.

Exit codes: 0 success; 1 a calculation or input error (one line per problem on stderr, no
traceback unless ``--debug``); 2 usage errors (click's default).
"""

from __future__ import annotations

import importlib
import os
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
    "hydrocad",
    "schema",
)


class _Group(click.Group):
    """Click group that turns HydrocalcError into one line on stderr and exit 1."""

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise
        except HydrocalcError as exc:
            if ctx.obj and ctx.obj.get("debug"):
                raise
            for line in str(exc).splitlines() or [type(exc).__name__]:
                click.echo(f"error: {line}" if not line.startswith("error") else line, err=True)
            ctx.exit(1)
        except Exception as exc:  # noqa: BLE001 - last line of defence: never a traceback
            if ctx.obj and ctx.obj.get("debug"):
                raise
            click.echo(f"error: {_unexpected(exc)}", err=True)
            ctx.exit(1)


def _unexpected(exc: Exception) -> str:
    """One line for an exception no command turned into an InputError."""
    if isinstance(exc, UnicodeDecodeError):
        return (f"an input file must be UTF-8 text; byte {exc.start} is not ({exc.reason}). "
                "Save the file as UTF-8.")
    if isinstance(exc, OSError):
        name = f" {exc.filename!r}" if exc.filename else ""
        return (f"file{name} could not be read or written ({exc.strerror or exc}). Check the "
                "path and its permissions.")
    if isinstance(exc, MemoryError):
        return ("the computation needs more memory than is available; use a coarser time step "
                "or a shorter duration.")
    text = " ".join(str(exc).split())
    return (f"unexpected {type(exc).__name__}: {text}. This is a hydrocalc bug; rerun with "
            "--debug for the traceback and report it.")


class _one_line_warnings:
    """While a command runs, print each Python warning as ``warning: <message>`` on stderr.

    The file and line of the code that warned are shown only with ``--debug``.
    """

    def __enter__(self):
        import warnings

        self._saved = warnings.catch_warnings()
        self._saved.__enter__()
        warnings.showwarning = self._show
        return self

    @staticmethod
    def _show(message, category, filename, lineno, file=None, line=None):
        click.echo(f"warning: {message}", err=True)

    def __exit__(self, *exc):
        return self._saved.__exit__(*exc)


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="hydrocalc")
@click.option("--debug", is_flag=True, help="Show full tracebacks on errors.")
@click.option("--allow-outside-paths", is_flag=True,
              help="Let site files name files outside their own folder (only for site files "
                   "you trust; by default such paths are refused).")
@click.pass_context
def main(ctx, debug, allow_outside_paths):
    """hydrocalc: TR-55/TR-20 hydrology, ponds, NY criteria and SWPPP reports."""
    ctx.ensure_object(dict)
    ctx.obj["debug"] = debug
    if not debug:  # library warnings as one "warning: ..." line each, no source line
        ctx.with_resource(_one_line_warnings())
    if allow_outside_paths:  # read by hydrocalc.site (and by report kernels it starts)

        os.environ["HYDROCALC_ALLOW_OUTSIDE_PATHS"] = "1"


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
