r"""The report PDF, typeset with typst from the section results (no system libraries).

:func:`write_pdf` turns the report's :class:`~hydrocalc.report.result.SectionResult` objects
(the same tables and PNG figures the HTML shows) into typst markup and compiles it with the
``typst`` package (a self-contained binary wheel for Windows, macOS and Linux; fonts are the
ones embedded in it, system fonts are ignored so every machine lays out the same pages).

- a cover: the project facts, the verdict line and the compliance summary tables when the
  cover data carries them (``verdict_text``, ``summary_tables``), and the input files with
  their SHA-256;
- a table of contents; numbered section headings; "Page N of M" and the project name in
  the footer of every page;
- tables with unit-labelled headers and numbers at reporting precision (the decimals of
  :class:`~hydrocalc.report.tables.Table`, never scientific notation), header rows repeated
  when a table breaks across pages, the font size stepped down for wide tables;
- the narrative Markdown converted to typst.

**Escaping.** Every string that comes from the site file, the results or the narrative
reaches typst only as a typst *string literal* (``#"..."``, with ``\``, ``"`` and control
characters escaped by :func:`typst_string`), displayed as text: no user text is ever parsed
as typst markup or code. Markdown structure (emphasis, lists, tables) is rebuilt from
mistune's syntax tree with typst function calls.

**Attachments.** The site file, every input file and ``results.json`` are embedded as PDF
file attachments (typst ``pdf.attach``) under their report-folder names (``results.json``,
``inputs/...``), so ``hydrocalc verify REPORT.pdf`` can recompute the report from the PDF
alone.
"""

from __future__ import annotations

import datetime
import os
import pathlib
import re
import shutil
import tempfile
from collections.abc import Mapping, Sequence
from typing import cast

from hydrocalc.errors import InputError, ReportError
from hydrocalc.report.summary import VERDICT_COLOURS, verdict_class

__all__ = ["typst_string", "markdown_to_typst", "table_typst", "document_typst", "write_pdf",
           "pdf_attachments_of"]

_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}
_LONG_TOKEN = re.compile(r"\S{14,}")
_ZWSP = "\u200b"


def typst_string(text: object) -> str:
    r"""``text`` as a typst string literal (quotes, backslashes, control characters escaped).

    Examples
    --------
    >>> print(typst_string('Lot "7" \\ #set page(width: 1pt)'))
    "Lot \"7\" \\ #set page(width: 1pt)"
    >>> typst_string("a\nb\x00")
    '"a\\nb\\u{0}"'
    """
    return '"' + _NEEDS_ESCAPE.sub(_escape_char, str(text)) + '"'


# the characters typst_string escapes: found by one regular-expression scan (most strings
# have none), each replaced as _escape_char says
_NEEDS_ESCAPE = re.compile('[\\\\"\x00-\x1f\x7f\ud800-\udfff]')


def _escape_char(m: re.Match) -> str:
    ch = m.group(0)
    return _ESCAPES.get(ch) or f"\\u{{{ord(ch):x}}}"


def _t(text: object) -> str:
    """Markup that displays ``text`` verbatim."""
    return "#" + typst_string(text)


def _breakable(text: str) -> str:
    """Allow line breaks after ``_ / . -`` inside long tokens (identifiers, paths, URLs)."""
    return _LONG_TOKEN.sub(lambda m: re.sub(r"([_/.\-])", r"\1" + _ZWSP, m.group(0)), text)


# --------------------------------------------------------------------------------------
# Markdown -> typst
# --------------------------------------------------------------------------------------
def _inline(tokens: Sequence[Mapping] | None) -> str:
    out = []
    for tok in tokens or []:
        kind = tok.get("type")
        children = tok.get("children")
        if kind == "text":
            out.append(_t(tok.get("raw", "")))
        elif kind == "strong":
            out.append(f"#strong[{_inline(children)}]")
        elif kind == "emphasis":
            out.append(f"#emph[{_inline(children)}]")
        elif kind == "strikethrough":
            out.append(f"#strike[{_inline(children)}]")
        elif kind == "codespan":
            out.append(f"#raw({typst_string(tok.get('raw', ''))})")
        elif kind == "linebreak":
            out.append("#linebreak()")
        elif kind == "softbreak":
            out.append(_t(" "))
        elif kind == "link":
            out.append(f"#link({typst_string(tok.get('attrs', {}).get('url', ''))})"
                       f"[{_inline(children)}]")
        elif children is not None:
            out.append(_inline(children))
        else:
            out.append(_t(tok.get("raw", "")))
    return "".join(out)


def _blocks(tokens: Sequence[Mapping] | None) -> str:
    out = []
    for tok in tokens or []:
        kind = tok.get("type")
        children = tok.get("children")
        if kind in ("paragraph", "block_text"):
            out.append(f"#par[{_inline(children)}]\n")
        elif kind == "heading":
            out.append(f"#block(above: 0.9em, below: 0.5em)[#strong[{_inline(children)}]]\n")
        elif kind == "list":
            fn = "enum" if tok.get("attrs", {}).get("ordered") else "list"
            items = ", ".join(f"[{_blocks(item.get('children'))}]" for item in children or [])
            out.append(f"#{fn}({items})\n")
        elif kind == "block_code":
            out.append(f"#raw({typst_string(tok.get('raw', ''))}, block: true)\n")
        elif kind == "block_quote":
            out.append(f"#quote(block: true)[{_blocks(children)}]\n")
        elif kind == "thematic_break":
            out.append("#line(length: 100%, stroke: 0.5pt + gray)\n")
        elif kind == "table":
            out.append(_md_table(tok))
        elif kind == "blank_line":
            continue
        elif children is not None:
            out.append(f"#par[{_inline(children)}]\n")
        elif tok.get("raw"):
            out.append(f"#par[{_t(tok['raw'])}]\n")
    return "".join(out)


def _md_table(tok: Mapping) -> str:
    head, rows = [], []
    for part in tok.get("children", []):
        if part.get("type") == "table_head":
            head = [f"[#strong[{_inline(c.get('children'))}]]" for c in part["children"]]
        elif part.get("type") == "table_body":
            for row in part["children"]:
                rows.append([f"[{_inline(c.get('children'))}]" for c in row["children"]])
    n = max([len(head)] + [len(r) for r in rows] + [1])
    cells = ", ".join(head + [c for r in rows for c in r])
    return (f"#text(size: 8pt)[#table(columns: {n}, inset: 3pt, stroke: 0.4pt + gray, "
            f"{cells})]\n")


def markdown_to_typst(text: str) -> str:
    r"""Typst markup for Markdown ``text`` (every text run a typst string literal).

    Examples
    --------
    >>> markdown_to_typst("**Warning.** Lot #7 is *wet*")
    '#par[#strong[#"Warning."]#" Lot #7 is "#emph[#"wet"]]\n'
    """
    import mistune

    if not text or not str(text).strip():
        return ""
    parse = mistune.create_markdown(renderer=None, plugins=["table", "strikethrough"])
    return _blocks(cast(list, parse(str(text))))  # renderer=None: the token list


# --------------------------------------------------------------------------------------
# tables and figures
# --------------------------------------------------------------------------------------
def _font_size(ncols: int) -> str:
    if ncols <= 5:
        return "8.5pt"
    if ncols <= 8:
        return "7.5pt"
    if ncols <= 11:
        return "6.8pt"
    return "6pt"


def _weights(labels: Sequence[str], rows: Sequence[Sequence[str]],
             numeric: Sequence[bool]) -> list[int]:
    """Return relative column widths from the content.

    Relative column widths from the content: a number column is as wide as its widest
    number (numbers never wrap), a text column as its longer texts (capped, they wrap);
    neither narrower than the longest word of its header.
    """
    out = []
    for j, label in enumerate(labels):
        head = max((len(w) for w in str(label).split()), default=1)
        lengths = sorted(len(r[j]) for r in rows) or [1]
        if numeric[j]:
            body = lengths[-1]
        else:
            body = min(lengths[int(0.9 * (len(lengths) - 1))], 36)
        out.append(max(head + 1, body, 3) + 2)  # + bold header, cell padding
    return out


def table_typst(table) -> str:
    """Return a table as typst markup.

    ``table`` is a :class:`~hydrocalc.report.tables.Table` or its
    :meth:`~hydrocalc.report.tables.Table.presentation` (numbers right-aligned at the table's
    reporting precision, header repeated on every page the table spans).
    """
    shown = table if isinstance(table, Mapping) else table.presentation()
    labels = list(shown["labels"])
    numeric = list(shown["numeric"])
    formatted = [list(row) for row in shown["cells"]]
    widths = ", ".join(f"{w}fr" for w in _weights(labels, formatted, numeric)) or "1fr"
    align = ", ".join("right" if num else "left" for num in numeric) or "left"
    header = ", ".join(f"[#strong[{_t(_breakable(label))}]]" for label in labels)
    cells = []
    if not formatted:
        cells.append(f"table.cell(colspan: {max(len(labels), 1)})[#emph[{_t('(none)')}]]")
    for row in formatted:
        for num, text in zip(numeric, row, strict=False):
            if not num:
                text = _breakable(text)
            if text.strip().upper() in ("FAILS", "FAIL"):
                cells.append(f"text(fill: rgb(\"#b00020\"), weight: \"bold\", "
                             f"{typst_string(text)})")
            else:
                cells.append(typst_string(text))  # a string cell is displayed as text
    parts = ["#block(breakable: true, width: 100%, above: 1em, below: 1em)["]
    if shown.get("title"):
        parts.append(f"#block(below: 0.4em, breakable: false)[#text(weight: \"bold\", "
                     f"size: 9pt)[{_t(shown['title'])}]]")
    parts.append(
        f"#text(size: {_font_size(len(labels))})[#table(columns: ({widths},), "
        f"align: ({align},), inset: (x: 3pt, y: 2.5pt), "
        "stroke: (x, y) => (top: if y <= 1 { 0.6pt } else { 0.3pt + luma(180) }, "
        "bottom: 0.6pt), fill: (x, y) => if y == 0 { luma(235) }, "
        f"table.header({header}), {', '.join(cells)})]")
    if shown.get("caption"):
        parts.append(f"#block(above: 0.3em)[#text(size: 7.5pt, style: \"italic\")"
                     f"[{_t(shown['caption'])}]]")
    parts.append("]\n")
    return "".join(parts)


def _figure_typst(fig: Mapping, file_name: str) -> str:
    caption = _t(fig["title"])
    if fig.get("caption"):
        caption += f"#text(size: 8pt)[{_t(' ' + fig['caption'])}]"
    return (f"#figure(image({typst_string(file_name)}, width: 100%), "
            f"caption: [{caption}])\n")


# --------------------------------------------------------------------------------------
# the document
# --------------------------------------------------------------------------------------
_PREAMBLE = """#set document(title: {title}, author: "hydrocalc", description: {description},
  keywords: ({keywords}))
#set text(font: "Libertinus Serif", size: 10pt, lang: "en")
#set par(justify: false, leading: 0.55em, spacing: 0.8em)
#set heading(numbering: "1.1")
#show heading.where(level: 1): it => {{ pagebreak(weak: true); block(below: 0.9em, text(size: 16pt, it)) }}
#show heading.where(level: 2): it => block(above: 1.2em, below: 0.6em, text(size: 12pt, it))
#show figure: set block(breakable: false, above: 1em, below: 1em)
#show figure.caption: set text(size: 8.5pt)
#set page(paper: "us-letter", margin: (x: 0.75in, top: 0.8in, bottom: 0.8in),
  header: context {{ if counter(page).get().first() > 1 [
    #set text(size: 8pt, fill: luma(90))
    {project} #h(1fr) {kind}
    #v(-0.6em) #line(length: 100%, stroke: 0.4pt + luma(160))
  ] }},
  footer: context [
    #set text(size: 8pt, fill: luma(90))
    {footer} #h(1fr) Page #counter(page).display() of #counter(page).final().first()
  ])
"""  # noqa: E501 (typst markup: the level-1 heading rule must stay one template line)


def _cover(meta: Mapping) -> str:
    parts = [f"#block(above: 1.2in)[#text(size: 11pt, fill: luma(80))"
             f"[{_t(meta.get('kind', ''))}]]",
             f"#block(below: 1em)[#text(size: 22pt, weight: \"bold\")"
             f"[{_t(meta.get('project_name', ''))}]]"]
    verdict = meta.get("verdict_text")
    if verdict:
        cls = verdict_class(meta.get("verdict"), bool(meta.get("verdict_confirm")))
        color = f"rgb(\"{VERDICT_COLOURS[cls]}\")"
        parts.append(f"#block(width: 100%, inset: 8pt, radius: 3pt, stroke: 1.2pt + {color})"
                     f"[#text(size: 14pt, weight: \"bold\", fill: {color})[{_t(verdict)}]]")
    rows = [(k, v) for k, v in meta.get("cover_rows", []) if v not in (None, "")]
    if rows:
        cells = ", ".join(f"[#strong[{_t(k)}]], [{_t(_breakable(str(v)))}]" for k, v in rows)
        parts.append(f"#block(above: 1em)[#text(size: 9.5pt)[#table(columns: (auto, 1fr), "
                     f"stroke: none, inset: (x: 4pt, y: 3pt), {cells})]]")
    for table in meta.get("summary_tables") or []:
        parts.append(table_typst(table))
    inputs = list(meta.get("inputs", []))
    if inputs:
        cells = ", ".join(f"[{_t(_breakable(str(p)))}], [#text(font: \"DejaVu Sans Mono\", "
                          f"size: 6.5pt)[{_t(h)}]]" for p, h in inputs)
        parts.append(f"#block(above: 1em)[#text(weight: \"bold\", size: 9pt)"
                     f"[{_t('Input files (SHA-256)')}]#text(size: 8pt)[#table(columns: "
                     f"(1fr, auto), stroke: 0.3pt + luma(180), inset: 3pt, {cells})]]")
    if meta.get("note"):
        parts.append(f"#block(above: 1em)[#text(size: 8.5pt, style: \"italic\")"
                     f"[{_t(meta['note'])}]]")
    return "\n".join(parts) + "\n#pagebreak()\n"


def _warnings(warned: Sequence[str]) -> str:
    if not warned:
        return (f"#block(above: 1em)[#text(size: 8.5pt, fill: luma(90))"
                f"[{_t('No warnings were raised in this section' + chr(39) + 's computation.')}]"
                "]\n")
    items = ", ".join(f"[{_t(_breakable(w))}]" for w in warned)
    title = f"Warnings raised in this section's computation ({len(warned)})"
    return (f"#block(above: 1em, width: 100%, inset: 6pt, stroke: 0.6pt + rgb(\"#b26a00\"))"
            f"[#text(weight: \"bold\", size: 9pt)[{_t(title)}]#text(size: 8pt)"
            f"[#list({items})]]\n")


def document_typst(results: Sequence, meta: Mapping, figure_files: Mapping[tuple, str],
                   attachments: Mapping[str, str] | None = None) -> str:
    """The whole report as typst markup.

    Parameters
    ----------
    results : sequence of mapping
        Each section's :meth:`~hydrocalc.report.result.SectionResult.presentation`, in
        report order (a section of the engineer's own: ``warnings`` None, and blocks of kind
        ``text`` for a paragraph and ``pre`` for preformatted text).
    meta : mapping
        Cover data (:func:`hydrocalc.report.sections.cover_meta`).
    figure_files : mapping
        ``(section key, figure name)`` -> image file name (relative to the typst root).
    attachments : mapping, optional
        Attachment name -> file name (relative to the typst root) to embed.
    """
    version = str(meta.get("hydrocalc_version", "") or "")
    made_by = f"hydrocalc {version}".strip()
    out = [_PREAMBLE.format(title=typst_string(meta.get("project_name", "") or "report"),
                            description=typst_string(f"{meta.get('kind', '') or 'report'}, "
                                                     f"made by {made_by}"),
                            keywords=", ".join(typst_string(k) for k in (
                                made_by, "SWPPP", "stormwater")),
                            project=_t(meta.get("project_name", "")),
                            kind=_t(meta.get("kind", "")),
                            footer=_t(meta.get("project_name", "")))]
    for name, file_name in (attachments or {}).items():
        mime = {"json": "application/json", "csv": "text/csv",
                "toml": "application/toml"}.get(name.rsplit(".", 1)[-1].lower(),
                                                "application/octet-stream")
        out.append(f"#pdf.attach({typst_string(name)}, read({typst_string(file_name)}, "
                   f"encoding: none), mime-type: {typst_string(mime)}, relationship: "
                   f"\"source\", description: {typst_string('hydrocalc report ' + name)})\n")
    out.append(_cover(meta))
    out.append("#outline(title: [Contents], depth: 2, indent: auto)\n#pagebreak()\n")
    for res in results:
        out.append(f"= {_t(res['title'])} <sec-{res['key']}>\n")
        out.append(markdown_to_typst(res.get("narrative_md", "")))
        for block in res["blocks"]:
            kind = block["kind"]
            if kind == "h3":
                out.append(f"== {_t(block['text'])}\n")
            elif kind == "md":
                out.append(f"#block(inset: (left: 6pt), stroke: (left: 1.5pt + luma(170)))"
                           f"[{markdown_to_typst(block['text'])}]\n")
            elif kind == "text":
                out.append(f"#par[{_t(block['text'])}]\n")
            elif kind == "pre":
                out.append(f"#block(inset: 4pt, fill: luma(245), width: 100%)[#text(font: "
                           f"\"DejaVu Sans Mono\", size: 7.5pt)[{_t(block['text'])}]]\n")
            elif kind == "table":
                out.append(table_typst(block))
            elif kind == "figure":
                fig_file = figure_files.get((res["key"], block["name"]))
                if fig_file:
                    out.append(_figure_typst(block, fig_file))
        if res.get("warnings") is not None:
            out.append(_warnings(res["warnings"]))
    return "".join(out)


def write_pdf(results: Sequence, meta: Mapping, path: str | os.PathLike, *,
              attachments: Mapping[str, bytes] | None = None,
              keep_source: bool = False, timestamp: datetime.datetime | None = None,
              figure_root: str | os.PathLike | None = None) -> int:
    """Typeset the report PDF at ``path``; return its page count.

    Parameters
    ----------
    results : sequence of SectionResult or mapping
        The report's sections, in order: :class:`~hydrocalc.report.result.SectionResult`
        objects (figures as PNG bytes) or their
        :meth:`~hydrocalc.report.result.SectionResult.presentation` (figures read from
        ``figure_root``), as a report run reads them from the executed notebooks.
    meta : mapping
        Cover data (:func:`hydrocalc.report.sections.cover_meta`).
    path : path
        The PDF to write (written to a temporary name, then moved into place).
    attachments : mapping, optional
        Attachment name (``results.json``, ``inputs/site.toml`` ...) -> file bytes.
    keep_source : bool, default False
        Also write the typst source beside the PDF (``report.typ``, for debugging layout).
    timestamp : datetime, optional
        The PDF's creation date (timezone-aware); the document date of a report
        (:func:`hydrocalc.report.reproducible.document_datetime`) makes the PDF
        byte-reproducible. Default: typst's (the current time).
    figure_root : path, optional
        The folder a presentation's figure ``file`` names are relative to (the report
        folder).

    Raises
    ------
    ReportError
        If typst cannot compile the document, or a figure file is missing.
    """
    import typst

    path = pathlib.Path(path)
    shown, pngs = _presented(results, figure_root)
    work = pathlib.Path(tempfile.mkdtemp(prefix="hydrocalc-typst-"))
    try:
        figure_files: dict[tuple, str] = {}
        for where, png in pngs.items():
            file_name = f"fig/{len(figure_files):03d}.png"
            (work / "fig").mkdir(exist_ok=True)
            (work / file_name).write_bytes(png)
            figure_files[where] = file_name
        attach_files = {}
        for n, (name, data) in enumerate((attachments or {}).items()):
            file_name = f"att/{n:03d}.bin"
            (work / "att").mkdir(exist_ok=True)
            (work / file_name).write_bytes(data)
            attach_files[name] = file_name
        source = document_typst(shown, meta, figure_files, attach_files)
        (work / "report.typ").write_text(source, encoding="utf-8")
        if keep_source:
            path.with_suffix(".typ").write_text(source, encoding="utf-8")
        tmp = path.with_name(f".{path.name}.tmp")
        try:
            typst.compile(str(work / "report.typ"), output=str(tmp), root=str(work),
                          ignore_system_fonts=True, timestamp=timestamp)
        except Exception as exc:  # typst.TypstError and friends
            raise ReportError(f"the PDF could not be typeset: {str(exc).splitlines()[0]}"
                              ) from None
        os.replace(tmp, path)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return _page_count(path)


def _presented(results: Sequence, figure_root: str | os.PathLike | None
               ) -> tuple[list[Mapping], dict[tuple, bytes]]:
    """Presentations of ``results`` and their figures' PNG bytes by (section, figure)."""
    shown: list[Mapping] = []
    pngs: dict[tuple, bytes] = {}
    for res in results:
        if isinstance(res, Mapping):
            shown.append(res)
            for block in res["blocks"]:
                if block["kind"] == "figure":
                    file = pathlib.Path(figure_root or ".") / block["file"]
                    try:
                        pngs[(res["key"], block["name"])] = file.read_bytes()
                    except OSError as exc:
                        raise ReportError(f"figure {block['file']} of section "
                                          f"'{res['key']}' must exist; got {exc.strerror}"
                                          ) from None
        else:
            shown.append(res.presentation())
            for name, fig in res.figures.items():
                if fig.png:
                    pngs[(res.key, name)] = fig.png
    return shown, pngs


def _page_count(path: pathlib.Path) -> int:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(path))
    try:
        return len(doc)
    finally:
        doc.close()


def pdf_attachments_of(pdf_path: str | os.PathLike) -> dict[str, bytes]:
    """The embedded files of a PDF (name -> bytes), read as data (nothing is executed).

    Raises
    ------
    InputError
        If the file is not a readable PDF.
    """
    import pypdfium2 as pdfium


    try:
        doc = pdfium.PdfDocument(str(pdf_path))
    except Exception as exc:  # pdfium raises PdfiumError on anything unreadable
        raise InputError(f"REPORT must be a PDF written by hydrocalc report; got "
                         f"{str(pdf_path)!r}, which cannot be read as a PDF ({exc})") from None
    out: dict[str, bytes] = {}
    try:
        for i in range(doc.count_attachments()):
            att = doc.get_attachment(i)
            out[str(att.get_name())] = bytes(att.get_data())
    finally:
        doc.close()
    return out
