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
    "cover_meta",
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
        values = {"site_file": site_file, "out_dir": out_dir, "sections": list(sections),
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


class Context:
    """A loaded site and its computations, each run once and with its warnings kept."""

    def __init__(self, site_path: pathlib.Path):
        from hydrocalc.site import load_site

        self.path = site_path
        self.raw_text = site_path.read_bytes().decode("utf-8-sig")
        self.raw = tomllib.loads(self.raw_text)
        self.warnings: dict[str, list[str]] = {}
        self.site = self._run("site", load_site, site_path)
        self._cache: dict[str, Any] = {}

    def _run(self, step: str, fn: Callable, *args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn(*args, **kwargs)
        self.warnings.setdefault(step, []).extend(_dedupe(_warning_text(w) for w in caught))
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


def validate_site(site_file: str | os.PathLike):
    """Load and analyse a site, raising on any input error; return the :class:`Site`."""
    ctx = context(site_file)
    ctx.results  # noqa: B018 - the analysis is part of validation
    return ctx.site


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
    return f"{v:,.{decimals}f}"


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


class _Builder:
    """Builds one section: figures drawn or skipped, warnings collected."""

    def __init__(self, ctx: Context, key: str, figures: bool):
        self.ctx = ctx
        self.key = key
        self.draw = figures
        self.res = SectionResult(key=key, title=SECTIONS[key].title)

    def figure(self, name: str, title: str, draw: Callable[[], Figure]) -> None:
        """Add a figure; when figures are off (verify), keep its name only."""
        if self.draw:
            fig = draw()
            self.res.add_figure(Figure(name=name, title=title, png=fig.png,
                                       caption=fig.caption))
        else:
            self.res.add_figure(Figure(name=name, title=title, png=b""))

    def notice(self, text_md: str) -> None:
        self.res.add_markdown(f"**Warning.** {text_md}")


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
    b.res.narrative_md = "\n".join(text)

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
    b.res.add_table(echo_table("project_inputs", "Project inputs as entered", ctx.raw,
                               ["project"]))
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
        f"with the NRCS {md_escape(st.distribution)} rainfall distribution: {names}. "
        f"Depth source: {src}. The largest one-hour share of the storm under this "
        f"distribution is {_fmt(100.0 * one_hr, 1)} %. The water-quality volume uses a "
        f"90 % rainfall depth of {_fmt(st.wqv_precip_in)} in "
        f"({md_escape(st.wqv_precip_source)})."
    )
    for w in st.warnings:
        b.notice(md_escape(w))
        b.res.warnings.append(f"design storms: {w}")
    b.res.add_table(table)
    b.res.add_table(wq)
    b.figure("hyetographs", "Design-storm hyetographs",
             lambda: F.hyetograph_figure(
                 "hyetographs", "Design-storm hyetographs",
                 [(h.name, np.asarray(h.time_hr), np.asarray(h.intensity_in_hr),
                   np.asarray(h.cumulative_in)) for h in storms]))
    b.res.add_table(echo_table("storm_inputs", "Design-storm inputs as entered", b.ctx.raw,
                               ["storms", "analysis"]))
    b.res.warnings.extend(b.ctx.step_warnings("site"))


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
        ("Design storms", f"NRCS {site.storms.distribution} 24-hour distribution, "
                          f"{site.storms.rain_dt_hr:g}-hr steps", "TR-55 App. B; WinTR-20"),
        ("Runoff hydrographs", f"NRCS dimensionless unit hydrograph, peak rate factor "
                               f"{opt.prf:g}, computation step {opt.dt_hr:g} hr, convolution "
                               "of the excess hyetograph", "NEH 630 Ch. 16"),
        ("Pond routing", "storage-indication (modified Puls) level-pool routing",
         "NEH 630 Ch. 17; Chow et al. 1988 Sec. 8.2"),
        ("Reaches", "translation by a lag time", "NEH 630 Ch. 17"),
        ("Sizing criteria", "WQv, RRv, Cpv, Qp, Qf", "NYS SMDM Ch. 4"),
        ("Sediment traps", "storage per acre of drainage area from the named criteria row; "
                           "MUSLE sediment yield", "NYS Blue Book; Williams 1975"),
    ]
    b.res.add_table(Table("methods", "Methods", pd.DataFrame(
        methods, columns=["step", "method", "reference"]), key_columns=["step"]))
    hashes = data.table_hashes()
    rows = []
    for name in data.list_tables():
        info = data.table_info(name)
        rows.append({"table": name, "title": info.get("title", ""),
                     "source": info.get("source", ""), "location": info.get("location", ""),
                     "sha256": hashes.get(name, "")[:16]})
    b.res.add_table(Table("data_tables", "Published tables shipped with hydrocalc",
                          pd.DataFrame(rows),
                          caption="sha256: first 16 hex digits; full hashes in results.json.",
                          key_columns=["table"]))
    b.res.add_table(Table("references", "References",
                          pd.DataFrame(_REFERENCES, columns=["key", "reference"]),
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
        f"{md_escape(site.storms.distribution)} design storms. Ponds are routed by "
        "storage-indication. Every published table used is listed with its source and "
        "SHA-256, so a reviewer can check the numbers the computation rests on; "
        f"`hydrocalc verify` re-computes this report from the input files stored with it."
    )
    b.res.add_table(echo_table("analysis_inputs", "Computation options as entered", b.ctx.raw,
                               ["analysis"]))


def _build_warnings(b: _Builder, sections: Sequence[str]) -> None:
    keys = [k for k in (sections or list(SECTIONS)) if k != "warnings" and k in SECTIONS]
    rows = []
    for key in keys:
        other = _build(b.ctx, key, figures=False, sections=keys)
        for w in other.warnings:
            rows.append({"section": SECTIONS[key].title, "warning": w})
    for note in b.ctx.site.notes:
        rows.append({"section": "Site file", "warning": note})
    frame = pd.DataFrame(rows, columns=["section", "warning"])
    distinct = frame["warning"].nunique() if len(frame) else 0
    b.res.values.update({"warnings_count": int(len(frame)), "distinct_warnings": int(distinct)})
    if len(frame):
        b.res.narrative_md = (
            f"The computation raised {len(frame)} warnings ({distinct} distinct) across "
            f"{frame['section'].nunique()} sections. Each is a publication-prescribed "
            "fallback, a limit applied, an unverified value or an input that deserves a "
            "second look; none was silenced.")
    else:
        b.res.narrative_md = "The computation raised no warnings."
    b.res.add_table(Table("warnings", "Every warning raised during the computation", frame,
                          key_columns=["section"]))


# ======================================================================================
# registry of builders and the public section functions
# ======================================================================================
_BUILDERS: dict[str, Callable] = {
    "project": _build_project,
    "storms": _build_storms,
    "methods": _build_methods,
}


def _build(ctx: Context, key: str, *, figures: bool, sections: Sequence[str] | None = None
           ) -> SectionResult:
    b = _Builder(ctx, key, figures)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if key == "warnings":
            _build_warnings(b, list(sections or SECTIONS))
        elif key.startswith("hydrology_"):
            _BUILDERS["hydrology"](b, key.split("_", 1)[1])
        else:
            _BUILDERS[key](b)
    b.res.warnings.extend(_warning_text(w) for w in caught)
    b.res.warnings = _dedupe(b.res.warnings)
    return b.res


def build_section(key: str, site_file: str | os.PathLike, *,
                  sections: Sequence[str] | None = None, figures: bool = True
                  ) -> SectionResult:
    """Compute one section (no files written); ``figures=False`` skips drawing (verify).

    Raises
    ------
    InputError
        Unknown section key or invalid site file.
    """
    if key not in SECTIONS:
        from hydrocalc._validate import suggest

        raise InputError(f"section must be one of {', '.join(SECTIONS)}; got {key!r}"
                         f"{suggest(key, SECTIONS)}")
    return _build(context(site_file), key, figures=figures, sections=sections)


def _present(key: str, site_file: str, out_dir: str, **params) -> SectionResult:
    res = build_section(key, site_file, sections=params.get("sections"), figures=True)
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
    from hydrocalc._validate import check_choice

    check_choice(scenario, "scenario", ("pre", "post"))
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


def all_warnings(site_file: str, sections: list, out_dir: str) -> SectionResult:
    """Every warning raised while computing the report's sections, by section."""
    return _present("warnings", site_file, out_dir, sections=list(sections))


def cover_meta(results: Mapping) -> dict:
    """Cover-page data for :func:`hydrocalc.report.assemble.assemble_html` from results.json."""
    project = results.get("project", {})
    name = project.get("name", "")
    ts = results.get("timestamps", {}).get("started_utc", "")
    rows = [("Municipality", project.get("municipality", "")),
            ("Address", project.get("address", "")), ("Tax map", project.get("tax_map", "")),
            ("Owner", project.get("owner", "")), ("Preparer", project.get("preparer", "")),
            ("Receiving water", project.get("receiving_water", "")),
            ("Report generated (UTC)", ts),
            ("hydrocalc version", results.get("hydrocalc_version", ""))]
    return {
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
