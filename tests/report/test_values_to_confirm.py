"""The verdict never hides values still to confirm: cover, results.json, `run`, `--strict`.

The Pelham example's storm depths are illustrative and its RRv factors unverified, so it
meets every criterion with values to confirm.
"""

from __future__ import annotations

import json
import pathlib
import re

from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.report import sections as S
from hydrocalc.report.assemble import assemble_html
from hydrocalc.report.summary import status_text, summary_tables, verdict_class

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"


def test_verdict_counts_the_values_to_confirm():
    ctx = S.context(EXAMPLE)
    summary = ctx.summary
    frame = S.values_to_confirm(ctx)
    n = int((frame["status"] == "to confirm").sum())
    assert n >= 4
    assert summary["verdict_text"] == f"MEETS ALL CRITERIA, {n} VALUES TO CONFIRM"
    assert summary["verdict"] == "meets" and summary["status"] == "meets"
    assert summary["confirm"] is True
    assert [v["item"] for v in summary["values_to_confirm"]] == list(
        frame.loc[frame["status"] == "to confirm", "item"])


def test_rows_resting_on_unconfirmed_values_say_so():
    summary = S.context(EXAMPLE).summary
    rrv = next(r for r in summary["criteria"] if r["item"] == "RRv")
    assert {"rrv_factors", "wqv_precip_in"} <= set(rrv["unconfirmed"])
    assert rrv["status"] == "meets"
    assert "rests on values to confirm" in rrv["reason"]
    assert status_text(rrv).startswith("meets, resting on values to confirm (")
    peak = summary["peaks"][0]
    assert peak["unconfirmed"] == ["storm_depths"]
    crit_table = next(t for t in summary_tables(summary) if t.name == "summary_criteria")
    rrv_status = crit_table.frame.set_index("criterion").loc["RRv", "status"]
    assert "rrv_factors" in rrv_status
    assert any(t.name == "summary_to_confirm" for t in summary_tables(summary))


def test_cover_box_has_its_own_colour():
    summary = S.context(EXAMPLE).summary
    meta = S.cover_meta({"summary": summary})
    assert meta["verdict_confirm"] is True
    html = assemble_html([], meta)
    box = re.search(r'<p class="verdict (\w+)" id="verdict">([^<]*)</p>', html)
    assert box.group(1) == "confirm"
    assert box.group(2) == summary["verdict_text"]
    assert verdict_class("meets") == "meets" != verdict_class("meets", True)
    assert verdict_class("does_not_meet", True) == "fails"


def test_run_and_strict_exit_while_values_remain(tmp_path):
    out = tmp_path / "out.json"
    res = CliRunner().invoke(main, ["run", str(EXAMPLE), "--json", str(out)])
    assert res.exit_code == 0, res.output
    n = len(S.context(EXAMPLE).summary["values_to_confirm"])
    assert f"COMPLIANCE: MEETS ALL CRITERIA, {n} VALUES TO CONFIRM" in res.output
    assert "value to confirm: storm_depths" in res.output
    strict = CliRunner().invoke(main, ["run", str(EXAMPLE), "--strict"])
    assert strict.exit_code == 3
    assert "--allow-unconfirmed" in strict.output
    allowed = CliRunner().invoke(main, ["run", str(EXAMPLE), "--strict", "--allow-unconfirmed"])
    assert allowed.exit_code == 0, allowed.output


def test_results_json_summary_carries_the_count():
    doc = {"summary": S.summary_dict(EXAMPLE)}
    text = json.dumps(doc)
    assert "VALUES TO CONFIRM" in json.loads(text)["summary"]["verdict_text"]


def test_criteria_section_rows_say_they_rest_on_values_to_confirm():
    crit = S.build_section("criteria", EXAMPLE, figures=False)
    status = crit.table("criteria_results").frame.set_index("criterion")["status"]
    assert status["rrv"].startswith("meets, resting on values to confirm (")
    assert "rrv_factors" in status["rrv"]
