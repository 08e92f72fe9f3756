"""Runoff-reduction practices and SMDM Chapter 9 redevelopment: numbers, credits, bad input."""

from __future__ import annotations

import json
import pathlib
import re
import tomllib

import pytest
from click.testing import CliRunner

from hydrocalc.analysis import analyze
from hydrocalc.cli import main
from hydrocalc.criteria import ny_redevelopment as rd
from hydrocalc.criteria import practices as gi
from hydrocalc.errors import InputError
from hydrocalc.site import load_site, parse_site

ROOT = pathlib.Path(__file__).resolve().parents[2]
REDEV = ROOT / "examples" / "pelham_redevelopment" / "site.toml"


def _doc():
    return tomllib.loads(REDEV.read_text(encoding="utf-8"))


def _parse(doc):
    return parse_site(doc, where="site.toml", base_dir=REDEV.parent)


def _errors(doc) -> list[str]:
    with pytest.raises(InputError) as exc:
        _parse(doc)
    return str(exc.value).splitlines()


def _practice(kind, **kw):
    base = dict(id="X", kind=kind, drainage_area_ft2=1000.0, drainage_impervious_ft2=1000.0,
                rrv_credit_fraction=1.0, rrv_credit_source="manual section (test)")
    base.update(kw)
    doc = _doc()
    doc["criteria"]["practice"] = [base]
    return doc


# ---------------------------------------------------------------------- geometry by hand

def _one(doc):
    return _parse(doc).criteria.practices[0]


def test_bioretention_storage_layer_by_layer():
    p = _one(_practice("bioretention", area_ft2=500, ponding_depth_ft=0.75, media_depth_ft=2.5,
                       media_void_ratio=0.25, stone_depth_ft=1.0, stone_void_ratio=0.4,
                       infiltration_rate_in_hr=0.5, max_drain_down_hr=48,
                       max_drain_down_source="test"))
    # 500 (0.75 + 2.5 x 0.25 + 1.0 x 0.4) = 500 x 1.775 = 887.5 ft3
    assert gi.storage_ft3(p) == pytest.approx(887.5, rel=1e-12)
    # 887.5 / (500 x 0.5/12) = 42.6 h
    assert gi.drain_down_hr(p) == pytest.approx(42.6, rel=1e-12)


@pytest.mark.parametrize(("kind", "dims", "expected"), [
    ("porous_pavement", dict(area_ft2=2000, stone_depth_ft=1.0, stone_void_ratio=0.4,
                             infiltration_rate_in_hr=1.0, max_drain_down_hr=48,
                             max_drain_down_source="t"), 800.0),
    ("dry_well", dict(length_ft=10, width_ft=10, depth_ft=6, stone_void_ratio=0.4,
                      infiltration_rate_in_hr=2.0, max_drain_down_hr=48,
                      max_drain_down_source="t"), 240.0),
    ("infiltration_trench", dict(length_ft=50, width_ft=3, depth_ft=4, stone_void_ratio=0.33,
                                 infiltration_rate_in_hr=1.0, max_drain_down_hr=72,
                                 max_drain_down_source="t"), 198.0),
    ("green_roof", dict(area_ft2=1000, media_depth_ft=0.5, media_void_ratio=0.3), 150.0),
    ("cistern", dict(volume_gal=748.052, demand_gal_per_day=748.052, max_drain_down_hr=24,
                     max_drain_down_source="t"), 100.0),
    # 200 ft / 50 ft = 4 cells; pool min(50, 0.5/0.02 = 25) = 25 ft; A = 0.5 (2 + 3 x 0.5) = 1.75
    # 4 x 0.5 x 1.75 x 25 = 87.5 ft3
    ("vegetated_swale", dict(length_ft=200, bottom_width_ft=2, side_slope_h_per_v=3,
                             check_dam_height_ft=0.5, check_dam_spacing_ft=50,
                             slope_ftft=0.02), 87.5),
])
def test_storage_by_kind(kind, dims, expected):
    assert gi.storage_ft3(_one(_practice(kind, **dims))) == pytest.approx(expected, rel=1e-9)


def test_credit_is_capped_by_the_drainage_wqv_and_scaled_by_the_credit_fraction():
    p = _one(_practice("green_roof", area_ft2=1000, media_depth_ft=0.5, media_void_ratio=0.3,
                       drainage_area_ft2=1000, drainage_impervious_ft2=1000,
                       rrv_credit_fraction=0.5))
    r = gi.evaluate_practice(p, precip_in=1.2)
    wqv = 1.2 / 12 * 0.95 * 1000  # 95 ft3 (Table 4.1, I = 100 %)
    assert r["drainage_wqv_ft3"] == pytest.approx(wqv, rel=1e-12)
    assert r["captured_ft3"] == pytest.approx(wqv, rel=1e-12)   # storage 150 > WQv 95
    assert r["rrv_ft3"] == pytest.approx(0.5 * wqv, rel=1e-12)
    assert "credited up to that WQv" in r["reason"]


def test_rooftop_disconnection_credit_needs_the_flow_path():
    ok = _one(_practice_no_drainage("rooftop_disconnection", roof_area_ft2=1200,
                                    flow_path_length_ft=80, min_flow_path_length_ft=75,
                                    min_flow_path_source="manual (test)"))
    assert gi.evaluate_practice(ok, 1.5)["rrv_ft3"] == pytest.approx(1.5 / 12 * 0.95 * 1200)
    short = _one(_practice_no_drainage("rooftop_disconnection", roof_area_ft2=1200,
                                       flow_path_length_ft=40, min_flow_path_length_ft=75,
                                       min_flow_path_source="manual (test)"))
    r = gi.evaluate_practice(short, 1.5)
    assert r["rrv_ft3"] == 0 and "shorter than the minimum 75 ft" in r["reason"]


def _practice_no_drainage(kind, **kw):
    doc = _practice(kind, **kw)
    entry = doc["criteria"]["practice"][0]
    for k in ("drainage_area_ft2", "drainage_impervious_ft2"):
        entry.pop(k)
    return doc


# ---------------------------------------------------------------------- site results

def test_example_rrv_and_wqv_are_the_sum_of_the_practices():
    res = analyze(load_site(REDEV))
    prac = res.practices
    assert list(prac["id"]) == ["RG-1", "PP-1", "RT-1"]
    rrv = res.criteria.set_index("criterion").loc["rrv"]
    assert rrv["provided"] == pytest.approx(prac["rrv_ft3"].sum() / 43560.0, rel=1e-9)
    wqv = res.criteria.set_index("criterion").loc["wqv"]
    assert wqv["provided"] == pytest.approx(prac["captured_ft3"].sum() / 43560.0, rel=1e-9)
    # Chapter 9, standard practices: 0.25 x WQv(1.5 in, 1.0/1.3 impervious, 1.3 ac)
    wqv_r = 1.5 * (0.05 + 0.009 * 100 / 1.3) * 1.3 / 12
    assert wqv["required"] == pytest.approx(0.25 * wqv_r, rel=1e-12)
    assert "dry detention basin" in wqv["note"] and "P-1" in wqv["note"]
    names = [v["name"] for v in res.values_to_confirm]
    assert any(n.startswith("redevelopment (standard_practices)") for n in names)
    assert all(v["verified"] is False and v["source"] for v in res.values_to_confirm)
    assert set(res.values_to_confirm[0]) == {"key", "name", "value", "units", "source",
                                             "verified"}
    keys = [v["key"] for v in res.values_to_confirm]
    assert len(set(keys)) == len(keys) and "redevelopment_fraction" in keys


def test_redevelopment_options_change_the_requirement():
    doc = _doc()
    doc["criteria"]["redevelopment"] = dict(
        option="impervious_reduction", redeveloped_area_ac=1.3, existing_impervious_ac=1.0,
        fraction=0.25, fraction_source="test", impervious_after_ac=0.7)
    res = analyze(_parse(doc))
    rows = res.criteria.set_index("criterion")
    assert rows.loc["wqv", "required"] == 0.0   # no new impervious; the reduction governs
    red = rows.loc["wqv_redevelopment_impervious_reduction"]
    assert red["provided"] == pytest.approx(0.3) and red["result"] == "pass"
    doc["criteria"]["redevelopment"]["impervious_after_ac"] = 0.9
    red = analyze(_parse(doc)).criteria.set_index("criterion").loc[
        "wqv_redevelopment_impervious_reduction"]
    assert red["provided"] == pytest.approx(0.1) and red["result"] == "fail"


def test_alternative_practices_add_their_treated_volume():
    r = rd.Redevelopment(option="alternative_practices", redeveloped_area_ac=1.0,
                         existing_impervious_ac=0.5, fraction=0.75, fraction_source="t",
                         alternative_treated_acft=0.05, alternative_practice_note="device")
    req = rd.required_wqv_acft(r, 1.2, new_impervious_ac=0.1)
    assert req["wqv_new_acft"] == pytest.approx(1.2 * 0.95 * 0.1 / 12, rel=1e-12)
    assert req["wqv_required_acft"] == pytest.approx(
        1.2 * 0.95 * 0.1 / 12 + 0.75 * 1.2 * (0.05 + 0.009 * 50) * 1.0 / 12, rel=1e-12)


def test_example_runs_from_the_cli(tmp_path):
    res = CliRunner().invoke(main, ["check", str(REDEV)])
    assert res.exit_code == 0, res.output
    out = tmp_path / "r.json"
    res = CliRunner().invoke(main, ["run", str(REDEV), "--json", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads(out.read_text(encoding="utf-8"))
    assert [p["id"] for p in doc["practices"]] == ["RG-1", "PP-1", "RT-1"]
    assert doc["values_to_confirm"] and all(not v["verified"] for v in doc["values_to_confirm"])


# ---------------------------------------------------------------------- bad input

def test_redevelopment_option_without_its_parameters():
    doc = _doc()
    doc["criteria"]["redevelopment"] = {"option": "alternative_practices",
                                        "redeveloped_area_ac": 1.3, "existing_impervious_ac": 1.0}
    errs = _errors(doc)
    assert len(errs) == 4
    for key in ("fraction", "fraction_source", "alternative_treated_acft",
                "alternative_practice_note"):
        assert any(f"criteria.redevelopment.{key} is required for option "
                   "'alternative_practices'" in e for e in errs)


@pytest.mark.parametrize("void", [1.3, 0.0, -0.2])
def test_void_ratio_outside_zero_one(void):
    doc = _practice("porous_pavement", area_ft2=2000, stone_depth_ft=1.0, stone_void_ratio=void,
                    infiltration_rate_in_hr=1.0, max_drain_down_hr=48,
                    max_drain_down_source="t")
    errs = _errors(doc)
    assert len(errs) == 1
    assert re.search(r"criteria\.practice\[X\]\.stone_void_ratio must be .*1.*; got "
                     + re.escape(f"{void:g}"), errs[0])


def test_drain_down_not_met_by_the_infiltration_rate():
    # 2000 x 1.5 x 0.4 = 1200 ft3 over 2000 ft2 = 0.6 ft = 7.2 in; at 0.1 in/h: 72 h > 48 h
    doc = _practice("porous_pavement", area_ft2=2000, stone_depth_ft=1.5, stone_void_ratio=0.4,
                    infiltration_rate_in_hr=0.1, max_drain_down_hr=48,
                    max_drain_down_source="t")
    errs = _errors(doc)
    assert len(errs) == 1
    assert "criteria.practice[X].infiltration_rate_in_hr cannot drain the practice within " \
           "max_drain_down_hr = 48 h" in errs[0]
    assert "need >= 0.15 in/h" in errs[0]


def test_cistern_drain_down_not_met_by_its_demand():
    doc = _practice("cistern", volume_gal=1500, demand_gal_per_day=100, max_drain_down_hr=72,
                    max_drain_down_source="t")
    errs = _errors(doc)
    assert len(errs) == 1 and "demand_gal_per_day cannot empty the cistern" in errs[0]


def test_cli_check_reports_one_line_for_a_bad_practice(tmp_path):
    text = REDEV.read_text(encoding="utf-8").replace("stone_void_ratio = 0.4",
                                                     "stone_void_ratio = 1.4")
    text = text.replace("../../design_storms/", str(ROOT / "design_storms") + "/")
    f = tmp_path / "site.toml"
    f.write_text(text, encoding="utf-8")
    res = CliRunner().invoke(main, ["check", str(f)])
    assert res.exit_code == 1
    errors = [line for line in res.output.splitlines() if "stone_void_ratio" in line]
    assert len(errors) == 1 and "got 1.4" in errors[0] and "Traceback" not in res.output


def test_every_kind_serialises_to_json():
    doc = _doc()
    doc["criteria"]["practice"] = [
        dict(id="RD-1", kind="rooftop_disconnection", roof_area_ft2=1000, flow_path_length_ft=80,
             min_flow_path_length_ft=75, min_flow_path_source="t", rrv_credit_fraction=1.0,
             rrv_credit_source="t"),
        dict(id="GR-1", kind="green_roof", area_ft2=1000, media_depth_ft=0.5,
             media_void_ratio=0.3, drainage_area_ft2=1000, drainage_impervious_ft2=1000,
             rrv_credit_fraction=1.0, rrv_credit_source="t"),
        dict(id="SW-1", kind="vegetated_swale", length_ft=200, bottom_width_ft=2,
             side_slope_h_per_v=3, check_dam_height_ft=0.5, check_dam_spacing_ft=50,
             slope_ftft=0.0, drainage_area_ft2=5000, drainage_impervious_ft2=1000,
             rrv_credit_fraction=0.1, rrv_credit_source="t"),
    ]
    res = analyze(_parse(doc))
    text = res.to_json(hydrographs=False)
    assert '"RD-1"' in text and '"SW-1"' in text
    assert list(res.practices["id"]) == ["RD-1", "GR-1", "SW-1"]
    assert json.loads(text)["practices"][0]["storage_ft3"] is None
    assert "practices" not in res.criteria_details
