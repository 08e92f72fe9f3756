"""Old module addresses of hydrocalc 0.2, kept working for one release.

hydrocalc 0.3 arranged the modules above the hydrology core in one folder per layer
(``hydraulics/``, ``criteria/``, ``construction/``, ``site/``, ``review/``, ``batch/``,
``course/``; see ``docs/architecture.md``). The hydrology core kept its addresses
(``hydrocalc.runoff.runoff_depth``, ...). Each moved module still answers to its old name
(``import hydrocalc.routing`` gives :mod:`hydrocalc.hydraulics.routing`, and
``hydrocalc.routing.route_reservoir`` works) with a :class:`DeprecationWarning`; the old names
will be removed in hydrocalc 0.4.

The aliases are made by a finder on :data:`sys.meta_path` (:pep:`451`): the old name is bound
in :data:`sys.modules` to the very module object of the new name, so classes, functions and
module state are shared, not copied.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import types
import warnings

#: Old module name -> new module name (subpackages and their modules follow their parent).
MOVED_MODULES: dict[str, str] = {
    "hydrocalc.report.learn": "hydrocalc.course.learn",
    "hydrocalc._route_kernel": "hydrocalc.hydraulics.routing.kernel",
    "hydrocalc.stage_storage": "hydrocalc.hydraulics.stage_storage",
    "hydrocalc.culvert": "hydrocalc.hydraulics.outlets.culvert",
    "hydrocalc.outlets": "hydrocalc.hydraulics.outlets",
    "hydrocalc.conveyance": "hydrocalc.hydraulics.conveyance",
    "hydrocalc.routing": "hydrocalc.hydraulics.routing",
    "hydrocalc.tailwater": "hydrocalc.hydraulics.routing.tailwater",
    "hydrocalc.interconnected": "hydrocalc.hydraulics.routing.interconnected",
    "hydrocalc.sizing": "hydrocalc.hydraulics.sizing",
    "hydrocalc.pond_file": "hydrocalc.hydraulics.pond_file",
    "hydrocalc.practices": "hydrocalc.criteria.practices",
    "hydrocalc.state_permit": "hydrocalc.criteria.state_permit",
    "hydrocalc.regulations": "hydrocalc.criteria.regulations",
    "hydrocalc.sediment": "hydrocalc.construction.sediment",
    "hydrocalc.inspections": "hydrocalc.construction.inspections",
    "hydrocalc.project": "hydrocalc.site.project",
    "hydrocalc.plausibility": "hydrocalc.site.plausibility",
    "hydrocalc.network": "hydrocalc.site.network",
    "hydrocalc.rational_site": "hydrocalc.site.rational",
    "hydrocalc.diff": "hydrocalc.review.diff",
    "hydrocalc.importers": "hydrocalc.review.importers",
    "hydrocalc.sweep": "hydrocalc.batch.sweep",
    "hydrocalc.explorer": "hydrocalc.course.explorer",
}


def new_name(old: str) -> str | None:
    """Return the current name of a module moved in 0.3, or None if ``old`` did not move.

    >>> new_name("hydrocalc.routing.reservoir")
    'hydrocalc.hydraulics.routing.reservoir'
    >>> new_name("hydrocalc.runoff") is None
    True
    """
    for before, after in MOVED_MODULES.items():
        if old == before or old.startswith(before + "."):
            return after + old[len(before):]
    return None


class _AliasLoader(importlib.abc.Loader):
    """Load an old name by importing the new one and returning that same module object."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.real_spec: importlib.machinery.ModuleSpec | None = None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        module = importlib.import_module(self.target)
        self.real_spec = module.__spec__
        return module

    def exec_module(self, module: types.ModuleType) -> None:
        # The import system has set ``module.__spec__`` to the alias spec: give the module
        # its own spec back (its name stays the new one).
        module.__spec__ = self.real_spec


class MovedModuleFinder(importlib.abc.MetaPathFinder):
    """Find a module by its 0.2 name and alias it to its 0.3 name, with a DeprecationWarning."""

    def find_spec(self, fullname, path=None, target=None):  # noqa: D102 (MetaPathFinder API)
        target_name = new_name(fullname)
        if target_name is None:
            return None
        warnings.warn(
            f"{fullname} moved to {target_name} in hydrocalc 0.3; the old name will be removed "
            "in 0.4",
            DeprecationWarning,
            stacklevel=2,
        )
        return importlib.util.spec_from_loader(fullname, _AliasLoader(target_name))


def install() -> None:
    """Put the finder of moved modules first on :data:`sys.meta_path` (once)."""
    if not any(isinstance(f, MovedModuleFinder) for f in sys.meta_path):
        sys.meta_path.insert(0, MovedModuleFinder())
