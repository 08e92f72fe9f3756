"""The site file loader: schema, every validation message, topology, CSV tables, line numbers."""

from __future__ import annotations

import dataclasses
import hashlib
import pathlib
import re

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc import runoff, tc
from hydrocalc.errors import InputError
from hydrocalc.site import Site, check_site, key_lines, load_site, network

FIXTURES = pathlib.Path(__file__).parents[1] / "fixtures" / "sites"
EXAMPLES = pathlib.Path(__file__).parents[2] / "examples"

BASE = """\
[project]
name = "Unit Test Site"
municipality = "nys_generic"
receiving_water = "Test Brook"
drains_to_impaired_water = false
disturbed_area_ac = 1.5
new_impervious_area_ac = 0.5
project_type = "commercial"

[storms]
distribution = "III"
wqv_precip_in = 1.2
wqv_precip_source = "test"
[storms.depths_in]
"1yr" = 2.7
"2yr" = 3.3
"10yr" = 5.0
"100yr" = 8.0

[[pre.subcatchment]]
id = "E-1"
to = "DP-1"
area_ac = 1.5
cn = 65
tc_hr = 0.3

[[pre.design_point]]
id = "DP-1"

[[post.subcatchment]]
id = "S-1"
to = "P-1"
impervious_connected_ac = 0.5
tc_hr = 0.15
[[post.subcatchment.cover]]
cover = "open_space_good"
hsg = "B"
area_ac = 0.5

[[post.subcatchment]]
id = "S-2"
to = "DP-1"
area_ac = 0.5
cn = 61
tc_hr = 0.25

[[post.pond]]
id = "P-1"
to = "DP-1"
[post.pond.storage]
type = "basin"
bottom_length_ft = 60
bottom_width_ft = 30
depth_ft = 4
side_slope_h_per_v = 3
[[post.pond.outlet]]
id = "orifice"
type = "circular_orifice"
diameter_in = 6
invert_ft = 0
[[post.pond.outlet]]
id = "weir"
type = "rectangular_weir"
length_ft = 4
crest_ft = 3

[[post.design_point]]
id = "DP-1"
"""


def write(tmp_path, text, name="site.toml"):
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(tmp_path, text, **files):
    for fname, content in files.items():
        write(tmp_path, content, fname)
    return check_site(write(tmp_path, text))


def one_problem(tmp_path, text, pattern, **files):
    probs = problems_of(tmp_path, text, **files)
    matching = [p for p in probs if re.search(pattern, p)]
    assert matching, f"no problem matches {pattern!r}; got {probs}"
    return matching[0], probs


# -- a valid site ------------------------------------------------------------------------


def test_base_site_is_valid_and_builds_every_part(tmp_path):
    site = load_site(write(tmp_path, BASE))
    assert isinstance(site, Site)
    assert site.name == "Unit Test Site"
    assert site.storms.names == ("1yr", "2yr", "10yr", "100yr")
    assert site.storms.distribution == "III"
    assert set(site.scenarios) == {"pre", "post"}
    assert site.design_point_ids == ("DP-1",)
    pond = site.post.nodes["P-1"]
    assert pond.outlet_ids == ("orifice", "weir")
    assert pond.stage_storage.top_stage_ft == pytest.approx(4.0)
    order = site.post.order
    assert order.index("S-1") < order.index("P-1") < order.index("DP-1")


def test_cover_rows_give_tr55_composite_cn(tmp_path):
    # pervious CN from Table 2-2a (open space good, B = 61) and 50 % connected impervious
    # (TR-55 Fig. 2-3): 61 + 0.5 (98 - 61) = 79.5
    site = load_site(write(tmp_path, BASE))
    s1 = site.post.nodes["S-1"]
    assert s1.pervious_cn == runoff.curve_number("open_space_good", "B") == 61.0
    assert_allclose(s1.cn, runoff.impervious_composite_cn(61, 50.0), rtol=1e-12)
    assert_allclose(s1.cn, 79.5, rtol=0, atol=1e-12)
    assert s1.area_ac == pytest.approx(1.0)
    assert s1.impervious_hsg == "B"  # taken from the single HSG of the cover rows


def test_unconnected_impervious_uses_fig_2_4(tmp_path):
    text = BASE.replace("impervious_connected_ac = 0.5\ntc_hr = 0.15",
                        "impervious_unconnected_ac = 0.2\ntc_hr = 0.15").replace(
        'cover = "open_space_good"\nhsg = "B"\narea_ac = 0.5',
        'cover = "open_space_good"\nhsg = "B"\narea_ac = 0.8')
    s1 = load_site(write(tmp_path, text)).post.nodes["S-1"]
    # 20 % impervious, all unconnected: CNp + 0.2 (98 - CNp)(1 - 0.5) (TR-55 Fig. 2-4)
    assert_allclose(s1.cn, 61 + 0.2 * 37 * 0.5, rtol=1e-12)


def test_tc_segments_use_tr55_chapter_3(tmp_path):
    text = BASE.replace("tc_hr = 0.3\n", """\
[[pre.subcatchment.tc_segment]]
type = "sheet"
length_ft = 100
slope_ftft = 0.01
n = 0.24
p2_in = 3.6
[[pre.subcatchment.tc_segment]]
type = "shallow"
length_ft = 1400
slope_ftft = 0.01
surface = "unpaved"
[[pre.subcatchment.tc_segment]]
type = "channel"
length_ft = 7300
slope_ftft = 0.005
n = 0.05
area_ft2 = 27
wetted_perimeter_ft = 28.2
""", 1)
    e1 = load_site(write(tmp_path, text)).pre.nodes["E-1"]
    # TR-55 Example 3-1 prints Tc = 1.53 h
    assert_allclose(e1.tc_hr, 1.53, rtol=0, atol=0.005)
    assert [s.type for s in e1.tc_segments] == ["sheet", "shallow", "channel"]
    assert_allclose(sum(s.travel_time_hr for s in e1.tc_segments), e1.tc_hr, rtol=1e-12)


def test_sheet_flow_p2_defaults_to_the_2yr_storm(tmp_path):
    text = BASE.replace("tc_hr = 0.3\n", """\
[[pre.subcatchment.tc_segment]]
type = "sheet"
length_ft = 80
slope_ftft = 0.02
surface = "grass_dense"
""", 1)
    e1 = load_site(write(tmp_path, text)).pre.nodes["E-1"]
    assert e1.tc_segments[0].p2_in == 3.3
    expected = tc.sheet_flow_time(80, 0.02, tc.sheet_flow_n("grass_dense"), 3.3)
    assert_allclose(e1.tc_hr, expected, rtol=1e-12)


def test_fixture_with_csv_tables_loads_and_hashes_every_input():
    site = load_site(FIXTURES / "small" / "site.toml")
    post = site.post
    assert [s.id for s in post.subcatchments] == ["S-1", "S-2", "S-3"]
    s3 = post.nodes["S-3"]
    assert [c.cover for c in s3.covers] == ["meadow", "open_space_good"]
    assert_allclose(s3.cn, (0.6 * 58 + 0.4 * 61) / 1.0, rtol=1e-12)
    assert set(site.input_files) == {"site.toml", "post_subcatchments.csv",
                                     "pond_p1_stage_area.csv"}
    raw = (FIXTURES / "small" / "post_subcatchments.csv").read_bytes()
    assert site.input_files["post_subcatchments.csv"] == hashlib.sha256(raw).hexdigest()


@pytest.mark.parametrize("name", ["shelter_island", "pelham"])
def test_examples_load(name):
    site = load_site(EXAMPLES / name / "site.toml")
    assert site.construction is not None and site.construction.traps
    assert any("illustrative" in n for n in site.notes)
    assert any(k.endswith(".toml") and "design_storms" in k for k in site.input_files)


def test_replace_node_and_storm_depths_make_variants(tmp_path):
    site = load_site(write(tmp_path, BASE))
    v = site.replace_node("post", "S-2", cn=70.0)
    assert v.post.nodes["S-2"].cn == 70.0 and site.post.nodes["S-2"].cn == 61
    assert v.pre is site.pre  # unchanged scenario shared (sweeps compute it once)
    w = site.with_storm_depths(**{"10yr": 5.5})
    assert w.storms.depths_in["10yr"] == 5.5 and site.storms.depths_in["10yr"] == 5.0
    with pytest.raises(InputError, match=r"node must be a node of scenario post; got 'S-9'"):
        site.replace_node("post", "S-9", cn=70.0)
    with pytest.raises(InputError, match=r"storm must be one of 1yr, 2yr, 10yr, 100yr; got '5yr'"):
        site.with_storm_depths(**{"5yr": 4.0})
    with pytest.raises(InputError, match=r"scenario must be one of pre, post; got 'mid'"):
        site.replace_node("mid", "S-2", cn=70.0)


# -- line numbers -------------------------------------------------------------------------


def test_key_lines_labels_entries_by_id_and_index():
    text = '[[post.subcatchment]]\nid = "S-1"\narea_ac = 1\n[[post.subcatchment]]\narea_ac = 2\n' \
           '[[post.subcatchment.cover]]\nhsg = "B"\n[post.pond.storage]\ntype = "x"\n'
    lines = key_lines(text)
    assert lines["post.subcatchment[S-1].area_ac"] == 3
    assert lines["post.subcatchment[1].area_ac"] == 5
    assert lines["post.subcatchment[1].cover[0].hsg"] == 7
    assert lines["post.subcatchment[S-1]"] == 1


# -- one test per validation message --------------------------------------------------------


def test_negative_area_message_has_path_and_line(tmp_path):
    text = BASE.replace("area_ac = 0.5\ncn = 61", "area_ac = -3\ncn = 61")
    msg, _ = one_problem(tmp_path, text, r"area_ac must be > 0")
    line = text.splitlines().index("area_ac = -3") + 1
    assert msg == f"site.toml: post.subcatchment[S-2].area_ac must be > 0; got -3 (line {line})"


def test_cn_out_of_range(tmp_path):
    msg, _ = one_problem(tmp_path, BASE.replace("cn = 61", "cn = 104"),
                         r"post\.subcatchment\[S-2\]\.cn must be in \(0, 100\]; got 104")
    assert "(line " in msg


def test_unknown_key_suggests_the_right_one(tmp_path):
    text = BASE.replace("cn = 61", "cn = 61\ntc_hour = 0.2")
    one_problem(tmp_path, text,
                r"^site\.toml: unknown key post\.subcatchment\[S-2\]\.tc_hour; did you mean "
                r"'tc_hr'")


def test_unknown_top_level_section(tmp_path):
    one_problem(tmp_path, BASE + "\n[critera]\nstandard = 'ny_smdm'\n",
                r"unknown top-level key critera; did you mean 'criteria'\?")


def test_toml_syntax_error_reports_its_line(tmp_path):
    probs = check_site(write(tmp_path, BASE.replace("cn = 61", "cn = = 61")))
    assert len(probs) == 1
    assert re.match(r"site\.toml: TOML syntax error: .*line \d+", probs[0])


def test_missing_file_is_one_clear_problem(tmp_path):
    with pytest.raises(InputError, match=r"site file must be a readable file; got '.*nope\.toml'"):
        load_site(tmp_path / "nope.toml")


def test_cn_and_cover_rows_are_exclusive(tmp_path):
    text = BASE.replace("impervious_connected_ac = 0.5\ntc_hr = 0.15",
                        "impervious_connected_ac = 0.5\ntc_hr = 0.15\ncn = 80")
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-1\]\.cn and cover rows must not both be given")


def test_cn_or_covers_required(tmp_path):
    text = BASE.replace("area_ac = 0.5\ncn = 61\n", "area_ac = 0.5\n")
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-2\]\.cn \(or \[\[\.\.\.cover\]\] rows\) is required")


def test_tc_required(tmp_path):
    text = BASE.replace("cn = 61\ntc_hr = 0.25", "cn = 61")
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-2\]\.tc_hr \(or \[\[\.\.\.tc_segment\]\] rows\) is "
                r"required")


def test_unknown_cover_key_suggests(tmp_path):
    text = BASE.replace('cover = "open_space_good"', 'cover = "open_space_goood"')
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-1\]\.cover\[0\]\.cover could not be looked up.*"
                r"did you mean 'open_space_good'")


def test_bad_hsg(tmp_path):
    one_problem(tmp_path, BASE.replace('hsg = "B"', 'hsg = "E"'),
                r"post\.subcatchment\[S-1\]\.cover\[0\]\.hsg must be one of A, B, C, D; got 'E'")


def test_area_must_match_cover_areas(tmp_path):
    text = BASE.replace("impervious_connected_ac = 0.5\ntc_hr = 0.15",
                        "area_ac = 2.0\nimpervious_connected_ac = 0.5\ntc_hr = 0.15")
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-1\]\.area_ac must equal the cover areas plus the "
                r"impervious areas \(1 ac\) within 0\.5 %; got 2")


def test_impervious_cannot_exceed_area(tmp_path):
    text = BASE.replace("area_ac = 0.5\ncn = 61",
                        "area_ac = 0.5\ncn = 61\nimpervious_connected_ac = 0.7")
    one_problem(tmp_path, text, r"post\.subcatchment\[S-2\]\.impervious_connected_ac plus "
                                r"impervious_unconnected_ac must be <= area_ac \(0\.5\); got 0\.7")


def test_hsg_is_case_insensitive_and_dual_groups_are_explained(tmp_path):
    site = load_site(write(tmp_path, BASE.replace('hsg = "B"', 'hsg = "b"')))
    assert site.post.nodes["S-1"].covers[0].hsg == "B"
    one_problem(tmp_path, BASE.replace('hsg = "B"', 'hsg = "C/D"'),
                r"hsg must be one of A, B, C, D; got 'C/D'\. For a dual group such as C/D enter "
                r"the group that applies")


def test_area_in_both_units_is_an_error(tmp_path):
    text = BASE.replace("area_ac = 0.5\ncn = 61", "area_ac = 0.5\narea_ft2 = 21780\ncn = 61")
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-2\]\.area_ac and area_ft2 must not both be given")


def test_missing_to_drains_nowhere(tmp_path):
    text = BASE.replace('id = "S-2"\nto = "DP-1"\n', 'id = "S-2"\n')
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-2\]\.to is required; got nothing: the node drains nowhere")


def test_unknown_target_suggests_a_receiving_node(tmp_path):
    text = BASE.replace('id = "S-2"\nto = "DP-1"', 'id = "S-2"\nto = "DP-2"')
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-2\]\.to must name a pond, reach or design point of "
                r"scenario post; got 'DP-2'; did you mean 'DP-1'")


def test_subcatchment_cannot_receive_flow(tmp_path):
    text = BASE.replace('id = "S-2"\nto = "DP-1"', 'id = "S-2"\nto = "S-1"')
    one_problem(tmp_path, text,
                r"post\.subcatchment\[S-2\]\.to must name a pond, reach or design point; "
                r"got subcatchment 'S-1'")


def test_cycle_is_an_error(tmp_path):
    text = BASE.replace('id = "P-1"\nto = "DP-1"', 'id = "P-1"\nto = "R-1"') + \
        '\n[[post.reach]]\nid = "R-1"\nto = "P-1"\nlag_hr = 0.1\n'
    one_problem(tmp_path, text, r"post network has a cycle: P-1 -> R-1 -> P-1")


def test_node_that_only_feeds_a_dead_end_drains_nowhere(tmp_path):
    # a pond draining to a reach that drains to the pond's own upstream is a cycle; a pond whose
    # path ends at a pond without a design point is impossible ('to' required), so check
    # a design point that receives nothing instead
    text = BASE + '\n[[post.design_point]]\nid = "DP-2"\n[[pre.design_point]]\nid = "DP-2"\n'
    one_problem(tmp_path, text, r"post\.design_point\[DP-2\] receives no flow")


def test_design_point_missing_from_a_scenario(tmp_path):
    text = BASE.replace('[[post.design_point]]\nid = "DP-1"',
                        '[[post.design_point]]\nid = "DP-1"\n'
                        '[[post.design_point]]\nid = "DP-9"') + \
        '\n[[post.subcatchment]]\nid = "S-9"\nto = "DP-9"\narea_ac = 0.1\ncn = 70\ntc_hr = 0.1\n'
    one_problem(tmp_path, text,
                r"post\.design_point\[DP-9\] is missing from scenario pre; every design "
                r"point must be in both scenarios")


def test_duplicate_id(tmp_path):
    text = BASE.replace('id = "S-2"', 'id = "S-1"')
    one_problem(tmp_path, text, r"\.id must be unique within scenario post; got 'S-1'")


def test_scenario_required(tmp_path):
    text = BASE.split("[[pre.subcatchment]]")[0] + BASE[BASE.index("[[post.subcatchment]]"):]
    one_problem(tmp_path, text, r"\[pre\] scenario is required")


def test_storm_depth_must_be_positive(tmp_path):
    one_problem(tmp_path, BASE.replace('"10yr" = 5.0', '"10yr" = -5.0'),
                r"storms\.depths_in\.10yr must be > 0; got -5")


def test_unknown_distribution(tmp_path):
    one_problem(tmp_path, BASE.replace('distribution = "III"', 'distribution = "IIII"'),
                r"storms\.distribution is not a known distribution")


def test_wqv_precip_is_required(tmp_path):
    one_problem(tmp_path, BASE.replace("wqv_precip_in = 1.2\n", ""),
                r"storms\.wqv_precip_in is required; got nothing")


def test_storm_file_must_exist(tmp_path):
    text = BASE.replace('distribution = "III"', 'distribution = "III"\nfile = "nope.toml"')
    one_problem(tmp_path, text, r"storms\.file must be an existing file")


def test_storm_file_depths_and_warning(tmp_path):
    ds = pathlib.Path(__file__).parents[2] / "design_storms" / "pelham.toml"
    text = BASE.replace('distribution = "III"',
                        f'distribution = "III"\nfile = "{ds.as_posix()}"\n'
                        'use = ["1yr", "10yr", "100yr"]')
    text = text.replace('[storms.depths_in]\n"1yr" = 2.7\n"2yr" = 3.3\n"10yr" = 5.0\n'
                        '"100yr" = 8.0\n', "")
    site = load_site(write(tmp_path, text))
    assert site.storms.names == ("1yr", "10yr", "100yr")
    assert site.storms.depths_in["10yr"] > 0
    assert any("illustrative" in w for w in site.storms.warnings)


def test_use_must_name_available_storms(tmp_path):
    text = BASE.replace('distribution = "III"', 'distribution = "III"\nuse = ["1yr", "50yr"]')
    one_problem(tmp_path, text, r"storms\.use must name storms that have a depth; got '50yr'")


def test_explicit_criteria_storm_must_exist(tmp_path):
    one_problem(tmp_path, BASE + '\n[criteria]\nqp_storm = "25yr"\n',
                r"criteria\.qp_storm must name a design storm; got '25yr'")
    # a default storm that the site lacks is not an input error (reported as not evaluated)
    assert check_site(write(tmp_path, BASE.replace('"10yr" = 5.0\n', ""))) == []


def test_bad_min_rv_rule(tmp_path):
    one_problem(tmp_path, BASE + '\n[criteria]\nmin_rv_rule = "alway"\n',
                r"criteria\.min_rv_rule must be one of if_wqv_exceeds_rrv, always, never; got "
                r"'alway'; did you mean 'always'\?")


def test_waiver_needs_a_reason(tmp_path):
    one_problem(tmp_path, BASE + '\n[criteria]\nwaived = { cpv = "" }\n',
                r"criteria\.waived\.cpv must be the reason for the waiver")


def test_cpv_rainfall_type_must_be_an_nrcs_type(tmp_path):
    one_problem(tmp_path, BASE + '\n[criteria]\ncpv_rainfall_type = "NOAA_C"\n',
                r"criteria\.cpv_rainfall_type must be one of I, IA, II, III; got 'NOAA_C'")


def test_dt_must_resolve_the_unit_hydrograph(tmp_path):
    one_problem(tmp_path, BASE + "\n[analysis]\ndt_hr = 0.05\n",
                r"analysis\.dt_hr must be <= 0\.02571 h to resolve the unit hydrograph of "
                r"post\.subcatchment\[S-1\]")


def test_pond_storage_required(tmp_path):
    start = BASE.index("[post.pond.storage]")
    end = BASE.index("[[post.pond.outlet]]")
    one_problem(tmp_path, BASE[:start] + BASE[end:], r"post\.pond\[P-1\]\.storage is required")


def test_unknown_outlet_type(tmp_path):
    one_problem(tmp_path, BASE.replace('type = "circular_orifice"', 'type = "circular_orfice"'),
                r"post\.pond\[P-1\]\.outlet\[orifice\]\.type must be one of .*; got "
                r"'circular_orfice'; did you mean 'circular_orifice'")


def test_outlet_above_top(tmp_path):
    one_problem(tmp_path, BASE.replace("crest_ft = 3\n", "crest_ft = 5\n"),
                r"post\.pond\[P-1\]\.outlet\[weir\]\.crest_ft must be below the top of the "
                r"storage \(4 ft\); got 5")


def test_outlet_size_positive(tmp_path):
    one_problem(tmp_path, BASE.replace("diameter_in = 6", "diameter_in = 0"),
                r"post\.pond\[P-1\]\.outlet\[orifice\]\.diameter_in must be > 0; got 0")


def test_stage_area_csv_errors(tmp_path):
    text = BASE.replace('type = "basin"\nbottom_length_ft = 60\nbottom_width_ft = 30\n'
                        'depth_ft = 4\nside_slope_h_per_v = 3',
                        'type = "stage_area"\ncsv = "sa.csv"')
    msg, _ = one_problem(tmp_path, text,
                         r"post\.pond\[P-1\]\.storage\.csv must have exactly the columns "
                         r"stage_ft,area_ft2", **{"sa.csv": "stage,area\n0,10\n1,20\n"})
    probs = problems_of(tmp_path, text, **{"sa.csv": "stage_ft,area_ft2\n0,10\n1,x\n"})
    assert any("must hold numbers" in p and "sa.csv line 3" in p for p in probs), probs


def test_stage_must_increase(tmp_path):
    text = BASE.replace('type = "basin"\nbottom_length_ft = 60\nbottom_width_ft = 30\n'
                        'depth_ft = 4\nside_slope_h_per_v = 3',
                        'type = "stage_storage"\nstage_ft = [0, 2, 1, 4]\n'
                        'storage_ft3 = [0, 100, 200, 300]')
    one_problem(tmp_path, text,
                r"post\.pond\[P-1\]\.storage\.stage_ft must be strictly increasing")


def test_subcatchment_csv_unknown_column_and_row_line(tmp_path):
    text = BASE.replace("[[post.subcatchment]]\nid = \"S-2\"",
                        "[post]\nsubcatchments_csv = \"subs.csv\"\n\n"
                        "[[post.subcatchment]]\nid = \"S-2X\"", 1)
    text = text.replace('to = "DP-1"\narea_ac = 0.5\ncn = 61',
                        'to = "DP-1"\narea_ac = 0.5\ncn = 61', 1)
    probs = problems_of(tmp_path, text,
                        **{"subs.csv": "id,to,area_acre,cn,tc_hr\nS-2,DP-1,0.5,61,0.2\n"})
    assert any("unknown column 'area_acre' in subs.csv; did you mean 'area_ac'" in p
               for p in probs), probs
    probs = problems_of(tmp_path, text,
                        **{"subs.csv": "# comment\nid,to,area_ac,cn,tc_hr\nS-2,DP-1,-1,61,0.2\n"})
    assert any(p == "site.toml: post.subcatchment[S-2].area_ac must be > 0; got -1 "
                    "(subs.csv line 3)"
               for p in probs), probs


def test_every_problem_is_reported_at_once(tmp_path):
    text = (BASE.replace("cn = 61", "cn = 104").replace('hsg = "B"', 'hsg = "E"')
            .replace("diameter_in = 6", "diameter_in = -1").replace("wqv_precip_in = 1.2\n", ""))
    with pytest.raises(InputError) as info:
        load_site(write(tmp_path, text))
    lines = str(info.value).splitlines()
    assert len(lines) >= 4
    assert all(line.startswith("site.toml: ") for line in lines)


def test_project_problems_come_through_with_lines(tmp_path):
    text = BASE.replace("disturbed_area_ac = 1.5", "disturbed_area_ac = -3")
    msg, _ = one_problem(tmp_path, text, r"project\.disturbed_area_ac must be >= 0; got -3")
    assert msg.endswith("(line 6)")


# -- network topology ------------------------------------------------------------------------


def test_topological_order_puts_upstream_first():
    edges = {"DP": None, "P2": "DP", "R": "P2", "P1": "R", "S1": "P1", "S2": "P2", "S3": "DP"}
    order = network.topological_order(edges)
    for node, to in edges.items():
        if to is not None:
            assert order.index(node) < order.index(to)
    ups = network.upstream_sets(edges)
    assert ups["P2"] == {"P2", "R", "P1", "S1", "S2"}
    assert network.terminal_of(edges, "S1") == "DP"


def test_find_cycle_and_order_refuse_cycles():
    assert network.find_cycle({"A": "B", "B": None}) is None
    cyc = network.find_cycle({"X": "A", "A": "B", "B": "A"})
    assert cyc[0] == cyc[-1] and set(cyc) == {"A", "B"}
    with pytest.raises(ValueError, match="cycle"):
        network.topological_order({"A": "B", "B": "A"})


def test_scenario_upstream_subcatchments(tmp_path):
    site = load_site(FIXTURES / "small" / "site.toml")
    ups = site.post.upstream_subcatchments("DP-1")
    assert [s.id for s in ups] == ["S-1", "S-2", "S-3"]
    assert [s.id for s in site.post.upstream_subcatchments("P-1")] == ["S-1"]
    assert site.post.area_ac == pytest.approx(sum(s.area_ac for s in site.post.subcatchments))
    assert np.isclose(site.post.impervious_ac, 1.0)


def test_site_is_replace_friendly(tmp_path):
    site = load_site(write(tmp_path, BASE))
    opts = dataclasses.replace(site.options, dt_hr=0.005)
    assert dataclasses.replace(site, options=opts).options.dt_hr == 0.005


def test_the_documented_example_loads_and_runs(tmp_path):
    from hydrocalc.analysis import analyze

    doc = (pathlib.Path(__file__).parents[2] / "docs" / "site_file.md").read_text(encoding="utf-8")
    block = (doc.split("## A complete annotated example", 1)[1]
             .split("```toml", 1)[1].split("```", 1)[0])
    storms = (pathlib.Path(__file__).parents[2] / "design_storms" / "pelham.toml").as_posix()
    block = block.replace('"../../design_storms/pelham.toml"', f'"{storms}"')
    site = load_site(write(tmp_path, block))
    assert site.pre.nodes["E-1"].area_ac == pytest.approx(20000 / 43560)
    res = analyze(site, storms=["10yr", "100yr"])
    assert set(res.comparison["storm"]) == {"10yr", "100yr"}


def test_storm_duration_must_fit_the_distribution(tmp_path):
    text = BASE.replace('distribution = "III"', 'distribution = "III"\nduration_hr = 6')
    one_problem(tmp_path, text,
                r"storms\.duration_hr does not fit the distribution: duration_hr must equal")
