r"""Parameter sweeps: one base site, many variants (CN +-, Tc +-, orifice sizes, storm depths).

A sweep file is a small TOML file beside (or pointing to) a site file::

    base = "../pelham/site.toml"   # the site file, relative to this file
    name = "pelham_sweep"          # optional; default: the file name without .toml
    combine = "grid"               # "grid" (default) or "zip"
    seed = 20240611                # required when an entry is sampled at random
    samples = 20                   # number of random draws (required with random entries)

    [[vary]]
    field = "post.subcatchment[*].cn"   # which value(s) of the site to change
    op = "add"                          # "set" (default), "add" or "scale"
    values = [-2.0, 0.0, 2.0]           # or range / linspace / uniform / normal / choice

    [[vary]]
    field = "post.pond[UG-1].outlet[OR-1].diameter_in"
    range = [3.0, 6.0, 0.5]             # start, stop (inclusive), step

:func:`load_sweep` validates the file and resolves every ``field`` against the base site
(unknown ids are errors with "did you mean"); :meth:`Sweep.scenario` gives the overrides of
scenario ``i`` and :func:`apply_overrides` builds the varied :class:`hydrocalc.site.Site`
(``dataclasses.replace`` on the loaded site: no file is re-read). See ``docs/batch.md`` for
the full format.

Fields
------
``pre|post|*`` selects the scenario; ``[id]`` selects a node (``[*]`` all of them):

==========================================================  =============================
Field                                                       Meaning
==========================================================  =============================
``<sc>.subcatchment[<id>].cn``                              curve number used [-]
``<sc>.subcatchment[<id>].tc_hr``                           time of concentration used [h]
``<sc>.subcatchment[<id>].area_ac``                         area [ac]
``<sc>.subcatchment[<id>].impervious_connected_ac``         [ac] (also ``..._unconnected_ac``)
``<sc>.pond[<id>].initial_stage_ft`` / ``count`` / ``rrv_credit_pct``
``<sc>.pond[<id>].outlet[<id>].<key>``                      any numeric key of the device
                                                            (``diameter_in``, ``invert_ft``,
                                                            ``length_ft``, ``crest_ft``, ``cd``...)
``<sc>.pond[<id>].barrel.<key>``                            barrel ``diameter_in`` ...
``<sc>.pond[<id>].storage[<i>].<key>``                      basin/drywell dimensions
                                                            (``bottom_length_ft``, ``depth_ft``...)
``<sc>.reach[<id>].lag_hr``                                 reach lag [h]
``storms.depths_in.<name>`` (``.*`` all)                    24-hour storm depth [in]
``storms.wqv_precip_in``, ``storms.distribution``           WQv rainfall [in]; distribution
``analysis.prf`` / ``ia_ratio`` / ``dt_hr`` / ``duration_hr``
``criteria.<numeric setting>``                              e.g. ``cpv_detention_hr``
==========================================================  =============================

``cn`` and ``tc_hr`` address the values the analysis uses (given in the file, or computed
from cover rows and Tc segments at load time); a varied value replaces them. Changing
``area_ac`` does not rescale cover rows or impervious areas.

Combination
-----------
Each ``[[vary]]`` entry is a list of values. Entries sharing a ``group`` name are zipped
(equal lengths, taken together); groups are combined as a full grid (cartesian product, the
last group varying fastest), or all zipped with ``combine = "zip"``. Random entries
(``uniform``, ``normal``, ``choice``) draw ``samples`` values each from
``numpy.random.default_rng(seed)`` in file order and form the group ``"random"`` unless they
name another. Overrides apply in file order, each to the value left by the previous one.

References
----------
.. [1] NumPy, "Random Generator" (PCG64 bit generator), numpy.random.default_rng.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import pathlib
import re
import tomllib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from hydrocalc._validate import fmt_value, suggest
from hydrocalc.errors import HydrocalcError, InputError

__all__ = [
    "Variation",
    "Target",
    "Sweep",
    "load_sweep",
    "parse_sweep",
    "is_sweep_document",
    "apply_overrides",
    "resolve_field",
    "OPS",
]

#: Ways a varied value combines with the base value.
OPS = ("set", "add", "scale")
_SCENARIOS = ("pre", "post")
_TOP_KEYS = ("base", "name", "description", "combine", "seed", "samples", "storms", "vary")
_VARY_KEYS = ("field", "op", "values", "range", "linspace", "uniform", "normal", "choice",
              "group", "label", "description")
_SOURCES = ("values", "range", "linspace", "uniform", "normal", "choice")
_RANDOM = ("uniform", "normal", "choice")

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

#: Most rebuilt nodes a :class:`Sweep` keeps for its scenarios (see :func:`apply_overrides`).
_NODE_CACHE_SIZE = 4096

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
    pos, out = 0, []
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


_FIELD_HELP = ("a field such as post.subcatchment[S-1].cn, post.subcatchment[*].tc_hr, "
               "post.pond[P-1].outlet[OR-1].diameter_in, post.pond[P-1].storage.depth_ft, "
               "post.reach[R-1].lag_hr, storms.depths_in.100yr or analysis.prf")


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
    from hydrocalc import site as site_mod

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
            sel = toks[2][0]
            picked = names if sel == "*" else _select(names, sel, "storm", where)
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
            required, optional = site_mod._OUTLET_FIELDS[kind]
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
                keys = [k for k in spec if k in _STORAGE_ATTRS]
                listed = ", ".join(keys) or "none: tables cannot be varied"
                raise InputError(f"{where} must end with a numeric key of the {spec.get('type')} "
                                 f"storage ({listed}); got {key!r}{suggest(key, keys)}")
        if not out:
            raise InputError(f"{where}: no storage item of pond {nid} has the key {key!r}")
        return out
    parts = ("outlet", "barrel", "storage", *_POND_ATTRS)
    raise InputError(f"{where} must continue a pond with outlet[..], barrel, storage or a pond "
                     f"key; got {name!r}{suggest(name, parts)}")


# ----------------------------------------------------------------------------------------
# applying overrides


def _bounds_text(b) -> str:
    lo, lo_inc, hi, hi_inc, integer = b
    left = "[" if lo_inc else "("
    right = "]" if hi is not None and hi_inc else ")"
    text = f"{left}{fmt_value(lo)}, {'inf' if hi is None else fmt_value(hi)}{right}"
    return ("an integer in " if integer else "in ") + text


def _check(value, b, label: str, how=("set", None, None)) -> float:
    """``value`` checked against bounds ``b``; ``how`` = (op, base, delta) for the message."""
    lo, lo_inc, hi, hi_inc, integer = b
    v = float(value)
    ok = math.isfinite(v)
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


def _outlet_bounds(site_mod, kind: str, key: str):
    required, optional = site_mod._OUTLET_FIELDS[kind]
    if key in required:
        if key == "angle_deg":
            return (0.0, False, 180.0, False, False)
        positive = key in site_mod._POSITIVE_OUTLET_KEYS
        return (0.0, not positive, None, True, False)
    lo, inc = optional[key]
    return (float(lo), inc, None, True, key == "end_contractions")


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
    from hydrocalc import site as site_mod

    nodes: dict[tuple[str, str], dict[str, Any]] = {}
    outlets: dict[tuple[str, str], list[dict]] = {}
    barrels: dict[tuple[str, str], dict] = {}
    storages: dict[tuple[str, str], list[dict]] = {}
    depths: dict[str, float] = {}
    storms: dict[str, Any] = {}
    options: dict[str, Any] = {}
    criteria: dict[str, Any] = {}

    for target, op, value in overrides:
        label = target.label
        kind = target.kind
        key = (target.scenario, target.node)
        if kind == "storm_depth":
            base = depths.get(target.attr, site.storms.depths_in[target.attr])
            new = _combine(op, base, value)
            depths[target.attr] = _check(new, (0.0, False, None, True, False), label,
                                         (op, base, value))
        elif kind == "storms":
            base = storms.get(target.attr, getattr(site.storms, target.attr))
            new = _combine(op, base, value)
            if target.attr == "distribution":
                storms[target.attr] = _check_distribution(new, label)
            else:
                storms[target.attr] = _check(new, _STORM_ATTRS[target.attr], label,
                                             (op, base, value))
        elif kind in ("analysis", "criteria"):
            store = options if kind == "analysis" else criteria
            obj = site.options if kind == "analysis" else site.criteria
            base = store.get(target.attr, getattr(obj, target.attr))
            if base is None and op != "set":
                raise InputError(f"{label} has no value in the base site to {op}; use op = "
                                 "\"set\"")
            new = _combine(op, base, value)
            bounds = (_ANALYSIS_ATTRS if kind == "analysis" else _CRITERIA_ATTRS)[target.attr]
            store[target.attr] = _check(new, bounds, label, (op, base, value))
        elif kind == "node":
            node = site.scenarios[target.scenario].nodes[target.node]
            changes = nodes.setdefault(key, {})
            base = changes.get(target.attr, getattr(node, target.attr))
            if base is None and op != "set":
                raise InputError(f"{label} has no value in the base site to {op}; use op = "
                                 "\"set\"")
            new = _combine(op, base, value)
            bounds = {"subcatchment": _SUB_ATTRS, "pond": _POND_ATTRS,
                      "reach": _REACH_ATTRS}[target.node_kind][target.attr]
            changes[target.attr] = _check(new, bounds, label, (op, base, value))
        elif kind == "outlet":
            node = site.scenarios[target.scenario].nodes[target.node]
            specs = outlets.setdefault(key, [dict(s) for s in node.outlet_spec])
            spec = specs[target.item]
            base = spec.get(target.attr)
            if base is None and op != "set":
                raise InputError(f"{label} has no value in the base site to {op}; use op = "
                                 "\"set\"")
            new = _combine(op, base, value)
            spec[target.attr] = _check(new, _outlet_bounds(site_mod, spec["type"], target.attr),
                                       label, (op, base, value))
        elif kind == "barrel":
            node = site.scenarios[target.scenario].nodes[target.node]
            spec = barrels.setdefault(key, dict(node.barrel_spec))
            base = spec.get(target.attr)
            if base is None and op != "set":
                raise InputError(f"{label} has no value in the base site to {op}; use op = "
                                 "\"set\"")
            new = _combine(op, base, value)
            spec[target.attr] = _check(new, _BARREL_ATTRS[target.attr], label,
                                       (op, base, value))
        elif kind == "storage":
            node = site.scenarios[target.scenario].nodes[target.node]
            specs = storages.setdefault(key, [dict(s) for s in node.storage_spec])
            spec = specs[target.item]
            base = spec[target.attr]
            new = _combine(op, base, value)
            spec[target.attr] = _check(new, _STORAGE_ATTRS[target.attr], label,
                                       (op, base, value))
        else:  # pragma: no cover - resolve_field only makes the kinds above
            raise AssertionError(kind)

    new_site = site
    if depths or storms:
        st = site.storms
        changes: dict[str, Any] = dict(storms)
        if depths:
            changes["depths_in"] = {**st.depths_in, **depths}
        new_site = dataclasses.replace(new_site, storms=dataclasses.replace(st, **changes))
    if options:
        new_site = dataclasses.replace(new_site, options=dataclasses.replace(site.options,
                                                                             **options))
    if criteria:
        new_site = dataclasses.replace(new_site, criteria=dataclasses.replace(site.criteria,
                                                                              **criteria))
    touched = {k for k in (*nodes, *outlets, *barrels, *storages)}
    if not touched:
        return new_site
    scenarios = dict(new_site.scenarios)
    for sc_name in {k[0] for k in touched}:
        sc = scenarios[sc_name]
        groups = {}
        for group, single in (("subcatchments", "subcatchment"), ("ponds", "pond"),
                              ("reaches", "reach")):
            items = []
            for n in getattr(sc, group):
                k = (sc_name, n.id)
                if k in touched:
                    args = (nodes.get(k, {}), outlets.get(k), barrels.get(k), storages.get(k))
                    ck = None
                    if node_cache is not None:  # repr: exact for numbers, types included
                        ck = (sc_name, n.id, id(n), repr(args))
                        hit = node_cache.get(ck)
                        if hit is not None and hit[0] is n:
                            items.append(hit[1])
                            continue
                    base = n
                    n = _rebuild_node(site_mod, n, *args, f"{sc_name}.{single}[{n.id}]")
                    if ck is not None:
                        if len(node_cache) >= _NODE_CACHE_SIZE:
                            node_cache.clear()
                        node_cache[ck] = (base, n)
                items.append(n)
            groups[group] = tuple(items)
        scenarios[sc_name] = dataclasses.replace(sc, **groups)
    return dataclasses.replace(new_site, scenarios=scenarios)


def _check_distribution(value, label: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{label} must be a distribution name such as \"III\"; got {value!r}")
    from hydrocalc import rainfall

    try:
        rainfall.design_storm(1.0, distribution=value, dt_hr=0.1)
    except HydrocalcError as exc:
        raise InputError(f"{label} must be a known distribution; got {value!r} "
                         f"({str(exc).splitlines()[0]})") from None
    return value


def _rebuild_node(site_mod, node, changes, outlet_specs, barrel_spec, storage_specs, path):
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
            objs = [site_mod._build_storage(s["type"], s) for s in storage_specs]
            rebuild["stage_storage"] = site_mod._combine_storage(objs)
            rebuild["storage_spec"] = tuple(storage_specs)
        if outlet_specs is not None:  # rebuild only the devices whose spec changed
            rebuild["outlets"] = tuple(
                dev if spec == old else site_mod._build_outlet(spec["type"], spec, spec["id"])
                for dev, spec, old in zip(node.outlets, outlet_specs, node.outlet_spec,
                                          strict=True))
            rebuild["outlet_spec"] = tuple(outlet_specs)
        if barrel_spec is not None:
            rebuild["barrel"] = site_mod._build_barrel(barrel_spec)
            rebuild["barrel_spec"] = barrel_spec
    except (HydrocalcError, TypeError, ValueError) as exc:
        raise InputError(f"{path} cannot be rebuilt with the varied values: "
                         f"{str(exc).splitlines()[0]}") from None
    if rebuild:
        new = dataclasses.replace(new, **rebuild)
    top = float(site_mod._top_stage(new.stage_storage))
    if new.initial_stage_ft > top:
        raise InputError(f"{path}.initial_stage_ft must be <= the top of the storage "
                         f"({fmt_value(top)} ft); got {fmt_value(new.initial_stage_ft)}")
    for spec in new.outlet_spec:
        lvl = site_mod._device_level(spec)
        if spec["type"] != "exfiltration" and lvl >= top:
            k = "invert_ft" if "invert_ft" in spec else "crest_ft"
            raise InputError(f"{path}.outlet[{spec['id']}].{k} must be below the top of the "
                             f"storage ({fmt_value(top)} ft); got {fmt_value(lvl)}")
    return new


# ----------------------------------------------------------------------------------------
# the sweep file


@dataclasses.dataclass(frozen=True)
class Variation:
    """One ``[[vary]]`` entry after validation: its targets, operation and values."""

    field: str
    op: str
    values: tuple
    group: str
    label: str
    targets: tuple[Target, ...]
    source: str  # "values", "range", ... (how the values were given)

    @property
    def column(self) -> str:
        """Name of the summary-table column holding this entry's value."""
        return self.label


@dataclasses.dataclass(frozen=True)
class Sweep:
    """A validated sweep: base site, variations and how they combine.

    Scenario ``i`` (0 <= i < :attr:`n_scenarios`) takes, for each group, the value at the
    ``i``-th position of the grid (mixed radix, last group fastest) or, with
    ``combine = "zip"``, position ``i`` of every entry.
    """

    path: pathlib.Path | None
    name: str
    base: pathlib.Path
    site: Any
    variations: tuple[Variation, ...]
    combine: str = "grid"
    seed: int | None = None
    samples: int | None = None
    storms: tuple[str, ...] | None = None
    description: str = ""
    where: str = "sweep.toml"  #: file name used in messages

    @functools.cached_property
    def _nodes(self) -> dict:
        """Rebuilt nodes shared by the scenarios (``node_cache`` of :func:`apply_overrides`)."""
        return {}

    @functools.cached_property
    def groups(self) -> tuple[tuple[str, tuple[int, ...]], ...]:
        """``((group name, indices of its variations), ...)`` in order of first appearance."""
        order: dict[str, list[int]] = {}
        for i, v in enumerate(self.variations):
            order.setdefault(v.group, []).append(i)
        return tuple((g, tuple(ix)) for g, ix in order.items())

    @functools.cached_property
    def group_sizes(self) -> tuple[int, ...]:
        """Number of values of each group."""
        return tuple(len(self.variations[ix[0]].values) for _, ix in self.groups)

    @functools.cached_property
    def n_scenarios(self) -> int:
        """Number of scenarios (product of group sizes; 1 with no variation)."""
        return int(math.prod(self.group_sizes))

    @property
    def width(self) -> int:
        """Digits of the zero-padded scenario labels."""
        return max(1, len(str(self.n_scenarios - 1)))

    def scenario_id(self, i: int) -> str:
        """Label of scenario ``i`` (``"00042"``)."""
        return f"{i:0{self.width}d}"

    def positions(self, i: int) -> tuple[int, ...]:
        """Position of scenario ``i`` in each group's value list."""
        n = self.n_scenarios
        if not 0 <= i < n:
            raise InputError(f"scenario index must be in [0, {n - 1}]; got {i}")
        out = []
        for size in reversed(self.group_sizes):
            out.append(i % size)
            i //= size
        return tuple(reversed(out))

    def values(self, i: int) -> dict[str, Any]:
        """``{column: value}`` of scenario ``i`` (one per variation)."""
        pos = self.positions(i)
        out = {}
        for (_, ix), p in zip(self.groups, pos, strict=True):
            for j in ix:
                v = self.variations[j]
                out[v.column] = v.values[p]
        return {self.variations[j].column: out[self.variations[j].column]
                for j in range(len(self.variations))}

    def overrides(self, i: int) -> list[tuple[Target, str, Any]]:
        """The ``(target, op, value)`` list of scenario ``i`` in file order."""
        vals = self.values(i)
        return [(t, v.op, vals[v.column]) for v in self.variations for t in v.targets]

    def scenario(self, i: int):
        """The :class:`hydrocalc.site.Site` of scenario ``i`` (raises InputError if invalid)."""
        try:
            return apply_overrides(self.site, self.overrides(i), node_cache=self._nodes)
        except InputError as exc:
            raise InputError(f"{self.where}: scenario {self.scenario_id(i)}: {exc}") from None

    def to_frame(self):
        """One row per scenario: ``scenario`` and one column per variation."""
        import pandas as pd

        rows = [{"scenario": self.scenario_id(i), **self.values(i)}
                for i in range(self.n_scenarios)]
        return pd.DataFrame(rows, columns=["scenario", *[v.column for v in self.variations]])


def is_sweep_document(doc: Mapping) -> bool:
    """True when a parsed TOML document is a sweep file (``base`` and no ``[project]``)."""
    return isinstance(doc, Mapping) and "base" in doc and "project" not in doc


def _number_list(x, path: str, problems: list[str], *, length: int | None = None) -> list | None:
    ok = isinstance(x, list) and all(isinstance(v, int | float) and not isinstance(v, bool)
                                     for v in x)
    if not ok or (length is not None and len(x) != length) or (length is None and not x):
        need = f"a list of {length} numbers" if length else "a non-empty list of numbers"
        problems.append(f"{path} must be {need}; got {x!r}")
        return None
    return [float(v) if isinstance(v, float) else v for v in x]


def _values_of(entry: Mapping, path: str, problems: list[str], rng_spec: list):
    given = [k for k in _SOURCES if k in entry]
    if len(given) != 1:
        problems.append(f"{path} must give exactly one of {', '.join(_SOURCES)}; got "
                        f"{', '.join(given) or 'none'}")
        return None, None
    src = given[0]
    x = entry[src]
    if src == "values":
        if isinstance(x, list) and x and all(isinstance(v, str) for v in x):
            return tuple(x), src
        vals = _number_list(x, f"{path}.values", problems)
        return (tuple(vals), src) if vals is not None else (None, None)
    if src == "range":
        v = _number_list(x, f"{path}.range", problems, length=3)
        if v is None:
            return None, None
        start, stop, step = (float(a) for a in v)
        if not step > 0 or stop < start:
            problems.append(f"{path}.range must be [start, stop, step] with step > 0 and stop >= "
                            f"start; got {x!r}")
            return None, None
        n = int(math.floor((stop - start) / step + 1e-9)) + 1
        if n > 1_000_000:
            problems.append(f"{path}.range must give at most 1,000,000 values; got {n}")
            return None, None
        return tuple(float(np.round(start + k * step, 12)) for k in range(n)), src
    if src == "linspace":
        v = _number_list(x, f"{path}.linspace", problems, length=3)
        if v is None:
            return None, None
        if not (isinstance(v[2], int) and v[2] >= 1 and v[2] <= 1_000_000):
            problems.append(f"{path}.linspace must be [start, stop, num] with an integer num in "
                            f"[1, 1000000]; got {x!r}")
            return None, None
        return tuple(float(a) for a in np.linspace(float(v[0]), float(v[1]), int(v[2]))), src
    # random sources: drawn later, in file order, once the seed is known
    if src == "uniform":
        v = _number_list(x, f"{path}.uniform", problems, length=2)
        if v is None or not v[0] < v[1]:
            if v is not None:
                problems.append(f"{path}.uniform must be [low, high] with low < high; got {x!r}")
            return None, None
    elif src == "normal":
        v = _number_list(x, f"{path}.normal", problems, length=2)
        if v is None or not v[1] >= 0:
            if v is not None:
                problems.append(f"{path}.normal must be [mean, standard deviation >= 0]; got "
                                f"{x!r}")
            return None, None
    else:  # choice
        if isinstance(x, list) and x and all(isinstance(s, str) for s in x):
            v = list(x)
        else:
            v = _number_list(x, f"{path}.choice", problems)
            if v is None:
                return None, None
    rng_spec.append((src, v))
    return ("random", len(rng_spec) - 1), src


def parse_sweep(doc: Mapping, *, where: str = "sweep.toml",
                base_dir: pathlib.Path | str | None = None,
                path: pathlib.Path | None = None, site=None) -> Sweep:
    """Validate a parsed sweep document and resolve it against its base site.

    Parameters
    ----------
    doc : mapping
        The parsed TOML document.
    where : str
        File name used as the prefix of each problem.
    base_dir : path-like, optional
        Folder that ``base`` is relative to (default: the working directory).
    path : pathlib.Path, optional
        The sweep file (stored on the result).
    site : hydrocalc.site.Site, optional
        The already loaded base site (default: loaded from ``base``).

    Returns
    -------
    Sweep

    Raises
    ------
    InputError
        Listing every problem, one per line (``sweep.toml: vary[1].field ...``); a base site
        with problems raises the site loader's error.
    """
    from hydrocalc.site import load_site

    problems: list[str] = []
    if not isinstance(doc, Mapping):
        raise InputError(f"{where}: the sweep file must be a TOML table; got {type(doc).__name__}")
    for k in doc:
        if k not in _TOP_KEYS:
            problems.append(f"{where}: unknown key {k}{suggest(str(k), _TOP_KEYS)}")
    base_raw = doc.get("base")
    if not isinstance(base_raw, str) or not base_raw:
        problems.append(f"{where}: base must be the path of the site file (relative to the sweep "
                        f"file); got {base_raw!r}")
    bdir = pathlib.Path(base_dir) if base_dir is not None else pathlib.Path.cwd()
    name = doc.get("name", path.stem if path is not None else "sweep")
    if not isinstance(name, str) or not name:
        problems.append(f"{where}: name must be a non-empty string; got {name!r}")
    combine = doc.get("combine", "grid")
    if combine not in ("grid", "zip"):
        problems.append(f"{where}: combine must be \"grid\" or \"zip\"; got {combine!r}")
    seed = doc.get("seed")
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or seed < 0):
        problems.append(f"{where}: seed must be a non-negative integer; got {seed!r}")
    samples = doc.get("samples")
    if samples is not None and (not isinstance(samples, int) or isinstance(samples, bool)
                                or samples < 1):
        problems.append(f"{where}: samples must be a positive integer; got {samples!r}")
    storm_sel = doc.get("storms")
    if storm_sel is not None and not (isinstance(storm_sel, list) and storm_sel
                                      and all(isinstance(s, str) for s in storm_sel)):
        problems.append(f"{where}: storms must be a non-empty list of storm names; got "
                        f"{storm_sel!r}")
        storm_sel = None
    description = doc.get("description", "")
    vary = doc.get("vary", [])
    if not isinstance(vary, list) or not all(isinstance(v, Mapping) for v in vary):
        problems.append(f"{where}: vary must be an array of tables ([[vary]]); got {vary!r}")
        vary = []
    if problems:
        raise InputError("\n".join(problems))

    base_path = (bdir / base_raw).resolve() if not pathlib.Path(base_raw).is_absolute() \
        else pathlib.Path(base_raw)
    if site is None:
        if not base_path.is_file():
            raise InputError(f"{where}: base must be an existing site file (relative to the "
                             f"sweep file); got {base_raw!r}")
        site = load_site(base_path)
    if storm_sel is not None:
        for s in storm_sel:
            if s not in site.storms.depths_in:
                problems.append(f"{where}: storms must name storms of the base site; got {s!r}"
                                f"{suggest(s, site.storms.names)} Available: "
                                f"{', '.join(site.storms.names)}")

    rng_spec: list = []
    entries = []
    labels_seen: set[str] = set()
    for i, e in enumerate(vary):
        p = f"{where}: vary[{i}]"
        for k in e:
            if k not in _VARY_KEYS:
                problems.append(f"{p}: unknown key {k}{suggest(str(k), _VARY_KEYS)}")
        field = e.get("field")
        targets = None
        if not isinstance(field, str):
            problems.append(f"{p}.field must be {_FIELD_HELP}; got {field!r}")
        else:
            try:
                targets = tuple(resolve_field(site, field))
            except InputError as exc:
                problems.append(f"{p}.field: {exc}")
        op = e.get("op", "set")
        if op not in OPS:
            problems.append(f"{p}.op must be one of {', '.join(OPS)}; got {op!r}"
                            f"{suggest(str(op), OPS)}")
        vals, src = _values_of(e, p, problems, rng_spec)
        is_random = src in _RANDOM
        group = e.get("group", "random" if is_random else f"#{i}")
        if not isinstance(group, str) or not group:
            problems.append(f"{p}.group must be a non-empty string; got {group!r}")
        label = e.get("label")
        if label is None and isinstance(field, str):
            label = field if op == "set" else f"{field}:{op}"
        if not isinstance(label, str) or not label:
            problems.append(f"{p}.label must be a non-empty string; got {label!r}")
        elif label in labels_seen:
            problems.append(f"{p}.label must be unique; got {label!r} twice (give label = ...)")
        else:
            labels_seen.add(label)
        if vals is not None and src in ("values", "choice"):
            text = all(isinstance(x, str) for x in e[src])
            if text and (op != "set" or targets is None or
                         any(t.attr != "distribution" for t in targets)):
                problems.append(f"{p}.{src} may hold text only for storms.distribution with "
                                f"op = \"set\"; got {e[src]!r}")
        entries.append((field, op, vals, group, label, targets, src))
    if rng_spec:
        if seed is None:
            problems.append(f"{where}: seed is required when a [[vary]] entry is random "
                            "(uniform, normal or choice); add seed = <integer>")
        if samples is None:
            problems.append(f"{where}: samples is required when a [[vary]] entry is random; "
                            "add samples = <number of draws>")
    if problems:
        raise InputError("\n".join(problems))

    draws = []
    if rng_spec:
        rng = np.random.default_rng(seed)
        for kind, spec in rng_spec:  # file order: adding an entry never changes earlier draws
            if kind == "uniform":
                d = rng.uniform(spec[0], spec[1], samples)
            elif kind == "normal":
                d = rng.normal(spec[0], spec[1], samples)
            else:
                d = np.asarray(spec, dtype=object)[rng.integers(0, len(spec), samples)]
            draws.append(tuple(x if isinstance(x, str) else float(x) for x in d))
    variations = []
    for field, op, vals, group, label, targets, src in entries:
        if vals[0] == "random" and len(vals) == 2 and isinstance(vals[1], int) and src in _RANDOM:
            vals = draws[vals[1]]
        if combine == "zip":
            group = "zip"
        variations.append(Variation(field=field, op=op, values=tuple(vals), group=group,
                                    label=label, targets=targets, source=src))
    sizes: dict[str, set] = {}
    for v in variations:
        sizes.setdefault(v.group, set()).add(len(v.values))
    for g, s in sizes.items():
        if len(s) > 1:
            what = "with combine = \"zip\", all entries" if combine == "zip" else \
                f"entries of group {g!r}"
            problems.append(f"{where}: {what} must have the same number of values; got "
                            f"{', '.join(str(n) for n in sorted(s))}")
    if problems:
        raise InputError("\n".join(problems))
    sweep = Sweep(path=path, name=name, base=base_path, site=site, variations=tuple(variations),
                  combine=combine, seed=seed, samples=samples,
                  storms=tuple(storm_sel) if storm_sel else None,
                  description=description if isinstance(description, str) else "",
                  where=where)
    if sweep.n_scenarios > 10_000_000:
        raise InputError(f"{where}: the sweep must have at most 10,000,000 scenarios; got "
                         f"{sweep.n_scenarios:,}. Use fewer values or random sampling")
    return sweep


def load_sweep(path, *, site=None) -> Sweep:
    """Read and validate the sweep file ``path`` (see the module docstring).

    Parameters
    ----------
    path : path-like
        The sweep TOML file; ``base`` resolves against its folder.
    site : hydrocalc.site.Site, optional
        The already loaded base site (skips reading it again).

    Returns
    -------
    Sweep

    Raises
    ------
    InputError
        Listing every problem of the sweep file, or the base site's problems.

    Examples
    --------
    >>> import pathlib
    >>> sw = load_sweep(pathlib.Path("tests/fixtures/batch/sweep_small.toml"))  # doctest: +SKIP
    >>> sw.n_scenarios                                                           # doctest: +SKIP
    12
    """
    p = pathlib.Path(path)
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"sweep file must be a readable file; got {str(path)!r} "
                         f"({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{p.name}: must be UTF-8 text; byte {exc.start} is not") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p.name}: TOML syntax error: {exc}") from None
    return parse_sweep(doc, where=p.name, base_dir=p.parent, path=p, site=site)
