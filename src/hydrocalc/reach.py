r"""Reach routing: pure translation (lag) and constant-parameter Muskingum-Cunge.

Two ways to move a hydrograph down a channel reach:

* :func:`reach_lag` translates it by a travel time (HydroCAD's "routing delay", the simplest
  TR-20 practice for short reaches): shape and volume unchanged.
* :func:`muskingum_cunge` routes it through a prismatic channel with the constant-parameter
  Muskingum-Cunge method [1]_ [2]_: a diffusion-wave approximation whose coefficients come
  from the channel's hydraulics at one reference discharge. WinTR-20 uses a variable-parameter
  Muskingum-Cunge [3]_, so results differ somewhat for strongly non-linear reaches.

Symbols
-------
===================  ======  ===============================================================
API name             Unit    Meaning
===================  ======  ===============================================================
lag_hr               h       travel time of a pure translation
length_ft            ft      reach length
slope_ftft           ft/ft   channel bed slope S0
manning_n            -       Manning roughness
bottom_width_ft      ft      bottom width of the trapezoidal section
side_slope_h_per_v   -       side slope z (horizontal per vertical); 0 = rectangle
reference_flow_cfs   ft3/s   discharge at which celerity c and q0 are evaluated
celerity_fps         ft/s    kinematic wave celerity c = dQ/dA
courant              -       C = c dt / dx
cell_reynolds        -       D = q0 / (S0 c dx), q0 = Q / T (T top width)
===================  ======  ===============================================================

References
----------
.. [1] J. A. Cunge, "On the subject of a flood propagation computation method (Muskingum
   method)," J. Hydraulic Research, vol. 7, no. 2, pp. 205-230, 1969,
   doi:10.1080/00221686909500264.
.. [2] V. M. Ponce, Engineering Hydrology: Principles and Practices. Englewood Cliffs, NJ:
   Prentice Hall, 1989, Ch. 9 (Muskingum-Cunge coefficients in terms of C and D, and the
   spatial-resolution criterion).
.. [3] USDA NRCS, "WinTR-20 Project Formulation Hydrology," user guide, 2015
   (Muskingum-Cunge reach routing).
"""

from __future__ import annotations

import numpy as np
from scipy import optimize, signal

from hydrocalc._validate import as_float_array, fmt_value
from hydrocalc.errors import InputError
from hydrocalc.hydrograph import Hydrograph
from hydrocalc.units import MANNING_KU, S_PER_HR

__all__ = [
    "reach_lag",
    "manning_flow_cfs",
    "normal_depth_ft",
    "muskingum_cunge_coefficients",
    "muskingum_cunge",
]

#: Manning's constant in US customary units: the package's one value
#: (:data:`hydrocalc.units.MANNING_KU`). [ft^(1/3)/s]
MANNING_K = MANNING_KU


def _hydrograph(value) -> Hydrograph:
    if not isinstance(value, Hydrograph):
        raise InputError(f"inflow must be a Hydrograph; got {type(value).__name__}")
    return value


def reach_lag(inflow: Hydrograph, lag_hr: float, *, keep_start: bool = True) -> Hydrograph:
    """Translate a hydrograph by a travel time (no attenuation).

    Parameters
    ----------
    inflow : Hydrograph
        Hydrograph at the upstream end.
    lag_hr : float
        Travel time through the reach, >= 0. [h]
    keep_start : bool, default True
        Return the result on the inflow's own grid (same start and step, extended at the end
        so nothing is lost), interpolating linearly when the lag is not a whole number of
        steps; ``False`` shifts the time stamps instead (:meth:`Hydrograph.lagged`).

    Returns
    -------
    Hydrograph

    Raises
    ------
    InputError
        If ``lag_hr`` is negative or NaN.

    Examples
    --------
    >>> h = Hydrograph([0.0, 0.1, 0.2, 0.3], [0.0, 4.0, 2.0, 0.0])
    >>> reach_lag(h, 0.1).flow_cfs.tolist()
    [0.0, 0.0, 4.0, 2.0, 0.0]
    """
    h = _hydrograph(inflow)
    lag = float(as_float_array(lag_hr, "lag_hr", lower=0.0))
    if not keep_start:
        return h.lagged(lag)
    dt = h.dt_hr
    extra = int(np.ceil(lag / dt - 1e-9))
    t = h.time_hr[0] + dt * np.arange(h.time_hr.size + extra)
    steps = lag / dt
    if abs(steps - round(steps)) < 1e-9:  # whole steps: exact shift, no interpolation
        q = np.concatenate([np.zeros(int(round(steps))), h.flow_cfs])
    else:
        q = np.interp(t - lag, h.time_hr, h.flow_cfs, left=0.0, right=0.0)
    return Hydrograph(t, q, area_ac=h.area_ac, name=h.name)


def _section(depth_ft, bottom_width_ft, side_slope):
    area = depth_ft * (bottom_width_ft + side_slope * depth_ft)
    perimeter = bottom_width_ft + 2.0 * depth_ft * np.sqrt(1.0 + side_slope**2)
    top = bottom_width_ft + 2.0 * side_slope * depth_ft
    return area, perimeter, top


def manning_flow_cfs(depth_ft, *, bottom_width_ft, side_slope_h_per_v=0.0, slope_ftft,
                     manning_n):
    r"""Normal-flow discharge of a trapezoidal channel, Manning's equation [ft3/s].

    :math:`Q = (1.49/n)\,A\,R^{2/3}\,S_0^{1/2}`, :math:`R = A/P` (Manning's equation in
    US customary units as TR-55 Eq. 3-4 writes the velocity [4]_, times the flow area).

    Raises
    ------
    InputError
        If ``depth_ft`` is negative or NaN, ``manning_n`` or ``slope_ftft`` is not positive,
        or the bottom width or side slope is negative.

    References
    ----------
    .. [4] USDA SCS, "Urban Hydrology for Small Watersheds," TR-55, 2nd ed., 1986, Eq. 3-4.

    Examples
    --------
    >>> round(manning_flow_cfs(1.0, bottom_width_ft=10.0, slope_ftft=0.001, manning_n=0.03), 2)
    13.91
    """
    y = as_float_array(depth_ft, "depth_ft", lower=0.0)
    n = as_float_array(manning_n, "manning_n", lower=0.0, lower_inclusive=False)
    s0 = as_float_array(slope_ftft, "slope_ftft", lower=0.0, lower_inclusive=False)
    b = as_float_array(bottom_width_ft, "bottom_width_ft", lower=0.0)
    z = as_float_array(side_slope_h_per_v, "side_slope_h_per_v", lower=0.0)
    a, p, _ = _section(y, b, z)
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(p > 0, a / p, 0.0)
    q = MANNING_K / n * a * r ** (2.0 / 3.0) * np.sqrt(s0)
    return float(q) if q.ndim == 0 else q


def normal_depth_ft(flow_cfs: float, *, bottom_width_ft, side_slope_h_per_v=0.0, slope_ftft,
                    manning_n) -> float:
    """Depth at which Manning's equation carries ``flow_cfs`` (brentq) [ft]."""
    q = float(as_float_array(flow_cfs, "flow_cfs", lower=0.0, lower_inclusive=False))
    kw = dict(bottom_width_ft=bottom_width_ft, side_slope_h_per_v=side_slope_h_per_v,
              slope_ftft=slope_ftft, manning_n=manning_n)
    hi = 1.0
    while manning_flow_cfs(hi, **kw) < q:
        hi *= 2.0
        if hi > 1e6:
            raise InputError(f"flow_cfs = {fmt_value(q)} has no normal depth in this channel")
    return float(optimize.brentq(lambda y: manning_flow_cfs(y, **kw) - q, 0.0, hi, xtol=1e-12))


def muskingum_cunge_coefficients(
    courant: float, cell_reynolds: float
) -> tuple[float, float, float]:
    r"""Muskingum-Cunge routing coefficients from :math:`C` and :math:`D` (Ponce 1989).

    :math:`C_0 = (-1 + C + D)/(1 + C + D)`, :math:`C_1 = (1 + C - D)/(1 + C + D)`,
    :math:`C_2 = (1 - C + D)/(1 + C + D)`; they sum to 1 (mass is conserved), and for
    :math:`C = 1`, :math:`D = 0` the method is an exact one-step translation.

    Examples
    --------
    >>> muskingum_cunge_coefficients(1.0, 0.0)
    (0.0, 1.0, 0.0)
    """
    c = float(courant)
    d = float(cell_reynolds)
    den = 1.0 + c + d
    return (-1.0 + c + d) / den, (1.0 + c - d) / den, (1.0 - c + d) / den


def muskingum_cunge(
    inflow: Hydrograph,
    *,
    length_ft: float,
    slope_ftft: float,
    manning_n: float,
    bottom_width_ft: float,
    side_slope_h_per_v: float = 0.0,
    reference_flow_cfs: float | None = None,
) -> tuple[Hydrograph, dict]:
    r"""Route a hydrograph through a prismatic channel reach (constant-parameter M-C).

    Parameters
    ----------
    inflow : Hydrograph
        Upstream hydrograph (its step is the routing step).
    length_ft : float
        Reach length. [ft]
    slope_ftft : float
        Bed slope :math:`S_0`. [ft/ft]
    manning_n : float
        Manning roughness. [-]
    bottom_width_ft : float
        Bottom width (> 0, or 0 for a triangular section with side slopes). [ft]
    side_slope_h_per_v : float, default 0
        Side slope :math:`z` (H:V). [-]
    reference_flow_cfs : float, optional
        Discharge at which the wave celerity and unit-width discharge are evaluated;
        default the midpoint between the initial and the peak inflow (a representative
        value, Ponce 1989). [ft3/s]

    Returns
    -------
    outflow : Hydrograph
        On the inflow's grid, extended so the recession is complete.
    parameters : dict
        ``celerity_fps``, ``reference_flow_cfs``, ``top_width_ft``, ``n_subreaches``,
        ``dx_ft``, ``n_substeps``, ``courant``, ``cell_reynolds``, ``c0``, ``c1``, ``c2``,
        ``travel_time_hr`` (length / celerity).

    Raises
    ------
    InputError
        For non-positive length, slope, roughness, a section without area, or a zero inflow.

    Notes
    -----
    Kinematic celerity :math:`c = dQ/dA` at the normal depth of the reference discharge,
    :math:`q_0 = Q_{ref}/T`. The reach is split into ``N`` sub-reaches of length
    :math:`\Delta x \le \tfrac12 (c\,\Delta t + q_0/(S_0 c))` (Ponce's accuracy criterion,
    which also keeps :math:`C_0 \ge 0`), and the step is subdivided while
    :math:`C > 1 + D` (which would make :math:`C_2 < 0`). Each sub-reach applies
    :math:`O^{n+1} = C_0 I^{n+1} + C_1 I^n + C_2 O^n`, evaluated as a linear filter
    (``scipy.signal.lfilter``). The coefficients sum to 1, so volume is conserved.
    """
    h = _hydrograph(inflow)
    length = float(as_float_array(length_ft, "length_ft", lower=0.0, lower_inclusive=False))
    s0 = float(as_float_array(slope_ftft, "slope_ftft", lower=0.0, lower_inclusive=False))
    n = float(as_float_array(manning_n, "manning_n", lower=0.0, lower_inclusive=False))
    b = float(as_float_array(bottom_width_ft, "bottom_width_ft", lower=0.0))
    z = float(as_float_array(side_slope_h_per_v, "side_slope_h_per_v", lower=0.0))
    if b == 0.0 and z == 0.0:
        raise InputError(
            "bottom_width_ft and side_slope_h_per_v must not both be 0; got a section without "
            "area"
        )
    q_in = h.flow_cfs
    if reference_flow_cfs is None:
        q_ref = float(q_in[0] + 0.5 * (q_in.max() - q_in[0]))
    else:
        q_ref = float(as_float_array(reference_flow_cfs, "reference_flow_cfs", lower=0.0,
                                     lower_inclusive=False))
    if q_ref <= 0.0:
        raise InputError("inflow must carry some flow to route; got a hydrograph of zeros")
    kw = dict(bottom_width_ft=b, side_slope_h_per_v=z, slope_ftft=s0, manning_n=n)
    y = normal_depth_ft(q_ref, **kw)
    area, _, top = _section(y, b, z)
    dy = 1e-6 * max(y, 1e-6)
    dq_dy = (manning_flow_cfs(y + dy, **kw) - manning_flow_cfs(max(y - dy, 0.0), **kw)) / (
        y + dy - max(y - dy, 0.0))
    c = dq_dy / top  # dQ/dA = (dQ/dy) / T
    q0 = q_ref / top
    dt_s = h.dt_hr * S_PER_HR
    substeps = 1
    while True:
        dts = dt_s / substeps
        dx_max = 0.5 * (c * dts + q0 / (s0 * c))
        n_sub = max(1, int(np.ceil(length / dx_max - 1e-9)))
        dx = length / n_sub
        courant = c * dts / dx
        reynolds = q0 / (s0 * c * dx)
        if courant <= 1.0 + reynolds or substeps >= 4096:
            break
        substeps *= 2
    c0, c1, c2 = muskingum_cunge_coefficients(courant, reynolds)
    travel_hr = length / c / S_PER_HR
    # Time base: the inflow plus room for translation and diffusion of the recession.
    extra = int(np.ceil((3.0 * travel_hr + 0.5 * h.time_hr.size * h.dt_hr) / h.dt_hr))
    n_out = h.time_hr.size + extra
    t_out = h.time_hr[0] + h.dt_hr * np.arange(n_out)
    fine_t = h.time_hr[0] + (h.dt_hr / substeps) * np.arange((n_out - 1) * substeps + 1)
    q = np.interp(fine_t, h.time_hr, q_in, right=0.0)
    for _ in range(n_sub):  # sub-reaches in series; each is a first-order linear filter
        zi = signal.lfiltic([c0, c1], [1.0, -c2], y=[q[0]], x=[q[0]])
        q, _ = signal.lfilter([c0, c1], [1.0, -c2], q, zi=zi)
    out = np.clip(q[::substeps], 0.0, None)
    params = {
        "celerity_fps": float(c), "reference_flow_cfs": q_ref, "normal_depth_ft": float(y),
        "top_width_ft": float(top), "flow_area_ft2": float(area), "n_subreaches": n_sub,
        "dx_ft": float(dx), "n_substeps": substeps, "courant": float(courant),
        "cell_reynolds": float(reynolds), "c0": c0, "c1": c1, "c2": c2,
        "travel_time_hr": float(travel_hr),
    }
    return Hydrograph(t_out, out, area_ac=h.area_ac, name=h.name), params
