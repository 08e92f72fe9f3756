"""``[[pre.pond]]`` / ``[[post.pond]]``: storage, outlets, barrel, stages and tailwater.

Also the backwater check: ponds that back into another pond must form groups that
:mod:`hydrocalc.hydraulics.routing.interconnected` can route together.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import fmt_value
from hydrocalc.errors import HydrocalcError
from hydrocalc.site.devices import (
    _BARREL_OPTIONAL,
    _BARREL_REQUIRED,
    _STORAGE_TYPES,
    OUTLET_FIELDS,
    POSITIVE_OUTLET_KEYS,
    _parse_culvert,
    build_barrel,
    build_outlet,
    build_storage,
    combine_storage,
    device_level_ft,
    storage_top_ft,
)
from hydrocalc.site.files import _Ctx, _two_column_csv
from hydrocalc.site.model import Pond
from hydrocalc.site.problems import _label, _msg, _Problems, _to

_POND_KEYS = ("id", "to", "description", "storage", "outlet", "barrel", "initial_stage_ft",
              "count", "rrv_credit_pct", "bottom_elevation_ft", "tailwater_ft", "flap_gate",
              "backwater")
_STORAGE_KEYS = {
    "stage_area": ("type", "stage_ft", "area_ft2", "csv", "method", "bottom_ft"),
    "stage_storage": ("type", "stage_ft", "storage_ft3", "csv", "bottom_ft"),
    "basin": ("type", "bottom_length_ft", "bottom_width_ft", "depth_ft", "side_slope_h_per_v",
              "porosity_frac", "bottom_ft"),
    "drywell": ("type", "diameter_ft", "depth_ft", "stone_width_ft", "stone_porosity_frac",
                "stone_depth_below_ft", "wall_thickness_ft", "bottom_ft"),
}


def _parse_storage_item(P, s, path, ctx: _Ctx) -> tuple[dict, Any] | None:
    n0 = len(P.items)
    kind = P.choice(s, "type", path, _STORAGE_TYPES, required=True)
    if kind is None:
        return None
    P.unknown_keys(s, _STORAGE_KEYS[kind], path)
    spec: dict[str, Any] = {"type": kind}
    if kind in ("stage_area", "stage_storage"):
        col2 = "area_ft2" if kind == "stage_area" else "storage_ft3"
        if "csv" in s:
            if "stage_ft" in s or col2 in s:
                P.add(f"{path}.csv",
                      f"and stage_ft/{col2} lists must not both be given; got both.")
                return None
            raw = P.text(s, "csv", path)
            if raw is None:
                return None
            got = _two_column_csv(P, ctx, path, raw, "stage_ft", col2)
            if got is None:
                return None
            stage, other, _ = got
            spec["csv"] = raw
            lists = {"stage_ft": stage, col2: other}
            tmp = _Problems(P.where)
            for k in ("stage_ft", col2):
                tmp.numbers(lists, k, f"{path}.csv:{k}", lower=0.0)
            for item in tmp.items:
                P.raw(item)
            if tmp.items:
                return None
        else:
            stage = P.numbers(s, "stage_ft", path, lower=0.0)
            other = P.numbers(s, col2, path, lower=0.0)
        if stage is not None and other is not None:
            if len(stage) != len(other):
                P.add(f"{path}.{col2}", f"must have as many values as stage_ft ({len(stage)}); "
                                        f"got {len(other)}")
            elif any(b <= a for a, b in zip(stage, stage[1:], strict=False)):
                P.add(f"{path}.stage_ft", f"must be strictly increasing; got {stage}")
            spec["stage_ft"], spec[col2] = stage, other
        if kind == "stage_area":
            spec["method"] = P.choice(s, "method", path, ("conic", "average_end_area"),
                                      default="conic")
    else:
        for k in _STORAGE_KEYS[kind][1:]:
            if k in s and k != "bottom_ft":
                lower_inc = k in ("side_slope_h_per_v", "stone_width_ft", "stone_depth_below_ft",
                                  "wall_thickness_ft")
                upper = 1.0 if k.endswith("_frac") else None
                spec[k] = P.number(s, k, path, lower=0.0, lower_inclusive=lower_inc, upper=upper)
        required = {"basin": ("bottom_length_ft", "bottom_width_ft", "depth_ft"),
                    "drywell": ("diameter_ft", "depth_ft")}[kind]
        for k in required:
            if k not in s:
                P.add(f"{path}.{k}", "is required; got nothing.")
    if "bottom_ft" in s:
        spec["bottom_ft"] = P.number(s, "bottom_ft", path, lower=0.0)
    if len(P.items) > n0:
        return None
    try:
        obj = build_storage(kind, spec)
    except ImportError:
        P.add(path, "cannot be built: hydrocalc.hydraulics.routing is not available")
        return None
    except (HydrocalcError, TypeError) as exc:
        P.add(path, f"is invalid: {_msg(exc)}")
        return None
    return spec, obj


def _parse_outlet(P, o, path, index) -> tuple[dict, Any] | None:
    n0 = len(P.items)
    kind = P.choice(o, "type", path, (*OUTLET_FIELDS, "culvert"), required=True)
    if kind is None:
        return None
    if kind == "culvert":
        return _parse_culvert(P, o, path, index, default_id=f"culvert_{index + 1}")
    required, optional = OUTLET_FIELDS[kind]
    allowed = ("type", "id", *required, *optional, *(("over",) if kind == "exfiltration" else ()))
    P.unknown_keys(o, allowed, path)
    spec: dict[str, Any] = {"type": kind}
    if "id" in o:
        spec["id"] = P.text(o, "id", path)
    for k in required:
        positive = k in POSITIVE_OUTLET_KEYS or k == "angle_deg"
        upper = 180.0 if k == "angle_deg" else None
        spec[k] = P.number(o, k, path, required=True, lower=0.0, lower_inclusive=not positive,
                           upper=upper, upper_inclusive=False)
    for k, (lo, inc) in optional.items():
        if k in o:
            spec[k] = P.number(o, k, path, lower=lo, lower_inclusive=inc,
                               integer=(k == "end_contractions"))
    if kind == "exfiltration" and "over" in o:
        spec["over"] = P.choice(o, "over", path, ("wetted", "surface", "bottom"))
    if len(P.items) > n0:
        return None
    spec["id"] = spec.get("id") or f"{kind}_{index + 1}"
    try:
        obj = build_outlet(kind, spec, spec["id"])
    except ImportError:
        P.add(path, "cannot be built: hydrocalc.hydraulics.outlets is not available")
        return None
    except (HydrocalcError, TypeError) as exc:
        P.add(path, f"is invalid: {_msg(exc)}")
        return None
    return spec, obj


def _pond_in_stages(P: _Problems, e: Mapping, path: str) -> tuple[Mapping, float | None]:
    """Return the pond table with stages above its bottom, and the bottom elevation.

    The pond table with elevations turned into stages above its bottom, and the bottom
    elevation (None for a pond given by stage only).

    A pond is in elevations when it gives ``bottom_elevation_ft`` or a storage table with
    ``elevation_ft`` rows (the bottom is then the first elevation of the first such table);
    its device inverts and crests, barrel invert and tailwater are then elevations too.
    """
    datum = P.number(e, "bottom_elevation_ft", path, lower=-1e4, upper=1e5)
    raw = e.get("storage")
    storages = [raw] if isinstance(raw, Mapping) else (raw if isinstance(raw, list) else [])
    if datum is None:
        for st in storages:
            if isinstance(st, Mapping) and isinstance(st.get("elevation_ft"), list) \
                    and st["elevation_ft"] and isinstance(st["elevation_ft"][0], int | float):
                datum = float(st["elevation_ft"][0])
                break
    if datum is None:
        return e, None
    out = dict(e)
    new_st = []
    for i, st in enumerate(storages):
        if not isinstance(st, Mapping) or "elevation_ft" not in st:
            new_st.append(st)
            continue
        sp = f"{path}.storage[{i}]" if isinstance(raw, list) else f"{path}.storage"
        if "stage_ft" in st:
            P.add(f"{sp}.elevation_ft", "and stage_ft must not both be given; got both. Keep one.")
        el = P.numbers(st, "elevation_ft", sp, lower=None)
        st = {k: v for k, v in st.items() if k != "elevation_ft"}
        if el is not None:
            if el[0] < datum:
                P.add(f"{sp}.elevation_ft", f"must start at or above the pond bottom "
                                            f"(bottom_elevation_ft {fmt_value(datum)}); got "
                                            f"{fmt_value(el[0])}")
            st["stage_ft"] = [x - datum for x in el]
        new_st.append(st)
    if storages:
        out["storage"] = new_st if isinstance(raw, list) else new_st[0]

    def shift(spec, where):
        if not isinstance(spec, Mapping):
            return spec
        spec = dict(spec)
        v = spec.get("outlet_invert_ft")    # a culvert outlet may lie below the pond bottom
        if isinstance(v, int | float) and not isinstance(v, bool):
            spec["outlet_invert_ft"] = float(v) - datum
        for key in ("invert_ft", "crest_ft", "inlet_invert_ft"):
            v = spec.get(key)
            if isinstance(v, int | float) and not isinstance(v, bool):
                if v < datum:
                    P.add(f"{where}.{key}", f"must be at or above the pond bottom (elevation "
                                            f"{fmt_value(datum)} ft); got {fmt_value(v)}. The "
                                            "pond is in elevations, so inverts and crests are "
                                            "elevations")
                    spec[key] = 0.0
                else:
                    spec[key] = float(v) - datum
        return spec

    if isinstance(e.get("outlet"), list):
        out["outlet"] = [
            shift(o, f"{path}.outlet[{_label(o, i) if isinstance(o, Mapping) else i}]")
            for i, o in enumerate(e["outlet"])]
    if isinstance(e.get("barrel"), Mapping):
        out["barrel"] = shift(e["barrel"], f"{path}.barrel")
    return out, datum


def _pond_tailwater(P: _Problems, e: Mapping, path: str, datum: float | None,
                    top: float | None):
    """(tailwater in stages above the bottom: None, a float or (time_hr, stage) lists, spec)."""
    if "tailwater_ft" not in e:
        return None, None
    v = e["tailwater_ft"]
    base = datum or 0.0
    frame = "elevation" if datum is not None else "stage above the pond bottom"
    key = f"{path}.tailwater_ft"
    if isinstance(v, Mapping):
        level_key = "elevation_ft" if datum is not None else "stage_ft"
        P.unknown_keys(v, ("time_hr", level_key), key)
        t = P.numbers(v, "time_hr", key, lower=0.0, min_len=1)
        lv = P.numbers(v, level_key, key, lower=None, min_len=1)
        if t is None or lv is None:
            return None, None
        if len(t) != len(lv):
            P.add(f"{key}.{level_key}", f"must have as many values as time_hr ({len(t)}); got "
                                        f"{len(lv)}")
            return None, None
        if any(b <= a for a, b in zip(t, t[1:], strict=False)):
            P.add(f"{key}.time_hr", f"must be strictly increasing; got {t}")
            return None, None
        stages = [x - base for x in lv]
        value, spec = (t, stages), {"time_hr": t, level_key: lv}
    else:
        x = P.check_number(v, key, lower=-1e5, upper=1e5)
        if x is None:
            return None, None
        stages = [x - base]
        value, spec = x - base, x
    if top is not None and max(stages) > top + 1e-9:
        P.add(key, f"must be <= the top of the pond ({fmt_value(top + base)} ft, {frame}); got "
                   f"{fmt_value(max(stages) + base)}. A tailwater above the embankment floods "
                   "the pond from downstream")
        return None, None
    return value, spec


def _parse_pond(  # noqa: C901 (one validation step per field of the pond table)
        P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> Pond | None:
    n0 = len(P.items)
    P.unknown_keys(e, _POND_KEYS, path)
    e, datum = _pond_in_stages(P, e, path)
    flap = P.boolean(e, "flap_gate", path, default=False)
    backwater = P.boolean(e, "backwater", path, default=False)
    pid = P.text(e, "id", path, required=True)
    to = _to(P, e, path)
    desc = P.text(e, "description", path, default="") or ""
    init = P.number(e, "initial_stage_ft", path, default=0.0, lower=0.0)
    count = P.number(e, "count", path, default=1, lower=1, integer=True)
    rrv = (P.number(e, "rrv_credit_pct", path, lower=0.0, upper=100.0)
           if "rrv_credit_pct" in e else None)
    if "storage" not in e:
        P.add(f"{path}.storage", "is required; got nothing. Add [[...pond.storage]] with type = "
                                 "\"stage_area\", \"stage_storage\", \"basin\" or \"drywell\".")
    storages = P.tables(e, "storage", path, single_ok=True) if "storage" in e else []
    specs, objs = [], []
    for i, s in enumerate(storages):
        numbered = len(storages) > 1 or isinstance(e.get("storage"), list)
        got = _parse_storage_item(
            P, s, f"{path}.storage[{i}]" if numbered else f"{path}.storage", ctx)
        if got is not None:
            specs.append(got[0])
            objs.append(got[1])
    if "outlet" not in e:
        P.add(f"{path}.outlet", "is required; got nothing. Add at least one [[...pond.outlet]] "
                                "(an orifice, weir, riser or exfiltration).")
    outlets_raw = P.tables(e, "outlet", path) if "outlet" in e else []
    ospecs, oobjs, oids = [], [], []
    for i, o in enumerate(outlets_raw):
        got = _parse_outlet(P, o, f"{path}.outlet[{_label(o, i)}]", i)
        if got is not None:
            spec, obj = got
            ospecs.append(spec)
            oobjs.append(obj)
            oid = spec["id"]
            if oid in oids:
                P.add(f"{path}.outlet[{_label(o, i)}].id", f"must be unique within the pond; got "
                                                          f"{oid!r} twice")
            oids.append(oid)
    barrel, barrel_spec = None, None
    if "barrel" in e:
        b = P.table(e, "barrel", path)
        if b is not None and b.get("type") == "culvert":
            got = _parse_culvert(P, b, f"{path}.barrel", 0, default_id="barrel")
            if got is not None:
                barrel_spec, barrel = got
        elif b is not None:
            bp = f"{path}.barrel"
            k0 = len(P.items)
            P.unknown_keys(b, (*_BARREL_REQUIRED, *_BARREL_OPTIONAL), bp)
            barrel_spec = {}
            for k in _BARREL_REQUIRED:
                barrel_spec[k] = P.number(b, k, bp, required=True, lower=0.0,
                                          lower_inclusive=(k == "invert_ft"))
            for k in _BARREL_OPTIONAL:
                if k in b:
                    barrel_spec[k] = P.number(b, k, bp, lower=0.0, lower_inclusive=(k == "ke"))
            if len(P.items) == k0:
                try:
                    barrel = build_barrel(barrel_spec)
                except ImportError:
                    P.add(bp, "cannot be built: hydrocalc.hydraulics.outlets is not available")
                except (HydrocalcError, TypeError) as exc:
                    P.add(bp, f"is invalid: {_msg(exc)}")
        if barrel is not None and not any(t != "exfiltration" for t in
                                          (sp["type"] for sp in ospecs)):
            P.add(f"{path}.barrel", "needs at least one orifice, weir or riser discharging "
                                    "into it; got only exfiltration")
    if len(P.items) > n0 or not objs:
        return None
    try:
        ss = combine_storage(objs)
    except (HydrocalcError, TypeError) as exc:
        P.add(f"{path}.storage", f"could not be combined: {_msg(exc)}")
        return None
    top = storage_top_ft(ss)
    if top is not None:
        if init is not None and init > top:
            P.add(f"{path}.initial_stage_ft", f"must be <= the top of the storage "
                                              f"({fmt_value(top)} ft); got {fmt_value(init)}")
        for spec, oid in zip(ospecs, oids, strict=True):
            lvl = device_level_ft(spec)
            if spec["type"] != "exfiltration" and lvl >= top:
                key = next(k for k in ("invert_ft", "crest_ft", "inlet_invert_ft") if k in spec)
                P.add(f"{path}.outlet[{oid}].{key}", f"must be below the top of the storage "
                                                    f"({fmt_value(top)} ft); got {fmt_value(lvl)}")
    tailwater, tw_spec = _pond_tailwater(P, e, path, datum, top)
    if len(P.items) > n0 or to is None:  # a missing ``to`` is always a recorded problem
        return None
    return Pond(id=pid, to=to, stage_storage=ss, outlets=tuple(oobjs), outlet_ids=tuple(oids),
                outlet_types=tuple(s["type"] for s in ospecs), initial_stage_ft=init,
                count=int(count), rrv_credit_pct=rrv, storage_spec=tuple(specs),
                outlet_spec=tuple(ospecs), barrel=barrel, barrel_spec=barrel_spec,
                description=desc, bottom_elevation_ft=datum, tailwater=tailwater,
                tailwater_spec=tw_spec, flap_gate=bool(flap), backwater=bool(backwater))


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
