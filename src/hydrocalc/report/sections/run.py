"""Building sections and the public section functions the notebooks call.

:func:`build_section` computes one section from a site file; :func:`project_summary`,
:func:`design_storms`, :func:`hydrology`, :func:`ponds`, :func:`comparison`,
:func:`sizing_criteria`, :func:`sediment_traps`, :func:`inspections`,
:func:`methods_references` and :func:`all_warnings` (their signatures are the notebooks'
parameters) also write the result to ``out_dir``; :func:`validate_site` builds every section
without figures; :func:`cover_meta` gives the report cover.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import inspect
import os
import warnings
from collections.abc import Callable, Mapping, Sequence

from hydrocalc._validate import suggest
from hydrocalc.criteria.regulations import load_profile
from hydrocalc.errors import InputError
from hydrocalc.report.result import SectionResult
from hydrocalc.report.sections.builder import _Builder
from hydrocalc.report.sections.computation import (
    Context,
    _about_the_computation,
    _warning_text,
    context,
    dedupe,
)
from hydrocalc.report.sections.construction_section import _build_inspections, _build_sediment
from hydrocalc.report.sections.hydrology_section import _build_hydrology
from hydrocalc.report.sections.methods_section import _build_methods
from hydrocalc.report.sections.ponds_section import _build_ponds
from hydrocalc.report.sections.project_section import _build_project
from hydrocalc.report.sections.registry import SECTIONS
from hydrocalc.report.sections.results_section import _build_comparison, _build_criteria
from hydrocalc.report.sections.storms_section import _build_storms
from hydrocalc.report.sections.warnings_section import _build_warnings
from hydrocalc.report.summary import summary_tables


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
            _build_warnings(b, list(sections or SECTIONS), computed, _build)
        elif key.startswith("hydrology_"):
            _BUILDERS["hydrology"](b, key.split("_", 1)[1])
        else:
            _BUILDERS[key](b)
    b.res.warnings.extend(_warning_text(w) for w in _about_the_computation(caught))
    b.res.warnings = dedupe(b.res.warnings)
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
    ``verdict_text``, ``verdict_confirm`` (values remain to confirm) and ``summary_tables``
    (:func:`hydrocalc.report.summary.summary_tables`).
    """
    project = dict(results.get("project", {}))
    if site is not None:
        try:
            project["municipality"] = load_profile(site.project.municipality).name
        except Exception:  # noqa: BLE001 - the cover falls back to the key
            pass
    name = project.get("name", "")
    ts = str(results.get("timestamps", {}).get("document_utc", ""))[:10]  # YYYY-MM-DD
    rows = [("Municipality", project.get("municipality", "")),
            ("Address", project.get("address", "")), ("Tax map", project.get("tax_map", "")),
            ("Owner", project.get("owner", "")), ("Preparer", project.get("preparer", "")),
            ("Receiving water", project.get("receiving_water", "")),
            ("Report date (UTC)", ts),
            ("hydrocalc version", results.get("hydrocalc_version", ""))]
    summary = results.get("summary")
    if not summary and site is not None and getattr(site, "path", None) is not None:
        summary = context(site.path).summary

    verdict = {}
    if summary:
        verdict = {"verdict": summary.get("status", summary.get("verdict")),
                   "verdict_text": summary["verdict_text"],
                   "verdict_confirm": bool(summary.get("confirm")),
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
        "hydrocalc_version": results.get("hydrocalc_version", ""),
    }


def section_parameters(key: str, *, site_file: str, out_dir: str,
                       sections: Sequence[str]) -> dict:
    """The notebook parameters of section ``key``: its public function's arguments, in order."""
    spec = SECTIONS[key]
    fn = _PUBLIC[spec.function]
    values = {"site_file": site_file, "out_dir": out_dir, "section_keys": list(sections),
              **spec.fixed}
    return {name: values[name] for name in inspect.signature(fn).parameters}


#: The public section functions by name (:attr:`SectionSpec.function`).
_PUBLIC: dict[str, Callable] = {
    "project_summary": project_summary,
    "design_storms": design_storms,
    "hydrology": hydrology,
    "ponds": ponds,
    "comparison": comparison,
    "sizing_criteria": sizing_criteria,
    "sediment_traps": sediment_traps,
    "inspections": inspections,
    "methods_references": methods_references,
    "all_warnings": all_warnings,
}
