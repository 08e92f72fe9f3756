"""Sphinx configuration: the user guides (Markdown, MyST) and the API reference.

The reference is generated from the numpydoc docstrings (autosummary walks the package, so a
new or moved module needs no edit here). Build with ``make docs`` (warnings are errors).
"""

from __future__ import annotations

from importlib.metadata import version as _installed_version

project = "hydrocalc"
author = "The hydrocalc developers"
copyright = "2026, the hydrocalc developers"  # noqa: A001 - the name Sphinx reads
release = _installed_version("hydrocalc")
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = ["_build"]

# API reference: every public module, one page each (docs/api/ is generated, not committed)
autosummary_generate = True
autosummary_imported_members = False
autodoc_typehints = "none"  # the docstrings state types and units; signatures stay short
autodoc_member_order = "bysource"
autodoc_preserve_defaults = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

myst_heading_anchors = 3
# A module docstring lists every publication the module implements, whether or not its text
# cites each one by number.
suppress_warnings = ["ref.citation"]

html_theme = "alabaster"
html_title = f"hydrocalc {release}"
html_static_path: list[str] = []
