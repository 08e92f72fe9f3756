"""Design storms of an analysis and the simulation end.

The hyetographs (:func:`hydrocalc.rainfall.design_storm`, built once per distinct storm and
cached) and the automatic simulation length (storm duration, unit-hydrograph recession,
reach travel times, pond drain-down).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from hydrocalc._validate import fmt_value
from hydrocalc.errors import InputError
from hydrocalc.rainfall import design_storm
from hydrocalc.unit_hydrograph import MIN_TC_HR, effective_tc_hr
from hydrocalc.units import S_PER_HR


@functools.lru_cache(maxsize=256)
def _hyetograph(depth_in: float, distribution: str, dt_hr: float, duration_hr: float, name: str):
    return design_storm(depth_in, distribution=distribution, dt_hr=dt_hr,
                        duration_hr=duration_hr, name=name)


def _storms(site, names: Sequence[str]) -> list:
    st = site.storms
    return [_hyetograph(float(st.depths_in[n]), st.distribution, float(st.rain_dt_hr),
                        float(st.duration_hr), n) for n in names]


def _conveyance_travel_hr(reach) -> float:
    """Allowance for a routed pipe/channel reach in the automatic simulation end [h].

    Three travel times at the full-flow velocity (0 for a lag reach).
    """
    conv = reach.conveyance
    if conv is None:
        return 0.0
    area = float(conv.section.area_ft2(conv.section.max_depth_ft))
    v_full = conv.full_flow_capacity_cfs / area if area > 0.0 else 0.0
    return 3.0 * conv.length_ft / v_full / S_PER_HR if v_full > 0.0 else math.inf


@functools.lru_cache(maxsize=1024)
def _max_effective_tc_hr(tcs_hr: tuple) -> float:
    """Largest :func:`hydrocalc.unit_hydrograph.effective_tc_hr` of ``tcs_hr`` [h].

    Kept per distinct tuple: the variants of a sweep share a few; called only for Tc values
    that raise no warning, so a cached value hides none.
    """
    return float(np.max(effective_tc_hr(np.array(tcs_hr))))


def simulation_end_hr(site, storms_duration_hr: float) -> float:
    r"""Simulation end of ``site``: its ``analysis.duration_hr``, else automatic [h].

    Automatic: the storms' duration plus five unit-hydrograph times to peak of the slowest
    subcatchment (:math:`t_p = \Delta t/2 + L`, NEH 630 Ch. 16, with the lag
    :math:`L = 0.6\,T_c` of NEH 630 Ch. 15), the reaches' lags and travel times and two
    steps; at least twice the storms' duration with ponds; rounded up to a whole step.
    """
    opt = site.options
    if opt.duration_hr is not None:
        return float(opt.duration_hr)
    tcs = [s.tc_hr for sc in site.scenarios.values() for s in sc.subcatchments]
    # a rational hydrograph lasts 2 Tc around the storm's peak (no TR-20 minimum applies)
    tcs += [max(s.tc_hr, 0.1) for sc in site.scenarios.values() for s in sc.rational]

    if tcs and all(t >= MIN_TC_HR for t in tcs):  # nothing to warn about: kept per tuple
        tc_max = _max_effective_tc_hr(tuple(tcs))
    else:
        tc_max = float(np.max(effective_tc_hr(np.array(tcs))))
    tp = opt.dt_hr / 2.0 + 0.6 * tc_max
    lag = 0.0
    for sc in site.scenarios.values():
        lag = max(lag, sum(r.lag_hr + _conveyance_travel_hr(r) for r in sc.reaches))
    need = storms_duration_hr + 5.0 * tp + lag + 2 * opt.dt_hr
    has_ponds = any(sc.ponds for sc in site.scenarios.values())
    if has_ponds:
        need = max(need, 2.0 * storms_duration_hr)
    if not need / opt.dt_hr <= MAX_AUTOMATIC_STEPS:
        raise InputError(_too_long(site, need, opt.dt_hr))
    return float(math.ceil(need / opt.dt_hr) * opt.dt_hr)


#: Most time steps of an automatic simulation end (the site file's limit of
#: ``analysis.duration_hr``): a longer one comes from a reach's sizes out of scale.
MAX_AUTOMATIC_STEPS = 1_000_000


def _too_long(site, need_hr: float, dt_hr: float) -> str:
    """Why the automatic simulation end is too long: the slowest routed reach, named."""
    slowest = max(((r.lag_hr + _conveyance_travel_hr(r), f"{sc.name}.reach[{r.id}]")
                   for sc in site.scenarios.values() for r in sc.reaches), default=None)
    steps = f"{need_hr / dt_hr:.3g}" if math.isfinite(need_hr) else "endless"
    if slowest is not None and (slowest[0] >= need_hr / 2.0 or not math.isfinite(slowest[0])):
        return (f"{slowest[1]} takes {fmt_value(slowest[0])} h to pass its flow on (its "
                "lag_hr, or 3 x its length over the full-flow velocity), which would need "
                f"{steps} time steps of dt_hr = {fmt_value(dt_hr)} h; at most "
                f"{MAX_AUTOMATIC_STEPS:,} are computed. Check the units of its lag (h), "
                "length (ft), slope (ft/ft), sizes and n")
    return (f"the automatic simulation end ({fmt_value(need_hr)} h) would need {steps} time "
            f"steps of dt_hr = {fmt_value(dt_hr)} h; at most {MAX_AUTOMATIC_STEPS:,} are "
            "computed. Give analysis.duration_hr, or a larger dt_hr")


_end_hr = simulation_end_hr  # the name the analysis modules use
