"""Report figures are drawn with matplotlib's own tick locators; panel grids make only
the panels they draw."""

from __future__ import annotations

import io

import numpy as np
from PIL import Image

from hydrocalc.report import figures as F


def _pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"))


def _plain_render(fig) -> bytes:
    """The figure drawn and encoded by matplotlib and Pillow alone."""
    fig.canvas.draw()
    width, height = fig.canvas.get_width_height()
    buf = io.BytesIO()
    Image.frombuffer("RGBA", (width, height), fig.canvas.buffer_rgba(), "raw", "RGBA", 0,
                     1).convert("RGB").save(buf, format="png")
    return buf.getvalue()


def _sample_figure():
    fig, axes = F.new_figure(2.6)
    ax = axes[0, 0]
    t = np.linspace(0.0, 48.0, 2001)
    ax.plot(t, 1.7 * np.exp(-((t - 12.4) / 1.3) ** 2), label="Post")
    ax.set_xlim(11.0, 26.0)
    ax.set_ylim(bottom=0)
    ax.legend()
    return fig, ax


def test_render_keeps_matplotlibs_locators_and_pixels():
    fig, ax = _sample_figure()
    plain = _plain_render(fig)
    fig, ax = _sample_figure()
    locators = ax.xaxis.get_major_locator(), ax.yaxis.get_major_locator()
    drawn = F.render(fig, "t", "t").png
    assert np.array_equal(_pixels(drawn), _pixels(plain))
    assert (ax.xaxis.get_major_locator(), ax.yaxis.get_major_locator()) == locators


def test_render_leaves_date_axes_alone():
    import datetime as dt

    fig, axes = F.new_figure(2.6)
    ax = axes[0, 0]
    days = [dt.date(2026, 4, 1) + dt.timedelta(days=k) for k in range(60)]
    ax.plot(days, np.arange(60.0))
    locator = ax.xaxis.get_major_locator()
    F.render(fig, "d", "d")
    assert ax.xaxis.get_major_locator() is locator


def test_panel_grid_makes_only_drawn_panels():
    t = np.linspace(0.0, 24.0, 97)
    panels = [(f"{k} yr", [("Pre", t, k * np.sin(t / 24.0 * np.pi))]) for k in (1, 2, 10)]
    fig = F.panel_hydrograph_figure("p", "p", panels)
    assert fig.png.startswith(b"\x89PNG")
    fig, axes = F.new_figure(4.6, nrows=2, ncols=2, n_axes=3)
    assert axes[1, 1] is None
    assert len(fig.axes) == 3
