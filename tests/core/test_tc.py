"""hydrocalc.tc against TR-55 Chapter 3 (Example 3-1, Table 3-1, Appendix F); properties,
containers and every error message."""

from __future__ import annotations

import pathlib

import numpy as np
import pandas as pd
import pytest
from conftest import check_container, load_reference
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose

from hydrocalc import data, tc
from hydrocalc.errors import InputError, OutOfRangeError
from hydrocalc.site import load_site

EXAMPLE_3_1 = load_reference("tr55_example_3_1.csv").set_index("segment")


# --- TR-55 Example 3-1 (each Tt printed to 0.01 h; Tc = 1.53 h) -------------------------------


def test_sheet_flow_time_example_3_1_segment_ab():
    s = EXAMPLE_3_1.loc["AB"]
    got = tc.sheet_flow_time(s.length_ft, s.slope_ftft, s.n, s.p2_in)
    assert_allclose(got, s.travel_time_hr, rtol=0, atol=0.005)


def test_shallow_concentrated_flow_time_example_3_1_segment_bc():
    s = EXAMPLE_3_1.loc["BC"]
    got = tc.shallow_concentrated_flow_time(s.length_ft, s.slope_ftft, surface=s.surface)
    assert_allclose(got, s.travel_time_hr, rtol=0, atol=0.005)


def test_channel_flow_time_example_3_1_segment_cd():
    s = EXAMPLE_3_1.loc["CD"]
    got = tc.channel_flow_time(s.length_ft, s.slope_ftft, s.n, s.area_ft2,
                               s.wetted_perimeter_ft)
    assert_allclose(got, s.travel_time_hr, rtol=0, atol=0.005)


def _example_segments() -> list[dict]:
    out = []
    for name, s in EXAMPLE_3_1.iterrows():
        seg = {"kind": s.kind, "name": name}
        seg.update({k: v for k, v in s.drop(["kind", "travel_time_hr"]).items()
                    if not (isinstance(v, float) and np.isnan(v))})
        out.append(seg)
    return out


def test_time_of_concentration_reproduces_example_3_1():
    tc_hr, table = tc.time_of_concentration(_example_segments())
    assert_allclose(tc_hr, 1.53, rtol=0, atol=0.005)
    assert table.name.tolist() == ["AB", "BC", "CD"]
    assert table.kind.tolist() == ["sheet", "shallow", "channel"]
    assert_allclose(table.travel_time_hr, EXAMPLE_3_1.travel_time_hr, rtol=0, atol=0.005)
    # Exact identities of our own: Tc is the sum; V = L / (3600 Tt); r = a / pw.
    assert_allclose(tc_hr, table.travel_time_hr.sum(), rtol=1e-12)
    assert_allclose(table.velocity_fps, table.length_ft / (3600 * table.travel_time_hr),
                    rtol=1e-12)
    assert_allclose(table.hydraulic_radius_ft.iloc[2], 27 / 28.2, rtol=1e-12)


def test_time_of_concentration_accepts_a_dataframe_and_a_table_3_1_key():
    frame = pd.DataFrame(_example_segments())
    frame.loc[0, "n"] = np.nan
    frame["n"] = frame["n"].astype(object)
    frame.loc[0, "n"] = "grass_dense"
    tc_hr, _ = tc.time_of_concentration(frame)
    assert_allclose(tc_hr, 1.53, rtol=0, atol=0.005)


def test_time_of_concentration_returns_a_tuple_of_float_and_frame():
    result = tc.time_of_concentration(_example_segments())
    assert isinstance(result, tuple) and len(result) == 2
    assert isinstance(result[0], float) and isinstance(result[1], pd.DataFrame)


# --- Appendix F and Table 3-1 -------------------------------------------------------------------


def test_shallow_velocity_coefficients_match_the_shipped_appendix_f_table():
    table = data.load_table("tr55_shallow_concentrated_velocity").set_index("surface")
    for surface, k in tc.SHALLOW_K_FPS.items():
        assert table.loc[surface, "k_fps"] == k
    assert_allclose(tc.shallow_concentrated_flow_velocity(1.0, surface="paved"), 20.3282,
                    rtol=1e-12)


def test_paved_shallow_flow_is_faster():
    unpaved = tc.shallow_concentrated_flow_time(1000, 0.02)
    paved = tc.shallow_concentrated_flow_time(1000, 0.02, surface="paved")
    assert_allclose(unpaved / paved, 20.3282 / 16.1345, rtol=1e-12)


@pytest.mark.parametrize(
    ("key", "n"),
    # Double entry: typed again from TR-55 Table 3-1.
    [("smooth", 0.011), ("fallow", 0.05), ("cultivated_residue_le_20", 0.06),
     ("cultivated_residue_gt_20", 0.17), ("grass_short_prairie", 0.15), ("grass_dense", 0.24),
     ("grass_bermuda", 0.41), ("range_natural", 0.13), ("woods_light_underbrush", 0.40),
     ("woods_dense_underbrush", 0.80)],
)
def test_sheet_flow_n_matches_table_3_1(key, n):
    assert tc.sheet_flow_n(key) == n


def test_sheet_flow_n_covers_every_row_of_table_3_1():
    table = data.load_table("tr55_sheet_flow_n")
    assert sorted(tc.SHEET_FLOW_N_KEYS.values()) == sorted(table.surface_description)
    assert tc.sheet_flow_n(["smooth", "grass_dense"]).tolist() == [0.011, 0.24]


def test_sheet_flow_limit_is_100_ft_by_default_and_300_ft_on_request():
    assert tc.SHEET_FLOW_LIMIT_FT == 100.0
    got = tc.sheet_flow_time(300, 0.01, 0.24, 3.6, max_length_ft=tc.SHEET_FLOW_LIMIT_TR55_1986_FT)
    assert_allclose(got, tc.sheet_flow_time(100, 0.01, 0.24, 3.6) * 3**0.8, rtol=1e-12)
    assert tc.sheet_flow_time(100, 0.01, 0.24, 3.6) > 0  # exactly at the limit is accepted


def test_sheet_flow_equation_3_3():
    # 0.007 (nL)^0.8 / (P2^0.5 s^0.4): exact identity of the transcription.
    got = tc.sheet_flow_time(80.0, 0.02, 0.15, 3.2)
    assert_allclose(got, 0.007 * (0.15 * 80.0) ** 0.8 / (3.2**0.5 * 0.02**0.4), rtol=1e-12)


# --- properties --------------------------------------------------------------------------------


slopes = st.floats(1e-4, 0.5)


@settings(deadline=None)
@given(s1=slopes, s2=slopes, length=st.floats(1, 100), n=st.floats(0.01, 0.8),
       p2=st.floats(1, 8))
def test_sheet_flow_time_decreases_with_slope(s1, s2, length, n, p2):
    lo, hi = sorted((s1, s2))
    assert tc.sheet_flow_time(length, hi, n, p2) <= tc.sheet_flow_time(length, lo, n, p2)


@settings(deadline=None)
@given(s1=slopes, s2=slopes, length=st.floats(1, 1e4),
       surface=st.sampled_from(["paved", "unpaved"]))
def test_shallow_flow_time_decreases_with_slope(s1, s2, length, surface):
    lo, hi = sorted((s1, s2))
    assert (tc.shallow_concentrated_flow_time(length, hi, surface=surface)
            <= tc.shallow_concentrated_flow_time(length, lo, surface=surface))


@settings(deadline=None)
@given(s1=slopes, s2=slopes, length=st.floats(1, 1e5), n=st.floats(0.01, 0.2),
       area=st.floats(0.1, 500), pw=st.floats(0.5, 200))
def test_channel_flow_time_decreases_with_slope(s1, s2, length, n, area, pw):
    lo, hi = sorted((s1, s2))
    assert (tc.channel_flow_time(length, hi, n, area, pw)
            <= tc.channel_flow_time(length, lo, n, area, pw))


@settings(deadline=None)
@given(l1=st.floats(1, 100), l2=st.floats(1, 100))
def test_sheet_flow_time_grows_with_length(l1, l2):
    lo, hi = sorted((l1, l2))
    assert tc.sheet_flow_time(lo, 0.01, 0.24, 3.6) <= tc.sheet_flow_time(hi, 0.01, 0.24, 3.6)


# --- containers --------------------------------------------------------------------------------


def test_sheet_flow_time_preserves_container(container):
    kind, conv = container
    check_container(tc.sheet_flow_time(conv([50.0, 100.0]), conv([0.01, 0.02]), 0.24, 3.6),
                    kind, 2)


def test_shallow_concentrated_flow_time_preserves_container(container):
    kind, conv = container
    check_container(tc.shallow_concentrated_flow_time(conv([500.0, 1400.0]), 0.01), kind, 2)


def test_channel_flow_time_preserves_container(container):
    kind, conv = container
    got = tc.channel_flow_time(conv([7300.0, 1000.0]), 0.005, 0.05, 27.0, 28.2)
    check_container(got, kind, 2)


def test_shallow_surface_may_vary_per_element():
    got = tc.shallow_concentrated_flow_time([1000, 1000], 0.01, surface=["unpaved", "paved"])
    assert got[0] > got[1]


# --- one test per error message ----------------------------------------------------------------


def test_sheet_flow_beyond_limit_names_limit_source_and_keyword():
    with pytest.raises(
        OutOfRangeError,
        match=r"length_ft must be <= max_length_ft = 100 ft \(sheet-flow limit: NEH 630 Ch\. 15 "
              r"\(2010\) uses 100 ft, TR-55 \(1986\) allowed 300 ft\); got 450\. Route the "
              r"remainder as shallow concentrated flow, or pass max_length_ft=",
    ):
        tc.sheet_flow_time(450, 0.01, 0.24, 3.6)


def test_sheet_flow_beyond_limit_reports_index_and_count():
    with pytest.raises(OutOfRangeError, match=r"got 150 at index 1 \(2 of 3 values invalid\)"):
        tc.sheet_flow_time([50, 150, 200], 0.01, 0.24, 3.6)


def test_out_of_range_error_is_an_input_error():
    with pytest.raises(InputError):
        tc.sheet_flow_time(450, 0.01, 0.24, 3.6)


@pytest.mark.parametrize(
    ("args", "name"),
    [((0, 0.01, 0.24, 3.6), "length_ft"), ((50, 0, 0.24, 3.6), "slope_ftft"),
     ((50, 0.01, -0.2, 3.6), "n"), ((50, 0.01, 0.24, 0), "p2_in")],
)
def test_sheet_flow_rejects_non_positive_inputs(args, name):
    with pytest.raises(InputError, match=rf"{name} must be in \(0, inf\); got"):
        tc.sheet_flow_time(*args)


def test_sheet_flow_rejects_non_positive_limit():
    with pytest.raises(InputError, match=r"max_length_ft must be in \(0, inf\); got 0"):
        tc.sheet_flow_time(50, 0.01, 0.24, 3.6, max_length_ft=0)


def test_shallow_flow_rejects_negative_slope():
    with pytest.raises(InputError, match=r"slope_ftft must be in \(0, inf\); got -0.01"):
        tc.shallow_concentrated_flow_time(100, -0.01)


def test_shallow_flow_rejects_zero_length():
    with pytest.raises(InputError, match=r"length_ft must be in \(0, inf\); got 0"):
        tc.shallow_concentrated_flow_time(0, 0.01)


def test_shallow_flow_rejects_unknown_surface_with_suggestion():
    with pytest.raises(InputError, match=r"surface must be 'unpaved' or 'paved'; got 'pavd'; "
                                         r"did you mean 'paved'"):
        tc.shallow_concentrated_flow_time(100, 0.01, surface="pavd")


@pytest.mark.parametrize("name", ["slope_ftft", "n", "area_ft2", "wetted_perimeter_ft",
                                  "length_ft"])
def test_channel_flow_rejects_non_positive_inputs(name):
    args = {"length_ft": 100.0, "slope_ftft": 0.01, "n": 0.05, "area_ft2": 10.0,
            "wetted_perimeter_ft": 8.0, name: 0.0}
    with pytest.raises(InputError, match=rf"{name} must be in \(0, inf\); got 0"):
        tc.channel_flow_time(**args)


def test_sheet_flow_n_rejects_unknown_key_with_suggestion():
    with pytest.raises(InputError, match=r"unknown sheet-flow surface 'grass_dens' in table "
                                         r"tr55_sheet_flow_n; did you mean 'grass_dense'"):
        tc.sheet_flow_n("grass_dens")


def test_tc_rejects_empty_segments():
    with pytest.raises(InputError, match=r"segments must contain at least one segment"):
        tc.time_of_concentration([])


def test_tc_rejects_a_single_mapping():
    with pytest.raises(InputError, match=r"segments must be a list of mappings .*Wrap it"):
        tc.time_of_concentration({"kind": "shallow", "length_ft": 100, "slope_ftft": 0.01})


def test_tc_rejects_non_iterable():
    with pytest.raises(InputError, match=r"segments must be a list of mappings; got int"):
        tc.time_of_concentration(5)


def test_tc_rejects_non_mapping_segment():
    with pytest.raises(InputError, match=r"segments\[0\] must be a mapping"):
        tc.time_of_concentration([("shallow", 100, 0.01)])


def test_tc_rejects_segment_without_kind():
    with pytest.raises(InputError, match=r"segments\[0\] must have a 'kind'"):
        tc.time_of_concentration([{"length_ft": 100, "slope_ftft": 0.01}])


def test_tc_rejects_unknown_kind_with_suggestion():
    with pytest.raises(InputError, match=r"segments\[0\] kind must be 'sheet', 'shallow' or "
                                         r"'channel'; got 'chanel'; did you mean 'channel'"):
        tc.time_of_concentration([{"kind": "chanel"}])


def test_tc_rejects_unknown_argument_with_suggestion():
    with pytest.raises(InputError, match=r"segments\[0\] \(shallow\): unknown argument "
                                         r"'slope'; did you mean 'slope_ftft'"):
        tc.time_of_concentration([{"kind": "shallow", "length_ft": 100, "slope": 0.01}])


def test_tc_rejects_missing_argument():
    with pytest.raises(InputError, match=r"segments\[0\] \(channel\): n is required"):
        tc.time_of_concentration([{"kind": "channel", "length_ft": 100, "slope_ftft": 0.01,
                                   "area_ft2": 10, "wetted_perimeter_ft": 8}])


def test_tc_rejects_array_valued_segment_argument():
    with pytest.raises(InputError, match=r"segments\[0\] \(shallow\): length_ft must be a "
                                         r"single number per segment"):
        tc.time_of_concentration([{"kind": "shallow", "length_ft": [100, 200],
                                   "slope_ftft": 0.01}])


def test_tc_prefixes_segment_errors_and_keeps_the_error_class():
    with pytest.raises(OutOfRangeError, match=r"segments\[1\] \(sheet\): length_ft must be "
                                              r"<= max_length_ft = 100 ft"):
        tc.time_of_concentration([
            {"kind": "shallow", "length_ft": 100, "slope_ftft": 0.01},
            {"kind": "sheet", "length_ft": 250, "slope_ftft": 0.01, "n": 0.24, "p2_in": 3.6},
        ])


def test_tc_segment_may_raise_the_sheet_flow_limit():
    tc_hr, _ = tc.time_of_concentration([
        {"kind": "sheet", "length_ft": 250, "slope_ftft": 0.01, "n": 0.24, "p2_in": 3.6,
         "max_length_ft": 300},
    ])
    assert_allclose(tc_hr, tc.sheet_flow_time(250, 0.01, 0.24, 3.6, max_length_ft=300),
                    rtol=1e-12)


def test_tc_sheet_segment_accepts_a_table_3_1_surface_key():
    tc_hr, table = tc.time_of_concentration([
        {"kind": "sheet", "length_ft": 100, "slope_ftft": 0.01, "surface": "grass_dense",
         "p2_in": 3.6},
    ])
    assert_allclose(tc_hr, tc.sheet_flow_time(100, 0.01, 0.24, 3.6), rtol=1e-12)
    assert table.n.item() == 0.24


def test_tc_sheet_segment_rejects_both_n_and_surface():
    with pytest.raises(InputError, match=r"segments\[0\] \(sheet\): give either n or surface"):
        tc.time_of_concentration([{"kind": "sheet", "length_ft": 100, "slope_ftft": 0.01,
                                   "n": 0.24, "surface": "grass_dense", "p2_in": 3.6}])


def test_time_of_concentration_rejects_an_overflowing_travel_time():
    with pytest.raises(InputError, match=r"segments\[0\] \(shallow\): travel_time_hr must be "
                                         r"finite and > 0; got inf from length_ft = 1e\+308"):
        tc.time_of_concentration([{"kind": "shallow", "length_ft": 1e308,
                                   "slope_ftft": 1e-308}])


def test_segment_travel_times_are_the_rows_of_the_tc_table():
    segments = [
        {"kind": "sheet", "name": "AB", "length_ft": 100, "slope_ftft": 0.01,
         "n": "grass_dense", "p2_in": 3.6},
        {"kind": "shallow", "name": "BC", "length_ft": 1400, "slope_ftft": 0.01},
        {"kind": "channel", "name": "CD", "length_ft": 7300, "slope_ftft": 0.005,
         "n": 0.05, "area_ft2": 27, "wetted_perimeter_ft": 28.2},
    ]
    tc_hr, table = tc.time_of_concentration(segments)
    total, rows = tc.segment_travel_times(segments)
    assert total == tc_hr
    assert pd.DataFrame.from_records(rows, columns=table.columns).equals(table)


def test_site_loading_builds_no_dataframe_per_flow_path(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the site loader must not build a DataFrame per Tc")

    monkeypatch.setattr(tc, "time_of_concentration", refuse)
    example = pathlib.Path(__file__).resolve().parents[2] / "examples" / "pelham" / "site.toml"
    site = load_site(example)
    assert site.scenarios["pre"].nodes["E-1"].tc_hr > 0.1
