"""The declared model of the site file (``site.toml``): every table, key, unit and range.

One pydantic model per table, with the unit in every key's name and in its description and
the valid range declared (``ge``/``gt``/``le``/``lt``); unknown keys are forbidden. The JSON
Schema generated from :class:`SiteFile` is shipped as ``hydrocalc/data/schema/site.schema.json``
(``hydrocalc schema site``); the examples name it in their first line (``#:schema``) so that
an editor completes keys, shows these descriptions and underlines values out of range.

The model states what each key may hold on its own. The loader (:func:`load_site`) validates
the file with it once and writes the problems of the tables it has moved onto the model
(``[project]``, ``[construction]``, ``[storms]``, ``[analysis]``, ``[criteria]`` with its
practices and redevelopment option, ``[checks]``, ``[confirmations]``, ``[rational]``,
``[report]``, the scenarios with their subcatchments, ponds, reaches and design points) in
its one-line messages. The rules between keys and
files (give ``area_ac`` or ``area_ft2``, not both; a pond's inverts below its top; the
network's links; the pre/post areas; the plausibility warnings) stay in the loader beside it,
which reports every problem with the file's line numbers.
:class:`~hydrocalc.schema_errors.Says` gives a key the wording of its requirement where the
range alone does not write it.
"""

from __future__ import annotations

import datetime as _dt
from typing import Annotated, Literal

from pydantic import Discriminator, Field, StringConstraints, Tag
from typing_extensions import TypeAliasType

from hydrocalc._validate import MAX_PROJECT_AREA_AC
from hydrocalc.construction.sediment.trap_criteria import criteria_keys
from hydrocalc.criteria.ny_editions import DESIGN_MANUAL_EDITIONS
from hydrocalc.criteria.profiles import PROFILE_KEYS as MUNICIPALITIES
from hydrocalc.criteria.profiles import PROJECT_TYPES
from hydrocalc.criteria.state_permit import permit_editions
from hydrocalc.hydraulics.outlets import culvert
from hydrocalc.hydraulics.pond_schema import (
    BroadCrestedWeirShape,
    CircularOrificeShape,
    ExfiltrationShape,
    RectangularOrificeShape,
    RectangularWeirShape,
    RiserShape,
    VNotchWeirShape,
)
from hydrocalc.schema import (
    Hsg,
    InputModel,
    IsoDate,
    OneOf,
    OptionalText,
    Text,
    field,
    json_schema,
)
from hydrocalc.schema_errors import Says
from hydrocalc.site.plausibility import ACCEPT_KEYS

__all__ = ["SiteFile", "site_json_schema"]

# A node id: starts with a letter or digit; letters, digits, ``_``, ``-``, ``.``.
_NodeId = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_.\-]*$",
                                          max_length=1000),
                    Says("must start with a letter or digit and contain only letters, digits, "
                         "'_', '-' or '.'")]
_StormName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9][A-Za-z0-9_\-]*$"),
                       Says("storm name must be letters, digits, '_' or '-' (e.g. \"10yr\")")]
Positive = Annotated[float, Field(gt=0)]
NonNegative = Annotated[float, Field(ge=0)]
Hsgs = Literal["A", "B", "C", "D"]
Criterion = Literal["wqv", "rrv", "cpv", "qp", "qf"]
RainfallType = Literal["I", "IA", "II", "III"]
# Non-blank text checked only for that ([confirmations], criteria.waived reasons).
_NonBlank = Annotated[str, StringConstraints(pattern=r"\S")]
Notebook = Annotated[str, StringConstraints(pattern=r"(?i)^\s*\S.*\.ipynb$", max_length=1000)]


#: A date as written in the file: a TOML date or its ISO text (a local date-time too for
#: ``_When``).
_DATE = Says("must be a date (YYYY-MM-DD, unquoted TOML date)")
_Date = Annotated[_dt.date, IsoDate(), _DATE]
_When = Annotated[_dt.date, IsoDate(time=True), _DATE]
#: A TR-55 rainfall distribution as written: I, IA, II or III, also ``Type II``, ``type_ii``...
_SEP = "(?:[ _-]|[Tt][Yy][Pp][Ee])*"
_RainfallTypeText = Annotated[str, StringConstraints(
    pattern=rf"^\s*{_SEP}[Ii](?:{_SEP}[Aa]|{_SEP}[Ii](?:{_SEP}[Ii])?)?{_SEP}\s*$"),
    Says("must be one of I, IA, II, III (TR-55 rainfall distribution)")]


def _id(what: str) -> Text:
    return field(f"Id of the {what}: starts with a letter or digit; letters, digits, '_', "
                 "'-', '.'; unique within the scenario", required=True)


def _to(what: str = "node") -> Text:
    return field(f"Id of the downstream pond, reach or design point this {what} drains to",
                 required=True)


_DESC = "Free text describing it (printed in the report)"

# -- [project] ------------------------------------------------------------------------------


class StatePermit(InputModel):
    """``[project.state_permit]``: NYS SPDES construction general permit facts."""

    edition: Annotated[str, OneOf(permit_editions())] | None = field(
        "The permit edition (never defaulted)")
    max_disturbed_at_one_time_ac: float | None = field(
        "Largest area of soil disturbed at any one time in the construction plan", "ac", ge=0)
    written_authorization: OptionalText | None = field(
        "Reference of the Department's written authorization to disturb more than 5 acres at "
        "one time")
    written_authorization_date: _Date | None = field(
        "Date of that written authorization (a TOML date, e.g. 2025-06-02)")
    nyc_east_of_hudson_watershed: bool | None = field(
        "Site in the NYC East-of-Hudson watershed (unknown when not given)")
    within_new_york_city: bool | None = field(
        "Site within New York City (unknown when not given)")


_MAX_AC = MAX_PROJECT_AREA_AC
_MAX_FT2 = _MAX_AC * 43_560.0


class Project(InputModel):
    """``[project]``: the project facts (required)."""

    name: Text = field("Project name (also the site name in results)", required=True)
    municipality: Annotated[str, OneOf(MUNICIPALITIES)] = field(
        "Municipality whose local law applies", required=True)
    receiving_water: Text = field("Receiving water body", required=True)
    drains_to_impaired_water: bool = field(
        "Drains to a 303(d)-listed or TMDL water", required=True)
    disturbed_area_ac: float | None = field(
        "Area of soil disturbance (or disturbed_area_ft2)", "ac", ge=0, le=_MAX_AC)
    disturbed_area_ft2: float | None = field(
        "Area of soil disturbance (or disturbed_area_ac)", "ft2", ge=0, le=_MAX_FT2)
    new_impervious_area_ft2: float | None = field(
        "New impervious area (or new_impervious_area_ac)", "ft2", ge=0, le=_MAX_FT2)
    new_impervious_area_ac: float | None = field(
        "New impervious area (or new_impervious_area_ft2)", "ac", ge=0, le=_MAX_AC)
    project_type: Annotated[str, OneOf(PROJECT_TYPES)] = field(
        "Kind of project", required=True)
    address: OptionalText | None = field("Site address, echoed in reports")
    tax_map: OptionalText | None = field("Tax map number, echoed in reports")
    owner: OptionalText | None = field("Owner, echoed in reports")
    preparer: OptionalText | None = field("Preparer of the SWPPP, echoed in reports")
    impairment: OptionalText | None = field("Impairment of the receiving water")
    part_of_larger_common_plan: bool | None = field(
        "Part of a larger common plan of development or sale (default false)")
    exemptions_claimed: Annotated[list[str], Says("must be a list of strings")] | None = field(
        "Exemption keys of the municipality's profile claimed for this project")
    exemption_approved_on: Annotated[dict[str, _Date], Says(
        "must be a table of exemption key = date, e.g. { approved_building_permit = "
        "2007-05-01 }")] | None = field(
        "Approval date of a date-dependent exemption, by exemption key, e.g. "
        "{ approved_building_permit = 2007-05-01 }")
    state_permit: StatePermit | None = field(
        "NYS SPDES construction-permit facts ([project.state_permit])")
    design_manual: Literal[DESIGN_MANUAL_EDITIONS] | None = field(  # type: ignore[valid-type]
        "NYS Stormwater Management Design Manual edition of the sizing criteria (quoted); "
        "read as \"2015\" with a warning when missing")
    design_manual_justification: Text | None = field(
        "Why the 2015 manual is used (only with design_manual = \"2015\")")


# -- [storms], [analysis], [report], [checks], [confirmations] ----------------------------


class Storms(InputModel):
    """``[storms]``: the design storms (required)."""

    file: Text | None = field(
        "Depth file (format hydrocalc-ddf-1) in a design_storms/ folder or the site's folder; "
        "its 24-hour row gives the storms \"1yr\" ... \"100yr\"")
    distribution: Annotated[Text, Says(
        "must be a known distribution (text): I, IA, II, III, NOAA_A..NOAA_D or "
        "NRCC_A..NRCC_D")] = field(
        "NRCS 24-hour rainfall distribution: I, IA, II, III, NOAA_A..NOAA_D, NRCC_A..NRCC_D "
        "(the spellings of hydrocalc.rainfall, e.g. \"type_iii\", are accepted)",
        examples=["III", "II", "NRCC_C", "NOAA_C"], required=True)
    depths_in: dict[_StormName, Annotated[float, Field(gt=0, le=72)]] | None = field(
        "24-hour depths by storm name, e.g. \"10yr\" = 5.0; each in (0, 72] (72 in is above "
        "the world-record 24-hour rainfall); required unless file is given", "in")
    use: Annotated[list[str], Says("must be a non-empty list of storm names")] | None = field(
        "Analyse only these storms, in this order", min_length=1)
    wqv_precip_in: float = field(
        "90 % rainfall event depth P for WQv (SMDM Figure 4.1)", "in", gt=0, required=True)
    wqv_precip_source: Text = field(
        "Where wqv_precip_in comes from (printed with WQv)", required=True)
    source: Text | None = field("Provenance of the depths (default: the depth file's source)")
    duration_hr: float | None = field("Storm duration (default 24)", "h", gt=0)
    rain_dt_hr: float | None = field("Time step of the hyetographs (default 0.1)", "h", gt=0)


class Analysis(InputModel):
    """``[analysis]``: computation options."""

    dt_hr: float | None = field(
        "Computation step = unit-hydrograph duration (default 0.01); <= 0.1714 Tc of every "
        "subcatchment", "h", gt=0, le=1)
    prf: float | None = field(
        "Peak rate factor of the NRCS unit hydrograph (default 484)", gt=0, le=700)
    ia_ratio: float | None = field("Initial abstraction ratio Ia/S (default 0.2)", ge=0, le=1)
    duration_hr: float | None = field(
        "Simulated time (default: automatic, at least 2 x the storm with ponds)", "h", gt=0)


class Report(InputModel):
    """``[report]``: the engineer's own report sections and the notebooks' time limit."""

    extra_sections: Annotated[list[Notebook], Says(
        "must be a list of at most 50 notebook paths (.ipynb) relative to the site file "
        "(e.g. [\"sections/peak_check.ipynb\"])")] | None = field(
        "Notebooks (.ipynb) of your own, relative to the site file's folder, executed after "
        "the standard sections in this order; at most 50, each once", max_length=50)
    notebook_timeout_s: float | None = field(
        "Longest time one section notebook may run (default 120)", "s", gt=0, le=86_400)


class Checks(InputModel):
    """``[checks]``: plausibility settings."""

    area_tolerance_pct: float | None = field(
        "Allowed difference of the pre and post total areas (default 1)", "%", ge=0, le=100)
    accept: Annotated[list[Literal[ACCEPT_KEYS]],  # type: ignore[valid-type]
                      Says("must be a list of warning keys")] | None = field(
        "Plausibility warnings accepted deliberately (not raised)")


_CONFIRM = "Source the preparer checked this value against (non-empty text)"


class Confirmations(InputModel):
    """``[confirmations]``: item = the source the value was checked against.

    Other item keys (``criterion_<criterion>``, ``trap_criteria_<key>``) are accepted; a key
    that names no item is a warning of ``hydrocalc check``, not an error.
    """

    model_config = {"extra": "allow"}
    __pydantic_extra__: dict[str, _NonBlank]  # other items: non-blank text as well

    storm_depths: _NonBlank | None = field(f"{_CONFIRM}: the design-storm depths")
    wqv_precip_in: _NonBlank | None = field(f"{_CONFIRM}: the 90 % rainfall depth")
    rrv_factors: _NonBlank | None = field(f"{_CONFIRM}: the RRv specific reduction factors")
    regulation_profile: _NonBlank | None = field(f"{_CONFIRM}: the municipality's profile")
    design_manual: _NonBlank | None = field(f"{_CONFIRM}: the design-manual edition")
    sediment_traps: _NonBlank | None = field(
        "Why no sediment trap is needed (a statement; the item is then not applicable)")
    criterion_rrv: _NonBlank | None = field(f"{_CONFIRM}: the minimum-RRv criterion")


# -- [criteria] ----------------------------------------------------------------------------
_HsgKey = Annotated[Hsgs, Says("HSG must be one of A, B, C, D")]


class _Practice(InputModel):
    """``[[criteria.practice]]``: a runoff-reduction practice credited to WQv and RRv.

    The keys every kind shares; each kind below adds its geometry (all required but a
    bioretention's or rain garden's stone layer) and allows no other key.
    """

    id: Text = field("Id of the practice, unique among the practices", required=True)
    kind: str = field("Kind of practice", required=True)
    description: Text | None = field(_DESC)
    drainage_area_ft2: float = field("Area draining to the practice", "ft2", gt=0,
                                     required=True)
    drainage_impervious_ft2: float = field("Impervious part of the drainage area", "ft2", ge=0,
                                           required=True)
    rrv_credit_fraction: float = field(
        "Share of the captured volume credited as RRv (never defaulted)", ge=0, le=1,
        required=True)
    rrv_credit_source: Text = field(
        "Manual section the RRv credit comes from", required=True)
    infiltration_rate_in_hr: float | None = field(
        "Tested design infiltration rate (required for infiltrating practices)", "in/h", gt=0)
    underdrain: bool | None = field(
        "Drains by an underdrain (no infiltration check; default false)")
    max_drain_down_hr: float | None = field(
        "Longest allowed drain-down (infiltrating practices and cisterns)", "h", gt=0)
    max_drain_down_source: Text | None = field("Source of max_drain_down_hr")
    void_ratio_source: Text | None = field("Where the void ratios come from")
    min_flow_path_source: Text | None = field(
        "Source of the minimum disconnection flow path (rooftop_disconnection)")


def _dim(description: str, unit: str | None = None, *, ge: float | None = None,
         le: float | None = None, required: bool = True):
    """A dimension of a practice: > 0 unless ``ge`` is given."""
    return field(description, unit, gt=None if ge is not None else 0, ge=ge, le=le,
                 required=required)


class Bioretention(_Practice):
    """A bioretention area: ponding over soil media, an optional stone layer."""

    kind: Literal["bioretention"] = field("Kind of practice", required=True)
    area_ft2: float = _dim("Surface area of the practice", "ft2")
    ponding_depth_ft: float = _dim("Ponding depth", "ft")
    media_depth_ft: float = _dim("Depth of the soil media", "ft")
    media_void_ratio: float = _dim("Void ratio of the soil media", le=1)
    stone_depth_ft: float | None = _dim("Depth of the stone reservoir", "ft", required=False)
    stone_void_ratio: float | None = _dim("Void ratio of the stone", le=1, required=False)


class RainGarden(Bioretention):
    """A rain garden: the layers of a bioretention area."""

    kind: Literal["rain_garden"] = field("Kind of practice", required=True)  # type: ignore[assignment]


class PorousPavement(_Practice):
    """Porous pavement over a stone reservoir."""

    kind: Literal["porous_pavement"] = field("Kind of practice", required=True)
    area_ft2: float = _dim("Surface area of the practice", "ft2")
    stone_depth_ft: float = _dim("Depth of the stone reservoir", "ft")
    stone_void_ratio: float = _dim("Void ratio of the stone", le=1)


class InfiltrationTrench(_Practice):
    """An infiltration trench filled with stone."""

    kind: Literal["infiltration_trench"] = field("Kind of practice", required=True)
    length_ft: float = _dim("Length of the trench or dry well", "ft")
    width_ft: float = _dim("Width of the trench or dry well", "ft")
    depth_ft: float = _dim("Depth of the trench or dry well", "ft")
    stone_void_ratio: float = _dim("Void ratio of the stone", le=1)


class DryWell(InfiltrationTrench):
    """A dry well: the geometry of an infiltration trench."""

    kind: Literal["dry_well"] = field("Kind of practice", required=True)  # type: ignore[assignment]


class GreenRoof(_Practice):
    """A green roof: water held by its media."""

    kind: Literal["green_roof"] = field("Kind of practice", required=True)
    area_ft2: float = _dim("Surface area of the practice", "ft2")
    media_depth_ft: float = _dim("Depth of the soil media", "ft")
    media_void_ratio: float = _dim("Void ratio of the soil media", le=1)


class Cistern(_Practice):
    """A cistern (rain tank) emptied by water use."""

    kind: Literal["cistern"] = field("Kind of practice", required=True)
    volume_gal: float = _dim("Cistern volume", "gal")
    demand_gal_per_day: float = _dim("Cistern water demand", "gal/d")


class RooftopDisconnection(_Practice):
    """A roof disconnected over pervious area: its roof is its drainage area."""

    kind: Literal["rooftop_disconnection"] = field("Kind of practice", required=True)
    drainage_area_ft2: float | None = field(  # type: ignore[assignment]
        "Not given: the roof area is the drainage area", "ft2", gt=0)
    drainage_impervious_ft2: float | None = field(  # type: ignore[assignment]
        "Not given: the roof area is the impervious area", "ft2", ge=0)
    roof_area_ft2: float = _dim("Disconnected roof area", "ft2")
    flow_path_length_ft: float = _dim("Length of the flow path over pervious area", "ft")
    min_flow_path_length_ft: float = _dim("Minimum flow path length cited from the manual",
                                          "ft")


class VegetatedSwale(_Practice):
    """A vegetated swale with check dams."""

    kind: Literal["vegetated_swale"] = field("Kind of practice", required=True)
    length_ft: float = _dim("Length of the swale", "ft")
    bottom_width_ft: float = _dim("Bottom width of the swale", "ft")
    side_slope_h_per_v: float = _dim("Side slope of the swale (H:V)", ge=0)
    check_dam_height_ft: float = _dim("Height of each check dam", "ft")
    check_dam_spacing_ft: float = _dim("Spacing of the check dams", "ft")
    slope_ftft: float = _dim("Longitudinal slope of the swale", "ft/ft", ge=0)


#: ``[[criteria.practice]]``: one of the kinds, told apart by ``kind``.
Practice = TypeAliasType("Practice", Annotated[
    Bioretention | RainGarden | PorousPavement | InfiltrationTrench | DryWell | GreenRoof
    | Cistern | RooftopDisconnection | VegetatedSwale, Field(discriminator="kind")])


class Redevelopment(InputModel):
    """``[criteria.redevelopment]``: the SMDM Chapter 9 redevelopment option."""

    option: Literal["impervious_reduction", "standard_practices", "alternative_practices"] = \
        field("Chapter 9 option", required=True)
    redeveloped_area_ac: float = field("Redeveloped area", "ac", gt=0, required=True)
    existing_impervious_ac: float = field(
        "Existing impervious area of the redeveloped area", "ac", ge=0, required=True)
    fraction: float | None = field("Share of the WQv treated under the option", gt=0, le=1)
    fraction_source: Text | None = field("Source of fraction")
    impervious_after_ac: float | None = field(
        "Impervious area after redevelopment (impervious_reduction)", "ac", ge=0)
    alternative_treated_acft: float | None = field(
        "Volume treated by alternative practices (alternative_practices)", "acre-ft", ge=0)
    alternative_practice_note: OptionalText | None = field(
        "The alternative practices (alternative_practices)")


class Criteria(InputModel):
    """``[criteria]``: NY SMDM unified sizing-criteria settings."""

    standard: Literal["ny_smdm", "none"] | None = field(
        "\"ny_smdm\" evaluates WQv, RRv, Cpv, Qp, Qf; \"none\" skips them (default ny_smdm)")
    cpv_storm: Text | None = field("Storm of the Cpv criterion (default \"1yr\")")
    qp_storm: Text | None = field("Storm of the Qp criterion (default \"10yr\")")
    qf_storm: Text | None = field("Storm of the Qf criterion (default \"100yr\")")
    min_rv_rule: Literal["if_wqv_exceeds_rrv", "always", "never"] | None = field(
        "When the minimum Rv = 0.2 applies (default if_wqv_exceeds_rrv)")
    rrv_factors: Text | None = field(
        "Key of the table ny_rrv_specific_reduction_factors (default smdm_2015_unverified)")
    rrv_specific_reduction_factor: dict[_HsgKey, Annotated[float, Field(ge=0, le=1)]] | None = \
        field("Your own specific reduction factors S by HSG, each in [0, 1]")
    new_impervious_ac_by_hsg: dict[_HsgKey, NonNegative] | None = field(
        "New impervious cover by HSG for the minimum RRv (default: computed)", "ac")
    wqv_area_ac: float | None = field("Area A for WQv (with wqv_impervious_ac)", "ac", gt=0)
    wqv_impervious_ac: float | None = field(
        "Impervious area for WQv (with wqv_area_ac)", "ac", ge=0)
    wqv_provided_acft: float | None = field(
        "WQv treated by practices not modelled as ponds (default 0)", "acre-ft", ge=0)
    wqv_provided_note: Text | None = field("The practices providing wqv_provided_acft")
    rrv_provided_acft: float | None = field(
        "RRv of practices not modelled as ponds (default 0)", "acre-ft", ge=0)
    rrv_provided_note: Text | None = field("The practices providing rrv_provided_acft")
    cpv_detention_hr: float | None = field("Extended-detention time (default 24)", "h", gt=0)
    cpv_rainfall_type: RainfallType | None = field(
        "TR-55 Table F-2 curve for the Cpv storage (default: from the distribution)")
    cpv_orifice_cd: float | None = field(
        "Discharge coefficient of the Cpv orifice (default 0.6)", gt=0, le=1)
    cpv_orifice_head_ft: float | None = field(
        "Head for the Cpv orifice (default: from the controlling pond)", "ft", gt=0)
    waived: dict[Criterion, Annotated[_NonBlank, Says("must be the reason for the waiver "
                                                      "(text)")]] | None = field(
        "Criteria waived and why, e.g. { cpv = \"reason\" }")
    practice: Annotated[list[Practice], Says("must be an array of tables "
                                             "([[criteria.practice]])")] | None = field(
        "Runoff-reduction practices ([[criteria.practice]])")
    redevelopment: Redevelopment | None = field(
        "SMDM Chapter 9 redevelopment option ([criteria.redevelopment])")


# -- [rational] -------------------------------------------------------------------------------


class IdfCoefficients(InputModel):
    """``[rational.idf.<storm>]``: i = b / (Tc_min + d)^e."""

    b: float = field("Coefficient b of i = b / (Tc_min + d)^e", gt=0, le=100_000,
                     required=True)
    d: float = field("Coefficient d (minutes)", "min", ge=0, le=1000, required=True)
    e: float = field("Exponent e", gt=0, le=2, required=True)


class Rational(InputModel):
    """``[rational]``: the intensity source of the rational method (exactly one)."""

    pfds_csv: Text | None = field("A NOAA Atlas 14 PFDS depth CSV (relative to the site file)")
    depth_file: Text | None = field("A design_storms depth file whose durations cover every Tc")
    idf: Annotated[dict[str, Annotated[IdfCoefficients, Says("must be a table with b, d, e")]],
                   Says("must be a table of storms, each with b, d, e")] | None = field(
        "IDF coefficients by storm name")
    idf_source: Text | None = field("Source of the IDF coefficients (required with idf)")
    return_periods_yr: dict[str, Positive] | None = field(
        "Return period of each storm not named \"<T>yr\"", "yr")


# -- scenarios: subcatchments ---------------------------------------------------------------


class Cover(InputModel):
    """``[[<scenario>.subcatchment.cover]]``: a land cover of the pervious part (TR-55)."""

    cover: Text = field("Cover key of the TR-55 tables (e.g. open_space_good, woods_fair)",
                        required=True)
    hsg: Hsg = field("Hydrologic soil group A-D (case-insensitive)", required=True)
    area_ac: float | None = field("Area of this cover (or area_ft2)", "ac", gt=0)
    area_ft2: float | None = field("Area of this cover (or area_ac)", "ft2", gt=0)
    condition: Text | None = field("\"poor\", \"fair\" or \"good\" for a key without it")
    cn: float | None = field("Curve number overriding the table's", gt=0, le=100)


class SheetSegment(InputModel):
    """A sheet-flow Tc segment (TR-55 Eq. 3-3)."""

    type: Literal["sheet"] = field("Flow regime", required=True)
    length_ft: float = field("Flow length (<= 100 ft unless max_length_ft)", "ft", gt=0,
                             required=True)
    slope_ftft: float = field("Slope", "ft/ft", gt=0, le=1, required=True)
    n: float | None = field("Manning's n (or surface)", gt=0, le=1)
    surface: Text | None = field("TR-55 Table 3-1 surface key (or n), e.g. grass_dense")
    p2_in: float | None = field("2-year 24-hour rainfall (default: the \"2yr\" storm)", "in",
                                gt=0)
    max_length_ft: float | None = field("Sheet-flow length limit (300 for TR-55 1986)", "ft",
                                        gt=0)


class ShallowSegment(InputModel):
    """A shallow concentrated flow Tc segment (TR-55 Figure 3-1)."""

    type: Literal["shallow"] = field("Flow regime", required=True)
    length_ft: float = field("Flow length", "ft", gt=0, required=True)
    slope_ftft: float = field("Slope", "ft/ft", gt=0, le=1, required=True)
    surface: Literal["unpaved", "paved"] = field("Surface", required=True)


class ChannelSegment(InputModel):
    """A channel-flow Tc segment (Manning)."""

    type: Literal["channel"] = field("Flow regime", required=True)
    length_ft: float = field("Flow length", "ft", gt=0, required=True)
    slope_ftft: float = field("Slope", "ft/ft", gt=0, le=1, required=True)
    n: float = field("Manning's n", gt=0, le=1, required=True)
    area_ft2: float = field("Flow area", "ft2", gt=0, required=True)
    wetted_perimeter_ft: float = field("Wetted perimeter", "ft", gt=0, required=True)


TcSegment = Annotated[SheetSegment | ShallowSegment | ChannelSegment,
                      Field(discriminator="type")]


class Subcatchment(InputModel):
    """``[[<scenario>.subcatchment]]`` computed by TR-55 (``method`` absent or ``"tr55"``)."""

    id: _NodeId = _id("subcatchment")
    to: Text = _to("subcatchment")
    method: Annotated[Literal["tr55"], Says("must be one of tr55, rational")] | None = field(
        "Method (default tr55)")
    description: Text | None = field(_DESC)
    area_ac: float | None = field("Drainage area (or area_ft2)", "ac", gt=0)
    area_ft2: float | None = field("Drainage area (or area_ac)", "ft2", gt=0)
    cn: float | None = field("Composite curve number (or cover rows)", gt=0, le=100)
    cover: list[Cover] | None = field("Land covers of the pervious part")
    tc_hr: float | None = field("Time of concentration (or tc_segment rows)", "h", gt=0,
                                le=100)
    tc_segment: list[TcSegment] | None = field("Flow-path segments, in flow order")
    impervious_connected_ac: float | None = field(
        "Directly connected impervious area, CN 98", "ac", ge=0)
    impervious_connected_ft2: float | None = field(
        "Directly connected impervious area, CN 98", "ft2", ge=0)
    impervious_unconnected_ac: float | None = field(
        "Impervious area draining over pervious area", "ac", ge=0)
    impervious_unconnected_ft2: float | None = field(
        "Impervious area draining over pervious area", "ft2", ge=0)
    impervious_hsg: Hsg | None = field(
        "Soil group under the impervious area (for the minimum RRv)")


class RationalCover(InputModel):
    """``[[...subcatchment.cover]]`` of a rational subcatchment: a C of HEC-22 Table 3-1."""

    cover: Text = field("Key of rational_runoff_coefficients (HEC-22 Table 3-1)",
                        required=True)
    c: float = field("Runoff coefficient within that key's range", gt=0, le=1, required=True)
    area_ac: float | None = field("Area (or area_ft2)", "ac", gt=0)
    area_ft2: float | None = field("Area (or area_ac)", "ft2", gt=0)


class RationalSubcatchment(InputModel):
    """``[[<scenario>.subcatchment]]`` with ``method = "rational"``."""

    id: _NodeId = _id("subcatchment")
    to: Text = _to("subcatchment")
    description: Text | None = field(_DESC)
    method: Literal["rational"] = field("The rational method", required=True)
    c: float | None = field("Runoff coefficient, never defaulted (or cover rows)", gt=0, le=1)
    cover: Annotated[list[RationalCover], Says(
        "must be an array of tables ([[<scenario>.subcatchment.cover]])")] | None = field(
        "Covers for a composite C")
    area_ac: float | None = field("Drainage area (or area_ft2)", "ac", gt=0)
    area_ft2: float | None = field("Drainage area (or area_ac)", "ft2", gt=0)
    tc_hr: float | None = field("Time of concentration (or tc_segment rows)", "h", gt=0,
                                le=100)
    tc_segment: Annotated[list[TcSegment], Says(
        "must be an array of tables ([[<scenario>.subcatchment.tc_segment]])")] | None = field(
        "Flow-path segments, in flow order")


# -- scenarios: ponds -----------------------------------------------------------------------

_LEVEL = ("a stage above the pond bottom, or an elevation when the pond is in elevations "
          "(bottom_elevation_ft or elevation_ft rows)")
Stages = Annotated[list[NonNegative], Field(min_length=2)]
Levels = Annotated[list[float], Field(min_length=2)]


class StageArea(InputModel):
    """A storage item of ``type = "stage_area"``: areas by stage (or elevation, or a CSV)."""

    type: Literal["stage_area"] = field("Stage-area table", required=True)
    stage_ft: Stages | None = field("Stages from 0, strictly increasing", "ft")
    elevation_ft: Levels | None = field("Elevations from the bottom up (instead of stage_ft)",
                                        "ft")
    area_ft2: Stages | None = field("Surface area at each stage", "ft2")
    csv: Text | None = field("CSV file with exactly the columns stage_ft,area_ft2")
    method: Literal["conic", "average_end_area"] | None = field(
        "Volume between stages (default conic)")
    bottom_ft: float | None = field("Stage of this item's bottom above stage 0", "ft", ge=0)


class StageStorage(InputModel):
    """A storage item of ``type = "stage_storage"``: volumes by stage (or elevation, or CSV)."""

    type: Literal["stage_storage"] = field("Stage-storage table", required=True)
    stage_ft: Stages | None = field("Stages from 0, strictly increasing", "ft")
    elevation_ft: Levels | None = field("Elevations from the bottom up (instead of stage_ft)",
                                        "ft")
    storage_ft3: Stages | None = field("Storage at each stage", "ft3")
    csv: Text | None = field("CSV file with exactly the columns stage_ft,storage_ft3")
    bottom_ft: float | None = field("Stage of this item's bottom above stage 0", "ft", ge=0)


class Basin(InputModel):
    """A storage item of ``type = "basin"``: a prismoidal basin or a vault."""

    type: Literal["basin"] = field("Prismoidal basin", required=True)
    bottom_length_ft: float = field("Bottom length", "ft", gt=0, required=True)
    bottom_width_ft: float = field("Bottom width", "ft", gt=0, required=True)
    depth_ft: float = field("Depth to the top", "ft", gt=0, required=True)
    side_slope_h_per_v: float | None = field("Side slope H:V (0 = vertical walls)", ge=0)
    porosity_frac: float | None = field("Porosity of a stone-filled basin", gt=0, le=1)
    bottom_ft: float | None = field("Stage of this item's bottom above stage 0", "ft", ge=0)


class Drywell(InputModel):
    """A storage item of ``type = "drywell"``: a leaching pool with its stone envelope."""

    type: Literal["drywell"] = field("Drywell (leaching pool)", required=True)
    diameter_ft: float = field("Inside diameter of the pool", "ft", gt=0, required=True)
    depth_ft: float = field("Effective depth of the pool", "ft", gt=0, required=True)
    stone_width_ft: float | None = field("Width of the stone annulus", "ft", ge=0)
    stone_porosity_frac: float | None = field("Porosity of the stone (required with stone)",
                                              gt=0, le=1)
    stone_depth_below_ft: float | None = field("Depth of stone below the pool", "ft", ge=0)
    wall_thickness_ft: float | None = field("Wall thickness", "ft", ge=0)
    bottom_ft: float | None = field("Stage of this item's bottom above stage 0", "ft", ge=0)


StorageItem = Annotated[StageArea | StageStorage | Basin | Drywell, Field(discriminator="type")]

_ID_DEVICE = "Id of the device, unique in the pond (default <type>_<n>)"


def _level(what: str) -> float:
    return field(f"{what}: {_LEVEL}", "ft", ge=-10_000, required=True)


class _SiteDevice(InputModel):
    """The identity key of an outlet device in a site file."""

    id: Text | None = field(_ID_DEVICE)


class CircularOrifice(CircularOrificeShape, _SiteDevice):
    """Outlet ``type = "circular_orifice"``."""

    invert_ft: float = _level("Invert")


class RectangularOrifice(RectangularOrificeShape, _SiteDevice):
    """Outlet ``type = "rectangular_orifice"``."""

    invert_ft: float = _level("Invert")


class RectangularWeir(RectangularWeirShape, _SiteDevice):
    """Outlet ``type = "rectangular_weir"``."""

    crest_ft: float = _level("Crest")


class VNotchWeir(VNotchWeirShape, _SiteDevice):
    """Outlet ``type = "vnotch_weir"``."""

    crest_ft: float = _level("Crest (notch bottom)")


class BroadCrestedWeir(BroadCrestedWeirShape, _SiteDevice):
    """Outlet ``type = "broad_crested_weir"``."""

    crest_ft: float = _level("Crest")


class Riser(RiserShape, _SiteDevice):
    """Outlet ``type = "riser"``: a pipe riser (weir, then orifice flow)."""

    crest_ft: float = _level("Rim")


class Exfiltration(ExfiltrationShape, _SiteDevice):
    """Outlet ``type = "exfiltration"``: flow to groundwater, leaves the network."""


class Culvert(InputModel):
    """Outlet or barrel ``type = "culvert"`` (FHWA HDS-5)."""

    type: Literal["culvert"] = field("HDS-5 culvert", required=True)
    id: Text | None = field(_ID_DEVICE)
    shape: Literal["circular", "box"] = field("Barrel shape", required=True)
    inlet: Annotated[str, OneOf(culvert.inlet_codes())] = field(
        "HDS-5 Table A.1 inlet code", required=True)
    diameter_in: float | None = field("Diameter (circular)", "in", gt=0, le=10_000)
    span_ft: float | None = field("Span (box)", "ft", gt=0, le=1000)
    rise_ft: float | None = field("Rise (box)", "ft", gt=0, le=1000)
    barrels: int | None = field("Number of barrels (default 1)", ge=1, le=1000)
    length_ft: float = field("Barrel length", "ft", gt=0, le=100_000, required=True)
    inlet_invert_ft: float = _level("Inlet invert")
    outlet_invert_ft: float | None = field(
        "Outlet invert, in the frame of inlet_invert_ft (or slope_ftft); may lie below the "
        "pond bottom", "ft", ge=-100_000, le=100_000)
    slope_ftft: float | None = field("Barrel slope (or outlet_invert_ft)", "ft/ft", ge=-1, le=1)
    n: float = field("Manning's n", gt=0, le=0.2, required=True)
    ke: float = field("Entrance loss coefficient", ge=0, le=2, required=True)


Outlet = Annotated[CircularOrifice | RectangularOrifice | RectangularWeir | VNotchWeir
                   | BroadCrestedWeir | Riser | Exfiltration | Culvert,
                   Field(discriminator="type")]


class Barrel(InputModel):
    """``[<scenario>.pond.barrel]``: the barrel every non-exfiltration device discharges into."""

    diameter_in: float = field("Diameter", "in", gt=0, required=True)
    invert_ft: float = _level("Inlet invert")
    length_ft: float = field("Length", "ft", gt=0, required=True)
    slope_ftft: float = field("Slope", "ft/ft", gt=0, required=True)
    n: float | None = field("Manning's n (default 0.013)", gt=0)
    ke: float | None = field("Entrance loss coefficient (default 0.5)", ge=0)
    cd: float | None = field("Orifice coefficient (default 0.6)", gt=0, le=1)


class TailwaterSeries(InputModel):
    """A tailwater series: levels at times, linear between them, held beyond the ends."""

    time_hr: Annotated[list[NonNegative], Field(min_length=1)] = field(
        "Times, strictly increasing", "h", required=True)
    stage_ft: Annotated[list[float], Field(min_length=1)] | None = field(
        "Levels above the pond bottom (a pond in stages)", "ft")
    elevation_ft: Annotated[list[float], Field(min_length=1)] | None = field(
        "Levels as elevations (a pond in elevations)", "ft")


def _method(entry) -> str:
    return "rational" if isinstance(entry, dict) and entry.get("method") == "rational" \
        else "tr55"


def _barrel_kind(entry) -> str:
    return "culvert" if isinstance(entry, dict) and entry.get("type") == "culvert" else "barrel"


def _one_or_many(entry) -> str:
    return "one" if isinstance(entry, dict) else "many"


def _level_or_series(entry) -> str:
    return "series" if isinstance(entry, dict) else "level"


def _tables(what: str) -> Says:
    one = "a table or " if what == "storage" else ""
    return Says(f"must be {one}an array of tables ([[<scenario>.pond.{what}]])")


class Pond(InputModel):
    """``[[<scenario>.pond]]``: a storage node with its outlets."""

    id: _NodeId = _id("pond")
    to: Text = _to("pond")
    description: Text | None = field(_DESC)
    storage: Annotated[Annotated[StorageItem, Tag("one")]
                       | Annotated[list[StorageItem], Tag("many"), Field(min_length=1),
                                   _tables("storage")],
                       Discriminator(_one_or_many)] = field(
        "Stage-storage: one table or an array of tables (summed)", required=True)
    outlet: Annotated[list[Outlet], _tables("outlet")] = field(
        "Outlet devices, in parallel", required=True)
    barrel: Annotated[Annotated[Barrel, Tag("barrel")] | Annotated[Culvert, Tag("culvert")],
                      Discriminator(_barrel_kind)] | None = field(
        "A barrel (or culvert) every non-exfiltration device discharges into")
    initial_stage_ft: float | None = field("Starting water level (default 0)", "ft", ge=0)
    count: int | None = field("Identical units sharing the inflow (default 1)", ge=1)
    rrv_credit_pct: float | None = field(
        "RRv credit of the volume stored below the lowest surface outlet (no default)", "%",
        ge=0, le=100)
    bottom_elevation_ft: float | None = field(
        "Elevation of the pond bottom: the pond is then in elevations", "ft", ge=-10_000,
        le=100_000)
    tailwater_ft: Annotated[Annotated[float, Field(ge=-100_000, le=100_000), Tag("level")]
                            | Annotated[TailwaterSeries, Tag("series")],
                            Discriminator(_level_or_series)] | None = field(
        "Downstream water level at the outlets: constant or a series (default free outfall)",
        "ft")
    flap_gate: bool | None = field("The outlets have flap gates (default false)")
    backwater: bool | None = field(
        "Discharges into the pond named by to and feels its level (default false)")


# -- scenarios: reaches and design points ---------------------------------------------------


class Reach(InputModel):
    """``[[<scenario>.reach]]``: a lag (``lag_hr``) or a routed pipe or channel (``section``)."""

    id: _NodeId = _id("reach")
    to: Text = _to("reach")
    description: Text | None = field(_DESC)
    lag_hr: float | None = field("Translation lag (a lag reach)", "h", ge=0)
    section: Literal["circular", "rectangular", "trapezoidal", "user"] | None = field(
        "Cross-section of a routed reach")
    diameter_in: float | None = field("Pipe diameter (circular)", "in", gt=0, le=10_000)
    bottom_width_ft: float | None = field("Bottom width (rectangular > 0, trapezoidal >= 0)",
                                          "ft", ge=0)
    side_slope_h_per_v: float | None = field("Side slope z, H:V (trapezoidal)", ge=0, le=1000)
    depth_ft: float | None = field("Bank-full depth (rectangular, trapezoidal)", "ft", gt=0,
                                   le=1000)
    station_ft: Annotated[list[float], Field(min_length=3)] | None = field(
        "Cross-section stations from the left bank (user)", "ft")
    elevation_ft: Annotated[list[float], Field(min_length=3)] | None = field(
        "Cross-section elevations (user)", "ft")
    csv: Text | None = field("CSV file with exactly the columns station_ft,elevation_ft (user)")
    length_ft: float | None = field("Reach length", "ft", gt=0)
    slope_ftft: float | None = field("Bed slope, not 0 (or both inverts)", "ft/ft")
    upstream_invert_ft: float | None = field("Upstream invert elevation", "ft")
    downstream_invert_ft: float | None = field("Downstream invert elevation", "ft")
    n: float | None = field("Manning's n", gt=0, le=1)


class DesignPoint(InputModel):
    """``[[<scenario>.design_point]]``: a point where pre and post flows are compared."""

    id: _NodeId = field("Id of the design point; must exist in both scenarios", required=True)
    to: Text | None = field("Another node downstream (optional)")
    description: Text | None = field(_DESC)


#: A subcatchment entry: TR-55 unless ``method = "rational"`` (errors name one form only).
SubcatchmentEntry = Annotated[Annotated[Subcatchment, Tag("tr55")]
                              | Annotated[RationalSubcatchment, Tag("rational")],
                              Discriminator(_method)]


class Scenario(InputModel):
    """``[pre]`` or ``[post]``: a drainage network."""

    description: Text | None = field(_DESC)
    subcatchment: list[SubcatchmentEntry] | None = field(
        "Subcatchments (at least one, here or in subcatchments_csv)")
    subcatchments_csv: Text | None = field("CSV file of more subcatchments")
    pond: list[Pond] | None = field("Storage nodes")
    reach: list[Reach] | None = field("Lag reaches and routed pipes or channels")
    design_point: list[DesignPoint] = field("Comparison points (at least one)", min_length=1,
                                            required=True)


# -- [construction] ------------------------------------------------------------------------


class Milestone(InputModel):
    """``[[construction.milestone]]``: a dated milestone of the profile."""

    key: Text = field("Milestone key of the municipality's profile", required=True)
    date: _When = field("When (a TOML date or date-time)", required=True)


class Trap(InputModel):
    """``[[construction.trap]]``: a sediment trap or basin (geometry and MUSLE inputs)."""

    id: Text = field("Id of the trap, unique", required=True)
    drainage_area_ac: float = field("Area draining to the trap", "ac", gt=0, le=_MAX_AC,
                                    required=True)
    criteria: Annotated[str, OneOf(criteria_keys())] = field(
        "Key of the sediment criteria table", required=True)
    bottom_length_ft: float | None = field("Bottom length", "ft", gt=0)
    bottom_width_ft: float | None = field("Bottom width", "ft", gt=0)
    depth_ft: float | None = field("Depth", "ft", gt=0)
    side_slope_h_per_v: float | None = field("Side slope H:V", ge=0)
    stage_ft: Annotated[list[float], Field(min_length=2),
                        Says("must be a list of at least 2 numbers")] | None = field(
        "Stages of a stage-area table (instead of the trap geometry)", "ft")
    area_ft2: Annotated[list[NonNegative], Field(min_length=2)] | None = field(
        "Areas at stage_ft", "ft2")
    k_factor: float | None = field("MUSLE soil erodibility K", ge=0, le=1)
    c_factor: float | None = field("MUSLE cover factor C", ge=0, le=1)
    p_factor: float | None = field("MUSLE practice factor P", gt=0, le=1)
    dry_unit_weight_lb_ft3: float | None = field("Dry unit weight of the sediment", "lb/ft3",
                                                 gt=0, le=170)
    trap_efficiency_frac: float | None = field("Trap efficiency", ge=0, le=1)
    slope_length_ft: float | None = field("MUSLE slope length (or ls_factor)", "ft", gt=0)
    slope_pct: float | None = field("MUSLE slope (or ls_factor)", "%", ge=0, le=100)
    ls_factor: float | None = field("MUSLE LS factor (or slope_length_ft and slope_pct)", ge=0)
    cn: float | None = field("Curve number of the drainage area (TR-55 graphical peak)",
                             ge=40, le=98)
    tc_hr: float | None = field("Time of concentration", "h", ge=0.1, le=10)
    design_precip_in: float | None = field("Design rainfall (runoff_volume criteria)", "in",
                                           gt=0)


class Construction(InputModel):
    """``[construction]``: construction period, rainfall record, milestones, traps."""

    start_date: _Date = field("Start of construction (a TOML date)", required=True)
    end_date: _Date = field("End of construction, on or after start_date", required=True)
    rainfall_file: Text | None = field("Daily rainfall CSV (DATE,PRCP), inside the site's folder")
    rainfall_station: OptionalText | None = field("Name of the rainfall station")
    rainfall_units: Annotated[Literal["auto", "in", "mm"],
                              Says("must be one of auto, in, mm")] | None = field(
        "Units of the rainfall record (default auto)")
    rainfall_shift_years: Annotated[int, Says("must be a whole number of years")] | None = \
        field("Years the record is shifted by (default 0)")
    rainfall_type: _RainfallTypeText | None = field(
        "TR-55 rainfall distribution I, IA, II or III for the daily peak discharge")
    inspection_threshold_in: float | None = field(
        "Rainfall that triggers an inspection", "in", gt=0)
    inspection_interval_days: Annotated[int, Says("must be a whole number of days >= 1")] \
        | None = field("Days between routine inspections", "d", ge=1)
    inspection_clock: Literal["fixed", "rolling"] | None = field(
        "How the inspection clock runs (default fixed)")
    storm_event: Literal["multi_day", "calendar_day"] | None = field(
        "Reading of the laws' storm event (default multi_day)")
    milestone: Annotated[list[Milestone], Says(
        "must be an array of tables ([[construction.milestone]])")] | None = field(
        "Dated milestones")
    trap: Annotated[list[Trap], Says("must be an array of tables ([[construction.trap]])")] \
        | None = field("Sediment traps and basins")


# -- the file ---------------------------------------------------------------------------------


class SiteFile(InputModel):
    """A hydrocalc site file: one site analysed before (pre) and after (post) development."""

    project: Project = field("Project facts", required=True)
    storms: Storms = field("Design storms", required=True)
    analysis: Analysis | None = field("Computation options")
    criteria: Criteria | None = field("NY SMDM sizing-criteria settings")
    pre: Scenario = field("The scenario before development", required=True)
    post: Scenario = field("The scenario after development", required=True)
    construction: Construction | None = field(
        "Construction period, rainfall record, milestones, sediment traps")
    checks: Checks | None = field("Plausibility settings")
    confirmations: Confirmations | None = field(
        "Sources the preparer checked unverified values against")
    rational: Rational | None = field("Intensity source of the rational method")
    report: Report | None = field("The engineer's own report sections")


def site_json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of the site file, as shipped in the package."""
    return json_schema(
        SiteFile, title="hydrocalc site file",
        description="One site analysed before (pre) and after (post) development for a set of "
                    "24-hour design storms (docs/site_file.md). Units are in every key.")
