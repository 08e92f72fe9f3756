"""``[project]``: the facts that decide which rules of a local law apply to a project.

:class:`ProjectFacts` (areas held in acres and square feet, municipality, project type,
receiving water, exemptions), :func:`project_problems` (the checks shared by the dataclass
and the site-file path; the implausible facts are
:func:`hydrocalc.site.plausibility.project_warnings`), and :func:`parse_project`, which returns
``(facts_or_None, problems)`` and never raises on bad content.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import (
    fmt_value,
    iso_date,
)
from hydrocalc.criteria.ny_editions import edition_problems
from hydrocalc.criteria.profiles import PROFILE_KEYS
from hydrocalc.criteria.state_permit import parse_state_permit
from hydrocalc.errors import InputError
from hydrocalc.schema_errors import FieldError, field_errors
from hydrocalc.site.problems import _Problems, field_message
from hydrocalc.site.project.collector import _choices, _profile_keys
from hydrocalc.site.schema import Project
from hydrocalc.units import FT2_PER_AC

#: Municipality keys with a regulation profile in ``hydrocalc/data/regulations``.
MUNICIPALITIES = PROFILE_KEYS


@dataclasses.dataclass(frozen=True)
class ProjectFacts:
    """Facts about a project that decide which rules of a local law apply.

    Each area is held in both units. Give one of each pair (the other is derived in
    ``__post_init__``); the given value is kept exactly, so a threshold stated in square feet
    (Pelham) is compared with the square-foot value the user typed, not with a value
    converted back from acres.
    """

    name: str
    municipality: str
    receiving_water: str
    drains_to_impaired_water: bool
    project_type: str
    disturbed_area_ac: float | None = None
    disturbed_area_ft2: float | None = None
    new_impervious_area_ft2: float | None = None
    new_impervious_area_ac: float | None = None
    part_of_larger_common_plan: bool = False
    exemptions_claimed: tuple[str, ...] = ()
    exemption_approved_on: Mapping[str, _dt.date] = dataclasses.field(default_factory=dict)
    address: str = ""
    tax_map: str = ""
    owner: str = ""
    preparer: str = ""
    impairment: str = ""
    #: ``[project.state_permit]``
    #: (:class:`hydrocalc.criteria.state_permit.StatePermitPlan`) or None.
    state_permit: Any = None
    #: NYS SMDM edition of the sizing criteria, ``"2015"`` or ``"2024"``; None when the site
    #: file names none (the 2015 edition is then applied with a warning,
    #: :mod:`hydrocalc.criteria.ny_editions`).
    design_manual: str | None = None
    #: Why the 2015 manual is used (required under GP-0-25-001; only with ``"2015"``).
    design_manual_justification: str = ""

    def __post_init__(self):
        problems = project_problems(self)
        if problems:
            raise InputError("\n".join(f"ProjectFacts: {p}" for p in problems))
        for ac, ft2 in (
            ("disturbed_area_ac", "disturbed_area_ft2"),
            ("new_impervious_area_ac", "new_impervious_area_ft2"),
        ):
            v_ac, v_ft2 = getattr(self, ac), getattr(self, ft2)
            if v_ac is None:
                object.__setattr__(self, ac, float(v_ft2) / FT2_PER_AC)
            elif v_ft2 is None:
                object.__setattr__(self, ft2, float(v_ac) * FT2_PER_AC)
            else:
                object.__setattr__(self, ac, float(v_ac))
                object.__setattr__(self, ft2, float(v_ft2))
        object.__setattr__(self, "exemptions_claimed", tuple(self.exemptions_claimed))
        object.__setattr__(self, "exemption_approved_on",
                           {k: iso_date(v) for k, v in (self.exemption_approved_on or {}).items()})

    def to_dict(self) -> dict:
        """Plain dict (JSON-serialisable) of the facts."""
        out = dataclasses.asdict(self)
        out["exemptions_claimed"] = list(self.exemptions_claimed)
        out["exemption_approved_on"] = {k: v.isoformat()
                                        for k, v in self.exemption_approved_on.items()}
        if self.state_permit is None:
            out.pop("state_permit")
        else:
            out["state_permit"] = {k: v.isoformat() if isinstance(v, _dt.date) else v
                                   for k, v in out["state_permit"].items()}
        return out


def project_problems(facts) -> list[str]:
    """Every rule a :class:`ProjectFacts` (or the same fields) breaks, one line each.

    The single rule set of the project facts: :func:`parse_project` (the site file) and
    ``ProjectFacts(...)`` (the API) both apply it. Rules: text fields are non-empty strings
    without control characters; ``municipality`` and ``project_type`` are known keys; flags
    are ``True``/``False``; each area is given in one unit at least, finite, ``>= 0`` and at
    most :data:`MAX_PROJECT_AREA_AC`; when both units are given they agree within 0.1 %.
    Implausible but possible facts are
    :func:`hydrocalc.site.plausibility.project_warnings`.
    """
    get = (facts.get if isinstance(facts, Mapping) else
           lambda k, d=None: getattr(facts, k, d))
    # the keys as the file writes them: an optional key of None is not given, a tuple a list
    data = {k: list(v) if isinstance(v, tuple) else v for k in _PROJECT_KEYS
            if k not in _NOT_IN_MODEL and ((v := get(k)) is not None or k in _PROJECT_REQUIRED)}
    errors = [e for e in field_errors(Project, data) if e.kind != "unknown"]
    faults = {e.path[0] for e in errors}
    out = [f"{'.'.join(map(str, e.path))} {field_message(e)}" for e in errors]
    out.extend(edition_problems(get("design_manual"),
                                get("design_manual_justification", "") or None))
    ex, dates = get("exemptions_claimed", ()), get("exemption_approved_on", {}) or {}
    if isinstance(dates, Mapping) and isinstance(ex, list | tuple):
        for k in dates:  # each valid date names a claimed exemption
            if k not in ex and ("exemption_approved_on", k) not in {e.path for e in errors}:
                out.append(f"exemption_approved_on.{str(k)[:40]} must name a claimed exemption "
                           f"(exemptions_claimed); got {k!r}")
    for ac, ft2 in (("disturbed_area_ac", "disturbed_area_ft2"),
                    ("new_impervious_area_ac", "new_impervious_area_ft2")):
        v_ac, v_ft2 = get(ac), get(ft2)
        if v_ac is None and v_ft2 is None:
            out.append(f"{ac} or {ft2} must be given; got neither")
        elif (v_ac is not None and v_ft2 is not None and not {ac, ft2} & faults
              and not math.isclose(float(v_ac) * FT2_PER_AC, float(v_ft2), rel_tol=1e-3,
                                   abs_tol=1.0)):
            out.append(f"{ac} and {ft2} must agree; got {fmt_value(v_ac)} ac = "
                       f"{fmt_value(float(v_ac) * FT2_PER_AC)} ft2 and {fmt_value(v_ft2)} ft2. "
                       "Give one of them")
    return out


# ----------------------------------------------------------------------------------------
# the ``[project]`` table

_PROJECT_REQUIRED = (
    "name",
    "municipality",
    "receiving_water",
    "drains_to_impaired_water",
    "project_type",
)
_PROJECT_OPTIONAL_TEXT = ("address", "tax_map", "owner", "preparer", "impairment")
#: :class:`ProjectFacts` fields checked beside the model: the parsed permit plan, the manual
#: edition (:func:`hydrocalc.criteria.ny_editions.edition_problems`).
_NOT_IN_MODEL = ("state_permit", "design_manual", "design_manual_justification")
_PROJECT_ALTERNATIVES = (
    ("disturbed_area_ac", "disturbed_area_ft2"),
    ("new_impervious_area_ft2", "new_impervious_area_ac"),
)
_AREAS = tuple(k for pair in _PROJECT_ALTERNATIVES for k in pair)
_PROJECT_KEYS = (
    *_PROJECT_REQUIRED,
    *_PROJECT_OPTIONAL_TEXT,
    *(k for pair in _PROJECT_ALTERNATIVES for k in pair),
    "part_of_larger_common_plan",
    "exemptions_claimed",
    "exemption_approved_on",
    "state_permit",
    "design_manual",
    "design_manual_justification",
)


#: Keys of ``[project]`` (by their path) checked by hand rather than by the declared model:
#: the manual edition and its justification (one rule set with :class:`ProjectFacts`).
_BY_HAND = (("design_manual",), ("design_manual_justification",))


def _declared(mapping: Mapping, errors: list[FieldError] | None) -> list[FieldError]:
    """The declared model's problems of the ``[project]`` keys it checks (paths from the file).

    ``errors`` are those the site loader found in the whole file; None: the table is
    validated here (a ``[project]`` mapping given to the API).
    """
    if errors is None:
        errors = [dataclasses.replace(e, path=("project", *e.path))
                  for e in field_errors(Project, mapping)]
    out = []
    for e in errors:
        if len(e.path) < 2 or (e.kind != "missing"
                               and any(e.path[1:1 + len(t)] == t for t in _BY_HAND)):
            continue
        if e.kind == "unknown" and len(e.path) == 2:  # "Valid keys" in the loader's order
            e = dataclasses.replace(e, allowed=_PROJECT_KEYS)
        out.append(e)
    return out


def _one_unit_each(col: _Problems, mapping, prefix: str) -> None:
    """The disturbed and new impervious areas: each given in exactly one of its units."""
    for k_main, k_alt in _PROJECT_ALTERNATIVES:
        if k_main in mapping and k_alt in mapping:
            col.add(f"{prefix}.{k_main}",
                    f"and {prefix}.{k_alt} must not both be given; got both. Keep one.")
        elif k_main not in mapping and k_alt not in mapping:
            col.add(f"{prefix}.{k_main}",
                    f"(or {k_alt}) is required; got nothing. Add one of them.")


def _parse_exemptions(col: _Problems, mapping, prefix: str, municipality: str | None,
                      bad: set) -> tuple[str, ...]:
    """``exemptions_claimed`` (a list of strings, by the model): unique profile keys."""
    if "exemptions_claimed" not in mapping or "exemptions_claimed" in bad:
        return ()
    raw = mapping["exemptions_claimed"]
    exemptions = tuple(raw)
    if len(set(exemptions)) != len(exemptions):
        col.add(f"{prefix}.exemptions_claimed", f"must not repeat a key; got {list(raw)!r}")
    valid = _profile_keys(municipality, "exemption") if municipality else None
    if valid is not None:
        for i, e in enumerate(exemptions):
            if e not in valid:
                col.add(
                    f"{prefix}.exemptions_claimed[{i}]",
                    f"must be an exemption key of the {municipality} profile; got "
                    f"{_choices(e, valid)}",
                )
    return exemptions


def parse_project(
    mapping: Mapping[str, Any] | None, *, where: str = "site.toml",
    errors: list[FieldError] | None = None,
) -> tuple[ProjectFacts | None, list[str]]:
    """Validate a ``[project]`` table and build :class:`ProjectFacts`.

    Parameters
    ----------
    mapping : mapping or None
        The parsed ``[project]`` TOML table (None when the section is missing).
    where : str
        File name used as the prefix of every problem line.
    errors : list of FieldError, optional
        The problems the declared site model (:class:`hydrocalc.site.schema.SiteFile`) found
        in ``[project]``, paths from the file (the site loader validates the file once).
        None: the table is validated here with :class:`hydrocalc.site.schema.Project`.

    Returns
    -------
    facts : ProjectFacts or None
        None when any problem was found.
    problems : list of str
        Every problem, one line each, e.g.
        ``site.toml: project.disturbed_area_ac must be >= 0; got -3``.

    Examples
    --------
    >>> facts, problems = parse_project({
    ...     "name": "Lot 4", "municipality": "pelham", "receiving_water": "Hutchinson River",
    ...     "drains_to_impaired_water": True, "disturbed_area_ft2": 2500,
    ...     "new_impervious_area_ft2": 800, "project_type": "single_family_residence"})
    >>> problems
    []
    >>> round(facts.disturbed_area_ft2)
    2500
    >>> parse_project({"name": "x", "municiplaity": "pelham"})[1][0]
    "site.toml: unknown key project.municiplaity; did you mean 'municipality'?"
    """
    col = _Problems(where)
    prefix = "project"
    if mapping is None:
        col.problems.append(
            f"{where}: [project] section is required; got nothing. Add a [project] table with "
            "name, municipality, receiving_water, drains_to_impaired_water, project_type and "
            "the disturbed and new impervious areas."
        )
        return None, col.problems
    if not isinstance(mapping, Mapping):
        col.problems.append(f"{where}: [project] must be a table; got {mapping!r}")
        return None, col.problems
    declared = _declared(mapping, errors)
    col.declared(declared, {prefix: mapping}, each_bound=True)
    bad = {e.path[1] for e in declared}
    for line in edition_problems(mapping.get("design_manual"),
                                 mapping.get("design_manual_justification")):
        col.add(f"{prefix}.{line.split(' ', 1)[0]}", line.split(" ", 1)[1])
    _one_unit_each(col, mapping, prefix)
    # the valid keys as the facts hold them: areas as floats, dates from ISO text
    values: dict[str, Any] = {k: float(v) if k in _AREAS else v for k, v in mapping.items()
                              if k in _PROJECT_KEYS and k not in bad}
    values["exemptions_claimed"] = _parse_exemptions(col, mapping, prefix,
                                                     values.get("municipality"), bad)
    values["exemption_approved_on"] = {str(k): iso_date(v) for k, v in
                                       values.get("exemption_approved_on", {}).items()}
    if "state_permit" in mapping:
        values["state_permit"] = parse_state_permit(
            col, mapping["state_permit"], f"{prefix}.state_permit",
            {e.path[2] for e in declared if len(e.path) > 2 and e.path[1] == "state_permit"})
    if not col.problems:  # the cross-field rules of the one shared rule set
        col.problems.extend(f"{where}: {prefix}.{line}" for line in project_problems(values))
    if col.problems:
        return None, col.problems
    justification = (values.pop("design_manual_justification", None) or "").strip()
    return ProjectFacts(**values, design_manual_justification=justification), []
