"""Routed pipe and channel reaches in the site file, the analysis and the report."""

from __future__ import annotations

import json
import math
import pathlib
import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.analysis import analyze
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.conveyance import Conveyance, TrapezoidalSection, route_conveyance
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.site import Reach, load_site

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "conveyance" / "site.toml"

SITE = """\
[project]
name = "Reach Test Site"
municipality = "nys_generic"
receiving_water = "Test Brook"
drains_to_impaired_water = false
disturbed_area_ac = 1.0
new_impervious_area_ac = 0.5
project_type = "commercial"

[storms]
distribution = "III"
wqv_precip_in = 1.2
wqv_precip_source = "test"
[storms.depths_in]
"2yr" = 3.3
"100yr" = 8.0

[criteria]
standard = "none"

[[pre.subcatchment]]
id = "E-1"
to = "DP-1"
area_ac = 2.0
cn = 65
tc_hr = 0.3

[[pre.design_point]]
id = "DP-1"

[[post.subcatchment]]
id = "S-1"
to = "R-1"
area_ac = 2.0
cn = 90
tc_hr = 0.1

[[post.reach]]
id = "R-1"
to = "DP-1"
{reach}

[[post.design_point]]
id = "DP-1"
"""

PIPE = """section = "circular"
diameter_in = 18
length_ft = 400
slope_ftft = 0.01
n = 0.013"""


def _write(tmp_path, reach: str, name="site.toml") -> pathlib.Path:
    p = tmp_path / name
    p.write_text(SITE.replace("{reach}", reach), encoding="utf-8")
    return p


def _problems(tmp_path, reach: str) -> list[str]:
    with pytest.raises(InputError) as exc:
        load_site(_write(tmp_path, reach))
    return str(exc.value).splitlines()


# -- site file ---------------------------------------------------------------------------


def test_example_reaches_load_with_their_sections():
    site = load_site(EXAMPLE)
    pipe, swale = (site.post.nodes[k] for k in ("PIPE-1", "SWALE-1"))
    assert pipe.routing == swale.routing == "muskingum_cunge"
    assert pipe.conveyance_spec["section"] == "circular"
    # slope from the invert elevations: (104.80 - 102.40) / 240
    assert pipe.conveyance.slope_ftft == pytest.approx(2.4 / 240, rel=1e-12)
    assert swale.conveyance.section.bottom_width_ft == 2.0
    assert swale.conveyance.section.side_slope_h_per_v == 3.0
    assert swale.conveyance.manning_n == 0.035


def test_hand_checked_full_flow_capacity_of_the_example_pipe():
    # Manning full flow, 18-in pipe: A = pi 1.5^2 / 4, R = D / 4 = 0.375 ft, S = 0.01
    site = load_site(EXAMPLE)
    area = math.pi * 1.5 ** 2 / 4
    q = 1.49 / 0.013 * area * 0.375 ** (2 / 3) * 0.01 ** 0.5
    assert q == pytest.approx(10.5326, abs=5e-4)          # hand value to 4 decimals
    assert site.post.nodes["PIPE-1"].conveyance.full_flow_capacity_cfs == pytest.approx(
        q, rel=1e-9)


@pytest.mark.parametrize("reach,kind", [
    (PIPE, "circular"),
    ('section = "rectangular"\nbottom_width_ft = 3\ndepth_ft = 2\nlength_ft = 300\n'
     'slope_ftft = 0.005\nn = 0.015', "rectangular"),
    ('section = "trapezoidal"\nbottom_width_ft = 2\nside_slope_h_per_v = 3\ndepth_ft = 1.5\n'
     'length_ft = 300\nupstream_invert_ft = 100.0\ndownstream_invert_ft = 98.5\nn = 0.035',
     "trapezoidal"),
    ('section = "user"\nstation_ft = [0, 4, 6, 10]\nelevation_ft = [2, 0, 0, 2]\n'
     'length_ft = 300\nslope_ftft = 0.005\nn = 0.03', "user"),
])
def test_each_section_round_trips(tmp_path, reach, kind):
    site = load_site(_write(tmp_path, reach))
    r = site.post.nodes["R-1"]
    assert r.conveyance_spec["section"] == kind and r.lag_hr == 0.0
    assert r.conveyance.full_flow_capacity_cfs > 0


def test_user_section_from_csv_matches_inline_points(tmp_path):
    (tmp_path / "xs.csv").write_text("station_ft,elevation_ft\n0,2\n4,0\n6,0\n10,2\n")
    a = load_site(_write(tmp_path, 'section = "user"\ncsv = "xs.csv"\nlength_ft = 300\n'
                                   'slope_ftft = 0.005\nn = 0.03', "a.toml"))
    b = load_site(_write(tmp_path, 'section = "user"\nstation_ft = [0, 4, 6, 10]\n'
                                   'elevation_ft = [2, 0, 0, 2]\nlength_ft = 300\n'
                                   'slope_ftft = 0.005\nn = 0.03', "b.toml"))
    ca, cb = (s.post.nodes["R-1"].conveyance for s in (a, b))
    assert ca.full_flow_capacity_cfs == cb.full_flow_capacity_cfs
    assert "xs.csv" in a.input_files


def test_lag_and_section_together_is_one_clear_error(tmp_path):
    lines = _problems(tmp_path, PIPE + "\nlag_hr = 0.1")
    assert len(lines) == 1
    assert lines[0].startswith("site.toml: post.reach[R-1].lag_hr and a routed section (")
    assert "must not both be given" in lines[0] and "(line " in lines[0]


def test_zero_slope_names_the_field(tmp_path):
    lines = _problems(tmp_path, PIPE.replace("slope_ftft = 0.01", "slope_ftft = 0"))
    assert len(lines) == 1
    assert lines[0].startswith("site.toml: post.reach[R-1].slope_ftft must be > 0")
    assert "got 0" in lines[0]


def test_equal_inverts_name_the_invert_field(tmp_path):
    reach = PIPE.replace("slope_ftft = 0.01",
                         "upstream_invert_ft = 100.0\ndownstream_invert_ft = 100.0")
    lines = _problems(tmp_path, reach)
    assert len(lines) == 1
    assert lines[0].startswith("site.toml: post.reach[R-1].downstream_invert_ft gives slope 0")


def test_every_problem_of_a_reach_in_one_pass(tmp_path):
    reach = ('section = "trapezoidal"\nbottom_width_ft = -2\ndiameter_in = 12\n'
             'length_ft = 0\nn = 0')
    lines = _problems(tmp_path, reach)
    text = "\n".join(lines)
    assert "post.reach[R-1].length_ft must be > 0; got 0" in text
    assert "post.reach[R-1].n must be in (0, 1]; got 0" in text
    assert "post.reach[R-1].slope_ftft (or upstream_invert_ft and downstream_invert_ft) is " \
           "required" in text
    assert "post.reach[R-1].diameter_in does not apply to section = \"trapezoidal\"" in text
    assert "post.reach[R-1].bottom_width_ft must be >= 0; got -2" in text
    assert "post.reach[R-1].side_slope_h_per_v is required" in text
    assert "post.reach[R-1].depth_ft is required" in text
    assert all(line.startswith("site.toml: ") for line in lines)


def test_unknown_section_suggests(tmp_path):
    lines = _problems(tmp_path, PIPE.replace('"circular"', '"circle"'))
    assert len(lines) == 1
    assert "post.reach[R-1].section must be one of circular, rectangular, trapezoidal, user; " \
           "got 'circle'" in lines[0]


def test_user_section_csv_is_confined_and_checked(tmp_path):
    lines = _problems(tmp_path, 'section = "user"\ncsv = "../outside.csv"\nlength_ft = 300\n'
                                'slope_ftft = 0.005\nn = 0.03')
    assert len(lines) == 1 and "post.reach[R-1].csv" in lines[0]
    (tmp_path / "bad.csv").write_text("x,y\n0,2\n4,0\n10,2\n")
    lines = _problems(tmp_path, 'section = "user"\ncsv = "bad.csv"\nlength_ft = 300\n'
                                'slope_ftft = 0.005\nn = 0.03')
    assert lines == ["site.toml: post.reach[R-1].csv must have exactly the columns "
                     "station_ft,elevation_ft; got x,y in bad.csv (line 42)"]


def test_a_lag_on_a_routed_reach_is_refused_from_python():
    site = load_site(EXAMPLE)
    with pytest.raises(InputError, match=r"reach PIPE-1: lag_hr and a routed section must not "
                                         r"both be given"):
        site.replace_node("post", "PIPE-1", lag_hr=0.5)
    assert Reach(id="R", to="DP", lag_hr=0.2).routing == "lag"


# -- analysis ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def example():
    site = load_site(EXAMPLE)
    return site, analyze(site)


def test_results_equal_a_direct_route_conveyance_call(example):
    site, res = example
    span = float(res.time_hr[-1] - res.time_hr[0])
    conv = res.conveyance
    for rid in ("PIPE-1", "SWALE-1"):
        reach = site.post.nodes[rid]
        for storm in res.storms:
            q_in = res.flow_cfs("post", storm, rid, which="inflow")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                direct = route_conveyance(Hydrograph(res.time_hr, q_in), reach.conveyance,
                                          duration_hr=span)
            assert_allclose(res.flow_cfs("post", storm, rid), direct.outflow_cfs[:q_in.size],
                            rtol=0, atol=0)
            row = conv[(conv["reach"] == rid) & (conv["storm"] == storm)].iloc[0]
            for key, value in direct.summary().items():
                assert row[key] == value, key
    assert len(conv) == 2 * len(res.storms)


def test_json_and_frames_carry_the_reach_rows(example):
    _, res = example
    doc = json.loads(res.to_json(hydrographs=False))
    assert {r["reach"] for r in doc["conveyance"]} == {"PIPE-1", "SWALE-1"}
    row = doc["conveyance"][0]
    for key in ("peak_inflow_cfs", "peak_outflow_cfs", "max_depth_ft", "max_velocity_fps",
                "full_flow_capacity_cfs", "surcharged"):
        assert key in row
    echo = {r["reach"]: r for r in doc["reaches"]}
    assert echo["PIPE-1"]["routing"] == "muskingum_cunge"
    assert echo["PIPE-1"]["diameter_in"] == 18
    assert "conveyance" in res.to_frames(hydrographs=False)


def test_sites_without_routed_reaches_keep_their_results_layout():
    site = load_site(ROOT / "examples" / "pelham" / "site.toml")
    res = analyze(site, storms=["1yr"])
    assert "conveyance" not in res.to_dict(hydrographs=False)
    assert "conveyance" not in res.to_frames(hydrographs=False)
    assert res.conveyance.empty


def test_steady_flow_leaves_at_normal_depth(tmp_path):
    # a long, constant inflow: outflow = inflow and depth = the hand-computed normal depth
    sec = TrapezoidalSection(2.0, 0.0, 3.0)      # rectangular, 2 ft wide
    conv = Conveyance(sec, 500.0, 0.004, 0.02)
    y = 0.75                                     # choose the depth, compute its flow by hand
    area, perim = 2.0 * y, 2.0 + 2.0 * y
    q = 1.49 / 0.02 * area * (area / perim) ** (2 / 3) * math.sqrt(0.004)
    t = np.arange(0.0, 6.0 + 1e-9, 0.01)
    res = route_conveyance(Hydrograph(t, np.full(t.size, q)), conv, duration_hr=6.0)
    assert res.outflow_cfs[-1] == pytest.approx(q, rel=1e-9)
    assert res.depth_ft[-1] == pytest.approx(y, rel=2e-3)     # depth table step 3 ft / 400
    assert res.velocity_fps[-1] == pytest.approx(q / area, rel=2e-3)


def test_surcharge_is_flagged_and_named(tmp_path):
    site = load_site(_write(tmp_path, PIPE.replace("diameter_in = 18", "diameter_in = 6")))
    res = analyze(site)
    conv = res.conveyance
    assert conv.loc[conv["storm"] == "100yr", "surcharged"].item() is True
    assert any("post.reach[R-1], storm 100yr: the peak inflow" in w for w in
               res.warnings)


# -- report ------------------------------------------------------------------------------


def test_report_tables_and_methods_name_the_reaches():
    from hydrocalc.report import sections

    hyd = sections.build_section("hydrology_post", EXAMPLE, figures=False)
    rows = hyd.tables["reaches"].frame
    assert set(rows["reach"]) == {"PIPE-1", "SWALE-1"}
    assert {"peak_inflow_cfs", "peak_outflow_cfs", "max_depth_ft", "max_velocity_fps",
            "full_flow_capacity_cfs", "surcharged"} <= set(rows.columns)
    assert set(rows["surcharged"]) <= {"yes", "no"}
    inputs = hyd.tables["reach_inputs"].frame
    assert inputs.loc[inputs["reach"] == "PIPE-1", "size"].item() == "18.0 in diameter"
    pre = sections.build_section("hydrology_pre", EXAMPLE, figures=False)
    assert "reaches" not in pre.tables
    methods = sections.build_section("methods", EXAMPLE, figures=False).tables
    assert "Muskingum-Cunge" in " ".join(methods["methods"].frame["method"])
    assert "Ponce and Chaganti 1994" in set(methods["references"].frame["key"])
    plain = sections.build_section("methods", ROOT / "examples" / "pelham" / "site.toml",
                                   figures=False).tables
    assert "Muskingum-Cunge" not in " ".join(plain["methods"].frame["method"])
    assert "Ponce and Chaganti 1994" not in set(plain["references"].frame["key"])


def test_variants_analysed_together_equal_one_at_a_time(example):
    from hydrocalc.analysis import analyze_many

    site, res = example
    variant = site.replace_node("post", "S-1", tc_hr=0.2)
    both = analyze_many([site, variant], storms=["10yr"])
    alone = analyze(variant, storms=["10yr"])
    # FFT round-off may differ with the batch's block layout: 1e-12 of the peak.
    q_alone = alone.flow_cfs("post", "10yr", "SWALE-1")
    assert_allclose(both[1].flow_cfs("post", "10yr", "SWALE-1"), q_alone,
                    rtol=0, atol=1e-12 * float(q_alone.max()))
    assert both[0].conveyance.equals(res.conveyance[res.conveyance["storm"] == "10yr"]
                                     .reset_index(drop=True))
    assert not both[1].conveyance.equals(both[0].conveyance)
