"""A file name longer than the filesystem allows is one problem line, never a traceback."""

import pathlib
import shutil

import pytest

from hydrocalc._validate import confined_path
from hydrocalc.errors import InputError
from hydrocalc.site import check_site

EXAMPLES = pathlib.Path(__file__).resolve().parents[2] / "examples"


def test_long_storm_file_name_is_one_problem(tmp_path):
    shutil.copytree(EXAMPLES / "pelham", tmp_path / "site")
    site = tmp_path / "site" / "site.toml"
    text = site.read_text()
    old = 'file = "../../design_storms/pelham.toml"'
    assert old in text
    site.write_text(text.replace(old, f'file = "{"x" * 300}.toml"'))
    problems = check_site(site)
    hits = [p for p in problems if "storms.file" in p]
    assert len(hits) == 1, problems
    assert "longer than 255 bytes" in hits[0] and "(line 36)" in hits[0], hits


@pytest.mark.parametrize("allow_outside", [False, True])
def test_confined_path_refuses_a_name_too_long(tmp_path, allow_outside):
    with pytest.raises(InputError, match=r"^construction\.rainfall_file must name a readable "
                                         r"file; .*longer than 255 bytes"):
        confined_path("d/" + "é" * 200 + ".csv", tmp_path, field="construction.rainfall_file",
                      allow_outside=allow_outside)
    assert confined_path("d/" + "e" * 200 + ".csv", tmp_path, field="f").name.startswith("e")
