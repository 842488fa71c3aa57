"""Marker only: the probe is loaded by name (``-p tddgit_probe``) from this directory,
which the runner puts on PYTHONPATH; nothing here may import tddgit."""
