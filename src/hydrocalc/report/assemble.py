"""Assemble executed section notebooks into one self-contained, print-ready HTML report.

The report's content is the *output* of each notebook's code cells, in order: the HTML
(headings, tables, figures with their PNG inlined as base64) and Markdown (narrative) that
the section results display. Code, the parameters cells and the notebooks' own Markdown
cells (which document the notebook) are left out. The page carries its own CSS, with
``@page`` rules for print (Letter size, the project name and the section title at the top
of every page, "Page N of M" at the bottom) and a table of contents with page numbers in
print; it references no external file, font or script.
"""

from __future__ import annotations

import functools
import html
import os
import re
from collections.abc import Mapping, Sequence
from importlib.resources import files

from hydrocalc.report.summary import verdict_class

__all__ = ["markdown_to_html", "notebook_body", "assemble_html", "css_string", "report_css"]

_SKIP_TAGS = {"parameters", "injected-parameters", "remove_cell", "hide-output"}


def markdown_to_html(text: str) -> str:
    """Render Markdown to HTML with raw HTML escaped (nothing in the text becomes a tag)."""
    return _markdown()(text)


@functools.lru_cache(maxsize=1)
def _markdown():
    """The Markdown renderer.

    Made once per process; rendering keeps no state between calls.
    """
    import mistune

    return mistune.create_markdown(escape=True, plugins=["table", "strikethrough"])


def _output_html(output) -> str:
    kind = output.get("output_type")
    if kind in ("display_data", "execute_result"):
        data = output.get("data", {})
        if "text/html" in data:
            value = data["text/html"]
            return value if isinstance(value, str) else "".join(value)
        if "text/markdown" in data:
            value = data["text/markdown"]
            return markdown_to_html(value if isinstance(value, str) else "".join(value))
        if "image/png" in data:
            return (f'<figure class="hc-figure"><img alt="figure" '
                    f'src="data:image/png;base64,{data["image/png"].strip()}"/></figure>')
        if "text/plain" in data:
            value = data["text/plain"]
            value = value if isinstance(value, str) else "".join(value)
            return f'<pre class="plain">{html.escape(value)}</pre>'
        return ""
    if kind == "stream" and output.get("name") == "stdout":
        text = output.get("text", "")
        text = text if isinstance(text, str) else "".join(text)
        return f'<pre class="stream">{html.escape(text)}</pre>' if text.strip() else ""
    return ""  # stderr, errors: the section results carry warnings; errors abort the report


def notebook_body(path: str | os.PathLike) -> str:
    """HTML of the outputs of an executed notebook's code cells (no code, no inputs)."""
    import nbformat  # imported here: a kernel presenting sections never needs it (slow import)

    nb = nbformat.read(os.fspath(path), as_version=4)
    parts = []
    for cell in nb.cells:
        if cell.get("cell_type") != "code":
            continue
        tags = set(cell.get("metadata", {}).get("tags", []))
        if tags & _SKIP_TAGS:
            continue
        for output in cell.get("outputs", []):
            chunk = _output_html(output)
            if chunk:
                parts.append(chunk)
    return "\n".join(parts)


def css_string(text: str) -> str:
    r"""Quote ``text`` as a CSS string literal that cannot close the string or the style tag.

    Examples
    --------
    >>> print(css_string('Lot "7" </style>'))
    "Lot \"7\" \3C /style\3E "
    """
    out = []
    for ch in str(text):
        if ch in '"\\':
            out.append("\\" + ch)
        elif ch in "<>&" or ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\{ord(ch):X} ")
        else:
            out.append(ch)
    return '"' + "".join(out) + '"'


def report_css(project_name: str, footer: str) -> str:
    """The report stylesheet, with the project name and footer in the page margins."""
    template = files("hydrocalc.report").joinpath("templates/report.css").read_text("utf-8")
    return (template.replace("/*PROJECT_NAME*/", css_string(project_name))
            .replace("/*FOOTER*/", css_string(footer)))


_HEADING = re.compile(r'<h([23])( class="section")? id="([^"]+)">(.*?)</h\1>', re.S)


def _number_headings(body: str) -> tuple[str, list[tuple[int, str, str, str]]]:
    """Number h2 (1, 2, ...) and h3 (1.1, ...) headings; return the body and TOC entries."""
    toc: list[tuple[int, str, str, str]] = []
    counters = [0, 0]

    def repl(match):
        level = int(match.group(1))
        if level == 2:
            counters[0] += 1
            counters[1] = 0
            number = f"{counters[0]}"
        else:
            counters[1] += 1
            number = f"{counters[0]}.{counters[1]}"
        anchor, text = match.group(3), match.group(4)
        toc.append((level, anchor, number, text))
        cls = match.group(2) or ""
        return (f'<h{level}{cls} id="{anchor}"><span class="secno">{number}</span> '
                f"{text}</h{level}>")

    return _HEADING.sub(repl, body), toc


def _toc_html(toc: Sequence[tuple[int, str, str, str]]) -> str:
    items = []
    for level, anchor, number, text in toc:
        items.append(f'<li class="toc-{level}"><a href="#{anchor}"><span class="secno">'
                     f"{number}</span> {text}</a></li>")
    return ('<nav class="toc" id="contents"><h2 class="toc-title">Contents</h2>'
            f'<ul>{"".join(items)}</ul></nav>')


def _cover_html(meta: Mapping) -> str:
    rows = "".join(
        f"<tr><th>{html.escape(str(k))}</th><td>{html.escape(str(v))}</td></tr>"
        for k, v in meta.get("cover_rows", []) if v not in (None, ""))
    inputs = "".join(
        f"<tr><td>{html.escape(str(p))}</td><td class=\"hash\">{html.escape(str(h))}</td></tr>"
        for p, h in meta.get("inputs", []))
    inputs_table = (f'<table class="hc-table inputs"><caption>Input files (SHA-256)</caption>'
                    f"<thead><tr><th>File</th><th>SHA-256</th></tr></thead>"
                    f"<tbody>{inputs}</tbody></table>") if inputs else ""
    verdict = ""
    if meta.get("verdict_text"):
        cls = verdict_class(meta.get("verdict"), bool(meta.get("verdict_confirm")))
        verdict = (f'<p class="verdict {cls}" id="verdict">'
                   f'{html.escape(str(meta["verdict_text"]))}</p>')
    summary = "".join(t.to_html() for t in meta.get("summary_tables") or [])
    return (f'<header class="cover"><p class="doc-kind">{html.escape(meta.get("kind", ""))}</p>'
            f'<h1 class="title">{html.escape(meta.get("project_name", ""))}</h1>{verdict}'
            f'<table class="cover-facts">{rows}</table>{summary}{inputs_table}'
            f'<p class="cover-note">{html.escape(meta.get("note", ""))}</p></header>')


def assemble_html(notebooks: Sequence[str | os.PathLike], meta: Mapping,
                  headings: Mapping[str, str] | None = None) -> str:
    """One self-contained HTML report from executed section notebooks, in order.

    Parameters
    ----------
    notebooks : sequence of path
        Executed notebooks, in report order.
    meta : mapping
        ``project_name``, ``kind`` (document kind line), ``cover_rows`` (label, value pairs),
        ``inputs`` ((file, sha256) pairs), ``note`` (cover footnote), ``footer`` (page footer).
    headings : mapping, optional
        Notebook path (as given in ``notebooks``) -> the ``<h2 class="section">`` placed
        before its outputs: the heading of a section of the engineer's own, whose notebook
        displays none (:func:`hydrocalc.report.custom.custom_heading`).
    """
    headings = headings or {}
    bodies = [f'<section class="report-section">{headings.get(str(p), "")}'
              f"{notebook_body(p)}</section>" for p in notebooks]
    body, toc = _number_headings("\n".join(bodies))
    css = report_css(meta.get("project_name", ""), meta.get("footer", ""))
    title = html.escape(f'{meta.get("project_name", "")} - {meta.get("kind", "")}')
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8"/>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
            f'<meta name="generator" content="hydrocalc"/><title>{title}</title>'
            f"<style>\n{css}\n</style></head><body>\n"
            f"{_cover_html(meta)}\n{_toc_html(toc)}\n<main>\n{body}\n</main>\n"
            "</body></html>\n")
