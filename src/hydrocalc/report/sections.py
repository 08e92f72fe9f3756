"""The SWPPP hydrology report's sections: one function per section, each returning a result.

Every public section function takes the site file (and, for the hydrology section, the
scenario) plus ``out_dir``, and returns a :class:`~hydrocalc.report.result.SectionResult`
holding the narrative (every number in it formatted from the computation), the tables
(full precision, unit-suffixed columns), the figures (PNG) and every warning raised while
computing it. With a non-empty ``out_dir`` it also writes ``sections/<key>.json``, the CSV
tables and the PNG figures there. The notebooks in ``notebooks/`` call exactly one of these
functions and display the result; ``hydrocalc verify`` calls :func:`build_section` directly.

=================  ==========================  ===============================================
Key                Function                    Content
=================  ==========================  ===============================================
``project``        :func:`project_summary`     project facts as entered; applicability of the
                                               local law (:func:`hydrocalc.regulations.assess`)
                                               and the SWPPP content checklist
``storms``         :func:`design_storms`       depths and their source, hyetographs
``hydrology_pre``  :func:`hydrology`           subcatchments, covers/CN, Tc segments, results
``hydrology_post`` :func:`hydrology`           the same after development
``ponds``          :func:`ponds`               stage-storage-discharge, devices, routed peaks
``comparison``     :func:`comparison`          pre vs post at each design point and storm
``criteria``       :func:`sizing_criteria`     NY SMDM WQv, RRv, Cpv, Qp, Qf
``sediment``       :func:`sediment_traps`      trap volumes, cleanout mark and dates
``inspections``    :func:`inspections`         inspection dates and notices
``methods``        :func:`methods_references`  methods, data tables, references
``warnings``       :func:`all_warnings`        every warning of the computation
=================  ==========================  ===============================================

The computation behind a site (load, analysis, assessment, construction tools) runs once per
process and site-file content (:func:`context`), so a kernel presenting one section does not
repeat work, and the warnings each step raised are kept with it.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import inspect
import math
import os
import pathlib
import sys
import tomllib
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from hydrocalc.errors import InputError
from hydrocalc.report import figures as F
from hydrocalc.report.figures import Figure
from hydrocalc.report.result import SectionResult
from hydrocalc.report.tables import Table, column_unit, md_escape

__all__ = [
    "SECTIONS",
    "ALIASES",
    "SectionSpec",
    "resolve_sections",
    "context",
    "validate_site",
    "build_section",
    "project_summary",
    "design_storms",
    "hydrology",
    "ponds",
    "comparison",
    "sizing_criteria",
    "sediment_traps",
    "inspections",
    "methods_references",
    "all_warnings",
    "project_facts_dict",
    "analysis_dict",
    "cover_meta",
    "summary_dict",
]


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

    def parameters(self, *, site_file: str, out_dir: str, sections: Sequence[str]) -> dict:
        """The notebook parameters for this section (the function's arguments, in order)."""
        fn = globals()[self.function]
        values = {"site_file": site_file, "out_dir": out_dir, "section_keys": list(sections),
                  **self.fixed}
        return {name: values[name] for name in inspect.signature(fn).parameters}


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
    from hydrocalc._validate import suggest

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


# ======================================================================================
# the computation behind a site, once per process
# ======================================================================================
def _warning_text(w) -> str:
    return f"{w.category.__name__}: {w.message}"


def _about_the_computation(caught) -> list:
    """The caught warnings that concern the computation.

    ``ResourceWarning`` is dropped: it is emitted when the garbage collector happens to
    finalise an unclosed resource (an event loop, a file) of some earlier work in the same
    process, so whether it lands inside a section depends on timing, not on the inputs, and
    a report and its re-computation (``hydrocalc verify``) must list the same warnings.
    """
    return [w for w in caught if not issubclass(w.category, ResourceWarning)]


class Context:
    """A loaded site and its computations, each run once and with its warnings kept."""

    def __init__(self, site_path: pathlib.Path):
        from hydrocalc.site import load_site

        self.path = site_path
        self.warnings: dict[str, list[str]] = {}
        # load_site first: it turns unreadable, non-UTF-8 or invalid TOML into InputError
        self.site = self._run("site", load_site, site_path)
        self.raw_text = site_path.read_bytes().decode("utf-8-sig")
        self.raw = tomllib.loads(self.raw_text)
        self._cache: dict[str, Any] = {}

    def _run(self, step: str, fn: Callable, *args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn(*args, **kwargs)
        self.warnings.setdefault(step, []).extend(
            _dedupe(_warning_text(w) for w in _about_the_computation(caught)))
        return value

    def _cached(self, step: str, fn: Callable, *args, **kwargs):
        if step not in self._cache:
            self._cache[step] = self._run(step, fn, *args, **kwargs)
        return self._cache[step]

    @property
    def results(self):
        """:func:`hydrocalc.analysis.analyze` of the site."""
        from hydrocalc.analysis import analyze

        return self._cached("analysis", analyze, self.site)

    @property
    def assessment(self):
        """:func:`hydrocalc.regulations.assess` of the project under its municipality's law."""
        from hydrocalc.regulations import assess

        return self._cached("assessment", assess, self.site.project.municipality,
                            self.site.project)

    @property
    def trap_checks(self) -> list:
        """:meth:`hydrocalc.sediment.SedimentTrap.check` of every trap of the construction
        plan (cleanout fraction from the municipality's law, else one half)."""
        if "trap_checks" not in self._cache:
            from hydrocalc import sediment as sed
            from hydrocalc.regulations import load_profile

            plan = self.site.construction
            traps = sed.plan_traps(plan) if plan is not None else []
            frac = load_profile(self.site.project.municipality).cleanout_fraction or 0.5
            self._cache["trap_checks"] = self._run(
                "traps", lambda: [t.check(cleanout_frac=frac) for t in traps])
        return self._cache["trap_checks"]

    @property
    def summary(self) -> dict:
        """:func:`hydrocalc.report.summary.compliance_summary` of the site."""
        if "summary" not in self._cache:
            from hydrocalc.report.summary import compliance_summary

            self._cache["summary"] = compliance_summary(self.results, self.assessment,
                                                        self.trap_checks)
        return self._cache["summary"]

    def step_warnings(self, *steps: str) -> list[str]:
        out: list[str] = []
        for step in steps:
            out.extend(self.warnings.get(step, []))
        return out


def _dedupe(items: Iterable[str]) -> list[str]:
    seen: set[str] = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@functools.lru_cache(maxsize=4)
def _context_cached(path: str, digest: str) -> Context:
    return Context(pathlib.Path(path))


def context(site_file: str | os.PathLike) -> Context:
    """The :class:`Context` of a site file (cached per process and file content)."""
    path = pathlib.Path(site_file)
    if not path.is_file():
        raise InputError(f"site_file must be an existing site file (TOML); got "
                         f"{str(site_file)!r}. Check the path.")
    return _context_cached(str(path.resolve()), _digest(path))


def validate_site(site_file: str | os.PathLike, sections: Sequence[str] | None = None):
    """Load, analyse and compute every section (no figures), raising on any input error.

    Input errors that only a section's computation can find (a rainfall record that does
    not cover the construction period, a trap without a criteria row...) surface here,
    before any notebook runs. Returns the :class:`hydrocalc.site.Site`.
    """
    ctx = context(site_file)
    ctx.results  # noqa: B018 - the analysis is part of validation
    for key in sections if sections is not None else list(SECTIONS):
        if key != "warnings":
            _build(ctx, key, figures=False, sections=sections)
    return ctx.site


def analysis_dict(site_file: str | os.PathLike, base: str | os.PathLike | None = None) -> dict:
    """Every number of :func:`hydrocalc.analysis.analyze` (no hydrograph ordinates) as JSON
    values, for results.json; ``site_file`` relative to ``base`` when given."""
    import json

    path = pathlib.Path(base, site_file) if base is not None else pathlib.Path(site_file)
    return json.loads(context(path).results.to_json(hydrographs=False))


def summary_dict(site_file: str | os.PathLike, base: str | os.PathLike | None = None) -> dict:
    """The compliance summary (:func:`hydrocalc.report.summary.compliance_summary`) of a
    site file, for results.json; ``site_file`` relative to ``base`` when given."""
    path = pathlib.Path(base, site_file) if base is not None else pathlib.Path(site_file)
    return context(path).summary


def project_facts_dict(site) -> dict:
    """The project facts as a JSON-ready dict (for results.json)."""
    from hydrocalc.report.tables import to_jsonable

    project = site.project
    facts = project.to_dict() if hasattr(project, "to_dict") else dict(vars(project))
    return to_jsonable(facts)


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
    """A flow for narrative text: two decimals, more for small flows (two significant
    digits, at most four decimals).

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
    """The inputs under ``paths`` of the site file exactly as entered (keys carry units)."""
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
    frame = pd.DataFrame(rows, columns=["input", "value_as_entered", "unit"])
    return Table(name, title, frame, caption="Site file keys as written by the engineer; "
                 "the unit is the key's suffix.", labels={"value_as_entered": "Value as entered"},
                 key_columns=["input"])


# Figures still being drawn in worker processes: id(SectionResult) -> [(placeholder, future)];
# resolved and removed by hydrocalc.report.build.finish_section.
PENDING_FIGURES: dict[int, list] = {}


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
            if isinstance(fig, Figure):
                self.res.add_figure(Figure(name=name, title=title, png=fig.png,
                                           caption=fig.caption))
            else:  # a future: drawn in another process, see build.figure_pool
                placeholder = self.res.add_figure(Figure(name=name, title=title, png=b""))
                PENDING_FIGURES.setdefault(id(self.res), []).append((placeholder, fig))
        else:
            self.res.add_figure(Figure(name=name, title=title, png=b""))

    def notice(self, text_md: str) -> None:
        self.res.add_markdown(f"**Warning.** {text_md}")

    def echo(self, name: str, title: str, paths: Sequence[str], *,
             exclude: Sequence[str] = ()) -> None:
        """Add the inputs under ``paths`` as entered, and every CSV table they name."""
        table = echo_table(name, title, self.ctx.raw, paths, exclude=exclude)
        self.res.add_table(table)
        for path, value, _ in table.frame.itertuples(index=False, name=None):
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


# ======================================================================================
# section builders (registered in _BUILDERS)
# ======================================================================================
def _build_project(b: _Builder) -> None:
    site, ctx = b.ctx.site, b.ctx
    p = site.project
    a = ctx.assessment
    prof = a.profile
    yn = {True: "yes", False: "no", None: "undetermined"}
    b.res.values.update({
        "swppp_required": a.swppp_required,
        "post_construction_required": a.post_construction_required,
        "inspections_required": a.inspections_required,
        "conditions_met": list(a.conditions_met),
        "disturbed_area_ac": p.disturbed_area_ac,
        "new_impervious_area_ft2": p.new_impervious_area_ft2,
    })
    reasons = "; ".join(md_escape(r) for r in a.swppp_reasons) or "none recorded"
    text = [
        f"**{md_escape(p.name)}** lies in the {md_escape(prof.name)} and is governed by "
        f"{md_escape(prof.law)}. The project disturbs {_fmt(p.disturbed_area_ac, 3)} acres "
        f"({_fmt(p.disturbed_area_ft2, 0)} sq ft) and adds "
        f"{_fmt(p.new_impervious_area_ft2, 0)} sq ft of impervious cover; it drains to "
        f"{md_escape(p.receiving_water)}"
        + (f", an impaired water ({md_escape(p.impairment)})." if p.drains_to_impaired_water
           and p.impairment else ", listed as impaired (303(d) or TMDL)."
           if p.drains_to_impaired_water else "."),
        "",
        f"A SWPPP is required: **{yn[a.swppp_required]}** ({reasons}).",
    ]
    if getattr(prof, "section_note", ""):
        text.insert(1, f" Citations: {md_escape(prof.section_note)}")
    if a.conditions:
        met = ", ".join(md_escape(c) for c in a.conditions_met) or "none"
        text.append(f"Conditions met: {met}.")
    text.append(f"Post-construction stormwater controls required: "
                f"**{yn[a.post_construction_required]}**"
                + (f" ({'; '.join(md_escape(r) for r in a.post_construction_reasons)})."
                   if a.post_construction_reasons else "."))
    text.append(f"Qualified inspections required: **{yn[a.inspections_required]}**.")
    n_hc = len(a.hydrocalc_items)
    n_prep = len(a.preparer_items)
    text += ["", f"Of the applicable SWPPP content items, {n_hc} are produced in whole or in "
             f"part by this report and {n_prep} must be supplied or completed by the preparer "
             "(checklist below, with the report section holding each item)."]
    if prof.status and prof.status != "verified":
        b.notice(f"The {md_escape(prof.name)} profile has status "
                 f"*{md_escape(prof.status)}*: {md_escape(prof.status_note)}")
    summary = ctx.summary
    b.res.values["verdict"] = summary["verdict"]
    b.res.values["verdict_status"] = summary["status"]
    b.res.values["verdict_text"] = summary["verdict_text"]
    head = [f"**Compliance: {summary['verdict_text']}.**", ""]
    for line in summary["failures"]:
        head.append(f"- {md_escape(line)}")
    for item in summary["not_evaluated"]:
        head.append(f"- {md_escape(item['item'])}: not evaluated: {md_escape(item['reason'])}")
    for item in summary["waivers"]:
        head.append(f"- {md_escape(item['item'])}: waived: {md_escape(item['reason'])}")
    if len(head) > 2:
        head.append("")
    # the loader's warnings on the inputs (implausible values, slips such as pre/post areas
    # that differ or a declaration that disagrees with the network) belong on the first page
    notes = list(dict.fromkeys(str(n) for n in getattr(site, "notes", ())))
    if notes:
        head += ["**Input checks to review before submission:**", ""]
        head += [f"- {md_escape(n)}" for n in notes]
        head.append("")
    b.res.values["input_checks"] = notes
    b.res.narrative_md = "\n".join(head + text)
    from hydrocalc.report.summary import summary_tables

    b.res.add_heading("Compliance summary")
    for table in summary_tables(summary):
        b.res.add_table(table)
    _add_confirmations(b)

    facts = [("Project", p.name), ("Municipality", prof.name), ("Law", prof.law),
             ("Address", p.address), ("Tax map", p.tax_map), ("Owner", p.owner),
             ("Preparer", p.preparer), ("Project type", p.project_type),
             ("Receiving water", p.receiving_water),
             ("Drains to an impaired (303(d)/TMDL) water", p.drains_to_impaired_water),
             ("Impairment", p.impairment),
             ("Part of a larger common plan", p.part_of_larger_common_plan),
             ("Exemptions claimed", ", ".join(p.exemptions_claimed) or "none")]
    b.res.add_table(Table("project_facts", "Project facts",
                          pd.DataFrame([(k, v if isinstance(v, str) else yn.get(v, str(v)))
                                        for k, v in facts if v not in ("", None)],
                                       columns=["item", "value"]), key_columns=["item"]))
    b.echo("project_inputs", "Project inputs as entered", ["project"])
    frame = a.to_frame()
    findings = frame[frame["kind"] != "checklist"].copy()
    findings["applies"] = findings["applies"].map(lambda v: yn.get(v, str(v)))
    b.res.add_heading("Applicability of the local law")
    b.res.add_table(Table("applicability", "Thresholds, exemptions, conditions and duties",
                          findings[["kind", "id", "citation", "applies", "text"]]
                          .reset_index(drop=True),
                          labels={"id": "Item", "text": "Finding"},
                          key_columns=["kind", "id"]))
    checklist = frame[frame["kind"] == "checklist"].copy()
    checklist["applies"] = checklist["applies"].map(lambda v: yn.get(v, str(v)))
    titles = {k: s.title for k, s in SECTIONS.items()}
    checklist["where_in_report"] = checklist["report_sections"].map(
        lambda v: "; ".join(titles.get(s.strip(), s.strip()) for s in v.split(",") if s.strip()))
    b.res.add_heading("SWPPP content checklist")
    b.res.add_table(Table("swppp_checklist", "SWPPP content checklist",
                          checklist[["id", "citation", "text", "applies", "produced_by",
                                     "where_in_report"]].reset_index(drop=True),
                          labels={"id": "Item", "text": "Requirement",
                                  "where_in_report": "Where in this report"},
                          caption="produced_by: hydrocalc (this report), partial (report plus "
                                  "preparer), preparer (not produced by hydrocalc).",
                          key_columns=["id"]))
    b.res.warnings.extend(ctx.step_warnings("site", "assessment"))
    b.res.warnings.extend(f"assessment note: {n}" for n in a.notes)


_UNVERIFIED_WORDS = ("unverified", "illustrative", "placeholder", "not verified")


def _unverified(text) -> bool:
    low = str(text or "").lower()
    return any(w in low for w in _UNVERIFIED_WORDS)


def values_to_confirm(ctx: Context) -> pd.DataFrame:
    """Every value the preparer must confirm before submission, once each.

    One row per item: ``item`` (the key a ``[confirmations]`` entry of the site file uses
    to clear it), ``value``, ``used_for``, ``basis`` (where the value comes from and why it
    needs confirming), ``source_entered`` (the preparer's source from ``[confirmations]``,
    empty if none) and ``status`` (``to confirm`` or ``confirmed by preparer``).
    Items: illustrative design-storm depths, a 90 % rainfall depth whose source is marked
    unverified or a placeholder, every criteria value with an unverified status, the RRv
    specific reduction factors from the shipped table, every sediment-trap criteria row not
    verified, and a municipal profile whose status is not ``verified``.
    """
    site = ctx.site
    st = site.storms
    rows: list[dict] = []

    def add(item, value, used_for, basis):
        if any(r["item"] == item for r in rows):
            return
        src = site.confirmations.get(item, "")
        rows.append({"item": item, "value": value, "used_for": used_for, "basis": basis,
                     "source_entered": src,
                     "status": "confirmed by preparer" if src else "to confirm"})

    if st.warnings:
        add("storm_depths", ", ".join(f"{n} {_fmt(d)} in" for n, d in st.depths_in.items()),
            "design-storm runoff and peaks", "; ".join(st.warnings))
    if _unverified(st.wqv_precip_source):
        add("wqv_precip_in", f"{_fmt(st.wqv_precip_in)} in", "WQv and RRv (90 % rainfall "
            "depth)", st.wqv_precip_source)
    crit = ctx.results.criteria
    if not crit.empty:
        for row in crit.to_dict("records"):
            if _unverified(row.get("status")) and row.get("result") != "waived":
                add(f"criterion_{row['criterion']}", str(row.get("equation") or
                                                         row.get("symbol")),
                    f"{row.get('symbol') or row['criterion']} criterion",
                    f"{row.get('source', '')}, {row.get('location', '')}: "
                    f"{row.get('status', '')}")
        cs = site.criteria
        if cs.rrv_specific_reduction_factor is None and "rrv" not in cs.waived:
            from hydrocalc.criteria import ny

            f = ny.specific_reduction_factors(cs.rrv_factors)
            if _unverified(f["status"]):
                add("rrv_factors", ", ".join(f"{h} {v:g}" for h, v in f["factors"].items()),
                    "RRv (specific reduction factor S by HSG)",
                    f"{f['source']}, {f['location']}: {f['status']}")
    for c in ctx.trap_checks:
        if str(c.criteria.status).lower() != "verified":
            cr = c.criteria
            value = (f"{_fmt(cr.storage_ft3_per_ac, 0)} ft³ per acre drained"
                     if cr.storage_ft3_per_ac is not None else cr.method)
            if cr.max_drainage_area_ac is not None:
                value += f", at most {_fmt(cr.max_drainage_area_ac, 1)} ac"
            add(f"trap_criteria_{cr.key}", value, f"sediment trap {c.trap_id} storage",
                f"{cr.manual}, {cr.edition}, {cr.location}: status {cr.status}")
    prof = ctx.assessment.profile
    if prof.status and prof.status != "verified":
        add("regulation_profile", prof.name, "applicability, inspections and notices",
            f"{prof.status}: {prof.status_note}")
    return pd.DataFrame(rows, columns=["item", "value", "used_for", "basis",
                                       "source_entered", "status"])


def _add_confirmations(b: _Builder) -> None:
    frame = values_to_confirm(b.ctx)
    known = set(frame["item"]) | {"sediment_traps"}
    from hydrocalc.site import confirmation_items

    vocabulary = set(confirmation_items())
    for key in b.ctx.site.confirmations:
        # a key outside the vocabulary is already among the site's input-check warnings
        if key not in known and key in vocabulary:
            b.res.warnings.append(
                f"confirmations.{key} names no value to confirm; valid items: "
                f"{', '.join(sorted(known)) or 'none'}")
    b.res.values["values_to_confirm"] = int((frame["status"] == "to confirm").sum())
    if frame.empty:
        return
    b.res.add_heading("Values to confirm before submission")
    b.res.add_table(Table(
        "values_to_confirm", "Values to confirm before submission", frame,
        caption="Clear an item by giving the source it was checked against in the site "
                "file: [confirmations] item = \"source\".",
        labels={"used_for": "Used for", "source_entered": "Source entered by the preparer"},
        key_columns=["item"]))


def _storm_list(site):
    from hydrocalc.rainfall import design_storm

    st = site.storms
    return [design_storm(depth, distribution=st.distribution, dt_hr=st.rain_dt_hr,
                         duration_hr=st.duration_hr, name=name)
            for name, depth in st.depths_in.items()]


def _build_storms(b: _Builder) -> None:
    from hydrocalc.rainfall import max_window_fraction

    site = b.ctx.site
    st = site.storms
    storms = _storm_list(site)
    one_hr = max_window_fraction(st.distribution, 1.0)
    rows = [{"storm": h.name, "depth_in": h.depth_in, "distribution": st.distribution,
             "duration_hr": st.duration_hr, "max_1hr_depth_in": h.depth_in * one_hr,
             "peak_intensity_in_hr": float(np.max(h.intensity_in_hr)),
             "source": st.source or "(not stated)"} for h in storms]
    table = Table("design_storms", "Design-storm depths", pd.DataFrame(rows),
                  caption=f"Hyetographs at {st.rain_dt_hr:g}-hr steps; peak intensity is the "
                          "largest step's average intensity.",
                  labels={"max_1hr_depth_in": "Max 1-hr depth [in]"}, key_columns=["storm"])
    wq = Table("wqv_rainfall", "Water-quality rainfall (90 % rainfall event)",
               pd.DataFrame([{"quantity": "90 % rainfall depth P for WQv",
                              "precip_in": st.wqv_precip_in,
                              "source": st.wqv_precip_source}]), key_columns=["quantity"])
    b.res.values.update({"distribution": st.distribution, "duration_hr": st.duration_hr,
                         "rain_dt_hr": st.rain_dt_hr, "wqv_precip_in": st.wqv_precip_in,
                         "max_1hr_fraction": one_hr})
    names = ", ".join(f"{md_escape(h.name)} ({_fmt(h.depth_in)} in)" for h in storms)
    src = md_escape(st.source) if st.source else "no source stated in the site file"
    b.res.narrative_md = (
        f"The analysis uses {len(storms)} design storms of {_fmt(st.duration_hr, 0)} hours "
        f"with the {md_escape(distribution_label(st.distribution))} rainfall distribution: {names}. "
        f"Depth source: {src}. The largest one-hour share of the storm under this "
        f"distribution is {_fmt(100.0 * one_hr, 1)} %. The water-quality volume uses a "
        f"90 % rainfall depth of {_fmt(st.wqv_precip_in)} in "
        f"({md_escape(st.wqv_precip_source)})."
    )
    for w in st.warnings:
        b.notice(md_escape(w))
        b.res.warnings.append(w)
    b.res.add_table(table)
    b.res.add_table(wq)
    b.figure("hyetographs", "Design-storm hyetographs",
             lambda: F.hyetograph_figure(
                 "hyetographs", "Design-storm hyetographs",
                 [(h.name, np.asarray(h.time_hr), np.asarray(h.intensity_in_hr),
                   np.asarray(h.cumulative_in)) for h in storms]))
    b.echo("storm_inputs", "Design-storm inputs as entered", ["storms", "analysis"])
    b.res.warnings.extend(b.ctx.step_warnings("site"))



# -- hydrology of one scenario -----------------------------------------------------------
_SCENARIO_TITLE = {"pre": "pre-development", "post": "post-development"}


def _scenario_frame(frame: pd.DataFrame, scenario: str) -> pd.DataFrame:
    if frame.empty or "scenario" not in frame:
        return frame
    return frame[frame["scenario"] == scenario].drop(columns="scenario").reset_index(drop=True)


def _active_window(series, pad_hr: float = 1.0) -> tuple[float, float] | None:
    """Time window where any series exceeds 0.5 % of the largest peak (for x limits)."""
    lo, hi, top = math.inf, -math.inf, 0.0
    for _, t, q in series:
        top = max(top, float(np.max(q)) if len(q) else 0.0)
    if top <= 0:
        return None
    for _, t, q in series:
        idx = np.flatnonzero(np.asarray(q) > 0.005 * top)
        if idx.size:
            lo, hi = min(lo, float(t[idx[0]])), max(hi, float(t[idx[-1]]))
    return (max(lo - pad_hr, 0.0), hi + pad_hr)


def area_listing(subs: pd.DataFrame, covers: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(area listing, soil listing) of one scenario's subcatchments.

    The area listing has one row per cover description and HSG: ``description, hsg,
    area_ac, cn, subcatchments``; impervious areas are listed as "impervious (connected)"
    and "impervious (unconnected)" with CN 98, and a subcatchment whose CN is given
    without covers as "CN given". The soil listing gives the area by HSG (``unknown`` for
    given-CN areas without an HSG) and its share of the total.
    """
    rows: list[dict] = []
    for c in covers.to_dict("records"):
        rows.append({"description": str(c["cover"]), "hsg": str(c["hsg"] or "unknown"),
                     "area_ac": float(c["area_ac"]), "cn": float(c["cn"]),
                     "subcatchment": str(c["subcatchment"])})
    with_covers = set(covers["subcatchment"]) if len(covers) else set()
    for sb in subs.to_dict("records"):
        hsg = str(sb.get("impervious_hsg") or "unknown")
        for key, label in (("impervious_connected_ac", "impervious (connected)"),
                           ("impervious_unconnected_ac", "impervious (unconnected)")):
            if float(sb.get(key) or 0.0) > 0:
                rows.append({"description": label, "hsg": hsg, "area_ac": float(sb[key]),
                             "cn": 98.0, "subcatchment": str(sb["subcatchment"])})
        if sb["subcatchment"] not in with_covers:
            imp = float(sb.get("impervious_connected_ac") or 0) + \
                float(sb.get("impervious_unconnected_ac") or 0)
            rest = float(sb["area_ac"]) - imp
            if rest > 1e-9:
                rows.append({"description": "CN given", "hsg": "unknown", "area_ac": rest,
                             "cn": float(sb.get("pervious_cn") or sb["cn"]),
                             "subcatchment": str(sb["subcatchment"])})
    frame = pd.DataFrame(rows, columns=["description", "hsg", "area_ac", "cn", "subcatchment"])
    if frame.empty:
        return (pd.DataFrame(columns=["description", "hsg", "area_ac", "cn", "subcatchments"]),
                pd.DataFrame(columns=["hsg", "area_ac", "share_pct"]))
    areas = (frame.groupby(["description", "hsg", "cn"], sort=True)
             .agg(area_ac=("area_ac", "sum"),
                  subcatchments=("subcatchment", lambda v: ", ".join(dict.fromkeys(v))))
             .reset_index()[["description", "hsg", "area_ac", "cn", "subcatchments"]])
    total = float(frame["area_ac"].sum())
    areas = pd.concat([areas, pd.DataFrame([{"description": "total", "hsg": "",
                                             "area_ac": total, "cn": np.nan,
                                             "subcatchments": ""}])], ignore_index=True)
    soils = frame.groupby("hsg", sort=True)["area_ac"].sum().reset_index()
    soils["share_pct"] = 100.0 * soils["area_ac"] / total if total > 0 else np.nan
    soils = pd.concat([soils, pd.DataFrame([{"hsg": "total", "area_ac": total,
                                             "share_pct": 100.0}])], ignore_index=True)
    return areas, soils


def tc_segment_table(segs: pd.DataFrame) -> pd.DataFrame:
    """Tc segments with the n used, velocity, channel capacity and travel time in minutes.

    ``n_used`` is the Manning n entered or the TR-55 Table 3-1 value of the surface key
    (sheet flow); ``velocity_fps`` = length / travel time; ``capacity_cfs`` = V a for a
    channel segment (Manning, TR-55 Eq. 3-4), empty otherwise.
    """
    from hydrocalc.tc import sheet_flow_n

    out = segs.copy()
    n_used = []
    for row in out.itertuples(index=False):
        n = row.n
        if (n is None or (isinstance(n, float) and math.isnan(n))) and row.type == "sheet" \
                and isinstance(row.surface, str) and row.surface:
            n = float(sheet_flow_n(row.surface))
        n_used.append(None if n is None or (isinstance(n, float) and math.isnan(n))
                      else float(n))
    out["n_used"] = pd.Series(n_used, dtype=float)
    t_hr = pd.to_numeric(out["travel_time_hr"], errors="coerce")
    out["velocity_fps"] = pd.to_numeric(out["length_ft"], errors="coerce") / (t_hr * 3600.0)
    area = pd.to_numeric(out["area_ft2"], errors="coerce")
    out["capacity_cfs"] = out["velocity_fps"].where(out["type"] == "channel") * area
    out["travel_time_min"] = t_hr * 60.0
    return out[["subcatchment", "segment", "type", "surface", "length_ft", "slope_ftft",
                "n_used", "p2_in", "velocity_fps", "capacity_cfs", "travel_time_min"]]


def tc_used_table(subs: pd.DataFrame) -> pd.DataFrame:
    """Per subcatchment: Tc computed and Tc used by the unit hydrograph, in minutes."""
    from hydrocalc.unit_hydrograph import MIN_TC_HR

    tc_hr = subs["tc_hr"].astype(float)
    return pd.DataFrame({"subcatchment": subs["subcatchment"],
                         "tc_method": subs["tc_method"],
                         "tc_min": tc_hr * 60.0,
                         "tc_used_min": np.maximum(tc_hr, MIN_TC_HR) * 60.0})


def conveyance_input_table(sc) -> pd.DataFrame:
    """One row per routed pipe/channel reach of a scenario: section, size, length, slope,
    Manning's n and full-flow capacity (empty without such reaches)."""
    rows = []
    for rch in sc.reaches:
        if rch.conveyance is None:
            continue
        spec = rch.conveyance_spec or {}
        sec = spec.get("section", "")
        if sec == "circular":
            size = f"{_fmt(spec['diameter_in'], 1)} in diameter"
        elif sec == "rectangular":
            size = f"{_fmt(spec['bottom_width_ft'])} ft wide, {_fmt(spec['depth_ft'])} ft deep"
        elif sec == "trapezoidal":
            size = (f"{_fmt(spec['bottom_width_ft'])} ft bottom, "
                    f"{_fmt(spec['side_slope_h_per_v'], 1)}:1 sides, "
                    f"{_fmt(spec['depth_ft'])} ft deep")
        else:
            size = (f"{len(spec.get('station_ft', ()))} station-elevation points, "
                    f"{_fmt(spec.get('depth_full_ft'))} ft bank-full")
        rows.append({"reach": rch.id, "to": rch.to, "section": sec, "size": size,
                     "length_ft": rch.conveyance.length_ft,
                     "slope_ftft": rch.conveyance.slope_ftft,
                     "manning_n": rch.conveyance.manning_n,
                     "full_flow_capacity_cfs": rch.conveyance.full_flow_capacity_cfs})
    return pd.DataFrame(rows, columns=["reach", "to", "section", "size", "length_ft",
                                       "slope_ftft", "manning_n", "full_flow_capacity_cfs"])


def conveyance_result_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Reach results per storm (from :attr:`SiteResults.conveyance` of one scenario): peak
    inflow and outflow, maximum depth and velocity, capacity and surcharge ("yes"/"no")."""
    out = frame[["reach", "storm", "peak_inflow_cfs", "peak_outflow_cfs",
                 "time_of_peak_outflow_hr", "max_depth_ft", "max_velocity_fps",
                 "full_flow_capacity_cfs", "surcharged"]].copy()
    out["surcharged"] = np.where(out["surcharged"].astype(bool), "yes", "no")
    return out.reset_index(drop=True)


def _rational_sentence(sc) -> str:
    n = len(sc.rational)
    area = sum(s.area_ac for s in sc.rational)
    return (f"{n} further subcatchment{'s' if n != 1 else ''} ({_fmt(area, 3)} acres) "
            f"{'are' if n != 1 else 'is'} computed by the rational method (Q = C i A) and "
            "feed the network with a modified rational hydrograph (storm duration = Tc) "
            "whose peak coincides with the design storm's most intense Tc; they are not in "
            "the curve-number totals above.")


def rational_table(frame: pd.DataFrame) -> pd.DataFrame:
    """Rational-method rows (from :attr:`SiteResults.rational` of one scenario): C, i, A,
    Tc, Q and the sources of i and C."""
    return frame[["subcatchment", "storm", "c", "intensity_in_hr", "area_ac", "tc_hr",
                  "peak_cfs", "intensity_source", "c_source"]].reset_index(drop=True)


def _add_rational_tables(b: _Builder, scenario: str) -> None:
    """The rational-method table of a scenario (nothing when it has no such subcatchment)."""
    sc = b.ctx.site.scenarios[scenario]
    if not sc.rational:
        return
    frame = _scenario_frame(b.ctx.results.rational, scenario)
    b.res.add_heading("Rational method subcatchments")
    b.res.add_table(Table("rational", "Rational method: Q = C i A by subcatchment and storm",
                          rational_table(frame),
                          caption="RATIONAL METHOD (not TR-55): Q = C i A with K = 1.0 "
                                  "(HEC-22 Eq. 3-1); i = average intensity for a duration "
                                  "equal to Tc; composite C area-weighted, each C chosen "
                                  "within its HEC-22 Table 3-1 range. Hydrograph: modified "
                                  "rational triangle with storm duration = Tc (peak flow, "
                                  "not a storage design volume).",
                          labels={"c": "C", "intensity_in_hr": "i [in/h]",
                                  "intensity_source": "source of i", "c_source": "source of C"},
                          decimals={"c": 3, "tc_hr": 3, "intensity_in_hr": 2},
                          key_columns=["subcatchment", "storm"]))


def _add_conveyance_tables(b: _Builder, scenario: str) -> None:
    """The pipe/channel reach tables of a scenario (nothing when it has none)."""
    sc = b.ctx.site.scenarios[scenario]
    if not any(rch.conveyance is not None for rch in sc.reaches):
        return
    conv = _scenario_frame(b.ctx.results.conveyance, scenario)
    b.res.add_heading("Pipe and channel reaches")
    b.res.add_table(Table("reach_inputs", "Pipe and channel reaches: section and capacity",
                          conveyance_input_table(sc),
                          caption="Capacity: Manning's equation (k = 1.49) flowing full "
                                  "(pipe) or bank-full (channel).",
                          labels={"manning_n": "n"},
                          decimals={"slope_ftft": 4, "manning_n": 3},
                          key_columns=["reach"]))
    b.res.add_table(Table("reaches", "Reach routing by storm: peaks, depth, velocity and "
                                     "surcharge", conveyance_result_table(conv),
                          caption="Variable-parameter Muskingum-Cunge routing (NEH 630 Ch. 17; "
                                  "Ponce and Chaganti 1994). Depth and velocity are those of "
                                  "normal flow at the reach outlet. Surcharged: the peak "
                                  "inflow exceeds the section's normal-flow capacity (a pipe "
                                  "pressurises, a channel spills); results above capacity "
                                  "are indicative only.",
                          key_columns=["reach", "storm"]))
    worst = conv[conv["surcharged"].astype(bool)]
    for _, row in worst.iterrows():
        w = (f"{scenario}.reach[{row['reach']}], storm {row['storm']}: peak inflow "
             f"{_q(row['peak_inflow_cfs'])} cfs exceeds the capacity "
             f"{_q(row['full_flow_capacity_cfs'])} cfs (surcharged)")
        b.notice(md_escape(w))


def _build_hydrology(b: _Builder, scenario: str) -> None:
    ctx = b.ctx
    site, r = ctx.site, ctx.results
    sc = site.scenarios[scenario]
    b.res.key = f"hydrology_{scenario}"
    b.res.title = SECTIONS[b.res.key].title
    subs = _scenario_frame(r.subcatchments, scenario)
    covers = _scenario_frame(r.covers, scenario)
    segs = _scenario_frame(r.tc_segments, scenario)
    nodes = _scenario_frame(r.nodes, scenario)
    area = float(subs["area_ac"].sum()) if len(subs) else 0.0
    imp = float((subs["impervious_connected_ac"] + subs["impervious_unconnected_ac"]).sum()) \
        if len(subs) else 0.0
    b.res.values.update({"area_ac": area, "impervious_ac": imp,
                         "subcatchments": int(len(subs))})
    sub_nodes = nodes[nodes["kind"] == "subcatchment"]
    dps = nodes[nodes["kind"] == "design_point"]
    text = [f"The {_SCENARIO_TITLE[scenario]} condition has {len(subs)} subcatchment"
            f"{'s' if len(subs) != 1 else ''} totalling {_fmt(area, 3)} acres, of which "
            f"{_fmt(imp, 3)} acres ({_fmt(100.0 * imp / area if area else 0.0, 1)} %) are "
            f"impervious. Curve numbers range from {_fmt(subs['cn'].min(), 1)} to "
            f"{_fmt(subs['cn'].max(), 1)} and times of concentration from "
            f"{_fmt(60.0 * subs['tc_hr'].min(), 1)} to {_fmt(60.0 * subs['tc_hr'].max(), 1)} "
            "min."]
    if sc.rational:
        text.append(_rational_sentence(sc))
    if sc.description:
        text.insert(0, md_escape(sc.description))
    if len(dps):
        depths = site.storms.depths_in
        largest = max(r.storms, key=lambda name: depths[name])
        for _, row in dps[dps["storm"] == largest].iterrows():
            text.append(f"At design point {md_escape(row['node'])} the largest design storm, "
                        f"{md_escape(row['storm'])}, peaks at {_q(row['peak_cfs'])} cfs at "
                        f"{_fmt(row['time_of_peak_hr'])} hr with "
                        f"{_fmt(row['volume_ft3'], 0)} ft³ of runoff "
                        f"({_fmt(row['runoff_in'])} in).")
        text.append("The tables below give every storm.")
    b.res.narrative_md = "\n\n".join([text[0], " ".join(text[1:])]) if len(text) > 1 \
        else text[0]
    cols = ["subcatchment", "to", "area_ac", "impervious_connected_ac",
            "impervious_unconnected_ac", "impervious_pct", "cn", "tc_hr"]
    b.res.add_table(Table("subcatchments", "Subcatchments", subs[cols],
                          decimals={"cn": 1, "tc_hr": 3, "impervious_pct": 1},
                          key_columns=["subcatchment"]))
    b.res.add_table(Table("subcatchment_methods", "How each curve number and Tc was obtained",
                          subs[["subcatchment", "cn_method", "tc_method", "description"]],
                          labels={"cn_method": "CN from", "tc_method": "Tc from"},
                          key_columns=["subcatchment"]))
    if len(covers):
        b.res.add_table(Table("covers", "Land cover, hydrologic soil group and curve number",
                              covers[["subcatchment", "cover", "hsg", "condition", "area_ac",
                                      "cn", "cn_given"]],
                              caption="CN from TR-55 Tables 2-2a to 2-2d unless given "
                                      "(cn_given); composite CN area-weighted (TR-55 Ch. 2).",
                              labels={"hsg": "HSG"}, key_columns=["subcatchment", "cover", "hsg"]))
    areas, soils = area_listing(subs, covers)
    b.res.add_table(Table("area_listing", "Area listing: cover, HSG, CN and subcatchments",
                          areas, decimals={"cn": 0}, key_columns=["description", "hsg"]))
    b.res.add_table(Table("soil_listing", "Soil listing: area by hydrologic soil group",
                          soils, labels={"hsg": "HSG"}, key_columns=["hsg"]))
    if len(segs):
        b.res.add_table(Table("tc_segments", "Time of concentration flow path segments",
                              tc_segment_table(segs),
                              caption="Sheet flow TR-55 Eq. 3-3 (n shown even when given by a "
                                      "surface key); shallow concentrated flow TR-55 Fig. 3-1 "
                                      "/ App. F; channel flow Manning (Eq. 3-4), capacity = "
                                      "V a.",
                              labels={"n_used": "n", "p2_in": "P2 [in]"},
                              decimals={"n_used": 3, "travel_time_min": 2},
                              key_columns=["subcatchment", "segment"]))
    tcs = tc_used_table(subs)
    b.res.add_table(Table("tc_used", "Time of concentration: computed and used", tcs,
                          decimals={"tc_min": 2, "tc_used_min": 2},
                          caption="The unit hydrograph uses Tc no shorter than 6 min "
                                  "(0.1 h, as TR-20 does).", key_columns=["subcatchment"]))
    for row in tcs.itertuples(index=False):
        if row.tc_used_min > row.tc_min + 1e-9:
            w = (f"{scenario}.subcatchment[{row.subcatchment}]: Tc {_fmt(row.tc_min)} min is "
                 f"below the 6-min minimum; the hydrograph uses {_fmt(row.tc_used_min)} min")
            b.notice(md_escape(w))
            b.res.warnings.append(w)
    b.res.add_heading("Runoff by subcatchment and storm")
    b.res.add_table(Table("subcatchment_runoff", "Peak, time of peak, volume and depth",
                          sub_nodes[["node", "storm", "area_ac", "peak_cfs",
                                     "time_of_peak_hr", "volume_ft3", "volume_acft",
                                     "runoff_in"]].rename(columns={"node": "subcatchment"}),
                          caption=("Rational-method subcatchments ("
                                   + ", ".join(md_escape(x.id) for x in sc.rational)
                                   + "): the volume is that of the modified rational "
                                     "triangle (Q Tc), not a storm runoff volume."
                                   if sc.rational else ""),
                          key_columns=["subcatchment", "storm"]))
    others = nodes[nodes["kind"] != "subcatchment"]
    if len(others):
        b.res.add_table(Table("network_nodes", "Flows at ponds, reaches and design points",
                              others[["node", "kind", "storm", "area_ac", "peak_inflow_cfs",
                                      "peak_cfs", "time_of_peak_hr", "volume_ft3",
                                      "volume_acft", "runoff_in"]],
                              caption="peak_cfs is the flow leaving the node (a pond's "
                                      "routed outflow).", key_columns=["node", "storm"]))
    _add_rational_tables(b, scenario)
    _add_conveyance_tables(b, scenario)
    for dp in sc.design_points:
        series = [(storm, r.time_hr, np.asarray(r.flow_cfs(scenario, storm, dp.id)))
                  for storm in r.storms]
        b.figure(f"hydrographs_{dp.id}", f"{_SCENARIO_TITLE[scenario].capitalize()} "
                 f"hydrographs at {dp.id}",
                 lambda series=series, dp=dp: F.hydrograph_comparison_figure(
                     f"hydrographs_{dp.id}", "", series, xlim=_active_window(series),
                     height_in=2.8))
    b.echo("inputs", f"{_SCENARIO_TITLE[scenario].capitalize()} "
                               "inputs as entered", [scenario], exclude=["pond"])
    b.res.warnings.extend(_analysis_warnings(ctx, f"hydrology_{scenario}"))


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


# -- ponds -------------------------------------------------------------------------------
def _spec_text(spec: Mapping) -> str:
    return ", ".join(f"{k} = {_as_text(v)}" for k, v in spec.items() if k not in ("id", "type"))


def device_table(pond) -> pd.DataFrame:
    """Every device of a pond with every coefficient as used (defaults included).

    Columns: ``device, type, invert_ft`` (invert or crest above the bottom; with
    ``invert_elevation_ft`` when the pond has ``bottom_elevation_ft``) and one column
    per coefficient or dimension (``diameter_in``, ``cd``, ``length_ft``, ``cw``,
    ``end_contractions``...), then the barrel (``n``, ``ke``...) when the pond has one.
    A culvert (``hydrocalc.culvert.Culvert``) lists its inlet invert as ``invert_ft``, its
    outlet invert, slope, size, n, ke and its HDS-5 Table A.1 constants (form, K, M, c, Y,
    Ks, chart, scale).
    """
    import dataclasses

    rows = []
    devices = list(zip(pond.outlet_ids, pond.outlet_types, pond.outlets))
    if getattr(pond, "barrel", None) is not None:
        devices.append(("barrel", "barrel", pond.barrel))
    for dev_id, kind, dev in devices:
        fields = dataclasses.asdict(dev) if dataclasses.is_dataclass(dev) else dict(vars(dev))
        row = {"device": dev_id, "type": kind,
               "invert_ft": fields.pop("invert_ft", fields.pop(
                   "crest_ft", fields.pop("inlet_invert_ft", None)))}
        fields.update(getattr(dev, "coefficients", None) or {})
        for k, v in fields.items():
            if k in ("name", "stage_storage") or v is None:
                continue
            row[k] = v if isinstance(v, (int, float, str)) else _as_text(v)
        datum = getattr(pond, "bottom_elevation_ft", None)
        if datum is not None and row["invert_ft"] is not None:
            row["invert_elevation_ft"] = float(row["invert_ft"]) + float(datum)
            if isinstance(row.get("outlet_invert_ft"), float):
                row["outlet_invert_elevation_ft"] = row["outlet_invert_ft"] + float(datum)
        rows.append(row)
    frame = pd.DataFrame(rows)
    return frame.astype(object).where(frame.notna(), None) if len(frame) else frame


def pond_summary(r, scenario: str, pond) -> pd.DataFrame:
    """Per storm: peak elevation (or stage), surface area and storage at peak, attenuation,
    lag, plug-flow and centre-of-mass detention times, inflow and outflow volumes; for a
    pond with a tailwater (constant, series or interconnected), its kind, peak level and
    the peak flow it drove back into the pond.

    Attenuation [%] = 100 (1 - Qout,peak / Qin,peak); lag [min] = time of the outflow peak
    minus time of the inflow peak (empty when nothing flows out). Detention times follow
    the two definitions HydroCAD prints in its pond summary (HydroCAD Software Solutions,
    "Detention Time", https://www.hydrocad.net/detentiontime.htm):

    * centre of mass: t_c,out - t_c,in with t_c = sum(t Q) / sum(Q) of each hydrograph;
    * plug flow (first in, first out): the mean, over the volume passed downstream, of
      t_out(V) - t_in(V), the times at which the cumulative outflow and inflow volumes reach
      V (199 equal volume steps, linear interpolation of the mass curves).

    The outflow is the flow passed downstream; exfiltrated water is not part of it.
    """
    pr = r.ponds
    rows = pr[(pr["scenario"] == scenario) & (pr["pond"] == pond.id)]
    datum = getattr(pond, "bottom_elevation_ft", None)
    ss = pond.stage_storage
    t = np.asarray(r.time_hr, dtype=float)
    out = []
    for row in rows.to_dict("records"):
        storm = row["storm"]
        qin = np.asarray(r.flow_cfs(scenario, storm, pond.id, which="inflow"), dtype=float)
        qout = np.asarray(r.flow_cfs(scenario, storm, pond.id), dtype=float)
        pin, pout = float(qin.max()), float(qout.max())
        com = plug = math.nan
        if qin.sum() > 0 and qout.sum() > 0:
            com = (float((t * qout).sum() / qout.sum()) - float((t * qin).sum() / qin.sum()))
            cin, cout = np.cumsum(qin), np.cumsum(qout)
            levels = np.linspace(0.0, float(cout[-1]), 201)[1:-1]
            if len(levels):
                t_in = np.interp(levels, cin, t)
                t_out = np.interp(levels, cout, t)
                plug = float(np.mean(t_out - t_in))
        stage = float(row["peak_stage_ft"])
        area = float(np.asarray(ss.area_ft2(stage))) if hasattr(ss, "area_ft2") else math.nan
        out.append({
            "storm": storm,
            ("peak_elevation_ft" if datum is not None else "peak_stage_ft"):
                stage + float(datum) if datum is not None else stage,
            "surface_area_ft2": area,
            "storage_ft3": float(row["peak_storage_ft3"]),
            "peak_inflow_cfs": pin, "peak_outflow_cfs": pout,
            "attenuation_pct": 100.0 * (1.0 - pout / pin) if pin > 0 else math.nan,
            "lag_min": 60.0 * (float(t[int(np.argmax(qout))]) - float(t[int(np.argmax(qin))]))
            if pout > 0 else math.nan,
            "plug_flow_detention_min": 60.0 * plug,
            "center_of_mass_detention_min": 60.0 * com,
            "inflow_volume_acft": float(row["inflow_volume_ft3"]) / 43560.0,
            "outflow_volume_acft": float(row["outflow_volume_ft3"]) / 43560.0,
        })
        if row.get("tailwater") not in (None, "free"):
            # tailwater at the outlets (a constant, a series or the level of the pond
            # downstream for interconnected ponds) and any flow it drove back into the pond
            out[-1].update({"tailwater": row["tailwater"],
                            "peak_tailwater_ft": row.get("peak_tailwater_ft"),
                            "peak_reverse_cfs": float(row.get("peak_reverse_cfs") or 0.0)})
    return pd.DataFrame(out)


def _build_ponds(b: _Builder) -> None:
    from hydrocalc.outlets import rating_table

    ctx = b.ctx
    site, r = ctx.site, ctx.results
    ponds = [(name, p) for name, sc in site.scenarios.items() for p in sc.ponds]
    if not ponds:
        b.res.narrative_md = "Neither scenario has a pond, infiltration practice or other " \
                             "storage node; flows pass the network unrouted."
        return
    pr = r.ponds
    text = []
    for name, pond in ponds:
        rows = pr[(pr["scenario"] == name) & (pr["pond"] == pond.id)]
        worst = rows.loc[rows["freeboard_ft"].idxmin()]
        over = rows[rows["overtopped"]]
        text.append(
            f"{md_escape(pond.id)} ({_SCENARIO_TITLE[name]}): the largest storm routed, "
            f"{md_escape(worst['storm'])}, reaches a stage of {_fmt(worst['peak_stage_ft'])} ft "
            f"(storage {_fmt(worst['peak_storage_ft3'], 0)} ft³) with "
            f"{_fmt(worst['freeboard_ft'])} ft of freeboard to the top at "
            f"{_fmt(worst['top_stage_ft'])} ft; peak inflow {_fmt(worst['peak_inflow_cfs'])} "
            f"cfs is reduced to {_fmt(worst['peak_outflow_cfs'])} cfs."
            + (f" **Overtopped** in {', '.join(md_escape(s) for s in over['storm'])}."
               if len(over) else ""))
    b.res.narrative_md = " ".join(text)
    for name, pond in ponds:
        label = f"{pond.id} ({_SCENARIO_TITLE[name]})"
        b.res.add_heading(f"Pond {label}")
        tag = f"{name}_{pond.id}"
        facts = [("storage", "; ".join(f"{sp.get('type', '')}: {_spec_text(sp)}"
                                       for sp in pond.storage_spec)),
                 ("units (identical, sharing the inflow)", str(pond.count)),
                 ("initial stage [ft]", _as_text(pond.initial_stage_ft)),
                 ("discharges to", pond.to)]
        if pond.barrel_spec:
            facts.append(("barrel", _spec_text(pond.barrel_spec)))
        if pond.description:
            facts.append(("description", pond.description))
        b.res.add_table(Table(f"{tag}_storage", f"Storage of {label}",
                              pd.DataFrame(facts, columns=["item", "value"]),
                              key_columns=["item"]))
        b.res.add_table(Table(f"{tag}_devices", f"Outlet devices of {label} (in parallel), "
                              "every coefficient", device_table(pond), key_columns=["device"],
                              caption="Coefficients as used, defaults included (cd orifice, "
                                      "cw weir, end contractions, barrel n and ke)."))
        rating = rating_table(pond.structure(), stage_storage=pond.stage_storage, n=16)
        b.res.add_table(Table(f"{tag}_rating", f"Stage-storage-discharge of {label} (one unit)",
                              rating, decimals={"stage_ft": 2},
                              caption="Orifices Q = Cd A (2 g h)^0.5, weirs Q = Cw L H^1.5 "
                                      "(hydrocalc.outlets); storage from the geometry.",
                              key_columns=["stage_ft"]))
        rows = pr[(pr["scenario"] == name) & (pr["pond"] == pond.id)]
        cols = ["storm", "peak_inflow_cfs", "peak_outflow_cfs", "time_of_peak_outflow_hr",
                "peak_stage_ft", "peak_storage_ft3", "top_stage_ft", "freeboard_ft",
                "discarded_ft3", "end_storage_ft3", "overtopped", "mass_balance_error_pct"]
        b.res.add_table(Table(f"{tag}_summary", f"Summary of {label} per storm",
                              pond_summary(r, name, pond), key_columns=["storm"],
                              decimals={"attenuation_pct": 1, "lag_min": 1,
                                        "plug_flow_detention_min": 1,
                                        "center_of_mass_detention_min": 1},
                              caption="Attenuation = 1 - peak out / peak in; lag = time of "
                                      "peak outflow - time of peak inflow; centre-of-mass "
                                      "detention = outflow centroid - inflow centroid; "
                                      "plug-flow detention = mean time between equal "
                                      "cumulative inflow and outflow volumes. Outflow is the "
                                      "flow passed downstream (exfiltration excluded), so "
                                      "losses can make the detention times short or "
                                      "negative. Elevation = stage + the pond's "
                                      "bottom_elevation_ft when given, else the stage."))
        b.res.add_table(Table(f"{tag}_routing", f"Routed peaks of {label}", rows[cols],
                              decimals={"mass_balance_error_pct": 4},
                              labels={"discarded_ft3": "Exfiltrated [ft³]"},
                              key_columns=["storm"]))
        devs = r.devices
        devs = devs[(devs["scenario"] == name) & (devs["pond"] == pond.id)]
        if len(devs):
            b.res.add_table(Table(f"{tag}_device_flows", f"Peak flow through each device of "
                                  f"{label}", devs[["storm", "device", "type", "peak_cfs",
                                                    "time_of_peak_hr", "volume_ft3"]],
                                  key_columns=["storm", "device"]))
        marks = [(f"{s} peak stage", float(v)) for s, v in
                 zip(rows["storm"], rows["peak_stage_ft"])]
        b.figure(f"{tag}_rating", f"Stage-storage-discharge of {label}",
                 lambda rating=rating, marks=marks: F.stage_storage_discharge_figure(
                     "", "", rating["stage_ft"].to_numpy(), rating["storage_ft3"].to_numpy(),
                     rating["total_cfs"].to_numpy(), marks=marks))
        series = []
        for storm in r.storms:
            series.append((f"{storm} inflow", r.time_hr,
                           np.asarray(r.flow_cfs(name, storm, pond.id, which="inflow"))))
            series.append((f"{storm} outflow", r.time_hr,
                           np.asarray(r.flow_cfs(name, storm, pond.id))))
        b.figure(f"{tag}_routing", f"Inflow and outflow of {label}",
                 lambda series=series: F.routing_figure("", "", series,
                                                        xlim=_active_window(series)))
    b.echo("inputs", "Pond inputs as entered", ["pre.pond", "post.pond"])
    b.res.warnings.extend(_analysis_warnings(ctx, "ponds"))


# -- pre/post comparison -----------------------------------------------------------------
def _build_comparison(b: _Builder) -> None:
    ctx = b.ctx
    site, r = ctx.site, ctx.results
    comp = r.comparison
    n_ok = int(comp["post_le_pre"].sum())
    text = [f"The post-development peak is at or below the pre-development peak in {n_ok} of "
            f"{len(comp)} design-point and storm combinations."]
    for _, row in comp.iterrows():
        where = f"{md_escape(row['design_point'])}, {md_escape(row['storm'])}"
        if _q(row["pre_peak_cfs"]) == _q(row["post_peak_cfs"]):
            sentence = f"{where}: the peak is unchanged at {_q(row['pre_peak_cfs'])} cfs"
        else:
            verb = "falls" if row["peak_change_cfs"] < 0 else "rises"
            sentence = (f"{where}: the peak {verb} from {_q(row['pre_peak_cfs'])} to "
                        f"{_q(row['post_peak_cfs'])} cfs ({_fmt(row['peak_change_pct'], 1)} %)")
        if math.isfinite(row["volume_change_pct"]):
            sentence += f", the runoff volume changes by {_fmt(row['volume_change_pct'], 1)} %"
        text.append(sentence + ".")
    b.res.narrative_md = text[0] + "\n\n" + " ".join(text[1:])
    b.res.values.update({"combinations": int(len(comp)), "post_le_pre": n_ok})
    scen = []
    for name in ("pre", "post"):
        sc = site.scenarios[name]
        scen.append((f"{_SCENARIO_TITLE[name].capitalize()}",
                     [(n.id, n.kind) for n in sc.nodes.values()],
                     [(n.id, n.to) for n in sc.nodes.values() if n.to]))
    b.res.values["routing_diagram"] = {
        name: F.diagram_elements(nodes, edges)
        for name, (_, nodes, edges) in zip(("pre", "post"), scen)}
    b.figure("routing_diagram", "Routing diagram (pre- and post-development)",
             lambda: F.routing_diagram_figure("routing_diagram", "", scen))
    areas = {name: float(site.scenarios[name].area_ac) for name in ("pre", "post")}
    tol = float(getattr(site.options, "area_tolerance_pct", 1.0))
    diff_pct = 100.0 * abs(areas["post"] - areas["pre"]) / areas["pre"] if areas["pre"] else 0.0
    b.res.values.update({"pre_area_ac": areas["pre"], "post_area_ac": areas["post"],
                         "area_difference_pct": diff_pct, "area_tolerance_pct": tol})
    if diff_pct > tol:
        w = (f"pre- and post-development total areas differ: pre {_fmt(areas['pre'], 3)} ac, "
             f"post {_fmt(areas['post'], 3)} ac ({_fmt(diff_pct, 1)} %, more than the "
             f"{_fmt(tol, 1)} % tolerance, checks.area_tolerance_pct); check the "
             "subcatchment areas")
        b.notice(md_escape(w))
        b.res.warnings.append(w)
    b.res.add_table(Table("peak_comparison", "Pre- and post-development peaks and volumes",
                          comp, decimals={"peak_change_pct": 1, "volume_change_pct": 1},
                          labels={"post_le_pre": "Post ≤ pre"},
                          key_columns=["design_point", "storm"]))
    for dp in site.design_point_ids:
        b.res.add_heading(f"Design point {dp}")
        panels = []
        for storm in r.storms:
            panels.append((storm, [
                ("Pre-development", r.time_hr, np.asarray(r.flow_cfs("pre", storm, dp))),
                ("Post-development", r.time_hr, np.asarray(r.flow_cfs("post", storm, dp)))]))
        b.figure(f"hydrographs_{dp}", f"Pre- and post-development hydrographs at {dp}, "
                 "one panel per storm",
                 lambda panels=panels: F.panel_hydrograph_figure(
                     "", "", panels, window=_active_window))
    b.res.warnings.extend(_analysis_warnings(ctx, "comparison"))


# -- NY sizing criteria ------------------------------------------------------------------
def _build_criteria(b: _Builder) -> None:
    from hydrocalc.criteria import ny

    ctx = b.ctx
    site, r = ctx.site, ctx.results
    crit = r.criteria
    if site.criteria.standard == "none" or crit.empty:
        b.res.narrative_md = "No sizing-criteria standard applies to this site " \
                             "(criteria.standard = none)."
        b.echo("inputs", "Criteria settings as entered", ["criteria"])
        return
    failed = crit[crit["result"] == "fail"]
    waived = crit[crit["result"] == "waived"]
    text = [f"{len(crit)} checks of the NY unified sizing criteria were evaluated: "
            f"{int((crit['result'] == 'pass').sum())} meet, {len(failed)} FAIL"
            + (f", {len(waived)} waived" if len(waived) else "") + "."]
    crit_summary = [r for r in ctx.summary["criteria"]]
    for cr in crit_summary:
        if cr["status"] == "FAILS":
            text.append(md_escape(cr["failure"]) + ".")
    for cr in crit_summary:
        if cr["status"] == "not evaluated":
            text.append(f"{md_escape(cr['item'])}: not evaluated: {md_escape(cr['reason'])}.")
    unverified = sorted({s for s in crit["symbol"][crit["status"].str.contains(
        "unverified", case=False, na=False)]})
    if unverified:
        text.append("Criteria values whose source is not yet verified ("
                    + ", ".join(md_escape(s) for s in unverified)
                    + ") are listed once, in \"Values to confirm before submission\" in the "
                      "project summary.")
    b.res.narrative_md = text[0] + "\n\n" + " ".join(text[1:])
    b.res.values.update({"checks": int(len(crit)), "failed": int(len(failed)),
                         "passed_all": bool(len(failed) == 0)})
    shown = crit[["symbol", "criterion", "design_point", "storm", "required",
                  "provided", "units", "comparison", "result"]].copy()
    shown["status"] = [cr["status"] for cr in crit_summary[:len(shown)]]
    shown["comparison"] = shown["comparison"].map(
        lambda c: "needs provided ≤ allowed (the pre-development peak)" if "<=" in str(c)
        else "needs provided ≥ required" if ">=" in str(c) else str(c))
    b.res.add_table(Table("criteria_results", "Required, provided and status",
                          shown.drop(columns=["result"]),
                          labels={"comparison": "Rule"},
                          key_columns=["criterion", "design_point"]))
    b.res.add_table(Table("criteria_basis", "Equations and methods",
                          crit[["symbol", "criterion", "design_point", "equation", "method",
                                "note"]],
                          key_columns=["criterion", "design_point"]))
    b.res.add_table(Table("criteria_sources", "Sources and verification status",
                          crit[["symbol", "criterion", "design_point", "source", "location",
                                "status"]],
                          key_columns=["criterion", "design_point"]))
    rows = []
    for key, det in (r.criteria_details or {}).items():
        for name, value in det.items():
            rows.append({"criterion": key, "quantity": name,
                         "value": value if isinstance(value, (int, float, bool)) or
                         value is None else _as_text(value),
                         "unit": _unit_of(name)})
    b.res.add_table(Table("criteria_details", "Computation details", pd.DataFrame(
        rows, columns=["criterion", "quantity", "value", "unit"]),
        key_columns=["criterion", "quantity"]))
    table = ny.criteria_table()
    b.res.add_table(Table("criteria_values", "NY SMDM criteria as shipped (source and status)",
                          table[["symbol", "criterion", "design_event", "rule", "source",
                                 "location", "status"]], key_columns=["symbol"]))
    if site.criteria.rrv_specific_reduction_factor is not None:
        # the analysis used the site's own factors (analysis.py, RRv): show those, not the table
        srf = {"factors": dict(site.criteria.rrv_specific_reduction_factor),
               "source": "site file", "location": "criteria.rrv_specific_reduction_factor",
               "status": "user input"}
    else:
        srf = ny.specific_reduction_factors(site.criteria.rrv_factors)
    b.res.add_table(Table("rrv_factors", "Specific reduction factors S by HSG used for RRv",
                          pd.DataFrame([{"hsg": k, "specific_reduction_factor": v}
                                        for k, v in srf["factors"].items()]),
                          caption=f"{srf['source']}, {srf['location']}; status: "
                                  f"{srf['status']}.", labels={"hsg": "HSG"},
                          key_columns=["hsg"]))
    b.echo("inputs", "Criteria settings as entered", ["criteria"])
    b.res.warnings.extend(_analysis_warnings(ctx, "criteria"))


# -- construction: sediment traps and inspections ----------------------------------------
def _construction(ctx: Context):
    """(plan, profile, rainfall record or None) of the site's [construction] table."""
    from hydrocalc.regulations import load_profile

    plan = ctx.site.construction
    profile = load_profile(ctx.site.project.municipality)
    rain = None
    if plan is not None and getattr(plan, "rainfall_file", None):
        from hydrocalc.daily_rain import rainfall_for_plan

        rain = ctx._cached("rainfall", rainfall_for_plan, plan)
    return plan, profile, rain


def _build_sediment(b: _Builder) -> None:
    from hydrocalc import sediment as sed

    ctx = b.ctx
    plan, profile, rain = _construction(ctx)
    traps = sed.plan_traps(plan) if plan is not None else []
    if not traps:
        b.res.narrative_md = "The site file lists no sediment traps or basins " \
                             "([[construction.trap]])."
        return
    frac = profile.cleanout_fraction or 0.5
    checks = [t.check(cleanout_frac=frac) for t in traps]
    rows = [c.to_dict() for c in checks]
    frame = pd.DataFrame(rows)
    cols = ["trap_id", "drainage_area_ac", "criteria", "required_ft3", "lower_zone_ft3",
            "upper_zone_ft3", "provided_ft3", "provided_ok", "design_capacity_ft3",
            "cleanout_frac", "cleanout_volume_ft3", "cleanout_stage_ft", "depth_ft"]
    b.res.add_table(Table("trap_checks", "Required and provided storage, cleanout mark",
                          frame[cols], labels={"provided_ok": "Provided ≥ required",
                                               "trap_id": "Trap"},
                          caption=f"Cleanout when the design capacity is reduced by "
                                  f"{_fmt(100.0 * frac, 0)} % ({profile.cite('cleanout')}).",
                          key_columns=["trap_id"]))
    crit_rows = [{"trap_id": c.trap_id, "criteria": c.criteria.key,
                  "source": c.criteria.label, "method": c.criteria.method,
                  "status": c.criteria.status, "note": c.criteria.note} for c in checks]
    b.res.add_table(Table("trap_criteria", "Sizing criteria: source and verification status",
                          pd.DataFrame(crit_rows), key_columns=["trap_id"]))
    text = []
    for c in checks:
        if c.ok is False:
            w = (f"sediment trap {c.trap_id} FAILS: provided {_fmt(c.provided_ft3, 0)} ft³ < "
                 f"required {_fmt(c.required_ft3, 0)} ft³ ({c.criteria.key})")
            b.notice(md_escape(w))
            b.res.warnings.append(w)
        ok = {True: "meets", False: "does **not** meet", None: "cannot be checked against"}[c.ok]
        text.append(f"Trap {md_escape(c.trap_id)} ({_fmt(c.drainage_area_ac, 2)} ac drainage) "
                    f"requires {_fmt(c.required_ft3, 0)} ft³ under "
                    f"{md_escape(c.criteria.key)} (status: {md_escape(c.criteria.status)}); "
                    f"its geometry provides {_fmt(c.provided_ft3, 0)} ft³ and {ok} the "
                    f"requirement. Clean it out when sediment reaches "
                    f"{_fmt(c.cleanout_volume_ft3, 0)} ft³"
                    + (f", a depth of {_fmt(c.cleanout_stage_ft)} ft above the bottom."
                       if c.cleanout_stage_ft is not None else "."))
    schedules = []
    if rain is not None and any(t.k_factor is not None for t in traps):
        from hydrocalc.site import _tr55_type

        rtype = getattr(plan, "rainfall_type", None)
        if rtype is None:
            rtype = _tr55_type(ctx.site.storms.distribution)
            if rtype is None:
                raise InputError(
                    "construction.rainfall_type must be given for the daily MUSLE peak "
                    "discharges (\"II\" or \"III\", TR-55 distribution); got nothing, and "
                    f"the design storms' distribution {ctx.site.storms.distribution!r} is not "
                    "an NRCS type to fall back on. Add construction.rainfall_type.")
            b.res.warnings.append(
                f"construction.rainfall_type is not given: the daily MUSLE peak discharges "
                f"use the design storms' NRCS Type {rtype} distribution. Set "
                "construction.rainfall_type to choose another.")
        schedules = ctx._cached("cleanout", sed.plan_cleanout_schedules, plan,
                                rain.precip_in, cleanout_frac=frac, rainfall_type=rtype)
    if schedules:
        rows, series = [], []
        for sch in schedules:
            d = sch.daily
            for day in sch.cleanout_dates:
                rows.append({"trap_id": sch.trap_id, "cleanout_date": day.isoformat(),
                             "accumulated_ft3": float(
                                 d.loc[pd.Timestamp(day), "accumulated_before_cleanout_ft3"])})
            dates = ", ".join(x.isoformat() for x in sch.cleanout_dates) or "none"
            text.append(f"With the daily record {md_escape(rain.station_name or rain.source)}, "
                        f"MUSLE predicts {_fmt(sch.total_yield_tons, 2)} tons of sediment "
                        f"reaching trap {md_escape(sch.trap_id)} from {plan.start_date} to "
                        f"{plan.end_date} ({_fmt(sch.total_trapped_ft3, 0)} ft³ trapped); "
                        f"predicted cleanouts: {dates}.")
            series.append((sch.trap_id, d.index.to_numpy(),
                           d["accumulated_before_cleanout_ft3"].to_numpy(),
                           sch.check.cleanout_volume_ft3))
            b.res.warnings.extend(f"trap {sch.trap_id}: {w}" for w in sch.warnings)
        summary = pd.DataFrame([{"trap_id": s.trap_id, "rainfall_type": s.rainfall_type,
                                 "total_yield_tons": s.total_yield_tons,
                                 "total_trapped_ft3": s.total_trapped_ft3,
                                 "cleanouts": len(s.cleanout_dates)} for s in schedules])
        b.res.add_heading("Predicted sediment accumulation and cleanout")
        b.res.add_table(Table("musle_summary", "MUSLE sediment yield over the construction "
                              "period", summary, key_columns=["trap_id"]))
        b.res.add_table(Table("cleanout_dates", "Predicted cleanout dates",
                              pd.DataFrame(rows, columns=["trap_id", "cleanout_date",
                                                          "accumulated_ft3"]),
                              key_columns=["trap_id", "cleanout_date"]))
        b.figure("accumulation", "Sediment accumulated in each trap",
                 lambda: F.accumulation_figure("", "", series))
    elif rain is None:
        text.append("No daily rainfall record is given (construction.rainfall_file), so no "
                    "cleanout dates are predicted.")
    b.res.narrative_md = " ".join(text)
    b.echo("inputs", "Trap inputs as entered", ["construction.trap"])
    b.res.warnings.extend(ctx.step_warnings("rainfall", "cleanout"))
    if rain is not None:
        b.res.warnings.extend(f"rainfall record: {n}" for n in rain.notes)


def _build_inspections(b: _Builder) -> None:
    from hydrocalc import inspections as insp

    ctx = b.ctx
    plan, profile, rain = _construction(ctx)
    if plan is None:
        b.res.narrative_md = "The site file has no [construction] table, so no inspection " \
                             "schedule is computed."
        return
    text = []
    if rain is not None:
        sched = ctx._cached("inspections", insp.schedule_for_profile, profile,
                            plan.start_date, plan.end_date,
                            rain.window(plan.start_date, plan.end_date),
                            threshold_in=plan.inspection_threshold_in,
                            clock=plan.inspection_clock,
                            multiday_events=plan.storm_event == "multi_day")
        frame = sched.to_frame()
        by_month = sched.count_by_month().reset_index()
        n_storm = int(frame["storm"].sum())
        text.append(
            f"From {plan.start_date} to {plan.end_date}, {md_escape(profile.name)} requires an "
            f"inspection every {sched.interval_days} days and after every day with "
            f"{_fmt(sched.threshold_in)} in of rain or more ({md_escape(sched.citation)}). "
            f"With the daily record {md_escape(rain.station_name or rain.source)} that is "
            f"{len(frame)} inspections, {n_storm} of them prompted by "
            f"{len(sched.storm_days)} storm days. {sched.storm_event_text}")
        b.res.values.update({"storm_event_reading": sched.storm_event_reading})
        b.res.values.update({"inspections": int(len(frame)),
                             "storm_days": int(len(sched.storm_days)),
                             "interval_days": sched.interval_days,
                             "threshold_in": sched.threshold_in})
        b.res.add_table(Table("inspection_dates", "Estimated inspection dates (from the daily "
                              "rainfall record named below; an estimate, not a schedule)", frame,
                              key_columns=["date"]))
        b.res.add_table(Table("inspections_by_month", "Inspections per month", by_month,
                              key_columns=["month"]))
        days = sched.precip_in
        visits = [(v.date, "storm" if v.storm and not v.routine else
                   "routine and storm" if v.storm else "routine") for v in sched.visits]
        b.figure("calendar", "Daily rainfall and required inspections",
                 lambda: F.inspection_calendar_figure(
                     "", "", days.index.to_numpy(), days.to_numpy(), visits,
                     threshold_in=sched.threshold_in))
        rec = pd.DataFrame([("file", str(pathlib.Path(rain.source).name)),
                            ("station", rain.station), ("station name", rain.station_name),
                            ("format", rain.file_format), ("units in file", rain.units_in_file),
                            ("record", f"{rain.start} to {rain.end}"),
                            ("trace days", str(rain.trace_days))], columns=["item", "value"])
        b.res.add_table(Table("rainfall_record", "Daily rainfall record", rec,
                              key_columns=["item"]))
        b.res.warnings.extend(f"rainfall record: {n}" for n in rain.notes)
    else:
        text.append("No daily rainfall record is given (construction.rainfall_file); storm "
                    "inspections cannot be dated in advance.")
    notices = insp.notice_schedule(profile, plan.milestones) if plan.milestones else []
    if notices:
        b.res.add_table(Table("notices", "Advance notices before milestones", pd.DataFrame([{
            "milestone": n.milestone_key, "milestone_text": n.milestone_text,
            "milestone_at": _when(n.milestone_at), "notice_due": _when(n.notice_due),
            "notify_by_date": n.notify_by_date.isoformat(), "citation": n.citation}
            for n in notices]), key_columns=["milestone"]))
        text.append(f"{len(notices)} advance notices are due before construction milestones "
                    f"(first: notify by {notices[0].notify_by_date}).")
    b.res.narrative_md = " ".join(text)
    b.echo("inputs", "Construction inputs as entered", ["construction"], exclude=["trap"])
    b.res.warnings.extend(ctx.step_warnings("rainfall", "inspections"))


_REFERENCES = (
    ("TR-55", "USDA Soil Conservation Service (1986). Urban Hydrology for Small Watersheds, "
              "Technical Release 55, 2nd ed. Washington, DC."),
    ("NEH 630 Ch. 15", "USDA NRCS (2010). National Engineering Handbook, Part 630 "
                       "Hydrology, Chapter 15: Time of Concentration."),
    ("NEH 630 Ch. 16", "USDA NRCS (2007). National Engineering Handbook, Part 630 "
                       "Hydrology, Chapter 16: Hydrographs."),
    ("NEH 630 Ch. 17", "USDA NRCS (2014). National Engineering Handbook, Part 630 "
                       "Hydrology, Chapter 17: Flood Routing."),
    ("WinTR-20", "USDA NRCS (2015). WinTR-20 Project Formulation Hydrology, user guide and "
                 "rainfall distribution tables."),
    ("Chow et al. 1988", "Chow, V. T., Maidment, D. R., Mays, L. W. (1988). Applied "
                         "Hydrology. McGraw-Hill, Section 8.2 (level-pool routing)."),
    ("NYS SMDM", "NYSDEC (2015). New York State Stormwater Management Design Manual, "
                 "Chapter 4: Unified Stormwater Sizing Criteria."),
    ("NYS Blue Book", "NYSDEC / Empire State Chapter SWCS (2016). New York State "
                      "Standards and Specifications for Erosion and Sediment Control."),
    ("Williams 1975", "Williams, J. R. (1975). Sediment-yield prediction with universal "
                      "equation using runoff energy factor. ARS-S-40, USDA, pp. 244-252 "
                      "(MUSLE)."),
)


def _uses_conveyance(site) -> bool:
    return any(rch.conveyance is not None for sc in site.scenarios.values()
               for rch in sc.reaches)


def _conveyance_methods(site) -> list[tuple[str, str, str]]:
    """Methods rows of routed pipe/channel reaches and of rational subcatchments, only when
    the site has them."""
    rows = []
    if any(sc.rational for sc in site.scenarios.values()):
        rows.append(("Rational method", "Q = C i A for the subcatchments marked rational; "
                     "composite C; intensity for a duration equal to Tc; modified rational "
                     "hydrograph with storm duration = Tc",
                     "HEC-22 Sec. 3.2.2 and Table 3-1; Kuichling 1889; Poertner 1974"))
    if not _uses_conveyance(site):
        return rows
    return rows + [("Pipe and channel reaches",
             "variable-parameter Muskingum-Cunge routing; Manning's equation (k = 1.49) for "
             "normal depth, velocity and full-flow capacity",
             "NEH 630 Ch. 17; Ponce and Chaganti 1994; TR-55 Eq. 3-4")]


def _conveyance_references(site) -> tuple:
    refs = ()
    if any(sc.rational for sc in site.scenarios.values()):
        refs += (("HEC-22", "FHWA (2009). Urban Drainage Design Manual, Hydraulic Engineering "
                  "Circular No. 22, 3rd ed., FHWA-NHI-10-009, Section 3.2.2 and Table 3-1."),
                 ("Kuichling 1889", "Kuichling, E. (1889). The relation between the rainfall "
                  "and the discharge of sewers in populous districts. Transactions ASCE 20, "
                  "1-56."),
                 ("Poertner 1974", "Poertner, H. G. (1974). Practices in Detention of Urban "
                  "Stormwater Runoff. APWA Special Report No. 43 (modified rational method)."))
        if getattr(site.rational, "source", "") == "idf":
            refs += (("TxDOT HDM", "Texas Department of Transportation (2019). Hydraulic "
                      "Design Manual, Ch. 4 Sec. 12, Rational Method (IDF equation "
                      "i = b / (t + d)^e)."),)
    if not _uses_conveyance(site):
        return refs
    return refs + (("Ponce and Chaganti 1994", "Ponce, V. M., Chaganti, P. V. (1994). "
             "Variable-parameter Muskingum-Cunge method revisited. Journal of Hydrology 162, "
             "433-439."),)


def tables_used(ctx: Context) -> list[str]:
    """The shipped tables (and regulation profile) the computation of this site reads.

    Determined from what the computation used, so the list is the same whichever sections
    a process computed first (the loader's own record, :func:`hydrocalc.data.tables_read`,
    depends on the process's history because callers cache their tables): the curve-number
    table of every cover looked up, the sheet-flow n table when a segment names a surface,
    the unit hydrograph, the rainfall distribution's table, the criteria tables when
    criteria are evaluated, the sediment-trap criteria and MUSLE factor tables when traps
    are checked, and the municipality's profile.
    """
    from hydrocalc import data, rainfall, runoff

    site, r = ctx.site, ctx.results
    used: list[str] = []
    covers = r.covers
    if len(covers):
        looked_up = covers[~covers["cn_given"].astype(bool)] if "cn_given" in covers else covers
        if len(looked_up):
            frame = runoff._cn_frame()
            keys = set(looked_up["cover"].astype(str))
            used += [t for t in runoff.CN_TABLES
                     if keys & set(frame.loc[frame["table"] == t, "key"])]
    segs = r.tc_segments
    if len(segs) and "surface" in segs and segs["surface"].fillna("").astype(str).str.len().gt(0) \
            .any() and (segs["type"] == "sheet").any():
        used.append("tr55_sheet_flow_n")
    if any(s.covers for sc in site.scenarios.values() for s in sc.rational):
        used.append("rational_runoff_coefficients")
    used.append("nrcs_dimensionless_uh")
    key = rainfall._canonical(site.storms.distribution)
    if key is not None:
        used.append(rainfall._SHIPPED[key][0])
    if site.criteria.standard != "none" and not r.criteria.empty:
        used.append("ny_sizing_criteria")
        if site.criteria.rrv_specific_reduction_factor is None:
            used.append("ny_rrv_specific_reduction_factors")
    plan = site.construction
    if ctx.trap_checks:
        used.append("sediment_trap_criteria")
        if any(getattr(t, "k_factor", None) is not None for t in getattr(plan, "traps", ())):
            used += ["musle_c_factors", "musle_p_factors", "sediment_dry_unit_weight"]
    used.append(f"regulation_profile_{site.project.municipality}")
    known = set(data.list_tables(kind=None))
    return [t for t in dict.fromkeys(used) if t in known]


def _build_methods(b: _Builder) -> None:
    import hydrocalc
    from hydrocalc import data

    site = b.ctx.site
    opt = site.options
    methods = [
        ("Runoff depth", "NRCS curve number, Q = (P - Ia)² / (P - Ia + S), S = 1000/CN - 10, "
                         f"Ia = {opt.ia_ratio:g} S", "TR-55 Ch. 2, Eqs. 2-1 to 2-4"),
        ("Composite CN", "area-weighted CN; impervious cover CN 98, connected (Fig. 2-3) or "
                         "unconnected (Fig. 2-4)", "TR-55 Ch. 2"),
        ("Time of concentration", "sum of sheet, shallow concentrated and channel travel "
                                  "times", "TR-55 Ch. 3; NEH 630 Ch. 15"),
        ("Design storms", f"{distribution_label(site.storms.distribution)} 24-hour distribution, "
                          f"{site.storms.rain_dt_hr:g}-hr steps", "TR-55 App. B; WinTR-20"),
        ("Runoff hydrographs", f"NRCS dimensionless unit hydrograph, peak rate factor "
                               f"{opt.prf:g}, computation step {opt.dt_hr:g} hr, convolution "
                               "of the excess hyetograph", "NEH 630 Ch. 16"),
        ("Pond routing", "storage-indication (modified Puls) level-pool routing",
         "NEH 630 Ch. 17; Chow et al. 1988 Sec. 8.2"),
        ("Reaches", "translation by a lag time", "NEH 630 Ch. 17"),
        *_conveyance_methods(site),
        ("Sizing criteria", "WQv, RRv, Cpv, Qp, Qf", "NYS SMDM Ch. 4"),
        ("Sediment traps", "storage per acre of drainage area from the named criteria row; "
                           "MUSLE sediment yield", "NYS Blue Book; Williams 1975"),
    ]
    b.res.add_table(Table("methods", "Methods", pd.DataFrame(
        methods, columns=["step", "method", "reference"]), key_columns=["step"]))
    hashes = data.table_hashes()
    rows = []
    for name in tables_used(b.ctx):
        info = data.table_info(name)
        rows.append({"table": name, "title": info.get("title", ""),
                     "source": f"{info.get('source', '')} ({info.get('location', '')})",
                     "sha256_prefix": hashes.get(name, "")[:12]})
    b.res.add_table(Table("data_tables", "Published tables this computation read",
                          pd.DataFrame(rows), labels={"sha256_prefix": "SHA-256 (first 12)"},
                          caption="Full hashes are in results.json (data_tables).",
                          key_columns=["table"]))
    b.res.add_table(Table("references", "References",
                          pd.DataFrame(_REFERENCES + _conveyance_references(site),
                                       columns=["key", "reference"]),
                          key_columns=["key"]))
    versions = [("hydrocalc", hydrocalc.__version__),
                ("python", sys.version.split()[0]),
                ("numpy", np.__version__), ("pandas", pd.__version__)]
    b.res.values.update({"prf": opt.prf, "dt_hr": opt.dt_hr, "ia_ratio": opt.ia_ratio,
                         "hydrocalc_version": hydrocalc.__version__})
    b.res.add_table(Table("software", "Software", pd.DataFrame(versions,
                                                             columns=["package", "version"]),
                          key_columns=["package"]))
    b.res.narrative_md = (
        f"Runoff is computed with the NRCS curve-number method (Ia = {opt.ia_ratio:g} S) and "
        f"turned into hydrographs with the NRCS dimensionless unit hydrograph (peak rate "
        f"factor {opt.prf:g}) at {opt.dt_hr:g}-hour steps, for the "
        f"{md_escape(distribution_label(site.storms.distribution))} design storms. Ponds are routed by "
        "storage-indication. Every published table this computation read is listed with its "
        "source and SHA-256, so a reviewer can check the numbers it rests on; "
        f"`hydrocalc verify` re-computes this report from the input files stored with it."
    )
    b.echo("analysis_inputs", "Computation options as entered", ["analysis"])


def _build_warnings(b: _Builder, sections: Sequence[str],
                    computed: Mapping[str, SectionResult] | None = None) -> None:
    """Gather the warnings of every other section, each built without figures; a section
    in ``computed`` (already built from the same context, e.g. by a report run) is reused
    when drawing its figures raised no warning, since its warnings are then the same."""
    keys = [k for k in (sections or list(SECTIONS)) if k != "warnings" and k in SECTIONS]
    where: dict[str, list[str]] = {}
    for note in b.ctx.site.notes:
        where.setdefault(note, []).append("Site file")
    computed = computed or {}
    for key in keys:
        other = computed.get(key)
        if other is None or other.__dict__.get("_figure_warned"):
            other = _build(b.ctx, key, figures=False, sections=keys)
        for w in other.warnings:
            where.setdefault(w, []).append(SECTIONS[key].title)
    frame = pd.DataFrame([{"warning": w, "raised_in": "; ".join(_dedupe(v))}
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


# ======================================================================================
# registry of builders and the public section functions
# ======================================================================================
_BUILDERS: dict[str, Callable] = {
    "project": _build_project,
    "storms": _build_storms,
    "hydrology": _build_hydrology,
    "ponds": _build_ponds,
    "comparison": _build_comparison,
    "criteria": _build_criteria,
    "sediment": _build_sediment,
    "inspections": _build_inspections,
    "methods": _build_methods,
}


def _build(ctx: Context, key: str, *, figures: bool, sections: Sequence[str] | None = None,
           computed: Mapping[str, SectionResult] | None = None) -> SectionResult:
    b = _Builder(ctx, key, figures)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        b.caught = caught
        if key == "warnings":
            _build_warnings(b, list(sections or SECTIONS), computed)
        elif key.startswith("hydrology_"):
            _BUILDERS["hydrology"](b, key.split("_", 1)[1])
        else:
            _BUILDERS[key](b)
    b.res.warnings.extend(_warning_text(w) for w in _about_the_computation(caught))
    b.res.warnings = _dedupe(b.res.warnings)
    return b.res


def build_section(key: str, site_file: str | os.PathLike, *,
                  sections: Sequence[str] | None = None, figures: bool = True,
                  computed: Mapping[str, SectionResult] | None = None) -> SectionResult:
    """Compute one section (no files written); ``figures=False`` skips drawing (verify).

    ``computed`` (sections already built from the same site file in this process) lets the
    ``warnings`` section reuse their warnings instead of building them again.

    Raises
    ------
    InputError
        Unknown section key or invalid site file.
    """
    if key not in SECTIONS:
        from hydrocalc._validate import suggest

        raise InputError(f"section must be one of {', '.join(SECTIONS)}; got {key!r}"
                         f"{suggest(key, SECTIONS)}")
    return _build(context(site_file), key, figures=figures, sections=sections,
                  computed=computed)


def _present(key: str, site_file: str, out_dir: str, **params) -> SectionResult:
    res = build_section(key, site_file, sections=params.get("section_keys") or None,
                        figures=True)
    res.parameters = {"site_file": site_file, **params, "out_dir": out_dir}
    if out_dir:
        res.write(out_dir)
    return res


def project_summary(site_file: str, out_dir: str) -> SectionResult:
    """Project facts, applicability of the local law and the SWPPP content checklist."""
    return _present("project", site_file, out_dir)


def design_storms(site_file: str, out_dir: str) -> SectionResult:
    """Design-storm depths with their source (and any 'illustrative' warning), hyetographs."""
    return _present("storms", site_file, out_dir)


def hydrology(site_file: str, scenario: str, out_dir: str) -> SectionResult:
    """Subcatchments, covers and CN, Tc segments and runoff results of one scenario."""
    if scenario not in ("pre", "post"):
        from hydrocalc._validate import suggest

        raise InputError(f"scenario must be 'pre' or 'post'; got {scenario!r}"
                         f"{suggest(str(scenario), ('pre', 'post'))}")
    return _present(f"hydrology_{scenario}", site_file, out_dir, scenario=scenario)


def ponds(site_file: str, out_dir: str) -> SectionResult:
    """Stage-storage-discharge tables and figures, devices, routed peaks and freeboard."""
    return _present("ponds", site_file, out_dir)


def comparison(site_file: str, out_dir: str) -> SectionResult:
    """Pre/post peaks, volumes and times at each design point and storm, with hydrographs."""
    return _present("comparison", site_file, out_dir)


def sizing_criteria(site_file: str, out_dir: str) -> SectionResult:
    """NY SMDM WQv, RRv, Cpv, Qp, Qf: required, provided, pass/fail, equation, source."""
    return _present("criteria", site_file, out_dir)


def sediment_traps(site_file: str, out_dir: str) -> SectionResult:
    """Trap storage required vs provided, cleanout mark, predicted cleanout dates."""
    return _present("sediment", site_file, out_dir)


def inspections(site_file: str, out_dir: str) -> SectionResult:
    """Required inspection dates with reasons, counts per month, notices."""
    return _present("inspections", site_file, out_dir)


def methods_references(site_file: str, out_dir: str) -> SectionResult:
    """Methods, shipped data tables with their hashes, references and software."""
    return _present("methods", site_file, out_dir)


def all_warnings(site_file: str, section_keys: list, out_dir: str) -> SectionResult:
    """Every warning raised while computing the report's sections (``[]``: all), by section."""
    return _present("warnings", site_file, out_dir, section_keys=list(section_keys))


def cover_meta(results: Mapping, site=None) -> dict:
    """Cover-page data for :func:`hydrocalc.report.assemble.assemble_html` from results.json.

    With a compliance summary (``results["summary"]``, else computed from ``site``) it
    carries ``verdict`` (``"meets"``, ``"does_not_meet"`` or ``"incomplete"``),
    ``verdict_text`` and ``summary_tables`` (:func:`hydrocalc.report.summary.summary_tables`).
    """
    project = dict(results.get("project", {}))
    if site is not None:
        try:
            from hydrocalc.regulations import load_profile

            project["municipality"] = load_profile(site.project.municipality).name
        except Exception:  # noqa: BLE001 - the cover falls back to the key
            pass
    name = project.get("name", "")
    ts = results.get("timestamps", {}).get("started_utc", "")
    rows = [("Municipality", project.get("municipality", "")),
            ("Address", project.get("address", "")), ("Tax map", project.get("tax_map", "")),
            ("Owner", project.get("owner", "")), ("Preparer", project.get("preparer", "")),
            ("Receiving water", project.get("receiving_water", "")),
            ("Report generated (UTC)", ts),
            ("hydrocalc version", results.get("hydrocalc_version", ""))]
    summary = results.get("summary")
    if not summary and site is not None and getattr(site, "path", None) is not None:
        summary = context(site.path).summary
    from hydrocalc.report.summary import summary_tables

    verdict = {}
    if summary:
        verdict = {"verdict": summary.get("status", summary.get("verdict")),
                   "verdict_text": summary["verdict_text"],
                   "summary_tables": summary_tables(summary)}
    return {
        **verdict,
        "project_name": name,
        "kind": "SWPPP hydrologic analysis",
        "cover_rows": rows,
        "inputs": list(results.get("inputs", {}).items()),
        "note": "Computed by hydrocalc from the input files listed above (copies are stored "
                "in the report folder's inputs/). Re-compute and compare with "
                "`hydrocalc verify <report folder>`.",
        "footer": f"hydrocalc {results.get('hydrocalc_version', '')} · SWPPP hydrologic "
                  "analysis",
    }
