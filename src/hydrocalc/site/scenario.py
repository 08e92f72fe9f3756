"""``[pre]`` and ``[post]``: the nodes of one scenario and the checks of its network.

Node ids are unique, every ``to`` names a pond, reach or design point, the network has no
cycle, every node drains to a design point and every receiver gets flow.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from hydrocalc._validate import suggest
from hydrocalc.schema_errors import under
from hydrocalc.site import network
from hydrocalc.site import rational as rational_site
from hydrocalc.site.files import _Ctx
from hydrocalc.site.model import _ID_RE, DesignPoint, Scenario
from hydrocalc.site.ponds import _check_backwater, _parse_pond
from hydrocalc.site.problems import _label, _Problems, _short
from hydrocalc.site.reaches import _parse_reach
from hydrocalc.site.subcatchments import _parse_subcatchment, _subcatchments_from_csv

# -- scenario -----------------------------------------------------------------------------

_SCENARIO_KEYS = ("subcatchment", "pond", "reach", "design_point", "subcatchments_csv",
                  "description")
_DP_KEYS = ("id", "to", "description")


def _parse_scenario(P: _Problems, name: str, m, ctx: _Ctx) -> Scenario | None:
    prefix = name
    if m is None:
        P.raw(f"{P.where}: [{name}] scenario is required; got nothing. "
              f"Add [[{name}.subcatchment]] and [[{name}.design_point]] entries.")
        return None
    if not isinstance(m, Mapping):
        P.add(prefix, f"must be a table; got {m!r}")
        return None
    n0 = len(P.items)
    P.unknown_keys(m, _SCENARIO_KEYS, prefix)
    desc = P.text(m, "description", prefix, default="") or ""
    sub_entries = list(P.tables(m, "subcatchment", prefix)) if "subcatchment" in m else []
    csv_failed = False
    if "subcatchments_csv" in m:
        raw = P.text(m, "subcatchments_csv", prefix)
        k_csv = len(P.items)
        if raw is not None:
            sub_entries += _subcatchments_from_csv(P, prefix, raw, ctx)
        csv_failed = raw is None or len(P.items) > k_csv
    if not sub_entries and not csv_failed:
        P.add(f"{prefix}.subcatchment", "must have at least one entry; got none.")
    subs, ponds, reaches, dps, rational = [], [], [], [], []
    seen: dict[str, str] = {}
    raw_nodes: dict[str, tuple[str, Any]] = {}  # id -> (kind, to) as written

    def claim(node_id, path, kind=None, entry=None):
        if node_id is None:
            return
        if entry is not None and node_id not in raw_nodes:
            to = entry.get("to")
            raw_nodes[node_id] = (kind, to if isinstance(to, str) else None)
        if not _ID_RE.match(node_id):
            P.add(f"{path}.id", f"must start with a letter or digit and contain only letters, "
                                f"digits, '_', '-' or '.'; got {node_id!r}")
        elif node_id in seen:
            P.add(f"{path}.id", f"must be unique within scenario {name}; got {node_id!r}, already "
                                f"used by {seen[node_id]}")
        else:
            seen[node_id] = path

    for i, e in enumerate(sub_entries):
        path = f"{prefix}.subcatchment[{_label(e, i)}]"
        claim(e.get("id") if isinstance(e.get("id"), str) else None, path, "subcatchment", e)
        method = e.get("method", "tr55")
        if method == "rational":

            rs = rational_site.parse_subcatchment(
                P, e, path, ctx, under(ctx.errors.get(name, []), (name, "subcatchment", i)))
            if rs is not None:
                rational.append(rs)
            continue
        if method != "tr55":
            P.add(f"{path}.method", f"must be one of tr55, rational; got {_short(method)}")
            continue
        s = _parse_subcatchment(P, {k: v for k, v in e.items() if k != "method"}, path, ctx)
        if s is not None:
            subs.append(s)
    for i, e in enumerate(P.tables(m, "pond", prefix) if "pond" in m else []):
        path = f"{prefix}.pond[{_label(e, i)}]"
        claim(e.get("id") if isinstance(e.get("id"), str) else None, path, "pond", e)
        p = _parse_pond(P, e, path, ctx)
        if p is not None:
            ponds.append(p)
    for i, e in enumerate(P.tables(m, "reach", prefix) if "reach" in m else []):
        path = f"{prefix}.reach[{_label(e, i)}]"
        claim(e.get("id") if isinstance(e.get("id"), str) else None, path, "reach", e)
        r = _parse_reach(P, e, path, ctx)
        if r is not None:
            reaches.append(r)
    dp_entries = P.tables(m, "design_point", prefix) if "design_point" in m else []
    if not dp_entries:
        P.add(f"{prefix}.design_point", "must have at least one entry; got none. Add "
                                        f"[[{prefix}.design_point]] with an id.")
    for i, e in enumerate(dp_entries):
        path = f"{prefix}.design_point[{_label(e, i)}]"
        claim(e.get("id") if isinstance(e.get("id"), str) else None, path, "design_point", e)
        k0 = len(P.items)
        P.unknown_keys(e, _DP_KEYS, path)
        did = P.text(e, "id", path, required=True)
        to = P.text(e, "to", path) if "to" in e else None
        d = P.text(e, "description", path, default="") or ""
        if len(P.items) == k0:
            dps.append(DesignPoint(id=did, to=to, description=d))
    if not csv_failed:  # with unread CSV rows the network is incomplete: no false alarms
        _check_topology(P, name, raw_nodes)
    _check_backwater(P, prefix, ponds)
    if len(P.items) > n0:
        return None
    return Scenario(name=name, subcatchments=tuple(subs), ponds=tuple(ponds),
                    reaches=tuple(reaches), design_points=tuple(dps), description=desc,
                    rational=tuple(rational))


def _check_topology(P: _Problems, name: str, raw: Mapping[str, tuple[str, str | None]]) -> None:
    """Targets exist and can receive flow; no cycle; every node reaches a design point."""
    kinds = {k: v[0] for k, v in raw.items()}

    def kp(nid):
        return f"{name}.{kinds[nid]}[{nid}]"

    edges: dict[str, str | None] = {}
    bad_target = False
    for nid, (_kind, to) in raw.items():
        edges[nid] = None
        if to is None:
            continue
        path = f"{kp(nid)}.to"
        if to == nid:
            P.add(path, f"must name another node; got {to!r} (drains to itself)")
            bad_target = True
        elif to not in raw:
            receivers = [k for k in raw if kinds[k] != "subcatchment"]
            P.add(path, f"must name a pond, reach or design point of scenario {name}; got "
                        f"{to!r}{suggest(to, receivers)} Valid: {', '.join(receivers)}")
            bad_target = True
        elif kinds[to] == "subcatchment":
            P.add(path, f"must name a pond, reach or design point; got subcatchment {to!r} "
                        "(subcatchments do not receive flow)")
            bad_target = True
        else:
            edges[nid] = to
    cycle = network.find_cycle(edges)
    if cycle:
        P.raw(f"{P.where}: {name} network has a cycle: {' -> '.join(cycle)}; every node must "
              f"drain downstream to a design point{P.line_of(kp(cycle[0]))}")
        return
    if bad_target:
        return
    for nid, (kind, to) in raw.items():
        if to is None and kind != "design_point":
            continue  # already reported: 'to' is required
        end = network.terminal_of(edges, nid)
        if kinds[end] != "design_point":
            P.add(kp(nid), f"drains nowhere: its flow path ends at {kinds[end]} {end!r}, not at "
                           "a design point. Set 'to' so it reaches a design point.")
    if any(to is None and kind != "design_point" for kind, to in raw.values()):
        return
    ups = network.upstream_sets(edges)
    for nid, kind in kinds.items():
        if kind != "subcatchment" and not any(kinds[u] == "subcatchment" for u in ups[nid]):
            P.add(kp(nid), "receives no flow: no subcatchment drains to it. Point a "
                           "subcatchment's 'to' at it or remove it.")
