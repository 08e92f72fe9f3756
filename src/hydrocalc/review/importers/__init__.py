"""Importers of other programs' printed output (HydroCAD reports) into hydrocalc site files."""
