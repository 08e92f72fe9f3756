"""The site's containers: frozen dataclasses from :class:`Cover` up to :class:`Site`.

Every container is immutable, so ``dataclasses.replace`` and :meth:`Site.replace_node`
produce variants (parameter sweeps) without re-reading files. The parsers that build them
from a site file live in the sibling modules; :mod:`hydrocalc.site` lists them.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import pathlib
import re
from collections.abc import Mapping
from typing import Any

from hydrocalc import display
from hydrocalc._validate import fmt_value, number_problem, suggest
from hydrocalc.design_storms.shape import depth_source_kind
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import OutletStructure
from hydrocalc.site import network
from hydrocalc.site.devices import device_level_ft

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
        """Total impervious area, connected plus unconnected [ac]."""
        return self.impervious_connected_ac + self.impervious_unconnected_ac

    @property
    def impervious_pct(self) -> float:
        """Impervious share of the subcatchment area [%]."""
        return 100.0 * self.impervious_ac / self.area_ac

    @property
    def kind(self) -> str:
        """Node kind: ``"subcatchment"``."""
        return "subcatchment"


@dataclasses.dataclass(frozen=True)
class Pond:
    """A storage node: stage-storage relation and outlet devices (in parallel).

    ``count`` identical units (e.g. leaching pools) share the inflow equally; the analysis
    routes one unit with ``inflow / count`` and multiplies its outflow and storage by
    ``count``. Flow through :class:`hydrocalc.hydraulics.outlets.Exfiltration` devices leaves the
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
        """Node kind: ``"pond"``."""
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
        """A stage (array) above the pond bottom as a level in the file's frame [ft].

        The level is an elevation when the pond has ``bottom_elevation_ft``.
        """
        return stage_ft + (self.bottom_elevation_ft or 0.0)

    def structure(self):
        """Outlet devices as one :class:`hydrocalc.hydraulics.outlets.OutletStructure` for routing.

        Devices other than exfiltration discharge through ``barrel`` when one is given.
        """
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
        """Lowest invert/crest of the devices that discharge downstream (inf if none) [ft]."""
        levels = [
            device_level_ft(spec)
            for spec, t in zip(self.outlet_spec, self.outlet_types, strict=True)
            if t != "exfiltration"
        ]
        return min(levels) if levels else math.inf


@dataclasses.dataclass(frozen=True)
class Reach:
    """A reach: a pure lag (``lag_hr``, shape unchanged) or a routed pipe or channel.

    With ``conveyance`` (a :class:`hydrocalc.hydraulics.conveyance.Conveyance`) the analysis
    routes the inflow by variable-parameter Muskingum-Cunge
    (:func:`hydrocalc.hydraulics.conveyance.route_conveyance`, NEH 630 Ch. 17); ``lag_hr``
    must then be 0. ``conveyance_spec`` echoes the site-file fields (section, dimensions,
    length, slope, n).
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
        """Node kind: ``"reach"``."""
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
        """Node kind: ``"design_point"``."""
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
    #: ``method = "rational"`` subcatchments
    #: (:class:`hydrocalc.site.rational.RationalSubcatchment`);
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
        """Total area of the scenario's subcatchments, rational ones included [ac]."""
        return sum(s.area_ac for s in self.subcatchments) + sum(s.area_ac for s in self.rational)

    @property
    def impervious_ac(self) -> float:
        """Total impervious area of the scenario's subcatchments [ac]."""
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
    #: The depth file is marked ``illustrative = true`` (not atlas values).
    illustrative: bool = False
    #: The depth file's ``suggested_distribution`` (from ``import-pfds``), else "".
    suggested_distribution: str = ""

    @property
    def depth_source(self) -> str:
        """Where the depths come from: ``"noaa_atlas_14"``, ``"nrcc"`` or ``"other"``.

        See :func:`hydrocalc.design_storms.depth_source_kind`.
        """
        return depth_source_kind(self.source, illustrative=self.illustrative)

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
    #: ``[[criteria.practice]]``: runoff-reduction practices (:mod:`hydrocalc.criteria.practices`).
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
class ReportSettings:
    """``[report]``: the engineer's own sections and the notebooks' time limit.

    Attributes
    ----------
    extra_sections : tuple of str
        Notebooks of the engineer's own (paths relative to the site file's folder, confined
        to it), executed after the standard sections in the order listed.
    notebook_timeout_s : float
        Longest time one section notebook may run, in seconds (default 120).
    """

    extra_sections: tuple[str, ...] = ()
    notebook_timeout_s: float = 120.0


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
    #: ``[rational]`` (:class:`hydrocalc.site.rational.RationalSettings`) or None.
    rational: Any = None
    #: ``[report]``: the engineer's own sections and the notebooks' time limit.
    report: ReportSettings = dataclasses.field(default_factory=ReportSettings)

    @property
    def pre(self) -> Scenario:
        """The pre-development scenario."""
        return self.scenarios["pre"]

    @property
    def post(self) -> Scenario:
        """The post-development scenario."""
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
        groups: dict[str, Any] = {}
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
            self.storms,
            depths_in={**self.storms.depths_in, **{k: float(v) for k, v in depths_in.items()}},
        )
        return dataclasses.replace(self, storms=storms)

    def _repr_html_(self) -> str:
        return display.html(self)

    def __repr__(self) -> str:
        return display.text(self)
