"""The declared models of the input files and their published JSON Schemas.

Each input file (the site file, the sweep file, the pond file) is declared once as a tree of
pydantic models, beside the layer that reads it: :mod:`hydrocalc.site.schema`,
:mod:`hydrocalc.batch.sweep.schema` and :mod:`hydrocalc.hydraulics.pond_schema`. This
foundation module holds what they share: the base class (unknown keys forbidden), the
:func:`field` helper that writes a field's description with its unit and valid range, the
reusable field types (text, soil group, non-empty lists) and :func:`json_schema`, which turns
a model into a JSON Schema (draft 2020-12) that an editor (VS Code with Even Better TOML)
uses for completion, hover help and red underlines.

The schemas are generated once and shipped as package data (``hydrocalc/data/schema/``);
``hydrocalc schema site|sweep|pond`` prints them without importing pydantic, and
``tools/gen_schemas.py`` regenerates them (a test fails when they differ from the models).
The models are not imported by ``import hydrocalc``; the loaders import them to validate a
file and translate the errors into their one-line messages (:mod:`hydrocalc.schema_errors`).
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, StringConstraints
from pydantic.json_schema import GenerateJsonSchema
from pydantic_core import core_schema

__all__ = [
    "DRAFT_2020_12",
    "InputModel",
    "OneOf",
    "IsoDate",
    "field",
    "Text",
    "OptionalText",
    "Hsg",
    "json_schema",
    "described_share",
    "declared_range",
]

#: The ``$schema`` of every generated schema.
DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

# A text field: no control character but tab (see hydrocalc._validate.control_char), at
# most 1000 characters; ``Text`` must not be blank.
_NO_CONTROL = r"^[^\x00-\x08\x0a-\x1f\x7f-\x9f]*$"
_ANY = r"[^\x00-\x08\x0a-\x1f\x7f-\x9f]*"
_NOT_BLANK = rf"^{_ANY}[^\s\x00-\x1f\x7f-\x9f]{_ANY}$"
#: Non-blank text without control characters (names, sources, ids, file names).
Text = Annotated[str, StringConstraints(min_length=1, max_length=1000, pattern=_NOT_BLANK)]
#: Text that may be blank (optional echoes such as an address).
OptionalText = Annotated[str, StringConstraints(max_length=1000, pattern=_NO_CONTROL)]
#: A hydrologic soil group, A to D (case-insensitive, surrounding spaces ignored).
Hsg = Annotated[str, StringConstraints(pattern=r"^\s*[A-Da-d]\s*$")]


class InputModel(BaseModel):
    """Base of every table of an input file: unknown keys are errors, values are not coerced.

    Strict mode: a number given as text (``area_ac = "3"``) is refused, as the loaders refuse
    it; an integer is accepted where a number is expected.
    """

    model_config = ConfigDict(extra="forbid", strict=True, frozen=True, allow_inf_nan=False)


class OneOf:
    """``Annotated[str, OneOf(values)]``: one of values known when the model is built.

    For choices read from the shipped tables (culvert inlet codes, sediment criteria keys),
    which a ``Literal`` cannot name statically; the schema lists them as an ``enum``.
    """

    def __init__(self, values) -> None:
        self.values = tuple(values)

    def __get_pydantic_core_schema__(self, source, handler):  # noqa: D105 - pydantic's hook
        return core_schema.literal_schema(list(self.values))


class IsoDate:
    """``Annotated[date, IsoDate()]``: a TOML date, or the ISO text of one (``"2027-04-01"``).

    With ``time=True`` a local TOML date-time (no offset) or its ISO text is a value too.
    A date-time where only a date is expected, and text that is not an ISO date, are refused.
    The schema states a date (a date or date-time with ``time``).
    """

    def __init__(self, *, time: bool = False) -> None:
        self.time = time

    def _schemas(self, strict: bool) -> list:
        out: list[core_schema.CoreSchema] = [core_schema.date_schema(strict=strict)]
        if self.time:
            out.append(core_schema.datetime_schema(strict=strict, tz_constraint="naive"))
        return out

    def __get_pydantic_core_schema__(self, source, handler):  # noqa: D105 - pydantic's hook
        texts = (_ISO_DATE, _ISO_LOCAL_DATETIME)
        as_text = [core_schema.chain_schema([core_schema.str_schema(pattern=pattern), schema])
                   for pattern, schema in zip(texts, self._schemas(False), strict=False)]
        return core_schema.union_schema([*self._schemas(True), *as_text])

    def __get_pydantic_json_schema__(self, schema, handler):  # noqa: D105 - pydantic's hook
        strict = self._schemas(True)
        return handler(strict[0] if len(strict) == 1 else core_schema.union_schema(strict))


def declared_range(model: type[BaseModel], key: str) -> tuple[float | None, bool,
                                                               float | None, bool, bool]:
    """The valid range of a number key as ``model`` declares it.

    Parameters
    ----------
    model : type of pydantic.BaseModel
        An input model (:mod:`hydrocalc.site.schema`...).
    key : str
        One of its number keys.

    Returns
    -------
    tuple
        ``(lower, lower_inclusive, upper, upper_inclusive, integer)``; a bound is None when
        the key declares none, ``integer`` is True for a whole-number key.

    Raises
    ------
    KeyError
        When ``model`` declares no key ``key``.
    """
    info = model.model_fields[key]
    lower: float | None = None
    upper: float | None = None
    lower_inclusive = upper_inclusive = True
    for m in info.metadata:
        for attr in ("ge", "gt", "le", "lt"):
            v = getattr(m, attr, None)
            if v is not None and type(m).__name__.lower() == attr:
                if attr in ("ge", "gt"):
                    lower, lower_inclusive = float(v), attr == "ge"
                else:
                    upper, upper_inclusive = float(v), attr == "le"
    integer = info.annotation in (int, int | None)
    return lower, lower_inclusive, upper, upper_inclusive, integer


def _fmt(x: float) -> str:
    if abs(x) >= 10_000 and float(x).is_integer():
        return f"{x:,.0f}"
    return f"{x:g}"


def _range_text(ge=None, gt=None, le=None, lt=None) -> str:
    lo = (f"[{_fmt(ge)}" if ge is not None else f"({_fmt(gt)}" if gt is not None else None)
    hi = (f"{_fmt(le)}]" if le is not None else f"{_fmt(lt)})" if lt is not None else None)
    if lo and hi:
        return f"in {lo}, {hi}"
    if lo:
        return f">= {_fmt(ge)}" if ge is not None else f"> {_fmt(gt)}"
    if hi:
        return f"<= {_fmt(le)}" if le is not None else f"< {_fmt(lt)}"
    return ""


def field(description: str, unit: str | None = None, *, default: Any = None,
          ge: float | None = None, gt: float | None = None, le: float | None = None,
          lt: float | None = None, required: bool = False, alias: str | None = None,
          **kwargs: Any) -> Any:
    """A model field whose description states its unit and valid range.

    Parameters
    ----------
    description : str
        What the key is, one sentence.
    unit : str, optional
        The unit (also in the key's name), written ``[unit]`` after the description.
    default : optional
        The default value (None: the key is optional and has no default).
    ge, gt, le, lt : float, optional
        The valid range, declared in the schema and written in the description.
    required : bool, default False
        The key must be given.
    alias : str, optional
        The key's name in the file when it is not a Python identifier.
    **kwargs
        Passed to :func:`pydantic.Field` (``min_length``, ``max_length``, ``examples``...).

    Returns
    -------
    pydantic.fields.FieldInfo
    """
    text = description.rstrip(".")
    if unit:
        text += f" [{unit}]"
    rng = _range_text(ge, gt, le, lt)
    if rng:
        text += f"; {rng}"
    text += "."
    if required:
        return Field(..., description=text, ge=ge, gt=gt, le=le, lt=lt, alias=alias, **kwargs)
    return Field(default, description=text, ge=ge, gt=gt, le=le, lt=lt, alias=alias, **kwargs)


class _Generator(GenerateJsonSchema):
    """JSON Schema of an input file: TOML has no null, so optional keys are just optional."""

    def nullable_schema(self, schema):  # noqa: D102 - pydantic's hook
        return self.generate_inner(schema["schema"])

    def default_schema(self, schema):  # noqa: D102 - pydantic's hook
        out = super().default_schema(schema)
        if out.get("default", 0) is None:
            out.pop("default")
        return out

    # A TOML date is a value of its own type: an editor hands it to the schema as text
    # (ISO 8601), a TOML library as a date object. Both are accepted; any JSON value that
    # is not text (a number, a table...) is refused, and text must be an ISO date.
    def date_schema(self, schema):  # noqa: D102 - pydantic's hook
        return {"format": "date", "pattern": _ISO_DATE, "not": {"type": _NOT_DATES}}

    def datetime_schema(self, schema):  # noqa: D102 - pydantic's hook
        return {"format": "date-time", "pattern": _ISO_DATETIME, "not": {"type": _NOT_DATES}}


_ISO_DATE = r"^\d{4}-\d{2}-\d{2}$"
_ISO_LOCAL_DATETIME = r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$"
_ISO_DATETIME = r"^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?([Zz]|[+-]\d{2}:\d{2})?$"
#: JSON types a TOML date is never read as.
_NOT_DATES = ["number", "integer", "boolean", "array", "object", "null"]


def _clean(node: Any) -> Any:
    """Drop pydantic's generated titles of properties (the description says more)."""
    if isinstance(node, dict):
        out = {}
        for k, v in node.items():
            if k == "properties" and isinstance(v, dict):
                out[k] = {name: _clean(_drop_title(sub)) for name, sub in v.items()}
            else:
                out[k] = _clean(v)
        return out
    if isinstance(node, list):
        return [_clean(v) for v in node]
    return node


def _union_key(branches: list[dict]) -> str | None:
    """The key whose constant value tells the branches of a union apart, if any."""
    keys = [set(k for k, p in b.get("properties", {}).items() if "const" in p) for b in branches]
    common = set.union(*keys) if keys else set()
    for key in sorted(common):
        if sum(1 for b in branches if key not in b.get("required", ())) <= 1:
            return key
    return None


def _conditional(node: dict, defs: dict) -> dict:
    """A union of tables rewritten as if/then/else on its key, for editors.

    ``oneOf`` makes an editor report a bad value anywhere inside a subcatchment (or a Tc
    segment, an outlet) as "not valid under any of the schemas" on the whole table; chosen by
    its key (``type``, ``method``), the table's own rules apply and the editor underlines the
    key or value at fault. The union's keys are listed beside it
    (:func:`_merged_properties`) so that completion offers them all.
    """
    refs = [o["$ref"] for o in node["oneOf"]]
    branches = [defs[r.rsplit("/", 1)[1]] for r in refs]
    key = _union_key(branches)
    if key is None:
        return node
    consts = [b["properties"].get(key, {}).get("const") for b in branches]
    default = next((r for r, b in zip(refs, branches, strict=True)
                    if key not in b.get("required", ())), None)
    chain: dict = ({"$ref": default} if default else
                   {"required": [key], "properties": {key: {
                       "enum": consts, "description": f"Kind: one of {', '.join(consts)}."}}})
    for ref, const in reversed(list(zip(refs, consts, strict=True))):
        if ref != default:
            chain = {"if": {"properties": {key: {"const": const}}, "required": [key]},
                     "then": {"$ref": ref}, "else": chain}
    merged = _merged_properties(branches)
    merged[key] = {"enum": [c for c in consts if c is not None],
                   "description": merged[key]["description"]}
    rest = {k: v for k, v in node.items() if k not in ("oneOf", "discriminator")}
    closed = ({"additionalProperties": False}
              if all(b.get("additionalProperties") is False for b in branches) else {})
    return {**rest, "type": "object", "properties": merged, **closed, **chain}


def _merged_properties(branches: list[dict]) -> dict:
    """The keys of every branch: one schema where the branches agree, ``anyOf`` where not.

    Editors that read only draft-4 keywords (Taplo) complete and describe a union's keys
    from these; the branch chosen by ``if``/``then`` decides what is valid.
    """
    variants: dict[str, list] = {}
    for branch in branches:
        for name, prop in branch.get("properties", {}).items():
            bare = {k: v for k, v in prop.items() if k != "description"}
            seen = variants.setdefault(name, [])
            if bare not in seen:
                seen.append(bare)
    merged = {}
    for name, options in variants.items():
        text = next(b["properties"][name].get("description", "") for b in branches
                    if name in b.get("properties", {}))
        merged[name] = ({"description": text, **options[0]} if len(options) == 1
                        else {"description": text, "anyOf": options})
    return merged


def _conditionals(node: Any, defs: dict) -> Any:
    """Every ``oneOf`` of tables in ``node`` rewritten by :func:`_conditional`."""
    if isinstance(node, list):
        return [_conditionals(v, defs) for v in node]
    if not isinstance(node, dict):
        return node
    node = {k: _conditionals(v, defs) for k, v in node.items()}
    options = node.get("oneOf")
    if options and all(isinstance(o, dict) and set(o) == {"$ref"} for o in options):
        return _conditional(node, defs)
    return node


def _drop_title(node: Any) -> Any:
    if isinstance(node, dict) and "title" in node:
        return {k: v for k, v in node.items() if k != "title"}
    return node


def json_schema(model: type[BaseModel], *, title: str, description: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of an input file's model.

    Parameters
    ----------
    model : type of pydantic.BaseModel
        The model of the whole file.
    title, description : str
        The schema's title and description.

    Returns
    -------
    dict
        ``$schema``, ``title``, ``description`` first, then the model's schema (``$defs``
        with one entry per table, ``additionalProperties: false`` everywhere). No ``$id``:
        the file is named by a relative path or a URL, and a relative ``$id`` would make
        editors resolve the internal ``$ref`` against it (Taplo then refuses the schema).
    """
    body = _clean(model.model_json_schema(schema_generator=_Generator, by_alias=True))
    body = _conditionals(body, body.get("$defs", {}))
    body.pop("title", None)
    body.pop("description", None)
    return {"$schema": DRAFT_2020_12, "title": title, "description": description, **body}


def _properties(node: Any):
    """Every property schema of a JSON Schema (name, schema), depth first.

    The conditions of ``if`` are not properties of the file (they test a key's value).
    """
    if isinstance(node, dict):
        yield from (node.get("properties") or {}).items()
        for k, v in node.items():
            if k != "if":
                yield from _properties(v)
    elif isinstance(node, list):
        for v in node:
            yield from _properties(v)


def described_share(schema: dict[str, Any]) -> float:
    """The share of the properties of ``schema`` that carry a description, in [0, 1].

    Examples
    --------
    >>> described_share({"properties": {"a": {"description": "x"}, "b": {}}})
    0.5
    """
    props = list(_properties(schema))
    if not props:
        return 1.0
    return sum(1 for _, p in props if isinstance(p, dict) and p.get("description")) / len(props)

