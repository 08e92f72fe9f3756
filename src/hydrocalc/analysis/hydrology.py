"""The hydrology of an analysis as the criteria layer reads it: :class:`Hydrology`."""

from __future__ import annotations

from hydrocalc.analysis.flows import _integrate
from hydrocalc.analysis.ponds import _max_storage, _stage_at, _storage_at


class Hydrology:
    """The computed hydrology of one site, as the criteria layer reads it (read-only).

    :func:`analyze` builds it and passes it to :func:`hydrocalc.criteria.evaluate`; the
    criteria modules evaluate rules from it and never route or integrate on their own.

    Attributes
    ----------
    runs : dict
        Scenario name (``"pre"``, ``"post"``) -> its run: ``node_outflow(node)`` and
        ``node_inflow(node)`` give (storm, time) arrays [ft3/s], ``unrouted(i, node)`` the
        design point's inflow with ponds bypassed [ft3/s], ``ponds`` the routed pond arrays
        (``storage_ft3``, ``primary_cfs``, ``discarded_cfs``, ``overtopped``, ...).
    storms : tuple of str
        Storm names analysed; index ``i`` of the arrays.
    time_hr : numpy.ndarray
        Common time base. [h]
    dt_hr : float
        Time step. [h]
    """

    def __init__(self, runs, storms, time_hr, dt_hr: float):
        self.runs = runs
        self.storms = tuple(storms)
        self.time_hr = time_hr
        self.dt_hr = float(dt_hr)

    def volume_ft3(self, flow_cfs):
        """Volume under hydrograph ordinates (trapezoidal rule, last axis) [ft3]."""
        return _integrate(flow_cfs, self.dt_hr)

    @staticmethod
    def max_storage_ft3(pond) -> float:
        """Storage of all ``count`` units of a pond at its top stage [ft3]."""
        return _max_storage(pond)

    @staticmethod
    def storage_at_ft3(pond, stage_ft: float) -> float:
        """Storage of all ``count`` units of a pond at ``stage_ft`` (capped at the top) [ft3]."""
        return _storage_at(pond, stage_ft)

    @staticmethod
    def stage_at_ft(pond, storage_ft3: float) -> float:
        """Stage of a pond holding ``storage_ft3`` over all its units [ft]."""
        return _stage_at(pond, storage_ft3)

    def peak_cfs(self, scenario: str, node: str, i_storm: int) -> float:
        """Peak (largest ordinate) of ``node``'s outflow in storm ``i_storm`` [ft3/s]."""
        return float(self.runs[scenario].node_outflow(node)[i_storm].max())

    def memo(self, key: tuple, compute):
        """``compute()``: a value of the criteria that depends only on ``key``.

        ``key`` holds every input of the value (what ``compute`` reads), so a caller that
        evaluates many variants of a site (the batch summary path) may keep the value under
        it and reuse it for an equal key; here it is computed every time.
        """
        return compute()
