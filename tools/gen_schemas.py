"""Write the JSON Schemas of the input files into src/hydrocalc/data/schema/.

    .venv/bin/python tools/gen_schemas.py          # regenerate after changing a model
    .venv/bin/python tools/gen_schemas.py --check  # exit 1 when a shipped file is stale
"""

from __future__ import annotations

import pathlib
import sys

from hydrocalc.commands.schema import generated_schemas, schema_text

OUT = pathlib.Path(__file__).resolve().parents[1] / "src" / "hydrocalc" / "data" / "schema"


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    for name, schema in generated_schemas().items():
        path = OUT / f"{name}.schema.json"
        text = schema_text(schema)
        if path.exists() and path.read_text(encoding="utf-8") == text:
            continue
        stale.append(path.name)
        if not check:
            path.write_text(text, encoding="utf-8")
    if check and stale:
        print(f"stale: {', '.join(stale)}; run python tools/gen_schemas.py")
        return 1
    print(f"{'checked' if check else 'written'}: {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
