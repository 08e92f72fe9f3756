"""Sediment traps: criteria, geometry, MUSLE (Williams 1975), LS, cleanout schedule."""

from __future__ import annotations

import json
import pathlib

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import check_container
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc.construction import sediment
from hydrocalc.data import load_table
from hydrocalc.errors import InputError, OutOfRangeError

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "construction"
M3_PER_ACFT = 43560 * 0.3048**3
M3S_PER_CFS = 0.3048**3


# --- MUSLE against the hand-computed case of ny_criteria.md section 4.1 ------------------

def test_us_coefficient_is_the_exact_conversion_95_14():
    # ny_criteria.md 4.1: (1233.48 x 0.0283168)^0.56 = 7.3144; 11.8 x 7.3144 = 86.31 t
    # = 95.14 short tons (printed to 0.01).
    assert_allclose(sediment.musle_coefficient_us(), 95.14, rtol=0, atol=0.005)


def test_musle_hand_computed_case():
    # Q = 0.5 ac-ft, qp = 5 cfs, K = 0.30, LS = 0.50, C = P = 1 (ny_criteria.md 4.1):
    # 95 form 23.80 short tons; metric route 21.63 t = 23.84 short tons (printed to 0.01).
    y95 = sediment.musle_yield_tons(0.5, 5.0, 0.30, 0.50, 1.0, 1.0, coefficient="95")
    assert_allclose(y95, 23.80, rtol=0, atol=0.005)
    y_exact = sediment.musle_yield_tons(0.5, 5.0, 0.30, 0.50, 1.0, 1.0)
    assert_allclose(y_exact, 23.84, rtol=0, atol=0.005)
    y_t = sediment.musle_yield_t(0.5 * M3_PER_ACFT, 5.0 * M3S_PER_CFS, 0.30, 0.50, 1.0, 1.0)
    assert_allclose(y_t, 21.63, rtol=0, atol=0.005)


@given(q=st.floats(0, 50), qp=st.floats(0, 500), k=st.floats(0, 0.7), ls=st.floats(0, 20))
def test_metric_and_exact_us_forms_agree(q, qp, k, ls):
    us = sediment.musle_yield_tons(q, qp, k, ls, 1.0, 1.0)
    metric = sediment.musle_yield_t(q * M3_PER_ACFT, qp * M3S_PER_CFS, k, ls, 1.0, 1.0)
    assert_allclose(us * 0.90718474, metric, rtol=1e-12, atol=1e-12)


@given(q=st.floats(0.001, 10), qp=st.floats(0.001, 100), f=st.floats(1.01, 3))
def test_musle_increases_with_runoff_and_peak(q, qp, f):
    base = sediment.musle_yield_tons(q, qp, 0.3, 1.0, 1.0, 1.0)
    assert sediment.musle_yield_tons(q * f, qp, 0.3, 1.0, 1.0, 1.0) > base
    assert sediment.musle_yield_tons(q, qp * f, 0.3, 1.0, 1.0, 1.0) > base


def test_musle_zero_runoff_gives_zero():
    assert sediment.musle_yield_tons(0.0, 0.0, 0.3, 1.0, 1.0, 1.0) == 0.0


def test_musle_container(container):
    kind, conv = container
    got = sediment.musle_yield_tons(conv([0.5, 1.0]), conv([5.0, 2.0]), 0.3, 0.5, 1.0, 1.0)
    check_container(got, kind, 2)


def test_musle_errors():
    with pytest.raises(InputError, match=r"runoff_acft must be in \[0, inf\); got -1"):
        sediment.musle_yield_tons(-1.0, 5.0, 0.3, 0.5, 1.0, 1.0)
    with pytest.raises(InputError, match=r"c_factor must be in \[0, 1\]; got 1.5"):
        sediment.musle_yield_tons(0.5, 5.0, 0.3, 0.5, 1.5, 1.0)
    with pytest.raises(InputError, match=r"coefficient must be 'exact' or '95'; got 'us'"):
        sediment.musle_yield_tons(0.5, 5.0, 0.3, 0.5, 1.0, 1.0, coefficient="us")
    with pytest.raises(InputError, match=r"peak_m3_s must be in \[0, inf\); got -2"):
        sediment.musle_yield_t(1.0, -2.0, 0.3, 0.5, 1.0, 1.0)


# --- LS (Wischmeier & Smith 1978) ---------------------------------------------------------

def test_ls_is_one_on_the_unit_plot():
    # The USLE unit plot (72.6 ft, 9 %) has LS = 1 by definition; the published polynomial
    # gives 0.9993 (coefficients printed to 0.01 / 0.001).
    assert_allclose(sediment.ls_factor(72.6, 9.0), 1.0, rtol=0, atol=0.001)


@pytest.mark.parametrize("slope_pct, m", [(0.5, 0.2), (1.0, 0.2), (2.0, 0.3), (3.0, 0.3),
                                          (4.0, 0.4), (5.0, 0.4), (6.0, 0.5), (30.0, 0.5)])
def test_ls_length_exponent_by_slope_class(slope_pct, m):
    ratio = sediment.ls_factor(400.0, slope_pct) / sediment.ls_factor(100.0, slope_pct)
    assert_allclose(ratio, 4.0**m, rtol=1e-12)


def test_ls_hand_value_200_ft_6_pct():
    theta = np.arctan(0.06)
    expected = (200 / 72.6) ** 0.5 * (65.41 * np.sin(theta) ** 2 + 4.56 * np.sin(theta) + 0.065)
    assert_allclose(sediment.ls_factor(200.0, 6.0), expected, rtol=1e-12)
    # by hand: sin = 0.059892, 65.41 sin^2 = 0.23463, 4.56 sin = 0.27311, sum + 0.065 =
    # 0.57274; (200/72.6)^0.5 = 1.65977; LS = 0.9506 (4 decimals)
    assert_allclose(expected, 0.9506, rtol=0, atol=5e-5)


def test_ls_container_and_errors(container):
    kind, conv = container
    check_container(sediment.ls_factor(conv([100.0, 200.0]), conv([3.0, 8.0])), kind, 2)
    with pytest.raises(InputError, match=r"slope_length_ft must be in \(0, inf\); got 0"):
        sediment.ls_factor(0.0, 5.0)
    with pytest.raises(InputError, match=r"slope_pct must be in \[0, 100\]; got 120"):
        sediment.ls_factor(100.0, 120.0)


# --- volume from mass (NRCS IN-ENG-38) ------------------------------------------------------

def test_dry_unit_weight_table_double_entry_and_formula():
    table = load_table("sediment_dry_unit_weight")
    # typed again from IN-ENG-38: 50 -> 0.00092, 70 -> 0.00066 ac-ft per ton
    assert table.loc[table.dry_unit_weight_lb_ft3 == 50, "acre_ft_per_ton"].item() == 0.00092
    assert table.loc[table.dry_unit_weight_lb_ft3 == 70, "acre_ft_per_ton"].item() == 0.00066
    got = sediment.sediment_volume_ft3(1.0, table.dry_unit_weight_lb_ft3) / 43560.0
    # Printed to 1e-5; the 55 lb/ft3 row prints 0.00084 where 2000/(55 x 43560) = 0.000835,
    # so the sheet's rounding is matched to one unit in the last printed place.
    assert_allclose(got, table.acre_ft_per_ton, rtol=0, atol=0.00001)


def test_sediment_volume_error():
    with pytest.raises(InputError, match=r"dry_unit_weight_lb_ft3 must be in \(0, inf\); got 0"):
        sediment.sediment_volume_ft3(1.0, 0.0)


# --- geometry -----------------------------------------------------------------------------

def test_trapezoidal_volume_hand_case_and_prismoidal_formula():
    # L 40, W 20, z 2, h 4: 40*20*4 + 2*60*16 + 4/3*4*64 = 3200 + 1920 + 341.333
    assert_allclose(sediment.trapezoidal_basin_volume(4.0, 40, 20, 2), 5461.3333333, rtol=1e-9)
    a1 = sediment.trapezoidal_basin_area(0.0, 40, 20, 2)
    am = sediment.trapezoidal_basin_area(2.0, 40, 20, 2)
    a2 = sediment.trapezoidal_basin_area(4.0, 40, 20, 2)
    assert_allclose(4.0 * (a1 + 4 * am + a2) / 6.0, 5461.3333333, rtol=1e-9)


@given(v=st.floats(0, 1e5), z=st.floats(0, 4))
def test_trapezoidal_stage_inverts_volume(v, z):
    h = sediment.trapezoidal_basin_stage(v, 30.0, 15.0, z)
    assert_allclose(sediment.trapezoidal_basin_volume(h, 30.0, 15.0, z), v, rtol=1e-10,
                    atol=1e-9)


def test_stage_area_trap_is_exact_for_similar_sections():
    # square faces 10 ft and 20 ft, 3 ft apart: pyramid frustum h/3 (100 + 400 + 200) = 700
    t = sediment.SedimentTrap("P", 0.1, BB, stage_ft=(5.0, 8.0), area_ft2=(100.0, 400.0))
    assert_allclose(t.provided_ft3, 700.0, rtol=1e-12)


def test_geometry_errors():
    with pytest.raises(InputError, match=r"bottom_width_ft must be in \(0, inf\); got -20"):
        sediment.trapezoidal_basin_volume(1.0, 40, -20, 2)
    with pytest.raises(InputError, match=r"stage_ft must be in \[0, inf\); got -1"):
        sediment.trapezoidal_basin_volume(-1.0, 40, 20, 2)
    with pytest.raises(InputError, match=r"trap X: geometry must be given"):
        sediment.SedimentTrap("X", 1.0, BB).storage_ft3(1.0)


# --- criteria -------------------------------------------------------------------------------

def test_criteria_table_double_entry():
    t = sediment.criteria_table()
    ny = t.loc["ny_bluebook_2016_sediment_trap"]
    assert (ny.storage_ft3_per_ac, ny.lower_zone_ft3_per_ac, ny.upper_zone_ft3_per_ac,
            ny.max_drainage_area_ac, ny.status) == (3600, 1800, 1800, 5.0, "unverified")
    assert t.loc["nh_envwq_1506_10_sediment_trap", "status"] == "verified"
    assert t.loc["pa_es_manual_sediment_trap", "storage_ft3_per_ac"] == 2000
    assert set(t.status) <= {"verified", "unverified"}
    per_acre = t[t.method == "per_acre"]
    assert (per_acre.lower_zone_ft3_per_ac.fillna(0) + per_acre.upper_zone_ft3_per_ac.fillna(0)
            <= per_acre.storage_ft3_per_ac).all()


@given(area=st.floats(0.01, 5.0), f=st.floats(0.01, 1.0))
def test_required_storage_is_linear_in_area(area, f):
    a = sediment.required_storage_ft3(area)
    b = sediment.required_storage_ft3(area * f)
    assert_allclose(b, a * f, rtol=1e-12)


def test_required_storage_blue_book_with_halves_and_status():
    total, wet, dry = sediment.required_storage_ft3(2.1, zones=True)
    assert (total, wet, dry) == (7560.0, 3780.0, 3780.0)
    assert "status: unverified" in sediment.criteria("ny_bluebook_2016_sediment_trap").label


def test_required_storage_container(container):
    kind, conv = container
    check_container(sediment.required_storage_ft3(conv([1.0, 2.0])), kind, 2)


def test_drainage_area_above_maximum_suggests_a_basin():
    with pytest.raises(OutOfRangeError, match=r"drainage_area_ac must be <= 5 ac for criteria "
                                              r"'ny_bluebook_2016_sediment_trap' .*status: "
                                              r"unverified.*; got 6\. Use a sediment basin"):
        sediment.required_storage_ft3(6.0)
    assert sediment.required_storage_ft3(5.0) == 18000.0  # 5 ac itself is allowed


def test_new_hampshire_maximum_is_strictly_below_five_acres():
    # Env-Wq 1506.10: contributing drainage area "< 5 acres"
    with pytest.raises(OutOfRangeError, match=r"must be < 5 ac for criteria "
                                              r"'nh_envwq_1506_10_sediment_trap'"):
        sediment.required_storage_ft3(5.0, "nh_envwq_1506_10_sediment_trap")


def test_runoff_volume_basin_needs_runoff_and_sizes_both_zones():
    with pytest.raises(InputError, match=r"runoff_in must be given for criteria "
                                         r"'il_orland_hills_sediment_basin'"):
        sediment.required_storage_ft3(8.0, "il_orland_hills_sediment_basin")
    total, wet, dry = sediment.required_storage_ft3(8.0, "il_orland_hills_sediment_basin",
                                                    runoff_in=1.5, zones=True)
    assert_allclose(wet, 1.5 / 12 * 8 * 43560, rtol=1e-12)
    assert_allclose(total, 2 * wet, rtol=1e-12) and wet == dry


def test_unknown_criteria_suggests():
    with pytest.raises(InputError, match=r"criteria must be a key of the sediment criteria "
                                         r"table; got 'ny_bluebook_sediment_trap'; did you mean"):
        sediment.criteria("ny_bluebook_sediment_trap")


def test_c_and_p_factor_lookups():
    assert sediment.c_factor("mn_none_fallow") == 1.0
    assert sediment.c_factor("goldman_straw_mulch_4_ton_ac") == 0.05  # MEPAS Table 5.11
    assert sediment.p_factor("none") == 1.0
    with pytest.raises(InputError, match=r"cover_key must be a key of table musle_c_factors"):
        sediment.c_factor("straw")
    with pytest.raises(InputError, match=r"practice_key must be a key of table musle_p_factors"):
        sediment.p_factor("silt_fence")
    c = load_table("musle_c_factors")
    assert c.c_factor.between(0, 1).all() and c.source.str.len().gt(10).all()


# --- SedimentTrap ---------------------------------------------------------------------------

BB = "ny_bluebook_2016_sediment_trap"  # stated explicitly: the criteria key has no default


def test_sediment_trap_requires_an_explicit_criteria_key():
    with pytest.raises(TypeError, match="criteria"):
        sediment.SedimentTrap("X", 1.0)  # pylint: disable=no-value-for-parameter

def trap(**kw):
    base = dict(id="ST-1", drainage_area_ac=2.1, criteria=BB,
                bottom_length_ft=60.0, bottom_width_ft=30.0,
                depth_ft=4.0, side_slope_h_per_v=2.0)
    base.update(kw)
    return sediment.SedimentTrap(**base)


def test_trap_check_provided_required_and_cleanout_mark():
    chk = trap().check()
    provided = 60 * 30 * 4 + 2 * 90 * 16 + 4 / 3 * 4 * 64
    assert_allclose(chk.provided_ft3, provided, rtol=1e-12)
    assert chk.required_ft3 == 7560.0 and chk.ok is True
    assert chk.capacity_basis.startswith("provided")
    assert_allclose(chk.cleanout_volume_ft3, provided / 2, rtol=1e-12)
    vol_at_mark = sediment.trapezoidal_basin_volume(chk.cleanout_stage_ft, 60, 30, 2)
    assert_allclose(vol_at_mark, provided / 2, rtol=1e-9)
    assert 2.0 < chk.cleanout_stage_ft < 4.0  # flaring sides: half the volume is higher up
    small = trap(bottom_length_ft=20.0, bottom_width_ft=10.0).check()
    assert small.ok is False


def test_trap_without_geometry_uses_required_storage_as_capacity():
    chk = sediment.SedimentTrap("X", 1.0, BB).check()
    assert chk.provided_ft3 is None and chk.ok is None and chk.cleanout_stage_ft is None
    assert chk.design_capacity_ft3 == 3600.0 and chk.cleanout_volume_ft3 == 1800.0


def test_stage_area_trap_matches_trapezoid_within_frustum_error():
    stages = np.arange(0.0, 5.0)
    areas = [(60 + 4 * h) * (30 + 4 * h) for h in stages]
    t = sediment.SedimentTrap("T", 2.0, BB, stage_ft=tuple(stages + 100.0), area_ft2=tuple(areas))
    exact = sediment.trapezoidal_basin_volume(4.0, 60, 30, 2)
    assert_allclose(t.provided_ft3, exact, rtol=5e-4)  # frustum vs prismoid, rectangular faces
    s = t.stage_at_storage_ft(t.provided_ft3 / 2)
    assert_allclose(t.storage_ft3(s), t.provided_ft3 / 2, rtol=1e-9)


# --- cleanout schedule on a synthetic record ------------------------------------------------

def _independent_trapped_ft3(precip_in, area_ac, cn, tc_hr, k, ls, gamma, eff, rtype):
    """Deposit of one storm day, computed from the published equations step by step."""
    from hydrocalc.peak import graphical_peak_discharge

    s = 1000.0 / cn - 10.0                                   # TR-55 Eq. 2-4
    q_in = (precip_in - 0.2 * s) ** 2 / (precip_in + 0.8 * s)  # TR-55 Eq. 2-3
    qp = graphical_peak_discharge(area_ac / 640.0, cn, tc_hr, precip_in, rainfall_type=rtype)
    a = 11.8 * (M3_PER_ACFT * M3S_PER_CFS) ** 0.56 / 0.90718474
    y = a * (q_in * area_ac / 12.0 * qp) ** 0.56 * k * ls     # MUSLE, C = P = 1
    return y * eff * 2000.0 / gamma


def test_cleanout_dates_on_a_synthetic_record():
    # Identical 3.0-in storms every 10 days; K is chosen so that each storm deposits exactly
    # one fifth of the design capacity (3,600 ft3: 1 ac, no geometry). The 50 % mark is then
    # reached on the 3rd storm (3/5 >= 1/2 > 2/5); after the cleanout the count restarts, so
    # the next cleanout is on the 6th storm.
    v1 = _independent_trapped_ft3(3.0, 1.0, 86, 0.2, 1.0, 1.0, 90.0, 1.0, "III")
    k = (3600.0 / 5) / v1
    assert 0 < k < 1
    days = pd.date_range("2027-04-01", "2027-07-31")
    p = pd.Series(0.0, index=days)
    storms = days[5::10][:8]
    p[storms] = 3.0
    t = sediment.SedimentTrap("S", 1.0, BB, k_factor=k, ls_factor=1.0, c_factor=1.0, p_factor=1.0,
                              cn=86, tc_hr=0.2, dry_unit_weight_lb_ft3=90.0,
                              trap_efficiency_frac=1.0)
    sched = sediment.cleanout_schedule(t, p, rainfall_type="III")
    assert sched.cleanout_dates == (storms[2].date(), storms[5].date())
    d = sched.daily
    assert_allclose(d.loc[storms, "trapped_ft3"], 720.0, rtol=1e-9)
    assert d.loc[storms[2], "accumulated_ft3"] == 0.0                      # reset that day
    assert_allclose(d.loc[storms[3], "accumulated_ft3"], 720.0, rtol=1e-9)
    assert_allclose(d.loc[storms[7], "accumulated_ft3"], 1440.0, rtol=1e-9)
    assert d.loc[d.precip_in == 0, "yield_tons"].eq(0).all()
    assert_allclose(sched.total_trapped_ft3, 8 * 720.0, rtol=1e-9)


def test_trap_efficiency_and_unit_weight_scale_the_deposit():
    p = pd.Series([0.0, 2.5, 0.0], index=pd.date_range("2027-04-01", periods=3))
    base = dict(k_factor=0.3, slope_length_ft=150.0, slope_pct=4.0, c_factor=0.5,
                p_factor=1.0, cn=80, tc_hr=0.3)
    a = sediment.cleanout_schedule(
        sediment.SedimentTrap("A", 2.0, BB, dry_unit_weight_lb_ft3=90, trap_efficiency_frac=0.8,
                              **base), p, rainfall_type="II")
    b = sediment.cleanout_schedule(
        sediment.SedimentTrap("B", 2.0, BB, dry_unit_weight_lb_ft3=60, trap_efficiency_frac=0.4,
                              **base), p, rainfall_type="II")
    assert_allclose(b.total_trapped_ft3, a.total_trapped_ft3 * (0.4 / 0.8) * (90 / 60),
                    rtol=1e-12)
    assert_allclose(a.total_yield_tons, b.total_yield_tons, rtol=1e-12)


def test_cleanout_schedule_errors():
    p = pd.Series([1.0], index=pd.date_range("2027-04-01", periods=1))
    with pytest.raises(InputError, match=r"trap X: MUSLE inputs must be given for a cleanout "
                                         r"schedule; missing k_factor"):
        sediment.cleanout_schedule(sediment.SedimentTrap("X", 1.0, BB), p, rainfall_type="III")
    t = sediment.SedimentTrap("Y", 1.0, BB, k_factor=0.3, ls_factor=1.0, c_factor=1.0,
                              p_factor=1.0, cn=80, tc_hr=0.2, dry_unit_weight_lb_ft3=90,
                              trap_efficiency_frac=0.8)
    gap = pd.Series([1.0, np.nan], index=pd.date_range("2027-04-01", periods=2))
    with pytest.raises(InputError, match=r"precip_in must have a value for every day; got 1 "
                                         r"missing day.*first 2027-04-02"):
        sediment.cleanout_schedule(t, gap, rainfall_type="III")


def test_plan_schedules_need_rainfall_type_and_coverage():
    import tomllib

    from hydrocalc.site.project import parse_construction

    doc = tomllib.loads((FIXTURES / "shelter_island_site.toml").read_text())
    plan, problems = parse_construction(doc["construction"], base_dir=FIXTURES)
    assert problems == []
    p = pd.Series(0.5, index=pd.date_range("2027-04-01", "2027-06-30"))
    got = sediment.plan_cleanout_schedules(plan, p)
    assert [s.trap_id for s in got] == ["ST-1"]          # ST-2 has no MUSLE inputs
    with pytest.raises(InputError, match=r"rainfall record must cover the construction period"):
        sediment.plan_cleanout_schedules(plan, p.iloc[:30])
    import dataclasses

    with pytest.raises(InputError, match=r"rainfall_type must be given"):
        sediment.plan_cleanout_schedules(dataclasses.replace(plan, rainfall_type=None), p)


def test_schedule_figure_and_dict():
    p = pd.Series([0.0, 2.0, 0.0, 3.0], index=pd.date_range("2027-04-01", periods=4))
    t = sediment.SedimentTrap("F", 1.5, BB, bottom_length_ft=30, bottom_width_ft=15, depth_ft=3,
                              side_slope_h_per_v=2, k_factor=0.3, ls_factor=1.2,
                              c_factor=1.0, p_factor=1.0, cn=85, tc_hr=0.1,
                              dry_unit_weight_lb_ft3=90, trap_efficiency_frac=0.8)
    s = sediment.cleanout_schedule(t, p, rainfall_type="III")
    fig = s.figure()
    assert type(fig).__name__ == "Figure" and fig.axes
    d = json.loads(json.dumps(s.to_dict()))
    assert d["check"]["criteria_status"] == "unverified" and "Blue Book" in \
        d["check"]["criteria_source"]


# --- CLI ----------------------------------------------------------------------------------

def _main():
    from hydrocalc.cli import main

    return main


def test_cli_trap_prints_source_and_status():
    r = CliRunner().invoke(_main(), ["trap", "--area-ac", "4.5", "--criteria",
                                     "ny_bluebook_2016_sediment_trap"])
    assert r.exit_code == 0
    assert "16,200.0" in r.stdout and "status: unverified" in r.stdout
    assert "UNVERIFIED" in r.stderr


def test_cli_trap_above_maximum_is_one_line_error():
    r = CliRunner().invoke(_main(), ["trap", "--area-ac", "6", "--criteria",
                                     "ny_bluebook_2016_sediment_trap"])
    assert r.exit_code == 1 and len(r.stderr.strip().splitlines()) == 1
    assert "Use a sediment basin" in r.stderr


def test_cli_cleanout_json():
    r = CliRunner().invoke(_main(), ["cleanout", str(FIXTURES / "shelter_island_site.toml"),
                                     "--json"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.stdout)
    assert d["cleanout_rule"] == "§ 110-39B"
    assert [c["trap_id"] for c in d["checks"]] == ["ST-1", "ST-2"]
    assert d["schedules"][0]["trap_id"] == "ST-1"


def test_cli_cleanout_takes_tr55_type_from_storms_distribution(tmp_path):
    text = (FIXTURES / "shelter_island_site.toml").read_text()
    text = text.replace('rainfall_type = "III"\n', "")
    import shutil

    shutil.copy(FIXTURES / "synthetic_cdo_2027.csv", tmp_path)  # inside the site's folder
    site = tmp_path / "s.toml"
    site.write_text(text + '\n[storms]\ndistribution = "type_ii"\n')
    r = CliRunner().invoke(_main(), ["cleanout", str(site)])
    assert r.exit_code == 0, r.output
    assert "Type II (from [storms].distribution)" in r.stdout
    site.write_text(text)
    r = CliRunner().invoke(_main(), ["cleanout", str(site)])
    assert r.exit_code == 1 and "rainfall_type must be given" in r.stderr


def test_musle_from_a_hydrograph_uses_its_volume_and_peak():
    from hydrocalc.hydrograph import Hydrograph

    h = Hydrograph(time_hr=[0.0, 1.0, 2.0], flow_cfs=[0.0, 5.0, 0.0])  # 18,000 ft3, 5 cfs
    got = sediment.musle_yield_from_hydrograph(h, 0.3, 0.5, 1.0, 1.0)
    assert_allclose(got, sediment.musle_yield_tons(18000 / 43560, 5.0, 0.3, 0.5, 1.0, 1.0),
                    rtol=1e-12)
