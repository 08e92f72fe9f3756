"""Local-law profiles as data: the rules of each municipality, loaded and checked.

One profile per municipality lives in ``hydrocalc/data/regulations/<key>.toml``. Every rule
cites its section and quotes a short verbatim anchor from the law. :func:`load_profile` reads
and checks a profile into a :class:`RegulationProfile`;
:func:`hydrocalc.criteria.regulations.assess` applies it to a project. The profiles and their
sources are listed in :mod:`hydrocalc.criteria.regulations`.
"""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from collections.abc import Mapping
from importlib.resources import files
from typing import Any

from hydrocalc._validate import suggest
from hydrocalc.errors import InputError

__all__ = [
    "APPLIES",
    "PREDICATE_NAMES",
    "PROFILE_KEYS",
    "PROJECT_TYPES",
    "REPORT_SECTIONS",
    "Rule",
    "Exemption",
    "Condition",
    "ChecklistItem",
    "NoticeMilestone",
    "RegulationProfile",
    "citation",
    "list_profiles",
    "load_profile",
]

#: The predicates a profile's applicability clauses may use (each a test of the project's
#: facts, applied by :func:`hydrocalc.criteria.regulations.assess`).
PREDICATE_NAMES = (
    "disturbed_area_ac_at_least",
    "disturbed_area_ac_more_than",
    "disturbed_area_ac_less_than",
    "disturbed_area_ft2_at_least",
    "disturbed_area_ft2_less_than",
    "new_impervious_area_ft2_more_than",
    "drains_to_impaired_water",
    "part_of_larger_common_plan",
    "project_type_not_in",
    "project_type_in",
)

#: Profiles shipped in ``hydrocalc/data/regulations``.
PROFILE_KEYS = ("shelter_island", "pelham", "nys_generic")

#: Kinds of project (``project.project_type``) a profile's rules are applied to
#: (``project_type_in``).
PROJECT_TYPES = (
    "subdivision",
    "single_family_residence",
    "commercial",
    "redevelopment",
    "agricultural",
    "linear",
    "institutional",
    "other",
)

#: Report section keys a checklist item may point to.
REPORT_SECTIONS = (
    "project",
    "storms",
    "hydrology_pre",
    "hydrology_post",
    "ponds",
    "comparison",
    "criteria",
    "sediment",
    "inspections",
    "methods",
)

_PRODUCERS = ("hydrocalc", "partial", "preparer")
#: Values of a rule's ``applies`` key (besides ``condition:<key>``).
APPLIES = ("always", "post_construction", "any_condition")
_REQUIRED_WHEN = ("always", "any_condition", "undetermined")



def citation(section: str, inferred: bool) -> str:
    """Citation of a section: ``§ 83-8A``, or its chapter alone (``Ch. 83``) when inferred.

    A section whose number is not known from the published text is cited by its chapter alone
    (``Ch. 83``), the number left out (the profile's ``section_note`` says how sections are
    cited).
    """
    if not section:
        return "(no section)"
    if inferred:
        return "Ch. " + section.split("-", 1)[0]
    return "§ " + section


@dataclasses.dataclass(frozen=True)
class Rule:
    """A duty of a law (certification, recordkeeping) with its section."""

    id: str
    section: str
    text: str
    applies: str = "always"
    quote: str = ""
    inferred: bool = False

    @property
    def citation(self) -> str:
        """``§ 110-38E(1)-(3)``, or the chapter alone when the number is not known."""
        return citation(self.section, self.inferred)


@dataclasses.dataclass(frozen=True)
class Exemption:
    """An exemption of a law; optional area limits are checked by :func:`assess`."""

    key: str
    letter: str
    section: str
    text: str
    note: str = ""
    disturbed_area_ac_less_than: float | None = None
    disturbed_area_ft2_less_than: float | None = None
    inferred: bool = False

    @property
    def citation(self) -> str:
        """Section citation."""
        return citation(self.section, self.inferred)


@dataclasses.dataclass(frozen=True)
class Condition:
    """A condition (Shelter Island A, B, C) with the facts that make it met."""

    key: str
    section: str
    text: str
    all_of: Mapping[str, Any]
    quote: str = ""

    @property
    def citation(self) -> str:
        """Section citation."""
        return citation(self.section, False)


@dataclasses.dataclass(frozen=True)
class ChecklistItem:
    """One required SWPPP content item and who produces it."""

    id: str
    section: str
    text: str
    applies: str
    produced_by: str
    report_sections: tuple[str, ...] = ()
    note: str = ""
    inferred: bool = False

    @property
    def citation(self) -> str:
        """Section citation."""
        return citation(self.section, self.inferred)


@dataclasses.dataclass(frozen=True)
class NoticeMilestone:
    """A milestone that needs an advance notice (Pelham 48-hour notices)."""

    key: str
    letter: str
    text: str


@dataclasses.dataclass(frozen=True)
class RegulationProfile:
    """A municipality's stormwater law as data (see module docstring)."""

    key: str
    name: str
    law: str
    source_text: str
    status: str
    status_note: str
    section_note: str
    applicability: Mapping[str, Any]
    exemptions_effect: Mapping[str, Any]
    exemptions: tuple[Exemption, ...]
    conditions: tuple[Condition, ...]
    post_construction: Mapping[str, Any]
    inspections: Mapping[str, Any]
    cleanout: Mapping[str, Any]
    notices: Mapping[str, Any]
    notice_milestones: tuple[NoticeMilestone, ...]
    checklist: tuple[ChecklistItem, ...]
    certifications: tuple[Rule, ...]
    recordkeeping: tuple[Rule, ...]
    notes: tuple[str, ...]

    @property
    def exemption_keys(self) -> tuple[str, ...]:
        """Accepted exemption keys: the descriptive keys and the law's letters."""
        return tuple(e.key for e in self.exemptions) + tuple(e.letter for e in self.exemptions)

    @property
    def milestone_keys(self) -> tuple[str, ...]:
        """Milestone keys that need an advance notice."""
        return tuple(m.key for m in self.notice_milestones)

    def exemption(self, key: str) -> Exemption:
        """Return the exemption for a descriptive key or a letter (``"C"``)."""
        for e in self.exemptions:
            if key == e.key or key.upper() == e.letter.upper():
                return e
        valid = [e.key for e in self.exemptions]
        raise InputError(
            f"exemption must be a key of the {self.key} profile; got {key!r}"
            f"{suggest(key, valid)} Valid: {', '.join(valid) or '(none)'}"
        )

    @property
    def inspection_interval_days(self) -> int | None:
        """Routine inspection interval of the law, or None when not encoded."""
        v = self.inspections.get("interval_days")
        return None if v is None else int(v)

    @property
    def inspection_threshold_in(self) -> float | None:
        """Daily rainfall that triggers a storm inspection, or None when not encoded."""
        v = self.inspections.get("storm_threshold_in")
        return None if v is None else float(v)

    @property
    def cleanout_fraction(self) -> float | None:
        """Fraction of design capacity at which sediment must be removed, or None."""
        v = self.cleanout.get("fraction_of_design_capacity")
        return None if v is None else float(v)

    def cite(self, part: str) -> str:
        """Citation of a rule block (``"inspections"``, ``"cleanout"``, ``"notices"``...)."""
        block = getattr(self, part)
        return citation(block.get("section", ""), bool(block.get("inferred", False)))


def list_profiles() -> list[str]:
    """Keys of the shipped regulation profiles."""
    return list(PROFILE_KEYS)


def _check_predicates(where: str, preds: Mapping) -> None:
    for name in preds:
        if name not in PREDICATE_NAMES and name != "unverified":
            raise InputError(
                f"{where}: predicate must be one of {', '.join(PREDICATE_NAMES)}; got {name!r}"
                f"{suggest(name, PREDICATE_NAMES)}"
            )


@functools.cache
def _load(key: str) -> RegulationProfile:
    fname = f"{key}.toml"
    doc = tomllib.loads(
        files("hydrocalc.data").joinpath("regulations", fname).read_text(encoding="utf-8")
    )
    where = f"regulations/{fname}"
    if doc.get("key") != key:
        raise InputError(f"{where}: key must be {key!r}; got {doc.get('key')!r}")
    for clause in doc["applicability"]["any_of"]:
        _check_predicates(where, clause)
    conditions = []
    for c in doc.get("condition", []):
        _check_predicates(where, c["all_of"])
        conditions.append(
            Condition(c["key"], c["section"], c["text"], dict(c["all_of"]), c.get("quote", ""))
        )
    checklist = []
    for item in doc.get("checklist", []):
        secs = tuple(item.get("report_sections", ()))
        bad = [s for s in secs if s not in REPORT_SECTIONS]
        if bad or item["produced_by"] not in _PRODUCERS:
            raise InputError(f"{where}: checklist item {item['id']} has an invalid field")
        if item["applies"] not in APPLIES and not item["applies"].startswith("condition:"):
            raise InputError(f"{where}: checklist item {item['id']} has invalid applies")
        checklist.append(
            ChecklistItem(
                item["id"],
                item["section"],
                item["text"],
                item["applies"],
                item["produced_by"],
                secs,
                item.get("note", ""),
                bool(item.get("inferred", False)),
            )
        )
    for block in ("post_construction", "inspections"):
        rw = doc[block].get("required_when")
        if rw not in _REQUIRED_WHEN:
            raise InputError(f"{where}: {block}.required_when must be one of {_REQUIRED_WHEN}")

    def rules(name):
        return tuple(
            Rule(
                r["id"],
                r["section"],
                r["text"],
                r.get("applies", "always"),
                r.get("quote", ""),
                bool(r.get("inferred", False)),
            )
            for r in doc.get(name, [])
        )

    notices = dict(doc.get("notices", {}))
    milestones = tuple(
        NoticeMilestone(m["key"], m["letter"], m["text"]) for m in notices.pop("milestone", [])
    )
    return RegulationProfile(
        key=doc["key"],
        name=doc["name"],
        law=doc["law"],
        source_text=doc["source_text"],
        status=doc["status"],
        status_note=doc["status_note"],
        section_note=doc["section_note"],
        applicability=doc["applicability"],
        exemptions_effect=doc.get("exemptions_effect", {}),
        exemptions=tuple(
            Exemption(
                e["key"],
                e["letter"],
                e["section"],
                e["text"],
                e.get("note", ""),
                e.get("disturbed_area_ac_less_than"),
                e.get("disturbed_area_ft2_less_than"),
                bool(e.get("inferred", False)),
            )
            for e in doc.get("exemption", [])
        ),
        conditions=tuple(conditions),
        post_construction=doc["post_construction"],
        inspections=doc["inspections"],
        cleanout=doc.get("cleanout", {}),
        notices=notices,
        notice_milestones=milestones,
        checklist=tuple(checklist),
        certifications=rules("certification"),
        recordkeeping=rules("recordkeeping"),
        notes=tuple(doc.get("notes", ())),
    )


def load_profile(key: str | RegulationProfile) -> RegulationProfile:
    """Load a shipped regulation profile by key (a profile object is returned unchanged).

    Parameters
    ----------
    key : str or RegulationProfile
        ``"shelter_island"``, ``"pelham"`` or ``"nys_generic"``.

    Returns
    -------
    RegulationProfile

    Raises
    ------
    InputError
        Unknown key (with a "did you mean" suggestion).

    Examples
    --------
    >>> p = load_profile("pelham")
    >>> p.cite("notices"), p.notices["hours_before"]
    ('Ch. 83', 48)
    >>> load_profile("shelter_island").exemption("C").key
    'routine_maintenance'
    """
    if isinstance(key, RegulationProfile):
        return key
    if key not in PROFILE_KEYS:
        raise InputError(
            f"profile must be one of {', '.join(PROFILE_KEYS)}; got {key!r}"
            f"{suggest(str(key), PROFILE_KEYS)}"
        )
    return _load(key)
