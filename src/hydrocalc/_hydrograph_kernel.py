r"""Compiled passes of the batch runoff hydrographs (optional, numba).

:func:`hydrocalc.hydrograph.runoff_hydrographs` spends, around its FFTs, about ten numpy
passes over every (block of subcatchments x time steps) array: TR-55 Eq. 2-3 (subtract,
clamp, add, clamp, multiply, divide), the first difference into the FFT input, and after
the inverse FFT the row peak, the round-off threshold and the scatter of the rows into the
result. When `numba <https://numba.pydata.org>`_ is installed (the ``batch`` extra) and the
batch is large, two compiled kernels do the same in one pass each:

:func:`excess` evaluates, for each row (subcatchment) and step :math:`k`,

.. math:: E_k = \max(P_k - I_a, 0), \qquad
          Q_k = \frac{E_k E_k}{\max(E_k + S, \mathrm{tiny})}

(TR-55 Eq. 2-3 with Eq. 2-2 and 2-4 evaluated by the caller: USDA SCS (1986), *Urban
Hydrology for Small Watersheds*, Technical Release 55, 2nd ed., Chapter 2) and writes the
runoff excess :math:`Q_k - Q_{k-1}` of each step straight into the FFT input buffer and the
last :math:`Q` into the runoff depths. ``tiny`` is the smallest normal double: the
denominator is below it only where :math:`E_k^2 = 0` (CN 100 before any rain), so
:math:`Q_k = 0` there instead of 0/0.

:func:`scatter` takes each row of the inverse FFT's output (every ``step``-th ordinate of a
window, as the numpy path's strided view), finds the row's peak, sets the values below
:math:`10^{-12}` times the peak (the FFT's round-off where the flow is exactly 0) to 0 and
writes the row into its place in the result, in one pass per row.

The arithmetic is that of the numpy path, operation for operation and in the same order
(no fast-math, so no fused multiply-add or reassociation), so the hydrographs are identical
to the last bit (``tests/test_hydrograph.py`` checks both paths against each other).

Cost of the compiled path: importing numba takes about 0.35-0.4 s of CPU time once per
process, and the first use after installation compiles the two kernels (about 1.5 s once;
the machine code is cached on disk, ``cache=True``, and later processes load it in a few
tens of milliseconds). It is therefore used only for batches of at least
:data:`MIN_WORK` (subcatchments x storms x time steps); a site's own analysis never
imports numba. Set the environment variable ``HYDROCALC_NO_NUMBA=1`` to use the numpy path
everywhere.
"""

from __future__ import annotations

import os

__all__ = ["MIN_WORK", "available", "excess", "scatter", "wanted"]

#: Smallest batch (subcatchments x storms x computation steps of the storms) computed with
#: the compiled kernels; below it the numpy path is used and numba is not imported.
MIN_WORK = 2_000_000

_EXCESS = None
_SCATTER = None
_TRIED = False


def _compile():
    import numba
    import numpy as np

    tiny = np.finfo(np.float64).tiny

    @numba.njit(cache=True, nogil=True)
    def excess_kernel(p, s_in, ia_in, out, col0, runoff):  # pragma: no cover - compiled
        nb = s_in.size
        cols = p.size
        for r in range(nb):
            a = ia_in[r]
            s = s_in[r]
            e = p[0] - a
            if e < 0.0:  # as np.maximum(e, 0.0), spelled out
                e = 0.0
            d = e + s
            if d < tiny:  # as np.maximum(d, tiny)
                d = tiny
            prev = (e * e) / d
            row = out[r]
            for c in range(1, cols):
                e = p[c] - a
                if e < 0.0:
                    e = 0.0
                d = e + s
                if d < tiny:
                    d = tiny
                q = (e * e) / d
                row[col0 + c - 1] = q - prev
                prev = q
            runoff[r] = prev

    @numba.njit(cache=True, nogil=True, inline="always")
    def scatter_row(src, dst):  # pragma: no cover - compiled
        count = src.size
        # the peak, as ndarray.max: the maximum of values without NaN does not depend on
        # the order, so four running maxima (which pipeline) give the same value
        p0 = p1 = p2 = p3 = src[0]
        t = 1
        while t + 4 <= count:
            if src[t] > p0:  # noqa: PLR1730
                p0 = src[t]
            if src[t + 1] > p1:  # noqa: PLR1730
                p1 = src[t + 1]
            if src[t + 2] > p2:  # noqa: PLR1730
                p2 = src[t + 2]
            if src[t + 3] > p3:  # noqa: PLR1730
                p3 = src[t + 3]
            t += 4
        while t < count:
            if src[t] > p0:  # noqa: PLR1730
                p0 = src[t]
            t += 1
        peak = max(max(p0, p1), max(p2, p3))
        threshold = 1e-12 * peak
        for t in range(count):
            v = src[t]
            dst[t] = 0.0 if v < threshold else v

    @numba.njit(cache=True, nogil=True)
    def scatter_kernel(conv, start, step, count, flow, rows, j0):  # pragma: no cover
        for r in range(rows.size):
            dst = flow[rows[r], j0 : j0 + count]
            if step == 1:  # a contiguous window (the usual case): the loops vectorize
                scatter_row(conv[r, start : start + count], dst)
            else:
                scatter_row(conv[r, start : start + (count - 1) * step + 1 : step], dst)

    return excess_kernel, scatter_kernel


def _disabled() -> bool:
    return os.environ.get("HYDROCALC_NO_NUMBA", "") not in ("", "0")


def available() -> bool:
    """True when the compiled kernels can be used (numba installed, not disabled); the
    first call imports numba and loads (or compiles) the kernels."""
    global _EXCESS, _SCATTER, _TRIED
    if _disabled():
        return False
    if not _TRIED:
        _TRIED = True
        try:
            _EXCESS, _SCATTER = _compile()
        except ImportError:
            _EXCESS = _SCATTER = None
    return _EXCESS is not None


def wanted(work: int) -> bool:
    """True when a batch of ``work`` subcatchment-storm-steps should use the compiled
    kernels: at least :data:`MIN_WORK`, numba installed and not disabled. Smaller batches
    return False without importing numba."""
    if work < MIN_WORK or _disabled():
        return False
    if not _TRIED:
        import importlib.util

        if importlib.util.find_spec("numba") is None:
            return False
    return available()


def excess(p, s_in, ia_in, out, col0: int, runoff) -> None:
    r"""Runoff excess of every step into the FFT input, and the runoff depth (TR-55 Eq. 2-3).

    Parameters
    ----------
    p : ndarray (K,)
        Cumulative rainfall at consecutive computation steps, non-decreasing. [in]
    s_in, ia_in : ndarray (nb,)
        Potential maximum retention :math:`S` and initial abstraction :math:`I_a` of each
        row. [in]
    out : ndarray (nb, L), C-contiguous
        FFT input; ``out[r, col0 + c - 1] = Q_c - Q_{c-1}`` for ``c = 1 .. K-1`` (the
        other columns are left as they are). [in]
    col0 : int
        Column of the first excess.
    runoff : ndarray (nb,)
        Receives :math:`Q_{K-1}`, the runoff depth at the last step. [in]
    """
    _EXCESS(p, s_in, ia_in, out, int(col0), runoff)


def scatter(conv, start: int, step: int, count: int, flow, rows, j0: int) -> None:
    r"""Threshold the inverse-FFT rows and write them into the result, one pass per row.

    For each row ``r``: ``v_t = conv[r, start + t * step]`` for ``t < count``, peak
    ``max_t v_t``, and ``flow[rows[r], j0 + t] = v_t`` where ``v_t >= 1e-12 * peak``, else 0.

    Parameters
    ----------
    conv : ndarray (nb, L), C-contiguous
        Inverse-FFT output of a block. [ft3/s]
    start, step, count : int
        The ordinates read from each row.
    flow : ndarray (n, nt), C-contiguous
        One storm's hydrographs (written). [ft3/s]
    rows : ndarray of intp (nb,)
        Row of ``flow`` receiving each row of ``conv``.
    j0 : int
        First column of ``flow`` written.
    """
    _SCATTER(conv, int(start), int(step), int(count), flow, rows, int(j0))
