"""Sizes far out of scale (a unit slip: 1e-300, 1e308) are one line, never a crash of the
analysis: the section's capacity, the declared ranges and the automatic simulation end."""

from __future__ import annotations

import pathlib

import pytest

from hydrocalc.analysis import analyze
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.conveyance import CircularSection, Conveyance
from hydrocalc.site import check_site, load_site

HERE = pathlib.Path(__file__).resolve().parent
SITE = (HERE / "test_site_reaches.py").read_text(encoding="utf-8").split('SITE = """\\\n')[1]
SITE = SITE.split('"""')[0]

PIPE = ('section = "circular"\ndiameter_in = {d}\nlength_ft = 400\nslope_ftft = {s}\n'
        'n = 0.013')


def _site(tmp_path, reach: str) -> pathlib.Path:
    path = tmp_path / "site.toml"
    path.write_text(SITE.replace("{reach}", reach), encoding="utf-8")
    return path


def test_the_fixture_site_is_valid(tmp_path):
    assert check_site(_site(tmp_path, PIPE.format(d=18, s=0.01))) == []


def test_a_pipe_too_small_to_carry_flow_is_one_problem(tmp_path):
    got = check_site(_site(tmp_path, PIPE.format(d=1e-300, s=0.01)))
    assert got == ["site.toml: post.reach[R-1] gives a full-flow capacity of 0 cfs, which "
                   "cannot be routed; check the units of its sizes (a diameter in inches, "
                   "widths and depths in feet), its slope (ft/ft) and n (line 38)"]


def test_a_pipe_beyond_the_declared_diameter_is_one_problem(tmp_path):
    got = check_site(_site(tmp_path, PIPE.format(d=1e308, s=0.01)))
    assert got == ["site.toml: post.reach[R-1].diameter_in must be in (0, 10000]; got 1e+308 "
                   "(line 42)"]


def test_a_slope_that_never_drains_stops_the_analysis_naming_the_reach(tmp_path):
    path = _site(tmp_path, PIPE.format(d=18, s=1e-300))
    assert check_site(path) == []
    with pytest.raises(InputError, match=r"post\.reach\[R-1\] takes [0-9.e+]+ h to pass its "
                                         r"flow on .* at most 1,000,000 are computed"):
        analyze(load_site(path))


def test_the_conveyance_refuses_a_section_without_capacity():
    with pytest.raises(InputError, match=r"^the section gives a full-flow capacity of 0 cfs"):
        Conveyance(CircularSection(1e-300), 100.0, 0.01, 0.013)


def test_a_refused_idf_coefficient_is_not_also_a_missing_storm():
    root = HERE.parents[1] / "examples" / "storm_sewer"
    text = (root / "site.toml").read_text(encoding="utf-8")
    import tomllib

    from hydrocalc.site import site_problems

    doc = tomllib.loads(text)
    doc["rational"]["idf"]["10yr"]["b"] = -1.0
    _, got = site_problems(doc, where="site.toml", base_dir=root, text=text)
    assert [p for p in got if "rational" in p] == [
        "site.toml: rational.idf.10yr.b must be in (0, 100000]; got -1 (line 51)"]


def test_a_rational_subcatchment_beyond_any_site_is_one_problem():
    import tomllib

    from hydrocalc.site import site_problems

    root = HERE.parents[1] / "examples" / "storm_sewer"
    text = (root / "site.toml").read_text(encoding="utf-8")
    doc = tomllib.loads(text)
    doc["post"]["subcatchment"][1]["cover"][1]["area_ac"] = 1e308
    _, got = site_problems(doc, where="site.toml", base_dir=root, text=text)
    assert got == ["site.toml: post.subcatchment[CB-2].area_ac must be <= 1,000,000 ac (no site "
                   "analysis covers more); got 1e+308. Check the units (area_ft2 for square "
                   "feet) (line 82)"]


def test_a_reach_too_steep_for_its_step_is_one_line_not_a_hang():
    import numpy as np

    from hydrocalc.hydraulics.conveyance import route_conveyance
    from hydrocalc.hydrograph import Hydrograph

    steep = Conveyance(CircularSection(18), 240.0, 0.44, 0.013, name="post.reach[PIPE-1]")
    t = np.arange(0.0, 30.0, 0.01)
    inflow = Hydrograph(t, 5.0 * np.exp(-(((t - 12.0) / 0.5) ** 2)))
    with pytest.raises(InputError, match=r"^reach 'post\.reach\[PIPE-1\]' would need [0-9,]+ "
                                         r"sub-reach steps to route .* at most 50,000,000 are "
                                         r"computed"):
        route_conveyance(inflow, steep, duration_hr=30)
    gentle = Conveyance(CircularSection(18), 240.0, 0.01, 0.013)
    assert route_conveyance(inflow, gentle, duration_hr=30).peak_outflow_cfs > 0
