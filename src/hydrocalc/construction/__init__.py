"""Construction-phase controls: sediment traps and basins, and the inspections of the local laws.

- :mod:`hydrocalc.construction.sediment` -- storage criteria, basin geometry, MUSLE sediment
  yield and the cleanout schedule of sediment traps and basins (NYS Blue Book);
- :mod:`hydrocalc.construction.inspections` -- qualified-professional inspections (every 7 days
  and within 24 hours of a storm of 0.5 in or more) and advance notices.

This layer imports the foundation, the hydrology core and the criteria and law layer (the
local laws' conditions); never the site file, the analysis or the products.
"""
