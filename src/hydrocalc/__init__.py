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

from hydrocalc import _compat, errors, units  # noqa: E402

_compat.install()  # the 0.2 addresses of moved modules (hydrocalc.routing, ...), deprecated

_DOMAIN_MODULES = (
    # foundation and hydrology core (flat, as pvlib)
    "data",
    "runoff",
    "tc",
    "peak",
    "rainfall",
    "unit_hydrograph",
    "hydrograph",
    "reach",
    "design_storms",
    "storage_estimate",
    "rational",
    "daily_rain",
    # the layers above the core, one folder each (docs/architecture.md)
    "hydraulics",
    "criteria",
    "construction",
    "site",
    "analysis",
)


def __getattr__(name):
    # Domain modules load on first attribute access (hydrocalc.runoff...), so start-up stays
    # fast; a module moved in 0.3 answers to its old name through hydrocalc._compat.
    if name in _DOMAIN_MODULES:
        module = import_module(f"hydrocalc.{name}")
        globals()[name] = module
        return module
    if f"hydrocalc.{name}" in _compat.MOVED_MODULES:
        return import_module(f"hydrocalc.{name}")
    raise AttributeError(f"module 'hydrocalc' has no attribute {name!r}")


__all__ = ["__version__", "errors", "units", *_DOMAIN_MODULES]
