"""Report tables in words: cover keys, Tc flow and surfaces, site-file paths, sheet names."""

from __future__ import annotations

import pathlib

import pytest

from hydrocalc.report import sections as S
from hydrocalc.report.execute import sheet_name
from hydrocalc.report.wording import cover_label, field_label, flow_label, surface_label
from hydrocalc.runoff import curve_number_table

ROOT = pathlib.Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "pelham" / "site.toml"


@pytest.mark.parametrize("key, words", [
    ("open_space_good", "Open space, good condition (TR-55 Table 2-2a)"),
    ("woods_good", "Woods, good condition (TR-55 Table 2-2c)"),
    ("woods_grass_fair", "Woods-grass combination, fair condition (TR-55 Table 2-2c)"),
    ("meadow", "Meadow (TR-55 Table 2-2c)"),
    ("small_grain_contoured_residue_good",
     "Small grain, C + CR, good condition (TR-55 Table 2-2b)"),
    ("sagebrush_fair", "Sagebrush with grass understory, fair condition (TR-55 Table 2-2d)"),
])
def test_cover_keys_read_as_tr55_words(key, words):
    assert cover_label(key) == words


def test_every_cover_key_has_words_and_its_table():
    for key, location in curve_number_table()[["key", "location"]].itertuples(index=False):
        label = cover_label(key)
        assert "_" not in label, label
        assert label.endswith(f"(TR-55 {location})")


def test_field_paths_read_as_phrases_with_units():
    assert field_label("post.subcatchment[S-2].tc_segment[1].slope_ftft") == \
        "Post-development subcatchment S-2, Tc segment 2: Slope [ft/ft]"
    assert field_label("pre.subcatchment[E-1].cover[0].area_ft2") == \
        "Pre-development subcatchment E-1, cover row 1: Area [ft²]"
    assert flow_label("shallow") == "Shallow concentrated flow"
    assert surface_label("grass_dense") == "Grass: dense grasses (TR-55 Table 3-1)"


def test_report_tables_show_words_not_keys():
    post = S.build_section("hydrology_post", EXAMPLE, figures=False)
    html = "".join(t.to_html() for t in post.tables.values())
    assert "Open space, good condition (TR-55 Table 2-2a)" in html
    assert "Sheet flow" in html and "Grass: dense grasses (TR-55 Table 3-1)" in html
    assert "Post-development subcatchment S-2, Tc segment 2: Slope [ft/ft]" in html
    # the machine forms keep the keys
    segs = post.table("tc_segments").to_dict()
    assert "sheet" in {r[segs["columns"].index("type")] for r in segs["rows"]}
    inputs = post.table("inputs").frame
    assert "post.subcatchment[S-2].tc_segment[1].slope_ftft" in set(inputs["site_file_key"])


def test_sheet_names_are_shortened_alike():
    used: set[str] = set()
    names = [sheet_name(sec, t, used) for sec, t in [
        ("hydrology_pre", "subcatchment_methods"), ("hydrology_post", "subcatchment_methods"),
        ("hydrology_pre", "subcatchment_runoff"), ("inspections", "inspections_by_month")]]
    assert names[:3] == ["pre.subcatchment_methods", "post.subcatchment_methods",
                         "pre.subcatchment_runoff"]
    assert all(len(n) <= 31 for n in names)
    assert names[3] == "inspections.inspection_by_month"  # a letter off the longest word
    again = sheet_name("hydrology_pre", "subcatchment_methods", used)
    assert again == "pre.subcatchment_methods~2"
