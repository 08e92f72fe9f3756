"""Jurisdictional sizing criteria, one module per standard.

:mod:`hydrocalc.criteria.ny` holds the New York State Stormwater Management Design Manual's
unified sizing criteria (WQv, RRv, Cpv, Qp, Qf) as pure functions, with the criteria and
their verification status in the shipped tables ``ny_sizing_criteria`` and
``ny_rrv_specific_reduction_factors``.
"""

from __future__ import annotations

from hydrocalc.criteria import ny

__all__ = ["ny"]
