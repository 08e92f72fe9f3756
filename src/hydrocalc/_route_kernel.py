r"""Compiled time loop of the batch storage-indication routing (optional, numba).

:func:`hydrocalc.routing.route_reservoirs` loops over time in Python, vectorized across the
pond-storms of the batch; each step costs about 25 numpy calls whatever the batch size. When
`numba <https://numba.pydata.org>`_ is installed (the ``batch`` extra), :func:`series_loop`
runs the same recurrence compiled, one pond-storm at a time: the cost then grows with the
work only, so a sweep can route small chunks (little memory) as fast as large ones.

The arithmetic is that of the numpy loop, operation for operation and in the same order
(no fast-math, so no fused multiply-add): the storage indication

.. math:: x_i = (I_{i-1} + I_i) + x_{i-1} - 2 O_{i-1}, \qquad x = 2S/\Delta t + O,

the table interval :math:`j` with :math:`SI_j \le x_i < SI_{j+1}` (clipped to the pond's own
table; exact, found by walking from the previous step's interval, where the numpy loop uses a
bucket guess and the same exactness check), the outflow
:math:`O_i = \frac{dO}{dSI}\big|_j (x_i - SI_j) + O_j`, the storage
:math:`S_i = (x_i - O_i)\,\Delta t/2`, the stage by linear interpolation in the table, and the
running sum of :math:`O` in time order. The results are therefore identical to the numpy
loop's (``tests/test_batch.py`` checks this bit for bit). Storage-indication routing:
USDA-NRCS (2004), National Engineering Handbook Part 630, Chapter 17, "Flood Routing".

The compiled loop is used only after :func:`use` (batch workers call it): importing numba
costs a second or two and about 100 MB, more than the numpy loop spends on one site. Set the
environment variable ``HYDROCALC_NO_NUMBA=1`` to use the numpy loop everywhere.
"""

from __future__ import annotations

import os

__all__ = ["available", "installed", "series_loop", "use"]

_KERNEL = None
_TRIED = False
_WANTED = False


def use(flag: bool = True) -> None:
    """Let :func:`hydrocalc.routing.route_reservoirs` use the compiled loop (when numba is
    installed) in this process; False returns to the numpy loop."""
    global _WANTED
    _WANTED = bool(flag)


def _compile():
    import numba

    @numba.njit(cache=True, nogil=True)
    def loop(q2, x, x_max, j0, o0, flat_si, flat_o, flat_slope, flat_h, flat_hslope, lo, hi,
             half_dt_s, os_, storage, stage, v_acc):  # pragma: no cover - compiled
        bsize, nt = q2.shape
        for b in range(bsize):
            xb = x[b]
            jb = j0[b]
            ob = o0[b]
            xm = x_max[b]
            lo_b = lo[b]
            hi_b = hi[b]
            os_[b, 0] = ob
            storage[b, 0] = (xb - ob) * half_dt_s
            stage[b, 0] = flat_hslope[jb] * (xb - flat_si[jb]) + flat_h[jb]
            acc = ob
            o2 = 2.0 * ob
            for i in range(1, nt):
                xb = (q2[b, i] + q2[b, i - 1]) + xb
                xb = xb - o2
                while jb < hi_b and flat_si[jb + 1] <= xb:
                    jb += 1
                while jb > lo_b and xb < flat_si[jb]:
                    jb -= 1
                d = xb - flat_si[jb]
                ob = flat_slope[jb] * d + flat_o[jb]
                o2 = ob * 2.0
                if xb > xm:  # noqa: PLR1730 - as np.maximum, spelled out
                    xm = xb
                os_[b, i] = ob
                storage[b, i] = (xb - ob) * half_dt_s
                stage[b, i] = flat_hslope[jb] * d + flat_h[jb]
                acc += ob
            x[b] = xb
            x_max[b] = xm
            v_acc[b] = acc

    return loop


def _disabled() -> bool:
    return os.environ.get("HYDROCALC_NO_NUMBA", "") not in ("", "0")


def installed() -> bool:
    """True when numba is installed and not disabled (without importing it)."""
    import importlib.util

    return not _disabled() and importlib.util.find_spec("numba") is not None


def available() -> bool:
    """True when the compiled loop can be used (numba installed, not disabled)."""
    global _KERNEL, _TRIED
    if _disabled():
        return False
    if not _TRIED:
        _TRIED = True
        try:
            _KERNEL = _compile()
        except ImportError:
            _KERNEL = None
    return _KERNEL is not None


def series_loop(q2, x, x_max, j0, o0, flat_si, flat_o, flat_slope, flat_h, flat_hslope, lo,
                hi, half_dt_s, os_, storage, stage):
    """Run the routing recurrence for every pond-storm; None when numba is unavailable.

    Parameters
    ----------
    q2 : ndarray (B, nt)
        Inflows of the B pond-storms. [ft3/s]
    x, x_max : ndarray (B,)
        Initial :math:`2S/\\Delta t + O` (updated in place to the last value) and its running
        maximum (updated in place). [ft3/s]
    j0 : ndarray of intp (B,)
        Initial table interval of each pond-storm (an index into the flat tables).
    o0 : ndarray (B,)
        Initial outflow. [ft3/s]
    flat_si, flat_o, flat_slope, flat_h, flat_hslope : ndarray
        The concatenated storage-indication tables: :math:`2S/\\Delta t + O` [ft3/s], outflow
        [ft3/s], dO/dSI [-], stage [ft] and dh/dSI [ft s/ft3].
    lo, hi : ndarray of intp (B,)
        First and last interval of each pond-storm's own table.
    half_dt_s : float
        Half the time step. [s]
    os_, storage, stage : ndarray (B, nt)
        Filled with the outflow [ft3/s], storage [ft3] and stage [ft] series.

    Returns
    -------
    ndarray (B,) or None
        The sum of the outflow ordinates of each pond-storm in time order [ft3/s], or None
        (nothing done) when the compiled loop is unavailable.
    """
    if not (_WANTED and available()):
        return None
    import numpy as np

    v_acc = np.empty(q2.shape[0])
    _KERNEL(q2, x, x_max, np.ascontiguousarray(j0, dtype=np.intp), o0, flat_si, flat_o,
            flat_slope, flat_h, flat_hslope, np.ascontiguousarray(lo, dtype=np.intp),
            np.ascontiguousarray(hi, dtype=np.intp), float(half_dt_s), os_, storage, stage,
            v_acc)
    return v_acc


#: Storage-indication tables kept by :func:`cached_table` (most recent last).
_TABLES: dict = {}
#: Most tables :func:`cached_table` keeps (each a few tens of kB).
TABLE_CACHE_SIZE = 256


def cached_table(build, stage_storage, structure, dt_s: float, points: int, **options):
    """``build(stage_storage, structure, dt_s, points, **options)``, reused for identical inputs.

    In a process that called :func:`use` (a batch worker), the storage-indication table of a
    pond is kept under the pickled bytes of its inputs (the stage-storage relation, the
    bound outlet structure, the step, the table size and the ``options`` such as tailwater
    and flap gate): a sweep that varies an orifice over a few values routes the same few
    ponds thousands of times, and building a table costs more than routing it. Equal bytes mean equal inputs, and the table is a
    deterministic function of them, so a reused table is the table that would be built
    (its arrays are read-only). Elsewhere (one site analysed once) the table is built.
    """
    if not _WANTED:
        return build(stage_storage, structure, dt_s, points, **options)
    import pickle

    try:
        key = pickle.dumps((stage_storage, structure, float(dt_s), int(points),
                            sorted(options.items())), protocol=5)
    except Exception:  # noqa: BLE001 - an input that cannot be pickled is simply built
        return build(stage_storage, structure, dt_s, points, **options)
    table = _TABLES.pop(key, None)
    if table is None:
        table = build(stage_storage, structure, dt_s, points, **options)
        for _, _, q in table.parts:
            q.setflags(write=False)
        while _TABLES and len(_TABLES) >= TABLE_CACHE_SIZE:  # the least recently used
            _TABLES.pop(next(iter(_TABLES)))
    _TABLES[key] = table
    return table
