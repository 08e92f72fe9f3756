"""Jurisdictional sizing criteria, one module per standard, behind a registry.

:func:`hydrocalc.analysis.analyze` computes hydrology only (hydrographs, routing, volumes,
pond storages) and hands it, as a :class:`hydrocalc.analysis.Hydrology`, to
:func:`evaluate`, which dispatches on the site's ``criteria.standard`` key to the
jurisdiction's evaluator:

=============  =================================  ==========================================
key            evaluator                          rules
=============  =================================  ==========================================
``ny_smdm``    :func:`hydrocalc.criteria.ny_site  NYS Stormwater Management Design Manual,
               .evaluate`                         Ch. 4 (WQv, RRv, Cpv, Qp, Qf) and Ch. 9
``none``       (no rows)                          criteria not evaluated
=============  =================================  ==========================================

:mod:`hydrocalc.criteria.ny` holds the New York State Stormwater Management Design Manual's
unified sizing criteria (WQv, RRv, Cpv, Qp, Qf) as pure functions, with the criteria and
their verification status in the shipped tables ``ny_sizing_criteria`` and
``ny_rrv_specific_reduction_factors``; :mod:`hydrocalc.criteria.ny_site` composes them for a
site; :mod:`hydrocalc.criteria.ny_redevelopment` holds the Chapter 9 redevelopment options.

Adding a jurisdiction
---------------------
Write a sibling module with ``evaluate(site, hydro) -> (rows, details, notes)`` whose rows
have the keys of :data:`ROW_KEYS` (``details`` may carry the row lists of
:data:`EXTRA_KEYS`), add its key to :data:`EVALUATORS` (and to the site
file's accepted ``criteria.standard`` values); :mod:`hydrocalc.analysis` does not change.
"""

from __future__ import annotations

import importlib

from hydrocalc.criteria import ny

__all__ = ["ny", "EVALUATORS", "ROW_KEYS", "EXTRA_KEYS", "evaluate", "evaluator"]

#: ``criteria.standard`` key -> "module:function" of its evaluator (imported on first use).
EVALUATORS: dict[str, str | None] = {
    "ny_smdm": "hydrocalc.criteria.ny_site:evaluate",
    "none": None,
}

#: Keys of every criteria row, in table order.
ROW_KEYS = ("criterion", "symbol", "design_point", "storm", "required", "provided", "units",
            "comparison", "passed", "result", "equation", "method", "details", "source",
            "location", "status", "note")


def evaluator(standard: str):
    """The evaluator function registered for ``standard`` (``None`` for ``"none"``).

    Raises
    ------
    KeyError
        If ``standard`` is not a key of :data:`EVALUATORS`.
    """
    target = EVALUATORS[standard]
    if target is None:
        return None
    module, func = target.split(":")
    return getattr(importlib.import_module(module), func)


#: Keys an evaluator may put in ``details`` that are lists of rows, not per-criterion dicts:
#: :func:`evaluate` moves them out of the details into its fourth return value.
EXTRA_KEYS = ("practices", "values_to_confirm")


def evaluate(site, hydro) -> tuple[list[dict], dict, list[str], dict[str, list]]:
    """Evaluate the site's criteria (``site.criteria.standard``) from its computed hydrology.

    Parameters
    ----------
    site : hydrocalc.site.Site
    hydro : hydrocalc.analysis.Hydrology

    Returns
    -------
    rows, details, notes, extras
        Criteria rows (keys :data:`ROW_KEYS`), per-criterion intermediate values (a dict per
        criterion), notes for the results' warnings list, and ``extras``: for each key of
        :data:`EXTRA_KEYS` a list of rows (``practices``: one per runoff-reduction practice;
        ``values_to_confirm``: ``name, value, units, source, verified``), empty when the
        evaluator gives none. No rows for ``standard = "none"``.
    """
    func = evaluator(site.criteria.standard)
    if func is None:
        return [], {}, [], {k: [] for k in EXTRA_KEYS}
    rows, details, notes = func(site, hydro)
    extras = {k: list(details.pop(k, [])) for k in EXTRA_KEYS}
    return rows, details, notes, extras
