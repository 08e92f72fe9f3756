r"""Culvert hydraulics after FHWA HDS-5: inlet control, outlet control, controlling headwater.

Functions (flows in ft3/s, lengths in ft, US customary units throughout):

* :func:`inlet_control_headwater_ft` - HDS-5 Appendix A equations with the coefficients of
  Table A.1 (shipped as ``hds5_inlet_control_coefficients``, see :func:`inlet_coefficients`).
* :func:`outlet_control_headwater_ft` - full-flow energy equation with tailwater, and a
  backwater (gradually varied flow) profile for partly full barrels.
* :func:`culvert_headwater_ft` - the larger of the two and the controlling regime.
* :func:`critical_depth_ft` - critical depth in a circular or box barrel.
* :class:`Culvert` - the pond outlet device (re-exported as
  ``hydrocalc.hydraulics.outlets.Culvert``), usable wherever devices are
  (``route_reservoir``, batch routing, an
  :class:`~hydrocalc.hydraulics.outlets.OutletStructure` ``barrel=``).

Headwater HW is the depth of the upstream energy (pond level, approach velocity neglected)
above the **inlet invert**; tailwater TW a level above the **outlet invert** for the
functions and a level in the pond's frame for the device. Multiple identical barrels carry
equal shares: every relation is evaluated for one barrel at Q / N.

Inlet control (HDS-5 Appendix A, Eqs. A.1-A.3; Ku = 1.0 in US units)
--------------------------------------------------------------------
HDS-5 [1]_ Appendix A. With :math:`x = K_u Q / (A D^{0.5})` (A the full barrel area, D the
rise):

* unsubmerged, Form 1: :math:`HW/D = H_c/D + K x^M + K_s S`, :math:`H_c = d_c + V_c^2/2g`
  the specific head at critical depth;
* unsubmerged, Form 2: :math:`HW/D = K x^M`;
* submerged: :math:`HW/D = c x^2 + Y + K_s S`;

with :math:`K_s = -0.5` (+0.7 for mitered inlets). The unsubmerged form applies up to
:math:`x = 3.5`, the submerged one from :math:`x = 4.0`; HDS-5 draws the transition between
the two curves empirically. **Approximation:** between 3.5 and 4.0, HW/D is interpolated
linearly in x between the unsubmerged value at 3.5 and the submerged value at 4.0 (a
documented approximation of the empirical transition curve); below 3.5 the larger of the
unsubmerged value and 0 is used.

Outlet control (HDS-5 Ch. 3, outlet control)
--------------------------------------------
HDS-5 [1]_ Chapter 3. Full flow, the energy equation with losses
:math:`H = (1 + k_e + 29 n^2 L / R^{1.33}) V^2/2g` in US units (:math:`29 = 2g/1.49^2`):

.. math::

   HW_o = h_o + H - L S, \qquad h_o = \max(TW, (d_c + D)/2)

HDS-5 presents this as accurate when the barrel flows full over at least part of its
length, i.e. when :math:`HW_o \ge D + (1 + k_e) V^2/2g`, and refers lower headwaters to a
backwater calculation. hydrocalc does that calculation:

* **Partly full** (the test above fails, or the profile below does not fill the barrel at
  the inlet): the subcritical water-surface profile is integrated upstream from the outlet,
  starting at :math:`\max(d_c, TW)`, by :math:`dy/dx_{up} = (S_f - S)/(1 - F^2)` ([2]_;
  Manning friction slope, :math:`F^2 = Q^2 T/(g A^3)`; 120 steps refined toward the outlet,
  Heun's method); a barrel that fills on the way continues as a pressure conduit (F = 0,
  the hydraulic grade line rising at :math:`S_f - S`). Then :math:`HW_o = y_{in} + (1 +
  k_e) V_{in}^2/2g`.
* **Both apply** (the test passes and the profile fills the barrel at the inlet): the
  lower of the two (**judgment call**: HDS-5's :math:`h_o = (d_c + D)/2` presumes a barrel
  full to near its outlet, which an adverse barrel with a free outlet is not; for ordinary
  barrels the energy equation is the lower and is used).
* **No subcritical profile** (the depth falls to critical on the way up: a steep barrel
  with a low tailwater, supercritical flow): outlet control cannot govern and
  :math:`HW_o` is NaN (the inlet controls).
* TW is used in the profile's starting depth, so a rising tailwater raises :math:`HW_o`.

Adverse barrels (outlet invert above inlet invert, S < 0) are legal but unusual: a
:class:`~hydrocalc.errors.RangeWarning` names them, and the energy equation and the
backwater profile (A2 profile) handle them without change; inlet control uses the
coefficients with S < 0 in the :math:`K_s S` term.

Controlling headwater and discharge from headwater
--------------------------------------------------
:math:`HW = \max(HW_i, HW_o)` (HDS-5 Ch. 3). For routing, discharge is needed as a function
of headwater: the device tabulates :math:`HW(Q)` on a geometric grid of 400 flows per barrel
(up to the flow that needs 50 barrel rises of headwater, beyond which the submerged
relation :math:`Q \propto \sqrt{HW}` is extrapolated), makes it monotone (running maximum:
HW never falls as Q rises) and inverts it by linear interpolation.

References
----------
.. [1] Schall, J.D., Thompson, P.L., Zerges, S.M., Kilgore, R.T. and Morris, J.L.,
   *Hydraulic Design of Highway Culverts*, Hydraulic Design Series No. 5, 3rd ed.,
   FHWA-HIF-12-026, Federal Highway Administration, 2012: Ch. 3 (inlet and outlet control,
   energy equation, h_o), Appendix A (inlet control equations, Table A.1).
.. [2] Chow, V.T., *Open-Channel Hydraulics*, McGraw-Hill, 1959, Ch. 9-10 (gradually varied
   flow: dy/dx = (S0 - Sf)/(1 - F^2)).
"""

from __future__ import annotations

import dataclasses
import functools
import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

import numpy as np
import numpy.typing as npt

from hydrocalc import data
from hydrocalc._validate import as_float_array, fmt_value, like, suggest
from hydrocalc.errors import InputError, RangeWarning
from hydrocalc.hydraulics.equations import MANNING_KU
from hydrocalc.hydraulics.outlets.device import Device, _nonneg
from hydrocalc.units import GRAVITY_FT_S2, IN_PER_FT

__all__ = [
    "SHAPES",
    "inlet_codes",
    "inlet_coefficients",
    "critical_depth_ft",
    "inlet_control_headwater_ft",
    "outlet_control_headwater_ft",
    "culvert_headwater_ft",
    "CulvertHeadwater",
    "adverse_reach_levels_ft",
    "Culvert",
]

#: Barrel shapes.
SHAPES = ("circular", "box")
#: Unit coefficient Ku of the inlet control equations (US customary units; 1.811 in SI).
KU = 1.0
#: Limits of the unsubmerged and submerged inlet control forms in Q/(A D^0.5) (HDS-5 App. A).
UNSUBMERGED_MAX = 3.5
SUBMERGED_MIN = 4.0

_G = GRAVITY_FT_S2
_TABLE = "hds5_inlet_control_coefficients"
_GVF_STEPS = 120
_GRID_POINTS = 400
#: Tailwater step of the device's tables, as a fraction of the barrel rise.
_TW_STEP_RISES = 0.1
_GRID_HEAD_RISES = 50.0


# -- coefficients ---------------------------------------------------------------------------
@functools.cache
def _coef_table():
    frame = data.load_table(_TABLE)
    return {row["key"]: row for row in frame.to_dict("records")}


def inlet_codes(shape: str | None = None) -> list[str]:
    """Inlet codes of HDS-5 Table A.1 shipped with hydrocalc (optionally for one shape).

    Parameters
    ----------
    shape : {"circular", "box"}, optional
        Only the inlets of this barrel shape; all of them when omitted.

    Returns
    -------
    list of str
        Keys of the shipped table ``hds5_inlet_control_coefficients`` (HDS-5 [1]_
        Table A.1), in table order.

    References
    ----------
    .. [1] Schall, J.D., Thompson, P.L., Zerges, S.M., Kilgore, R.T. and Morris, J.L.,
       *Hydraulic Design of Highway Culverts*, HDS-5, 3rd ed., FHWA-HIF-12-026, Federal
       Highway Administration, 2012, Appendix A, Table A.1.

    Examples
    --------
    >>> inlet_codes("box")[:3]
    ['box_wingwall_30_75', 'box_wingwall_90_15', 'box_wingwall_0']
    """
    return [k for k, row in _coef_table().items() if shape is None or row["shape"] == shape]


def inlet_coefficients(inlet: str, shape: str | None = None) -> dict:
    """HDS-5 Table A.1 row of ``inlet``: form, K, M, c, Y, Ks, chart, scale, description.

    Parameters
    ----------
    inlet : str
        Inlet code (:func:`inlet_codes`).
    shape : {"circular", "box"}, optional
        The barrel shape the inlet must belong to.

    Returns
    -------
    dict
        The table row: ``form`` (1 or 2, the unsubmerged form of HDS-5 Eqs. A.1/A.2), the
        coefficients ``K``, ``M``, ``c``, ``Y`` (Eqs. A.1-A.3) and ``Ks`` (slope correction,
        -0.5; +0.7 for mitered inlets) as floats, and ``shape``, ``material``,
        ``inlet_edge``, ``chart`` and ``scale`` (the HDS-5 nomograph). [-]

    Raises
    ------
    InputError
        For an unknown inlet code, or one that does not belong to ``shape``.

    References
    ----------
    .. [1] Schall, J.D., Thompson, P.L., Zerges, S.M., Kilgore, R.T. and Morris, J.L.,
       *Hydraulic Design of Highway Culverts*, HDS-5, 3rd ed., FHWA-HIF-12-026, Federal
       Highway Administration, 2012, Appendix A, Table A.1.

    Examples
    --------
    >>> row = inlet_coefficients("concrete_square_headwall")   # HDS-5 Table A.1, chart 1
    >>> row["form"], row["K"], row["M"], row["c"], row["Y"]
    (1, 0.0098, 2.0, 0.0398, 0.67)
    """
    table = _coef_table()
    if not isinstance(inlet, str) or inlet not in table:
        raise InputError(f"inlet must be one of {', '.join(table)}; got {inlet!r}"
                         f"{suggest(str(inlet), table)}")
    row = dict(table[inlet])
    if shape is not None and row["shape"] != shape:
        raise InputError(f"inlet {inlet!r} is a {row['shape']} inlet; got shape {shape!r}. Use "
                         f"one of {', '.join(inlet_codes(shape))}")
    row["form"] = int(row["form"])
    for k in ("K", "M", "c", "Y", "Ks"):
        row[k] = float(row[k])
    return row


# -- geometry -------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Barrel:
    """One barrel's geometry: circular (rise = span = D) or box (span B, rise D) [ft]."""

    shape: str
    span_ft: float
    rise_ft: float

    @property
    def area_ft2(self) -> float:
        if self.shape == "circular":
            return math.pi * self.rise_ft**2 / 4.0
        return self.span_ft * self.rise_ft

    @property
    def perimeter_ft(self) -> float:
        if self.shape == "circular":
            return math.pi * self.rise_ft
        return 2.0 * (self.span_ft + self.rise_ft)

    def geometry(self, y):
        """Area, wetted perimeter, top width at depth y [ft2, ft, ft].

        Full section at and above the crown, top width 0 there.
        """
        d = self.rise_ft
        yc = np.clip(y, 0.0, d)
        if self.shape == "circular":
            theta = 2.0 * np.arccos(np.clip(1.0 - 2.0 * yc / d, -1.0, 1.0))
            area = d * d / 8.0 * (theta - np.sin(theta))
            perim = d * theta / 2.0
            top = d * np.sin(theta / 2.0)
        else:
            b = self.span_ft
            area = b * yc
            perim = np.where(yc < d, b + 2.0 * yc, 2.0 * (b + d))
            top = np.full(np.shape(yc), b)
        top = np.where(y >= d, 0.0, top)
        return area, perim, top


def _barrel(shape, diameter_in, span_ft, rise_ft) -> _Barrel:
    if shape not in SHAPES:
        raise InputError(f"shape must be one of {', '.join(SHAPES)}; got {shape!r}")
    if shape == "circular":
        if diameter_in is None:
            raise InputError("diameter_in is required for a circular culvert; got none")
        if span_ft is not None or rise_ft is not None:
            raise InputError("span_ft and rise_ft are for box culverts; got them with shape "
                             "'circular'. Give diameter_in only")
        d = float(as_float_array(diameter_in, "diameter_in", lower=0.0,
                                 lower_inclusive=False, upper=1e4)) / IN_PER_FT
        return _Barrel("circular", d, d)
    if span_ft is None or rise_ft is None:
        raise InputError("span_ft and rise_ft are required for a box culvert; got "
                         f"span_ft={span_ft!r}, rise_ft={rise_ft!r}")
    if diameter_in is not None:
        raise InputError("diameter_in is for circular culverts; got it with shape 'box'. Give "
                         "span_ft and rise_ft")
    b = float(as_float_array(span_ft, "span_ft", lower=0.0, lower_inclusive=False, upper=1e3))
    d = float(as_float_array(rise_ft, "rise_ft", lower=0.0, lower_inclusive=False, upper=1e3))
    return _Barrel("box", b, d)


def _barrels(barrels) -> int:
    n = as_float_array(barrels, "barrels", lower=1.0, upper=1000.0)
    if float(n) != int(n):
        raise InputError(f"barrels must be a whole number >= 1; got {fmt_value(float(n))}")
    return int(n)


def _critical_depth(bar: _Barrel, q: np.ndarray) -> np.ndarray:
    """Critical depth of flows q (one barrel), capped at the rise (HDS-5: dc <= D) [ft]."""
    q = np.asarray(q, dtype=float)
    d = bar.rise_ft
    if bar.shape == "box":
        return np.minimum((q * q / (_G * bar.span_ft**2)) ** (1.0 / 3.0), d)
    # circular: Q^2/g = A^3/T, bisection on y in (0, D) (A^3/T grows without bound at D)
    target = q * q / _G
    lo = np.zeros_like(q)
    hi = np.full_like(q, d)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        a, _p, t = bar.geometry(mid)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(t > 0, a**3 / np.where(t > 0, t, 1.0), np.inf)
        below = f < target
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return np.where(q > 0, 0.5 * (lo + hi), 0.0)


def critical_depth_ft(flow_cfs: npt.ArrayLike, *, shape: str, diameter_in=None, span_ft=None,
                      rise_ft=None, barrels: int = 1):
    r"""Critical depth in each barrel at ``flow_cfs`` (split equally among ``barrels``) [ft].

    Parameters
    ----------
    flow_cfs : array_like
        Total discharge, >= 0. [ft3/s]
    shape : {"circular", "box"}
    diameter_in : float, optional
        Diameter of a circular barrel. [in]
    span_ft, rise_ft : float, optional
        Span B and rise D of a box barrel. [ft]
    barrels : int, default 1
        Number of identical barrels; each carries ``flow_cfs / barrels``.

    Returns
    -------
    float or ndarray
        Critical depth :math:`d_c`, at most the rise D; same container as ``flow_cfs``. [ft]

    Raises
    ------
    InputError
        For a negative flow, an unknown shape, or dimensions missing or out of range.

    Notes
    -----
    Critical flow (Chow [2]_ Ch. 4): :math:`Q^2/g = A^3/T`, solved by bisection in a circular
    barrel; in a box, :math:`d_c = (q^2/g)^{1/3}` with :math:`q = Q/B`. Capped at the barrel
    rise (HDS-5 [1]_ Ch. 3: "dc should never exceed D").

    References
    ----------
    .. [1] Schall, J.D., Thompson, P.L., Zerges, S.M., Kilgore, R.T. and Morris, J.L.,
       *Hydraulic Design of Highway Culverts*, HDS-5, 3rd ed., FHWA-HIF-12-026, Federal
       Highway Administration, 2012, Ch. 3.
    .. [2] Chow, V.T., *Open-Channel Hydraulics*, McGraw-Hill, 1959, Ch. 4 (critical flow).

    Examples
    --------
    An 18-in pipe at 12.4 ft3/s: the "Pipe Culvert Analysis" program (Dodson & Associates,
    v1.5) prints a critical depth of 1.33 ft in a 1989 culvert performance computation
    filed with the Colorado Division of Reclamation, Mining and Safety (DRMS document
    493542, p. 118):

    >>> round(float(critical_depth_ft(12.4, shape="circular", diameter_in=18.0)), 2)
    1.33

    A 5 ft x 2 ft box at 75 ft3/s, :math:`(15^2/32.2)^{1/3}`:

    >>> round(float(critical_depth_ft(75.0, shape="box", span_ft=5.0, rise_ft=2.0)), 3)
    1.912
    """
    bar = _barrel(shape, diameter_in, span_ft, rise_ft)
    q = as_float_array(flow_cfs, "flow_cfs", lower=0.0) / _barrels(barrels)
    return like(_critical_depth(bar, np.atleast_1d(q)).reshape(np.shape(q)), flow_cfs)


# -- inlet control --------------------------------------------------------------------------
def _inlet_hw(bar: _Barrel, coef: dict, q: np.ndarray, slope: float) -> np.ndarray:
    d, a = bar.rise_ft, bar.area_ft2
    x = KU * q / (a * math.sqrt(d))
    k, m, c, y, ks = coef["K"], coef["M"], coef["c"], coef["Y"], coef["Ks"]

    def unsub(xx, qq):
        if coef["form"] == 1:
            dc = _critical_depth(bar, qq)
            ac, _p, _t = bar.geometry(dc)
            with np.errstate(divide="ignore", invalid="ignore"):
                vc = np.where(ac > 0, qq / np.where(ac > 0, ac, 1.0), 0.0)
            hc = dc + vc * vc / (2.0 * _G)
            return hc / d + k * xx**m + ks * slope
        return k * xx**m

    def sub(xx):
        return c * xx * xx + y + ks * slope

    q_lo = UNSUBMERGED_MAX * a * math.sqrt(d) / KU
    u = unsub(np.minimum(x, UNSUBMERGED_MAX), np.minimum(q, q_lo))
    u35 = float(unsub(np.array([UNSUBMERGED_MAX]), np.array([q_lo]))[0])
    s40 = float(sub(np.array([SUBMERGED_MIN]))[0])
    frac = np.clip((x - UNSUBMERGED_MAX) / (SUBMERGED_MIN - UNSUBMERGED_MAX), 0.0, 1.0)
    hw_d = np.where(x <= UNSUBMERGED_MAX, u,
                    np.where(x >= SUBMERGED_MIN, sub(x), u35 + frac * (s40 - u35)))
    return np.clip(hw_d, 0.0, None) * d


def inlet_control_headwater_ft(flow_cfs: npt.ArrayLike, *, shape: str, inlet: str,
                               diameter_in=None, span_ft=None, rise_ft=None,
                               slope_ftft: float = 0.0, barrels: int = 1):
    r"""Inlet control headwater above the inlet invert (FHWA HDS-5 Appendix A) [ft].

    Parameters
    ----------
    flow_cfs : array_like
        Total discharge, >= 0, split equally among ``barrels``. [ft3/s]
    shape : {"circular", "box"}
    inlet : str
        Inlet code of HDS-5 Table A.1 (:func:`inlet_codes`), e.g. ``"concrete_square_headwall"``,
        ``"cmp_projecting"``, ``"box_wingwall_30_75"``.
    diameter_in : float, optional
        Diameter of a circular barrel. [in]
    span_ft, rise_ft : float, optional
        Span B and rise D of a box barrel. [ft]
    slope_ftft : float, default 0
        Barrel slope S (positive downhill from inlet to outlet) used in the Ks S term. [ft/ft]
    barrels : int, default 1
        Number of identical barrels.

    Returns
    -------
    float or ndarray
        HW_i, >= 0. [ft]

    Notes
    -----
    HDS-5 [1]_ Appendix A, Eqs. A.1 (Form 1), A.2 (Form 2) and A.3 (submerged) with the
    constants of Table A.1; linear transition between Q/(A D^0.5) = 3.5 and 4.0 (see the
    module docstring).

    References
    ----------
    .. [1] Schall, J.D., Thompson, P.L., Zerges, S.M., Kilgore, R.T. and Morris, J.L.,
       *Hydraulic Design of Highway Culverts*, Hydraulic Design Series No. 5, 3rd ed.,
       FHWA-HIF-12-026, Federal Highway Administration, 2012: Ch. 3 (inlet and outlet control,
       energy equation, h_o), Appendix A (inlet control equations, Table A.1).

    Examples
    --------
    >>> hw = inlet_control_headwater_ft(75.0, shape="box", inlet="box_wingwall_30_75",
    ...                                 span_ft=5.0, rise_ft=2.0)
    >>> round(hw / 2.0, 2)      # HW/D: c x^2 + Y with x = 75/(10 sqrt 2) = 5.30
    1.79
    """
    bar = _barrel(shape, diameter_in, span_ft, rise_ft)
    coef = inlet_coefficients(inlet, shape)
    s = float(as_float_array(slope_ftft, "slope_ftft", lower=-1.0, upper=1.0))
    q = as_float_array(flow_cfs, "flow_cfs", lower=0.0) / _barrels(barrels)
    hw = _inlet_hw(bar, coef, np.atleast_1d(q).astype(float), s).reshape(np.shape(q))
    return like(hw, flow_cfs)


# -- outlet control -------------------------------------------------------------------------
def _friction_slope(n: float, q, area, perim):
    """Friction slope S_f = (Q / K)^2, infinite where the section is dry [ft/ft].

    The conveyance is K = (1.49 / n) A R^(2/3) (Manning's equation with the TR-55 Eq. 3-4
    constant).
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        r = np.where(perim > 0, area / np.where(perim > 0, perim, 1.0), 0.0)
        conv = MANNING_KU / n * area * r ** (2.0 / 3.0)
        return np.where(conv > 0, (q / np.where(conv > 0, conv, 1.0)) ** 2, np.inf)


def _gvf_profile(geometry, rise_ft: float, closed: bool, q: np.ndarray, y_start: np.ndarray,
                 dc: np.ndarray, length: float, slope: float, n: float):
    """Subcritical (gradually varied flow) profile from the outlet (depth y_start) up the barrel.

    Integrates dy/dx = (S0 - Sf) / (1 - Fr^2) (Chow 1959, Ch. 9; Heun steps).
    Returns the depth (pressure head above the invert once full) at the inlet, NaN where the
    profile would fall to critical depth (no subcritical profile: supercritical barrel).
    """
    # x measured upstream from the outlet; steps refined near the outlet (cubic spacing)
    xs = length * (np.linspace(0.0, 1.0, _GVF_STEPS + 1) ** 3)
    y = np.asarray(y_start, dtype=float).copy()
    failed = np.zeros(y.shape, dtype=bool)
    floor = dc * 1.0005

    def rate(yy):
        a, p, t = geometry(yy)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            sf = _friction_slope(n, q, a, p)
            fr2 = np.where(a > 0, q * q * t / (_G * np.where(a > 0, a, 1.0) ** 3), np.inf)
        if closed:
            fr2 = np.where(yy >= rise_ft, 0.0, fr2)
        den = 1.0 - fr2
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(den > 1e-6, (sf - slope) / np.where(den > 1e-6, den, 1.0), -np.inf)

    for x0, x1 in zip(xs[:-1], xs[1:], strict=True):
        h = x1 - x0
        k1 = rate(y)
        yp = y + h * k1
        bad = ~np.isfinite(yp) | (yp <= floor)
        yp = np.where(bad, floor * 1.01 + 1e-9, yp)
        k2 = rate(yp)
        y_new = y + 0.5 * h * (k1 + k2)
        bad |= ~np.isfinite(y_new) | (y_new <= floor)
        failed |= bad & (q > 0)
        y = np.where(bad, np.maximum(y, floor * 1.01 + 1e-9), y_new)
    return np.where(failed, np.nan, y)


def critical_depth_section(geometry, q: np.ndarray, y_hi: float) -> np.ndarray:
    """Critical depth (Q^2 T = g A^3) of flows q in any section given by ``geometry`` [ft].

    ``geometry`` maps depth -> area, wetted perimeter, top width; searched in (0, y_hi].
    """
    target = q * q / _G
    lo, hi = np.zeros_like(q), np.full_like(q, y_hi)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        a, _p, t = geometry(mid)
        with np.errstate(divide="ignore", invalid="ignore"):
            f = np.where(t > 0, a**3 / np.where(t > 0, t, 1.0), np.inf)
        below = f < target
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return np.where(q > 0, 0.5 * (lo + hi), 0.0)


def adverse_reach_levels_ft(geometry, max_depth_ft: float, closed: bool, flow_cfs,
                            *, length_ft: float, slope_ftft: float, n: float) -> np.ndarray:
    r"""Depth at the upstream end of an adverse reach with a free outfall [ft].

    For steady flows ``flow_cfs``: the subcritical backwater profile from critical depth at
    the outfall, integrated upstream by :math:`dy/dx_{up} = (S_f - S)/(1 - F^2)` (Chow [1]_
    Ch. 9-10; the same integration as the outlet control profile of this module; an adverse
    reach always has one). Used by :func:`hydrocalc.hydraulics.conveyance.route_conveyance` for
    adverse reaches.

    Parameters
    ----------
    geometry : callable
        ``geometry(y) -> (area_ft2, wetted_perimeter_ft, top_width_ft)`` of the section at
        depth ``y``. [ft]
    max_depth_ft : float
        Depth of the section (the crown of a closed conduit). [ft]
    closed : bool
        True for a closed conduit (pressure flow above the crown), False for a channel.
    flow_cfs : array_like
        Steady flows, >= 0. [ft3/s]
    length_ft : float
        Reach length. [ft]
    slope_ftft : float
        Bed slope, negative for an adverse reach. [ft/ft]
    n : float
        Manning's n. [-]

    Returns
    -------
    ndarray
        Depth at the upstream end, 0 where the flow is 0. [ft]

    References
    ----------
    .. [1] Chow, V.T., *Open-Channel Hydraulics*, McGraw-Hill, 1959, Ch. 9-10 (gradually
       varied flow).
    """
    q = np.asarray(flow_cfs, dtype=float)
    dc = critical_depth_section(geometry, q, max_depth_ft * (1.0 if closed else 20.0))
    y0 = dc * 1.001 + 1e-9
    y = _gvf_profile(geometry, max_depth_ft if closed else np.inf, closed, q, y0, dc,
                     float(length_ft), float(slope_ftft), float(n))
    return np.where(q > 0, y, 0.0)


def _outlet_hw(bar: _Barrel, q: np.ndarray, *, length: float, slope: float, n: float,
               ke: float, tw_depth: float | None) -> np.ndarray:
    """Outlet control headwater above the inlet invert for flows q (one barrel) [ft].

    tw_depth is the tailwater above the outlet invert (None: free). NaN where outlet control
    cannot govern (supercritical barrel).
    """
    d, a_full = bar.rise_ft, bar.area_ft2
    r_full = a_full / bar.perimeter_ft
    v = q / a_full
    vh = v * v / (2.0 * _G)
    kf = 2.0 * _G * n * n * length / (MANNING_KU**2 * r_full ** (4.0 / 3.0))
    dc = _critical_depth(bar, q)
    tw = -np.inf if tw_depth is None else float(tw_depth)
    h_o = np.maximum(tw, (dc + d) / 2.0)
    hw_full = h_o + (1.0 + ke + kf) * vh - length * slope
    full_ok = hw_full >= d + (1.0 + ke) * vh
    # partly full: backwater profile from max(dc, TW) at the outlet
    y0 = np.maximum(dc, max(tw, 0.0))
    y0 = np.where(y0 <= dc, dc * 1.001 + 1e-9, y0)
    y_in = _gvf_profile(bar.geometry, d, True, q, y0, dc, length, slope, n)
    a_in, _p, _t = bar.geometry(np.nan_to_num(y_in, nan=d))
    with np.errstate(divide="ignore", invalid="ignore"):
        v_in = np.where(a_in > 0, q / np.where(a_in > 0, a_in, 1.0), 0.0)
    hw_part = y_in + (1.0 + ke) * v_in * v_in / (2.0 * _G)
    # the energy equation where HDS-5 says it is accurate (HW_o >= D + (1 + ke) V^2/2g) and
    # the barrel does flow full at the inlet (or no subcritical profile exists)
    # (where both apply, the lower: HDS-5's h_o = (dc + D)/2 assumes a barrel full to near the
    # outlet, which an adverse barrel with a free outlet is not)
    full_ok &= ~(y_in < d)
    hw = np.where(full_ok, np.fmin(hw_full, hw_part), hw_part)
    # no flow: the level pool, at least at the outlet invert (above the inlet when adverse)
    return np.where(q > 0, hw, max(max(tw, 0.0) - length * slope, 0.0))


def _check_outlet_inputs(length_ft, n, ke):
    length = float(as_float_array(length_ft, "length_ft", lower=0.0, lower_inclusive=False,
                                  upper=1e5))
    nn = float(as_float_array(n, "n", lower=0.0, lower_inclusive=False, upper=0.2,
                              hint="Manning's n of the barrel, e.g. 0.012 concrete, "
                                   "0.024 corrugated metal"))
    kke = float(as_float_array(ke, "ke", lower=0.0, upper=2.0,
                               hint="the HDS-5 entrance loss table gives 0.2-0.9 "
                                    "by entrance type"))
    return length, nn, kke


def outlet_control_headwater_ft(flow_cfs: npt.ArrayLike, *, shape: str, length_ft: float,
                                n: float, ke: float, diameter_in=None, span_ft=None,
                                rise_ft=None, slope_ftft: float = 0.0, barrels: int = 1,
                                tailwater_ft: float | None = None):
    r"""Outlet control headwater above the inlet invert (FHWA HDS-5 Ch. 3) [ft].

    Parameters
    ----------
    flow_cfs : array_like
        Total discharge, >= 0, split equally among ``barrels``. [ft3/s]
    shape : {"circular", "box"}
    length_ft : float
        Barrel length L. [ft]
    n : float
        Manning's n of the barrel. [s/ft^(1/3)]
    ke : float
        Entrance loss coefficient (HDS-5 entrance loss table; e.g. 0.5 square edge headwall). [-]
    diameter_in, span_ft, rise_ft : float, optional
        Barrel size (circular: diameter [in]; box: span and rise [ft]).
    slope_ftft : float, default 0
        Barrel slope S = (inlet invert - outlet invert) / L; negative for an adverse
        barrel. [ft/ft]
    barrels : int, default 1
    tailwater_ft : float, optional
        Tailwater depth above the outlet invert (may be negative: below it). None: free
        outfall. [ft]

    Returns
    -------
    float or ndarray
        HW_o; NaN where no subcritical profile exists (steep barrel, supercritical flow:
        outlet control cannot govern). [ft]

    Notes
    -----
    Full flow: HDS-5 energy equation HW_o = h_o + (1 + ke + 29 n^2 L / R^1.33) V^2/2g - L S,
    h_o = max(TW, (dc + D)/2), used where HDS-5 says it is accurate
    (HW_o >= D + (1 + ke) V^2/2g); otherwise a backwater profile (module docstring).

    Examples
    --------
    >>> hw = outlet_control_headwater_ft(40.0, shape="circular", diameter_in=36.0,
    ...                                  length_ft=100.0, n=0.012, ke=0.5, tailwater_ft=4.0)
    >>> round(hw, 2)   # 4.0 + (1.5 + 29 0.012^2 100/0.75^1.33) V^2/2g, V = 5.659 ft/s
    5.05
    """
    bar = _barrel(shape, diameter_in, span_ft, rise_ft)
    length, nn, kke = _check_outlet_inputs(length_ft, n, ke)
    s = float(as_float_array(slope_ftft, "slope_ftft", lower=-1.0, upper=1.0))
    tw = None if tailwater_ft is None else float(as_float_array(tailwater_ft, "tailwater_ft",
                                                                lower=-1e4, upper=1e4))
    q = as_float_array(flow_cfs, "flow_cfs", lower=0.0) / _barrels(barrels)
    hw = _outlet_hw(bar, np.atleast_1d(q).astype(float), length=length, slope=s, n=nn, ke=kke,
                    tw_depth=tw).reshape(np.shape(q))
    return like(hw, flow_cfs)


def culvert_headwater_ft(flow_cfs: npt.ArrayLike, *, shape: str, inlet: str,
                         length_ft: float, n: float, ke: float, diameter_in=None,
                         span_ft=None, rise_ft=None, slope_ftft: float = 0.0,
                         barrels: int = 1, tailwater_ft: float | None = None):
    """Controlling headwater HW = max(HW_i, HW_o) and the regime (HDS-5 [1]_ Ch. 3).

    Parameters
    ----------
    flow_cfs : array_like
        Total discharge, >= 0, split equally among ``barrels``. [ft3/s]
    shape : {"circular", "box"}
    inlet : str
        Inlet code of HDS-5 Table A.1 (:func:`inlet_codes`).
    length_ft : float
        Barrel length. [ft]
    n : float
        Manning's n of the barrel. [-]
    ke : float
        Entrance loss coefficient (the HDS-5 entrance loss table: 0.2-0.9 by entrance). [-]
    diameter_in : float, optional
        Diameter of a circular barrel. [in]
    span_ft, rise_ft : float, optional
        Span B and rise D of a box barrel. [ft]
    slope_ftft : float, default 0
        Barrel slope, positive downhill from inlet to outlet. [ft/ft]
    barrels : int, default 1
        Number of identical barrels.
    tailwater_ft : float, optional
        Tailwater above the outlet invert; free outfall when omitted. [ft]

    Returns
    -------
    CulvertHeadwater
        Unpacks as ``(headwater_ft, control)``; keys and attributes ``headwater_ft``
        (controlling, above the inlet invert), ``control`` ("inlet" or "outlet"; an array of
        them for array input), ``inlet_ft`` and ``outlet_ft`` (NaN where outlet control
        cannot govern). [ft]

    References
    ----------
    .. [1] Schall, J.D., Thompson, P.L., Zerges, S.M., Kilgore, R.T. and Morris, J.L.,
       *Hydraulic Design of Highway Culverts*, HDS-5, 3rd ed., FHWA-HIF-12-026, Federal
       Highway Administration, 2012, Ch. 3.
    .. [2] Normann, J.M., Houghtalen, R.J. and Johnston, W.J., *Hydraulic Design of Highway
       Culverts*, HDS-5, 2nd ed., FHWA-NHI-01-020, Federal Highway Administration, 2001,
       Ch. III, Example Problem No. 4.

    Examples
    --------
    >>> hw, control = culvert_headwater_ft(
    ...     60.0, shape="circular", inlet="concrete_square_headwall", diameter_in=36.0,
    ...     length_ft=200.0, n=0.012, ke=0.5, slope_ftft=0.001, tailwater_ft=3.5)
    >>> control, round(hw, 2)     # 3.5 + (1.5 + 29 n^2 L / R^1.33) V^2/2g - 0.2
    ('outlet', 6.35)

    HDS-5 2nd ed. [2]_ Ch. III, Example Problem No. 4 (SI): a 7 ft x 7 ft concrete box with
    square edges in a headwall, S = 5 %, L = 200 ft, at 11.327 m3/s (400 ft3/s) with a
    tailwater of 0.793 m is in inlet control with its headwater 32.96 - 30.48 = 2.48 m above
    the inlet invert (read from the nomograph, +-5 %):

    >>> r = culvert_headwater_ft(400.0, shape="box", inlet="box_wingwall_90_15", span_ft=7.0,
    ...                          rise_ft=7.0, length_ft=200.0, n=0.012, ke=0.5,
    ...                          slope_ftft=0.05, tailwater_ft=0.793 / 0.3048)
    >>> r.control, round(r.headwater_ft * 0.3048, 2)    # m; HDS-5 reads 2.48 m
    ('inlet', 2.38)
    """
    hwi = inlet_control_headwater_ft(flow_cfs, shape=shape, inlet=inlet,
                                     diameter_in=diameter_in, span_ft=span_ft,
                                     rise_ft=rise_ft, slope_ftft=slope_ftft, barrels=barrels)
    hwo = outlet_control_headwater_ft(flow_cfs, shape=shape, length_ft=length_ft, n=n, ke=ke,
                                      diameter_in=diameter_in, span_ft=span_ft,
                                      rise_ft=rise_ft, slope_ftft=slope_ftft, barrels=barrels,
                                      tailwater_ft=tailwater_ft)
    i, o = np.asarray(hwi, dtype=float), np.asarray(hwo, dtype=float)
    outlet = np.isfinite(o) & (o > i)
    hw = np.where(outlet, o, i)
    control = np.where(outlet, "outlet", "inlet")
    if np.ndim(hw) == 0:
        return CulvertHeadwater(float(hw), str(control), float(i), float(o))
    return CulvertHeadwater(hw, control, i, o)


class CulvertHeadwater(tuple):
    """Result of :func:`culvert_headwater_ft`: unpacks as ``(headwater_ft, control)``.

    Attributes
    ----------
    headwater_ft : float or ndarray
        Controlling headwater above the inlet invert, max(HW_i, HW_o). [ft]
    control : str or ndarray of str
        ``"inlet"`` or ``"outlet"``.
    inlet_ft : float or ndarray
        Inlet control headwater HW_i. [ft]
    outlet_ft : float or ndarray
        Outlet control headwater HW_o; NaN where outlet control cannot govern. [ft]

    Each is also ``result["headwater_ft"]`` and so on (``keys()`` lists them).
    """

    _KEYS = ("headwater_ft", "control", "inlet_ft", "outlet_ft")

    def __new__(cls, headwater_ft, control, inlet_ft, outlet_ft):
        """Build the result; the tuple holds ``(headwater_ft, control)``, all four by key."""
        obj = super().__new__(cls, (headwater_ft, control))
        obj._values = dict(zip(cls._KEYS, (headwater_ft, control, inlet_ft, outlet_ft),
                                strict=True))
        return obj

    def __getitem__(self, key):
        if isinstance(key, str):
            if key not in self._values:
                raise KeyError(key)
            return self._values[key]
        return super().__getitem__(key)

    def __getattr__(self, name):
        values = self.__dict__.get("_values", {})
        if name in values:
            return values[name]
        raise AttributeError(name)

    def keys(self):
        """Names of the result's values (as a dict's ``keys()``)."""
        return self._values.keys()

    def __reduce__(self):
        return (type(self), tuple(self._values[k] for k in self._KEYS))

    def __repr__(self) -> str:
        return "CulvertHeadwater(" + ", ".join(f"{k}={v!r}" for k, v in
                                               self._values.items()) + ")"


# -- the pond outlet device ----------------------------------------------------------------
@dataclass(frozen=True, eq=False, kw_only=True)
class Culvert(Device):
    r"""A culvert outlet (one or more identical circular or box barrels) after FHWA HDS-5.

    Usable wherever devices are (``route_reservoir``, batch routing, interconnected ponds)
    and as the ``barrel=`` of an :class:`~hydrocalc.hydraulics.outlets.OutletStructure` (a riser or
    orifice discharging into it: the structure passes the smaller of the devices' flow and
    the culvert's). All arguments are keywords.

    Parameters
    ----------
    shape : {"circular", "box"}
    inlet : str
        Inlet code of HDS-5 Table A.1 (:func:`inlet_codes`), e.g.
        ``"concrete_square_headwall"``, ``"cmp_projecting"``, ``"box_wingwall_30_75"``.
    length_ft : float
        Barrel length L, > 0. [ft]
    n : float
        Manning's n of the barrel (no default: e.g. 0.012 concrete, 0.024 CMP). [s/ft^(1/3)]
    ke : float
        Entrance loss coefficient (no default: HDS-5 entrance loss table). [-]
    inlet_invert_ft : float
        Stage of the inlet invert above the pond bottom, >= 0. [ft]
    outlet_invert_ft : float, optional
        Stage of the outlet invert (may be below the pond bottom, i.e. negative). Give this
        or ``slope_ftft``. [ft]
    slope_ftft : float, optional
        Barrel slope S (outlet invert = inlet invert - S L) when the outlet invert is not
        given. [ft/ft]
    diameter_in : float, optional
        Diameter of a circular barrel. [in]
    span_ft, rise_ft : float, optional
        Span and rise of a box barrel. [ft]
    barrels : int, default 1
        Number of identical barrels (the flow splits equally).
    name : str, optional
        Label (default ``culvert_<size>``).

    Raises
    ------
    InputError
        For no outlet invert and no slope ("a culvert with no outlet invert"), both given,
        a zero-length barrel, an unknown inlet code, a size missing for the shape, or n / ke
        out of range.

    Warns
    -----
    RangeWarning
        For an adverse barrel (outlet invert above the inlet invert): legal but unusual; it
        is computed with the energy equation and the backwater profile.

    Notes
    -----
    Discharge at stage h: the per-barrel flow whose controlling headwater
    max(HW_i, HW_o) equals h - inlet invert, times the number of barrels (module docstring:
    monotone table of 400 flows, inverted by interpolation). With a tailwater T (pond frame):
    tables at tailwater depths TW = T - outlet invert on a grid of 0.1 barrel rise (cached;
    the flow is interpolated linearly in TW between the two neighbouring tables); a
    tailwater at or below the outlet invert leaves the rating free. Reverse flow
    (T above the pond level) follows :class:`~hydrocalc.hydraulics.outlets.Barrel`: full flow back,
    Q = N A sqrt(2 g (T - max(h, inlet crown)) / (1 + ke + kf)), kf = 29 n^2 L / R^1.33.

    Examples
    --------
    >>> c = Culvert(shape="circular", inlet="concrete_square_headwall", diameter_in=24.0,
    ...             length_ft=80.0, n=0.012, ke=0.5, inlet_invert_ft=0.0,
    ...             outlet_invert_ft=-0.8)
    >>> q = c.discharge_cfs(4.0)
    >>> hw = culvert_headwater_ft(q, shape="circular", inlet="concrete_square_headwall",
    ...                           diameter_in=24.0, length_ft=80.0, n=0.012, ke=0.5,
    ...                           slope_ftft=0.01)["headwater_ft"]
    >>> abs(hw - 4.0) < 0.01
    True
    """

    shape: str
    inlet: str
    length_ft: float
    n: float
    ke: float
    inlet_invert_ft: float
    outlet_invert_ft: float | None = None
    slope_ftft: float | None = None
    diameter_in: float | None = None
    span_ft: float | None = None
    rise_ft: float | None = None
    barrels: int = 1
    name: str = ""

    #: may be the ``barrel=`` of an OutletStructure (devices in series)
    _series_barrel = True

    if TYPE_CHECKING:  # set by __post_init__ (object.__setattr__), not dataclass fields
        _bar: _Barrel = field(init=False)
        _coef: dict = field(init=False)
        _tables: dict = field(init=False)

    def __post_init__(self):
        bar = _barrel(self.shape, self.diameter_in, self.span_ft, self.rise_ft)
        coef = inlet_coefficients(self.inlet, self.shape)
        length, n, ke = _check_outlet_inputs(self.length_ft, self.n, self.ke)
        inv = _nonneg(self.inlet_invert_ft, "inlet_invert_ft",
                      "Stages are measured up from the pond bottom (0)")
        if self.outlet_invert_ft is None and self.slope_ftft is None:
            raise InputError("outlet_invert_ft is required for a culvert; got none (a culvert "
                             "with no outlet invert). Give the outlet invert (same frame as "
                             "inlet_invert_ft) or slope_ftft")
        if self.outlet_invert_ft is not None and self.slope_ftft is not None:
            raise InputError("outlet_invert_ft and slope_ftft must not both be given; got "
                             f"{fmt_value(float(self.outlet_invert_ft))} and "
                             f"{fmt_value(float(self.slope_ftft))}. Keep one")
        if self.outlet_invert_ft is not None:
            out = float(as_float_array(self.outlet_invert_ft, "outlet_invert_ft",
                                       lower=-1e5, upper=1e5))
            slope = (inv - out) / length
        else:
            slope = float(as_float_array(self.slope_ftft, "slope_ftft", lower=-1.0, upper=1.0))
            out = inv - slope * length
        n_barrels = _barrels(self.barrels)
        for k, v in (("length_ft", length), ("n", n), ("ke", ke), ("inlet_invert_ft", inv),
                     ("outlet_invert_ft", out), ("slope_ftft", slope),
                     ("barrels", n_barrels)):
            object.__setattr__(self, k, v)
        object.__setattr__(self, "_bar", bar)
        object.__setattr__(self, "_coef", coef)
        object.__setattr__(self, "_tables", {})
        if slope < 0.0:
            warnings.warn(f"culvert {self.name or self.inlet!r} has an adverse slope "
                          f"({fmt_value(slope)} ft/ft: outlet invert {fmt_value(out)} above "
                          f"inlet invert {fmt_value(inv)}); legal but unusual, computed by "
                          "outlet control with the energy equation", RangeWarning,
                          stacklevel=3)
        size = (f"{fmt_value(float(self.diameter_in))}in" if self.shape == "circular"
                else f"{fmt_value(bar.span_ft)}x{fmt_value(bar.rise_ft)}ft")
        self._with_name(f"culvert_{size}" + (f"_x{n_barrels}" if n_barrels > 1 else ""))

    @property
    def coefficients(self) -> dict:
        """HDS-5 Table A.1 constants in use: form, K, M, c, Y, Ks (with chart and scale)."""
        c = self._coef
        return {"form": c["form"], "K": c["K"], "M": c["M"], "c": c["c"], "Y": c["Y"],
                "Ks": c["Ks"], "chart": str(c["chart"]), "scale": str(c["scale"])}

    def shifted(self, by_ft: float) -> Culvert:
        """A copy with both inverts moved by ``by_ft`` [ft]."""
        with warnings.catch_warnings():   # an adverse barrel was announced once already
            warnings.simplefilter("ignore", RangeWarning)
            return dataclasses.replace(self, inlet_invert_ft=self.inlet_invert_ft + by_ft,
                                       outlet_invert_ft=self._outlet_ft + by_ft,
                                       slope_ftft=None)

    @property
    def lowest_ft(self) -> float:
        """Inlet invert, or the outlet invert when higher (adverse barrel) [ft]."""
        return max(self.inlet_invert_ft, self._outlet_ft)

    @property
    def breakpoints_ft(self) -> tuple[float, ...]:
        """Stages where the rating changes form: lowest invert, crown, 1.5 rises [ft]."""
        d = self._bar.rise_ft
        return (self.lowest_ft, self.inlet_invert_ft + d, self.inlet_invert_ft + 1.5 * d)

    @property
    def free_below_ft(self) -> float:
        """A tailwater at or below the outlet invert leaves the rating free [ft]."""
        return self._outlet_ft

    @property
    def _outlet_ft(self) -> float:
        """Outlet invert [ft]; ``__post_init__`` always sets it (given or from the slope)."""
        return cast(float, self.outlet_invert_ft)

    @property
    def _slope(self) -> float:
        """Barrel slope [ft/ft]; ``__post_init__`` always sets it (given or from the inverts)."""
        return cast(float, self.slope_ftft)

    # -- ratings
    def headwater_ft(self, flow_cfs, tailwater_ft=None):
        """Controlling headwater above the inlet invert at ``flow_cfs`` (all barrels).

        With an optional tailwater level in the device's frame. Returns the dict of
        :func:`culvert_headwater_ft`.
        """
        tw = None if tailwater_ft is None else float(tailwater_ft) - self.outlet_invert_ft
        kw = dict(shape=self.shape, inlet=self.inlet, length_ft=self.length_ft, n=self.n,
                  ke=self.ke, slope_ftft=self.slope_ftft, barrels=self.barrels,
                  tailwater_ft=tw)
        if self.shape == "circular":
            kw["diameter_in"] = self.diameter_in
        else:
            kw.update(span_ft=self.span_ft, rise_ft=self.rise_ft)
        return culvert_headwater_ft(flow_cfs, **kw)

    def _table(self, tw_depth: float | None):
        """(headwater grid above the inlet invert, strictly increasing; flow per barrel)."""
        key = None if tw_depth is None else round(float(tw_depth), 9)
        got = self._tables.get(key)
        if got is not None:
            return got
        bar, coef = self._bar, self._coef
        d, a = bar.rise_ft, bar.area_ft2
        x_max = math.sqrt(max(_GRID_HEAD_RISES - coef["Y"], 1.0) / coef["c"])
        q_max = x_max * a * math.sqrt(d) / KU
        q = np.concatenate([[0.0], q_max * np.geomspace(1e-6, 1.0, _GRID_POINTS - 1)])
        hwi = _inlet_hw(bar, coef, q, self._slope)
        hwo = _outlet_hw(bar, q, length=self.length_ft, slope=self._slope, n=self.n,
                         ke=self.ke, tw_depth=tw_depth)
        hw = np.where(np.isfinite(hwo), np.maximum(hwi, hwo), hwi)
        hw = np.maximum.accumulate(hw) + np.arange(q.size) * 1e-12
        if len(self._tables) > 4096:
            self._tables.clear()
        self._tables[key] = (hw, q)
        return hw, q

    def _forward(self, head: np.ndarray, tw_depth: float | None) -> np.ndarray:
        hw, q = self._table(tw_depth)
        out = np.interp(head, hw, q)
        top = head > hw[-1]
        if top.any():   # submerged relation beyond the table: Q ~ sqrt(HW)
            out = np.where(top, q[-1] * np.sqrt(np.where(top, head, hw[-1]) / hw[-1]), out)
        return self.barrels * np.where(head > 0.0, out, 0.0)

    def _flow(self, stage):
        return self._forward(np.asarray(stage, dtype=float) - self.inlet_invert_ft, None)

    def _flow_tw(self, stage, tw):
        stage = np.asarray(stage, dtype=float)
        tw = np.asarray(tw, dtype=float)
        head = stage - self.inlet_invert_ft
        step = _TW_STEP_RISES * self._bar.rise_ft
        pos = np.clip(tw - self.outlet_invert_ft, 0.0, None) / step
        k = np.floor(pos)
        w = pos - k
        fwd = np.zeros(stage.shape)
        for kk in np.unique(k):
            mask = k == kk
            lo = self._forward(head[mask], None if kk == 0 else kk * step)
            ww = w[mask]
            hi = self._forward(head[mask], (kk + 1) * step) if (ww > 0).any() else lo
            fwd[mask] = (1.0 - ww) * lo + ww * hi
        bar = self._bar
        kf = 2.0 * _G * self.n**2 * self.length_ft / (
            MANNING_KU**2 * (bar.area_ft2 / bar.perimeter_ft) ** (4.0 / 3.0))
        back_head = np.clip(tw - np.maximum(stage, self.inlet_invert_ft + bar.rise_ft),
                            0.0, None)
        back = self.barrels * bar.area_ft2 * np.sqrt(2.0 * _G * back_head / (1.0 + self.ke + kf))
        return np.where(stage >= tw, fwd, -back)
