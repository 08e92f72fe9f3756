"""Report wording: site-file keys and table keys said in words a reviewer reads.

The machine forms (``results.json``, CSV, Excel) keep the keys; the report's tables show

* cover keys as their TR-55 wording with the table they come from
  (:func:`cover_label`: ``open_space_good`` -> "Open space, good condition (TR-55 Table
  2-2a)");
* Tc flow regimes and surfaces in the words HydroCAD and TR-55 print
  (:func:`flow_label`: ``sheet`` -> "Sheet flow"; :func:`surface_label`: ``grass_dense`` ->
  "Grass: dense grasses (TR-55 Table 3-1)");
* dotted site-file paths as a phrase (:func:`field_label`:
  ``post.subcatchment[S-2].tc_segment[1].slope_ftft`` -> "Post-development subcatchment
  S-2, Tc segment 2: Slope [ft/ft]").
"""

from __future__ import annotations

import functools
import math
import re

from hydrocalc.report.tables import column_label
from hydrocalc.runoff import curve_number_table
from hydrocalc.tc import SHEET_FLOW_N_KEYS

__all__ = ["cover_label", "field_label", "flow_label", "surface_label"]

#: Scenario keys of a site file, as said in a report.
SCENARIO_WORDS = {"pre": "Pre-development", "post": "Post-development"}

#: Site-file table names (singular) as said in a report.
PART_WORDS = {
    "subcatchment": "subcatchment", "tc_segment": "Tc segment", "cover": "cover row",
    "pond": "pond", "outlet": "outlet", "storage": "storage item", "reach": "reach",
    "design_point": "design point", "barrel": "barrel", "trap": "sediment trap",
    "milestone": "milestone", "practice": "practice", "storms": "Design storms",
    "depths_in": "depth", "criteria": "Criteria", "project": "Project",
    "construction": "Construction", "options": "Options", "confirmations": "Confirmation",
}

#: Tc flow regimes in the words TR-55 Chapter 3 and HydroCAD print.
FLOW_WORDS = {"sheet": "Sheet flow", "shallow": "Shallow concentrated flow",
              "channel": "Channel flow", "pipe": "Pipe flow"}


@functools.lru_cache(maxsize=1)
def _covers() -> dict[str, tuple[str, str, str]]:
    """Cover key -> (printed description, TR-55 table number, condition or "")."""
    t = curve_number_table()
    return {str(r.key): (str(r.description), str(r.location),
                         r.condition if isinstance(r.condition, str) else "")
            for r in t.itertuples(index=False)}


def _head(text: str) -> str:
    """The name part of a TR-55 cover heading: before a parenthesis or a dash gloss."""
    text = text.replace("Woods--grass", "Woods-grass")  # one name, not a gloss
    return re.split(r" \(|--|—", text, maxsplit=1)[0].strip()


def cover_label(key: str) -> str:
    """A TR-55 cover key in the words of TR-55 Tables 2-2a..2-2d, with its table.

    Parameters
    ----------
    key : str
        Cover key of :func:`hydrocalc.runoff.curve_number` (``open_space_good``).

    Returns
    -------
    str
        The cover type, its treatment and its hydrologic condition as TR-55 prints them,
        then the table; a key that is not in the tables is returned unchanged.

    Examples
    --------
    >>> cover_label("open_space_good")
    'Open space, good condition (TR-55 Table 2-2a)'
    >>> cover_label("woods_fair")
    'Woods, fair condition (TR-55 Table 2-2c)'
    >>> cover_label("residential_1_2_acre")
    'Residential districts by average lot size: 1/2 acre (TR-55 Table 2-2a)'
    """
    found = _covers().get(str(key))
    if found is None:
        return str(key)
    description, location, condition = found
    head, _, rest = description.partition("; ")
    words = _head(head)
    if rest and not (condition and rest.lower().startswith(condition)):
        lead = rest[:1].lower() if rest[1:2].islower() else rest[:1]  # "SR + CR" stays
        words += (", " if condition else ": ") + lead + rest[1:]
    if condition:
        words += f", {condition} condition"
    return f"{words} (TR-55 {location})"


def surface_label(key) -> str:
    """A Tc surface key in TR-55 words; empty for none, unchanged when unknown.

    Sheet-flow keys are TR-55 Table 3-1 rows; shallow concentrated flow is paved or
    unpaved (TR-55 Fig. 3-1).

    Examples
    --------
    >>> surface_label("grass_dense"), surface_label("unpaved")
    ('Grass: dense grasses (TR-55 Table 3-1)', 'Unpaved (TR-55 Fig. 3-1)')
    """
    if key is None or (isinstance(key, float) and math.isnan(key)):
        return ""
    k = str(key)
    if k in SHEET_FLOW_N_KEYS:
        return f"{SHEET_FLOW_N_KEYS[k]} (TR-55 Table 3-1)"
    if k in ("paved", "unpaved"):
        return f"{k.capitalize()} (TR-55 Fig. 3-1)"
    return k


def flow_label(kind) -> str:
    """A Tc segment type in TR-55 / HydroCAD words; unchanged when unknown.

    For example ``shallow`` -> "Shallow concentrated flow".
    """
    return FLOW_WORDS.get(str(kind), str(kind))


_PART = re.compile(r"^(?P<name>[A-Za-z0-9_]+)(?:\[(?P<label>[^\]]*)\])?$")


def field_label(path: str) -> str:
    """A dotted site-file path as a phrase, the last key with its unit.

    Parameters
    ----------
    path : str
        ``scenario.table[id].table[index].key`` as :func:`hydrocalc.site.key_lines` and the
        report's input tables write it. A numeric index counts from 0 in the path and from
        1 in the phrase (the second segment is "segment 2").

    Returns
    -------
    str

    Examples
    --------
    >>> field_label("post.subcatchment[S-2].tc_segment[1].slope_ftft")
    'Post-development subcatchment S-2, Tc segment 2: Slope [ft/ft]'
    >>> field_label("storms.depths_in.100yr")
    'Design storms, depth: 100yr [in]'
    >>> field_label("post.pond[P-1].outlet[orifice].diameter_in")
    'Post-development pond P-1, outlet orifice: Diameter [in]'
    """
    parts = str(path).split(".")
    key = parts[-1]
    phrases: list[str] = []
    unit_key = key
    for i, part in enumerate(parts[:-1]):
        m = _PART.match(part)
        if m is None:
            phrases.append(part)
            continue
        name, label = m.group("name"), m.group("label")
        if i == 0 and name in SCENARIO_WORDS:
            phrases.append(SCENARIO_WORDS[name])
            continue
        words = PART_WORDS.get(name, name.replace("_", " "))
        if name == "depths_in":
            unit_key = f"{key}_in"
        if label is not None:
            shown = str(int(label) + 1) if label.isdigit() else label
            words = f"{words} {shown}"
        if phrases and phrases[-1] in SCENARIO_WORDS.values():
            phrases[-1] = f"{phrases[-1]} {words}"
        else:
            phrases.append(words)
    last = f"{key} [in]" if unit_key != key else column_label(key)
    head = ", ".join(phrases)
    head = head[:1].upper() + head[1:]
    return f"{head}: {last}" if head else last
