"""Outlet devices: equations, conventions, series/parallel rules, ratings and bad input."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from conftest import check_container
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc import hydraulics
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import (
    Barrel,
    BroadCrestedWeir,
    CircularOrifice,
    Exfiltration,
    OutletStructure,
    RectangularOrifice,
    RectangularWeir,
    Riser,
    VNotchWeir,
    as_structure,
    rating_figure,
    rating_table,
)
from hydrocalc.hydraulics.routing import StageStorage

G = 32.2


# -- orifices ------------------------------------------------------------------------------
def test_submerged_orifice_uses_head_to_centre():
    o = CircularOrifice(6.0, 1.0, cd=0.62)
    area = math.pi * 0.5**2 / 4
    stage = np.array([1.6, 3.0, 10.0])
    expected = 0.62 * area * np.sqrt(2 * G * (stage - 1.25))
    assert_allclose(o.discharge_cfs(stage), expected, rtol=1e-12, atol=0)


def test_orifice_is_zero_at_and_below_invert():
    o = CircularOrifice(6.0, 1.0)
    assert_allclose(o.discharge_cfs([0.0, 0.5, 1.0]), 0.0, rtol=0, atol=0)


def test_partly_submerged_orifice_follows_swmm_weir_rule():
    # SWMM 5 link.c: q = cd A sqrt(2 g D/2) f^1.5, f = submerged fraction of the height
    o = RectangularOrifice(12.0, 6.0, 2.0, cd=0.6)
    f = np.array([0.1, 0.5, 0.9])
    got = o.discharge_cfs(2.0 + 0.5 * f)
    expected = 0.6 * 0.5 * np.sqrt(2 * G * 0.25) * f**1.5
    assert_allclose(got, expected, rtol=1e-12, atol=0)


def test_orifice_rating_is_continuous_at_the_crown():
    o = CircularOrifice(10.0, 0.5)
    crown = 0.5 + 10.0 / 12.0
    below, above = o.discharge_cfs([crown - 1e-9, crown + 1e-9])
    assert_allclose(below, above, rtol=1e-6, atol=0)


@given(d_in=st.floats(1, 48), inv=st.floats(0, 5), h1=st.floats(0, 20), h2=st.floats(0, 20))
@settings(max_examples=60, deadline=None)
def test_orifice_discharge_never_decreases_with_stage(d_in, inv, h1, h2):
    o = CircularOrifice(d_in, inv)
    lo, hi = sorted([h1, h2])
    assert o.discharge_cfs(hi) >= o.discharge_cfs(lo) - 1e-12


def test_orifice_flow_function_matches_device(container):
    kind, conv = container
    heads = [0.5, 2.0, 4.0]
    got = hydraulics.orifice_flow(conv(heads), 0.25)
    check_container(got, kind, len(heads))
    assert_allclose(np.atleast_1d(got), 0.6 * 0.25 * np.sqrt(2 * G * np.array(heads))[
        : np.size(got)], rtol=1e-12, atol=0)


def test_discharge_follows_the_stage_container(container):
    kind, conv = container
    stages = [1.0, 3.0, 5.0]
    got = CircularOrifice(6.0, 0.0).discharge_cfs(conv(stages))
    check_container(got, kind, len(stages))


# -- weirs ---------------------------------------------------------------------------------
def test_francis_weir_with_two_end_contractions():
    w = RectangularWeir(4.0, 3.0, end_contractions=2)
    h = np.array([0.5, 1.0, 1.5])
    expected = 3.33 * (4.0 - 0.2 * h) * h**1.5
    assert_allclose(w.discharge_cfs(3.0 + h), expected, rtol=1e-12, atol=0)


def test_contracted_weir_keeps_a_monotone_rating_at_extreme_heads():
    w = RectangularWeir(1.0, 0.0, end_contractions=2)
    q = w.discharge_cfs(np.linspace(0, 20, 401))
    assert (np.diff(q) >= 0).all()
    # beyond H = 6 L / n = 3 ft the effective length is held at 0.4 L
    assert_allclose(w.discharge_cfs(10.0), 3.33 * 0.4 * 10.0**1.5, rtol=1e-12, atol=0)


def test_vnotch_weir_is_close_to_the_cone_formula():
    # 90-degree V-notch, Cone formula Q = 2.49 H^2.48 (USBR Water Measurement Manual, Ch. 7);
    # Q = 2.5 tan(45) H^2.5 stays within 2 % of it for heads 0.4-1.5 ft.
    h = np.linspace(0.4, 1.5, 12)
    got = VNotchWeir(90.0, 0.0).discharge_cfs(h)
    assert_allclose(got, 2.49 * h**2.48, rtol=0.02, atol=0)


def test_vnotch_angle_scales_with_tan_half_angle():
    q60 = VNotchWeir(60.0, 1.0).discharge_cfs(2.0)
    q90 = VNotchWeir(90.0, 1.0).discharge_cfs(2.0)
    assert_allclose(q60 / q90, math.tan(math.radians(30)), rtol=1e-12, atol=0)


def test_broad_crested_weir():
    assert_allclose(BroadCrestedWeir(25.0, 5.0, cw=2.7).discharge_cfs(5.8),
                    2.7 * 25.0 * 0.8**1.5, rtol=1e-12, atol=0)


# -- riser and barrel ----------------------------------------------------------------------
def test_riser_takes_the_smaller_of_rim_weir_and_top_orifice():
    r = Riser(24.0, 4.0)
    d = 2.0
    for head in (0.2, 0.8, 2.5, 5.0):
        weir = 3.33 * math.pi * d * head**1.5
        orifice = 0.6 * math.pi * d * d / 4 * math.sqrt(2 * G * head)
        assert_allclose(r.discharge_cfs(4.0 + head), min(weir, orifice), rtol=1e-12, atol=0)


def test_riser_switches_to_orifice_control_at_the_transition_head():
    r = Riser(36.0, 2.0)
    h_star = r.transition_head_ft
    d = 3.0
    assert_allclose(3.33 * math.pi * d * h_star**1.5,
                    0.6 * math.pi * d * d / 4 * math.sqrt(2 * G * h_star), rtol=1e-12, atol=0)


def test_barrel_capacity_is_min_of_inlet_and_outlet_control():
    b = Barrel(18.0, 0.0, 200.0, 0.002, n=0.013, ke=0.5)
    d = 1.5
    area = math.pi * d * d / 4
    stage = 6.0
    inlet = 0.6 * area * math.sqrt(2 * G * (stage - d / 2))
    kf = 2 * G / 1.49**2 * 0.013**2 * 200.0 / (d / 4) ** (4 / 3)
    outlet_invert = -0.4
    full = area * math.sqrt(2 * G * (stage - (outlet_invert + d)) / (1 + 0.5 + kf))
    manning = 1.49 / 0.013 * area * (d / 4) ** (2 / 3) * math.sqrt(0.002)
    assert full < inlet  # a long flat barrel: outlet control governs here
    assert_allclose(b.discharge_cfs(stage), min(inlet, max(full, manning)), rtol=1e-12, atol=0)


def test_barrel_caps_the_devices_discharging_into_it():
    devices = [CircularOrifice(12.0, 0.0), Riser(48.0, 3.0)]
    barrel = Barrel(15.0, 0.0, 40.0, 0.01)
    s = OutletStructure(devices, barrel=barrel)
    stage = np.linspace(0, 8, 81)
    total = devices[0].discharge_cfs(stage) + devices[1].discharge_cfs(stage)
    assert_allclose(s.discharge_cfs(stage), np.minimum(total, barrel.discharge_cfs(stage)),
                    rtol=1e-12, atol=1e-12)
    assert (s.discharge_cfs(stage) < total - 1e-6).any()       # the barrel does control
    parts = s.component_flows_cfs(stage)
    assert_allclose(sum(parts.values()), s.discharge_cfs(stage), rtol=1e-12, atol=1e-12)


def test_parallel_devices_add_and_plus_builds_a_structure():
    a, b = CircularOrifice(6.0, 0.0), RectangularWeir(3.0, 2.0)
    s = a + b
    assert isinstance(s, OutletStructure)
    assert_allclose(s.discharge_cfs(3.0), a.discharge_cfs(3.0) + b.discharge_cfs(3.0),
                    rtol=1e-12, atol=0)
    assert as_structure([a, b]).discharge_cfs(3.0) == s.discharge_cfs(3.0)


def test_duplicate_device_names_are_made_unique():
    s = OutletStructure([CircularOrifice(6.0, 0.0), CircularOrifice(6.0, 1.0)])
    assert list(s.component_flows_cfs(2.0)) == ["orifice_6in", "orifice_6in_2"]


# -- exfiltration --------------------------------------------------------------------------
def test_exfiltration_rates_over_bottom_surface_and_wetted_area():
    pond = StageStorage.basin(100.0, 50.0, 4.0, side_slope_h_per_v=3.0)
    rate = 2.0 / 12 / 3600
    stage = 2.0
    bottom = Exfiltration(2.0, over="bottom").bind(pond).discharge_cfs(stage)
    surface = Exfiltration(2.0, over="surface").bind(pond).discharge_cfs(stage)
    wetted = Exfiltration(2.0).bind(pond).discharge_cfs(stage)
    assert_allclose(bottom, rate * 5000.0, rtol=1e-12, atol=0)
    assert_allclose(surface, rate * 112 * 62, rtol=1e-9, atol=0)
    side = 2 * stage * math.sqrt(10) * (150 + 2 * 3 * stage)
    assert_allclose(wetted, rate * (5000 + side), rtol=1e-3, atol=0)   # linear between pts
    assert Exfiltration(2.0).bind(pond).discharge_cfs(0.0) == 0.0


def test_unbound_exfiltration_raises():
    with pytest.raises(InputError, match=r"Exfiltration 'exfiltration' must be bound to a "
                                         r"stage-storage; got none"):
        Exfiltration(1.0).discharge_cfs(1.0)


# -- ratings -------------------------------------------------------------------------------
def test_rating_table_lists_devices_total_and_storage():
    pond = StageStorage.basin(80.0, 40.0, 5.0)
    table = rating_table([CircularOrifice(6.0, 0.0), RectangularWeir(4.0, 3.5)],
                         stage_storage=pond, n=11)
    assert list(table.columns) == ["stage_ft", "area_ft2", "storage_ft3", "orifice_6in_cfs",
                                   "weir_4ft_cfs", "total_cfs"]
    assert 0.5 in set(np.round(table.stage_ft, 12))                 # orifice crown added
    assert_allclose(table.total_cfs, table.orifice_6in_cfs + table.weir_4ft_cfs, rtol=1e-12,
                    atol=0)
    assert_allclose(table.storage_ft3, 3200.0 * table.stage_ft, rtol=1e-12, atol=1e-9)


def test_rating_figure_is_a_matplotlib_figure():
    fig = rating_figure(Riser(24.0, 2.0), stage_storage=StageStorage.basin(50, 50, 4))
    assert type(fig).__name__ == "Figure"
    assert len(fig.axes) == 2


# -- bad input: one test per message ------------------------------------------------------
@pytest.mark.parametrize("factory, match", [
    (lambda: CircularOrifice(-6.0, 0.0), r"diameter_in must be in \(0, inf\); got -6"),
    (lambda: CircularOrifice(6.0, -1.0), r"invert_ft must be in \[0, inf\); got -1"),
    (lambda: CircularOrifice(6.0, 0.0, cd=1.2), r"cd must be in \(0, 1\]; got 1.2"),
    (lambda: RectangularOrifice(0.0, 6.0, 0.0), r"width_in must be in \(0, inf\); got 0"),
    (lambda: RectangularOrifice(6.0, -2.0, 0.0), r"height_in must be in \(0, inf\); got -2"),
    (lambda: RectangularWeir(-4.0, 1.0), r"length_ft must be in \(0, inf\); got -4"),
    (lambda: RectangularWeir(4.0, 1.0, end_contractions=3),
     r"end_contractions must be 0, 1 or 2; got 3"),
    (lambda: VNotchWeir(180.0, 1.0), r"angle_deg must be in \(0, 180\); got 180"),
    (lambda: BroadCrestedWeir(10.0, 1.0, cw=0.0), r"cw must be in \(0, inf\); got 0"),
    (lambda: Riser(0.0, 3.0), r"diameter_in must be in \(0, inf\); got 0"),
    (lambda: Barrel(0.0, 0.0, 50.0, 0.01),
     r"diameter_in must be in \(0, inf\); got 0. A barrel needs a positive diameter"),
    (lambda: Barrel(-18.0, 0.0, 50.0, 0.01), r"diameter_in must be in \(0, inf\); got -18"),
    (lambda: Barrel(18.0, 0.0, 0.0, 0.01), r"length_ft must be in \(0, inf\); got 0"),
    (lambda: Barrel(18.0, 0.0, 50.0, 0.0), r"slope_ftft must be in \(0, inf\); got 0. A flat"),
    (lambda: Exfiltration(-1.0), r"rate_in_hr must be in \[0, inf\); got -1"),
    (lambda: Exfiltration(1.0, over="sides"), r"unknown over 'sides'"),
    (lambda: OutletStructure([]), r"devices must hold at least one outlet device; got none"),
    (lambda: OutletStructure([CircularOrifice(6, 0), "weir"]),
     r"devices must hold outlet devices; got 'weir' at index 1"),
    (lambda: OutletStructure([CircularOrifice(6, 0)], barrel=CircularOrifice(12, 0)),
     r"barrel must be a Barrel"),
    (lambda: OutletStructure([Exfiltration(1.0)], barrel=Barrel(18, 0, 50, 0.01)),
     r"an Exfiltration \('exfiltration'\) cannot discharge into a barrel"),
    (lambda: as_structure("orifice"), r"outlets must be a device, a list of devices or an "
                                      r"OutletStructure; got 'orifice'"),
    (lambda: CircularOrifice(6.0, 0.0).discharge_cfs(np.nan), r"stage_ft must be in"),
])
def test_bad_device_input_raises_one_clear_error(factory, match):
    with pytest.raises(InputError, match=match):
        factory()


def test_rating_table_is_a_dataframe_for_a_single_device():
    t = rating_table(VNotchWeir(90.0, 1.0), stage_ft=[0.0, 1.0, 2.0])
    assert isinstance(t, pd.DataFrame)
    assert_allclose(t.total_cfs, [0.0, 0.0, 2.5], rtol=1e-12, atol=1e-12)


def test_absurd_device_dimension_is_an_input_error_not_an_overflow():
    with pytest.raises(InputError, match=r"diameter_in must be <= 1e\+06 \(a guard against unit "
                                         r"slips\); got 1e\+308"):
        CircularOrifice(1e308, 0.0)
