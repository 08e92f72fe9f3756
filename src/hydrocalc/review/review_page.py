"""The review page of ``hydrocalc review --html``, styled as the SWPPP report.

:func:`review_html` lays out a :class:`hydrocalc.review.Review` with the report's stylesheet
(:func:`hydrocalc.report.assemble.report_css`) and tables (:class:`hydrocalc.report.tables.
Table`): the verdict first, in a box coloured as the report's cover verdict (green: every
value agrees; amber: differences all explained, or an incomplete import; red: unexplained
differences), then the findings as numbered sentences a reviewer can paste into a comment
letter (a "Copy findings" button copies them as plain text), then every compared value.
"""

from __future__ import annotations

import html
import pathlib
from collections.abc import Sequence

import pandas as pd

from hydrocalc.report.assemble import report_css
from hydrocalc.report.tables import Table

__all__ = ["QUANTITY_WORDS", "finding_sentences", "review_html"]

#: Compared quantities as a comment letter says them.
QUANTITY_WORDS = {"peak_cfs": "peak flow", "time_of_peak_hr": "time of peak",
                  "volume_acft": "runoff volume", "runoff_in": "runoff depth",
                  "peak_elevation_ft": "peak elevation", "peak_storage_ft3": "peak storage",
                  "inflow_peak_cfs": "peak inflow", "outflow_peak_cfs": "peak outflow"}

_KIND_WORDS = {"subcatchment": "Subcatchment", "pond": "Pond", "reach": "Reach",
               "link": "Link", "design_point": "Design point"}

_SCRIPT = """<script>
function copyFindings(button) {
  const text = document.getElementById('findings-text').textContent;
  navigator.clipboard.writeText(text).then(
    () => { button.textContent = 'Copied'; },
    () => { button.textContent = 'Select the findings and copy them'; });
}
</script>"""


def _quantity(q: str) -> str:
    return QUANTITY_WORDS.get(q, q.replace("_", " "))


def _recomputed(r) -> str:
    if r.recomputed is None:
        return "-"
    dec = len(r.printed.split(".", 1)[1]) if "." in r.printed else 0
    return f"{r.recomputed:.{dec}f}"


def _where(r) -> str:
    kind = _KIND_WORDS.get(str(r.kind), str(r.kind).replace("_", " ").capitalize())
    storm = f", {r.storm} storm" if r.storm else ""
    return f"{kind} {r.node}{storm}, {_quantity(r.quantity)}"


def finding_sentences(review) -> tuple[list[str], list[str]]:
    """(findings that need a response, differences explained) as plain sentences.

    Needing a response: every ``unexplained`` value (submitted, recomputed, difference and
    tolerance) and every value ``not imported`` (with the importer's reason); then the
    incomplete-import reasons. Explained: every ``explained`` value with its cause.
    """
    respond, explained = [], []
    for r in review.rows:
        unit = f" {r.unit}" if r.unit else ""
        pct = "" if r.difference_pct is None else f" ({r.difference_pct:+.1f} %)"
        if r.status == "unexplained":
            respond.append(f"{_where(r)}: the submission gives {r.printed}{unit}; an "
                           f"independent re-computation gives {_recomputed(r)}{unit}{pct}, "
                           "beyond the tolerance, and no known method difference explains "
                           "it. Please explain the difference or correct the calculation.")
        elif r.status == "not imported":
            respond.append(f"{_where(r)}: the value could not be read from the submission"
                           f"{f' ({r.cause})' if r.cause else ''}. Please provide it.")
        elif r.status == "explained":
            explained.append(f"{_where(r)}: submitted {r.printed}{unit}, recomputed "
                             f"{_recomputed(r)}{unit}{pct}; explained by {r.cause}.")
    if not review.complete:
        respond.extend(f"The submission could not be read in full: {reason}. Please provide "
                       "a complete printout." for reason in review.incomplete_reasons)
    return respond, explained


def _verdict_class(review) -> str:
    if review.unexplained:
        return "fails"
    return "confirm" if (review.counts["explained"] or not review.complete) else "meets"


def _rows_table(review) -> Table:
    frame = pd.DataFrame(
        [(r.node, r.storm, _quantity(r.quantity), r.unit, r.printed, _recomputed(r),
          "-" if r.difference_pct is None else f"{r.difference_pct:+.1f}", r.status,
          r.cause if r.status != "agrees" else "") for r in review.rows],
        columns=["node", "storm", "quantity", "unit", "submitted", "hydrocalc",
                 "difference_pct", "status", "cause"])
    return Table("review_values", "Every compared value", frame,
                 labels={"node": "Node", "storm": "Storm", "quantity": "Quantity",
                         "unit": "Unit", "submitted": "Submitted", "hydrocalc": "Recomputed",
                         "difference_pct": "Difference [%]", "status": "Status",
                         "cause": "Cause"},
                 key_columns=["node", "storm", "quantity"])


def _findings_html(respond: list[str], explained: list[str]) -> str:
    e = html.escape
    parts = ['<section class="findings" id="findings"><h2>Findings</h2>']
    if respond:
        parts.append("<h3>Needing a response</h3><ol class=\"findings-respond\">"
                     + "".join(f"<li>{e(s)}</li>" for s in respond) + "</ol>")
    else:
        parts.append("<p>No finding needs a response: every value agrees with the "
                     "re-computation or differs for a known, named reason.</p>")
    if explained:
        parts.append("<h3>Differences explained by method (for the record)</h3>"
                     "<ol class=\"findings-explained\">"
                     + "".join(f"<li>{e(s)}</li>" for s in explained) + "</ol>")
    text = [f"{i}. {s}" for i, s in enumerate(respond, 1)]
    if explained:
        text += ["", "Differences explained by method:"]
        text += [f"{i}. {s}" for i, s in enumerate(explained, 1)]
    parts.append('<p><button type="button" class="copy-findings" '
                 'onclick="copyFindings(this)">Copy findings</button></p>'
                 f'<pre class="plain findings-text" id="findings-text">'
                 f'{e(chr(10).join(text))}</pre></section>')
    return "".join(parts)


def review_html(review, tolerances: str = "",
                extra_sections: Sequence[tuple[str, str]] = ()) -> str:
    """A self-contained HTML page of a review, styled as the report.

    Parameters
    ----------
    review : hydrocalc.review.Review
    tolerances : str, optional
        The tolerance note shown under the table.
    extra_sections : sequence of (str, str), optional
        Further sections, (heading, HTML body) each (e.g. a report
        :meth:`~hydrocalc.report.tables.Table.to_html`), placed after the compared values.

    Returns
    -------
    str
        The page: title, verdict box (``<p class="verdict ..." id="verdict">``), source,
        findings (:func:`finding_sentences`), every compared value.
    """
    e = html.escape
    src = review.source or {}
    name = str(src.get("file") or pathlib.Path(str(review.site)).name)
    title = f"Review of {name}"
    source = (f"Site re-run: {review.site}. Submitted: {review.submitted_file} (from "
              f"{src.get('file')}, HydroCAD {src.get('hydrocad_version')}, prepared by "
              f"{src.get('preparer')})")
    respond, explained = finding_sentences(review)
    table = _rows_table(review)
    note = f'<p class="table-note">{e(tolerances)}</p>' if tolerances else ""
    extra = "".join(f"<section><h2>{e(head)}</h2>{body}</section>\n"
                    for head, body in extra_sections)
    return ("<!DOCTYPE html>\n"
            '<html lang="en"><head><meta charset="utf-8"/>'
            '<meta name="viewport" content="width=device-width, initial-scale=1"/>'
            f'<meta name="generator" content="hydrocalc"/><title>{e(title)}</title>'
            f"<style>\n{report_css(title, 'hydrocalc review')}\n</style>{_SCRIPT}</head><body>\n"
            f'<header class="cover review"><p class="doc-kind">Review of a submitted '
            f'calculation</p><h1 class="title">{e(name)}</h1>'
            f'<p class="verdict {_verdict_class(review)}" id="verdict">{e(review.verdict())}'
            f'</p><p class="cover-note">{e(source)}</p></header>\n<main>\n'
            f"{_findings_html(respond, explained)}\n"
            f'<section class="values"><h2>Compared values</h2>{table.to_html()}{note}'
            f"</section>\n{extra}</main>\n</body></html>\n")
