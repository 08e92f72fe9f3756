r"""Applying sweep values to a site: :func:`apply_overrides`.

Each ``(target, op, value)`` is checked against the attribute's valid range, combined with
the base value (``set``, ``add``, ``scale``) and written into a copy of the site
(``dataclasses.replace``; no file is re-read). Varied ponds are rebuilt through the site's own
device and storage builders, and rebuilt nodes are shared between scenarios through a
bounded cache.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from typing import Any, cast

from hydrocalc import rainfall
from hydrocalc import site as site_mod
from hydrocalc._validate import fmt_value
from hydrocalc.batch.sweep.fields import (
    _ANALYSIS_ATTRS,
    _CRITERIA_ATTRS,
    _POND_ATTRS,
    _REACH_ATTRS,
    _STORAGE_ATTRS,
    _STORM_ATTRS,
    _SUB_ATTRS,
    Target,
    barrel_attrs,
    outlet_range,
)
from hydrocalc.errors import HydrocalcError, InputError

#: Most rebuilt nodes a :class:`Sweep` keeps for its scenarios (see :func:`apply_overrides`).
_NODE_CACHE_SIZE = 4096


# ----------------------------------------------------------------------------------------
# applying overrides


def _bounds_text(b) -> str:
    lo, lo_inc, hi, hi_inc, integer = b
    left = "[" if lo_inc and lo is not None else "("
    right = "]" if hi is not None and hi_inc else ")"
    low = "-inf" if lo is None else fmt_value(lo)
    text = f"{left}{low}, {'inf' if hi is None else fmt_value(hi)}{right}"
    return ("an integer in " if integer else "in ") + text


def _check(value, b, label: str, how=("set", None, None)) -> float:
    """``value`` checked against bounds ``b``; ``how`` = (op, base, delta) for the message."""
    lo, lo_inc, hi, hi_inc, integer = b
    v = float(value)
    ok = math.isfinite(v)
    if lo is not None:
        ok = ok and (v >= lo if lo_inc else v > lo)
    if hi is not None:
        ok = ok and (v <= hi if hi_inc else v < hi)
    if integer:
        ok = ok and v.is_integer()
    if not ok:
        raise InputError(f"{label} must be {_bounds_text(b)}; got {fmt_value(v)}{_how(*how)}")
    return int(v) if integer else v


def _combine(op: str, base, value):
    if op == "set":
        return value
    if isinstance(base, str) or isinstance(value, str) or base is None:
        raise InputError(f"op {op!r} needs a numeric base value; got {base!r}")
    return base + value if op == "add" else base * value


def _how(op: str, base, value) -> str:
    if op == "set":
        return ""
    word = "+" if op == "add" else "x"
    return f" ({fmt_value(base)} {word} {fmt_value(value)})"


@dataclasses.dataclass
class _Changes:
    """The values the overrides leave, per kind, before they are written into the site."""

    nodes: dict[tuple[str, str], dict[str, Any]] = dataclasses.field(default_factory=dict)
    outlets: dict[tuple[str, str], list[dict]] = dataclasses.field(default_factory=dict)
    barrels: dict[tuple[str, str], dict] = dataclasses.field(default_factory=dict)
    storages: dict[tuple[str, str], list[dict]] = dataclasses.field(default_factory=dict)
    depths: dict[str, float] = dataclasses.field(default_factory=dict)
    storms: dict[str, Any] = dataclasses.field(default_factory=dict)
    options: dict[str, Any] = dataclasses.field(default_factory=dict)
    criteria: dict[str, Any] = dataclasses.field(default_factory=dict)


def _node_key(target: Target) -> tuple[str, str]:
    """The (scenario, node) a node-kind target addresses."""
    # the node kinds (the only users of key and item) always carry scenario, node, item
    return cast(tuple[str, str], (target.scenario, target.node))


def _need_base(base, op: str, label: str) -> None:
    """Refuse ``add``/``scale`` of a value the base site leaves unset."""
    if base is None and op != "set":
        raise InputError(f"{label} has no value in the base site to {op}; use op = "
                         "\"set\"")


def _apply_storm_depth(site, ch: _Changes, target: Target, op: str, value) -> None:
    """``storms.depths_in.<name>``: one storm's depth."""
    label = target.label
    base = ch.depths.get(target.attr, site.storms.depths_in[target.attr])
    new = _combine(op, base, value)
    # the site file's rule: above the world-record 24-hour rainfall is a unit slip
    ch.depths[target.attr] = _check(new, (0.0, False, site_mod.MAX_24HR_DEPTH_IN, True, False),
                                    label, (op, base, value))


def _apply_storms(site, ch: _Changes, target: Target, op: str, value) -> None:
    """``storms.<key>``: the distribution or another storm setting."""
    label = target.label
    base = ch.storms.get(target.attr, getattr(site.storms, target.attr))
    new = _combine(op, base, value)
    if target.attr == "distribution":
        ch.storms[target.attr] = _check_distribution(new, label)
    else:
        ch.storms[target.attr] = _check(new, _STORM_ATTRS[target.attr], label,
                                        (op, base, value))


def _apply_setting(site, ch: _Changes, target: Target, op: str, value) -> None:
    """``analysis.<key>`` or ``criteria.<key>``: an analysis option or a criteria input."""
    label = target.label
    kind = target.kind
    store = ch.options if kind == "analysis" else ch.criteria
    obj = site.options if kind == "analysis" else site.criteria
    base = store.get(target.attr, getattr(obj, target.attr))
    _need_base(base, op, label)
    new = _combine(op, base, value)
    bounds = (_ANALYSIS_ATTRS if kind == "analysis" else _CRITERIA_ATTRS)[target.attr]
    store[target.attr] = _check(new, bounds, label, (op, base, value))


def _apply_node(site, ch: _Changes, target: Target, op: str, value) -> None:
    """``<scenario>.<subcatchment|pond|reach>[id].<key>``: a node attribute."""
    label = target.label
    node = site.scenarios[target.scenario].nodes[target.node]
    changes = ch.nodes.setdefault(_node_key(target), {})
    base = changes.get(target.attr, getattr(node, target.attr))
    _need_base(base, op, label)
    new = _combine(op, base, value)
    by_kind: dict[str, dict[str, tuple]] = {
        "subcatchment": _SUB_ATTRS, "pond": _POND_ATTRS, "reach": _REACH_ATTRS}
    bounds = by_kind[target.node_kind][target.attr]
    changes[target.attr] = _check(new, bounds, label, (op, base, value))


def _apply_outlet(site, ch: _Changes, target: Target, op: str, value) -> None:
    """``...pond[id].outlet[id].<key>``: a key of one outlet device's spec."""
    label = target.label
    node = site.scenarios[target.scenario].nodes[target.node]
    specs = ch.outlets.setdefault(_node_key(target), [dict(s) for s in node.outlet_spec])
    spec = specs[cast(int, target.item)]
    base = spec.get(target.attr)
    _need_base(base, op, label)
    new = _combine(op, base, value)
    spec[target.attr] = _check(new, outlet_range(spec["type"], target.attr),
                               label, (op, base, value))


def _apply_barrel(site, ch: _Changes, target: Target, op: str, value) -> None:
    """``...pond[id].barrel.<key>``: a key of the pond's barrel spec."""
    label = target.label
    node = site.scenarios[target.scenario].nodes[target.node]
    spec = ch.barrels.setdefault(_node_key(target), dict(node.barrel_spec))
    base = spec.get(target.attr)
    _need_base(base, op, label)
    new = _combine(op, base, value)
    spec[target.attr] = _check(new, barrel_attrs(spec)[target.attr], label, (op, base, value))


def _apply_storage(site, ch: _Changes, target: Target, op: str, value) -> None:
    """``...pond[id].storage[i].<key>``: a key of one storage table's spec."""
    label = target.label
    node = site.scenarios[target.scenario].nodes[target.node]
    specs = ch.storages.setdefault(_node_key(target), [dict(s) for s in node.storage_spec])
    spec = specs[cast(int, target.item)]
    base = spec[target.attr]
    new = _combine(op, base, value)
    spec[target.attr] = _check(new, _STORAGE_ATTRS[target.attr], label, (op, base, value))


#: The function that records an override, per :attr:`Target.kind`.
_APPLY: dict[str, Callable[[Any, _Changes, Target, str, Any], None]] = {
    "storm_depth": _apply_storm_depth,
    "storms": _apply_storms,
    "analysis": _apply_setting,
    "criteria": _apply_setting,
    "node": _apply_node,
    "outlet": _apply_outlet,
    "barrel": _apply_barrel,
    "storage": _apply_storage,
}


def apply_overrides(site, overrides: Sequence[tuple[Target, str, Any]], *,
                    node_cache: dict | None = None):
    """Return a copy of ``site`` with the overrides applied (in order).

    Parameters
    ----------
    site : hydrocalc.site.Site
        The base site (not modified).
    overrides : sequence of (Target, op, value)
        ``op`` is ``"set"``, ``"add"`` or ``"scale"``; each applies to the value left by the
        previous override of the same target.
    node_cache : dict, optional
        Rebuilt nodes kept under their base node and the exact changes applied to it (a
        :class:`Sweep` passes its own): scenarios that vary a node the same way share one
        node object, built and validated once.

    Returns
    -------
    hydrocalc.site.Site
        Scenarios, storms, options and criteria that no override touches are the same objects
        as in ``site`` (so batch analysis computes shared scenarios once).

    Raises
    ------
    InputError
        ``<field> must be in <interval>; got <value> (<base> + <delta>)`` for a value outside
        the range the site loader accepts, or a device/storage that cannot be rebuilt.
    """
    ch = _Changes()
    for target, op, value in overrides:
        apply = _APPLY.get(target.kind)
        if apply is None:  # pragma: no cover - resolve_field only makes the kinds above
            raise AssertionError(target.kind)
        apply(site, ch, target, op, value)
    new_site = _with_settings(site, ch)
    touched = {k for k in (*ch.nodes, *ch.outlets, *ch.barrels, *ch.storages)}
    if not touched:
        return new_site
    scenarios = dict(new_site.scenarios)
    for sc_name in {k[0] for k in touched}:
        sc = scenarios[sc_name]
        groups = {}
        for group, single in (("subcatchments", "subcatchment"), ("ponds", "pond"),
                              ("reaches", "reach")):
            groups[group] = tuple(
                _rebuilt(n, sc_name, single, ch, node_cache) if (sc_name, n.id) in touched
                else n for n in getattr(sc, group))
        scenarios[sc_name] = _same_topology(sc, dataclasses.replace(sc, **groups))
    return dataclasses.replace(new_site, scenarios=scenarios)


def _with_settings(site, ch: _Changes):
    """``site`` with the changed storms, analysis options and criteria written in."""
    new_site = site
    if ch.depths or ch.storms:
        st = site.storms
        storm_changes: dict[str, Any] = dict(ch.storms)
        if ch.depths:
            storm_changes["depths_in"] = {**st.depths_in, **ch.depths}
        new_site = dataclasses.replace(new_site,
                                       storms=dataclasses.replace(st, **storm_changes))
    if ch.options:
        options = dataclasses.replace(site.options, **ch.options)
        too_many = site_mod.analysis_steps_problem(options)
        if too_many:
            raise InputError(f"analysis.dt_hr {too_many}")
        new_site = dataclasses.replace(new_site, options=options)
    if ch.criteria:
        new_site = dataclasses.replace(new_site, criteria=dataclasses.replace(site.criteria,
                                                                              **ch.criteria))
    return new_site


def _rebuilt(n, sc_name: str, single: str, ch: _Changes, node_cache: dict | None):
    """Node ``n`` of scenario ``sc_name`` rebuilt with its changes (shared through the cache)."""
    k = (sc_name, n.id)
    args = (ch.nodes.get(k, {}), ch.outlets.get(k), ch.barrels.get(k), ch.storages.get(k))
    path = f"{sc_name}.{single}[{n.id}]"
    if node_cache is None:
        return _rebuild_node(site_mod, n, *args, path)
    ck = (sc_name, n.id, id(n), repr(args))  # repr: exact for numbers, types included
    hit = node_cache.get(ck)
    if hit is not None and hit[0] is n:
        return hit[1]
    new = _rebuild_node(site_mod, n, *args, path)
    if len(node_cache) >= _NODE_CACHE_SIZE:
        node_cache.clear()
    node_cache[ck] = (n, new)
    return new


def _same_topology(base, new):
    """``new`` with the topology ``base`` has computed when its links are exactly the base's.

    The topology is (``order``, ``upstream``); the links match when they have the same node
    ids, in the same order, draining to the same nodes. A varied attribute seldom changes a
    link, and each scenario would otherwise sort its network again. The values are the base's
    own objects (shared, never modified).
    """
    edges = new.edges
    if list(edges.items()) != list(base.edges.items()):
        return new
    for name in ("order", "upstream"):
        new.__dict__[name] = getattr(base, name)
    return new


def _check_distribution(value, label: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{label} must be a distribution name such as \"III\"; got {value!r}")

    try:
        rainfall.design_storm(1.0, distribution=value, dt_hr=0.1)
    except HydrocalcError as exc:
        raise InputError(f"{label} must be a known distribution; got {value!r} "
                         f"({str(exc).splitlines()[0]})") from None
    return value


def _rebuild_node(site_mod, node, changes, outlet_specs, barrel_spec, storage_specs,
                  path: str) -> Any:
    """Apply attribute changes and rebuild devices/storage of one node, re-validating."""
    new = dataclasses.replace(node, **changes) if changes else node
    if node.kind == "subcatchment":
        imp = new.impervious_connected_ac + new.impervious_unconnected_ac
        if imp > new.area_ac * (1 + 1e-9):
            raise InputError(f"{path}.impervious_connected_ac plus impervious_unconnected_ac "
                             f"must be <= area_ac ({fmt_value(new.area_ac)}); got "
                             f"{fmt_value(imp)}")
        return new
    if node.kind != "pond":
        return new
    rebuild: dict[str, Any] = {}
    try:
        if storage_specs is not None:
            objs = [site_mod.build_storage(s["type"], s) for s in storage_specs]
            rebuild["stage_storage"] = site_mod.combine_storage(objs)
            rebuild["storage_spec"] = tuple(storage_specs)
        if outlet_specs is not None:  # rebuild only the devices whose spec changed
            rebuild["outlets"] = tuple(
                dev if spec == old else site_mod.build_device(spec, f"{path}.outlet[{spec['id']}]")
                for dev, spec, old in zip(node.outlets, outlet_specs, node.outlet_spec,
                                          strict=True))
            rebuild["outlet_spec"] = tuple(outlet_specs)
        if barrel_spec is not None:
            rebuild["barrel"] = site_mod.build_device(barrel_spec, f"{path}.barrel")
            rebuild["barrel_spec"] = barrel_spec
    except (HydrocalcError, TypeError, ValueError, ArithmeticError) as exc:
        raise InputError(f"{path} cannot be rebuilt with the varied values: "
                         f"{str(exc).splitlines()[0]}") from None
    if rebuild:
        new = dataclasses.replace(new, **rebuild)
    top = float(site_mod.storage_top_ft(new.stage_storage))
    if new.initial_stage_ft > top:
        raise InputError(f"{path}.initial_stage_ft must be <= the top of the storage "
                         f"({fmt_value(top)} ft); got {fmt_value(new.initial_stage_ft)}")
    for spec in new.outlet_spec:
        lvl = site_mod.device_level_ft(spec)
        if spec["type"] != "exfiltration" and lvl >= top:
            k = next(k for k in site_mod.LEVEL_KEYS if k in spec)
            raise InputError(f"{path}.outlet[{spec['id']}].{k} must be below the top of the "
                             f"storage ({fmt_value(top)} ft); got {fmt_value(lvl)}")
    return new
