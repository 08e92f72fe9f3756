"""One sediment trap: :class:`SedimentTrap` and its :class:`TrapCheck`.

:class:`SedimentTrap` holds the geometry and MUSLE inputs; :class:`TrapCheck` the required
vs provided storage and the 50 % cleanout mark [1]_.

References
----------
.. [1] Town of Shelter Island Code § 110-39B; Village of Pelham Code ch. 83 (maintenance
   during construction): 50 % cleanout rule.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, cast

import numpy as np

from hydrocalc._typing import FloatOrArray
from hydrocalc._validate import (
    MAX_PROJECT_AREA_AC,
    as_float_array,
    fmt_value,
    number_problem,
    text_problem,
)
from hydrocalc.construction.sediment.musle import ls_factor
from hydrocalc.construction.sediment.trap_criteria import (
    SedimentCriteria,
    criteria,
    required_storage_ft3,
)
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.routing import StageStorage
from hydrocalc.runoff import runoff_depth

# ----------------------------------------------------------------------------------------
# containers


#: The one rule set for the numbers of a trap (``[[construction.trap]]``, :class:`SedimentTrap`).
TRAP_NUMBER_RULES: dict[str, dict[str, Any]] = {
    "drainage_area_ac": dict(lower=0.0, lower_inclusive=False, upper=MAX_PROJECT_AREA_AC),
    "bottom_length_ft": dict(lower=0.0, lower_inclusive=False),
    "bottom_width_ft": dict(lower=0.0, lower_inclusive=False),
    "depth_ft": dict(lower=0.0, lower_inclusive=False),
    "side_slope_h_per_v": dict(lower=0.0),
    "k_factor": dict(lower=0.0, upper=1.0),
    "c_factor": dict(lower=0.0, upper=1.0),
    "p_factor": dict(lower=0.0, upper=1.0, lower_inclusive=False),
    "ls_factor": dict(lower=0.0),
    "slope_length_ft": dict(lower=0.0, lower_inclusive=False),
    "slope_pct": dict(lower=0.0, upper=100.0),
    "cn": dict(lower=40.0, upper=98.0,
               hint=". The TR-55 graphical peak method covers CN 40-98."),
    "tc_hr": dict(lower=0.1, upper=10.0,
                  hint=". The TR-55 graphical peak method covers Tc 0.1-10 h; TR-55 uses "
                       "0.1 h as the minimum Tc."),
    "design_precip_in": dict(lower=0.0, lower_inclusive=False),
    "dry_unit_weight_lb_ft3": dict(lower=0.0, lower_inclusive=False, upper=170.0),
    "trap_efficiency_frac": dict(lower=0.0, upper=1.0),
}


def trap_problems(trap) -> list[str]:
    """Every rule a trap object (a :class:`SedimentTrap` or alike) breaks, one line each.

    The same numeric rules as ``[[construction.trap]]`` in a site file: id text,
    criteria text, every given number in its range, a stage-area table with as many areas as
    stages, stages strictly increasing and areas >= 0, and not both geometries.
    """
    out: list[str] = []
    for key in ("id", "criteria"):
        bad = text_problem(getattr(trap, key, None), required=True)
        if bad:
            out.append(f"{key} {bad}")
    for key, rule in TRAP_NUMBER_RULES.items():
        v = getattr(trap, key, None)
        if v is None and key != "drainage_area_ac":
            continue
        r = {k: val for k, val in rule.items() if k != "hint"}
        bad = number_problem(v, **r)
        if bad:
            out.append(f"{key} {bad}")
    st, ar = getattr(trap, "stage_ft", None), getattr(trap, "area_ft2", None)
    if (st is None) != (ar is None):
        out.append("stage_ft and area_ft2 must be given together; got one of them")
    elif st is not None and ar is not None:
        try:
            st_f, ar_f = [float(x) for x in st], [float(x) for x in ar]
        except (TypeError, ValueError):
            out.append("stage_ft and area_ft2 must be lists of numbers")
        else:
            if len(st_f) < 2 or len(st_f) != len(ar_f):
                out.append(f"area_ft2 must have as many values as stage_ft (at least 2); got "
                           f"{len(ar_f)} and {len(st_f)}")
            elif not all(math.isfinite(x) for x in st_f + ar_f):
                out.append("stage_ft and area_ft2 must be finite numbers")
            elif any(b <= a for a, b in zip(st_f, st_f[1:], strict=False)):
                out.append(f"stage_ft must be strictly increasing; got {st_f}"[:200])
            elif any(a < 0 for a in ar_f):
                out.append(f"area_ft2 must be >= 0; got {ar_f}"[:200])
        if getattr(trap, "bottom_length_ft", None) is not None:
            out.append("geometry must be either the basin dimensions or stage_ft/area_ft2; "
                       "got both")
    return out


@dataclasses.dataclass(frozen=True)
class TrapCheck:
    """Required vs provided storage of one trap and its cleanout mark."""

    trap_id: str
    criteria: SedimentCriteria
    drainage_area_ac: float
    required_ft3: float
    lower_zone_ft3: float
    upper_zone_ft3: float
    provided_ft3: float | None
    design_capacity_ft3: float
    capacity_basis: str
    cleanout_frac: float
    cleanout_volume_ft3: float
    cleanout_stage_ft: float | None
    depth_ft: float | None

    @property
    def ok(self) -> bool | None:
        """Provided >= required (None without geometry)."""
        if self.provided_ft3 is None:
            return None
        return self.provided_ft3 >= self.required_ft3 * (1 - 1e-12)

    def to_dict(self) -> dict:
        """Plain dict with the criteria's source and status."""
        return {
            "trap_id": self.trap_id,
            "criteria": self.criteria.key,
            "criteria_source": self.criteria.label,
            "criteria_status": self.criteria.status,
            "drainage_area_ac": self.drainage_area_ac,
            "required_ft3": self.required_ft3,
            "lower_zone": self.criteria.lower_zone,
            "lower_zone_ft3": None if np.isnan(self.lower_zone_ft3) else self.lower_zone_ft3,
            "upper_zone": self.criteria.upper_zone,
            "upper_zone_ft3": None if np.isnan(self.upper_zone_ft3) else self.upper_zone_ft3,
            "provided_ft3": self.provided_ft3,
            "provided_ok": self.ok,
            "design_capacity_ft3": self.design_capacity_ft3,
            "capacity_basis": self.capacity_basis,
            "cleanout_frac": self.cleanout_frac,
            "cleanout_volume_ft3": self.cleanout_volume_ft3,
            "cleanout_stage_ft": self.cleanout_stage_ft,
            "depth_ft": self.depth_ft,
        }


@dataclasses.dataclass(frozen=True)
class SedimentTrap:
    """A sediment trap or basin: drainage area, criteria, geometry and MUSLE inputs.

    Build it directly or from a site-file entry with :meth:`from_plan`. Geometry is a
    trapezoidal basin (``bottom_length_ft``, ``bottom_width_ft``, ``depth_ft``,
    ``side_slope_h_per_v``) or a stage-area table (``stage_ft``, ``area_ft2``, stages
    measured from the trap bottom), or absent.
    """

    id: str
    drainage_area_ac: float
    criteria: str  # required: the NY Blue Book row is unverified, so it is never a silent default
    bottom_length_ft: float | None = None
    bottom_width_ft: float | None = None
    depth_ft: float | None = None
    side_slope_h_per_v: float | None = None
    stage_ft: tuple[float, ...] | None = None
    area_ft2: tuple[float, ...] | None = None
    k_factor: float | None = None
    ls_factor: float | None = None
    slope_length_ft: float | None = None
    slope_pct: float | None = None
    c_factor: float | None = None
    p_factor: float | None = None
    cn: float | None = None
    tc_hr: float | None = None
    dry_unit_weight_lb_ft3: float | None = None
    trap_efficiency_frac: float | None = None
    design_precip_in: float | None = None

    def __post_init__(self):
        problems = trap_problems(self)
        if problems:
            raise InputError("\n".join(f"trap {self.id}: {p}" for p in problems))

    @classmethod
    def from_plan(cls, plan) -> SedimentTrap:
        """The trap of an object with the fields of a trap (a trap is returned as it is).

        A site file's ``[[construction.trap]]`` entries are already :class:`SedimentTrap`.
        """
        if isinstance(plan, cls):
            return plan
        fields = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in dataclasses.asdict(plan).items() if k in fields}
        return cls(**values)

    @property
    def has_musle(self) -> bool:
        """True when the MUSLE inputs are given (cleanout schedule possible)."""
        return self.k_factor is not None

    # geometry ---------------------------------------------------------------------------
    @property
    def geometry(self) -> str | None:
        """``"trapezoidal"``, ``"stage_area"`` or ``None``."""
        if self.bottom_length_ft is not None:
            return "trapezoidal"
        if self.stage_ft is not None:
            return "stage_area"
        return None

    @property
    def stage_storage(self):
        """The trap's :class:`hydrocalc.hydraulics.routing.StageStorage` (stage 0 = trap bottom).

        A trapezoidal trap uses ``StageStorage.basin`` (exact prismoid); a stage-area table
        uses ``StageStorage.from_areas(..., method="conic")`` (frustum formula between rows),
        with stages shifted so the first row is 0.
        """
        if self.geometry == "trapezoidal":
            return StageStorage.basin(self.bottom_length_ft, self.bottom_width_ft,
                                      self.depth_ft, side_slope_h_per_v=self.side_slope_h_per_v,
                                      name=self.id)
        if self.geometry == "stage_area":
            h = np.asarray(self.stage_ft, dtype=float)
            return StageStorage.from_areas(h - h[0], self.area_ft2, method="conic",
                                           name=self.id)
        raise InputError(f"trap {self.id}: geometry must be given for a stage-storage "
                         "relation; got none")

    def storage_ft3(self, stage_ft) -> FloatOrArray:
        """Storage below a stage measured from the trap bottom [ft3]."""
        return self.stage_storage.storage_ft3(stage_ft)

    def stage_at_storage_ft(self, storage_ft3) -> FloatOrArray:
        """Stage (from the bottom) holding ``storage_ft3`` [ft]."""
        return self.stage_storage.stage_ft(storage_ft3)

    @property
    def top_stage_ft(self) -> float | None:
        """Depth of the storage (``depth_ft`` or the last table stage) [ft]."""
        if self.geometry == "trapezoidal":
            return float(cast(float, self.depth_ft))
        if self.geometry == "stage_area":
            st = cast(tuple[float, ...], self.stage_ft)  # not None: that is the geometry
            return float(st[-1] - st[0])
        return None

    @property
    def provided_ft3(self) -> float | None:
        """Storage the geometry provides up to its top stage [ft3]."""
        top = self.top_stage_ft
        return None if top is None else float(self.storage_ft3(top))

    # criteria ---------------------------------------------------------------------------
    @property
    def criteria_row(self) -> SedimentCriteria:
        """The criteria row (source and status)."""
        return criteria(self.criteria)

    def design_runoff_in(self) -> float | None:
        """Runoff of ``design_precip_in`` with the trap's CN (runoff_volume criteria) [in]."""
        if self.design_precip_in is None:
            return None
        if self.cn is None:
            raise InputError(f"trap {self.id}: cn must be given with design_precip_in; got none")

        return float(runoff_depth(self.design_precip_in, self.cn))

    def check(self, *, cleanout_frac: float = 0.5) -> TrapCheck:
        """Required vs provided storage and the cleanout mark.

        Parameters
        ----------
        cleanout_frac : float
            Fraction of the design capacity at which sediment must be removed (0.5 in
            Shelter Island § 110-39B and Pelham ch. 83). [-]
        """
        frac = float(as_float_array(cleanout_frac, "cleanout_frac", lower=0.0, upper=1.0,
                                    lower_inclusive=False))
        crit = self.criteria_row
        if crit.method == "runoff_volume" and self.design_precip_in is None:
            raise InputError(
                f"trap {self.id}: design_precip_in must be given for criteria {crit.key!r} "
                f"(the {fmt_value(crit.runoff_return_period_yr)}-year 24-hour rainfall); got "
                "nothing"
            )
        total, lower, upper = required_storage_ft3(
            self.drainage_area_ac, crit.key, runoff_in=self.design_runoff_in(), zones=True
        )
        provided = self.provided_ft3
        if provided is not None:
            capacity, basis = provided, "provided storage of the trap geometry"
        else:
            capacity, basis = float(total), "required storage of the criteria (no geometry)"
        volume = frac * capacity
        stage = None if provided is None else float(self.stage_at_storage_ft(volume))
        return TrapCheck(
            trap_id=self.id,
            criteria=crit,
            drainage_area_ac=float(self.drainage_area_ac),
            required_ft3=float(total),
            lower_zone_ft3=float(lower),
            upper_zone_ft3=float(upper),
            provided_ft3=provided,
            design_capacity_ft3=capacity,
            capacity_basis=basis,
            cleanout_frac=frac,
            cleanout_volume_ft3=volume,
            cleanout_stage_ft=stage,
            depth_ft=self.top_stage_ft,
        )

    # MUSLE ------------------------------------------------------------------------------
    @property
    def ls(self) -> float:
        """LS given or computed from slope length and steepness."""
        if self.ls_factor is not None:
            return float(self.ls_factor)
        if self.slope_length_ft is None or self.slope_pct is None:
            raise InputError(
                f"trap {self.id}: ls_factor or slope_length_ft and slope_pct must be given; "
                "got neither"
            )
        return float(ls_factor(self.slope_length_ft, self.slope_pct))

    def require_musle(self) -> None:
        """Raise when a MUSLE input is missing."""
        need = ("k_factor", "c_factor", "p_factor", "cn", "tc_hr", "dry_unit_weight_lb_ft3",
                "trap_efficiency_frac")
        missing = [k for k in need if getattr(self, k) is None]
        if missing:
            raise InputError(
                f"trap {self.id}: MUSLE inputs must be given for a cleanout schedule; missing "
                f"{', '.join(missing)}"
            )
        _ = self.ls


def plan_traps(plan) -> list[SedimentTrap]:
    """The traps of a :class:`hydrocalc.site.project.ConstructionPlan` as :class:`SedimentTrap`."""
    return [SedimentTrap.from_plan(t) for t in getattr(plan, "traps", ())]
