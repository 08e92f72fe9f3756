r"""Sweep fields: the grammar of ``field = "..."`` and the site values it resolves to.

:func:`resolve_field` turns a field such as ``post.pond[P-1].outlet[OR-1].diameter_in`` into
the :class:`Target` objects it addresses on a loaded site (``[*]`` selects every node; unknown
ids and attributes are errors with "did you mean"). The tables of variable attributes and
their valid ranges live here; :mod:`hydrocalc.batch.sweep.overrides` applies values to them.
"""

from __future__ import annotations

import dataclasses
import functools
import re
import typing
from collections.abc import Mapping, Sequence

from hydrocalc import site as site_mod
from hydrocalc._validate import suggest
from hydrocalc.batch.sweep.schema import FIELD_HELP
from hydrocalc.errors import InputError
from hydrocalc.schema import declared_range
from hydrocalc.site import schema as S

#: Ways a varied value combines with the base value.
OPS = ("set", "add", "scale")
_SCENARIOS = ("pre", "post")

def _ranges(model, keys: Sequence[str]) -> dict[str, tuple]:
    """``{key: (lower, lower_inclusive, upper, upper_inclusive, integer)}`` as ``model`` declares.

    A varied value is checked against the same range as the value written in the site file
    (:func:`hydrocalc.schema.declared_range`).
    """
    return {k: declared_range(model, k) for k in keys}


#: The range of a device's level (invert, crest) varied by a sweep: a sweep varies the pond's
#: built spec, whose levels are stages above the pond bottom (>= 0), whatever frame the site
#: file used (its own range is that of an elevation).
_STAGE = (0.0, True, None, True, False)

# the varied attributes and their ranges, per kind of target (in the order messages list them)
_SUB_ATTRS = _ranges(S.Subcatchment, ("cn", "tc_hr", "area_ac", "impervious_connected_ac",
                                      "impervious_unconnected_ac"))
_POND_ATTRS = _ranges(S.Pond, ("initial_stage_ft", "count", "rrv_credit_pct"))
_REACH_ATTRS = _ranges(S.Reach, ("lag_hr",))
_STORM_ATTRS = _ranges(S.Storms, ("wqv_precip_in",))
_ANALYSIS_ATTRS = _ranges(S.Analysis, ("dt_hr", "prf", "ia_ratio", "duration_hr"))
_CRITERIA_ATTRS = _ranges(S.Criteria, ("cpv_detention_hr", "cpv_orifice_cd",
                                       "cpv_orifice_head_ft", "wqv_area_ac", "wqv_impervious_ac",
                                       "rrv_provided_acft", "wqv_provided_acft"))
_BARREL_ATTRS = {"diameter_in": declared_range(S.Barrel, "diameter_in"), "invert_ft": _STAGE,
                 **_ranges(S.Barrel, ("length_ft", "slope_ftft", "n", "ke", "cd"))}
_CULVERT_ATTRS = {**_ranges(S.Culvert, ("diameter_in", "span_ft", "rise_ft", "barrels",
                                        "length_ft")),
                  "inlet_invert_ft": _STAGE,
                  **_ranges(S.Culvert, ("outlet_invert_ft", "slope_ftft", "n", "ke"))}
_STORAGE_ATTRS = {
    **_ranges(S.Basin, ("bottom_length_ft", "bottom_width_ft", "depth_ft", "side_slope_h_per_v",
                        "porosity_frac")),
    **_ranges(S.Drywell, ("diameter_ft", "stone_width_ft", "stone_porosity_frac",
                          "stone_depth_below_ft")),
}
#: The declared model of each outlet type of the site file.
_OUTLET_MODELS = {typing.get_args(m.model_fields["type"].annotation)[0]: m
                  for m in typing.get_args(typing.get_args(S.Outlet)[0])}


def outlet_keys(kind: str) -> tuple[str, ...]:
    """The keys a sweep may vary on an outlet of type ``kind`` (its number keys)."""
    if kind == "culvert":
        return tuple(_CULVERT_ATTRS)
    required, optional = site_mod.OUTLET_FIELDS[kind]
    return (*required, *optional)


def outlet_range(kind: str, key: str) -> tuple:
    """The range of ``key`` of an outlet of type ``kind`` (a level: a stage, >= 0)."""
    if kind == "culvert":
        return _CULVERT_ATTRS[key]
    return _STAGE if key in site_mod.LEVEL_KEYS else declared_range(_OUTLET_MODELS[kind], key)


def barrel_attrs(spec: Mapping) -> dict[str, tuple]:
    """The varied keys of a pond's barrel and their ranges (a culvert's or a plain barrel's)."""
    return _CULVERT_ATTRS if spec.get("type") == "culvert" else _BARREL_ATTRS


_TOKEN = re.compile(r"([^.\[\]]+)(?:\[([^\[\]]*)\])?")


# ----------------------------------------------------------------------------------------
# targets


@dataclasses.dataclass(frozen=True)
class Target:
    """One concrete value of a site that a sweep varies.

    ``kind`` is ``"node"``, ``"outlet"``, ``"barrel"``, ``"storage"``, ``"storm_depth"``,
    ``"storms"``, ``"analysis"`` or ``"criteria"``; ``scenario``, ``node`` and ``item``
    locate it (``item``: outlet or storage position); ``attr`` is the key; ``node_kind``
    and ``item_label`` only make :attr:`label` readable.
    """

    kind: str
    attr: str
    scenario: str | None = None
    node: str | None = None
    item: int | None = None
    node_kind: str = "subcatchment"
    item_label: str = ""

    @functools.cached_property
    def label(self) -> str:
        """The target as a field path (``post.pond[UG-1].outlet[OR-1].diameter_in``)."""
        if self.kind == "storm_depth":
            return f"storms.depths_in.{self.attr}"
        if self.kind in ("storms", "analysis", "criteria"):
            return f"{self.kind}.{self.attr}"
        path = f"{self.scenario}.{self.node_kind}[{self.node}]"
        if self.kind in ("outlet", "storage"):
            path += f".{self.kind}[{self.item_label}]"
        elif self.kind == "barrel":
            path += ".barrel"
        return f"{path}.{self.attr}"


def _tokens(field: str) -> list[tuple[str, str | None]] | None:
    pos = 0
    out: list[tuple[str, str | None]] = []
    text = field.strip()
    while pos < len(text):
        if out:
            if text[pos] != ".":
                return None
            pos += 1
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos:
            return None
        out.append((m.group(1), m.group(2)))
        pos = m.end()
    return out or None


_FIELD_HELP = FIELD_HELP


def _select(ids: Sequence[str], sel: str | None, what: str, where: str) -> list[str]:
    if sel is None:
        raise InputError(f"{where} must select the {what} with [id] or [*]; got no selector")
    sel = sel.strip()
    if sel == "*":
        if not ids:
            raise InputError(f"{where} selects every {what}; got none in the base site")
        return list(ids)
    if sel not in ids:
        raise InputError(f"{where} names {what} {sel!r}, which the base site does not have"
                         f"{suggest(sel, ids)} Available: {', '.join(ids) or 'none'}")
    return [sel]


def _attr(name: str, allowed: Mapping, where: str, what: str) -> str:
    if name not in allowed:
        raise InputError(f"{where} must end with a sweepable {what} key ({', '.join(allowed)}); "
                         f"got {name!r}{suggest(name, allowed)}")
    return name


def resolve_field(site, field: str) -> list[Target]:
    """Resolve a field path against ``site`` into the concrete values it names.

    Parameters
    ----------
    site : hydrocalc.site.Site
        The base site.
    field : str
        A field path (see the module docstring), wildcards allowed.

    Returns
    -------
    list of Target
        At least one.

    Raises
    ------
    InputError
        For a malformed path, an unknown node/device id (with suggestions) or a key that
        cannot be varied.
    """
    where = f"field {field!r}"
    toks = _tokens(field) if isinstance(field, str) else None
    if not toks:
        raise InputError(f"field must be {_FIELD_HELP}; got {field!r}")
    head, head_sel = toks[0]
    if head_sel is not None:
        raise InputError(f"{where} must start with pre, post, *, storms, analysis or criteria "
                         f"without a selector; got {head}[{head_sel}]")
    if head == "storms":
        if len(toks) == 3 and toks[1] == ("depths_in", None) and toks[2][1] is None:
            names = list(site.storms.names)
            storm_sel = toks[2][0]
            picked = (names if storm_sel == "*"
                      else _select(names, storm_sel, "storm", where))
            return [Target("storm_depth", n) for n in picked]
        if len(toks) == 2 and toks[1][1] is None and toks[1][0] in (*_STORM_ATTRS, "distribution"):
            return [Target("storms", toks[1][0])]
        raise InputError(f"{where} must be storms.depths_in.<name> (or .*), "
                         f"storms.wqv_precip_in or storms.distribution; got {field!r}")
    if head in ("analysis", "criteria"):
        allowed = _ANALYSIS_ATTRS if head == "analysis" else _CRITERIA_ATTRS
        if len(toks) != 2 or toks[1][1] is not None:
            raise InputError(f"{where} must be {head}.<key>; got {field!r}")
        return [Target(head, _attr(toks[1][0], allowed, where, head))]
    if head not in (*_SCENARIOS, "*"):
        heads = (*_SCENARIOS, "storms", "analysis", "criteria")
        raise InputError(f"{where} must start with pre, post, *, storms, analysis or criteria; "
                         f"got {head!r}{suggest(head, heads)}")
    if len(toks) < 3:
        raise InputError(f"field must be {_FIELD_HELP}; got {field!r}")
    scenarios = list(_SCENARIOS) if head == "*" else [head]
    group, sel = toks[1]
    groups = {"subcatchment": "subcatchments", "pond": "ponds", "reach": "reaches"}
    if group not in groups:
        raise InputError(f"{where} must name a subcatchment, pond or reach after the scenario; "
                         f"got {group!r}{suggest(group, groups)}")
    out: list[Target] = []
    misses = []
    for sc_name in scenarios:
        sc = site.scenarios[sc_name]
        ids = [n.id for n in getattr(sc, groups[group])]
        try:
            picked = _select(ids, sel, group, where)
        except InputError as exc:
            if head == "*":
                misses.append(exc)
                continue
            raise
        for nid in picked:
            out.extend(_resolve_node(site_mod, sc, group, nid, toks[2:], where))
    if not out:
        raise misses[0] if misses else InputError(f"{where} matches nothing in the base site")
    return out


def _resolve_node(site_mod, sc, group: str, nid: str, rest, where: str) -> list[Target]:
    node = sc.nodes[nid]
    base = {"scenario": sc.name, "node": nid, "node_kind": group}
    if group in ("subcatchment", "reach"):
        allowed = _SUB_ATTRS if group == "subcatchment" else _REACH_ATTRS
        if len(rest) != 1 or rest[0][1] is not None:
            raise InputError(f"{where} must end with .<key> after the {group}; got "
                             f"{'.'.join(t[0] for t in rest)}")
        return [Target("node", _attr(rest[0][0], allowed, where, group), **base)]
    # pond
    name, sel = rest[0]
    if len(rest) == 1:
        if sel is not None:
            raise InputError(f"{where}: {name}[{sel}] needs a key after it")
        return [Target("node", _attr(name, _POND_ATTRS, where, "pond"), **base)]
    if len(rest) != 2 or rest[1][1] is not None:
        raise InputError(f"field must be {_FIELD_HELP}; got a pond path with {len(rest)} parts")
    key = rest[1][0]
    if name == "outlet":
        ids = list(node.outlet_ids)
        picked = _select(ids, sel, "outlet", where)
        out = []
        for oid in picked:
            i = ids.index(oid)
            kind = node.outlet_types[i]
            keys = outlet_keys(kind)
            if key in keys:
                out.append(Target("outlet", key, item=i, item_label=oid, **base))
            elif sel.strip() != "*":
                raise InputError(f"{where} must end with a key of a {kind} outlet "
                                 f"({', '.join(keys)}); got {key!r}{suggest(key, keys)}")
        if not out:
            raise InputError(f"{where}: no outlet of pond {nid} has the key {key!r}")
        return out
    if name == "barrel":
        if sel is not None or node.barrel_spec is None:
            raise InputError(f"{where}: pond {nid} has no barrel" if node.barrel_spec is None
                             else f"{where}: barrel takes no selector; got barrel[{sel}]")
        kind = "culvert barrel" if node.barrel_spec.get("type") == "culvert" else "barrel"
        return [Target("barrel", _attr(key, barrel_attrs(node.barrel_spec), where, kind), item=0,
                       **base)]
    if name == "storage":
        n = len(node.storage_spec)
        if sel is None:
            if n != 1:
                raise InputError(f"{where} must select one of the {n} storage items of pond "
                                 f"{nid} with storage[0] ... storage[{n - 1}]")
            idx = [0]
        elif sel.strip() == "*":
            idx = list(range(n))
        else:
            try:
                idx = [int(sel)]
            except ValueError:
                raise InputError(f"{where} must select storage items by position (0 to "
                                 f"{n - 1}) or *; got [{sel}]") from None
            if not 0 <= idx[0] < n:
                raise InputError(f"{where} must select storage items 0 to {n - 1}; got [{sel}]")
        out = []
        for i in idx:
            spec = node.storage_spec[i]
            if key in spec and key in _STORAGE_ATTRS:
                out.append(Target("storage", key, item=i, item_label=str(i), **base))
            elif sel is not None and sel.strip() == "*":
                continue
            else:
                keys = tuple(k for k in spec if k in _STORAGE_ATTRS)
                listed = ", ".join(keys) or "none: tables cannot be varied"
                raise InputError(f"{where} must end with a numeric key of the {spec.get('type')} "
                                 f"storage ({listed}); got {key!r}{suggest(key, keys)}")
        if not out:
            raise InputError(f"{where}: no storage item of pond {nid} has the key {key!r}")
        return out
    parts = ("outlet", "barrel", "storage", *_POND_ATTRS)
    raise InputError(f"{where} must continue a pond with outlet[..], barrel, storage or a pond "
                     f"key; got {name!r}{suggest(name, parts)}")
