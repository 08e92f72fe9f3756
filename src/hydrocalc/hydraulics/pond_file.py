"""Pond files (TOML) and the export of a pond to an EPA SWMM 5 input file.

:func:`pond_from_mapping` and :func:`load_pond` read a pond (storage + outlets);
:func:`to_swmm_inp` writes a pond (with an optional fixed-stage or time-series tailwater at its
outfalls) as a SWMM 5 ``.inp`` text for an independent check of a route.

References
----------
.. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
   Hydraulics*, EPA/600/R-17/111, 2017.
"""

from __future__ import annotations

import datetime
import math
import pathlib
import re
import typing
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import cast

import numpy as np
from pydantic import BaseModel

from hydrocalc._validate import capped, check_choice, excerpt, fmt_value, suggest, text_problem
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import (
    Barrel,
    BroadCrestedWeir,
    CircularOrifice,
    Exfiltration,
    OutletStructure,
    RectangularOrifice,
    RectangularWeir,
    Riser,
    VNotchWeir,
    as_structure,
)
from hydrocalc.hydraulics.pond_schema import PondFile
from hydrocalc.hydraulics.routing.reservoir import tailwater_series
from hydrocalc.hydraulics.routing.table import check_devices, to_stage_frame
from hydrocalc.hydraulics.stage_storage import StageStorage
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.input_file import key_lines, line_suffix, parse_toml, read_input_bytes
from hydrocalc.schema_errors import field_errors

__all__ = ["Pond", "pond_from_mapping", "load_pond", "to_swmm_inp"]


# =========================================================================================
# Pond files
# =========================================================================================
_DEVICE_TYPES = {
    "circular_orifice": CircularOrifice, "rectangular_orifice": RectangularOrifice,
    "rectangular_weir": RectangularWeir, "vnotch_weir": VNotchWeir,
    "broad_crested_weir": BroadCrestedWeir, "riser": Riser, "exfiltration": Exfiltration,
}


#: Stages above the top (fractions of the top stage) at which a device's flow must be finite:
#: the routing table extends the pond to 11 times its top.
_ABOVE_TOP = np.array([1.5, 2.0, 3.0, 6.0, 11.0])

#: ``say(path, text)``: a message ``text`` ending with the line of the key at ``path``.
_Say = Callable[[str, str], str]


@dataclass(frozen=True)
class Pond:
    """A pond read from a file: its stage-storage and outlet structure."""

    name: str
    stage_storage: StageStorage
    outlets: OutletStructure


def _shown(value, depth: int = 0) -> str:
    """A value of a pond file as TOML writes it (``true``, ``'8'``, ``[1, 2]``), for messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        text = fmt_value(value)
        whole = isinstance(value, float) and text.lstrip("-").isdigit()
        return text + ".0" if whole else text  # 2.0 stays a float: "must be an integer"
    if isinstance(value, str):
        return excerpt(repr(value), 42)
    if isinstance(value, list | Mapping) and depth > 2:
        return "[...]" if isinstance(value, list) else "{...}"
    if isinstance(value, list):
        items = [_shown(v, depth + 1) for v in value[:8]]
        return "[" + ", ".join(items + (["..."] if len(value) > 8 else [])) + "]"
    if isinstance(value, Mapping):
        pairs = [f"{k} = {_shown(v, depth + 1)}" for k, v in list(value.items())[:8]]
        return "{" + ", ".join(pairs + (["..."] if len(value) > 8 else [])) + "}"
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    return excerpt(repr(value), 40)


def _is_number(value) -> bool:
    """True for a TOML number (an integer or a float, not a boolean)."""
    return isinstance(value, int | float) and not isinstance(value, bool)


def _type_problem(declared, value) -> str | None:
    """What a value of the wrong TYPE must be (``must be a number; got true``), else None.

    Only the type is judged here (and the characters of a text); a value of the right type
    outside its range is left to the storage and device constructors, whose messages state
    the range.
    """
    if isinstance(declared, type) and issubclass(declared, BaseModel):
        need, ok = "must be a table", isinstance(value, Mapping)
    elif declared is bool:
        need, ok = "must be true or false", isinstance(value, bool)
    elif declared is float:
        need, ok = "must be a number", _is_number(value)
    elif declared is int:
        need, ok = "must be an integer", isinstance(value, int) and not isinstance(value, bool)
    elif declared is str:
        if isinstance(value, str):
            return text_problem(value)  # control characters, length
        need, ok = "must be text", False
    elif typing.get_origin(declared) is typing.Literal:
        options = typing.get_args(declared)
        need, ok = f"must be one of {', '.join(map(str, options))}", isinstance(value, str)
    elif typing.get_origin(declared) is list:
        need = "must be a list of numbers"
        ok = isinstance(value, list) and all(_is_number(v) for v in value)
    else:
        return None
    return None if ok else f"{need}; got {_shown(value)}"


def _outlet_problems(value, where: str, say: _Say) -> dict[tuple, list[str]]:
    """The problems of an ``outlet`` key that is not an array of tables, by section."""
    if value is None or (isinstance(value, list) and not value):
        return {("outlet",): [say("outlet", f"{where}: at least one [[outlet]] is required; "
                                             "got none")]}
    if not isinstance(value, list):
        return {("outlet",): [say("outlet", f"{where}: outlet must be an array of tables "
                                             f"([[outlet]]); got {_shown(value)}")]}
    return {("outlet", i): [say(f"outlet[{i}]", f"{where}: outlet[{i}] must be a table "
                                                 f"([[outlet]]); got {_shown(item)}")]
            for i, item in enumerate(value) if not isinstance(item, Mapping)}


def _storage_from(spec: Mapping, where: str, problems: list[str], say: _Say):
    """The :class:`StageStorage` of the ``[storage]`` table, or None (problems appended)."""
    kinds = [k for k in ("area_ft2", "storage_ft3", "basin", "drywell") if k in spec]
    if len(kinds) != 1:
        problems.append(say("storage", f"{where}: [storage] must give exactly one of "
                                       f"area_ft2, storage_ft3, [storage.basin] or "
                                       f"[storage.drywell]; got {kinds or 'none'}"))
        return None
    try:
        if kinds[0] == "area_ft2":
            # a missing stage_ft is refused by StageStorage's own check
            return StageStorage.from_areas(spec.get("stage_ft"),  # type: ignore[arg-type]
                                           spec["area_ft2"], method=spec.get("method", "conic"))
        if kinds[0] == "storage_ft3":
            return StageStorage.from_volumes(spec.get("stage_ft"),  # type: ignore[arg-type]
                                             spec["storage_ft3"])
        if kinds[0] == "basin":
            return StageStorage.basin(**spec["basin"])
        return StageStorage.drywell(**spec["drywell"])
    except (InputError, TypeError) as exc:
        table = "storage" if kinds[0] in ("area_ft2", "storage_ft3") else f"storage.{kinds[0]}"
        keys = spec if table == "storage" else spec[kinds[0]]
        problems.append(say(_key_path(table, str(exc), keys), f"{where}: storage: {exc}"))
    return None


def _key_path(table: str, message: str, keys) -> str:
    """The path of the key of ``table`` a constructor's message names first (else the table)."""
    found = [(m.start(), k) for k in keys
             if (m := re.search(rf"(?<![\w.']){re.escape(str(k))}(?!\w)", message))]
    return f"{table}.{min(found)[1]}" if found else table


def _label(path: tuple) -> str:
    """``outlet[0]``, ``storage.basin``: a path of the pond file as the messages write it."""
    out = ""
    for part in path:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else part)
    return out


def _structure_problems(mapping: Mapping, where: str, say: _Say) -> dict[tuple, list[str]]:
    """The pond file's unknown keys, device types, missing keys and wrong types, by section.

    From the declared model (:class:`hydrocalc.hydraulics.pond_schema.PondFile`); a value
    of the right type is judged by the constructors of the storage and the devices (one rule
    for the API and the file), which state its range.
    """
    out: dict[tuple, list[str]] = {}
    missing: dict[tuple, list[str]] = {}
    for e in field_errors(PondFile, mapping):
        table = e.table if e.kind != "tag" else e.path
        head = f"{where}: {_label(table)}: " if table else f"{where}: "
        if e.kind == "unknown":
            line = say(_label(e.path), f"{head}unknown key {e.key!r}{suggest(e.key, e.allowed)}")
        elif e.kind == "tag":
            line = say(_label(table) + ".type",
                       f"{where}: {_label(table)}.type must be one of {', '.join(e.allowed)}; "
                       f"got {'None' if e.value is None else _shown(e.value)}"
                       f"{suggest(str(e.value), e.allowed)}")
        elif e.path == ("outlet",) and e.kind in ("missing", "value"):
            for section, lines in _outlet_problems(mapping.get("outlet"), where, say).items():
                out.setdefault(section, []).extend(lines)
            continue
        elif e.kind == "missing" and (table[:1] in (("outlet",), ("barrel",))
                                      or table[:2] in (("storage", "basin"),
                                                       ("storage", "drywell"))):
            missing.setdefault(table, []).append(e.key)
            continue
        elif e.kind == "value" and (bad := _type_problem(e.declared, e.value)) is not None:
            line = say(_label(e.path), f"{head}{e.key} {bad}")
        else:
            continue  # a value of the right type, or [storage]: the constructors' own messages
        out.setdefault(_section(e.path if e.kind == "value" else table), []).append(line)
    for table, keys in missing.items():
        out.setdefault(_section(table), []).append(
            say(_label(table), f"{where}: {_label(table)}: missing {', '.join(keys)}"))
    return out


def _section(path: tuple) -> tuple:
    """The part of the pond file a key or table belongs to: (), storage, outlet[i] or barrel."""
    if path[:1] == ("outlet",):
        return path[:2]
    return path[:1] if path[:1] in (("storage",), ("barrel",)) else ()


def pond_from_mapping(mapping: Mapping, *, where: str = "pond.toml",
                      lines: Mapping[str, int] | None = None) -> Pond:
    """A :class:`Pond` from a mapping (a parsed TOML pond file).

    Layout::

        name = "Pond A"
        [storage]                 # exactly one of the four forms
        stage_ft = [0, 1, 2, 3]
        area_ft2 = [1000, 1400, 1900, 2500]
        method = "conic"          # or "average_end_area"
        # storage_ft3 = [...]     (with stage_ft)
        # [storage.basin]   bottom_length_ft, bottom_width_ft, depth_ft, side_slope_h_per_v
        # [storage.drywell] diameter_ft, depth_ft, stone_porosity_frac, stone_width_ft, ...
        [[outlet]]
        type = "circular_orifice" # circular_orifice, rectangular_orifice, rectangular_weir,
        diameter_in = 6           # vnotch_weir, broad_crested_weir, riser, exfiltration
        invert_ft = 0
        into_barrel = true        # optional: discharges through [barrel]
        [barrel]                  # optional
        diameter_in = 18; invert_ft = 0; length_ft = 60; slope_ftft = 0.01

    The keys are declared by :class:`hydrocalc.hydraulics.pond_schema.PondFile` (unknown
    keys, device types, missing keys and values of the wrong type are reported from it); the
    values are judged by the storage and device constructors; the rules between keys (one
    storage form, a barrel for the devices marked ``into_barrel``, devices below the top,
    a finite flow up to the top) are checked here.

    Parameters
    ----------
    mapping : Mapping
        The parsed pond file.
    where : str, default "pond.toml"
        The file's name, which starts every message.
    lines : Mapping of str to int, optional
        The line of each key (:func:`hydrocalc.input_file.key_lines` of the file's text):
        each message then ends with the line of its key or table, ``(line 19)``.

    Returns
    -------
    Pond

    Raises
    ------
    InputError
        Listing every problem found, one per line.
    """
    known = dict(lines) if lines else None

    def say(path: str, text: str) -> str:
        """``text`` ending with the line of the key at ``path`` (nothing without lines)."""
        return text + line_suffix(known, path)

    if not isinstance(mapping, Mapping):
        raise InputError(f"{where}: must be a table of keys (a pond file); got "
                         f"{_shown(mapping)}")
    found = _structure_problems(mapping, where, say)
    problems: list[str] = list(found.get((), []))
    ss = None
    if ("storage",) in found:
        problems += found[("storage",)]
    else:
        ss = _storage_from(mapping.get("storage", {}), where, problems, say)
    problems += found.get(("outlet",), [])
    devices, into = _devices(mapping, found, where, problems, say)
    barrel = None
    if ("barrel",) in found:
        problems += found[("barrel",)]
    elif "barrel" in mapping:
        try:
            barrel = Barrel(**mapping["barrel"])
        except InputError as exc:
            problems.append(say(_key_path("barrel", str(exc), mapping["barrel"]),
                                f"{where}: barrel: {exc}"))
    elif into:
        problems.append(say(f"{into[0][0]}.into_barrel",
                            f"{where}: outlets marked into_barrel need a [barrel]; got none"))
    if ss is not None and not problems:
        parts = [*devices, *into]
        if barrel is not None:
            parts.append(("barrel", mapping["barrel"], barrel))
        problems += _level_problems(parts, ss, where, say)
    if problems:
        raise InputError("\n".join(capped(problems)))
    return _assemble(mapping, ss, [d for *_, d in devices], [d for *_, d in into], barrel)


def _devices(mapping: Mapping, found: dict, where: str, problems: list[str],
             say: _Say) -> tuple[list, list]:
    """The devices of the ``[[outlet]]`` tables, parallel and into the barrel.

    Each as (label, table, device), the label as the messages write it (``outlet[2]``).

    A table with a problem of its keys (``found``) is not built; a constructor's refusal is
    appended to ``problems``.
    """
    devices: list = []
    into: list = []
    for i, spec in enumerate(mapping.get("outlet", []) if ("outlet",) not in found else []):
        if ("outlet", i) in found:
            problems += found[("outlet", i)]
            continue
        try:
            dev = _DEVICE_TYPES[spec["type"]](
                **{k: v for k, v in spec.items() if k not in ("type", "into_barrel")})
        except InputError as exc:
            problems.append(say(_key_path(f"outlet[{i}]", str(exc), spec),
                                f"{where}: outlet[{i}]: {exc}"))
            continue
        (into if spec.get("into_barrel") else devices).append((f"outlet[{i}]", spec, dev))
    return devices, into


def _level_problems(parts: list, ss: StageStorage, where: str, say: _Say) -> list[str]:
    """Each device's problems with the storage: above its top, or a flow that is not finite.

    ``parts`` are (label, table, device) (label ``outlet[2]``, ``barrel``); the flow is
    evaluated at even stages from the bottom to the top, at the device's breakpoints and above
    the top up to 11 times the top (the routing table's extension, vertical walls); for a
    pond with a datum, at the same levels as elevations too.
    """
    out = []
    top = ss.top_stage_ft
    for label, spec, dev in parts:
        bound = OutletStructure([dev]).bind(ss)
        try:
            check_devices(bound, ss)
        except InputError as exc:
            out.append(say(_key_path(label, str(exc), spec), f"{where}: {exc}"))
            continue
        stages = np.concatenate([np.linspace(0.0, top, 41), top * _ABOVE_TOP])
        if ss.datum_ft is not None:  # devices may be given in elevations
            stages = np.concatenate([stages, stages + ss.datum_ft])
        stages = np.unique(np.concatenate([stages, dev.breakpoints_ft]))
        try:
            with np.errstate(all="ignore"):
                flow = np.asarray(bound.discharge_cfs(stages), dtype=float)
        except (ArithmeticError, ValueError):
            flow = np.full(stages.shape, np.inf)
        if not np.isfinite(flow).all():
            i = int(np.flatnonzero(~np.isfinite(flow))[0])
            out.append(say(label, f"{where}: {label}: the flow of {type(dev).__name__} "
                                  f"'{dev.name}' must be finite up to {fmt_value(11 * top)} ft "
                                  f"(11 times the top, as routed); got {fmt_value(flow[i])} cfs "
                                  f"at {fmt_value(stages[i])} ft. Check its sizes and "
                                  "coefficients"))
    return out


def _assemble(mapping: Mapping, ss, devices: list, into: list, barrel) -> Pond:
    """The :class:`Pond` of checked parts (devices below the top, finite flows)."""
    parts = list(devices)
    if into:
        parts.insert(0, OutletStructure(into, barrel=barrel, name="riser"))
    elif barrel is not None:
        parts.append(barrel)
    name = str(mapping.get("name", ""))
    structure = OutletStructure(parts, name=name or "outlets")
    return Pond(name, ss, structure)


def load_pond(path) -> Pond:
    """Read a pond TOML file (layout in :func:`pond_from_mapping`).

    Each message ends with the line of its key or table (``(line 19)``).

    Raises
    ------
    InputError
        If the file is missing, is not valid TOML, or describes an invalid pond.
    """
    p = pathlib.Path(path)
    raw = read_input_bytes(p, what="pond file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"pond file {str(path)!r} must be UTF-8 text; byte {exc.start} is "
                         "not. Save it as UTF-8.") from None
    doc = parse_toml(text, where=p.name, what="pond file", deepest=3)
    return pond_from_mapping(doc, where=p.name, lines=key_lines(text))


# =========================================================================================
# Export to EPA SWMM 5 (independent check)
# =========================================================================================
def to_swmm_inp(inflow: Hydrograph, stage_storage: StageStorage, outlets, *,
                initial_stage_ft: float = 0.0, routing_step_s: float = 1.0,
                flow_routing: str = "DYNWAVE", duration_hr: float | None = None,
                storage_points: int = 200, tailwater_ft=None) -> str:
    """The pond as an EPA SWMM 5 input file (text), for an independent check of a route.

    The inflow is an external inflow time series on a storage unit ``SU1`` (tabular
    depth-area curve; SWMM integrates it by average end areas [3]_). Each device is one link
    to its own free outfall (``OUT<i>``, fixed stage 100 ft below the pond bottom, so there is
    never tailwater); because every device's flow rises with stage, the peak total outflow
    is the sum of the outfalls' peak flows. Coefficient conventions, identical to hydrocalc's:

    * CircularOrifice / RectangularOrifice -> SIDE orifice (CIRCULAR / RECT_CLOSED), Qcoeff =
      cd; SWMM: Q = cd A sqrt(2 g h) submerged, cd A sqrt(2 g D/2) f^1.5 partly submerged.
    * RectangularWeir -> TRANSVERSE weir, Qcoeff = cw (US units), EndCon = end_contractions.
    * BroadCrestedWeir -> TRANSVERSE weir, Qcoeff = cw (same equation, no contractions).
    * VNotchWeir -> V-NOTCH weir on a TRIANGULAR section whose top width is
      2 height tan(theta/2), Qcoeff = cw (SWMM: Q = Cw S H^2.5, S = tan(theta/2)).

    Weir openings are made 100 ft high so SWMM never switches them to orifice flow. Risers,
    barrels and exfiltration have no exact SWMM equivalent here and raise InputError.

    Parameters
    ----------
    inflow : Hydrograph
    stage_storage : StageStorage
        Exported as a depth-area curve: the table points plus ``storage_points`` even stages
        (exact for ``from_areas(..., method="average_end_area")``), extended at the largest
        area to three times the top (SWMM's maximum depth) so a small overtopping is routed
        the same way hydrocalc routes it.
    outlets : Device, list or OutletStructure (without barrel)
    initial_stage_ft : float
    routing_step_s : float, default 1
        SWMM routing step (fixed, no variable step). [s]
    flow_routing : {"DYNWAVE", "KINWAVE"}
    duration_hr : float, optional
        Simulation length (default: the inflow's span). [h]
    storage_points : int, default 200
    tailwater_ft : None, float or (time_hr, level) pair, optional
        Tailwater in the devices' frame (as
        :func:`hydrocalc.hydraulics.routing.route_reservoir`): the outfalls become FIXED-stage
        (a constant) or TIMESERIES (a series) outfalls at that level; None keeps free outfalls.
        A pond with a ``datum_ft`` is exported in stages (SWMM storage invert 0 = the pond
        bottom).

    Returns
    -------
    str
        The .inp text. Run it with pyswmm; read ``SU1``'s maximum depth and the outfalls'
        peak flows.

    References
    ----------
    .. [3] Rossman, L.A., *Storm Water Management Model Reference Manual, Volume II -
       Hydraulics*, EPA/600/R-17/111, 2017.
    """
    import datetime

    check_choice(flow_routing, "flow_routing", ("DYNWAVE", "KINWAVE"))

    structure = to_stage_frame(as_structure(outlets), stage_storage)
    if structure.barrel is not None:
        raise InputError("to_swmm_inp supports devices in parallel only; got a structure with "
                         "a barrel")
    leaves = structure.leaves()
    top = stage_storage.top_stage_ft
    h, area = swmm_curve(stage_storage, storage_points)
    t = np.asarray(inflow.time_hr, dtype=float)
    q = np.asarray(inflow.flow_cfs, dtype=float)
    t_end = float(t[-1]) if duration_hr is None else float(t[0]) + float(duration_hr)
    start = datetime.datetime(2020, 1, 1)
    end = start + datetime.timedelta(hours=t_end)
    lines = [
        "[TITLE]", "hydrocalc pond export", "",
        "[OPTIONS]", "FLOW_UNITS CFS", "INFILTRATION HORTON", f"FLOW_ROUTING {flow_routing}",
        "LINK_OFFSETS DEPTH", "START_DATE 01/01/2020", "START_TIME 00:00:00",
        "REPORT_START_DATE 01/01/2020", "REPORT_START_TIME 00:00:00",
        f"END_DATE {end:%m/%d/%Y}", f"END_TIME {end:%H:%M:%S}",
        "DRY_DAYS 0", "REPORT_STEP 00:15:00", "WET_STEP 00:15:00", "DRY_STEP 01:00:00",
        f"ROUTING_STEP {routing_step_s:g}", "ALLOW_PONDING NO", "INERTIAL_DAMPING PARTIAL",
        "VARIABLE_STEP 0.00", "LENGTHENING_STEP 0", "MIN_SURFAREA 0",
        "NORMAL_FLOW_LIMITED BOTH", "SKIP_STEADY_STATE NO", "MAX_TRIALS 20",
        "HEAD_TOLERANCE 0.00001", "SYS_FLOW_TOL 5", "LAT_FLOW_TOL 5", "MINIMUM_STEP 0.1",
        "THREADS 1", "",
        "[STORAGE]",
        f"SU1 0 {3.0 * top:.6f} {float(initial_stage_ft):.6f} TABULAR SC1 0 0", "",
        "[OUTFALLS]",
    ]
    tw_lines = []
    if tailwater_ft is None:
        lines += [f"OUT{i + 1} -100 FIXED -100 NO" for i in range(len(leaves))]
    elif np.ndim(tailwater_ft) == 0:
        # tailwater_series returns None only for a free (None) tailwater, handled above
        tw_const = cast(np.ndarray, tailwater_series(tailwater_ft, np.zeros(1), stage_storage))
        tw = float(tw_const[0])
        lines += [f"OUT{i + 1} -100 FIXED {tw:.8f} NO" for i in range(len(leaves))]
    else:
        t_tw = np.asarray(tailwater_ft[0], dtype=float)
        tw_series = cast(np.ndarray, tailwater_series(tailwater_ft, t_tw, stage_storage))
        lines += [f"OUT{i + 1} -100 TIMESERIES TSTW NO" for i in range(len(leaves))]
        tw_lines = [f"TSTW {ti - t[0]:.6f} {v:.8f}"
                    for ti, v in zip(t_tw, tw_series, strict=False)]
    orifices, weirs, xsect = ["", "[ORIFICES]"], ["", "[WEIRS]"], ["", "[XSECTIONS]"]
    for i, dev in enumerate(leaves):
        swmm_link(dev, f"L{i + 1}", "SU1", f"OUT{i + 1}", orifices, weirs, xsect)
    lines += orifices + weirs + xsect
    lines += ["", "[INFLOWS]", "SU1 FLOW TS1 FLOW 1.0 1.0", "", "[TIMESERIES]"]
    lines += [f"TS1 {ti:.6f} {qi:.8g}" for ti, qi in zip(t - t[0], q, strict=True)]
    lines += tw_lines
    lines += ["", "[CURVES]"]
    lines += [f"SC1 {'Storage' if i == 0 else ''} {hi:.8f} {ai:.8f}"
              for i, (hi, ai) in enumerate(zip(h, area, strict=False))]
    lines += ["", "[REPORT]", "INPUT NO", "CONTROLS NO", ""]
    return "\n".join(lines)




def swmm_curve(stage_storage: StageStorage, storage_points: int):
    """Depth-area curve points (depth, area) of a pond for SWMM (see :func:`to_swmm_inp`)."""
    top = stage_storage.top_stage_ft
    h = np.unique(np.concatenate([stage_storage._h, np.linspace(0.0, top, storage_points)]))
    area = stage_storage._area_ext(h)
    if stage_storage.method != "average_end_area":
        # midpoint areas reproduce the stage-storage's own volume between points best
        area = np.concatenate([[area[0]], np.diff(stage_storage._storage_ext(h)) / np.diff(h)])
        area = np.concatenate([[area[1]], (area[1:-1] + area[2:]) / 2.0, [area[-1]]])
    a_ext = stage_storage.extension_area_ft2
    return np.concatenate([h, [3.0 * top]]), np.concatenate([area, [a_ext]])


def swmm_link(dev, link: str, n1: str, n2: str, orifices: list, weirs: list,
               xsect: list) -> None:
    """Append the SWMM lines of one device as link ``link`` from node n1 to node n2."""
    if isinstance(dev, CircularOrifice):
        orifices.append(f"{link} {n1} {n2} SIDE {dev.invert_ft:.6f} {dev.cd:g} NO 0")
        xsect.append(f"{link} CIRCULAR {dev.height_ft:.8f} 0 0 0")
    elif isinstance(dev, RectangularOrifice):
        orifices.append(f"{link} {n1} {n2} SIDE {dev.invert_ft:.6f} {dev.cd:g} NO 0")
        xsect.append(f"{link} RECT_CLOSED {dev.height_ft:.8f} {dev.width_in / 12.0:.8f} 0 0")
    elif isinstance(dev, (RectangularWeir, BroadCrestedWeir)):
        nc = getattr(dev, "end_contractions", 0)
        weirs.append(f"{link} {n1} {n2} TRANSVERSE {dev.crest_ft:.6f} {dev.cw:g} NO {nc} 0 NO")
        xsect.append(f"{link} RECT_OPEN 100 {dev.length_ft:.8f} 0 0")
    elif isinstance(dev, VNotchWeir):
        width = 2.0 * 100.0 * math.tan(math.radians(dev.angle_deg) / 2.0)
        weirs.append(f"{link} {n1} {n2} V-NOTCH {dev.crest_ft:.6f} {dev.cw:g} NO 0 0 NO")
        xsect.append(f"{link} TRIANGULAR 100 {width:.8f} 0 0")
    else:
        raise InputError(f"to_swmm_inp supports orifices and weirs; got "
                         f"{type(dev).__name__} '{dev.name}'")
