"""The console command runs OpenBLAS on one thread unless the user chose a thread count."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from schedlab.experiments.cli import BLAS_THREAD_VARS
from schedlab.experiments.sweep import default_workers

# what the entry point does first, then the BLAS threads numpy's OpenBLAS was loaded with
PROBE = (
    "from schedlab.experiments.cli import default_one_blas_thread\n"
    "default_one_blas_thread()\n"
    "import numpy, threadpoolctl\n"
    "info = [i for i in threadpoolctl.threadpool_info() if i['internal_api'] == 'openblas']\n"
    "print(info[0]['num_threads'])\n"
)


def _blas_threads(**env: str) -> int:
    base = {k: v for k, v in os.environ.items() if k not in BLAS_THREAD_VARS}
    out = subprocess.run([sys.executable, "-c", PROBE], env={**base, **env}, check=True,
                         capture_output=True, text=True)  # fmt: skip
    return int(out.stdout.strip())


# with one core OpenBLAS runs one thread anyway: neither check could tell the rule from none
TWO_CORES = pytest.mark.skipif(default_workers() < 2, reason="needs two cores to tell 1 from 2")


@TWO_CORES
def test_one_blas_thread_by_default() -> None:
    assert _blas_threads() == 1


@TWO_CORES
@pytest.mark.parametrize("var", ["OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"])
def test_the_users_choice_wins(var: str) -> None:
    assert _blas_threads(**{var: "2"}) == 2


def test_too_late_once_numpy_is_loaded(monkeypatch: pytest.MonkeyPatch) -> None:
    """In a process that already loaded numpy (this one) the variable would be a lie: untouched."""
    from schedlab.experiments.cli import default_one_blas_thread

    for var in BLAS_THREAD_VARS:
        monkeypatch.delenv(var, raising=False)
    import numpy  # noqa: F401

    default_one_blas_thread()
    assert not any(v in os.environ for v in BLAS_THREAD_VARS)
