"""Bulk export of results: 6-digit rounding in arrays, hydrographs inline or beside the JSON."""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np
import pytest

from hydrocalc import analysis
from hydrocalc.analysis import analyze, read_hydrographs, round_significant
from hydrocalc.errors import InputError
from hydrocalc.site import load_site

ROOT = pathlib.Path(__file__).parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
import bench_export  # noqa: E402 - from benchmarks/, after the path is set


def _one_by_one(values, sig=6):
    return np.array([float(f"{v:.{sig}g}") for v in np.asarray(values, float).tolist()])


@pytest.mark.parametrize("scale", [1e-30, 1e-9, 1e-4, 1.0, 1e5, 1e16, 1e25])
def test_bulk_rounding_equals_the_string_round_trip(scale):
    rng = np.random.default_rng(7)
    v = rng.standard_normal(200_000) * scale * rng.random(200_000) ** 3
    for sig in (6, 10):
        np.testing.assert_array_equal(round_significant(v, sig), _one_by_one(v, sig))


def test_bulk_rounding_of_ties_and_edges():
    rng = np.random.default_rng(3)
    # decimal ties at the 7th digit: half to even on the binary value, as format() does
    v = (rng.integers(100_000, 10_000_000, 300_000) + 0.5) / 10.0 ** rng.integers(0, 12, 300_000)
    np.testing.assert_array_equal(round_significant(v), _one_by_one(v))
    edge = [999_999.5, 9_999_995.0, 0.1, 1e-320, 5e-324, -2.5e-7, 1e22, 1e23, 123456.5]
    np.testing.assert_array_equal(round_significant(edge), _one_by_one(edge))
    got = round_significant([0.0, -0.0, np.inf, -np.inf, np.nan])
    assert got[0] == 0.0 and not np.signbit(got[1]) and np.isnan(got[2:]).all()
    with pytest.raises(ValueError, match="sig"):
        round_significant([1.0], 0)


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("big")
    site = tmp / "site.toml"
    site.write_text(bench_export.site_text(120), encoding="utf-8")
    return analyze(load_site(site)), tmp


def test_large_results_put_the_ordinates_beside_the_json(big):
    res, tmp = big
    assert res.n_ordinates() > analysis.INLINE_MAX_ORDINATES
    out = tmp / "out.json"
    assert res.to_json(out) is None
    h = json.loads(out.read_text())["hydrographs"]
    assert "flow_cfs" not in h
    side = tmp / h["flow_cfs_file"]
    assert side.is_file() and h["flow_cfs_format"] in ("parquet", "csv")
    got = read_hydrographs(out)
    for name in ("pre", "post"):
        for storm in res.storms:
            for nid in res._runs[name].node_ids[::17]:
                # full precision: the analysis' own doubles
                np.testing.assert_array_equal(got[name][storm][nid],
                                              res.flow_cfs(name, storm, nid))
    assert not list(tmp.glob(".*"))  # no temporary left behind


def test_json_text_keeps_small_results_inline_and_readable(tmp_path):
    res = analyze(load_site(ROOT / "examples" / "pelham" / "site.toml"))
    assert res.n_ordinates() <= analysis.INLINE_MAX_ORDINATES
    path = tmp_path / "r.json"
    res.to_json(path)
    assert path.read_text() == res.to_json()
    got = read_hydrographs(path)
    want = res.flow_cfs("post", res.storms[0], "DP-1")
    np.testing.assert_array_equal(got["post"][res.storms[0]]["DP-1"],
                                  round_significant(want, 6))
    doc = json.loads(path.read_text())
    assert doc["hydrographs"]["flow_cfs"]["post"][res.storms[0]]["DP-1"][:50] == \
        [float(f"{v:.6g}") for v in want[:50].tolist()]


def test_read_hydrographs_says_what_is_missing(tmp_path):
    res = analyze(load_site(ROOT / "examples" / "pelham" / "site.toml"))
    path = tmp_path / "r.json"
    res.to_json(path, hydrographs=False)
    with pytest.raises(InputError, match="no hydrographs"):
        read_hydrographs(path)
    doc = json.loads(res.to_json(hydrographs=False))
    doc["hydrographs"] = {"flow_cfs_file": "../elsewhere.parquet", "flow_cfs_columns": {}}
    path.write_text(json.dumps(doc))
    with pytest.raises(InputError, match="flow_cfs_file"):
        read_hydrographs(path)
