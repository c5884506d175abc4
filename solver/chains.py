"""Chain reconciliation: the leaves and terms of G_all and the DOFs each leaf moves.

Constraints and :class:`~solver.constraint.AnyOf` sets are flattened into leaf
constraints, grouped by the terms of G_all. Each leaf's chain runs from its effector's
segment up to its chain start (or the root); the problem's variables are the union of
the chains (Zhao & Badler 1994, §10).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ._checks import BoolArray, FloatArray
from .constraint import AnyOf, CentreOfMass, Constraint
from .exceptions import SolverInputError
from .figure import Figure

__all__ = [
    "Term",
    "chain_length",
    "chains",
    "combine",
    "constraint_items",
    "effector_frames",
    "flatten",
    "leaf_weights",
    "regroup",
]


@dataclass(frozen=True)
class Term:
    """One summand of G_all: a constraint, or a disjunctive set of them.

    Attributes:
        weight: Weight of the term (a constraint's own weight, or the AnyOf's).
        members: Indices of the leaf constraints in :attr:`Problem.leaves`.
        disjunctive: True for an AnyOf (the term is ``weight · min_j w_j G_j``).
    """

    weight: float
    members: tuple[int, ...]
    disjunctive: bool


def constraint_items(constraints: object) -> list[Constraint | AnyOf]:
    """A problem's constraints as a list, checked to be a non-empty sequence.

    Raises:
        SolverInputError: For a single constraint or anything else that is not a
            sequence, or an empty one.
    """
    if isinstance(constraints, (Constraint, AnyOf)) or not isinstance(constraints, Sequence):
        raise SolverInputError(
            "Problem needs a list of constraints (solver.Constraint or solver.AnyOf), got "
            f"{type(constraints).__name__}; wrap a single constraint in a list"
        )
    items = list(constraints)
    if not items:
        raise SolverInputError("Problem needs at least one constraint; the list is empty")
    return items


def effector_frames(leaves: Sequence[Constraint]) -> FloatArray:
    """Each leaf's effector in its segment: point (homogeneous), x and y axes, (m, 4, 3)."""
    local = np.zeros((len(leaves), 4, 3))
    for i, leaf in enumerate(leaves):
        local[i, :3, 0] = leaf.effector.point
        local[i, 3, 0] = 1.0
        local[i, :3, 1] = leaf.effector.x_axis
        local[i, :3, 2] = leaf.effector.y_axis
    return local


def flatten(
    items: Sequence[Constraint | AnyOf],
) -> tuple[tuple[Constraint, ...], tuple[Term, ...]]:
    """The leaf constraints of ``items`` in order, and one term per item.

    Raises:
        SolverInputError: For an item that is neither a Constraint nor an AnyOf.
    """
    leaves: list[Constraint] = []
    terms: list[Term] = []
    for k, item in enumerate(items):
        if isinstance(item, Constraint):
            terms.append(Term(1.0, (len(leaves),), False))
            leaves.append(item)
        elif isinstance(item, AnyOf):
            first = len(leaves)
            leaves.extend(item.constraints)
            terms.append(Term(item.weight, tuple(range(first, len(leaves))), True))
        else:
            raise SolverInputError(
                f"constraint {k} must be a solver.Constraint or solver.AnyOf, "
                f"got {type(item).__name__}"
            )
    return tuple(leaves), tuple(terms)


def chains(figure: Figure, leaves: Sequence[Constraint]) -> tuple[tuple[list[int], ...], BoolArray]:
    """Each leaf's chain: its segments, and the DOFs they hold.

    Returns:
        ``(paths, mask)``: per leaf, the segment indices from the effector's segment up
        to the chain start (or the root), in order; and ``mask[i, j]``, whether DOF j is
        in leaf i's chain, shape (len(leaves), n_dofs).

    Raises:
        SolverInputError: For an effector on an unknown segment, or a chain start that
            is not the effector's segment or one of its ancestors.
    """
    mask = np.zeros((len(leaves), figure.n_dofs), dtype=bool)
    paths: list[list[int]] = []
    for i, leaf in enumerate(leaves):
        if isinstance(leaf.effector, CentreOfMass):
            parts = _mass_paths(figure, leaf)
            path = max(parts, key=len)
        else:
            parts = [_path(figure, figure.segment(leaf.effector.segment).index, leaf)]
            path = parts[0]
        paths.append(path)
        for index in {k for part in parts for k in part}:
            mask[i, figure.segments[index].dof_indices] = True
    return tuple(paths), mask


def _mass_paths(figure: Figure, leaf: Constraint) -> list[list[int]]:
    """The chains of a centre of mass's parts: each part below the chain start (or all).

    Raises:
        SolverInputError: For an unknown segment, or a chain start with no part below it.
    """
    effector = leaf.effector
    assert isinstance(effector, CentreOfMass)
    start = None if leaf.chain_start is None else figure.segment(leaf.chain_start).index
    parents = figure.kinematics.segment_parent
    paths: list[list[int]] = []
    for name, _, _ in effector.parts:
        current, path = figure.segment(name).index, []
        while current >= 0:
            path.append(current)
            if current == start:
                break
            current = int(parents[current])
        if start is None or path[-1] == start:
            paths.append(path)
    if not paths:
        raise SolverInputError(
            f"{leaf.name}: no segment with a mass lies below chain_start {leaf.chain_start!r}",
            item=leaf.name,
        )
    return paths


def _path(figure: Figure, segment: int, leaf: Constraint) -> list[int]:
    """Segments from the effector's up to the chain start (or the root), in order."""
    parents = figure.kinematics.segment_parent
    start = None if leaf.chain_start is None else figure.segment(leaf.chain_start).index
    current = segment
    path: list[int] = []
    while current >= 0:
        path.append(current)
        if current == start:
            break
        current = int(parents[current])
    if start is not None and path[-1] != start:
        raise SolverInputError(
            f"{leaf.name}: chain_start {leaf.chain_start!r} is not segment "
            f"{leaf.effector.segment!r} or one of its ancestors",
            item=leaf.name,
        )
    return path


def chain_length(world: FloatArray, path: Sequence[int], point: FloatArray) -> float:
    """Length of a chain: from its first joint through its segments' joints to ``point``.

    Args:
        world: World matrices of the segments, shape (n_segments, 4, 4) or more rows.
        path: The chain's segments, from the effector's up (as from :func:`chains`).
        point: The effector's world point, shape (3,).
    """
    joints = np.array([world[k][:3, 3] for k in reversed(path)] + [point])
    return float(np.sqrt(((joints[1:] - joints[:-1]) ** 2).sum(axis=1)).sum())


def combine(
    terms: Sequence[Term], weights: FloatArray, weighted: FloatArray
) -> tuple[float, FloatArray]:
    """G_all from the leaves' weighted potentials, and each leaf's coefficient in it.

    A disjunctive term counts its smallest member only, times the set's weight; the
    other members' coefficients are 0.

    Args:
        terms: The terms of G_all.
        weights: Each leaf's own weight, shape (m,).
        weighted: Each leaf's weight times its potential, shape (m,).
    """
    total = 0.0
    coefficient = np.zeros(len(weighted))
    for term in terms:
        members = term.members
        if term.disjunctive:
            best = members[int(np.argmin(weighted[list(members)]))]
            total += term.weight * float(weighted[best])
            coefficient[best] = term.weight * weights[best]
        else:
            total += float(weighted[members[0]])
            coefficient[members[0]] = weights[members[0]]
    return total, coefficient


def leaf_weights(terms: Sequence[Term], weights: FloatArray) -> FloatArray:
    """Each leaf's weight in G_all when it counts: its own, times its set's if it has one.

    A leaf in no term (an ``AnyOf``'s member that :meth:`.Problem.with_member` left out)
    weighs 0.
    """
    result = np.zeros(len(weights))
    for term in terms:
        for member in term.members:
            result[member] = (term.weight if term.disjunctive else 1.0) * weights[member]
    return result


def regroup(
    terms: Sequence[Term], items: Sequence[Constraint | AnyOf], leaves: Sequence[Constraint]
) -> tuple[Constraint | AnyOf, ...]:
    """``items`` rebuilt around new ``leaves`` (same terms): the inverse of :func:`flatten`."""
    result: list[Constraint | AnyOf] = []
    for term, item in zip(terms, items, strict=True):
        if isinstance(item, AnyOf):
            result.append(AnyOf([leaves[k] for k in term.members], item.weight, name=item.name))
        else:
            result.append(leaves[term.members[0]])
    return tuple(result)
