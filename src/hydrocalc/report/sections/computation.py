"""The computation behind a site, once per process: :class:`Context`, :func:`context`.

Loading, analysis, assessment and the construction tools run once per process and
site-file content (cached on the file's sha256), and the warnings each step raised are kept
with it; the JSON views of results.json (:func:`analysis_dict`, :func:`summary_dict`,
:func:`project_facts_dict`) read it.

Part of :mod:`hydrocalc.report.sections`; every name is importable from there.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pathlib
import tomllib
import warnings
from collections.abc import Callable, Iterable
from typing import Any

from hydrocalc.analysis import analyze
from hydrocalc.construction import sediment as sed
from hydrocalc.criteria.regulations import assess, load_profile
from hydrocalc.errors import InputError
from hydrocalc.report.summary import compliance_summary
from hydrocalc.report.tables import to_jsonable
from hydrocalc.site import load_site


# ======================================================================================
# the computation behind a site, once per process
# ======================================================================================
def _warning_text(w) -> str:
    return f"{w.category.__name__}: {w.message}"


def _about_the_computation(caught) -> list:
    """The caught warnings that concern the computation.

    ``ResourceWarning`` is dropped: it is emitted when the garbage collector happens to
    finalise an unclosed resource (an event loop, a file) of some earlier work in the same
    process, so whether it lands inside a section depends on timing, not on the inputs, and
    a report and its re-computation (``hydrocalc verify``) must list the same warnings.
    """
    return [w for w in caught if not issubclass(w.category, ResourceWarning)]


class Context:
    """A loaded site and its computations, each run once and with its warnings kept."""

    def __init__(self, site_path: pathlib.Path):
        self.path = site_path
        self.warnings: dict[str, list[str]] = {}
        # load_site first: it turns unreadable, non-UTF-8 or invalid TOML into InputError
        self.site = self._run("site", load_site, site_path)
        self.raw_text = site_path.read_bytes().decode("utf-8-sig")
        self.raw = tomllib.loads(self.raw_text)
        self._cache: dict[str, Any] = {}
        #: Sections built from this context in this process (key -> SectionResult), kept by
        #: :func:`hydrocalc.report.build.section` so that the warnings section of a kernel
        #: presenting several sections reuses them.
        self.built: dict[str, Any] = {}

    def _run(self, step: str, fn: Callable, *args, **kwargs):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            value = fn(*args, **kwargs)
        self.warnings.setdefault(step, []).extend(
            dedupe(_warning_text(w) for w in _about_the_computation(caught)))
        return value

    def _cached(self, step: str, fn: Callable, *args, **kwargs):
        if step not in self._cache:
            self._cache[step] = self._run(step, fn, *args, **kwargs)
        return self._cache[step]

    @property
    def results(self):
        """:func:`hydrocalc.analysis.analyze` of the site."""
        return self._cached("analysis", analyze, self.site)

    @property
    def assessment(self):
        """:func:`hydrocalc.criteria.regulations.assess` of the project under its local law."""
        return self._cached("assessment", assess, self.site.project.municipality,
                            self.site.project)

    @property
    def trap_checks(self) -> list:
        """:meth:`hydrocalc.construction.sediment.SedimentTrap.check` of every planned trap.

        Every trap of the construction plan; the cleanout fraction comes from the
        municipality's law, else one half.
        """
        if "trap_checks" not in self._cache:

            plan = self.site.construction
            traps = sed.plan_traps(plan) if plan is not None else []
            frac = load_profile(self.site.project.municipality).cleanout_fraction or 0.5
            self._cache["trap_checks"] = self._run(
                "traps", lambda: [t.check(cleanout_frac=frac) for t in traps])
        return self._cache["trap_checks"]

    @property
    def summary(self) -> dict:
        """:func:`hydrocalc.report.summary.compliance_summary` of the site."""
        if "summary" not in self._cache:

            self._cache["summary"] = compliance_summary(self.results, self.assessment,
                                                        self.trap_checks)
        return self._cache["summary"]

    def step_warnings(self, *steps: str) -> list[str]:
        """The warnings recorded by the named computation ``steps``, in order."""
        out: list[str] = []
        for step in steps:
            out.extend(self.warnings.get(step, []))
        return out


def dedupe(items: Iterable[str]) -> list[str]:
    """The items without repeats, in the order of their first appearance."""
    seen: set[str] = set()
    out = []
    for item in items:
        if item not in seen:
            seen.add(item)
            out.append(item)
    return out


def _digest(path: pathlib.Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@functools.lru_cache(maxsize=4)
def _context_cached(path: str, digest: str) -> Context:
    return Context(pathlib.Path(path))


def context(site_file: str | os.PathLike) -> Context:
    """The :class:`Context` of a site file (cached per process and file content)."""
    path = pathlib.Path(site_file)
    if not path.is_file():
        raise InputError(f"site_file must be an existing site file (TOML); got "
                         f"{str(site_file)!r}. Check the path.")
    return _context_cached(str(path.resolve()), _digest(path))


def analysis_dict(site_file: str | os.PathLike, base: str | os.PathLike | None = None) -> dict:
    """Every number of :func:`hydrocalc.analysis.analyze` as JSON values, for results.json.

    Hydrograph ordinates are left out; ``site_file`` is relative to ``base`` when given.
    """
    path = pathlib.Path(base, site_file) if base is not None else pathlib.Path(site_file)
    return json.loads(context(path).results.to_json(hydrographs=False))


def summary_dict(site_file: str | os.PathLike, base: str | os.PathLike | None = None) -> dict:
    """The compliance summary of a site file, for results.json.

    :func:`hydrocalc.report.summary.compliance_summary`; ``site_file`` is relative to
    ``base`` when given.
    """
    path = pathlib.Path(base, site_file) if base is not None else pathlib.Path(site_file)
    return context(path).summary


def project_facts_dict(site) -> dict:
    """The project facts as a JSON-ready dict (for results.json)."""
    project = site.project
    facts = project.to_dict() if hasattr(project, "to_dict") else dict(vars(project))
    return to_jsonable(facts)
