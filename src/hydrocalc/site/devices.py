"""A pond's devices: outlet, culvert, barrel and storage objects built from validated specs.

Adapters from the site file's tables to :mod:`hydrocalc.hydraulics.outlets`,
:mod:`hydrocalc.hydraulics.outlets.culvert` and :class:`hydrocalc.hydraulics.routing.StageStorage`;
the sweep reuses them to rebuild varied ponds.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

from hydrocalc.errors import RangeWarning
from hydrocalc.hydraulics import outlets, routing
from hydrocalc.hydraulics.outlets import culvert

#: Site-file keys of each outlet type: (required keys, in the order of the outlet class's
#: positional arguments; optional keys). Their ranges are declared once, in the site file's
#: model (:mod:`hydrocalc.site.schema`).
OUTLET_FIELDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "circular_orifice": (("diameter_in", "invert_ft"), ("cd",)),
    "rectangular_orifice": (("width_in", "height_in", "invert_ft"), ("cd",)),
    "rectangular_weir": (("length_ft", "crest_ft"), ("cw", "end_contractions")),
    "vnotch_weir": (("angle_deg", "crest_ft"), ("cw",)),
    "broad_crested_weir": (("length_ft", "crest_ft"), ("cw",)),
    "riser": (("diameter_in", "crest_ft"), ("cw", "cd")),
    "exfiltration": (("rate_in_hr",), ()),
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


#: The keys of a culvert table (the declared model's, in the order of its spec).
_CULVERT_KEYS = ("type", "id", "shape", "inlet", "diameter_in", "span_ft", "rise_ft",
                 "barrels", "length_ft", "inlet_invert_ft", "outlet_invert_ft", "slope_ftft",
                 "n", "ke")
#: The keys that hold a device's level: stages above the bottom, or elevations.
LEVEL_KEYS = ("invert_ft", "crest_ft", "inlet_invert_ft", "outlet_invert_ft")
#: The keys that are whole numbers.
_WHOLE = ("end_contractions", "barrels")


def _spec(table: Mapping, keys, datum: float | None = None) -> dict[str, Any]:
    """The ``keys`` of a validated table present in it, in that order; numbers as floats.

    With a pond bottom elevation ``datum``, the levels (:data:`LEVEL_KEYS`) become stages.
    """
    out: dict[str, Any] = {}
    for k in (k for k in keys if k in table):
        v = table[k]
        if isinstance(v, int | float) and not isinstance(v, bool):
            shift = datum if datum is not None and k in LEVEL_KEYS else 0.0
            v = int(v) if k in _WHOLE else float(v) - shift
        out[k] = v
    return out


def outlet_spec(table: Mapping, index: int, datum: float | None) -> dict[str, Any]:
    """The spec of a validated ``[[...pond.outlet]]`` table (levels in stages); default id."""
    kind = table["type"]
    if kind == "culvert":
        return culvert_spec(table, f"culvert_{index + 1}", datum)
    required, optional = OUTLET_FIELDS[kind]
    spec = _spec(table, ("type", "id", *required, *optional, "over"), datum)
    spec["id"] = spec.get("id") or f"{kind}_{index + 1}"
    return spec


def culvert_spec(table: Mapping, default_id: str, datum: float | None) -> dict[str, Any]:
    """The spec of a validated culvert table (levels in stages, one barrel by default)."""
    spec = {"barrels": 1, **_spec(table, _CULVERT_KEYS, datum)}
    spec = _spec(spec, _CULVERT_KEYS)  # in the order of the keys
    spec["id"] = spec.get("id") or default_id
    return spec


def build_culvert(spec: Mapping, path: str):
    """The :class:`~hydrocalc.hydraulics.outlets.culvert.Culvert` of a culvert spec.

    Its range warnings name the table (``path``).
    """
    kwargs = {k: v for k, v in spec.items() if k not in ("type", "id")}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RangeWarning)
        obj = culvert.Culvert(**kwargs, name=spec["id"])
    for w in caught:
        if issubclass(w.category, RangeWarning):
            warnings.warn(f"{path}: {w.message}", RangeWarning, stacklevel=2)
        else:
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return obj


def build_device(spec: Mapping, path: str):
    """The device of a spec: an outlet, a culvert or (a spec without ``type``) a barrel."""
    if "type" not in spec:
        return build_barrel(spec)
    if spec["type"] == "culvert":
        return build_culvert(spec, path)
    return build_outlet(spec["type"], spec, spec["id"])


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
