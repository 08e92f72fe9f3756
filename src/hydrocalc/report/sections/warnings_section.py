"""The ``warnings`` section.

Every warning of the computation, with the sections it was raised in.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from hydrocalc.report.result import SectionResult
from hydrocalc.report.sections.builder import _Builder
from hydrocalc.report.sections.computation import dedupe
from hydrocalc.report.sections.registry import SECTIONS
from hydrocalc.report.tables import Table


def _build_warnings(b: _Builder, sections: Sequence[str],
                    computed: Mapping[str, SectionResult] | None, build: Callable) -> None:
    """Gather the warnings of every other section.

    Each is built without figures by ``build``
    (the section builder of :mod:`~hydrocalc.report.sections.run`, passed in so that the
    imports run one way); a section in ``computed`` (already built from the same context,
    e.g. by a report run) is reused when drawing its figures raised no warning, since its
    warnings are then the same.
    """
    keys = [k for k in (sections or list(SECTIONS)) if k != "warnings" and k in SECTIONS]
    where: dict[str, list[str]] = {}
    for note in b.ctx.site.notes:
        where.setdefault(note, []).append("Site file")
    computed = computed or {}
    for key in keys:
        other = computed.get(key)
        if other is None or other.__dict__.get("_figure_warned"):
            other = build(b.ctx, key, figures=False, sections=keys)
        for w in other.warnings:
            where.setdefault(w, []).append(SECTIONS[key].title)
    frame = pd.DataFrame([{"warning": w, "raised_in": "; ".join(dedupe(v))}
                          for w, v in where.items()], columns=["warning", "raised_in"])
    b.res.values.update({"distinct_warnings": int(len(frame))})
    if len(frame):
        b.res.narrative_md = (
            f"The computation raised {len(frame)} distinct warnings. Each marks a "
            "publication-prescribed fallback, a limit applied, an unverified value or an "
            "input that deserves a second look; none was silenced. Each is also shown at the "
            "end of the section it concerns.")
    else:
        b.res.narrative_md = "The computation raised no warnings."
    b.res.add_table(Table("warnings", "Every warning raised during the computation", frame,
                          labels={"raised_in": "Raised in"}, key_columns=["warning"]))
