"""Write the JSON Schemas of the input files into src/hydrocalc/data/schema/.

Also rewrites the generated key reference at the end of docs/site_file.md (between the
markers of hydrocalc.commands.schema.REFERENCE_START and REFERENCE_END).

    .venv/bin/python tools/gen_schemas.py          # regenerate after changing a model
    .venv/bin/python tools/gen_schemas.py --check  # exit 1 when a file is stale
"""

from __future__ import annotations

import pathlib
import sys

from hydrocalc.commands.schema import (
    REFERENCE_END,
    REFERENCE_START,
    generated_schemas,
    reference_markdown,
    schema_text,
)

ROOT = pathlib.Path(__file__).resolve().parents[1]
OUT = ROOT / "src" / "hydrocalc" / "data" / "schema"
DOC = ROOT / "docs" / "site_file.md"


def with_reference(doc: str, site_schema: dict) -> str:
    """The text of docs/site_file.md with its generated key reference replaced."""
    head, _, rest = doc.partition(REFERENCE_START)
    _, _, tail = rest.partition(REFERENCE_END + "\n")
    return head + reference_markdown(site_schema) + tail


def main(argv: list[str]) -> int:
    check = "--check" in argv
    stale = []
    schemas = generated_schemas()
    files = {OUT / f"{name}.schema.json": schema_text(s) for name, s in schemas.items()}
    files[DOC] = with_reference(DOC.read_text(encoding="utf-8"), schemas["site"])
    for path, text in files.items():
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
