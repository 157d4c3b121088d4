"""The ranges of SLAQ's inputs, declared once: the problem and curve loaders, the simulator and
the CLI's flags (their `--help` and their check) all read them from here.

No imports: the CLI reads this module at start-up without loading numpy.
"""

#: Jobs of one snapshot: the exact methods and the simulator are per job; 10^5 is far beyond a
#: real cluster and keeps the predictor fits (one per job) to seconds.
MAX_JOBS = 100_000
#: Cores of one snapshot (and `min_cores`): 10^7 is above any real cluster; the exact methods
#: are further bounded by the memory budget (their tables grow with jobs x free cores).
MAX_CORES = 10_000_000
#: An epoch: at most a day (3 s in the paper).
MAX_EPOCH_S = 86_400.0
#: Loss values per job (and per loss file): 10^5 iterations; the predictor fits every point.
MAX_LOSSES = 100_000
#: Simulated jobs: every job is refit each epoch it gains a point; 10^4 keeps a run to minutes.
SIM_MAX_JOBS = 10_000
#: Default work cap of the simulator (epochs); `--max-epochs` raises it.
MAX_EPOCHS = 100_000
#: Mean inter-arrival time of the simulator (s): at most about 30 years.
MAX_ARRIVAL_MEAN_S = 1e9
#: W_j of the simulator's workloads, core-seconds per iteration (`--w-min`, `--w-max`): from a
#: microsecond (an iteration is never instantaneous) to about 30,000 core-years.
MIN_CORE_S_PER_ITER = 1e-6
MAX_CORE_S_PER_ITER = 1e12
