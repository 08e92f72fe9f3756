"""``hydrocalc schema site|sweep|pond``: the JSON Schema of an input file.

Prints the schema shipped in the package (``hydrocalc/data/schema/<name>.schema.json``),
without importing pydantic. :func:`generated_schemas` builds the same schemas from the
declared models (:mod:`hydrocalc.site.schema`, :mod:`hydrocalc.batch.sweep.schema`,
:mod:`hydrocalc.hydraulics.pond_schema`); ``tools/gen_schemas.py`` writes them and a test
fails when the shipped files differ.
"""

from __future__ import annotations

import json
from importlib.resources import files

import click

from hydrocalc.errors import InputError

#: The input files with a published schema.
SCHEMA_NAMES = ("site", "sweep", "pond")


def shipped_schema_text(name: str) -> str:
    """The text of the shipped JSON Schema of input file ``name`` (site, sweep or pond).

    Raises
    ------
    InputError
        For a name that is not one of :data:`SCHEMA_NAMES`.
    """
    if name not in SCHEMA_NAMES:
        raise InputError(f"schema name must be one of {', '.join(SCHEMA_NAMES)}; got {name!r}")
    return files("hydrocalc.data").joinpath("schema", f"{name}.schema.json").read_text(
        encoding="utf-8")


def generated_schemas() -> dict[str, dict]:
    """The schemas built from the declared models, by name (imports pydantic)."""
    # imported here: pydantic and the models are needed only to regenerate the files
    from hydrocalc.batch.sweep.schema import sweep_json_schema
    from hydrocalc.hydraulics.pond_schema import pond_json_schema
    from hydrocalc.site.schema import site_json_schema

    return {"site": site_json_schema(), "sweep": sweep_json_schema(),
            "pond": pond_json_schema()}


def schema_text(schema: dict) -> str:
    """A schema as written to its shipped file: 2-space indent, a final newline."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


@click.command("schema")
@click.argument("name", metavar="site|sweep|pond")
@click.pass_context
def schema(ctx, name):
    """Print the JSON Schema (draft 2020-12) of an input file: site, sweep or pond.

    Editors use it for completion, hover help and checks of a TOML file that begins with
    ``#:schema <path or URL of the schema>`` (VS Code with Even Better TOML).
    """
    if name not in SCHEMA_NAMES:
        click.echo(f"error: NAME must be one of {', '.join(SCHEMA_NAMES)}; got {name!r}",
                   err=True)
        ctx.exit(2)
    click.echo(shipped_schema_text(name), nl=False)


COMMANDS = [schema]
