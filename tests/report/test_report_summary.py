"""The compliance summary, the reviewer's detail tables and the routing diagram.

Failing, passing and incomplete variants of the Pelham example are written to a temporary
folder (with the input files they read) and computed in this process: no notebooks.
"""

from __future__ import annotations

import pathlib
import re

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.report import figures as F
from hydrocalc.report import sections as S
from hydrocalc.report.execute import copy_inputs
from hydrocalc.report.summary import STATUS_WORDS, compliance_summary, fmt_value

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"

#: Text that speaks of how hydrocalc was developed rather than of the project (the same
#: list as tests/report/test_report.py applies to every generated report file).
FORBIDDEN_SOURCE = re.compile(
    r"\bissues?\s*#?\d|\bissues show\b|\bbrief\b|\bsessions?\b|shared/|\.\./shared"
    r"|\btag \[?[UVSD]\]?(?![a-z])|number inferred|/work/|ny_criteria\.md", re.IGNORECASE)


def _variant(tmp_path, name: str, edit) -> pathlib.Path:
    """A copy of the Pelham example (with its inputs) whose text ``edit`` changes."""
    base = tmp_path / name
    base.mkdir()
    site = S.validate_site(EXAMPLE, [])
    rel, _ = copy_inputs(site, EXAMPLE, base)
    path = base / rel.removeprefix("inputs/")
    text = path.read_text(encoding="utf-8")
    new = edit(text)
    assert new != text, "the edit must change the site file"
    path.write_text(new, encoding="utf-8")
    return path


def _failing(text: str) -> str:
    # an orifice at the bottom (no water-quality storage, hardly any attenuation) and a
    # sediment trap too small for its drainage area
    text = text.replace('diameter_in = 2.0\ninvert_ft = 1.35',
                        'diameter_in = 12.0\ninvert_ft = 0.0')
    return text.replace("bottom_length_ft = 16.0", "bottom_length_ft = 4.0")


@pytest.fixture(scope="module")
def failing(tmp_path_factory):
    return _variant(tmp_path_factory.mktemp("fail"), "fail", _failing)


def test_failing_design_cover_and_summary(failing):
    ctx = S.context(failing)
    summary = ctx.summary
    assert summary["verdict"] == "does_not_meet"
    assert summary["status"] == "does_not_meet"
    n = len(summary["failures"])
    assert n >= 3
    assert summary["verdict_text"] == (f"DOES NOT MEET: {n} items fail, "
                                       f"{len(summary['values_to_confirm'])} VALUES TO CONFIRM")
    failures = "\n".join(summary["failures"])
    assert "Sediment trap ST-1: FAILS: provided" in failures
    assert re.search(r"WQv: FAILS: provided 0\.0+ ac-ft < required 0\.\d+ ac-ft", failures)
    # every failing row is named, and only failing rows are
    assert sum(r["status"] == "FAILS" for r in summary["rows"]) == n
    assert {r["status"] for r in summary["rows"]} <= set(STATUS_WORDS)
    meta = S.cover_meta({"summary": summary})
    assert meta["verdict"] == "does_not_meet"
    assert meta["verdict_text"] == summary["verdict_text"]
    names = [t.name for t in meta["summary_tables"]]
    assert names[:3] == ["summary_peaks", "summary_criteria", "summary_traps"]
    traps = meta["summary_tables"][2].frame
    assert traps.loc[traps["trap"] == "ST-1", "status"].item() == "FAILS"
    # the cover also computes the summary from the site when results.json has none
    assert S.cover_meta({}, ctx.site)["verdict_text"] == summary["verdict_text"]


def test_failing_design_section_one_and_criteria_narrative(failing):
    project = S.build_section("project", failing, figures=False)
    first = project.narrative_md.splitlines()[0]
    assert first.startswith("**Compliance: DOES NOT MEET: ")
    assert project.values["verdict"] == "does_not_meet"
    blocks = [v for k, v in project.blocks if k in ("h3", "table")]
    assert blocks[0] == "Compliance summary"  # the summary comes first in section 1
    assert "summary_criteria" in project.tables
    crit = S.build_section("criteria", failing, figures=False)
    # a failing number never stands next to the pass rule
    assert "(provided >= required)" not in crit.narrative_md
    assert "(provided <= required)" not in crit.narrative_md
    assert "FAILS: provided" in crit.narrative_md
    status = crit.table("criteria_results").frame
    assert "FAILS" in set(status["status"])


def test_run_prints_the_summary_and_strict_exit(failing):
    res = CliRunner().invoke(main, ["run", str(failing)])
    assert res.exit_code == 0, res.output
    assert "COMPLIANCE: DOES NOT MEET:" in res.output
    assert "Sediment trap ST-1: FAILS" in res.output
    assert "e+0" not in res.output  # no scientific notation in the console tables
    strict = CliRunner().invoke(main, ["run", str(failing), "--strict"])
    assert strict.exit_code == 3


def _confirm_all(text: str) -> str:
    items = S.values_to_confirm(S.context(EXAMPLE))["item"]
    return text + "\n[confirmations]\n" + "".join(
        f'{item} = "checked against the primary source by the preparer"\n' for item in items)


def test_passing_design_meets(tmp_path):
    path = _variant(tmp_path, "confirmed_all", _confirm_all)
    summary = S.context(path).summary
    assert summary["verdict"] == "meets"
    assert summary["verdict_text"] == "MEETS ALL CRITERIA"
    assert summary["confirm"] is False and summary["values_to_confirm"] == []
    assert summary["failures"] == []
    assert [w["item"] for w in summary["waivers"]] == ["Cpv (DP-1)"]
    assert S.cover_meta({"summary": summary})["verdict"] == "meets"
    res = CliRunner().invoke(main, ["run", str(path), "--strict"])
    assert res.exit_code == 0, res.output
    assert "COMPLIANCE: MEETS ALL CRITERIA\n" in res.output


def test_missing_traps_are_not_evaluated_never_meets(tmp_path):
    def drop_trap(text):
        return text[:text.index("[[construction.trap]]")]

    path = _variant(tmp_path, "notrap", drop_trap)
    summary = S.context(path).summary
    assert summary["verdict"] == "does_not_meet"
    assert summary["status"] == "incomplete"
    assert summary["verdict_text"].startswith("INCOMPLETE: 1 items not evaluated, ")
    assert "construction.trap" in summary["not_evaluated"][0]["reason"]
    assert S.cover_meta({"summary": summary})["verdict"] == "incomplete"


def test_confirmations_clear_values_to_confirm(tmp_path):
    frame = S.values_to_confirm(S.context(EXAMPLE))
    items = set(frame["item"])
    assert {"storm_depths", "wqv_precip_in", "rrv_factors"} <= items
    assert set(frame["status"]) == {"to confirm"}

    def confirm(text):
        return text + ('\n[confirmations]\nrrv_factors = "SMDM 2015 Section 4.3, checked by '
                       'the preparer"\n')

    path = _variant(tmp_path, "confirmed", confirm)
    frame = S.values_to_confirm(S.context(path)).set_index("item")
    assert frame.loc["rrv_factors", "status"] == "confirmed by preparer"
    assert frame.loc["rrv_factors", "source_entered"].startswith("SMDM 2015")
    assert frame.loc["storm_depths", "status"] == "to confirm"


def test_routing_diagram_nodes_and_links():
    nodes = [("S-1", "subcatchment"), ("S-2", "subcatchment"), ("P-1", "pond"),
             ("R-1", "reach"), ("DP-1", "design_point")]
    links = [("S-1", "P-1"), ("P-1", "R-1"), ("R-1", "DP-1"), ("S-2", "DP-1")]
    drawn = F.diagram_elements(nodes, links)
    assert [(n, k) for n, k, _, _ in drawn["nodes"]] == nodes
    assert drawn["arrows"] == links
    x = {n: xx for n, _, xx, _ in drawn["nodes"]}
    # upstream left of downstream along every link
    assert all(x[a] < x[b] for a, b in links)
    assert x["DP-1"] == 3.0 and x["S-2"] == 0.0
    fig = F.routing_diagram_figure("d", "Routing diagram", [("Post", nodes, links)])
    assert fig.png.startswith(b"\x89PNG")


def test_routing_diagram_of_a_site_with_a_pond_and_a_reach(tmp_path):
    def add_reach(text):
        text = text.replace('rrv_credit_pct = 100', 'rrv_credit_pct = 100', 1)
        text = text.replace('to = "DP-1"\nrrv_credit_pct', 'to = "R-1"\nrrv_credit_pct', 1)
        return text.replace("[[post.design_point]]",
                            '[[post.reach]]\nid = "R-1"\nto = "DP-1"\nlag_hr = 0.1\n\n'
                            "[[post.design_point]]", 1)

    path = _variant(tmp_path, "reach", add_reach)
    comp = S.build_section("comparison", path, figures=False)
    post = comp.values["routing_diagram"]["post"]
    kinds = {n: k for n, k, _, _ in post["nodes"]}
    assert kinds["P-1"] == "pond" and kinds["R-1"] == "reach"
    assert kinds["DP-1"] == "design_point"
    assert ("P-1", "R-1") in post["arrows"] and ("R-1", "DP-1") in post["arrows"]
    assert "routing_diagram" in comp.figures


def test_area_mismatch_warning(tmp_path):
    def grow(text):  # post gains ~10 % of area: a typo-sized slip
        return text.replace("[[post.subcatchment.cover]]\ncover", "[[post.subcatchment.cover]]"
                            "\ncover", 1).replace(
            "[[post.pond]]", '[[post.subcatchment]]\nid = "S-X"\nto = "DP-1"\narea_ac = 0.05'
                             "\ncn = 80\ntc_hr = 0.2\n\n[[post.pond]]", 1)

    path = _variant(tmp_path, "area", grow)
    comp = S.build_section("comparison", path, figures=False)
    assert any("total areas differ" in w for w in comp.warnings)
    assert comp.values["area_difference_pct"] > comp.values["area_tolerance_pct"]

    def tolerate(text):
        return grow(text).replace("[analysis]",
                                  "[checks]\narea_tolerance_pct = 20\n\n[analysis]", 1)

    path = _variant(tmp_path, "area_ok", tolerate)
    comp = S.build_section("comparison", path, figures=False)
    assert not any("total areas differ" in w for w in comp.warnings)
    assert not any("total areas differ" in w
                   for w in S.build_section("comparison", EXAMPLE, figures=False).warnings)


def test_tc_minimum_warning_names_the_subcatchment(tmp_path):
    def short_tc(text):
        return text.replace(
            "[[post.pond]]", '[[post.subcatchment]]\nid = "S-SHORT"\nto = "DP-1"\n'
                             'area_ac = 0.01\ncn = 98\ntc_hr = 0.05\n\n[[post.pond]]', 1)

    path = _variant(tmp_path, "tc", short_tc)
    post = S.build_section("hydrology_post", path, figures=False)
    warn = [w for w in post.warnings if "S-SHORT" in w and "minimum" in w]
    assert warn and "3.00 min" in warn[0] and "6.00 min" in warn[0]
    tc = post.table("tc_used").frame.set_index("subcatchment")
    assert tc.loc["S-SHORT", "tc_min"] == pytest.approx(3.0)
    assert tc.loc["S-SHORT", "tc_used_min"] == pytest.approx(6.0)
    segs = post.table("tc_segments").frame
    sheet = segs[segs["type"] == "sheet"].iloc[0]
    assert sheet["n_used"] == pytest.approx(0.24)  # grass_dense, TR-55 Table 3-1
    assert sheet["velocity_fps"] == pytest.approx(
        sheet["length_ft"] / (sheet["travel_time_min"] * 60.0))


def test_area_and_soil_listing_totals():
    post = S.build_section("hydrology_post", EXAMPLE, figures=False)
    areas = post.table("area_listing").frame
    soils = post.table("soil_listing").frame
    total = post.values["area_ac"]
    assert areas.iloc[-1]["area_ac"] == pytest.approx(total, rel=1e-9)
    assert soils.iloc[-1]["area_ac"] == pytest.approx(total, rel=1e-9)
    assert areas.iloc[:-1]["area_ac"].sum() == pytest.approx(total, rel=1e-9)


def test_pond_summary_and_device_coefficients():
    ponds = S.build_section("ponds", EXAMPLE, figures=False)
    dev = ponds.table("post_P-1_devices").frame.set_index("device")
    assert dev.loc["low_orifice", "cd"] == pytest.approx(0.6)
    assert dev.loc["overflow_weir", "cw"] == pytest.approx(3.33)
    assert dev.loc["overflow_weir", "end_contractions"] == 0
    assert dev.loc["low_orifice", "invert_ft"] == pytest.approx(1.35)
    summ = ponds.table("post_P-1_summary").frame
    routed = ponds.table("post_P-1_routing").frame
    for s, r in zip(summ.to_dict("records"), routed.to_dict("records"), strict=False):
        assert s["attenuation_pct"] == pytest.approx(
            100.0 * (1 - r["peak_outflow_cfs"] / r["peak_inflow_cfs"]), rel=1e-9)
        assert s["lag_min"] > 0 and s["center_of_mass_detention_min"] > 0
        assert s["inflow_volume_acft"] > s["outflow_volume_acft"] > 0


def test_fmt_value_has_no_scientific_notation():
    for v, u in ((1.5e-6, "cfs"), (1.516e4, "ft3"), (123456.0, ""), (0.0001234, "acre-ft")):
        assert "e" not in fmt_value(v, u).lower()


def test_methods_lists_only_tables_read():
    methods = S.build_section("methods", EXAMPLE, figures=False)
    tables = set(methods.table("data_tables").frame["table"])
    assert "tr55_cn_arid_rangeland" not in tables
    assert {"nrcs_dimensionless_uh", "nrcs_24hr_distributions", "ny_sizing_criteria",
            "regulation_profile_pelham"} <= tables
    assert "regulation_profile_shelter_island" not in tables


def test_compliance_summary_signature():
    ctx = S.context(EXAMPLE)
    plain = compliance_summary(ctx.results)  # no assessment, no traps: still a verdict
    assert plain["verdict"] in ("meets", "does_not_meet")
    assert plain["traps"] == []


def test_no_internal_text_in_sources_docs_and_data():
    hits = []
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*")),
             *sorted((ROOT / "src").rglob("*"))]
    for path in paths:
        if not path.is_file() or path.suffix not in (".py", ".md", ".toml", ".csv", ".ipynb",
                                                     ".html", ".css", ".txt", ".typ"):
            continue
        if path.name == "notebook_rules.py":  # holds the same kind of list, to check lessons
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in FORBIDDEN_SOURCE.finditer(text):
            hits.append(f"{path.relative_to(ROOT)}: {text[max(m.start() - 40, 0):m.end() + 40]!r}")
    assert hits == [], "\n".join(hits[:20])


def test_a_stated_reason_for_no_traps_clears_the_item(tmp_path):
    def drop_trap_with_reason(text):
        return (text[:text.index("[[construction.trap]]")]
                + '[confirmations]\nsediment_traps = "silt fence and inlet protection only"\n')

    path = _variant(tmp_path, "notrap_reason", drop_trap_with_reason)
    summary = S.context(path).summary
    assert summary["verdict"] == "meets", summary["not_evaluated"]
    row = [r for r in summary["traps"] if r["item"] == "Sediment traps"][0]
    assert row["status"] == "not applicable"
    assert "silt fence and inlet protection only" in row["reason"]
    project = S.build_section("project", path, figures=False)
    assert not any("confirmations.sediment_traps" in w for w in project.warnings)
