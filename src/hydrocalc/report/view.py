"""A computed section as a report run hands it to its notebook: ready to display.

A report run computes every :class:`~hydrocalc.report.result.SectionResult` in its own
process and renders its presentation there (heading, narrative, body with the tables and
the PNG figures inlined, warnings), once; the section notebook it executes unpickles a
:class:`SectionView` and displays those prebuilt blocks. Presenting a section in the
report's kernel therefore imports nothing heavy (no pandas, no matplotlib) and renders
nothing: the blocks are the very HTML :meth:`SectionResult.body` and friends return.

Every other attribute of the section (``tables``, ``figures``, ``values``, ``write`` ...)
is that of the full :class:`~hydrocalc.report.result.SectionResult`, which the view keeps
pickled and unpickles on first use, so a notebook can still look inside its result.
"""

from __future__ import annotations

import pickle

__all__ = ["HTMLBlock", "MarkdownBlock", "SectionView"]


class HTMLBlock:
    """Trusted HTML produced by hydrocalc (every user string already escaped)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_html_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return "HTMLBlock(...)"


class MarkdownBlock:
    """Markdown narrative (user strings escaped by :func:`~hydrocalc.report.tables.md_escape`)."""

    def __init__(self, text: str):
        self.text = text

    def _repr_markdown_(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return self.text


_OWN = ("key", "title", "_heading", "_narrative", "_body", "_warnings", "_pickled", "_full")


class SectionView:
    """A :class:`~hydrocalc.report.result.SectionResult` with its presentation rendered.

    Parameters
    ----------
    result : SectionResult
        The computed section (figures drawn).

    Attributes
    ----------
    key, title : str
        As in the section result.
    result : SectionResult
        The full section result (unpickled on first access).
    """

    def __init__(self, result):
        self.key = result.key
        self.title = result.title
        self._heading = result.heading().text
        self._narrative = result.narrative().text
        self._body = result.body().text
        self._warnings = result.warnings_table().text
        self._pickled = pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)
        self._full = result

    # -- presentation: the blocks SectionResult returns, rendered by the report run ------
    def heading(self) -> HTMLBlock:
        """The section heading (see :meth:`SectionResult.heading`)."""
        return HTMLBlock(self._heading)

    def narrative(self) -> MarkdownBlock:
        """The narrative paragraphs (see :meth:`SectionResult.narrative`)."""
        return MarkdownBlock(self._narrative)

    def body(self) -> HTMLBlock:
        """Sub-headings, notes, tables and figures (see :meth:`SectionResult.body`)."""
        return HTMLBlock(self._body)

    def warnings_table(self) -> HTMLBlock:
        """The section's warnings (see :meth:`SectionResult.warnings_table`)."""
        return HTMLBlock(self._warnings)

    # -- everything else: the full result ------------------------------------------------
    @property
    def result(self):
        """The full :class:`~hydrocalc.report.result.SectionResult`."""
        if self.__dict__.get("_full") is None:
            self._full = pickle.loads(self._pickled)  # noqa: S301 - this run's own bytes
        return self._full

    def __getattr__(self, name: str):
        if name.startswith("__") or name in _OWN:
            raise AttributeError(name)
        return getattr(self.result, name)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_full"] = None  # travels pickled once, as _pickled
        return state

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)

    def __repr__(self) -> str:
        return f"SectionView({self.key!r}, {self.title!r})"
