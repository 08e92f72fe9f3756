"""Validation of an input file against its declared model, as one record per key at fault.

:func:`field_errors` validates a parsed file (a mapping from TOML) with its model
(:mod:`hydrocalc.schema`), in one pass, and turns pydantic's ``ValidationError.errors()``
into :class:`FieldError` records that a loader writes as its one-line messages: the key's
path in the file (list indices kept, the internal union tags dropped), what is wrong
(an unknown key, a missing key, an unknown kind, a bad value), the value as written, the keys
or kinds that would be valid (for "did you mean"), and the field's declaration (its range and
the wording of its requirement, :class:`Says`). A field whose value breaks several rules (a
value that fits no branch of a union) gives one record.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ValidationError
from pydantic.fields import FieldInfo
from typing_extensions import TypeAliasType

__all__ = ["FieldError", "Says", "field_errors", "says", "choices", "requirement", "bounds",
           "under"]

#: pydantic error types that name a key the table does not declare, or a missing one.
_UNKNOWN = {"extra_forbidden"}
_MISSING = {"missing"}
_TAG = {"union_tag_invalid", "union_tag_not_found"}


class Says:
    """``Annotated[T, Says("must be ...")]``: the wording of a key's requirement in messages.

    The loaders' messages read ``<path> <requirement>; got <value>``; a key whose requirement
    is not written from its range alone (``"must be a non-negative integer"``) carries it here.
    It is not part of the JSON Schema.
    """

    def __init__(self, requirement: str) -> None:
        self.requirement = requirement

    def __repr__(self) -> str:
        return f"Says({self.requirement!r})"


@dataclass(frozen=True)
class FieldError:
    """One key at fault in an input file.

    Attributes
    ----------
    path : tuple of str and int
        The key's path in the file (``("outlet", 2, "length_ft")``).
    kind : {"unknown", "missing", "tag", "value"}
        An undeclared key, a required key not given, a table whose kind (``type``) is not one
        of its kinds, or a value that breaks the key's rules.
    value : object
        The value as written (None for a missing key).
    allowed : tuple of str
        The declared keys of the table (``unknown``) or its kinds (``tag``).
    info : pydantic.fields.FieldInfo or None
        The key's declaration (None for an unknown key or a kind).
    error : dict
        pydantic's first error record for the key (``type``, ``ctx``).
    metadata : tuple
        The constraints declared on the value (``annotated_types.Gt``..., :class:`Says`).
    declared : type
        The value's declared type (``float``, ``int``, ``str``, a model, ``list[...]``...).
    """

    path: tuple
    kind: str
    value: Any = None
    allowed: tuple = ()
    info: FieldInfo | None = None
    error: dict = field(default_factory=dict)
    metadata: tuple = ()
    declared: Any = None

    @property
    def key(self) -> str:
        """The key's own name (the last name of its path)."""
        return next((str(p) for p in reversed(self.path) if isinstance(p, str)), "")

    @property
    def table(self) -> tuple:
        """The path of the table that holds the key."""
        return self.path[:-1]


def says(info: FieldInfo | None) -> str | None:
    """The requirement a field declares with :class:`Says`, or None."""
    if info is None:
        return None
    found = [m for m in info.metadata if isinstance(m, Says)]
    tp: Any = info.annotation
    if typing.get_origin(tp) in (typing.Union, types.UnionType):  # Annotated[T, Says] | None
        tp = next((a for a in typing.get_args(tp) if a is not type(None)), tp)
    while typing.get_origin(tp) is typing.Annotated:
        found += [m for m in tp.__metadata__ if isinstance(m, Says)]
        tp = typing.get_args(tp)[0]
    return found[0].requirement if found else None


def choices(info: FieldInfo | None) -> tuple:
    """The values of a key declared as a ``Literal`` (empty for any other key)."""
    return _literal(info.annotation if info is not None else None)


def _literal(tp: Any) -> tuple:
    tp = _unwrap(tp)
    return typing.get_args(tp) if typing.get_origin(tp) is typing.Literal else ()


def requirement(e: FieldError) -> str:
    """What a key at fault must be, for ``<path> <requirement>; got <value>``.

    The key's :class:`Says` wording, else ``must be one of a, b, c`` for a choice, else the
    rule pydantic names (``is required``, ``must be >= 0``...).
    """
    text = says(e.info)
    if text:
        return text
    options = choices(e.info)
    if options:
        return f"must be one of {', '.join(map(str, options))}"
    return "is required" if e.kind == "missing" else f"is not valid ({e.error.get('msg', '')})"


def bounds(e: FieldError) -> dict:
    """The declared range of a number.

    As ``lower``, ``upper``, ``lower_inclusive``, ``upper_inclusive`` (the keywords of the
    collectors' number checks).
    """
    out: dict = {}
    for m in e.metadata:
        for attr, key, inclusive in (("ge", "lower", True), ("gt", "lower", False),
                                     ("le", "upper", True), ("lt", "upper", False)):
            v = getattr(m, attr, None)
            if v is not None and type(m).__name__.lower() == attr:
                out[key] = float(v)
                out[f"{key}_inclusive"] = inclusive
    return out


def _unwrap(tp: Any) -> Any:
    """``tp`` without ``Annotated``, a named alias or ``None`` in a union."""
    while typing.get_origin(tp) is typing.Annotated or isinstance(tp, TypeAliasType):
        tp = tp.__value__ if isinstance(tp, TypeAliasType) else typing.get_args(tp)[0]
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        if len(args) == 1:
            return _unwrap(args[0])
    return tp


def _is_model(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, BaseModel)


def _model_fields(model: type[BaseModel]) -> dict[str, FieldInfo]:
    return {(info.alias or name): info for name, info in model.model_fields.items()}


def _branch(tp: Any, tag: str) -> Any:
    """The branch of a tagged union whose tag is ``tag``, or None.

    A model whose ``Literal`` key holds ``tag``, or a branch named by ``Tag(tag)`` (a union
    with a callable ``Discriminator``).
    """
    if typing.get_origin(tp) not in (typing.Union, types.UnionType):
        return None
    for arg in typing.get_args(tp):
        if typing.get_origin(arg) is typing.Annotated and any(
                getattr(m, "tag", None) == tag for m in arg.__metadata__):
            return arg
        arg = _unwrap(arg)
        if _is_model(arg):
            for info in arg.model_fields.values():
                if tag in typing.get_args(_unwrap(info.annotation)):
                    return arg
    return None


def _holds_tables(tp: Any) -> bool:
    """True for a model or a union of models (a list of them is an array of tables)."""
    tp = _unwrap(tp)
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        return all(_is_model(_unwrap(a)) for a in typing.get_args(tp))
    return _is_model(tp)


def _metadata(tp: Any) -> list:
    """The ``Annotated`` metadata of ``tp`` (through ``T | None``), outermost first."""
    out: list = []
    if typing.get_origin(tp) in (typing.Union, types.UnionType):
        args = [a for a in typing.get_args(tp) if a is not type(None)]
        tp = args[0] if len(args) == 1 else tp
    while typing.get_origin(tp) is typing.Annotated:
        for m in tp.__metadata__:  # Field(ge=...) inside Annotated holds its constraints
            out += list(m.metadata) if isinstance(m, FieldInfo) else [m]
        tp = typing.get_args(tp)[0]
    return out


def _locate(model: type[BaseModel], loc: tuple, data: Any) -> tuple:
    """Walk ``loc`` through the model and the file.

    Returns (file path, FieldInfo, declared keys of the table, value as written, the
    constraints of the value's declaration, its type).
    """
    tp: Any = model
    path: list = []
    info: FieldInfo | None = None
    keys: tuple = tuple(_model_fields(model))
    value = data
    meta: list = []
    dict_tp: Any = dict
    for part in loc:
        tp = _unwrap(tp)
        if (isinstance(part, int) and typing.get_origin(tp) is list
                and _holds_tables(typing.get_args(tp)[0])):
            path.append(part)
            value = value[part] if isinstance(value, list) and part < len(value) else None
            tp, meta = typing.get_args(tp)[0], []
        elif _is_model(tp) and isinstance(part, str):
            fields = _model_fields(tp)
            keys = tuple(fields)
            path.append(part)
            value = value.get(part) if isinstance(value, Mapping) else None
            info = fields.get(part)
            if info is None:
                break
            tp = info.annotation
            meta = list(info.metadata) + _metadata(tp)
        elif part == "[key]" and typing.get_origin(tp) is not dict and path:
            key_tp = typing.get_args(dict_tp)[0]
            value, tp, meta = path[-1], key_tp, _metadata(key_tp)  # the key is at fault
        elif isinstance(part, str) and typing.get_origin(tp) is dict:
            dict_tp = tp
            path.append(part)
            value = value.get(part) if isinstance(value, Mapping) else None
            tp = typing.get_args(tp)[1]
            meta = _metadata(tp)
        elif isinstance(part, str) and _branch(tp, part) is not None:
            tp = _branch(tp, part)
            meta += _metadata(tp)  # the constraints declared on the branch itself
        else:
            break  # inside a value (a union's branch, a list's element): the key is at fault
    return tuple(path), info, keys, value, tuple(meta), _unwrap(tp)


def field_errors(model: type[BaseModel], data: Any) -> list[FieldError]:
    """Validate ``data`` with ``model``; one :class:`FieldError` per key at fault.

    Parameters
    ----------
    model : type of pydantic.BaseModel
        The model of the whole file (:mod:`hydrocalc.schema`).
    data : mapping
        The parsed file.

    Returns
    -------
    list of FieldError
        In pydantic's order (declared keys in order, then undeclared ones, table by table);
        empty when the file is valid.
    """
    try:
        model.model_validate(data)
    except ValidationError as exc:
        records = exc.errors(include_url=False)
    else:
        return []
    out: list[FieldError] = []
    seen: set = set()
    for err in records:
        loc = tuple(err["loc"])
        etype = err["type"]
        path, info, keys, value, meta, declared = _locate(model, loc, data)
        if etype in _UNKNOWN:
            kind, allowed = "unknown", keys
        elif etype in _MISSING:
            kind, allowed, value = "missing", (), None
        elif etype in _TAG:
            kind = "tag"
            expected = (err.get("ctx") or {}).get("expected_tags", "")
            allowed = tuple(t.strip().strip("'") for t in expected.split(",") if t.strip())
            value = err["input"].get("type") if isinstance(err["input"], Mapping) else None
            if not allowed:  # the tags of the union at fault (or of the key's declaration)
                allowed = _tags(declared) or (_tags(info.annotation) if info is not None else ())
        else:
            kind, allowed = "value", ()
            if path and isinstance(path[-1], int):  # an element that is not a table
                path = path[:-1]
                value = _value_at(data, path)
        if (path, kind) in seen:
            continue
        seen.add((path, kind))
        out.append(FieldError(path, kind, value, allowed, info if kind != "unknown" else None,
                              dict(err), meta, declared))
    return out


def under(errors: list[FieldError], prefix: tuple) -> list[FieldError]:
    """The records of ``errors`` whose key lies in the table at ``prefix`` (or is it).

    ``under(errors, ("post", "pond", 2))`` are the problems of the third post pond.
    """
    n = len(prefix)
    return [e for e in errors if e.path[:n] == tuple(prefix)]


def _value_at(data: Any, path: tuple) -> Any:
    """The value at ``path`` of the parsed file (None when absent)."""
    for part in path:
        if isinstance(part, int):
            data = data[part] if isinstance(data, list) and part < len(data) else None
        else:
            data = data.get(part) if isinstance(data, Mapping) else None
    return data


def _tags(tp: Any) -> tuple:
    """The tags of a tagged union (the ``Literal`` values of its branches' ``type``)."""
    tp = _unwrap(tp)
    if typing.get_origin(tp) is list:
        tp = _unwrap(typing.get_args(tp)[0])
    tags: list = []
    for arg in typing.get_args(tp):
        arg = _unwrap(arg)
        if _is_model(arg) and "type" in arg.model_fields:
            tags.extend(typing.get_args(_unwrap(arg.model_fields["type"].annotation)))
    return tuple(tags)
