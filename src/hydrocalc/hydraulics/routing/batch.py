r"""Many ponds x many storms in one loop over time: :func:`route_reservoirs`.

The batch form of :func:`hydrocalc.hydraulics.routing.route_reservoir`: the same storage-indication
tables (:mod:`hydrocalc.hydraulics.routing.table`), one time loop vectorized across every
pond-storm (bucketed interval search, blocks of ``_BLOCK`` steps; the compiled loop of
:mod:`hydrocalc.hydraulics.routing.kernel` when available), returning a :class:`BatchRoutingResult`
whose :meth:`~BatchRoutingResult.routing_result` gives any one pond-storm as a
:class:`~hydrocalc.hydraulics.routing.RoutingResult`.

References
----------
.. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill, 1988,
   Section 8.2 (level pool routing, storage-indication method, Eq. 8.2.3).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from hydrocalc._validate import as_float_array, check_choice, fmt_value
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import Device, as_structure
from hydrocalc.hydraulics.routing import kernel as _route_kernel
from hydrocalc.hydraulics.routing.reservoir import RoutingResult, _result
from hydrocalc.hydraulics.routing.table import (
    _BUCKETS,
    TABLE_POINTS,
    OvertoppingWarning,
    _build_table,
    check_devices,
    to_stage_frame,
)
from hydrocalc.hydraulics.stage_storage import StageStorage
from hydrocalc.units import S_PER_HR


# =========================================================================================
# Batch routing
# =========================================================================================
@dataclass(frozen=True, eq=False)
class BatchRoutingResult:
    """Many ponds x storms routed at once (see :func:`route_reservoirs`).

    Arrays have the batch shape ``shape`` (``(k,)`` ponds or ``(m, k)`` storms x ponds), plus
    a trailing time axis for series (None when routed with ``keep="peaks"``).

    Attributes
    ----------
    time_hr : ndarray (nt,)
    outflow_cfs, stage_ft, storage_ft3 : ndarray (..., nt) or None
    peak_outflow_cfs, time_of_peak_outflow_hr, peak_stage_ft, peak_storage_ft3 : ndarray
    mass_balance_error_pct : ndarray
    overtopped : ndarray of bool
    top_stage_ft : ndarray (k,)
    """

    time_hr: np.ndarray
    inflow_cfs: np.ndarray
    outflow_cfs: np.ndarray | None
    stage_ft: np.ndarray | None
    storage_ft3: np.ndarray | None
    peak_outflow_cfs: np.ndarray
    time_of_peak_outflow_hr: np.ndarray
    peak_stage_ft: np.ndarray
    peak_storage_ft3: np.ndarray
    mass_balance_error_pct: np.ndarray
    overtopped: np.ndarray
    top_stage_ft: np.ndarray
    dt_hr: float
    _tables: tuple = field(repr=False, default=())
    bottom_elevation_ft: np.ndarray | None = None

    @property
    def tables(self) -> tuple:
        """The storage-indication table of each pond (:func:`routing_table`), in pond order."""
        return self._tables

    @property
    def peak_elevation_ft(self) -> np.ndarray:
        """Peak water-surface elevation (peak stage + each pond's bottom elevation) [ft]."""
        base = 0.0 if self.bottom_elevation_ft is None else self.bottom_elevation_ft
        return self.peak_stage_ft + base

    @property
    def shape(self) -> tuple:
        """Batch shape ((k,) or (m, k))."""
        return self.peak_outflow_cfs.shape

    def routing_result(self, index) -> RoutingResult:
        """The full :class:`RoutingResult` of one pond (or storm, pond) of the batch.

        Raises
        ------
        InputError
            If the batch was routed with ``keep="peaks"``.
        """
        if self.outflow_cfs is None or self.storage_ft3 is None:
            raise InputError("routing_result needs the series; got a batch routed with "
                             "keep='peaks'. Route again with keep='series'")
        idx = index if isinstance(index, tuple) else (index,)
        table = self._tables[idx[-1]]
        o = self.outflow_cfs[idx]
        x = 2.0 * self.storage_ft3[idx] / table.dt_s + o
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return _result("", self.time_hr, self.inflow_cfs[idx], x, o, table, self.dt_hr)


def _batch_inflow(inflow_cfs, dt_hr):
    if hasattr(inflow_cfs, "flow_cfs") and hasattr(inflow_cfs, "time_hr"):
        t = np.asarray(inflow_cfs.time_hr, dtype=float)
        q = np.asarray(inflow_cfs.flow_cfs, dtype=float)
        step = float(t[1] - t[0])
        if dt_hr is not None and not math.isclose(float(dt_hr), step, rel_tol=1e-9):
            raise InputError(f"dt_hr must equal the hydrograph set's step ({fmt_value(step)} h);"
                             f" got {fmt_value(dt_hr)}. Omit dt_hr")
        return q, step, float(t[0])
    if dt_hr is None:
        raise InputError("dt_hr must be given with an inflow array; got None")
    q = as_float_array(inflow_cfs, "inflow_cfs", lower=0.0)
    dt = float(as_float_array(dt_hr, "dt_hr", lower=0.0, lower_inclusive=False))
    return q, dt, 0.0


def route_reservoirs(inflow_cfs, dt_hr: float | None, stage_storages, outlets_list, *,
                     initial_stage_ft: npt.ArrayLike = 0.0, keep: str = "series",
                     table_points: int = TABLE_POINTS,
                     overtopping_warning: bool = True, tailwater_ft=None,
                     flap_gate: bool = False, engine: str = "numpy",
                     cache_tables: bool = False) -> BatchRoutingResult:
    r"""Route many ponds x storms at once: one loop over time, vectorized across the batch.

    Parameters
    ----------
    inflow_cfs : array_like (k, nt) or (m, k, nt), or a HydrographSet
        Inflow ordinates of k ponds (or m storms x k ponds) on a common step from t = 0
        [ft3/s]. A :class:`hydrocalc.hydrograph.HydrographSet` (``flow_cfs`` (m, n, nt),
        ``time_hr``) routes subcatchment j through pond j.
    dt_hr : float or None
        Step of the inflow ordinates (the routing step); None with a HydrographSet. [h]
    stage_storages : StageStorage or sequence of k StageStorage
        One pond shape for all, or one per pond.
    outlets_list : Device, OutletStructure or sequence of k outlet specs
        A single device or structure applies to every pond; a list or tuple must have one
        entry per pond, each a device, a list of devices (parallel) or a structure.
    initial_stage_ft : float or array_like (k,) or batch shape, default 0
        Starting stage. [ft]
    keep : {"series", "peaks"}, default "series"
        "series" stores outflow, stage and storage series (needed for
        :meth:`BatchRoutingResult.routing_result`); "peaks" keeps only peaks and volumes
        (less memory for very large batches).
    table_points : int, default 400
        As in :func:`route_reservoir`.
    overtopping_warning : bool, default True
        False: no :class:`OvertoppingWarning` (``overtopped`` still flags the pond-storms),
        for callers that report overtopping themselves; thread-safe, unlike filtering the
        warning with :func:`warnings.catch_warnings`.
    tailwater_ft : None, float or array_like (k,), optional
        Constant tailwater level of every pond (or one per pond, NaN for a free outfall),
        in each pond's devices' frame (elevation when its stage-storage has a datum). Each
        pond's table is then built at its tailwater, so the batch costs the same as with
        free outfalls. A tailwater that varies in time: :func:`route_reservoir`. [ft]
    flap_gate : bool or sequence of k bool, default False
        True: no flow back into the pond(s).
    engine : {"numpy", "numba", "auto"}, default "numpy"
        The loop over time: vectorized numpy across the batch, or compiled by numba one
        pond-storm at a time (:mod:`hydrocalc.hydraulics.routing.kernel`; the same
        operations in the same order, identical results; worth its one-off import of about
        a second over many scenarios), or numba when installed. With ``keep="peaks"`` the
        numpy loop runs.
    cache_tables : bool, default False
        Keep each pond's table for later calls with identical inputs
        (:func:`routing_table`), as a process routing many scenarios wants.

    Returns
    -------
    BatchRoutingResult

    Raises
    ------
    InputError
        If shapes disagree, or for any reason :func:`route_reservoir` would raise.

    Warns
    -----
    OvertoppingWarning
        One warning naming how many pond-storms overtop.

    Notes
    -----
    Each pond's storage-indication table is built exactly as :func:`route_reservoir` builds
    it, so the two agree to round-off. The tables have different lengths; they are
    concatenated, and each pond's :math:`2S/\Delta t + O`, normalized by its value at the
    top, is divided into 4,096 buckets that point to the table interval at the bucket's
    lower edge. Each step takes the bucket's interval, steps up once if the next table
    point is passed, and checks the interval exactly (:math:`SI_j \le x < SI_{j+1}`,
    clipped to the pond's own table, which also gives linear extrapolation above it); the
    rare pond-storms that fail the check (several table points in one bucket) are searched
    step by step. The interval is therefore exact and the arithmetic is that of
    :func:`route_reservoir`. The single loop over time costs about 25 numpy operations per
    step on arrays of the batch size; it runs over blocks of time steps whose inflows are
    transposed in and whose series are transposed out per block, so the results are
    C-contiguous ``(..., nt)`` arrays.

    Examples
    --------
    >>> import numpy as np
    >>> from hydrocalc.hydraulics.outlets import CircularOrifice
    >>> t = np.arange(0, 6.01, 0.05)
    >>> q = 20.0 * np.clip(1 - np.abs(t - 1.0), 0, None)
    >>> ponds = [StageStorage.basin(150, 100, 6), StageStorage.basin(120, 80, 6)]
    >>> b = route_reservoirs(np.stack([q, q]), 0.05, ponds, CircularOrifice(12.0, 0.0))
    >>> b.peak_outflow_cfs.shape
    (2,)
    >>> bool(b.peak_outflow_cfs[1] > b.peak_outflow_cfs[0])   # smaller pond, larger outflow
    True
    """
    check_choice(keep, "keep", ("series", "peaks"))
    engine = _route_kernel.resolve_engine(engine)
    q, dt, t0 = _batch_inflow(inflow_cfs, dt_hr)
    if q.ndim not in (2, 3):
        raise InputError(f"inflow_cfs must have shape (k, nt) or (m, k, nt); got {q.shape}")
    k, nt = q.shape[-2], q.shape[-1]
    if nt < 2:
        raise InputError(f"inflow_cfs needs at least 2 time ordinates; got {nt}")
    batch_shape = q.shape[:-1]
    ss_list = _per_pond(stage_storages, k, "stage_storages", StageStorage)
    out_list = _batch_outlets(outlets_list, k)
    dt_s = dt * S_PER_HR
    tw_k = _batch_tailwater(tailwater_ft, ss_list, k)
    flaps = _batch_flaps(flap_gate, k)
    tables = [_table(ss, outl, dt_s, table_points, tw, bool(flap), cache_tables)
              for ss, outl, tw, flap in zip(ss_list, out_list, tw_k, flaps, strict=True)]
    tops = np.array([tb.top for tb in tables])
    h0 = _batch_initial_stage(initial_stage_ft, batch_shape, tops)

    bsize = int(np.prod(batch_shape))
    flat = _flat_tables(tables, k, bsize)
    q2 = q.reshape(bsize, nt)
    x, j, o = _initial_state(h0, tables, flat, k, bsize)
    series = keep == "series"
    x_first, o_first = x.copy(), o.copy()
    flat_hslope = np.append(np.diff(flat.h) / np.diff(flat.si), 0.0)
    loop = _route_loop(q2, x, j, o, flat, flat_hslope, dt_s, series, engine)

    time_hr = t0 + dt * np.arange(nt)
    v_in = dt_s * (q2.sum(axis=1) - (q2[:, 0] + q2[:, -1]) / 2.0)
    peak_stage, peak_storage = _batch_peaks(loop.x_max, flat, flat_hslope, dt_s)
    mb = _batch_mass_balance_pct(v_in, x_first, o_first, loop, dt_s)
    over = peak_stage > tops[flat.pond]
    if overtopping_warning and over.any():
        warnings.warn(f"{int(over.sum())} of {bsize} pond-storms overtop the top of the "
                      "structure (see BatchRoutingResult.overtopped)", OvertoppingWarning,
                      stacklevel=2)

    def shaped(a):
        return np.asarray(a).reshape(batch_shape)

    def shaped_series(a):   # (B, nt) -> batch shape + (nt,), a view
        return None if a is None else a.reshape(batch_shape + (nt,))

    return BatchRoutingResult(
        time_hr=time_hr, inflow_cfs=q,
        outflow_cfs=shaped_series(loop.outflow),
        stage_ft=shaped_series(loop.stage),
        storage_ft3=shaped_series(loop.storage),
        peak_outflow_cfs=shaped(loop.o_max),
        time_of_peak_outflow_hr=shaped(time_hr[loop.io_max]),
        peak_stage_ft=shaped(peak_stage), peak_storage_ft3=shaped(peak_storage),
        mass_balance_error_pct=shaped(mb), overtopped=shaped(over), top_stage_ft=tops,
        dt_hr=dt, _tables=tuple(tables),
        bottom_elevation_ft=np.array([ss.bottom_elevation_ft for ss in ss_list]))


def _batch_outlets(outlets_list, k) -> list:
    """One outlet spec per pond: a single device repeated, or a list of k specs checked."""
    if isinstance(outlets_list, (Device,)):
        return [outlets_list] * k
    if isinstance(outlets_list, (list, tuple)):
        if len(outlets_list) != k:
            raise InputError(
                f"outlets_list must have one entry per pond ({k}); got {len(outlets_list)}. "
                "To use one set of devices for every pond, pass an OutletStructure")
        return list(outlets_list)
    raise InputError(f"outlets_list must be a device, a structure or a list of k outlet "
                     f"specs; got {outlets_list!r}")


def _batch_flaps(flap_gate, k) -> list:
    """One flap-gate flag per pond (a single bool repeated, or a list of k checked)."""
    flaps = (list(flap_gate) if isinstance(flap_gate, (list, tuple, np.ndarray))
             else [bool(flap_gate)] * k)
    if len(flaps) != k:
        raise InputError(f"flap_gate must be a bool or one per pond ({k}); got {len(flaps)}")
    return flaps


def _batch_initial_stage(initial_stage_ft, batch_shape, tops) -> np.ndarray:
    """Initial stage broadcast to the batch shape, checked against each pond's top [ft]."""
    h0 = as_float_array(initial_stage_ft, "initial_stage_ft", lower=0.0)
    h0 = np.broadcast_to(h0, batch_shape)
    if (h0 > tops).any():
        raise InputError(f"initial_stage_ft must be <= the top of each pond; got "
                         f"{fmt_value(np.max(h0 - tops) + 0)} ft above a top")
    return h0


@dataclass(frozen=True, eq=False)
class _FlatTables:
    """The ponds' tables concatenated, with each pond-storm's bucket lookup and table range."""

    si: np.ndarray            # 2S/dt + O of every table point [ft3/s]
    o: np.ndarray             # outflow [ft3/s]
    h: np.ndarray             # stage [ft]
    slope: np.ndarray         # dO/dSI of each interval (0 after a pond's last point)
    next_si: np.ndarray       # the next table point of each interval (+inf after the last)
    bucket: np.ndarray        # per-pond buckets -> the table interval at the bucket's edge
    pond: np.ndarray          # pond index of each pond-storm (B,)
    inv_scale: np.ndarray     # 1 / (2S/dt + O at the pond's top) per pond-storm
    factor: np.ndarray        # bucket guess factor per pond-storm
    bucket_base: np.ndarray   # first bucket of each pond-storm's pond
    lo: np.ndarray            # first interval of each pond-storm's table
    hi: np.ndarray            # last interval of each pond-storm's table


def _flat_tables(tables, k, bsize) -> _FlatTables:
    """Concatenate the k ponds' tables; per-pond buckets over the normalized 2S/dt + O."""
    lens = np.array([tb.si.size for tb in tables])
    starts = np.concatenate([[0], np.cumsum(lens)[:-1]])
    flat_si = np.concatenate([tb.si for tb in tables])
    flat_o = np.concatenate([tb.outflow for tb in tables])
    flat_h = np.concatenate([tb.stage for tb in tables])
    flat_slope = np.concatenate([np.append(tb.slope, 0.0) for tb in tables])
    # the next table point of each interval, +inf after a pond's last interval (so the
    # interval search never steps into the next pond's table)
    next_si = np.concatenate([tb.next_si for tb in tables]) if k else np.empty(0)
    scale = np.array([tb.si[tb.n_inside - 1] for tb in tables])   # 2S/dt + O at the top
    bucket = np.concatenate([st + tb.bucket
                             for st, tb in zip(starts, tables, strict=False)]).astype(np.intp)

    pond = np.tile(np.arange(k), bsize // k)
    inv_scale = 1.0 / scale[pond]
    factor = _BUCKETS * inv_scale     # bucket guess only: the search below is exact
    return _FlatTables(si=flat_si, o=flat_o, h=flat_h, slope=flat_slope, next_si=next_si,
                       bucket=bucket, pond=pond, inv_scale=inv_scale, factor=factor,
                       bucket_base=pond * _BUCKETS, lo=starts[pond],
                       hi=(starts + lens - 2)[pond])


def _initial_state(h0, tables, flat: _FlatTables, k, bsize):
    """Initial 2S/dt + O, table interval and outflow of every pond-storm from its stage."""
    x = np.empty(bsize)
    grid = x.reshape(-1, k)
    h0g = h0.reshape(-1, k)
    for p in range(k):
        grid[:, p] = np.interp(h0g[:, p], tables[p].stage, tables[p].si)
    j = _locate(x, flat.bucket[flat.bucket_base
                               + np.clip((x * flat.inv_scale * _BUCKETS).astype(np.int64),
                                         0, _BUCKETS - 1)], flat.lo, flat.hi, flat.si)
    o = flat.slope[j] * (x - flat.si[j]) + flat.o[j]
    return x, j, o


@dataclass(frozen=True, eq=False)
class _LoopResult:
    """State after the loop over time, and the series when kept (None otherwise)."""

    x: np.ndarray             # last 2S/dt + O [ft3/s]
    o: np.ndarray             # last outflow [ft3/s]
    x_max: np.ndarray         # maximum 2S/dt + O [ft3/s]
    o_max: np.ndarray         # peak outflow [ft3/s]
    io_max: np.ndarray        # step of the (first) peak outflow
    v_sum: np.ndarray         # series: sum of O in time order; peaks: sum of O_{i-1} + O_i
    outflow: np.ndarray | None
    storage: np.ndarray | None
    stage: np.ndarray | None


def _route_loop(q2, x, j, o, flat: _FlatTables, flat_hslope, dt_s, series, engine):
    """The loop over time for every pond-storm, in blocks of ``_BLOCK`` steps."""
    bsize, nt = q2.shape
    flat_si, flat_o, flat_slope, next_si = flat.si, flat.o, flat.slope, flat.next_si
    bucket, bucket_base, factor, lo, hi = (flat.bucket, flat.bucket_base, flat.factor,
                                           flat.lo, flat.hi)
    half_dt_s = dt_s / 2.0
    # The loop works on blocks of _BLOCK steps held time-major (one contiguous row per
    # step); inflows are transposed in and series transposed out one block at a time, so
    # the results are C-contiguous (batch..., nt) without a full-size transpose.
    blk = _BLOCK
    qbuf = np.empty((blk + 1, bsize))
    if series:
        os_, storage, stage, bx, bj, bo_ext = _series_buffers(bsize, nt, blk)
        bo = bo_ext[1:]
        bx[0], bj[0], bo[0] = x, j, o
        v_acc = np.zeros(bsize)
        first_block = True
    else:
        v_out = np.zeros(bsize)
        o_new = np.empty(bsize)
    o_max, io_max = o.copy(), np.zeros(bsize, dtype=np.int64)
    x = x.copy()
    x_max = x.copy()
    o_prev, o2 = o.copy(), 2.0 * o
    fl = np.empty(bsize)
    ib = np.empty(bsize, dtype=np.intp)
    j = np.empty(bsize, dtype=np.intp)
    up = np.empty(bsize, dtype=bool)
    bad = np.empty(bsize, dtype=bool)
    d = np.empty(bsize)
    tmp = np.empty(bsize)
    last = _BUCKETS - 1
    add, sub, mul, less_equal, count = (np.add, np.subtract, np.multiply, np.less_equal,
                                        np.count_nonzero)
    # the same recurrence compiled, when numba is installed (identical arithmetic)
    v_compiled = _route_kernel.series_loop(
        q2, x, x_max, bj[0], o, flat_si, flat_o, flat_slope, flat.h, flat_hslope, lo, hi,
        half_dt_s, os_, storage, stage) if engine == "numba" and series and nt > 1 else None
    if v_compiled is not None:
        v_acc, nt_loop = v_compiled, 0
    else:
        nt_loop = nt
    for b0 in range(0, nt_loop, blk):
        b1 = min(b0 + blk, nt)
        s0 = max(b0 - 1, 0)
        qb = qbuf[: b1 - s0]
        np.copyto(qb, q2[:, s0:b1].T)
        qpair = add(qb[1:], qb[:-1], out=qb[1:])   # row i - s0 - 1: I_{i-1} + I_i
        for i in range(max(b0, 1), b1):
            # x_i = (I_{i-1} + I_i) + x_{i-1} - 2 O_{i-1}, with x = 2S/dt + O (in place)
            add(qpair[i - s0 - 1], x, out=x)
            sub(x, o2, out=x)
            # interval j of every pond-storm: bucket guess, one step up, then an exact check
            mul(x, factor, out=fl)
            np.copyto(ib, fl, casting="unsafe")
            np.minimum(ib, last, out=ib)   # the bucket clipped to [0, last] (two ufuncs:
            np.maximum(ib, 0, out=ib)      # np.clip's Python wrapper costs more per call)
            add(ib, bucket_base, out=ib)
            j0 = bucket[ib]
            less_equal(next_si[j0], x, out=up)
            add(j0, up, out=j)
            sub(x, flat_si[j], out=d)                   # x - SI_j (< 0: j too high)
            less_equal(next_si[j], x, out=bad)          # SI_j+1 <= x: j too low
            np.logical_or(bad, np.less(d, 0.0, out=up), out=bad)
            if count(bad):   # rare: several table points in one bucket, or outside the table
                j[:] = _locate(x, j, lo, hi, flat_si)
                sub(x, flat_si[j], out=d)
            # O_i = dO/dSI_j (x - SI_j) + O_j, by linear interpolation in the pond's table
            o = bo[i - b0] if series else o_new
            mul(flat_slope[j], d, out=tmp)
            add(tmp, flat_o[j], out=o)
            mul(o, 2.0, out=o2)
            np.maximum(x, x_max, out=x_max)
            if series:
                bx[i - b0] = x
                bj[i - b0] = j
            else:
                np.greater(o, o_max, out=up)      # the first time of the peak outflow
                np.copyto(o_max, o, where=up)
                np.copyto(io_max, i, where=up)
                add(o_prev, o, out=tmp)
                v_out += tmp
                o_prev, o_new = o_new, o_prev
        if series:
            v_acc = _store_block(b0, b1, bx, bj, bo_ext, flat, flat_hslope, half_dt_s,
                                 os_, storage, stage, None if first_block else v_acc)
            first_block = False
    if series:
        o = os_[:, -1]
        io_max = np.argmax(os_, axis=1)      # the first maximum, as a running strict maximum
        o_max = os_[np.arange(bsize), io_max]
        return _LoopResult(x=x, o=o, x_max=x_max, o_max=o_max, io_max=io_max, v_sum=v_acc,
                           outflow=os_, storage=storage, stage=stage)
    return _LoopResult(x=x, o=o, x_max=x_max, o_max=o_max, io_max=io_max, v_sum=v_out,
                       outflow=None, storage=None, stage=None)


def _series_buffers(bsize, nt, blk):
    """Series (outflow, storage, stage) and per-block buffers (x, interval, O) of the loop.

    Per block: x, the interval j and O by step (row 0 of the O buffer carries the running
    sum of O, so summing the block's rows continues it in time order, exactly as
    ndarray.sum(axis=0) over all steps); stage and storage follow per block.
    """
    os_ = np.empty((bsize, nt))
    storage = np.empty((bsize, nt))
    stage = np.empty((bsize, nt))
    bx = np.empty((blk, bsize))
    bj = np.empty((blk, bsize), dtype=np.intp)
    bo_ext = np.empty((blk + 1, bsize))
    return os_, storage, stage, bx, bj, bo_ext


def _store_block(b0, b1, bx, bj, bo_ext, flat: _FlatTables, flat_hslope, half_dt_s,
                 os_, storage, stage, v_acc):
    """Transpose one block's outflow, storage and stage out; return the running sum of O."""
    n = b1 - b0
    bo = bo_ext[1:]
    xb, jb, ob = bx[:n], bj[:n], bo[:n]
    np.copyto(os_[:, b0:b1], ob.T)
    np.copyto(storage[:, b0:b1], ((xb - ob) * half_dt_s).T)
    np.copyto(stage[:, b0:b1], (flat_hslope[jb] * (xb - flat.si[jb]) + flat.h[jb]).T)
    if v_acc is None:    # the sum starts with O_0 itself, as ndarray.sum does
        return ob.sum(axis=0)
    bo_ext[0] = v_acc
    return bo_ext[: n + 1].sum(axis=0)


def _batch_peaks(x_max, flat: _FlatTables, flat_hslope, dt_s):
    """Peak stage [ft] and storage [ft3] of every pond-storm, at its maximum 2S/dt + O."""
    # stage and storage rise with 2S/dt + O, so their peaks are at its maximum
    b = np.clip((x_max * flat.inv_scale * _BUCKETS).astype(np.int64), 0, _BUCKETS - 1)
    jm = _locate(x_max, flat.bucket[flat.bucket_base + b], flat.lo, flat.hi, flat.si)
    o_at = flat.slope[jm] * (x_max - flat.si[jm]) + flat.o[jm]
    peak_storage = (x_max - o_at) * dt_s / 2.0
    peak_stage = flat_hslope[jm] * (x_max - flat.si[jm]) + flat.h[jm]
    return peak_stage, peak_storage


def _batch_mass_balance_pct(v_in, x_first, o_first, loop: _LoopResult, dt_s):
    """Mass balance error of every pond-storm, 100 (V_in - V_out - dS) / (V_in + S_0) [%]."""
    s_first = (x_first - o_first) * dt_s / 2.0
    s_last = (loop.x - loop.o) * dt_s / 2.0
    if loop.outflow is not None:      # the series were kept
        v_out = dt_s * (loop.v_sum - (loop.outflow[:, 0] + loop.outflow[:, -1]) / 2.0)
    else:
        v_out = loop.v_sum * dt_s / 2.0
    denom = v_in + s_first
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, 100.0 * (v_in - v_out - (s_last - s_first)) / denom, 0.0)


def _batch_tailwater(tailwater_ft, ss_list, k) -> list:
    """Per-pond constant tailwater in stage frame (None: free outfall)."""
    if tailwater_ft is None:
        return [None] * k
    if isinstance(tailwater_ft, Mapping) or (np.ndim(tailwater_ft) == 2):
        raise InputError("route_reservoirs takes a constant tailwater per pond; got a series. "
                         "Route a time-varying tailwater with route_reservoir")
    tw = np.broadcast_to(as_float_array(tailwater_ft, "tailwater_ft", allow_nan=True), (k,))
    out: list[float | None] = []
    for p, (level, ss) in enumerate(zip(tw, ss_list, strict=False)):
        if np.isnan(level):
            out.append(None)
            continue
        st = float(level) - ss.bottom_elevation_ft
        if st > ss.top_stage_ft * (1 + 1e-12):
            raise InputError(
                f"tailwater_ft must be <= the top of each pond; got {fmt_value(level)} for pond "
                f"{p} (top {fmt_value(ss.top_elevation_ft)} ft). Check the level's frame "
                "(elevation or stage) and datum")
        out.append(st)
    return out
#: Time steps per block of the batch routing loop (transposed in and out per block).
_BLOCK = 128


def routing_table(stage_storage: StageStorage, outlets, dt_s: float, *,
                  tailwater_stage_ft: float | None = None, flap_gate: bool = False,
                  table_points: int = TABLE_POINTS, cache: bool = False):
    r"""The storage-indication table of one pond at routing step ``dt_s``.

    As :func:`route_reservoirs` builds it.

    Parameters
    ----------
    stage_storage : StageStorage
    outlets : Device, list of devices or OutletStructure
        In the pond's frame (stages, or elevations when ``stage_storage`` has a datum).
    dt_s : float
        Routing step. [s]
    tailwater_stage_ft : float, optional
        Constant tailwater, as a stage above the pond's bottom (None: free outfall). [ft]
    flap_gate : bool, default False
    table_points : int, default 400
    cache : bool, default False
        Reuse the table built for identical inputs earlier in this process
        (:func:`hydrocalc.hydraulics.routing.kernel.cached_table`).

    Returns
    -------
    The table: ``si`` (:math:`2S/\Delta t + O`) [ft3/s], ``outflow`` [ft3/s], ``stage`` [ft],
    ``parts`` (each device's rating), ``top`` [ft] and ``dt_s`` [s]; storage-indication
    method, Chow, Maidment and Mays (1988), Eq. 8.2.3.

    Raises
    ------
    InputError
        If a device lies outside the pond (as :func:`route_reservoirs`).
    """
    structure = to_stage_frame(as_structure(outlets), stage_storage).bind(stage_storage)
    check_devices(structure, stage_storage)
    return _route_kernel.cached_table(_build_table, stage_storage, structure, float(dt_s),
                                      int(table_points), cache=cache,
                                      tailwater=tailwater_stage_ft, flap_gate=bool(flap_gate))


def _table(ss, outlets, dt_s, points, tailwater, flap, cache):
    return routing_table(ss, outlets, dt_s, tailwater_stage_ft=tailwater, flap_gate=flap,
                         table_points=points, cache=cache)


def tailwater_stages_ft(tailwater_ft, stage_storages) -> list:
    """Constant tailwater levels in each pond's frame as stages above its bottom [ft].

    None: free outfall, for NaN or ``tailwater_ft=None``; as :func:`route_reservoirs` takes
    them.
    """
    ss_list = list(stage_storages)
    return _batch_tailwater(tailwater_ft, ss_list, len(ss_list))


def _locate(x, j, lo, hi, flat_si):
    """Interval j with flat_si[j] <= x < flat_si[j + 1], clipped to [lo, hi].

    [lo, hi] is the pond's own table. From a bucket guess: step up, and down for round-off,
    until exact.
    """
    while True:
        up = (j < hi) & (flat_si[j + 1] <= x)
        if not up.any():
            break
        j = j + up
    while True:
        down = (j > lo) & (x < flat_si[j])
        if not down.any():
            break
        j = j - down
    return j


def _per_pond(value, k, name, cls):
    if isinstance(value, cls):
        return [value] * k
    try:
        items = list(value)
    except TypeError:
        raise InputError(f"{name} must be a {cls.__name__} or a sequence of {k}; got "
                         f"{value!r}") from None
    if len(items) != k:
        raise InputError(f"{name} must have one entry per pond ({k}); got {len(items)}")
    for i, it in enumerate(items):
        if not isinstance(it, cls):
            raise InputError(f"{name} must hold {cls.__name__} objects; got {it!r} at index {i}")
    return items
