r"""A validated sweep: :class:`Variation` entries and the :class:`Sweep` they form.

:class:`Sweep` numbers its scenarios (grid in mixed radix, last group fastest, or zipped),
gives the values and overrides of scenario ``i`` and builds its site through
:func:`hydrocalc.batch.sweep.apply_overrides`.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import pathlib
from typing import Any

from hydrocalc.batch.sweep.fields import Target
from hydrocalc.batch.sweep.overrides import apply_overrides
from hydrocalc.errors import InputError

# ----------------------------------------------------------------------------------------
# the sweep file


@dataclasses.dataclass(frozen=True)
class Variation:
    """One ``[[vary]]`` entry after validation: its targets, operation and values."""

    field: str
    op: str
    values: tuple
    group: str
    label: str
    targets: tuple[Target, ...]
    source: str  # "values", "range", ... (how the values were given)

    @property
    def column(self) -> str:
        """Name of the summary-table column holding this entry's value."""
        return self.label


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A validated sweep: base site, variations and how they combine.

    Scenario ``i`` (0 <= i < :attr:`n_scenarios`) takes, for each group, the value at the
    ``i``-th position of the grid (mixed radix, last group fastest) or, with
    ``combine = "zip"``, position ``i`` of every entry.
    """

    path: pathlib.Path | None
    name: str
    base: pathlib.Path
    site: Any
    variations: tuple[Variation, ...]
    combine: str = "grid"
    seed: int | None = None
    samples: int | None = None
    storms: tuple[str, ...] | None = None
    description: str = ""
    where: str = "sweep.toml"  #: file name used in messages

    @functools.cached_property
    def _nodes(self) -> dict:
        """Rebuilt nodes shared by the scenarios (``node_cache`` of :func:`apply_overrides`)."""
        return {}

    @functools.cached_property
    def groups(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """``((group name, indices of its variations), ...)`` in order of first appearance."""
        order: dict[str, list[int]] = {}
        for i, v in enumerate(self.variations):
            order.setdefault(v.group, []).append(i)
        return tuple((g, tuple(ix)) for g, ix in order.items())

    @functools.cached_property
    def group_sizes(self) -> tuple[int, ...]:
        """Number of values of each group."""
        return tuple(len(self.variations[ix[0]].values) for _, ix in self.groups)

    @functools.cached_property
    def n_scenarios(self) -> int:
        """Number of scenarios (product of group sizes; 1 with no variation)."""
        return int(math.prod(self.group_sizes))

    @property
    def width(self) -> int:
        """Digits of the zero-padded scenario labels."""
        return max(1, len(str(self.n_scenarios - 1)))

    def scenario_id(self, i: int) -> str:
        """Label of scenario ``i`` (``"00042"``)."""
        return f"{i:0{self.width}d}"

    def positions(self, i: int) -> tuple[int, ...]:
        """Position of scenario ``i`` in each group's value list."""
        n = self.n_scenarios
        if not 0 <= i < n:
            raise InputError(f"scenario index must be in [0, {n - 1}]; got {i}")
        out = []
        for size in reversed(self.group_sizes):
            out.append(i % size)
            i //= size
        return tuple(reversed(out))

    @functools.cached_property
    def _value_plan(self) -> tuple[tuple[str, int, tuple], ...]:
        """``(column, group position, values)`` giving :meth:`values` its entries in order.

        A column's value comes from the last variation of that name in group order.
        """
        source: dict[str, tuple[int, tuple]] = {}
        for g, (_, ix) in enumerate(self.groups):
            for j in ix:
                v = self.variations[j]
                source[v.column] = (g, tuple(v.values))
        return tuple((v.column, *source[v.column]) for v in self.variations)

    def values(self, i: int) -> dict[str, Any]:
        """``{column: value}`` of scenario ``i`` (one per variation)."""
        pos = self.positions(i)
        return {column: values[pos[g]] for column, g, values in self._value_plan}

    def overrides(self, i: int) -> list[tuple[Target, str, Any]]:
        """The ``(target, op, value)`` list of scenario ``i`` in file order."""
        vals = self.values(i)
        return [(t, v.op, vals[v.column]) for v in self.variations for t in v.targets]

    def scenario(self, i: int):
        """The :class:`hydrocalc.site.Site` of scenario ``i`` (raises InputError if invalid)."""
        try:
            return apply_overrides(self.site, self.overrides(i), node_cache=self._nodes)
        except InputError as exc:
            raise InputError(f"{self.where}: scenario {self.scenario_id(i)}: {exc}") from None

    def to_frame(self):
        """One row per scenario: ``scenario`` and one column per variation."""
        import pandas as pd

        rows = [{"scenario": self.scenario_id(i), **self.values(i)}
                for i in range(self.n_scenarios)]
        return pd.DataFrame(rows, columns=["scenario", *[v.column for v in self.variations]])
