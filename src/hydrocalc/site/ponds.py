"""``[[pre.pond]]`` / ``[[post.pond]]``: storage, outlets, barrel, stages and tailwater.

The declared model (:class:`hydrocalc.site.schema.Pond`) checks every key on its own, as the
file gives it (elevations too); the rules between keys are checked here: the storage lists
of equal length and increasing, the levels of a pond in elevations above its bottom and
those of a pond in stages >= 0, a culvert's shape and outlet invert, unique device ids, the
devices and tailwater below the top. A pond in elevations is then built in stages above its
bottom.

Also the backwater check: ponds that back into another pond must form groups that
:mod:`hydrocalc.hydraulics.routing.interconnected` can route together.
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import fmt_value, suggest, text_problem
from hydrocalc.errors import HydrocalcError
from hydrocalc.hydraulics.outlets import culvert
from hydrocalc.schema import OneOf
from hydrocalc.schema_errors import FieldError, choices
from hydrocalc.site.devices import (
    _BARREL_OPTIONAL,
    _BARREL_REQUIRED,
    LEVEL_KEYS,
    _spec,
    build_device,
    build_storage,
    combine_storage,
    culvert_spec,
    device_level_ft,
    outlet_spec,
    storage_top_ft,
)
from hydrocalc.site.files import _Ctx, _two_column_csv
from hydrocalc.site.model import Pond
from hydrocalc.site.problems import _label, _msg, _path_label, _Problems, _short, choice_message
from hydrocalc.site.schema import _tables

#: The keys of a pond table (those of the declared model).
_POND_KEYS = ("id", "to", "description", "storage", "outlet", "barrel", "initial_stage_ft",
              "count", "rrv_credit_pct", "bottom_elevation_ft", "tailwater_ft", "flap_gate",
              "backwater")
#: The keys of each kind of storage table (those of the declared model), in the order of its spec.
_STORAGE_KEYS = {
    "stage_area": ("type", "stage_ft", "area_ft2", "csv", "method", "bottom_ft"),
    "stage_storage": ("type", "stage_ft", "storage_ft3", "csv", "bottom_ft"),
    "basin": ("type", "bottom_length_ft", "bottom_width_ft", "depth_ft", "side_slope_h_per_v",
              "porosity_frac", "bottom_ft"),
    "drywell": ("type", "diameter_ft", "depth_ft", "stone_width_ft", "stone_porosity_frac",
                "stone_depth_below_ft", "wall_thickness_ft", "bottom_ft"),
}
#: What a node's missing required table or ``to`` means, after "is required; got nothing".
_MISSING = {
    "to": ": the node drains nowhere. Name the downstream pond, reach or design point.",
    "storage": ". Add [[...pond.storage]] with type = \"stage_area\", \"stage_storage\", "
               "\"basin\" or \"drywell\".",
    "outlet": ". Add at least one [[...pond.outlet]] (an orifice, weir, riser or exfiltration).",
}


def write_declared(P: _Problems, errors: list[FieldError], doc: Mapping) -> None:
    """Write the declared model's records of one node (a pond or a reach), one line each.

    As :meth:`_Problems.declared` does, and: a table's kind (``type``) and a shipped code
    as a choice, a list of numbers by its first bad value (``at index i``), a node's missing
    ``to``, storage or outlet with what it means. The form of a node id (valid text) is the
    scenario's check.
    """
    rest = []
    for e in errors:
        at, v = _path_label(doc, e.path), e.value
        options = e.allowed or choices(e.info) or next(
            (m.values for m in e.metadata if isinstance(m, OneOf)), ())
        at = f"{at}.type" if e.kind == "tag" else at
        if e.kind == "missing" and len(e.path) == 4 and e.key in _MISSING:
            P.add(at, f"is required; got nothing{_MISSING[e.key]}")
        elif options and e.kind != "unknown":
            P.add(at, choice_message(options, v))
        elif e.kind == "value" and len(e.path) == 4 and e.key in ("storage", "outlet"):
            P.add(at, f"{_tables(e.key).requirement}; got {_short(v)}")  # not (all) tables
        elif _number_list(e):
            P.add(at, _number_list(e))
        elif not (len(e.path) == 4 and e.key == "id" and text_problem(v, required=True) is None):
            rest.append(e)
    P.declared(rest, doc)


def _number_list(e: FieldError) -> str:
    """The problem of a list of numbers, as ``P.numbers`` writes it ('' for another key)."""
    args = typing.get_args(e.declared) if typing.get_origin(e.declared) is list else ()
    if e.kind not in ("value", "missing") or not args or float not in (
            args[0], *typing.get_args(args[0])[:1]):
        return ""
    if e.kind == "missing":
        return "is required; got nothing. Add a list of numbers."
    lower = next((m.ge for a in typing.get_args(args[0])[1:] for m in a.metadata
                  if getattr(m, "ge", None) is not None), None)
    where = e.error["loc"][-1]
    if isinstance(where, int) and e.error["type"] in ("greater_than_equal", "finite_number"):
        need = f">= {fmt_value(lower)}" if lower is not None else "finite"
        return f"must be {need}; got {fmt_value(float(e.value[where]))} at index {where}"
    least = next((m.min_length for m in e.metadata if hasattr(m, "min_length")), 2)
    return f"must be a list of at least {least} numbers; got {_short(e.value)}"


def _fine(bad: set, *path) -> bool:
    """True when no record of the declared model lies at or under ``path``."""
    return not any(p[:len(path)] == path for p in bad)


def _built(P: _Problems, at: str, build, *args, text: str = "is invalid"):
    """``build(*args)``, or None after recording the constructor's refusal at ``at``."""
    try:
        return build(*args)
    except (HydrocalcError, TypeError) as exc:
        P.add(at, f"{text}: {_msg(exc)}")
        return None


def _datum(e: Mapping, bad: set) -> float | None:
    """The elevation of the pond bottom, or None for a pond in stages.

    ``bottom_elevation_ft``, else the first elevation of the first storage table with
    ``elevation_ft`` rows.
    """
    if "bottom_elevation_ft" in e and _fine(bad, "bottom_elevation_ft"):
        return float(e["bottom_elevation_ft"])
    for st in _items(e.get("storage")):
        el = st.get("elevation_ft")
        if isinstance(el, list) and el and isinstance(el[0], int | float):
            return float(el[0])
    return None


def _items(raw) -> list:
    """The storage tables: one table or an array of them."""
    if isinstance(raw, Mapping):
        return [raw]
    return raw if isinstance(raw, list) and all(isinstance(s, Mapping) for s in raw) else []


def _stage_lists(s: Mapping, rel: tuple, bad: set, datum: float | None) -> dict:
    """The valid lists of a storage table as floats; ``elevation_ft`` as ``stage_ft``."""
    lists = {k: [float(x) for x in s[k]] for k in ("stage_ft", "area_ft2", "storage_ft3")
             if k in s and _fine(bad, *rel, k)}
    if "elevation_ft" in s and datum is not None and _fine(bad, *rel, "elevation_ft"):
        lists["stage_ft"] = [float(x) - datum for x in s["elevation_ft"]]
    return lists


def _storage_rules(P: _Problems, s: Mapping, sp: str, rel: tuple, bad: set, ctx: _Ctx,
                   datum: float | None) -> dict | None:
    """The rules between a storage table's keys; its lists (from its CSV file), or None."""
    n0, kind, lists = len(P.items), s.get("type"), _stage_lists(s, rel, bad, datum)
    if "elevation_ft" in s and datum is not None:
        if "stage_ft" in s:
            P.add(f"{sp}.elevation_ft", "and stage_ft must not both be given; got both. Keep one.")
        if _fine(bad, *rel, "elevation_ft") and s["elevation_ft"][0] < datum:
            P.add(f"{sp}.elevation_ft", f"must start at or above the pond bottom "
                                        f"(bottom_elevation_ft {fmt_value(datum)}); got "
                                        f"{fmt_value(s['elevation_ft'][0])}")
    if kind in ("stage_area", "stage_storage"):
        col2 = "area_ft2" if kind == "stage_area" else "storage_ft3"
        if "csv" in s and ("stage_ft" in lists or "elevation_ft" in s or col2 in s):
            P.add(f"{sp}.csv", f"and stage_ft/{col2} lists must not both be given; got both.")
            return None
        if "csv" in s:
            lists = _storage_csv(P, s, sp, rel, bad, ctx, col2) or {}
        for k in ("stage_ft", col2):
            if k not in s and k not in lists and "csv" not in s and (
                    k != "stage_ft" or "elevation_ft" not in s):
                P.add(f"{sp}.{k}", "is required; got nothing. Add a list of numbers.")
        stage, other = lists.get("stage_ft"), lists.get(col2)
        if stage is not None and other is not None and len(stage) != len(other):
            P.add(f"{sp}.{col2}", f"must have as many values as stage_ft ({len(stage)}); "
                                  f"got {len(other)}")
        elif stage is not None and any(b <= a for a, b in zip(stage, stage[1:], strict=False)):
            P.add(f"{sp}.stage_ft", f"must be strictly increasing; got {stage}")
    return lists if len(P.items) == n0 and _fine(bad, *rel) else None


def _storage_spec(s: Mapping, lists: dict) -> dict:
    """The spec of a valid storage table: its keys in order, stages above the bottom."""
    default = {"method": "conic"} if s["type"] == "stage_area" else {}
    return _spec({**default, **s, **lists}, ("type", "csv", "stage_ft", *_STORAGE_KEYS[s["type"]]))


def _storage_csv(P: _Problems, s: Mapping, sp: str, rel: tuple, bad: set, ctx: _Ctx,
                 col2: str) -> dict | None:
    """The stage and ``col2`` columns of a storage table's CSV file (each >= 0), or None."""
    got = _two_column_csv(P, ctx, sp, s["csv"], "stage_ft", col2) if _fine(bad, *rel, "csv") \
        else None
    if got is None:
        return None
    lists = {"stage_ft": got[0], col2: got[1]}
    tmp = _Problems(P.where)  # its values as a list: >= 0, at least 2 (no line numbers)
    for k in ("stage_ft", col2):
        tmp.numbers(lists, k, f"{sp}.csv:{k}", lower=0.0)
    for item in tmp.items:
        P.raw(item)
    return None if tmp.items else lists


def _device_tables(e: Mapping, path: str):
    """(key path, table, label) of each outlet device and of the barrel."""
    outlets = e.get("outlet")
    if isinstance(outlets, list) and all(isinstance(o, Mapping) for o in outlets):
        for i, o in enumerate(outlets):
            yield ("outlet", i), o, f"{path}.outlet[{_label(o, i)}]"
    if isinstance(e.get("barrel"), Mapping):
        yield ("barrel",), e["barrel"], f"{path}.barrel"


def _device_specs(tables: list, datum: float | None) -> tuple[list, dict | None]:
    """The specs (in stages) of valid device tables: [(outlet spec, label)], barrel spec."""
    outlets = [(outlet_spec(o, rel[1], datum), at) for rel, o, at in tables if rel[0] == "outlet"]
    barrel = next((culvert_spec(b, "barrel", datum) if b.get("type") == "culvert"
                   else _spec(b, (*_BARREL_REQUIRED, *_BARREL_OPTIONAL), datum)
                   for rel, b, _ in tables if rel == ("barrel",)), None)
    return outlets, barrel


def _device_set_rules(P: _Problems, path: str, outlets: list, barrel: dict | None) -> None:
    """Unique device ids; a barrel needs an orifice, weir or riser discharging into it."""
    ids = [spec["id"] for spec, _ in outlets]
    for n, (spec, at) in enumerate(outlets):
        if spec["id"] in ids[:n]:
            P.add(f"{at}.id", f"must be unique within the pond; got {spec['id']!r} twice")
    if barrel is not None and all(spec["type"] == "exfiltration" for spec, _ in outlets):
        P.add(f"{path}.barrel", "needs at least one orifice, weir or riser discharging into it; "
                                "got only exfiltration")


def _device_rules(P: _Problems, o: Mapping, at: str, rel: tuple, bad: set,
                  datum: float | None) -> bool:
    """A device's level in the pond's frame; a culvert's shape, inlet and outlet invert.

    True when the table keeps them (and the declared model found nothing in it).
    """
    k0 = len(P.items)
    for key in (k for k in LEVEL_KEYS[:3] if k in o and _fine(bad, *rel, k)):
        if datum is not None and o[key] < datum:
            P.add(f"{at}.{key}", f"must be at or above the pond bottom (elevation "
                                 f"{fmt_value(datum)} ft); got {fmt_value(o[key])}. The pond is "
                                 "in elevations, so inverts and crests are elevations")
        elif datum is None and o[key] < 0:
            P.add(f"{at}.{key}", f"must be >= 0; got {fmt_value(o[key])}")
    if o.get("type") == "culvert" and _fine(bad, *rel, "shape"):
        _culvert_rules(P, o, at)
    return len(P.items) == k0 and _fine(bad, *rel)


def _culvert_rules(P: _Problems, o: Mapping, at: str) -> None:
    """A culvert's keys of its shape, its inlet among the shape's, one outlet invert or slope."""
    own, other = (("diameter_in",), ("span_ft", "rise_ft")) if o["shape"] == "circular" else \
        (("span_ft", "rise_ft"), ("diameter_in",))
    for k in (k for k in other if k in o):
        P.add(f"{at}.{k}", f"is for {'box' if o['shape'] == 'circular' else 'circular'} "
                           f"culverts; got it with shape = \"{o['shape']}\". Give "
                           f"{' and '.join(own)}{' only' if len(own) == 1 else ''}")
    for k in (k for k in own if k not in o):
        P.add(f"{at}.{k}", "is required; got nothing. Add it to the file.")
    codes = tuple(culvert.inlet_codes(o["shape"]))  # the inlets of its shape
    if "inlet" not in o:
        P.add(f"{at}.inlet", f"is required; got nothing. Use one of: {', '.join(codes)}")
    elif o["inlet"] not in codes:
        hint = suggest(o["inlet"], codes) if isinstance(o["inlet"], str) else ""
        P.add(f"{at}.inlet", f"must be one of {', '.join(codes)}; got {_short(o['inlet'])}{hint}")
    if "outlet_invert_ft" in o and "slope_ftft" in o:
        P.add(f"{at}.outlet_invert_ft",
              "and slope_ftft must not both be given; got both. Keep one")
    elif "outlet_invert_ft" not in o and "slope_ftft" not in o:
        P.add(f"{at}.outlet_invert_ft", "is required for a culvert; got nothing (a culvert with "
                                        "no outlet invert). Give the outlet invert in the frame "
                                        "of inlet_invert_ft, or slope_ftft")


def _tailwater(v, datum: float | None) -> tuple[Any, Any]:
    """(a valid tailwater in stages above the bottom: a float or (time_hr, stage) lists, spec)."""
    base = datum or 0.0
    if not isinstance(v, Mapping):
        return float(v) - base, float(v)
    level = "elevation_ft" if datum is not None else "stage_ft"
    t, lv = [float(x) for x in v["time_hr"]], [float(x) for x in v[level]]
    return (t, [x - base for x in lv]), {"time_hr": t, level: lv}


def _tailwater_rules(P: _Problems, v, at: str, datum: float | None, top: float | None) -> None:
    """A series' levels in the pond's frame, as many as its times, which increase; <= the top."""
    k0 = len(P.items)
    if isinstance(v, Mapping):
        level, other = ("elevation_ft", "stage_ft") if datum is not None else \
            ("stage_ft", "elevation_ft")
        P.unknown_keys({other: None} if other in v else {}, ("time_hr", level), at)
        t = v["time_hr"]
        if level not in v:
            P.add(f"{at}.{level}", "is required; got nothing. Add a list of numbers.")
        elif len(t) != len(v[level]):
            P.add(f"{at}.{level}", f"must have as many values as time_hr ({len(t)}); got "
                                   f"{len(v[level])}")
        elif any(b <= a for a, b in zip(t, t[1:], strict=False)):
            P.add(f"{at}.time_hr", f"must be strictly increasing; got {[float(x) for x in t]}")
    value = _tailwater(v, datum)[0] if len(P.items) == k0 else 0.0
    high = max(value[1]) if isinstance(value, tuple) else value
    if top is not None and len(P.items) == k0 and high > top + 1e-9:
        frame = "elevation" if datum is not None else "stage above the pond bottom"
        P.add(at, f"must be <= the top of the pond ({fmt_value(top + (datum or 0.0))} ft, "
                  f"{frame}); got {fmt_value(high + (datum or 0.0))}. A tailwater above the "
                  "embankment floods the pond from downstream")


def _parse_pond(P: _Problems, e: Mapping, path: str, ctx: _Ctx, errors: list[FieldError],
                doc: Mapping) -> Pond | None:
    """A ``[[<scenario>.pond]]``; ``errors``: the declared model's records of its keys."""
    n0 = len(P.items)
    bad = {x.path[3:] for x in errors}
    write_declared(P, [x for x in errors if x.kind == "unknown" or x.key != "inlet"
                       or not _fine(bad, *x.table[3:], "shape")], doc)  # a culvert's: below
    datum = _datum(e, bad)
    raw, specs, objs = e.get("storage"), [], []
    for i, s in enumerate(_items(raw)):
        sp, rel = (f"{path}.storage[{i}]", ("storage", i)) if isinstance(raw, list) else \
            (f"{path}.storage", ("storage",))
        lists = _storage_rules(P, s, sp, rel, bad, ctx, datum)
        specs.append(None if lists is None else _storage_spec(s, lists))
        objs += [] if lists is None else [_built(P, sp, build_storage, s["type"], specs[-1])]
    valid = [(rel, o, at) for rel, o, at in _device_tables(e, path)
             if _device_rules(P, o, at, rel, bad, datum)]
    outlets, barrel_spec = _device_specs(valid, datum)
    _device_set_rules(P, path, outlets, barrel_spec)
    devices = [_built(P, at, build_device, spec, at) for spec, at in outlets]
    barrel = None if barrel_spec is None else _built(P, f"{path}.barrel", build_device,
                                                      barrel_spec, f"{path}.barrel")
    if len(P.items) > n0 or not objs:
        return None
    ss = _built(P, f"{path}.storage", combine_storage, objs, text="could not be combined")
    if ss is None:
        return None
    top = storage_top_ft(ss)
    init = float(e.get("initial_stage_ft", 0.0))
    ospecs = [spec for spec, _ in outlets]
    if top is not None:
        _below_top(P, path, top, init, ospecs)
    tw = e.get("tailwater_ft")
    if tw is not None and _fine(bad, "tailwater_ft"):
        _tailwater_rules(P, tw, f"{path}.tailwater_ft", datum, top)
    if len(P.items) > n0:
        return None
    tailwater, tw_spec = (None, None) if tw is None else _tailwater(tw, datum)
    return Pond(**_own(e), stage_storage=ss, storage_spec=tuple(s for s in specs if s),
                outlets=tuple(devices), outlet_ids=tuple(s["id"] for s in ospecs),
                outlet_types=tuple(s["type"] for s in ospecs), outlet_spec=tuple(ospecs),
                barrel=barrel, barrel_spec=barrel_spec, initial_stage_ft=init,
                bottom_elevation_ft=datum, tailwater=tailwater, tailwater_spec=tw_spec)


def _own(e: Mapping) -> dict[str, Any]:
    """The pond's own keys of a valid pond table, with their defaults."""
    rrv = e.get("rrv_credit_pct")
    return {"id": e["id"], "to": e["to"], "description": e.get("description", ""),
            "count": int(e.get("count", 1)), "rrv_credit_pct": None if rrv is None else float(rrv),
            "flap_gate": bool(e.get("flap_gate", False)),
            "backwater": bool(e.get("backwater", False))}


def _below_top(P: _Problems, path: str, top: float, init: float, specs: list) -> None:
    """The starting level and every device but exfiltration below the top of the storage."""
    if init > top:
        P.add(f"{path}.initial_stage_ft", f"must be <= the top of the storage ({fmt_value(top)} "
                                          f"ft); got {fmt_value(init)}")
    for spec in (s for s in specs if s["type"] != "exfiltration"):
        key = next(k for k in LEVEL_KEYS[:3] if k in spec)
        if device_level_ft(spec) >= top:
            P.add(f"{path}.outlet[{spec['id']}].{key}", f"must be below the top of the storage "
                  f"({fmt_value(top)} ft); got {fmt_value(device_level_ft(spec))}")


def _check_backwater(P: _Problems, prefix: str, ponds: list) -> None:
    """Check the ponds that discharge into another pond (``backwater = true``).

    A pond with ``backwater = true`` discharges into another pond and feels its level.
    Such ponds form chains or trees (several may back into one pond) routed together with
    the pond they end in (see hydrocalc.hydraulics.routing.interconnected): every pond of
    the group in elevations and a single unit, no tailwater_ft on a backwater pond (the downstream
    pond's level is its tailwater), at most a constant tailwater where the group ends.
    """
    by_id = {p.id: p for p in ponds}
    for p in ponds:
        if not p.backwater:
            continue
        path = f"{prefix}.pond[{p.id}].backwater"
        down = by_id.get(p.to)
        if down is None:
            P.add(path, f"needs the pond to discharge into another pond; got to = {p.to!r}")
            continue
        if p.bottom_elevation_ft is None or down.bottom_elevation_ft is None:
            P.add(path, "needs both ponds in elevations (bottom_elevation_ft); got "
                        f"{p.id!r}: {p.bottom_elevation_ft}, {down.id!r}: "
                        f"{down.bottom_elevation_ft}")
        if p.tailwater is not None:
            P.add(path, "and tailwater_ft must not both be given (the downstream pond's level is "
                        "the tailwater); got both")
        if p.count != 1 or down.count != 1:
            P.add(path, f"needs single units (count = 1) in {p.id!r} and {down.id!r}")
        if (not down.backwater and down.tailwater is not None
                and not isinstance(down.tailwater, float)):
            P.add(path, f"supports a constant tailwater at pond {down.id!r}; got a series")
