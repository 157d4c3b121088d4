"""Compile the per-order functions of `arith` to PTX with NVVM (no GPU needed); run by
test_cuda_sim.py when a CUDA toolkit is installed. Prints one line per function, then OK."""

from __future__ import annotations

from numba import boolean, cuda, float64, int64, uint8, void
from numba.types import UniTuple

from schedlab.solvers.kernels import arith

V = float64[:]
T2 = float64[:, ::1]
SIGS = {
    "lop_pair16": (arith.lop_pair16, UniTuple(float64, 2)(int64[:], int64[:], T2, V)),
    "lop_pair8": (arith.lop_pair8, UniTuple(float64, 2)(int64[:], int64[:], T2, V)),
    "trunc_value": (
        arith.trunc_value,
        float64(int64[:], V, V, V, int64, boolean, float64[:], float64[:]),
    ),
    "mc_accumulate": (
        arith.mc_accumulate,
        void(int64[:], T2, uint8[:, ::1], int64, int64, int64, int64, V),
    ),
    "best_insertion": (arith.best_insertion, void(int64[:], T2, T2, V)),
    "insertion_sweep": (
        arith.insertion_sweep,
        void(int64[:], int64[:], int64[:], T2, T2, float64, V),
    ),
}


def main() -> None:
    for name, (func, sig) in SIGS.items():
        ptx, _ = cuda.compile_ptx(func, sig, device=True, cc=(8, 0))
        # the lanes of the factor form must stay in registers: no local-memory arrays
        assert not name.startswith("lop_") or ".local" not in ptx, name
        print(name, len(ptx), "fma.rn.f64:", ptx.count("fma.rn.f64"))
    print("OK")


if __name__ == "__main__":
    main()
