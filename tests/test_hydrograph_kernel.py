"""The compiled passes of the batch hydrographs equal the numpy path bit for bit, and are
used only where they are asked for (or pay alone), never on a small site."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from hydrocalc import _hydrograph_kernel as kernel
from hydrocalc import hydrograph as hydrograph_module
from hydrocalc.errors import RangeWarning
from hydrocalc.hydrograph import _cumulative_runoff_in, runoff_hydrographs
from hydrocalc.rainfall import design_storm


@pytest.fixture
def compiled():
    """Skip without numba; otherwise the kernels, loaded."""
    if not kernel.available():
        pytest.skip("numba is not installed (the batch extra)")
    return kernel


def _both_paths(monkeypatch, *args, **kwargs):
    """runoff_hydrographs(*args, **kwargs) on the compiled path and on the numpy path."""
    calls = []
    real = kernel.excess

    def counting(*a):
        calls.append(1)
        return real(*a)

    with monkeypatch.context() as patch:
        patch.setattr(kernel, "_WANTED", True)
        patch.setattr(kernel, "MIN_WORK", 0)
        patch.setattr(kernel, "excess", counting)
        fast = runoff_hydrographs(*args, **kwargs)
        # (a batch without any runoff computes no excess on either path)
        assert calls or not fast.runoff_in.any(), "the compiled path was not taken"
        patch.setenv("HYDROCALC_NO_NUMBA", "1")
        calls.clear()
        plain = runoff_hydrographs(*args, **kwargs)
        assert not calls, "HYDROCALC_NO_NUMBA=1 did not select the numpy path"
    return fast, plain


def _assert_identical(fast, plain):
    assert fast.flow_cfs.shape == plain.flow_cfs.shape
    assert np.array_equal(fast.flow_cfs, plain.flow_cfs)
    assert np.array_equal(fast.runoff_in, plain.runoff_in)
    # the same signs of zero too (a -0.0 would compare equal above)
    assert np.array_equal(np.signbit(fast.flow_cfs), np.signbit(plain.flow_cfs))


STORMS = [design_storm(1.2, distribution="II", name="small"),
          design_storm(6.5, distribution="III", name="big")]


@pytest.mark.parametrize("block", [32, 3])
@pytest.mark.parametrize("case", ["mixed", "refined", "prf", "dimensionless", "ia_ratio"])
def test_compiled_path_equals_the_numpy_path_bit_for_bit(compiled, monkeypatch, case, block):
    # CN 100 (S = Ia = 0: the 0/0 guard), CN 35 (the small storm never exceeds Ia: no
    # runoff at all), blocks of 3 rows (partial last block, a block without runoff) and
    # of 32; a step refined internally (every 5th ordinate reported); per-row peak rate
    # factors (gamma shapes); a user dimensionless unit hydrograph; another Ia/S.
    monkeypatch.setattr(hydrograph_module, "_BLOCK", block)
    area = np.array([3.0, 40.0, 0.5, 12.0, 7.0, 25.0, 1.0, 60.0])
    cn = np.array([98.0, 35.0, 100.0, 61.0, 80.0, 72.5, 55.0, 88.0])
    tc = np.array([0.2, 1.5, 0.3, 0.6, 0.25, 2.0, 0.4, 0.9])
    kwargs = {"end_hr": 40.0}
    if case == "refined":
        kwargs["dt_hr"] = 0.05
    elif case == "prf":
        kwargs["prf"] = np.array([484.0, 284.0, 600.0, 484.0, 300.0, 484.0, 284.0, 550.0])
    elif case == "dimensionless":
        kwargs["dimensionless"] = ([0.0, 0.5, 1.0, 2.0, 3.5], [0.0, 0.4, 1.0, 0.3, 0.0])
    elif case == "ia_ratio":
        kwargs["ia_ratio"] = 0.05
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RangeWarning)
        fast, plain = _both_paths(monkeypatch, area, cn, tc, STORMS, **kwargs)
    _assert_identical(fast, plain)
    if case != "ia_ratio":  # CN 35, 1.2 in: no runoff (with Ia = 0.2 S)
        assert fast.runoff_in[0, 1] == 0.0 and not fast.flow_cfs[0, 1].any()


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 12), seed=st.integers(0, 2**32 - 1),
       depth_in=st.floats(0.3, 12.0), dist=st.sampled_from(["I", "IA", "II", "III"]),
       block=st.integers(1, 9))
def test_property_compiled_path_equals_the_numpy_path(compiled, monkeypatch, n, seed,
                                                      depth_in, dist, block):
    rng = np.random.default_rng(seed)
    area = rng.uniform(0.1, 200.0, n)
    cn = rng.choice([rng.uniform(30.0, 100.0), 100.0, 98.0], size=n)
    tc = rng.uniform(0.1, 2.5, n)
    monkeypatch.setattr(hydrograph_module, "_BLOCK", block)
    fast, plain = _both_paths(monkeypatch, area, cn, tc,
                              [design_storm(depth_in, distribution=dist)], end_hr=45.0)
    _assert_identical(fast, plain)


def test_excess_kernel_equals_the_numpy_equation_and_difference(compiled):
    # Rain that stays at, reaches exactly and passes Ia; CN 100 (S = 0) before any rain.
    s = np.array([0.0, 1.0, 2.5, 10.0, 0.25])
    ia = 0.2 * s
    p = np.array([0.0, 0.0, 0.05, 0.2, 0.2, 0.5, 2.0, 2.0, 4.0, 9.5])
    q = _cumulative_runoff_in(p, s, ia)
    out = np.full((s.size, p.size + 4), 7.0)
    runoff = np.empty(s.size)
    kernel.excess(p, s, ia, out, 2, runoff)
    assert np.array_equal(out[:, 2 : p.size + 1], np.diff(q, axis=1))
    assert np.array_equal(runoff, q[:, -1])
    assert not out[:, :2].any() and not out[:, p.size + 1 :].any()  # the zero padding


def test_scatter_kernel_thresholds_and_places_rows(compiled):
    conv = np.array([[1e-20, 5.0, -1e-15, 2.0, 1e-12, 4.0e-12, 9.0],
                     [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                     [-1e-18, 3.0, 1e-13, 4.0, 1.0, 2.0, 0.5]])
    rows = np.array([2, 0, 3], dtype=np.intp)
    for step in (1, 2):
        flow = np.full((4, 9), -1.0)
        count = len(range(1, conv.shape[1], step))
        kernel.scatter(conv, 1, step, count, flow, rows, 3)
        block = conv[:, 1::step].copy()
        peak = block.max(axis=1, keepdims=True)
        np.copyto(block, 0.0, where=block < 1e-12 * peak)
        expected = np.full((4, 9), -1.0)
        expected[rows, 3 : 3 + count] = block
        assert np.array_equal(flow, expected)


def test_scatter_kernel_peak_matches_ndarray_max_on_any_signs(compiled):
    # The kernel finds each row's peak as an integer maximum of the values' bit images:
    # rows of negative values only, signed zeros, huge and tiny magnitudes, infinities and
    # a NaN (ndarray.max returns NaN, so nothing is set to 0) must give numpy's result.
    rng = np.random.default_rng(3)
    conv = np.vstack([
        -rng.random(37) * 1e-15,
        np.where(rng.random(37) < 0.5, -0.0, 0.0),
        rng.standard_normal(37) * 10.0 ** rng.integers(-300, 300, 37),
        np.r_[rng.random(36) * 1e-13, np.inf],
        np.r_[-np.inf, rng.random(36)],
        np.r_[rng.random(18), np.nan, rng.random(18) * 1e-14],
        rng.random(37) * 1e-12 + 1e-300,
    ])
    rows = np.arange(conv.shape[0], dtype=np.intp)[::-1].copy()
    for step in (1, 3):
        count = len(range(0, conv.shape[1], step))
        flow = np.full((conv.shape[0], count + 2), 5.0)
        with np.errstate(invalid="ignore"):
            kernel.scatter(conv, 0, step, count, flow, rows, 1)
            block = conv[:, ::step].copy()
            peak = block.max(axis=1, keepdims=True)
            np.copyto(block, 0.0, where=block < 1e-12 * peak)
        expected = np.full(flow.shape, 5.0)
        expected[rows, 1 : 1 + count] = block
        assert np.array_equal(flow, expected, equal_nan=True)
        assert np.array_equal(np.signbit(flow), np.signbit(expected))


def test_path_selection_rules(monkeypatch):
    monkeypatch.setattr(kernel, "_WANTED", False)
    assert not kernel.wanted(kernel.MIN_WORK - 1)
    monkeypatch.setenv("HYDROCALC_NO_NUMBA", "1")
    kernel.use()
    try:
        assert not kernel.wanted(kernel.MIN_WORK_ALONE)
    finally:
        kernel.use(False)
    monkeypatch.delenv("HYDROCALC_NO_NUMBA")
    if kernel.available():
        assert kernel.wanted(kernel.MIN_WORK_ALONE)


_CHILD = """
import sys
import numpy as np
from hydrocalc import _hydrograph_kernel as kernel
from hydrocalc.hydrograph import runoff_hydrographs
from hydrocalc.rainfall import design_storm

storms = [design_storm(d, distribution="III") for d in (2.8, 5.1, 7.9)]
n = 200  # 200 x 3 storms x 2,401 steps: above MIN_WORK, far below MIN_WORK_ALONE
work = n * 3 * 2401
assert kernel.MIN_WORK <= work < kernel.MIN_WORK_ALONE, work
runoff_hydrographs(np.full(n, 5.0), np.full(n, 80.0), np.full(n, 0.5), storms)
small = "numba" in sys.modules
kernel.use()
runoff_hydrographs(np.full(n, 5.0), np.full(n, 80.0), np.full(n, 0.5), storms)
print(small, "numba" in sys.modules)
"""


@pytest.mark.slow
def test_a_process_that_did_not_ask_never_imports_numba():
    import importlib.util

    out = subprocess.run([sys.executable, "-c", _CHILD], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "False"  # without use(): the numpy path, numba not imported
    installed = importlib.util.find_spec("numba") is not None
    assert out[1] == str(installed)  # after use(): the compiled path when installed


def test_use_compiled_passes_sets_and_clears_the_process_flag():
    from hydrocalc import _hydrograph_kernel
    from hydrocalc.hydrograph import use_compiled_passes

    before = _hydrograph_kernel._WANTED
    try:
        use_compiled_passes()
        assert _hydrograph_kernel._WANTED is True
        use_compiled_passes(False)
        assert _hydrograph_kernel._WANTED is False
    finally:
        _hydrograph_kernel.use(before)
