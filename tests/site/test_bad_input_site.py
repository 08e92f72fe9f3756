"""Site files: plausibility, engineers' slips, CSV/TOML faults, control characters, paths."""

from __future__ import annotations

import os
import pathlib
import shutil

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.errors import InputError
from hydrocalc.site import check_site, load_site

ROOT = pathlib.Path(__file__).parents[2]
PELHAM = ROOT / "examples" / "pelham"
SHELTER = ROOT / "examples" / "shelter_island"
EXAMPLE = (PELHAM / "site.toml").read_text(encoding="utf-8").replace(
    "../../design_storms/pelham.toml", (ROOT / "design_storms" / "pelham.toml").as_posix())


def write(tmp_path, text, name="site.toml") -> pathlib.Path:
    d = tmp_path / "site"
    (d / "rain").mkdir(parents=True, exist_ok=True)
    shutil.copy(PELHAM / "rain" / "synthetic_daily_2027.csv", d / "rain")
    p = d / name
    p.write_text(text, encoding="utf-8")
    return p


def problems(tmp_path, text):
    return check_site(write(tmp_path, text))


def warnings_of(tmp_path, text):
    return [n for n in load_site(write(tmp_path, text)).notes if not n.startswith("pelham.toml")]


def test_example_sites_are_clean():
    for p in (PELHAM / "site.toml", SHELTER / "site.toml"):
        site = load_site(p)
        assert all(n.split(":", 1)[0].endswith(".toml") for n in site.notes), site.notes


# -- impossible: refused ---------------------------------------------------------------------

@pytest.mark.parametrize("old, new, pattern", [
    ("area_ft2 = 15400", "area_ac = 1e15",
     r"pre\.subcatchment\[E-1\]\.area_ac must be <= 1,000,000 ac .*got 1e\+15"),
    ("[[post.pond]]", "[[post.pond]]\ncount = 1000000000000",
     r"post\.pond\[P-1\]\.count must be <= 10,000 identical units; got 1,000,000,000,000"),
    ("wqv_precip_in = 1.5", "wqv_precip_in = 11.5",
     r"storms\.wqv_precip_in must be <= the 100yr storm \(7\.5 in\)"),
])
def test_impossible_values_are_refused(tmp_path, old, new, pattern):
    assert old in EXAMPLE
    got = problems(tmp_path, EXAMPLE.replace(old, new, 1))
    assert len(got) == 1 and pytest.importorskip("re").search(pattern, got[0]), got


def test_exfiltration_rate_limits(tmp_path):
    import re

    m = re.search(r"rate_in_hr = ([0-9.]+)", EXAMPLE)
    assert m, "the example has an exfiltration device"
    got = problems(tmp_path, EXAMPLE.replace(m.group(0), "rate_in_hr = 1e6"))
    assert len(got) == 1 and "rate_in_hr must be <= 1000 in/h" in got[0], got
    w = warnings_of(tmp_path, EXAMPLE.replace(m.group(0), "rate_in_hr = 60"))
    assert any(x.startswith("exfiltration_rate:") and "above 20 in/h" in x for x in w), w


def test_design_storms_falling_with_return_period_are_refused(tmp_path):
    text = EXAMPLE.replace('use = ["1yr", "2yr", "10yr", "25yr", "100yr"]',
                           'use = ["1yr", "2yr", "10yr", "25yr", "100yr"]\n'
                           'depths_in = { "100yr" = 4.0 }')
    got = problems(tmp_path, text)
    assert any("storms.depths_in.100yr must be >= storms.depths_in.25yr" in g for g in got), got


# -- implausible: warned, with the key that accepts it -------------------------------------------

def test_declared_new_impervious_disagreeing_with_the_network_is_warned(tmp_path):
    text = EXAMPLE.replace("new_impervious_area_ft2 = 3300", "new_impervious_area_ft2 = 900")
    w = warnings_of(tmp_path, text)
    assert any(x.startswith("declared_vs_network:") and "900 ft2" in x and "3,300 ft2" in x
               for x in w), w
    accepted = text.replace("[analysis]", '[checks]\naccept = ["declared_vs_network"]\n\n'
                                          "[analysis]")
    assert not any(x.startswith("declared_vs_network") for x in warnings_of(tmp_path, accepted))
    res = CliRunner().invoke(main, ["assess", str(write(tmp_path, text))])
    assert res.exit_code == 0
    assert "warning: declared_vs_network" in res.stderr


def test_pre_post_total_area_mismatch_is_warned_with_a_tolerance(tmp_path):
    text = EXAMPLE.replace("area_ft2 = 15400", "area_ft2 = 19400", 1)
    w = warnings_of(tmp_path, text)
    assert any(x.startswith("pre_post_area:") and "checks.area_tolerance_pct = 1 %" in x
               for x in w), w
    loose = text.replace("[analysis]", "[checks]\narea_tolerance_pct = 50\n\n[analysis]")
    assert not any(x.startswith("pre_post_area") for x in warnings_of(tmp_path, loose))
    res = CliRunner().invoke(main, ["check", str(write(tmp_path, text))])
    assert res.exit_code == 0 and "warning: pre_post_area:" in res.output


def test_impervious_cover_row_is_warned_directly(tmp_path):
    text = EXAMPLE.replace('impervious_connected_ft2 = 6000\nimpervious_hsg = "C"',
                           '', 1)
    assert text != EXAMPLE
    i = text.index("[[post.subcatchment.cover]]")
    text = (text[:i] + '[[post.subcatchment.cover]]\ncover = "impervious_paved_parking_roofs"\n'
            'hsg = "C"\narea_ft2 = 6000\n' + text[i:])
    w = warnings_of(tmp_path, text)
    assert any(x.startswith("impervious_cover_row:") and "post.subcatchment[S-1]" in x
               and "impervious_connected_ac" in x for x in w), w


def test_short_tc_is_warned_naming_the_subcatchment(tmp_path):
    text = EXAMPLE.replace("tc_hr = 0.1                                       # piped",
                           "tc_hr = 0.046  # piped", 1)
    assert text != EXAMPLE
    w = warnings_of(tmp_path, text)
    assert any(n.startswith("tc_below_minimum:") and "post.subcatchment[S-1] Tc is 0.046 h" in n
               for n in w), w


def test_new_impervious_larger_than_disturbed_is_warned(tmp_path):
    text = EXAMPLE.replace("disturbed_area_ft2 = 11500", "disturbed_area_ft2 = 3000")
    w = warnings_of(tmp_path, text)
    assert any(x.startswith("impervious_exceeds_disturbed:") for x in w), w


# -- every problem in one pass, no false errors ---------------------------------------------------

def test_missing_wqv_precip_source_gives_one_error_not_four(tmp_path):
    text = "\n".join(ln for ln in EXAMPLE.splitlines() if not ln.startswith("wqv_precip_source"))
    got = problems(tmp_path, text)
    assert len(got) == 1 and "storms.wqv_precip_source is required" in got[0], got


def test_structural_and_semantic_errors_together(tmp_path):
    text = EXAMPLE.replace("wqv_precip_source", "wqv_precip_sourcex").replace(
        'surface = "grass_dense"', 'surface = "dense_grass"').replace(
        "length_ft = 100\nslope_ftft = 0.025", "length_ft = 150\nslope_ftft = 0.025")
    got = problems(tmp_path, text)
    joined = "\n".join(got)
    assert "unknown key storms.wqv_precip_sourcex" in joined
    assert "dense_grass" in joined
    assert "2yr" not in joined, got


def test_toml_cover_row_trap_says_how_to_fix(tmp_path):
    i = EXAMPLE.index('[[pre.subcatchment.tc_segment]]')
    text = EXAMPLE[:i] + "tc_hr = 0.3\n" + EXAMPLE[i:]
    text = text.replace("[[pre.subcatchment.tc_segment]]", "[[pre.subcatchment.tc_segmentx]]")
    got = problems(tmp_path, text)
    assert any("move tc_hr above the first [[...cover]] header" in g for g in got), got
    assert not any("tc_hr (or [[...tc_segment]] rows) is required" in g for g in got), got


# -- malformed files: one line, no crash -------------------------------------------------------

def _csv_site(tmp_path, csv_text):
    d = tmp_path / "si"
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(SHELTER, d)
    text = (d / "site.toml").read_text(encoding="utf-8").replace(
        "../../design_storms/shelter_island.toml",
        (ROOT / "design_storms" / "shelter_island.toml").as_posix())
    (d / "site.toml").write_text(text, encoding="utf-8")
    (d / "post_subcatchments.csv").write_text(csv_text, encoding="utf-8")
    return d / "site.toml"


def test_csv_extra_cells_and_unbalanced_quote(tmp_path):
    original = (SHELTER / "post_subcatchments.csv").read_text(encoding="utf-8")
    lines = original.splitlines()
    data = next(i for i, ln in enumerate(lines) if ln and not ln.startswith("#") and i > 0
                and not ln.startswith("id"))
    extra = list(lines)
    extra[data] = extra[data] + ",999"
    got = check_site(_csv_site(tmp_path, "\n".join(extra) + "\n"))
    assert len(got) == 1 and f"line {data + 1}: row must have at most" in got[0], got
    quote = list(lines)
    quote[data] = quote[data].replace(",", ',"', 1)
    got = check_site(_csv_site(tmp_path, "\n".join(quote) + "\n"))
    assert len(got) == 1 and "a quote is not closed" in got[0], got
    res = CliRunner().invoke(main, ["check", str(_csv_site(tmp_path, "\n".join(quote) + "\n"))])
    assert res.exit_code == 1 and "Traceback" not in res.output


def test_deeply_nested_toml_is_one_line(tmp_path):
    p = write(tmp_path, EXAMPLE + "\nx = " + "[" * 5000 + "]" * 5000 + "\n")
    got = check_site(p)
    assert len(got) == 1 and "nested too deeply" in got[0]
    res = CliRunner().invoke(main, ["check", str(p)])
    assert res.exit_code == 1 and len(res.stderr.strip().splitlines()) == 1


def test_escape_character_in_a_text_field_is_refused_up_front(tmp_path):
    text = EXAMPLE.replace('owner = "Example Owner LLC"', 'owner = "Example \\u001b[31m Owner"')
    got = problems(tmp_path, text)
    assert len(got) == 1 and r"project.owner must not contain control characters; got \x1b" \
        in got[0], got
    text = EXAMPLE.replace('id = "E-1"\ndescription = "', 'id = "E-1"\ndescription = "\\u0007')
    got = problems(tmp_path, text)
    assert any(r"description must not contain control characters; got \x07" in g for g in got)


# -- paths in a site file stay inside its folder --------------------------------------------------

@pytest.fixture
def secret(tmp_path):
    s = tmp_path / "secret.csv"
    s.write_text("TOP-SECRET-LINE,with,content\n2027-04-01,1,2\n", encoding="utf-8")
    return s


def _rain(text, value):
    return text.replace('"rain/synthetic_daily_2027.csv"', f'"{value}"')


@pytest.mark.parametrize("kind", ["dotdot", "absolute", "proc"])
def test_paths_outside_the_folder_are_refused_without_echo(tmp_path, secret, kind):
    value = {"dotdot": "../secret.csv", "absolute": secret.as_posix(),
             "proc": "/proc/self/environ"}[kind]
    got = problems(tmp_path, _rain(EXAMPLE, value))
    assert len(got) == 1, got
    assert "construction.rainfall_file must name a file inside the site file's folder" in got[0]
    assert "TOP-SECRET" not in got[0]
    res = CliRunner().invoke(main, ["check", str(write(tmp_path, _rain(EXAMPLE, value)))])
    assert res.exit_code == 1 and "TOP-SECRET" not in res.output


def test_csv_table_and_depth_file_outside_are_refused(tmp_path, secret):
    p = _csv_site(tmp_path, (SHELTER / "post_subcatchments.csv").read_text(encoding="utf-8"))
    text = p.read_text(encoding="utf-8").replace('"post_subcatchments.csv"', '"../secret.csv"')
    p.write_text(text, encoding="utf-8")
    got = check_site(p)
    assert len(got) == 1 and "subcatchments_csv must name a file inside" in got[0], got
    text = EXAMPLE.replace((ROOT / "design_storms" / "pelham.toml").as_posix(), "../secret.csv")
    got = problems(tmp_path, text)
    assert len(got) == 1 and "storms.file must name a file inside the site file's folder or a " \
        "design_storms/ folder" in got[0], got
    assert all("TOP-SECRET" not in g for g in got)


@pytest.mark.skipif(os.name == "nt", reason="symlinks")
def test_symlink_leaving_the_folder_is_refused(tmp_path, secret):
    p = write(tmp_path, _rain(EXAMPLE, "rain/link.csv"))
    (p.parent / "rain" / "link.csv").symlink_to(secret)
    got = check_site(p)
    assert len(got) == 1 and "through a symbolic link that points outside it" in got[0], got


def test_allow_outside_paths_is_explicit(tmp_path):
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    shutil.copy(PELHAM / "rain" / "synthetic_daily_2027.csv", outside / "rain.csv")
    p = write(tmp_path, _rain(EXAMPLE, (outside / "rain.csv").as_posix()))
    assert len(check_site(p)) == 1
    assert check_site(p, allow_outside_paths=True) == []
    assert load_site(p, allow_outside_paths=True).construction.rainfall_file.name == "rain.csv"
    res = CliRunner().invoke(main, ["check", str(p)])
    assert res.exit_code == 1
    env = dict(os.environ)
    try:
        res = CliRunner().invoke(main, ["--allow-outside-paths", "check", str(p)])
    finally:
        os.environ.clear()
        os.environ.update(env)
    assert res.exit_code == 0, res.output


def test_depth_files_in_a_design_storms_folder_are_allowed(tmp_path):
    d = tmp_path / "proj"
    (d / "design_storms").mkdir(parents=True)
    shutil.copy(ROOT / "design_storms" / "pelham.toml", d / "design_storms")
    site_dir = d / "sites" / "lot7"
    (site_dir / "rain").mkdir(parents=True)
    shutil.copy(PELHAM / "rain" / "synthetic_daily_2027.csv", site_dir / "rain")
    text = EXAMPLE.replace((ROOT / "design_storms" / "pelham.toml").as_posix(),
                           "../../design_storms/pelham.toml")
    (site_dir / "site.toml").write_text(text, encoding="utf-8")
    assert check_site(site_dir / "site.toml") == []


def test_date_dependent_exemption_is_recorded_unchecked():
    import datetime as dt

    from hydrocalc.criteria import regulations
    from hydrocalc.site.project import ProjectFacts

    facts = ProjectFacts(name="x", municipality="pelham", receiving_water="r",
                         drains_to_impaired_water=False, project_type="commercial",
                         disturbed_area_ft2=5000, new_impervious_area_ft2=2000,
                         exemptions_claimed=("approved_building_permit",),
                         exemption_approved_on={"approved_building_permit": dt.date(2007, 5, 1)})
    ex = regulations.assess("pelham", facts).exemptions[0]
    assert ex["date_checked"] is False
    assert "Approval date stated: 2007-05-01" in ex["reason"] and "UNCHECKED" in ex["reason"]
    facts2 = ProjectFacts(name="x", municipality="pelham", receiving_water="r",
                          drains_to_impaired_water=False, project_type="commercial",
                          disturbed_area_ft2=5000, new_impervious_area_ft2=2000,
                          exemptions_claimed=("C",))
    ex = regulations.assess("pelham", facts2).exemptions[0]
    assert "No approval date given" in ex["reason"]
    with pytest.raises(InputError, match=r"exemption_approved_on\.D must name a claimed"):
        ProjectFacts(name="x", municipality="pelham", receiving_water="r",
                     drains_to_impaired_water=False, project_type="commercial",
                     disturbed_area_ft2=5000, new_impervious_area_ft2=2000,
                     exemption_approved_on={"D": dt.date(2007, 5, 1)})
