"""The README's Python tour runs and prints the numbers its comments state."""

from __future__ import annotations

import pathlib
import re

import numpy as np

README = pathlib.Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tour_runs_and_matches_its_comments():
    code = re.findall(r"```python\n(.*?)```", README.read_text(encoding="utf-8"), re.S)[0]
    ns: dict = {}
    exec(compile(code, str(README), "exec"), ns)  # noqa: S102 - our own README
    assert ns["cn"] == 80
    np.testing.assert_allclose(ns["q_in"], 3.78, rtol=0, atol=0.005)
    np.testing.assert_allclose(ns["tc_hr"], 1.53, rtol=0, atol=0.005)
    assert ns["hs"].peak_cfs.shape == (4, 3)
    assert abs(ns["res"].mass_balance_error_pct) < 0.1
    assert ns["res"].peak_outflow_cfs <= ns["h"].peak_cfs
