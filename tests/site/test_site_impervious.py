"""An all-impervious subcatchment (roof and driveway) entered with the impervious keys alone."""

from __future__ import annotations

import pytest
from numpy.testing import assert_allclose
from test_site import BASE, write

from hydrocalc import runoff
from hydrocalc.errors import InputError
from hydrocalc.site import check_site, load_site

ROOF = """\
[[post.subcatchment]]
id = "R-1"
description = "Roof and driveway piped to the street"
to = "DP-1"
impervious_connected_ft2 = 2400
tc_hr = 0.1
"""


def _with(extra: str) -> str:
    return BASE.replace("[[post.pond]]", extra + "\n[[post.pond]]", 1)


def test_impervious_keys_alone_give_cn_98_and_their_area(tmp_path):
    site = load_site(write(tmp_path, _with(ROOF)))
    r1 = site.post.nodes["R-1"]
    # TR-55 Table 2-2a: paved parking lots, roofs, driveways: CN 98 for every HSG
    assert r1.cn == runoff.curve_number("impervious_paved_parking_roofs", "A") == 98.0
    assert_allclose(r1.area_ac, 2400 / 43560, rtol=1e-12)
    assert r1.impervious_pct == pytest.approx(100.0, rel=1e-12)
    assert "Table 2-2a" in r1.cn_method
    assert r1.covers == ()


def test_connected_and_unconnected_impervious_alone_add_up(tmp_path):
    text = _with(ROOF.replace("impervious_connected_ft2 = 2400",
                              "impervious_connected_ft2 = 2000\nimpervious_unconnected_ft2 = 400"))
    r1 = load_site(write(tmp_path, text)).post.nodes["R-1"]
    assert r1.cn == 98.0
    assert_allclose(r1.area_ac, 2400 / 43560, rtol=1e-12)


def test_area_that_disagrees_with_the_impervious_keys_is_one_problem(tmp_path):
    text = _with(ROOF.replace("to = \"DP-1\"\n", "to = \"DP-1\"\narea_ft2 = 5000\n", 1))
    probs = check_site(write(tmp_path, text))
    hits = [p for p in probs if "post.subcatchment[R-1].area_ac must equal the impervious" in p]
    assert hits, probs
    assert "[[...cover]] rows for the pervious rest" in hits[0]
    with pytest.raises(InputError):
        load_site(write(tmp_path, text))


def test_nothing_at_all_still_asks_for_cn_covers_or_impervious(tmp_path):
    text = _with(ROOF.replace("impervious_connected_ft2 = 2400\n", "area_ac = 0.05\n"))
    probs = check_site(write(tmp_path, text))
    hits = [p for p in probs if "post.subcatchment[R-1].cn (or [[...cover]] rows) is "
                                  "required" in p]
    assert hits and "all-impervious subcatchment, impervious_connected_ac" in hits[0], probs
