"""The declared model of the pond file (:func:`hydrocalc.hydraulics.pond_file.load_pond`).

:class:`PondFile` states each key of a pond file (``name``, ``[storage]``, ``[[outlet]]``,
``[barrel]``), its unit and range; its JSON Schema is shipped as
``hydrocalc/data/schema/pond.schema.json`` (``hydrocalc schema pond``). Stages are measured
from the pond bottom (0). The rules between keys (exactly one storage form, a barrel for the
devices marked ``into_barrel``, inverts below the top) stay in the loader.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from hydrocalc.schema import InputModel, OptionalText, Text, field, json_schema

__all__ = ["PondFile", "pond_json_schema", "CircularOrificeShape", "RectangularOrificeShape",
           "RectangularWeirShape", "VNotchWeirShape", "BroadCrestedWeirShape", "RiserShape",
           "ExfiltrationShape"]

NonNegative = Annotated[float, Field(ge=0)]
_NAME = "Name of the device (printed in tables)"
_INTO = "The device discharges through the [barrel] (default false)"


class BasinStorage(InputModel):
    """``[storage.basin]``: a prismoidal basin or a vault."""

    bottom_length_ft: float = field("Bottom length", "ft", gt=0, required=True)
    bottom_width_ft: float = field("Bottom width", "ft", gt=0, required=True)
    depth_ft: float = field("Depth to the top", "ft", gt=0, required=True)
    side_slope_h_per_v: float | None = field("Side slope H:V (default 0, a box)", ge=0)
    porosity_frac: float | None = field("Porosity of a stone-filled basin (default 1)", gt=0,
                                        le=1)
    name: OptionalText | None = field("Name of the storage")
    datum_ft: float | None = field("Elevation of the bottom", "ft")


class DrywellStorage(InputModel):
    """``[storage.drywell]``: a leaching pool with its stone envelope."""

    diameter_ft: float = field("Inside diameter of the pool", "ft", gt=0, required=True)
    depth_ft: float = field("Effective depth of the pool", "ft", gt=0, required=True)
    stone_porosity_frac: float | None = field("Porosity of the stone (required with stone)",
                                              gt=0, le=1)
    stone_width_ft: float | None = field("Width of the stone annulus (default 0)", "ft", ge=0)
    stone_depth_below_ft: float | None = field("Depth of stone below the pool (default 0)",
                                               "ft", ge=0)
    wall_thickness_ft: float | None = field("Wall thickness (default 0)", "ft", ge=0)
    count: int | None = field("Identical drywells (default 1)", ge=1)
    name: OptionalText | None = field("Name of the storage")
    datum_ft: float | None = field("Elevation of the bottom", "ft")


class Storage(InputModel):
    """``[storage]``: exactly one of area_ft2, storage_ft3, [storage.basin], [storage.drywell]."""

    stage_ft: Annotated[list[NonNegative], Field(min_length=2)] | None = field(
        "Stages from 0, strictly increasing (with area_ft2 or storage_ft3)", "ft")
    area_ft2: Annotated[list[NonNegative], Field(min_length=2)] | None = field(
        "Surface area at each stage", "ft2")
    storage_ft3: Annotated[list[NonNegative], Field(min_length=2)] | None = field(
        "Storage at each stage", "ft3")
    method: Literal["conic", "average_end_area"] | None = field(
        "Volume between stages of area_ft2 (default conic)")
    basin: BasinStorage | None = field("A prismoidal basin")
    drywell: DrywellStorage | None = field("A drywell")


def _level(what: str) -> float:
    return field(f"{what}, a stage above the pond bottom", "ft", ge=0, required=True)


# The keys of each outlet device that the pond file and a site file's [[<scenario>.pond.outlet]]
# share: its type, size and coefficients. Each file adds its own identity keys and declares
# the device's level in its own stage frame (pond bottom here, site elevations there).
class CircularOrificeShape(InputModel):
    """The shared keys of ``type = "circular_orifice"``."""

    type: Literal["circular_orifice"] = field("Circular orifice", required=True)
    diameter_in: float = field("Diameter", "in", gt=0, required=True)
    cd: float | None = field("Discharge coefficient (default 0.6)", gt=0, le=1)


class RectangularOrificeShape(InputModel):
    """The shared keys of ``type = "rectangular_orifice"``."""

    type: Literal["rectangular_orifice"] = field("Rectangular orifice", required=True)
    width_in: float = field("Width", "in", gt=0, required=True)
    height_in: float = field("Height", "in", gt=0, required=True)
    cd: float | None = field("Discharge coefficient (default 0.6)", gt=0, le=1)


class RectangularWeirShape(InputModel):
    """The shared keys of ``type = "rectangular_weir"``."""

    type: Literal["rectangular_weir"] = field("Rectangular weir", required=True)
    length_ft: float = field("Crest length", "ft", gt=0, required=True)
    cw: float | None = field("Weir coefficient (default 3.33)", gt=0)
    end_contractions: int | None = field("End contractions (default 0)", ge=0)


class VNotchWeirShape(InputModel):
    """The shared keys of ``type = "vnotch_weir"``."""

    type: Literal["vnotch_weir"] = field("V-notch weir", required=True)
    angle_deg: float = field("Notch angle", "deg", gt=0, lt=180, required=True)
    cw: float | None = field("Weir coefficient (default 2.5)", gt=0)


class BroadCrestedWeirShape(InputModel):
    """The shared keys of ``type = "broad_crested_weir"``."""

    type: Literal["broad_crested_weir"] = field("Broad-crested weir", required=True)
    length_ft: float = field("Crest length", "ft", gt=0, required=True)
    cw: float | None = field("Weir coefficient (default 3.0)", gt=0)


class RiserShape(InputModel):
    """The shared keys of ``type = "riser"`` (a pipe riser: weir, then orifice flow)."""

    type: Literal["riser"] = field("Riser", required=True)
    diameter_in: float = field("Riser diameter", "in", gt=0, required=True)
    cw: float | None = field("Weir coefficient (default 3.33)", gt=0)
    cd: float | None = field("Orifice coefficient (default 0.6)", gt=0, le=1)


class ExfiltrationShape(InputModel):
    """The shared keys of ``type = "exfiltration"`` (flow to groundwater)."""

    type: Literal["exfiltration"] = field("Exfiltration", required=True)
    rate_in_hr: float = field("Design exfiltration rate", "in/h", gt=0, required=True)
    over: Literal["wetted", "surface", "bottom"] | None = field(
        "Area the rate applies over (default wetted)")


class _PondDevice(InputModel):
    """The identity keys of a device in a pond file."""

    name: Text | None = field(_NAME)
    into_barrel: bool | None = field(_INTO)


class CircularOrifice(CircularOrificeShape, _PondDevice):
    """``type = "circular_orifice"``."""

    invert_ft: float = _level("Invert")


class RectangularOrifice(RectangularOrificeShape, _PondDevice):
    """``type = "rectangular_orifice"``."""

    invert_ft: float = _level("Invert")


class RectangularWeir(RectangularWeirShape, _PondDevice):
    """``type = "rectangular_weir"``."""

    crest_ft: float = _level("Crest")


class VNotchWeir(VNotchWeirShape, _PondDevice):
    """``type = "vnotch_weir"``."""

    crest_ft: float = _level("Crest (notch bottom)")


class BroadCrestedWeir(BroadCrestedWeirShape, _PondDevice):
    """``type = "broad_crested_weir"``."""

    crest_ft: float = _level("Crest")


class Riser(RiserShape, _PondDevice):
    """``type = "riser"``."""

    crest_ft: float = _level("Rim")


class Exfiltration(ExfiltrationShape, _PondDevice):
    """``type = "exfiltration"``: flow to groundwater."""


Device = Annotated[CircularOrifice | RectangularOrifice | RectangularWeir | VNotchWeir
                   | BroadCrestedWeir | Riser | Exfiltration, Field(discriminator="type")]


class Barrel(InputModel):
    """``[barrel]``: the barrel the devices marked ``into_barrel`` discharge through."""

    diameter_in: float = field("Diameter", "in", gt=0, required=True)
    invert_ft: float = _level("Inlet invert")
    length_ft: float = field("Length", "ft", gt=0, required=True)
    slope_ftft: float = field("Slope", "ft/ft", gt=0, required=True)
    n: float | None = field("Manning's n (default 0.013)", gt=0)
    ke: float | None = field("Entrance loss coefficient (default 0.5)", ge=0)
    cd: float | None = field("Orifice coefficient (default 0.6)", gt=0, le=1)


class PondFile(InputModel):
    """A pond file: a stage-storage and its outlet devices."""

    name: OptionalText | None = field("Name of the pond")
    storage: Storage = field("The stage-storage", required=True)
    outlet: Annotated[list[Device], Field(min_length=1)] = field(
        "Outlet devices (at least one)", required=True)
    barrel: Barrel | None = field("A barrel the devices marked into_barrel discharge through")


def pond_json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of the pond file, as shipped in the package."""
    return json_schema(
        PondFile, title="hydrocalc pond file",
        description="A pond: stage-storage and outlet devices, stages from the pond bottom "
                    "(hydrocalc route, hydrocalc.hydraulics.load_pond).")
