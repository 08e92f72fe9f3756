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
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from hydrocalc._validate import capped, excerpt, suggest
from hydrocalc.batch.columns import SUMMARY_COLUMNS
from hydrocalc.batch.sweep.fields import resolve_field
from hydrocalc.batch.sweep.model import Sweep, Variation
from hydrocalc.batch.sweep.schema import SweepFile, Vary
from hydrocalc.errors import InputError
from hydrocalc.input_file import key_lines, line_suffix, read_toml_file
from hydrocalc.schema_errors import choices, field_errors, requirement, says
from hydrocalc.site import load_site

#: The keys of a sweep file and of a [[vary]] entry: those the model declares.
#: Most random draws of a sweep (``samples``), as many as a range's or a list's values.
MAX_SAMPLES = 1_000_000

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


def _source(entry: Mapping) -> str | None:
    """The entry's one source of values (None: none or several given)."""
    given = [k for k in _SOURCES if k in entry]
    return given[0] if len(given) == 1 else None


def _range_count(start: float, stop: float, step: float) -> float:
    """The number of values of ``range = [start, stop, step]`` (inf when it overflows)."""
    span = (stop - start) / step
    return math.floor(span + 1e-9) + 1 if math.isfinite(span) else math.inf


def _source_problem(entry: Mapping, path: str, faults: set, problems: list[str]) -> bool:
    """Record the rule the entry's source of values breaks; True when it breaks one.

    Exactly one source; its numbers in order (the model has checked each list's shape and
    types, the keys at fault are ``faults``).
    """
    src = _source(entry)
    x = entry[src] if src is not None and src not in faults else None
    if src is None:
        given = [k for k in _SOURCES if k in entry]
        problems.append(f"{path} must give exactly one of {', '.join(_SOURCES)}; got "
                        f"{', '.join(given) or 'none'}")
    elif x is None or src in ("values", "choice"):
        return False
    elif src == "range" and (not x[2] > 0 or x[1] < x[0]):
        problems.append(f"{path}.range must be [start, stop, step] with step > 0 and stop >= "
                        f"start; got {x!r}")
    elif src == "range" and (n := _range_count(*map(float, x))) > 1_000_000:
        got = f"{n:,.0f}" if math.isfinite(n) else "more than can be counted"
        problems.append(f"{path}.range must give at most 1,000,000 values; got {got}")
    elif src == "linspace" and not (isinstance(x[2], int) and 1 <= x[2] <= 1_000_000):
        problems.append(f"{path}.linspace must be [start, stop, num] with an integer num in "
                        f"[1, 1000000]; got {x!r}")
    elif src == "uniform" and not (x[0] < x[1] and math.isfinite(x[1] - x[0])):
        problems.append(f"{path}.uniform must be [low, high] with low < high and a finite "
                        f"high - low; got {x!r}")
    elif src == "normal" and not x[1] >= 0:
        problems.append(f"{path}.normal must be [mean, standard deviation >= 0]; got {x!r}")
    else:
        return False
    return True


def _values(entry: Mapping, src: str, rng_spec: list) -> tuple:
    """The values of a valid entry; a random source is ``("random", k)``, drawn later."""
    x = entry[src]
    if src == "values":
        return tuple(x)
    if src == "range":
        start, stop, step = (float(a) for a in x)
        n = int(_range_count(start, stop, step))
        return tuple(float(np.round(start + k * step, 12)) for k in range(n))
    if src == "linspace":
        return tuple(float(a) for a in np.linspace(float(x[0]), float(x[1]), int(x[2])))
    rng_spec.append((src, list(x)))  # drawn in file order once the seed is known
    return ("random", len(rng_spec) - 1)


def _entry_problems(vary: list, where: str, site, bad: Mapping[int, set]) -> tuple:
    """The rules of the ``[[vary]]`` entries that need the base site or several keys.

    ``bad`` holds the keys the model found at fault in each entry (:func:`_model_problems`),
    which are skipped. Returns the problems, the targets of each entry whose field resolves
    and whether a valid entry is random.
    """
    problems: list[str] = []
    targets: dict[int, tuple] = {}
    labels_seen: set[str] = set()
    random = False
    for i, e in enumerate(vary):
        p, faults = f"{where}: vary[{i}]", bad.get(i, set())
        field, op, label = e.get("field"), e.get("op", "set"), e.get("label")
        if "field" not in faults:
            try:
                targets[i] = tuple(resolve_field(site, field))
            except InputError as exc:
                problems.append(f"{p}.field: {exc}")
            label = (field if op == "set" else f"{field}:{op}") if label is None else label
        src, wrong = _source(e), _source_problem(e, p, faults, problems)
        random = random or (src in _RANDOM and src not in faults and not wrong)
        if label is not None and "label" not in faults:
            if label in SUMMARY_COLUMNS:
                problems.append(f"{p}.label must not be a column of the summary "
                                f"({', '.join(SUMMARY_COLUMNS)}); got {label!r}")
            elif label in labels_seen:
                problems.append(f"{p}.label must be unique; got {label!r} twice (give "
                                "label = ...)")
            labels_seen.add(label)
        if (src in ("values", "choice") and src not in faults
                and all(isinstance(x, str) for x in e[src])
                and (op != "set" or i not in targets
                     or any(t.attr != "distribution" for t in targets[i]))):
            problems.append(f"{p}.{src} may hold text only for storms.distribution with "
                            f"op = \"set\"; got {e[src]!r}")
    return problems, targets, random


def _top_problems(doc: Mapping, where: str, site, random: bool) -> list[str]:
    """The top-level rules: storms of the base site; a seed and a sample count when random."""
    problems = []
    for s in doc.get("storms") or ():
        if s not in site.storms.depths_in:
            problems.append(f"{where}: storms must name storms of the base site; got {s!r}"
                            f"{suggest(s, site.storms.names)} Available: "
                            f"{', '.join(site.storms.names)}")
    if random and doc.get("seed") is None:
        problems.append(f"{where}: seed is required when a [[vary]] entry is random "
                        "(uniform, normal or choice); add seed = <integer>")
    samples = doc.get("samples")
    if isinstance(samples, int) and samples > MAX_SAMPLES:
        problems.append(f"{where}: samples must be at most {MAX_SAMPLES:,}; got {samples:,}")
    if random and doc.get("samples") is None:
        problems.append(f"{where}: samples is required when a [[vary]] entry is random; "
                        "add samples = <number of draws>")
    return problems


def parse_sweep(doc: Mapping, *, where: str = "sweep.toml",
                base_dir: pathlib.Path | str | None = None,
                path: pathlib.Path | None = None, site=None,
                lines: Mapping[str, int] | None = None) -> Sweep:
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
    lines : mapping, optional
        :func:`hydrocalc.input_file.key_lines` of the file's text: each problem then ends
        with the line of its key, `` (line n)``.

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
        raise InputError("\n".join(capped(_located(top, where, lines))))
    base_raw: str = doc["base"]
    bdir = pathlib.Path(base_dir) if base_dir is not None else pathlib.Path.cwd()
    try:  # a name with a NUL byte or longer than the file system allows is no file
        base_path = (bdir / base_raw).resolve() if not pathlib.Path(base_raw).is_absolute() \
            else pathlib.Path(base_raw)
        is_file = base_path.is_file()
    except (OSError, ValueError):
        is_file = False
    if site is None:
        if not is_file:
            raise InputError(f"{where}: base must be an existing site file (relative to the "
                             f"sweep file); got {excerpt(repr(base_raw), 80)}")
        site = load_site(base_path)
    vary = doc.get("vary", [])
    entry_problems, targets, random = _entry_problems(vary, where, site, bad)
    problems += entry_problems + _top_problems(doc, where, site, random)
    if problems:
        raise InputError("\n".join(capped(_located(problems, where, lines))))
    return _build(doc, vary, targets, where=where, path=path, base_path=base_path, site=site)


def _located(problems: list[str], where: str, lines: Mapping[str, int] | None) -> list[str]:
    """Each ``<where>: <key path> ...`` problem followed by the line of its key (or table)."""
    if not lines:
        return problems
    out = []
    for text in problems:
        head = f"{where}: "
        rest = text[len(head):] if text.startswith(head) else ""
        table, _, after = rest.partition(": unknown key ")  # <table>: unknown key <key>
        rest = rest[len("unknown key "):] if rest.startswith("unknown key ") else rest
        key = (f"{table}.{after.split(';', 1)[0].split(' ', 1)[0]}" if after and " " not in table
               else rest.split(" ", 1)[0].rstrip(":;"))
        suffix = line_suffix(dict(lines), key) if key else ""
        out.append(text if not suffix or text.endswith(")") and "(line " in text
                   else text + suffix)
    return out


def _build(doc: Mapping, vary: list, targets: dict, **sweep: Any) -> Sweep:
    """The :class:`Sweep` of a valid sweep document (its values expanded and drawn)."""
    combine, seed, samples = doc.get("combine", "grid"), doc.get("seed"), doc.get("samples")
    rng_spec: list = []
    entries = []
    for i, e in enumerate(vary):
        field, op, src = e["field"], e.get("op", "set"), cast(str, _source(e))
        entries.append((field, op, _values(e, src, rng_spec),
                        e.get("group", "random" if src in _RANDOM else f"#{i}"),
                        e.get("label", field if op == "set" else f"{field}:{op}"), targets[i],
                        src))
    variations = _variations(entries, _draws(rng_spec, seed, samples), combine)
    wrong = _group_problems(variations, combine, sweep["where"])
    if wrong:
        raise InputError("\n".join(capped(wrong)))  # about the whole file: no line
    path = sweep["path"]
    result = Sweep(name=doc.get("name", path.stem if path is not None else "sweep"),
                   variations=tuple(variations), combine=combine, seed=seed, samples=samples,
                   storms=tuple(doc["storms"]) if doc.get("storms") else None,
                   description=doc.get("description", ""), base=sweep["base_path"],
                   **{k: sweep[k] for k in ("path", "site", "where")})
    if result.n_scenarios > 10_000_000:
        raise InputError(f"{sweep['where']}: the sweep must have at most 10,000,000 scenarios; "
                         f"got {result.n_scenarios:,}. Use fewer values or random sampling")
    return result


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


def _variations(entries: list, draws: list, combine: str) -> list:
    """The :class:`Variation` of each entry (random values drawn; one group when zipped)."""
    variations = []
    for field, op, vals, group, label, targets, src in entries:
        if vals[0] == "random" and len(vals) == 2 and isinstance(vals[1], int) and src in _RANDOM:
            vals = draws[vals[1]]
        variations.append(Variation(field=field, op=op, values=tuple(vals),
                                    group="zip" if combine == "zip" else group,
                                    label=label, targets=targets, source=src))
    return variations


def _group_problems(variations: list, combine: str, where: str) -> list[str]:
    """The groups whose entries have different numbers of values."""
    sizes: dict[str, set] = {}
    for v in variations:
        sizes.setdefault(v.group, set()).add(len(v.values))
    problems = []
    for g, s in sizes.items():
        if len(s) > 1:
            what = "with combine = \"zip\", all entries" if combine == "zip" else \
                f"entries of group {g!r}"
            problems.append(f"{where}: {what} must have the same number of values; got "
                            f"{', '.join(str(n) for n in sorted(s))}")
    return problems


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
    got = read_toml_file(path, what="sweep file", deepest=3)
    p = got.path
    return parse_sweep(got.doc, where=p.name, base_dir=p.parent, path=p, site=site,
                       lines=key_lines(got.text))
