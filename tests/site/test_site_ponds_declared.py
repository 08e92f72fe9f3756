"""Ponds and reaches checked by the declared site model: the messages of its records.

The keys of ``[[<scenario>.pond]]`` and ``[[<scenario>.reach]]`` are validated by
:class:`hydrocalc.site.schema.Pond` and :class:`~hydrocalc.site.schema.Reach` as the file gives
them (a pond in elevations too); the loaders keep only the rules between keys.
"""

from __future__ import annotations

import tomllib

import pytest
from test_site_hydraulics import STAGE_POND, _elevation_pond, _site
from test_site_reaches import PIPE, _problems

from hydrocalc.schema_errors import field_errors, under
from hydrocalc.site import check_site
from hydrocalc.site.schema import SiteFile

CULVERT = """
[[post.pond.outlet]]
id = "culv"
type = "culvert"
shape = "circular"
inlet = "concrete_square_headwall"
diameter_in = 18
length_ft = 60
inlet_invert_ft = 0
outlet_invert_ft = -0.5
n = 0.012
ke = 0.5
"""


def _check(tmp_path, old: str, new: str, pond: str = STAGE_POND) -> list[str]:
    changed = pond.replace(old, new, 1)
    assert changed != pond
    return check_site(_site(tmp_path, changed))


@pytest.mark.parametrize("old, new, line", [
    ('type = "basin"', 'type = "basn"',
     "post.pond[P-1].storage.type must be one of stage_area, stage_storage, basin, drywell; "
     "got 'basn'; did you mean 'basin'? (line 51)"),
    ('type = "basin"\n', "",
     "post.pond[P-1].storage.type is required; got nothing. Use one of: stage_area, "
     "stage_storage, basin, drywell (line 50)"),
    ('type = "rectangular_weir"\n', "",
     "post.pond[P-1].outlet[weir].type is required; got nothing. Use one of: "
     "circular_orifice, rectangular_orifice, rectangular_weir, vnotch_weir, "
     "broad_crested_weir, riser, exfiltration, culvert (line 61)"),
    ("depth_ft = 4", "depth_ft = 4\nporosty_frac = 0.3",
     "unknown key post.pond[P-1].storage.porosty_frac; did you mean 'porosity_frac'? (line 55)"),
    ('id = "weir"', 'id = "orifice"',
     "post.pond[P-1].outlet[orifice].id must be unique within the pond; got 'orifice' twice "
     "(line 62)"),
    ("invert_ft = 0", "invert_ft = -1",
     "post.pond[P-1].outlet[orifice].invert_ft must be >= 0; got -1 (line 60)"),
])
def test_a_pond_key_is_one_line_as_before(tmp_path, old, new, line):
    assert f"site.toml: {line}" in _check(tmp_path, old, new)


def test_a_list_of_numbers_names_its_first_bad_value(tmp_path):
    storage = ('type = "stage_storage"\nstage_ft = [0, 1, 2]\nstorage_ft3 = [0, -5, 900]\n'
               "[[post.pond.outlet]]")
    pond = STAGE_POND[:STAGE_POND.index("[post.pond.storage]")] + "[post.pond.storage]\n" + \
        storage + STAGE_POND.split("[[post.pond.outlet]]", 1)[1]
    probs = check_site(_site(tmp_path, pond))
    assert any("post.pond[P-1].storage.storage_ft3 must be >= 0; got -5 at index 1" in p
               for p in probs), probs


def test_a_pond_in_elevations_is_validated_as_written(tmp_path):
    pond = _elevation_pond().replace(
        'type = "basin"\nbottom_length_ft = 60\nbottom_width_ft = 30\ndepth_ft = 4\n'
        "side_slope_h_per_v = 3", 'type = "stage_area"\nelevation_ft = [120, "121"]\n'
                                  "area_ft2 = [1800, 2400]")
    probs = check_site(_site(tmp_path, pond))
    assert probs == ["site.toml: post.pond[P-1].storage.elevation_ft must be a list of at least "
                     "2 numbers; got [120, '121'] (line 53)"], probs
    doc = tomllib.loads(_site(tmp_path, pond).read_text())
    records = under(field_errors(SiteFile, doc), ("post", "pond", 0))
    assert [(r.path, r.value) for r in records] == [
        (("post", "pond", 0, "storage", "elevation_ft"), [120, "121"])]


def test_a_culvert_inlet_is_one_of_its_shape(tmp_path):
    pond = STAGE_POND + CULVERT.replace("concrete_square_headwall", "box_headwall_chamfer")
    probs = check_site(_site(tmp_path, pond))
    assert len(probs) == 1 and probs[0].startswith(
        "site.toml: post.pond[P-1].outlet[culv].inlet must be one of concrete_square_headwall,")
    assert "box_" not in probs[0].split("; got")[0]


def test_an_empty_storage_array_is_refused(tmp_path):
    pond = STAGE_POND.replace("[post.pond.storage]", "storage = []\n[post.pond.unused]", 1)
    pond = pond[:pond.index("[post.pond.unused]")] + pond[pond.index("[[post.pond.outlet]]"):]
    probs = check_site(_site(tmp_path, pond))
    assert any("post.pond[P-1].storage must be a table or an array of tables" in p
               and "got []" in p for p in probs), probs


def test_a_tailwater_value_is_checked_with_the_other_problems(tmp_path):
    pond = STAGE_POND.replace('to = "DP-1"', 'to = "DP-1"\ntailwater_ft = "high"\ncount = 0')
    probs = check_site(_site(tmp_path, pond))
    assert "site.toml: post.pond[P-1].tailwater_ft must be a number; got 'high' (line 50)" \
        in probs
    assert "site.toml: post.pond[P-1].count must be >= 1; got 0 (line 51)" in probs


@pytest.mark.parametrize("reach, line", [
    ('section = "user"\nstation_ft = [0, 5]\nelevation_ft = [2, 0]\nlength_ft = 100\n'
     "slope_ftft = 0.01\nn = 0.03",
     "post.reach[R-1].station_ft must be a list of at least 3 numbers; got [0, 5] (line 42)"),
    (PIPE.replace('"circular"', '"circle"'),
     "post.reach[R-1].section must be one of circular, rectangular, trapezoidal, user; got "
     "'circle'; did you mean 'circular'? (line 41)"),
    (PIPE.replace("n = 0.013", "n = 0.013\nmanning = 0.013"),
     "unknown key post.reach[R-1].manning. Valid keys: id, to, description, lag_hr, section, "
     "diameter_in, bottom_width_ft, side_slope_h_per_v, depth_ft, station_ft, elevation_ft, "
     "csv, length_ft, slope_ftft, upstream_invert_ft, downstream_invert_ft, n (line 46)"),
])
def test_a_reach_key_is_one_line(tmp_path, reach, line):
    assert f"site.toml: {line}" in _problems(tmp_path, reach)
