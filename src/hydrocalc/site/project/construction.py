"""``[construction]``: the construction plan (period, rainfall record, milestones, traps).

:class:`Milestone` and :class:`ConstructionPlan` with their checks
(:func:`construction_problems`), and :func:`parse_construction`,
which returns ``(plan_or_None, problems)`` and never raises on bad content. A trap entry is
the one trap record, :class:`hydrocalc.construction.sediment.SedimentTrap` (``TrapPlan`` is
its former name here), checked by its own rules (``trap_problems``).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import pathlib
from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import confined_path, excerpt, iso_date, text_problem
from hydrocalc.construction.sediment.trap_criteria import criteria_keys as sediment_criteria_keys
from hydrocalc.construction.sediment.traps import TRAP_NUMBER_RULES, SedimentTrap
from hydrocalc.errors import InputError
from hydrocalc.schema_errors import FieldError, field_errors
from hydrocalc.site.problems import _Problems, field_message
from hydrocalc.site.project.collector import _choices, _profile_keys
from hydrocalc.site.project.facts import MUNICIPALITIES
from hydrocalc.site.schema import Construction


@dataclasses.dataclass(frozen=True)
class Milestone:
    """A construction milestone (Pelham 48-hour notices). ``when`` is a date or a datetime."""

    key: str
    when: _dt.date | _dt.datetime

    def __post_init__(self):
        bad = text_problem(self.key, required=True, max_chars=100)
        if bad:
            raise InputError(f"Milestone key {bad}")
        if not isinstance(self.when, _dt.date):
            raise InputError(f"Milestone {self.key} when must be a date or datetime; got "
                             f"{self.when!r}"[:200])


#: One ``[[construction.trap]]`` entry is a
#: :class:`hydrocalc.construction.sediment.SedimentTrap` (the one trap record; this name is
#: kept for the code that imported it from here).
TrapPlan = SedimentTrap


@dataclasses.dataclass(frozen=True)
class ConstructionPlan:
    """The ``[construction]`` table: period, rainfall record, milestones and traps."""

    start_date: _dt.date
    end_date: _dt.date
    rainfall_file: pathlib.Path | None = None
    rainfall_station: str | None = None
    rainfall_units: str = "auto"
    rainfall_shift_years: int = 0
    rainfall_type: str | None = None
    inspection_threshold_in: float | None = None
    inspection_interval_days: int | None = None
    inspection_clock: str = "fixed"
    storm_event: str = "multi_day"
    milestones: tuple[Milestone, ...] = ()
    traps: tuple[TrapPlan, ...] = ()

    def __post_init__(self):
        problems = construction_problems(self)
        if problems:
            raise InputError("\n".join(f"ConstructionPlan: {p}" for p in problems))
        for key in ("start_date", "end_date"):
            object.__setattr__(self, key, iso_date(getattr(self, key)))
        object.__setattr__(self, "rainfall_type", _rainfall_type(self.rainfall_type))

    @property
    def duration_days(self) -> int:
        """Calendar days from start to end, both included."""
        return (self.end_date - self.start_date).days + 1


def construction_problems(plan) -> list[str]:
    """Every rule a :class:`ConstructionPlan` breaks (the rules of ``[construction]``).

    Its keys as the site file writes them are checked by the declared model
    (:class:`hydrocalc.site.schema.Construction`); then the end must not precede the start.
    """
    data = {k: getattr(plan, k) for k in _CONSTRUCTION_KEYS[:-2]
            if k != "rainfall_file" and getattr(plan, k) is not None}
    out = [f"{'.'.join(map(str, e.path))} {field_message(e)}"
           for e in field_errors(Construction, data)]
    if not out and (end := iso_date(plan.end_date)) < (start := iso_date(plan.start_date)):
        out.append(f"end_date must be on or after start_date ({start.isoformat()}); got "
                   f"{end.isoformat()}")
    return out


_TRAP_GEOMETRY_TRAP = ("bottom_length_ft", "bottom_width_ft", "depth_ft", "side_slope_h_per_v")
_TRAP_GEOMETRY_TABLE = ("stage_ft", "area_ft2")
_TRAP_MUSLE = (
    "k_factor",
    "c_factor",
    "p_factor",
    "dry_unit_weight_lb_ft3",
    "trap_efficiency_frac",
)
_TRAP_HYDRO = ("cn", "tc_hr", "design_precip_in")
_TRAP_LS = ("slope_length_ft", "slope_pct", "ls_factor")
_TRAP_KEYS = (
    "id",
    "drainage_area_ac",
    "criteria",
    *_TRAP_GEOMETRY_TRAP,
    *_TRAP_GEOMETRY_TABLE,
    *_TRAP_MUSLE,
    *_TRAP_LS,
    *_TRAP_HYDRO,
)
_CONSTRUCTION_KEYS = (
    "start_date",
    "end_date",
    "rainfall_file",
    "rainfall_station",
    "rainfall_units",
    "rainfall_shift_years",
    "rainfall_type",
    "inspection_threshold_in",
    "inspection_interval_days",
    "inspection_clock",
    "storm_event",
    "milestone",
    "trap",
)
#: TR-55 rainfall distribution types accepted for the daily peak discharge (Table F-1).
RAINFALL_TYPES = ("I", "IA", "II", "III")
#: How the 7-day inspection clock runs (see hydrocalc.construction.inspections).
INSPECTION_CLOCKS = ("fixed", "rolling")
#: Readings of the laws' "storm event" (see hydrocalc.construction.inspections):
#: ``"multi_day"`` (default: a run of consecutive wet days is one event) or ``"calendar_day"``
#: (each day alone).
STORM_EVENT_READINGS = ("multi_day", "calendar_day")
_MILESTONE_KEYS = ("key", "date")


#: Keys of ``[construction]`` (by their path without entry indices) checked by hand rather
#: than by the declared model: a trap's criteria (the valid keys listed) and its areas (judged
#: after its stages).
_BY_HAND = (("trap", "criteria"), ("trap", "area_ft2"))
#: What a trap's number out of range is followed by (the method's range).
_HINTS = {k: rule["hint"] for k, rule in TRAP_NUMBER_RULES.items() if "hint" in rule}


def _declared(mapping: Mapping, errors: list[FieldError] | None) -> list[FieldError]:
    """The declared model's problems of the ``[construction]`` keys it checks.

    ``errors`` are those the site loader found in the whole file; None: the table is
    validated here (a mapping given to the API).
    """
    if errors is None:
        errors = [dataclasses.replace(e, path=("construction", *e.path))
                  for e in field_errors(Construction, mapping)]
    out = []
    for e in errors:
        if len(e.path) < 2 or tuple(k for k in e.path[1:] if isinstance(k, str)) in _BY_HAND:
            continue
        if e.kind == "value" and len(e.path) == 2 and isinstance(e.value, list):
            # entries of [[construction.milestone]] or [[construction.trap]] that are not tables
            out += [dataclasses.replace(e, path=(*e.path, i), value=v)
                    for i, v in enumerate(e.value) if not isinstance(v, Mapping)]
        else:
            out.append(e)
    return out


def _all_milestone_keys() -> tuple[str, ...] | None:
    keys: list[str] = []
    for m in MUNICIPALITIES:
        got = _profile_keys(m, "milestone")
        if got is None:
            return None
        keys.extend(k for k in got if k not in keys)
    return tuple(keys)


def _stage_area_rules(col: _Problems, entry, prefix: str, bad: set) -> None:
    """A stage-area table: both lists, as many areas as stages, stages increasing, areas >= 0.

    The areas' list is judged here (after the stages), the stages by the model (``bad``).
    """
    arrays = {}
    for k in _TRAP_GEOMETRY_TABLE:
        raw = entry.get(k)
        if k not in entry:
            col.add(f"{prefix}.{k}", "is required with a stage-area table; got nothing.")
        elif k == "area_ft2" and (
                not isinstance(raw, list) or len(raw) < 2
                or not all(isinstance(v, int | float) and not isinstance(v, bool) for v in raw)):
            col.add(f"{prefix}.{k}", f"must be a list of at least 2 numbers; got {raw!r}")
        elif k not in bad:
            arrays[k] = [float(v) for v in raw]
    if len(arrays) == 2:
        st, ar = arrays["stage_ft"], arrays["area_ft2"]
        if len(st) != len(ar):
            col.add(f"{prefix}.area_ft2",
                    f"must have as many values as stage_ft ({len(st)}); got {len(ar)}")
        elif any(b <= a for a, b in zip(st, st[1:], strict=False)):
            col.add(f"{prefix}.stage_ft", f"must be strictly increasing; got {st}")
        elif any(a < 0 for a in ar):
            col.add(f"{prefix}.area_ft2", f"must be >= 0; got {ar}")


def _trap_rules(col: _Problems, entry, prefix: str, criteria_keys, bad: set) -> None:
    """The rules of one trap beside the model: its criteria, one whole geometry, MUSLE inputs.

    The criteria is a key of the shipped table; the geometry is the trap's dimensions or a
    stage-area table (one of them, whole); the MUSLE inputs are complete when any is given,
    with LS given or from the slope length and percent; a design rainfall needs a CN.
    """
    criteria = col.text(entry, "criteria", prefix, required=True)
    if criteria is not None and criteria_keys is not None and criteria not in criteria_keys:
        col.add(f"{prefix}.criteria", "must be a key of the sediment criteria table; got "
                                      f"{_choices(criteria, criteria_keys)}")
    has_trap = any(k in entry for k in _TRAP_GEOMETRY_TRAP)
    if has_trap and any(k in entry for k in _TRAP_GEOMETRY_TABLE):
        col.add(prefix, "geometry must be either bottom_length_ft/bottom_width_ft/depth_ft/"
                        "side_slope_h_per_v or stage_ft/area_ft2; got both. Keep one.")
    elif has_trap:
        _required(col, entry, prefix, _TRAP_GEOMETRY_TRAP)
    elif any(k in entry for k in _TRAP_GEOMETRY_TABLE):
        _stage_area_rules(col, entry, prefix, bad)
    if "design_precip_in" in entry and "cn" not in entry:
        col.add(f"{prefix}.cn", "is required with design_precip_in; got nothing.")
    if not any(k in entry for k in (*_TRAP_MUSLE, *_TRAP_LS)):
        return
    missing = [k for k in (*_TRAP_MUSLE, "cn", "tc_hr") if k not in entry]
    if missing:
        col.add(prefix, "MUSLE inputs must be complete when any is given; missing "
                        f"{', '.join(missing)}. Add them or remove the MUSLE keys.")
    if "ls_factor" in entry and ("slope_length_ft" in entry or "slope_pct" in entry):
        col.add(f"{prefix}.ls_factor", "must not be given together with slope_length_ft/"
                                       "slope_pct; got both. Keep one.")
    elif "ls_factor" not in entry:
        _required(col, entry, prefix, ("slope_length_ft", "slope_pct"))


def _required(col: _Problems, entry, prefix: str, keys) -> None:
    """Keys required by the keys given beside them."""
    for k in keys:
        if k not in entry:
            col.add(f"{prefix}.{k}", "is required; got nothing. Add it to the file.")


def _trap(entry: Mapping) -> TrapPlan:
    """The trap of a valid ``[[construction.trap]]`` entry (numbers as floats)."""
    values: dict[str, Any] = {
        k: tuple(float(x) for x in v) if isinstance(v, list) else float(v)
        if isinstance(v, int) else v
        for k, v in entry.items() if k in _TRAP_KEYS and k not in ("id", "criteria")}
    return TrapPlan(id=entry["id"], criteria=entry["criteria"], **values)


def _parse_rainfall_file(col: _Problems, raw, prefix: str, where: str,
                         base: pathlib.Path, allow_outside_paths: bool) -> pathlib.Path | None:
    """The ``rainfall_file`` (text, by the model): confined to ``base`` and existing."""
    if raw is None:
        return None
    try:
        rain = confined_path(raw, base, field=f"{prefix}.rainfall_file",
                             allow_outside=allow_outside_paths)
    except InputError as exc:
        col.problems.append(f"{where}: {exc}")
        return None
    if not rain.is_file():
        col.add(
            f"{prefix}.rainfall_file",
            f"must be an existing file (relative to the site file's folder); got "
            f"{excerpt(raw, 80)!r}",
        )
        return None
    return rain


def _rainfall_type(raw: str | None) -> str | None:
    """``rainfall_type`` as its key: ``Type II``, ``type_ii``... (the model's spellings) ``II``."""
    if raw is None:
        return None
    key = raw.strip().upper()
    for token in ("TYPE", "_", " ", "-"):
        key = key.replace(token, "")
    return key


def _milestone_rules(col: _Problems, mapping, prefix: str, municipality: str | None,
                     bad: set) -> None:
    """The ``[[construction.milestone]]`` keys: milestone keys of the profile(s).

    Their values were checked by the declared model (``bad``: the paths at fault in the
    array, ``(index, key)`` or ``(index,)``).
    """
    raw_ms = mapping.get("milestone", [])
    valid_ms = (_profile_keys(municipality, "milestone") if municipality is not None
                else _all_milestone_keys())
    if not isinstance(raw_ms, list) or valid_ms is None:  # recorded by the model
        return
    scope = f"the {municipality} profile" if municipality else "a regulation profile"
    for i, entry in enumerate(raw_ms):
        key = entry.get("key") if isinstance(entry, Mapping) and (i, "key") not in bad else None
        if key is not None and key not in valid_ms:
            col.add(f"{prefix}.milestone[{i}].key",
                    f"must be a milestone key of {scope}; got {_choices(key, valid_ms)}")


def _traps_rules(col: _Problems, mapping, prefix: str, bad: dict[int, set]) -> None:
    """The ``[[construction.trap]]`` entries' rules, and unique ids among the valid ones."""
    criteria_keys = sediment_criteria_keys()
    raw_traps = mapping.get("trap", [])
    seen: set[str] = set()
    for i, entry in enumerate(raw_traps if isinstance(raw_traps, list) else []):
        if not isinstance(entry, Mapping):  # recorded by the model
            continue
        n0 = len(col.problems)
        _trap_rules(col, entry, f"{prefix}.trap[{i}]", criteria_keys, bad.get(i, set()))
        if bad.get(i) or len(col.problems) > n0:
            continue
        if entry["id"] in seen:
            col.add(f"{prefix}.trap[{i}].id", f"must be unique; got {entry['id']!r} twice")
        seen.add(entry["id"])


def _plan(mapping: Mapping, rain: pathlib.Path | None) -> ConstructionPlan:
    """The plan of a valid ``[construction]`` table.

    The plan reads the dates' ISO text and the rainfall type's spellings.
    """
    values: dict[str, Any] = {k: v for k, v in mapping.items() if k in _CONSTRUCTION_KEYS[:-2]}
    if "inspection_threshold_in" in values:
        values["inspection_threshold_in"] = float(values["inspection_threshold_in"])
    milestones = tuple(Milestone(key=m["key"], when=iso_date(m["date"]))
                       for m in mapping.get("milestone", []))
    traps = tuple(_trap(t) for t in mapping.get("trap", []))
    return ConstructionPlan(**{**values, "rainfall_file": rain}, milestones=milestones,
                            traps=traps)


def parse_construction(
    mapping: Mapping[str, Any] | None,
    *,
    where: str = "site.toml",
    base_dir: pathlib.Path | str | None = None,
    municipality: str | None = None,
    allow_outside_paths: bool = False,
    errors: list[FieldError] | None = None,
) -> tuple[ConstructionPlan | None, list[str]]:
    """Validate a ``[construction]`` table and build :class:`ConstructionPlan`.

    Parameters
    ----------
    mapping : mapping or None
        The parsed ``[construction]`` TOML table. None (section absent) gives ``(None, [])``.
    where : str
        File name used as the prefix of every problem line.
    base_dir : path-like, optional
        Folder that ``rainfall_file`` is relative to (the site file's folder). Default: the
        current directory. The file must exist.
    municipality : str, optional
        When given, milestone keys are checked against that profile; otherwise against the
        milestone keys of all profiles.
    allow_outside_paths : bool, default False
        Accept a ``rainfall_file`` outside ``base_dir`` (by default it must lie inside).
    errors : list of FieldError, optional
        The problems the declared site model (:class:`hydrocalc.site.schema.SiteFile`) found
        in ``[construction]``, paths from the file (the site loader validates the file once).
        None: the table is validated here with :class:`hydrocalc.site.schema.Construction`.

    Returns
    -------
    plan : ConstructionPlan or None
        None when the section is absent or any problem was found.
    problems : list of str
        Every problem, one line each.

    Examples
    --------
    >>> import datetime
    >>> plan, problems = parse_construction({
    ...     "start_date": datetime.date(2027, 4, 1), "end_date": datetime.date(2027, 10, 29)})
    >>> problems, plan.duration_days
    ([], 212)
    >>> _, problems = parse_construction({"start_date": datetime.date(2027, 4, 1)})
    >>> print(problems[0])  # doctest: +ELLIPSIS
    site.toml: construction.end_date is required; got nothing. Add it as a TOML date, e.g. ...
    """
    col = _Problems(where)
    prefix = "construction"
    if mapping is None:
        return None, []
    if not isinstance(mapping, Mapping):
        col.add(prefix, f"must be a table; got {mapping!r}")
        return None, col.problems
    declared = _declared(mapping, errors)
    col.declared(declared, {prefix: mapping}, each_bound=True, hints=_HINTS, ids=False)
    bad = {e.path[1] for e in declared}
    traps_bad: dict[int, set] = {}
    for e in declared:
        if e.path[1:2] == ("trap",) and len(e.path) > 3:
            traps_bad.setdefault(e.path[2], set()).add(e.path[3])
    base = pathlib.Path(base_dir) if base_dir is not None else pathlib.Path.cwd()
    start = iso_date(mapping.get("start_date")) if "start_date" not in bad else None
    end = iso_date(mapping.get("end_date")) if "end_date" not in bad else None
    if start is not None and end is not None and end < start:
        col.add(
            f"{prefix}.end_date",
            f"must be on or after start_date ({start.isoformat()}); got {end.isoformat()}",
        )
    rain = _parse_rainfall_file(col, mapping.get("rainfall_file") if "rainfall_file" not in bad
                                else None, prefix, where, base, allow_outside_paths)
    _milestone_rules(
        col, mapping, prefix, municipality,
        {e.path[2:] for e in declared if e.path[1:2] == ("milestone",) and len(e.path) > 2})
    _traps_rules(col, mapping, prefix, traps_bad)
    if col.problems:
        return None, col.problems
    return _plan(mapping, rain), []
