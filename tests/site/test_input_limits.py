"""Limits checked before any section is read: nesting depth; and at most 50 problems shown."""

from __future__ import annotations

import pathlib
import tomllib

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.errors import InputError
from hydrocalc.site import check_site, load_site
from hydrocalc.site.files import MAX_SITE_DEPTH, nesting_depth
from hydrocalc.site.problems import MAX_PROBLEMS_SHOWN

ROOT = pathlib.Path(__file__).resolve().parents[2]
PELHAM = (ROOT / "examples" / "pelham" / "site.toml").read_text(encoding="utf-8")


def _write(tmp_path, text: str) -> pathlib.Path:
    """The Pelham example's folders around a site file of ``text`` (files it names linked)."""
    folder = tmp_path / "examples" / "pelham"
    folder.mkdir(parents=True)
    (tmp_path / "design_storms").symlink_to(ROOT / "design_storms")
    for entry in (ROOT / "examples" / "pelham").iterdir():
        if entry.name != "site.toml":
            (folder / entry.name).symlink_to(entry)
    p = folder / "site.toml"
    p.write_text(text, encoding="utf-8")
    return p


def _check(p):
    return CliRunner().invoke(main, ["--allow-outside-paths", "check", str(p)])


@pytest.mark.parametrize("path", sorted((ROOT / "examples").glob("*/site.toml")),
                         ids=lambda p: p.parent.name)
def test_real_sites_are_far_from_the_depth_limit(path):
    assert nesting_depth(tomllib.loads(path.read_text(encoding="utf-8"))) <= 5 < MAX_SITE_DEPTH


def test_a_site_nested_deeper_than_the_limit_is_one_line(tmp_path):
    deep = MAX_SITE_DEPTH + 1
    p = _write(tmp_path, "x = " + "[" * deep + "1" + "]" * deep + "\n" + PELHAM)
    got = check_site(p, allow_outside_paths=True)
    assert got == [f"site.toml: tables and arrays must be nested at most {MAX_SITE_DEPTH} "
                   f"levels deep; got {deep} (a site file needs at most 5)"]
    res = _check(p)
    assert res.exit_code == 1 and len(res.output.strip().splitlines()) == 1


def test_a_site_at_the_depth_limit_is_read_and_judged_on_its_content(tmp_path):
    p = _write(tmp_path, "x = " + "[" * MAX_SITE_DEPTH + "1" + "]" * MAX_SITE_DEPTH + "\n"
               + PELHAM)
    got = check_site(p, allow_outside_paths=True)
    assert got and got[0].startswith("site.toml: unknown top-level key x")


def test_ten_thousand_problems_print_the_first_50_and_a_count(tmp_path):
    junk = "".join(f"junk_{i} = {i}\n" for i in range(10_000))
    p = _write(tmp_path, junk + PELHAM)
    assert len(check_site(p, allow_outside_paths=True)) == 10_000  # the API returns them all
    with pytest.raises(InputError) as err:
        load_site(p, allow_outside_paths=True)
    lines = str(err.value).splitlines()
    assert len(lines) == MAX_PROBLEMS_SHOWN + 1
    assert lines[-1] == "... and 9,950 more problems (fix these and check again)"
    res = _check(p)
    assert res.exit_code == 1 and "Traceback" not in res.output
    out = res.output.strip().splitlines()
    assert len(out) == MAX_PROBLEMS_SHOWN + 1 and "9,950 more problems" in out[-1]
