"""A pond that holds water below its lowest outlet but has no rrv_credit_pct: RRv 0, said why."""

from __future__ import annotations

from test_site import BASE, write

from hydrocalc.analysis import analyze
from hydrocalc.site import load_site


def _rrv_row(tmp_path, text):
    res = analyze(load_site(write(tmp_path, text)))
    crit = res.criteria.set_index("criterion")
    return crit.loc["rrv"], res


def test_missing_rrv_credit_pct_is_explained_with_the_fix(tmp_path):
    # the low orifice 1 ft above the bottom: 1 ft of storage below the lowest outlet
    text = BASE.replace("diameter_in = 6\ninvert_ft = 0", "diameter_in = 6\ninvert_ft = 1")
    row, res = _rrv_row(tmp_path, text)
    assert "P-1: RRv credit 0 because rrv_credit_pct is not set" in row["note"]
    assert "rrv_credit_pct = 100" in row["note"]
    assert "P-1: 0 (rrv_credit_pct not given)" in row["details"]
    assert any(w.startswith("RRv: P-1: RRv credit 0") for w in res.warnings)


def test_claimed_credit_has_no_such_note(tmp_path):
    text = BASE.replace("diameter_in = 6\ninvert_ft = 0", "diameter_in = 6\ninvert_ft = 1")
    text = text.replace('id = "P-1"\nto = "DP-1"', 'id = "P-1"\nto = "DP-1"\nrrv_credit_pct = 100')
    row, _ = _rrv_row(tmp_path, text)
    assert "RRv credit 0" not in row["note"]
    assert row["provided"] > 0
