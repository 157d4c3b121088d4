"""The subjects of schedlab, read from the packages: one fact, kept nowhere by hand.

A subject is a package of `schedlab.solvers` that is not one of the shared packages
(`SHARED_PACKAGES`: the array kernels, the exact back ends' kit, the linear-ordering engine).
Tests, studies and the command line that need the list call `subjects()`, so a new subject
package is checked, studied and listed the moment it exists; `tests/test_architecture.py` holds
`experiments/` and `theory/` to the same list.
"""

from __future__ import annotations

import functools
import importlib
import pkgutil

#: Packages of `schedlab.solvers` that serve every subject and are none: the array kernels, the
#: exact back ends' kit and the linear-ordering engine (whose problems, LOLIB matrices and PACE
#: graphs, form the "lop" scope of `solve`'s methods without being a subject).
SHARED_PACKAGES = frozenset({"kernels", "kit", "lop"})


@functools.cache
def subjects() -> tuple[str, ...]:
    """The subject names, sorted: the subpackages of `schedlab.solvers` minus the shared ones."""
    pkg = importlib.import_module("schedlab.solvers")
    found = {
        info.name
        for info in pkgutil.iter_modules(pkg.__path__)
        if info.ispkg and info.name not in SHARED_PACKAGES
    }
    return tuple(sorted(found))
