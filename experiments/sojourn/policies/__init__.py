"""Online sojourn policies, one module each (`policy_*.py`), registered in `POLICIES`.

`get_policy(name)` builds the registered policy `name`; `policy_names()` lists them:
non-preemptive ones first, then preemptive ones, then those that read realized outcomes
(the oracle reference), each group in registration order.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from schedlab.experiments.registry import POLICIES

if TYPE_CHECKING:  # kept light: registry discovery imports this package for `schedlab --help`
    from schedlab.experiments.sojourn.policies.base import Policy

SUBJECT = "sojourn"


def get_policy(name: str) -> Policy:
    """An instance of the registered sojourn policy `name` (InvalidInput naming the choices)."""
    entry = POLICIES.get(name, scope=SUBJECT)
    policy: Policy = entry.obj(name=entry.name, summary=entry.summary, **entry.meta)
    return policy


def policy_names() -> tuple[str, ...]:
    """Registered sojourn policies: non-preemptive, preemptive, then outcome-reading ones."""
    entries = POLICIES.entries(scope=SUBJECT)
    ranked = sorted(
        entries, key=lambda e: (e.meta.get("uses_outcomes", False), e.meta["preemptive"])
    )
    return tuple(e.name for e in ranked)


__all__ = ["get_policy", "policy_names"]
