"""A sweep checks a varied value against the range the site file declares for the same key,
and varies every outlet type the site file takes, culverts included."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest

from hydrocalc.batch.sweep import apply_overrides, resolve_field
from hydrocalc.errors import InputError
from hydrocalc.site import load_site

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"

CULVERT = """[[post.pond.outlet]]
id = "CV-1"
type = "culvert"
shape = "circular"
inlet = "concrete_square_headwall"
diameter_in = 18
length_ft = 60
inlet_invert_ft = 3.5
outlet_invert_ft = 3.0
n = 0.012
ke = 0.5
"""

BARREL = """[post.pond.barrel]
diameter_in = 15
invert_ft = 0.0
length_ft = 40
slope_ftft = 0.01
"""

CRITERIA = """[criteria]
cpv_orifice_cd = 0.6
"""


def _site(tmp_path, *, before_weir: str = "", end: str = "", criteria: str = ""):
    text = (FIX / "lot_a.toml").read_text(encoding="utf-8")
    weir = '[[post.pond.outlet]]\nid = "W-1"'
    text = text.replace(weir, before_weir + weir)
    text = text.replace("[pre]\n", f"{criteria}[pre]\n", 1)
    path = tmp_path / "site.toml"
    path.write_text(text + end, encoding="utf-8")
    return load_site(path)


def _vary(site, field, op, value):
    return apply_overrides(site, [(t, op, value) for t in resolve_field(site, field)])


def _culvert(site):
    pond = site.scenarios["post"].nodes["UG-1"]
    return pond.outlets[pond.outlet_ids.index("CV-1")]


def test_an_orifice_coefficient_above_one_is_refused_as_in_the_site_file(tmp_path):
    site = _site(tmp_path)
    with pytest.raises(InputError, match=r"^post\.pond\[UG-1\]\.outlet\[OR-1\]\.cd must be in "
                                         r"\(0, 1\]; got 1\.5$"):
        _vary(site, "post.pond[UG-1].outlet[OR-1].cd", "set", 1.5)
    varied = _vary(site, "post.pond[UG-1].outlet[OR-1].cd", "set", 0.62)
    assert varied.scenarios["post"].nodes["UG-1"].outlet_spec[0]["cd"] == 0.62


def test_a_criteria_orifice_coefficient_above_one_is_refused(tmp_path):
    site = _site(tmp_path, criteria=CRITERIA)
    with pytest.raises(InputError, match=r"^criteria\.cpv_orifice_cd must be in \(0, 1\]; got "
                                         r"1\.2 \(0\.6 x 2\)$"):
        _vary(site, "criteria.cpv_orifice_cd", "scale", 2)


def test_a_barrel_coefficient_above_one_is_refused(tmp_path):
    site = _site(tmp_path, end=BARREL + "cd = 0.6\n")
    with pytest.raises(InputError, match=r"barrel\.cd must be in \(0, 1\]; got 1\.2"):
        _vary(site, "post.pond[UG-1].barrel.cd", "scale", 2)


def test_a_culvert_outlet_is_varied_and_rebuilt(tmp_path):
    site = _site(tmp_path, before_weir=CULVERT)
    varied = _vary(site, "post.pond[UG-1].outlet[CV-1].diameter_in", "set", 24)
    stage = np.array([6.0])
    before = _culvert(site).discharge_cfs(stage)[0]
    after = _culvert(varied).discharge_cfs(stage)[0]
    assert after > before > 0
    spec = varied.scenarios["post"].nodes["UG-1"].outlet_spec
    assert [s["diameter_in"] for s in spec if s["id"] == "CV-1"] == [24.0]


def test_a_culvert_manning_n_beyond_its_range_is_refused(tmp_path):
    site = _site(tmp_path, before_weir=CULVERT)
    with pytest.raises(InputError, match=r"outlet\[CV-1\]\.n must be in \(0, 0\.2\]; got 0\.3$"):
        _vary(site, "post.pond[UG-1].outlet[CV-1].n", "set", 0.3)


def test_a_key_a_culvert_does_not_take_lists_the_culvert_keys(tmp_path):
    site = _site(tmp_path, before_weir=CULVERT)
    with pytest.raises(InputError, match=r"must end with a key of a culvert outlet \(diameter_in, "
                                         r"span_ft, rise_ft, barrels, length_ft, inlet_invert_ft, "
                                         r"outlet_invert_ft, slope_ftft, n, ke\); got 'crest_ft'"):
        resolve_field(site, "post.pond[UG-1].outlet[CV-1].crest_ft")


def test_a_wildcard_over_outlets_reaches_the_culvert_too(tmp_path):
    site = _site(tmp_path, before_weir=CULVERT)
    targets = resolve_field(site, "post.pond[UG-1].outlet[*].diameter_in")
    assert [t.item_label for t in targets] == ["OR-1", "CV-1"]


def test_a_device_level_stays_at_or_above_the_pond_bottom(tmp_path):
    site = _site(tmp_path)
    with pytest.raises(InputError, match=r"outlet\[OR-1\]\.invert_ft must be in \[0, inf\); "
                                         r"got -0\.5"):
        _vary(site, "post.pond[UG-1].outlet[OR-1].invert_ft", "add", -0.5)
