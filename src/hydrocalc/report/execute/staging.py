"""Files of a report run: input copies with their SHA-256, the staging folder, the swap.

Staging folders are made by this module beside the target, recognised by name **and**
marker file (:data:`STAGING_MARKER`), and cleaned when stale
(:func:`clean_stale_staging`).

Part of :mod:`hydrocalc.report.execute`; every name is importable from there.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import os
import pathlib
import shutil
import tempfile
import uuid

from hydrocalc._process import pid_alive
from hydrocalc.errors import InputError


# --------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------
def sha256_file(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def default_report_dir(site_file: str | os.PathLike) -> pathlib.Path:
    """``reports/<name>``: the site file's stem, or its folder's name for ``site.toml``."""
    p = pathlib.Path(site_file).resolve()
    name = p.parent.name if p.stem in ("site", "project") else p.stem
    return pathlib.Path("reports") / (name or "report")


def copy_inputs(site, site_path: pathlib.Path, inputs_dir: pathlib.Path
                 ) -> tuple[str, dict[str, str]]:
    """Copy the site file and every input it reads under ``inputs_dir``, keeping their layout.

    Paths stay relative to the site file's folder, or to the common folder of all inputs when
    one lies outside it. Returns (site file relative to the staging folder, {path relative to
    ``inputs/``: sha256}).
    """
    base = site_path.parent
    declared = dict(getattr(site, "input_files", {}) or {})
    paths = {site_path.resolve()}
    for rel in declared:
        q = pathlib.Path(rel)
        paths.add((q if q.is_absolute() else base / q).resolve())
    root = pathlib.Path(os.path.commonpath([str(p.parent) for p in paths]))
    hashes: dict[str, str] = {}
    for src in sorted(paths):
        if not src.is_file():
            raise InputError(f"input file {src} must exist; got a missing file. "
                             "Check the paths in the site file.")
        rel = src.relative_to(root).as_posix()
        dst = inputs_dir / rel
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        hashes[rel] = sha256_file(dst)
    site_rel = "inputs/" + site_path.resolve().relative_to(root).as_posix()
    return site_rel, dict(sorted(hashes.items()))


def _swap_into_place(staging: pathlib.Path, target: pathlib.Path) -> None:
    """Replace ``target`` by ``staging`` with two renames (the old report is removed last)."""
    old = None
    if target.exists():
        old = target.parent / f".{target.name}.old-{uuid.uuid4().hex[:8]}"
        os.rename(target, old)
        # marked, so that the next run removes it if this one is killed before it does
        _mark(old)
    try:
        os.rename(staging, target)
    except OSError:
        if old is not None:
            (old / STAGING_MARKER).unlink(missing_ok=True)
            os.rename(old, target)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def _keep_failed(staging: pathlib.Path, target: pathlib.Path) -> pathlib.Path:
    failed = target.parent / f".{target.name}.failed"
    if failed.exists():
        shutil.rmtree(failed, ignore_errors=True)
    os.rename(staging, failed)
    return failed


def _utc_now() -> str:
    return _dt.datetime.now(_dt.UTC).replace(microsecond=0).isoformat()


# --------------------------------------------------------------------------------------
# staging folders: made by this module, recognised by name AND marker, cleaned when stale
# --------------------------------------------------------------------------------------
STAGING_MARKER = ".hydrocalc-staging"  #: file in every staging folder: "<pid> <host>"


def _make_staging(target: pathlib.Path) -> pathlib.Path:
    staging = pathlib.Path(tempfile.mkdtemp(prefix=f".{target.name}.partial-",
                                            dir=target.parent))
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(staging, 0o777 & ~umask)  # mkdtemp makes it private; a report is not
    _mark(staging)
    return staging


def _mark(folder: pathlib.Path) -> None:
    """Write the :data:`STAGING_MARKER` of this process into ``folder``."""
    import socket

    (folder / STAGING_MARKER).write_text(f"{os.getpid()} {socket.gethostname()}\n",
                                         encoding="utf-8")


def clean_stale_staging(target: str | os.PathLike) -> list[pathlib.Path]:
    """Remove staging folders of earlier, killed runs for the report folder ``target``.

    Only folders named ``.<target name>.partial-*`` (or ``.<name>.old-*``) that hold the
    :data:`STAGING_MARKER` file written by hydrocalc are removed, and only when the process
    that made them (recorded in the marker, same host) is no longer running. Anything else
    is left alone. Returns the folders removed.
    """
    import socket

    target = pathlib.Path(target)
    removed: list[pathlib.Path] = []
    if not target.parent.is_dir():
        return removed
    for pattern in (f".{target.name}.partial-*", f".{target.name}.old-*"):
        for folder in target.parent.glob(pattern):
            marker = folder / STAGING_MARKER
            if folder.is_symlink() or not folder.is_dir() or not marker.is_file():
                continue
            try:
                pid_text, host = marker.read_text(encoding="utf-8").split()[:2]
                pid = int(pid_text)
            except (OSError, ValueError):
                continue
            if host == socket.gethostname() and pid != os.getpid() and pid_alive(pid):
                continue  # a run in progress
            if host != socket.gethostname():
                continue  # another machine's run on a shared folder: not ours to judge
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed
