"""Type aliases shared by the hydrocalc modules (foundation layer: no hydrocalc imports).

Inputs of the equation functions are :data:`numpy.typing.ArrayLike`; their results use one
alias, :data:`FloatOrArray`: a float for scalar inputs, an array for array inputs, and a
:class:`pandas.Series` (index kept) when an input was one.
"""

from __future__ import annotations

from typing import TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

__all__ = ["FloatOrArray"]

#: What an equation function returns: float, float64 array or pandas Series, following
#: the container of its inputs.
FloatOrArray: TypeAlias = float | npt.NDArray[np.float64] | pd.Series
