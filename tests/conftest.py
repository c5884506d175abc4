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

# CI's first run draws the same examples every time (a failure there reproduces as it
# is); tools/test's runs on other CPUs' arithmetic, and local runs, explore new ones from
# the seed tools/test prints (--hypothesis-seed), and local runs keep failures in
# .hypothesis/. REACH_EXPLORE asks for new examples under CI too.
settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("explore", print_blob=True)
if os.environ.get("REACH_EXPLORE"):
    settings.load_profile("explore")
elif os.environ.get("CI"):
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
