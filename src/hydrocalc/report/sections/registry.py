"""The report's sections: :class:`SectionSpec`, :data:`SECTIONS`, :data:`ALIASES`.

Each section has a key, a title, a notebook and the public function the notebook calls;
:func:`resolve_sections` turns the keys and aliases of ``--section`` into keys in report
order.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from hydrocalc._validate import suggest
from hydrocalc.errors import InputError


# ======================================================================================
# registry
# ======================================================================================
@dataclasses.dataclass(frozen=True)
class SectionSpec:
    """A report section: its key, title, notebook, function and fixed parameters."""

    key: str
    title: str
    notebook: str
    function: str
    fixed: Mapping[str, Any] = dataclasses.field(default_factory=dict)


SECTIONS: dict[str, SectionSpec] = {s.key: s for s in (
    SectionSpec("project", "Project summary and applicability", "01_project_summary.ipynb",
                "project_summary"),
    SectionSpec("storms", "Design storms", "02_design_storms.ipynb", "design_storms"),
    SectionSpec("hydrology_pre", "Pre-development hydrology", "03_hydrology.ipynb",
                "hydrology", {"scenario": "pre"}),
    SectionSpec("hydrology_post", "Post-development hydrology", "03_hydrology.ipynb",
                "hydrology", {"scenario": "post"}),
    SectionSpec("ponds", "Ponds and infiltration practices", "04_ponds.ipynb", "ponds"),
    SectionSpec("comparison", "Pre- and post-development comparison", "05_comparison.ipynb",
                "comparison"),
    SectionSpec("criteria", "NY unified stormwater sizing criteria",
                "06_sizing_criteria.ipynb", "sizing_criteria"),
    SectionSpec("sediment", "Sediment traps and cleanout", "07_sediment_traps.ipynb",
                "sediment_traps"),
    SectionSpec("inspections", "Inspection schedule", "08_inspections.ipynb", "inspections"),
    SectionSpec("methods", "Methods and references", "09_methods_references.ipynb",
                "methods_references"),
    SectionSpec("warnings", "Warnings raised during the computation", "10_warnings.ipynb",
                "all_warnings"),
)}

#: Other names accepted by ``--section``.
ALIASES = {
    "summary": ("project",),
    "applicability": ("project",),
    "hydrology": ("hydrology_pre", "hydrology_post"),
    "pre": ("hydrology_pre",),
    "post": ("hydrology_post",),
    "storm": ("storms",),
    "pond": ("ponds",),
    "sizing": ("criteria",),
    "traps": ("sediment",),
    "references": ("methods",),
}


def resolve_sections(names: Iterable[str] | None) -> list[str]:
    """Section keys in report order from keys or aliases (``None``: every section).

    Examples
    --------
    >>> resolve_sections(["comparison", "hydrology"])
    ['hydrology_pre', 'hydrology_post', 'comparison']
    """
    if names is None:
        return list(SECTIONS)

    wanted: set[str] = set()
    for name in names:
        for part in str(name).split(","):
            key = part.strip().lower()
            if not key:
                continue
            if key in SECTIONS:
                wanted.add(key)
            elif key in ALIASES:
                wanted.update(ALIASES[key])
            else:
                choices = list(SECTIONS) + list(ALIASES)
                raise InputError(f"--section must be one of {', '.join(SECTIONS)} (or "
                                 f"{', '.join(ALIASES)}); got {key!r}{suggest(key, choices)}")
    if not wanted:
        raise InputError("--section must name at least one section; got none")
    return [k for k in SECTIONS if k in wanted]
