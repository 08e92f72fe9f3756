"""The Agg canvas of the report figures: matplotlib's, with its text measurements kept per process.

Every report figure is a new matplotlib Figure with a new Agg renderer, and matplotlib keeps
what it learns about text (the size of "0.5" in 8-point DejaVu Sans) only as long as one
renderer lives. A report draws a dozen figures with the same fonts, sizes and, mostly, the
same strings (tick labels, "Time [hr]", "Flow [cfs]"), so much of a figure's text layout
repeats what the previous figure measured. The canvas of :func:`canvas_class` is
matplotlib's ``FigureCanvasAgg`` whose renderer keeps two things for the whole process:

* the extent of a plain (non-math) string, which depends only on the string, the font
  properties and the resolution (never on the canvas size);
* the ascent, descent and line gap of a font at a size (read from its tables for every
  text element laid out), where matplotlib asks the renderer for them.

Drawing is matplotlib's own: the text is rendered by its renderer, so the pixels are
matplotlib's bit for bit (the tests render figures both ways and compare them). The caches
are keyed on everything the cached value depends on: the string, the font properties, the
resolution, and the text settings of ``matplotlib.rcParams`` (fonts, hinting, kerning)
read when a renderer is made, so a figure drawn after a change of settings is measured
afresh. Math text and TeX go through matplotlib unchanged. The caches only serve figures
drawn on this canvas (the report's); other matplotlib figures in the same process are
untouched.

Glyph bitmaps are not kept: a version that rendered cached glyphs through matplotlib's
private FreeType calls failed now and then with FreeType errors ("invalid outline", "too
many hints") in long runs, so text is drawn by matplotlib every time.
"""

from __future__ import annotations

import functools

__all__ = ["canvas_class", "clear_text_caches"]

#: Entries each cache holds at most before it is emptied (a report needs a few hundred).
MAX_ENTRIES = 20_000

# {settings key: (extents, line heights)}: one set per text setting in use
_CACHES: dict = {}


def clear_text_caches() -> None:
    """Forget every cached string extent and font line height."""
    _CACHES.clear()


def _settings_key() -> tuple:
    """The ``matplotlib.rcParams`` values and fonts that text extents and line heights may
    depend on."""
    import matplotlib as mpl
    from matplotlib.font_manager import fontManager

    items = []
    for name in sorted(mpl.rcParams):
        if name.startswith(("font.", "text.", "mathtext.")):
            value = mpl.rcParams[name]
            items.append((name, tuple(value) if isinstance(value, list) else value))
    # a font added to the font manager (addfont) may change which file a family selects
    return id(fontManager), len(fontManager.ttflist), len(fontManager.afmlist), repr(items)


def _caches(key: tuple) -> tuple[dict, dict]:
    caches = _CACHES.get(key)
    if caches is None:
        if len(_CACHES) > 8:
            _CACHES.clear()
        caches = _CACHES[key] = ({}, {})
    return caches


def _font_key(prop) -> tuple:
    """What a ``FontProperties`` selects (it is mutable, so not itself a key)."""
    return (tuple(prop.get_family()), prop.get_style(), prop.get_variant(),
            prop.get_weight(), prop.get_stretch(), prop.get_size_in_points(),
            prop.get_file(), prop.get_math_fontfamily())


def _store(cache: dict, key, value):
    if len(cache) >= MAX_ENTRIES:
        cache.clear()
    cache[key] = value
    return value


@functools.cache
def _height_hook_usable() -> bool:
    """Whether this matplotlib has the private font lookup that answers
    ``_get_font_height_metrics`` (matplotlib 3.11 asks a renderer that has that method for
    a font's line heights; an older one never calls it)."""
    from matplotlib.font_manager import FontManager

    return hasattr(FontManager, "_find_fonts_by_props")


def _font_height_metrics(prop, dpi: float) -> tuple:
    """``(ascent, descent, line gap)`` of the font of ``prop`` at ``dpi`` [px], from its
    OS/2 or hhea table, or ``(None, None, None)`` (matplotlib then measures "lp"); the same
    arithmetic, in the same order, as ``matplotlib.text.Text._get_layout`` (3.11)."""
    from matplotlib.font_manager import fontManager, get_font

    font = get_font(fontManager._find_fonts_by_props(prop))
    for table_name, linegap_key, ascent_key, descent_key in (
            ("OS/2", "sTypoLineGap", "sTypoAscender", "sTypoDescender"),
            ("hhea", "lineGap", "ascent", "descent")):
        table = font.get_sfnt_table(table_name)
        if table is None:
            continue
        fontsize = prop.get_size_in_points()
        units_per_em = font.get_sfnt_table("head")["unitsPerEm"]
        scale = 1 / units_per_em * fontsize * dpi / 72
        return (table[ascent_key] * scale, -table[descent_key] * scale,
                table[linegap_key] * scale)
    return None, None, None


@functools.cache
def _classes():
    """``(renderer class, canvas class)``; matplotlib is imported only when a figure is made."""
    from matplotlib.backends import backend_agg

    heights_hook = _height_hook_usable()

    class ReportRendererAgg(backend_agg.RendererAgg):
        """``RendererAgg`` whose string extents and font line heights outlive it."""

        def __init__(self, width, height, dpi):
            super().__init__(width, height, dpi)
            self._text_caches = _caches(_settings_key())

        def get_text_width_height_descent(self, s, prop, ismath):
            if ismath is not False:
                return super().get_text_width_height_descent(s, prop, ismath)
            extents = self._text_caches[0]
            key = (s, _font_key(prop), self.dpi)
            found = extents.get(key)
            if found is None:
                found = _store(extents, key,
                               super().get_text_width_height_descent(s, prop, ismath))
            return found

        if heights_hook:
            def _get_font_height_metrics(self, prop):
                """The ascent, descent and line gap of the font of ``prop`` [px], as
                ``matplotlib.text.Text._get_layout`` computes them from the font's tables
                when the renderer has no such method (matplotlib 3.11), kept per process."""
                heights = self._text_caches[1]
                key = (_font_key(prop), self.dpi)
                found = heights.get(key)
                if found is None:
                    found = _store(heights, key, _font_height_metrics(prop, self.dpi))
                return found

    class ReportCanvasAgg(backend_agg.FigureCanvasAgg):
        """``FigureCanvasAgg`` drawing with :class:`ReportRendererAgg`."""

        def get_renderer(self):
            w, h = self.get_width_height(physical=True)
            key = w, h, self.figure.dpi
            if self._lastKey != key:
                self.renderer = ReportRendererAgg(w, h, self.figure.dpi)
                self._lastKey = key
            return self.renderer

    return ReportRendererAgg, ReportCanvasAgg


def canvas_class():
    """The canvas class of the report figures: ``ReportCanvasAgg(figure)`` attaches it."""
    return _classes()[1]
