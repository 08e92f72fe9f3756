"""Drainage-network topology: nodes that drain to one another, checked and ordered.

A scenario of a site is a tree of nodes (subcatchments, ponds, reaches, design points), each
draining to at most one downstream node (``to``). This module holds the pure graph logic the
site loader and the analysis share: validation (unknown targets, cycles, nodes that reach no
design point), topological order (upstream first) and the set of nodes upstream of each node.
No hydrology here.

Examples
--------
>>> edges = {"S-1": "P-1", "S-2": "DP-1", "P-1": "DP-1", "DP-1": None}
>>> topological_order(edges)
('S-1', 'S-2', 'P-1', 'DP-1')
>>> sorted(upstream_sets(edges)["DP-1"])
['DP-1', 'P-1', 'S-1', 'S-2']
>>> find_cycle({"A": "B", "B": "C", "C": "A"})
['A', 'B', 'C', 'A']
"""

from __future__ import annotations

import functools
from collections.abc import Mapping

__all__ = ["find_cycle", "topological_order", "upstream_sets", "terminal_of"]


def find_cycle(edges: Mapping[str, str | None]) -> list[str] | None:
    """Return one cycle as a closed list of node ids (first == last), or None.

    Parameters
    ----------
    edges : mapping
        ``{node: downstream node or None}``. Targets that are not keys are ignored here.
    """
    state: dict[str, int] = {}  # 1 on the current path, 2 finished
    for start in edges:
        if state.get(start):
            continue
        path: list[str] = []
        node: str | None = start
        while node is not None and node in edges and not state.get(node):
            state[node] = 1
            path.append(node)
            node = edges[node]
        if node is not None and state.get(node) == 1:
            i = path.index(node)
            return path[i:] + [node]
        for p in path:
            state[p] = 2
    return None


def topological_order(edges: Mapping[str, str | None]) -> tuple[str, ...]:
    """Node ids ordered so that every node comes after all nodes that drain to it.

    Ties keep the order of ``edges`` (stable, so results are deterministic).

    Raises
    ------
    ValueError
        If the graph has a cycle (validate with :func:`find_cycle` first).
    """
    indeg = {n: 0 for n in edges}
    for t in edges.values():
        if t is not None and t in indeg:
            indeg[t] += 1
    rank = {n: i for i, n in enumerate(edges)}
    ready = sorted((n for n, d in indeg.items() if d == 0), key=rank.__getitem__)
    order: list[str] = []
    import heapq

    heap = [(rank[n], n) for n in ready]
    heapq.heapify(heap)
    while heap:
        _, n = heapq.heappop(heap)
        order.append(n)
        t = edges[n]
        if t is not None and t in indeg:
            indeg[t] -= 1
            if indeg[t] == 0:
                heapq.heappush(heap, (rank[t], t))
    if len(order) != len(edges):
        raise ValueError("the drainage network has a cycle")
    return tuple(order)


def upstream_sets(edges: Mapping[str, str | None]) -> dict[str, frozenset[str]]:
    """``{node: every node draining to it, itself included}`` (cached by topology)."""
    return dict(_upstream_sets(tuple(edges.items())))


@functools.lru_cache(maxsize=1024)
def _upstream_sets(items: tuple) -> dict[str, frozenset[str]]:
    edges = dict(items)
    order = topological_order(edges)
    ups: dict[str, set[str]] = {n: {n} for n in edges}
    for n in order:
        t = edges[n]
        if t is not None and t in ups:
            ups[t] |= ups[n]
    return {n: frozenset(s) for n, s in ups.items()}


def terminal_of(edges: Mapping[str, str | None], node: str) -> str:
    """The last node reached by following ``to`` from ``node`` (acyclic graphs only)."""
    seen = set()
    while node not in seen:
        nxt = edges.get(node)
        if nxt is None:
            break
        seen.add(node)
        node = nxt
    return node
