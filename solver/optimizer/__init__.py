"""Optimisation backends and their shared pieces: one module per job."""
