"""The object a report section returns: narrative, tables, figures, warnings, in order.

A :class:`SectionResult` is all a notebook presents. Its presentation methods return objects
that IPython displays as HTML (``heading()``, ``body()``, ``warnings_table()``) or Markdown
(``narrative()``), so a notebook needs no logic. ``write(out_dir)`` saves the machine-readable
artefacts: ``sections/<key>.json``, ``tables/<key>__<table>.csv`` and
``figures/<key>__<figure>.png``.
"""

from __future__ import annotations

import html
import json
import os
import pathlib
from dataclasses import dataclass, field

import pandas as pd

from hydrocalc.report.assemble import markdown_to_html
from hydrocalc.report.figures import Figure
from hydrocalc.report.tables import Table, canonical_json, to_jsonable

__all__ = ["SectionResult", "HTMLBlock", "MarkdownBlock", "SCHEMA", "SECTION_MIME",
           "PRESENTATION_SCHEMA"]

SCHEMA = "hydrocalc.report.section/1"
#: The MIME type under which a section notebook displays its section's data (beside the
#: HTML): ``{"document": <to_dict()>, "presentation": <presentation()>}``. A report run reads
#: it back from the executed notebook to write results.json, the workbook and the PDF.
SECTION_MIME = "application/vnd.hydrocalc.section+json"
PRESENTATION_SCHEMA = "hydrocalc.report.presentation/1"


class HTMLBlock:
    """Trusted HTML produced by hydrocalc (every user string already escaped)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_html_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return "HTMLBlock(...)"


class MarkdownBlock:
    """Markdown narrative (user strings escaped by :func:`~hydrocalc.report.tables.md_escape`)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_markdown_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


@dataclass
class SectionResult:
    """Everything one report section shows.

    Attributes
    ----------
    key : str
        Section key, e.g. ``"comparison"`` or ``"hydrology_post"``; names the files written.
    title : str
        Section heading.
    narrative_md : str
        Narrative paragraphs (Markdown); every number in it is formatted from the
        computation.
    blocks : list of (kind, value)
        Presentation order: ``("h3", text)``, ``("md", markdown)``, ``("table", Table)``,
        ``("figure", Figure)``.
    warnings : list of str
        Every warning raised while computing this section (text prefixed by its category).
    values : dict
        Named results that are not in a table (JSON-ready, unit-suffixed keys).
    parameters : dict
        The section function's arguments.
    """

    key: str
    title: str
    narrative_md: str = ""
    blocks: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    values: dict = field(default_factory=dict)
    parameters: dict = field(default_factory=dict)

    # -- building ------------------------------------------------------------------
    def add_heading(self, text: str) -> None:
        """Append a level-3 heading ``text`` to the blocks."""
        self.blocks.append(("h3", text))

    def add_markdown(self, text: str) -> None:
        """Append a Markdown paragraph ``text`` to the blocks."""
        self.blocks.append(("md", text))

    def add_table(self, table: Table) -> Table:
        """Append ``table`` (its name unique in the section) and return it."""
        if any(isinstance(v, Table) and v.name == table.name for _, v in self.blocks):
            raise ValueError(f"duplicate table name {table.name!r} in section {self.key!r}")
        self.blocks.append(("table", table))
        return table

    def add_figure(self, figure: Figure | None) -> Figure | None:
        """Append ``figure`` unless it is None, and return it."""
        if figure is not None:
            self.blocks.append(("figure", figure))
        return figure

    # -- access --------------------------------------------------------------------
    @property
    def tables(self) -> dict[str, Table]:
        """The section's tables by name, in presentation order."""
        return {v.name: v for kind, v in self.blocks if kind == "table"}

    @property
    def figures(self) -> dict[str, Figure]:
        """The section's figures by name, in presentation order."""
        return {v.name: v for kind, v in self.blocks if kind == "figure"}

    def table(self, name: str) -> Table:
        """The table called ``name`` (KeyError if absent)."""
        return self.tables[name]

    def figure(self, name: str) -> Figure:
        """The figure called ``name`` (KeyError if absent)."""
        return self.figures[name]

    # -- presentation (what notebooks call) ------------------------------------------
    def heading(self) -> HTMLBlock:
        """The section heading (an ``<h2>`` the report's table of contents links to)."""
        return HTMLBlock(f'<h2 class="section" id="sec-{html.escape(self.key)}">'
                         f"{html.escape(self.title)}</h2>")

    def narrative(self) -> MarkdownBlock:
        """The narrative paragraphs."""
        return MarkdownBlock(self.narrative_md)

    def body(self) -> HTMLBlock:
        """Sub-headings, notes, tables and figures in presentation order."""
        parts = []
        for n, (kind, value) in enumerate(self.blocks):
            if kind == "h3":
                parts.append(f'<h3 id="sec-{html.escape(self.key)}-{n}">'
                             f"{html.escape(value)}</h3>")
            elif kind == "md":
                parts.append(f'<div class="note">{markdown_to_html(value)}</div>')
            else:
                parts.append(value.to_html())
        return HTMLBlock("\n".join(parts))

    def warnings_table(self) -> HTMLBlock:
        """The warnings raised while computing this section (or a line saying none were)."""
        if not self.warnings:
            return HTMLBlock('<p class="no-warnings">No warnings were raised in this '
                             "section's computation.</p>")
        items = "".join(f"<li>{html.escape(w)}</li>" for w in self.warnings)
        return HTMLBlock(f'<div class="warnings"><p class="warnings-title">Warnings raised in '
                         f"this section's computation ({len(self.warnings)})</p>"
                         f"<ul>{items}</ul></div>")

    def to_html(self) -> str:
        """The whole section as HTML: heading, narrative, body and warnings, in that order."""
        return "\n".join((self.heading().text, markdown_to_html(self.narrative_md),
                          self.body().text, self.warnings_table().text))

    def presentation(self) -> dict:
        """The section as displayed, JSON-ready: what the PDF typesets.

        ``key``, ``title``, ``narrative_md``, ``warnings`` and ``blocks`` in presentation
        order, each ``{"kind": "h3" | "md", "text": ...}``, a table's
        :meth:`~hydrocalc.report.tables.Table.presentation` with ``"kind": "table"``, or
        ``{"kind": "figure", "name", "title", "caption", "file"}`` where ``file`` is the
        figure's PNG as :meth:`write` names it (``figures/<key>__<name>.png``).
        """
        blocks: list[dict] = []
        for kind, value in self.blocks:
            if kind in ("h3", "md"):
                blocks.append({"kind": kind, "text": value})
            elif kind == "table":
                blocks.append({"kind": "table", **value.presentation()})
            else:
                blocks.append({"kind": "figure", "name": value.name, "title": value.title,
                               "caption": value.caption,
                               "file": f"figures/{self.key}__{value.name}.png"})
        return {"schema": PRESENTATION_SCHEMA, "key": self.key, "title": self.title,
                "narrative_md": self.narrative_md, "blocks": blocks,
                "warnings": list(self.warnings)}

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        """Displayed once by a section notebook: the HTML and the section's data beside it.

        ``text/html`` is :meth:`to_html`; :data:`SECTION_MIME` holds ``document``
        (:meth:`to_dict` in its canonical form, as results.json stores it) and
        ``presentation`` (:meth:`presentation`), from which a report run writes
        results.json, the workbook and the PDF.
        """
        return {"text/plain": f"{self.title} ({self.key})",
                "text/html": self.to_html(),
                SECTION_MIME: {"document": json.loads(canonical_json(self.to_dict())),
                               "presentation": self.presentation()}}

    # -- machine-readable ----------------------------------------------------------
    def to_dict(self) -> dict:
        """JSON form: tables (full precision, hashed), values, warnings, parameters."""
        return to_jsonable({
            "schema": SCHEMA,
            "key": self.key,
            "title": self.title,
            "narrative_md": self.narrative_md,
            "parameters": self.parameters,
            "values": self.values,
            "tables": {name: t.to_dict() for name, t in self.tables.items()},
            "figures": sorted(f"figures/{self.key}__{name}.png" for name in self.figures),
            "warnings": list(self.warnings),
        })

    def write(self, out_dir: str | os.PathLike, *, document: dict | None = None
              ) -> pathlib.Path:
        """Write ``sections/<key>.json``, the tables as CSV and the figures as PNG.

        ``document`` is this section's :meth:`to_dict` already passed through
        :func:`~hydrocalc.report.tables.canonical_json` and parsed back (a caller that needs
        it too computes it once).
        """
        out = pathlib.Path(out_dir)
        for sub in ("sections", "tables", "figures"):
            (out / sub).mkdir(parents=True, exist_ok=True)
        for name, table in self.tables.items():
            (out / "tables" / f"{self.key}__{name}.csv").write_text(table.to_csv(),
                                                                      encoding="utf-8")
        for name, fig in self.figures.items():
            (out / "figures" / f"{self.key}__{name}.png").write_bytes(fig.png)
        path = out / "sections" / f"{self.key}.json"
        if document is None:
            document = json.loads(canonical_json(self.to_dict()))
        text = json.dumps(document, indent=1, ensure_ascii=False, sort_keys=True)
        path.write_text(text + "\n", encoding="utf-8")
        return path

    @staticmethod
    def frame(rows, columns) -> pd.DataFrame:
        """DataFrame helper for section code."""
        return pd.DataFrame(list(rows), columns=list(columns))
