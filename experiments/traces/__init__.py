"""Job traces shared by every subject (readers, validation and the shipped samples).

Subject-neutral: a subject adapts a trace to its own workload type; nothing here imports a
subject (checked by the import-linter contract in setup.cfg).
"""
