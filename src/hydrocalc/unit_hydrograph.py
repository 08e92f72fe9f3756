r"""NRCS (SCS) synthetic unit hydrographs, NEH Part 630 Chapter 16.

A unit hydrograph is the direct-runoff hydrograph from 1 inch of runoff generated uniformly
over the watershed during one unit duration :math:`D`. The NRCS curvilinear dimensionless
unit hydrograph (Table 16-1, peak rate factor 484) is scaled by the time to peak
:math:`T_p` and the peak :math:`q_p`; other peak rate factors use the gamma-equation shape of
NEH 630 Ch. 16 (Table 16-5); a user may also supply a dimensionless table.

Conventions (see ``docs/hydrographs.md`` for how they compare with WinTR-20 and HydroCAD):

* :math:`D` is the computation step ``dt_hr``; :math:`T_p = D/2 + L` with the lag
  :math:`L = 0.6\,T_c`.
* ``dt_hr`` must resolve the peak: :math:`D \le 0.25\,T_p` (NEH 630 Ch. 16), i.e.
  ``dt_hr <= 0.1714 tc_hr``; :func:`nrcs_unit_hydrograph` raises
  :class:`~hydrocalc.errors.InputError` for a coarser step (its D *is* ``dt_hr``). The
  runoff-hydrograph functions of :mod:`hydrocalc.hydrograph` instead refine internally, with
  a RangeWarning, up to a step as long as the lag.
* :math:`T_c` below 0.1 h is raised to 0.1 h with a
  :class:`~hydrocalc.errors.RangeWarning`, as TR-20 does.
* The dimensionless curve is interpolated linearly at ``t = 0, D, 2D, ...`` and the
  ordinates are then scaled so the discretized unit hydrograph holds **exactly 1 inch**
  (the trapezoidal area under the printed Table 16-1 is 1.336, not the 1.333 implied by
  PRF 484, and sampling adds a further small error).

Symbols
-------
==============  ==========  ======  ==================================================
API name        Symbol      Unit    Meaning
==============  ==========  ======  ==================================================
area_mi2        A           mi2     drainage area
tc_hr           Tc          h       time of concentration
lag_hr          L           h       watershed lag, 0.6 Tc
dt_hr           D           h       unit duration = computation step
tp_hr           Tp          h       time to peak, D/2 + L
prf             PRF         -       peak rate factor (484 standard, 284 Delmarva)
m               m           -       gamma-equation shape factor (3.7 for PRF 484)
t_over_tp       t/Tp        -       dimensionless time
q_over_qp       q/qp        -       dimensionless discharge
qp_cfs          qp          ft3/s   peak discharge, PRF A Q / Tp
==============  ==========  ======  ==================================================

References
----------
.. [1] USDA NRCS, "National Engineering Handbook Part 630 Hydrology, Chapter 16
   Hydrographs," 210-VI-NEH, March 2007: Table 16-1 (dimensionless unit hydrograph,
   PRF 484), Table 16-5 (gamma shape factor m vs PRF), Eq. 16-1 .. 16-6.
.. [2] USDA NRCS, "National Engineering Handbook Part 630 Hydrology, Chapter 15 Time of
   Concentration," 210-VI-NEH, May 2010: L = 0.6 Tc.
.. [3] USDA NRCS, "WinTR-20 Project Formulation Hydrology," user guide, 2015
   (Tc < 0.1 h is set to 0.1 h).
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array, fmt_value, like
from hydrocalc.data import load_table
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.timeseries import Hydrograph
from hydrocalc.units import AC_PER_MI2, FT2_PER_MI2, IN_PER_FT, S_PER_HR

__all__ = [
    "PEAK_RATE_FACTOR",
    "MIN_TC_HR",
    "MAX_D_OVER_TP",
    "CFS_HR_PER_MI2_IN",
    "lag_hr",
    "time_to_peak_hr",
    "peak_discharge_cfs",
    "gamma_shape_factor",
    "gamma_peak_rate_factor",
    "dimensionless_unit_hydrograph",
    "max_dt_hr",
    "effective_tc_hr",
    "nrcs_unit_hydrograph",
    "unit_hydrograph_ordinates",
]

#: Standard NRCS peak rate factor, NEH 630 Ch. 16 (dimensionless UH of Table 16-1).
PEAK_RATE_FACTOR = 484.0
#: TR-20 / WinTR-20 lower limit on Tc; smaller values are raised to it. [h]
MIN_TC_HR = 0.1
#: NEH 630 Ch. 16: the unit duration D should not exceed 0.25 Tp.
MAX_D_OVER_TP = 0.25
#: Lag as a fraction of Tc, NEH 630 Ch. 15 (L = 0.6 Tc).
LAG_OVER_TC = 0.6
#: Flow that carries 1 inch over 1 mi2 in 1 hour: 640 ac x 43560 ft2 / 12 / 3600 = 645.33.
CFS_HR_PER_MI2_IN = FT2_PER_MI2 / IN_PER_FT / S_PER_HR
#: The gamma-form tail is cut where less than this fraction of its volume remains.
_GAMMA_TAIL_FRAC = 1e-6


def lag_hr(tc_hr: npt.ArrayLike):
    r"""Watershed lag :math:`L = 0.6\,T_c`, NEH 630 Ch. 15 (Eq. 15-3) [h].

    Examples
    --------
    >>> lag_hr(0.5)
    0.3
    """
    tc = as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False)
    return like(LAG_OVER_TC * tc, tc_hr)


def time_to_peak_hr(tc_hr: npt.ArrayLike, dt_hr: float):
    r"""Time to peak :math:`T_p = D/2 + L`, NEH 630 Ch. 16 (Eq. 16-2) [h].

    Parameters
    ----------
    tc_hr : array_like
        Time of concentration. [h]
    dt_hr : float
        Unit duration :math:`D` (the computation step). [h]

    Examples
    --------
    >>> round(time_to_peak_hr(1.0, 0.1), 6)
    0.65
    """
    tc = as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False)
    d = as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False)
    return like(d / 2.0 + LAG_OVER_TC * tc, tc_hr)


def peak_discharge_cfs(area_mi2, runoff_in, tp_hr, *, prf: float = PEAK_RATE_FACTOR):
    r"""Unit-hydrograph peak :math:`q_p = PRF\,A\,Q / T_p`, NEH 630 Ch. 16 (Eq. 16-1) [ft3/s].

    Parameters
    ----------
    area_mi2 : array_like
        Drainage area. [mi2]
    runoff_in : array_like
        Runoff depth (1 for a unit hydrograph). [in]
    tp_hr : array_like
        Time to peak. [h]
    prf : float, default 484
        Peak rate factor. [-]

    Examples
    --------
    >>> round(peak_discharge_cfs(1.0, 1.0, 1.0), 1)
    484.0
    """
    a = as_float_array(area_mi2, "area_mi2", lower=0.0)
    q = as_float_array(runoff_in, "runoff_in", lower=0.0)
    tp = as_float_array(tp_hr, "tp_hr", lower=0.0, lower_inclusive=False)
    k = as_float_array(prf, "prf", lower=0.0, lower_inclusive=False)
    return like(k * a * q / tp, area_mi2, runoff_in, tp_hr)


def gamma_peak_rate_factor(m: npt.ArrayLike):
    r"""Peak rate factor of the gamma-equation dimensionless unit hydrograph [-].

    Notes
    -----
    The gamma-equation DUH of NEH 630 Ch. 16 is
    :math:`q/q_p = e^{m}\,(t/T_p)^{m}\,e^{-m\,t/T_p}`. Its area in :math:`t/T_p` units is
    :math:`e^{m}\,\Gamma(m+1)/m^{m+1}`, and a unit hydrograph holding 1 inch needs
    :math:`PRF = 645.33 / \text{area}` (645.33 cfs-h carries 1 in over 1 mi2). This is the
    relation tabulated in NEH 630 Table 16-5 (m = 3.7 for PRF 484; 1 for 238).

    Examples
    --------
    >>> round(gamma_peak_rate_factor(3.7))
    484
    """
    from scipy import special  # imported when needed: keeps the CLI start fast

    mm = as_float_array(m, "m", lower=0.0, lower_inclusive=False)
    log_area = mm + special.gammaln(mm + 1.0) - (mm + 1.0) * np.log(mm)
    return like(CFS_HR_PER_MI2_IN * np.exp(-log_area), m)


@functools.lru_cache(maxsize=256)
def _gamma_m(prf: float) -> float:
    from scipy import optimize  # imported when needed: keeps the CLI start fast

    return float(
        optimize.brentq(lambda m: gamma_peak_rate_factor(m) - prf, 1e-4, 1e4, xtol=1e-14)
    )


def gamma_shape_factor(prf: npt.ArrayLike):
    """Gamma-equation shape factor ``m`` giving peak rate factor ``prf`` (NEH 630 Table 16-5).

    Solves :func:`gamma_peak_rate_factor` for ``m`` (brentq); reproduces Table 16-5
    (e.g. PRF 484 -> m = 3.7, PRF 238 -> m = 1.0). [-]

    Examples
    --------
    >>> round(gamma_shape_factor(484), 2)
    3.7
    """
    k = as_float_array(prf, "prf", lower=0.0, lower_inclusive=False)
    out = np.vectorize(_gamma_m, otypes=[float])(k) if k.ndim else np.asarray(_gamma_m(float(k)))
    return like(out, prf)


def _validate_dimensionless(t_over_tp, q_over_qp) -> tuple[np.ndarray, np.ndarray]:
    t = as_float_array(t_over_tp, "t_over_tp", lower=0.0)
    q = as_float_array(q_over_qp, "q_over_qp", lower=0.0)
    if t.ndim != 1 or q.ndim != 1 or t.size != q.size or t.size < 3:
        raise InputError(
            "t_over_tp and q_over_qp must be 1-D arrays of equal length >= 3; got shapes "
            f"{t.shape} and {q.shape}"
        )
    if t[0] != 0.0 or q[0] != 0.0:
        raise InputError(
            f"a dimensionless unit hydrograph must start at (0, 0); got ({fmt_value(t[0])}, "
            f"{fmt_value(q[0])})"
        )
    if np.any(np.diff(t) <= 0):
        i = int(np.flatnonzero(np.diff(t) <= 0)[0]) + 1
        raise InputError(
            f"t_over_tp must increase strictly; got {fmt_value(t[i])} after "
            f"{fmt_value(t[i - 1])} at index {i}"
        )
    if q[-1] != 0.0:
        raise InputError(
            f"q_over_qp must end at 0 (the recession must be complete); got {fmt_value(q[-1])} "
            f"at t/Tp = {fmt_value(t[-1])}. Append a final row with q/qp = 0"
        )
    ipk = int(np.argmax(q))
    if abs(q[ipk] - 1.0) > 1e-3 or abs(t[ipk] - 1.0) > 0.05:
        raise InputError(
            f"q_over_qp must peak at 1 at t/Tp = 1; got a peak of {fmt_value(q[ipk])} at "
            f"t/Tp = {fmt_value(t[ipk])}. Normalize the table by qp and Tp"
        )
    return t, q


@functools.cache
def _table_16_1() -> tuple[np.ndarray, np.ndarray]:
    frame = load_table("nrcs_dimensionless_uh")
    return _validate_dimensionless(frame["t_over_tp"].to_numpy(), frame["q_over_qp"].to_numpy())


def dimensionless_unit_hydrograph(prf: float = PEAK_RATE_FACTOR, *, n_points: int = 501):
    r"""The dimensionless unit hydrograph used for peak rate factor ``prf``.

    Parameters
    ----------
    prf : float, default 484
        Peak rate factor. 484 returns NEH 630 Table 16-1 as printed; any other value the
        gamma-equation shape with ``m`` from :func:`gamma_shape_factor` (NEH 630 Table 16-5).
    n_points : int, default 501
        Number of points for the gamma shape (ignored for 484).

    Returns
    -------
    pandas.DataFrame
        Columns ``t_over_tp`` and ``q_over_qp``, from (0, 0), peaking at (1, 1) and ending
        at q/qp = 0.

    Examples
    --------
    >>> duh = dimensionless_unit_hydrograph()
    >>> float(duh.q_over_qp.max()), float(duh.t_over_tp.iloc[-1])
    (1.0, 5.0)
    """
    import pandas as pd

    k = float(as_float_array(prf, "prf", lower=0.0, lower_inclusive=False))
    if k == PEAK_RATE_FACTOR:
        t, q = _table_16_1()
    else:
        m = _gamma_m(k)
        x_end = _gamma_end(m)
        t = np.linspace(0.0, x_end, int(n_points))
        q = _gamma_shape(t, m)
        q[-1] = 0.0
    return pd.DataFrame({"t_over_tp": t, "q_over_qp": q})


def _gamma_end(m: float) -> float:
    """t/Tp beyond which less than _GAMMA_TAIL_FRAC of the gamma DUH volume remains."""
    from scipy import special

    return float(special.gammainccinv(m + 1.0, _GAMMA_TAIL_FRAC) / m)


def _gamma_shape(x: np.ndarray, m) -> np.ndarray:
    """NEH 630 Ch. 16 gamma equation, q/qp = (x e^(1 - x))^m, x = t/Tp."""
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore"):
        logq = m * (np.log(x) + 1.0 - x)
    return np.where(x > 0, np.exp(logq), 0.0)


def effective_tc_hr(tc_hr: npt.ArrayLike) -> np.ndarray:
    """Tc with values below 0.1 h raised to 0.1 h (TR-20 rule) and a RangeWarning [h].

    Raises
    ------
    InputError
        If a Tc is not positive or is NaN.

    Warns
    -----
    RangeWarning
        Naming how many values were raised.
    """
    tc = as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False,
                        hint="Tc must be positive (TR-20 raises Tc < 0.1 h to 0.1 h)")
    low = tc < MIN_TC_HR
    if low.any():
        k = int(low.sum())
        warnings.warn(
            f"tc_hr below {MIN_TC_HR:g} h (6 min) raised to {MIN_TC_HR:g} h as TR-20 does "
            f"({k} of {low.size} values; smallest {fmt_value(tc.min())} h)",
            RangeWarning,
            stacklevel=3,
        )
        tc = np.where(low, MIN_TC_HR, tc)
    return tc


def max_dt_hr(tc_hr: npt.ArrayLike):
    r"""Largest step that resolves the unit hydrograph, :math:`D \le 0.25\,T_p` [h].

    With :math:`T_p = D/2 + 0.6\,T_c`, :math:`D \le 0.25 T_p` gives
    :math:`D \le 0.15\,T_c / 0.875 = 0.1714\,T_c` (NEH 630 Ch. 16).

    Examples
    --------
    >>> round(max_dt_hr(0.1), 5)
    0.01714
    """
    tc = as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False)
    return like(MAX_D_OVER_TP * LAG_OVER_TC * tc / (1.0 - MAX_D_OVER_TP / 2.0), tc_hr)


def _check_dt(tc: np.ndarray, dt: float) -> None:
    limit = np.atleast_1d(max_dt_hr(tc))
    tcs = np.atleast_1d(tc)
    bad = dt > limit * (1.0 + 1e-9)
    if bad.any():
        i = int(np.argmin(limit))
        where = "" if tcs.size == 1 else (
            f" ({int(bad.sum())} of {bad.size} subcatchments unresolved; tightest at index {i})"
        )
        raise InputError(
            f"dt_hr must be <= {limit[i]:.4g} h to resolve the unit hydrograph (D <= 0.25 Tp, "
            f"NEH 630 Ch. 16, for tc_hr = {fmt_value(tcs[i])}); got {fmt_value(dt)}{where}. "
            f"Use dt_hr <= {np.floor(limit[i] * 1e4) / 1e4:g} (0.01 h resolves any Tc >= 0.1 h)"
        )


def _tabulated_shape(t_over_tp, q_over_qp):
    """(end of the curve in t/Tp, evaluator) of a tabulated dimensionless UH (linear)."""
    t_tab, q_tab = _validate_dimensionless(t_over_tp, q_over_qp)
    return float(t_tab[-1]), lambda x: np.interp(x, t_tab, q_tab, right=0.0)


def _shape_for_prf(prf: float):
    """(end in t/Tp, evaluator): Table 16-1 for PRF 484, the gamma form otherwise."""
    if prf == PEAK_RATE_FACTOR:
        return _tabulated_shape(*_table_16_1())
    m = _gamma_m(prf)
    x_end = _gamma_end(m)
    return x_end, lambda x: np.where(x < x_end, _gamma_shape(x, m), 0.0)


def unit_hydrograph_ordinates(
    area_ac: npt.ArrayLike,
    tc_hr: npt.ArrayLike,
    *,
    dt_hr: float,
    prf: npt.ArrayLike = PEAK_RATE_FACTOR,
    dimensionless=None,
) -> np.ndarray:
    r"""Unit-hydrograph ordinates of many subcatchments at once (cfs per inch of runoff).

    Vectorized core of :func:`nrcs_unit_hydrograph`: one dimensionless curve evaluated on
    every subcatchment's :math:`t/T_p` grid with one interpolation call, then each row
    scaled to hold exactly 1 inch. ``tc_hr`` is used as given (apply
    :func:`effective_tc_hr` first).

    Parameters
    ----------
    area_ac : array_like, shape (n,)
        Drainage areas. [ac]
    tc_hr : array_like, shape (n,)
        Times of concentration (>= 0.1 h expected). [h]
    dt_hr : float
        Step = unit duration D. [h]
    prf : float or array_like, shape (n,)
        Peak rate factors (484: Table 16-1; others: gamma form).
    dimensionless : tuple of array_like, optional
        ``(t_over_tp, q_over_qp)`` of a user dimensionless UH, used for every row.

    Returns
    -------
    numpy.ndarray, shape (n, L)
        Ordinates at ``t = 0, dt, ..., (L-1) dt``; first and last are 0; each row sums to
        ``area_ac * 43560 / 12 / (dt * 3600)`` (1 inch). [ft3/s per in]

    Raises
    ------
    InputError
        If ``dt_hr`` cannot resolve the unit hydrograph of some row (D > 0.25 Tp).
    """
    area = np.atleast_1d(as_float_array(area_ac, "area_ac", lower=0.0, lower_inclusive=False))
    tc = np.atleast_1d(as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False))
    dt = float(as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    k = np.broadcast_to(
        np.atleast_1d(as_float_array(prf, "prf", lower=0.0, lower_inclusive=False)), tc.shape
    )
    _check_dt(tc, dt)
    tp = dt / 2.0 + LAG_OVER_TC * tc  # NEH 630 Eq. 16-2 with D = dt
    # One dimensionless shape per distinct PRF (a loop over PRF values, not over rows).
    if dimensionless is not None:
        groups = [(np.ones(tc.shape, bool), *_tabulated_shape(*dimensionless))]
    else:
        groups = [(k == value, *_shape_for_prf(float(value))) for value in np.unique(k)]
    x_end_row = np.empty(tc.shape)
    for mask, x_end, _ in groups:
        x_end_row[mask] = x_end
    # ordinates j = 0 .. L-1 with (L-1) dt >= x_end Tp, so the last ordinate is 0.
    n_ord = int(np.ceil(np.max(x_end_row * tp) / dt - 1e-9)) + 2
    x = (dt * np.arange(n_ord))[None, :] / tp[:, None]
    if len(groups) == 1:  # one shape for every row (the usual case): no masked copies
        u = groups[0][2](x)
    else:
        u = np.zeros(x.shape)
        for mask, _, shape in groups:
            u[mask] = shape(x[mask])
    # Scale each row to exactly 1 inch: sum(u) dt 3600 = A 43560 / 12.
    volume_per_in = area * (FT2_PER_MI2 / AC_PER_MI2) / IN_PER_FT  # ft3 per inch
    u *= (volume_per_in / (u.sum(axis=1) * dt * S_PER_HR))[:, None]
    return u


def nrcs_unit_hydrograph(
    area_mi2: float,
    tc_hr: float,
    *,
    dt_hr: float,
    prf: float | None = PEAK_RATE_FACTOR,
    dimensionless=None,
):
    r"""NRCS synthetic unit hydrograph (1 inch of runoff in duration ``dt_hr``).

    Parameters
    ----------
    area_mi2 : float
        Drainage area :math:`A`. [mi2]
    tc_hr : float
        Time of concentration :math:`T_c`; below 0.1 h it is raised to 0.1 h with a
        RangeWarning (TR-20). [h]
    dt_hr : float
        Unit duration :math:`D` = time step of the ordinates; must satisfy
        :math:`D \le 0.25\,T_p`. [h]
    prf : float or None, default 484
        Peak rate factor. 484 uses the curvilinear shape of NEH 630 Table 16-1; other values
        (e.g. 284 Delmarva) the gamma equation with ``m`` from Table 16-5's relation. With a
        user ``dimensionless`` table pass ``None`` (the factor then follows from the table's
        area) or the table's own factor. [-]
    dimensionless : tuple of array_like or pandas.DataFrame, optional
        User dimensionless unit hydrograph ``(t_over_tp, q_over_qp)`` (or a frame with those
        columns): starts at (0, 0), peaks at (1, 1), ends at q/qp = 0.

    Returns
    -------
    Hydrograph
        Ordinates at ``0, dt, 2 dt, ...`` [ft3/s] with ``area_ac`` set; its volume is exactly
        1 inch over the area (``runoff_in == 1``).

    Raises
    ------
    InputError
        If the area or Tc is not positive, ``dt_hr`` cannot resolve the unit hydrograph
        (D > 0.25 Tp), the user table is malformed, or ``prf`` disagrees with it by more than
        1 %.

    Warns
    -----
    RangeWarning
        When Tc < 0.1 h is raised to 0.1 h.

    Notes
    -----
    NEH 630 Ch. 16 [1]_: :math:`L = 0.6\,T_c`, :math:`T_p = D/2 + L` (Eq. 16-2),
    :math:`q_p = PRF\,A\,Q/T_p` (Eq. 16-1) with :math:`Q` = 1 in. Ordinates are
    :math:`q_p\,f(t/T_p)` with :math:`f` the dimensionless curve interpolated linearly,
    then scaled so their sum times ``dt`` is exactly 1 inch (the printed Table 16-1 encloses
    1.336 :math:`T_p q_p`, the value PRF 484 implies is 645.33/484 = 1.3333), so the peak
    ordinate is :math:`\approx 0.998\,q_p`.

    References
    ----------
    .. [1] USDA NRCS, NEH Part 630 Hydrology, Chapter 16 Hydrographs, 2007.

    Examples
    --------
    >>> uh = nrcs_unit_hydrograph(1.0, 1.5, dt_hr=0.01)
    >>> round(uh.runoff_in, 12)
    1.0
    >>> round(uh.peak_cfs / (484 * 1.0 / (0.005 + 0.9)), 3)    # qp of Eq. 16-1, Tp = D/2 + L
    0.998
    """
    a = as_float_array(area_mi2, "area_mi2", lower=0.0, lower_inclusive=False)
    if a.ndim != 0 or np.ndim(tc_hr) != 0:
        raise InputError(
            "area_mi2 and tc_hr must be single numbers; use "
            "hydrocalc.hydrograph.runoff_hydrographs for many subcatchments"
        )
    tc = effective_tc_hr(tc_hr)
    if dimensionless is not None:
        if hasattr(dimensionless, "columns"):
            dimensionless = (dimensionless["t_over_tp"], dimensionless["q_over_qp"])
        t_tab, q_tab = _validate_dimensionless(*dimensionless)
        implied = CFS_HR_PER_MI2_IN / np.trapezoid(q_tab, t_tab)
        if prf is not None and abs(float(prf) / implied - 1.0) > 0.01:
            raise InputError(
                f"prf must match the user dimensionless table, whose area implies "
                f"PRF = {implied:.1f} (645.33 / area); got {fmt_value(prf)}. Pass prf=None"
            )
        k = PEAK_RATE_FACTOR
    else:
        if prf is None:
            raise InputError("prf must be a number when no dimensionless table is given; got None")
        k = float(as_float_array(prf, "prf", lower=0.0, lower_inclusive=False))
    area_ac = float(a) * AC_PER_MI2
    dt = float(as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    table = (t_tab, q_tab) if dimensionless is not None else None
    u = unit_hydrograph_ordinates(area_ac, tc, dt_hr=dt, prf=k, dimensionless=table)
    return Hydrograph(dt * np.arange(u.shape[1]), u[0], area_ac=area_ac,
                      name=f"NRCS UH A={fmt_value(float(a))} mi2 Tc={fmt_value(float(tc))} h")
