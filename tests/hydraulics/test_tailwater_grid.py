"""Time-varying tailwater on the (stage x tailwater) grid against the exact evaluation.

:func:`hydrocalc.hydraulics.routing.tailwater.route_with_tailwater_series` (what
``route_reservoir`` uses for a tailwater series) interpolates the devices' flow bilinearly on
a grid of tailwater levels;
:func:`hydrocalc.hydraulics.routing.tailwater.route_with_tailwater_series_exact` evaluates
every device at every step's tailwater. The tolerances are the ones stated in the module docstring.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.hydraulics.outlets import (
    Barrel,
    BroadCrestedWeir,
    CircularOrifice,
    OutletStructure,
    RectangularWeir,
    Riser,
    VNotchWeir,
)
from hydrocalc.hydraulics.routing import StageStorage, route_reservoir, tailwater_series
from hydrocalc.hydraulics.routing.reservoir import _prepare
from hydrocalc.hydraulics.routing.tailwater import (
    _tailwater_grid,
    route_with_tailwater_series,
    route_with_tailwater_series_exact,
)
from hydrocalc.hydrograph import Hydrograph


def _inflow(peak_cfs=20.0, tp_hr=1.0, dt=0.01, end=24.0):
    t = np.arange(0.0, end + dt / 2, dt)
    m = 3.7
    return Hydrograph(t, peak_cfs * (t / tp_hr) ** m * np.exp(m * (1 - t / tp_hr)) + 0.1)


POND = StageStorage.from_areas([0, 1, 2, 3, 4, 5, 6],
                               [9000, 10000, 11100, 12300, 13600, 15000, 16500],
                               method="average_end_area")
BASIN = StageStorage.basin(120, 60, 6, side_slope_h_per_v=3)
CASES = {
    # orifice drowned and weir submerged, reverse flow while the tailwater is above the pond
    "orifice+weir, rising to 4.6 ft": (
        POND, [CircularOrifice(8.0, 0.0), RectangularWeir(4.0, 4.0, end_contractions=2)],
        (np.array([0.0, 2.0, 4.0, 8.0, 24.0]), np.array([0.0, 3.5, 4.6, 2.0, 0.5])), 20.0),
    "basin V-notch+spillway": (
        BASIN, [CircularOrifice(10.0, 0.5), VNotchWeir(60.0, 3.0), BroadCrestedWeir(15.0, 5.0)],
        (np.array([0.0, 2.0, 4.0, 8.0, 24.0]), np.array([0.0, 3.5, 4.6, 2.0, 0.5])), 20.0),
    "riser into a barrel, tailwater above the barrel crown": (
        POND, OutletStructure([Riser(36.0, 3.5), CircularOrifice(4.0, 0.0)],
                              barrel=Barrel(18.0, 0.0, 60.0, 0.01)),
        (np.array([0.0, 1.0, 3.0, 24.0]), np.array([-1.0, 2.5, 3.0, 0.0])), 30.0),
    "early tailwater peak, strong reverse flow": (
        POND, [CircularOrifice(12.0, 0.0), RectangularWeir(6.0, 4.5)],
        (np.array([0.0, 0.5, 1.5, 6.0, 24.0]), np.array([0.0, 3.0, 3.8, 0.2, 0.2])), 15.0),
}


def _both(case):
    ss, dev, series, peak = CASES[case]
    inflow = _inflow(peak)
    structure, t, q, dt = _prepare(inflow, ss, dev, None, None)
    tw = tailwater_series(series, t, ss)
    args = ("", t, q, dt, ss, structure, 0.0, tw, 400, False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return route_with_tailwater_series(*args), route_with_tailwater_series_exact(*args)


@pytest.mark.parametrize("case", sorted(CASES))
def test_grid_agrees_with_the_exact_evaluation_within_the_stated_bound(case):
    grid, exact = _both(case)
    # the bound stated in hydrocalc.hydraulics.routing.tailwater: peak stage 1e-4 relative,
    # peak outflow 1e-3, peak reverse flow 5e-3, stages within 5e-3 ft and flows within 5 %
    # of their peak at every step
    assert_allclose(grid.peak_stage_ft, exact.peak_stage_ft, rtol=1e-4)
    assert_allclose(grid.peak_outflow_cfs, exact.peak_outflow_cfs, rtol=1e-3)
    assert_allclose(grid.peak_reverse_cfs, exact.peak_reverse_cfs, rtol=5e-3, atol=1e-9)
    assert np.abs(grid.stage_ft - exact.stage_ft).max() < 5e-3
    assert np.abs(grid.outflow_cfs - exact.outflow_cfs).max() < 0.05 * exact.peak_outflow_cfs
    assert grid.reverse_flow == exact.reverse_flow
    assert abs(grid.mass_balance_error_pct) < 1e-9
    for nm, q in exact.device_flows_cfs.items():
        assert np.abs(grid.device_flows_cfs[nm] - q).max() <= 0.05 * max(np.abs(q).max(), 1e-9)


def test_the_cases_exercise_submergence_and_reverse_flow():
    # guard: the comparison above is only meaningful if the tailwater matters
    for case in CASES:
        _, exact = _both(case)
        free = route_reservoir(_inflow(CASES[case][3]), CASES[case][0], CASES[case][1])
        assert abs(exact.peak_stage_ft - free.peak_stage_ft) > 0.01, case
    assert _both("early tailwater peak, strong reverse flow")[1].peak_reverse_cfs > 1.0


def test_device_flows_add_up_to_the_outflow():
    grid, _ = _both("orifice+weir, rising to 4.6 ft")
    total = np.sum(list(grid.device_flows_cfs.values()), axis=0)
    assert_allclose(total, grid.outflow_cfs, rtol=1e-9, atol=1e-9)


def test_grid_holds_the_extremes_the_breakpoints_and_the_routing_stages_between():
    h = np.linspace(0.0, 6.0, 13)
    st = OutletStructure([CircularOrifice(8.0, 0.0), RectangularWeir(4.0, 4.0)])
    g = _tailwater_grid(h, np.array([0.2, 4.6, 1.0]), st)
    assert g[0] == 0.2 and g[-1] == 4.6
    for p in (0.5, 1.0, 2.5, 4.0, 4.5, 8.0 / 12.0):       # stages, weir crest, orifice crown
        assert np.isclose(g, p).any(), p
    assert (np.diff(g) > 0).all()


def test_route_reservoir_uses_the_grid_and_constant_tailwater_is_unchanged():
    ss, dev, series, peak = CASES["orifice+weir, rising to 4.6 ft"]
    grid, _ = _both("orifice+weir, rising to 4.6 ft")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = route_reservoir(_inflow(peak), ss, dev, tailwater_ft=series)
    assert_allclose(r.stage_ft, grid.stage_ft, rtol=0, atol=0)
    # a "series" that is constant takes the one-table path, identical to the constant
    flat = (np.array([0.0, 24.0]), np.array([1.0, 1.0]))
    a = route_reservoir(_inflow(peak), ss, dev, tailwater_ft=flat)
    b = route_reservoir(_inflow(peak), ss, dev, tailwater_ft=1.0)
    assert_allclose(a.outflow_cfs, b.outflow_cfs, rtol=0, atol=0)
