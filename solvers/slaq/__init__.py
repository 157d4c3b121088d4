"""SLAQ (Zhang et al., SoCC 2017): loss prediction and quality-driven allocation of cores.

Methods (registered in `schedlab.solvers.solve.METHODS`, scope "slaq"): greedy (SLAQ's
heap), maxmin (water-filling), fair (fair share), enum, milp and cpsat (exact).
"""
