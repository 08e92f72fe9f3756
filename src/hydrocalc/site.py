r"""The site file: one validated TOML description of a site analysed before and after development.

:func:`load_site` reads ``site.toml`` (stdlib :mod:`tomllib`) and any CSV files beside it,
checks **everything**, and either returns a :class:`Site` or raises one
:class:`~hydrocalc.errors.InputError` whose message lists every problem, one per line::

    site.toml: post.subcatchment[S-2].area_ac must be > 0; got -3 (line 41)
    site.toml: unknown key post.pond[P-1].outlet[0].diameter_ft; did you mean 'diameter_in'? (line 57)
    site.toml: post.design_point[DP-2] is missing from scenario pre; every design point must be in both scenarios (line 63)

The schema is documented field by field in ``docs/site_file.md``. Sections:

``[project]`` and ``[construction]``
    Parsed by :func:`hydrocalc.project.parse_project` / :func:`~hydrocalc.project.parse_construction`.
``[storms]``
    Design-storm depths by name (``"10yr"``), their distribution, or a file in
    ``design_storms/``; and the 90 % rainfall depth for the water-quality volume.
``[analysis]``
    Computation options (time step, peak rate factor, Ia/S ratio).
``[criteria]``
    NY SMDM unified sizing-criteria settings (see :mod:`hydrocalc.criteria.ny`).
``[pre]`` and ``[post]``
    The two scenarios: ``[[pre.subcatchment]]``, ``[[pre.pond]]``, ``[[pre.reach]]``,
    ``[[pre.design_point]]`` (and the same under ``post``). A reach is a lag (``lag_hr``)
    or a routed pipe/channel (``section``, :mod:`hydrocalc.conveyance`); a subcatchment with
    ``method = "rational"`` is parsed by :mod:`hydrocalc.rational_site`.
``[rational]``
    Intensity source of rational-method subcatchments (:mod:`hydrocalc.rational_site`).

The loader is split so that a parsed site can be analysed repeatedly with varied fields
(parameter sweeps): :func:`parse_site` turns a parsed TOML mapping into a :class:`Site`;
every container is a frozen dataclass, so ``dataclasses.replace`` and
:meth:`Site.replace_node` produce variants without re-reading files.

Symbols
-------
============================  ==============================================  ======
Name                          Meaning                                         Unit
============================  ==============================================  ======
``area_ac``                   subcatchment drainage area                      ac
``cn``                        runoff curve number (TR-55 Tables 2-2a..d)      -
``tc_hr``                     time of concentration                           h
``impervious_connected_ac``   directly connected impervious area              ac
``impervious_unconnected_ac`` unconnected impervious area (TR-55 Fig. 2-4)    ac
``lag_hr``                    reach translation time                          h
``slope_ftft``                bed slope of a routed reach                     ft/ft
``n``                         Manning's n of a routed reach                   -
``c``                         rational runoff coefficient (HEC-22 Table 3-1)  -
``wqv_precip_in``             90 % rainfall event depth (SMDM Fig. 4.1)       in
``depths_in``                 24-hour design-storm depths by storm name       in
============================  ==============================================  ======

References
----------
.. [1] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds," Technical
   Release 55, 2nd ed., 1986 (curve numbers, Figs. 2-3 and 2-4, travel time).
.. [2] New York State Department of Environmental Conservation, "New York State Stormwater
   Management Design Manual," Albany, NY, 2015, Chapter 4 (unified sizing criteria).
"""

from __future__ import annotations

import contextvars
import csv
import dataclasses
import functools
import hashlib
import math
import pathlib
import re
import tomllib
import warnings
from collections.abc import Mapping
from typing import Any

from hydrocalc import network
from hydrocalc._validate import (
    confined_path,
    excerpt,
    fmt_value,
    number_problem,
    suggest,
    text_problem,
)
from hydrocalc.errors import HydrocalcError, InputError, RangeWarning
from hydrocalc.units import FT2_PER_AC

__all__ = [
    "Cover",
    "TcSegment",
    "Subcatchment",
    "Pond",
    "Reach",
    "DesignPoint",
    "Scenario",
    "Storms",
    "CriteriaSettings",
    "AnalysisOptions",
    "Site",
    "SCENARIOS",
    "load_site",
    "parse_site",
    "check_site",
    "site_problems",
]

#: The two scenarios every site file has.
SCENARIOS = ("pre", "post")
HSGS = ("A", "B", "C", "D")
_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$")
_STORM_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")

# ----------------------------------------------------------------------------------------
# containers


@dataclasses.dataclass(frozen=True)
class Cover:
    """One land-cover row of a subcatchment (pervious part, TR-55 Tables 2-2a..d).

    ``cn`` is the table value for ``cover`` and ``hsg`` (or the value given in the file,
    then ``cn_given`` is True).
    """

    cover: str
    hsg: str
    area_ac: float
    cn: float
    condition: str | None = None
    cn_given: bool = False


@dataclasses.dataclass(frozen=True)
class TcSegment:
    """One flow-path segment of a time-of-concentration computation (TR-55 Ch. 3).

    ``type`` is ``"sheet"``, ``"shallow"`` or ``"channel"``; ``travel_time_hr`` is the
    computed travel time of the segment.
    """

    type: str
    length_ft: float
    slope_ftft: float
    n: float | None = None
    surface: str | None = None
    p2_in: float | None = None
    area_ft2: float | None = None
    wetted_perimeter_ft: float | None = None
    max_length_ft: float | None = None
    travel_time_hr: float = math.nan


@dataclasses.dataclass(frozen=True)
class Subcatchment:
    """A subcatchment: area, curve number and Tc, draining to node ``to``.

    ``cn`` and ``tc_hr`` are the values the analysis uses (given, or computed from
    ``covers`` and ``tc_segments`` at load time). Replace them with
    :func:`dataclasses.replace` to vary a site.
    """

    id: str
    to: str
    area_ac: float
    cn: float
    tc_hr: float
    impervious_connected_ac: float = 0.0
    impervious_unconnected_ac: float = 0.0
    impervious_hsg: str | None = None
    covers: tuple[Cover, ...] = ()
    tc_segments: tuple[TcSegment, ...] = ()
    pervious_cn: float | None = None
    cn_method: str = "given"
    tc_method: str = "given"
    description: str = ""

    def __post_init__(self):
        # the site loader's rules, for subcatchments built or varied from Python too
        problems = []
        for key, rule in (("area_ac", dict(lower=0.0, lower_inclusive=False)),
                          ("cn", dict(lower=0.0, lower_inclusive=False, upper=100.0)),
                          ("tc_hr", dict(lower=0.0, lower_inclusive=False, upper=100.0)),
                          ("impervious_connected_ac", dict(lower=0.0)),
                          ("impervious_unconnected_ac", dict(lower=0.0))):
            bad = number_problem(getattr(self, key), **rule)
            if bad:
                problems.append(f"{key} {bad}")
        if not problems and self.impervious_ac > self.area_ac * (1 + 1e-9):
            problems.append(f"impervious_connected_ac plus impervious_unconnected_ac must be <= "
                            f"area_ac ({fmt_value(self.area_ac)}); got "
                            f"{fmt_value(self.impervious_ac)}")
        if problems:
            raise InputError("\n".join(f"subcatchment {self.id}: {p}" for p in problems))

    @property
    def impervious_ac(self) -> float:
        """Total impervious area, connected plus unconnected. [ac]"""
        return self.impervious_connected_ac + self.impervious_unconnected_ac

    @property
    def impervious_pct(self) -> float:
        """Impervious share of the subcatchment area. [%]"""
        return 100.0 * self.impervious_ac / self.area_ac

    @property
    def kind(self) -> str:
        return "subcatchment"


@dataclasses.dataclass(frozen=True)
class Pond:
    """A storage node: stage-storage relation and outlet devices (in parallel).

    ``count`` identical units (e.g. leaching pools) share the inflow equally; the analysis
    routes one unit with ``inflow / count`` and multiplies its outflow and storage by
    ``count``. Flow through :class:`hydrocalc.outlets.Exfiltration` devices leaves the
    network (to groundwater); every other device discharges to ``to``.
    """

    id: str
    to: str
    stage_storage: Any
    outlets: tuple[Any, ...]
    outlet_ids: tuple[str, ...]
    outlet_types: tuple[str, ...]
    initial_stage_ft: float = 0.0
    count: int = 1
    rrv_credit_pct: float | None = None
    storage_spec: tuple[Mapping, ...] = ()
    outlet_spec: tuple[Mapping, ...] = ()
    barrel: Any = None
    barrel_spec: Mapping | None = None
    description: str = ""
    bottom_elevation_ft: float | None = None
    tailwater: Any = None
    tailwater_spec: Any = None
    flap_gate: bool = False
    backwater: bool = False

    @property
    def kind(self) -> str:
        return "pond"

    @property
    def tailwater_kind(self) -> str:
        """"free", "constant" or "series" (the tailwater at the pond's outlets)."""
        if self.backwater:
            return "interconnected"
        if self.tailwater is None:
            return "free"
        return "constant" if isinstance(self.tailwater, float) else "series"

    def tailwater_level_ft(self, stage_ft):
        """A stage (array) above the pond bottom as a level in the file's frame (elevation
        when the pond has ``bottom_elevation_ft``)."""
        return stage_ft + (self.bottom_elevation_ft or 0.0)

    def structure(self):
        """Outlet devices as one :class:`hydrocalc.outlets.OutletStructure` for routing.

        Devices other than exfiltration discharge through ``barrel`` when one is given.
        """
        from hydrocalc.outlets import OutletStructure

        primary = [d for d, t in zip(self.outlets, self.outlet_types, strict=True)
                   if t != "exfiltration"]
        discarded = [d for d, t in zip(self.outlets, self.outlet_types, strict=True)
                     if t == "exfiltration"]
        parts = list(discarded)
        if primary:
            if self.barrel is not None:
                parts.insert(0, OutletStructure(primary, barrel=self.barrel, name="riser"))
            else:
                parts = primary + parts
        return OutletStructure(parts, name=self.id)

    @property
    def surface_outlet_invert_ft(self) -> float:
        """Lowest invert/crest of the devices that discharge downstream (inf if none). [ft]"""
        levels = [
            _device_level(spec)
            for spec, t in zip(self.outlet_spec, self.outlet_types, strict=True)
            if t != "exfiltration"
        ]
        return min(levels) if levels else math.inf


@dataclasses.dataclass(frozen=True)
class Reach:
    """A reach: a pure lag (``lag_hr``, shape unchanged) or a routed pipe or channel.

    With ``conveyance`` (a :class:`hydrocalc.conveyance.Conveyance`) the analysis routes the
    inflow by variable-parameter Muskingum-Cunge (:func:`hydrocalc.conveyance.route_conveyance`,
    NEH 630 Ch. 17); ``lag_hr`` must then be 0. ``conveyance_spec`` echoes the site-file
    fields (section, dimensions, length, slope, n).
    """

    id: str
    to: str
    lag_hr: float = 0.0
    description: str = ""
    conveyance: Any = None
    conveyance_spec: Mapping | None = None

    def __post_init__(self):
        if self.conveyance is not None and self.lag_hr != 0.0:
            raise InputError(f"reach {self.id}: lag_hr and a routed section must not both be "
                             f"given; got lag_hr = {fmt_value(self.lag_hr)} and a "
                             f"{(self.conveyance_spec or {}).get('section', 'conveyance')} "
                             "section. Keep one")

    @property
    def kind(self) -> str:
        return "reach"

    @property
    def routing(self) -> str:
        """``"lag"`` (pure translation) or ``"muskingum_cunge"`` (a routed pipe or channel)."""
        return "lag" if self.conveyance is None else "muskingum_cunge"


@dataclasses.dataclass(frozen=True)
class DesignPoint:
    """A point where pre- and post-development flows are compared."""

    id: str
    to: str | None = None
    description: str = ""

    @property
    def kind(self) -> str:
        return "design_point"


@dataclasses.dataclass(frozen=True)
class Scenario:
    """One scenario (``pre`` or ``post``): a drainage network of nodes."""

    name: str
    subcatchments: tuple[Subcatchment, ...]
    ponds: tuple[Pond, ...] = ()
    reaches: tuple[Reach, ...] = ()
    design_points: tuple[DesignPoint, ...] = ()
    description: str = ""
    #: ``method = "rational"`` subcatchments (:class:`hydrocalc.rational_site.RationalSubcatchment`);
    #: nodes of kind "subcatchment", not in ``subcatchments`` (they have no CN).
    rational: tuple = ()

    @functools.cached_property
    def nodes(self) -> dict[str, Any]:
        """``{id: node}`` of every node in file order."""
        out: dict[str, Any] = {}
        for group in (self.subcatchments, self.rational, self.ponds, self.reaches,
                      self.design_points):
            for node in group:
                out[node.id] = node
        return out

    @functools.cached_property
    def edges(self) -> dict[str, str | None]:
        """``{id: downstream id or None}``."""
        return {n.id: n.to for n in self.nodes.values()}

    @functools.cached_property
    def order(self) -> tuple[str, ...]:
        """Node ids, upstream first (topological order)."""
        return network.topological_order(self.edges)

    @functools.cached_property
    def upstream(self) -> dict[str, frozenset[str]]:
        """``{id: ids of every node draining to it, itself included}``."""
        return network.upstream_sets(self.edges)

    def upstream_subcatchments(self, node_id: str) -> tuple[Subcatchment, ...]:
        """Subcatchments that drain (directly or through other nodes) to ``node_id``."""
        ups = self.upstream[node_id]
        return tuple(s for s in self.subcatchments if s.id in ups)

    @property
    def area_ac(self) -> float:
        """Total area of the scenario's subcatchments, rational ones included. [ac]"""
        return sum(s.area_ac for s in self.subcatchments) + sum(s.area_ac for s in self.rational)

    @property
    def impervious_ac(self) -> float:
        """Total impervious area of the scenario's subcatchments. [ac]"""
        return sum(s.impervious_ac for s in self.subcatchments)


@dataclasses.dataclass(frozen=True)
class Storms:
    """Design storms: 24-hour depths by storm name and their distribution.

    ``depths_in`` keeps the file order (``{"1yr": 2.8, "10yr": 5.0, ...}``).
    """

    distribution: str
    depths_in: dict[str, float]
    wqv_precip_in: float
    wqv_precip_source: str
    source: str = ""
    file: pathlib.Path | None = None
    warnings: tuple[str, ...] = ()
    duration_hr: float = 24.0
    rain_dt_hr: float = 0.1

    @property
    def names(self) -> tuple[str, ...]:
        """Storm names in file order."""
        return tuple(self.depths_in)


@dataclasses.dataclass(frozen=True)
class CriteriaSettings:
    """``[criteria]``: which NY SMDM unified sizing criteria to evaluate, and how.

    See ``docs/site_file.md`` and :mod:`hydrocalc.criteria.ny` for each field.
    """

    standard: str = "ny_smdm"
    cpv_storm: str = "1yr"
    qp_storm: str = "10yr"
    qf_storm: str = "100yr"
    min_rv_rule: str = "if_wqv_exceeds_rrv"
    rrv_factors: str = "smdm_2015_unverified"
    rrv_specific_reduction_factor: dict[str, float] | None = None
    new_impervious_ac_by_hsg: dict[str, float] | None = None
    wqv_area_ac: float | None = None
    wqv_impervious_ac: float | None = None
    rrv_provided_acft: float = 0.0
    rrv_provided_note: str = ""
    wqv_provided_acft: float = 0.0
    wqv_provided_note: str = ""
    cpv_detention_hr: float = 24.0
    cpv_rainfall_type: str | None = None
    cpv_orifice_cd: float = 0.6
    cpv_orifice_head_ft: float | None = None
    waived: dict[str, str] = dataclasses.field(default_factory=dict)
    #: ``[[criteria.practice]]``: runoff-reduction practices (:mod:`hydrocalc.practices`).
    practices: tuple = ()
    #: ``[criteria.redevelopment]`` (:mod:`hydrocalc.criteria.ny_redevelopment`) or None.
    redevelopment: Any = None


@dataclasses.dataclass(frozen=True)
class AnalysisOptions:
    """``[analysis]``: computation options."""

    dt_hr: float = 0.01
    prf: float = 484.0
    ia_ratio: float = 0.2
    duration_hr: float | None = None
    area_tolerance_pct: float = 1.0


@dataclasses.dataclass(frozen=True)
class Site:
    """A validated site: project facts, design storms, criteria settings and two scenarios."""

    name: str
    project: Any
    storms: Storms
    scenarios: dict[str, Scenario]
    criteria: CriteriaSettings = dataclasses.field(default_factory=CriteriaSettings)
    options: AnalysisOptions = dataclasses.field(default_factory=AnalysisOptions)
    construction: Any = None
    path: pathlib.Path | None = None
    input_files: dict[str, str] = dataclasses.field(default_factory=dict)
    notes: tuple[str, ...] = ()
    confirmations: dict[str, str] = dataclasses.field(default_factory=dict)
    #: ``[rational]`` (:class:`hydrocalc.rational_site.RationalSettings`) or None.
    rational: Any = None

    @property
    def pre(self) -> Scenario:
        return self.scenarios["pre"]

    @property
    def post(self) -> Scenario:
        return self.scenarios["post"]

    @property
    def design_point_ids(self) -> tuple[str, ...]:
        """Design points (post scenario order)."""
        return tuple(d.id for d in self.post.design_points)

    def replace_node(self, scenario: str, node_id: str, **changes) -> Site:
        """Return a copy of the site with fields of one node replaced.

        Examples
        --------
        ``site.replace_node("post", "S-1", cn=80.0)``;
        ``site.replace_node("post", "P-1", outlets=(CircularOrifice(3.0, 0.0),))``.
        """
        if scenario not in self.scenarios:
            raise InputError(
                f"scenario must be one of {', '.join(self.scenarios)}; got {scenario!r}"
            )
        sc = self.scenarios[scenario]
        if node_id not in sc.nodes:
            raise InputError(
                f"node must be a node of scenario {scenario}; got {node_id!r}"
                f"{suggest(node_id, sc.nodes)}"
            )
        groups = {}
        for field in ("subcatchments", "rational", "ponds", "reaches", "design_points"):
            nodes = getattr(sc, field)
            groups[field] = tuple(
                dataclasses.replace(n, **changes) if n.id == node_id else n for n in nodes
            )
        new_sc = dataclasses.replace(sc, **groups)
        return dataclasses.replace(self, scenarios={**self.scenarios, scenario: new_sc})

    def with_storm_depths(self, **depths_in: float) -> Site:
        """Return a copy with some design-storm depths replaced (``**{"10yr": 5.2}``)."""
        unknown = [k for k in depths_in if k not in self.storms.depths_in]
        if unknown:
            raise InputError(
                f"storm must be one of {', '.join(self.storms.names)}; got {unknown[0]!r}"
                f"{suggest(unknown[0], self.storms.names)}"
            )
        storms = dataclasses.replace(
            self.storms, depths_in={**self.storms.depths_in, **{k: float(v) for k, v in depths_in.items()}}
        )
        return dataclasses.replace(self, storms=storms)

    def _repr_html_(self) -> str:
        from hydrocalc import display

        return display.html(self)

    def __repr__(self) -> str:
        from hydrocalc import display

        return display.text(self)


# ----------------------------------------------------------------------------------------
# key -> line scanner (tomllib reports line numbers only for syntax errors)


class _Block:
    __slots__ = ("parent", "name", "index", "id", "is_array", "keys", "line")

    def __init__(self, parent, name, index, is_array, line):
        self.parent, self.name, self.index = parent, name, index
        self.is_array, self.line = is_array, line
        self.id = None
        self.keys: dict[str, int] = {}

    def label(self) -> str:
        if self.parent is None:
            return ""
        base = self.parent.label()
        own = self.name
        if self.is_array:
            own += f"[{self.id if self.id is not None else self.index}]"
        return f"{base}.{own}" if base else own


_HEADER_RE = re.compile(r"^\[(\[?)\s*([^\[\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY_RE = re.compile(r"""^("[^"]*"|'[^']*'|[A-Za-z0-9_\-]+(?:\s*\.\s*[A-Za-z0-9_\-]+)*)\s*=\s*(.*)$""")
_ID_VALUE_RE = re.compile(r"""^("([^"]*)"|'([^']*)')""")


def _split_key(raw: str) -> list[str]:
    parts = re.findall(r""""[^"]*"|'[^']*'|[^.\s]+""", raw)
    return [p.strip("\"'") for p in parts]


def key_lines(text: str) -> dict[str, int]:
    """Map each key path of a TOML text to its line number (1-based).

    Paths use the loader's labels: array-of-tables entries are labelled by their ``id``
    value when they have one (``post.subcatchment[S-2].area_ac``), otherwise by index.
    Table headers map to their own line (``post.pond[P-1]``). Best effort: only simple
    ``key = value`` lines are recognised.

    Examples
    --------
    >>> text = '[[post.subcatchment]]\\nid = "S-2"\\narea_ac = -3\\n'
    >>> key_lines(text)["post.subcatchment[S-2].area_ac"]
    3
    """
    root = _Block(None, "", 0, False, 0)
    latest: dict[tuple[str, ...], _Block] = {}
    counts: dict[tuple[int, str], int] = {}
    blocks = [root]
    cur = root
    in_multiline = None
    for lineno, raw in enumerate(text.splitlines(), 1):
        s = raw.strip()
        if in_multiline:
            if in_multiline in s:
                in_multiline = None
            continue
        if not s or s.startswith("#"):
            continue
        m = _HEADER_RE.match(s)
        if m and not _KEY_RE.match(s):
            is_array = bool(m.group(1))
            parts = _split_key(m.group(2))
            parent = root
            for i in range(len(parts) - 1):
                prefix = tuple(parts[: i + 1])
                blk = latest.get(prefix)
                if blk is None:
                    blk = _Block(parent, parts[i], 0, False, lineno)
                    latest[prefix] = blk
                    blocks.append(blk)
                parent = blk
            full = tuple(parts)
            if is_array:
                key = (id(parent), parts[-1])
                idx = counts.get(key, 0)
                counts[key] = idx + 1
                blk = _Block(parent, parts[-1], idx, True, lineno)
            else:
                blk = latest.get(full) or _Block(parent, parts[-1], 0, False, lineno)
                blk.line = lineno
            for k in [k for k in latest if len(k) > len(full) and k[: len(full)] == full]:
                del latest[k]
            latest[full] = blk
            blocks.append(blk)
            cur = blk
            continue
        m = _KEY_RE.match(s)
        if m:
            keyparts = _split_key(m.group(1))
            value = m.group(2)
            if value.startswith(('"""', "'''")) and value.count(value[:3]) == 1:
                in_multiline = value[:3]
            cur.keys[".".join(keyparts)] = lineno
            if keyparts == ["id"] and cur.is_array:
                mv = _ID_VALUE_RE.match(value)
                if mv:
                    cur.id = mv.group(2) if mv.group(2) is not None else mv.group(3)
    out: dict[str, int] = {}
    for blk in blocks:
        label = blk.label()
        if label:
            out.setdefault(label, blk.line)
        for k, ln in blk.keys.items():
            out[f"{label}.{k}" if label else k] = ln
    return out


# ----------------------------------------------------------------------------------------
# problem collection


def _short(value) -> str:
    """A value for a message: its repr, shortened and escaped (never a whole file)."""
    return excerpt(repr(value), 60)


class _Problems:
    """Collects one-line problems ``<where>: <path> <text>[ (line n)]``."""

    def __init__(self, where: str, lines: Mapping[str, int] | None = None):
        self.where = where
        self.lines = dict(lines or {})
        self.items: list[str] = []
        self.csv_lines: dict[str, str] = {}

    def line_of(self, path: str) -> str:
        """`` (line n)`` of ``path`` or of its closest enclosing table; '' if unknown."""
        p = path
        while p:
            if p in self.csv_lines:
                return f" ({self.csv_lines[p]})"
            if p in self.lines:
                return f" (line {self.lines[p]})"
            m = re.match(r"^(.*?)(\.[^.\[\]]+|\[[^\[\]]*\])$", p)
            if not m:
                break
            p = m.group(1)
        return ""

    def add(self, path: str, text: str) -> None:
        self.items.append(f"{self.where}: {path} {text}{self.line_of(path)}")

    def raw(self, line: str) -> None:
        self.items.append(line)

    def unknown_keys(self, mapping: Mapping, allowed, prefix: str) -> None:
        allowed = tuple(allowed)
        for key in mapping:
            if key not in allowed:
                hint = suggest(str(key), allowed)
                tail = hint or f". Valid keys: {', '.join(allowed)}"
                self.items.append(
                    f"{self.where}: unknown key {prefix}.{key}{tail}"
                    f"{self.line_of(f'{prefix}.{key}')}"
                )

    # typed getters: each returns a usable value or None (and records the problem)
    def text(self, m, key, prefix, *, required=False, default=None):
        if key not in m:
            if required:
                self.add(f"{prefix}.{key}", "is required; got nothing. Add it to the file.")
            return default
        v = m[key]
        bad = text_problem(v, required=True)
        if bad:
            self.add(f"{prefix}.{key}", bad)
            return None
        return v

    def number(self, m, key, prefix, *, required=False, default=None, lower=None, upper=None,
               lower_inclusive=True, upper_inclusive=True, integer=False):
        if key not in m:
            if required:
                self.add(f"{prefix}.{key}", "is required; got nothing. Add it to the file.")
            return default
        v = m[key]
        return self.check_number(v, f"{prefix}.{key}", lower=lower, upper=upper,
                                 lower_inclusive=lower_inclusive,
                                 upper_inclusive=upper_inclusive, integer=integer)

    def check_number(self, v, path, *, lower=None, upper=None, lower_inclusive=True,
                     upper_inclusive=True, integer=False):
        if isinstance(v, bool) or not isinstance(v, int | float):
            self.add(path, f"must be a number; got {_short(v)}")
            return None
        if integer and not isinstance(v, int):
            self.add(path, f"must be a whole number; got {fmt_value(v)}")
            return None
        x = float(v)
        if not math.isfinite(x):
            self.add(path, f"must be a finite number; got {fmt_value(x)}")
            return None
        lo_bad = lower is not None and (x < lower or (x == lower and not lower_inclusive))
        hi_bad = upper is not None and (x > upper or (x == upper and not upper_inclusive))
        if lo_bad or hi_bad:
            self.add(path, f"must be {_requirement(lower, upper, lower_inclusive, upper_inclusive)}; "
                           f"got {fmt_value(x)}")
            return None
        return int(v) if integer else x

    def boolean(self, m, key, prefix, *, default=None):
        if key not in m:
            return default
        v = m[key]
        if not isinstance(v, bool):
            self.add(f"{prefix}.{key}", f"must be true or false; got {_short(v)}")
            return None
        return v

    def choice(self, m, key, prefix, choices, *, required=False, default=None):
        if key not in m:
            if required:
                self.add(f"{prefix}.{key}", f"is required; got nothing. Use one of: "
                                            f"{', '.join(choices)}")
            return default
        v = m[key]
        if not isinstance(v, str) or v not in choices:
            hint = suggest(str(v), choices) if isinstance(v, str) else ""
            self.add(f"{prefix}.{key}", f"must be one of {', '.join(choices)}; got {_short(v)}{hint}")
            return None
        return v

    def area_ac(self, m, prefix, base, *, required, lower_inclusive):
        """``<base>_ac`` or ``<base>_ft2`` (exactly one), returned in acres."""
        k_ac, k_ft2 = f"{base}_ac", f"{base}_ft2"
        has_ac, has_ft2 = k_ac in m, k_ft2 in m
        if has_ac and has_ft2:
            self.add(f"{prefix}.{k_ac}", f"and {k_ft2} must not both be given; got both. Keep one.")
            return None
        if not (has_ac or has_ft2):
            if required:
                self.add(f"{prefix}.{k_ac}", f"(or {k_ft2}) is required; got nothing. Add one.")
            return None
        key = k_ac if has_ac else k_ft2
        v = self.number(m, key, prefix, lower=0.0, lower_inclusive=lower_inclusive)
        if v is None:
            return None
        return v if has_ac else v / FT2_PER_AC

    def table(self, m, key, prefix):
        v = m.get(key)
        if v is None:
            return None
        if not isinstance(v, Mapping):
            self.add(f"{prefix}.{key}", f"must be a table; got {_short(v)}")
            return None
        return v

    def tables(self, m, key, prefix, *, single_ok=False):
        """An array of tables (``[[prefix.key]]``); a single table accepted if ``single_ok``."""
        v = m.get(key, [])
        if single_ok and isinstance(v, Mapping):
            return [v]
        if not isinstance(v, list) or not all(isinstance(e, Mapping) for e in v):
            self.add(f"{prefix}.{key}", f"must be an array of tables ([[{prefix}.{key}]]); got {_short(v)}")
            return []
        return v

    def numbers(self, m, key, prefix, *, required=True, lower=None, min_len=2):
        if key not in m:
            if required:
                self.add(f"{prefix}.{key}", "is required; got nothing. Add a list of numbers.")
            return None
        v = m[key]
        if (not isinstance(v, list) or len(v) < min_len
                or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in v)):
            self.add(f"{prefix}.{key}", f"must be a list of at least {min_len} numbers; got {_short(v)}")
            return None
        arr = [float(x) for x in v]
        for i, x in enumerate(arr):
            if not math.isfinite(x) or (lower is not None and x < lower):
                req = f">= {fmt_value(lower)}" if lower is not None else "finite"
                self.add(f"{prefix}.{key}", f"must be {req}; got {fmt_value(x)} at index {i}")
                return None
        return arr


def _requirement(lower, upper, lower_inclusive, upper_inclusive) -> str:
    if lower is not None and upper is not None:
        left = "[" if lower_inclusive else "("
        right = "]" if upper_inclusive else ")"
        return f"in {left}{fmt_value(lower)}, {fmt_value(upper)}{right}"
    if lower is not None:
        return f"{'>=' if lower_inclusive else '>'} {fmt_value(lower)}"
    return f"{'<=' if upper_inclusive else '<'} {fmt_value(upper)}"


def _label(entry: Mapping, index: int) -> str:
    v = entry.get("id")
    if isinstance(v, str) and v.strip():
        return v
    return str(index)


# ----------------------------------------------------------------------------------------
# dependency adapters (layer 1/2 modules of the other topics)


def _lookup_cn(cover: str, hsg: str, condition: str | None) -> float:
    from hydrocalc.runoff import curve_number

    if condition is None:
        return float(curve_number(cover, hsg))
    return float(curve_number(cover, hsg, condition=condition))


def _composite_cn(pervious_cn: float, impervious_pct: float, unconnected_pct: float) -> float:
    import warnings

    from hydrocalc.runoff import impervious_composite_cn

    # The loader computes the percentage from areas, so impervious_composite_cn's guess that
    # a value between 0 and 1 is a fraction typed as a percentage does not apply here; a
    # small impervious share is reported once, as a plausibility warning with its accept key
    # (plausibility.site_checks, "small_impervious_share"), not as a raw Python warning.
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="impervious_pct looks like a fraction",
                                category=UserWarning)
        return float(impervious_composite_cn(pervious_cn, impervious_pct,
                                             unconnected_pct=unconnected_pct))


def _segment_travel_times(segments: list[dict]) -> tuple[float, list[float]]:
    from hydrocalc import tc

    rows = []
    for seg in segments:
        row = {k: v for k, v in seg.items() if k != "type"}
        row["kind"] = seg["type"]
        if seg["type"] == "sheet" and "surface" in row:
            row["n"] = row.pop("surface")  # a TR-55 Table 3-1 key; tc looks it up
        rows.append(row)
    total, table = tc.time_of_concentration(rows)
    col = None
    for name in ("travel_time_hr", "tt_hr", "time_hr"):
        if hasattr(table, "columns") and name in table.columns:
            col = name
            break
    times = [float(x) for x in table[col]] if col else [math.nan] * len(segments)
    return float(total), times


_OUTLET_FIELDS: dict[str, tuple[tuple[str, ...], dict[str, tuple]]] = {
    # type: (required positional keys, {optional key: (lower, lower_inclusive)})
    "circular_orifice": (("diameter_in", "invert_ft"), {"cd": (0.0, False)}),
    "rectangular_orifice": (("width_in", "height_in", "invert_ft"), {"cd": (0.0, False)}),
    "rectangular_weir": (("length_ft", "crest_ft"), {"cw": (0.0, False), "end_contractions": (0, True)}),
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
_POSITIVE_OUTLET_KEYS = {"diameter_in", "width_in", "height_in", "length_ft", "rate_in_hr"}


def _device_level(spec: Mapping) -> float:
    for k in ("invert_ft", "crest_ft", "inlet_invert_ft"):
        if k in spec:
            return float(spec[k])
    return 0.0


def _build_outlet(kind: str, spec: Mapping, name: str):
    from hydrocalc import outlets

    cls = getattr(outlets, _OUTLET_CLASS[kind])
    required, optional = _OUTLET_FIELDS[kind]
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
    from hydrocalc import culvert

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


def _build_barrel(spec: Mapping):
    from hydrocalc import outlets

    return outlets.Barrel(*[spec[k] for k in _BARREL_REQUIRED],
                          **{k: spec[k] for k in _BARREL_OPTIONAL if k in spec}, name="barrel")


_STORAGE_TYPES = ("stage_area", "stage_storage", "basin", "drywell")


def _build_storage(kind: str, spec: Mapping):
    from hydrocalc import routing

    ss = routing.StageStorage
    if kind == "stage_area":
        obj = ss.from_areas(spec["stage_ft"], spec["area_ft2"], method=spec.get("method", "conic"))
    elif kind == "stage_storage":
        obj = ss.from_volumes(spec["stage_ft"], spec["storage_ft3"])
    elif kind == "basin":
        obj = ss.basin(spec["bottom_length_ft"], spec["bottom_width_ft"], spec["depth_ft"],
                       **{k: spec[k] for k in ("side_slope_h_per_v", "porosity_frac") if k in spec})
    else:
        obj = ss.drywell(spec["diameter_ft"], spec["depth_ft"],
                         **{k: spec[k] for k in ("stone_porosity_frac", "stone_width_ft",
                                                 "stone_depth_below_ft", "wall_thickness_ft")
                            if k in spec})
    if spec.get("bottom_ft"):
        obj = obj.raised(spec["bottom_ft"])
    return obj


def _combine_storage(parts: list):
    total = parts[0]
    for p in parts[1:]:
        total = total + p
    return total


def _msg(exc: Exception) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


# ----------------------------------------------------------------------------------------
# CSV helpers


#: Limits of a CSV table named in a site file (subcatchments, stage-storage).
MAX_CSV_BYTES = 8 * 1024 * 1024
MAX_CSV_LINE_CHARS = 10_000
MAX_CSV_ROWS = 100_000


def _read_csv_rows(path: pathlib.Path) -> tuple[list[str], list[tuple[int, dict[str, str]]]]:
    """Header and ``(line number, row)`` pairs of a CSV; ``#`` lines are comments.

    Refused with one line naming the file and line: not a regular file, larger than
    :data:`MAX_CSV_BYTES`, a line longer than :data:`MAX_CSV_LINE_CHARS`, more than
    :data:`MAX_CSV_ROWS` rows, not UTF-8, a NUL or other control character, an unbalanced
    quote (a cell may not span lines), a row with more cells than the header.
    """
    import os
    import stat

    try:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"{path.name}: must be a regular file; got a folder, device or pipe")
        if st.st_size > MAX_CSV_BYTES:
            raise InputError(f"{path.name}: must be at most {MAX_CSV_BYTES // 2**20} MiB; got "
                             f"{st.st_size / 2**20:.1f} MiB")
        with open(path, "rb") as fh:
            data = fh.read(MAX_CSV_BYTES + 1)
    except OSError as exc:
        raise InputError(f"{path.name}: must be a readable file; got {exc.strerror or exc}") \
            from None
    if len(data) > MAX_CSV_BYTES:
        raise InputError(f"{path.name}: must be at most {MAX_CSV_BYTES // 2**20} MiB")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path.name}: must be UTF-8 text; byte {exc.start} is not. Save the "
                         "CSV as UTF-8.") from None
    lines = text.splitlines()
    if len(lines) > MAX_CSV_ROWS + 1:
        raise InputError(f"{path.name}: must have at most {MAX_CSV_ROWS:,} rows; got "
                         f"{len(lines):,}")
    numbered = []
    for i, ln in enumerate(lines):
        if len(ln) > MAX_CSV_LINE_CHARS:
            raise InputError(f"{path.name} line {i + 1}: lines must be at most "
                             f"{MAX_CSV_LINE_CHARS:,} characters; got {len(ln):,}")
        if not ln.strip() or ln.lstrip().startswith("#"):
            continue
        bad = next((repr(ch)[1:-1] for ch in ln if (ord(ch) < 32 and ch != "\t")
                    or 127 <= ord(ch) < 160), None)
        if bad is not None:
            raise InputError(f"{path.name} line {i + 1}: must not contain control characters; "
                             f"got {bad}")
        numbered.append((i + 1, ln))
    if not numbered:
        return [], []
    rows = []
    for lineno, ln in numbered:
        if ln.count('"') % 2:
            raise InputError(f"{path.name} line {lineno}: a quote is not closed (an odd number "
                             "of '\"'); a cell may not span lines. Close or remove the quote")
        try:
            parsed = list(csv.reader([ln], strict=True))
        except csv.Error as exc:
            raise InputError(f"{path.name} line {lineno}: must be valid CSV; got {exc}") from None
        rows.append(parsed[0] if parsed else [])
    header = [h.strip() for h in rows[0]]
    if len(set(header)) != len(header):
        twice = next(h for h in header if header.count(h) > 1)
        raise InputError(f"{path.name} line {numbered[0][0]}: column {excerpt(twice)!r} appears "
                         "twice in the header")
    out = []
    for (lineno, _), row in zip(numbered[1:], rows[1:], strict=True):
        if len(row) > len(header):
            raise InputError(
                f"{path.name} line {lineno}: row must have at most {len(header)} cells like the "
                f"header; got {len(row)}. Check for a stray comma or a missing column name")
        out.append((lineno, {h: (row[i].strip() if i < len(row) else "")
                             for i, h in enumerate(header)}))
    return header, out


def _csv_value(text: str):
    """Type a CSV cell: '' -> missing, number if it parses, else the string."""
    if text == "":
        return None
    low = text.lower()
    if low in ("true", "false"):
        return low == "true"
    try:
        if re.fullmatch(r"[+-]?\d+", text):
            return int(text)
        return float(text)
    except ValueError:
        return text


def _resolve(base_dir: pathlib.Path, raw: str, *, field: str = "path",
             design_storms: bool = False) -> pathlib.Path:
    """A file named in the site file, confined to the site's folder (see ``confined_path``).

    Raises InputError for a path outside the folder unless the load was called with
    ``allow_outside_paths=True``.
    """
    return confined_path(raw, base_dir, field=field, allow_outside=_ALLOW_OUTSIDE.get(),
                         design_storms=design_storms)


def outside_paths_default() -> bool:
    """True when ``HYDROCALC_ALLOW_OUTSIDE_PATHS=1`` (set by ``hydrocalc --allow-outside-paths``)."""
    import os

    return os.environ.get("HYDROCALC_ALLOW_OUTSIDE_PATHS", "") == "1"


#: Set by :func:`site_problems` for the duration of one load (thread- and task-safe).
_ALLOW_OUTSIDE: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "hydrocalc_allow_outside_paths", default=False)


def _site_path(P: _Problems, field: str, base_dir: pathlib.Path, raw: str, *,
               what: str = "file", design_storms: bool = False) -> pathlib.Path | None:
    """Confined, existing path of a file named at ``field``; None (problem recorded) else."""
    try:
        path = _resolve(base_dir, raw, field=field, design_storms=design_storms)
    except InputError as exc:
        P.raw(f"{P.where}: {exc}{P.line_of(field)}")
        return None
    if not path.is_file():
        P.add(field, f"must be an existing {what} (relative to the site file); got "
                     f"{excerpt(raw, 80)!r}")
        return None
    return path


# ----------------------------------------------------------------------------------------
# sections


_MAX_24HR_DEPTH_IN = 72.0  # world-record 24-h rainfall 71.85 in (WMO): above it, a unit slip
_STORMS_KEYS = ("file", "distribution", "depths_in", "use", "wqv_precip_in", "wqv_precip_source",
                "source", "duration_hr", "rain_dt_hr")


def _load_storm_file(path: pathlib.Path) -> dict:
    """Read a ``design_storms/*.toml`` depth file into ``{depths_in, source, warnings}``.

    Uses :func:`hydrocalc.design_storms.load_depth_file`; the 24-hour depths become the
    storms ``"<T>yr"``. The file's warning (e.g. illustrative depths) is kept for reports.
    """
    from hydrocalc.design_storms import load_depth_file

    table = load_depth_file(path, warn=False)
    depths = table.storm_depths_in("24-hr")
    warnings = [f"{path.name}: {table.warning}"] if table.warning else []
    return {"distribution": None, "depths_in": depths, "source": table.source,
            "duration_hr": None, "warnings": warnings}


def _parse_storms(P: _Problems, m, base_dir, input_files) -> Storms | None:
    prefix = "storms"
    if m is None:
        P.raw(f"{P.where}: [storms] section is required; got nothing. Add [storms] with "
              "distribution, [storms.depths_in] (or file) and wqv_precip_in.")
        return None
    if not isinstance(m, Mapping):
        P.add(prefix, f"must be a table; got {m!r}")
        return None
    n0 = len(P.items)
    P.unknown_keys(m, _STORMS_KEYS, prefix)
    file_info = None
    file_path = None
    if "file" in m:
        raw = P.text(m, "file", prefix)
        if raw is not None:
            file_path = _site_path(P, f"{prefix}.file", base_dir, raw, design_storms=True)
            if file_path is not None:
                try:
                    file_info = _load_storm_file(file_path)
                    _register_input(input_files, base_dir, file_path)
                except (HydrocalcError, OSError, tomllib.TOMLDecodeError, ValueError,
                        RecursionError) as exc:
                    for line in (str(exc).strip().splitlines() or [type(exc).__name__])[:20]:
                        P.add(f"{prefix}.file", f"could not be read: {line}")
    depths: dict[str, float] = {}
    if file_info is not None:
        for k, v in file_info["depths_in"].items():
            depths[k] = v
    own = P.table(m, "depths_in", prefix)
    if own is not None:
        for k, v in own.items():
            depths[str(k)] = v
    if file_info is None and own is None and "file" not in m:
        P.add(f"{prefix}.depths_in", "is required (or storms.file); got nothing. Add "
                                     "[storms.depths_in] with e.g. \"10yr\" = 5.0")
    if "use" in m and not ("file" in m and file_info is None):  # no false alarms: the file
        use = m["use"]                                           # failure is reported
        if not isinstance(use, list) or not use or not all(isinstance(u, str) for u in use):
            P.add(f"{prefix}.use", f"must be a non-empty list of storm names; got {use!r}")
        else:
            missing = [u for u in use if u not in depths]
            for u in missing:
                P.add(f"{prefix}.use", f"must name storms that have a depth; got {u!r}"
                                       f"{suggest(u, depths)} Available: {', '.join(depths)}")
            if not missing:
                depths = {u: depths[u] for u in use}
    clean: dict[str, float] = {}
    for k, v in depths.items():
        path = f"{prefix}.depths_in.{k}"
        if not _STORM_RE.match(k):
            P.add(path, f"storm name must be letters, digits, '_' or '-' (e.g. \"10yr\"); got {k!r}")
            continue
        x = P.check_number(v, path, lower=0.0, lower_inclusive=False)
        if x is not None and x > _MAX_24HR_DEPTH_IN:
            P.add(path, f"must be <= {fmt_value(_MAX_24HR_DEPTH_IN)} in, the world-record 24-hour "
                        f"rainfall (1,825 mm, Foc-Foc, La Reunion, 7-8 Jan 1966; WMO archive); "
                        f"got {fmt_value(x)}. Check the units (inches)")
        elif x is not None:
            clean[k] = x
    dist = m.get("distribution")
    if dist is None and file_info is not None:
        dist = file_info["distribution"]
    if dist is None:
        P.add(f"{prefix}.distribution", "is required; got nothing. Name the NRCS 24-hour "
                                        "distribution, e.g. \"III\", \"II\" or \"NRCC_C\".")
    elif not isinstance(dist, str):
        P.add(f"{prefix}.distribution", f"must be a string; got {dist!r}")
        dist = None
    else:
        _check_distribution(P, dist, f"{prefix}.distribution")
    wqv = P.number(m, "wqv_precip_in", prefix, required=True, lower=0.0, lower_inclusive=False)
    wqv_src = P.text(m, "wqv_precip_source", prefix, required=True)
    duration = P.number(m, "duration_hr", prefix, default=None, lower=0.0, lower_inclusive=False)
    if duration is None and file_info is not None and file_info.get("duration_hr"):
        duration = file_info["duration_hr"]
    rain_dt = P.number(m, "rain_dt_hr", prefix, default=0.1, lower=0.0, lower_inclusive=False)
    if isinstance(dist, str) and duration is not None and duration != 24.0:
        try:
            from hydrocalc.rainfall import design_storm

            design_storm(1.0, distribution=dist, dt_hr=0.1, duration_hr=duration)
        except ImportError:  # pragma: no cover - rainfall topic absent
            pass
        except HydrocalcError as exc:
            P.add(f"{prefix}.duration_hr", f"does not fit the distribution: {_msg(exc)}")
    source = P.text(m, "source", prefix) if "source" in m else (file_info or {}).get("source", "")
    if len(P.items) > n0:
        return None
    warnings = tuple(file_info["warnings"]) if file_info else ()
    return Storms(distribution=dist, depths_in=clean, wqv_precip_in=wqv,
                  wqv_precip_source=wqv_src, source=source or "", file=file_path,
                  warnings=warnings, duration_hr=float(duration or 24.0),
                  rain_dt_hr=float(rain_dt))


def _check_distribution(P: _Problems, dist: str, path: str) -> None:
    try:
        from hydrocalc import rainfall
    except ImportError:
        return
    try:
        rainfall.design_storm(1.0, distribution=dist, dt_hr=0.1)
    except HydrocalcError as exc:
        P.add(path, f"is not a known distribution: {_msg(exc)}")


_ANALYSIS_KEYS = ("dt_hr", "prf", "ia_ratio", "duration_hr")
_MAX_ANALYSIS_STEPS = 1_000_000  # more is a unit slip, and would exhaust memory


def _parse_analysis(P: _Problems, m) -> AnalysisOptions | None:
    prefix = "analysis"
    if m is None:
        return AnalysisOptions()
    if not isinstance(m, Mapping):
        P.add(prefix, f"must be a table; got {m!r}")
        return None
    n0 = len(P.items)
    P.unknown_keys(m, _ANALYSIS_KEYS, prefix)
    dt = P.number(m, "dt_hr", prefix, default=0.01, lower=0.0, lower_inclusive=False, upper=1.0)
    prf = P.number(m, "prf", prefix, default=484.0, lower=0.0, lower_inclusive=False, upper=700.0)
    ia = P.number(m, "ia_ratio", prefix, default=0.2, lower=0.0, upper=1.0)
    dur = P.number(m, "duration_hr", prefix, default=None, lower=0.0, lower_inclusive=False)
    span_hr = max(dur or 0.0, 24.0)  # at least the 24-h design storm is computed
    if dt is not None and span_hr / dt > _MAX_ANALYSIS_STEPS:
        P.add(f"{prefix}.dt_hr", f"and duration_hr must give at most {_MAX_ANALYSIS_STEPS:,} time "
                                 f"steps; got {span_hr / dt:.3g} (dt_hr = {fmt_value(dt)}, "
                                 f"{fmt_value(span_hr)} h). Use dt_hr >= "
                                 f"{fmt_value(span_hr / _MAX_ANALYSIS_STEPS)} h or a shorter "
                                 "duration_hr")
    if len(P.items) > n0:
        return None
    return AnalysisOptions(dt_hr=dt, prf=prf, ia_ratio=ia, duration_hr=dur)


_CRITERIA_KEYS = (
    "standard", "cpv_storm", "qp_storm", "qf_storm", "min_rv_rule", "rrv_factors",
    "rrv_specific_reduction_factor", "new_impervious_ac_by_hsg", "wqv_area_ac",
    "wqv_impervious_ac", "rrv_provided_acft", "rrv_provided_note", "wqv_provided_acft",
    "wqv_provided_note", "cpv_detention_hr",
    "cpv_rainfall_type", "cpv_orifice_cd", "cpv_orifice_head_ft", "waived",
    "practice", "redevelopment",
)
_MIN_RV_RULES = ("if_wqv_exceeds_rrv", "always", "never")
_STANDARDS = ("ny_smdm", "none")
_CRITERIA_NAMES = ("wqv", "rrv", "cpv", "qp", "qf")


def _parse_criteria(P: _Problems, m, storms: Storms | None) -> CriteriaSettings | None:
    prefix = "criteria"
    if m is None:
        m = {}
    if not isinstance(m, Mapping):
        P.add(prefix, f"must be a table; got {m!r}")
        return None
    n0 = len(P.items)
    P.unknown_keys(m, _CRITERIA_KEYS, prefix)
    d = CriteriaSettings()
    standard = P.choice(m, "standard", prefix, _STANDARDS, default=d.standard)
    vals: dict[str, Any] = {"standard": standard}
    waived: dict[str, str] = {}
    if "waived" in m:
        w = P.table(m, "waived", prefix)
        for k, v in (w or {}).items():
            if k not in _CRITERIA_NAMES:
                P.add(f"{prefix}.waived.{k}", f"must be one of {', '.join(_CRITERIA_NAMES)}; got "
                                             f"{k!r}{suggest(k, _CRITERIA_NAMES)}")
            elif not isinstance(v, str) or not v.strip():
                P.add(f"{prefix}.waived.{k}", f"must be the reason for the waiver (text); got {v!r}")
            else:
                waived[k] = v
    vals["waived"] = waived
    for key, crit in (("cpv_storm", "cpv"), ("qp_storm", "qp"), ("qf_storm", "qf")):
        v = P.text(m, key, prefix, default=getattr(d, key))
        vals[key] = v
        if (v is not None and storms is not None and standard == "ny_smdm" and key in m
                and crit not in waived and v not in storms.depths_in):
            where = f"criteria.{key}"
            P.raw(f"{P.where}: {where} must name a design storm; got {v!r}"
                  f"{suggest(v, storms.depths_in)} Add it to [storms.depths_in], set "
                  f"criteria.{key}, or waive it with criteria.waived.{crit} = \"reason\""
                  f"{P.line_of(f'criteria.{key}')}")
    vals["min_rv_rule"] = P.choice(m, "min_rv_rule", prefix, _MIN_RV_RULES, default=d.min_rv_rule)
    vals["rrv_factors"] = P.text(m, "rrv_factors", prefix, default=d.rrv_factors)
    if vals["rrv_factors"] is not None and "rrv_factors" in m:
        try:
            from hydrocalc.criteria import ny

            keys = ny.rrv_factor_sets()
            if vals["rrv_factors"] not in keys:
                P.add(f"{prefix}.rrv_factors", f"must be a key of the specific-reduction-factor "
                                               f"table; got {vals['rrv_factors']!r}"
                                               f"{suggest(vals['rrv_factors'], keys)} Valid: "
                                               f"{', '.join(keys)}")
        except ImportError:
            pass
    for key in ("rrv_specific_reduction_factor", "new_impervious_ac_by_hsg"):
        if key in m:
            t = P.table(m, key, prefix)
            if t is not None:
                out = {}
                for h, v in t.items():
                    path = f"{prefix}.{key}.{h}"
                    if h not in HSGS:
                        P.add(path, f"HSG must be one of A, B, C, D; got {h!r}")
                        continue
                    upper = 1.0 if key == "rrv_specific_reduction_factor" else None
                    x = P.check_number(v, path, lower=0.0, upper=upper)
                    if x is not None:
                        out[h] = x
                vals[key] = out
    vals["wqv_area_ac"] = P.number(m, "wqv_area_ac", prefix, lower=0.0, lower_inclusive=False)
    vals["wqv_impervious_ac"] = P.number(m, "wqv_impervious_ac", prefix, lower=0.0)
    if (vals["wqv_area_ac"] is not None) != (vals["wqv_impervious_ac"] is not None):
        P.add(f"{prefix}.wqv_area_ac", "and criteria.wqv_impervious_ac must be given together; "
                                       "got only one. Give both or neither.")
    elif vals["wqv_area_ac"] is not None and vals["wqv_impervious_ac"] > vals["wqv_area_ac"]:
        P.add(f"{prefix}.wqv_impervious_ac", f"must be <= wqv_area_ac "
                                             f"({fmt_value(vals['wqv_area_ac'])}); got "
                                             f"{fmt_value(vals['wqv_impervious_ac'])}")
    vals["rrv_provided_acft"] = P.number(m, "rrv_provided_acft", prefix, default=0.0, lower=0.0)
    vals["rrv_provided_note"] = P.text(m, "rrv_provided_note", prefix, default="")
    vals["wqv_provided_acft"] = P.number(m, "wqv_provided_acft", prefix, default=0.0, lower=0.0)
    vals["wqv_provided_note"] = P.text(m, "wqv_provided_note", prefix, default="")
    for kind in ("rrv", "wqv"):
        if vals[f"{kind}_provided_acft"] and not vals[f"{kind}_provided_note"]:
            P.add(f"{prefix}.{kind}_provided_note", f"is required when {kind}_provided_acft > 0; "
                                                    "got nothing. Name the practices that "
                                                    "provide it.")
    vals["cpv_detention_hr"] = P.number(m, "cpv_detention_hr", prefix, default=24.0, lower=0.0,
                                        lower_inclusive=False)
    vals["cpv_rainfall_type"] = P.choice(m, "cpv_rainfall_type", prefix, ("I", "IA", "II", "III"),
                                         default=None)
    vals["cpv_orifice_cd"] = P.number(m, "cpv_orifice_cd", prefix, default=0.6, lower=0.0,
                                      lower_inclusive=False, upper=1.0)
    vals["cpv_orifice_head_ft"] = P.number(m, "cpv_orifice_head_ft", prefix, lower=0.0,
                                           lower_inclusive=False)
    if "practice" in m:
        from hydrocalc.practices import parse_practices

        vals["practices"] = parse_practices(P, m["practice"], f"{prefix}.practice")
    if "redevelopment" in m:
        from hydrocalc.criteria.ny_redevelopment import parse_redevelopment

        vals["redevelopment"] = parse_redevelopment(P, m["redevelopment"],
                                                    f"{prefix}.redevelopment")
    if len(P.items) > n0:
        return None
    return CriteriaSettings(**vals)


def _tr55_type(dist: str | None) -> str | None:
    if not isinstance(dist, str):
        return None
    key = dist.strip().upper().replace("TYPE_", "").replace("TYPE ", "").replace("NRCS_", "")
    return key if key in ("I", "IA", "II", "III") else None


# -- scenario -----------------------------------------------------------------------------

_SCENARIO_KEYS = ("subcatchment", "pond", "reach", "design_point", "subcatchments_csv",
                  "description")
_SUB_KEYS = ("id", "to", "description", "area_ac", "area_ft2", "cn", "cover", "tc_hr",
             "tc_segment", "impervious_connected_ac", "impervious_connected_ft2",
             "impervious_unconnected_ac", "impervious_unconnected_ft2", "impervious_hsg")
_COVER_KEYS = ("cover", "hsg", "area_ac", "area_ft2", "condition", "cn")
_SEG_TYPES = ("sheet", "shallow", "channel")
_SEG_KEYS = {
    "sheet": ("type", "length_ft", "slope_ftft", "n", "surface", "p2_in", "max_length_ft"),
    "shallow": ("type", "length_ft", "slope_ftft", "surface"),
    "channel": ("type", "length_ft", "slope_ftft", "n", "area_ft2", "wetted_perimeter_ft"),
}
_POND_KEYS = ("id", "to", "description", "storage", "outlet", "barrel", "initial_stage_ft",
              "count", "rrv_credit_pct", "bottom_elevation_ft", "tailwater_ft", "flap_gate",
              "backwater")
_STORAGE_KEYS = {
    "stage_area": ("type", "stage_ft", "area_ft2", "csv", "method", "bottom_ft"),
    "stage_storage": ("type", "stage_ft", "storage_ft3", "csv", "bottom_ft"),
    "basin": ("type", "bottom_length_ft", "bottom_width_ft", "depth_ft", "side_slope_h_per_v",
              "porosity_frac", "bottom_ft"),
    "drywell": ("type", "diameter_ft", "depth_ft", "stone_width_ft", "stone_porosity_frac",
                "stone_depth_below_ft", "wall_thickness_ft", "bottom_ft"),
}
_REACH_KEYS = ("id", "to", "lag_hr", "description", "section", "diameter_in",
               "bottom_width_ft", "depth_ft", "side_slope_h_per_v", "station_ft",
               "elevation_ft", "csv", "length_ft", "slope_ftft", "upstream_invert_ft",
               "downstream_invert_ft", "n")
_REACH_SECTIONS = ("circular", "rectangular", "trapezoidal", "user")
#: Geometry fields of each reach section (required ones; "user" takes lists or a CSV).
_REACH_GEOMETRY = {"circular": ("diameter_in",), "rectangular": ("bottom_width_ft", "depth_ft"),
                   "trapezoidal": ("bottom_width_ft", "side_slope_h_per_v", "depth_ft"),
                   "user": ()}
_REACH_GEOMETRY_ALL = ("diameter_in", "bottom_width_ft", "depth_ft", "side_slope_h_per_v",
                       "station_ft", "elevation_ft", "csv")
_DP_KEYS = ("id", "to", "description")
_SUB_CSV_SCALARS = ("id", "to", "description", "area_ac", "area_ft2", "cn", "tc_hr",
                    "impervious_connected_ac", "impervious_connected_ft2",
                    "impervious_unconnected_ac", "impervious_unconnected_ft2", "impervious_hsg")
_SUB_CSV_COVER = {"cover": "cover", "hsg": "hsg", "condition": "condition",
                  "cover_area_ac": "area_ac", "cover_area_ft2": "area_ft2", "cover_cn": "cn"}


class _Ctx:
    """What the scenario parser needs from the rest of the file."""

    def __init__(self, base_dir, input_files, p2_in):
        self.base_dir = base_dir
        self.input_files = input_files
        self.p2_in = p2_in


def _register_input(input_files: dict, base_dir: pathlib.Path, path: pathlib.Path) -> None:
    data = path.read_bytes()
    try:
        key = path.resolve().relative_to(base_dir.resolve()).as_posix()
    except ValueError:
        key = _relpath(path, base_dir)
    input_files[key] = hashlib.sha256(data).hexdigest()


def _relpath(path: pathlib.Path, base: pathlib.Path) -> str:
    import os

    return pathlib.Path(os.path.relpath(path.resolve(), base.resolve())).as_posix()


def _subcatchments_from_csv(P: _Problems, prefix: str, raw: str, ctx: _Ctx) -> list[dict]:
    path = _site_path(P, f"{prefix}.subcatchments_csv", ctx.base_dir, raw, what="CSV file")
    if path is None:
        return []
    try:
        header, rows = _read_csv_rows(path)
    except InputError as exc:  # names the CSV file and line
        P.raw(f"{exc}")
        return []
    _register_input(ctx.input_files, ctx.base_dir, path)
    allowed = (*_SUB_CSV_SCALARS, *_SUB_CSV_COVER)
    bad = [h for h in header if h not in allowed]
    for h in bad:
        P.raw(f"{P.where}: {prefix}.subcatchments_csv: unknown column {h!r} in {path.name}"
              f"{suggest(h, allowed) or '. Valid columns: ' + ', '.join(allowed)}")
    if bad:
        return []
    if "id" not in header:
        P.raw(f"{P.where}: {prefix}.subcatchments_csv: column 'id' is required in {path.name}")
        return []
    entries: dict[str, dict] = {}
    for lineno, row in rows:
        typed = {h: _csv_value(v) for h, v in row.items()}
        sid = typed.get("id")
        if sid is None:
            P.raw(f"{P.where}: {prefix}.subcatchments_csv: {path.name} line {lineno}: id is empty")
            continue
        sid = str(sid)
        cover = {_SUB_CSV_COVER[k]: v for k, v in typed.items()
                 if k in _SUB_CSV_COVER and v is not None}
        scal = {k: (str(v) if k in ("id", "to", "description", "impervious_hsg") else v)
                for k, v in typed.items() if k in _SUB_CSV_SCALARS and v is not None}
        if sid not in entries:
            entry = dict(scal)
            entry["__line__"] = f"{path.name} line {lineno}"
            if cover:
                entry["cover"] = [cover]
            entries[sid] = entry
        else:
            entry = entries[sid]
            for k, v in scal.items():
                if k != "id" and k in entry and entry[k] != v:
                    P.raw(f"{P.where}: {prefix}.subcatchment[{sid}].{k} differs between rows of "
                          f"{path.name} (line {lineno}: {v!r}, first row: {entry[k]!r}); "
                          "continuation rows must leave it blank or repeat it")
                entry.setdefault(k, v)
            if cover:
                entry.setdefault("cover", []).append(cover)
    return list(entries.values())


def _hsg(P: _Problems, m: Mapping, key: str, path: str, *, required: bool) -> str | None:
    """A hydrologic soil group A-D (case-insensitive)."""
    if key not in m:
        if required:
            P.add(f"{path}.{key}", "is required; got nothing. Use one of: A, B, C, D")
        return None
    v = m[key]
    if isinstance(v, str) and v.strip().upper() in HSGS:
        return v.strip().upper()
    P.add(f"{path}.{key}", f"must be one of A, B, C, D; got {v!r}. For a dual group such as "
                           "C/D enter the group that applies (drained: C; undrained: D)")
    return None


def _parse_cover(P, c, path) -> Cover | None:
    n0 = len(P.items)
    for key in c:  # the TOML trap: a subcatchment key written after a [[...cover]] header
        if key not in _COVER_KEYS and key in _SUB_KEYS:
            P.items.append(
                f"{P.where}: unknown key {path}.{key}: {key} is a subcatchment key; TOML puts "
                f"every key after a [[...cover]] header into that cover row, so move {key} "
                f"above the first [[...cover]] header of the subcatchment"
                f"{P.line_of(f'{path}.{key}')}")
    P.unknown_keys({k: v for k, v in c.items() if k not in _SUB_KEYS or k in _COVER_KEYS},
                   _COVER_KEYS, path)
    key = P.text(c, "cover", path, required=True)
    hsg = _hsg(P, c, "hsg", path, required=True)
    area = P.area_ac(c, path, "area", required=True, lower_inclusive=False)
    cond = P.text(c, "condition", path) if "condition" in c else None
    cn_given = "cn" in c
    cn = P.number(c, "cn", path, lower=0.0, lower_inclusive=False, upper=100.0) if cn_given else None
    if len(P.items) > n0:
        return None
    if not cn_given:
        try:
            cn = _lookup_cn(key, hsg, cond)
        except ImportError:
            P.add(f"{path}.cover", "cannot be looked up: hydrocalc.runoff.curve_number is not "
                                   "available; give cn for this row")
            return None
        except HydrocalcError as exc:
            P.add(f"{path}.cover", f"could not be looked up in TR-55 Tables 2-2a..d: {_msg(exc)}")
            return None
        if not (cn > 0 and math.isfinite(cn)):
            P.add(f"{path}.cover", f"has no curve number for HSG {hsg} in TR-55 Tables 2-2a..d "
                                   f"({key!r}); give cn for this row")
            return None
    return Cover(cover=key, hsg=hsg, area_ac=area, cn=cn, condition=cond, cn_given=cn_given)


def _parse_segment(P, s, path, ctx: _Ctx) -> dict | None:
    n0 = len(P.items)
    kind = P.choice(s, "type", path, _SEG_TYPES, required=True)
    if kind is None:
        return None
    P.unknown_keys(s, _SEG_KEYS[kind], path)
    seg: dict[str, Any] = {"type": kind}
    seg["length_ft"] = P.number(s, "length_ft", path, required=True, lower=0.0,
                                lower_inclusive=False)
    seg["slope_ftft"] = P.number(s, "slope_ftft", path, required=True, lower=0.0,
                                 lower_inclusive=False, upper=1.0)
    if kind == "sheet":
        if ("n" in s) == ("surface" in s):
            P.add(f"{path}.n", "(Manning's n) or surface (a TR-55 Table 3-1 key) is required, "
                               "exactly one; got " + ("both" if "n" in s else "neither"))
        elif "n" in s:
            seg["n"] = P.number(s, "n", path, lower=0.0, lower_inclusive=False, upper=1.0)
        else:
            seg["surface"] = P.text(s, "surface", path)
        if "max_length_ft" in s:
            seg["max_length_ft"] = P.number(s, "max_length_ft", path, lower=0.0,
                                            lower_inclusive=False)
        if "p2_in" in s:
            seg["p2_in"] = P.number(s, "p2_in", path, lower=0.0, lower_inclusive=False)
        elif ctx.p2_in is None:
            P.add(f"{path}.p2_in", "is required (2-year 24-hour rainfall for sheet flow, TR-55 "
                                   "Eq. 3-3) because [storms.depths_in] has no \"2yr\" storm; got "
                                   "nothing")
        else:
            seg["p2_in"] = ctx.p2_in
    elif kind == "shallow":
        seg["surface"] = P.choice(s, "surface", path, ("unpaved", "paved"), required=True)
    else:
        seg["n"] = P.number(s, "n", path, required=True, lower=0.0, lower_inclusive=False, upper=1.0)
        seg["area_ft2"] = P.number(s, "area_ft2", path, required=True, lower=0.0,
                                   lower_inclusive=False)
        seg["wetted_perimeter_ft"] = P.number(s, "wetted_perimeter_ft", path, required=True,
                                              lower=0.0, lower_inclusive=False)
    if len(P.items) > n0:
        return None
    return seg


def _to(P: _Problems, e: Mapping, path: str) -> str | None:
    if "to" not in e:
        P.add(f"{path}.to", "is required; got nothing: the node drains nowhere. Name the "
                            "downstream pond, reach or design point.")
        return None
    return P.text(e, "to", path)


def _parse_subcatchment(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> Subcatchment | None:
    n0 = len(P.items)
    csv_line = e.get("__line__")
    if csv_line:
        P.csv_lines[path] = csv_line
        e = {k: v for k, v in e.items() if k != "__line__"}
    P.unknown_keys(e, _SUB_KEYS, path)
    sid = P.text(e, "id", path, required=True)
    to = _to(P, e, path)
    desc = P.text(e, "description", path, default="") or ""
    area = P.area_ac(e, path, "area", required=False, lower_inclusive=False)
    has_area = "area_ac" in e or "area_ft2" in e
    imp_c = P.area_ac(e, path, "impervious_connected", required=False, lower_inclusive=True) or 0.0
    imp_u = P.area_ac(e, path, "impervious_unconnected", required=False, lower_inclusive=True) or 0.0
    imp_hsg = _hsg(P, e, "impervious_hsg", path, required=False)
    covers_raw = P.tables(e, "cover", path) if "cover" in e else []
    has_cn = "cn" in e
    if has_cn and covers_raw:
        P.add(f"{path}.cn", "and cover rows must not both be given; got both. Give cn (the "
                            "composite CN) or [[...cover]] rows (CN from TR-55 tables).")
    elif not has_cn and not covers_raw:
        P.add(f"{path}.cn", "(or [[...cover]] rows) is required; got nothing. Give the composite "
                            "cn or land-cover rows with cover, hsg and area_ac.")
    cn = P.number(e, "cn", path, lower=0.0, lower_inclusive=False, upper=100.0) if has_cn else None
    covers: list[Cover] = []
    for i, c in enumerate(covers_raw):
        cv = _parse_cover(P, c, f"{path}.cover[{i}]")
        if cv is not None:
            covers.append(cv)
    # Tc
    has_tc, segs_raw = "tc_hr" in e, (P.tables(e, "tc_segment", path) if "tc_segment" in e else [])
    if has_tc and segs_raw:
        P.add(f"{path}.tc_hr", "and tc_segment rows must not both be given; got both. Keep one.")
    elif not has_tc and not segs_raw and not any(
            isinstance(c, Mapping) and ("tc_hr" in c or "tc_segment" in c)
            for c in (e.get("cover") if isinstance(e.get("cover"), list) else [])):
        # (a tc_hr caught inside a cover row is reported there, with the fix)
        P.add(f"{path}.tc_hr", "(or [[...tc_segment]] rows) is required; got nothing.")
    tc_hr = P.number(e, "tc_hr", path, lower=0.0, lower_inclusive=False, upper=100.0) if has_tc else None
    segs = []
    for i, s in enumerate(segs_raw):
        seg = _parse_segment(P, s, f"{path}.tc_segment[{i}]", ctx)
        if seg is not None:
            segs.append(seg)
    if len(P.items) > n0:
        return None
    # derived values
    imp = imp_c + imp_u
    cn_method, pervious_cn = "given", None
    if covers:
        cover_area = sum(c.area_ac for c in covers)
        total = cover_area + imp
        if has_area and not math.isclose(total, area, rel_tol=0.005, abs_tol=1e-4):
            P.add(f"{path}.area_ac", f"must equal the cover areas plus the impervious areas "
                                     f"({fmt_value(round(total, 6))} ac) within 0.5 %; got "
                                     f"{fmt_value(area)}. Fix the areas or omit area_ac.")
            return None
        area = area if has_area else total
        pervious_cn = sum(c.cn * c.area_ac for c in covers) / cover_area
        imp_pct = 100.0 * imp / (cover_area + imp)
        unc_pct = 100.0 * imp_u / imp if imp > 0 else 0.0
        if imp > 0:
            try:
                cn = _composite_cn(pervious_cn, imp_pct, unc_pct)
            except ImportError:
                cn = pervious_cn + imp_pct / 100.0 * (98.0 - pervious_cn)
            except HydrocalcError as exc:
                P.add(path, f"composite CN could not be computed: {_msg(exc)}")
                return None
            cn_method = "covers+impervious (TR-55 Fig. 2-3/2-4)"
        else:
            cn = pervious_cn
            cn_method = "covers (area-weighted, TR-55 Table 2-2)"
    elif area is None:
        P.add(f"{path}.area_ac", "(or area_ft2) is required when cn is given; got nothing.")
        return None
    if imp > area * (1 + 1e-9):
        P.add(f"{path}.impervious_connected_ac", f"plus impervious_unconnected_ac must be <= "
                                                 f"area_ac ({fmt_value(area)}); got "
                                                 f"{fmt_value(imp)}")
        return None
    tc_method = "given"
    tc_segments: tuple[TcSegment, ...] = ()
    if segs:
        try:
            tc_hr, times = _segment_travel_times(segs)
        except ImportError:
            P.add(f"{path}.tc_segment", "cannot be computed: hydrocalc.tc is not available; give "
                                        "tc_hr")
            return None
        except HydrocalcError as exc:
            P.add(f"{path}.tc_segment", f"travel time could not be computed: {_msg(exc)}")
            return None
        tc_segments = tuple(TcSegment(**{**s, "travel_time_hr": t}) for s, t in zip(segs, times, strict=True))
        tc_method = "segments (TR-55 Ch. 3)"
    if imp_hsg is None and imp > 0 and covers and len({c.hsg for c in covers}) == 1:
        imp_hsg = covers[0].hsg
    return Subcatchment(id=sid, to=to, area_ac=float(area), cn=float(cn), tc_hr=float(tc_hr),
                        impervious_connected_ac=float(imp_c),
                        impervious_unconnected_ac=float(imp_u), impervious_hsg=imp_hsg,
                        covers=tuple(covers), tc_segments=tc_segments, pervious_cn=pervious_cn,
                        cn_method=cn_method, tc_method=tc_method, description=desc)


def _two_column_csv(P, ctx, path: str, raw: str, col1: str, col2: str):
    """Read the two-column numeric CSV ``raw`` named at ``path.csv`` (inside the site's
    folder); return (first column, second column, [(file name, line)]) or None after
    recording the problem."""
    fpath = _site_path(P, f"{path}.csv", ctx.base_dir, raw, what="CSV file")
    if fpath is None:
        return None
    try:
        header, rows = _read_csv_rows(fpath)
    except InputError as exc:  # names the CSV file and line
        P.raw(f"{exc}")
        return None
    _register_input(ctx.input_files, ctx.base_dir, fpath)
    if header != [col1, col2]:
        P.add(f"{path}.csv", f"must have exactly the columns {col1},{col2}; got "
                             f"{','.join(header)} in {fpath.name}")
        return None
    first, second, where = [], [], []
    for lineno, row in rows:
        try:
            a, b = float(row[col1]), float(row[col2])
        except ValueError:
            P.add(f"{path}.csv", f"must hold numbers; got {row[col1]!r}, {row[col2]!r} at "
                                 f"{fpath.name} line {lineno}")
            return None
        first.append(a)
        second.append(b)
        where.append((fpath.name, lineno))
    return first, second, where


def _parse_storage_item(P, s, path, ctx: _Ctx) -> tuple[dict, Any] | None:
    n0 = len(P.items)
    kind = P.choice(s, "type", path, _STORAGE_TYPES, required=True)
    if kind is None:
        return None
    P.unknown_keys(s, _STORAGE_KEYS[kind], path)
    spec: dict[str, Any] = {"type": kind}
    if kind in ("stage_area", "stage_storage"):
        col2 = "area_ft2" if kind == "stage_area" else "storage_ft3"
        if "csv" in s:
            if "stage_ft" in s or col2 in s:
                P.add(f"{path}.csv", f"and stage_ft/{col2} lists must not both be given; got both.")
                return None
            raw = P.text(s, "csv", path)
            if raw is None:
                return None
            got = _two_column_csv(P, ctx, path, raw, "stage_ft", col2)
            if got is None:
                return None
            stage, other, _ = got
            spec["csv"] = raw
            lists = {"stage_ft": stage, col2: other}
            tmp = _Problems(P.where)
            for k in ("stage_ft", col2):
                tmp.numbers(lists, k, f"{path}.csv:{k}", lower=0.0)
            for item in tmp.items:
                P.raw(item)
            if tmp.items:
                return None
        else:
            stage = P.numbers(s, "stage_ft", path, lower=0.0)
            other = P.numbers(s, col2, path, lower=0.0)
        if stage is not None and other is not None:
            if len(stage) != len(other):
                P.add(f"{path}.{col2}", f"must have as many values as stage_ft ({len(stage)}); "
                                        f"got {len(other)}")
            elif any(b <= a for a, b in zip(stage, stage[1:])):
                P.add(f"{path}.stage_ft", f"must be strictly increasing; got {stage}")
            spec["stage_ft"], spec[col2] = stage, other
        if kind == "stage_area":
            spec["method"] = P.choice(s, "method", path, ("conic", "average_end_area"),
                                      default="conic")
    else:
        for k in _STORAGE_KEYS[kind][1:]:
            if k in s and k != "bottom_ft":
                lower_inc = k in ("side_slope_h_per_v", "stone_width_ft", "stone_depth_below_ft",
                                  "wall_thickness_ft")
                upper = 1.0 if k.endswith("_frac") else None
                spec[k] = P.number(s, k, path, lower=0.0, lower_inclusive=lower_inc, upper=upper)
        required = {"basin": ("bottom_length_ft", "bottom_width_ft", "depth_ft"),
                    "drywell": ("diameter_ft", "depth_ft")}[kind]
        for k in required:
            if k not in s:
                P.add(f"{path}.{k}", "is required; got nothing.")
    if "bottom_ft" in s:
        spec["bottom_ft"] = P.number(s, "bottom_ft", path, lower=0.0)
    if len(P.items) > n0:
        return None
    try:
        obj = _build_storage(kind, spec)
    except ImportError:
        P.add(path, "cannot be built: hydrocalc.routing is not available")
        return None
    except (HydrocalcError, TypeError) as exc:
        P.add(path, f"is invalid: {_msg(exc)}")
        return None
    return spec, obj


def _parse_outlet(P, o, path, index) -> tuple[dict, Any] | None:
    n0 = len(P.items)
    kind = P.choice(o, "type", path, (*_OUTLET_FIELDS, "culvert"), required=True)
    if kind is None:
        return None
    if kind == "culvert":
        return _parse_culvert(P, o, path, index, default_id=f"culvert_{index + 1}")
    required, optional = _OUTLET_FIELDS[kind]
    allowed = ("type", "id", *required, *optional, *(("over",) if kind == "exfiltration" else ()))
    P.unknown_keys(o, allowed, path)
    spec: dict[str, Any] = {"type": kind}
    if "id" in o:
        spec["id"] = P.text(o, "id", path)
    for k in required:
        positive = k in _POSITIVE_OUTLET_KEYS or k == "angle_deg"
        upper = 180.0 if k == "angle_deg" else None
        spec[k] = P.number(o, k, path, required=True, lower=0.0, lower_inclusive=not positive,
                           upper=upper, upper_inclusive=False)
    for k, (lo, inc) in optional.items():
        if k in o:
            spec[k] = P.number(o, k, path, lower=lo, lower_inclusive=inc,
                               integer=(k == "end_contractions"))
    if kind == "exfiltration" and "over" in o:
        spec["over"] = P.choice(o, "over", path, ("wetted", "surface", "bottom"))
    if len(P.items) > n0:
        return None
    spec["id"] = spec.get("id") or f"{kind}_{index + 1}"
    try:
        obj = _build_outlet(kind, spec, spec["id"])
    except ImportError:
        P.add(path, "cannot be built: hydrocalc.outlets is not available")
        return None
    except (HydrocalcError, TypeError) as exc:
        P.add(path, f"is invalid: {_msg(exc)}")
        return None
    return spec, obj


def _pond_in_stages(P: _Problems, e: Mapping, path: str) -> tuple[Mapping, float | None]:
    """The pond table with elevations turned into stages above its bottom, and the bottom
    elevation (None for a pond given by stage only).

    A pond is in elevations when it gives ``bottom_elevation_ft`` or a storage table with
    ``elevation_ft`` rows (the bottom is then the first elevation of the first such table);
    its device inverts and crests, barrel invert and tailwater are then elevations too.
    """
    datum = P.number(e, "bottom_elevation_ft", path, lower=-1e4, upper=1e5)
    raw = e.get("storage")
    storages = [raw] if isinstance(raw, Mapping) else (raw if isinstance(raw, list) else [])
    if datum is None:
        for st in storages:
            if isinstance(st, Mapping) and isinstance(st.get("elevation_ft"), list) \
                    and st["elevation_ft"] and isinstance(st["elevation_ft"][0], int | float):
                datum = float(st["elevation_ft"][0])
                break
    if datum is None:
        return e, None
    out = dict(e)
    new_st = []
    for i, st in enumerate(storages):
        if not isinstance(st, Mapping) or "elevation_ft" not in st:
            new_st.append(st)
            continue
        sp = f"{path}.storage[{i}]" if isinstance(raw, list) else f"{path}.storage"
        if "stage_ft" in st:
            P.add(f"{sp}.elevation_ft", "and stage_ft must not both be given; got both. Keep one.")
        el = P.numbers(st, "elevation_ft", sp, lower=None)
        st = {k: v for k, v in st.items() if k != "elevation_ft"}
        if el is not None:
            if el[0] < datum:
                P.add(f"{sp}.elevation_ft", f"must start at or above the pond bottom "
                                            f"(bottom_elevation_ft {fmt_value(datum)}); got "
                                            f"{fmt_value(el[0])}")
            st["stage_ft"] = [x - datum for x in el]
        new_st.append(st)
    if storages:
        out["storage"] = new_st if isinstance(raw, list) else new_st[0]

    def shift(spec, where):
        if not isinstance(spec, Mapping):
            return spec
        spec = dict(spec)
        v = spec.get("outlet_invert_ft")    # a culvert outlet may lie below the pond bottom
        if isinstance(v, int | float) and not isinstance(v, bool):
            spec["outlet_invert_ft"] = float(v) - datum
        for key in ("invert_ft", "crest_ft", "inlet_invert_ft"):
            v = spec.get(key)
            if isinstance(v, int | float) and not isinstance(v, bool):
                if v < datum:
                    P.add(f"{where}.{key}", f"must be at or above the pond bottom (elevation "
                                            f"{fmt_value(datum)} ft); got {fmt_value(v)}. The "
                                            "pond is in elevations, so inverts and crests are "
                                            "elevations")
                    spec[key] = 0.0
                else:
                    spec[key] = float(v) - datum
        return spec

    if isinstance(e.get("outlet"), list):
        out["outlet"] = [shift(o, f"{path}.outlet[{_label(o, i) if isinstance(o, Mapping) else i}]")
                         for i, o in enumerate(e["outlet"])]
    if isinstance(e.get("barrel"), Mapping):
        out["barrel"] = shift(e["barrel"], f"{path}.barrel")
    return out, datum


def _pond_tailwater(P: _Problems, e: Mapping, path: str, datum: float | None,
                    top: float | None):
    """(tailwater in stages above the bottom: None, a float or (time_hr, stage) lists, spec)."""
    if "tailwater_ft" not in e:
        return None, None
    v = e["tailwater_ft"]
    base = datum or 0.0
    frame = "elevation" if datum is not None else "stage above the pond bottom"
    key = f"{path}.tailwater_ft"
    if isinstance(v, Mapping):
        level_key = "elevation_ft" if datum is not None else "stage_ft"
        P.unknown_keys(v, ("time_hr", level_key), key)
        t = P.numbers(v, "time_hr", key, lower=0.0, min_len=1)
        lv = P.numbers(v, level_key, key, lower=None, min_len=1)
        if t is None or lv is None:
            return None, None
        if len(t) != len(lv):
            P.add(f"{key}.{level_key}", f"must have as many values as time_hr ({len(t)}); got "
                                        f"{len(lv)}")
            return None, None
        if any(b <= a for a, b in zip(t, t[1:])):
            P.add(f"{key}.time_hr", f"must be strictly increasing; got {t}")
            return None, None
        stages = [x - base for x in lv]
        value, spec = (t, stages), {"time_hr": t, level_key: lv}
    else:
        x = P.check_number(v, key, lower=-1e5, upper=1e5)
        if x is None:
            return None, None
        stages = [x - base]
        value, spec = x - base, x
    if top is not None and max(stages) > top + 1e-9:
        P.add(key, f"must be <= the top of the pond ({fmt_value(top + base)} ft, {frame}); got "
                   f"{fmt_value(max(stages) + base)}. A tailwater above the embankment floods "
                   "the pond from downstream")
        return None, None
    return value, spec


def _parse_pond(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> Pond | None:
    n0 = len(P.items)
    P.unknown_keys(e, _POND_KEYS, path)
    e, datum = _pond_in_stages(P, e, path)
    flap = P.boolean(e, "flap_gate", path, default=False)
    backwater = P.boolean(e, "backwater", path, default=False)
    pid = P.text(e, "id", path, required=True)
    to = _to(P, e, path)
    desc = P.text(e, "description", path, default="") or ""
    init = P.number(e, "initial_stage_ft", path, default=0.0, lower=0.0)
    count = P.number(e, "count", path, default=1, lower=1, integer=True)
    rrv = P.number(e, "rrv_credit_pct", path, lower=0.0, upper=100.0) if "rrv_credit_pct" in e else None
    if "storage" not in e:
        P.add(f"{path}.storage", "is required; got nothing. Add [[...pond.storage]] with type = "
                                 "\"stage_area\", \"stage_storage\", \"basin\" or \"drywell\".")
    storages = P.tables(e, "storage", path, single_ok=True) if "storage" in e else []
    specs, objs = [], []
    for i, s in enumerate(storages):
        got = _parse_storage_item(P, s, f"{path}.storage[{i}]" if len(storages) > 1 or isinstance(e.get("storage"), list) else f"{path}.storage", ctx)
        if got is not None:
            specs.append(got[0])
            objs.append(got[1])
    if "outlet" not in e:
        P.add(f"{path}.outlet", "is required; got nothing. Add at least one [[...pond.outlet]] "
                                "(an orifice, weir, riser or exfiltration).")
    outlets_raw = P.tables(e, "outlet", path) if "outlet" in e else []
    ospecs, oobjs, oids = [], [], []
    for i, o in enumerate(outlets_raw):
        got = _parse_outlet(P, o, f"{path}.outlet[{_label(o, i)}]", i)
        if got is not None:
            spec, obj = got
            ospecs.append(spec)
            oobjs.append(obj)
            oid = spec["id"]
            if oid in oids:
                P.add(f"{path}.outlet[{_label(o, i)}].id", f"must be unique within the pond; got "
                                                          f"{oid!r} twice")
            oids.append(oid)
    barrel, barrel_spec = None, None
    if "barrel" in e:
        b = P.table(e, "barrel", path)
        if b is not None and b.get("type") == "culvert":
            got = _parse_culvert(P, b, f"{path}.barrel", 0, default_id="barrel")
            if got is not None:
                barrel_spec, barrel = got
        elif b is not None:
            bp = f"{path}.barrel"
            k0 = len(P.items)
            P.unknown_keys(b, (*_BARREL_REQUIRED, *_BARREL_OPTIONAL), bp)
            barrel_spec = {}
            for k in _BARREL_REQUIRED:
                barrel_spec[k] = P.number(b, k, bp, required=True, lower=0.0,
                                          lower_inclusive=(k == "invert_ft"))
            for k in _BARREL_OPTIONAL:
                if k in b:
                    barrel_spec[k] = P.number(b, k, bp, lower=0.0, lower_inclusive=(k == "ke"))
            if len(P.items) == k0:
                try:
                    barrel = _build_barrel(barrel_spec)
                except ImportError:
                    P.add(bp, "cannot be built: hydrocalc.outlets is not available")
                except (HydrocalcError, TypeError) as exc:
                    P.add(bp, f"is invalid: {_msg(exc)}")
        if barrel is not None and not any(t != "exfiltration" for t in
                                          (sp["type"] for sp in ospecs)):
            P.add(f"{path}.barrel", "needs at least one orifice, weir or riser discharging "
                                    "into it; got only exfiltration")
    if len(P.items) > n0 or not objs:
        return None
    try:
        ss = _combine_storage(objs)
    except (HydrocalcError, TypeError) as exc:
        P.add(f"{path}.storage", f"could not be combined: {_msg(exc)}")
        return None
    top = _top_stage(ss)
    if top is not None:
        if init is not None and init > top:
            P.add(f"{path}.initial_stage_ft", f"must be <= the top of the storage "
                                              f"({fmt_value(top)} ft); got {fmt_value(init)}")
        for spec, oid in zip(ospecs, oids, strict=True):
            lvl = _device_level(spec)
            if spec["type"] != "exfiltration" and lvl >= top:
                key = next(k for k in ("invert_ft", "crest_ft", "inlet_invert_ft") if k in spec)
                P.add(f"{path}.outlet[{oid}].{key}", f"must be below the top of the storage "
                                                    f"({fmt_value(top)} ft); got {fmt_value(lvl)}")
    tailwater, tw_spec = _pond_tailwater(P, e, path, datum, top)
    if len(P.items) > n0:
        return None
    return Pond(id=pid, to=to, stage_storage=ss, outlets=tuple(oobjs), outlet_ids=tuple(oids),
                outlet_types=tuple(s["type"] for s in ospecs), initial_stage_ft=init,
                count=int(count), rrv_credit_pct=rrv, storage_spec=tuple(specs),
                outlet_spec=tuple(ospecs), barrel=barrel, barrel_spec=barrel_spec,
                description=desc, bottom_elevation_ft=datum, tailwater=tailwater,
                tailwater_spec=tw_spec, flap_gate=bool(flap), backwater=bool(backwater))


def _parse_reach(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> Reach | None:
    """A ``[[<scenario>.reach]]``: ``lag_hr`` (pure lag) or a routed ``section`` with
    ``length_ft``, ``slope_ftft`` (or both invert elevations) and Manning's ``n``."""
    k0 = len(P.items)
    P.unknown_keys(e, _REACH_KEYS, path)
    rid = P.text(e, "id", path, required=True)
    to = _to(P, e, path)
    d = P.text(e, "description", path, default="") or ""
    routed = [k for k in ("section", "length_ft", "slope_ftft", "upstream_invert_ft",
                          "downstream_invert_ft", "n", *_REACH_GEOMETRY_ALL) if k in e]
    if "lag_hr" in e and routed:
        P.add(f"{path}.lag_hr", f"and a routed section ({', '.join(routed)}) must not both be "
                                "given; got both. Keep lag_hr for a pure lag, or remove it to "
                                "route the pipe or channel")
        return None
    if not routed:
        lag = P.number(e, "lag_hr", path, required=True, lower=0.0)
        if len(P.items) > k0:
            return None
        return Reach(id=rid, to=to, lag_hr=lag, description=d)
    section = P.choice(e, "section", path, _REACH_SECTIONS, required=True)
    spec: dict[str, Any] = {"section": section}
    length = P.number(e, "length_ft", path, required=True, lower=0.0, lower_inclusive=False)
    n = P.number(e, "n", path, required=True, lower=0.0, upper=1.0, lower_inclusive=False)
    slope_field = "slope_ftft"
    slope = None
    inverts = [k for k in ("upstream_invert_ft", "downstream_invert_ft") if k in e]
    if "slope_ftft" in e and inverts:
        P.add(f"{path}.slope_ftft", f"and {' and '.join(inverts)} must not both be given; got "
                                    "both. Give the slope or the two invert elevations")
    elif "slope_ftft" in e:
        slope = P.number(e, "slope_ftft", path)
    elif len(inverts) == 2:
        up = P.number(e, "upstream_invert_ft", path)
        down = P.number(e, "downstream_invert_ft", path)
        if up is not None and down is not None and length is not None:
            slope = (up - down) / length
            spec["upstream_invert_ft"], spec["downstream_invert_ft"] = up, down
            slope_field = "downstream_invert_ft"
    elif inverts:
        other = ({"upstream_invert_ft", "downstream_invert_ft"} - set(inverts)).pop()
        P.add(f"{path}.{other}", f"is required with {inverts[0]}; got nothing. Give both "
                                 "invert elevations, or slope_ftft")
    else:
        P.add(f"{path}.slope_ftft", "(or upstream_invert_ft and downstream_invert_ft) is "
                                    "required; got nothing. Give the bed slope in ft/ft")
    if section is not None:
        allowed = _REACH_GEOMETRY[section] + (("station_ft", "elevation_ft", "csv")
                                               if section == "user" else ())
        for k in _REACH_GEOMETRY_ALL:
            if k in e and k not in allowed:
                P.add(f"{path}.{k}", f"does not apply to section = \"{section}\"; got "
                                     f"{_short(e[k])}. Fields of this section: "
                                     f"{', '.join(allowed)}")
        for k in _REACH_GEOMETRY[section]:
            # a trapezoid may have no bottom (a V), a rectangle must have a width
            lower_inc = k == "side_slope_h_per_v" or (section == "trapezoidal"
                                                      and k == "bottom_width_ft")
            spec[k] = P.number(e, k, path, required=True, lower=0.0,
                               lower_inclusive=lower_inc)
        if section == "user":
            spec.update(_user_section_points(P, e, path, ctx) or {})
    if len(P.items) > k0:
        return None
    from hydrocalc import conveyance as cv

    try:
        if section == "circular":
            sec = cv.CircularSection(spec["diameter_in"])
        elif section == "rectangular":
            sec = cv.RectangularSection(spec["bottom_width_ft"], spec["depth_ft"])
        elif section == "trapezoidal":
            sec = cv.TrapezoidalSection(spec["bottom_width_ft"], spec["side_slope_h_per_v"],
                                        spec["depth_ft"])
        else:
            sec = cv.UserSection(tuple(spec["station_ft"]), tuple(spec["elevation_ft"]))
    except HydrocalcError as exc:
        P.add(path, f"section is invalid: {_msg(exc)}")
        return None
    try:
        conv = cv.Conveyance(sec, length, slope, n, name=path)
    except HydrocalcError as exc:
        text = _msg(exc)
        if text.startswith("slope_ftft "):
            text = text[len("slope_ftft "):]
            if slope_field != "slope_ftft":  # slope from the inverts: name them
                text = (f"gives slope {fmt_value(slope)} ft/ft from upstream_invert_ft "
                        f"{fmt_value(spec['upstream_invert_ft'])} and downstream_invert_ft "
                        f"{fmt_value(spec['downstream_invert_ft'])}, but " + text)
        P.add(f"{path}.{slope_field}", text)
        return None
    spec.update(length_ft=length, slope_ftft=conv.slope_ftft, n=n,
                full_flow_capacity_cfs=conv.full_flow_capacity_cfs,
                depth_full_ft=sec.max_depth_ft)
    return Reach(id=rid, to=to, lag_hr=0.0, description=d, conveyance=conv,
                 conveyance_spec=spec)


def _user_section_points(P: _Problems, e: Mapping, path: str, ctx: _Ctx) -> dict | None:
    """Station-elevation points of a user section: inline lists or a two-column CSV."""
    has_lists = "station_ft" in e or "elevation_ft" in e
    if has_lists and "csv" in e:
        P.add(f"{path}.csv", "and station_ft/elevation_ft lists must not both be given; got "
                             "both. Keep one")
        return None
    if "csv" in e:
        raw = P.text(e, "csv", path)
        if raw is None:
            return None
        got = _two_column_csv(P, ctx, path, raw, "station_ft", "elevation_ft")
        if got is None:
            return None
        xs, zs, where = got
        for x, z, (name, lineno) in zip(xs, zs, where):
            if not (math.isfinite(x) and math.isfinite(z)):
                P.add(f"{path}.csv", f"must hold finite numbers; got {x}, {z} at {name} "
                                     f"line {lineno}")
                return None
        return {"csv": raw, "station_ft": xs, "elevation_ft": zs}
    if not has_lists:
        P.add(f"{path}.station_ft", "and elevation_ft (or csv) are required for section = "
                                    "\"user\"; got nothing. Give the cross-section points "
                                    "from the left bank to the right bank")
        return None
    xs = P.numbers(e, "station_ft", path, min_len=3)
    zs = P.numbers(e, "elevation_ft", path, min_len=3)
    if xs is None or zs is None:
        return None
    if len(xs) != len(zs):
        P.add(f"{path}.elevation_ft", f"must have as many values as station_ft ({len(xs)}); "
                                      f"got {len(zs)}")
        return None
    return {"station_ft": xs, "elevation_ft": zs}


def _top_stage(ss) -> float | None:
    top = getattr(ss, "top_stage_ft", None)
    if callable(top):
        top = top()
    try:
        return float(top) if top is not None else None
    except (TypeError, ValueError):
        return None


def _parse_scenario(P: _Problems, name: str, m, ctx: _Ctx) -> Scenario | None:
    prefix = name
    if m is None:
        P.raw(f"{P.where}: [{name}] scenario is required; got nothing. Add [[{name}.subcatchment]] "
              f"and [[{name}.design_point]] entries.")
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
            from hydrocalc import rational_site

            s = rational_site.parse_subcatchment(P, e, path, ctx, _this_module())
            if s is not None:
                rational.append(s)
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


def _this_module():
    import sys

    return sys.modules[__name__]


def _check_backwater(P: _Problems, prefix: str, ponds: list) -> None:
    """A pond with ``backwater = true`` discharges into another pond and feels its level.
    Such ponds form chains or trees (several may back into one pond) routed together with
    the pond they end in (see hydrocalc.interconnected): every pond of the group in
    elevations and a single unit, no tailwater_ft on a backwater pond (the downstream
    pond's level is its tailwater), at most a constant tailwater where the group ends."""
    by_id = {p.id: p for p in ponds}
    for p in ponds:
        if not p.backwater:
            continue
        path = f"{prefix}.pond[{p.id}].backwater"
        down = by_id.get(p.to)
        if down is None:
            P.add(path, f"needs the pond to discharge into another pond; got to = {p.to!r}")
            continue
        if p.bottom_elevation_ft is None or down.bottom_elevation_ft is None:
            P.add(path, "needs both ponds in elevations (bottom_elevation_ft); got "
                        f"{p.id!r}: {p.bottom_elevation_ft}, {down.id!r}: "
                        f"{down.bottom_elevation_ft}")
        if p.tailwater is not None:
            P.add(path, "and tailwater_ft must not both be given (the downstream pond's level is "
                        "the tailwater); got both")
        if p.count != 1 or down.count != 1:
            P.add(path, f"needs single units (count = 1) in {p.id!r} and {down.id!r}")
        if (not down.backwater and down.tailwater is not None
                and not isinstance(down.tailwater, float)):
            P.add(path, f"supports a constant tailwater at pond {down.id!r}; got a series")


def _check_topology(P: _Problems, name: str, raw: Mapping[str, tuple[str, str | None]]) -> None:
    """Targets exist and can receive flow; no cycle; every node reaches a design point."""
    kinds = {k: v[0] for k, v in raw.items()}

    def kp(nid):
        return f"{name}.{kinds[nid]}[{nid}]"

    edges: dict[str, str | None] = {}
    bad_target = False
    for nid, (kind, to) in raw.items():
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


# ----------------------------------------------------------------------------------------
# entry points

_TOP_KEYS = ("project", "construction", "storms", "analysis", "criteria", "checks", "pre",
             "post", "confirmations", "rational")


def _where(path) -> str:
    return pathlib.Path(path).name if path is not None else "site.toml"


def _annotate(problems: list[str], P: _Problems) -> list[str]:
    """Append line numbers to problems produced by other modules' parsers."""
    out = []
    pat = re.compile(rf"^{re.escape(P.where)}: (?:unknown key )?([A-Za-z0-9_.\[\]\-]+)")
    for line in problems:
        m = pat.match(line)
        if m and "(line " not in line:
            path = re.sub(r"\[\d+\]$", "", m.group(1))
            line = line + P.line_of(path)
        out.append(line)
    return out


def _p2_fallback(doc: Mapping, base: pathlib.Path) -> float | None:
    """The 2-yr depth when ``[storms]`` has other problems, so that every problem is
    reported in one pass without false "no 2yr storm" errors.

    The inline ``depths_in."2yr"`` or the depth file's 2-yr depth when readable; when the
    depths cannot be known (the storms problems are reported), a placeholder of 3 in lets
    the Tc checks run (the site is refused anyway).
    """
    m = doc.get("storms")
    if not isinstance(m, Mapping):
        return None
    own = m.get("depths_in")
    if isinstance(own, Mapping):
        v = own.get("2yr")
        if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and v > 0:
            return float(v)
    raw = m.get("file")
    if isinstance(raw, str):
        try:
            info = _load_storm_file(_resolve(base, raw, field="storms.file", design_storms=True))
            v = info["depths_in"].get("2yr")
            if v is not None:
                return float(v)
        except (HydrocalcError, OSError, ValueError, RecursionError, tomllib.TOMLDecodeError):
            return 3.0
        return None
    return None if isinstance(own, Mapping) else 3.0


def site_problems(doc: Mapping[str, Any], *, where: str = "site.toml",
                  base_dir: pathlib.Path | str | None = None, text: str | None = None,
                  input_files: dict[str, str] | None = None,
                  path: pathlib.Path | None = None,
                  allow_outside_paths: bool | None = None) -> tuple[Site | None, list[str]]:
    if allow_outside_paths is None:
        allow_outside_paths = outside_paths_default()
    token = _ALLOW_OUTSIDE.set(bool(allow_outside_paths))
    try:
        return _site_problems(doc, where=where, base_dir=base_dir, text=text,
                              input_files=input_files, path=path,
                              allow_outside_paths=bool(allow_outside_paths))
    finally:
        _ALLOW_OUTSIDE.reset(token)




def _site_problems(doc: Mapping[str, Any], *, where: str, base_dir, text, input_files, path,
                   allow_outside_paths: bool) -> tuple[Site | None, list[str]]:
    """Validate a parsed site mapping; return ``(site or None, problems)`` without raising.

    Parameters
    ----------
    doc : mapping
        The parsed TOML document.
    where : str
        File name used as the prefix of each problem line.
    base_dir : path-like, optional
        Folder that relative file names (CSV, storm and rainfall files) resolve against.
    text : str, optional
        The TOML text, used only to add line numbers to problems.
    input_files : dict, optional
        ``{relative path: sha256}`` already collected (the site file itself); extended with
        every file the site references.
    path : pathlib.Path, optional
        The site file, stored on the :class:`Site`.
    allow_outside_paths : bool, optional
        Accept file names that leave the site's folder (``..``, absolute paths, symbolic
        links out of it). Default (None): False unless the environment variable
        ``HYDROCALC_ALLOW_OUTSIDE_PATHS=1`` is set (the CLI's ``--allow-outside-paths``). By default every file a site names (CSV tables, rainfall record,
        depth files) must lie inside the site file's folder, and a depth file may also lie
        in a ``design_storms/`` folder (see ``docs/validation.md``), so a site file from a
        stranger cannot read the rest of the machine.
    """
    base = pathlib.Path(base_dir) if base_dir is not None else pathlib.Path.cwd()
    P = _Problems(where, key_lines(text) if text else None)
    files = dict(input_files or {})
    if not isinstance(doc, Mapping):
        return None, [f"{where}: the site file must be a TOML table; got {type(doc).__name__}"]
    for key in doc:
        if key not in _TOP_KEYS:
            hint = suggest(str(key), _TOP_KEYS) or f". Valid: {', '.join(_TOP_KEYS)}"
            P.raw(f"{where}: unknown top-level key {key}{hint}{P.line_of(str(key))}")

    from hydrocalc import project as project_mod

    facts, probs = project_mod.parse_project(doc.get("project"), where=where)
    P.items += _annotate(probs, P)
    construction = None
    if "construction" in doc:
        municipality = facts.municipality if facts is not None else None
        construction, probs = project_mod.parse_construction(
            doc.get("construction"), where=where, base_dir=base, municipality=municipality,
            allow_outside_paths=allow_outside_paths)
        P.items += _annotate(probs, P)
        rf = getattr(construction, "rainfall_file", None)
        if rf is not None and pathlib.Path(rf).is_file():
            _register_input(files, base, pathlib.Path(rf))
    storms = _parse_storms(P, doc.get("storms"), base, files)
    options = _parse_analysis(P, doc.get("analysis"))
    criteria = _parse_criteria(P, doc.get("criteria"), storms)
    p2 = storms.depths_in.get("2yr") if storms is not None else _p2_fallback(doc, base)
    ctx = _Ctx(base, files, p2)
    scenarios = {}
    for name in SCENARIOS:
        sc = _parse_scenario(P, name, doc.get(name), ctx)
        if sc is not None:
            scenarios[name] = sc
    rational = _parse_rational(P, doc, base, files, storms, criteria, scenarios)
    if len(scenarios) == 2:
        pre_dp = {d.id for d in scenarios["pre"].design_points}
        post_dp = {d.id for d in scenarios["post"].design_points}
        for sc_name, own, other in (("pre", pre_dp, post_dp), ("post", post_dp, pre_dp)):
            missing_from = "post" if sc_name == "pre" else "pre"
            for dp in sorted(own - other):
                P.add(f"{sc_name}.design_point[{dp}]",
                      f"is missing from scenario {missing_from}; every design point must be in "
                      "both scenarios to compare them")
    if options is not None and scenarios:
        try:
            from hydrocalc.unit_hydrograph import MIN_TC_HR, max_dt_hr
        except ImportError:  # pragma: no cover - hydrograph topic absent
            max_dt_hr = None
        if max_dt_hr is not None:
            subs = [(sc.name, sb) for sc in scenarios.values() for sb in sc.subcatchments]
            if subs:
                name, tight = min(subs, key=lambda x: x[1].tc_hr)
                limit = float(max_dt_hr(max(tight.tc_hr, MIN_TC_HR)))
                if options.dt_hr > limit * (1 + 1e-9):
                    P.add("analysis.dt_hr",
                          f"must be <= {limit:.4g} h to resolve the unit hydrograph of "
                          f"{name}.subcatchment[{tight.id}] (Tc {fmt_value(round(tight.tc_hr, 4))} h; "
                          f"D <= 0.25 Tp, NEH 630 Ch. 16); got {fmt_value(options.dt_hr)}. "
                          "Use 0.01 (resolves any Tc >= 0.1 h)")
    notes = []
    if storms is not None:
        notes += list(storms.warnings)
    from hydrocalc import plausibility

    checks, probs = plausibility.parse_checks(doc.get("checks"), where)
    P.items += _annotate(probs, P)
    confirmations = _parse_confirmations(P, doc.get("confirmations"))
    if P.items:
        return None, P.items
    notes += _confirmation_notes(confirmations, where)
    # one pre/post area tolerance: [checks] area_tolerance_pct (plausibility and report alike)
    options = dataclasses.replace(options, area_tolerance_pct=float(checks["area_tolerance_pct"]))
    site = Site(name=facts.name, project=facts, storms=storms, scenarios=scenarios,
                criteria=criteria, options=options, construction=construction, path=path,
                input_files=dict(sorted(files.items())), notes=tuple(notes),
                confirmations=confirmations, rational=rational)
    # the site as a whole: refuse the impossible, warn on the implausible
    impossible, implausible = plausibility.site_checks(site, checks)
    if impossible:
        return None, _annotate([f"{where}: {line}" for line in impossible], P)
    if implausible:
        site = dataclasses.replace(site, notes=site.notes + tuple(implausible))
    return site, []


site_problems.__doc__ = _site_problems.__doc__


def _parse_rational(P: _Problems, doc, base, files, storms, criteria, scenarios):
    """``[rational]`` settings; required by (and only with) rational subcatchments, which
    need ``[criteria] standard = "none"`` (the sizing criteria need impervious covers)."""
    from hydrocalc import rational_site

    users = [(sc.name, s.id) for sc in scenarios.values() for s in sc.rational]
    settings = None
    if "rational" in doc and storms is not None:
        settings = rational_site.parse_settings(P, doc["rational"], base, files, storms.names,
                                                _this_module())
    if users and "rational" not in doc:
        name, sid = users[0]
        P.add(f"{name}.subcatchment[{sid}].method", "= \"rational\" needs a [rational] "
              "table naming the intensity source (pfds_csv, depth_file or idf); got none")
    if users and criteria is not None and criteria.standard != "none":
        name, sid = users[0]
        P.add(f"{name}.subcatchment[{sid}].method", f"= \"rational\" cannot be used with the "
              f"sizing criteria (criteria.standard = {criteria.standard!r}): WQv, RRv and Cpv "
              "need every area's impervious cover and curve number. Give the area as a TR-55 "
              "subcatchment, or set [criteria] standard = \"none\" for a conveyance study")
    if settings is not None:
        rational_site.check_durations(P, settings, scenarios, storms.names)
    return settings


#: Item keys of ``[confirmations]`` besides the two families ``criterion_<criterion>`` and
#: ``trap_criteria_<sediment criteria key>`` (the keys of the report's "Values to confirm
#: before submission" table, plus the ``sediment_traps`` statement).
CONFIRMATION_ITEMS = ("storm_depths", "wqv_precip_in", "rrv_factors", "regulation_profile",
                      "sediment_traps")
#: Criteria whose row can need confirming: ``criterion_<name>`` (the ``criterion`` column of
#: the sizing-criteria table).
CONFIRMABLE_CRITERIA = ("wqv", "wqv_redevelopment_impervious_reduction", "rrv", "cpv",
                        "cpv_orifice", "cpv_detention_time", "qp", "qf", "qf_safe_passage")


def confirmation_items() -> tuple[str, ...]:
    """Every key a ``[confirmations]`` entry may use (whether or not a given site lists it).

    Examples
    --------
    >>> "criterion_rrv" in confirmation_items() and "storm_depths" in confirmation_items()
    True
    """
    from hydrocalc.sediment import criteria_table

    return (CONFIRMATION_ITEMS + tuple(f"criterion_{c}" for c in CONFIRMABLE_CRITERIA)
            + tuple(f"trap_criteria_{k}" for k in criteria_table().index))


def _confirmation_notes(confirmations: Mapping[str, str], where: str) -> list[str]:
    """A warning for each ``[confirmations]`` key that names no item (a typo would otherwise
    leave the item silently unconfirmed)."""
    if not confirmations:
        return []
    known = confirmation_items()
    return [f"confirmations: {where}: [confirmations] key {key!r} names no item to confirm, "
            f"so it confirms nothing{suggest(key, known) or '.'} Known items: "
            f"{', '.join(known)}" for key in confirmations if key not in known]


def _parse_confirmations(P: _Problems, m) -> dict[str, str]:
    """``[confirmations]``: item key -> the source the preparer checked the value against
    (see ``docs/site_file.md``; the keys are those of the report's "Values to confirm
    before submission" table)."""
    if m is None:
        return {}
    if not isinstance(m, Mapping):
        P.add("confirmations", f"must be a table of item = \"source\"; got {m!r}")
        return {}
    out = {}
    for k, v in m.items():
        if not isinstance(v, str) or not v.strip():
            P.add(f"confirmations.{k}", "must be the source the value was checked against "
                                        f"(non-empty text); got {v!r}")
        else:
            out[str(k)] = v.strip()
    return out


def parse_site(doc: Mapping[str, Any], *, where: str = "site.toml",
               base_dir: pathlib.Path | str | None = None, text: str | None = None,
               input_files: dict[str, str] | None = None,
               path: pathlib.Path | None = None, allow_outside_paths: bool | None = None) -> Site:
    """Validate a parsed site mapping and build a :class:`Site` (see :func:`site_problems`).

    Raises
    ------
    InputError
        Listing every problem, one per line.
    """
    site, problems = site_problems(doc, where=where, base_dir=base_dir, text=text,
                                   input_files=input_files, path=path,
                                   allow_outside_paths=allow_outside_paths)
    if problems:
        raise InputError("\n".join(problems))
    return site


#: Largest site file read (a large site is about 50 kB).
MAX_SITE_FILE_BYTES = 4 * 1024 * 1024


def _read(path) -> tuple[pathlib.Path, str, dict, dict[str, str]]:
    import os
    import stat

    p = pathlib.Path(path)
    where = _where(p)
    try:
        st = os.stat(p)
        if not stat.S_ISREG(st.st_mode):
            raise InputError(f"site file must be a regular file; got {excerpt(str(path), 80)!r}"
                             " (a folder, device or pipe)")
        if st.st_size > MAX_SITE_FILE_BYTES:
            raise InputError(f"{where}: must be at most {MAX_SITE_FILE_BYTES // 2**20} MiB; got "
                             f"{st.st_size / 2**20:.1f} MiB")
        with open(p, "rb") as fh:
            raw = fh.read(MAX_SITE_FILE_BYTES + 1)
    except OSError as exc:
        raise InputError(f"site file must be a readable file; got {excerpt(str(path), 80)!r} "
                         f"({exc.strerror or exc})") from None
    if len(raw) > MAX_SITE_FILE_BYTES:
        raise InputError(f"{where}: must be at most {MAX_SITE_FILE_BYTES // 2**20} MiB")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{where}: must be UTF-8 text; byte {exc.start} is not") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: TOML syntax error: {exc}") from None
    except RecursionError:
        raise InputError(f"{where}: TOML syntax error: arrays or tables nested too deeply "
                         "(a site file needs at most a few levels)") from None
    files = {p.name: hashlib.sha256(raw).hexdigest()}
    return p, text, doc, files


def check_site(path, *, allow_outside_paths: bool | None = None) -> list[str]:
    """Every problem of site file ``path`` (empty list if it is valid); never raises on content.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "site.toml").write_text("[projct]\\n")
    >>> check_site(d / "site.toml")[0]
    "site.toml: unknown top-level key projct; did you mean 'project' or 'post'? (line 1)"
    """
    try:
        p, text, doc, files = _read(path)
    except InputError as exc:
        return str(exc).splitlines()
    _, problems = site_problems(doc, where=_where(p), base_dir=p.parent, text=text,
                                input_files=files, path=p,
                                allow_outside_paths=allow_outside_paths)
    return problems


def load_site(path, *, allow_outside_paths: bool | None = None) -> Site:
    """Read, validate and build the site in TOML file ``path``.

    Parameters
    ----------
    path : path-like
        The site file. Relative file names inside it (CSV tables, ``storms.file``,
        ``construction.rainfall_file``) resolve against its folder and must lie inside it
        (a depth file may also lie in a ``design_storms/`` folder).
    allow_outside_paths : bool, optional
        Accept file names outside the folder (for a site file you wrote yourself). Default:
        the ``HYDROCALC_ALLOW_OUTSIDE_PATHS`` environment variable (CLI
        ``--allow-outside-paths``), else False.

    Returns
    -------
    Site

    Raises
    ------
    InputError
        One error listing every problem found, one per line, each as
        ``site.toml: post.subcatchment[S-2].area_ac must be > 0; got -3 (line 41)``.
    """
    p, text, doc, files = _read(path)
    return parse_site(doc, where=_where(p), base_dir=p.parent, text=text, input_files=files,
                      path=p, allow_outside_paths=allow_outside_paths)
