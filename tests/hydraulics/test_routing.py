"""Stage-storage, storage-indication routing (single and batch), sizing and pond files."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from conftest import check_container
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydraulics.outlets import (
    Barrel,
    CircularOrifice,
    Exfiltration,
    OutletStructure,
    RectangularOrifice,
    RectangularWeir,
    Riser,
    VNotchWeir,
)
from hydrocalc.hydraulics.pond_file import load_pond, pond_from_mapping
from hydrocalc.hydraulics.routing import (
    OvertoppingWarning,
    StageStorage,
    estimate_storage_volume,
    route_reservoir,
    route_reservoirs,
)
from hydrocalc.hydraulics.sizing import size_orifice, size_weir
from hydrocalc.hydrograph import Hydrograph

G = 32.2


def gamma_inflow(peak_cfs=20.0, tp_hr=1.0, dt_hr=0.01, duration_hr=24.0, base_cfs=0.0,
                 name=""):
    """Gamma-shaped hydrograph (shape 3.7, the NRCS dimensionless UH's)."""
    t = np.arange(0.0, duration_hr + dt_hr / 2, dt_hr)
    m = 3.7
    q = peak_cfs * (t / tp_hr) ** m * np.exp(m * (1 - t / tp_hr)) + base_cfs
    return Hydrograph(t, q, name=name)


POND = StageStorage.from_areas([0, 1, 2, 3, 4, 5, 6],
                               [9000, 10000, 11100, 12300, 13600, 15000, 16500])
OUTLETS = [CircularOrifice(8.0, 0.0), RectangularWeir(4.0, 4.0, end_contractions=2)]


# =========================================================================================
# StageStorage
# =========================================================================================
def test_conic_method_is_exact_for_a_cone_frustum():
    # plan radius 20 ft at the bottom growing 3 ft per ft of depth (a frustum of a cone)
    h = np.array([0.0, 2.0, 5.0])
    r = 20.0 + 3.0 * h
    ss = StageStorage.from_areas(h, math.pi * r**2)
    for stage in (0.7, 2.0, 3.3, 5.0):
        rr = 20.0 + 3.0 * stage
        exact = math.pi * stage / 3.0 * (20.0**2 + 20.0 * rr + rr**2)
        assert_allclose(ss.storage_ft3(stage), exact, rtol=1e-12, atol=0)
        assert_allclose(ss.area_ft2(stage), math.pi * rr**2, rtol=1e-12, atol=0)


def test_average_end_area_is_the_trapezoidal_rule():
    ss = StageStorage.from_areas([0, 1, 3], [100.0, 300.0, 700.0], method="average_end_area")
    assert_allclose(ss.storage_ft3([1.0, 3.0]), [200.0, 200.0 + 1000.0], rtol=1e-12, atol=0)
    # area linear in stage inside an interval -> storage quadratic
    assert_allclose(ss.storage_ft3(2.0), 200.0 + (300.0 + 500.0) / 2.0, rtol=1e-12, atol=0)


def test_basin_matches_the_prismoidal_volume():
    ss = StageStorage.basin(100.0, 40.0, 5.0, side_slope_h_per_v=3.0)
    h = np.array([0.5, 2.25, 5.0])
    exact = 4000 * h + 3 * 140 * h**2 + 4.0 / 3.0 * 9 * h**3
    assert_allclose(ss.storage_ft3(h), exact, rtol=1e-12, atol=0)
    assert_allclose(ss.area_ft2(h), (100 + 6 * h) * (40 + 6 * h), rtol=1e-12, atol=0)


def test_stone_filled_basin_scales_storage_by_porosity():
    full = StageStorage.basin(50.0, 20.0, 3.0)
    stone = StageStorage.basin(50.0, 20.0, 3.0, porosity_frac=0.4)
    assert_allclose(stone.max_storage_ft3, 0.4 * full.max_storage_ft3, rtol=1e-12, atol=0)


def test_drywell_with_stone_envelope_and_stone_below():
    dw = StageStorage.drywell(8.0, 10.0, stone_porosity_frac=0.4, stone_width_ft=2.0,
                              stone_depth_below_ft=1.0, wall_thickness_ft=0.5, count=2)
    r_i, r_o, r_e = 4.0, 4.5, 6.5
    below = 0.4 * math.pi * r_e**2
    side = math.pi * r_i**2 + 0.4 * math.pi * (r_e**2 - r_o**2)
    assert dw.top_stage_ft == 11.0
    assert_allclose(dw.storage_ft3([0.5, 1.0, 6.0]),
                    2 * np.array([0.5 * below, below, below + 5 * side]), rtol=1e-12, atol=0)
    assert_allclose(dw.wetted_area_ft2(11.0), 2 * (math.pi * r_e**2 + 2 * math.pi * r_e * 11),
                    rtol=1e-12, atol=0)


def test_sum_of_basin_and_raised_chambers_shares_one_water_level():
    basin = StageStorage.basin(60.0, 30.0, 6.0)
    chambers = StageStorage.from_volumes([0, 1, 2, 3], [0, 300, 550, 700]).raised(0.5)
    total = basin + chambers
    assert total.top_stage_ft == 6.0
    assert_allclose(total.storage_ft3([0.25, 1.5, 3.5, 6.0]),
                    1800 * np.array([0.25, 1.5, 3.5, 6.0]) + np.array([0, 300, 700, 700]),
                    rtol=1e-12, atol=1e-9)
    assert_allclose(sum([basin, basin]).max_storage_ft3, 2 * basin.max_storage_ft3,
                    rtol=1e-12, atol=0)
    assert_allclose((3 * basin).max_storage_ft3, 3 * basin.max_storage_ft3, rtol=1e-12, atol=0)


@given(v=st.floats(0.0, 1.0))
@settings(max_examples=50, deadline=None)
def test_stage_from_storage_inverts_storage(v):
    storage = v * POND.max_storage_ft3
    stage = POND.stage_ft(storage)
    assert_allclose(POND.storage_ft3(stage), storage, rtol=1e-10, atol=1e-6)


def test_storage_follows_the_stage_container(container):
    kind, conv = container
    stages = [0.5, 2.0, 4.5]
    check_container(POND.storage_ft3(conv(stages)), kind, len(stages))
    check_container(POND.area_ft2(conv(stages)), kind, len(stages))


@pytest.mark.parametrize("factory, match", [
    (lambda: StageStorage.from_areas([0, 2, 1, 3], [1, 2, 3, 4]),
     r"stage_ft must increase strictly; got 1 after 2 at index 2 \(1 of 3 steps invalid\)"),
    (lambda: StageStorage.from_areas([0, 1, 1], [1, 2, 3]),
     r"stage_ft must increase strictly; got 1 after 1 at index 2"),
    (lambda: StageStorage.from_areas([100, 101, 102], [1, 2, 3]),
     r"stage_ft must start at 0 \(the pond bottom\); got 100. .*elevation - 100"),
    (lambda: StageStorage.from_areas([0, 1, 2], [100, -5, 300]),
     r"area_ft2 must be in \[0, inf\); got -5 at index 1"),
    (lambda: StageStorage.from_areas([0, 1, 2], [100, 0, 0]),
     r"area_ft2 must be > 0 at one end of every stage interval"),
    (lambda: StageStorage.from_areas([0, 1, 2], [1, 2]),
     r"area_ft2 must have one value per stage; got 2 areas for 3 stages"),
    (lambda: StageStorage.from_areas([0], [1]), r"stage_ft must be a 1-D table of at least 2"),
    (lambda: StageStorage.from_areas([0, 1], [1, 2], method="prismoidal"),
     r"unknown method 'prismoidal'"),
    (lambda: StageStorage.from_volumes([0, 1, 2], [0, 500, 400]),
     r"storage_ft3 must increase strictly with stage; got 400 after 500 at index 2"),
    (lambda: StageStorage.from_volumes([0, 1, 2], [10, 500, 900]),
     r"storage_ft3 must be 0 at stage 0; got 10"),
    (lambda: StageStorage.basin(-40, 20, 4), r"bottom_length_ft must be in \(0, inf\); got -40"),
    (lambda: StageStorage.basin(40, 20, 4, side_slope_h_per_v=-1),
     r"side_slope_h_per_v must be in \[0, inf\); got -1"),
    (lambda: StageStorage.drywell(8, 10, stone_width_ft=2),
     r"stone_porosity_frac must be given when the drywell has stone; got None"),
    (lambda: StageStorage.drywell(8, 10, stone_width_ft=2, stone_porosity_frac=1.0),
     r"stone_porosity_frac must be in \(0, 1\); got 1"),
    (lambda: StageStorage.drywell(-8, 10), r"diameter_ft must be in \(0, inf\); got -8"),
    (lambda: POND.storage_ft3(7.0), r"stage_ft must be in \[0, 6\]; got 7. The top of this"),
    (lambda: POND.stage_ft(-1.0), r"storage_ft3 must be in \[0, "),
])
def test_bad_stage_storage_raises_one_clear_error(factory, match):
    with pytest.raises(InputError, match=match):
        factory()


# =========================================================================================
# Routing: invariants
# =========================================================================================
def test_mass_balance_closes():
    res = route_reservoir(gamma_inflow(), POND, OUTLETS)
    assert abs(res.mass_balance_error_pct) < 1e-9
    v_in = np.trapezoid(res.inflow_cfs, dx=res.dt_hr * 3600)
    v_out = np.trapezoid(res.outflow_cfs, dx=res.dt_hr * 3600)
    d_s = res.storage_ft3[-1] - res.storage_ft3[0]
    assert_allclose(v_in, v_out + d_s, rtol=1e-12, atol=0)
    # storage really is the stage-storage relation at the routed stage
    assert_allclose(res.storage_ft3, POND.storage_ft3(np.minimum(res.stage_ft, 6.0)),
                    rtol=2e-4, atol=1.0)


def test_peak_outflow_is_attenuated_and_on_the_falling_limb():
    res = route_reservoir(gamma_inflow(), POND, OUTLETS)
    assert res.peak_outflow_cfs < res.peak_inflow_cfs
    assert res.time_of_peak_outflow_hr > res.time_of_peak_inflow_hr
    # level pool: the outflow peaks where it crosses the (falling) inflow
    i = int(np.argmax(res.outflow_cfs))
    assert_allclose(res.outflow_cfs[i], res.inflow_cfs[i], rtol=0.01, atol=0)


@given(length=st.floats(40, 200), width=st.floats(20, 100), z=st.floats(0, 4),
       d_in=st.floats(3, 18), peak=st.floats(2, 60), tp=st.floats(0.3, 3))
@settings(max_examples=25, deadline=None)
def test_routing_invariants_hold_for_random_ponds(length, width, z, d_in, peak, tp):
    pond = StageStorage.basin(length, width, 8.0, side_slope_h_per_v=z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        res = route_reservoir(gamma_inflow(peak, tp, duration_hr=12.0), pond,
                              [CircularOrifice(d_in, 0.0), RectangularWeir(3.0, 6.0)])
    assert abs(res.mass_balance_error_pct) < 0.1
    assert res.peak_outflow_cfs <= res.peak_inflow_cfs * (1 + 1e-9)
    assert res.time_of_peak_outflow_hr >= res.time_of_peak_inflow_hr
    assert (res.storage_ft3 >= -1e-6).all()


def test_device_flows_add_up_to_the_outflow():
    res = route_reservoir(gamma_inflow(), POND, OUTLETS + [Exfiltration(0.5)])
    total = sum(res.device_flows_cfs.values())
    assert_allclose(total, res.outflow_cfs, rtol=1e-9, atol=1e-12)
    assert_allclose(res.primary_cfs + res.discarded_cfs, res.outflow_cfs, rtol=0, atol=1e-12)
    assert_allclose(res.discarded_cfs, res.device_flows_cfs["exfiltration"], rtol=0, atol=0)
    assert res.outflow_hydrograph("primary").peak_cfs == pytest.approx(res.peak_primary_cfs)
    frame = res.to_frame()
    assert {"time_hr", "inflow_cfs", "stage_ft", "orifice_8in_cfs"} <= set(frame.columns)


def test_exfiltration_lowers_the_peak_and_closes_the_balance():
    dry = route_reservoir(gamma_inflow(), POND, OUTLETS)
    wet = route_reservoir(gamma_inflow(), POND, OUTLETS + [Exfiltration(2.0, over="bottom")])
    assert wet.peak_primary_cfs < dry.peak_primary_cfs
    assert abs(wet.mass_balance_error_pct) < 1e-9
    v_exf = np.trapezoid(wet.discarded_cfs, dx=wet.dt_hr * 3600)
    assert v_exf > 0


def test_drywell_with_only_exfiltration_drains_at_the_rate_times_area():
    dw = StageStorage.drywell(8.0, 6.0)
    t = np.arange(0, 12.001, 0.01)
    res = route_reservoir(Hydrograph(t, np.zeros_like(t)), dw, Exfiltration(6.0, over="bottom"),
                          initial_stage_ft=5.0)
    # constant rate over a constant area: the level falls 6 in/h = 0.5 ft/h
    assert_allclose(res.stage_ft[t <= 8.0], 5.0 - 0.5 * t[t <= 8.0], rtol=0, atol=0.02)


# =========================================================================================
# Routing: accuracy against exact solutions
# =========================================================================================
def test_orifice_drawdown_matches_torricelli():
    # prismatic tank (A = 10,000 ft2), 6-in orifice at the bottom, no inflow:
    # sqrt(h - D/2) = sqrt(h0 - D/2) - cd a sqrt(2g) t / (2A) while h is above the crown
    area, d = 10000.0, 0.5
    a = math.pi * d * d / 4
    t = np.arange(0.0, 8.0 + 1e-9, 0.01)
    res = route_reservoir(Hydrograph(t, np.zeros_like(t)), StageStorage.basin(100, 100, 6),
                          CircularOrifice(6.0, 0.0), initial_stage_ft=5.0)
    k = 0.6 * a * math.sqrt(2 * G)
    exact = (math.sqrt(5.0 - d / 2) - k * t * 3600 / (2 * area)) ** 2 + d / 2
    assert (exact > d).all()
    assert_allclose(res.stage_ft, exact, rtol=1e-3, atol=0)


def test_weir_drawdown_matches_the_exact_solution():
    # H^(-1/2) = H0^(-1/2) + cw L t / (2 A) for a weir draining a prismatic tank
    area = 5000.0
    t = np.arange(0.0, 3.0 + 1e-9, 0.005)
    res = route_reservoir(Hydrograph(t, np.zeros_like(t)), StageStorage.basin(100, 50, 5),
                          RectangularWeir(2.0, 2.0), initial_stage_ft=3.5)
    exact = 2.0 + (1.5**-0.5 + 3.33 * 2.0 * t * 3600 / (2 * area)) ** -2
    assert_allclose(res.stage_ft, exact, rtol=2e-3, atol=0)


def test_constant_inflow_reaches_the_weir_steady_state():
    t = np.arange(0.0, 30.0 + 1e-9, 0.02)
    res = route_reservoir(Hydrograph(t, np.full_like(t, 10.0)), StageStorage.basin(40, 40, 6),
                          RectangularWeir(5.0, 2.0))
    assert_allclose(res.outflow_cfs[-1], 10.0, rtol=1e-6, atol=0)
    assert_allclose(res.stage_ft[-1], 2.0 + (10.0 / (3.33 * 5.0)) ** (2 / 3), rtol=0, atol=2e-3)


# =========================================================================================
# Routing: options, warnings, errors
# =========================================================================================
def test_finer_step_interpolates_the_inflow():
    inflow = gamma_inflow(dt_hr=0.1)
    coarse = route_reservoir(inflow, POND, OUTLETS)
    fine = route_reservoir(inflow, POND, OUTLETS, dt_hr=0.01)
    assert fine.dt_hr == 0.01 and fine.time_hr.size == 10 * (coarse.time_hr.size - 1) + 1
    assert_allclose(fine.inflow_cfs[::10], coarse.inflow_cfs, rtol=1e-12, atol=1e-12)
    assert_allclose(fine.peak_outflow_cfs, coarse.peak_outflow_cfs, rtol=0.01, atol=0)


def test_step_coarser_than_the_inflow_raises():
    with pytest.raises(InputError, match=r"dt_hr must be <= the inflow's step \(0.01 h\); "
                                         r"got 0.1"):
        route_reservoir(gamma_inflow(), POND, OUTLETS, dt_hr=0.1)


def test_auto_step_removes_oscillation():
    # a small tank with a big weir: 2S/dt < dO at 0.1 h
    tank = StageStorage.basin(20, 20, 5)
    inflow = gamma_inflow(30.0, 1.0, dt_hr=0.1)
    with pytest.warns(RangeWarning, match=r"routing step dt_hr = 0.1 is too coarse"):
        route_reservoir(inflow, tank, RectangularWeir(10.0, 1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RangeWarning)
        res = route_reservoir(inflow, tank, RectangularWeir(10.0, 1.0), dt_hr="auto")
    assert res.dt_hr < 0.1
    assert res.peak_outflow_cfs <= res.peak_inflow_cfs


def test_overtopping_is_flagged_and_warned():
    small = StageStorage.basin(40, 30, 3)
    with pytest.warns(OvertoppingWarning, match=r"exceeds the top of the structure \(3 ft\)"):
        res = route_reservoir(gamma_inflow(), small, CircularOrifice(6.0, 0.0))
    assert res.overtopped and res.freeboard_ft < 0 and res.peak_stage_ft > 3.0
    assert res.warnings and "overtops" in res.warnings[0]
    assert abs(res.mass_balance_error_pct) < 1e-9


def test_initial_stage_drains_without_inflow():
    t = np.arange(0, 48.001, 0.05)
    res = route_reservoir(Hydrograph(t, np.zeros_like(t)), POND, OUTLETS, initial_stage_ft=3.0)
    assert res.stage_ft[0] == pytest.approx(3.0)
    assert (np.diff(res.stage_ft) <= 1e-12).all()
    assert abs(res.mass_balance_error_pct) < 1e-9


def test_duration_extends_the_route_with_zero_inflow():
    res = route_reservoir(gamma_inflow(duration_hr=6.0), POND, OUTLETS, duration_hr=36.0)
    assert res.time_hr[-1] == pytest.approx(36.0)
    assert res.inflow_cfs[-1] == 0.0 and res.stage_ft[-1] < 0.5


def test_barrel_structure_routes():
    structure = OutletStructure([CircularOrifice(6.0, 0.0), Riser(36.0, 4.0)],
                                barrel=Barrel(15.0, 0.0, 60.0, 0.01))
    res = route_reservoir(gamma_inflow(20.0), POND, structure)
    assert not res.overtopped and res.peak_stage_ft > 4.0
    # the barrel controls at the peak: outflow = barrel capacity < riser + orifice
    cap = structure.barrel.discharge_cfs(res.peak_stage_ft)
    free = sum(d.discharge_cfs(res.peak_stage_ft) for d in structure.devices)
    assert cap < free
    assert_allclose(res.peak_outflow_cfs, cap, rtol=2e-3, atol=0)


@pytest.mark.parametrize("call, match", [
    (lambda: route_reservoir(gamma_inflow(), POND, CircularOrifice(6.0, 6.5)),
     r"CircularOrifice 'orifice_6in' invert_ft must be <= the top of the structure \(6 ft\); "
     r"got 6.5"),
    (lambda: route_reservoir(gamma_inflow(), POND, RectangularWeir(4.0, 7.0)),
     r"RectangularWeir 'weir_4ft' crest_ft must be <= the top"),
    (lambda: route_reservoir(gamma_inflow(), POND,
                             OutletStructure([CircularOrifice(6, 0)],
                                             barrel=Barrel(18, 6.5, 50, 0.01))),
     r"Barrel 'barrel_18in' invert_ft must be <= the top"),
    (lambda: route_reservoir(gamma_inflow(), POND, OUTLETS, initial_stage_ft=-1),
     r"initial_stage_ft must be in \[0, 6\]; got -1"),
    (lambda: route_reservoir([1, 2, 3], POND, OUTLETS), r"inflow must be a Hydrograph"),
    (lambda: route_reservoir(gamma_inflow(), "pond", OUTLETS),
     r"stage_storage must be a StageStorage; got 'pond'"),
    (lambda: route_reservoir(gamma_inflow(), POND, []),
     r"devices must hold at least one outlet device"),
    (lambda: route_reservoir(gamma_inflow(), POND, OUTLETS, dt_hr="fast"),
     r"unknown dt_hr 'fast'"),
])
def test_bad_routing_input_raises_one_clear_error(call, match):
    with pytest.raises(InputError, match=match):
        call()


def test_estimate_storage_volume_is_re_exported():
    from hydrocalc import storage_estimate

    assert estimate_storage_volume is storage_estimate.estimate_storage_volume


# =========================================================================================
# Batch routing
# =========================================================================================
def _mixed_ponds():
    ponds = [POND, StageStorage.basin(120, 60, 6, side_slope_h_per_v=3),
             StageStorage.from_volumes([0, 1, 2, 3, 4, 5, 6],
                                       [0, 12000, 26000, 42000, 60000, 80000, 102000]),
             StageStorage.drywell(10.0, 8.0, stone_porosity_frac=0.4, stone_width_ft=3) * 20]
    outlets = [OUTLETS,
               [CircularOrifice(10, 0.5), VNotchWeir(60, 3.0), Exfiltration(1.0)],
               OutletStructure([RectangularOrifice(6, 4, 0.0), Riser(24, 3.5)],
                               barrel=Barrel(15, 0.0, 50, 0.02)),
               [Exfiltration(4.0), CircularOrifice(4.0, 6.0)]]
    return ponds, outlets


def test_batch_matches_single_routes():
    ponds, outlets = _mixed_ponds()
    storms = [gamma_inflow(20.0, 1.0), gamma_inflow(12.0, 2.0)]
    q = np.stack([[s.flow_cfs for _ in ponds] for s in storms])      # (2 storms, 4 ponds, nt)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        batch = route_reservoirs(q, 0.01, ponds, outlets)
        peaks = route_reservoirs(q, 0.01, ponds, outlets, keep="peaks")
        for i, storm in enumerate(storms):
            for j, (pond, outl) in enumerate(zip(ponds, outlets, strict=True)):
                one = route_reservoir(storm, pond, outl)
                assert_allclose(batch.outflow_cfs[i, j], one.outflow_cfs, rtol=1e-9, atol=1e-12)
                assert_allclose(batch.stage_ft[i, j], one.stage_ft, rtol=1e-9, atol=1e-12)
                assert_allclose(batch.storage_ft3[i, j], one.storage_ft3, rtol=1e-9, atol=1e-9)
                assert_allclose(batch.peak_outflow_cfs[i, j], one.peak_outflow_cfs, rtol=1e-9,
                                atol=0)
                assert_allclose(peaks.peak_stage_ft[i, j], one.peak_stage_ft, rtol=1e-9, atol=0)
                assert_allclose(peaks.peak_storage_ft3[i, j], one.peak_storage_ft3, rtol=1e-9,
                                atol=0)
                assert batch.time_of_peak_outflow_hr[i, j] == one.time_of_peak_outflow_hr
                again = batch.routing_result((i, j))
                assert_allclose(again.device_flows_cfs[next(iter(one.device_flows_cfs))],
                                next(iter(one.device_flows_cfs.values())), rtol=1e-9,
                                atol=1e-12)
    assert np.abs(batch.mass_balance_error_pct).max() < 1e-9
    assert np.abs(peaks.mass_balance_error_pct).max() < 1e-9
    assert peaks.outflow_cfs is None


def test_batch_accepts_one_structure_for_all_ponds_and_2d_inflow():
    q = np.stack([gamma_inflow(p).flow_cfs for p in (10.0, 20.0, 30.0)])
    b = route_reservoirs(q, 0.01, POND, OutletStructure(OUTLETS))
    assert b.shape == (3,)
    assert (np.diff(b.peak_outflow_cfs) > 0).all()


@pytest.mark.parametrize("call, match", [
    (lambda: route_reservoirs(np.ones(10), 0.01, POND, OutletStructure(OUTLETS)),
     r"inflow_cfs must have shape \(k, nt\) or \(m, k, nt\); got \(10,\)"),
    (lambda: route_reservoirs(np.ones((2, 10)), 0.01, [POND], OutletStructure(OUTLETS)),
     r"stage_storages must have one entry per pond \(2\); got 1"),
    (lambda: route_reservoirs(np.ones((3, 10)), 0.01, POND, OUTLETS),
     r"outlets_list must have one entry per pond \(3\); got 2. To use one set"),
    (lambda: route_reservoirs(-np.ones((2, 10)), 0.01, POND, OutletStructure(OUTLETS)),
     r"inflow_cfs must be in \[0, inf\); got -1"),
    (lambda: route_reservoirs(np.ones((2, 10)), None, POND, OutletStructure(OUTLETS)),
     r"dt_hr must be given with an inflow array; got None"),
])
def test_bad_batch_input_raises(call, match):
    with pytest.raises(InputError, match=match):
        call()


# =========================================================================================
# Sizing
# =========================================================================================
def _meets(storms, targets, devices, top=6.0):
    routes = [route_reservoir(s, POND, devices) for s in storms]
    return all(r.peak_outflow_cfs <= t * (1 + 1e-9) and r.peak_stage_ft <= top
               for r, t in zip(routes, targets, strict=True))


def test_size_orifice_finds_the_feasible_range_with_an_overflow_weir():
    # with an overflow weir the peak is not monotone in the orifice size: a small orifice
    # fills the pond and spills over the weir, a large one releases too much
    storms = [gamma_inflow(15.0, 1.0, name="2-yr"), gamma_inflow(25.0, 1.0, name="10-yr")]
    targets = [4.5, 17.3]
    weir = RectangularWeir(6.0, 4.5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OvertoppingWarning)
        res = size_orifice(storms, POND, targets, other_outlets=weir, tolerance_in=0.01)
        assert res.feasible and 3.0 < res.diameter_in < res.largest_size < 12.0
        assert (res.peak_outflow_cfs <= np.array(targets) * (1 + 1e-9)).all()
        assert (res.margin_cfs >= -1e-9).all()
        assert_allclose(res.margin_cfs, np.array(targets) - res.peak_outflow_cfs, rtol=0,
                        atol=1e-12)
        assert _meets(storms, targets, [CircularOrifice(res.diameter_in, 0.0), weir])
        assert not _meets(storms, targets, [CircularOrifice(res.diameter_in - 0.05, 0.0), weir])
        assert not _meets(storms, targets, [CircularOrifice(res.largest_size + 0.05, 0.0), weir])
    assert list(res.to_frame().storm) == ["2-yr", "10-yr"]


def test_size_orifice_smallest_size_keeps_the_stage_below_the_limit():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OvertoppingWarning)
        res = size_orifice(gamma_inflow(20.0), POND, 12.0, max_stage_ft=4.5, tolerance_in=0.02)
        assert res.feasible and res.max_stage_ft == 4.5
        assert (res.peak_stage_ft <= 4.5 + 1e-9).all()
        smaller = route_reservoir(gamma_inflow(20.0), POND,
                                  CircularOrifice(res.diameter_in - 0.1, 0.0))
    assert smaller.peak_stage_ft > 4.5


def test_size_weir_and_infeasible_design():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", OvertoppingWarning)
        res = size_weir(gamma_inflow(20.0), POND, 10.0, crest_ft=2.0, tolerance_ft=0.01)
        assert res.feasible and res.peak_outflow_cfs[0] <= 10.0 + 1e-9
        assert 0.1 < res.length_ft < 0.5 < res.largest_size < 1.0
        assert res.peak_stage_ft[0] == pytest.approx(6.0, abs=0.05)   # just contained
        bad = size_orifice(gamma_inflow(20.0), POND, 0.01)
    assert not bad.feasible and math.isnan(bad.diameter_in) and "no size in" in bad.reason


def test_size_orifice_rejects_a_bad_range():
    with pytest.raises(InputError, match=r"size_range must be \(lo, hi\) with 0 < lo < hi"):
        size_orifice(gamma_inflow(), POND, 5.0, min_diameter_in=10.0, max_diameter_in=2.0)


# =========================================================================================
# Pond files
# =========================================================================================
POND_TOML = """
name = "Pond A"
[storage]
stage_ft = [0, 1, 2, 3, 4, 5, 6]
area_ft2 = [9000, 10000, 11100, 12300, 13600, 15000, 16500]
[[outlet]]
type = "circular_orifice"
diameter_in = 8
invert_ft = 0
into_barrel = true
[[outlet]]
type = "riser"
diameter_in = 36
crest_ft = 4.5
into_barrel = true
[[outlet]]
type = "exfiltration"
rate_in_hr = 0.5
over = "bottom"
[barrel]
diameter_in = 18
invert_ft = 0
length_ft = 60
slope_ftft = 0.01
"""


def test_load_pond_builds_storage_and_structure(tmp_path):
    path = tmp_path / "pond.toml"
    path.write_text(POND_TOML)
    pond = load_pond(path)
    assert pond.name == "Pond A" and pond.stage_storage.top_stage_ft == 6.0
    res = route_reservoir(gamma_inflow(), pond.stage_storage, pond.outlets)
    assert set(res.device_flows_cfs) == {"orifice_8in", "riser_36in", "exfiltration"}


def test_pond_file_problems_are_all_listed():
    bad = {"nme": "x", "storage": {"stage_ft": [0, 1], "area_ft2": [10, 20]},
           "outlet": [{"type": "circular_orifise", "diameter_in": 6},
                      {"type": "rectangular_weir", "length_ft": 3, "crest_ft": 0.5,
                       "cw": 3.33, "colour": "red"}]}
    with pytest.raises(InputError) as err:
        pond_from_mapping(bad, where="p.toml")
    lines = str(err.value).splitlines()
    assert any("unknown key 'nme'; did you mean 'name'?" in ln for ln in lines)
    assert any("type must be one of" in ln and "did you mean 'circular_orifice'" in ln
               for ln in lines)
    assert any("unknown key 'colour'" in ln for ln in lines)


def test_pond_file_device_above_top_is_rejected():
    spec = {"storage": {"stage_ft": [0, 1], "area_ft2": [10, 20]},
            "outlet": [{"type": "circular_orifice", "diameter_in": 6, "invert_ft": 2}]}
    with pytest.raises(InputError, match=r"p.toml: CircularOrifice 'orifice_6in' invert_ft "
                                         r"must be <= the top"):
        pond_from_mapping(spec, where="p.toml")


# =========================================================================================
# CLI
# =========================================================================================
def test_cli_rating_and_route(tmp_path):
    from click.testing import CliRunner

    from hydrocalc.cli import main

    pond = tmp_path / "pond.toml"
    pond.write_text(POND_TOML)
    inflow = gamma_inflow()
    (tmp_path / "in.csv").write_text(inflow.to_frame().to_csv(index=False))
    runner = CliRunner()
    out = runner.invoke(main, ["rating", str(pond), "--n", "7"])
    assert out.exit_code == 0, out.output
    assert "riser_36in_cfs" in out.output and "total_cfs" in out.output
    out = runner.invoke(main, ["route", str(pond), "--inflow", str(tmp_path / "in.csv"),
                               "--json", "--csv", str(tmp_path / "out.csv")])
    assert out.exit_code == 0, out.output
    assert '"peak_outflow_cfs"' in out.output and (tmp_path / "out.csv").exists()
    out = runner.invoke(main, ["route", str(pond), "--inflow", str(tmp_path / "in.csv"),
                               "--dt-hr", "1.0"])
    assert out.exit_code == 1
    assert "error: dt_hr must be <= the inflow's step (0.01 h); got 1." in out.output


def test_absurd_routing_step_count_is_refused_not_allocated():
    import numpy as np

    from hydrocalc.hydraulics.outlets import CircularOrifice
    from hydrocalc.hydraulics.routing import StageStorage, route_reservoir
    from hydrocalc.hydrograph import Hydrograph

    inflow = Hydrograph(np.arange(0, 10.01, 0.1), np.full(101, 1.0))
    pond = StageStorage.from_areas([0, 2, 4], [1000, 1500, 2000])
    with pytest.raises(InputError, match=r"routing steps .* at most 5,000,000 are allowed"):
        route_reservoir(inflow, pond, CircularOrifice(4, 0.0), dt_hr=1e-7)


def test_sizing_and_pond_file_names_keep_their_routing_address_for_one_release():
    import hydrocalc.hydraulics.routing as routing
    from hydrocalc.hydraulics import pond_file, sizing

    with pytest.warns(DeprecationWarning, match="moved to hydrocalc.hydraulics.sizing"):
        assert routing.size_outlet is sizing.size_outlet
    with pytest.warns(DeprecationWarning, match="moved to hydrocalc.hydraulics.pond_file"):
        assert routing.load_pond is pond_file.load_pond
