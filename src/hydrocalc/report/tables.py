"""Report tables: a DataFrame with unit-labelled headers, number formats and provenance.

A :class:`Table` is what a report section hands to a notebook for display and to the report
writer for the CSV files, the Excel workbook and ``results.json``. Columns keep their
unit-suffixed names (``peak_cfs``, ``area_ac``) in every machine-readable form; the HTML
header shows a readable label and the unit (``Peak [cfs]``).

Numbers are stored at full precision; only the HTML display rounds them, with a number of
decimals chosen by the column's unit suffix (or given per table).
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import html
import json
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from hydrocalc.labels import column_label, column_unit, default_decimals, format_cell

__all__ = [
    "Table",
    "column_label",
    "column_unit",
    "to_jsonable",
    "canonical_json",
    "sha256_json",
    "md_escape",
]

def md_escape(text: object) -> str:
    r"""Escape user text for Markdown narrative: every Markdown or HTML character made literal.

    Each ASCII punctuation character that Markdown or HTML could interpret is
    backslash-escaped (CommonMark section 2.4), and newlines collapse to spaces, so a
    project name can never start a block, a link or a tag.

    Examples
    --------
    >>> print(md_escape("Ram's *Head* <b>"))
    Ram's \*Head\* \<b\>
    """
    out = str(text)
    for ch in "\\`*_{}[]()#+!|~<>&":
        out = out.replace(ch, "\\" + ch)
    return " ".join(out.split())  # newlines in a name must not start a new Markdown block


def to_jsonable(value):
    """Convert numpy/pandas scalars, dates and containers to plain JSON-serialisable values.

    NaN and infinities become ``None`` (JSON has no NaN); tuples become lists.
    """
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return [to_jsonable(v) for v in value.tolist()]
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        v = float(value)
        return v if math.isfinite(v) else None
    if value is None or value is pd.NaT:
        return None
    if isinstance(value, pd.Timestamp):
        return value.isoformat()
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    if isinstance(value, str):
        return value
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass
    return str(value)


def canonical_json(value) -> str:
    """Deterministic JSON text (sorted keys, no NaN, full float precision)."""
    return json.dumps(to_jsonable(value), sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False, allow_nan=False)


def sha256_json(value) -> str:
    """SHA-256 of :func:`canonical_json` of ``value``."""
    return hashlib.sha256(canonical_json(value).encode("utf-8")).hexdigest()


_LONG_TOKEN = re.compile(r"\S{18,}")


def _breakable(text: str) -> str:
    """HTML-escape ``text`` and allow line breaks after _ / . - inside long tokens.

    Long tokens are identifiers and URLs: narrow table columns then wrap instead of
    overflowing the page.
    """
    out, pos = [], 0
    for m in _LONG_TOKEN.finditer(text):
        out.append(html.escape(text[pos:m.start()]))
        token = html.escape(m.group(0))
        out.append(re.sub(r"([_/.\-])", r"\1<wbr>", token))
        pos = m.end()
    out.append(html.escape(text[pos:]))
    return "".join(out)


@dataclass(frozen=True)
class Table:
    """A report table.

    Parameters
    ----------
    name : str
        Machine key (file names, sheet names, JSON keys), snake_case.
    title : str
        Heading shown above the table.
    frame : pandas.DataFrame
        The data; columns carry unit suffixes. The index is ignored.
    caption : str
        Source or method note shown under the table.
    decimals : mapping, optional
        Column -> number of decimals shown in HTML (overrides the unit default).
    labels : mapping, optional
        Column -> header label (overrides :func:`column_label`).
    key_columns : sequence of str, optional
        Columns that identify a row (used by ``hydrocalc verify`` to name a difference);
        default: the leading non-numeric columns.
    display : mapping, optional
        Column -> function turning a text cell into the words shown in HTML and PDF
        (``"sheet"`` -> "Sheet flow"); the machine forms keep the value.
    """

    name: str
    title: str
    frame: pd.DataFrame
    caption: str = ""
    decimals: Mapping[str, int] = field(default_factory=dict)
    labels: Mapping[str, str] = field(default_factory=dict)
    key_columns: Sequence[str] = ()
    display: Mapping[str, Callable[[object], str]] = field(default_factory=dict)

    # -- machine-readable forms -------------------------------------------------------
    @property
    def columns(self) -> list[str]:
        """Column names of the table's frame, as strings."""
        return [str(c) for c in self.frame.columns]

    def rows(self) -> list[list]:
        """Rows as lists of JSON-ready values (full precision)."""
        return [to_jsonable(list(r)) for r in self._row_tuples]

    # A table is rendered three or four times (JSON, HTML, PDF, workbook through the JSON)
    # and pandas spends most of each pass fetching the columns (``itertuples``): the row
    # tuples, the numeric flags and the display texts are made once per table and kept
    # (the frame is not changed after a table is made). They are left out of pickles.
    _CACHED = ("_row_tuples", "_numeric_columns", "_display_cells")

    @functools.cached_property
    def _row_tuples(self) -> list[tuple]:
        """The frame's rows as tuples (``DataFrame.itertuples(index=False, name=None)``)."""
        return list(self.frame.itertuples(index=False, name=None))

    @functools.cached_property
    def _numeric_columns(self) -> list[bool]:
        """Per column: numeric and not boolean (shown right-aligned, as numbers)."""
        return [pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_bool_dtype(dtype)
                for dtype in self.frame.dtypes]

    @functools.cached_property
    def _display_cells(self) -> list[list[tuple[str, bool]]]:
        """Per row, per column: :meth:`_format_cell` ``(text, is_numeric)``."""
        cols = self.columns
        return [[self._format_cell(c, v) for c, v in zip(cols, row, strict=True)]
                for row in self._row_tuples]

    def __getstate__(self) -> dict:
        return {k: v for k, v in self.__dict__.items() if k not in self._CACHED}

    def keys(self) -> list[str]:
        """Key columns: given, or the leading non-numeric columns (at least one column)."""
        if self.key_columns:
            return list(self.key_columns)
        out = []
        for col in self.columns:
            if pd.api.types.is_numeric_dtype(self.frame[col]) and not \
                    pd.api.types.is_bool_dtype(self.frame[col]):
                break
            out.append(col)
            if len(out) == 3:
                break
        return out

    def to_dict(self) -> dict:
        """JSON form: title, columns, units, key columns, rows and the SHA-256 of the data."""
        cols = self.columns
        rows = self.rows()
        return {
            "title": self.title,
            "columns": cols,
            "units": {c: column_unit(c) for c in cols},
            "key_columns": self.keys(),
            "rows": rows,
            "sha256": sha256_json({"columns": cols, "rows": rows}),
        }

    def to_csv(self) -> str:
        """CSV text, full precision, unit-suffixed headers."""
        return self.frame.to_csv(index=False, lineterminator="\n")

    # -- display ---------------------------------------------------------------------
    def _format_cell(self, col: str, value) -> tuple[str, bool]:
        """(text, is_numeric) for one cell (:func:`hydrocalc.labels.format_cell`).

        A text cell of a column with a display function (``display``) shows its words.
        """
        if col in self.display and isinstance(value, str):
            return str(self.display[col](value)), False
        return format_cell(value, self.decimals.get(col, default_decimals(col)))

    def to_html(self) -> str:
        """HTML table (every text HTML-escaped); numbers rounded for display only."""
        cols = self.columns
        wide = len(cols) > 8
        classes = "hc-table wide" if wide else "hc-table"
        parts = [f'<div class="hc-table-wrap" id="table-{html.escape(self.name)}">']
        if self.title:
            parts.append(f'<p class="table-title">{html.escape(self.title)}</p>')
        parts.append(f'<table class="{classes}">')
        parts.append("<thead><tr>")
        for col, numeric in zip(cols, self._numeric_columns, strict=True):
            label = self.labels.get(col, column_label(col))
            cls = ' class="num"' if numeric else ""
            parts.append(f'<th scope="col"{cls}>{html.escape(label)}</th>')
        parts.append("</tr></thead><tbody>")
        if self.frame.empty:
            parts.append(f'<tr><td colspan="{max(len(cols), 1)}" class="empty">(none)</td></tr>')
        for row in self._display_cells:
            parts.append("<tr>")
            for text, numeric in row:
                cls = ' class="num"' if numeric else (
                    f' class="{text}"' if text in ("pass", "fail") else "")
                cell = html.escape(text) if numeric else _breakable(text)
                parts.append(f"<td{cls}>{cell}</td>")
            parts.append("</tr>")
        parts.append("</tbody></table>")
        if self.caption:
            parts.append(f'<p class="table-note">{html.escape(self.caption)}</p>')
        parts.append("</div>")
        return "".join(parts)

    def presentation(self) -> dict:
        """The table as displayed, JSON-ready: what the PDF typesets.

        ``name``, ``title``, ``caption``, header ``labels``, per column ``numeric`` (shown
        right-aligned) and ``cells``, the display texts row by row (numbers at reporting
        precision, words for coded values), as :meth:`to_html` shows them.
        """
        return {
            "name": self.name,
            "title": self.title,
            "caption": self.caption,
            "labels": [self.labels.get(c, column_label(c)) for c in self.columns],
            "numeric": list(self._numeric_columns),
            "cells": [[text for text, _ in row] for row in self._display_cells],
        }

    def _repr_html_(self) -> str:
        return self.to_html()

    def __repr__(self) -> str:
        return f"Table({self.name!r}, {len(self.frame)} rows x {len(self.frame.columns)} cols)"
