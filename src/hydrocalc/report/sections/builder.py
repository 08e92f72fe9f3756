"""Helpers for building sections: number formatting, echo tables, the section builder.

:class:`_Builder` collects one section's narrative, tables, figures and warnings;
:func:`warning_sections` assigns each analysis warning to the sections it concerns.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from hydrocalc.errors import InputError
from hydrocalc.report.figures import Figure
from hydrocalc.report.result import SectionResult
from hydrocalc.report.sections.computation import Context
from hydrocalc.report.sections.registry import SECTIONS
from hydrocalc.report.tables import Table, column_unit, md_escape
from hydrocalc.report.wording import field_label


# ======================================================================================
# helpers for building sections
# ======================================================================================
def _fmt(value, decimals: int = 2) -> str:
    """Number for narrative text (thousands separators; '–' for missing)."""
    if value is None:
        return "–"
    try:
        v = float(value)
    except (TypeError, ValueError):
        return md_escape(value)
    if not math.isfinite(v):
        return "–"
    text = f"{v:,.{decimals}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.,") else text


def _q(value) -> str:
    """A flow for narrative text: two decimals, more for small flows.

    Small flows get two significant digits, at most four decimals.

    Examples
    --------
    >>> _q(12.345), _q(0.0543), _q(0.004712), _q(0.0)
    ('12.35', '0.054', '0.0047', '0.00')
    """
    v = float(value)
    if v == 0 or not math.isfinite(v) or abs(v) >= 0.1:
        return _fmt(v)
    return _fmt(v, int(min(max(2, 1 - math.floor(math.log10(abs(v)))), 4)))


def distribution_label(key: str) -> str:
    """Readable name of a rainfall distribution key.

    Examples
    --------
    >>> distribution_label("III"), distribution_label("nrcc_c")
    ('NRCS Type III', 'NRCC C')
    """
    k = str(key).strip().upper().replace("TYPE_", "").replace("TYPE ", "")
    if k in ("I", "IA", "II", "III"):
        return f"NRCS Type {k}"
    for prefix, label in (("NOAA_", "NOAA Atlas 14 "), ("NRCC_", "NRCC ")):
        if k.startswith(prefix):
            return label + k[len(prefix):]
    return str(key)


def _unit_of(key: str) -> str:
    return column_unit(key)


def _as_text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, (list, tuple)):
        if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            return ", ".join(_as_text(v) for v in value)
        return "; ".join(_as_text(v) for v in value)
    if isinstance(value, Mapping):
        return ", ".join(f"{k} = {_as_text(v)}" for k, v in value.items())
    return str(value)


def _flatten(prefix: str, value, rows: list) -> None:
    """Rows (input, value as entered, unit) of a parsed TOML subtree."""
    if isinstance(value, Mapping):
        for k, v in value.items():
            _flatten(f"{prefix}.{k}" if prefix else str(k), v, rows)
    elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
        for i, item in enumerate(value):
            label = item.get("id", item.get("key", i)) if isinstance(item, Mapping) else i
            _flatten(f"{prefix}[{label}]", {k: v for k, v in item.items()}, rows)
    else:
        key = prefix.rsplit(".", 1)[-1]
        rows.append((prefix, _as_text(value), _unit_of(key)))


def echo_table(name: str, title: str, raw: Mapping, paths: Sequence[str], *,
               exclude: Sequence[str] = ()) -> Table:
    """The inputs under ``paths`` of the site file exactly as entered.

    Columns: ``input`` (the key in words, :func:`hydrocalc.report.wording.field_label`),
    ``value_as_entered``, ``unit`` and ``site_file_key`` (the dotted path).
    """
    rows: list = []
    for path in paths:
        node: Any = raw
        for part in path.split("."):
            node = node.get(part) if isinstance(node, Mapping) else None
        if node is None:
            continue
        if isinstance(node, Mapping):
            node = {k: v for k, v in node.items() if k not in exclude}
        _flatten(path, node, rows)
    frame = pd.DataFrame([(field_label(path), value, unit, path)
                          for path, value, unit in rows],
                         columns=["input", "value_as_entered", "unit", "site_file_key"])
    return Table(name, title, frame, caption="Inputs as written by the engineer, in words; "
                 "the unit is the key's suffix; the site-file key locates the value in the "
                 "site file.", labels={"input": "Input", "value_as_entered": "Value as entered",
                                       "unit": "Unit", "site_file_key": "Site-file key"},
                 key_columns=["site_file_key"])


class _Builder:
    """Builds one section: figures drawn or skipped, warnings collected."""

    def __init__(self, ctx: Context, key: str, figures: bool):
        self.ctx = ctx
        self.key = key
        self.draw = figures
        self.res = SectionResult(key=key, title=SECTIONS[key].title)
        self.caught: list = []  # the warnings recorded while building (set by _build)

    def figure(self, name: str, title: str, draw: Callable[[], Figure]) -> None:
        """Add a figure; when figures are off (verify), keep its name only."""
        if self.draw:
            before = len(self.caught)
            fig = draw()
            if len(self.caught) > before:
                # drawing warned: this section's warnings differ from a build without
                # figures, so the warnings section must not reuse them (see _build_warnings)
                self.res.__dict__["_figure_warned"] = True
            self.res.add_figure(Figure(name=name, title=title, png=fig.png,
                                       caption=fig.caption))
        else:
            self.res.add_figure(Figure(name=name, title=title, png=b""))

    def notice(self, text_md: str) -> None:
        self.res.add_markdown(f"**Warning.** {text_md}")

    def echo(self, name: str, title: str, paths: Sequence[str], *,
             exclude: Sequence[str] = ()) -> None:
        """Add the inputs under ``paths`` as entered, and every CSV table they name."""
        table = echo_table(name, title, self.ctx.raw, paths, exclude=exclude)
        self.res.add_table(table)
        for value, path in zip(table.frame["value_as_entered"], table.frame["site_file_key"],
                               strict=True):
            if path.rsplit(".", 1)[-1].endswith("csv") and value:
                csv_path = self.ctx.path.parent / value
                try:
                    frame = pd.read_csv(csv_path, dtype=str, keep_default_na=False,
                                        comment="#")
                except (OSError, ValueError) as exc:
                    raise InputError(f"{path} must name a readable CSV file; got {value!r} "
                                     f"({exc})") from None
                stem = "".join(c if c.isalnum() else "_" for c in path).strip("_")
                self.res.add_table(Table(f"{name}_{stem}", f"{value} as entered ({path})",
                                         frame, caption="CSV rows exactly as written; the "
                                         "unit is each column's suffix."))


_SCENARIO_TITLE = {"pre": "pre-development", "post": "post-development"}


def _active_window(series, pad_hr: float = 1.0) -> tuple[float, float] | None:
    """Time window where any series exceeds 0.5 % of the largest peak (for x limits)."""
    lo, hi, top = math.inf, -math.inf, 0.0
    for _, _t, q in series:
        top = max(top, float(np.max(q)) if len(q) else 0.0)
    if top <= 0:
        return None
    for _, t, q in series:
        idx = np.flatnonzero(np.asarray(q) > 0.005 * top)
        if idx.size:
            lo, hi = min(lo, float(t[idx[0]])), max(hi, float(t[idx[-1]]))
    return (max(lo - pad_hr, 0.0), hi + pad_hr)


_CRITERIA_WORDS = ("RRv", "WQv", "Cpv", "Qp", "Qf", "qo/qi", " Rv", "criteria",
                   "sizing", "reduction factor")


def warning_sections(text: str) -> tuple[str, ...]:
    """Report sections an analysis warning belongs to (by what it names).

    Examples
    --------
    >>> warning_sections("post.pond[P-1] still stores 12 ft3 at the end")
    ('hydrology_post', 'ponds')
    >>> warning_sections("RRv: specific reduction factors S = ...")
    ('criteria',)
    """
    out = []
    low = text.lower()
    for sc in ("pre", "post"):
        if f"{sc}." in text or f"{sc}-development" in low or f"scenario {sc}" in low:
            out.append(f"hydrology_{sc}")
    if "pond" in low or "overtop" in low or "exfiltrat" in low or "routing" in low:
        out.append("ponds")
    if any(w in text for w in _CRITERIA_WORDS):
        out.append("criteria")
    if "design-storm" in low or "design storm" in low or "illustrative" in low:
        out.append("storms")
    return tuple(out) or ("comparison",)


def _analysis_warnings(ctx: Context, section: str) -> list[str]:
    """The analysis warnings that belong to ``section`` (see :func:`warning_sections`)."""
    notes = set(ctx.site.notes)
    out = [w for w in ctx.results.warnings
           if w not in notes and section in warning_sections(w)]
    if section == "comparison":
        # the hydrology sections name each subcatchment whose Tc was raised to the minimum
        out += [w for w in ctx.step_warnings("analysis") if "tc_hr below" not in w]
    return out


def _when(value) -> str:
    """A date or date-time for a table: ``2027-04-05`` or ``2027-04-05 08:00``."""
    if hasattr(value, "hour"):
        return value.strftime("%Y-%m-%d %H:%M")
    return value.isoformat()
