r"""Hydrographs on a uniform time step, and NRCS (TR-20 method) runoff hydrographs.

:class:`Hydrograph` is the container every layer passes around: a frozen pair of arrays
``time_hr`` (uniform step, starting anywhere) and ``flow_cfs``. Volumes are integrated with
the trapezoidal rule, which for a hydrograph that starts and ends at zero equals the
rectangle (sum x dt) rule used by TR-20.

:func:`runoff_hydrograph` and its batch form :func:`runoff_hydrographs` compute direct-runoff
hydrographs the way TR-20 / WinTR-20 / HydroCAD do [1]_ [2]_:

1. the storm's mass curve is interpolated linearly to the computation step ``dt_hr``;
2. cumulative runoff is the curve-number equation applied to cumulative rainfall at every
   step (TR-55 Eq. 2-3 [3]_), and its increments are the runoff excess of each step;
3. the excess is convolved with the NRCS unit hydrograph of unit duration ``dt_hr``
   (:mod:`hydrocalc.unit_hydrograph`), which holds exactly 1 inch.

Because the unit hydrograph holds exactly 1 inch and the time base covers the whole
recession, the hydrograph volume equals CN runoff depth x area to round-off, for any step.
The batch form evaluates every subcatchment's unit hydrograph with one vectorized
interpolation and convolves them with real FFTs over blocks of 32 subcatchments at a time
(no Python loop per subcatchment).

Symbols
-------
===============  ======  ==========================================================
API name         Unit    Meaning
===============  ======  ==========================================================
time_hr          h       time since the start of the storm
flow_cfs         ft3/s   discharge
volume_ft3       ft3     integral of flow over time
area_ac          ac      contributing drainage area (optional on a Hydrograph)
runoff_in        in      volume / area; CN-equation runoff depth of a storm
cn               -       runoff curve number, (0, 100]
tc_hr            h       time of concentration
dt_hr            h       computation step = unit-hydrograph duration D
prf              -       peak rate factor of the unit hydrograph (484)
ia_ratio         -       initial abstraction ratio Ia/S (0.2)
===============  ======  ==========================================================

References
----------
.. [1] USDA NRCS, "National Engineering Handbook Part 630 Hydrology, Chapter 16
   Hydrographs," 210-VI-NEH, 2007.
.. [2] USDA NRCS, "WinTR-20 Project Formulation Hydrology," user guide, 2015.
.. [3] USDA SCS, "Urban Hydrology for Small Watersheds," Technical Release 55, 2nd ed., 1986.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array, fmt_value
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.rainfall import Hyetograph
from hydrocalc.timeseries import Hydrograph, HydrographSet, lag_hydrograph, parabolic_peak
from hydrocalc.unit_hydrograph import (
    LAG_OVER_TC,
    effective_tc_hr,
    max_dt_hr,
    unit_hydrograph_ordinates,
)

__all__ = [
    "Hydrograph",
    "HydrographSet",
    "runoff_hydrograph",
    "runoff_hydrographs",
    "lag_hydrograph",
    "parabolic_peak",
    "use_compiled_passes",
]

#: Rows (subcatchments) per FFT block in the batch form: big enough to vectorize, small
#: enough for the work arrays (rows x ~3000 doubles) to stay in cache.
_BLOCK = 32
_TINY = np.finfo(np.float64).tiny
#: NumPy ufunc buffer size (elements) inside the batch loop: shorter than the rows of the
#: work arrays, so strided and broadcast operands need no buffering.
_UFUNC_BUFSIZE = 256


def _subcatchment_arrays(area_ac, cn, tc_hr):
    area = as_float_array(area_ac, "area_ac", lower=0.0, lower_inclusive=False,
                          hint="Drainage areas must be positive")
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    tc = as_float_array(tc_hr, "tc_hr", lower=0.0, lower_inclusive=False,
                        hint="Tc must be positive (Tc < 0.1 h is raised to 0.1 h)")
    arrays = {"area_ac": area, "cn": cn_, "tc_hr": tc}
    for key, arr in arrays.items():
        if arr.ndim > 1:
            raise InputError(f"{key} must be a scalar or a 1-D array; got shape {arr.shape}")
    lengths = {key: arr.size for key, arr in arrays.items() if arr.ndim == 1}
    if len(set(lengths.values())) > 1:
        got = ", ".join(f"{k} {v}" for k, v in lengths.items())
        raise InputError(
            f"area_ac, cn and tc_hr must have the same length (or be scalars); got lengths "
            f"{got}. Give one value per subcatchment"
        )
    n = next(iter(lengths.values()), 1)
    if n == 0:
        raise InputError("area_ac, cn and tc_hr must hold at least one subcatchment; got 0")
    return tuple(np.broadcast_to(arr, (n,)).astype(float) for arr in arrays.values())


def _storm_list(storms) -> list:
    items = [storms] if isinstance(storms, Hyetograph) else list(storms) if isinstance(
        storms, Sequence) else None
    if not items:
        raise InputError(
            f"storms must be a Hyetograph or a non-empty sequence of Hyetographs; got "
            f"{type(storms).__name__}. Build them with hydrocalc.rainfall.design_storm"
        )
    for k, s in enumerate(items):
        if not isinstance(s, Hyetograph):
            raise InputError(
                f"storms must hold Hyetograph objects; got {type(s).__name__} at index {k}. "
                "Build them with hydrocalc.rainfall.design_storm"
            )
    return items


def _cumulative_runoff_in(precip_in: np.ndarray, s_in: np.ndarray, ia_in: np.ndarray,
                          out: np.ndarray | None = None, work: np.ndarray | None = None,
                          head: int | None = None):
    """TR-55 Eq. 2-3 on a (subcatchment x time) grid, in place and without re-validation.

    ``Q = (P - Ia)^2 / (P - Ia + S)`` for ``P > Ia``, else 0, for cumulative rainfall
    ``precip_in`` (K,) and per-row ``s_in``, ``ia_in`` (n,), written to ``out`` (n, K) with
    ``work`` (n, K) as scratch (both allocated when not given). The batch path's hot loop: it
    is :func:`hydrocalc.runoff.runoff_depth` (the validated public equation, which the tests
    hold it equal to bit for bit) with no temporaries. As in that function's blocked form,
    ``max(E + S, tiny)`` replaces the test ``P > Ia``: with ``E = max(P - Ia, 0)`` and
    ``S >= 0`` the denominator is below the smallest normal number only where ``E**2`` is 0
    (CN 100 before any rain: 0/0 there would be NaN), so the quotient is exactly 0 there.

    ``head``, when given, promises that ``P > Ia`` in every row from column ``head`` on
    (the caller knows it from the sorted ``Ia`` and the non-decreasing ``P``): both clamps
    are then applied to the first ``head`` columns only, where they can change anything
    (from there on ``E > 0`` and ``E + S >= E``, and a denominator below ``tiny`` can only
    come with ``E**2 == 0``), so the result is the same bit for bit with two passes less.
    """
    shape = (s_in.size, precip_in.size)
    x = np.empty(shape) if out is None else out
    denominator = np.empty(shape) if work is None else work
    h = shape[1] if head is None else min(max(int(head), 0), shape[1])
    np.subtract(precip_in[None, :], ia_in[:, None], out=x)
    np.maximum(x[:, :h], 0.0, out=x[:, :h])  # E = max(P - Ia, 0)
    np.add(x, s_in[:, None], out=denominator)
    np.maximum(denominator[:, :h], _TINY, out=denominator[:, :h])
    np.multiply(x, x, out=x)
    np.divide(x, denominator, out=x)  # Eq. 2-3
    return x


def _refinement(tc_eff: np.ndarray, dt: float) -> int:
    """Sub-steps per reported step so that D = dt / k <= 0.25 Tp for every subcatchment.

    Raises InputError when ``dt`` exceeds the shortest lag (0.6 Tc): the reported series
    could then not show the rise of the hydrograph at all. Warns (RangeWarning) when it
    refines.
    """
    i = int(np.argmin(tc_eff))
    lag = LAG_OVER_TC * float(tc_eff[i])
    limit = float(max_dt_hr(float(tc_eff[i])))
    if dt <= limit * (1.0 + 1e-9):
        return 1
    where = "" if tc_eff.size == 1 else f" at index {i}"
    if dt > lag * (1.0 + 1e-9):
        raise InputError(
            f"dt_hr must be <= the lag 0.6 Tc = {lag:.4g} h (tc_hr = "
            f"{fmt_value(tc_eff[i])}{where}) to resolve the unit hydrograph; got "
            f"{fmt_value(dt)}. Use dt_hr <= {np.floor(limit * 1e4) / 1e4:g} (D <= 0.25 Tp, "
            "NEH 630 Ch. 16); 0.01 h resolves any Tc >= 0.1 h"
        )
    k = int(np.ceil(dt / limit - 1e-9))
    warnings.warn(
        f"dt_hr = {fmt_value(dt)} h is coarser than D <= 0.25 Tp allows ({limit:.4g} h for "
        f"tc_hr = {fmt_value(tc_eff[i])}{where}; NEH 630 Ch. 16): computed at "
        f"{dt / k:.4g} h and reported every {k} ordinates, so the reported peak can fall "
        "between ordinates and the trapezoidal volume is approximate. Use "
        f"dt_hr <= {np.floor(limit * 1e4) / 1e4:g} for full resolution",
        RangeWarning,
        stacklevel=3,
    )
    return k


_MAX_STEPS = 2_000_000  # a longer time grid is a unit slip (dt_hr or tc_hr), not a design


def _check_step_count(storms, tc_eff_hr, dt_c_hr):
    """Refuse a time grid so long it can only be a unit slip (and would exhaust memory).

    The estimate is the longest storm plus 15 Tp (Tp = D/2 + 0.6 Tc, NEH 630 Eq. 16-3/16-4),
    which bounds the PRF 484 unit hydrograph's base of 5 Tp and the gamma forms' longer tails.
    """
    tp_max = dt_c_hr / 2.0 + 0.6 * float(np.max(tc_eff_hr))
    duration = max(float(st.duration_hr) for st in storms)
    steps = (duration + 15.0 * tp_max) / dt_c_hr
    if steps > _MAX_STEPS:
        raise InputError(
            f"dt_hr and tc_hr give about {steps:,.0f} time steps (storm {duration:g} h plus "
            f"a unit-hydrograph base up to {15.0 * tp_max:.4g} h at a {dt_c_hr:.4g} h step); "
            f"at most {_MAX_STEPS:,} are allowed. Check the units of dt_hr and tc_hr"
        )


def _call_options(
    n: int, dt_hr, ia_ratio, names, prf
) -> tuple[float, float, list[str], np.ndarray]:
    """Validated step [h], Ia ratio, n labels and peak rate factor(s) of runoff_hydrographs."""
    dt = float(as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    if np.ndim(ia_ratio) != 0:
        raise InputError(f"ia_ratio must be a single number; got shape {np.shape(ia_ratio)}")
    ratio = float(as_float_array(ia_ratio, "ia_ratio", lower=0.0, upper=1.0))
    if names is None:
        names = [str(j + 1) for j in range(n)]
    names = [str(x) for x in names]
    if len(names) != n:
        raise InputError(
            f"names must have one label per subcatchment ({n}); got {len(names)}"
        )
    prf_ = as_float_array(prf, "prf", lower=0.0, lower_inclusive=False)
    if prf_.ndim == 1 and prf_.size != n:
        raise InputError(
            f"prf must be a scalar or have one value per subcatchment ({n}); got {prf_.size}"
        )
    return dt, ratio, names, prf_


def _mass_curves(storm_list: list, dt_c: float) -> list[np.ndarray]:
    """Each storm's cumulative rainfall [in] on the computation grid t_k = k dt_c [h]."""
    # Linear interpolation, as WinTR-20 interpolates its 0.1-h tables; each curve closes at
    # the storm depth exactly.
    grids = []
    for storm in storm_list:
        k_end = int(np.ceil(storm.duration_hr / dt_c - 1e-9))
        p = np.interp(dt_c * np.arange(k_end + 1), storm.time_hr, storm.cumulative_in)
        p[-1] = storm.depth_in
        grids.append(p)
    return grids


def _reported_length(k_max: int, n_uh: int, refine: int, dt: float, end_hr) -> int:
    """Number of reported ordinates: to the longest recession's end, or to a later ``end_hr``."""
    needed = k_max + n_uh - 2  # last computed ordinate (a zero) at t = needed * dt_c
    nt_needed = int(np.ceil(needed / refine - 1e-9)) + 1  # reported ordinates
    if end_hr is None:
        return nt_needed
    end = float(as_float_array(end_hr, "end_hr", lower=0.0, lower_inclusive=False))
    nt = int(np.ceil(end / dt - 1e-9)) + 1
    if nt < nt_needed:
        raise InputError(
            f"end_hr must be >= {(nt_needed - 1) * dt:.4g} h (last storm step plus the "
            f"longest unit-hydrograph base) so no recession is cut short; got "
            f"{fmt_value(end)}. Increase end_hr or omit it"
        )
    return nt


def _store_reported(flow: np.ndarray, i: int, rows: np.ndarray, c: np.ndarray, length: int,
                    k0: int, g: int, refine: int) -> None:
    """Write a block's convolution ``c`` (column c: step c + g) as reported flows of storm i."""
    # q(t_j) = sum_k excess_k u_{j-k+1}: the full convolution shifted one step earlier;
    # with refinement every refine-th ordinate is reported. Ordinates before
    # j0 (1 + j refine < k0) are exactly 0 and stay unwritten.
    j0 = -(-(k0 - 1) // refine)
    first = 1 + j0 * refine - g
    count = len(range(first, 1 + length - g, refine))
    # FFT round-off leaves ~1e-16-relative residue where the flow is exactly 0:
    # values below 1e-12 of the row's peak are set to 0
    block = c[:, first : 1 + length - g : refine]
    peak = block.max(axis=1, keepdims=True)
    np.copyto(block, 0.0, where=block < 1e-12 * peak)
    flow[i, rows, j0 : j0 + count] = block


def use_compiled_passes(flag: bool = True) -> None:
    """Deprecated, no effect: :func:`runoff_hydrographs` has one implementation (numpy).

    Its optional compiled passes were removed: they engaged only for batches larger than any
    site or sweep computes, and gave identical numbers. Kept for one release so that
    scripts calling it keep working; it warns and changes nothing.

    Parameters
    ----------
    flag : bool, default True
        Ignored.
    """
    warnings.warn("hydrocalc.hydrograph.use_compiled_passes() has no effect and will be "
                  "removed: runoff_hydrographs has one (numpy) implementation; delete the call",
                  DeprecationWarning, stacklevel=2)


def runoff_hydrographs(
    area_ac: npt.ArrayLike,
    cn: npt.ArrayLike,
    tc_hr: npt.ArrayLike,
    storms,
    *,
    dt_hr: float = 0.01,
    prf: npt.ArrayLike = 484.0,
    ia_ratio: float = 0.2,
    end_hr: float | None = None,
    names: Sequence[str] | None = None,
    dimensionless=None,
) -> HydrographSet:
    r"""NRCS runoff hydrographs of many subcatchments for several storms, in one call.

    Parameters
    ----------
    area_ac : array_like, shape (n,) or scalar
        Drainage areas. [ac]
    cn : array_like, shape (n,) or scalar
        Runoff curve numbers in (0, 100] (used as given: no rounding). [-]
    tc_hr : array_like, shape (n,) or scalar
        Times of concentration; values below 0.1 h are raised to 0.1 h with a RangeWarning
        (TR-20). [h]
    storms : Hyetograph or sequence of m Hyetographs
        Design or recorded storms (any step; each mass curve is interpolated linearly to
        ``dt_hr``).
    dt_hr : float, default 0.01
        Reporting and computation step = unit-hydrograph duration :math:`D`. NEH 630 asks
        :math:`D \le 0.25\,T_p` (``dt_hr <= 0.1714 tc_hr``). A coarser step, up to the
        shortest lag 0.6 Tc, is refined automatically: the hydrographs are computed at
        ``dt_hr / k`` (the smallest whole k that resolves every Tp) and every k-th ordinate
        is reported, with a RangeWarning (peaks can fall between reported ordinates). A step
        longer than the lag raises InputError. [h]
    prf : float or array_like (n,), default 484
        Peak rate factor(s) (484 Table 16-1 shape; others the NEH 630 gamma shape). [-]
    ia_ratio : float, default 0.2
        Initial abstraction ratio :math:`I_a/S`. [-]
    end_hr : float, optional
        End of the common time base; default the end of the longest recession (last storm
        step + unit-hydrograph base). Must not cut a recession short. [h]
    names : sequence of str, optional
        Subcatchment labels (default ``"1"``, ``"2"``, ...).
    dimensionless : tuple, optional
        User dimensionless unit hydrograph ``(t_over_tp, q_over_qp)`` for every row.

    Returns
    -------
    HydrographSet
        ``flow_cfs`` of shape (m, n, nt) on ``time_hr = 0, dt, ...``.

    Raises
    ------
    InputError
        For non-positive areas, CN outside (0, 100], non-positive Tc, mismatched lengths,
        storms that are not Hyetographs, a ``dt_hr`` longer than the shortest lag (it cannot
        resolve the unit hydrograph), or an ``end_hr`` that would truncate a hydrograph.

    Warns
    -----
    RangeWarning
        When some Tc < 0.1 h are raised to 0.1 h, and when ``dt_hr`` is refined internally.

    Notes
    -----
    For storm :math:`i` with cumulative rainfall :math:`P_k` at :math:`t_k = k\,\Delta t`,
    cumulative runoff is :math:`Q_k = (P_k - I_a)^2/(P_k - I_a + S)` for
    :math:`P_k > I_a` (TR-55 Eqs. 2-1 to 2-4), the excess of step :math:`k` is
    :math:`\Delta Q_k = Q_k - Q_{k-1}` (falling during :math:`(t_{k-1}, t_k]`), and
    :math:`q(t_j) = \sum_k \Delta Q_k\, u(t_j - t_{k-1})` with :math:`u` the unit
    hydrograph of duration :math:`\Delta t` (NEH 630 Ch. 16). The convolution is done with
    real FFTs, vectorized over blocks of 32 subcatchments (sized to stay in cache; the loops
    are over storms and blocks, never over single subcatchments), zero-padded to a fast
    length so it equals the direct sum to round-off; values below 1e-12 of a hydrograph's
    peak, the FFT's round-off, are set to 0. Subcatchments are taken in order of
    :math:`I_a`, so that a block's excess is exactly 0 until the rain exceeds the block's
    smallest :math:`I_a`: Eq. 2-3 is evaluated, and flow written, only from there on, and
    the FFT length leaves out the steps before any row of any storm has runoff. None of
    this changes a result beyond round-off (order and block size are free).

    Memory: the result holds m x n x nt floats (6 x 1000 x 5000 = 240 MB).

    References
    ----------
    .. [1] USDA NRCS, NEH Part 630, Chapter 16 Hydrographs, 2007.
    .. [2] USDA SCS, TR-55, 2nd ed., 1986, Chapter 2.

    Examples
    --------
    >>> from hydrocalc.rainfall import design_storm
    >>> storms = [design_storm(3.4, name="2yr"), design_storm(8.0, name="100yr")]
    >>> hs = runoff_hydrographs([5.0, 12.0], [75, 85], [0.3, 0.6], storms)
    >>> hs.flow_cfs.shape[:2]
    (2, 2)
    >>> bool(np.allclose(hs.volume_ft3 / (hs.area_ac * 43560 / 12), hs.runoff_in, rtol=1e-9))
    True
    """
    from scipy.fft import next_fast_len

    area, cn_, tc = _subcatchment_arrays(area_ac, cn, tc_hr)
    n = area.size
    storm_list = _storm_list(storms)
    dt, ratio, names, prf_ = _call_options(n, dt_hr, ia_ratio, names, prf)
    tc_eff = effective_tc_hr(tc)
    refine = _refinement(tc_eff, dt)
    dt_c = dt / refine  # computation step = unit-hydrograph duration D
    _check_step_count(storm_list, tc_eff, dt_c)
    u = unit_hydrograph_ordinates(area, tc_eff, dt_hr=dt_c, prf=prf_,
                                  dimensionless=dimensionless)
    n_uh = u.shape[1]

    grids = _mass_curves(storm_list, dt_c)
    k_max = max(g.size for g in grids) - 1
    nt = _reported_length(k_max, n_uh, refine, dt, end_hr)
    s_in = 1000.0 / cn_ - 10.0  # TR-55 Eq. 2-4
    ia_in = ratio * s_in  # TR-55 Eq. 2-2 with lambda = ia_ratio
    # Excess is 0 in every row and storm before step g (rain never exceeds the smallest Ia
    # earlier): the excess series enter the FFT shifted g steps earlier, so the transform
    # need only hold the rest (the convolution is shift-invariant; the output is read g
    # steps later). The shift is the same for every row whatever its block, so a row's
    # result does not depend on which rows are computed with it, to the last bit.
    ia_min = float(np.min(ia_in))
    g = max(min(min(int(np.searchsorted(p, ia_min, side="right")) for p in grids), k_max), 1)
    nfft = next_fast_len(k_max + n_uh - g, real=True)
    m = len(storm_list)
    # np.zeros maps zeroed pages lazily: the untouched head and tail of each row cost nothing.
    flow = np.zeros((m, n, nt))
    runoff = np.empty((m, n))  # in Ia order until the end
    # Rows are visited in order of increasing Ia, in blocks of _BLOCK rows (vectorized
    # inside; the loops are over blocks and storms, never over single subcatchments). A
    # block's rainfall excess is exactly 0 until the rain exceeds the block's smallest Ia,
    # so Eq. 2-3 is evaluated, and the flow written, only from there on; each row's
    # convolution is the same whatever its block, so the result does not depend on order or
    # block size, to the last bit. (P is non-decreasing: Hyetograph mass curves are
    # validated monotone.)
    order = np.argsort(ia_in, kind="stable")
    s_sorted, ia_sorted, u_sorted = s_in[order], ia_in[order], u[order]
    block_rows = min(n, _BLOCK)
    n_freq = nfft // 2 + 1
    # Work buffers, allocated once and reused by every block and storm (a fresh ~0.7 MB
    # array per transform costs more in allocation and page faults than the transform).
    # zero-padded inputs of the transforms (numpy's own padding, n > input length, is
    # markedly slower than transforming a buffer whose tail is already zero)
    padded = np.zeros((block_rows, nfft))
    dirty = [0, 0]  # columns of `padded` outside [dirty[0], dirty[1]) are zero

    def place(lo: int, hi: int) -> None:
        """Zero what earlier writes left outside columns [lo, hi), which the caller fills."""
        d_lo, d_hi = dirty
        if d_lo < min(lo, d_hi):
            padded[:, d_lo : min(lo, d_hi)] = 0.0
        if max(hi, d_lo) < d_hi:
            padded[:, max(hi, d_lo) : d_hi] = 0.0
        dirty[:] = [lo, hi]

    # the unit hydrographs' own zero-padded input: only columns [0, n_uh) are ever written,
    # so the padding stays zero (no clearing of `padded` before each block's transform)
    u_padded = np.zeros((block_rows, nfft))
    u_spec = np.empty((block_rows, n_freq), dtype=complex)
    spec = np.empty((block_rows, n_freq), dtype=complex)
    # first step whose cumulative rain exceeds each block's smallest Ia, per storm (P is
    # non-decreasing): Q_k = 0 and excess_k = 0 for every row of the block before it
    block_starts = np.maximum(np.array(
        [np.searchsorted(p, ia_sorted[::block_rows], side="right") for p in grids]), 1).T.tolist()
    q_buf = np.empty(block_rows * (k_max + 1))
    d_buf = np.empty(block_rows * (k_max + 1))
    # The work arrays are 2-D views (rows of a block; columns a window of the time steps)
    # and several operands broadcast a per-row value: with NumPy's default ufunc buffer
    # (8,192 elements, longer than a row) such operands are copied through the buffer,
    # which made these passes 3-6x slower than the arithmetic. A buffer shorter than a row
    # lets each row be processed in place (results are the same bit for bit); errstate()
    # restores the caller's setting on exit.
    with np.errstate():
        np.setbufsize(_UFUNC_BUFSIZE)
        # blocks of rows
        for r0, starts in zip(range(0, n, block_rows), block_starts, strict=True):
            sl = slice(r0, min(r0 + block_rows, n))  # rows in Ia order
            rows = order[sl]  # the same rows in input order
            nb = rows.size
            if all(k0 >= p.size for k0, p in zip(starts, grids, strict=True)):
                runoff[:, sl] = 0.0  # no runoff from any storm in the whole block
                continue
            u_padded[:nb, :n_uh] = u_sorted[sl]
            np.fft.rfft(u_padded[:nb], axis=1, out=u_spec[:nb])
            for i, (p, k0) in enumerate(zip(grids, starts, strict=True)):  # storms
                if k0 >= p.size:  # no runoff from this storm in the whole block
                    runoff[i, sl] = 0.0
                    continue
                # excess of step (t_{k-1}, t_k] at column k - g (k = k0 .. K), zeros
                # elsewhere: nfft holds the whole linear convolution (K - g + n_uh - 1 <=
                # nfft), so the circular convolution equals the linear one
                place(k0 - g, p.size - g)
                cols = p.size - k0 + 1
                # from column `head` on, P exceeds the largest Ia of the block (rows are
                # in Ia order): E > 0 in every row there
                head = int(np.searchsorted(p, ia_sorted[sl.stop - 1], side="right")) - (
                    k0 - 1)
                q_cum = _cumulative_runoff_in(
                    p[k0 - 1 :], s_sorted[sl], ia_sorted[sl],
                    q_buf[: nb * cols].reshape(nb, cols),
                    d_buf[: nb * cols].reshape(nb, cols), head=head,
                )  # Eq. 2-3
                runoff[i, sl] = q_cum[:, -1]
                np.subtract(q_cum[:, 1:], q_cum[:, :-1],
                            out=padded[:nb, k0 - g : p.size - g])
                f = spec[:nb]
                np.fft.rfft(padded[:nb], axis=1, out=f)
                np.multiply(f, u_spec[:nb], out=f)
                # the inverse transform overwrites the input buffer (one work array less in
                # cache); `place` zeroes what the next storm does not fill
                c = np.fft.irfft(f, nfft, axis=1, out=padded[:nb])  # column c: t = c + g steps
                dirty[:] = [0, nfft]
                _store_reported(flow, i, rows, c, p.size + n_uh - 2, k0, g, refine)

    runoff[:, order] = runoff.copy()  # back to input order
    return HydrographSet(
        time_hr=dt * np.arange(nt),
        flow_cfs=flow,
        area_ac=area,
        storm_names=tuple(s.name or f"storm {k + 1}" for k, s in enumerate(storm_list)),
        runoff_in=runoff,
        cn=cn_,
        tc_hr=tc_eff,
        precip_in=np.array([s.depth_in for s in storm_list]),
        names=tuple(names),
    )


def runoff_hydrograph(
    area_ac: float,
    cn: float,
    tc_hr: float,
    storm,
    *,
    dt_hr: float = 0.01,
    prf: float = 484.0,
    ia_ratio: float = 0.2,
    end_hr: float | None = None,
    name: str = "",
    dimensionless=None,
) -> Hydrograph:
    r"""NRCS (TR-20 method) direct-runoff hydrograph of one subcatchment for one storm.

    Parameters
    ----------
    area_ac : float
        Drainage area. [ac]
    cn : float
        Runoff curve number in (0, 100] (used as given: no rounding). [-]
    tc_hr : float
        Time of concentration; below 0.1 h raised to 0.1 h with a RangeWarning (TR-20). [h]
    storm : Hyetograph
        The storm (e.g. :func:`hydrocalc.rainfall.design_storm`).
    dt_hr : float, default 0.01
        Computation step = unit-hydrograph duration; should be <= 0.25 Tp (coarser steps up
        to the lag are refined internally with a RangeWarning, see
        :func:`runoff_hydrographs`). [h]
    prf : float, default 484
        Peak rate factor. [-]
    ia_ratio : float, default 0.2
        Initial abstraction ratio. [-]
    end_hr : float, optional
        End of the time base (default: end of the recession). [h]
    name : str, optional
        Label of the result.
    dimensionless : tuple, optional
        User dimensionless unit hydrograph ``(t_over_tp, q_over_qp)``.

    Returns
    -------
    Hydrograph
        On ``0, dt, ...`` with ``area_ac`` set, so ``runoff_in`` equals the CN runoff depth.

    Raises
    ------
    InputError
        As :func:`runoff_hydrographs`, and if an argument is not a single value.

    Notes
    -----
    This is :func:`runoff_hydrographs` with one subcatchment and one storm (one code path).

    Examples
    --------
    >>> from hydrocalc.rainfall import design_storm
    >>> h = runoff_hydrograph(10.0, 80, 0.5, design_storm(5.0, distribution="II"))
    >>> round(h.runoff_in, 4)        # TR-55 Eq. 2-3: P = 5 in, CN 80 -> Q = 4.5**2 / 7 in
    2.8929
    """
    for key, value in (("area_ac", area_ac), ("cn", cn), ("tc_hr", tc_hr)):
        if np.ndim(value) != 0:
            raise InputError(
                f"{key} must be a single number; got shape {np.shape(value)}. Use "
                "runoff_hydrographs for many subcatchments"
            )
    if not isinstance(storm, Hyetograph):
        raise InputError(
            f"storm must be a Hyetograph; got {type(storm).__name__}. Use runoff_hydrographs "
            "for several storms"
        )
    hs = runoff_hydrographs(area_ac, cn, tc_hr, storm, dt_hr=dt_hr, prf=prf,
                            ia_ratio=ia_ratio, end_hr=end_hr, dimensionless=dimensionless,
                            names=[name])
    return Hydrograph(hs.time_hr, hs.flow_cfs[0, 0], area_ac=float(hs.area_ac[0]),
                      name=name or storm.name)
