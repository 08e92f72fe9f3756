"""Parameter sweep files: validation, scenario generation (counts, values, determinism) and
the overrides applied to a base site (hydrocalc.batch.sweep)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from numpy.testing import assert_allclose

from hydrocalc.batch.sweep import apply_overrides, load_sweep, parse_sweep, resolve_field
from hydrocalc.errors import InputError

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"


def sweep(site, vary, **top):
    doc = {"base": "lot_a.toml", **top, "vary": vary}
    return parse_sweep(doc, where="s.toml", base_dir=FIX, site=site)


# -- scenario generation ------------------------------------------------------------------


def test_grid_count_is_product_of_group_sizes(lot_a):
    sw = sweep(lot_a, [
        {"field": "post.subcatchment[*].cn", "op": "add", "values": [-1, 0, 1]},
        {"field": "post.pond[UG-1].outlet[OR-1].diameter_in", "range": [3.0, 6.0, 0.5]},
        {"field": "storms.depths_in.10yr", "values": [4.5, 5.5], "group": "g"},
        {"field": "storms.depths_in.100yr", "values": [8.0, 9.0], "group": "g"},
    ])
    assert sw.group_sizes == (3, 7, 2)
    assert sw.n_scenarios == 42
    frame = sw.to_frame()
    assert len(frame) == 42
    assert frame["scenario"].tolist()[:2] == ["00", "01"]
    # last group varies fastest; grouped entries move together
    assert frame.iloc[0, 1:].tolist() == [-1, 3.0, 4.5, 8.0]
    assert frame.iloc[1, 1:].tolist() == [-1, 3.0, 5.5, 9.0]
    assert frame.iloc[2, 1:].tolist() == [-1, 3.5, 4.5, 8.0]
    assert frame.iloc[41, 1:].tolist() == [1, 6.0, 5.5, 9.0]


def test_zip_combines_entries_position_by_position(lot_a):
    sw = sweep(lot_a, [{"field": "post.subcatchment[P-1].cn", "values": [80, 85, 90]},
                       {"field": "post.subcatchment[P-1].tc_hr", "values": [0.1, 0.2, 0.3]}],
               combine="zip")
    assert sw.n_scenarios == 3
    assert sw.values(2) == {"post.subcatchment[P-1].cn": 90,
                            "post.subcatchment[P-1].tc_hr": 0.3}


def test_range_includes_stop_and_linspace_gives_num_values(lot_a):
    sw = sweep(lot_a, [{"field": "post.subcatchment[P-1].cn", "range": [80, 81, 0.1]},
                       {"field": "post.subcatchment[P-1].tc_hr", "linspace": [0.1, 0.2, 3]}])
    assert sw.variations[0].values[-1] == 81.0
    assert len(sw.variations[0].values) == 11
    assert_allclose(sw.variations[0].values, np.linspace(80, 81, 11), rtol=0, atol=1e-12)
    assert sw.variations[1].values == (0.1, 0.15000000000000002, 0.2)


def test_random_draws_are_deterministic_and_stable_when_entries_are_added(lot_a):
    one = [{"field": "post.subcatchment[P-1].cn", "op": "add", "normal": [0.0, 2.0]}]
    two = one + [{"field": "post.subcatchment[P-2].tc_hr", "op": "scale",
                  "uniform": [0.8, 1.2]}]
    a = sweep(lot_a, one, seed=42, samples=5)
    b = sweep(lot_a, one, seed=42, samples=5)
    c = sweep(lot_a, two, seed=42, samples=5)
    d = sweep(lot_a, one, seed=43, samples=5)
    assert a.variations[0].values == b.variations[0].values
    assert c.variations[0].values == a.variations[0].values  # later entries draw later
    assert d.variations[0].values != a.variations[0].values
    assert c.n_scenarios == 5  # random entries share the group "random" (zipped)
    expect = np.random.default_rng(42).normal(0.0, 2.0, 5)
    assert_allclose(a.variations[0].values, expect, rtol=0, atol=0)
    lo, hi = min(c.variations[1].values), max(c.variations[1].values)
    assert 0.8 <= lo and hi <= 1.2


def test_random_entries_cross_with_grid_entries(lot_a):
    sw = sweep(lot_a, [{"field": "post.subcatchment[P-1].cn", "values": [80, 90]},
                       {"field": "post.subcatchment[P-2].cn", "uniform": [70, 80]}],
               seed=1, samples=4)
    assert sw.n_scenarios == 8


def test_fixture_sweep_file_loads_with_its_documented_count():
    sw = load_sweep(FIX / "sweep_small.toml")
    assert sw.name == "lot_a_sweep"
    assert sw.n_scenarios == 3 * 2 * 2 * 2
    assert sw.base == (FIX / "lot_a.toml").resolve()


# -- overrides ----------------------------------------------------------------------------


def test_add_scale_and_set_apply_to_the_base_values(lot_a):
    sw = sweep(lot_a, [
        {"field": "post.subcatchment[*].cn", "op": "add", "values": [2.0]},
        {"field": "post.subcatchment[P-2].tc_hr", "op": "scale", "values": [1.5]},
        {"field": "storms.depths_in.*", "op": "scale", "values": [1.1]},
        {"field": "post.pond[UG-1].outlet[OR-1].diameter_in", "values": [6.0]},
    ])
    s = sw.scenario(0)
    assert [x.cn for x in s.post.subcatchments] == [90.0, 78.0]
    assert s.post.nodes["P-2"].tc_hr == pytest.approx(0.3, rel=1e-12)
    assert s.storms.depths_in == pytest.approx({"1yr": 3.08, "10yr": 5.5, "100yr": 9.35},
                                               rel=1e-12)
    pond = s.post.nodes["UG-1"]
    assert pond.outlets[0].diameter_in == 6.0
    assert pond.outlet_spec[0]["diameter_in"] == 6.0  # the Cpv check reads the spec
    assert lot_a.post.nodes["UG-1"].outlets[0].diameter_in == 4.0  # base untouched


def test_untouched_scenarios_stay_the_same_objects(lot_a):
    s = sweep(lot_a, [{"field": "post.subcatchment[P-1].cn", "values": [80]}]).scenario(0)
    assert s.pre is lot_a.pre
    assert s.storms is lot_a.storms


def test_overrides_apply_in_file_order(lot_a):
    sw = sweep(lot_a, [{"field": "post.subcatchment[P-1].cn", "values": [80]},
                       {"field": "post.subcatchment[*].cn", "op": "add", "values": [5]}])
    assert sw.scenario(0).post.nodes["P-1"].cn == 85


def test_storage_dimension_rebuilds_the_stage_storage(lot_a):
    sw = sweep(lot_a, [{"field": "post.pond[UG-1].storage.depth_ft", "values": [5.0]}])
    pond = sw.scenario(0).post.nodes["UG-1"]
    assert pond.stage_storage.top_stage_ft == pytest.approx(5.0, rel=1e-12)
    assert pond.stage_storage.max_storage_ft3 == pytest.approx(60 * 30 * 5.0, rel=1e-9)


def test_count_and_exfiltration_rate_of_leaching_pools(lot_b):
    sw = load_sweep(FIX / "sweep_lot_b.toml", site=lot_b)
    s = sw.scenario(2)
    pond = s.post.nodes["LP-1"]
    assert pond.count == 4
    assert pond.outlets[0].rate_in_hr == 8.0
    assert s.post.nodes["R-1"].lag_hr == pytest.approx(0.3, rel=1e-12)
    # "*" scenario scales Tc in pre and post
    assert s.pre.nodes["E-1"].tc_hr == pytest.approx(1.3 * lot_b.pre.nodes["E-1"].tc_hr,
                                                     rel=1e-12)


def test_resolve_field_expands_wildcards(lot_a):
    labels = [t.label for t in resolve_field(lot_a, "*.subcatchment[*].cn")]
    assert labels == ["pre.subcatchment[E-1].cn", "post.subcatchment[P-1].cn",
                      "post.subcatchment[P-2].cn"]
    assert [t.label for t in resolve_field(lot_a, "post.pond[UG-1].outlet[*].cd")] == [
        "post.pond[UG-1].outlet[OR-1].cd"]


# -- errors: one test per message -----------------------------------------------------------


def test_cn_pushed_above_100_is_an_error_naming_the_scenario(lot_a):
    sw = sweep(lot_a, [{"field": "post.subcatchment[P-1].cn", "op": "add",
                        "values": [0.0, 13.0]}])
    sw.scenario(0)
    with pytest.raises(InputError, match=r"s\.toml: scenario 1: post\.subcatchment\[P-1\]\.cn "
                                         r"must be in \(0, 100\]; got 101 \(88 \+ 13\)"):
        sw.scenario(1)


def test_non_integer_count_is_an_error(lot_b):
    doc = {"base": "lot_b.toml", "vary": [{"field": "post.pond[LP-1].count", "values": [2.5]}]}
    sw = parse_sweep(doc, where="s.toml", base_dir=FIX, site=lot_b)
    with pytest.raises(InputError, match=r"count must be an integer in \[1, inf\); got 2\.5"):
        sw.scenario(0)


def test_outlet_raised_above_the_storage_top_is_an_error(lot_a):
    sw = sweep(lot_a, [{"field": "post.pond[UG-1].outlet[W-1].crest_ft", "values": [4.5]}])
    with pytest.raises(InputError, match=r"post\.pond\[UG-1\]\.outlet\[W-1\]\.crest_ft must be "
                                         r"below the top of the storage \(4 ft\); got 4\.5"):
        sw.scenario(0)


def test_impervious_area_above_the_area_is_an_error(lot_a):
    sw = sweep(lot_a, [{"field": "post.subcatchment[P-1].area_ac", "values": [0.2]}])
    with pytest.raises(InputError, match=r"impervious_unconnected_ac must be <= area_ac \(0\.2\); "
                                         r"got 0\.25"):
        sw.scenario(0)


def test_unknown_node_id_suggests_the_closest(lot_a):
    with pytest.raises(InputError, match=r"names subcatchment 'P-3', which the base site does "
                                         r"not have; did you mean 'P-2' or 'P-1'\? "
                                         r"Available: P-1, P-2"):
        resolve_field(lot_a, "post.subcatchment[P-3].cn")


def test_unsweepable_key_lists_the_allowed_keys(lot_a):
    with pytest.raises(InputError, match=r"must end with a sweepable subcatchment key "
                                         r"\(cn, tc_hr, area_ac, .*\); got 'curve_number'"):
        resolve_field(lot_a, "post.subcatchment[P-1].curve_number")


def test_outlet_key_of_another_device_type_is_an_error(lot_a):
    with pytest.raises(InputError, match=r"must end with a key of a circular_orifice outlet "
                                         r"\(diameter_in, invert_ft, cd\); got 'crest_ft'"):
        resolve_field(lot_a, "post.pond[UG-1].outlet[OR-1].crest_ft")


def test_malformed_field_path_is_an_error(lot_a):
    with pytest.raises(InputError, match=r"field must be a field such as"):
        resolve_field(lot_a, "post..cn")


def test_unknown_storm_is_an_error(lot_a):
    with pytest.raises(InputError, match=r"names storm '2yr'.*Available: 1yr, 10yr, 100yr"):
        resolve_field(lot_a, "storms.depths_in.2yr")


def test_unknown_top_level_key_suggests_the_closest(lot_a):
    doc = {"base": "lot_a.toml", "sede": 1, "vary": []}
    with pytest.raises(InputError, match=r"^s\.toml: unknown key sede; did you mean 'seed'"):
        parse_sweep(doc, where="s.toml", base_dir=FIX, site=lot_a)


def test_vary_problems_are_reported_with_their_entry(lot_a):
    doc = {"base": "lot_a.toml",
           "vary": [{"field": "post.subcatchment[P-1].cn", "values": [80], "op": "plus"},
                    {"field": "post.subcatchment[P-1].tc_hr", "uniform": [0.1, 0.2]},
                    {"field": "post.subcatchment[P-2].cn", "values": [70, 71], "group": "g"},
                    {"field": "post.subcatchment[P-2].tc_hr", "values": [0.2], "group": "g"}]}
    with pytest.raises(InputError) as info:
        parse_sweep(doc, where="s.toml", base_dir=FIX, site=lot_a)
    text = str(info.value)
    assert "s.toml: vary[0].op must be one of set, add, scale; got 'plus'" in text
    assert "s.toml: seed is required when a [[vary]] entry is random" in text
    assert "s.toml: samples is required when a [[vary]] entry is random" in text


def test_group_entries_of_different_lengths_are_an_error(lot_a):
    with pytest.raises(InputError, match=r"entries of group 'g' must have the same number of "
                                         r"values; got 1, 2"):
        sweep(lot_a, [{"field": "post.subcatchment[P-2].cn", "values": [70, 71], "group": "g"},
                      {"field": "post.subcatchment[P-2].tc_hr", "values": [0.2], "group": "g"}])


def test_exactly_one_value_source_is_required(lot_a):
    with pytest.raises(InputError, match=r"vary\[0\] must give exactly one of values, range, "
                                         r"linspace, uniform, normal, choice; got values, range"):
        sweep(lot_a, [{"field": "post.subcatchment[P-2].cn", "values": [70],
                       "range": [70, 72, 1]}])


def test_text_values_only_for_the_distribution(lot_a):
    with pytest.raises(InputError, match=r"vary\[0\]\.values may hold text only for "
                                         r"storms\.distribution"):
        sweep(lot_a, [{"field": "post.subcatchment[P-2].cn", "values": ["high"]}])
    sw = sweep(lot_a, [{"field": "storms.distribution", "values": ["II", "III"]}])
    assert sw.scenario(0).storms.distribution == "II"


def test_missing_base_file_is_an_error(tmp_path):
    p = tmp_path / "sweep.toml"
    p.write_text('base = "nowhere.toml"\n[[vary]]\nfield = "storms.depths_in.*"\n'
                 'values = [1.0]\n')
    with pytest.raises(InputError, match=r"sweep\.toml: base must be an existing site file"):
        load_sweep(p)


def test_apply_overrides_rejects_nan(lot_a):
    (target,) = resolve_field(lot_a, "post.subcatchment[P-1].cn")
    with pytest.raises(InputError, match=r"post\.subcatchment\[P-1\]\.cn must be in \(0, 100\]; "
                                         r"got nan"):
        apply_overrides(lot_a, [(target, "set", float("nan"))])
