"""Elevations, tailwater and submergence in level-pool routing.

Independent reference: EPA SWMM 5 (pyswmm, dynamic wave, 1-s step) with FIXED-stage and
TIMESERIES outfalls; exact identities (free outfall unchanged, mass balance) and textbook
equations (Villemonte 1947; orifice under a head difference) otherwise.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydraulics import villemonte_factor
from hydrocalc.hydraulics.outlets import (
    Barrel,
    BroadCrestedWeir,
    CircularOrifice,
    OutletStructure,
    RectangularWeir,
    Riser,
    VNotchWeir,
)
from hydrocalc.hydraulics.pond_file import to_swmm_inp
from hydrocalc.hydraulics.routing import StageStorage, route_reservoir, route_reservoirs
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.units import GRAVITY_FT_S2


def _inflow(peak_cfs=20.0, tp_hr=1.0, dt=0.01, end=24.0):
    t = np.arange(0.0, end + dt / 2, dt)
    m = 3.7
    return Hydrograph(t, peak_cfs * (t / tp_hr) ** m * np.exp(m * (1 - t / tp_hr)) + 0.1)


POND = StageStorage.from_areas([0, 1, 2, 3, 4, 5, 6],
                               [9000, 10000, 11100, 12300, 13600, 15000, 16500],
                               method="average_end_area")
DEVICES = [CircularOrifice(8.0, 0.0), RectangularWeir(4.0, 4.0, end_contractions=2)]
BASIN = StageStorage.basin(120, 60, 6, side_slope_h_per_v=3)
BASIN_DEVICES = [CircularOrifice(10.0, 0.5), VNotchWeir(60.0, 3.0), BroadCrestedWeir(15.0, 5.0)]
SERIES = (np.array([0.0, 2.0, 4.0, 8.0, 24.0]), np.array([0.0, 3.5, 4.6, 2.0, 0.5]))


# -- equations --------------------------------------------------------------------------
def test_villemonte_factor_is_the_1947_equation():
    h2 = np.array([-1.0, 0.0, 0.25, 0.5, 0.9, 1.0, 1.2])
    want = (1.0 - np.clip(h2, 0, 1) ** 1.5) ** 0.385
    assert_allclose(villemonte_factor(1.0, h2), want, rtol=1e-12, atol=0)
    assert_allclose(villemonte_factor(2.0, 1.0, exponent=2.5), (1 - 0.5**2.5) ** 0.385,
                    rtol=1e-12)


def test_drowned_orifice_uses_the_head_difference():
    o = CircularOrifice(12.0, 1.0, cd=0.6)
    area = np.pi / 4.0
    q = o.discharge_cfs(5.0, tailwater_ft=3.0)
    assert_allclose(q, 0.6 * area * np.sqrt(2 * GRAVITY_FT_S2 * 2.0), rtol=1e-12)
    # tailwater below the centre: free flow
    assert o.discharge_cfs(5.0, tailwater_ft=1.2) == o.discharge_cfs(5.0)
    # reverse: the tailwater drives flow back into the pond
    assert_allclose(o.discharge_cfs(3.0, tailwater_ft=5.0), -q, rtol=1e-12)


@pytest.mark.parametrize("weir, n", [(RectangularWeir(4.0, 2.0), 1.5),
                                     (VNotchWeir(90.0, 2.0), 2.5),
                                     (BroadCrestedWeir(10.0, 2.0), 1.5)])
def test_submerged_weir_is_free_flow_times_villemonte(weir, n):
    free = weir.discharge_cfs(3.5)
    got = weir.discharge_cfs(3.5, tailwater_ft=2.9)
    assert_allclose(got, free * (1 - (0.9 / 1.5) ** n) ** 0.385, rtol=1e-12)
    assert weir.discharge_cfs(3.5, tailwater_ft=1.0) == free
    assert weir.discharge_cfs(3.5, tailwater_ft=3.5) == 0.0
    assert weir.discharge_cfs(2.9, tailwater_ft=3.5) < 0.0


def test_barrel_outlet_control_uses_the_tailwater_above_its_outlet_crown():
    b = Barrel(18.0, 0.0, 50.0, 0.01)
    free = b.discharge_cfs(6.0)
    assert b.discharge_cfs(6.0, tailwater_ft=-5.0) == free
    drowned = b.discharge_cfs(6.0, tailwater_ft=4.0)
    d, n = 1.5, 0.013
    kf = 2 * GRAVITY_FT_S2 / 1.49**2 * n**2 * 50.0 / (d / 4) ** (4 / 3)
    want = np.pi * d**2 / 4 * np.sqrt(2 * GRAVITY_FT_S2 * 2.0 / (1 + 0.5 + kf))
    assert_allclose(drowned, want, rtol=1e-12)
    assert b.discharge_cfs(3.0, tailwater_ft=5.0) < 0.0


def test_riser_in_series_with_a_barrel_keeps_working_with_a_tailwater():
    s = OutletStructure([CircularOrifice(6, 0.0), Riser(36, 4.0)],
                        barrel=Barrel(18, 0.0, 50.0, 0.01))
    assert_allclose(s.discharge_cfs(6.0, tailwater_ft=-10.0), s.discharge_cfs(6.0), rtol=1e-12)
    assert s.discharge_cfs(6.0, tailwater_ft=5.0) < s.discharge_cfs(6.0)


# -- routing -------------------------------------------------------------------------------
def test_no_tailwater_is_bit_identical_to_the_free_outfall():
    inflow = _inflow()
    a = route_reservoir(inflow, POND, DEVICES)
    b = route_reservoir(inflow, POND, DEVICES, tailwater_ft=None)
    for name in ("outflow_cfs", "stage_ft", "storage_ft3"):
        assert np.array_equal(getattr(a, name), getattr(b, name))
    assert a.tailwater_ft is None and not a.reverse_flow


def test_tailwater_below_every_invert_changes_nothing():
    inflow = _inflow()
    a = route_reservoir(inflow, POND, DEVICES)
    b = route_reservoir(inflow, POND, DEVICES, tailwater_ft=-1.0)
    assert_allclose(b.outflow_cfs, a.outflow_cfs, rtol=1e-12, atol=1e-12)


def test_series_tailwater_closes_the_mass_balance_and_reports_reverse_flow():
    with pytest.warns(RangeWarning, match="back into the pond"):
        r = route_reservoir(_inflow(), POND, DEVICES, tailwater_ft=SERIES)
    assert abs(r.mass_balance_error_pct) < 1e-9
    assert r.reverse_flow and r.peak_reverse_cfs > 0
    assert_allclose(r.tailwater_ft, np.interp(r.time_hr, *SERIES), rtol=1e-12)
    assert r.summary()["peak_tailwater_ft"] == pytest.approx(4.6)


def test_series_given_as_a_mapping_equals_the_pair():
    inflow = _inflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        a = route_reservoir(inflow, POND, DEVICES, tailwater_ft=SERIES)
        b = route_reservoir(inflow, POND, DEVICES,
                            tailwater_ft={"time_hr": SERIES[0], "stage_ft": SERIES[1]})
    assert np.array_equal(a.outflow_cfs, b.outflow_cfs)


def test_flap_gate_stops_reverse_flow():
    r = route_reservoir(_inflow(), POND, DEVICES, tailwater_ft=SERIES, flap_gate=True)
    assert r.outflow_cfs.min() >= 0.0 and not r.reverse_flow


def test_constant_tailwater_batch_equals_single_routes():
    inflow = _inflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        singles = [route_reservoir(inflow, POND, DEVICES, tailwater_ft=tw) for tw in (1.0, 4.3)]
    q = np.stack([inflow.flow_cfs, inflow.flow_cfs])
    b = route_reservoirs(q, 0.01, POND, [DEVICES, DEVICES], tailwater_ft=[1.0, 4.3])
    assert_allclose(b.peak_outflow_cfs, [s.peak_outflow_cfs for s in singles], rtol=1e-9)
    assert_allclose(b.peak_stage_ft, [s.peak_stage_ft for s in singles], rtol=1e-9)


def test_tailwater_above_the_top_is_refused():
    with pytest.raises(InputError, match=r"tailwater_ft must be <= the top of the pond \(6 ft"):
        route_reservoir(_inflow(), POND, DEVICES, tailwater_ft=6.5)
    with pytest.raises(InputError, match="tailwater_ft must be <= the top of each pond"):
        route_reservoirs(np.ones((1, 10)), 0.1, POND, [DEVICES], tailwater_ft=7.0)


def test_malformed_tailwater_series_is_refused():
    with pytest.raises(InputError, match="time_hr must increase strictly"):
        route_reservoir(_inflow(), POND, DEVICES, tailwater_ft=([0, 2, 1], [0, 1, 2]))
    with pytest.raises(InputError, match="mapping must have the keys time_hr"):
        route_reservoir(_inflow(), POND, DEVICES, tailwater_ft={"t": [0], "x": [1]})
    with pytest.raises(InputError, match="constant tailwater per pond"):
        route_reservoirs(np.ones((1, 10)), 0.1, POND, [DEVICES], tailwater_ft=SERIES)


# -- elevations ----------------------------------------------------------------------------
def test_pond_in_elevations_routes_exactly_like_the_pond_in_stages():
    inflow = _inflow()
    by_el = StageStorage.from_areas(np.array([0, 1, 2, 3, 4, 5, 6]) + 101.5,
                                    [9000, 10000, 11100, 12300, 13600, 15000, 16500],
                                    method="average_end_area", elevation=True)
    assert by_el.datum_ft == 101.5 and by_el.top_elevation_ft == 107.5
    devs = [CircularOrifice(8.0, 101.5), RectangularWeir(4.0, 105.5, end_contractions=2)]
    a = route_reservoir(inflow, POND, DEVICES, tailwater_ft=2.0)
    b = route_reservoir(inflow, by_el, devs, tailwater_ft=103.5)
    assert_allclose(b.outflow_cfs, a.outflow_cfs, rtol=1e-9, atol=1e-9)
    assert_allclose(b.peak_elevation_ft, a.peak_stage_ft + 101.5, rtol=1e-12)
    assert_allclose(b.elevation_ft - b.stage_ft, 101.5, rtol=1e-12)
    assert b.summary()["top_elevation_ft"] == 107.5
    assert "elevation_ft" in b.to_frame() and "elevation_ft" in by_el.to_frame()


def test_datum_with_stages_and_basin_datum():
    ss = StageStorage.from_areas([0, 2, 4], [100, 200, 300], datum_ft=50.0)
    assert ss.bottom_elevation_ft == 50.0 and ss.top_elevation_ft == 54.0
    basin = StageStorage.basin(20, 10, 4, datum_ft=10.0)
    assert basin.elevation_ft(1.0) == 11.0
    assert (basin + StageStorage.basin(5, 5, 4)).datum_ft == 10.0


def test_device_below_the_pond_bottom_is_refused():
    ss = StageStorage.basin(20, 10, 4, datum_ft=100.0)
    with pytest.raises(InputError, match=r"CircularOrifice 'orifice_6in' invert_ft must be at or "
                                         r"above the pond bottom \(elevation 100 ft\); got 99.5"):
        route_reservoir(_inflow(), ss, [CircularOrifice(6, 99.5, name="orifice_6in")])


def test_elevation_table_errors():
    with pytest.raises(InputError, match="datum_ft must equal the first elevation"):
        StageStorage.from_areas([100, 101], [10, 20], elevation=True, datum_ft=99.0)
    with pytest.raises(InputError, match="elevation_ft must increase strictly"):
        StageStorage.from_areas([100, 99], [10, 20], elevation=True)
    with pytest.raises(InputError, match="share one bottom elevation"):
        StageStorage.basin(5, 5, 2, datum_ft=1.0) + StageStorage.basin(5, 5, 2, datum_ft=2.0)


# -- independent reference: EPA SWMM 5 ----------------------------------------------------
SWMM_CASES = {
    "orifice+weir, constant 1.0 ft (orifice drowned)": (POND, DEVICES, 1.0),
    "orifice+weir, constant 4.3 ft (weir submerged)": (POND, DEVICES, 4.3),
    "orifice+weir, series": (POND, DEVICES, SERIES),
    "basin V-notch+spillway, constant 3.5 ft": (BASIN, BASIN_DEVICES, 3.5),
    "basin V-notch+spillway, series": (BASIN, BASIN_DEVICES, SERIES),
}


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(SWMM_CASES))
def test_tailwater_routing_agrees_with_swmm(case, tmp_path):
    pyswmm = pytest.importorskip("pyswmm")
    pond, devices, tw = SWMM_CASES[case]
    inflow = _inflow()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        ours = route_reservoir(inflow, pond, devices, tailwater_ft=tw)
    path = tmp_path / "tw.inp"
    path.write_text(to_swmm_inp(inflow, pond, devices, tailwater_ft=tw, routing_step_s=1.0))
    stage, flow = [], []
    with pyswmm.Simulation(str(path)) as sim:
        links = [pyswmm.Links(sim)[f"L{i + 1}"] for i in range(len(devices))]
        su = pyswmm.Nodes(sim)["SU1"]
        for _ in sim:
            stage.append(su.depth)
            flow.append(sum(lk.flow for lk in links))
    # measured: peak outflow within 0.03 %, peak stage within 0.005 %, peak reverse flow
    # within 0.5 %; asserted at 1 % (the acceptance criterion is 2 %)
    assert_allclose(ours.peak_outflow_cfs, max(flow), rtol=0.01, atol=0)
    assert_allclose(ours.peak_stage_ft, max(stage), rtol=0.01, atol=0)
    assert_allclose(ours.outflow_cfs.min(), min(flow), rtol=0.01, atol=0.01)
