r"""Rational method: peak discharge of small drainage areas and related estimates.

Composite C, intensity from a NOAA Atlas 14 depth-frequency table, and the modified
rational hydrograph and storage estimate.

* :func:`rational_peak_cfs`: :math:`Q = C i A` [1]_ [2]_.
* :func:`composite_c`: area-weighted runoff coefficient [2]_.
* :func:`runoff_coefficient_range`: the (low, high) range of C for a land use, from the
  shipped table ``rational_runoff_coefficients`` (ASCE/WPCF 1969 as in HEC-22 Table 3-1). A
  range, never a default value: the designer chooses C and passes it explicitly.
* :func:`intensity_in_hr`: average intensity = depth / duration from a
  :class:`hydrocalc.design_storms.DepthFrequencyTable` (a NOAA Atlas 14 PFDS import).
* :func:`modified_rational_hydrograph` and :func:`modified_rational_storage`: the
  trapezoidal hydrograph of a storm of duration :math:`T_d \ge t_c` and the detention storage
  it needs for an allowable release, maximized over storm durations [3]_.

Symbols
-------
=================  =======  =====================================================
API name           Unit     Meaning
=================  =======  =====================================================
c                  -        runoff coefficient (0, 1]
intensity_in_hr    in/h     average rainfall intensity for the duration
area_ac            ac       drainage area
tc_hr              h        time of concentration
duration_hr        h        storm duration T_d
allowable_cfs      ft3/s    allowable (constant) release
=================  =======  =====================================================

References
----------
.. [1] Kuichling, E., "The relation between the rainfall and the discharge of sewers in
   populous districts", Transactions ASCE 20, 1-56, 1889.
.. [2] FHWA, *Urban Drainage Design Manual*, HEC-22, 3rd ed., FHWA-NHI-10-009, 2009,
   Section 3.2.2 (rational method: Q = C i A / K_u, K_u = 1.0 in US units; composite C;
   Table 3-1 runoff coefficients).
.. [3] Poertner, H.G., *Practices in Detention of Urban Stormwater Runoff*, American Public
   Works Association, Special Report No. 43, 1974 (modified rational method: trapezoidal
   inflow hydrograph, storage maximized over storm durations).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.data import load_table
from hydrocalc.errors import InputError
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.units import S_PER_HR

__all__ = ["rational_peak_cfs", "composite_c", "runoff_coefficient_range", "intensity_in_hr",
           "modified_rational_hydrograph", "modified_rational_storage"]


def rational_peak_cfs(c: npt.ArrayLike, intensity_in_hr: npt.ArrayLike, area_ac: npt.ArrayLike):
    r"""Peak discharge by the rational formula, :math:`Q = C\,i\,A` [ft3/s].

    Parameters
    ----------
    c : array_like
        Runoff coefficient in (0, 1]. [-]
    intensity_in_hr : array_like
        Average intensity for a duration equal to the time of concentration, >= 0. [in/h]
    area_ac : array_like
        Drainage area, >= 0. [ac]

    Returns
    -------
    float, ndarray or Series
        Peak discharge. [ft3/s]

    Notes
    -----
    With i in in/h and A in acres, C i A is in ac-in/h = 1.008 ft3/s; the factor is taken as
    1.0 by the method's convention (HEC-22 [2]_ Eq. 3-1, :math:`K_u = 1.0`). Intended for
    small drainage areas (local rules typically cap it at 20 to 200 acres).

    References
    ----------
    .. [2] FHWA, *Urban Drainage Design Manual*, HEC-22, 3rd ed., FHWA-NHI-10-009, 2009,
       Section 3.2.2 (rational method: Q = C i A / K_u, K_u = 1.0 in US units; composite C;
       Table 3-1 runoff coefficients).

    Examples
    --------
    >>> round(rational_peak_cfs(0.11, 1.25, 30.0), 3)
    4.125
    """
    cc = as_float_array(c, "c", lower=0.0, upper=1.0, lower_inclusive=False)
    i = as_float_array(intensity_in_hr, "intensity_in_hr", lower=0.0)
    a = as_float_array(area_ac, "area_ac", lower=0.0)
    return like(cc * i * a, c, intensity_in_hr, area_ac)


def composite_c(c: npt.ArrayLike, area_ac: npt.ArrayLike) -> float:
    r"""Area-weighted runoff coefficient :math:`C = \sum C_j A_j / \sum A_j` ([2]_) [-].

    Raises
    ------
    InputError
        If the lists differ in length, a C is outside (0, 1], or the total area is 0.

    References
    ----------
    .. [2] FHWA, *Urban Drainage Design Manual*, HEC-22, 3rd ed., FHWA-NHI-10-009, 2009,
       Section 3.2.2 (rational method: Q = C i A / K_u, K_u = 1.0 in US units; composite C;
       Table 3-1 runoff coefficients).

    Examples
    --------
    >>> composite_c([0.9, 0.2], [1.0, 3.0])
    0.375
    """
    cc = np.atleast_1d(as_float_array(c, "c", lower=0.0, upper=1.0, lower_inclusive=False))
    a = np.atleast_1d(as_float_array(area_ac, "area_ac", lower=0.0))
    if cc.shape != a.shape:
        raise InputError(f"c and area_ac must have one value per sub-area; got {cc.size} and "
                         f"{a.size}")
    total = float(a.sum())
    if total <= 0.0:
        raise InputError("area_ac must add up to more than 0; got 0")
    return float((cc * a).sum() / total)


def runoff_coefficient_range(cover: str) -> tuple[float, float]:
    """The (low, high) runoff coefficient of a land use, from a shipped table.

    The table is ``rational_runoff_coefficients`` (``hydrocalc tables show
    rational_runoff_coefficients``).

    Raises
    ------
    InputError
        For an unknown cover key (with the closest keys).

    Examples
    --------
    >>> runoff_coefficient_range("business_downtown")
    (0.7, 0.95)
    """
    table = load_table("rational_runoff_coefficients")
    keys = table["key"].tolist()
    if cover not in keys:
        raise InputError(f"cover must be a key of rational_runoff_coefficients; got "
                         f"{cover!r}{suggest(str(cover), keys)}")
    row = table[table["key"] == cover].iloc[0]
    return float(row.c_low), float(row.c_high)


def intensity_in_hr(table, return_period_yr, duration_hr: float) -> float:
    r"""Average intensity = depth / duration from a depth-frequency table [in/h].

    Parameters
    ----------
    table : hydrocalc.design_storms.DepthFrequencyTable
        E.g. a NOAA Atlas 14 PFDS import (``read_pfds_csv``).
    return_period_yr : int or float
        A return period of the table. [yr]
    duration_hr : float
        Duration (the time of concentration for a peak), within the table's durations. [h]

    Returns
    -------
    float
        Intensity. [in/h]

    Notes
    -----
    Between tabulated durations the depth is interpolated linearly in log(depth) versus
    log(duration) (depth-duration curves are close to power laws between the PFDS
    durations); a duration outside the table raises rather than extrapolates.

    Raises
    ------
    InputError
        For a duration outside the table or an unknown return period.
    """
    d = float(as_float_array(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False))
    hours = np.asarray(table.duration_hr, dtype=float)
    labels = list(table.durations)
    order = np.argsort(hours)
    hours = hours[order]
    labels = [labels[k] for k in order]
    if not (hours[0] * (1 - 1e-9) <= d <= hours[-1] * (1 + 1e-9)):
        raise InputError(f"duration_hr must be within the table's durations "
                         f"[{fmt_value(hours[0])}, {fmt_value(hours[-1])}] h; got "
                         f"{fmt_value(d)}. Use a table that covers the time of concentration")
    depths = np.array([table.depth(return_period_yr, lb) for lb in labels], dtype=float)
    depth = float(np.exp(np.interp(np.log(d), np.log(hours), np.log(depths))))
    return depth / d


def modified_rational_hydrograph(c: float, area_ac: float, tc_hr: float, duration_hr: float,
                                 intensity_in_hr: float, *, dt_hr: float = 0.01) -> Hydrograph:
    r"""Trapezoidal hydrograph of the modified rational method ([3]_).

    Rises linearly to :math:`Q = C i A` over :math:`t_c`, holds it until :math:`T_d`, and
    falls linearly to 0 over :math:`t_c` (:math:`T_d = t_c` gives a triangle).

    Raises
    ------
    InputError
        If ``duration_hr < tc_hr`` or an argument is out of range.

    References
    ----------
    .. [3] Poertner, H.G., *Practices in Detention of Urban Stormwater Runoff*, American Public
       Works Association, Special Report No. 43, 1974 (modified rational method: trapezoidal
       inflow hydrograph, storage maximized over storm durations).

    Examples
    --------
    >>> h = modified_rational_hydrograph(0.5, 10.0, 0.25, 1.0, 2.0, dt_hr=0.05)
    >>> round(h.peak_cfs, 6), round(h.volume_ft3)                 # Q Td 3600
    (10.0, 36000)
    """
    q = float(rational_peak_cfs(c, intensity_in_hr, area_ac))
    tc = float(as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False))
    td = float(as_float_array(duration_hr, "duration_hr", lower=0.0, lower_inclusive=False))
    if td < tc * (1 - 1e-12):
        raise InputError(f"duration_hr must be >= tc_hr ({fmt_value(tc)} h); got "
                         f"{fmt_value(td)}. Shorter storms do not reach the full area")
    dt = float(as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    t = np.arange(0.0, td + tc + dt / 2, dt)
    flow = q * np.clip(np.minimum(t / tc, (td + tc - t) / tc), 0.0, 1.0)
    return Hydrograph(t, flow, area_ac=float(area_ac))


def modified_rational_storage(c: float, area_ac: float, tc_hr: float, allowable_cfs: float,
                              intensity, durations_hr: npt.ArrayLike) -> dict:
    r"""Detention storage by the modified rational method, maximized over storm durations.

    For each duration :math:`T_d \ge t_c` with :math:`Q = C\,i(T_d)\,A`, the storage is the
    inflow volume (the trapezoid's area, :math:`Q T_d`) less the outflow volume when the
    release rises linearly from 0 to :math:`Q_a` over the whole inflow, :math:`T_d + t_c`
    ([3]_; a conservative, planning-level estimate):

    .. math:: V(T_d) = 3600 \left[Q\,T_d - Q_a\,\frac{T_d + t_c}{2}\right]
       \quad [\mathrm{ft^3}],\ T \text{ in h}

    Parameters
    ----------
    c, area_ac, tc_hr : float
    allowable_cfs : float
        Allowable release Q_a (e.g. the pre-development peak), > 0. [ft3/s]
    intensity : callable
        ``intensity(duration_hr) -> in/h``, e.g.
        ``lambda d: intensity_in_hr(table, 10, d)``.
    durations_hr : array_like
        Storm durations to try (those below ``tc_hr`` are skipped). [h]

    Returns
    -------
    dict
        ``storage_ft3`` (the maximum, >= 0), ``critical_duration_hr``, ``peak_inflow_cfs``
        (at the critical duration) and per duration ``durations_hr``, ``storages_ft3``.

    Raises
    ------
    InputError
        If no duration is >= ``tc_hr``.

    References
    ----------
    .. [3] Poertner, H.G., *Practices in Detention of Urban Stormwater Runoff*, American Public
       Works Association, Special Report No. 43, 1974 (modified rational method: trapezoidal
       inflow hydrograph, storage maximized over storm durations).
    """
    tc = float(as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False))
    qa = float(as_float_array(allowable_cfs, "allowable_cfs", lower=0.0, lower_inclusive=False))
    d = np.atleast_1d(as_float_array(durations_hr, "durations_hr", lower=0.0,
                                     lower_inclusive=False))
    d = d[d >= tc * (1 - 1e-12)]
    if d.size == 0:
        raise InputError(f"durations_hr must include durations >= tc_hr ({fmt_value(tc)} h); "
                         "got none")
    q = np.array([float(rational_peak_cfs(c, intensity(x), area_ac)) for x in d])
    v = S_PER_HR * (q * d - qa * (d + tc) / 2.0)
    k = int(np.argmax(v))
    return {"storage_ft3": float(max(v[k], 0.0)), "critical_duration_hr": float(d[k]),
            "peak_inflow_cfs": float(q[k]), "durations_hr": d, "storages_ft3": v}
