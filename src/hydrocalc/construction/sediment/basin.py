r"""Geometry of a rectangular-bottom basin with uniform side slopes: volume, area, stage.

The prismoidal formula is exact for this solid; :func:`trapezoidal_basin_stage` inverts the
volume. Used for sediment traps and basins sized by :mod:`hydrocalc.construction.sediment`.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hydrocalc._typing import FloatOrArray
from hydrocalc._validate import as_float_array, like

# ----------------------------------------------------------------------------------------
# geometry


def trapezoidal_basin_volume(
    stage_ft: npt.ArrayLike,
    bottom_length_ft: float,
    bottom_width_ft: float,
    side_slope_h_per_v: float,
) -> FloatOrArray:
    r"""Storage below ``stage_ft`` of a rectangular-bottom basin with uniform side slopes.

    Parameters
    ----------
    stage_ft : numeric
        Height above the bottom, >= 0. [ft]
    bottom_length_ft, bottom_width_ft : float
        Bottom dimensions L and W, > 0. [ft]
    side_slope_h_per_v : float
        Side slope z (horizontal per vertical), >= 0. [ft/ft]

    Returns
    -------
    storage_ft3 : numeric
        Volume below the stage. [ft3]

    Notes
    -----
    Prismoidal formula :math:`V = h (A_1 + 4 A_m + A_2)/6`, exact for this solid, which
    expands to

    .. math:: V(h) = L W h + z (L + W) h^2 + \tfrac{4}{3} z^2 h^3 .

    Examples
    --------
    >>> trapezoidal_basin_volume(4.0, 40.0, 20.0, 2.0)   # 3200 + 1920 + 341.33
    5461.333333333333
    """
    h = as_float_array(stage_ft, "stage_ft", lower=0.0)
    length, width, z = _geometry(bottom_length_ft, bottom_width_ft, side_slope_h_per_v)
    vol = length * width * h + z * (length + width) * h**2 + 4.0 / 3.0 * z**2 * h**3
    return like(vol, stage_ft)


def trapezoidal_basin_area(
    stage_ft: npt.ArrayLike,
    bottom_length_ft: float,
    bottom_width_ft: float,
    side_slope_h_per_v: float,
) -> FloatOrArray:
    """Water-surface area ``(L + 2 z h)(W + 2 z h)`` at ``stage_ft`` [ft2].

    Examples
    --------
    >>> trapezoidal_basin_area(4.0, 40.0, 20.0, 2.0)
    2016.0
    """
    h = as_float_array(stage_ft, "stage_ft", lower=0.0)
    length, width, z = _geometry(bottom_length_ft, bottom_width_ft, side_slope_h_per_v)
    return like((length + 2 * z * h) * (width + 2 * z * h), stage_ft)


def trapezoidal_basin_stage(
    storage_ft3: npt.ArrayLike,
    bottom_length_ft: float,
    bottom_width_ft: float,
    side_slope_h_per_v: float,
) -> FloatOrArray:
    r"""Stage at which the basin of :func:`trapezoidal_basin_volume` holds ``storage_ft3``.

    Solves the cubic :math:`V(h) = V` by Newton's method started at the upper bound
    :math:`h_0 = V/(LW)`; :math:`V(h)` is increasing and convex, so the iterates decrease
    monotonically to the root (converged to 1e-12 relative).

    Returns
    -------
    stage_ft : numeric
        [ft]

    Examples
    --------
    >>> round(trapezoidal_basin_stage(5461.333333333333, 40.0, 20.0, 2.0), 9)
    4.0
    """
    v = as_float_array(storage_ft3, "storage_ft3", lower=0.0)
    length, width, z = _geometry(bottom_length_ft, bottom_width_ft, side_slope_h_per_v)
    h = v / (length * width)
    for _ in range(100):
        f = length * width * h + z * (length + width) * h**2 + 4.0 / 3.0 * z**2 * h**3 - v
        df = (length + 2 * z * h) * (width + 2 * z * h)
        step = f / df
        h = h - step
        if np.all(np.abs(step) <= 1e-12 * np.maximum(h, 1.0)):
            break
    return like(h, storage_ft3)


def _geometry(length, width, z):
    length = float(as_float_array(length, "bottom_length_ft", lower=0.0, lower_inclusive=False))
    width = float(as_float_array(width, "bottom_width_ft", lower=0.0, lower_inclusive=False))
    z = float(as_float_array(z, "side_slope_h_per_v", lower=0.0))
    return length, width, z
