"""The drywell stage datum documented in docs/site_file.md: stage 0 is the bottom of the stone."""

from __future__ import annotations

import math

from hydrocalc.stage_storage import StageStorage
from numpy.testing import assert_allclose


def test_stage_zero_is_the_bottom_of_the_stone_below():
    dw = StageStorage.drywell(4.0, 4.0, stone_porosity_frac=0.4, stone_width_ft=1.0,
                              stone_depth_below_ft=1.0)
    r_e = 2.0 + 1.0
    # stages 0..1: the stone layer alone (n pi Re^2 per ft), then the pool and its annulus
    assert_allclose(dw.storage_ft3(1.0), 0.4 * math.pi * r_e**2 * 1.0, rtol=1e-12)
    assert_allclose(dw.top_stage_ft, 5.0, rtol=0, atol=1e-12)
    pool = math.pi * 2.0**2 + 0.4 * math.pi * (r_e**2 - 2.0**2)
    assert_allclose(dw.storage_ft3(5.0) - dw.storage_ft3(1.0), pool * 4.0, rtol=1e-12)
