"""The Agg canvas of the report figures: matplotlib's, with its text work cached per process.

Every report figure is a new matplotlib Figure with a new Agg renderer, and matplotlib keeps
what it learns about text (the size of "0.5" in 8-point DejaVu Sans, the bitmap of each
glyph) only as long as one renderer lives. A report draws a dozen figures with the same
fonts, sizes and, mostly, the same strings (tick labels, "Time [hr]", "Flow [cfs]"), so
most of a figure's text work repeats what the previous figure did; text is about a third of
a figure's drawing time. The canvas of :func:`canvas_class` is matplotlib's
``FigureCanvasAgg`` whose renderer keeps four things for the whole process instead:

* the extent of a plain (non-math) string, which depends only on the string, the font
  properties and the resolution (never on the canvas size);
* the ascent, descent and line gap of a font at a size (read from its tables for every
  text element laid out);
* the glyph layout of a drawn string (which glyph of which font goes where, relative to the
  string's origin);
* the bitmap of each glyph rendered at a given size, rotation and sub-pixel offset. FreeType
  places a glyph in 1/64 pixel units; a glyph drawn at a position that differs by whole
  pixels is the same bitmap, moved by those pixels (its outline is translated, hinted the
  same way, and rasterized on the same pixel grid), so the bitmap is kept per
  ``position mod 64`` and moved to where it is drawn.

The pixels drawn are those of matplotlib's own renderer, bit for bit (the tests render
figures both ways and compare them). The caches are keyed on everything the cached value
depends on: the string, the font properties, the resolution, and the text settings of
``matplotlib.rcParams`` (fonts, hinting, kerning) read when a renderer is made, so a figure
drawn after a change of settings is measured and drawn afresh. Math text and TeX go through
matplotlib unchanged. The caches only serve figures drawn on this canvas (the report's);
other matplotlib figures in the same process are untouched.

The glyph drawing reproduces the loop of matplotlib's private
``RendererAgg._draw_text_glyphs_and_boxes`` (matplotlib 3.11, distributed under the
Matplotlib License, a BSD-compatible licence that permits this with attribution); where the private names it
relies on are missing (another matplotlib version), the renderer keeps only the string
extents (public API) and draws text with matplotlib's own code.
"""

from __future__ import annotations

import functools
import math

import numpy as np

__all__ = ["canvas_class", "clear_text_caches"]

#: Entries each cache holds at most before it is emptied (a report needs a few hundred).
MAX_ENTRIES = 20_000

# {settings key: (extents, layouts, glyphs, line heights)}: one set per text setting in use
_CACHES: dict = {}


def clear_text_caches() -> None:
    """Forget every cached string extent, font line height, layout and glyph bitmap."""
    _CACHES.clear()


def _settings_key() -> tuple:
    """The ``matplotlib.rcParams`` values and fonts that text extents and bitmaps may
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


def _caches(key: tuple) -> tuple[dict, dict, dict, dict]:
    caches = _CACHES.get(key)
    if caches is None:
        if len(_CACHES) > 8:
            _CACHES.clear()
        caches = _CACHES[key] = ({}, {}, {}, {})
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
def _glyph_cache_usable() -> bool:
    """Whether this matplotlib has the private names the cached glyph drawing relies on."""
    try:
        from matplotlib.backends import backend_agg
        from matplotlib.ft2font import FT2Font, RenderMode
        from matplotlib.text import Text
    except ImportError:
        return False
    from matplotlib.font_manager import FontManager

    return (all(hasattr(FT2Font, n) for n in ("_layout", "_render_glyph", "_set_transform"))
            and hasattr(FontManager, "_find_fonts_by_props")
            and hasattr(backend_agg.RendererAgg, "_draw_text_glyphs_and_boxes")
            and hasattr(backend_agg.RendererAgg, "_prepare_font")
            and hasattr(backend_agg, "get_hinting_flag")
            and hasattr(RenderMode, "NORMAL") and hasattr(RenderMode, "MONO")
            and hasattr(Text, "get_fontfeatures") and hasattr(Text, "get_language"))


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

    draw_glyphs = _glyph_cache_usable()

    class ReportRendererAgg(backend_agg.RendererAgg):
        """``RendererAgg`` whose string extents, layouts and glyphs outlive it."""

        def __init__(self, width, height, dpi):
            super().__init__(width, height, dpi)
            self._text_caches = _caches((_settings_key(), draw_glyphs))

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

        if draw_glyphs:
            def _get_font_height_metrics(self, prop):
                """The ascent, descent and line gap of the font of ``prop`` [px], as
                ``matplotlib.text.Text._get_layout`` computes them from the font's tables
                when the renderer has no such method (matplotlib 3.11), kept per process."""
                heights = self._text_caches[3]
                key = (_font_key(prop), self.dpi)
                found = heights.get(key)
                if found is None:
                    found = _store(heights, key, _font_height_metrics(prop, self.dpi))
                return found

            def draw_text(self, gc, x, y, s, prop, angle, ismath=False, mtext=None):
                if ismath:
                    return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
                features = mtext.get_fontfeatures() if mtext is not None else None
                language = mtext.get_language() if mtext is not None else None
                try:
                    key = (s, _font_key(prop), self.dpi, features, language)
                    hash(key)
                except TypeError:  # unhashable features or language: draw as matplotlib
                    return super().draw_text(gc, x, y, s, prop, angle, ismath, mtext)
                _, layouts, glyphs, _ = self._text_caches
                items = layouts.get(key)
                if items is None:
                    font = self._prepare_font(prop)
                    items = _store(layouts, key, tuple(
                        (item.ft_object, item.glyph_index, item.x, item.y)
                        for item in font._layout(s, flags=backend_agg.get_hinting_flag(),
                                                 features=features, language=language)))
                self._draw_cached_glyphs(gc, x, y, angle, prop.get_size_in_points(),
                                         items, glyphs)

            def _draw_cached_glyphs(self, gc, x, y, angle, size, items, glyphs):
                """matplotlib's ``_draw_text_glyphs_and_boxes`` (no boxes, no slant or
                extension), each glyph bitmap rendered once per sub-pixel offset."""
                from matplotlib.ft2font import RenderMode

                cos = math.cos(math.radians(angle))
                sin = math.sin(math.radians(angle))
                load_flags = backend_agg.get_hinting_flag()
                antialiased = bool(gc.get_antialiased())
                height = self.height
                dpi = self.dpi
                draw_text_image = self._renderer.draw_text_image
                matrix = None
                for font, glyph_index, dx, dy in items:  # dy is upwards
                    # the glyph origin in 1/64 pixel, as matplotlib computes it
                    x64 = round(0x40 * (x + dx * cos - dy * sin))
                    y64 = round(0x40 * (height - y + dx * sin + dy * cos))
                    key = (font, size, dpi, glyph_index, cos, sin, load_flags, antialiased,
                           x64 & 0x3F, y64 & 0x3F)
                    found = glyphs.get(key)
                    if found is None:
                        if matrix is None:
                            matrix = (0x10000 * np.array([[cos, -sin], [sin, cos]])
                                      @ [[1, 0], [0, 1]]).round().astype(int)
                        font.set_size(size, dpi)
                        font._set_transform(matrix, [x64 & 0x3F, y64 & 0x3F])
                        bitmap = font._render_glyph(
                            glyph_index, load_flags,
                            RenderMode.NORMAL if antialiased else RenderMode.MONO)
                        buffer = np.array(bitmap.buffer)
                        if not antialiased:
                            buffer *= 0xff
                        found = _store(glyphs, key, (buffer, bitmap.left, bitmap.top))
                    buffer, left, top = found
                    # draw_text_image's y is downwards and the bitmap's bottom side
                    draw_text_image(buffer, left + (x64 >> 6),
                                    int(height) - (top + (y64 >> 6)) + buffer.shape[0], 0, gc)

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
