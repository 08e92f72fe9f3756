"""The result of level-pool routing: :class:`RoutingResult` and the function that builds it.

Shared by the single routing (:mod:`~hydrocalc.hydraulics.routing.reservoir`) and the routing
against a tailwater series (:mod:`~hydrocalc.hydraulics.routing.tailwater`): from the routed
storage-indication values, the stages, storages, device flows, mass balance and the warnings
(overtopping, instability, reverse flow) of one pond and one storm.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np

from hydrocalc import display
from hydrocalc._validate import check_choice, fmt_value
from hydrocalc.errors import RangeWarning
from hydrocalc.hydraulics.routing.table import (
    OvertoppingWarning,
    _stability,
    _Table,
    interp_ext,
)
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.units import S_PER_HR

__all__ = ["RoutingResult"]

# =========================================================================================
# Single routing
# =========================================================================================
@dataclass(frozen=True, eq=False)
class RoutingResult:
    """Level-pool routing of one hydrograph through one pond.

    Attributes
    ----------
    time_hr, inflow_cfs, outflow_cfs, stage_ft, storage_ft3 : ndarray
        Series on the routing time step [h, ft3/s, ft3/s, ft, ft3]. ``outflow_cfs`` is the
        total outflow (primary + discarded), the quantity in the mass balance.
    primary_cfs, discarded_cfs : ndarray
        Outflow to the downstream system, and exfiltration (leaves the system). [ft3/s]
    device_flows_cfs : dict of str to ndarray
        Flow of every elementary device (after any barrel cap). [ft3/s]
    peak_outflow_cfs, time_of_peak_outflow_hr, peak_stage_ft, peak_storage_ft3 : float
        Peaks of total outflow, stage and storage. [ft3/s, h, ft, ft3]
    peak_primary_cfs : float
        Peak of the outflow to the downstream system. [ft3/s]
    mass_balance_error_pct : float
        100 (V_in - V_out - dS) / (V_in + S_0), volumes by the trapezoidal rule. [%]
    overtopped : bool
        True when the peak stage exceeds ``top_stage_ft``; results above the top assume
        vertical walls and no flow over the embankment.
    top_stage_ft, freeboard_ft, dt_hr : float
        Top of the structure, top minus peak stage (negative when overtopped), step. [ft, h]
    warnings : tuple of str
        Messages also emitted as warnings (overtopping, coarse step, reverse flow).
    datum_ft : float or None
        Elevation of the pond bottom (None: a pond described by stage only). [ft]
    tailwater_ft : ndarray or None
        Tailwater level at every step in the devices' frame (an elevation when the pond has
        a datum, else a stage above the pond bottom); None for a free outfall. [ft]
    reverse_flow : bool
        True when the tailwater drove flow back into the pond (``primary_cfs`` < 0).
    peak_reverse_cfs : float
        Largest flow back into the pond (>= 0). [ft3/s]

    Properties ``elevation_ft`` (series), ``peak_elevation_ft``, ``top_elevation_ft`` and
    ``bottom_elevation_ft`` give water levels as elevations (equal to stages without a datum).
    """

    time_hr: np.ndarray
    inflow_cfs: np.ndarray
    outflow_cfs: np.ndarray
    stage_ft: np.ndarray
    storage_ft3: np.ndarray
    primary_cfs: np.ndarray
    discarded_cfs: np.ndarray
    device_flows_cfs: dict
    peak_outflow_cfs: float
    time_of_peak_outflow_hr: float
    peak_primary_cfs: float
    peak_stage_ft: float
    time_of_peak_stage_hr: float
    peak_storage_ft3: float
    peak_inflow_cfs: float
    time_of_peak_inflow_hr: float
    mass_balance_error_pct: float
    overtopped: bool
    top_stage_ft: float
    freeboard_ft: float
    dt_hr: float
    warnings: tuple = field(default=())
    name: str = ""
    datum_ft: float | None = None
    tailwater_ft: np.ndarray | None = None
    reverse_flow: bool = False
    peak_reverse_cfs: float = 0.0

    @property
    def bottom_elevation_ft(self) -> float:
        """Elevation of the pond bottom (0 without a datum) [ft]."""
        return 0.0 if self.datum_ft is None else float(self.datum_ft)

    @property
    def elevation_ft(self) -> np.ndarray:
        """Water-surface elevation at every step (stage + bottom elevation) [ft]."""
        return self.stage_ft + self.bottom_elevation_ft

    @property
    def peak_elevation_ft(self) -> float:
        """Peak water-surface elevation [ft]."""
        return self.peak_stage_ft + self.bottom_elevation_ft

    @property
    def top_elevation_ft(self) -> float:
        """Elevation of the top of the structure [ft]."""
        return self.top_stage_ft + self.bottom_elevation_ft

    @property
    def peak_tailwater_ft(self) -> float | None:
        """Highest tailwater level in the devices' frame (None for a free outfall) [ft]."""
        return None if self.tailwater_ft is None else float(np.max(self.tailwater_ft))

    def outflow_hydrograph(self, which: str = "total") -> Hydrograph:
        """The outflow as a Hydrograph of the ``which`` flow.

        ``which`` = "total" (default), "primary" (to the downstream system; use this to route on)
        or "discarded" (exfiltration).
        """
        check_choice(which, "which", ("total", "primary", "discarded"))
        q = {"total": self.outflow_cfs, "primary": self.primary_cfs,
             "discarded": self.discarded_cfs}[which]
        return Hydrograph(self.time_hr, np.clip(q, 0.0, None), name=self.name)

    def primary_hydrograph(self) -> Hydrograph:
        """Outflow to the downstream system (excludes exfiltration)."""
        return self.outflow_hydrograph("primary")

    def to_frame(self):
        """DataFrame of the series, one column per device (``<name>_cfs``)."""
        import pandas as pd

        cols = {"time_hr": self.time_hr, "inflow_cfs": self.inflow_cfs,
                "stage_ft": self.stage_ft, "storage_ft3": self.storage_ft3,
                "outflow_cfs": self.outflow_cfs, "primary_cfs": self.primary_cfs,
                "discarded_cfs": self.discarded_cfs}
        if self.datum_ft is not None:
            cols["elevation_ft"] = self.elevation_ft
        if self.tailwater_ft is not None:
            cols["tailwater_ft"] = self.tailwater_ft
        for k, v in self.device_flows_cfs.items():
            cols[f"{k}_cfs"] = v
        return pd.DataFrame(cols)

    def summary(self) -> dict:
        """Peaks, times, mass balance and overtopping with unit-suffixed keys."""
        return {
            "peak_inflow_cfs": self.peak_inflow_cfs,
            "time_of_peak_inflow_hr": self.time_of_peak_inflow_hr,
            "peak_outflow_cfs": self.peak_outflow_cfs,
            "peak_primary_cfs": self.peak_primary_cfs,
            "time_of_peak_outflow_hr": self.time_of_peak_outflow_hr,
            "peak_stage_ft": self.peak_stage_ft,
            "peak_storage_ft3": self.peak_storage_ft3,
            "top_stage_ft": self.top_stage_ft,
            "freeboard_ft": self.freeboard_ft,
            "overtopped": self.overtopped,
            "mass_balance_error_pct": self.mass_balance_error_pct,
            "dt_hr": self.dt_hr,
            "bottom_elevation_ft": self.bottom_elevation_ft,
            "peak_elevation_ft": self.peak_elevation_ft,
            "top_elevation_ft": self.top_elevation_ft,
            "peak_tailwater_ft": self.peak_tailwater_ft,
            "reverse_flow": self.reverse_flow,
            "peak_reverse_cfs": self.peak_reverse_cfs,
        }

    def _repr_html_(self) -> str:
        return display.html(self)

    def __repr__(self) -> str:
        return display.text(self)


def _result(name, t, q, xs, os_, table: _Table, dt, *, stage=None, flows=None, datum=None,
            tailwater=None) -> RoutingResult:
    dt_s = dt * S_PER_HR
    storage = (xs - os_) * dt_s / 2.0
    if stage is None:
        stage = interp_ext(xs, table.si, table.stage)
    if flows is None:
        flows = {nm: interp_ext(xs, table.si, qq) for nm, _, qq in table.parts}
    kinds = {nm: k for nm, k, _ in table.parts}
    discarded = np.sum([v for k, v in flows.items() if kinds[k] == "discarded"] or
                       [np.zeros_like(os_)], axis=0)
    primary = os_ - discarded
    v_in = float(np.trapezoid(q, dx=dt_s))
    v_out = float(np.trapezoid(os_, dx=dt_s))
    d_s = float(storage[-1] - storage[0])
    denom = v_in + float(storage[0])
    mb = 0.0 if denom <= 0 else 100.0 * (v_in - v_out - d_s) / denom
    i_pk = int(np.argmax(os_))
    j_pk = int(np.argmax(stage))
    peak_stage = float(stage[j_pk])
    messages = []
    over = peak_stage > table.top
    if over:
        msg = (f"{name + ': ' if name else ''}the routed stage {fmt_value(peak_stage)} ft "
               f"exceeds the top of the structure ({fmt_value(table.top)} ft) by "
               f"{fmt_value(peak_stage - table.top)} ft at {fmt_value(t[j_pk])} h: the pond "
               "overtops. Results above the top assume vertical walls and no flow over the "
               "embankment; enlarge the pond or its outlets, or model the spillway")
        messages.append(msg)
        warnings.warn(msg, OvertoppingWarning, stacklevel=3)
    k_max = int(np.searchsorted(table.si, float(xs.max()), side="left"))
    stab = _stability(table, k_max)
    if stab is not None:
        messages.append(stab)
        warnings.warn(stab, RangeWarning, stacklevel=3)
    reverse = float(-min(primary.min(), 0.0))
    has_reverse = tailwater is not None and reverse > 1e-9 * max(float(np.abs(primary).max()),
                                                                  1e-12)
    if has_reverse:
        back = primary < 0
        msg = (f"{name + ': ' if name else ''}the tailwater is above the pond level for "
               f"{fmt_value(float(back.sum()) * dt)} h and drives up to "
               f"{fmt_value(reverse)} cfs back into the pond (reverse flow is routed: "
               "outflow is negative then). Give flap_gate=True if the outlet has a flap gate")
        messages.append(msg)
        warnings.warn(msg, RangeWarning, stacklevel=3)
    i_in = int(np.argmax(q))
    return RoutingResult(
        time_hr=t, inflow_cfs=q, outflow_cfs=os_, stage_ft=stage, storage_ft3=storage,
        primary_cfs=primary, discarded_cfs=discarded, device_flows_cfs=flows,
        peak_outflow_cfs=float(os_[i_pk]), time_of_peak_outflow_hr=float(t[i_pk]),
        peak_primary_cfs=float(primary.max()), peak_stage_ft=peak_stage,
        time_of_peak_stage_hr=float(t[j_pk]), peak_storage_ft3=float(storage.max()),
        peak_inflow_cfs=float(q[i_in]), time_of_peak_inflow_hr=float(t[i_in]),
        mass_balance_error_pct=mb, overtopped=bool(over), top_stage_ft=table.top,
        freeboard_ft=table.top - peak_stage, dt_hr=dt, warnings=tuple(messages), name=name,
        datum_ft=datum, tailwater_ft=tailwater, reverse_flow=bool(has_reverse),
        peak_reverse_cfs=reverse if has_reverse else 0.0)
