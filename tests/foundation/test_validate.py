"""hydrocalc._validate.as_float_array: every message, and the fast path (min/max
reductions) agreeing with the exact element-wise check on arbitrary input."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from hydrocalc import _validate
from hydrocalc._validate import as_float_array
from hydrocalc.errors import InputError


def _reference_check(arr, name, lower=None, upper=None, lower_inclusive=True,
                     upper_inclusive=True, allow_nan=False, allow_inf=False, hint=""):
    """The element-wise definition, written independently: None if valid, else the message."""
    flat = np.asarray(arr, dtype=float).ravel()
    bad_idx = []
    for i, v in enumerate(flat):
        if np.isnan(v):
            bad = not allow_nan
        else:
            bad = (not allow_inf and np.isinf(v))
            if lower is not None:
                bad |= v < lower if lower_inclusive else v <= lower
            if upper is not None:
                bad |= v > upper if upper_inclusive else v >= upper
        if bad:
            bad_idx.append(i)
    if not bad_idx:
        return None
    lo = "-inf" if lower is None else _validate.fmt_value(lower)
    hi = "inf" if upper is None else _validate.fmt_value(upper)
    left = "[" if (lower is not None and lower_inclusive) else "("
    right = "]" if (upper is not None and upper_inclusive) else ")"
    got = _validate.fmt_value(flat[bad_idx[0]])
    where = "" if np.ndim(arr) == 0 else (
        f" at index {bad_idx[0]} ({len(bad_idx)} of {flat.size} values invalid)")
    msg = f"{name} must be in {left}{lo}, {hi}{right}; got {got}{where}"
    return msg + (f". {hint}" if hint else "")


# --- messages -------------------------------------------------------------------------------


def test_scalar_message_has_no_index():
    with pytest.raises(InputError, match=r"^cn must be in \(0, 100\]; got 104$"):
        as_float_array(104, "cn", lower=0.0, lower_inclusive=False, upper=100.0)


def test_array_message_gives_first_index_and_count():
    cn = [80, 70, 101, 104, 0, 60]
    with pytest.raises(InputError, match=r"^cn must be in \(0, 100\]; got 101 at index 2 "
                                         r"\(3 of 6 values invalid\)$"):
        as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)


def test_index_is_flat_c_order_for_2d_input():
    x = np.zeros((3, 4))
    x[2, 1] = -1.0
    with pytest.raises(InputError, match=r"got -1 at index 9 \(1 of 12 values invalid\)"):
        as_float_array(x, "x", lower=0.0)


def test_nan_is_invalid_unless_allowed():
    with pytest.raises(InputError, match=r"^precip_in must be in \[0, inf\); got nan at index 1 "
                                         r"\(1 of 3 values invalid\)$"):
        as_float_array([1.0, np.nan, 2.0], "precip_in", lower=0.0)
    out = as_float_array([1.0, np.nan, 2.0], "precip_in", lower=0.0, allow_nan=True)
    assert np.isnan(out[1]) and out[0] == 1.0


def test_allowed_nan_is_never_checked_against_the_bounds_but_others_are():
    assert np.isnan(as_float_array(np.nan, "x", lower=0.0, allow_nan=True))
    assert np.isnan(as_float_array([np.nan] * 3, "x", lower=0.0, allow_nan=True)).all()
    with pytest.raises(InputError, match=r"^x must be in \[0, inf\); got -2 at index 2 "
                                         r"\(1 of 3 values invalid\)$"):
        as_float_array([np.nan, 1.0, -2.0], "x", lower=0.0, allow_nan=True)


def test_infinity_is_invalid_unless_allowed():
    with pytest.raises(InputError, match=r"^x must be in \[0, inf\); got inf at index 0"):
        as_float_array([np.inf, 1.0], "x", lower=0.0)
    with pytest.raises(InputError, match=r"^x must be in \(-inf, inf\); got -inf$"):
        as_float_array(-np.inf, "x")
    assert as_float_array([np.inf], "x", lower=0.0, allow_inf=True)[0] == np.inf
    with pytest.raises(InputError, match=r"got -inf"):
        as_float_array([-np.inf], "x", lower=0.0, allow_inf=True)


def test_exclusive_upper_bound_and_hint():
    with pytest.raises(InputError, match=r"^f must be in \[0, 1\); got 1 at index 0 \(1 of 1 "
                                         r"values invalid\)\. Give a fraction below 1$"):
        as_float_array([1.0], "f", lower=0.0, upper=1.0, upper_inclusive=False,
                       hint="Give a fraction below 1")


def test_non_numeric_input():
    with pytest.raises(InputError, match=r"^cn must be numeric; got 'abc'$"):
        as_float_array("abc", "cn")
    with pytest.raises(InputError, match=r"^cn must be numeric"):
        as_float_array([1.0, "x"], "cn")


def test_bounds_exactly_at_the_limits_are_accepted():
    out = as_float_array([0.0, 100.0], "cn", lower=0.0, upper=100.0)
    assert out.tolist() == [0.0, 100.0]
    with pytest.raises(InputError, match=r"got 0 at index 0"):
        as_float_array([0.0, 100.0], "cn", lower=0.0, lower_inclusive=False, upper=100.0)


# --- containers and return value -------------------------------------------------------------


def test_returns_float64_arrays_without_copying_valid_float_input():
    x = np.linspace(0.0, 1.0, 11)
    assert as_float_array(x, "x", lower=0.0) is x
    assert as_float_array(3, "x").shape == ()
    assert as_float_array(3, "x").dtype == np.float64
    s = pd.Series([1.0, 2.0], index=["a", "b"])
    assert isinstance(as_float_array(s, "s"), np.ndarray)
    assert as_float_array(np.arange(3, dtype=np.int32), "x").dtype == np.float64
    assert as_float_array([], "x", lower=0.0).shape == (0,)


def test_series_messages_use_positions():
    s = pd.Series([1.0, -1.0], index=[10, 20])
    with pytest.raises(InputError, match=r"got -1 at index 1 \(1 of 2 values invalid\)"):
        as_float_array(s, "s", lower=0.0)


def test_array_valued_bounds_still_checked_element_wise():
    with pytest.raises(InputError, match=r"got 3 at index 1"):
        as_float_array([1.0, 3.0], "x", upper=np.array([2.0, 2.5]))
    assert as_float_array([1.0, 2.0], "x", upper=np.array([2.0, 2.5])).tolist() == [1.0, 2.0]


def test_large_input_takes_the_fast_path_and_still_reports_exactly():
    x = np.linspace(0.0, 10.0, 1_000_000)
    assert as_float_array(x, "x", lower=0.0, upper=10.0) is x
    x[[400_000, 700_000]] = [-1.0, np.nan]
    with pytest.raises(InputError, match=r"^x must be in \[0, 10\]; got -1 at index 400000 "
                                         r"\(2 of 1000000 values invalid\)$"):
        as_float_array(x, "x", lower=0.0, upper=10.0)


# --- the fast path agrees with the element-wise definition -------------------------------------

_values = st.one_of(st.floats(-5, 5), st.sampled_from([np.nan, np.inf, -np.inf, 0.0, -0.0, 1.0]))


@settings(max_examples=300, deadline=None)
@given(
    arr=hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=2, min_side=0,
                                                max_side=6), elements=_values),
    lower=st.sampled_from([None, 0.0, 1.0, -1.0]),
    upper=st.sampled_from([None, 0.0, 1.0, 5.0]),
    lower_inclusive=st.booleans(),
    upper_inclusive=st.booleans(),
    allow_nan=st.booleans(),
    allow_inf=st.booleans(),
)
def test_fast_path_matches_element_wise_definition(arr, lower, upper, lower_inclusive,
                                                   upper_inclusive, allow_nan, allow_inf):
    kw = dict(lower=lower, upper=upper, lower_inclusive=lower_inclusive,
              upper_inclusive=upper_inclusive, allow_nan=allow_nan, allow_inf=allow_inf)
    expected = _reference_check(arr, "v", **kw)
    if expected is None:
        out = as_float_array(arr, "v", **kw)
        assert out.shape == arr.shape
        np.testing.assert_array_equal(out, arr)
    else:
        with pytest.raises(InputError, match="^" + re.escape(expected) + "$"):
            as_float_array(arr, "v", **kw)
