"""``[pre]`` and ``[post]``: the nodes of one scenario and the checks of its network.

Node ids are unique, every ``to`` names a pond, reach or design point, the network has no
cycle, every node drains to a design point and every receiver gets flow.
"""

from __future__ import annotations

from collections.abc import Mapping

from hydrocalc._validate import suggest
from hydrocalc.schema_errors import FieldError, under
from hydrocalc.site import network, schema
from hydrocalc.site import rational as rational_site
from hydrocalc.site.files import _Ctx
from hydrocalc.site.model import _ID_RE, DesignPoint, Scenario
from hydrocalc.site.ponds import _check_backwater, _parse_pond
from hydrocalc.site.problems import _label, _Problems
from hydrocalc.site.reaches import _parse_reach
from hydrocalc.site.subcatchments import (
    _csv_errors,
    _parse_subcatchment,
    _subcatchments_from_csv,
    _write,
)

# -- scenario -----------------------------------------------------------------------------

#: The keys the loader reads: those of the declared model's tables.
_SCENARIO_KEYS = tuple(schema.Scenario.model_fields)
_DP_KEYS = tuple(schema.DesignPoint.model_fields)


def _tables(m: Mapping, key: str) -> list:
    """The entries of array of tables ``key`` (none when it is not one)."""
    v = m.get(key, [])
    return list(v) if isinstance(v, list) and all(isinstance(e, Mapping) for e in v) else []


def _mine(e: FieldError, m) -> bool:
    """A record of the scenario's own keys, TR-55 subcatchments and design points.

    Not of the keys inside its ponds and reaches, nor of its rational subcatchments (their
    parsers check them); of a subcatchment of an unknown method, only that.
    """
    if e.path[1:2] in (("pond",), ("reach",)) and len(e.path) > 2:
        return False
    entry = m["subcatchment"][e.path[2]] if e.path[1:2] == ("subcatchment",) and e.path[2:] \
        else {}
    method = entry.get("method", "tr55") if isinstance(entry, Mapping) else "tr55"
    return method == "tr55" or (method != "rational" and e.path[3:] == ("method",))


def _csv_entries(P: _Problems, name: str, m: Mapping, ctx: _Ctx, entries: list,
                 errors: list[FieldError]) -> bool:
    """Append the subcatchments of ``subcatchments_csv`` and the model's records of them.

    True when the CSV file could not be read (its rows are missing).
    """
    if "subcatchments_csv" not in m:
        return False
    k = len(P.items)
    failed = any(e.path[1:] == ("subcatchments_csv",) for e in errors)
    rows = [] if failed else _subcatchments_from_csv(P, name, m["subcatchments_csv"], ctx)
    errors += _csv_errors([entry for entry, _ in rows], (name, "subcatchment"), len(entries))
    for entry, line in rows:
        P.csv_lines[f"{name}.subcatchment[{_label(entry, len(entries))}]"] = line
        entries.append(entry)
    return failed or len(P.items) > k


def _parse_scenario(P: _Problems, name: str, m, ctx: _Ctx, errors: list[FieldError],
                    doc: Mapping) -> Scenario | None:
    """``[pre]`` or ``[post]``: its nodes and the checks of its network.

    Its keys, subcatchments and design points were checked by the declared model
    (``errors``, the records of this scenario); the CSV rows of ``subcatchments_csv`` are
    checked here by the same model.
    """
    if m is None:
        P.raw(f"{P.where}: [{name}] scenario is required; got nothing. "
              f"Add [[{name}.subcatchment]] and [[{name}.design_point]] entries.")
        return None
    n0 = len(P.items)
    records = errors  # every record of the scenario (the ponds' and reaches' too)
    errors = [e for e in errors if _mine(e, m) and not (
        e.path == (name, "design_point") and e.error.get("type") in ("missing", "too_short"))]
    if not isinstance(m, Mapping):
        _write(P, errors, doc)
        return None
    entries = _tables(m, "subcatchment")
    csv_failed = _csv_entries(P, name, m, ctx, entries, errors)
    _write(P, errors, {name: {**m, "subcatchment": entries}})
    if not entries and not csv_failed:
        P.add(f"{name}.subcatchment", "must have at least one entry; got none.")
    if not _tables(m, "design_point"):
        P.add(f"{name}.design_point", "must have at least one entry; got none. Add "
                                      f"[[{name}.design_point]] with an id.")
    nodes = [(kind, i, e) for kind, rows in (
        ("subcatchment", entries), ("pond", _tables(m, "pond")), ("reach", _tables(m, "reach")),
        ("design_point", _tables(m, "design_point"))) for i, e in enumerate(rows)]
    raw_nodes = _check_ids(P, name, nodes)
    built = _build_nodes(P, name, nodes, ctx, errors, records, m)
    if not csv_failed:  # with unread CSV rows the network is incomplete: no false alarms
        _check_topology(P, name, raw_nodes)
    _check_backwater(P, name, built["pond"])
    if len(P.items) > n0:
        return None
    return Scenario(name=name, subcatchments=tuple(built["subcatchment"]),
                    ponds=tuple(built["pond"]), reaches=tuple(built["reach"]),
                    design_points=tuple(built["design_point"]),
                    description=m.get("description", ""), rational=tuple(built["rational"]))


def _check_ids(P: _Problems, name: str, nodes: list) -> dict[str, tuple[str, str | None]]:
    """Node ids are unique; returns each node's kind and ``to`` as written, by id."""
    seen: dict[str, str] = {}
    raw: dict[str, tuple[str, str | None]] = {}
    for kind, i, e in nodes:
        nid, path, to = e.get("id"), f"{name}.{kind}[{_label(e, i)}]", e.get("to")
        if not isinstance(nid, str):
            continue
        raw.setdefault(nid, (kind, to if isinstance(to, str) else None))
        if not _ID_RE.match(nid):
            if e.get("method") == "rational":  # the others: the model's records
                P.add(f"{path}.id", f"must start with a letter or digit and contain only "
                                    f"letters, digits, '_', '-' or '.'; got {nid!r}")
        elif nid in seen:
            P.add(f"{path}.id", f"must be unique within scenario {name}; got {nid!r}, already "
                                f"used by {seen[nid]}")
        else:
            seen[nid] = path
    return raw


def _build_nodes(P: _Problems, name: str, nodes: list, ctx: _Ctx,
                 errors: list[FieldError], records: list[FieldError], m: Mapping) -> dict:
    """The nodes of a scenario by kind, as their parsers build them.

    ``errors`` are the declared model's records of the scenario's own tables (a node with
    one is not built); ``records`` all of its records, the ponds' and reaches' included.
    """
    built: dict[str, list] = {k: [] for k in ("subcatchment", "rational", "pond", "reach",
                                              "design_point")}
    for kind, i, e in nodes:
        path, method = f"{name}.{kind}[{_label(e, i)}]", e.get("method", "tr55")
        faults = [f.path[3:] for f in errors if f.path[:3] == (name, kind, i)]
        node: object
        if kind == "subcatchment" and method == "rational":
            kind, node = "rational", rational_site.parse_subcatchment(
                P, e, path, ctx, under(records, (name, "subcatchment", i)))
        elif kind == "subcatchment" and method == "tr55":
            node = _parse_subcatchment(P, e, path, ctx, faults)
        elif kind in ("pond", "reach"):
            node = (_parse_pond if kind == "pond" else _parse_reach)(
                P, e, path, ctx, under(records, (name, kind, i)), {name: m})
        else:
            node = (DesignPoint(**{k: e[k] for k in _DP_KEYS if k in e})
                    if kind == "design_point" and not faults else None)
        if node is not None:
            built[kind].append(node)
    return built


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
