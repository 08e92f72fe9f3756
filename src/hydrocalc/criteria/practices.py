r"""Runoff-reduction (green-infrastructure) practices: volume held from geometry and soils.

New York meets the runoff reduction volume (RRv) with green-infrastructure practices (NYS
SMDM 2015 [1]_ Chapter 3 "runoff reduction techniques", Chapter 5 "green infrastructure
techniques" and the standard practices with RRv capacity of Chapter 6). Each practice here is
described by its dimensions, the void ratios of its layers and its drain-down, and gives:

* ``storage_ft3`` - the water it holds, layer by layer (ponding, soil media, stone), from the
  geometry below;
* ``drain_down_hr`` - the time to empty that storage by infiltration (``V / (A_bottom f)``)
  or by use (cisterns: ``V / demand``), checked against the engineer's ``max_drain_down_hr``;
* ``captured_ft3 = min(storage_ft3, WQv of its drainage area)`` - no practice is credited
  with more than the water-quality runoff that reaches it (WQv by SMDM Table 4.1 with the
  site's 90 % rainfall depth);
* ``rrv_ft3 = captured_ft3 x rrv_credit_fraction`` - the share of the captured volume that
  counts as runoff reduction. The fraction is the manual's RRv capacity of the practice
  (SMDM Chapter 3, by practice and soil group). It was **not** verified in hydrocalc's
  references, so it is an explicit input with the source the engineer read, reported among
  the values to confirm; hydrocalc never defaults it.

RRv provided by practices is the sum of ``rrv_ft3``; their ``captured_ft3`` adds to the WQv
provided. Practices are credited in the criteria only: they are **not** routed in the
hydrographs (model a practice that must attenuate peaks as a pond).

Geometry (hydrocalc's layer-by-layer void-volume storage; the manual's own sizing equations
for each practice were not read and are not applied):

========================  =====================================================================
kind                      storage_ft3
========================  =====================================================================
bioretention,             A (h_pond + d_media n_media + d_stone n_stone)
rain_garden
porous_pavement           A d_stone n_stone
infiltration_trench,      L W D n_stone
dry_well
green_roof                A d_media n_media   (water held by the media; drains by
                          evapotranspiration, no drain-down check)
cistern                   V_gal / 7.48052
rooftop_disconnection     none: the roof's WQv is captured when the disconnection flow path is
                          at least ``min_flow_path_length_ft`` (the engineer's cited limit)
vegetated_swale           n_cells x 1/2 A_xs(h) L_pool, with n_cells = L / s, L_pool =
                          min(s, h / S), A_xs(h) = h (b + z h): the wedge of water behind each
                          check dam of height h
========================  =====================================================================

Symbols
-------
=========================  ======  ======================================================
Name                       Unit    Meaning
=========================  ======  ======================================================
area_ft2                   ft2     surface (bottom) area of the practice
ponding_depth_ft           ft      surface ponding depth
media_depth_ft             ft      soil (planting, engineered) media depth
media_void_ratio           -       fraction of the media volume that holds water, (0, 1]
stone_depth_ft             ft      stone reservoir depth
stone_void_ratio           -       fraction of the stone volume that holds water, (0, 1]
infiltration_rate_in_hr    in/h    design infiltration rate of the native soil (tested)
max_drain_down_hr          h       longest drain-down the engineer's design rule allows
volume_gal                 gal     cistern volume available for capture
demand_gal_per_day         gal/d   water use that empties the cistern
rrv_credit_fraction        -       share of the captured volume credited as RRv, [0, 1]
=========================  ======  ======================================================

References
----------
.. [1] New York State Department of Environmental Conservation, "New York State Stormwater
   Management Design Manual," Albany, NY, Jan. 2015: Chapter 3 (runoff reduction), Chapter 4
   (Table 4.1, WQv), Chapter 5 (green infrastructure techniques: rooftop disconnection,
   vegetated swale, rain garden, green roof, stormwater planter, rain tank/cistern, porous
   pavement) and Chapter 6 (infiltration, bioretention).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence
from typing import Any, Literal, cast

from hydrocalc.criteria import ny
from hydrocalc.units import FT2_PER_AC

__all__ = ["PRACTICE_KINDS", "Practice", "storage_ft3", "drain_down_hr", "evaluate_practice",
           "parse_practices"]

GAL_PER_FT3 = 7.48052  # U.S. gallons per cubic foot (231 in3 per gallon)

#: geometry keys by kind (all required), and whether the practice drains by infiltration
_GEOMETRY = {
    "bioretention": ("area_ft2", "ponding_depth_ft", "media_depth_ft", "media_void_ratio"),
    "rain_garden": ("area_ft2", "ponding_depth_ft", "media_depth_ft", "media_void_ratio"),
    "porous_pavement": ("area_ft2", "stone_depth_ft", "stone_void_ratio"),
    "infiltration_trench": ("length_ft", "width_ft", "depth_ft", "stone_void_ratio"),
    "dry_well": ("length_ft", "width_ft", "depth_ft", "stone_void_ratio"),
    "green_roof": ("area_ft2", "media_depth_ft", "media_void_ratio"),
    "cistern": ("volume_gal", "demand_gal_per_day"),
    "rooftop_disconnection": ("roof_area_ft2", "flow_path_length_ft", "min_flow_path_length_ft"),
    "vegetated_swale": ("length_ft", "bottom_width_ft", "side_slope_h_per_v",
                        "check_dam_height_ft", "check_dam_spacing_ft", "slope_ftft"),
}
#: Practice kinds accepted in ``[[criteria.practice]]``.
PRACTICE_KINDS = tuple(_GEOMETRY)
_VOID = ("media_void_ratio", "stone_void_ratio")
#: kinds that empty by infiltration into the native soil unless they have an underdrain
_INFILTRATING = ("bioretention", "rain_garden", "porous_pavement", "infiltration_trench",
                 "dry_well")
_OPTIONAL_GEOMETRY = {"bioretention": ("stone_depth_ft", "stone_void_ratio"),
                      "rain_garden": ("stone_depth_ft", "stone_void_ratio")}

#: the keys every kind has (its geometry follows; site.schema declares each kind)
_COMMON = ("id", "kind", "description", "drainage_area_ft2", "drainage_impervious_ft2",
           "rrv_credit_fraction", "rrv_credit_source", "infiltration_rate_in_hr",
           "underdrain", "max_drain_down_hr", "max_drain_down_source", "void_ratio_source",
           "min_flow_path_source")


@dataclasses.dataclass(frozen=True)
class Practice:
    """One ``[[criteria.practice]]``: a runoff-reduction practice and its explicit factors.

    ``dims`` holds the kind's geometry (unit-suffixed keys, see the module table).
    """

    id: str
    kind: str
    dims: dict
    drainage_area_ft2: float
    drainage_impervious_ft2: float
    rrv_credit_fraction: float
    rrv_credit_source: str
    infiltration_rate_in_hr: float | None = None
    underdrain: bool = False
    max_drain_down_hr: float | None = None
    max_drain_down_source: str = ""
    void_ratio_source: str = ""
    min_flow_path_source: str = ""
    description: str = ""

    @property
    def infiltrates(self) -> bool:
        """True when the practice empties by infiltration into the native soil."""
        return self.kind in _INFILTRATING and not self.underdrain

    @property
    def bottom_area_ft2(self) -> float | None:
        """Bottom area from ``area_ft2`` or ``length_ft`` x ``width_ft``, else None [ft2]."""
        d = self.dims
        if "area_ft2" in d:
            return d["area_ft2"]
        if "length_ft" in d and "width_ft" in d:
            return d["length_ft"] * d["width_ft"]
        return None


def storage_ft3(p: Practice) -> float:
    """Volume of water the practice holds when full (module table) [ft3]."""
    d, k = p.dims, p.kind
    if k in ("bioretention", "rain_garden"):
        stone = d.get("stone_depth_ft", 0.0) * d.get("stone_void_ratio", 0.0)
        return d["area_ft2"] * (d["ponding_depth_ft"] + d["media_depth_ft"] * d["media_void_ratio"]
                                + stone)
    if k == "porous_pavement":
        return d["area_ft2"] * d["stone_depth_ft"] * d["stone_void_ratio"]
    if k in ("infiltration_trench", "dry_well"):
        return d["length_ft"] * d["width_ft"] * d["depth_ft"] * d["stone_void_ratio"]
    if k == "green_roof":
        return d["area_ft2"] * d["media_depth_ft"] * d["media_void_ratio"]
    if k == "cistern":
        return d["volume_gal"] / GAL_PER_FT3
    if k == "rooftop_disconnection":
        return math.inf  # limited by the roof's WQv only
    if k == "vegetated_swale":
        h, s = d["check_dam_height_ft"], d["check_dam_spacing_ft"]
        pool = min(s, h / d["slope_ftft"]) if d["slope_ftft"] > 0 else s
        xs = h * (d["bottom_width_ft"] + d["side_slope_h_per_v"] * h)
        return (d["length_ft"] / s) * 0.5 * xs * pool
    raise ValueError(f"unknown practice kind {k!r}")


def drain_down_hr(p: Practice) -> float | None:
    """Time to empty the full practice: infiltration ``V / (A_bottom f)`` or cistern use [h].

    None when the practice does not drain by infiltration or use (underdrained, green roof,
    rooftop disconnection, swale).
    """
    if p.kind == "cistern":
        return p.dims["volume_gal"] / p.dims["demand_gal_per_day"] * 24.0
    if p.infiltrates and p.infiltration_rate_in_hr:
        # an infiltrating kind's required dims give its bottom area
        bottom_ft2 = cast(float, p.bottom_area_ft2)
        return storage_ft3(p) / (bottom_ft2 * p.infiltration_rate_in_hr / 12.0)
    return None


def _wqv_ft3(precip_in: float, area_ft2: float, impervious_ft2: float) -> float:
    if area_ft2 <= 0:
        return 0.0
    imp_pct = min(100.0, 100.0 * impervious_ft2 / area_ft2)
    return float(ny.water_quality_volume(precip_in, imp_pct, area_ft2 / FT2_PER_AC)) * FT2_PER_AC


def evaluate_practice(p: Practice, precip_in: float) -> dict:
    """Storage, drain-down, captured volume and RRv credit of one practice.

    Parameters
    ----------
    p : Practice
    precip_in : float
        90 % rainfall depth P of the site (SMDM Figure 4.1). [in]

    Returns
    -------
    dict
        ``id, kind, storage_ft3, drain_down_hr, max_drain_down_hr, drainage_wqv_ft3,
        captured_ft3, rrv_credit_fraction, rrv_ft3, rrv_credit_source, formula, reason``.
    """
    reason = ""
    if p.kind == "rooftop_disconnection":
        d = p.dims
        area, imp = d["roof_area_ft2"], d["roof_area_ft2"]
        wqv = _wqv_ft3(precip_in, area, imp)
        ok = d["flow_path_length_ft"] >= d["min_flow_path_length_ft"]
        captured = wqv if ok else 0.0
        stored = None
        formula = "WQv of the disconnected roof when the flow path meets the minimum length"
        if not ok:
            reason = (f"no credit: flow path {d['flow_path_length_ft']:g} ft is shorter than the "
                      f"minimum {d['min_flow_path_length_ft']:g} ft ({p.min_flow_path_source})")
    else:
        stored = storage_ft3(p)
        wqv = _wqv_ft3(precip_in, p.drainage_area_ft2, p.drainage_impervious_ft2)
        captured = min(stored, wqv)
        formula = {
            "bioretention": "A (h_pond + d_media n_media + d_stone n_stone)",
            "rain_garden": "A (h_pond + d_media n_media + d_stone n_stone)",
            "porous_pavement": "A d_stone n_stone",
            "infiltration_trench": "L W D n_stone",
            "dry_well": "L W D n_stone",
            "green_roof": "A d_media n_media",
            "cistern": "V_gal / 7.48052",
            "vegetated_swale": "L/s x 1/2 h (b + z h) min(s, h/S)",
        }[p.kind]
        if stored < wqv:
            reason = "storage below the WQv of its drainage area: credited up to its storage"
        elif stored > wqv:
            reason = "storage above the WQv of its drainage area: credited up to that WQv"
    rrv = captured * p.rrv_credit_fraction
    return {
        "id": p.id, "kind": p.kind, "description": p.description,
        "storage_ft3": stored, "drain_down_hr": drain_down_hr(p),
        "max_drain_down_hr": p.max_drain_down_hr,
        "drainage_area_ft2": p.drainage_area_ft2,
        "drainage_impervious_ft2": p.drainage_impervious_ft2,
        "drainage_wqv_ft3": wqv, "captured_ft3": captured,
        "rrv_credit_fraction": p.rrv_credit_fraction, "rrv_ft3": rrv,
        "rrv_credit_source": p.rrv_credit_source, "formula": formula, "reason": reason,
    }


def values_to_confirm(p: Practice) -> list[dict]:
    """The practice's manual factors as rows ``key, name, value, units, source, verified``.

    ``key`` is a stable identifier, e.g. ``practice_RG-1_rrv_credit_fraction``.
    """
    rows = [dict(key=f"practice_{p.id}_rrv_credit_fraction",
                 name=f"practice {p.id}: RRv credit fraction ({p.kind})",
                 value=p.rrv_credit_fraction, units="-", source=p.rrv_credit_source,
                 verified=False)]
    for key in _VOID:
        if key in p.dims:
            rows.append(dict(key=f"practice_{p.id}_{key}",
                             name=f"practice {p.id}: {key}", value=p.dims[key], units="-",
                             source=p.void_ratio_source or "site file (no source given)",
                             verified=False))
    if p.max_drain_down_hr is not None:
        rows.append(dict(key=f"practice_{p.id}_max_drain_down_hr",
                         name=f"practice {p.id}: maximum drain-down time",
                         value=p.max_drain_down_hr, units="h", source=p.max_drain_down_source,
                         verified=False))
    if p.kind == "rooftop_disconnection":
        rows.append(dict(key=f"practice_{p.id}_min_flow_path_length_ft",
                         name=f"practice {p.id}: minimum disconnection flow path",
                         value=p.dims["min_flow_path_length_ft"], units="ft",
                         source=p.min_flow_path_source, verified=False))
    return rows


def parse_practices(P, entries, prefix: str,
                    errors: Sequence = ()) -> tuple[Practice, ...] | None:
    """Parse ``[[criteria.practice]]`` with a :mod:`hydrocalc.site` problem collector.

    ``errors`` are the problems the declared site model found in the practices
    (:class:`hydrocalc.schema_errors.FieldError` with paths ``criteria.practice[i]...``, a
    single table read as an array of one; written by ``P.declared``: ranges, types, each
    kind's required and allowed keys); the rules between keys and the drain-down are checked
    here. Every problem is one line in ``P.items``; returns None when any entry is invalid.
    """
    if entries is None:
        return ()
    if isinstance(entries, Mapping):
        entries = [entries]
    if not isinstance(entries, list) or not all(isinstance(e, Mapping) for e in entries):
        P.declared([x for x in errors if len(x.path) == 2], {"criteria": {"practice": entries}})
        return None
    n0 = len(P.items)
    out, seen = [], set()
    for i, e in enumerate(entries):
        pid = e.get("id") if isinstance(e.get("id"), str) else None
        where = f"{prefix}[{pid or i}]"
        n1 = len(P.items)
        _practice_rules(P, e, where, [x for x in errors if x.path[2:3] == (i,)],
                        {"criteria": {"practice": entries}})
        valid = len(P.items) == n1
        if pid is not None and pid in seen:
            P.add(f"{where}.id", f"must be unique among the practices; got {pid!r} twice")
        seen.add(pid)
        if valid and _drains_in_time(P, where, p := _practice(e)):
            out.append(p)
    if len(P.items) > n0:
        return None
    return tuple(out)


def _kind_error(e: Mapping, x):
    """A record of an entry whose ``kind`` is none of the kinds, as the ``kind`` key's."""
    if x.kind != "tag":
        return x
    return dataclasses.replace(x, path=(*x.path, "kind"), kind="value", value=e.get("kind"),
                               declared=Literal[PRACTICE_KINDS], metadata=())  # type: ignore[valid-type]


def _practice_rules(P, e, where: str, errors: list, doc) -> None:
    """Record the model's problems of one practice, then the rules between its keys."""
    P.declared([_kind_error(e, x) for x in errors], doc)
    kind = e.get("kind")
    if kind not in _GEOMETRY:
        return
    bad = {x.key for x in errors}

    def valid(key: str, default: Any = None) -> Any:  # None: absent or at fault (recorded)
        return e.get(key, default) if key not in bad else None

    if kind in _OPTIONAL_GEOMETRY and valid("stone_depth_ft") and "stone_void_ratio" not in e:
        P.add(f"{where}.stone_void_ratio", "is required when stone_depth_ft is given; got "
                                           "nothing. Give the stone's void ratio in (0, 1].")
    if kind == "rooftop_disconnection":
        for key in ("drainage_area_ft2", "drainage_impervious_ft2"):
            if key in e:
                P.add(f"{where}.{key}", "is the roof area for rooftop_disconnection; remove it "
                                        "and give roof_area_ft2")
    elif (area := valid("drainage_area_ft2")) is not None and (
            imp := valid("drainage_impervious_ft2")) is not None and imp > area:
        P.add(f"{where}.drainage_impervious_ft2", f"must be <= drainage_area_ft2 "
                                                   f"({float(area):g}); got {float(imp):g}")
    underdrain = valid("underdrain", False)
    if underdrain and kind not in _INFILTRATING:
        P.add(f"{where}.underdrain", f"applies to infiltrating practices only; got true for "
                                     f"kind {kind!r}")
    tmax = valid("max_drain_down_hr")
    if tmax is not None and not valid("max_drain_down_source", ""):
        P.add(f"{where}.max_drain_down_source", "is required with max_drain_down_hr; got "
                                                "nothing. Cite the manual section you applied.")
    if kind == "rooftop_disconnection" and not valid("min_flow_path_source", ""):
        P.add(f"{where}.min_flow_path_source", "is required for rooftop_disconnection; got "
                                               "nothing. Cite the manual section of the "
                                               "minimum flow path length.")
    infiltrates = kind in _INFILTRATING and not underdrain
    if infiltrates and valid("infiltration_rate_in_hr") is None:
        P.add(f"{where}.infiltration_rate_in_hr", f"is required for an infiltrating {kind} "
                                                  "(no underdrain); got nothing. Give the "
                                                  "tested design infiltration rate in in/h.")
    if (infiltrates or kind == "cistern") and tmax is None:
        P.add(f"{where}.max_drain_down_hr", f"is required for a {kind} that drains by "
                                            f"{'use' if kind == 'cistern' else 'infiltration'}; "
                                            "got nothing. Give the allowed drain-down time and "
                                            "max_drain_down_source.")


def _practice(e: Mapping) -> Practice:
    """The practice of a valid ``[[criteria.practice]]`` entry."""
    kind = e["kind"]
    dims = {k: float(e[k]) for k in _GEOMETRY[kind] + _OPTIONAL_GEOMETRY.get(kind, ()) if k in e}
    roof = dims.get("roof_area_ft2")  # a disconnected roof drains itself
    rate, tmax = (float(e[k]) if k in e else None for k in ("infiltration_rate_in_hr",
                                                             "max_drain_down_hr"))
    return Practice(
        id=e["id"], kind=kind, dims=dims, rrv_credit_fraction=float(e["rrv_credit_fraction"]),
        drainage_area_ft2=roof if roof is not None else float(e["drainage_area_ft2"]),
        drainage_impervious_ft2=roof if roof is not None else float(
            e["drainage_impervious_ft2"]),
        underdrain=bool(e.get("underdrain", False)), infiltration_rate_in_hr=rate,
        max_drain_down_hr=tmax,
        **{k: e.get(k, "") for k in ("rrv_credit_source", "max_drain_down_source",
                                     "void_ratio_source", "min_flow_path_source",
                                     "description")})


def _drains_in_time(P, where: str, p: Practice) -> bool:
    """False (after recording the problem) when the practice drains too slowly."""
    t, tmax, rate = drain_down_hr(p), p.max_drain_down_hr, p.infiltration_rate_in_hr
    if t is None or tmax is None or t <= tmax * (1 + 1e-9):
        return True
    if p.kind == "cistern":
        need = p.dims["volume_gal"] / (tmax / 24.0)
        P.add(f"{where}.demand_gal_per_day",
              f"cannot empty the cistern within max_drain_down_hr = {tmax:g} h: "
              f"{p.dims['volume_gal']:g} gal at {p.dims['demand_gal_per_day']:g} gal/d takes "
              f"{t:.3g} h; need a demand >= {need:.4g} gal/d or a smaller volume")
    else:
        # t came from the infiltration branch of drain_down_hr: the bottom area is known
        depth_ft = storage_ft3(p) / cast(float, p.bottom_area_ft2)
        need = depth_ft * 12.0 / tmax
        P.add(f"{where}.infiltration_rate_in_hr",
              f"cannot drain the practice within max_drain_down_hr = {tmax:g} h: "
              f"{cast(float, rate):g} in/h empties {depth_ft * 12.0:.3g} in of stored water in "
              f"{t:.3g} h; need >= {need:.3g} in/h, a shallower practice, or an underdrain")
    return False
