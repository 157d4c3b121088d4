"""schedlab: exact optima, heuristics and theory checks for scheduling ML jobs on GPU clusters.

The Python API (docs/api.md)::

    import schedlab as sl

    problem = sl.sojourn.generate(jobs=8, seed=1, objective="B")  # or sl.sojourn.load(path)
    result = sl.solve(problem, "dp", time_limit=10)  # a Result: prints, to_dict(), to_frame()
    sl.methods(problem)  # the methods that solve it

`sl.sojourn`, `sl.synergy`, `sl.slaq` and `sl.esg` (each with `generate(..., seed=...)` and
`load(path)`), `sl.solve`, `sl.methods` and `sl.subjects` are loaded on first use (PEP 562), so
`import schedlab` imports no solver (no PuLP, OR-Tools or numba).

The top-level folders of the repository are installed under this namespace, so that their
generic names cannot shadow another project's modules:

- `schedlab.solvers`: problem data, objectives, exact methods, heuristics, kernels;
- `schedlab.theory`: derivations and claim checks (may use `solvers`);
- `schedlab.experiments`: simulators, sweeps, figures and the `schedlab` command line.
"""

from __future__ import annotations

import importlib
from importlib.metadata import PackageNotFoundError, version
from typing import Any

try:
    __version__ = version("schedlab")
except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
    __version__ = "0+unknown"

#: Each lazily loaded name: (module, attribute; "" for the module itself).
_LAZY = {
    "sojourn": ("schedlab.solvers.sojourn.api", ""),
    "synergy": ("schedlab.solvers.synergy.api", ""),
    "slaq": ("schedlab.solvers.slaq.api", ""),
    "esg": ("schedlab.solvers.esg.api", ""),
    "solve": ("schedlab.solvers.api", "solve"),
    "methods": ("schedlab.solvers.api", "methods"),
    "Result": ("schedlab.solvers.api", "Result"),
    "subjects": ("schedlab.solvers.subjects", "subjects"),
}

#: The public names: the version and every lazily loaded name, derived from `_LAZY` so the two
#: cannot drift (`__init__.pyi` spells the same list out for type checkers).
__all__ = ["__version__", *sorted(_LAZY)]


def __getattr__(name: str) -> Any:
    """Load a subject's facade or the solve API the first time it is used (PEP 562)."""
    if name not in _LAZY:
        raise AttributeError(f"module 'schedlab' has no attribute {name!r}")
    module, attr = _LAZY[name]
    value = importlib.import_module(module)
    value = getattr(value, attr) if attr else value
    globals()[name] = value  # later uses skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
