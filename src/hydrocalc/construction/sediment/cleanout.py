"""Daily MUSLE sediment accumulation in a trap through a construction period.

Also the dates it reaches the cleanout mark (:func:`cleanout_schedule`,
:class:`CleanoutSchedule`).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import warnings
from typing import cast

import numpy as np
import pandas as pd

from hydrocalc.construction.sediment.musle import musle_yield_tons, sediment_volume_ft3
from hydrocalc.construction.sediment.traps import SedimentTrap, TrapCheck, plan_traps
from hydrocalc.daily_rain import as_daily_series
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.peak import graphical_peak_discharge
from hydrocalc.runoff import runoff_depth


@dataclasses.dataclass(frozen=True)
class CleanoutSchedule:
    """Daily sediment accumulation in one trap and the predicted cleanout dates.

    ``daily`` columns: ``precip_in``, ``runoff_in``, ``runoff_acft``, ``peak_cfs``,
    ``yield_tons`` (MUSLE, at the trap inlet), ``trapped_ft3`` (deposited that day),
    ``accumulated_ft3`` (in the trap at the end of the day, after any cleanout that day),
    ``fraction_of_capacity``, ``cleanout`` (bool).
    """

    trap_id: str
    check: TrapCheck
    daily: pd.DataFrame
    cleanout_dates: tuple[_dt.date, ...]
    rainfall_type: str
    warnings: tuple[str, ...] = ()

    @property
    def total_yield_tons(self) -> float:
        """MUSLE yield over the period [short ton]."""
        return float(self.daily["yield_tons"].sum())

    @property
    def total_trapped_ft3(self) -> float:
        """Sediment volume deposited over the period [ft3]."""
        return float(self.daily["trapped_ft3"].sum())

    def to_dict(self) -> dict:
        """Summary dict (no daily rows)."""
        return {
            "trap_id": self.trap_id,
            "check": self.check.to_dict(),
            "rainfall_type": self.rainfall_type,
            "total_yield_tons": self.total_yield_tons,
            "total_trapped_ft3": self.total_trapped_ft3,
            "peak_accumulated_ft3": float(self.daily["accumulated_before_cleanout_ft3"].max()),
            "cleanout_dates": [d.isoformat() for d in self.cleanout_dates],
            "warnings": list(self.warnings),
        }

    def figure(self):
        """Accumulated sediment volume against time, with the cleanout volume and dates.

        Returns
        -------
        matplotlib.figure.Figure
        """
        import matplotlib

        matplotlib.use("Agg", force=False)
        from matplotlib.figure import Figure

        fig = Figure(figsize=(8, 4.5))
        ax = fig.add_subplot(1, 1, 1)
        d = self.daily
        ax.step(d.index, d["accumulated_before_cleanout_ft3"], where="post", color="tab:brown",
                label="sediment in trap")
        ax.axhline(self.check.cleanout_volume_ft3, color="tab:red", ls="--",
                   label=f"cleanout at {self.check.cleanout_frac:.0%} of design capacity "
                         f"({self.check.cleanout_volume_ft3:,.0f} ft3)")
        for i, day in enumerate(self.cleanout_dates):
            ax.axvline(pd.Timestamp(day), color="tab:red", alpha=0.4, lw=1,
                       label="predicted cleanout" if i == 0 else None)
        ax.set_ylabel("accumulated sediment [ft3]")
        ax.set_title(f"Trap {self.trap_id}: MUSLE sediment accumulation "
                     f"({self.check.criteria.key}, status {self.check.criteria.status})",
                     fontsize=9)
        ax2 = ax.twinx()
        ax2.bar(d.index, d["precip_in"], color="tab:blue", alpha=0.3, width=1.0)
        ax2.set_ylabel("daily rainfall [in]")
        ax2.set_ylim(max(float(d["precip_in"].max()), 0.1) * 3.0, 0.0)  # bars in the top third
        ax.legend(loc="upper left", fontsize=8)
        fig.autofmt_xdate()
        fig.tight_layout()
        return fig


def cleanout_schedule(
    trap: SedimentTrap,
    precip_in: pd.Series,
    *,
    rainfall_type: str,
    cleanout_frac: float = 0.5,
    coefficient: str = "exact",
) -> CleanoutSchedule:
    r"""Sediment accumulation in a trap through a daily rainfall record, with cleanout dates.

    Parameters
    ----------
    trap : SedimentTrap
        With MUSLE inputs (K, LS or slope, C, P, CN, Tc, dry unit weight, trap efficiency).
    precip_in : pandas.Series or DailyRainfall
        Daily rainfall over the construction period, indexed by date, no missing days; read
        by :func:`hydrocalc.daily_rain.as_daily_series` (any order, duplicates refused,
        sub-daily values summed to daily totals). [in]
    rainfall_type : {"I", "IA", "II", "III"}
        NRCS 24-hour distribution assumed for every rain day (TR-55 graphical peak).
    cleanout_frac : float
        Fraction of the design capacity that triggers a cleanout (0.5 per the local laws).
    coefficient : {"exact", "95"}
        US MUSLE coefficient, see :func:`musle_yield_tons`.

    Returns
    -------
    CleanoutSchedule

    Notes
    -----
    For every day: runoff depth :math:`Q` from the curve-number equation
    (:func:`hydrocalc.runoff.runoff_depth`, TR-55 Eq. 2-3) with the trap's CN; peak
    :math:`q_p` by the TR-55 graphical method (:func:`hydrocalc.peak.graphical_peak_discharge`,
    Eq. 4-1) treating the day's total as a 24-hour storm of ``rainfall_type``; MUSLE yield
    :func:`musle_yield_tons`; deposited volume
    :math:`E\,Y\,2000/\gamma`. The accumulation is a running sum that **resets to zero at
    the end of the day on which it first reaches** ``cleanout_frac`` of the design capacity
    (the predicted cleanout date; the sediment is assumed removed that day, all of it).

    Assumptions to state in a report: a calendar day's rain is one storm (multi-day storms
    are split, which lowers Q and the yield of long events; short intense storms get the
    24-hour distribution's peak); antecedent moisture is average (CN unchanged); C, K, LS
    and P are constant through the period; Ia/P outside the Table F-1 range uses the
    limiting value (TR-55) and is reported in ``warnings``.
    """
    trap.require_musle()  # from here on every MUSLE input of the trap is set (not None)
    cn, tc_hr = cast(float, trap.cn), cast(float, trap.tc_hr)
    k_factor, c_factor = cast(float, trap.k_factor), cast(float, trap.c_factor)
    p_factor = cast(float, trap.p_factor)
    dry_unit_weight_lb_ft3 = cast(float, trap.dry_unit_weight_lb_ft3)
    chk = trap.check(cleanout_frac=cleanout_frac)

    precip_in = as_daily_series(precip_in)  # the one daily-rain rule: sorted, no duplicates
    p = precip_in.to_numpy()
    area_ac = float(trap.drainage_area_ac)

    q_in = np.asarray(runoff_depth(p, cn), dtype=float)
    notes = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", RangeWarning)
        qp = np.asarray(
            graphical_peak_discharge(area_ac / 640.0, cn, tc_hr, p,
                                     rainfall_type=rainfall_type),
            dtype=float,
        )
    for w in caught:
        if issubclass(w.category, RangeWarning):
            notes.append(f"TR-55 peak: {w.message}")
    q_acft = q_in * area_ac / 12.0
    y = np.asarray(
        musle_yield_tons(q_acft, qp, k_factor, trap.ls, c_factor, p_factor,
                         coefficient=coefficient),
        dtype=float,
    )
    trapped = np.asarray(sediment_volume_ft3(y * trap.trap_efficiency_frac,
                                             dry_unit_weight_lb_ft3), dtype=float)
    limit = chk.cleanout_volume_ft3
    acc = np.empty_like(trapped)
    before = np.empty_like(trapped)
    clean = np.zeros(trapped.shape, dtype=bool)
    level = 0.0
    for i, v in enumerate(trapped):  # sequential: the cleanout resets the running sum
        level += v
        before[i] = level
        if level >= limit * (1 - 1e-12):
            clean[i] = True
            if v >= chk.design_capacity_ft3:
                notes.append(
                    f"{precip_in.index[i].date()}: one day's sediment ({v:,.0f} ft3) exceeds "
                    f"the design capacity ({chk.design_capacity_ft3:,.0f} ft3)"
                )
            level = 0.0
        acc[i] = level
    daily = pd.DataFrame(
        {
            "precip_in": p,
            "runoff_in": q_in,
            "runoff_acft": q_acft,
            "peak_cfs": qp,
            "yield_tons": y,
            "trapped_ft3": trapped,
            "accumulated_before_cleanout_ft3": before,
            "accumulated_ft3": acc,
            "fraction_of_capacity": before / chk.design_capacity_ft3,
            "cleanout": clean,
        },
        index=precip_in.index,
    )
    dates = tuple(pd.Timestamp(t).date() for t in daily.index[clean])
    return CleanoutSchedule(
        trap_id=trap.id,
        check=chk,
        daily=daily,
        cleanout_dates=dates,
        rainfall_type=rainfall_type,
        warnings=tuple(notes),
    )


def plan_cleanout_schedules(
    plan,
    precip_in: pd.Series,
    *,
    cleanout_frac: float = 0.5,
    rainfall_type: str | None = None,
) -> list[CleanoutSchedule]:
    """Cleanout schedules of every trap of a plan that has MUSLE inputs.

    ``precip_in`` must cover ``plan.start_date..plan.end_date``; ``rainfall_type`` defaults
    to ``plan.rainfall_type`` and is required (the TR-55 distribution of the daily peaks).
    """
    rtype = rainfall_type or getattr(plan, "rainfall_type", None)
    if rtype is None:
        raise InputError(
            "rainfall_type must be given for the daily peak discharges (construction."
            "rainfall_type = \"II\" or \"III\", TR-55 distribution); got nothing"
        )

    precip_in = as_daily_series(precip_in, allow_gaps=True)
    s, e = pd.Timestamp(plan.start_date), pd.Timestamp(plan.end_date)
    if precip_in.index[0] > s or precip_in.index[-1] < e:
        raise InputError(
            f"rainfall record must cover the construction period {plan.start_date}.."
            f"{plan.end_date}; got {precip_in.index[0].date()}..{precip_in.index[-1].date()}. "
            "Shift a historical year with rainfall_shift_years."
        )
    window = precip_in.loc[s:e]
    return [
        cleanout_schedule(t, window, rainfall_type=rtype, cleanout_frac=cleanout_frac)
        for t in plan_traps(plan)
        if t.k_factor is not None
    ]
