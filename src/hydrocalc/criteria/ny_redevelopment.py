r"""Redevelopment (NYS SMDM Chapter 9): the water-quality treatment a redevelopment requires.

The SMDM's Table 4.1 footnote sends "required sizing criteria in redevelopment projects" to
Chapter 9 [1]_. Chapter 9 lets the engineer meet water-quality treatment of the redeveloped
(previously developed) area by one of several options. hydrocalc's references could not read
Chapter 9 itself, so **every number of an option is an explicit input with the source the
engineer read**, printed among the "values to confirm"; hydrocalc never defaults one.

Options (``criteria.redevelopment.option``) and their parameter ``fraction``:

========================  ==========================================================  ========
option                    meaning of ``fraction``                                     counted
========================  ==========================================================  ========
impervious_reduction      smallest share of the existing impervious cover of the      removal
                          redeveloped area that the project removes
standard_practices        share of the redeveloped area's WQv treated by standard     WQv
                          SMPs (ponds, practices, ``wqv_provided_acft``)
alternative_practices     share of the redeveloped area's WQv treated by              WQv
                          alternative (e.g. proprietary) practices
                          (``alternative_treated_acft``)
========================  ==========================================================  ========

Required water-quality volume (hydrocalc's reading of Chapter 9 with Table 4.1; confirm it):

.. math::

    WQv_{req} = WQv(P, 100\,\%, A_{new}) + f_{opt}\,WQv(P, I_r, A_r)

with :math:`A_{new}` the impervious area added beyond the existing (post minus pre
impervious, never negative; treated in full by Chapter 4), :math:`A_r` the redeveloped area,
:math:`I_r` its existing impervious percentage, and :math:`f_{opt}` the option's fraction for
the two treatment options, 0 for ``impervious_reduction`` (whose own row checks the removed
share). WQv by Table 4.1: ``P Rv A / 12``, ``Rv = 0.05 + 0.009 I``.

References
----------
.. [1] New York State Department of Environmental Conservation, "New York State Stormwater
   Management Design Manual," Albany, NY, Jan. 2015, Table 4.1 footnote 3 and Chapter 9
   (redevelopment projects).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from hydrocalc.criteria import ny

__all__ = ["OPTIONS", "Redevelopment", "parse_redevelopment", "required_wqv_acft",
           "values_to_confirm"]

#: Redevelopment options accepted in ``criteria.redevelopment.option``.
OPTIONS = ("impervious_reduction", "standard_practices", "alternative_practices")
_KEYS = ("option", "redeveloped_area_ac", "existing_impervious_ac", "fraction",
         "fraction_source", "impervious_after_ac", "alternative_treated_acft",
         "alternative_practice_note")
#: parameters each option needs besides the redeveloped area and its existing impervious cover
_NEEDS = {
    "impervious_reduction": ("fraction", "fraction_source", "impervious_after_ac"),
    "standard_practices": ("fraction", "fraction_source"),
    "alternative_practices": ("fraction", "fraction_source", "alternative_treated_acft",
                              "alternative_practice_note"),
}


@dataclasses.dataclass(frozen=True)
class Redevelopment:
    """``[criteria.redevelopment]``: the Chapter 9 option chosen and its parameters."""

    option: str
    redeveloped_area_ac: float
    existing_impervious_ac: float
    fraction: float
    fraction_source: str
    impervious_after_ac: float | None = None
    alternative_treated_acft: float | None = None
    alternative_practice_note: str = ""

    @property
    def existing_impervious_pct(self) -> float:
        """Existing impervious cover as a share of the redeveloped area, capped at 100 [%]."""
        return min(100.0, 100.0 * self.existing_impervious_ac / self.redeveloped_area_ac)

    @property
    def reduction_provided(self) -> float | None:
        """Share of the existing impervious cover removed (impervious_reduction) [-]."""
        if self.impervious_after_ac is None or self.existing_impervious_ac <= 0:
            return None
        return max(self.existing_impervious_ac - self.impervious_after_ac, 0.0) / \
            self.existing_impervious_ac


def required_wqv_acft(r: Redevelopment, precip_in: float, new_impervious_ac: float) -> dict:
    """Water-quality volume required under the chosen option (module equation).

    Parameters
    ----------
    r : Redevelopment
    precip_in : float
        90 % rainfall depth P. [in]
    new_impervious_ac : float
        Impervious area added beyond the existing, >= 0. [ac]

    Returns
    -------
    dict
        ``wqv_new_acft`` (full Chapter 4 WQv of the new impervious area),
        ``wqv_redeveloped_acft`` (Chapter 4 WQv of the redeveloped area),
        ``fraction_applied`` and ``wqv_required_acft``.
    """
    wqv_new = float(ny.water_quality_volume(precip_in, 100.0, new_impervious_ac)) \
        if new_impervious_ac > 0 else 0.0
    wqv_r = float(ny.water_quality_volume(precip_in, r.existing_impervious_pct,
                                          r.redeveloped_area_ac))
    f = 0.0 if r.option == "impervious_reduction" else r.fraction
    return {"wqv_new_acft": wqv_new, "wqv_redeveloped_acft": wqv_r, "fraction_applied": f,
            "wqv_required_acft": wqv_new + f * wqv_r}


def values_to_confirm(r: Redevelopment) -> list[dict]:
    """The option's unverified numbers as rows ``key, name, value, units, source, verified``."""
    what = {"impervious_reduction": "smallest share of existing impervious cover removed",
            "standard_practices": "share of the redeveloped area's WQv treated by standard SMPs",
            "alternative_practices": "share of the redeveloped area's WQv treated by "
                                     "alternative practices"}[r.option]
    return [dict(key="redevelopment_fraction",
                 name=f"redevelopment ({r.option}): {what}", value=r.fraction, units="-",
                 source=r.fraction_source, verified=False)]


def parse_redevelopment(P, m, prefix: str, errors=()) -> Redevelopment | None:
    """The rules of ``[criteria.redevelopment]`` (a :mod:`hydrocalc.site` problem collector).

    The declared model has checked each key (``errors``, written by the caller); here: the
    parameters each option needs (one line per missing parameter, naming the option) or does
    not use, and the areas' order.
    """
    if not isinstance(m, Mapping):
        return None
    n0 = len(P.items)
    ok = {k: m[k] for k in m if k not in {e.path[2] for e in errors if len(e.path) > 2}}
    option, area = ok.get("option"), ok.get("redeveloped_area_ac")
    imp, after = ok.get("existing_impervious_ac"), ok.get("impervious_after_ac")
    if area is not None and imp is not None and imp > area:
        P.add(f"{prefix}.existing_impervious_ac", f"must be <= redeveloped_area_ac ({area:g}); "
                                                  f"got {imp:g}")
    if option is not None:
        for key in _NEEDS[option]:
            if key not in m:
                P.add(f"{prefix}.{key}", f"is required for option {option!r}; got nothing. "
                                         f"Option {option!r} needs "
                                         f"{', '.join(_NEEDS[option])}.")
        for key in set(_KEYS) - set(_NEEDS[option]) - {"option", "redeveloped_area_ac",
                                                       "existing_impervious_ac"}:
            if key in m:
                P.add(f"{prefix}.{key}", f"does not apply to option {option!r}; remove it")
    if after is not None and imp is not None and after > imp and option == "impervious_reduction":
        P.add(f"{prefix}.impervious_after_ac", f"must be <= existing_impervious_ac ({imp:g}) "
                                               f"for an impervious reduction; got {after:g}")
    if errors or len(P.items) > n0:
        return None
    return Redevelopment(option=m["option"], redeveloped_area_ac=float(m["redeveloped_area_ac"]),
                         existing_impervious_ac=float(m["existing_impervious_ac"]),
                         fraction=float(m["fraction"]), fraction_source=m["fraction_source"],
                         impervious_after_ac=_float(m.get("impervious_after_ac")),
                         alternative_treated_acft=_float(m.get("alternative_treated_acft")),
                         alternative_practice_note=m.get("alternative_practice_note", ""))


def _float(x) -> float | None:
    return None if x is None else float(x)
