"""A pond's devices: outlet, culvert, barrel and storage objects built from validated specs.

Adapters from the site file's tables to :mod:`hydrocalc.hydraulics.outlets`,
:mod:`hydrocalc.hydraulics.outlets.culvert` and :class:`hydrocalc.hydraulics.routing.StageStorage`;
the sweep reuses them to rebuild varied ponds.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from hydrocalc.errors import HydrocalcError, RangeWarning
from hydrocalc.hydraulics import outlets, routing
from hydrocalc.hydraulics.outlets import culvert
from hydrocalc.site.problems import _msg

#: Site-file keys of each outlet type: (required keys, in the order of the outlet class's
#: positional arguments; {optional key: (lower bound, lower bound allowed)}).
OUTLET_FIELDS: dict[str, tuple[tuple[str, ...], dict[str, tuple]]] = {
    # type: (required positional keys, {optional key: (lower, lower_inclusive)})
    "circular_orifice": (("diameter_in", "invert_ft"), {"cd": (0.0, False)}),
    "rectangular_orifice": (("width_in", "height_in", "invert_ft"), {"cd": (0.0, False)}),
    "rectangular_weir": (("length_ft", "crest_ft"),
                         {"cw": (0.0, False), "end_contractions": (0, True)}),
    "vnotch_weir": (("angle_deg", "crest_ft"), {"cw": (0.0, False)}),
    "broad_crested_weir": (("length_ft", "crest_ft"), {"cw": (0.0, False)}),
    "riser": (("diameter_in", "crest_ft"), {"cw": (0.0, False), "cd": (0.0, False)}),
    "exfiltration": (("rate_in_hr",), {}),
}
_OUTLET_CLASS = {
    "circular_orifice": "CircularOrifice",
    "rectangular_orifice": "RectangularOrifice",
    "rectangular_weir": "RectangularWeir",
    "vnotch_weir": "VNotchWeir",
    "broad_crested_weir": "BroadCrestedWeir",
    "riser": "Riser",
    "exfiltration": "Exfiltration",
}
#: Outlet keys whose value must be > 0 (sizes and rates).
POSITIVE_OUTLET_KEYS = {"diameter_in", "width_in", "height_in", "length_ft", "rate_in_hr"}


def device_level_ft(spec: Mapping) -> float:
    """The stage at which an outlet of the site file starts to pass flow [ft].

    Its ``invert_ft``, ``crest_ft`` or ``inlet_invert_ft`` (the first present), else 0.
    """
    for k in ("invert_ft", "crest_ft", "inlet_invert_ft"):
        if k in spec:
            return float(spec[k])
    return 0.0


def build_outlet(kind: str, spec: Mapping, name: str):
    """The :mod:`hydrocalc.outlets` device of one ``[[...pond.outlet]]`` table.

    Parameters
    ----------
    kind : str
        The outlet ``type``, a key of :data:`OUTLET_FIELDS`.
    spec : mapping
        The outlet's keys (validated: every required key of ``kind`` present).
    name : str
        The device's id.
    """
    cls = getattr(outlets, _OUTLET_CLASS[kind])
    required, optional = OUTLET_FIELDS[kind]
    args = [spec[k] for k in required]
    kwargs = {k: spec[k] for k in optional if k in spec}
    if kind == "exfiltration" and "over" in spec:
        kwargs["over"] = spec["over"]
    return cls(*args, **kwargs, name=name)


_CULVERT_KEYS = ("type", "id", "shape", "inlet", "diameter_in", "span_ft", "rise_ft",
                 "barrels", "length_ft", "inlet_invert_ft", "outlet_invert_ft", "slope_ftft",
                 "n", "ke")


def _parse_culvert(P, o: Mapping, path: str, index: int, *, default_id: str):
    """A culvert device table (``type = "culvert"``): (spec, Culvert) or None."""
    n0 = len(P.items)
    P.unknown_keys(o, _CULVERT_KEYS, path)
    spec: dict[str, Any] = {"type": "culvert"}
    if "id" in o:
        spec["id"] = P.text(o, "id", path)
    shape = P.choice(o, "shape", path, culvert.SHAPES, required=True)
    spec["shape"] = shape
    codes = tuple(culvert.inlet_codes(shape)) if shape else tuple(culvert.inlet_codes())
    spec["inlet"] = P.choice(o, "inlet", path, codes, required=True)
    if shape == "circular":
        spec["diameter_in"] = P.number(o, "diameter_in", path, required=True, lower=0.0,
                                       lower_inclusive=False, upper=1e4)
        for k in ("span_ft", "rise_ft"):
            if k in o:
                P.add(f"{path}.{k}", "is for box culverts; got it with shape = \"circular\". "
                                     "Give diameter_in only")
    elif shape == "box":
        for k in ("span_ft", "rise_ft"):
            spec[k] = P.number(o, k, path, required=True, lower=0.0, lower_inclusive=False,
                               upper=1e3)
        if "diameter_in" in o:
            P.add(f"{path}.diameter_in", "is for circular culverts; got it with shape = "
                                         "\"box\". Give span_ft and rise_ft")
    spec["barrels"] = P.number(o, "barrels", path, default=1, lower=1, upper=1000, integer=True)
    spec["length_ft"] = P.number(o, "length_ft", path, required=True, lower=0.0,
                                 lower_inclusive=False, upper=1e5)
    spec["inlet_invert_ft"] = P.number(o, "inlet_invert_ft", path, required=True, lower=0.0)
    if "outlet_invert_ft" in o and "slope_ftft" in o:
        P.add(f"{path}.outlet_invert_ft", "and slope_ftft must not both be given; got both. "
                                          "Keep one")
    elif "outlet_invert_ft" in o:
        spec["outlet_invert_ft"] = P.number(o, "outlet_invert_ft", path, lower=-1e5,
                                            upper=1e5)
    elif "slope_ftft" in o:
        spec["slope_ftft"] = P.number(o, "slope_ftft", path, lower=-1.0, upper=1.0)
    else:
        P.add(f"{path}.outlet_invert_ft", "is required for a culvert; got nothing (a culvert "
                                          "with no outlet invert). Give the outlet invert in "
                                          "the frame of inlet_invert_ft, or slope_ftft")
    spec["n"] = P.number(o, "n", path, required=True, lower=0.0, lower_inclusive=False,
                         upper=0.2)
    spec["ke"] = P.number(o, "ke", path, required=True, lower=0.0, upper=2.0)
    if len(P.items) > n0:
        return None
    spec["id"] = spec.get("id") or default_id
    kwargs = {k: v for k, v in spec.items() if k not in ("type", "id") and v is not None}
    kwargs["barrels"] = int(kwargs["barrels"])
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RangeWarning)
            obj = culvert.Culvert(**kwargs, name=spec["id"])
    except (HydrocalcError, TypeError) as exc:
        P.add(path, f"is invalid: {_msg(exc)}")
        return None
    for w in caught:
        if issubclass(w.category, RangeWarning):
            warnings.warn(f"{path}: {w.message}", RangeWarning, stacklevel=2)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return spec, obj


_BARREL_REQUIRED = ("diameter_in", "invert_ft", "length_ft", "slope_ftft")
_BARREL_OPTIONAL = ("n", "ke", "cd")


def build_barrel(spec: Mapping):
    """The :class:`hydrocalc.outlets.Barrel` of a pond's ``[...pond.barrel]`` table.

    Keys ``diameter_in, invert_ft, length_ft, slope_ftft``; optional ``n, ke, cd``.
    """
    # the required values fill the leading parameters only, never name (mypy cannot tell)
    return outlets.Barrel(*[spec[k] for k in _BARREL_REQUIRED],  # type: ignore[misc]
                          **{k: spec[k] for k in _BARREL_OPTIONAL if k in spec}, name="barrel")


_STORAGE_TYPES = ("stage_area", "stage_storage", "basin", "drywell")


def build_storage(kind: str, spec: Mapping):
    """The :class:`hydrocalc.routing.StageStorage` of one ``[...pond.storage]`` table.

    Parameters
    ----------
    kind : {"stage_area", "stage_storage", "basin", "drywell"}
        The storage ``type``.
    spec : mapping
        Its keys (validated), with an optional ``bottom_ft`` that raises the whole relation.
    """
    ss = routing.StageStorage
    if kind == "stage_area":
        obj = ss.from_areas(spec["stage_ft"], spec["area_ft2"], method=spec.get("method", "conic"))
    elif kind == "stage_storage":
        obj = ss.from_volumes(spec["stage_ft"], spec["storage_ft3"])
    elif kind == "basin":
        obj = ss.basin(spec["bottom_length_ft"], spec["bottom_width_ft"], spec["depth_ft"],
                       **{k: spec[k] for k in ("side_slope_h_per_v", "porosity_frac")
                          if k in spec})
    else:
        obj = ss.drywell(spec["diameter_ft"], spec["depth_ft"],
                         **{k: spec[k] for k in ("stone_porosity_frac", "stone_width_ft",
                                                 "stone_depth_below_ft", "wall_thickness_ft")
                            if k in spec})
    if spec.get("bottom_ft"):
        obj = obj.raised(spec["bottom_ft"])
    return obj


def combine_storage(parts: list):
    """One stage-storage relation of several storage units of a pond (their sum)."""
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def storage_top_ft(ss) -> float | None:
    """The top stage of a stage-storage relation, or None when it does not say [ft]."""
    top = getattr(ss, "top_stage_ft", None)
    if callable(top):
        top = top()
    try:
        return float(top) if top is not None else None
    except (TypeError, ValueError):
        return None
