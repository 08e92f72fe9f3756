"""The report canvas keeps text work across figures and draws exactly what matplotlib draws."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from hydrocalc.report import _figure_canvas as C
from hydrocalc.report import figures as F


def _pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        assert im.mode == "RGB"
        return np.asarray(im).copy()


def _figure(shift: float = 0.0, *, plain: bool = False) -> bytes:
    """A figure with the kinds of text the report draws (and a few it does not), drawn on
    the report canvas or, ``plain``, on matplotlib's own ``FigureCanvasAgg``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, axes = F.new_figure(3.4, ncols=2, wspace_in=0.7, top_in=0.3)
    if plain:
        FigureCanvasAgg(fig)
    left, right = axes[0, 0], axes[0, 1]
    t = np.linspace(0.0, 24.0 + shift, 97)
    left.plot(t, 3.0 * np.sin(t / 7.0) ** 2, label="Pre")
    left.plot(t, 2.0 * np.sin(t / 5.0) ** 2, "--", label="Post, routed")
    left.set_xlabel("Time [hr]")
    left.set_ylabel("Flow [cfs]")
    left.set_title("10-yr storm", fontsize=9)
    left.legend(fontsize=7.5, frameon=False)
    right.plot(np.cumsum(t) * 1e3, t / 10.0 + shift)
    right.set_xlabel("Storage [ft³]")
    right.set_ylabel("Stage [ft]")
    right.text(0.1 + shift / 50.0, 0.5, "rotated\ntwo lines", rotation=30,
               transform=right.transAxes, fontsize=7)
    right.text(0.6, 0.2, r"$Q_p = q_u A_m Q$", transform=right.transAxes)
    right.annotate("Weir crest", (0.5, 0.8), xycoords="axes fraction", fontweight="bold")
    return F.render(fig, "t", "t").png


def test_report_canvas_is_the_figures_canvas():
    fig, _ = F.new_figure()
    assert type(fig.canvas) is C.canvas_class()
    assert type(fig.canvas.get_renderer()).__name__ == "ReportRendererAgg"


@pytest.mark.parametrize("rc", [{}, {"text.antialiased": False}, {"text.hinting": "none"},
                                {"font.size": 11.0, "axes.labelsize": "large"}])
def test_same_pixels_as_matplotlib_cold_and_warm(rc):
    import matplotlib as mpl

    with mpl.rc_context(rc):
        C.clear_text_caches()
        for shift in (0.0, 0.37, 0.0, 1.91):  # first draw fills the caches, later ones use them
            plain = _pixels(_figure(shift, plain=True))
            assert np.array_equal(_pixels(_figure(shift)), plain)


def test_a_change_of_text_settings_is_not_served_from_the_cache():
    import matplotlib as mpl

    C.clear_text_caches()
    before = _pixels(_figure())
    with mpl.rc_context({"text.hinting": "none"}):
        unhinted = _pixels(_figure())
        assert np.array_equal(unhinted, _pixels(_figure(plain=True)))
    assert not np.array_equal(before, unhinted)
    assert np.array_equal(_pixels(_figure()), before)


_ALONE = """
import sys
from hydrocalc.report import figures as F
sys.path.insert(0, {tests!r})
from test_figure_canvas import _figure
sys.stdout.buffer.write(_figure({shift}))
"""


@pytest.mark.slow
def test_figure_after_others_same_bytes_as_drawn_alone_in_a_fresh_process():
    import os
    import pathlib

    tests = str(pathlib.Path(__file__).parent)
    alone = subprocess.run([sys.executable, "-c", _ALONE.format(tests=tests, shift=0.37)],
                           capture_output=True, check=True, env=os.environ.copy()).stdout
    for shift in (0.0, 1.91):
        _figure(shift)  # fills the caches with another figure's text
    assert _figure(0.37) == alone


@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (40, 975)])
def test_png_writer_keeps_every_pixel_and_the_resolution(shape):
    rng = np.random.default_rng(7)
    rgba = rng.integers(0, 256, size=(*shape, 4), dtype=np.uint8)
    png = F._png_rgb(memoryview(rgba), shape[1], shape[0], dpi=F.DPI)
    import struct
    import zlib

    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    at, kinds = 8, []
    while at < len(png):  # every chunk's length and CRC (ISO/IEC 15948:2004, 5.3)
        (length,) = struct.unpack(">I", png[at:at + 4])
        kind, data = png[at + 4:at + 8], png[at + 8:at + 8 + length]
        assert struct.unpack(">I", png[at + 8 + length:at + 12 + length])[0] == zlib.crc32(
            kind + data)
        kinds.append(kind)
        at += 12 + length
    assert kinds == [b"IHDR", b"pHYs", b"IDAT", b"IEND"]
    with Image.open(io.BytesIO(png)) as im:
        im.load()
        assert im.mode == "RGB" and im.size == (shape[1], shape[0])
        assert np.array_equal(np.asarray(im), rgba[:, :, :3])
        assert im.info["dpi"] == pytest.approx((F.DPI, F.DPI), abs=0.02)


def test_without_the_line_height_hook_only_extents_are_kept(monkeypatch):
    """Another matplotlib version (no line-height hook): the canvas keeps the string
    extents only, and the pixels are still matplotlib's."""
    monkeypatch.setattr(C, "_height_hook_usable", lambda: False)
    C._classes.cache_clear()
    try:
        fig, _ = F.new_figure()
        renderer = fig.canvas.get_renderer()
        assert not hasattr(renderer, "_get_font_height_metrics")
        C.clear_text_caches()
        for shift in (0.0, 0.37):
            assert np.array_equal(_pixels(_figure(shift)), _pixels(_figure(shift, plain=True)))
    finally:
        C._classes.cache_clear()


def test_a_panel_figure_without_panels_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one panel"):
        F.panel_hydrograph_figure("x", "X", [])
