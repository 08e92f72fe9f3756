"""Bad input in a pond file (and to the constructors it calls): one line per problem.

Each case was found by fuzzing :func:`hydrocalc.hydraulics.pond_file.pond_from_mapping`: a
value of the wrong type, a table given as a number, sizes that overflow a float. Every one is
an :class:`~hydrocalc.errors.InputError` naming the file, the key and the value (and, read
from a file, its line); none is a traceback, a raw Python message or a table of NaN.
"""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.errors import InputError
from hydrocalc.hydraulics.outlets import Barrel, CircularOrifice, VNotchWeir
from hydrocalc.hydraulics.pond_file import load_pond, pond_from_mapping
from hydrocalc.hydraulics.routing import route_reservoir
from hydrocalc.hydraulics.stage_storage import StageStorage
from hydrocalc.hydrograph import Hydrograph

ORIFICE = {"type": "circular_orifice", "diameter_in": 8, "invert_ft": 0}
AREAS = {"stage_ft": [0, 1, 2], "area_ft2": [100, 200, 300]}
BARREL = {"diameter_in": 18, "invert_ft": 0, "length_ft": 60, "slope_ftft": 0.01}
DRYWELL = {"diameter_ft": 8, "depth_ft": 6}
FINITE = ("must give a finite storage of at most 1e+15 ft3 and areas of at most 1e+15 ft2 "
          "(a guard against unit slips)")


def problems(doc) -> list[str]:
    """The lines of the InputError of the pond ``doc`` (file ``p.toml``)."""
    with pytest.raises(InputError) as err:
        pond_from_mapping(doc, where="p.toml")
    return str(err.value).splitlines()


def pond(storage=None, outlet=None, **more) -> dict:
    return {"storage": AREAS if storage is None else storage,
            "outlet": [ORIFICE] if outlet is None else outlet, **more}


# ---------------------------------------------------------------- tables given as values
@pytest.mark.parametrize(("doc", "line"), [
    (pond(storage=5), "p.toml: storage must be a table; got 5"),
    (pond(storage=True), "p.toml: storage must be a table; got true"),
    (pond(barrel=5), "p.toml: barrel must be a table; got 5"),
    (pond(barrel=[]), "p.toml: barrel must be a table; got []"),
    (pond(storage={"basin": "x"}), "p.toml: storage: basin must be a table; got 'x'"),
    (pond(storage={"drywell": 5}), "p.toml: storage: drywell must be a table; got 5"),
    (pond(outlet="x"), "p.toml: outlet must be an array of tables ([[outlet]]); got 'x'"),
    (pond(outlet=[ORIFICE, 1.5]), "p.toml: outlet[1] must be a table ([[outlet]]); got 1.5"),
])
def test_a_table_given_as_a_value_is_one_line(doc, line):
    assert problems(doc) == [line]


# ---------------------------------------------------------------- values of the wrong type
@pytest.mark.parametrize(("key", "value", "line"), [
    ("diameter_in", True, "diameter_in must be a number; got true"),
    ("diameter_in", "8", "diameter_in must be a number; got '8'"),
    ("diameter_in", [], "diameter_in must be a number; got []"),
    ("cd", [1], "cd must be a number; got [1]"),
    ("invert_ft", {"a": 1}, "invert_ft must be a number; got {a = 1}"),
    ("into_barrel", "false", "into_barrel must be true or false; got 'false'"),
    ("name", ["a"], "name must be text; got ['a']"),
    ("name", {"a": 1}, "name must be text; got {a = 1}"),
    ("name", 5, "name must be text; got 5"),
    ("name", "a\x1bb", 'name must not contain control characters; got \\x1b in "a\\x1bb". '
                       "Remove it (a pasted escape sequence or line break)"),
])
def test_an_outlet_value_of_the_wrong_type_is_one_line(key, value, line):
    assert problems(pond(outlet=[{**ORIFICE, key: value}])) == [f"p.toml: outlet[0]: {line}"]


@pytest.mark.parametrize(("outlet", "line"), [
    ({"type": "vnotch_weir", "angle_deg": [1], "crest_ft": 0},
     "angle_deg must be a number; got [1]"),
    ({"type": "rectangular_weir", "length_ft": 2, "crest_ft": 1, "end_contractions": 1.0},
     "end_contractions must be an integer; got 1.0"),
    ({"type": "exfiltration", "rate_in_hr": 1, "over": 5},
     "over must be one of wetted, surface, bottom; got 5"),
])
def test_other_devices_values_of_the_wrong_type(outlet, line):
    assert problems(pond(outlet=[outlet])) == [f"p.toml: outlet[0]: {line}"]


@pytest.mark.parametrize(("storage", "line"), [
    ({"stage_ft": [0, True, 2], "area_ft2": [100, 200, 300]},
     "p.toml: storage: stage_ft must be a list of numbers; got [0, true, 2]"),
    ({"stage_ft": "0 1 2", "area_ft2": [100, 200, 300]},
     "p.toml: storage: stage_ft must be a list of numbers; got '0 1 2'"),
    ({**AREAS, "method": True},
     "p.toml: storage: method must be one of conic, average_end_area; got true"),
    ({"drywell": {**DRYWELL, "count": "two"}},
     "p.toml: storage.drywell: count must be an integer; got 'two'"),
    ({"drywell": {**DRYWELL, "count": float("nan")}},
     "p.toml: storage.drywell: count must be an integer; got nan"),
    ({"drywell": {**DRYWELL, "count": 1.5e300}},
     "p.toml: storage.drywell: count must be an integer; got 1.5e+300"),
    ({"basin": {"bottom_length_ft": 40, "bottom_width_ft": "20", "depth_ft": 5}},
     "p.toml: storage.basin: bottom_width_ft must be a number; got '20'"),
    ({"basin": {"bottom_length_ft": 40, "depth_ft": 5}},
     "p.toml: storage.basin: missing bottom_width_ft"),
])
def test_a_storage_value_of_the_wrong_type_is_one_line(storage, line):
    assert problems(pond(storage=storage)) == [line]


def test_the_pond_name_and_the_barrel_values_are_checked_for_type():
    doc = pond(outlet=[{**ORIFICE, "into_barrel": True}], name=7,
               barrel={**BARREL, "n": "0.013"})
    assert problems(doc) == ["p.toml: name must be text; got 7",
                             "p.toml: barrel: n must be a number; got '0.013'"]


def test_every_problem_of_the_file_is_listed_at_once():
    doc = pond(storage={"drywell": {**DRYWELL, "count": "two"}}, name=["x"],
               outlet=[{**ORIFICE, "diameter_in": -36}, {**ORIFICE, "cd": "0.6"}])
    assert problems(doc) == [
        "p.toml: name must be text; got ['x']",
        "p.toml: storage.drywell: count must be an integer; got 'two'",
        "p.toml: outlet[0]: diameter_in must be in (0, inf); got -36. Give the orifice "
        "diameter in inches",
        "p.toml: outlet[1]: cd must be a number; got '0.6'"]


# ---------------------------------------------------------------- sizes that overflow
@pytest.mark.parametrize(("storage", "line"), [
    ({"drywell": {**DRYWELL, "diameter_ft": 1e308}}, f"diameter_ft {FINITE}; got 1e+308"),
    ({"drywell": {**DRYWELL, "stone_width_ft": 1e308, "stone_porosity_frac": 0.4}},
     f"stone_width_ft {FINITE}; got 1e+308"),
    ({"drywell": {**DRYWELL, "wall_thickness_ft": 1e308}},
     f"wall_thickness_ft {FINITE}; got 1e+308"),
    ({"basin": {"bottom_length_ft": 40, "bottom_width_ft": 20, "depth_ft": 5,
                "side_slope_h_per_v": 1e308}}, f"side_slope_h_per_v {FINITE}; got 1e+308"),
    ({"basin": {"bottom_length_ft": 1e308, "bottom_width_ft": 20, "depth_ft": 5}},
     f"bottom_length_ft {FINITE}; got 1e+308"),
    ({"stage_ft": [0, 1, 2, 1e308], "area_ft2": [100, 200, 300, 400]},
     f"stage_ft {FINITE}; got 1e+308 at index 3"),
    ({"stage_ft": [0, 1, 2], "area_ft2": [100, 200, 1e308]},
     f"area_ft2 {FINITE}; got 1e+308 at index 2"),
    ({"stage_ft": [0, 1, 2], "storage_ft3": [0, 100, 1e308]},
     f"storage_ft3 {FINITE}; got 1e+308 at index 2"),
])
def test_a_storage_that_overflows_is_refused(storage, line):
    assert problems(pond(storage=storage)) == [f"p.toml: storage: {line}. Check the units in "
                                               "the name"]


def test_the_storage_constructors_refuse_overflow_for_every_caller():
    # the site file loader and the sweep build their storages with the same constructors
    with pytest.raises(InputError) as err:
        StageStorage.drywell(1e308, 6.0)
    assert str(err.value) == f"diameter_ft {FINITE}; got 1e+308. Check the units in the name"
    with pytest.raises(InputError) as err:
        StageStorage.basin(40, 20, 5, side_slope_h_per_v=1e308)
    assert str(err.value) == (f"side_slope_h_per_v {FINITE}; got 1e+308. Check the units in "
                              "the name")
    with pytest.raises(InputError) as err:
        1_000_000 * StageStorage.from_volumes([0, 1], [0, 1e12])
    assert str(err.value) == ("storage_ft3 must be finite and at most 1e+15; got 1e+18 at "
                              "index 1. Check the sizes of the storage")


@pytest.mark.parametrize(("count", "shown"), [("two", "'two'"), (float("nan"), "nan"),
                                              (float("inf"), "inf"),
                                              (10**400, "10000000000000000000..."),
                                              (2.5, "2.5"), (True, "True"), (0, "0")])
def test_a_drywell_count_that_is_not_a_whole_number_is_refused(count, shown):
    with pytest.raises(InputError) as err:
        StageStorage.drywell(8.0, 6.0, count=count)
    assert str(err.value) == f"count must be an integer >= 1; got {shown}"


def test_a_whole_float_count_still_counts_drywells():
    one = StageStorage.drywell(8.0, 6.0)
    assert StageStorage.drywell(8.0, 6.0, count=2.0).max_storage_ft3 == 2 * one.max_storage_ft3


@pytest.mark.parametrize(("barrel", "shown"), [
    ({"diameter_in": 1e-300}, "diameter_in = 1e-300, n = 0.013, length_ft = 60"),
    ({"n": 1e308}, "diameter_in = 18, n = 1e+308, length_ft = 60"),
])
def test_a_barrel_whose_friction_overflows_is_refused(barrel, shown):
    doc = pond(outlet=[{**ORIFICE, "into_barrel": True}], barrel={**BARREL, **barrel})
    assert problems(doc) == [
        "p.toml: barrel: diameter_in, n and length_ft must give a finite friction loss "
        f"(29 n^2 L / R^(4/3)); got {shown}. Check the units in the names"]


def test_a_device_whose_flow_overflows_is_refused():
    weir = {"type": "rectangular_weir", "length_ft": 2, "crest_ft": 1, "cw": 1e308}
    assert problems(pond(outlet=[ORIFICE, weir])) == [
        "p.toml: outlet[1]: the flow of RectangularWeir 'weir_2ft' must be finite up to 22 ft "
        "(11 times the top, as routed); got nan cfs at 0 ft. Check its sizes and "
        "coefficients"]


def test_a_huge_but_finite_storage_is_refused_before_routing():
    # was an IndexError in the routing table (2S/dt overflowed)
    with pytest.raises(InputError, match=r"^storage_ft3 must give a finite storage"):
        ss = StageStorage.from_volumes([0, 1, 2], [0, 1000, 1e300])
        route_reservoir(Hydrograph([0, 1, 2], [0, 5, 0]), ss, CircularOrifice(6.0, 0.0))


# ---------------------------------------------------------------- the constructors (API)
@pytest.mark.parametrize(("make", "message"), [
    (lambda: CircularOrifice([], 0.0), "diameter_in must be a number; got []"),
    (lambda: CircularOrifice(True, 0.0), "diameter_in must be a number; got True"),
    (lambda: CircularOrifice(6.0, 0.0, cd=[0.6]), "cd must be a number; got [0.6]"),
    (lambda: VNotchWeir([90.0], 0.0), "angle_deg must be a number; got [90.0]"),
    (lambda: CircularOrifice(6.0, 0.0, name=["a"]), "name must be a string; got ['a']"),
    (lambda: Barrel(1e-300, 0.0, 60.0, 0.01),
     "diameter_in, n and length_ft must give a finite friction loss (29 n^2 L / R^(4/3)); "
     "got diameter_in = 1e-300, n = 0.013, length_ft = 60. Check the units in the names"),
])
def test_the_device_constructors_refuse_lists_booleans_and_names_that_are_not_text(make,
                                                                                   message):
    with pytest.raises(InputError) as err:
        make()
    assert str(err.value) == message


# ---------------------------------------------------------------- lines of a file
POND_TEXT = """name = "Pond A"

[storage]
stage_ft = [0, 1, 2, 3]
area_ft2 = [1000, 1400, 1900, 2500]

[[outlet]]
type = "circular_orifice"
diameter_in = 8
invert_ft = 0

[[outlet]]
type = "riser"
diameter_in = -36
crest_ft = true
into_barrel = "yes"
colour = "red"
"""


def test_a_pond_file_s_messages_end_with_the_line_of_their_key(tmp_path):
    path = tmp_path / "pond.toml"
    path.write_text(POND_TEXT, encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_pond(path)
    assert str(err.value).splitlines() == [
        "pond.toml: outlet[1]: into_barrel must be true or false; got 'yes' (line 16)",
        "pond.toml: outlet[1]: crest_ft must be a number; got true (line 15)",
        "pond.toml: outlet[1]: unknown key 'colour' (line 17)"]
    path.write_text(POND_TEXT.replace("true", "4").replace('"yes"', "true")
                    .replace('colour = "red"\n', ""), encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_pond(path)
    assert str(err.value) == ("pond.toml: outlet[1]: diameter_in must be in (0, inf); got -36 "
                              "(line 14)")
    path.write_text(POND_TEXT.replace("-36", "36").replace("true", "4")
                    .replace('"yes"', "true").replace('colour = "red"\n', ""),
                    encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_pond(path)
    assert str(err.value) == "pond.toml: outlets marked into_barrel need a [barrel]; got none " \
                             "(line 16)"


def test_without_lines_the_messages_end_without_them():
    doc = pond(outlet=[ORIFICE, {**ORIFICE, "diameter_in": -36}])
    assert problems(doc) == ["p.toml: outlet[1]: diameter_in must be in (0, inf); got -36. "
                             "Give the orifice diameter in inches"]


def test_the_rating_command_prints_one_line_per_problem(tmp_path):
    path = tmp_path / "pond.toml"
    path.write_text(POND_TEXT.replace('colour = "red"\n', "").replace("-36", "[36]"),
                    encoding="utf-8")
    res = CliRunner().invoke(main, ["rating", str(path)])
    assert res.exit_code == 1
    assert res.stderr.splitlines() == [
        "error: pond.toml: outlet[1]: into_barrel must be true or false; got 'yes' (line 16)",
        "error: pond.toml: outlet[1]: diameter_in must be a number; got [36] (line 14)",
        "error: pond.toml: outlet[1]: crest_ft must be a number; got true (line 15)"]
