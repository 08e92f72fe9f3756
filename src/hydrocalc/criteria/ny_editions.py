r"""Editions of the NYS Stormwater Management Design Manual: an explicit project choice.

A New York site file names the edition of the design manual (SMDM) its sizing criteria come
from, ``[project] design_manual = "2015"`` or ``"2024"``. The editions, their provenance,
the status of the unified sizing criteria in each edition's text and the 2025 permit's
rule on which edition to use are shipped in
``hydrocalc/data/regulations/ny_design_manual_editions.toml``
(:func:`load_design_manual_editions`):

* **2015** (January 2015) [1]_: the edition the shipped criteria tables were read from
  (``ny_sizing_criteria``, ``ny_rrv_specific_reduction_factors``); their own status columns
  apply.
* **2024** (dated July 31, 2024 in secondary sources) [2]_: no primary text of its numbers
  was read. Every criterion row carries the status "not verified in the 2024 text" (so it is
  listed under "Values to confirm"), and the numbers that may differ by edition are required
  site-file inputs: the specific reduction factors S
  (``criteria.rrv_specific_reduction_factor``) and the 90 % rainfall depth
  (``storms.wqv_precip_in``, always an input).

Under the 2025 construction general permit (GP-0-25-001) the 2024 manual is the standard and
the 2015 manual needs a written justification (secondary sources) [3]_:
:func:`design_manual_warnings` asks for ``project.design_manual_justification``.

Site-file fields (``[project]``)
--------------------------------
================================  ==========================================================
key                               meaning
================================  ==========================================================
``design_manual``                 ``"2015"`` or ``"2024"``: the SMDM edition of the criteria
``design_manual_justification``   why the 2015 manual is used (only with ``"2015"``)
================================  ==========================================================

A site file without ``design_manual`` (written before the key existed) is read as the 2015
edition, with a ``design_manual_missing`` warning and a "Values to confirm" row; new site
files (the examples, the HydroCAD importer's output) state it.

References
----------
.. [1] NYSDEC, "New York State Stormwater Management Design Manual," Albany, NY, Jan. 2015.
.. [2] NYSDEC, "New York State Stormwater Management Design Manual," Albany, NY, 2024.
.. [3] NYSDEC, SPDES General Permit for Stormwater Discharges from Construction Activity,
   GP-0-25-001 (effective January 29, 2025).
"""

from __future__ import annotations

import functools
import tomllib
from importlib.resources import files

from hydrocalc._validate import suggest
from hydrocalc.errors import InputError

__all__ = ["DESIGN_MANUAL_EDITIONS", "ASSUMED_EDITION", "WARNING_KEYS",
           "load_design_manual_editions",
           "design_manual_edition", "edition_problems", "design_manual_warnings",
           "edition_criteria_status", "edition_criteria_info", "design_manual_label",
           "rrv_factor_problem", "applied_edition", "edition_values_to_confirm"]

#: Editions a site file may name in ``project.design_manual``.
DESIGN_MANUAL_EDITIONS = ("2015", "2024")
#: Keys of the warnings of :func:`design_manual_warnings` (the text before the first colon).
WARNING_KEYS = ("design_manual_missing", "design_manual_justification")
#: Edition applied to a site file that names none (with a warning): the edition the shipped
#: criteria were read from.
ASSUMED_EDITION = "2015"


@functools.cache
def load_design_manual_editions() -> dict:
    """The editions, their provenance and the permit rule, from the shipped TOML document."""
    path = files("hydrocalc.data").joinpath("regulations", "ny_design_manual_editions.toml")
    return tomllib.loads(path.read_text(encoding="utf-8"))


def applied_edition(project) -> str:
    """Return the edition a project's criteria use.

    The edition a project's criteria use: its ``design_manual``, else
    :data:`ASSUMED_EDITION` (a file that names none, with a warning).
    """
    return getattr(project, "design_manual", None) or ASSUMED_EDITION


def design_manual_edition(edition: str) -> dict:
    """The shipped record of one edition (``id``, ``title``, ``date``, ``citation``, ...).

    Raises
    ------
    InputError
        For an edition other than ``"2015"`` or ``"2024"``.

    Examples
    --------
    >>> design_manual_edition("2015")["date"]
    '2015-01'
    """
    for e in load_design_manual_editions()["edition"]:
        if e["id"] == edition:
            return dict(e)
    raise InputError(f"design_manual must be one of {', '.join(DESIGN_MANUAL_EDITIONS)}; "
                     f"got {edition!r}{suggest(str(edition), DESIGN_MANUAL_EDITIONS)}")


def edition_problems(design_manual, justification) -> list[str]:
    """The bad-input lines of the two ``[project]`` keys (field names without a prefix).

    ``design_manual`` must be ``"2015"`` or ``"2024"`` (a quoted string) or None (not
    given); ``justification`` must be None, or non-empty text given with ``"2015"``.

    Examples
    --------
    >>> edition_problems("2010", None)[0].startswith(
    ...     'design_manual must be "2015" or "2024" (the NYS SMDM edition); got')
    True
    >>> edition_problems("2024", "approved before 2025")[0].startswith(
    ...     'design_manual_justification is only for design_manual = "2015"')
    True
    """
    out = []
    valid = " or ".join(f'"{e}"' for e in DESIGN_MANUAL_EDITIONS)
    if design_manual is not None and design_manual not in DESIGN_MANUAL_EDITIONS:
        hint = (" (write it quoted, as text)" if str(design_manual) in DESIGN_MANUAL_EDITIONS
                else suggest(str(design_manual), DESIGN_MANUAL_EDITIONS))
        out.append(f"design_manual must be {valid} (the NYS SMDM edition); got "
                   f"{design_manual!r}{hint}")
    if justification is not None:
        if not isinstance(justification, str) or not justification.strip():
            out.append("design_manual_justification must be non-empty text; got "
                       f"{justification!r}")
        elif design_manual != "2015":
            got = "nothing" if design_manual is None else f"{design_manual!r}"
            out.append("design_manual_justification is only for design_manual = \"2015\" (the "
                       f"reason to use the 2015 manual); got design_manual = {got}. Remove "
                       "the justification or set design_manual = \"2015\"")
    return out


def design_manual_warnings(design_manual: str | None, justification: str,
                           permit_edition: str | None) -> list[str]:
    """Warnings (``key: text``) about the edition a project names.

    * ``design_manual_missing``: no edition named; the 2015 edition is applied.
    * ``design_manual_justification``: the permit named is GP-0-25-001 (which makes the 2024
      manual the standard) and the edition is 2015 without a justification.

    Examples
    --------
    >>> design_manual_warnings("2015", "", "GP-0-25-001")[0].startswith(
    ...     'design_manual_justification: project.state_permit.edition = "GP-0-25-001"')
    True
    >>> design_manual_warnings("2015", "approved under GP-0-20-001", "GP-0-25-001")
    []
    """
    out = []
    if design_manual is None:
        out.append("design_manual_missing: project.design_manual is not set; hydrocalc "
                   f"applies the {ASSUMED_EDITION} NYS SMDM (the edition its shipped criteria "
                   "were read from). State the edition: design_manual = \"2015\" or \"2024\"")
    rule = load_design_manual_editions()["permit_rule"]
    edition = design_manual or ASSUMED_EDITION
    if (permit_edition == rule["permit_edition"] and edition in
            rule["allowed_with_justification"] and not (justification or "").strip()):
        out.append(f"design_manual_justification: project.state_permit.edition = "
                   f"\"{permit_edition}\" with the {edition} NYS SMDM (project.design_manual): "
                   f"under {permit_edition} the {rule['standard_edition']} manual is the "
                   f"standard and the {edition} manual needs a written justification "
                   f"({rule['source']}). Give it in project.design_manual_justification, or "
                   f"set design_manual = \"{rule['standard_edition']}\"")
    return out


def edition_criteria_status(edition: str, status: str) -> str:
    """The verification status of a criteria-table row under ``edition``.

    The 2015 edition keeps the shipped row's ``status``; the 2024 edition's numbers were not
    read in a primary text, so its rows say so (the word "not verified" puts them under
    "Values to confirm").

    Examples
    --------
    >>> edition_criteria_status("2015", "verified")
    'verified'
    >>> edition_criteria_status("2024", "verified")[:31]
    'not verified in the 2024 text: '
    """
    override = design_manual_edition(edition)["criteria_status"]
    return override if override else status


def edition_criteria_info(info: dict, edition: str | None) -> dict:
    """Return a row of ``ny_sizing_criteria`` as it applies under ``edition``.

    A row of ``ny_sizing_criteria`` (:func:`hydrocalc.criteria.ny.criteria_info`) as it
    applies under ``edition`` (None: :data:`ASSUMED_EDITION`).

    The 2015 edition returns the row unchanged. Under the 2024 edition the row's ``source``
    names the 2024 manual (with the 2015 wording applied) and its ``status`` says the value
    is not verified in the 2024 text.

    Examples
    --------
    >>> row = {"source": "NYSDEC (2015), NYS SMDM", "status": "verified"}
    >>> edition_criteria_info(row, "2015") == row
    True
    >>> edition_criteria_info(row, "2024")["status"][:29]
    'not verified in the 2024 text'
    """
    out = dict(info)
    ed = design_manual_edition(edition or ASSUMED_EDITION)
    if ed["criteria_status"]:
        out["status"] = edition_criteria_status(ed["id"], str(info.get("status", "")))
        out["source"] = (f"{ed['citation']}; criterion as worded in the 2015 edition "
                         f"({info.get('source', '')})")
    return out


def design_manual_label(edition: str | None) -> str:
    """``"NYS SMDM, 2015 edition"`` (``"... (assumed: not stated ...)"`` when None)."""
    if edition is None:
        return f"NYS SMDM, {ASSUMED_EDITION} edition (assumed: not stated in the site file)"
    return f"NYS SMDM, {edition} edition"


def rrv_factor_problem(edition: str | None, factors_given: bool,
                       rrv_evaluated: bool) -> str | None:
    """Return the bad-input line for missing reduction factors, or None.

    The bad-input line when the edition ships no specific reduction factors and the site
    gives none (field path first, no file prefix); None otherwise.

    Examples
    --------
    >>> rrv_factor_problem("2024", False, True)[:54]
    'criteria.rrv_specific_reduction_factor is required wit'
    >>> rrv_factor_problem("2015", False, True) is None
    True
    """
    ed = design_manual_edition(edition or ASSUMED_EDITION)
    if ed["rrv_factor_set"] or factors_given or not rrv_evaluated:
        return None
    return ("criteria.rrv_specific_reduction_factor is required with project.design_manual = "
            f"\"{ed['id']}\": the {ed['id']} manual's specific reduction factors S by HSG were "
            "not read in a primary text, so hydrocalc ships none; give them from the manual, "
            "e.g. { A = ..., B = ..., C = ..., D = ... } (they are listed under \"Values to "
            "confirm\"); got nothing")


def edition_values_to_confirm(edition: str | None, wqv_precip_in: float, criteria) -> list[dict]:
    """Return the numbers an unread edition makes explicit inputs, as rows.

    The numbers an edition whose values were not read makes explicit inputs, as rows
    ``key, name, value, units, source, verified`` (empty for the 2015 edition).

    Parameters
    ----------
    edition : str or None
        ``project.design_manual`` (None: :data:`ASSUMED_EDITION`).
    wqv_precip_in : float
        The site's 90 % rainfall depth. [in]
    criteria : hydrocalc.site.CriteriaSettings
        Its ``rrv_specific_reduction_factor`` (when given) and ``waived`` are read.
    """
    ed = design_manual_edition(edition or ASSUMED_EDITION)
    if not ed["criteria_status"]:
        return []
    rows = [dict(key="wqv_precip_in", name=f"90 % rainfall depth P ({ed['wqv_precip_figure']})",
                 value=wqv_precip_in, units="in",
                 source=f"site file (storms.wqv_precip_in); {ed['citation']}", verified=False)]
    factors = getattr(criteria, "rrv_specific_reduction_factor", None)
    if factors is not None and "rrv" not in getattr(criteria, "waived", {}):
        rows.append(dict(key="rrv_factors", name="specific reduction factor S by HSG",
                         value=", ".join(f"{h} {v:g}" for h, v in factors.items()), units="-",
                         source=f"site file (criteria.rrv_specific_reduction_factor); "
                                f"{ed['citation']}: {ed['criteria_status']}", verified=False))
    return rows
