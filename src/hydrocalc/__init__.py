"""hydrocalc: TR-55/TR-20 hydrology and SWPPP reporting for New York municipalities.

The domain modules are imported here (pvlib style); the report and CLI layers are not, so
``import hydrocalc`` does not pull in papermill or matplotlib.
"""

from __future__ import annotations

from importlib import import_module
from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("hydrocalc")
except PackageNotFoundError:  # running from a source tree without installing
    __version__ = "0.0.0+unknown"

from hydrocalc import errors, units  # noqa: E402

_DOMAIN_MODULES = (
    "data",
    "runoff",
    "tc",
    "peak",
    "rainfall",
    "unit_hydrograph",
    "hydrograph",
    "reach",
    "design_storms",
    "hydraulics",
    "storage_estimate",
    "outlets",
    "routing",
    "sediment",
    "inspections",
    "regulations",
    "project",
    "daily_rain",
    "site",
    "analysis",
    "criteria",
)


def __getattr__(name):
    # Domain modules load on first attribute access (hydrocalc.runoff...), so a module under
    # construction never breaks ``import hydrocalc`` and start-up stays fast.
    if name in _DOMAIN_MODULES:
        module = import_module(f"hydrocalc.{name}")
        globals()[name] = module
        return module
    raise AttributeError(f"module 'hydrocalc' has no attribute {name!r}")


__all__ = ["__version__", "errors", "units", *_DOMAIN_MODULES]
