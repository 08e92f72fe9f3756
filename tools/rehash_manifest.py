"""Rewrite the ``sha256 = "..."`` line of every entry in the data manifests.

Run after a deliberate, reviewed edit of a shipped table::

    python tools/rehash_manifest.py
"""

import hashlib
import pathlib
import re

DATA = pathlib.Path(__file__).resolve().parents[1] / "src" / "hydrocalc" / "data"

for manifest in sorted(DATA.glob("manifest*.toml")):
    out, current = [], None
    for line in manifest.read_text(encoding="utf-8").splitlines():
        m = re.match(r'\s*file\s*=\s*"([^"]+)"', line)
        if m:
            current = DATA / m.group(1)
        if re.match(r"\s*sha256\s*=", line) and current is not None:
            line = f'sha256 = "{hashlib.sha256(current.read_bytes()).hexdigest()}"'
        out.append(line)
    manifest.write_text("\n".join(out) + "\n", encoding="utf-8")
    print(f"rehashed {manifest.name}")
