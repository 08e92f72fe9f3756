"""CLI command modules; each exposes ``COMMANDS`` (see :mod:`hydrocalc.cli`)."""
