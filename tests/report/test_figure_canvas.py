"""Report figures: matplotlib's Agg canvas, its pixels in the PNG, the PNG writer."""

from __future__ import annotations

import io
import subprocess
import sys

import numpy as np
import pytest
from PIL import Image

from hydrocalc.report import figures as F


def _pixels(png: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(png)) as im:
        assert im.mode == "RGB"
        return np.asarray(im).copy()


def _mpl_figure(shift: float = 0.0):
    """A figure with the kinds of text the report draws (and a few it does not)."""
    fig, axes = F.new_figure(3.4, ncols=2, wspace_in=0.7, top_in=0.3)
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
    return fig


def _figure(shift: float = 0.0) -> bytes:
    """The PNG of :func:`_mpl_figure` as a report writes it."""
    return F.render(_mpl_figure(shift), "t", "t").png


def _figure_canvas_rgb(shift: float = 0.0) -> np.ndarray:
    """The RGB pixels matplotlib's canvas holds for :func:`_mpl_figure`."""
    fig = _mpl_figure(shift)
    fig.canvas.draw()
    return np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()


def test_report_figures_use_matplotlibs_agg_canvas():
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, _ = F.new_figure()
    assert type(fig.canvas) is FigureCanvasAgg


def test_rendered_png_holds_the_canvas_pixels():
    png = _figure(0.37)
    fig_again = _figure_canvas_rgb(0.37)
    assert np.array_equal(_pixels(png), fig_again)


_ALONE = """
import sys
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
        _figure(shift)
    assert _figure(0.37) == alone


@pytest.mark.parametrize("shape", [(1, 1), (7, 13), (40, 975)])
def test_png_writer_keeps_every_pixel_and_the_resolution(shape):
    rng = np.random.default_rng(7)
    rgba = rng.integers(0, 256, size=(*shape, 4), dtype=np.uint8)
    png = F._png_rgb(memoryview(rgba), shape[1], shape[0], dpi=F.DPI)
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert F._png_rgb(memoryview(rgba), shape[1], shape[0], dpi=F.DPI) == png  # no stamp
    with Image.open(io.BytesIO(png)) as im:
        im.load()
        assert im.mode == "RGB" and im.size == (shape[1], shape[0])
        assert np.array_equal(np.asarray(im), rgba[:, :, :3])
        assert im.info["dpi"] == pytest.approx((F.DPI, F.DPI), abs=0.02)
        assert not {"tIME", "Software", "software"} & set(im.info)


def test_a_panel_figure_without_panels_is_a_clear_error():
    with pytest.raises(ValueError, match="at least one panel"):
        F.panel_hydrograph_figure("x", "X", [])
