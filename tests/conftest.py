"""Shared fixtures: seeded generators and random figures (see ``helpers.py``)."""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np
import pytest
from helpers import FigurePlan, random_figure_plan
from hypothesis import settings
from problems import three_segment_arm

from solver import Figure

# The add-on's tests run inside Blender (bpy), in environments of their own: tools/test
# runs them with --confcutdir=tests/addon, so this file is not loaded there.
collect_ignore = ["addon"]

# CI draws the same examples on every run (a failure there is reproducible); local runs
# explore new ones and keep failures in .hypothesis/.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")


@pytest.fixture
def rng() -> np.random.Generator:
    """A generator with a fixed seed: every run draws the same numbers."""
    return np.random.default_rng(20240521)


@pytest.fixture
def random_figure() -> Callable[..., Figure]:
    """``random_figure(rng, n_segments, chain=False, scale=True, max_dofs=3)`` → Figure."""

    def build(rng: np.random.Generator, n_segments: int, **options: bool | int) -> Figure:
        return random_figure_plan(rng, n_segments, **options)[1]  # type: ignore[arg-type]

    return build


@pytest.fixture
def random_figure_with_plan() -> Callable[..., tuple[FigurePlan, Figure]]:
    """Like ``random_figure``, also returning the raw plan for the reference FK."""
    return random_figure_plan


@pytest.fixture
def arm() -> Figure:
    """The three-segment arm of :func:`problems.three_segment_arm`, 0.3 between joints."""
    return three_segment_arm()
