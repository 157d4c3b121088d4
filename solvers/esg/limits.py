"""The ranges of ESG's inputs, declared once: the application loader, the generator, the
simulator and the CLI's flags (their `--help` and their check) all read them from here.

No imports: the CLI reads this module at start-up without loading numpy.
"""

#: Batch sizes 1..MAX_BATCH; at most MAX_FUNCTIONS functions of MAX_CONFIGS configurations.
MAX_BATCH = 1_000_000
MAX_FUNCTIONS = 1_000
MAX_CONFIGS = 100_000
#: `schedlab esg generate --stages`: at most 64 (a file of about 6 MB at 960 configurations;
#: `generate()` in Python takes up to MAX_FUNCTIONS).
MAX_GENERATED_STAGES = 64
#: `generate`: configurations per function, the largest grid of data/profiles.json (8 batch
#: sizes x 6 vCPU counts x 20 MPS shares; a test checks the two agree).
MAX_GENERATED_CONFIGS = 960
#: `generate --cpu-configs`: CPU-only configurations per function, the CPU grid of
#: `generate.py` (6 batch sizes x 5 vCPU counts).
MAX_CPU_CONFIGS = 30
#: Models whose measured A100 MIG profiles ship in data/ (`generate.measured_configs`, see
#: data/ATTRIBUTION.md); here so that `schedlab esg generate --help` lists them.
MEASURED_MODELS = ("bert", "densenet121", "mobilenetv2", "resnet50")
#: The simulator: requests, invokers, offered load, cold start (ms).
MAX_REQUESTS = 10_000_000
MAX_INVOKERS = 10_000
MAX_LOAD = 2.0
MAX_COLD_START_MS = 3.6e6
#: What `--load` means, in one place (the CLI's help, the simulator, docs/esg.md): every
#: application gets the same request rate r, chosen so that r x D = load x C, where D is the
#: GPU-ms per request summed over the applications' functions, each at its batch-1
#: configuration of least GPU time (gpu_share x latency_ms; any batch when a function has no
#: batch-1 configuration, per request), and C = invokers x GPUs per invoker x 1,000 GPU-ms/s.
#: Load 1: those configurations would keep every invoker's GPU busy.
LOAD_DEFINITION = (
    "Load L: every application gets the same request rate r with r x D = L x C, where D is the "
    "GPU-ms per request summed over the applications' functions, each at its batch-1 "
    "configuration of least GPU time (gpu_share x latency_ms; per request at any batch when it "
    "has none; CPU-only configurations, gpu_share 0, do not count), and C = invokers x GPUs per "
    "invoker x 1000 GPU-ms per second; load 1: those configurations would keep every "
    "invoker's GPU busy."
)
