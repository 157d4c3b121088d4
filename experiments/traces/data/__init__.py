"""Trace samples shipped with schedlab (read with importlib.resources; see ATTRIBUTION.md)."""
