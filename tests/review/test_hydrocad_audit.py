"""The reviewer's input audit of HydroCAD submissions (hydrocalc.review.importers.hydrocad_audit).

For every check: the published example or a hand computation of the equation, a planted error
in a real public report (tests/fixtures/hydrocad) that is found with its exact JSON fields,
and the report's own correct value that is not.
"""

from __future__ import annotations

import json
import math
import pathlib

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.review import review_site
from hydrocalc.review.importers.hydrocad import parse_report
from hydrocalc.review.importers.hydrocad_audit import (
    AUDIT_QUANTITIES,
    audit_submitted,
    channel_flow_time_min,
    cover_table_cn,
    orifice_flow_cfs,
    shallow_flow_time_min,
    sheet_flow_time_min,
    stage_storage_ft3,
    weighted_cn,
    weir_flow_cfs,
)

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "hydrocad"
MMS910 = FIX / "chanhassen_mms_swpond_hc910.txt"
EUGENE1000 = FIX / "eugene_tentpud_postdev_hc1000.txt"
OCR900 = FIX / "chanhassen_mmw_filtswale_hc900_ocr.txt"
NORTH800 = FIX / "northampton_prop120307_hc800.txt"
NOAA1010 = FIX / "northampton_15150_hc1010_noaa.txt"
TCS900 = FIX / "chanhassen_tcs_existing_hc900.txt"
CHAN710 = FIX / "chanhassen_1237_predev_hc710.txt"


def run(*args):
    res = CliRunner().invoke(main, [str(a) for a in args])
    return res.exit_code, res.output


def _audit_text(text: str):
    rep = parse_report(text, allow_partial=True)
    return audit_submitted({"listings": rep.listings, "nodes": rep.nodes,
                            "results": rep.results})


def _body(path: pathlib.Path) -> str:
    return "\n".join(x for x in path.read_text(encoding="utf-8").splitlines()
                     if not x.startswith("#"))


def _planted(path, old, new, count=1):
    text = _body(path)
    assert text.count(old) >= count, old
    return text.replace(old, new, count)


def _errors(audit):
    return [f for f in audit.findings if f["severity"] == "error"]


# -- the equations -------------------------------------------------------------------------

def test_tc_equations_reproduce_tr55_example_3_1():
    # TR-55 (1986) Example 3-1 / Worksheet 3: AB 0.30 h, BC 0.24 h, CD 0.99 h (2 decimals)
    assert sheet_flow_time_min(0.24, 100, 0.01, 3.6) / 60 == pytest.approx(0.30, abs=0.005)
    assert shallow_flow_time_min(1400, 0.01, 16.1345) / 60 == pytest.approx(0.24, abs=0.005)
    assert channel_flow_time_min(7300, 0.005, 0.05, 27.0, 28.2) / 60 == \
        pytest.approx(0.99, abs=0.005)


def test_cover_wording_maps_to_the_tr55_tables():
    assert cover_table_cn(">75% Grass cover, Good, HSG B") == (61.0, "TR-55 Table 2-2a", "")
    assert cover_table_cn("Woods/grass comb., Fair, HSG C")[:2] == (76.0, "TR-55 Table 2-2c")
    assert cover_table_cn("Oak/aspen range, Good, HSG D")[:2] == (48.0, "TR-55 Table 2-2d")
    assert cover_table_cn("Meadow, non-grazed, HSG B")[:2] == (58.0, "TR-55 Table 2-2c")
    assert cover_table_cn("Brush, Fair, HSG A")[0] == 35.0
    assert cover_table_cn("Gravel roads, HSG A")[0] == 76.0
    assert cover_table_cn("Paved parking, HSG B")[0] == 98.0
    assert cover_table_cn("1/4 acre lots, 38% imp, HSG C")[0] == 83.0
    assert cover_table_cn("Woods, Good, HSG B (UNGRADED)")[0] == 55.0
    assert cover_table_cn("Row crops, straight row, Good, HSG B")[:2] == (78.0, "TR-55 Table 2-2b")
    # impervious rows need no HSG (CN 98 for every group); others do
    assert cover_table_cn("Paved parking & roofs")[0] == 98.0
    cn, _, why = cover_table_cn("Gravel roads")
    assert cn is None and "hydrologic soil group" in why
    for custom in ("Water Surface", "Pavement", "", "1/4 acre lots, 40% imp, HSG B",
                   ">75%GrassGoodHSGCwithin AutoCAD building"):
        assert cover_table_cn(custom)[0] is None


def test_weighted_storage_and_device_equations():
    assert weighted_cn([126860, 110672], [98, 61]) == pytest.approx(80.76, abs=0.005)
    # prismatic: average end area; conic: frustum of a square pyramid section (exact)
    assert stage_storage_ft3(2.0, [0, 2], [100, 300]) == pytest.approx(400.0)
    assert stage_storage_ft3(1.0, [0, 2], [100, 300]) == pytest.approx(150.0)
    assert stage_storage_ft3(2.0, [0, 2], [100, 400], conic=True) == \
        pytest.approx(2 / 3 * (100 + 400 + 200))
    assert stage_storage_ft3(-1.0, [0, 2], [100, 300]) == 0.0
    # the Eugene S9 orifice: 0.600 x 0.01227 sf x sqrt(2 g 0.37 ft) = 0.0359 cfs
    area = math.pi * (1.5 / 12) ** 2 / 4
    assert orifice_flow_cfs(0.6, area, 0.37) == pytest.approx(0.0359, abs=5e-5)
    assert weir_flow_cfs(3.33, 4.0, 0.5) == pytest.approx(3.33 * 4 * 0.5 ** 1.5)


# -- cover_cn, weighted_cn, tc on the real SEH report (HydroCAD 9.10) ----------------------

def test_correct_report_has_no_error_and_counts_what_it_checked():
    audit = _audit_text(_body(MMS910))
    assert _errors(audit) == []
    assert audit.checked == {"cover_cn": 4, "weighted_cn": 2, "tc_segment_min": 6,
                             "tc_total_min": 2, "storage_ft3": 0, "discharge_cfs": 0}
    assert set(audit.checked) == set(AUDIT_QUANTITIES)
    # 220 ft of sheet flow: an advisory warning, not an input error
    assert {f["severity"] for f in audit.findings} == {"warning"}


def test_planted_cover_cn_is_one_finding_with_exact_fields():
    text = _planted(MMS910, "110,672 61 >75% Grass cover, Good, HSG B 237,532 81",
                    "110,672 69 >75% Grass cover, Good, HSG B 237,532 84")
    errs = _errors(_audit_text(text))
    assert errs == [{
        "node": "3S", "quantity": "cover_cn", "item": ">75% Grass cover, Good, HSG B",
        "unit": "", "submitted": 69.0, "printed": "69", "recomputed": 61.0, "tolerance": 0.0,
        "reference": "TR-55 Table 2-2a", "severity": "error",
        "message": "CN 69 printed for '>75% Grass cover, Good, HSG B'; TR-55 Table 2-2a "
                   "gives 61"}]


def test_planted_weighted_cn():
    errs = _errors(_audit_text(_planted(MMS910, "237,532 81 Weighted", "237,532 83 Weighted")))
    assert len(errs) == 1
    f = errs[0]
    assert (f["node"], f["quantity"], f["item"], f["printed"], f["unit"]) == \
        ("3S", "weighted_cn", "Weighted Average", "83", "")
    assert f["recomputed"] == pytest.approx((126860 * 98 + 110672 * 61) / 237532)
    assert f["tolerance"] == 0.6
    # 81 printed for 80.76 is HydroCAD's rounding: no finding (checked above)


def test_planted_tc_segment_and_total():
    # a wrong sheet-flow time whose total is the sum of the printed segments: one finding
    text = _planted(MMS910, "16.3 220 0.0320", "12.3 220 0.0320")
    text = text.replace("19.1 780 Total", "15.1 780 Total", 1)
    errs = _errors(_audit_text(text))
    assert [(f["node"], f["quantity"], f["item"]) for f in errs] == \
        [("3S", "tc_segment_min", "segment 1: Sheet Flow")]
    f = errs[0]
    assert f["unit"] == "min" and f["submitted"] == 12.3 and f["printed"] == "12.3"
    assert f["reference"] == "TR-55 eq. 3-3"
    assert f["recomputed"] == pytest.approx(sheet_flow_time_min(0.15, 220, 0.032, 2.80))
    assert f["tolerance"] == pytest.approx(0.05 + 0.03 * f["recomputed"])
    # a wrong total
    errs = _errors(_audit_text(_planted(MMS910, "19.1 780 Total", "21.1 780 Total")))
    assert [(f["node"], f["quantity"], f["item"], f["recomputed"], f["tolerance"])
            for f in errs] == [("3S", "tc_total_min", "Total", pytest.approx(19.1),
                                pytest.approx(0.2))]


def test_planted_shallow_and_channel_segments():
    text = _planted(MMS910, "2.5 300 0.0100", "3.5 300 0.0100").replace(
        "19.1 780 Total", "20.1 780 Total", 1)
    errs = _errors(_audit_text(text))
    assert [(f["item"], f["reference"]) for f in errs] == \
        [("segment 2: Shallow Concentrated Flow", "TR-55 App. F")]
    assert errs[0]["recomputed"] == pytest.approx(300 / (60 * 20.3282 * 0.1))
    text = _planted(MMS910, "0.3 260 0.0400", "0.9 260 0.0400").replace(
        "19.1 780 Total", "19.7 780 Total", 1)
    errs = _errors(_audit_text(text))
    assert [f["item"] for f in errs] == ["segment 3: Channel Flow"]
    assert errs[0]["recomputed"] == pytest.approx(channel_flow_time_min(260, 0.04, 0.03,
                                                                        105.0, 60.5))


# -- storage_ft3 and discharge_cfs on the real Eugene report (HydroCAD 10.00) --------------

def test_eugene_pond_storage_and_orifice_correct():
    audit = _audit_text(_body(EUGENE1000))
    assert _errors(audit) == []
    assert audit.checked["storage_ft3"] == 4  # Cum.Store x 2, Avail.Storage, Peak Elev
    assert audit.checked["discharge_cfs"] == 1  # the 1.5" orifice; culvert and #3 not
    reasons = {(x["node"], x["item"]): x["reason"] for x in audit.not_checked}
    assert "culvert" in reasons[("S9", "#1")]
    assert "Pavement" in reasons[("P53", "Pavement")]


@pytest.mark.parametrize("old, new, item, submitted", [
    ("893.75 134 871 871", "893.75 134 871 971", "893.75'", 971.0),
    ("#1 887.25' 871 cf", "#1 887.25' 991 cf", "893.75'", 991.0),
    ("Storage= 50 cf", "Storage= 80 cf", "887.62'", 80.0),
])
def test_planted_storage(old, new, item, submitted):
    errs = _errors(_audit_text(_planted(EUGENE1000, old, new)))
    assert [(f["node"], f["quantity"], f["item"], f["unit"], f["submitted"]) for f in errs] \
        == [("S9", "storage_ft3", item, "ft3", submitted)]
    f = errs[0]
    assert f["tolerance"] == pytest.approx(0.5 + 0.05 * f["recomputed"])


def test_planted_orifice_flow():
    errs = _errors(_audit_text(_planted(EUGENE1000, "Orifice Controls 0.04 cfs",
                                        "Orifice Controls 0.09 cfs")))
    assert len(errs) == 1
    f = errs[0]
    assert (f["node"], f["quantity"], f["item"], f["unit"], f["printed"]) == \
        ("S9", "discharge_cfs", "#2", "cfs", "0.09")
    assert f["recomputed"] == pytest.approx(0.0359, abs=2e-4)
    assert f["tolerance"] == pytest.approx(0.005 + 0.1 * f["recomputed"])


_POND = ("HydroCAD® 10.00-16 s/n 09344 © 2015 HydroCAD Software Solutions LLC Page 3 "
         "Summary for Pond 2P: Basin Peak Elev= 101.50' @ 12.20 hrs Surf.Area= 2,250 sf "
         "Storage= {peak} cf Volume Invert Avail.Storage Storage Description "
         "#1 100.00' {avail} cf Custom Stage Data (Conic) Listed below (Recalc) "
         "Elevation Surf.Area Wet.Area Inc.Store Cum.Store (feet) (sq-ft) (sq-ft) "
         "(cubic-feet) (cubic-feet) 100.00 1,000 1,000 0 0 102.00 4,000 4,010 4,667 4,667 "
         "Device Routing Invert Outlet Devices #1 Primary 100.00' 6.0\" Vert. Orifice/Grate "
         "C= 0.600 #2 Primary 101.00' 2.0' long Sharp-Crested Rectangular Weir C= 3.00 "
         "Primary OutFlow Max=2.00 cfs @ 12.20 hrs HW=101.50' (Free Discharge) "
         "1=Orifice/Grate (Orifice Controls {q1} cfs @ 5.0 fps) "
         "2=Sharp-Crested Rectangular Weir (Weir Controls {q2} cfs @ 1.0 fps)")


def test_conic_storage_vertical_orifice_and_weir_synthetic():
    # conic frustum 100-102 ft, 1,000 -> 4,000 sf: 2/3 (1000 + 4000 + 2000) = 4,667 cf
    a_peak = 1000 + 3000 * 0.75
    peak = 1.5 / 3 * (1000 + a_peak + math.sqrt(1000 * a_peak))
    q1 = orifice_flow_cfs(0.6, math.pi * 0.25 ** 2, 1.5 - 0.25)
    q2 = weir_flow_cfs(3.0, 2.0, 0.5)
    text = _POND.format(peak=f"{peak:,.0f}", q1=f"{q1:.2f}", q2=f"{q2:.2f}", avail="4,667")
    audit = _audit_text(text)
    assert _errors(audit) == []
    assert audit.checked["storage_ft3"] == 4  # two rows, Avail.Storage, peak
    assert audit.checked["discharge_cfs"] == 2
    bad = _errors(_audit_text(_POND.format(peak=f"{peak:,.0f}", q1=f"{q1 * 1.3:.2f}",
                                           q2=f"{q2 * 1.3:.2f}", avail="4,667")))
    assert [(f["item"], f["quantity"]) for f in bad] == [("#1", "discharge_cfs"),
                                                         ("#2", "discharge_cfs")]
    assert "centroid" in bad[0]["reference"] and bad[1]["reference"] == "weir Q = C L h^1.5"


def test_avail_storage_of_the_synthetic_conic_volume_is_a_finding():
    # the printed Avail.Storage 7,000 cf is not the table's top Cum.Store 4,667 cf
    text = _POND.format(peak="3,026", q1="1.00", q2="1.00", avail="7,000")
    errs = [f for f in _errors(_audit_text(text)) if f["quantity"] == "storage_ft3"]
    assert [(f["item"], f["submitted"]) for f in errs] == [("102.00'", 7000.0)]


def test_area_listing_rows_and_total():
    head = ("HydroCAD® 9.10 s/n 01109 © 2009 HydroCAD Software Solutions LLC Area Listing "
            "(all nodes) Area (acres) CN Description (subcatchment-numbers) ")
    good = head + ("1.000 61 >75% Grass cover, Good, HSG B (1S) 1.000 98 Paved parking, HSG B "
                   "(1S) 2.000 80 TOTAL AREA")
    audit = _audit_text(good)
    assert _errors(audit) == []
    assert audit.checked["cover_cn"] == 2 and audit.checked["weighted_cn"] == 1
    errs = _errors(_audit_text(good.replace("2.000 80 TOTAL", "2.000 83 TOTAL")))
    assert [(f["node"], f["quantity"], f["item"], f["recomputed"]) for f in errs] == \
        [("Area Listing", "weighted_cn", "TOTAL AREA", 79.5)]
    errs = _errors(_audit_text(good.replace("1.000 61 >75%", "1.000 65 >75%").replace(
        "2.000 80 TOTAL", "2.000 82 TOTAL")))
    assert [(f["node"], f["item"], f["submitted"]) for f in errs] == \
        [("Area Listing", ">75% Grass cover, Good, HSG B", 65.0)]


def test_real_area_listing_brush_gravel_grass_and_paved_rows_check():
    audit = _audit_text(_body(TCS900))
    assert _errors(audit) == []
    assert audit.checked["cover_cn"] == 6


# -- the commands -------------------------------------------------------------------------

@pytest.mark.parametrize("path, site", [
    (CHAN710, True), (MMS910, True), (TCS900, True), (EUGENE1000, False), (OCR900, False),
    (NORTH800, False), (NOAA1010, False)])
def test_every_stored_report_imports_with_allow_partial(tmp_path, path, site):
    out = tmp_path / "o"
    code, text = run("import", "hydrocad", path, "--out", out, "--allow-partial")
    assert code == 0, text
    assert (out / "submitted.json").exists()
    assert (out / "site.toml").exists() is site
    sub = json.loads((out / "submitted.json").read_text())
    if not site:
        assert sub["complete"] is False
        assert any("no node can be re-run" in r for r in sub["incomplete_reasons"])


def test_review_without_site_audits_only_and_exits_1_on_an_error(tmp_path):
    bad = tmp_path / "listing.txt"
    bad.write_text(_planted(NORTH800, "0.485 39 >75% Grass cover, Good, HSG A",
                            "0.485 49 >75% Grass cover, Good, HSG A"), encoding="utf-8")
    out = tmp_path / "o"
    assert run("import", "hydrocad", bad, "--out", out, "--allow-partial")[0] == 0
    code, text = run("review", "--submitted", out / "submitted.json", "--json",
                     tmp_path / "r.json", "--html", tmp_path / "r.html")
    assert code == 1, text
    assert ">75% Grass cover, Good, HSG A" in text and "TR-55 Table 2-2a" in text
    rev = json.loads((tmp_path / "r.json").read_text())
    assert rev["rows"] == []
    errs = [f for f in rev["input_audit"]["findings"] if f["severity"] == "error"]
    assert [(f["node"], f["submitted"], f["recomputed"]) for f in errs] == \
        [("Area Listing", 49.0, 39.0)]
    assert "Input audit" in (tmp_path / "r.html").read_text()
    out2 = tmp_path / "o2"
    assert run("import", "hydrocad", NORTH800, "--out", out2, "--allow-partial")[0] == 0
    code, text = run("review", "--submitted", out2 / "submitted.json")
    assert code == 0, text


def test_review_with_site_lists_input_findings_after_the_rows(tmp_path):
    bad = tmp_path / "mms.txt"
    bad.write_text(_planted(MMS910, "110,672 61 >75% Grass cover, Good, HSG B 237,532 81",
                            "110,672 69 >75% Grass cover, Good, HSG B 237,532 84"),
                   encoding="utf-8")
    out = tmp_path / "o"
    assert run("import", "hydrocad", bad, "--out", out)[0] == 0
    code, text = run("review", out / "site.toml", "--submitted", out / "submitted.json",
                     "--json", tmp_path / "r.json")
    assert code == 1, text
    rev = json.loads((tmp_path / "r.json").read_text())
    assert rev["rows"] and rev["input_audit"]["checked"]["cover_cn"] == 4
    assert text.index("input audit") > text.index("peak_cfs")
    rev_ok = review_site(None, out / "submitted.json")
    assert rev_ok.rows == [] and rev_ok.failed


def test_ocr_footer_and_damaged_rainfall_line_import_with_allow_partial(tmp_path):
    text = ("HydroCAD Report Prepared by Someone 5/1/2008 HydroCAD®8.50 s/n 000476 @2007 "
            "HydroCAD Software Solutions LLC Type 1124 -hr 10 year Rainfall=4.20\" "
            "Area Listing (all nodes) Area (acres) CN Description (subcatchment-numbers) "
            "1.000 70 Woods, Good, HSG C (1S) 1.000 70 TOTAL AREA")
    p = tmp_path / "ocr.txt"
    p.write_text(text, encoding="utf-8")
    code, out = run("import", "hydrocad", p, "--out", tmp_path / "o", "--allow-partial")
    assert code == 0, out
    sub = json.loads((tmp_path / "o" / "submitted.json").read_text())
    assert sub["source"]["hydrocad_version"] == "8.50"
    assert not (tmp_path / "o" / "site.toml").exists()
    code, out = run("import", "hydrocad", p, "--out", tmp_path / "o2")
    assert code == 1 and len(out.strip().splitlines()) == 1
    assert not (tmp_path / "o2").exists()


@pytest.mark.parametrize("content", [
    b"", b"\xff\xfe\x00garbage\x80", b"Dear reviewer, please find the drainage report.\n"])
def test_bad_input_one_line_exit_1_no_folder(tmp_path, content):
    p = tmp_path / "bad.txt"
    p.write_bytes(content)
    code, text = run("import", "hydrocad", p, "--out", tmp_path / "o", "--allow-partial")
    assert code == 1 and len(text.strip().splitlines()) == 1 and text.startswith("error:")
    assert not (tmp_path / "o").exists()


def test_truncated_in_a_node_is_refused_without_allow_partial(tmp_path):
    body = _body(MMS910)
    cut = tmp_path / "cut.txt"
    cut.write_text(body[: body.index("Summary for Subcatchment 4S") + 30], encoding="utf-8")
    code, text = run("import", "hydrocad", cut, "--out", tmp_path / "o")
    assert code == 1 and len(text.strip().splitlines()) == 1
    assert not (tmp_path / "o").exists()


def test_text_cut_inside_a_tc_table_is_truncated_and_never_audited(tmp_path):
    body = _body(MMS910)
    start = body.index("Summary for Subcatchment 4S")
    cut_at = body.index('P2= 2.', start) + len('P2= 2.')  # "P2= 2.80" cut to "2."
    cut = tmp_path / "cut.txt"
    cut.write_text(body[:cut_at], encoding="utf-8")
    code, text = run("import", "hydrocad", cut, "--out", tmp_path / "o")
    assert code == 1 and "truncated" in text and "4S" in text
    assert len(text.strip().splitlines()) == 1 and not (tmp_path / "o").exists()
    code, text = run("import", "hydrocad", cut, "--out", tmp_path / "o", "--allow-partial")
    assert code == 0, text
    rev = review_site(None, tmp_path / "o" / "submitted.json")
    assert rev.input_errors == []
    # 3S in full; of 4S the cover rows and weighted CN, not its cut sheet-flow segment
    assert rev.input_audit.checked["tc_segment_min"] == 3
    assert rev.input_audit.checked["cover_cn"] == 4
    assert any(x["node"] == "4S" for x in rev.input_audit.not_checked)


def test_an_error_in_one_storm_copy_of_a_table_is_found_once():
    # HydroCAD prints a node's area and Tc tables once per storm: plant in the first copy
    good = _body(MMS910)
    bad = good.replace("110,672 61 >75% Grass cover, Good, HSG B 237,532 81",
                       "110,672 69 >75% Grass cover, Good, HSG B 237,532 84", 1)
    second = good[good.index("Summary for Subcatchment 3S"):]
    audit = _audit_text(bad + " " + second.replace("2-yr, 24-hr", "10-yr", 2))
    errs = _errors(audit)
    assert [(f["node"], f["quantity"], f["printed"]) for f in errs] == [("3S", "cover_cn", "69")]
    assert audit.checked["cover_cn"] == 5  # 4 distinct correct rows + the planted one
    assert audit.checked["tc_segment_min"] == 6  # identical copies count once


def test_marked_row_and_trailing_comment_are_checked_like_any_other():
    text = ("HydroCAD® 10.00-16 s/n 09344 © 2015 HydroCAD Software Solutions LLC Page 3 "
            "Summary for Subcatchment 7S: Lot Runoff = 1.00 cfs @ 12.10 hrs, Volume= 0.100 af, "
            "Depth= 1.00\" Runoff by SCS TR-20 method, UH=SCS, Time Span= 0.00-24.00 hrs, "
            "dt= 0.05 hrs Type III 24-hr 10-yr Rainfall=4.50\" Area (sf) CN Description "
            "* 10,000 98 Roofs, HSG C 30,000 70 Woods, Good, HSG C (UNGRADED) "
            "40,000 77 Weighted Average 30,000 75.00% Pervious Area 10,000 25.00% "
            "Impervious Area Tc Length Slope Velocity Capacity Description (min) (feet) "
            "(ft/ft) (ft/sec) (cfs) 5.0 Direct Entry, " + "x " * 80)
    audit = _audit_text(text)
    assert _errors(audit) == [] and audit.checked["cover_cn"] == 2
    assert audit.checked["weighted_cn"] == 1
    bad = _errors(_audit_text(text.replace("* 10,000 98 Roofs", "* 10,000 96 Roofs")))
    assert [(f["item"], f["submitted"]) for f in bad] == [("Roofs, HSG C", 96.0)]


def test_voids_scale_avail_and_peak_storage_not_the_stage_table():
    # "Overall x 40.0% Voids": the stage table is the overall volume, Avail.Storage and the
    # peak storage are the voids' share of it
    text = _POND.format(peak="1,210", q1="1.00", q2="1.00", avail="1,867").replace(
        "Listed below (Recalc)", "Listed below (Recalc) 4,667 cf Overall x 40.0% Voids")
    audit = _audit_text(text)
    assert [f for f in _errors(audit) if f["quantity"] == "storage_ft3"] == []
    assert audit.checked["storage_ft3"] == 4


def test_every_area_listing_of_a_combined_submission_is_audited():
    # existing and proposed HydroCAD reports in one submission: two Area Listings
    page = ("HydroCAD® 9.10 s/n 01109 © 2009 HydroCAD Software Solutions LLC Area Listing "
            "(all nodes) Area (acres) CN Description (subcatchment-numbers) {rows} TOTAL AREA ")
    pre = page.format(rows="2.000 55 Woods, Good, HSG B (1S) 2.000 55")
    post = page.format(rows="1.000 61 >75% Grass cover, Good, HSG B (1S) 1.000 98 Paved "
                            "parking, HSG B (1S) 2.000 80")
    audit = _audit_text(pre + post)
    assert _errors(audit) == []
    assert audit.checked["cover_cn"] == 3 and audit.checked["weighted_cn"] == 2
    bad = post.replace("1.000 98 Paved", "1.000 96 Paved").replace("2.000 80", "2.000 79")
    errs = _errors(_audit_text(pre + bad))
    assert [(f["node"], f["item"], f["printed"]) for f in errs] == \
        [("Area Listing", "Paved parking, HSG B", "96")]


def test_peak_storage_printed_in_the_listing_and_the_summary_is_checked_in_both():
    a_peak = 1000 + 3000 * 0.75
    peak = 1.5 / 3 * (1000 + a_peak + math.sqrt(1000 * a_peak))
    listing = ("Pond 2P: Basin Peak Elev=101.50' Storage={s} cf Inflow=5.00 cfs 0.500 af "
               "Outflow=2.00 cfs 0.500 af ")
    text = listing.format(s=f"{peak:,.0f}") + _POND.format(
        peak=f"{peak:,.0f}", q1="1.00", q2="1.00", avail="4,667")
    audit = _audit_text(text)
    assert audit.checked["storage_ft3"] == 4  # the same peak printed twice counts once
    bad = listing.format(s=f"{peak:,.0f}") + _POND.format(
        peak="4,000", q1="1.00", q2="1.00", avail="4,667")
    errs = [f for f in _errors(_audit_text(bad)) if f["quantity"] == "storage_ft3"]
    assert [(f["item"], f["submitted"]) for f in errs] == [("101.50'", 4000.0)]
