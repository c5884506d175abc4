"""Where each effector can possibly be: a ball around its chain's fixed pivot.

The certificate behind "not reachable". Only the problem's variables move; the highest
segment that holds a variable of an effector's line of ancestors turns about a pivot
that nothing moves (its parent's frame times its rest transform). Rotations keep the
distances between successive joints, so the effector point stays within the sum of
those distances of the pivot, measured with every variable translation at 0; a
translation DOF then adds at most its largest excursion, max(|lower|, |upper|). The
ball depends on the fixed DOFs alone, not on the pose of the variables. Any target
farther than that is out of reach whatever the joint limits say, and
the joint limits can only shrink the reachable set further. A ball is an outer bound:
a target inside it may still be out of reach (an inner hole, a limit).

The reachable-space test of Phillips, Zhao & Badler 1990 and Baerlocher & Boulic
2004, reduced to what can be proved cheaply on every drag event.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._checks import BoolArray, FloatArray, IntArray
from .figure import Figure

__all__ = ["ReachChains", "reach_balls"]


@dataclass(frozen=True)
class ReachChains:
    """What the balls need from the figure and the variables alone (built once).

    Attributes:
        pivots: Per leaf, the highest segment holding one of its variables, or −1 when
            no variable moves the effector.
        paths: Per leaf, the segments from the effector's up to that highest one.
        translations: Per leaf, the variable translation DOFs that move the effector.
    """

    pivots: IntArray
    paths: tuple[IntArray, ...]
    translations: tuple[IntArray, ...]

    @classmethod
    def build(cls, figure: Figure, variable_mask: BoolArray, effectors: IntArray) -> ReachChains:
        """Each leaf's pivot segment, chain and variable translations.

        Args:
            figure: The figure.
            variable_mask: Whether each DOF is a variable, shape (n_dofs,).
            effectors: Each leaf's effector segment, shape (m,).
        """
        kinematics = figure.kinematics
        parents = kinematics.segment_parent
        holds = np.zeros(kinematics.n_segments, dtype=bool)
        for k, segment in enumerate(figure.segments):
            holds[k] = bool(np.any(variable_mask[list(segment.dof_indices)]))
        pivots = np.full(len(effectors), -1, dtype=np.intp)
        paths: list[IntArray] = []
        translations: list[IntArray] = []
        for i, effector in enumerate(effectors):
            line = [int(effector)]
            while parents[line[-1]] >= 0:
                line.append(int(parents[line[-1]]))
            held = [depth for depth, k in enumerate(line) if holds[k]]
            top = held[-1] if held else -1
            pivots[i] = line[top] if held else -1
            paths.append(np.array(line[: top + 1], dtype=np.intp))
            moving = variable_mask & kinematics.moves[effector] & ~kinematics.dof_rotation
            translations.append(np.flatnonzero(moving))
        return cls(pivots, tuple(paths), tuple(translations))


def reach_balls(
    figure: Figure, chains: ReachChains, world: FloatArray, points: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """The ball each leaf's effector point stays in, whatever its variables do.

    Args:
        figure: The figure.
        chains: From :meth:`ReachChains.build` for the same variables.
        world: World frames of the pose (from :meth:`Kinematics.frames`, with the
            roots' parent last), shape (n_segments + 1, 4, 4), every variable
            translation at 0.
        points: The effector points at that pose, shape (m, 3).

    Returns:
        ``(centres, radii)``, shapes (m, 3) and (m,); a radius is +inf when a variable
        translation has no bound, 0 when nothing moves the effector (the centre is then
        the effector point itself).
    """
    m = points.shape[0]
    centres = points.copy()
    radii = np.zeros(m)
    origins = world[:, :3, 3]
    span = np.maximum(np.abs(figure.lower), np.abs(figure.upper))  # inf when unbounded
    for i in range(m):
        pivot = int(chains.pivots[i])
        if pivot < 0:
            continue
        segment = figure.segments[pivot]
        parent = int(figure.kinematics.segment_parent[pivot])
        centres[i] = (world[parent] @ segment.rest)[:3, 3]
        path = chains.paths[i]
        joints = np.concatenate((centres[i][None], origins[path[::-1]], points[i][None]))
        length = float(np.sqrt(((joints[1:] - joints[:-1]) ** 2).sum(axis=1)).sum())
        moving = chains.translations[i]
        if moving.size:
            scale = _translation_scale(world, path)
            length += float(span[moving].sum()) * scale
        radii[i] = length
    return centres, radii


def _translation_scale(world: FloatArray, path: IntArray) -> float:
    """The largest length scale of the frames along ``path`` (1 without scaled rests)."""
    columns = world[path, :3, :3]
    return max(1.0, float(np.sqrt((columns**2).sum(axis=1)).max()))
