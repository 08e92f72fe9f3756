"""Review a submitted calculation: re-run its site and explain every difference.

``hydrocalc review SITE --submitted SUBMITTED.json`` (see :func:`review_site`) analyses the
site with :func:`hydrocalc.analysis.analyze` and puts each submitted result (from
``hydrocalc import hydrocad``: peak, time of peak, volume, runoff depth by node and storm)
beside the recomputed one, with the difference in % and a status:

``agrees``
    within the tolerance below;
``explained``
    beyond it, with a known cause that applies (named in ``cause``);
``unexplained``
    beyond it with no known cause: the reviewer must look;
``not imported``
    the node or storm could not be imported (the importer's reason is the cause);
``not compared``
    hydrocalc has no matching quantity (e.g. a pond's printed surface area).

Tolerances
----------
* **Runoff depth and volume**: at the printed precision, ``|submitted - recomputed| <= half
  a unit in the last printed digit`` (1.29 in: 0.005 in; 0.109 af: 0.0005 af).
* **Peak flow**: ``PEAK_RTOL`` = 5 % (or half a printed unit, whichever is larger). HydroCAD
  agrees with TR-20 "to within 1 %" on its own sample job, but its storm curves are smoothed
  and its peak is a parabola through a series at its own time step; 5 % is what the real
  reports in the test suite show for Tc >= 14 min (``docs/reviewing_hydrocad.md``).
* **Time of peak**: the larger of HydroCAD's printed time step and 0.05 h, plus half a
  printed unit.
* **Ponds** (imported with ``--links``): inflow and outflow peaks and storage as peaks (5 %),
  volumes at printed precision, peak elevation within ``POND_DEPTH_RTOL`` (2 %) of the depth
  above the pond bottom. HydroCAD's "Outflow" is primary + discarded flow. A pond value
  beyond tolerance whose inflow peak differs for a known cause is *explained* by that cause
  (propagated). A pond value beyond tolerance of a pond whose conversion the importer
  recorded as not exact (``conversion.differences`` in ``submitted.json``, e.g. a HydroCAD
  culvert computed by FHWA HDS-5) is *explained* by those recorded differences, named in full.

Known causes (checked in this order, beyond the tolerance)
----------------------------------------------------------
1. *Rounded weighted CN*: the site's CN differs from the CN HydroCAD printed (HydroCAD uses
   the area-weighted CN rounded to an integer): depth, volume and peak differ.
2. *Tc minimum*: the site's Tc is below 0.1 h, which hydrocalc raises to 0.1 h as TR-20
   does; HydroCAD has no minimum, so its peak is higher.
3. *Smoothed storm curves at short Tc*: Tc < 14 min and HydroCAD's peak is higher by at most
   ``SHORT_TC_MAX_PCT`` (15 %): HydroCAD's coefficient-based NRCS curves give "more accurate
   (higher) peak runoff" at short Tc (HydroCAD, "Comparing SCS & SBUH Runoff Results",
   hydrocad.net/scsresults.htm); hydrocalc uses the WinTR-20 tabular curves. Not applied
   when the report's Rainfall Events Listing gives the event's curve mode as "Tabular".
4. *Time step and parabolic peak*: HydroCAD's printed dt is 0.05 h or more and the peak
   differs by at most ``COARSE_DT_MAX_PCT`` (10 %): its peak is a parabola through ordinates
   that far apart.

Input audit
-----------
After the rows, every review lists the input audit of the submission
(:func:`hydrocalc.review.importers.hydrocad_audit.audit_submitted`): each printed cover CN,
weighted CN, Tc segment and total, stage storage and device flow recomputed from the report's own
printed inputs (TR-55 tables and equations, orifice and weir equations). Without a site
(``review_site(None, submitted)``) only the audit runs and ``rows`` is empty.

Exit status of the command: 0 when nothing is ``unexplained`` and no input finding is an
``error``; 1 otherwise. Incomplete imports are reported in the headline (``INCOMPLETE``) and
their values as ``not imported``.
"""

from __future__ import annotations

import dataclasses
import html
import json
import math
import pathlib
import re
import textwrap

import pandas as pd

from hydrocalc.analysis import analyze
from hydrocalc.errors import InputError
from hydrocalc.hydrograph import parabolic_peak
from hydrocalc.input_file import read_input_bytes
from hydrocalc.report.tables import Table
from hydrocalc.review.importers.hydrocad_audit import InputAudit, audit_submitted
from hydrocalc.review.importers.hydrocad_site import SUBMITTED_FORMAT
from hydrocalc.review.review_page import review_html
from hydrocalc.site import load_site
from hydrocalc.unit_hydrograph import MIN_TC_HR

__all__ = [
    "COARSE_DT_MAX_PCT",
    "PEAK_RTOL",
    "SHORT_TC_MAX_PCT",
    "Review",
    "ReviewRow",
    "load_submitted",
    "review_site",
]

PEAK_RTOL = 0.05  #: relative tolerance of peak flows [-]
#: Largest submitted.json read (an import writes tens of kB).
MAX_SUBMITTED_BYTES = 16 * 1024 * 1024
SHORT_TC_MIN = 14.0  #: Tc below which HydroCAD's smoothed storm curves raise peaks [min]
SHORT_TC_MAX_PCT = 15.0  #: largest peak excess explained by the smoothed curves [%]
COARSE_DT_MAX_PCT = 10.0  #: largest peak difference explained by a coarse time step [%]
MIN_TIME_TOL_HR = 0.05  #: smallest time-of-peak tolerance [h]
POND_DEPTH_RTOL = 0.02  #: peak-elevation tolerance, fraction of the depth above the datum [-]
_UNITS = {"peak_cfs": "cfs", "time_of_peak_hr": "h", "volume_acft": "af", "runoff_in": "in",
          "peak_elevation_ft": "ft", "peak_storage_ft3": "ft3"}
_NOT_CHECKED_LINES = 40  #: not-checked values listed on the terminal (all in --json, --html)
_STATUSES = ("agrees", "explained", "unexplained", "not imported", "not compared")


@dataclasses.dataclass
class ReviewRow:
    """One submitted value beside its recomputed value."""

    node: str
    kind: str
    storm: str
    quantity: str
    unit: str
    submitted: float
    printed: str
    recomputed: float | None
    difference: float | None
    difference_pct: float | None
    tolerance: float | None
    status: str
    cause: str


@dataclasses.dataclass
class Review:
    """The review of one site against its submitted results."""

    site: str
    submitted_file: str
    source: dict
    complete: bool
    incomplete_reasons: list
    rows: list
    input_audit: InputAudit = dataclasses.field(default_factory=InputAudit)

    @property
    def input_errors(self) -> list:
        """Input-audit findings of severity ``error`` (exit status 1)."""
        return self.input_audit.errors

    @property
    def failed(self) -> bool:
        """True when a difference is unexplained or an input finding is an error."""
        return self.unexplained or bool(self.input_errors)

    @property
    def counts(self) -> dict:
        """Rows per status."""
        return {s: sum(1 for r in self.rows if r.status == s) for s in _STATUSES}

    @property
    def unexplained(self) -> bool:
        """True when some difference has no known cause (exit status 1)."""
        return self.counts["unexplained"] > 0

    def verdict(self) -> str:
        """One headline line."""
        c = self.counts
        head = ("UNEXPLAINED DIFFERENCES" if self.unexplained else
                "INPUT ERRORS" if self.input_errors else
                "AGREES (differences explained)" if c["explained"] else "AGREES")
        text = (f"{head}: {c['agrees']} agree, {c['explained']} explained, "
                f"{c['unexplained']} unexplained, {c['not imported']} not imported")
        n_err = len(self.input_errors)
        if not self.rows:
            text = ("INPUT ERRORS" if n_err else "INPUTS AGREE") + " (input audit only, no site " \
                "re-run)"
        if n_err or not self.rows:
            text += (f"; input audit: {sum(self.input_audit.checked.values())} value(s) "
                     f"checked, {n_err} error(s)")
        if not self.complete:
            text += " - INCOMPLETE import: " + "; ".join(self.incomplete_reasons)
        return text

    def to_dict(self) -> dict:
        """Everything, JSON-ready (numbers rounded to 6 significant digits)."""
        rows = []
        for r in self.rows:
            d = dataclasses.asdict(r)
            for k in ("recomputed", "difference", "difference_pct", "tolerance"):
                if d[k] is not None:
                    d[k] = float(f"{d[k]:.6g}")
            rows.append(d)
        return {"site": self.site, "submitted": self.submitted_file, "source": self.source,
                "complete": self.complete, "incomplete_reasons": self.incomplete_reasons,
                "verdict": self.verdict(), "counts": self.counts,
                "tolerances": {"peak_rtol": PEAK_RTOL, "depth_volume": "half a printed unit",
                               "time_of_peak_hr": f"max(HydroCAD dt, {MIN_TIME_TOL_HR}) + "
                                                  "half a printed unit"},
                "rows": rows, "input_audit": self.input_audit.to_dict()}

    def to_json(self) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=1, sort_keys=True) + "\n"

    def table(self, width: int = 100) -> str:
        """The review as a terminal table (at most ``width`` columns; causes wrapped)."""
        head = f"{'node':<10} {'storm':<9} {'quantity':<16} {'submitted':>10} " \
               f"{'hydrocalc':>10} {'diff %':>7}  status"
        lines = [head, "-" * len(head)] if self.rows or self.site else []
        for r in self.rows:
            rec = "-" if r.recomputed is None else _fmt(r.recomputed, r.printed)
            pct = "-" if r.difference_pct is None else f"{r.difference_pct:+.1f}"
            lines.append(f"{r.node[:10]:<10} {r.storm[:9]:<9} {r.quantity[:16]:<16} "
                         f"{r.printed:>10} {rec:>10} {pct:>7}  {r.status}")
            if r.cause and r.status != "agrees":
                lines += textwrap.wrap("cause: " + r.cause, width, initial_indent="    ",
                                       subsequent_indent="      ")
        lines += self.audit_table(width)
        lines += textwrap.wrap(self.verdict(), width, subsequent_indent="  ")
        return "\n".join(lines)

    def audit_table(self, width: int = 100) -> list[str]:
        """The input findings as lines a reviewer can paste into a comment letter."""
        a = self.input_audit
        lines = ["", "input audit (printed inputs recomputed from the report's own numbers):"]
        lines += textwrap.wrap("checked: " + ", ".join(f"{k}={v}" for k, v in a.checked.items()),
                               width, initial_indent="  ", subsequent_indent="    ")
        if not a.findings:
            lines.append("  no findings")
        else:
            head = f"  {'node':<12} {'item':<30} {'printed':>9} {'recomputed':>10}  reference"
            lines += [head, "  " + "-" * (len(head) - 2)]
            for f in a.findings:
                rec = f"{f['recomputed']:.2f}" if f["unit"] in ("min", "cfs") else \
                    f"{f['recomputed']:.4g}"
                tag = "" if f["severity"] == "error" else " (warning)"
                lines.append(f"  {f['node'][:12]:<12} {f['item'][:30]:<30} "
                             f"{f['printed'][:9]:>9} {rec:>10}  {f['reference']}{tag}")
                lines += textwrap.wrap(f["message"], width, initial_indent="      ",
                                       subsequent_indent="      ")
        if a.not_checked:
            lines.append(f"  not checked ({len(a.not_checked)}; never guessed):")
            for x in a.not_checked[:_NOT_CHECKED_LINES]:
                lines += textwrap.wrap(f"{x['node']} {x['item']}: {x['reason']}", width,
                                       initial_indent="    ", subsequent_indent="      ")
            if len(a.not_checked) > _NOT_CHECKED_LINES:
                lines.append(f"    ... and {len(a.not_checked) - _NOT_CHECKED_LINES} more "
                             "(--json input_audit.not_checked)")
        return lines

    def to_html(self) -> str:
        """A self-contained HTML page of the review, styled as the report.

        Verdict first, findings to paste into a comment letter, every compared value, then
        the input audit
        (:func:`hydrocalc.review.review_page.review_html`).
        """
        return review_html(self, tolerances=(
            f"Tolerances: peaks {PEAK_RTOL:.0%}; depths and volumes half a unit of the printed "
            f"precision; time of peak max(HydroCAD dt, {MIN_TIME_TOL_HR} h) + half a printed "
            "unit."), extra_sections=[("Input audit", self._audit_html())])

    def _audit_html(self) -> str:
        """The input audit as a report table, and what was not checked.

        Columns: node, item, printed, recomputed, reference, one sentence; a reviewer can paste
        the table into a comment letter.
        """
        e = html.escape
        a = self.input_audit
        frame = pd.DataFrame(
            [{"node": f["node"], "item": f["item"], "printed": f["printed"],
              "recomputed": f["recomputed"], "reference": f["reference"],
              "severity": f["severity"], "finding": f["message"]} for f in a.findings],
            columns=["node", "item", "printed", "recomputed", "reference", "severity",
                     "finding"])
        checked = ", ".join(f"{k} {v}" for k, v in a.checked.items())
        table = Table("input_audit", "Input findings", frame,
                      caption=f"Printed inputs recomputed from the report's own numbers. "
                              f"Checked: {checked}.", key_columns=["node", "item"])
        skipped = "".join(f"<li>{e(x['node'])} {e(x['item'])}: {e(x['reason'])}</li>"
                          for x in a.not_checked)
        return (table.to_html() + f"<p>Not checked ({len(a.not_checked)}; never guessed):</p>"
                f"<ul>{skipped}</ul>")


def _fmt(value: float, printed: str) -> str:
    """``value`` with the decimals of the printed number."""
    dec = len(printed.split(".", 1)[1]) if "." in printed else 0
    return f"{value:.{dec}f}"


def load_submitted(path: str | pathlib.Path) -> dict:
    """Read a ``submitted.json`` written by ``hydrocalc import hydrocad``."""
    p = pathlib.Path(path)
    raw = read_input_bytes(p, what="--submitted file", max_bytes=MAX_SUBMITTED_BYTES)
    try:
        data = json.loads(raw.decode("utf-8"))
    except ValueError as exc:  # also text that is not UTF-8
        raise InputError(f"--submitted {p}: expected the JSON written by `hydrocalc import "
                         f"hydrocad`; it is not valid JSON ({exc}).") from None

    if not isinstance(data, dict) or data.get("format") != SUBMITTED_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise InputError(f"--submitted {p}: expected format {SUBMITTED_FORMAT!r} (written by "
                         f"`hydrocalc import hydrocad`); got {got!r}.")
    return data


def review_site(site_file: str | pathlib.Path | None,
                submitted_file: str | pathlib.Path) -> Review:
    """Re-run ``site_file`` and compare it with ``submitted_file`` (see the module notes).

    Parameters
    ----------
    site_file : path or None
        A site file (typically the ``site.toml`` written by ``hydrocalc import hydrocad``).
        None: only the input audit runs (``rows`` is empty).
    submitted_file : path
        The ``submitted.json`` beside it.

    Returns
    -------
    Review

    Raises
    ------
    InputError
        The site does not load, or the submitted file is not an import's.
    """
    sub = load_submitted(submitted_file)
    if site_file is None:
        return _review(sub, "", submitted_file, [])
    site = load_site(site_file)
    res = analyze(site)
    scenario = sub.get("scenario", "post")
    nodes = res.nodes
    nodes = nodes[nodes["scenario"] == scenario] if "scenario" in nodes else nodes
    subs = res.subcatchments
    subs = subs[subs["scenario"] == scenario] if "scenario" in subs else subs
    has_names = "subcatchment" in subs
    cn_of = dict(zip(subs["subcatchment"], subs["cn"], strict=False)) if has_names else {}
    tc_of = dict(zip(subs["subcatchment"], subs["tc_hr"], strict=False)) if has_names else {}
    dt_hc = (sub.get("settings") or {}).get("dt_hr")
    storms_ok = set(site.storms.names)
    rows = []
    for r in sub["results"]:
        node, storm, q = r["node"], r.get("storm"), r["quantity"]
        hc_storm = r.get("hydrocad_storm") or storm or ""
        info = sub["nodes"].get(node, {})
        base = {"node": node, "kind": r["kind"], "storm": storm or hc_storm, "quantity": q,
                    "unit": _UNITS.get(q.split("_", 1)[-1] if q.startswith(("inflow_", "primary_",
                                    "discarded_", "secondary_")) else q, ""),
                    "submitted": r["value"], "printed": r["printed"]}
        if not r.get("imported") or storm not in storms_ok:
            why = info.get("not_imported_reason") or (
                f"storm {hc_storm!r} not imported" if not (storm and storm in storms_ok)
                else "not imported")
            rows.append(ReviewRow(**base, recomputed=None, difference=None, difference_pct=None,
                                  tolerance=None, status="not imported", cause=why))
            continue
        sel = nodes[(nodes["storm"] == storm) & (nodes["node"] == node)] \
            if "node" in nodes else nodes.iloc[0:0]
        if r["kind"] == "pond" and not sel.empty:
            rows.append(_pond_row(res, scenario, storm, node, r, info, base, dt_hc,
                                  parabolic_peak))
            continue
        if sel.empty or r["kind"] != "subcatchment":
            rows.append(ReviewRow(**base, recomputed=None, difference=None, difference_pct=None,
                                  tolerance=None, status="not compared",
                                  cause=f"{node} has no {q} in the hydrocalc results"))
            continue
        half = 0.5 * 10.0 ** (-r["decimals"])
        if q in ("peak_cfs", "time_of_peak_hr"):
            qp, tp = parabolic_peak(res.time_hr, res.flow_cfs(scenario, storm, node))
            rec = qp if q == "peak_cfs" else tp
        elif q == "volume_acft":
            rec = float(sel["volume_acft"].iloc[0])
        elif q == "runoff_in":
            rec = float(sel["runoff_in"].iloc[0])
        else:
            rows.append(ReviewRow(**base, recomputed=None, difference=None, difference_pct=None,
                                  tolerance=None, status="not compared",
                                  cause=f"hydrocalc has no {q} for a subcatchment"))
            continue
        diff = rec - r["value"]
        pct = 100.0 * diff / r["value"] if r["value"] else None
        if q == "peak_cfs":
            tol = max(half, PEAK_RTOL * abs(r["value"]))
        elif q == "time_of_peak_hr":
            tol = max(dt_hc or 0.0, MIN_TIME_TOL_HR) + half
        else:
            tol = half + 1e-9
        status, cause = "agrees", ""
        if abs(diff) > tol:
            mode = (sub.get("storms", {}).get(storm) or {}).get("curve_mode")
            cause = _cause(q, r, rec, info, cn_of.get(node), tc_of.get(node), dt_hc, MIN_TC_HR,
                           mode)
            status = "explained" if cause else "unexplained"
            cause = cause or "unexplained: no known cause applies"
        rows.append(ReviewRow(**base, recomputed=float(rec), difference=float(diff),
                              difference_pct=None if pct is None else float(pct),
                              tolerance=float(tol), status=status, cause=cause))
    _propagate(rows)
    return _review(sub, str(site_file), submitted_file, rows)


def _review(sub: dict, site: str, submitted_file, rows: list) -> Review:
    """The review of ``rows`` with the input audit of the submitted values ``sub``."""
    return Review(site=site, submitted_file=str(submitted_file), source=sub.get("source", {}),
                  complete=bool(sub.get("complete")),
                  incomplete_reasons=list(sub.get("incomplete_reasons", [])), rows=rows,
                  input_audit=audit_submitted(sub))


def _pond_row(res, scenario, storm, node, r, info, base, dt_hc, parabolic_peak) -> ReviewRow:
    """A pond's printed value beside hydrocalc's (HydroCAD "Outflow" = primary + discarded)."""
    import numpy as np

    q = r["quantity"]
    i = list(res.storms).index(storm)
    arr = res.pond_arrays(scenario, node)
    prow = res.ponds[(res.ponds["scenario"] == scenario) & (res.ponds["storm"] == storm)
                     & (res.ponds["pond"] == node)].iloc[0]
    t = res.time_hr
    series = {"": arr["primary_cfs"][i] + arr["discarded_cfs"][i],
              "primary_": arr["primary_cfs"][i], "discarded_": arr["discarded_cfs"][i],
              "inflow_": res.flow_cfs(scenario, storm, node, which="inflow")}
    prefix = next((p for p in ("inflow_", "primary_", "discarded_") if q.startswith(p)), "")
    what = q[len(prefix):]
    half = 0.5 * 10.0 ** (-r["decimals"])
    rec = None
    if what in ("peak_cfs", "time_of_peak_hr"):
        qp, tp = parabolic_peak(t, series[prefix])
        rec = qp if what == "peak_cfs" else tp
        tol = max(half, PEAK_RTOL * abs(r["value"])) if what == "peak_cfs" else \
            max(dt_hc or 0.0, MIN_TIME_TOL_HR) + half
    elif what == "volume_acft":
        rec = float(np.trapezoid(series[prefix], t)) * 3600.0 / 43560.0
        tol = half + 1e-9
    elif q == "peak_elevation_ft" and info.get("datum_elev_ft") is not None:
        rec = float(prow["peak_stage_ft"]) + info["datum_elev_ft"]
        tol = max(half, POND_DEPTH_RTOL * (r["value"] - info["datum_elev_ft"]))
    elif q == "peak_storage_ft3":
        rec = float(prow["peak_storage_ft3"])
        tol = max(half, PEAK_RTOL * abs(r["value"]))
    if rec is None:
        return ReviewRow(**base, recomputed=None, difference=None, difference_pct=None,
                         tolerance=None, status="not compared",
                         cause=f"hydrocalc has no {q} for a pond")
    diff = rec - r["value"]
    pct = 100.0 * diff / r["value"] if r["value"] else None
    ok = abs(diff) <= tol
    # what the importer recorded as not exact in the pond's conversion (e.g. a culvert)
    inexact = (info.get("conversion") or {}).get("differences") or []
    status, cause = "agrees", ""
    if not ok and inexact and prefix != "inflow_":
        status, cause = "explained", "pond conversion not exact: " + "; ".join(inexact)
    elif not ok:
        status, cause = "unexplained", "unexplained: no known cause applies"
    return ReviewRow(**base, recomputed=float(rec), difference=float(diff),
                     difference_pct=None if pct is None else float(pct), tolerance=float(tol),
                     status=status, cause=cause)


def _propagate(rows: list) -> None:
    """A routed value beyond tolerance is explained by its inflow's explained difference.

    A pond value explained by the pond's recorded conversion differences is not, when the
    pond's inflow itself differs with no known cause (the inflow may be the cause).
    """
    inflow = {(r.node, r.storm): r for r in rows if r.quantity == "inflow_peak_cfs"}
    for r in rows:
        src = inflow.get((r.node, r.storm))
        if r.kind == "pond" and r.status == "explained" and src is not None \
                and src is not r and src.status == "unexplained" \
                and r.cause.startswith("pond conversion not exact"):
            r.status = "unexplained"
            r.cause = ("unexplained: the pond's inflow peak differs with no known cause "
                       f"({src.difference_pct:+.1f} %); the pond's conversion is not exact "
                       "either")
        if r.kind == "pond" and r.status == "unexplained" and src is not None \
                and src is not r and src.status == "explained":
            r.status = "explained"
            r.cause = (f"propagated from the pond's inflow (inflow peak "
                       f"{src.difference_pct:+.1f} %: {src.cause})")


def _cause(q, r, rec, info, site_cn, site_tc_hr, dt_hc, min_tc_hr, curve_mode=None) -> str:
    """The known cause of a difference beyond tolerance, or "" (see the module notes)."""
    printed_cn = info.get("cn_printed")
    if printed_cn and site_cn is not None and re.fullmatch(r"\d+", str(printed_cn)) \
            and abs(float(site_cn) - float(printed_cn)) > 1e-9:
        return (f"rounded weighted CN: HydroCAD used CN={printed_cn} (its weighted CN rounded), "
                f"the site uses {float(site_cn):.4g}")
    if q not in ("peak_cfs", "time_of_peak_hr"):
        return ""
    sub_v = r["value"]
    pct = 100.0 * (rec - sub_v) / sub_v if sub_v else math.inf
    tc_min = (site_tc_hr if site_tc_hr is not None else info.get("tc_min", 0) / 60.0) * 60.0
    if tc_min < min_tc_hr * 60.0 - 1e-9 and (q == "time_of_peak_hr" or rec < sub_v):
        return (f"Tc minimum: hydrocalc raises Tc = {tc_min:.1f} min to {min_tc_hr * 60:.0f} "
                "min (TR-20 minimum); HydroCAD has none, so its peak is higher and earlier")
    if tc_min < SHORT_TC_MIN and q == "peak_cfs" and 0 < -pct <= SHORT_TC_MAX_PCT \
            and curve_mode != "Tabular":
        return (f"smoothed storm curves: at Tc = {tc_min:.1f} min (< {SHORT_TC_MIN:.0f} min) "
                "HydroCAD's coefficient-based NRCS curves give higher peaks than the WinTR-20 "
                "tables hydrocalc uses (hydrocad.net/scsresults.htm)")
    if dt_hc is not None and dt_hc >= 0.05 and q == "peak_cfs" and abs(pct) <= COARSE_DT_MAX_PCT:
        return (f"time step: HydroCAD's peak is a parabola through ordinates dt = {dt_hc:g} h "
                "apart (hydrocalc: 0.01 h)")
    return ""
