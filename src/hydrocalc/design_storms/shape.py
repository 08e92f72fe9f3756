r"""Storm shape against depth source: NOAA Atlas 14 or NRCC depths want their own shapes.

The NRCS Type I, IA, II and III 24-hour distributions (TR-55 Appendix B [1]_) predate NOAA
Atlas 14; NRCS later derived the NOAA_A-D distributions from NOAA Atlas 14 depth-duration
ratios and, for New York and New England, the NRCC_A-D distributions from the Northeast
Regional Climate Center's depths [2]_ [3]_ [4]_ (the shipped WinTR-20 tables). Running
depths from one of those sources with a Type I/IA/II/III shape mixes two generations of
data; New York review memos return such computations. :func:`storm_shape_warning` names the source,
the shape and the matching family to use (the distribution itself stays an explicit project
choice).

References
----------
.. [1] USDA SCS, "Urban Hydrology for Small Watersheds," Technical Release 55, 2nd ed.,
   1986, Appendix B (Type I, IA, II, III distributions).
.. [2] USDA NRCS, "WinTR-20 Project Formulation Hydrology," version 3, 2015: rainfall
   distribution tables (NOAA_A-D, NRCC_A-D).
.. [3] USDA NRCS, "Design Rainfall Distributions Based on NRCC Data," presentation,
   Oct. 2015 (regions split by the 60-min/24-h ratio of the 25-yr depths; secondary).
.. [4] USDA NRCS, National Engineering Handbook Part 630 Hydrology, Chapter 4, "Storm
   Rainfall Depth and Distribution," 210-630-H Amend. 88, Aug. 2019.
"""

from __future__ import annotations

import re

__all__ = ["WARNING_KEY", "DEPTH_SOURCES", "depth_source_kind", "matching_distributions",
           "storm_shape_warning", "NRCS_LEGACY_TYPES"]

#: Depth-source kinds: ``noaa_atlas_14``, ``nrcc`` (Northeast Regional Climate Center) or
#: ``other`` (illustrative, user-typed or unknown).
DEPTH_SOURCES = ("noaa_atlas_14", "nrcc", "other")
#: Key of the warning of :func:`storm_shape_warning` (the text before the first colon).
WARNING_KEY = "storm_shape_mismatch"
#: The NRCS Type I/IA/II/III 24-hour distributions (TR-55 Appendix B).
NRCS_LEGACY_TYPES = ("I", "IA", "II", "III")
_NEGATED = re.compile(r"\b(not|placeholder|illustrative)\b", re.IGNORECASE)


def depth_source_kind(source: str, *, illustrative: bool = False) -> str:
    """Classify a depth table's ``source`` text.

    Parameters
    ----------
    source : str
        The ``source`` of a depth file or of ``[storms]`` (``import-pfds`` writes e.g.
        ``"NOAA Atlas 14 Volume 10 Version 3, PFDS CSV, ..."`` or ``"NRCC Extreme
        Precipitation in New York & New England, ..."``).
    illustrative : bool, default False
        The depth file is marked illustrative: always ``"other"``.

    Returns
    -------
    str
        ``"noaa_atlas_14"``, ``"nrcc"`` or ``"other"``. A text that negates the source
        ("not NOAA Atlas 14 or NRCC values", "placeholder") is ``"other"``.

    Examples
    --------
    >>> depth_source_kind("NOAA Atlas 14 Volume 10 Version 3, PFDS CSV")
    'noaa_atlas_14'
    >>> depth_source_kind("NRCC Extreme Precipitation in New York & New England, point")
    'nrcc'
    >>> depth_source_kind("illustrative placeholder; not NOAA Atlas 14 or NRCC values")
    'other'
    """
    text = str(source or "")
    if illustrative or _NEGATED.search(text):
        return "other"
    low = text.lower()
    if "nrcc" in low or "northeast regional climate center" in low:
        return "nrcc"
    if "noaa atlas 14" in low or "pfds" in low:
        return "noaa_atlas_14"
    return "other"


def matching_distributions(kind: str) -> tuple[str, ...]:
    """The shipped distributions drawn from a depth source (``()`` for ``"other"``).

    Examples
    --------
    >>> matching_distributions("nrcc")
    ('NRCC_A', 'NRCC_B', 'NRCC_C', 'NRCC_D')
    """
    family = {"noaa_atlas_14": "NOAA", "nrcc": "NRCC"}.get(kind)
    return tuple(f"{family}_{x}" for x in "ABCD") if family else ()


def _legacy_type(distribution: str) -> str | None:
    key = re.sub(r"[\s\-\.]+", "_", str(distribution or "").strip().upper())
    key = re.sub(r"^(NRCS|SCS)_?", "", key)
    key = re.sub(r"^TYPE_?", "", key)
    key = re.sub(r"_?24_?(HR|HOUR|H)$", "", key).strip("_")
    key = {"1": "I", "1A": "IA", "2": "II", "3": "III"}.get(key, key)
    return key if key in NRCS_LEGACY_TYPES else None


def storm_shape_warning(source: str, distribution: str, *, illustrative: bool = False,
                        suggested: str = "") -> str | None:
    """The ``storm_shape_mismatch`` warning, or None when shape and depths match.

    Parameters
    ----------
    source : str
        Source text of the depths (see :func:`depth_source_kind`).
    distribution : str
        The storms' distribution (``"III"``, ``"Type II"``, ``"NOAA_C"`` ...).
    illustrative : bool, default False
        Illustrative depths: no warning (they have no source to match).
    suggested : str, optional
        The depth file's ``suggested_distribution``; named when it is of the matching family.

    Returns
    -------
    str or None
        ``"storm_shape_mismatch: ..."`` naming the source, the shape and the matching
        distributions, for NOAA Atlas 14 or NRCC depths with an NRCS Type I/IA/II/III shape.

    Examples
    --------
    >>> storm_shape_warning("NOAA Atlas 14 Volume 10, PFDS CSV", "III").startswith(
    ...     "storm_shape_mismatch: the design-storm depths come from NOAA Atlas 14")
    True
    >>> storm_shape_warning("NRCC Extreme Precipitation", "NRCC_C") is None
    True
    """
    kind = depth_source_kind(source, illustrative=illustrative)
    legacy = _legacy_type(distribution)
    if kind == "other" or legacy is None:
        return None
    family = matching_distributions(kind)
    label = {"noaa_atlas_14": "NOAA Atlas 14", "nrcc": "NRCC"}[kind]
    pick = (f"; the depth file suggests {suggested}" if suggested in family else
            "; choose by the 60-min/24-h depth ratio (hydrocalc import-pfds suggests one)")
    return (f"{WARNING_KEY}: the design-storm depths come from {label} ({source}) but "
            f"the storms use the NRCS Type {legacy} distribution (storms.distribution), a "
            f"shape that predates those depths; use the matching {label} distribution, one of "
            f"{', '.join(family)}{pick}")
