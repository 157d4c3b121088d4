# Types of the names `schedlab/__init__.py` loads on first use (PEP 562). They live in this stub,
# not in an `if TYPE_CHECKING:` block there, because a study's code version is the static import
# closure of its modules (experiments/codeversion.py): import lines in the package root would put
# every subject's facade into every study's closure.
from typing import Any

from schedlab.solvers.api import Result as Result
from schedlab.solvers.api import methods as methods
from schedlab.solvers.api import solve as solve
from schedlab.solvers.esg import api as esg
from schedlab.solvers.slaq import api as slaq
from schedlab.solvers.sojourn import api as sojourn
from schedlab.solvers.subjects import subjects as subjects
from schedlab.solvers.synergy import api as synergy

__version__: str
__all__ = [
    "__version__",
    "Result",
    "esg",
    "methods",
    "slaq",
    "sojourn",
    "solve",
    "subjects",
    "synergy",
]

def __getattr__(name: str) -> Any: ...
def __dir__() -> list[str]: ...
