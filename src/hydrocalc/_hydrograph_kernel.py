r"""Compiled passes of the batch runoff hydrographs (optional, numba).

:func:`hydrocalc.hydrograph.runoff_hydrographs` spends, around its FFTs, about ten numpy
passes over every (block of subcatchments x time steps) array: TR-55 Eq. 2-3 (subtract,
clamp, add, clamp, multiply, divide), the first difference into the FFT input, and after
the inverse FFT the row peak, the round-off threshold and the scatter of the rows into the
result. When `numba <https://numba.pydata.org>`_ is installed (the ``batch`` extra) and the
batch is large enough to pay for numba's start-up (see below), two compiled kernels do the
same in one pass per row each:

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
to the last bit (``tests/test_hydrograph_kernel.py`` checks both paths against each other).
Both kernels vectorize (AVX2 on the development machine): :func:`excess` carries
:math:`Q_{k-1}` from one step to the next (a first-order recurrence, which the loop
vectorizer handles) and every loop indexes a slice from 0, so no index needs numba's
negative-index wraparound test (which kept the first difference from vectorizing: the
kernel took 2.4 times as long); :func:`scatter` finds the peak as the maximum of the
values' integer images (see there), which gives the same value as ``ndarray.max``.

Cost of the compiled path, measured on the 2-core development machine (CPU time): importing
numba takes about 0.4 s and the first call of a kernel in a process about 0.85 s more
(numba's own start-up, then the machine code loaded from the on-disk cache,
``cache=True``); the very first use after installation compiles the two kernels, about
2.2 s in all, once. In return a batch is about 2 ns cheaper per subcatchment-storm-step
(measured 1.9 ns: 28 ms of 178 ms for 1,000 subcatchments x 6 storms at 0.01 h, the two
paths interleaved in one process). The one-off 1.25 s is therefore paid only where it is
recovered:

* in a process that has asked for the compiled passes with :func:`use` (one that computes
  many batches, such as a sweep worker or a benchmark) or that has numba loaded already,
  for batches of at least :data:`MIN_WORK` subcatchment-storm-steps;
* anywhere for a batch of at least :data:`MIN_WORK_ALONE`, which recovers the start-up
  within the one call.

Everywhere else (a site's own analysis, ``hydrocalc run``, a report) the numpy path runs
and numba is not imported. Set the environment variable ``HYDROCALC_NO_NUMBA=1`` to use
the numpy path everywhere.
"""

from __future__ import annotations

import os
import sys

__all__ = ["MIN_WORK", "MIN_WORK_ALONE", "available", "excess", "scatter", "use", "wanted"]

#: Smallest batch (subcatchments x storms x computation steps of the storms) computed with
#: the compiled kernels in a process that called :func:`use` or has numba loaded.
MIN_WORK = 1_000_000
#: Smallest batch computed with the compiled kernels in any process: about 1.9 ns saved per
#: subcatchment-storm-step recovers the 1.25 s start-up of numba within the call.
MIN_WORK_ALONE = 700_000_000

_EXCESS = None
_SCATTER = None
_TRIED = False
_WANTED = False


def use(flag: bool = True) -> None:
    """Let :func:`hydrocalc.hydrograph.runoff_hydrographs` use the compiled passes (when
    numba is installed) for batches of at least :data:`MIN_WORK` in this process; False
    returns to the size rule alone (:data:`MIN_WORK_ALONE`)."""
    global _WANTED
    _WANTED = bool(flag)


def _compile():
    import numba
    import numpy as np

    tiny = np.finfo(np.float64).tiny

    @numba.njit(cache=True, nogil=True)
    def excess_kernel(p, s_in, ia_in, out, col0, runoff):  # pragma: no cover - compiled
        cols = p.size
        rest = p[1:]
        for r in range(s_in.size):
            a = ia_in[r]
            s = s_in[r]
            e = p[0] - a  # Eq. 2-3 at the first step, as _cumulative_runoff_in
            if e < 0.0:  # noqa: PLR1730 - as np.maximum(e, 0.0), spelled out
                e = 0.0
            d = e + s
            if d < tiny:  # noqa: PLR1730 - as np.maximum(d, tiny)
                d = tiny
            q_prev = (e * e) / d
            # the FFT's zero padding before and after the excess; every loop runs over a
            # slice from index 0 (an index known to be >= 0 needs no negative-index
            # wraparound test, which kept these loops from vectorizing)
            head = out[r, :col0]
            for c in range(head.size):
                head[c] = 0.0
            # Eq. 2-3 at the other steps and the first difference in one loop: Q_{k-1}
            # is carried from the previous iteration (a first-order recurrence, which
            # vectorizes), so each Q_k is computed once, exactly as before
            dst = out[r, col0 : col0 + cols - 1]
            for c in range(cols - 1):
                e = rest[c] - a
                if e < 0.0:  # noqa: PLR1730
                    e = 0.0
                d = e + s
                if d < tiny:  # noqa: PLR1730
                    d = tiny
                q = (e * e) / d
                dst[c] = q - q_prev
                q_prev = q
            tail = out[r, col0 + cols - 1 :]
            for c in range(tail.size):
                tail[c] = 0.0
            runoff[r] = q_prev

    @numba.njit(cache=True, nogil=True)
    def scatter_kernel(conv, start, step, count, flow, rows, j0):  # pragma: no cover
        strided = np.empty(count if step != 1 else 0)
        peak_bits = np.empty(1, np.int64)
        peak_value = peak_bits.view(np.float64)  # the same 8 bytes, read as a double
        for r in range(rows.size):
            if step == 1:  # a contiguous window of the row (the usual case)
                src = conv[r, start : start + count]
            else:  # every step-th value, gathered so that the loops below vectorize
                for t in range(count):
                    strided[t] = conv[r, start + t * step]
                src = strided
            # the peak, as ndarray.max, found on the integer images of the values: for
            # IEEE doubles, flipping the 63 value bits of the negative ones makes signed
            # integer order equal the order of the values (a NaN with its sign bit clear
            # ranks above every number, so it is the peak, as ndarray.max returns it), and
            # an integer maximum vectorizes where a floating-point one may not be reordered
            bits = src.view(np.int64)
            top = bits[0] ^ ((bits[0] >> 63) & 0x7FFFFFFFFFFFFFFF)
            for t in range(count):
                b = bits[t]
                k = b ^ ((b >> 63) & 0x7FFFFFFFFFFFFFFF)
                if k > top:  # noqa: PLR1730
                    top = k
            peak_bits[0] = top ^ ((top >> 63) & 0x7FFFFFFFFFFFFFFF)
            peak = peak_value[0]
            threshold = 1e-12 * peak  # as the numpy path: v < 1e-12 * peak -> 0
            dst = flow[rows[r], j0 : j0 + count]
            for t in range(count):
                v = src[t]
                dst[t] = 0.0 if v < threshold else v

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
    kernels (numba installed, not disabled): at least :data:`MIN_WORK` after :func:`use`
    or with numba already loaded in this process, else at least :data:`MIN_WORK_ALONE`.
    Otherwise False, without importing numba."""
    if work < MIN_WORK or _disabled():
        return False
    if not (_WANTED or "numba" in sys.modules or work >= MIN_WORK_ALONE):
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
        FFT input; ``out[r, col0 + c - 1] = Q_c - Q_{c-1}`` for ``c = 1 .. K-1`` and 0 in
        the other columns (the zero padding). [in]
    col0 : int
        Column of the first excess.
    runoff : ndarray (nb,)
        Receives :math:`Q_{K-1}`, the runoff depth at the last step. [in]
    """
    # the kernel does not check bounds: refuse what would write outside the arrays
    if not (p.size >= 1 and 0 <= col0 and col0 + p.size - 1 <= out.shape[1]
            and s_in.size == ia_in.size == runoff.size <= out.shape[0]):
        raise ValueError("excess: arrays do not match")
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
        Row of ``flow`` receiving each row of ``conv``, each in ``[0, n)`` (the caller's
        promise: not checked).
    j0 : int
        First column of ``flow`` written.
    """
    # the kernel does not check bounds: refuse what would read or write outside the arrays
    if not (count >= 1 and step >= 1 and start >= 0 and j0 >= 0
            and start + (count - 1) * step < conv.shape[1] and j0 + count <= flow.shape[1]
            and rows.size <= conv.shape[0]):
        raise ValueError("scatter: arrays do not match")
    _SCATTER(conv, int(start), int(step), int(count), flow, rows, int(j0))
