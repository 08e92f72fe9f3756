"""Sweep files whose values the run could not compute are refused with one line naming the
entry or the varied field, before any scenario runs (or as the scenario's one error line)."""

from __future__ import annotations

import pathlib

import pytest

from hydrocalc.batch.sweep import apply_overrides, parse_sweep, resolve_field
from hydrocalc.errors import InputError
from hydrocalc.site import load_site

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"


def _problems(site, vary, **top) -> list[str]:
    doc = {"base": "lot_a.toml", **top, "vary": vary}
    with pytest.raises(InputError) as err:
        parse_sweep(doc, where="s.toml", base_dir=FIX, site=site)
    return str(err.value).splitlines()


def _vary(site, field, op, value):
    return apply_overrides(site, [(t, op, value) for t in resolve_field(site, field)])


def test_a_range_of_more_values_than_can_be_counted_is_refused(lot_a):
    got = _problems(lot_a, [{"field": "post.subcatchment[P-1].cn",
                             "range": [-1e308, 1e308, 1e300]}])
    assert got == ["s.toml: vary[0].range must give at most 1,000,000 values; got more than "
                   "can be counted"]


def test_a_range_of_too_many_values_names_their_count(lot_a):
    got = _problems(lot_a, [{"field": "post.subcatchment[P-1].cn", "range": [0, 100, 1e-5]}])
    assert got == ["s.toml: vary[0].range must give at most 1,000,000 values; got 10,000,001"]


def test_a_uniform_draw_over_an_infinite_width_is_refused(lot_a):
    got = _problems(lot_a, [{"field": "post.subcatchment[P-1].cn", "uniform": [-1e308, 1e308]}],
                    seed=1, samples=3)
    assert got == ["s.toml: vary[0].uniform must be [low, high] with low < high and a finite "
                   "high - low; got [-1e+308, 1e+308]"]


def test_samples_beyond_the_limit_are_refused_before_any_draw(lot_a):
    got = _problems(lot_a, [{"field": "post.subcatchment[P-1].cn", "uniform": [70, 90]}],
                    seed=1, samples=1_000_000_000_000)
    assert got == ["s.toml: samples must be at most 1,000,000; got 1,000,000,000,000"]


@pytest.mark.parametrize("label", ["post_peak_cfs", "scenario", "status"])
def test_a_label_that_is_a_summary_column_is_refused(lot_a, label):
    got = _problems(lot_a, [{"field": "post.subcatchment[P-1].cn", "values": [80, 85],
                             "label": label}])
    assert len(got) == 1 and got[0].startswith(
        "s.toml: vary[0].label must not be a column of the summary (source, site, scenario, ")
    assert got[0].endswith(f"; got {label!r}")


@pytest.mark.parametrize("base", ["a\u0000b.toml", "x" * 5000 + ".toml"])
def test_a_base_that_cannot_be_a_file_name_is_one_line(base):
    doc = {"base": base, "vary": [{"field": "post.subcatchment[P-1].cn", "values": [80]}]}
    with pytest.raises(InputError) as err:
        parse_sweep(doc, where="s.toml", base_dir=FIX)
    text = str(err.value)
    assert text.startswith("s.toml: base must be an existing site file (relative to the sweep "
                           "file); got '") and "\n" not in text and len(text) < 200


def test_a_duration_giving_too_many_time_steps_is_the_site_files_rule(lot_a):
    with pytest.raises(InputError, match=r"^analysis\.dt_hr and duration_hr must give at most "
                                         r"1,000,000 time steps; got 1e\+20 \(dt_hr = 0\.01, "
                                         r"1e\+18 h\)"):
        _vary(lot_a, "analysis.duration_hr", "set", 1e18)


def test_a_storm_depth_above_the_world_record_is_refused(lot_a):
    with pytest.raises(InputError, match=r"^storms\.depths_in\.100yr must be in \(0, 72\]; "
                                         r"got 850 \(8\.5 x 100\)$"):
        _vary(lot_a, "storms.depths_in.100yr", "scale", 100)


def test_a_huge_reach_lag_stops_the_analysis_with_one_line_naming_the_reach(lot_b):
    from hydrocalc.analysis import analyze

    varied = _vary(lot_b, "post.reach[R-1].lag_hr", "set", 1e18)
    with pytest.raises(InputError, match=r"post\.reach\[R-1\] takes 1e\+18 h to pass its flow "
                                         r"on \(its lag_hr, or 3 x its length over the "
                                         r"full-flow velocity\), which would need 1e\+20 time "
                                         r"steps of dt_hr = 0\.01 h; at most 1,000,000 are "
                                         r"computed"):
        analyze(varied)


def test_a_storage_size_that_overflows_is_one_line(lot_b):
    with pytest.raises(InputError, match=r"^post\.pond\[LP-1\]"):
        _vary(lot_b, "post.pond[LP-1].storage.diameter_ft", "set", 1e308)


def test_a_site_file_with_a_huge_reach_lag_is_one_line_not_a_crash(tmp_path):
    from hydrocalc.analysis import analyze
    from hydrocalc.site import check_site

    text = (FIX / "lot_b.toml").read_text(encoding="utf-8").replace("lag_hr = 0.1",
                                                                      "lag_hr = 1e18", 1)
    path = tmp_path / "site.toml"
    path.write_text(text, encoding="utf-8")
    assert check_site(path) == []
    with pytest.raises(InputError, match=r"pre\.reach\[R-1\] takes 1e\+18 h to pass its flow"):
        analyze(load_site(path))
