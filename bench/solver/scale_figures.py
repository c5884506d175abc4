"""The chains and trees of ``bench.solver.scale``, from 10 to 600 DOFs, and their position goals."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from solver import Constraint, Dof, Effector, Figure, Problem, goals

MAX_LEAVES = 20
"""Most leaves of a tree figure."""
BRANCH_ANGLE = 0.5
"""Angle [rad] between a split's child limb and its parent's direction, about local Z."""
DOF_AXES = (("x", 0.6), ("z", 0.6), ("y", 0.4))
"""Each segment's rotations in order, with their symmetric bounds [rad]."""


@dataclass(frozen=True)
class Scaled:
    """A synthetic figure and where its effectors may go.

    Attributes:
        kind: ``"chain"`` or ``"tree"``.
        figure: The figure.
        bone: Length of every segment [m].
        sites: Candidate effector segments (chain: every segment, root first; tree: the
            leaves, in build order), each with its reach (bone length from the root to
            the segment's tail) [m].
        leaves: Number of leaves (1 for the chain).
    """

    kind: str
    figure: Figure
    bone: float
    sites: tuple[tuple[str, float], ...]
    leaves: int


def segment_dofs(count: int) -> list[Dof]:
    return [Dof.rotation(axis, lower=-bound, upper=bound) for axis, bound in DOF_AXES[:count]]


def rest_matrix(offset: float, turn_z: float = 0.0, turn_y: float = 0.0) -> np.ndarray:
    """Joint frame ``offset`` along the parent's +Y, turned about Y and then about Z."""
    cz, sz = math.cos(turn_z), math.sin(turn_z)
    cy, sy = math.cos(turn_y), math.sin(turn_y)
    about_z = np.array([[cz, -sz, 0.0], [sz, cz, 0.0], [0.0, 0.0, 1.0]])
    about_y = np.array([[cy, 0.0, sy], [0.0, 1.0, 0.0], [-sy, 0.0, cy]])
    matrix = np.eye(4)
    matrix[:3, :3] = about_y @ about_z
    matrix[1, 3] = offset
    return matrix


def dof_split(n_dofs: int) -> list[int]:
    """DOFs per segment: 3 each, the last one the remainder."""
    segments = -(-n_dofs // 3)
    return [3] * (segments - 1) + [n_dofs - 3 * (segments - 1)]


def chain_figure(n_dofs: int) -> Scaled:
    counts = dof_split(n_dofs)
    bone = 1.0 / len(counts)
    figure = Figure()
    parent = None
    sites = []
    for k, count in enumerate(counts):
        name = f"seg{k}"
        figure.add_segment(name, parent, rest_matrix(0.0 if k == 0 else bone), segment_dofs(count))
        sites.append((name, (k + 1) * bone))
        parent = name
    return Scaled("chain", figure, bone, tuple(sites), 1)


def tree_layout(leaves: int) -> list[tuple[int, int]]:
    """Limbs of a balanced binary tree over ``leaves`` leaves, as (parent limb, leaves).

    Limb 0 is the root (parent −1); a limb over more than one leaf splits into two
    children over ceil(half) and floor(half) of its leaves. Breadth-first order.
    """
    limbs = [(-1, leaves)]
    k = 0
    while k < len(limbs):
        count = limbs[k][1]
        if count > 1:
            limbs.append((k, (count + 1) // 2))
            limbs.append((k, count // 2))
        k += 1
    return limbs


def tree_figure(n_dofs: int) -> Scaled:
    counts = dof_split(n_dofs)
    segments = len(counts)
    leaves = max(1, min(MAX_LEAVES, (segments + 1) // 2))
    limbs = tree_layout(leaves)
    per_limb = [
        segments // len(limbs) + (1 if k < segments % len(limbs) else 0) for k in range(len(limbs))
    ]
    depth = [0] * len(limbs)  # segments from the root to each limb's tail
    for k, (parent, _) in enumerate(limbs):
        above = depth[parent] if parent >= 0 else 0
        depth[k] = above + per_limb[k]
    bone = 1.0 / max(depth)
    figure = Figure()
    tails: list[str] = []
    sites = []
    first_child: dict[int, bool] = {}
    dof_iter = iter(counts)
    for k, (parent, count) in enumerate(limbs):
        above = tails[parent] if parent >= 0 else None
        for j in range(per_limb[k]):
            name = f"limb{k}.{j}"
            if above is None:
                rest = rest_matrix(0.0)
            elif j == 0:
                sign = 1.0 if first_child.setdefault(parent, True) else -1.0
                first_child[parent] = False
                rest = rest_matrix(bone, sign * BRANCH_ANGLE, 0.5 * math.pi)
            else:
                rest = rest_matrix(bone)
            figure.add_segment(name, above, rest, segment_dofs(next(dof_iter)))
            above = name
        tails.append(str(above))
        if count == 1:
            sites.append((str(above), depth[k] * bone))
    return Scaled("tree", figure, bone, tuple(sites), leaves)


def build(kind: str, n_dofs: int) -> Scaled:
    return chain_figure(n_dofs) if kind == "chain" else tree_figure(n_dofs)


def skip_reason(scaled: Scaled, n_dofs: int, constraints: int) -> str | None:
    if scaled.kind == "chain" and 3 * constraints > n_dofs:
        return f"3 x {constraints} position constraints > {n_dofs} DOFs"
    if scaled.kind == "tree" and constraints > scaled.leaves:
        return f"{constraints} constraints > {scaled.leaves} leaves"
    return None


def choose_sites(scaled: Scaled, constraints: int) -> list[tuple[str, float]]:
    """``constraints`` sites spread evenly; on the chain the last is the tip."""
    count = len(scaled.sites)
    if scaled.kind == "chain":
        picks = [round((k + 1) * count / constraints) - 1 for k in range(constraints)]
    else:
        picks = [round(x) for x in np.linspace(0, count - 1, constraints)]
    return [scaled.sites[k] for k in picks]


def make_problem(
    scaled: Scaled, sites: list[tuple[str, float]], targets: np.ndarray | None = None
) -> Problem:
    points = np.zeros((len(sites), 3)) if targets is None else targets
    constraints = [
        Constraint(Effector(name, point=(0.0, scaled.bone, 0.0)), goals.Position(point), name=name)
        for (name, _), point in zip(sites, points, strict=True)
    ]
    return Problem(scaled.figure, constraints)
