"""Success probabilities for a trace without outcomes: a choice of models, one assumption each.

The Philly trace records no job outcomes. The published shares (SenseTime Helios GPU jobs,
Hu et al., SC 2021: 62.4% completed, 22.1% cancelled, 15.5% failed) fix only the overall
mean. How success depends on what a scheduler knows of a job is not stated in any source read
here, so it is a model choice, swept from none to strong:

    pi_i = sigmoid(c + h * z_i),  c such that the mean of pi_i over the jobs read is 0.624,

with z_i in [-1, 1] a score of one job feature and h >= 0 the heterogeneity (0: every job
0.624, today's model; 1: odds of the extreme groups e^2 = 7.4 apart; 2: e^4 = 55 apart).
A negative h reverses a model's direction. The models (`SUCCESS_MODELS`):

- `uniform`: z = 0 (pi = 0.624 for every job, whatever h);
- `by-gpus`: z = 1 - log2(g) / 2 clipped to [-1, 1] (1 GPU: 1, 2: 0.5, 4: 0, 8: -0.5, 16 or
  more: -1). Assumption: wider jobs fail or are cancelled more often;
- `by-cluster`: z = a fixed pseudo-random score in [-1, 1] per virtual-cluster id (from the
  SHA-256 of its name, so the same id gets the same score in every file). Assumption:
  clusters (teams) differ in success rate, uncorrelated with job size;
- `by-duration`: z by the job's duration class (its recorded duration, which this outcome
  model takes as the success size the scheduler is told): under 10 min 1, 10 min to 1 h 1/3,
  1 h to 6 h -1/3, 6 h and more -1. Assumption: longer runs have more time to fail or be
  killed.

Cancelled and failed jobs both leave early, at a checkpoint, so only pi enters the model; the
remaining 1 - pi_i is spread over the job's checkpoints as before.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from schedlab.solvers.errors import InvalidInput

MEAN_SUCCESS = 0.624  # Helios GPU jobs completed (Hu et al., SC 2021)
SUCCESS_MODELS: dict[str, str] = {
    "uniform": "pi = 0.624 for every job",
    "by-gpus": "pi falls with the GPU count (1 GPU highest, 16 or more lowest)",
    "by-cluster": "pi differs by virtual cluster (fixed pseudo-random score per cluster id)",
    "by-duration": "pi falls with the duration class (<10 min, <1 h, <6 h, longer)",
}
DURATION_CLASSES_S = (600.0, 3600.0, 6 * 3600.0)  # class boundaries, seconds
MAX_HETEROGENEITY = 20.0


def feature_score(
    model: str,
    gpus: np.ndarray,
    duration_s: np.ndarray,
    cluster: np.ndarray,
    cluster_names: Sequence[str],
) -> np.ndarray:
    """z_i in [-1, 1] per job for `model` (see the module docstring)."""
    if model == "uniform":
        return np.zeros(len(gpus))
    if model == "by-gpus":
        return np.clip(1.0 - np.log2(np.asarray(gpus, dtype=float)) / 2.0, -1.0, 1.0)
    if model == "by-cluster":
        per = np.array([cluster_score(name) for name in cluster_names])
        return per[np.asarray(cluster, dtype=np.int64)]
    if model == "by-duration":
        cls = np.searchsorted(DURATION_CLASSES_S, np.asarray(duration_s), side="right")
        return 1.0 - 2.0 * cls / len(DURATION_CLASSES_S)
    raise InvalidInput(
        f"outcome_model: unknown {model!r}; choose one of {', '.join(SUCCESS_MODELS)}"
    )


def cluster_score(name: str) -> float:
    """A fixed score in [-1, 1] for a virtual-cluster id (SHA-256 of the name)."""
    digest = int.from_bytes(hashlib.sha256(name.encode()).digest()[:8], "big")
    return 2.0 * digest / 2**64 - 1.0


def calibrated_probs(z: np.ndarray, h: float, mean: float = MEAN_SUCCESS) -> np.ndarray:
    """pi_i = sigmoid(c + h z_i) with c chosen (bisection) so that mean(pi) = `mean`.

    h = 0 (or z = 0) gives exactly `mean` for every job.
    """
    if not 0 < mean < 1:
        raise InvalidInput(f"mean success probability: must lie in (0, 1) (got {mean})")
    if not abs(h) <= MAX_HETEROGENEITY:
        raise InvalidInput(
            f"heterogeneity: must lie in [-{MAX_HETEROGENEITY:g}, {MAX_HETEROGENEITY:g}] (got {h})"
        )
    z = np.asarray(z, dtype=float)
    if h == 0 or z.size == 0 or np.all(z == z[0]):
        return np.full(z.shape, mean)
    lo, hi = -60.0, 60.0
    for _ in range(200):  # the mean is increasing in c; 200 halvings reach float precision
        c = 0.5 * (lo + hi)
        if float(np.mean(_sigmoid(c + h * z))) < mean:
            lo = c
        else:
            hi = c
    return _sigmoid(0.5 * (lo + hi) + h * z)


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def success_probs(
    model: str,
    h: float,
    gpus: np.ndarray,
    duration_s: np.ndarray,
    cluster: np.ndarray,
    cluster_names: Sequence[str],
) -> np.ndarray:
    """The success probability of every job under `model` at heterogeneity `h`."""
    z = feature_score(model, gpus, duration_s, cluster, cluster_names)
    return calibrated_probs(z, h)


def describe(model: str, h: float) -> str:
    """One line for captions and JSON: the model, its heterogeneity and its assumption."""
    if model not in SUCCESS_MODELS:
        raise InvalidInput(
            f"outcome_model: unknown {model!r}; choose one of {', '.join(SUCCESS_MODELS)}"
        )
    if model == "uniform" or h == 0:
        return "success 0.624 for every job"
    return f"{model} (h = {h:g}): {SUCCESS_MODELS[model]}; mean 0.624"
