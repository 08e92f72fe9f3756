"""``[[pre.reach]]`` / ``[[post.reach]]``: a translation lag or a routed pipe/channel.

Routed sections (circular, rectangular, trapezoidal, user station-elevation) are those of
:mod:`hydrocalc.hydraulics.conveyance`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import fmt_value
from hydrocalc.errors import HydrocalcError
from hydrocalc.hydraulics import conveyance as cv
from hydrocalc.schema_errors import FieldError
from hydrocalc.site.files import _Ctx, _two_column_csv
from hydrocalc.site.model import Reach
from hydrocalc.site.ponds import _built, write_declared
from hydrocalc.site.problems import _msg, _Problems, _short

#: The keys of a reach table (those of the declared model).
_REACH_KEYS = ("id", "to", "lag_hr", "description", "section", "diameter_in",
               "bottom_width_ft", "depth_ft", "side_slope_h_per_v", "station_ft",
               "elevation_ft", "csv", "length_ft", "slope_ftft", "upstream_invert_ft",
               "downstream_invert_ft", "n")
_REACH_SECTIONS = ("circular", "rectangular", "trapezoidal", "user")
#: Geometry fields of each reach section (required ones; "user" takes lists or a CSV).
_REACH_GEOMETRY = {"circular": ("diameter_in",), "rectangular": ("bottom_width_ft", "depth_ft"),
                   "trapezoidal": ("bottom_width_ft", "side_slope_h_per_v", "depth_ft"),
                   "user": ()}
_REACH_GEOMETRY_ALL = ("diameter_in", "bottom_width_ft", "depth_ft", "side_slope_h_per_v",
                       "station_ft", "elevation_ft", "csv")


def _parse_reach(P: _Problems, e: Mapping, path: str, ctx: _Ctx, errors: list[FieldError],
                 doc: Mapping) -> Reach | None:
    """A ``[[<scenario>.reach]]``: ``lag_hr`` (pure lag) or a routed ``section``.

    ``errors``: the declared model's records of its keys; the rules between them are
    :func:`_reach_rules`. A routed section has ``length_ft``, ``slope_ftft`` (or both invert
    elevations) and Manning's ``n``.
    """
    k0 = len(P.items)
    write_declared(P, errors, doc)
    points = _reach_rules(P, e, path, {x.path[3:] for x in errors}, ctx)
    if len(P.items) > k0 or points is None:
        return None
    if not any(k in e for k in _ROUTED):
        return Reach(id=e["id"], to=e["to"], lag_hr=float(e["lag_hr"]),
                     description=e.get("description", ""))
    spec = _conveyance_spec(e, points)
    sec = _built(P, path, _section, spec, text="section is invalid")
    conv = None if sec is None else _conveyance(P, path, sec, spec)
    if conv is None:
        return None
    spec.update(length_ft=spec.pop("length_ft"), slope_ftft=conv.slope_ftft, n=spec.pop("n"),
                full_flow_capacity_cfs=conv.full_flow_capacity_cfs,
                depth_full_ft=sec.max_depth_ft)
    return Reach(id=e["id"], to=e["to"], lag_hr=0.0, description=e.get("description", ""),
                 conveyance=conv, conveyance_spec=spec)


#: The keys of a routed reach.
_ROUTED = ("section", "length_ft", "slope_ftft", "upstream_invert_ft", "downstream_invert_ft",
           "n", *_REACH_GEOMETRY_ALL)
_REQUIRED = {"section": "is required; got nothing. Use one of: " + ", ".join(_REACH_SECTIONS)}


def _reach_rules(P: _Problems, e: Mapping, path: str, bad: set, ctx: _Ctx) -> dict | None:
    """The rules between a reach's keys; the points of a user section ({} for another)."""
    routed = [k for k in _ROUTED if k in e]
    if "lag_hr" in e and routed:
        P.add(f"{path}.lag_hr", f"and a routed section ({', '.join(routed)}) must not both be "
                                "given; got both. Keep lag_hr for a pure lag, or remove it to "
                                "route the pipe or channel")
        return None
    section = e["section"] if "section" in e and ("section",) not in bad else None
    required = [*_REACH_GEOMETRY.get(section or "", ()), "section", "length_ft", "n"] if routed \
        else ["lag_hr"]
    inverts = [k for k in ("upstream_invert_ft", "downstream_invert_ft") if k in e]
    if "slope_ftft" in e and inverts:
        P.add(f"{path}.slope_ftft", f"and {' and '.join(inverts)} must not both be given; got "
                                    "both. Give the slope or the two invert elevations")
    elif len(inverts) == 1:
        other = ({"upstream_invert_ft", "downstream_invert_ft"} - set(inverts)).pop()
        P.add(f"{path}.{other}", f"is required with {inverts[0]}; got nothing. Give both "
                                 "invert elevations, or slope_ftft")
    elif routed and not inverts and "slope_ftft" not in e:
        P.add(f"{path}.slope_ftft", "(or upstream_invert_ft and downstream_invert_ft) is "
                                    "required; got nothing. Give the bed slope in ft/ft")
    allowed = _REACH_GEOMETRY.get(section or "", _REACH_GEOMETRY_ALL) + (
        ("station_ft", "elevation_ft", "csv") if section == "user" else ())
    for k in (k for k in _REACH_GEOMETRY_ALL if k in e and k not in allowed):
        P.add(f"{path}.{k}", f"does not apply to section = \"{section}\"; got {_short(e[k])}. "
                             f"Fields of this section: {', '.join(allowed)}")
    for k in (k for k in required if k not in e):
        P.add(f"{path}.{k}", _REQUIRED.get(k, "is required; got nothing. Add it to the file."))
    if section == "rectangular" and e.get("bottom_width_ft") == 0:
        P.add(f"{path}.bottom_width_ft", "must be > 0; got 0")
    if section != "user" or bad & {("station_ft",), ("elevation_ft",), ("csv",)}:
        return {}
    return _user_section_points(P, e, path, ctx)


def _conveyance_spec(e: Mapping, points: dict) -> dict[str, Any]:
    """The section, its dimensions and points, inverts, length and n of a valid routed reach."""
    spec: dict[str, Any] = {"section": e["section"]}
    if "slope_ftft" not in e:
        spec.update({k: float(e[k]) for k in ("upstream_invert_ft", "downstream_invert_ft")})
    spec.update({k: float(e[k]) for k in _REACH_GEOMETRY[e["section"]]}, **points)
    spec.update(length_ft=float(e["length_ft"]), n=float(e["n"]))
    if "slope_ftft" in e:
        spec["slope_ftft"] = float(e["slope_ftft"])
    return spec


def _section(spec: Mapping):
    """The cross-section of a conveyance spec (:mod:`hydrocalc.hydraulics.conveyance`)."""
    if spec["section"] == "circular":
        return cv.CircularSection(spec["diameter_in"])
    if spec["section"] == "rectangular":
        return cv.RectangularSection(spec["bottom_width_ft"], spec["depth_ft"])
    if spec["section"] == "trapezoidal":
        return cv.TrapezoidalSection(spec["bottom_width_ft"], spec["side_slope_h_per_v"],
                                     spec["depth_ft"])
    return cv.UserSection(tuple(spec["station_ft"]), tuple(spec["elevation_ft"]))


def _conveyance(P: _Problems, path: str, sec, spec: dict) -> cv.Conveyance | None:
    """The conveyance of a section; None after recording why its slope is refused."""
    slope = spec.pop("slope_ftft", None)
    if slope is None:  # from the inverts
        slope = (spec["upstream_invert_ft"] - spec["downstream_invert_ft"]) / spec["length_ft"]
    try:
        return cv.Conveyance(sec, spec["length_ft"], slope, spec["n"], name=path)
    except HydrocalcError as exc:
        text, key = _msg(exc), "slope_ftft" if "upstream_invert_ft" not in spec else \
            "downstream_invert_ft"
        if text.startswith("the section "):  # the reach as a whole
            P.add(path, text[len("the section "):])
            return None
        if text.startswith("slope_ftft "):
            text = text[len("slope_ftft "):]
            if key != "slope_ftft":  # slope from the inverts: name them
                text = (f"gives slope {fmt_value(slope)} ft/ft from upstream_invert_ft "
                        f"{fmt_value(spec['upstream_invert_ft'])} and downstream_invert_ft "
                        f"{fmt_value(spec['downstream_invert_ft'])}, but " + text)
        P.add(f"{path}.{key}", text)
        return None


def _user_section_points(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> dict | None:
    """Station-elevation points of a user section: inline lists or a two-column CSV."""
    has_lists = "station_ft" in e or "elevation_ft" in e
    if has_lists and "csv" in e:
        P.add(f"{path}.csv", "and station_ft/elevation_ft lists must not both be given; got "
                             "both. Keep one")
        return None
    if "csv" in e:
        got = _two_column_csv(P, ctx, path, e["csv"], "station_ft", "elevation_ft")
        if got is None:
            return None
        xs, zs, where = got
        for x, z, (name, lineno) in zip(xs, zs, where, strict=True):
            if not (math.isfinite(x) and math.isfinite(z)):
                P.add(f"{path}.csv", f"must hold finite numbers; got {x}, {z} at {name} "
                                     f"line {lineno}")
                return None
        return {"csv": e["csv"], "station_ft": xs, "elevation_ft": zs}
    if not has_lists:
        P.add(f"{path}.station_ft", "and elevation_ft (or csv) are required for section = "
                                    "\"user\"; got nothing. Give the cross-section points "
                                    "from the left bank to the right bank")
        return None
    if "station_ft" not in e or "elevation_ft" not in e:
        missing = "elevation_ft" if "station_ft" in e else "station_ft"
        P.add(f"{path}.{missing}", "is required; got nothing. Add a list of numbers.")
        return None
    xs, zs = [float(x) for x in e["station_ft"]], [float(z) for z in e["elevation_ft"]]
    if len(xs) != len(zs):
        P.add(f"{path}.elevation_ft", f"must have as many values as station_ft ({len(xs)}); "
                                      f"got {len(zs)}")
        return None
    return {"station_ft": xs, "elevation_ft": zs}
