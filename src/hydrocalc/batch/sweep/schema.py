"""The declared model of the sweep file (``hydrocalc batch SWEEP.toml``, ``docs/batch.md``).

:class:`SweepFile` states each key, its type and range; its JSON Schema is shipped as
``hydrocalc/data/schema/sweep.schema.json`` (``hydrocalc schema sweep``). The rules that need
the base site (does ``field`` name a value of it, may a list hold text) and between entries
(equal value counts per group, unique labels) stay in :func:`hydrocalc.batch.sweep.load_sweep`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, StringConstraints

from hydrocalc.schema import InputModel, json_schema
from hydrocalc.schema import field as described

__all__ = ["SweepFile", "sweep_json_schema"]

Numbers = Annotated[list[float], Field(min_length=1)]
#: Non-empty text (the sweep's names and labels).
Text = Annotated[str, StringConstraints(min_length=1)]
Texts = Annotated[list[Text], Field(min_length=1)]


class Vary(InputModel):
    """``[[vary]]``: one varied field and its values (exactly one source of values)."""

    field: Text = described(
        "The varied value of the base site, e.g. \"post.subcatchment[*].cn\", "
        "\"storms.depths_in.*\" or \"post.pond[P-1].outlet[low_orifice].diameter_in\"",
        required=True)
    op: Literal["set", "add", "scale"] | None = described(
        "How each value applies to the base value (default set)")
    values: Numbers | Texts | None = described(
        "The values (text only for storms.distribution with op = \"set\")")
    range: Annotated[list[float], Field(min_length=3, max_length=3)] | None = described(
        "[start, stop, step], step > 0, stop >= start; at most 1,000,000 values")
    linspace: Annotated[list[float], Field(min_length=3, max_length=3)] | None = described(
        "[start, stop, num], num a whole number in [1, 1000000]")
    uniform: Annotated[list[float], Field(min_length=2, max_length=2)] | None = described(
        "[low, high], low < high: `samples` random draws")
    normal: Annotated[list[float], Field(min_length=2, max_length=2)] | None = described(
        "[mean, standard deviation >= 0]: `samples` random draws")
    choice: Numbers | Texts | None = described("Values drawn at random, `samples` times")
    group: Text | None = described(
        "Entries of one group vary together (zip); default: each its own, random ones "
        "\"random\"")
    label: Text | None = described("Column label of the summary (default: field, or field:op)")
    description: Text | None = described("Free text describing the entry")


class SweepFile(InputModel):
    """A sweep file: variations of a base site, run as a batch."""

    base: Text = described("Path of the base site file, relative to the sweep file",
                       required=True)
    name: Text | None = described("Name of the sweep (default: the file's stem)")
    description: str | None = described("Free text describing the sweep")
    combine: Literal["grid", "zip"] | None = described(
        "grid: every combination of the groups; zip: all entries together (default grid)")
    seed: int | None = described("Seed of the random draws", ge=0)
    samples: int | None = described("Number of random draws of the random entries", ge=1)
    storms: Annotated[list[Text], Field(min_length=1)] | None = described(
        "Run only these storms of the base site")
    vary: list[Vary] | None = described("The varied fields")


def sweep_json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of the sweep file, as shipped in the package."""
    return json_schema(
        SweepFile, title="hydrocalc sweep file",
        description="Variations of a base site file run as a batch (docs/batch.md).")
