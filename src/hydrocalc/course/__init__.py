"""The course and the explorer: lessons for students and an interactive what-if tool.

- :mod:`hydrocalc.course.learn` -- checks and helpers of the lessons in ``notebooks/learn/``;
- :mod:`hydrocalc.course.explorer` -- an interactive explorer (P, CN, impervious share, Tc,
  the pond outlet) for JupyterLab.

A product layer: it imports everything below it, never the report internals or the commands.
"""
