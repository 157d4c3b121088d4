"""Choosing a kernel backend: numpy (reference), cpu (numba, parallel) or cuda (numba CUDA)."""

from __future__ import annotations

from typing import Any, Literal, get_args

from schedlab.solvers.errors import InvalidInput

BackendName = Literal["auto", "numpy", "cpu", "cuda"]  # typed options use this
BACKENDS: tuple[str, ...] = get_args(BackendName)


def cuda_available() -> bool:
    """True when numba.cuda sees a usable NVIDIA GPU (or its simulator is switched on)."""
    try:
        from numba import cuda

        return bool(cuda.is_available())
    except Exception:  # noqa: BLE001 - a broken CUDA install means "no GPU"
        return False


def resolve_backend(name: str) -> str:
    """'auto' -> 'cuda' when a GPU is present, else 'cpu'; check the other names."""
    if name not in BACKENDS:
        raise InvalidInput(f"backend: unknown {name!r}; choose one of {', '.join(BACKENDS)}")
    if name == "auto":
        return "cuda" if cuda_available() else "cpu"
    if name == "cuda" and not cuda_available():
        raise InvalidInput(
            "backend: 'cuda' needs an NVIDIA GPU that numba.cuda can use "
            "(numba.cuda.is_available() is False here); use --backend cpu or numpy"
        )
    return name


def get_backend(name: str) -> Any:
    """A backend object (NumpyBackend, CpuBackend or CudaBackend) for `name` (may be 'auto')."""
    resolved = resolve_backend(name)
    if resolved == "numpy":
        from schedlab.solvers.kernels.numpy_ref import NumpyBackend

        return NumpyBackend()
    if resolved == "cpu":
        from schedlab.solvers.kernels.cpu import CpuBackend

        return CpuBackend()
    from schedlab.solvers.kernels.gpu import CudaBackend

    return CudaBackend()
