r"""Compiled time loop of the batch storage-indication routing (optional, numba).

:func:`hydrocalc.hydraulics.routing.route_reservoirs` loops over time in Python, vectorized
across the pond-storms of the batch; each step costs about 25 numpy calls whatever the batch
size. When
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
loop's (``tests/batch/test_batch.py`` checks this bit for bit). Storage-indication routing:
USDA-NRCS (2004), National Engineering Handbook Part 630, Chapter 17, "Flood Routing".

The engine is an explicit argument of the callers (``engine="numpy"``, ``"numba"`` or
``"auto"``, :func:`resolve_engine`); the numpy loop is the default: importing numba costs a
second or two and about 100 MB, more than the numpy loop spends on one site, so batch workers
ask for ``"auto"``. The environment variable ``HYDROCALC_NO_NUMBA=1`` makes ``"auto"`` the
numpy loop.
"""

from __future__ import annotations

import os

from hydrocalc.errors import InputError

__all__ = ["ENGINES", "available", "cached_table", "installed", "resolve_engine",
           "route_split", "series_loop", "warm_up"]

#: The routing engines: the numpy loop, the compiled loop, or the compiled loop when numba
#: is installed (and not disabled by ``HYDROCALC_NO_NUMBA``), else the numpy loop.
ENGINES = ("numpy", "numba", "auto")

_KERNEL = None
_FUSED = None
_TRIED = False


def resolve_engine(engine: str) -> str:
    """The engine that runs for ``engine``: ``"numpy"`` or ``"numba"``.

    Raises
    ------
    InputError
        For an unknown engine, or ``"numba"`` when numba is not installed (or disabled by
        ``HYDROCALC_NO_NUMBA``).
    """
    if engine not in ENGINES:
        raise InputError(f"engine must be one of {', '.join(ENGINES)}; got {engine!r}")
    if engine == "numpy":
        return "numpy"
    if available():
        return "numba"
    if engine == "auto":
        return "numpy"
    raise InputError("engine='numba' needs numba (pip install 'hydrocalc[batch]'), and "
                     "HYDROCALC_NO_NUMBA unset; use engine='numpy' or 'auto'")


# Not split, though over 100 lines of code (and C901 waived): a compiled kernel. Its body is
# the two numba nopython loops, `loop` and `fused`, each one compiled function over time;
# a call out of a loop into a Python helper would leave nopython speed, and each loop must
# stay the numpy loop's arithmetic operation for operation (bit for bit).
def _compile():  # noqa: C901
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

    @numba.njit(cache=True, nogil=True, error_model="numpy")
    def fused(q2, inflow_of_row, table_of_row, x0, j0, o0, flat_si, flat_o, flat_slope,
              flat_h, flat_hslope, lo, hi, top, half_dt_s, dt_s, noise, n_parts, q_off,
              q_flat, q_slope, primary, storage, discarded, keep,
              over):  # pragma: no cover - compiled
        # error_model="numpy": no zero-division branch (no divisor here is zero; the
        # quotients are the same IEEE divisions)
        bsize = table_of_row.shape[0]
        nt = q2.shape[1]
        for b in range(bsize):
            tb = table_of_row[b]
            qb = inflow_of_row[b]
            xb = x0[tb]
            jb = j0[tb]
            ob = o0[tb]
            lo_b = lo[tb]
            hi_b = hi[tb]
            last = hi_b + 1
            xm = xb
            jm = jb
            mx = ob
            o2 = 2.0 * ob
            jj = lo_b
            for i in range(nt):
                if i > 0:  # the recurrence of `loop`, operation for operation
                    xb = (q2[qb, i] + q2[qb, i - 1]) + xb
                    xb = xb - o2
                    while jb < hi_b and flat_si[jb + 1] <= xb:
                        jb += 1
                    while jb > lo_b and xb < flat_si[jb]:
                        jb -= 1
                    d = xb - flat_si[jb]
                    ob = flat_slope[jb] * d + flat_o[jb]
                    o2 = ob * 2.0
                    if xb > xm:  # as np.maximum (and its interval), spelled out
                        xm = xb
                        jm = jb
                    if ob > mx:  # noqa: PLR1730 - as ndarray.max, spelled out
                        mx = ob
                s = (xb - ob) * half_dt_s
                if keep:
                    storage[b, i] = s
                # the discarded flow of `split` at x = 2 S / dt + O from the storage (the
                # interval slopes of the parts precomputed: the same quotients)
                x = s * 2.0
                x = x / dt_s
                x = x + ob
                dsum = 0.0
                for p in range(n_parts[tb]):
                    qo = q_off[tb, p] - lo_b
                    if x < flat_si[lo_b]:
                        y = q_flat[qo + lo_b]
                    elif x > flat_si[last]:
                        y = q_flat[qo + last] + q_slope[qo + last - 1] * (x - flat_si[last])
                    elif x == flat_si[last]:
                        y = q_flat[qo + last]
                    else:
                        while jj < last - 1 and flat_si[jj + 1] <= x:
                            jj += 1
                        while jj > lo_b and x < flat_si[jj]:
                            jj -= 1
                        if flat_si[jj] == x:
                            y = q_flat[qo + jj]
                        else:
                            y = q_slope[qo + jj] * (x - flat_si[jj]) + q_flat[qo + jj]
                    dsum = dsum + y
                primary[b, i] = ob - dsum
                if keep:
                    discarded[b, i] = dsum
            scale = (mx if mx > 1e-300 else 1e-300) * noise  # noqa: FURB136 - np.maximum
            for i in range(nt):
                if primary[b, i] < scale:
                    primary[b, i] = 0.0
            peak_stage = flat_hslope[jm] * (xm - flat_si[jm]) + flat_h[jm]
            over[b] = peak_stage > top[tb]

    global _FUSED
    _FUSED = fused
    return loop


def route_split(q2, table_of_row, tables, initial_stage_ft, noise, keep_series,
                inflow_of_row=None):
    r"""Route pond-storms and split their outflow in one compiled pass per pond-storm.

    The recurrence of :func:`series_loop` followed, step by step, by the primary/discarded
    split of the full analysis (:func:`hydrocalc.analysis._route_batch`: the discarded flow
    interpolated in the table at :math:`x = 2S/\Delta t + O`, the primary flow
    :math:`O - Q_d` zeroed below ``noise`` times the row's peak; the same operations in the
    same order, so the results are those of :func:`hydrocalc.hydraulics.routing.route_reservoirs`
    then that split, bit for bit), without keeping the outflow and stage series: what a
    sweep's summary reads.

    Parameters
    ----------
    q2 : ndarray (B, nt), or (Q, nt) with ``inflow_of_row``
        Inflows of one unit of each pond-storm. [ft3/s]
    table_of_row : ndarray of intp (B,)
        Index into ``tables`` of each pond-storm.
    tables : sequence of routing tables
        Storage-indication tables (:func:`hydrocalc.hydraulics.routing._build_table`), all with the
        same ``dt_s``.
    initial_stage_ft : sequence of float
        Starting stage of each table's pond. [ft]
    noise : float
        Relative round-off below which a primary flow is zero (of each row's peak). [-]
    keep_series : bool
        Also return the storage [ft3] and discarded flow [ft3/s] series.
    inflow_of_row : ndarray of intp (B,), optional
        Row of ``q2`` holding each pond-storm's inflow (pond-storms with the same inflow,
        e.g. the variants of a pond in one storm, share one row); default row ``b``.

    Returns
    -------
    (primary, storage, discarded, overtopped) or None
        ``primary`` (B, nt) [ft3/s]; ``storage`` and ``discarded`` (B, nt) or None;
        ``overtopped`` (B,) bool (peak stage above the table's top).

    References
    ----------
    Storage-indication (level-pool) routing: Chow, Maidment and Mays, *Applied Hydrology*
    (1988), Section 8.2, Eq. 8.2.3; USDA-NRCS, National Engineering Handbook Part 630,
    Chapter 17. The discarded share is linear interpolation in the table's discarded
    rating (extended linearly above the table, as :func:`hydrocalc.hydraulics.routing.interp_ext`).
    """
    if not available():
        raise InputError("route_split needs numba; route with engine='numpy' instead")
    import numpy as np

    k = len(tables)
    per = [_fused_arrays(tb, float(h0)) for tb, h0 in zip(tables, initial_stage_ft, strict=False)]
    lens = np.array([tb.si.size for tb in tables], dtype=np.intp)
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]]).astype(np.intp)
    flat_si = np.concatenate([tb.si for tb in tables])
    flat_o = np.concatenate([tb.outflow for tb in tables])
    flat_h = np.concatenate([tb.stage for tb in tables])
    flat_slope = np.concatenate([d["slope"] for d in per])
    flat_hslope = np.concatenate([d["hslope"] for d in per])
    lo = starts
    hi = starts + lens - 2
    x0 = np.array([d["x0"] for d in per])
    j0 = starts + np.array([d["j0"] for d in per], dtype=np.intp)
    o0 = np.array([d["o0"] for d in per])
    n_parts = np.array([len(d["parts"]) for d in per], dtype=np.intp)
    width = max(1, int(n_parts.max()))
    q_off = np.zeros((k, width), dtype=np.intp)
    q_chunks, s_chunks = [], []
    pos = 0
    for j, d in enumerate(per):
        for p, (qq, qs) in enumerate(d["parts"]):
            q_off[j, p] = pos
            q_chunks.append(qq)
            s_chunks.append(qs)
            pos += qq.size
    q_flat = np.concatenate(q_chunks) if q_chunks else np.zeros(1)
    q_slope = np.concatenate(s_chunks) if s_chunks else np.zeros(1)
    top = np.array([tb.top for tb in tables], dtype=float)
    dt_s = float(tables[0].dt_s)
    q2 = np.ascontiguousarray(q2, dtype=float)
    table_of_row = np.ascontiguousarray(table_of_row, dtype=np.intp)
    bsize, nt = table_of_row.shape[0], q2.shape[1]
    if inflow_of_row is None:
        if q2.shape[0] != bsize:
            raise ValueError("q2 must have one row per pond-storm without inflow_of_row")
        inflow_of_row = np.arange(bsize, dtype=np.intp)
    inflow_of_row = np.ascontiguousarray(inflow_of_row, dtype=np.intp)
    if inflow_of_row.shape != (bsize,) or (bsize and not (
            0 <= inflow_of_row.min() and inflow_of_row.max() < q2.shape[0])):
        raise ValueError("inflow_of_row must give a row of q2 for every pond-storm")
    primary = np.empty((bsize, nt))
    storage = np.empty((bsize, nt)) if keep_series else np.empty((1, 1))
    discarded = np.empty((bsize, nt)) if keep_series else np.empty((1, 1))
    over = np.empty(bsize, dtype=np.bool_)
    _FUSED(q2, inflow_of_row, table_of_row, x0, j0, o0, flat_si,
           flat_o, flat_slope, flat_h, flat_hslope, lo, hi, top, dt_s / 2.0, dt_s,
           float(noise), n_parts, q_off, q_flat, q_slope, primary, storage, discarded,
           bool(keep_series), over)
    if not keep_series:
        storage = discarded = None
    return primary, storage, discarded, over


#: Per-table arrays of :func:`route_split`, kept under the table's id with the table.
_FUSED_ARRAYS: dict = {}


def _fused_arrays(tb, h0: float) -> dict:
    """The arrays :func:`route_split` derives from one table and initial stage ``h0``.

    dO/dSI and dh/dSI per interval (0 appended, as route_reservoirs' flat tables), the initial
    2S/dt + O, interval and outflow, and the discarded parts with numpy.interp's interval
    slopes.
    """
    import numpy as np

    key = (id(tb), h0)
    hit = _FUSED_ARRAYS.get(key)
    if hit is not None and hit[0] is tb:
        return hit[1]
    slope = np.append(tb.slope, 0.0)
    dsi = np.diff(tb.si)
    x0 = float(np.interp(h0, tb.stage, tb.si))
    # the interval with SI_j <= x < SI_j+1, clipped to the table (routing._locate)
    j = min(max(int(np.searchsorted(tb.si, x0, side="right")) - 1, 0), tb.si.size - 2)
    parts = []
    for _, kind, qq in tb.parts:
        if kind == "discarded":
            qq = np.asarray(qq, dtype=float)
            parts.append((qq, np.append(np.diff(qq) / dsi, 0.0)))
    out = {"slope": slope, "hslope": np.append(np.diff(tb.stage) / dsi, 0.0), "x0": x0,
           "j0": j, "o0": slope[j] * (x0 - tb.si[j]) + tb.outflow[j], "parts": parts}
    if len(_FUSED_ARRAYS) >= TABLE_CACHE_SIZE:
        _FUSED_ARRAYS.clear()
    _FUSED_ARRAYS[key] = (tb, out)
    return out


def warm_up() -> bool:
    """Load the compiled pass of :func:`route_split` now; True when it was loaded.

    It is loaded from numba's cache (compiled the first time) by routing one tiny made-up
    pond-storm.

    Called by the batch's fork server before it forks the workers, so no worker loads it
    itself; the arrays have the types and layouts :func:`route_split` always passes, so the
    loaded machine code is the one the tasks call.
    """
    if not (installed() and available()):
        return False
    import types

    import numpy as np

    si = np.array([0.0, 1.0, 2.0])
    out = np.array([0.0, 0.5, 1.0])
    tb = types.SimpleNamespace(si=si, outflow=out, stage=np.array([0.0, 1.0, 2.0]),
                               slope=np.diff(out) / np.diff(si), top=2.0, dt_s=60.0,
                               parts=[("exfiltration", "discarded", out * 0.1)])
    try:
        for keep in (True, False):
            route_split(np.zeros((1, 4)), np.zeros(1, dtype=np.intp), [tb], [0.0], 1e-9, keep)
    finally:
        _FUSED_ARRAYS.pop((id(tb), 0.0), None)
    return True


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
    r"""Run the routing recurrence for every pond-storm, compiled (``engine="numba"``).

    Parameters
    ----------
    q2 : ndarray (B, nt)
        Inflows of the B pond-storms. [ft3/s]
    x, x_max : ndarray (B,)
        Initial :math:`2S/\Delta t + O` (updated in place to the last value) and its running
        maximum (updated in place). [ft3/s]
    j0 : ndarray of intp (B,)
        Initial table interval of each pond-storm (an index into the flat tables).
    o0 : ndarray (B,)
        Initial outflow. [ft3/s]
    flat_si, flat_o, flat_slope, flat_h, flat_hslope : ndarray
        The concatenated storage-indication tables: :math:`2S/\Delta t + O` [ft3/s], outflow
        [ft3/s], dO/dSI [-], stage [ft] and dh/dSI [ft s/ft3].
    lo, hi : ndarray of intp (B,)
        First and last interval of each pond-storm's own table.
    half_dt_s : float
        Half the time step. [s]
    os_, storage, stage : ndarray (B, nt)
        Filled with the outflow [ft3/s], storage [ft3] and stage [ft] series.

    Returns
    -------
    ndarray (B,)
        The sum of the outflow ordinates of each pond-storm in time order. [ft3/s]
    """
    if not available():
        raise InputError("series_loop needs numba; route with engine='numpy' instead")
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


def cached_table(build, stage_storage, structure, dt_s: float, points: int, *,
                 cache: bool = False, **options):
    """``build(stage_storage, structure, dt_s, points, **options)``, reused for identical inputs.

    With ``cache`` (a batch worker routing many scenarios), the storage-indication table of a
    pond is kept under the pickled bytes of its inputs (the stage-storage relation, the
    bound outlet structure, the step, the table size and the ``options`` such as tailwater
    and flap gate): a sweep that varies an orifice over a few values routes the same few
    ponds thousands of times, and building a table costs more than routing it. Equal bytes
    mean equal inputs, and the table is a deterministic function of them, so a reused table is
    the table that would be built (its arrays are read-only). Without ``cache`` (one site
    analysed once) it is built.
    """
    if not cache:
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
