"""Teaching lessons behind ``notebooks/learn/``: the same package, small questions.

Each lesson function takes a few plain parameters (the notebook's ``parameters`` cell), runs
hydrocalc's functions, and returns a :class:`~hydrocalc.report.result.SectionResult` whose
narrative quotes the computed numbers. The notebooks only present it, like the report's.

1. :func:`curve_number_lesson` - how the curve number and impervious cover change runoff
   (TR-55 Eq. 2-3 and Figs. 2-3/2-4).
2. :func:`tc_lesson` - how the time of concentration shapes the hydrograph (NRCS unit
   hydrograph, NEH Part 630 Ch. 16).
3. :func:`pond_lesson` - how a detention pond attenuates a peak (storage-indication routing,
   NEH Part 630 Ch. 17 / Chow et al. 1988 Sec. 8.2).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from hydrocalc.report import figures as F
from hydrocalc.report.result import SectionResult
from hydrocalc.report.tables import Table

__all__ = ["curve_number_lesson", "tc_lesson", "pond_lesson"]


def _fmt(value: float, decimals: int = 2) -> str:
    return f"{value:,.{decimals}f}"


def _capture(result: SectionResult, caught) -> None:
    result.warnings.extend(f"{w.category.__name__}: {w.message}" for w in caught)


def curve_number_lesson(precip_in: float, pervious_cn: float, impervious_pct: list,
                        curve_numbers: list) -> SectionResult:
    """Runoff depth against curve number and against impervious cover for one storm.

    Parameters
    ----------
    precip_in : float
        24-hour storm depth. [in]
    pervious_cn : float
        CN of the pervious cover the impervious area is added to. [-]
    impervious_pct : list of float
        Connected impervious shares to compare. [%]
    curve_numbers : list of float
        Curve numbers for the rainfall-runoff curves. [-]
    """
    from hydrocalc.runoff import impervious_composite_cn, initial_abstraction, runoff_depth

    params = dict(precip_in=precip_in, pervious_cn=pervious_cn,
                  impervious_pct=list(impervious_pct), curve_numbers=list(curve_numbers))
    res = SectionResult("learn_curve_number", "Curve number, impervious cover and runoff",
                        parameters=params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        cns = np.asarray(curve_numbers, dtype=float)
        q_cn = runoff_depth(precip_in, cns)
        ia_cn = initial_abstraction(cns)
        imp = np.asarray(impervious_pct, dtype=float)
        cn_imp = impervious_composite_cn(pervious_cn, imp)
        q_imp = runoff_depth(precip_in, cn_imp)
        p_axis = np.linspace(0.0, max(2.0 * precip_in, 1.0), 161)
        curves = [(f"CN {cn:g}", p_axis, runoff_depth(p_axis, cn)) for cn in cns]
    _capture(res, caught)

    t1 = Table("runoff_by_cn", f"Runoff from a {_fmt(precip_in)}-in storm by curve number",
               pd.DataFrame({"cn": cns, "initial_abstraction_in": ia_cn,
                             "runoff_in": q_cn, "runoff_pct_of_rain": 100.0 * q_cn / precip_in}),
               caption="TR-55 Eqs. 2-1 to 2-4 (Ia = 0.2 S).",
               labels={"runoff_pct_of_rain": "Runoff [% of rain]"},
               decimals={"cn": 0, "runoff_pct_of_rain": 0})
    t2 = Table("runoff_by_impervious", "Composite CN and runoff by connected impervious cover",
               pd.DataFrame({"impervious_pct": imp, "composite_cn": cn_imp, "runoff_in": q_imp}),
               caption=f"Pervious CN {pervious_cn:g}; impervious CN 98; TR-55 Fig. 2-3.")
    lo, hi = int(np.argmin(q_imp)), int(np.argmax(q_imp))
    ratio = q_imp[hi] / q_imp[lo] if q_imp[lo] > 0 else float("inf")
    res.narrative_md = (
        f"A {_fmt(precip_in)}-inch storm on cover with CN {cns.min():g} produces "
        f"{_fmt(q_cn.min())} in of runoff; at CN {cns.max():g} it produces "
        f"{_fmt(q_cn.max())} in. Below the initial abstraction (Ia = 0.2 S, "
        f"{_fmt(ia_cn.max())} in at CN {cns[np.argmax(ia_cn)]:g}) there is no runoff at all, "
        "which is why the curves start late and then rise almost parallel to the 1:1 line.\n\n"
        f"Paving the pervious cover (CN {pervious_cn:g}) raises the composite CN from "
        f"{cn_imp[lo]:.1f} at {imp[lo]:g} % impervious to {cn_imp[hi]:.1f} at {imp[hi]:g} %, "
        f"and the runoff from {_fmt(q_imp[lo])} in to {_fmt(q_imp[hi])} in"
        + (f" ({ratio:.1f} times as much)." if np.isfinite(ratio) else ".")
    )
    res.add_table(t1)
    res.add_figure(F.line_figure("runoff_curves", "Runoff depth against rainfall (TR-55 Eq. 2-3)",
                                 curves, xlabel="Rainfall P [in]", ylabel="Runoff Q [in]"))
    res.add_table(t2)
    res.add_figure(F.line_figure(
        "runoff_vs_impervious", "Runoff against connected impervious cover",
        [(f"P = {_fmt(precip_in)} in", imp, q_imp)],
        xlabel="Impervious cover [%]", ylabel="Runoff Q [in]"))
    return res


def _storm(precip_in: float, distribution: str):
    from hydrocalc.rainfall import design_storm

    return design_storm(precip_in, distribution=distribution, dt_hr=0.1,
                        name=f"{precip_in:g} in, type {distribution}")


def tc_lesson(area_ac: float, cn: float, precip_in: float, distribution: str,
              tc_hr: list) -> SectionResult:
    """Hydrographs of one watershed for several times of concentration.

    Parameters
    ----------
    area_ac : float
        Drainage area. [ac]
    cn : float
        Curve number. [-]
    precip_in : float
        24-hour storm depth. [in]
    distribution : str
        NRCS 24-hour distribution key (e.g. ``"III"``).
    tc_hr : list of float
        Times of concentration to compare. [hr]
    """
    from hydrocalc.hydrograph import runoff_hydrographs

    params = dict(area_ac=area_ac, cn=cn, precip_in=precip_in, distribution=distribution,
                  tc_hr=list(tc_hr))
    res = SectionResult("learn_tc", "Time of concentration and the hydrograph",
                        parameters=params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        storm = _storm(precip_in, distribution)
        tcs = np.asarray(tc_hr, dtype=float)
        hs = runoff_hydrographs(area_ac, cn, tcs, storm)
    _capture(res, caught)
    peak = np.asarray(hs.peak_cfs)[0]
    tpk = np.asarray(hs.time_of_peak_hr)[0]
    vol = np.asarray(hs.volume_ft3)[0]
    table = Table("peak_by_tc", "Peak flow and time of peak by time of concentration",
                  pd.DataFrame({"tc_hr": tcs, "peak_cfs": peak, "time_of_peak_hr": tpk,
                                "volume_ft3": vol}),
                  caption="NRCS dimensionless unit hydrograph (PRF 484), NEH 630 Ch. 16.")
    i_fast, i_slow = int(np.argmin(tcs)), int(np.argmax(tcs))
    res.narrative_md = (
        f"The same {_fmt(precip_in)}-inch storm on the same {area_ac:g}-acre watershed "
        f"(CN {cn:g}) gives the same runoff volume, {vol[i_fast]:,.0f} ft³, whatever the time "
        f"of concentration. What changes is how fast it leaves: with Tc = {tcs[i_fast]:g} hr "
        f"the peak is {_fmt(peak[i_fast])} cfs at {_fmt(tpk[i_fast])} hr; with Tc = "
        f"{tcs[i_slow]:g} hr it is {_fmt(peak[i_slow])} cfs at {_fmt(tpk[i_slow])} hr. "
        "A longer flow path spreads the same volume over a longer time, so the peak is lower "
        "and later."
    )
    res.add_table(table)
    t_end = float(min(hs.time_hr[-1], 24.0))
    series = [(f"Tc = {t:g} hr", hs.time_hr, np.asarray(hs.flow_cfs)[0, j])
              for j, t in enumerate(tcs)]
    res.add_figure(F.hydrograph_comparison_figure(
        "hydrographs_by_tc", "Runoff hydrographs for several times of concentration", series,
        xlim=(8.0, t_end), height_in=3.0))
    return res


def pond_lesson(area_ac: float, cn: float, tc_hr: float, precip_in: float, distribution: str,
                bottom_length_ft: float, bottom_width_ft: float, depth_ft: float,
                side_slope_h_per_v: float, orifice_diameter_in: list) -> SectionResult:
    """Route one inflow hydrograph through a basin with orifices of several sizes.

    Parameters
    ----------
    area_ac, cn, tc_hr, precip_in, distribution
        The watershed and storm draining to the pond. [ac], [-], [hr], [in], key
    bottom_length_ft, bottom_width_ft, depth_ft : float
        Basin bottom dimensions and depth. [ft]
    side_slope_h_per_v : float
        Side slope, horizontal per vertical. [-]
    orifice_diameter_in : list of float
        Diameters of the single low-level orifice to compare. [in]
    """
    from hydrocalc.hydrograph import runoff_hydrograph
    from hydrocalc.outlets import CircularOrifice
    from hydrocalc.routing import StageStorage, route_reservoir

    params = dict(area_ac=area_ac, cn=cn, tc_hr=tc_hr, precip_in=precip_in,
                  distribution=distribution, bottom_length_ft=bottom_length_ft,
                  bottom_width_ft=bottom_width_ft, depth_ft=depth_ft,
                  side_slope_h_per_v=side_slope_h_per_v,
                  orifice_diameter_in=list(orifice_diameter_in))
    res = SectionResult("learn_pond", "How a pond attenuates a peak", parameters=params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        storm = _storm(precip_in, distribution)
        inflow = runoff_hydrograph(area_ac, cn, tc_hr, storm)
        basin = StageStorage.basin(bottom_length_ft, bottom_width_ft, depth_ft,
                                   side_slope_h_per_v=side_slope_h_per_v)
        rows, series = [], [("Inflow", inflow.time_hr, inflow.flow_cfs)]
        for d in orifice_diameter_in:
            routed = route_reservoir(inflow, basin, [CircularOrifice(float(d), 0.0)])
            rows.append({"orifice_diameter_in": float(d), "peak_inflow_cfs": inflow.peak_cfs,
                         "peak_outflow_cfs": routed.peak_outflow_cfs,
                         "attenuation_pct": 100.0 * (1.0 - routed.peak_outflow_cfs
                                                     / inflow.peak_cfs),
                         "peak_stage_ft": routed.peak_stage_ft,
                         "peak_storage_ft3": routed.peak_storage_ft3,
                         "overtopped": bool(routed.overtopped)})
            series.append((f"Outflow, {float(d):g}-in orifice", routed.time_hr,
                           routed.outflow_cfs))
    _capture(res, caught)
    frame = pd.DataFrame(rows)
    res.add_table(Table("routing_by_orifice", "Routed peaks by orifice diameter", frame,
                        caption="Storage-indication (modified Puls) routing; orifice "
                                "Q = Cd A sqrt(2 g h), Cd 0.6.",
                        decimals={"orifice_diameter_in": 1}))
    small, large = frame.iloc[int(frame.orifice_diameter_in.idxmin())], \
        frame.iloc[int(frame.orifice_diameter_in.idxmax())]
    res.narrative_md = (
        f"The inflow peak is {_fmt(inflow.peak_cfs)} cfs. Through a "
        f"{small.orifice_diameter_in:g}-inch orifice the pond releases at most "
        f"{_fmt(small.peak_outflow_cfs)} cfs (a {small.attenuation_pct:.0f} % reduction) "
        f"but fills to {_fmt(small.peak_stage_ft)} ft and stores "
        f"{small.peak_storage_ft3:,.0f} ft³; through a {large.orifice_diameter_in:g}-inch "
        f"orifice it releases {_fmt(large.peak_outflow_cfs)} cfs and fills only to "
        f"{_fmt(large.peak_stage_ft)} ft. The outflow peaks where it crosses the falling "
        "limb of the inflow: storage trades peak flow for depth and time."
        + (" At least one case overtops the basin; see the table."
           if frame.overtopped.any() else "")
    )
    res.add_figure(F.hydrograph_comparison_figure(
        "routing_by_orifice", "Inflow and routed outflow hydrographs", series,
        xlim=(8.0, 24.0), height_in=3.0))
    return res
