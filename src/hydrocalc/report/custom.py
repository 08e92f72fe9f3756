"""Sections of the engineer's own: notebooks listed in ``[report] extra_sections``.

A report executes each listed notebook with Papermill after its standard sections, with the
same parameters injected (``site_file``, ``out_dir``; the notebook declares those it uses in
a cell tagged ``parameters``). :func:`custom_sections` checks them before anything runs;
:func:`custom_presentation` turns an executed notebook's displayed outputs into the
section's presentation for the PDF (tables, figures, text); the HTML shows the same outputs
as they are (:func:`hydrocalc.report.assemble.notebook_body`), under :func:`custom_heading`.

These sections are the engineer's own computation: ``hydrocalc verify`` does not recompute
them. They are reproduced by executing their notebook again, from the report folder.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import html
import os
import pathlib
import re
from collections.abc import Mapping, Sequence
from html.parser import HTMLParser

from hydrocalc.errors import ReportError
from hydrocalc.report.result import PRESENTATION_SCHEMA

__all__ = ["CustomSection", "custom_sections", "custom_heading", "custom_presentation",
           "html_tables", "CUSTOM_PARAMETERS"]

#: The parameters a custom section notebook receives (it declares those it uses).
CUSTOM_PARAMETERS = ("site_file", "out_dir")


@dataclasses.dataclass(frozen=True)
class CustomSection:
    """A notebook of the engineer's own, listed in ``[report] extra_sections``.

    Attributes
    ----------
    key : str
        ``custom_<file stem>`` (names its executed copy, its figures and its anchor).
    title : str
        The notebook's first Markdown heading (its file name when it has none).
    notebook : str
        The path as listed, relative to the site file's folder.
    source : pathlib.Path
        The notebook file.
    sha256 : str
        SHA-256 of the notebook file.
    """

    key: str
    title: str
    notebook: str
    source: pathlib.Path
    sha256: str

    def to_dict(self, executed: str) -> dict:
        """The section as results.json lists it (``executed``: its executed copy)."""
        return {"key": self.key, "title": self.title, "notebook": self.notebook,
                "sha256": self.sha256, "executed_notebook": executed,
                "reproduced_by": "executing the notebook again from the report folder; "
                                 "hydrocalc verify does not recompute it"}


_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.+?)\s*#*\s*$", re.M)


def _title(nb, fallback: str) -> str:
    for cell in nb.cells:
        if cell.get("cell_type") == "markdown":
            m = _HEADING.search(cell.get("source", ""))
            if m:
                return m.group(1).strip()
    return fallback


def _key(stem: str, taken: set[str]) -> str:
    slug = re.sub(r"[^a-z0-9]+", "_", stem.lower()).strip("_") or "section"
    key, n = f"custom_{slug}", 2
    while key in taken:
        key, n = f"custom_{slug}_{n}", n + 1
    taken.add(key)
    return key


def custom_sections(notebooks: Sequence[str], base_dir: pathlib.Path) -> list[CustomSection]:
    """Check the engineer's notebooks (as listed, relative to ``base_dir``) before a run.

    The site file's loader has already confined each path to the site's folder and checked
    that it exists.

    Raises
    ------
    ReportError
        One line naming the notebook: unreadable, or without a cell tagged ``parameters``.
    """
    import nbformat

    out: list[CustomSection] = []
    taken: set[str] = set()
    for rel in notebooks:
        path = base_dir / rel
        field = f"[report] extra_sections notebook {rel}"
        try:
            data = path.read_bytes()
            nb = nbformat.reads(data.decode("utf-8"), as_version=4)
            nbformat.validate(nb)
        except Exception as exc:  # noqa: BLE001 - nbformat raises many kinds for a bad file
            reason = " ".join(str(exc).split())[:160] or type(exc).__name__
            raise ReportError(f"{field} must be a readable Jupyter notebook; got {reason}"
                              ) from None
        if not any("parameters" in (cell.get("metadata", {}).get("tags") or [])
                   for cell in nb.cells if cell.get("cell_type") == "code"):
            raise ReportError(
                f"{field} must have a code cell tagged 'parameters' declaring the ones it "
                f"uses of {', '.join(CUSTOM_PARAMETERS)}; got none. Add the tag in "
                "JupyterLab (Property Inspector > Cell Tags).")
        stem = pathlib.PurePosixPath(rel).stem
        out.append(CustomSection(key=_key(stem, taken), title=_title(nb, stem),
                                 notebook=rel, source=path,
                                 sha256=hashlib.sha256(data).hexdigest()))
    return out


def custom_heading(section: CustomSection) -> str:
    """The section's ``<h2>`` (numbered and listed in the table of contents like the others)."""
    return (f'<h2 class="section" id="sec-{html.escape(section.key)}">'
            f"{html.escape(section.title)}</h2>")


# --------------------------------------------------------------------------------------
# displayed outputs -> presentation
# --------------------------------------------------------------------------------------
class _TableParser(HTMLParser):
    """The ``<table>`` elements of an HTML fragment as header rows and body rows of text."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[dict] = []
        self.text: list[str] = []
        self._depth = 0
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._in_head = False
        self._has_td = False
        self._hidden = 0  # inside <style> or <script>: not text

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self._hidden += 1
        elif tag == "table":
            self._depth += 1
            if self._depth == 1:
                self.tables.append({"head": [], "body": [], "caption": ""})
        elif self._depth == 1 and tag == "thead":
            self._in_head = True
        elif self._depth == 1 and tag == "tr":
            self._row, self._has_td = [], False
        elif self._depth == 1 and tag in ("td", "th") and self._row is not None:
            self._cell = []
            self._has_td = self._has_td or tag == "td"

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self._hidden = max(0, self._hidden - 1)
        elif tag == "table":
            self._depth = max(0, self._depth - 1)
        elif self._depth == 1 and tag == "thead":
            self._in_head = False
        elif self._depth == 1 and tag in ("td", "th") and self._cell is not None:
            assert self._row is not None
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif self._depth == 1 and tag == "tr" and self._row is not None:
            table = self.tables[-1]
            head = self._in_head or (not self._has_td and not table["body"])
            (table["head"] if head else table["body"]).append(self._row)
            self._row = None

    def handle_data(self, data):
        if self._hidden:
            return
        if self._cell is not None:
            self._cell.append(data)
        elif self._depth == 0:
            self.text.append(data)


_NUMBER = re.compile(r"^[-+]?(\d{1,3}(,\d{3})+|\d+)?(\.\d+)?([eE][-+]?\d+)?%?$")


def _is_number(text: str) -> bool:
    return bool(text) and bool(_NUMBER.match(text)) and any(c.isdigit() for c in text)


def html_tables(fragment: str) -> tuple[list[dict], str]:
    """The tables of an HTML fragment as presentations, and the text outside them.

    Each table: ``labels`` (header rows joined per column), ``numeric`` (columns whose every
    non-empty cell is a number) and ``cells`` (text), as
    :meth:`hydrocalc.report.tables.Table.presentation` gives them. A pandas DataFrame's HTML
    (header rows in ``<thead>``, the index as the first column) reads as shown.
    """
    parser = _TableParser()
    parser.feed(fragment)
    parser.close()
    out: list[dict] = []
    for t in parser.tables:
        width = max((len(r) for r in t["head"] + t["body"]), default=0)
        if width == 0:
            continue
        head = [r + [""] * (width - len(r)) for r in t["head"]]
        body = [r + [""] * (width - len(r)) for r in t["body"]]
        labels = [" ".join(h[j] for h in head if h[j]).strip() for j in range(width)]
        numeric = [all(_is_number(r[j]) for r in body if r[j]) and any(r[j] for r in body)
                   for j in range(width)]
        out.append({"name": f"table_{len(out) + 1}", "title": "", "caption": "",
                    "labels": labels, "numeric": numeric, "cells": body})
    return out, " ".join("".join(parser.text).split())


def _text(value) -> str:
    return value if isinstance(value, str) else "".join(value)


def _output_blocks(output: Mapping, key: str, figures: list[bytes], title: str
                   ) -> list[dict]:
    """Presentation blocks of one displayed output (figures collected in ``figures``)."""
    kind = output.get("output_type")
    if kind == "stream":
        text = _text(output.get("text", ""))
        return [{"kind": "pre", "text": text.rstrip()}] \
            if output.get("name") == "stdout" and text.strip() else []
    if kind not in ("display_data", "execute_result"):
        return []
    data = output.get("data", {})
    if "image/png" in data:
        figures.append(base64.b64decode(_text(data["image/png"])))
        n = len(figures)
        return [{"kind": "figure", "name": f"figure_{n}", "title": f"{title}, figure {n}",
                 "caption": "", "file": f"figures/{key}__figure_{n}.png"}]
    if "text/html" in data:
        tables, text = html_tables(_text(data["text/html"]))
        blocks: list[dict] = [{"kind": "text", "text": text}] if text else []
        return blocks + [{"kind": "table", **t} for t in tables]
    if "text/markdown" in data:
        return [{"kind": "md", "text": _text(data["text/markdown"])}]
    if "text/plain" in data:
        return [{"kind": "pre", "text": _text(data["text/plain"]).rstrip()}]
    return []


def custom_presentation(executed: str | os.PathLike, section: CustomSection,
                        folder: pathlib.Path) -> dict:
    """The presentation of an executed custom section; its PNG figures written in ``folder``.

    Every output of its code cells (except the ``parameters`` and injected cells), in
    order: HTML tables as tables, PNG images as figures (``figures/<key>__figure_<n>.png``),
    Markdown as text, other HTML as its text, plain text and printed output as
    preformatted text.
    """
    import nbformat

    nb = nbformat.read(os.fspath(executed), as_version=4)
    blocks: list[dict] = []
    figures: list[bytes] = []
    for cell in nb.cells:
        tags = set(cell.get("metadata", {}).get("tags") or [])
        if cell.get("cell_type") != "code" or tags & {"parameters", "injected-parameters"}:
            continue
        for output in cell.get("outputs", []):
            blocks.extend(_output_blocks(output, section.key, figures, section.title))
    if figures:
        (folder / "figures").mkdir(parents=True, exist_ok=True)
        for n, png in enumerate(figures, start=1):
            (folder / "figures" / f"{section.key}__figure_{n}.png").write_bytes(png)
    return {"schema": PRESENTATION_SCHEMA, "key": section.key, "title": section.title,
            "narrative_md": "", "blocks": blocks, "warnings": None,
            "notebook": section.notebook}
