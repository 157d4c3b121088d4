"""Data shipped with schedlab's sojourn experiments (read with importlib.resources)."""
