"""A sweep file read from disk names the line of each problem's key, as a site file does."""

from __future__ import annotations

import pathlib

import pytest

from hydrocalc.batch.sweep import load_sweep, parse_sweep
from hydrocalc.errors import InputError

FIX = pathlib.Path(__file__).parents[1] / "fixtures" / "batch"


def _problems(tmp_path, text: str) -> list[str]:
    path = tmp_path / "s.toml"
    path.write_text(f'base = "{(FIX / "lot_a.toml").as_posix()}"\n' + text, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_sweep(path)
    return str(err.value).splitlines()


def test_each_problem_ends_with_the_line_of_its_key(tmp_path):
    got = _problems(tmp_path, 'sede = 3\n\n[[vary]]\nfield = "post.subcatchment[P-9].cn"\n'
                              'op = "plus"\nvalues = [1]\n\n[[vary]]\n'
                              'field = "post.subcatchment[P-1].cn"\nrange = [0, 1, -1]\n')
    assert got == ["s.toml: unknown key sede; did you mean 'seed' or 'base'? (line 2)"]
    got = _problems(tmp_path, '[[vary]]\nfield = "post.subcatchment[P-9].cn"\n'
                              'op = "plus"\nvalues = [1]\n\n[[vary]]\n'
                              'field = "post.subcatchment[P-1].cn"\nrange = [0, 1, -1]\n')
    assert got[0] == "s.toml: vary[0].op must be one of set, add, scale; got 'plus' (line 4)"
    assert got[1].startswith("s.toml: vary[0].field: field 'post.subcatchment[P-9].cn' names "
                             "subcatchment 'P-9'") and got[1].endswith(" (line 3)")
    assert got[2] == ("s.toml: vary[1].range must be [start, stop, step] with step > 0 and "
                      "stop >= start; got [0, 1, -1] (line 9)")


def test_an_unknown_key_of_an_entry_names_its_own_line(tmp_path):
    got = _problems(tmp_path, '[[vary]]\nfield = "post.subcatchment[P-1].cn"\nvalus = [1]\n')
    assert got[0] == "s.toml: vary[0]: unknown key valus; did you mean 'values'? (line 4)"
    assert got[1].endswith("; got none (line 2)")


def test_a_parsed_document_without_its_text_has_no_lines():
    doc = {"base": "lot_a.toml", "vary": [{"field": "post.subcatchment[P-1].cn",
                                            "op": "plus", "values": [1]}]}
    with pytest.raises(InputError, match=r"got 'plus'$"):
        parse_sweep(doc, where="s.toml", base_dir=FIX)
