r"""SCS/NRCS curve-number runoff (TR-55 Chapter 2).

Symbols
-------
============  ==========  ======  ==========================================
API name      Symbol      Unit    Meaning
============  ==========  ======  ==========================================
precip_in     P           in      rainfall depth
cn            CN          -       runoff curve number, (0, 100]
ia_ratio      lambda      -       initial abstraction ratio Ia/S (0.2)
runoff_in     Q           in      direct runoff depth
============  ==========  ======  ==========================================

References
----------
.. [1] USDA Soil Conservation Service, "Urban Hydrology for Small Watersheds,"
   Technical Release 55, 2nd ed., Washington, DC, USA, 1986.
"""

from __future__ import annotations

import numpy as np

from hydrocalc._validate import as_float_array, like

__all__ = ["runoff_depth", "potential_retention", "initial_abstraction"]


def potential_retention(cn):
    r"""Potential maximum retention after runoff begins, TR-55 Eq. 2-4.

    Parameters
    ----------
    cn : numeric
        Runoff curve number in (0, 100]. [-]

    Returns
    -------
    s_in : numeric
        :math:`S = 1000 / CN - 10`. [in]

    References
    ----------
    .. [1] USDA SCS, TR-55, 2nd ed., 1986, Eq. 2-4.

    Examples
    --------
    >>> round(potential_retention(70), 2)      # TR-55 Example 2-1 prints 4.29 in
    4.29
    """
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    return like(1000.0 / cn_ - 10.0, cn)


def initial_abstraction(cn, *, ia_ratio=0.2):
    r"""Initial abstraction :math:`I_a = \lambda S`, TR-55 Eq. 2-2 (Table 4-1). [in]

    Parameters
    ----------
    cn : numeric
        Runoff curve number in (0, 100]. [-]
    ia_ratio : float, default 0.2
        :math:`\lambda = I_a / S`; TR-55 uses 0.2. [-]

    Returns
    -------
    ia_in : numeric
        Initial abstraction. [in]

    Examples
    --------
    >>> round(initial_abstraction(40), 3)      # TR-55 Table 4-1 prints 3.000
    3.0
    """
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    ratio = as_float_array(ia_ratio, "ia_ratio", lower=0.0, upper=1.0)
    return like(ratio * (1000.0 / cn_ - 10.0), cn)


def runoff_depth(precip_in, cn, *, ia_ratio=0.2):
    r"""Direct runoff depth from the NRCS curve-number equation.

    Parameters
    ----------
    precip_in : numeric
        Storm rainfall depth, :math:`P`. [in]
    cn : numeric
        Runoff curve number, :math:`CN`, in (0, 100]. [-]
    ia_ratio : float, default 0.2
        Initial-abstraction ratio :math:`\lambda = I_a / S`. The curve numbers in
        TR-55 Tables 2-2a to 2-2d assume 0.2. [-]

    Returns
    -------
    runoff_in : numeric
        Direct runoff depth, :math:`Q`; zero where :math:`P \le I_a`. Same container
        as the inputs (float, ndarray or Series). [in]

    Raises
    ------
    InputError
        If ``precip_in`` is negative or NaN, or ``cn`` is outside (0, 100].

    Notes
    -----
    TR-55, Chapter 2, Eqs. 2-1 to 2-4 [1]_:

    .. math::

       S = \frac{1000}{CN} - 10, \qquad I_a = \lambda S, \qquad
       Q = \frac{(P - I_a)^2}{P - I_a + S} \quad \text{for } P > I_a

    References
    ----------
    .. [1] USDA Soil Conservation Service, "Urban Hydrology for Small
       Watersheds," Technical Release 55, 2nd ed., Washington, DC, USA, 1986.

    Examples
    --------
    >>> round(runoff_depth(3.0, 80), 2)      # TR-55 Table 2-1 prints 1.25 in
    1.25
    """
    p_in = as_float_array(precip_in, "precip_in", lower=0.0)
    cn_ = as_float_array(cn, "cn", lower=0.0, lower_inclusive=False, upper=100.0)
    ratio = as_float_array(ia_ratio, "ia_ratio", lower=0.0, upper=1.0)
    s_in = 1000.0 / cn_ - 10.0  # Eq. 2-4
    ia_in = ratio * s_in  # Eq. 2-2 generalised to lambda
    excess_in = np.clip(p_in - ia_in, 0.0, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        # CN = 100 with P = 0 gives 0/0 here; np.where discards that branch.
        q_in = np.where(excess_in > 0.0, excess_in**2 / (excess_in + s_in), 0.0)  # Eq. 2-3
    return like(q_in, precip_in, cn)
