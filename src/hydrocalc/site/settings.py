"""The site-wide sections: ``[storms]``, ``[analysis]``, ``[criteria]``, ``[confirmations]``.

Each parser records its problems on the collector and returns a
:class:`~hydrocalc.site.model.Storms`, :class:`~hydrocalc.site.model.AnalysisOptions` or
:class:`~hydrocalc.site.model.CriteriaSettings` (None when the section has problems).
"""

from __future__ import annotations

import dataclasses
import pathlib
import tomllib
from collections.abc import Mapping
from typing import Any, cast

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
    _STORM_RE,
    AnalysisOptions,
    CriteriaSettings,
    ReportSettings,
    Storms,
)
from hydrocalc.site.problems import _msg, _Problems

# ----------------------------------------------------------------------------------------
# sections


_MAX_24HR_DEPTH_IN = 72.0  # world-record 24-h rainfall 71.85 in (WMO): above it, a unit slip
_STORMS_KEYS = ("file", "distribution", "depths_in", "use", "wqv_precip_in", "wqv_precip_source",
                "source", "duration_hr", "rain_dt_hr")


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


def _parse_storms(  # noqa: C901 - one check per [storms] key, in the site file's order
        P: _Problems, m, base_dir, input_files) -> Storms | None:
    prefix = "storms"
    if m is None:
        P.raw(f"{P.where}: [storms] section is required; got nothing. Add [storms] with "
              "distribution, [storms.depths_in] (or file) and wqv_precip_in.")
        return None
    if not isinstance(m, Mapping):
        P.add(prefix, f"must be a table; got {m!r}")
        return None
    n0 = len(P.items)
    P.unknown_keys(m, _STORMS_KEYS, prefix)
    file_info = None
    file_path = None
    if "file" in m:
        raw = P.text(m, "file", prefix)
        if raw is not None:
            file_path = _site_path(P, f"{prefix}.file", base_dir, raw, design_storms=True)
            if file_path is not None:
                try:
                    file_info = _load_storm_file(file_path)
                    _register_input(input_files, base_dir, file_path)
                except (HydrocalcError, OSError, tomllib.TOMLDecodeError, ValueError,
                        RecursionError) as exc:
                    for line in (str(exc).strip().splitlines() or [type(exc).__name__])[:20]:
                        P.add(f"{prefix}.file", f"could not be read: {line}")
    depths: dict[str, float] = {}
    if file_info is not None:
        for k, v in file_info["depths_in"].items():
            depths[k] = v
    own = P.table(m, "depths_in", prefix)
    if own is not None:
        for k, v in own.items():
            depths[str(k)] = v
    if file_info is None and own is None and "file" not in m:
        P.add(f"{prefix}.depths_in", "is required (or storms.file); got nothing. Add "
                                     "[storms.depths_in] with e.g. \"10yr\" = 5.0")
    clean: dict[str, float] = {}
    for k, v in depths.items():
        path = f"{prefix}.depths_in.{k}"
        if not _STORM_RE.match(k):
            P.add(path, "storm name must be letters, digits, '_' or '-' (e.g. \"10yr\"); "
                  f"got {k!r}")
            continue
        x = P.check_number(v, path, lower=0.0, lower_inclusive=False)
        if x is not None and x > _MAX_24HR_DEPTH_IN:
            P.add(path, f"must be <= {fmt_value(_MAX_24HR_DEPTH_IN)} in, the world-record 24-hour "
                        f"rainfall (1,825 mm, Foc-Foc, La Reunion, 7-8 Jan 1966; WMO archive); "
                        f"got {fmt_value(x)}. Check the units (inches)")
        elif x is not None:
            clean[k] = x
    if "use" in m and not ("file" in m and file_info is None):  # no false alarms: the file
        use = m["use"]                                           # failure is reported
        if not isinstance(use, list) or not use or not all(isinstance(u, str) for u in use):
            P.add(f"{prefix}.use", f"must be a non-empty list of storm names; got {use!r}")
        else:
            missing = [u for u in use if u not in depths]
            for u in missing:
                P.add(f"{prefix}.use", f"must name storms that have a depth; got {u!r}"
                                       f"{suggest(u, depths)} Available: {', '.join(depths)}")
            if not missing:  # every depth is validated above, used or not
                clean = {u: clean[u] for u in use if u in clean}
    dist = m.get("distribution")
    if dist is None and file_info is not None:
        dist = file_info["distribution"]
    if dist is None:
        P.add(f"{prefix}.distribution", "is required; got nothing. Name the NRCS 24-hour "
                                        "distribution, e.g. \"III\", \"II\" or \"NRCC_C\".")
    elif not isinstance(dist, str):
        P.add(f"{prefix}.distribution", f"must be a string; got {dist!r}")
        dist = None
    else:
        _check_distribution(P, dist, f"{prefix}.distribution")
    wqv = P.number(m, "wqv_precip_in", prefix, required=True, lower=0.0, lower_inclusive=False)
    wqv_src = P.text(m, "wqv_precip_source", prefix, required=True)
    duration = P.number(m, "duration_hr", prefix, default=None, lower=0.0, lower_inclusive=False)
    if duration is None and file_info is not None and file_info.get("duration_hr"):
        duration = file_info["duration_hr"]
    rain_dt = P.number(m, "rain_dt_hr", prefix, default=0.1, lower=0.0, lower_inclusive=False)
    if isinstance(dist, str) and duration is not None and duration != 24.0:
        try:
            design_storm(1.0, distribution=dist, dt_hr=0.1, duration_hr=duration)
        except HydrocalcError as exc:
            P.add(f"{prefix}.duration_hr", f"does not fit the distribution: {_msg(exc)}")
    source = P.text(m, "source", prefix) if "source" in m else (file_info or {}).get("source", "")
    if len(P.items) > n0:
        return None
    warnings = tuple(file_info["warnings"]) if file_info else ()
    # a missing distribution was reported above, so dist is a str here
    return Storms(distribution=cast(str, dist), depths_in=clean, wqv_precip_in=wqv,
                  wqv_precip_source=wqv_src, source=source or "", file=file_path,
                  warnings=warnings, duration_hr=float(duration or 24.0),
                  rain_dt_hr=float(rain_dt),
                  illustrative=bool((file_info or {}).get("illustrative", False)),
                  suggested_distribution=(file_info or {}).get("suggested_distribution", ""))


def _check_distribution(P: _Problems, dist: str, path: str) -> None:
    try:
        design_storm(1.0, distribution=dist, dt_hr=0.1)
    except HydrocalcError as exc:
        P.add(path, f"is not a known distribution: {_msg(exc)}")


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
    span_hr = max(options.duration_hr or 0.0, 24.0)  # at least the 24-h storm is computed
    dt = options.dt_hr
    if "dt_hr" not in bad and span_hr / dt > _MAX_ANALYSIS_STEPS:
        P.add("analysis.dt_hr", f"and duration_hr must give at most {_MAX_ANALYSIS_STEPS:,} time "
                                f"steps; got {span_hr / dt:.3g} (dt_hr = {fmt_value(dt)}, "
                                f"{fmt_value(span_hr)} h). Use dt_hr >= "
                                f"{fmt_value(span_hr / _MAX_ANALYSIS_STEPS)} h or a shorter "
                                "duration_hr")
        return None
    return None if errors else options


_REPORT_KEYS = ("extra_sections", "notebook_timeout_s")
#: Most notebooks of the engineer's own one report runs.
MAX_EXTRA_SECTIONS = 50


def _parse_report(P: _Problems, m, base_dir: pathlib.Path, files: dict) -> ReportSettings | None:
    """``[report]``: ``extra_sections`` (notebooks inside the site's folder) and the time limit.

    Each notebook is confined to the site file's folder like every other input, must exist
    and end in ``.ipynb``; it is recorded as an input (copied into the report's ``inputs/``
    with its SHA-256).
    """
    prefix = "report"
    if m is None:
        return ReportSettings()
    if not isinstance(m, Mapping):
        P.add(prefix, f"must be a table; got {m!r}")
        return None
    n0 = len(P.items)
    P.unknown_keys(m, _REPORT_KEYS, prefix)
    timeout = P.number(m, "notebook_timeout_s", prefix, default=120.0, lower=0.0,
                       lower_inclusive=False, upper=86_400.0)
    raw = m.get("extra_sections", [])
    paths: list[str] = []
    if not isinstance(raw, list) or len(raw) > MAX_EXTRA_SECTIONS:
        P.add(f"{prefix}.extra_sections",
              f"must be a list of at most {MAX_EXTRA_SECTIONS} notebook paths "
              f"(e.g. [\"sections/peak_check.ipynb\"]); got {raw!r:.80}")
    else:
        for i, item in enumerate(raw):
            field = f"{prefix}.extra_sections[{i}]"
            if not isinstance(item, str) or not item.strip():
                P.add(field, "must be a notebook path relative to the site file; "
                             f"got {item!r:.80}")
                continue
            if not item.lower().endswith(".ipynb"):
                P.add(field, f"must name a Jupyter notebook (.ipynb); got {item!r:.80}")
                continue
            if item in paths:
                P.add(field, f"must be listed once; got {item!r:.80} twice")
                continue
            path = _site_path(P, field, base_dir, item, what="notebook")
            if path is not None:
                _register_input(files, base_dir, path)
                paths.append(item)
    if len(P.items) > n0:
        return None
    return ReportSettings(extra_sections=tuple(paths), notebook_timeout_s=float(timeout))


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
    vals: dict[str, Any] = {k: m[k] for k in _CRITERIA_KEYS[:-2] if k in m and k not in bad}
    for k, v in vals.items():
        if isinstance(v, int) and not isinstance(v, bool):
            vals[k] = float(v)
    for key in ("rrv_specific_reduction_factor", "new_impervious_ac_by_hsg"):
        if key in vals:
            vals[key] = {h: float(x) for h, x in vals[key].items()}
    if isinstance(m.get("waived"), Mapping):  # the valid waivers, for the storms' rule
        failed = {e.path for e in errors}
        vals["waived"] = {k: v for k, v in m["waived"].items()
                          if (prefix, "waived", k) not in failed}
    d = CriteriaSettings(**vals)
    for key, crit in (("cpv_storm", "cpv"), ("qp_storm", "qp"), ("qf_storm", "qf")):
        v = getattr(d, key)
        if (storms is not None and d.standard == "ny_smdm" and "standard" not in bad
                and key in vals
                and crit not in d.waived and v not in storms.depths_in):
            P.raw(f"{P.where}: criteria.{key} must name a design storm; got {v!r}"
                  f"{suggest(v, storms.depths_in)} Add it to [storms.depths_in], set "
                  f"criteria.{key}, or waive it with criteria.waived.{crit} = \"reason\""
                  f"{P.line_of(f'criteria.{key}')}")
    if "rrv_factors" in vals and d.rrv_factors not in rrv_factor_sets():
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
        extra["redevelopment"] = parse_redevelopment(P, m["redevelopment"],
                                                     f"{prefix}.redevelopment")
    if len(P.items) > n0:
        return None
    return dataclasses.replace(d, **extra)


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


def _parse_confirmations(P: _Problems, m) -> dict[str, str]:
    """``[confirmations]``: item key -> the source the preparer checked the value against.

    See ``docs/site_file.md``; the keys are those of the report's "Values to confirm
    before submission" table.
    """
    if m is None:
        return {}
    if not isinstance(m, Mapping):
        P.add("confirmations", f"must be a table of item = \"source\"; got {m!r}")
        return {}
    out = {}
    for k, v in m.items():
        if not isinstance(v, str) or not v.strip():
            P.add(f"confirmations.{k}", "must be the source the value was checked against "
                                        f"(non-empty text); got {v!r}")
        else:
            out[str(k)] = v.strip()
    return out
