"""``[[pre.reach]]`` / ``[[post.reach]]``: a translation lag or a routed pipe/channel.

Routed sections (circular, rectangular, trapezoidal, user station-elevation) are those of
:mod:`hydrocalc.hydraulics.conveyance`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

from hydrocalc._validate import fmt_value
from hydrocalc.errors import HydrocalcError
from hydrocalc.hydraulics import conveyance as cv
from hydrocalc.site.files import _Ctx, _two_column_csv
from hydrocalc.site.model import Reach
from hydrocalc.site.problems import _msg, _Problems, _short, _to

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


def _parse_reach(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> Reach | None:
    """A ``[[<scenario>.reach]]``: ``lag_hr`` (pure lag) or a routed ``section``.

    A routed section has ``length_ft``, ``slope_ftft`` (or both invert elevations) and
    Manning's ``n``.
    """
    k0 = len(P.items)
    P.unknown_keys(e, _REACH_KEYS, path)
    rid = P.text(e, "id", path, required=True)
    to = _to(P, e, path)
    d = P.text(e, "description", path, default="") or ""
    routed = [k for k in ("section", "length_ft", "slope_ftft", "upstream_invert_ft",
                          "downstream_invert_ft", "n", *_REACH_GEOMETRY_ALL) if k in e]
    if "lag_hr" in e and routed:
        P.add(f"{path}.lag_hr", f"and a routed section ({', '.join(routed)}) must not both be "
                                "given; got both. Keep lag_hr for a pure lag, or remove it to "
                                "route the pipe or channel")
        return None
    if not routed:
        lag = P.number(e, "lag_hr", path, required=True, lower=0.0)
        if len(P.items) > k0:
            return None
        # no problem recorded: the destination was parsed (not None)
        return Reach(id=rid, to=cast(str, to), lag_hr=lag, description=d)
    section = P.choice(e, "section", path, _REACH_SECTIONS, required=True)
    spec: dict[str, Any] = {"section": section}
    length = P.number(e, "length_ft", path, required=True, lower=0.0, lower_inclusive=False)
    n = P.number(e, "n", path, required=True, lower=0.0, upper=1.0, lower_inclusive=False)
    slope_field = "slope_ftft"
    slope = None
    inverts = [k for k in ("upstream_invert_ft", "downstream_invert_ft") if k in e]
    if "slope_ftft" in e and inverts:
        P.add(f"{path}.slope_ftft", f"and {' and '.join(inverts)} must not both be given; got "
                                    "both. Give the slope or the two invert elevations")
    elif "slope_ftft" in e:
        slope = P.number(e, "slope_ftft", path)
    elif len(inverts) == 2:
        up = P.number(e, "upstream_invert_ft", path)
        down = P.number(e, "downstream_invert_ft", path)
        if up is not None and down is not None and length is not None:
            slope = (up - down) / length
            spec["upstream_invert_ft"], spec["downstream_invert_ft"] = up, down
            slope_field = "downstream_invert_ft"
    elif inverts:
        other = ({"upstream_invert_ft", "downstream_invert_ft"} - set(inverts)).pop()
        P.add(f"{path}.{other}", f"is required with {inverts[0]}; got nothing. Give both "
                                 "invert elevations, or slope_ftft")
    else:
        P.add(f"{path}.slope_ftft", "(or upstream_invert_ft and downstream_invert_ft) is "
                                    "required; got nothing. Give the bed slope in ft/ft")
    if section is not None:
        allowed = _REACH_GEOMETRY[section] + (("station_ft", "elevation_ft", "csv")
                                               if section == "user" else ())
        for k in _REACH_GEOMETRY_ALL:
            if k in e and k not in allowed:
                P.add(f"{path}.{k}", f"does not apply to section = \"{section}\"; got "
                                     f"{_short(e[k])}. Fields of this section: "
                                     f"{', '.join(allowed)}")
        for k in _REACH_GEOMETRY[section]:
            # a trapezoid may have no bottom (a V), a rectangle must have a width
            lower_inc = k == "side_slope_h_per_v" or (section == "trapezoidal"
                                                      and k == "bottom_width_ft")
            spec[k] = P.number(e, k, path, required=True, lower=0.0,
                               lower_inclusive=lower_inc)
        if section == "user":
            spec.update(_user_section_points(P, e, path, ctx) or {})
    if len(P.items) > k0:
        return None

    sec: cv.CircularSection | cv.TrapezoidalSection | cv.UserSection
    try:
        if section == "circular":
            sec = cv.CircularSection(spec["diameter_in"])
        elif section == "rectangular":
            sec = cv.RectangularSection(spec["bottom_width_ft"], spec["depth_ft"])
        elif section == "trapezoidal":
            sec = cv.TrapezoidalSection(spec["bottom_width_ft"], spec["side_slope_h_per_v"],
                                        spec["depth_ft"])
        else:
            sec = cv.UserSection(tuple(spec["station_ft"]), tuple(spec["elevation_ft"]))
    except HydrocalcError as exc:
        P.add(path, f"section is invalid: {_msg(exc)}")
        return None
    try:
        # no problem recorded: the length, slope and n were parsed (not None)
        conv = cv.Conveyance(sec, length, cast(float, slope), n, name=path)
    except HydrocalcError as exc:
        text = _msg(exc)
        if text.startswith("slope_ftft "):
            text = text[len("slope_ftft "):]
            if slope_field != "slope_ftft":  # slope from the inverts: name them
                text = (f"gives slope {fmt_value(slope)} ft/ft from upstream_invert_ft "
                        f"{fmt_value(spec['upstream_invert_ft'])} and downstream_invert_ft "
                        f"{fmt_value(spec['downstream_invert_ft'])}, but " + text)
        P.add(f"{path}.{slope_field}", text)
        return None
    spec.update(length_ft=length, slope_ftft=conv.slope_ftft, n=n,
                full_flow_capacity_cfs=conv.full_flow_capacity_cfs,
                depth_full_ft=sec.max_depth_ft)
    return Reach(id=rid, to=cast(str, to), lag_hr=0.0, description=d, conveyance=conv,
                 conveyance_spec=spec)


def _user_section_points(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> dict | None:
    """Station-elevation points of a user section: inline lists or a two-column CSV."""
    has_lists = "station_ft" in e or "elevation_ft" in e
    if has_lists and "csv" in e:
        P.add(f"{path}.csv", "and station_ft/elevation_ft lists must not both be given; got "
                             "both. Keep one")
        return None
    if "csv" in e:
        raw = P.text(e, "csv", path)
        if raw is None:
            return None
        got = _two_column_csv(P, ctx, path, raw, "station_ft", "elevation_ft")
        if got is None:
            return None
        xs, zs, where = got
        for x, z, (name, lineno) in zip(xs, zs, where, strict=True):
            if not (math.isfinite(x) and math.isfinite(z)):
                P.add(f"{path}.csv", f"must hold finite numbers; got {x}, {z} at {name} "
                                     f"line {lineno}")
                return None
        return {"csv": raw, "station_ft": xs, "elevation_ft": zs}
    if not has_lists:
        P.add(f"{path}.station_ft", "and elevation_ft (or csv) are required for section = "
                                    "\"user\"; got nothing. Give the cross-section points "
                                    "from the left bank to the right bank")
        return None
    xs = P.numbers(e, "station_ft", path, min_len=3)
    zs = P.numbers(e, "elevation_ft", path, min_len=3)
    if xs is None or zs is None:
        return None
    if len(xs) != len(zs):
        P.add(f"{path}.elevation_ft", f"must have as many values as station_ft ({len(xs)}); "
                                      f"got {len(zs)}")
        return None
    return {"station_ft": xs, "elevation_ft": zs}
