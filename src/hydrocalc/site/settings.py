"""The site-wide sections: ``[storms]``, ``[analysis]``, ``[criteria]``, ``[confirmations]``.

Each parser records its problems on the collector and returns a
:class:`~hydrocalc.site.model.Storms`, :class:`~hydrocalc.site.model.AnalysisOptions` or
:class:`~hydrocalc.site.model.CriteriaSettings` (None when the section has problems).
"""

from __future__ import annotations

import dataclasses
import math
import pathlib
import tomllib
from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import fmt_value, suggest
from hydrocalc.construction.sediment import criteria_table
from hydrocalc.criteria.ny import rrv_factor_sets
from hydrocalc.criteria.ny_redevelopment import parse_redevelopment
from hydrocalc.criteria.practices import parse_practices
from hydrocalc.design_storms import load_depth_file
from hydrocalc.errors import HydrocalcError
from hydrocalc.rainfall import design_storm
from hydrocalc.schema_errors import FieldError
from hydrocalc.site.files import _register_input, _site_path
from hydrocalc.site.model import (
    AnalysisOptions,
    CriteriaSettings,
    ReportSettings,
    Storms,
)
from hydrocalc.site.problems import _msg, _Problems, _short

# ----------------------------------------------------------------------------------------
# sections


MAX_24HR_DEPTH_IN = 72.0  # world-record 24-h rainfall 71.85 in (WMO): above it, a unit slip
#: The keys of ``[storms]`` and ``[report]`` (declared by :mod:`hydrocalc.site.schema`).
_STORMS_KEYS = ("file", "distribution", "depths_in", "use", "wqv_precip_in", "wqv_precip_source",
                "source", "duration_hr", "rain_dt_hr")
_REPORT_KEYS = ("extra_sections", "notebook_timeout_s")


def _load_storm_file(path: pathlib.Path) -> dict:
    """Read a ``design_storms/*.toml`` depth file into ``{depths_in, source, warnings}``.

    Uses :func:`hydrocalc.design_storms.load_depth_file`; the 24-hour depths become the
    storms ``"<T>yr"``. The file's warning (e.g. illustrative depths) is kept for reports.
    """
    table = load_depth_file(path, warn=False)
    depths = table.storm_depths_in("24-hr")
    warnings = [f"{path.name}: {table.warning}"] if table.warning else []
    return {"distribution": None, "depths_in": depths, "source": table.source,
            "duration_hr": None, "warnings": warnings, "illustrative": bool(table.illustrative),
            "suggested_distribution": table.suggested_distribution}


def _storm_file(P: _Problems, raw: str, base_dir, input_files) -> tuple[dict | None, Any]:
    """The depth file named by ``storms.file``: ``(file info, path)``; (None, ...) on a problem."""
    path = _site_path(P, "storms.file", base_dir, raw, design_storms=True)
    if path is None:
        return None, None
    try:
        info = _load_storm_file(path)
    except (HydrocalcError, OSError, tomllib.TOMLDecodeError, ValueError, RecursionError) as exc:
        for line in (str(exc).strip().splitlines() or [type(exc).__name__])[:20]:
            P.add("storms.file", f"could not be read: {line}")
        return None, path
    _register_input(input_files, base_dir, path)
    return info, path


def _parse_storms(P: _Problems, m, base_dir, input_files, errors: list[FieldError],
                  doc) -> Storms | None:
    """``[storms]``, whose keys the declared model has checked (``errors``).

    By hand: the depth file, the world-record depth (also of the file's depths), ``use``
    naming storms with a depth, the distribution and duration known to the hyetographs.
    """
    if m is None:
        P.raw(f"{P.where}: [storms] section is required; got nothing. Add [storms] with "
              "distribution, [storms.depths_in] (or file) and wqv_precip_in.")
        return None
    n0 = len(P.items)
    P.declared([e for e in errors if not (e.path[1:2] == ("depths_in",)
                                          and _over_record(e.value))], doc, each_bound=True)
    if not isinstance(m, Mapping):
        return None
    bad = {e.path[1] for e in errors if len(e.path) > 1}
    info, file_path = (_storm_file(P, m["file"], base_dir, input_files)
                       if "file" in m and "file" not in bad else (None, None))
    own = m.get("depths_in")
    depths = {**(info["depths_in"] if info else {}),
              **(dict(own) if isinstance(own, Mapping) else {})}
    if "file" not in m and "depths_in" not in m:
        P.add("storms.depths_in", "is required (or storms.file); got nothing. Add "
                                  "[storms.depths_in] with e.g. \"10yr\" = 5.0")
    for k in (k for k, v in depths.items() if _over_record(v)):
        P.add(f"storms.depths_in.{k}", f"must be <= {fmt_value(MAX_24HR_DEPTH_IN)} in, the "
              "world-record 24-hour rainfall (1,825 mm, Foc-Foc, La Reunion, 7-8 Jan 1966; WMO "
              f"archive); got {fmt_value(float(depths[k]))}. Check the units (inches)")
    use = m.get("use", list(depths))
    if "use" not in bad and ("file" not in m or info is not None):  # a bad file: reported
        for u in (u for u in use if u not in depths):
            P.add("storms.use", f"must name storms that have a depth; got {u!r}"
                                f"{suggest(u, depths)} Available: {', '.join(depths)}")
    dist = m.get("distribution")
    duration = m.get("duration_hr") if "duration_hr" not in bad else None
    if "distribution" not in bad and dist is not None:
        _check_distribution(P, dist, "storms.distribution", duration)
    if len(P.items) > n0:
        return None
    return _storms(m, info or {}, file_path, {u: depths[u] for u in use})


def _storms(m: Mapping, info: Mapping, file_path, depths_in: Mapping) -> Storms:
    """The storms of a valid ``[storms]``; ``depths_in``: the storms used.

    With the depth file's source, warnings and suggested distribution (``info``).
    """
    return Storms(distribution=m["distribution"],
                  depths_in={k: float(v) for k, v in depths_in.items()},
                  wqv_precip_in=float(m["wqv_precip_in"]),
                  wqv_precip_source=m["wqv_precip_source"],
                  source=m.get("source", info.get("source", "")) or "", file=file_path,
                  warnings=tuple(info.get("warnings", ())),
                  duration_hr=float(m.get("duration_hr", 24.0)),
                  rain_dt_hr=float(m.get("rain_dt_hr", 0.1)),
                  illustrative=bool(info.get("illustrative", False)),
                  suggested_distribution=info.get("suggested_distribution", ""))


def _over_record(v) -> bool:
    """A finite depth above the world-record 24-hour rainfall (a unit slip)."""
    return (isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
            and v > MAX_24HR_DEPTH_IN)


def _check_distribution(P: _Problems, dist: str, path: str, duration_hr) -> None:
    """The distribution is one of the hyetographs' and fits ``duration_hr``."""
    try:
        design_storm(1.0, distribution=dist, dt_hr=0.1)
    except HydrocalcError as exc:
        P.add(path, f"is not a known distribution: {_msg(exc)}")
    if duration_hr is not None and duration_hr != 24.0:
        try:
            design_storm(1.0, distribution=dist, dt_hr=0.1, duration_hr=duration_hr)
        except HydrocalcError as exc:
            P.add("storms.duration_hr", f"does not fit the distribution: {_msg(exc)}")


_MAX_ANALYSIS_STEPS = 1_000_000  # more is a unit slip, and would exhaust memory


#: The keys of ``[analysis]``, the fields of :class:`AnalysisOptions` of the same names.
_ANALYSIS_KEYS = ("dt_hr", "prf", "ia_ratio", "duration_hr")


def _parse_analysis(P: _Problems, m, errors: list[FieldError], doc) -> AnalysisOptions | None:
    """``[analysis]``; its keys were checked by the declared model (``errors``)."""
    if m is None:
        return AnalysisOptions()
    P.declared(errors, doc)
    if not isinstance(m, Mapping):
        return None
    bad = {e.path[1] for e in errors if len(e.path) > 1}
    options = AnalysisOptions(**{k: float(m[k]) for k in _ANALYSIS_KEYS
                                 if k in m and k not in bad})
    too_many = analysis_steps_problem(options) if "dt_hr" not in bad else None
    if too_many:
        P.add("analysis.dt_hr", too_many)
        return None
    return None if errors else options


def analysis_steps_problem(options: AnalysisOptions) -> str | None:
    """What is wrong when ``dt_hr`` and ``duration_hr`` give too many time steps, or None.

    At most :data:`_MAX_ANALYSIS_STEPS` steps over the simulated time (at least the 24-h
    storm): more is a unit slip, and would exhaust memory. The text follows ``analysis.dt_hr``
    in a message (the site file's rule, also applied to a sweep's varied options).
    """
    span_hr = max(options.duration_hr or 0.0, 24.0)  # at least the 24-h storm is computed
    dt = options.dt_hr
    if span_hr / dt <= _MAX_ANALYSIS_STEPS:
        return None
    return (f"and duration_hr must give at most {_MAX_ANALYSIS_STEPS:,} time steps; got "
            f"{span_hr / dt:.3g} (dt_hr = {fmt_value(dt)}, {fmt_value(span_hr)} h). Use dt_hr "
            f">= {fmt_value(span_hr / _MAX_ANALYSIS_STEPS)} h or a shorter duration_hr")


#: Most notebooks of the engineer's own one report runs.
MAX_EXTRA_SECTIONS = 50


def _parse_report(P: _Problems, m, base_dir: pathlib.Path, files: dict,
                  errors: list[FieldError], doc) -> ReportSettings | None:
    """``[report]``: ``extra_sections`` (notebooks inside the site's folder) and the time limit.

    The declared model has checked the keys (``errors``); by hand, each notebook is listed
    once and confined to the site file's folder like every other input, and must exist; it
    is recorded as an input (copied into the report's ``inputs/`` with its SHA-256).
    """
    if m is None:
        return ReportSettings()
    n0 = len(P.items)
    P.declared(errors, doc)
    paths = m.get("extra_sections", []) if isinstance(m, Mapping) else []
    if not isinstance(paths, list) or len(paths) > MAX_EXTRA_SECTIONS:
        return None
    for i, item in enumerate(paths):  # a path that is not text: the model said so
        field = f"report.extra_sections[{i}]"
        if not isinstance(item, str):
            continue
        if item in paths[:i]:
            P.add(field, f"must be listed once; got {item!r:.80} twice")
        elif (path := _site_path(P, field, base_dir, item, what="notebook")) is not None:
            _register_input(files, base_dir, path)
    if len(P.items) > n0:
        return None
    return ReportSettings(extra_sections=tuple(paths),
                          notebook_timeout_s=float(m.get("notebook_timeout_s", 120.0)))


_CRITERIA_KEYS = (
    "standard", "cpv_storm", "qp_storm", "qf_storm", "min_rv_rule", "rrv_factors",
    "rrv_specific_reduction_factor", "new_impervious_ac_by_hsg", "wqv_area_ac",
    "wqv_impervious_ac", "rrv_provided_acft", "rrv_provided_note", "wqv_provided_acft",
    "wqv_provided_note", "cpv_detention_hr",
    "cpv_rainfall_type", "cpv_orifice_cd", "cpv_orifice_head_ft", "waived",
    "practice", "redevelopment",
)


def _parse_criteria(P: _Problems, m, storms: Storms | None, errors: list[FieldError],
                    doc) -> CriteriaSettings | None:
    """``[criteria]``, whose keys the declared model has checked (``errors``).

    The practices and the redevelopment option are parsed by :mod:`hydrocalc.criteria`.
    """
    prefix = "criteria"
    m = {} if m is None else m
    n0 = len(P.items)
    P.declared([e for e in errors if e.path[1:2] != ("practice",)], doc)
    if not isinstance(m, Mapping):
        return None
    bad = {e.path[1] for e in errors if len(e.path) > 1}
    d = _criteria_settings(m, errors)
    for key, crit in (("cpv_storm", "cpv"), ("qp_storm", "qp"), ("qf_storm", "qf")):
        v = getattr(d, key)
        if (storms is not None and d.standard == "ny_smdm" and "standard" not in bad
                and key in m and key not in bad
                and crit not in d.waived and v not in storms.depths_in):
            P.raw(f"{P.where}: criteria.{key} must name a design storm; got {v!r}"
                  f"{suggest(v, storms.depths_in)} Add it to [storms.depths_in], set "
                  f"criteria.{key}, or waive it with criteria.waived.{crit} = \"reason\""
                  f"{P.line_of(f'criteria.{key}')}")
    if "rrv_factors" in m and "rrv_factors" not in bad and d.rrv_factors not in rrv_factor_sets():
        keys = rrv_factor_sets()
        P.add(f"{prefix}.rrv_factors", f"must be a key of the specific-reduction-factor "
                                       f"table; got {d.rrv_factors!r}"
                                       f"{suggest(d.rrv_factors, keys)} Valid: "
                                       f"{', '.join(keys)}")
    _criteria_rules(P, d)
    extra: dict[str, Any] = {}
    if "practice" in m:
        extra["practices"] = parse_practices(
            P, m["practice"], f"{prefix}.practice",
            [e for e in errors if e.path[1:2] == ("practice",)])
    if "redevelopment" in m:
        extra["redevelopment"] = parse_redevelopment(
            P, m["redevelopment"], f"{prefix}.redevelopment",
            [e for e in errors if e.path[1:2] == ("redevelopment",)])
    if len(P.items) > n0:
        return None
    return dataclasses.replace(d, **extra)


def _criteria_settings(m: Mapping, errors: list[FieldError]) -> CriteriaSettings:
    """The settings of the keys of ``[criteria]`` the model found valid (the others: defaults).

    Numbers as floats; the valid waivers only (for the storms' rule).
    """
    bad = {e.path[1] for e in errors if len(e.path) > 1}
    vals: dict[str, Any] = {k: m[k] for k in _CRITERIA_KEYS[:-2] if k in m and k not in bad}
    for k, v in vals.items():
        if isinstance(v, int) and not isinstance(v, bool):
            vals[k] = float(v)
    for key in ("rrv_specific_reduction_factor", "new_impervious_ac_by_hsg"):
        if key in vals:
            vals[key] = {h: float(x) for h, x in vals[key].items()}
    if isinstance(m.get("waived"), Mapping):
        failed = {e.path for e in errors}
        vals["waived"] = {k: v for k, v in m["waived"].items()
                          if ("criteria", "waived", k) not in failed}
    return CriteriaSettings(**vals)


def _criteria_rules(P: _Problems, d: CriteriaSettings) -> None:
    """The rules between keys of ``[criteria]`` (areas given together, notes with volumes)."""
    if (d.wqv_area_ac is not None) != (d.wqv_impervious_ac is not None):
        P.add("criteria.wqv_area_ac", "and criteria.wqv_impervious_ac must be given together; "
                                      "got only one. Give both or neither.")
    elif (d.wqv_area_ac is not None and d.wqv_impervious_ac is not None
          and d.wqv_impervious_ac > d.wqv_area_ac):
        P.add("criteria.wqv_impervious_ac", f"must be <= wqv_area_ac "
                                            f"({fmt_value(d.wqv_area_ac)}); got "
                                            f"{fmt_value(d.wqv_impervious_ac)}")
    for kind in ("rrv", "wqv"):
        if getattr(d, f"{kind}_provided_acft") and not getattr(d, f"{kind}_provided_note"):
            P.add(f"criteria.{kind}_provided_note", f"is required when {kind}_provided_acft "
                                                    "> 0; got nothing. Name the practices "
                                                    "that provide it.")


#: Item keys of ``[confirmations]`` besides the two families ``criterion_<criterion>`` and
#: ``trap_criteria_<sediment criteria key>`` (the keys of the report's "Values to confirm
#: before submission" table, plus the ``sediment_traps`` statement).
CONFIRMATION_ITEMS = ("storm_depths", "wqv_precip_in", "rrv_factors", "regulation_profile",
                      "sediment_traps", "design_manual")
#: Criteria whose row can need confirming: ``criterion_<name>`` (the ``criterion`` column of
#: the sizing-criteria table).
CONFIRMABLE_CRITERIA = ("wqv", "wqv_redevelopment_impervious_reduction", "rrv", "cpv",
                        "cpv_orifice", "cpv_detention_time", "qp", "qf", "qf_safe_passage")


def confirmation_items() -> tuple[str, ...]:
    """Every key a ``[confirmations]`` entry may use (whether or not a given site lists it).

    Examples
    --------
    >>> "criterion_rrv" in confirmation_items() and "storm_depths" in confirmation_items()
    True
    """
    return (CONFIRMATION_ITEMS + tuple(f"criterion_{c}" for c in CONFIRMABLE_CRITERIA)
            + tuple(f"trap_criteria_{k}" for k in criteria_table().index))


def _confirmation_notes(confirmations: Mapping[str, str], where: str) -> list[str]:
    """A warning for each ``[confirmations]`` key that names no item.

    A typo would otherwise leave the item silently unconfirmed.
    """
    if not confirmations:
        return []
    known = confirmation_items()
    return [f"confirmations: {where}: [confirmations] key {key!r} names no item to confirm, "
            f"so it confirms nothing{suggest(key, known) or '.'} Known items: "
            f"{', '.join(known)}" for key in confirmations if key not in known]


def _parse_confirmations(P: _Problems, m, errors: list[FieldError]) -> dict[str, str]:
    """``[confirmations]``: item key -> the source the preparer checked the value against.

    See ``docs/site_file.md``; the keys are those of the report's "Values to confirm
    before submission" table. The declared model has checked the values (``errors``).
    """
    for e in errors:  # the model's records, in the wording of this table
        what = ("a table of item = \"source\"" if len(e.path) == 1 else
                "the source the value was checked against (non-empty text)")
        P.add(".".join(map(str, e.path)), f"must be {what}; got {_short(e.value)}")
    if errors or not isinstance(m, Mapping):
        return {}
    return {str(k): v.strip() for k, v in m.items()}
