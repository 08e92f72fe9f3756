"""Malformed files and silent acceptances: each is one line naming the file and field.

- ``hydrocalc verify`` on a results.json whose table ``columns`` is not a list;
- a depth-duration-frequency file of an unknown format;
- a subcatchment CSV whose description holds U+2028 (valid inside a CSV cell);
- a site whose new impervious area exceeds its disturbed area (warned);
- an invalid depth for a storm the analysis does not use (refused like a used one).
"""

from __future__ import annotations

import json
import pathlib
import shutil

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.design_storms import load_depth_file
from hydrocalc.errors import InputError
from hydrocalc.site import check_site, load_site
from hydrocalc.site.problems import key_lines

ROOT = pathlib.Path(__file__).resolve().parents[2]
PELHAM = ROOT / "examples" / "pelham"
SHELTER = ROOT / "examples" / "shelter_island"


def _one_error_line(result) -> str:
    lines = [ln for ln in result.output.splitlines() if ln.startswith("error")]
    assert len(lines) == 1, result.output
    assert "Traceback" not in result.output and "hydrocalc bug" not in result.output
    return lines[0]


# -- verify ------------------------------------------------------------------------------

@pytest.mark.parametrize("table, field", [
    ({"columns": 5, "rows": []}, "columns"),
    ({"columns": ["a"], "rows": [[1]], "key_columns": "a"}, "key_columns"),
    ({"columns": ["a"], "rows": [5]}, "rows[0]"),
])
def test_verify_names_a_malformed_table_field(tmp_path, table, field):
    doc = {"sections": {"runoff": {"tables": {"peaks": table}}}}
    (tmp_path / "results.json").write_text(json.dumps(doc), encoding="utf-8")
    res = CliRunner().invoke(main, ["verify", str(tmp_path)])
    assert res.exit_code == 1
    line = _one_error_line(res)
    assert f"results.json sections.runoff.tables.peaks.{field} must be" in line


# -- depth-duration-frequency files --------------------------------------------------------

def test_a_ddf_file_of_an_unknown_format_is_refused(tmp_path):
    text = (ROOT / "design_storms" / "pelham.toml").read_text(encoding="utf-8")
    bad = tmp_path / "ddf.toml"
    bad.write_text(text.replace('format = "hydrocalc-ddf-1"', 'format = "hydrocalc-ddf-9"'),
                   encoding="utf-8")
    with pytest.raises(InputError, match=r"ddf.toml: format must be 'hydrocalc-ddf-1' .*"
                                         r"got 'hydrocalc-ddf-9'"):
        load_depth_file(bad, warn=False)
    good = tmp_path / "good.toml"
    good.write_text(text, encoding="utf-8")
    assert load_depth_file(good, warn=False).depth_in.shape[0] > 0


def test_check_refuses_a_site_whose_ddf_file_has_an_unknown_format(tmp_path):
    site = _pelham_copy(tmp_path)
    ddf = site.parent / "design_storms" / "pelham.toml"
    ddf.write_text(ddf.read_text(encoding="utf-8").replace('"hydrocalc-ddf-1"', '"csv"'),
                   encoding="utf-8")
    res = CliRunner().invoke(main, ["check", str(site)])
    assert res.exit_code == 1
    assert "storms.file could not be read" in _one_error_line(res)
    assert "format must be 'hydrocalc-ddf-1'" in res.output


# -- CSV cells holding line-separator characters -----------------------------------------

def _shelter_copy(tmp_path, csv_text: str) -> pathlib.Path:
    d = tmp_path / "si"
    shutil.copytree(SHELTER, d)
    site = d / "site.toml"
    site.write_text(site.read_text(encoding="utf-8").replace(
        "../../design_storms/shelter_island.toml",
        (ROOT / "design_storms" / "shelter_island.toml").as_posix()), encoding="utf-8")
    (d / "post_subcatchments.csv").write_text(csv_text, encoding="utf-8")
    return site


@pytest.mark.parametrize("sep", ["\u2028", "\u2029", "\x1d"])
def test_a_csv_description_holding_a_unicode_line_separator_is_one_cell(tmp_path, sep):
    text = (SHELTER / "post_subcatchments.csv").read_text(encoding="utf-8")
    text = text.replace("Ram's Head Lane extension", f"Ram's Head Lane{sep}extension", 1)
    site_path = _shelter_copy(tmp_path, text)
    if sep == "\x1d":  # a C0 control character: refused, naming the right CSV line
        problems = check_site(site_path)
        assert len(problems) == 1 and "post_subcatchments.csv line 5" in problems[0]
        assert "control characters" in problems[0]
        return
    assert check_site(site_path) == []
    site = load_site(site_path)
    sub = next(s for s in site.post.subcatchments if s.id == "S-1")
    assert f"Ram's Head Lane{sep}extension" in sub.description


def test_an_error_after_a_line_separator_names_the_right_subcatchment(tmp_path):
    text = (SHELTER / "post_subcatchments.csv").read_text(encoding="utf-8")
    lines = text.split("\n")
    i = next(k for k, ln in enumerate(lines) if ln.startswith("S-1,"))
    cells = lines[i].split(",")
    cells[2] = cells[2].replace("Ram's Head Lane extension", "Ram's Head\u2028Lane extension")
    cells[3] = "-0.1"  # tc_hr
    lines[i] = ",".join(cells)
    problems = check_site(_shelter_copy(tmp_path, "\n".join(lines)))
    assert len(problems) == 1, problems
    assert "post.subcatchment[S-1].tc_hr" in problems[0]
    assert f"post_subcatchments.csv line {i + 1}" in problems[0]


def test_toml_line_numbers_count_only_real_line_ends():
    text = 'name = "a\u2028b"\n[[post.subcatchment]]\nid = "S-2"\narea_ac = -3\n'
    assert key_lines(text)["post.subcatchment[S-2].area_ac"] == 4


# -- silent acceptances in a site file --------------------------------------------------

def _pelham_copy(tmp_path) -> pathlib.Path:
    d = tmp_path / "pelham"
    shutil.copytree(PELHAM, d)
    (d / "design_storms").mkdir()
    shutil.copy(ROOT / "design_storms" / "pelham.toml", d / "design_storms")
    site = d / "site.toml"
    site.write_text(site.read_text(encoding="utf-8").replace(
        '"../../design_storms/pelham.toml"', '"design_storms/pelham.toml"'), encoding="utf-8")
    return site


def test_new_impervious_area_larger_than_the_disturbed_area_is_warned(tmp_path):
    site = _pelham_copy(tmp_path)
    site.write_text(site.read_text(encoding="utf-8").replace(
        "new_impervious_area_ft2 = 3300", "new_impervious_area_ft2 = 20000"), encoding="utf-8")
    res = CliRunner().invoke(main, ["check", str(site)])
    assert res.exit_code == 0
    assert "warning: impervious_exceeds_disturbed: project.new_impervious_area (20000 ft2)" \
        in res.output


@pytest.mark.parametrize("depth, message", [
    ("-6.6", "storms.depths_in.50yr must be > 0; got -6.6"),
    ('"x"', "storms.depths_in.50yr must be a number; got 'x'"),
    ("900", "storms.depths_in.50yr must be <= "),
])
def test_an_invalid_depth_of_an_unused_storm_is_refused(tmp_path, depth, message):
    site = _pelham_copy(tmp_path)
    text = site.read_text(encoding="utf-8").replace(
        'file = "design_storms/pelham.toml"',
        "depths_in = { 1yr = 2.7, 2yr = 3.3, 10yr = 4.9, 25yr = 5.8, 100yr = 7.5, "
        f"50yr = {depth} }}")
    site.write_text(text, encoding="utf-8")
    problems = check_site(site)
    assert len(problems) == 1 and message in problems[0], problems
    # the same depth of a used storm is refused with the same message
    site.write_text(text.replace('use = ["1yr", "2yr", "10yr", "25yr", "100yr"]',
                                 'use = ["1yr", "50yr"]'), encoding="utf-8")
    assert any(message in p for p in check_site(site))
