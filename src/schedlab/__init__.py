"""schedlab: exact optima, heuristics and theory checks for scheduling ML jobs on GPU clusters.

The top-level folders of the repository are installed under this namespace, so that their
generic names cannot shadow another project's modules:

- `schedlab.solvers`: problem data, objectives, exact methods, heuristics, kernels;
- `schedlab.theory`: derivations and claim checks (may use `solvers`);
- `schedlab.experiments`: simulators, sweeps, figures and the `schedlab` command line.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__ = version("schedlab")
except PackageNotFoundError:  # pragma: no cover - running from an uninstalled tree
    __version__ = "0+unknown"

__all__ = ["__version__"]
