"""``hydrocalc schema site|sweep|pond``."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from hydrocalc.cli import main
from hydrocalc.commands.schema import shipped_schema_text


@pytest.mark.parametrize("name", ["site", "sweep", "pond"])
def test_schema_prints_the_shipped_json_schema(name):
    result = CliRunner().invoke(main, ["schema", name])
    assert result.exit_code == 0, result.output
    assert result.output == shipped_schema_text(name)
    assert json.loads(result.output)["$schema"] == "https://json-schema.org/draft/2020-12/schema"


def test_an_unknown_schema_name_is_one_line_and_exit_2():
    result = CliRunner().invoke(main, ["schema", "sites"])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        "error: NAME must be one of site, sweep, pond; got 'sites'"]
