r"""Level-pool routing against a time-varying tailwater (one table row per time step).

:func:`hydrocalc.routing.route_reservoir` calls :func:`route_with_tailwater_series` when its
``tailwater_ft`` is a series that changes in time; a free outfall or a constant tailwater
never comes here (one storage-indication table serves every step).

Method
------
The outflow depends on the pond stage :math:`h` and on the tailwater :math:`T`. Continuity
over a step with trapezoidal averages ([1]_ Eq. 8.2.3) is unchanged,

.. math::

   \frac{2S_{j+1}}{\Delta t} + O(h_{j+1}, T_{j+1}) = (I_j + I_{j+1})
   + \frac{2S_j}{\Delta t} - O(h_j, T_j),

with the tailwater known at every step. The storage-indication table of step :math:`j` is
:math:`2S(h_k)/\Delta t + O(h_k, T_j)` on the stages :math:`h_k` of the ordinary table; all
rows are computed at once as a (steps x stages) array (vectorized over time and stage), and
the sequential recursion interpolates in its own step's row, so the mass balance still
closes to round-off. :math:`O(h, T_j)` increases with :math:`h` for a fixed tailwater (it is
negative while :math:`h < T_j`: reverse flow), so each row is monotone; a row that is not
(a rating that falls with stage) raises.

References
----------
.. [1] Chow, V.T., Maidment, D.R. and Mays, L.W., *Applied Hydrology*, McGraw-Hill, 1988,
   Section 8.2.
"""

from __future__ import annotations

import numpy as np

from hydrocalc._validate import fmt_value
from hydrocalc.errors import InputError
from hydrocalc.outlets import OutletStructure, unique_names
from hydrocalc.stage_storage import StageStorage
from hydrocalc.units import S_PER_HR

__all__ = ["route_with_tailwater_series"]


def _row_interp(x: np.ndarray, si: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Interpolate ``values[i]`` at ``x[i]`` in row ``si[i]`` (linear, extended above)."""
    n, k = si.shape
    j = np.clip((si <= x[:, None]).sum(axis=1) - 1, 0, k - 2)
    rows = np.arange(n)
    s0, s1 = si[rows, j], si[rows, j + 1]
    w = (x - s0) / (s1 - s0)
    w = np.where(x < si[:, 0], 0.0, w)
    return values[rows, j] + w * (values[rows, j + 1] - values[rows, j])


def route_with_tailwater_series(name: str, t: np.ndarray, q: np.ndarray, dt: float,
                                ss: StageStorage, structure: OutletStructure, h0: float,
                                tw: np.ndarray, table_points: int, flap_gate: bool):
    """Route inflow ``q`` (on times ``t``, step ``dt`` h) through pond ``ss`` whose outlets
    discharge against the tailwater ``tw`` (stage frame, one value per step).

    Called by :func:`hydrocalc.routing.route_reservoir` (which validates every argument);
    returns its :class:`~hydrocalc.routing.RoutingResult`.

    Raises
    ------
    InputError
        If a row of the storage-indication table does not increase with stage.
    """
    from hydrocalc.routing import _build_table, _components, _result, _table_stages

    dt_s = dt * S_PER_HR
    h = _table_stages(ss, structure, table_points)
    s = ss._storage_ext(h)
    comps = _components(structure, h[None, :], tw[:, None], flap_gate)
    names = unique_names([d for d, _ in comps])
    o = np.sum([qq for _, qq in comps], axis=0)                  # (nt, nh)
    si = 2.0 * s[None, :] / dt_s + o
    bad = np.diff(si, axis=1) <= 0
    if bad.any():
        i, k = (int(v[0]) for v in np.nonzero(bad))
        raise InputError(
            f"the outlet rating must not decrease with stage; got {fmt_value(o[i, k])} cfs at "
            f"{fmt_value(h[k])} ft and {fmt_value(o[i, k + 1])} cfs at {fmt_value(h[k + 1])} "
            f"ft with the tailwater at stage {fmt_value(tw[i])} ft. Check the devices")
    n = t.size
    qsum = (q[:-1] + q[1:]).tolist()
    x = float(np.interp(h0, h, si[0]))
    o_prev = float(np.interp(x, si[0], o[0]))
    xs = np.empty(n)
    os_ = np.empty(n)
    xs[0], os_[0] = x, o_prev
    last = si.shape[1] - 1
    for i in range(1, n):
        x = qsum[i - 1] + x - 2.0 * o_prev
        row, orow = si[i], o[i]
        if x <= row[last]:
            o_prev = float(np.interp(x, row, orow))
        else:
            slope = (orow[last] - orow[last - 1]) / (row[last] - row[last - 1])
            o_prev = float(orow[last] + slope * (x - row[last]))
        xs[i] = x
        os_[i] = o_prev
    stage = _row_interp(xs, si, np.broadcast_to(h, si.shape))
    flows = {nm: _row_interp(xs, si, qq) for nm, (_, qq) in zip(names, comps)}
    # overtopping and step checks on the table at the lowest tailwater (largest dO/dh)
    table = _build_table(ss, structure, dt_s, table_points, tailwater=float(tw.min()),
                         flap_gate=flap_gate)
    return _result(name, t, q, xs, os_, table, dt, stage=stage, flows=flows,
                   datum=ss.datum_ft, tailwater=tw + ss.bottom_elevation_ft)
