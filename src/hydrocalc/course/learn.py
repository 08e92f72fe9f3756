"""The course in ``notebooks/learn/``: published worked examples, exercises and self-checks.

Each lesson shows the arithmetic as code, then calls the package, then checks a worked
example against its published value with :func:`published` and offers exercises the
student answers in a cell and checks with :func:`check`. This module holds:

- :data:`PUBLISHED` -- every published value a lesson checks: value, the publication's
  precision (the tolerance), unit and source. :func:`published` prints the comparison and
  raises ``AssertionError`` when a computed value leaves the tolerance, so re-running a
  lesson (as CI does) fails when a checked number changes.
- :data:`EXERCISES` -- each exercise's question and a function computing its answer with
  the package (answers are never stored as numbers). :func:`check` says right or not yet
  without revealing the answer.
- :func:`run_lesson` -- execute a lesson notebook (nbclient) from its own folder, as CI and
  the maintainer (``python -m hydrocalc.course.learn notebooks/learn``) do.
"""

from __future__ import annotations

import dataclasses
import math
import os
import pathlib
import sys
from collections.abc import Callable

from hydrocalc.construction.inspections import schedule_for_profile
from hydrocalc.construction.sediment import required_storage_ft3
from hydrocalc.criteria.ny import runoff_coefficient, water_quality_volume
from hydrocalc.criteria.regulations import load_profile
from hydrocalc.hydraulics.outlets import CircularOrifice, RectangularWeir
from hydrocalc.hydraulics.routing import StageStorage, route_reservoir
from hydrocalc.hydrograph import runoff_hydrograph, runoff_hydrographs
from hydrocalc.peak import graphical_peak_discharge
from hydrocalc.rainfall import design_storm, max_window_fraction
from hydrocalc.runoff import impervious_composite_cn, initial_abstraction, runoff_depth
from hydrocalc.storage_estimate import storage_ratio
from hydrocalc.tc import shallow_concentrated_flow_time, sheet_flow_time, time_of_concentration
from hydrocalc.unit_hydrograph import peak_discharge_cfs, time_to_peak_hr
from hydrocalc.units import FT2_PER_AC, IN_PER_FT, S_PER_HR

__all__ = [
    "EXERCISES",
    "PUBLISHED",
    "Exercise",
    "Published",
    "agrees",
    "check",
    "checked_outputs",
    "lesson_paths",
    "published",
    "run_lesson",
]


# -- published worked examples ----------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Published:
    """A value printed in a publication, with the precision it was printed to."""

    value: float
    tolerance: float
    unit: str
    source: str


_TR55 = "USDA SCS (1986), Urban Hydrology for Small Watersheds, TR-55, 2nd ed."
_CHANHASSEN = ("Kallio Engineering, HydroCAD 7.10 report '1237 Pre-Development' (2013), City "
               "of Chanhassen, MN, WebLink document 263351, page 2, subcatchment FT4.4")

#: Every published value the lessons check (key -> :class:`Published`).
PUBLISHED: dict[str, Published] = {
    "tr55_ex2_1_runoff_in": Published(2.8, 0.05, "in", f"{_TR55}, Example 2-1 (CN 70, P 6.0 in)"),
    "tr55_ex2_2_runoff_in": Published(3.28, 0.005, "in",
                                      f"{_TR55}, Example 2-2 (CN 75, P 6.0 in)"),
    "tr55_ex2_3_runoff_in": Published(3.48, 0.005, "in",
                                      f"{_TR55}, Example 2-3 (CN 77, P 6.0 in)"),
    "tr55_table2_1_p3_cn80_in": Published(1.25, 0.005, "in",
                                          f"{_TR55}, Table 2-1 (P 3.0 in, CN 80)"),
    "tr55_fig2_3_cn": Published(68.0, 0.5, "-",
                                f"{_TR55}, Fig. 2-3 text example (pervious CN 61, 20 % "
                                "connected impervious)"),
    "tr55_fig2_4_cn": Published(78.0, 0.5, "-",
                                f"{_TR55}, Example 2-4 (pervious CN 74, 25 % impervious, "
                                "half unconnected)"),
    "tr55_ex3_1_sheet_hr": Published(0.30, 0.005, "hr", f"{_TR55}, Example 3-1, segment AB"),
    "tr55_ex3_1_shallow_hr": Published(0.24, 0.005, "hr", f"{_TR55}, Example 3-1, segment BC"),
    "tr55_ex3_1_channel_hr": Published(0.99, 0.005, "hr", f"{_TR55}, Example 3-1, segment CD"),
    "tr55_ex3_1_tc_hr": Published(1.53, 0.005, "hr", f"{_TR55}, Example 3-1, Tc"),
    "nrcs_type2_12hr_frac": Published(0.663, 0.0005, "-",
                                      "NRCS Type II 24-hour distribution (TR-55 Appendix B; "
                                      "WinTR-20 rainfall table), cumulative fraction at 12.0 h"),
    "ponce_ex5_9_ia_over_p": Published(0.198, 0.0005, "-",
                                       "Ponce (1989), Engineering Hydrology: Principles and "
                                       "Practices, Example 5-9, Ia/P"),
    "ponce_ex5_9_peak_m3s": Published(12.09, 0.18, "m³/s",
                                      "Ponce (1989), Engineering Hydrology: Principles and "
                                      "Practices, Example 5-9 (TR-55 graphical peak; read "
                                      "from graphs, so 1.5 %)"),
    "neh630_t16_1_area": Published(1.336, 0.0005, "-",
                                   "USDA NRCS (2007), NEH Part 630 Ch. 16, Table 16-1: "
                                   "area under q/qp against t/Tp (trapezoidal rule)"),
    "chanhassen_ft44_runoff_in": Published(1.29, 0.005, "in", _CHANHASSEN + ", depth"),
    "chanhassen_ft44_volume_acft": Published(0.805, 0.0005, "ac-ft", _CHANHASSEN + ", volume"),
    "chanhassen_ft44_peak_cfs": Published(12.09, 0.48, "cfs",
                                          _CHANHASSEN + ", peak (HydroCAD smooths the storm "
                                          "curve: agreement within 4 %)"),
    "nh_envwq_1506_10_ft3_per_ac": Published(3600.0, 0.5, "ft³/ac",
                                             "N.H. Code of Administrative Rules Env-Wq "
                                             "1506.10 (temporary sediment trap), storage per "
                                             "acre of drainage area"),
    "shelter_island_110_39c_interval_days": Published(
        7, 0, "days", "Town of Shelter Island Code § 110-39C: 'every seven days'"),
    "shelter_island_110_39c_threshold_in": Published(
        0.5, 0, "in", "Town of Shelter Island Code § 110-39C: 'any storm event producing 0.5 "
        "inches of precipitation or more'"),
    "shelter_island_110_39b_cleanout_frac": Published(
        0.5, 0, "-", "Town of Shelter Island Code § 110-39B: 'design capacity has been "
        "reduced by 50%'"),
    "pelham_83_14b_interval_days": Published(
        7, 0, "days", "Village of Pelham Code ch. 83: 'every "
        "seven days'"),
    "pelham_83_14b_threshold_in": Published(
        0.5, 0, "in", "Village of Pelham Code ch. 83: 'any storm "
        "event producing 0.5 inch of precipitation or more'"),
    "pelham_83_14a_cleanout_frac": Published(
        0.5, 0, "-", "Village of Pelham Code ch. 83: 'design "
        "capacity has been reduced by 50%'"),
}


def published(key: str, computed: float) -> bool:
    """Compare a computed value with a published one; print the comparison.

    Raises
    ------
    AssertionError
        If ``computed`` differs from the published value by more than its printed
        precision (so a lesson re-run in CI fails when a checked number changes).
    KeyError
        If ``key`` is not in :data:`PUBLISHED`.
    """
    ref = PUBLISHED[key]
    diff = abs(float(computed) - ref.value)
    ok = diff <= ref.tolerance + 1e-12
    unit = "" if ref.unit == "-" else f" {ref.unit}"
    print(f"{ref.source}:\n  published {ref.value:g}{unit}, computed {float(computed):.4f}"
          f"{unit}, difference {diff:.4f} (tolerance {ref.tolerance:g}): "
          + ("AGREES" if ok else "DISAGREES"))
    assert ok, f"{key}: computed {computed!r} is not within {ref.tolerance} of {ref.value}"
    return ok


def agrees(what: str, computed, reference, *, rtol: float, source: str) -> bool:
    """Compare computed values with a reference from a published equation.

    Compare computed values with a reference computed from a published equation or
    exact solution (when no printed number exists); print the comparison.

    Parameters
    ----------
    what : str
        What is compared (printed).
    computed, reference : float or array_like
        The package's values and the reference values.
    rtol : float
        Largest relative difference accepted. [-]
    source : str
        The publication of the reference equation or solution (printed).

    Raises
    ------
    AssertionError
        If any value differs by more than ``rtol`` (relative to the reference).
    """
    import numpy as np

    c = np.atleast_1d(np.asarray(computed, dtype=float))
    r = np.atleast_1d(np.asarray(reference, dtype=float))
    worst = float(np.max(np.abs(c - r) / np.maximum(np.abs(r), 1e-300)))
    ok = worst <= rtol
    print(f"{source}:\n  {what}: largest relative difference {worst:.1e} (tolerance "
          f"{rtol:g}): " + ("AGREES" if ok else "DISAGREES"))
    assert ok, f"{what}: relative difference {worst} exceeds {rtol}"
    return ok


# -- exercises --------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True)
class Exercise:
    """An exercise: question, answer function, tolerance and hint.

    An exercise: the question, a function computing the answer with the package, the
    tolerance accepted [absolute, in ``unit``] and a hint shown on a wrong answer.
    """

    question: str
    answer: Callable[[], float]
    tolerance: float
    unit: str
    hint: str = ""


def _runoff(p, cn):
    return runoff_depth(p, cn)


def _composite(cn, imp, unconnected=0.0):
    return impervious_composite_cn(cn, imp, unconnected_pct=unconnected)


def _ia(cn):
    return initial_abstraction(cn)


def _sheet(length, slope, n, p2):
    return sheet_flow_time(length, slope, n, p2)


def _shallow(length, slope, surface):
    return shallow_concentrated_flow_time(length, slope, surface=surface)


def _tc_total():
    return time_of_concentration([
        {"kind": "sheet", "length_ft": 80, "slope_ftft": 0.02, "n": 0.15, "p2_in": 3.4},
        {"kind": "shallow", "length_ft": 500, "slope_ftft": 0.01, "surface": "paved"},
    ])[0]


def _storm_depth_at(p, dist, t):
    import numpy as np


    s = design_storm(p, distribution=dist, dt_hr=0.1)
    return float(np.interp(t, s.time_hr, s.cumulative_in))


def _max_hour(p, dist):
    return p * max_window_fraction(dist, 1.0)


def _graphical(area_mi2, cn, tc, p, rtype):
    return graphical_peak_discharge(area_mi2, cn, tc, p, rainfall_type=rtype)


def _tp(tc, dt):
    return time_to_peak_hr(tc, dt)


def _uh_peak(area_mi2, q, tc, dt):
    return peak_discharge_cfs(area_mi2, q, _tp(tc, dt))


def _hydrograph_peak(area, cn, tc, p, dist):
    return runoff_hydrograph(area, cn, tc, design_storm(p, distribution=dist)).peak_cfs


def _orifice(d_in, stage_ft):
    return CircularOrifice(d_in, 0.0).discharge_cfs(stage_ft)


def _si_value(storage_ft3, dt_hr, outflow_cfs):
    return 2.0 * storage_ft3 / (dt_hr * S_PER_HR) + outflow_cfs


def _routed_stage(d_in):
    inflow = runoff_hydrograph(5.0, 85.0, 0.25, design_storm(4.5, distribution="III"))
    basin = StageStorage.basin(80.0, 40.0, 6.0, side_slope_h_per_v=3.0)
    return route_reservoir(inflow, basin, [CircularOrifice(d_in, 0.0),
                                           RectangularWeir(4.0, 4.5)]).peak_stage_ft


def _volume_change_acft(area_ac, p, cn_pre, cn_post):
    return (_runoff(p, cn_post) - _runoff(p, cn_pre)) * area_ac / IN_PER_FT


def _peak_change_pct():
    hs = runoff_hydrographs([250.0, 250.0], [70.0, 75.0], [1.53, 1.0],
                            design_storm(6.0, distribution="II"))
    pre, post = hs.peak_cfs[0]
    return 100.0 * (post - pre) / pre


def _storage_ratio(qo_qi, rtype):
    return storage_ratio(qo_qi, rainfall_type=rtype)


def _rv(imp):
    return runoff_coefficient(imp)


def _wqv_ft3(p, area, imp_ac, min_rv=None):
    return water_quality_volume(p, 100.0 * imp_ac / area, area, min_rv=min_rv) * FT2_PER_AC


def _trap_storage(area):
    return required_storage_ft3(area, "nh_envwq_1506_10_sediment_trap")


def _cleanout_ft3(capacity_ft3, profile):
    return capacity_ft3 * load_profile(profile).cleanout_fraction


def _visits():
    import datetime as dt

    import pandas as pd


    days = pd.date_range("2027-05-03", "2027-05-30", freq="D")
    rain = pd.Series(0.0, index=days)
    rain["2027-05-06"], rain["2027-05-13"], rain["2027-05-21"] = 0.7, 0.3, 1.2
    return len(schedule_for_profile("pelham", dt.date(2027, 5, 3), dt.date(2027, 5, 30),
                                    rain).visits)


#: The lessons' exercises (key -> :class:`Exercise`); keys start with the lesson number.
EXERCISES: dict[str, Exercise] = {
    "l1_runoff": Exercise("Runoff depth Q of a 4.5-in storm on CN 85.",
                          lambda: _runoff(4.5, 85.0), 0.01, "in",
                          "S = 1000/CN - 10, Ia = 0.2 S, Q = (P - Ia)^2 / (P - Ia + S)."),
    "l1_composite": Exercise("Composite CN of pervious CN 70 with 45 % connected impervious.",
                             lambda: _composite(70.0, 45.0), 0.1, "-",
                             "CNc = CNp + (Pimp/100)(98 - CNp)."),
    "l1_ia": Exercise("The rainfall depth at which a CN 65 surface starts to produce runoff.",
                      lambda: _ia(65.0), 0.01, "in", "Runoff starts when P exceeds Ia."),
    "l2_sheet": Exercise("Sheet-flow time over 80 ft of short grass (n 0.15) at 2 % slope, "
                         "P2 = 3.4 in.", lambda: _sheet(80.0, 0.02, 0.15, 3.4), 0.005, "hr",
                         "TR-55 Eq. 3-3; slope as a fraction (0.02), not a percent."),
    "l2_shallow": Exercise("Shallow concentrated flow time over 500 ft of paved gutter at 1 %.",
                           lambda: _shallow(500.0, 0.01, "paved"), 0.002, "hr",
                           "Paved: V = 20.3282 s^0.5 ft/s; Tt = L / (3600 V)."),
    "l2_tc": Exercise("Tc of the two segments above together.", _tc_total, 0.005, "hr",
                      "Tc is the sum of the travel times (TR-55 Eq. 3-2)."),
    "l3_depth_at_12": Exercise("Cumulative rain at 12.0 h of a 5.0-in type III storm.",
                               lambda: _storm_depth_at(5.0, "III", 12.0), 0.005, "in",
                               "P(t) = P F(t) with F read from the type III table."),
    "l3_max_hour": Exercise("Largest 1-hour depth of a 4.9-in type II storm.",
                            lambda: _max_hour(4.9, "II"), 0.01, "in",
                            "Slide a 1-h window over the mass curve; keep the biggest rise."),
    "l3_graphical": Exercise("TR-55 graphical peak of 0.2 mi², CN 80, Tc 0.5 h, P 5.0 in, "
                             "type III.", lambda: _graphical(0.2, 80.0, 0.5, 5.0, "III"),
                             2.0, "cfs", "qp = qu Am Q Fp with qu from Table F-1 (Eq. 4-1)."),
    "l4_tp": Exercise("Time to peak Tp of the unit hydrograph for Tc = 0.6 h, D = 0.05 h.",
                      lambda: _tp(0.6, 0.05), 0.001, "hr", "Tp = D/2 + 0.6 Tc."),
    "l4_qp": Exercise("Peak of the unit hydrograph (1 in of runoff) for A = 0.05 mi² and "
                      "the Tp above.", lambda: _uh_peak(0.05, 1.0, 0.6, 0.05), 0.1, "cfs",
                      "qp = 484 A Q / Tp, A in mi²."),
    "l4_peak": Exercise("Peak of the runoff hydrograph: 12 ac, CN 78, Tc 0.35 h, 5.0-in type "
                        "III storm.", lambda: _hydrograph_peak(12.0, 78.0, 0.35, 5.0, "III"),
                        0.05, "cfs", "runoff_hydrograph(area_ac, cn, tc_hr, storm)."),
    "l5_si": Exercise("Storage-indication value 2S/Δt + O for S = 10,000 ft³, Δt = 0.1 h, "
                      "O = 2 cfs.", lambda: _si_value(10000.0, 0.1, 2.0), 0.01, "cfs",
                      "Δt in seconds: 0.1 h = 360 s."),
    "l5_orifice": Exercise("Flow through a 6-in orifice (invert at the bottom, Cd 0.6) with "
                           "the water 3.25 ft above the invert.",
                           lambda: _orifice(6.0, 3.25), 0.01, "cfs",
                           "Q = Cd a sqrt(2 g h), h measured to the orifice centre."),
    "l5_stage": Exercise("Peak stage of the lesson's pond (same inflow, same weir) with the "
                         "6-in orifice replaced by an 8-in one.",
                         lambda: _routed_stage(8.0), 0.01, "ft",
                         "Re-run route_reservoir with CircularOrifice(8.0, 0.0)."),
    "l6_volume": Exercise("Extra runoff volume of Heavenly Acres (250 ac, P 6.0 in) going "
                          "from CN 70 to CN 75.", lambda: _volume_change_acft(250.0, 6.0,
                                                                              70.0, 75.0),
                          0.5, "ac-ft", "ΔV = (Q_post - Q_pre) A / 12."),
    "l6_peak_pct": Exercise("Percent increase of the peak when CN 70, Tc 1.53 h becomes CN 75, "
                            "Tc 1.0 h (250 ac, 6.0-in type II storm).", _peak_change_pct, 0.5,
                            "%", "100 (post - pre) / pre."),
    "l6_storage_ratio": Exercise("TR-55 Fig. 6-1 storage ratio Vs/Vr for qo/qi = 0.3, "
                                 "type II.", lambda: _storage_ratio(0.3, "II"), 0.002, "-",
                                 "Vs/Vr = C0 + C1 r + C2 r² + C3 r³ (Table F-2)."),
    "l7_rv": Exercise("Runoff coefficient Rv of a site 35 % impervious.",
                      lambda: _rv(35.0), 0.001, "-", "Rv = 0.05 + 0.009 I."),
    "l7_wqv": Exercise("WQv in ft³: P 1.3 in, 2.5 ac, 1.05 ac impervious.",
                       lambda: _wqv_ft3(1.3, 2.5, 1.05), 1.0, "ft³",
                       "WQv = P Rv A / 12 in ac-ft; 43,560 ft² per acre."),
    "l7_wqv_min": Exercise("Same, for 2.0 ac with 0.2 ac impervious, applying the minimum "
                           "Rv of 0.2.", lambda: _wqv_ft3(1.3, 2.0, 0.2, min_rv=0.2), 1.0,
                           "ft³", "Rv = max(0.05 + 0.009 I, 0.2)."),
    "l8_storage": Exercise("Required storage of a trap draining 3.2 ac at 3,600 ft³/ac.",
                           lambda: _trap_storage(3.2), 1.0, "ft³", "Rate times area."),
    "l8_cleanout": Exercise("Sediment volume at which a 9,000-ft³ trap must be cleaned out "
                            "under Village of Pelham Code ch. 83.",
                            lambda: _cleanout_ft3(9000.0, "pelham"), 1.0, "ft³",
                            "'reduced by 50%' of design capacity."),
    "l8_visits": Exercise("Inspections required 3-30 May 2027 under ch. 83 with storms of "
                          "0.7 in (6 May), 0.3 in (13 May) and 1.2 in (21 May).", _visits, 0.0,
                          "visits", "Every 7 days, plus within 24 h of each storm >= 0.5 in; "
                                    "one visit can serve both."),
}


def _show(text: str) -> None:
    try:
        from IPython import get_ipython
        from IPython.display import Markdown, display
    except ImportError:  # pragma: no cover - plain python
        print(text)
        return
    if get_ipython() is None:
        print(text)
    else:
        display(Markdown(text))


def check(key: str, answer) -> bool | None:
    """Say whether ``answer`` to exercise ``key`` is right, without revealing the answer.

    Returns True or False, or None while ``answer`` is still ``None``.
    """
    ex = EXERCISES[key]
    unit = "dimensionless" if ex.unit == "-" else ex.unit
    if answer is None:
        _show(f"**{ex.question}** Put your number ({unit}) in `answer` and run the cell "
              "again.")
        return None
    try:
        value = float(answer)
    except (TypeError, ValueError):
        _show(f"`answer` must be a number ({unit}); got {answer!r}.")
        return False
    expected = float(ex.answer())
    tol = max(ex.tolerance, 1e-9 * abs(expected))
    if math.isfinite(value) and abs(value - expected) <= tol:
        _show(f"**Right** ({ex.question})")
        return True
    direction = "too high" if value > expected else "too low"
    _show(f"**Not yet**: {value:g} ({unit}) is {direction}. Hint: {ex.hint}")
    return False


# -- running lessons --------------------------------------------------------------------------
def lesson_paths(folder: str | os.PathLike) -> list[pathlib.Path]:
    """The lesson notebooks of a folder, in order (``NN_*.ipynb`` and ``explorer.ipynb``)."""
    return sorted(pathlib.Path(folder).glob("*.ipynb"))


def run_lesson(path: str | os.PathLike, *, timeout_s: int = 300, kernel_name: str = "python3"):
    """Execute a lesson notebook from its own folder and return the executed notebook.

    Raises ``nbclient.exceptions.CellExecutionError`` if a cell fails (a published check
    that no longer agrees raises ``AssertionError``).
    """
    import nbformat
    from nbclient import NotebookClient

    import hydrocalc

    path = pathlib.Path(path)
    nb = nbformat.read(path, as_version=4)
    # the kernel imports the same hydrocalc as this process (also from a source checkout)
    env = dict(os.environ)
    src = str(pathlib.Path(hydrocalc.__file__).resolve().parents[1])
    env["PYTHONPATH"] = os.pathsep.join([src] + [p for p in env.get("PYTHONPATH", "").split(
        os.pathsep) if p])
    NotebookClient(nb, timeout=timeout_s, kernel_name=kernel_name,
                   resources={"metadata": {"path": str(path.parent)}}).execute(env=env)
    return nb


def checked_outputs(nb) -> list[str]:
    """Return the text printed by the cells that check worked examples.

    Text printed by the cells that call :func:`published` or :func:`agrees` (the checked
    worked examples).
    """
    out = []
    for cell in nb.cells:
        if cell.cell_type == "code" and ("published(" in cell.source
                                         or "agrees(" in cell.source):
            out.append("".join(o.get("text", "") for o in cell.get("outputs", [])
                               if o.get("output_type") == "stream"))
    return out


def _main(argv: list[str]) -> int:
    """``python -m hydrocalc.course.learn FOLDER|NOTEBOOK...``: execute and save in place."""
    import nbformat

    paths = [p for arg in argv for p in (lesson_paths(arg) if pathlib.Path(arg).is_dir()
                                         else [pathlib.Path(arg)])]
    for path in paths:
        nb = run_lesson(path)
        for cell in nb.cells:
            cell.get("metadata", {}).pop("execution", None)
        nb.metadata.pop("widgets", None)
        nbformat.write(nb, path)
        print(f"executed {path} ({path.stat().st_size // 1024} KiB)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(_main(sys.argv[1:]))
