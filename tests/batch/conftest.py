"""The batch fixtures' base sites, loaded once per module that asks for them."""

from __future__ import annotations

import pathlib

import pytest

from hydrocalc.site import load_site

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"


@pytest.fixture(scope="module")
def lot_a():
    """tests/fixtures/batch/lot_a.toml: one lot, an underground pond with an orifice and a weir."""
    return load_site(FIX / "lot_a.toml")


@pytest.fixture(scope="module")
def lot_b():
    """tests/fixtures/batch/lot_b.toml: leaching pools with exfiltration, a lag reach."""
    return load_site(FIX / "lot_b.toml")
