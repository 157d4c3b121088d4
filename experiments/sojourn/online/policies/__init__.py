"""Online policies, one module each, looked up by name (`POLICIES`)."""

from __future__ import annotations

from schedlab.experiments.sojourn.online.policies.base import Policy
from schedlab.experiments.sojourn.online.policies.fcfs import FCFS
from schedlab.experiments.sojourn.online.policies.gamma import Gamma
from schedlab.experiments.sojourn.online.policies.gittins import Gittins
from schedlab.experiments.sojourn.online.policies.oracle import Oracle
from schedlab.experiments.sojourn.online.policies.sept import SEPT
from schedlab.experiments.sojourn.online.policies.serpt import SERPT
from schedlab.experiments.sojourn.online.policies.smith import Smith
from schedlab.solvers.errors import InvalidInput

POLICIES: dict[str, type[Policy]] = {
    p.name: p for p in (FCFS, SEPT, Smith, Gamma, Gittins, SERPT, Oracle)
}
POLICY_NAMES = tuple(POLICIES)


def get_policy(name: str) -> Policy:
    """An instance of the policy called `name`."""
    try:
        return POLICIES[name]()
    except KeyError:
        raise InvalidInput(
            f"policy: unknown {name!r}; choose one of {', '.join(POLICY_NAMES)}"
        ) from None


__all__ = ["POLICIES", "POLICY_NAMES", "Policy", "get_policy"]
