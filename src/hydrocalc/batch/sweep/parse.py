r"""Reading sweep files: :func:`load_sweep`, :func:`parse_sweep`, :func:`is_sweep_document`.

Every key of the TOML document is validated (problems are collected and reported together),
value lists are expanded (``values``, ``range``, ``linspace``) or drawn
(``uniform``, ``normal``, ``choice`` from ``numpy.random.default_rng(seed)`` in file order)
and each ``field`` is resolved against the base site.

References
----------
.. [1] NumPy, "Random Generator" (PCG64 bit generator), numpy.random.default_rng.
"""

from __future__ import annotations

import math
import pathlib
import tomllib
from collections.abc import Mapping
from typing import cast

import numpy as np

from hydrocalc._validate import capped, suggest
from hydrocalc.batch.sweep.fields import resolve_field
from hydrocalc.batch.sweep.model import Sweep, Variation
from hydrocalc.batch.sweep.schema import SweepFile, Vary
from hydrocalc.errors import InputError
from hydrocalc.schema_errors import choices, field_errors, requirement, says
from hydrocalc.site import load_site

#: The keys of a sweep file and of a [[vary]] entry: those the model declares.
_TOP_KEYS, _VARY_KEYS = tuple(SweepFile.model_fields), tuple(Vary.model_fields)
_SOURCES = ("values", "range", "linspace", "uniform", "normal", "choice")
_RANDOM = ("uniform", "normal", "choice")


def is_sweep_document(doc: Mapping) -> bool:
    """True when a parsed TOML document is a sweep file (``base`` and no ``[project]``)."""
    return isinstance(doc, Mapping) and "base" in doc and "project" not in doc


def _model_problems(doc: Mapping, where: str) -> tuple[list[str], list[str], dict[int, set]]:
    """The sweep file's problems found by its declared model (:class:`SweepFile`).

    Returns the top level's lines, the ``[[vary]]`` entries' lines (entry by entry, unknown
    keys first, each ``<path> <requirement>; got <value>``) and the keys at fault in each
    entry (``""`` for an unknown key).
    """
    top: list[tuple] = []
    entries: list[tuple] = []
    bad: dict[int, set] = {}
    for e in field_errors(SweepFile, doc):
        in_entry = len(e.path) > 2
        head, sep = (f"{where}: vary[{e.path[1]}]", ".") if in_entry else (where, ": ")
        if e.kind == "unknown":
            line = f"{head}: unknown key {e.key}{suggest(e.key, e.allowed)}"
        else:
            options = choices(e.info) if e.info is not None and not says(e.info) else ()
            hint = suggest(str(e.value), options) if options else ""
            line = f"{head}{sep}{e.key} {requirement(e)}; got {e.value!r}{hint}"
        if in_entry:
            bad.setdefault(e.path[1], set()).add("" if e.kind == "unknown" else e.key)
        (entries if in_entry else top).append((e.path[1] if in_entry else 0,
                                               e.kind != "unknown", line))
    return ([t[2] for t in sorted(top, key=lambda t: t[1])],
            [t[2] for t in sorted(entries, key=lambda t: t[:2])], bad)


def _values_of(entry: Mapping, path: str, problems: list[str], rng_spec: list,
               bad: set):
    """The values of an entry (its one source); the model has checked their types."""
    given = [k for k in _SOURCES if k in entry]
    if len(given) != 1:
        problems.append(f"{path} must give exactly one of {', '.join(_SOURCES)}; got "
                        f"{', '.join(given) or 'none'}")
        return None, None
    src = given[0]
    if src in bad:  # recorded by the model
        return None, None
    x = entry[src]
    v = list(x)
    if src == "values":
        return tuple(v), src
    if src == "range":
        start, stop, step = (float(a) for a in v)
        if not step > 0 or stop < start:
            problems.append(f"{path}.range must be [start, stop, step] with step > 0 and stop >= "
                            f"start; got {x!r}")
            return None, None
        n = int(math.floor((stop - start) / step + 1e-9)) + 1
        if n > 1_000_000:
            problems.append(f"{path}.range must give at most 1,000,000 values; got {n}")
            return None, None
        return tuple(float(np.round(start + k * step, 12)) for k in range(n)), src
    if src == "linspace":
        if not (isinstance(v[2], int) and v[2] >= 1 and v[2] <= 1_000_000):
            problems.append(f"{path}.linspace must be [start, stop, num] with an integer num in "
                            f"[1, 1000000]; got {x!r}")
            return None, None
        return tuple(float(a) for a in np.linspace(float(v[0]), float(v[1]), int(v[2]))), src
    # random sources: drawn later, in file order, once the seed is known
    if src == "uniform" and not v[0] < v[1]:
        problems.append(f"{path}.uniform must be [low, high] with low < high; got {x!r}")
        return None, None
    if src == "normal" and not v[1] >= 0:
        problems.append(f"{path}.normal must be [mean, standard deviation >= 0]; got {x!r}")
        return None, None
    rng_spec.append((src, v))
    return ("random", len(rng_spec) - 1), src


def parse_sweep(doc: Mapping, *, where: str = "sweep.toml",
                base_dir: pathlib.Path | str | None = None,
                path: pathlib.Path | None = None, site=None) -> Sweep:
    """Validate a parsed sweep document and resolve it against its base site.

    Parameters
    ----------
    doc : mapping
        The parsed TOML document.
    where : str
        File name used as the prefix of each problem.
    base_dir : path-like, optional
        Folder that ``base`` is relative to (default: the working directory).
    path : pathlib.Path, optional
        The sweep file (stored on the result).
    site : hydrocalc.site.Site, optional
        The already loaded base site (default: loaded from ``base``).

    Returns
    -------
    Sweep

    Raises
    ------
    InputError
        Listing every problem, one per line (``sweep.toml: vary[1].field ...``); a base site
        with problems raises the site loader's error.
    """
    if not isinstance(doc, Mapping):
        raise InputError(f"{where}: the sweep file must be a TOML table; got {type(doc).__name__}")
    top, problems, bad = _model_problems(doc, where)
    if top:
        raise InputError("\n".join(capped(top)))
    base_raw: str = doc["base"]
    name = doc.get("name", path.stem if path is not None else "sweep")
    combine, seed, samples = doc.get("combine", "grid"), doc.get("seed"), doc.get("samples")
    storm_sel, description = doc.get("storms"), doc.get("description", "")
    vary = doc.get("vary", [])
    bdir = pathlib.Path(base_dir) if base_dir is not None else pathlib.Path.cwd()

    base_path = (bdir / base_raw).resolve() if not pathlib.Path(base_raw).is_absolute() \
        else pathlib.Path(base_raw)
    if site is None:
        if not base_path.is_file():
            raise InputError(f"{where}: base must be an existing site file (relative to the "
                             f"sweep file); got {base_raw!r}")
        site = load_site(base_path)
    if storm_sel is not None:
        for s in storm_sel:
            if s not in site.storms.depths_in:
                problems.append(f"{where}: storms must name storms of the base site; got {s!r}"
                                f"{suggest(s, site.storms.names)} Available: "
                                f"{', '.join(site.storms.names)}")

    rng_spec: list = []
    entries = _vary_entries(vary, where, site, problems, rng_spec, bad)
    if rng_spec:
        if seed is None:
            problems.append(f"{where}: seed is required when a [[vary]] entry is random "
                            "(uniform, normal or choice); add seed = <integer>")
        if samples is None:
            problems.append(f"{where}: samples is required when a [[vary]] entry is random; "
                            "add samples = <number of draws>")
    if problems:
        raise InputError("\n".join(capped(problems)))

    draws = _draws(rng_spec, seed, samples)
    variations = _variations(entries, draws, combine, where, problems)
    if problems:
        raise InputError("\n".join(capped(problems)))
    sweep = Sweep(path=path, name=name, base=base_path, site=site, variations=tuple(variations),
                  combine=combine, seed=seed, samples=samples,
                  storms=tuple(storm_sel) if storm_sel else None,
                  description=description,
                  where=where)
    if sweep.n_scenarios > 10_000_000:
        raise InputError(f"{where}: the sweep must have at most 10,000,000 scenarios; got "
                         f"{sweep.n_scenarios:,}. Use fewer values or random sampling")
    return sweep


def _vary_entries(vary: list, where: str, site, problems: list[str], rng_spec: list,
                  bad: Mapping[int, set]) -> list:
    """The checked ``[[vary]]`` entries as tuples (problems appended, random specs collected).

    ``bad`` holds the keys the model found at fault in each entry (:func:`_model_problems`);
    the rules that need the base site or several keys are checked here.
    """
    entries = []
    labels_seen: set[str] = set()
    for i, e in enumerate(vary):
        p, faults = f"{where}: vary[{i}]", bad.get(i, set())
        field, op, label = e.get("field"), e.get("op", "set"), e.get("label")
        targets = None
        if "field" not in faults:
            try:
                targets = tuple(resolve_field(site, field))
            except InputError as exc:
                problems.append(f"{p}.field: {exc}")
            label = (field if op == "set" else f"{field}:{op}") if label is None else label
        vals, src = _values_of(e, p, problems, rng_spec, faults)
        group = e.get("group", "random" if src in _RANDOM else f"#{i}")
        if label is not None and "label" not in faults:
            if label in labels_seen:
                problems.append(f"{p}.label must be unique; got {label!r} twice (give "
                                "label = ...)")
            labels_seen.add(label)
        if vals is not None and src in ("values", "choice"):
            text = all(isinstance(x, str) for x in e[src])
            if text and (op != "set" or targets is None or
                         any(t.attr != "distribution" for t in targets)):
                problems.append(f"{p}.{src} may hold text only for storms.distribution with "
                                f"op = \"set\"; got {e[src]!r}")
        entries.append((field, op, vals, group, label, targets, src))
    return entries


def _draws(rng_spec: list, seed: int | None, samples: int | None) -> list:
    """The random draws of every random entry, in file order (seeded)."""
    draws = []
    if rng_spec:
        rng = np.random.default_rng(seed)
        for kind, spec in rng_spec:  # file order: adding an entry never changes earlier draws
            if kind == "uniform":
                d = rng.uniform(spec[0], spec[1], samples)
            elif kind == "normal":
                d = rng.normal(spec[0], spec[1], samples)
            else:
                d = np.asarray(spec, dtype=object)[rng.integers(0, len(spec), samples)]
            draws.append(tuple(x if isinstance(x, str) else float(x) for x in d))
    return draws


def _variations(entries: list, draws: list, combine: str, where: str,
                problems: list[str]) -> list:
    """The :class:`Variation` of each entry; equal value counts checked per group."""
    variations = []
    for field, op, vals, group, label, targets, src in entries:
        if vals[0] == "random" and len(vals) == 2 and isinstance(vals[1], int) and src in _RANDOM:
            vals = draws[vals[1]]
        if combine == "zip":
            group = "zip"
        variations.append(Variation(field=field, op=op, values=tuple(vals), group=group,
                                    label=label, targets=cast(tuple, targets), source=src))
    sizes: dict[str, set] = {}
    for v in variations:
        sizes.setdefault(v.group, set()).add(len(v.values))
    for g, s in sizes.items():
        if len(s) > 1:
            what = "with combine = \"zip\", all entries" if combine == "zip" else \
                f"entries of group {g!r}"
            problems.append(f"{where}: {what} must have the same number of values; got "
                            f"{', '.join(str(n) for n in sorted(s))}")
    return variations


def load_sweep(path, *, site=None) -> Sweep:
    """Read and validate the sweep file ``path`` (see the module docstring).

    Parameters
    ----------
    path : path-like
        The sweep TOML file; ``base`` resolves against its folder.
    site : hydrocalc.site.Site, optional
        The already loaded base site (skips reading it again).

    Returns
    -------
    Sweep

    Raises
    ------
    InputError
        Listing every problem of the sweep file, or the base site's problems.

    Examples
    --------
    >>> import pathlib
    >>> sw = load_sweep(pathlib.Path("tests/fixtures/batch/sweep_small.toml"))  # doctest: +SKIP
    >>> sw.n_scenarios                                                           # doctest: +SKIP
    12
    """
    p = pathlib.Path(path)
    try:
        text = p.read_bytes().decode("utf-8-sig")
    except OSError as exc:
        raise InputError(f"sweep file must be a readable file; got {str(path)!r} "
                         f"({exc.strerror or exc})") from None
    except UnicodeDecodeError as exc:
        raise InputError(f"{p.name}: must be UTF-8 text; byte {exc.start} is not") from None
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{p.name}: TOML syntax error: {exc}") from None
    return parse_sweep(doc, where=p.name, base_dir=p.parent, path=p, site=site)
