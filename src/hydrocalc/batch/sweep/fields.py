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
from collections.abc import Mapping, Sequence

from hydrocalc import site as site_mod
from hydrocalc._validate import suggest
from hydrocalc.batch.sweep.schema import FIELD_HELP
from hydrocalc.errors import InputError

#: Ways a varied value combines with the base value.
OPS = ("set", "add", "scale")
_SCENARIOS = ("pre", "post")

# (lower, lower_inclusive, upper, upper_inclusive, integer) per varied attribute
_SUB_ATTRS = {
    "cn": (0.0, False, 100.0, True, False),
    "tc_hr": (0.0, False, 100.0, True, False),
    "area_ac": (0.0, False, None, True, False),
    "impervious_connected_ac": (0.0, True, None, True, False),
    "impervious_unconnected_ac": (0.0, True, None, True, False),
}
_POND_ATTRS = {
    "initial_stage_ft": (0.0, True, None, True, False),
    "count": (1.0, True, None, True, True),
    "rrv_credit_pct": (0.0, True, 100.0, True, False),
}
_REACH_ATTRS = {"lag_hr": (0.0, True, None, True, False)}
_STORM_ATTRS = {"wqv_precip_in": (0.0, False, None, True, False)}
_ANALYSIS_ATTRS = {
    "dt_hr": (0.0, False, 1.0, True, False),
    "prf": (0.0, False, 700.0, True, False),
    "ia_ratio": (0.0, True, 1.0, True, False),
    "duration_hr": (0.0, False, None, True, False),
}
_CRITERIA_ATTRS = {
    "cpv_detention_hr": (0.0, False, None, True, False),
    "cpv_orifice_cd": (0.0, False, None, True, False),
    "cpv_orifice_head_ft": (0.0, False, None, True, False),
    "wqv_area_ac": (0.0, False, None, True, False),
    "wqv_impervious_ac": (0.0, True, None, True, False),
    "rrv_provided_acft": (0.0, True, None, True, False),
    "wqv_provided_acft": (0.0, True, None, True, False),
}
_BARREL_ATTRS = {
    "diameter_in": (0.0, False, None, True, False),
    "invert_ft": (0.0, True, None, True, False),
    "length_ft": (0.0, False, None, True, False),
    "slope_ftft": (0.0, False, None, True, False),
    "n": (0.0, False, None, True, False),
    "ke": (0.0, True, None, True, False),
    "cd": (0.0, False, None, True, False),
}
_STORAGE_ATTRS = {
    "bottom_length_ft": (0.0, False, None, True, False),
    "bottom_width_ft": (0.0, False, None, True, False),
    "depth_ft": (0.0, False, None, True, False),
    "side_slope_h_per_v": (0.0, True, None, True, False),
    "porosity_frac": (0.0, False, 1.0, True, False),
    "diameter_ft": (0.0, False, None, True, False),
    "stone_width_ft": (0.0, True, None, True, False),
    "stone_porosity_frac": (0.0, False, 1.0, True, False),
    "stone_depth_below_ft": (0.0, True, None, True, False),
}

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
            required, optional = site_mod.OUTLET_FIELDS[kind]
            if key in required or key in optional:
                out.append(Target("outlet", key, item=i, item_label=oid, **base))
            elif sel.strip() != "*":
                keys = (*required, *optional)
                raise InputError(f"{where} must end with a key of a {kind} outlet "
                                 f"({', '.join(keys)}); got {key!r}{suggest(key, keys)}")
        if not out:
            raise InputError(f"{where}: no outlet of pond {nid} has the key {key!r}")
        return out
    if name == "barrel":
        if sel is not None or node.barrel_spec is None:
            raise InputError(f"{where}: pond {nid} has no barrel" if node.barrel_spec is None
                             else f"{where}: barrel takes no selector; got barrel[{sel}]")
        return [Target("barrel", _attr(key, _BARREL_ATTRS, where, "barrel"), item=0, **base)]
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
