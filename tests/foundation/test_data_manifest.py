"""The shipped tables agree with their manifest: files, headers, hashes and spot values."""

from __future__ import annotations

import hashlib
from importlib.resources import files

import numpy as np
import pytest

from hydrocalc import data
from hydrocalc.errors import InputError

DATA = files("hydrocalc.data")
NAMES = data.list_tables()
ALL_ENTRIES = data.list_tables(kind=None)


def _all_data_files():
    # Every CSV in data/ and one level below, plus the TOML profiles in sub-folders
    # (manifest*.toml files at the top level are the manifests themselves).
    out = []
    for p in DATA.iterdir():
        if p.name.endswith(".csv"):
            out.append(p.name)
        elif p.is_dir() and not p.name.startswith("__"):
            out += [f"{p.name}/{q.name}" for q in p.iterdir()
                    if q.name.endswith((".csv", ".toml"))]
    return sorted(out)


def test_every_data_file_has_a_manifest_entry_and_every_entry_a_file():
    listed = {entry["file"] for entry in data.manifest().values()}
    assert set(_all_data_files()) == listed


def test_profiles_are_hashed_but_not_loadable_as_tables():
    profiles = data.list_tables(kind="profile")
    assert {"regulation_profile_pelham", "regulation_profile_shelter_island"} <= set(profiles)
    assert set(profiles) <= set(data.table_hashes())
    with pytest.raises(InputError, match="not a table; read it with"):
        data.load_table("regulation_profile_pelham")


@pytest.mark.parametrize("name", ALL_ENTRIES)
def test_manifest_sha256_matches_file(name):
    entry = data.table_info(name)
    raw = DATA.joinpath(entry["file"]).read_bytes()
    assert hashlib.sha256(raw).hexdigest() == entry["sha256"]


@pytest.mark.parametrize("name", NAMES)
def test_manifest_units_name_every_column(name):
    entry = data.table_info(name)
    assert list(data.load_table(name).columns) == list(entry["units"])
    for key in ("source", "location", "title"):
        assert entry.get(key), f"{name} lacks {key}"


def test_load_table_returns_a_fresh_copy():
    a = data.load_table("tr55_pond_swamp_factor")
    a.loc[0, "Fp"] = -1.0
    assert data.load_table("tr55_pond_swamp_factor").loc[0, "Fp"] == 1.0


def test_unknown_table_suggests_close_names():
    with pytest.raises(InputError,
                       match=r"unknown table 'tr55_cn_urbn'; did you mean 'tr55_cn_urban'"):
        data.load_table("tr55_cn_urbn")


def test_double_entry_spot_values():
    # Typed again from the publications (TR-55 1986 Tables 4-2, F-1; NEH 630 Table 16-1).
    fp = data.load_table("tr55_pond_swamp_factor")
    assert fp["Fp"].tolist() == [1.00, 0.97, 0.87, 0.75, 0.72]
    f1 = data.load_table("tr55_unit_peak_coefficients").set_index(["rainfall_type", "ia_over_p"])
    assert f1.loc[("II", 0.10), "C0"] == 2.55323
    assert f1.loc[("III", 0.50), "C2"] == -0.09525
    uh = data.load_table("nrcs_dimensionless_uh")
    assert uh.loc[uh.t_over_tp == 1.0, "q_over_qp"].item() == 1.0


def test_rainfall_distributions_are_monotone_from_zero_to_one():
    for name in ("nrcs_24hr_distributions", "nrcs_noaa14_nrcc_distributions"):
        frame = data.load_table(name)
        for col in frame.columns[1:]:
            v = frame[col].to_numpy()
            assert v[0] == 0.0 and v[-1] == pytest.approx(1.0, abs=1e-5), (name, col)
            assert np.all(np.diff(v) >= 0), (name, col)


def test_dimensionless_uh_area_is_1_336():
    uh = data.load_table("nrcs_dimensionless_uh")
    area = np.trapezoid(uh.q_over_qp, uh.t_over_tp)
    np.testing.assert_allclose(area, 1.336, rtol=0, atol=0.0015)
