"""[pre]/[post], their TR-55 subcatchments and design points: checked by the declared model.

The keys are validated by :class:`hydrocalc.site.schema.SiteFile` (the CSV rows of
``subcatchments_csv`` by its ``Subcatchment``); the loader writes the records in its one-line
messages and keeps only the rules between keys, the physical rules and the network.
"""

from __future__ import annotations

import pathlib
import shutil

import pytest
from test_site import BASE

from hydrocalc.site import check_site, load_site
from hydrocalc.site.schema import Subcatchment

ROOT = pathlib.Path(__file__).resolve().parents[2]
PFDS = ROOT / "tests" / "fixtures" / "rainfall" / "pfds_pds_utf8_mean_only.csv"
CSV = "id,to,area_ac,cn,tc_hr,impervious_hsg\nS-2,DP-1,0.5,61,0.2,B\n"


def problems(tmp_path, text, csv=None):
    if csv is not None:
        (tmp_path / "subs.csv").write_text(csv, encoding="utf-8")
        text = text.replace('[[post.subcatchment]]\nid = "S-2"',
                            '[post]\nsubcatchments_csv = "subs.csv"\n\n'
                            '[[post.subcatchment]]\nid = "S-2X"', 1)
    p = tmp_path / "site.toml"
    p.write_text(text, encoding="utf-8")
    return check_site(p)


def test_the_csv_rows_are_valid_subcatchments_of_the_model(tmp_path):
    (tmp_path / "subs.csv").write_text(CSV, encoding="utf-8")
    assert problems(tmp_path, BASE, CSV) == []
    site = load_site(tmp_path / "site.toml")
    assert site.post.nodes["S-2"].impervious_hsg == "B"


@pytest.mark.parametrize(("cells", "expected"), [
    ("S-2,DP-1,0.5,104,0.2,B", "post.subcatchment[S-2].cn must be in (0, 100]; got 104 "
                               "(subs.csv line 2)"),
    ("S-2,DP-1,0.5,61,abc,B", "post.subcatchment[S-2].tc_hr must be a number; got 'abc' "
                              "(subs.csv line 2)"),
    ("S-2,DP-1,0.5,61,0.2,C/D", "post.subcatchment[S-2].impervious_hsg must be one of A, B, C, "
                                "D; got 'C/D'. For a dual group such as C/D enter the group "
                                "that applies (drained: C; undrained: D) (subs.csv line 2)"),
    ("S-2,,0.5,61,0.2,B", "post.subcatchment[S-2].to is required; got nothing: the node drains "
                          "nowhere. Name the downstream pond, reach or design point. "
                          "(subs.csv line 2)"),
])
def test_a_bad_csv_cell_is_named_by_its_file_and_line(tmp_path, cells, expected):
    got = problems(tmp_path, BASE, CSV.replace("S-2,DP-1,0.5,61,0.2,B", cells))
    assert got == [f"site.toml: {expected}"]


def test_a_bad_value_is_reported_beside_the_rule_it_breaks(tmp_path):
    text = BASE.replace("area_ac = 0.5\ncn = 61", "area_ac = -0.5\narea_ft2 = 100\ncn = 61")
    got = problems(tmp_path, text)
    assert "site.toml: post.subcatchment[S-2].area_ac must be > 0; got -0.5 (line 43)" in got
    assert ("site.toml: post.subcatchment[S-2].area_ac and area_ft2 must not both be given; "
            "got both. Keep one. (line 43)") in got
    assert len(got) == 2, got


def test_a_subcatchment_key_in_a_cover_row_says_how_to_fix_it(tmp_path):
    text = BASE.replace('hsg = "B"\narea_ac = 0.5', 'hsg = "B"\narea_ac = 0.5\nmethod = "tr55"')
    got = problems(tmp_path, text)
    assert len(got) == 1 and "cover[0].method: method is a subcatchment key" in got[0], got


def test_a_bad_tc_segment_type_and_a_missing_one(tmp_path):
    seg = ('tc_hr = 0.15\n[[post.subcatchment.cover]]', '[[post.subcatchment.tc_segment]]\n'
           'type = "{}"\nlength_ft = 50\nslope_ftft = 0.02\nsurface = "paved"\n'
           '[[post.subcatchment.cover]]')
    got = problems(tmp_path, BASE.replace(seg[0], seg[1].format("shalow")))
    assert got == ["site.toml: post.subcatchment[S-1].tc_segment[0].type must be one of sheet, "
                   "shallow, channel; got 'shalow'; did you mean 'shallow'? (line 35)"], got
    got = problems(tmp_path, BASE.replace(seg[0], seg[1].format("shallow").replace(
        'surface = "paved"\n', "")))
    assert got == ["site.toml: post.subcatchment[S-1].tc_segment[0].surface is required; got "
                   "nothing. Use one of: unpaved, paved (line 34)"], got


def test_a_bad_id_is_reported_once(tmp_path):
    for bad, says in (('""', "must be a non-empty string; got ''"),
                      ('"a b"', "must start with a letter or digit")):
        got = problems(tmp_path, BASE.replace('id = "S-2"', f"id = {bad}"))
        assert len([g for g in got if ".id " in g]) == 1 and says in got[0], got


def test_an_unknown_method_is_its_only_problem(tmp_path):
    got = problems(tmp_path, BASE.replace('id = "S-2"', 'id = "S-2"\nmethod = "scs"\nc = 3'))
    assert got == ["site.toml: post.subcatchment[S-2].method must be one of tr55, rational; "
                   "got 'scs' (line 42)"], got


def test_a_rational_subcatchment_is_left_to_its_parser(tmp_path):
    shutil.copy(PFDS, tmp_path / "pfds.csv")
    text = BASE.replace('id = "S-2"', 'id = "S-2"\nmethod = "rational"\nc = 3').replace(
        "cn = 61\n", "").replace("[[post.pond]]", '[rational]\npfds_csv = "pfds.csv"\n\n'
                                                  "[[post.pond]]").replace(
        "[storms]", '[criteria]\nstandard = "none"\n\n[storms]')
    got = problems(tmp_path, text)
    assert len([g for g in got if "post.subcatchment[S-2].c " in g]) == 1, got


def test_not_an_array_of_tables(tmp_path):
    got = problems(tmp_path, BASE.replace("[[pre.design_point]]", "[pre.design_point]"))
    assert got[:2] == ["site.toml: pre.design_point must be an array of tables "
                       "([[pre.design_point]]); got {'id': 'DP-1'} (line 27)",
                       "site.toml: pre.design_point must have at least one entry; got none. "
                       "Add [[pre.design_point]] with an id. (line 27)"], got


def test_every_key_the_csv_may_hold_is_a_key_of_the_model():
    from hydrocalc.site import subcatchments

    columns = (*subcatchments._CSV_KEYS, *subcatchments._CSV_COVER.values())
    assert set(columns) <= set(Subcatchment.model_fields) | set(subcatchments._COVER_KEYS)


def test_segments_adding_up_to_a_tc_out_of_range_are_one_problem(tmp_path):
    seg = ('tc_hr = 0.15\n[[post.subcatchment.cover]]', '[[post.subcatchment.tc_segment]]\n'
           'type = "shallow"\nlength_ft = 1e12\nslope_ftft = 0.02\nsurface = "paved"\n'
           '[[post.subcatchment.cover]]')
    got = problems(tmp_path, BASE.replace(*seg))
    assert len(got) == 1 and got[0].startswith(
        "site.toml: post.subcatchment[S-1].tc_segment must give a Tc <= 100 h, as tc_hr; "
        "got "), got
