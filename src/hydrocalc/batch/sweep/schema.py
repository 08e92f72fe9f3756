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
from hydrocalc.schema_errors import Says

__all__ = ["SweepFile", "sweep_json_schema", "FIELD_HELP"]

#: What ``field`` of a ``[[vary]]`` entry names (its messages say "must be <this>").
FIELD_HELP = ("a field such as post.subcatchment[S-1].cn, post.subcatchment[*].tc_hr, "
              "post.pond[P-1].outlet[OR-1].diameter_in, post.pond[P-1].storage.depth_ft, "
              "post.reach[R-1].lag_hr, storms.depths_in.100yr or analysis.prf")

Numbers = Annotated[list[float], Field(min_length=1)]
#: Non-empty text (the sweep's names and labels).
Text = Annotated[str, StringConstraints(min_length=1)]
Texts = Annotated[list[Text], Field(min_length=1)]
# The wording of the loader's messages (``<key> <requirement>; got <value>``).
_NUMBERS = Says("must be a non-empty list of numbers")
_NAME = Says("must be a non-empty string")

#: Lists of exactly three and two numbers.
Three = Annotated[list[float], Field(min_length=3, max_length=3),
                  Says("must be a list of 3 numbers")]
Two = Annotated[list[float], Field(min_length=2, max_length=2),
                Says("must be a list of 2 numbers")]


class Vary(InputModel):
    """``[[vary]]``: one varied field and its values (exactly one source of values)."""

    field: Annotated[Text, Says(f"must be {FIELD_HELP}")] = described(
        "The varied value of the base site, e.g. \"post.subcatchment[*].cn\", "
        "\"storms.depths_in.*\" or \"post.pond[P-1].outlet[low_orifice].diameter_in\"",
        required=True)
    op: Literal["set", "add", "scale"] | None = described(
        "How each value applies to the base value (default set)")
    values: Annotated[Numbers | Texts, _NUMBERS] | None = described(
        "The values (text only for storms.distribution with op = \"set\")")
    range: Three | None = described(
        "[start, stop, step], step > 0, stop >= start; at most 1,000,000 values")
    linspace: Three | None = described(
        "[start, stop, num], num a whole number in [1, 1000000]")
    uniform: Two | None = described(
        "[low, high], low < high: `samples` random draws")
    normal: Two | None = described(
        "[mean, standard deviation >= 0]: `samples` random draws")
    choice: Annotated[Numbers | Texts, _NUMBERS] | None = described(
        "Values drawn at random, `samples` times")
    group: Annotated[Text, _NAME] | None = described(
        "Entries of one group vary together (zip); default: each its own, random ones "
        "\"random\"")
    label: Annotated[Text, _NAME] | None = described(
        "Column label of the summary (default: field, or field:op)")
    description: Annotated[Text, _NAME] | None = described("Free text describing the entry")


class SweepFile(InputModel):
    """A sweep file: variations of a base site, run as a batch."""

    base: Annotated[Text, Says("must be the path of the site file (relative to the sweep "
                               "file)")] = described(
        "Path of the base site file, relative to the sweep file", required=True)
    name: Annotated[Text, _NAME] | None = described("Name of the sweep (default: the file's stem)")
    description: Annotated[str, Says("must be a string")] | None = described(
        "Free text describing the sweep")
    combine: Annotated[Literal["grid", "zip"], Says('must be "grid" or "zip"')] | None = described(
        "grid: every combination of the groups; zip: all entries together (default grid)")
    seed: Annotated[int, Says("must be a non-negative integer")] | None = described(
        "Seed of the random draws", ge=0)
    samples: Annotated[int, Says("must be a positive integer")] | None = described(
        "Number of random draws of the random entries", ge=1)
    storms: Annotated[list[Text], Field(min_length=1),
                      Says("must be a non-empty list of storm names")] | None = described(
        "Run only these storms of the base site")
    vary: Annotated[list[Vary], Says("must be an array of tables ([[vary]])")] | None = described(
        "The varied fields")


def sweep_json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of the sweep file, as shipped in the package."""
    return json_schema(
        SweepFile, title="hydrocalc sweep file",
        description="Variations of a base site file run as a batch (docs/batch.md).")
