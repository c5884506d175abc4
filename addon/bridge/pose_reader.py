"""Reading θ of many bones at once: every channel in one ``foreach_get``, rotations in batches.

Euler bones' angles are their channels; quaternion bones are converted to Euler angles
together, one batch per Euler order (:func:`solver.rotations.matrices_euler`), near
the previous θ as the bone-by-bone reading is. Bones whose joint has its own axes, and
axis-angle bones, are left to that reading (:func:`.pose.read_pose`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ...solver import rotations
from ..errors import BlenderDataError
from ..vocabulary import AXES
from .arrays import Array, IndexArray, channel, pose_rows
from .rig import BoneLayout, Rig

__all__ = ["PoseReader"]


@dataclass(frozen=True)
class _Group:
    """Bones read together.

    Their layout indices, rows in ``pose.bones``, and per bone and rotation DOF (first
    applied first) its index in θ and its axis (0–2).
    """

    numbers: IndexArray
    rows: IndexArray
    dofs: IndexArray
    axes: IndexArray

    @classmethod
    def of(cls, entries: list[tuple[int, BoneLayout]], rows: dict[str, int]) -> _Group:
        dofs = [[e.rotation + s for s in range(3)] for _, e in entries]
        axes = [[AXES.index(letter) for letter in e.order[::-1]] for _, e in entries]
        return cls(
            np.array([n for n, _ in entries], np.intp),
            np.array([rows[e.name] for _, e in entries], np.intp),
            np.array(dofs, np.intp).reshape(-1, 3),
            np.array(axes, np.intp).reshape(-1, 3),
        )

    def put(self, theta: Array, angles: Array) -> None:
        """Put Euler angles about X, Y, Z (one row a bone) into θ."""
        theta[self.dofs] = angles[np.arange(self.numbers.size)[:, None], self.axes]

    def near(self, theta: Array) -> Array:
        """The bones' rotation DOFs of θ as Euler angles about X, Y, Z."""
        angles = np.zeros((self.numbers.size, 3))
        angles[np.arange(self.numbers.size)[:, None], self.axes] = theta[self.dofs]
        return angles


class PoseReader:
    """Reads θ of a rig's bones from ``pose.bones`` with one read per channel kind.

    Args:
        obj: The armature object.
        rig: Its rig.
    """

    def __init__(self, obj: Any, rig: Rig) -> None:
        rows = pose_rows(obj.pose.bones)
        self.rows = rows
        """Each bone's row in ``pose.bones``, by name."""
        self.n_bones = len(rows)
        self.n_dofs = rig.figure.n_dofs
        self.names = [e.name for e in rig.layout]
        plain = [(n, e) for n, e in enumerate(rig.layout) if e.frame is None]
        self.euler = _Group.of([(n, e) for n, e in plain if e.mode in rotations.EULER_ORDERS], rows)
        self.quaternions = {
            order: _Group.of(chosen, rows)
            for order in rotations.EULER_ORDERS
            if (chosen := [(n, e) for n, e in plain if e.mode == "QUATERNION" and e.order == order])
        }
        self.others = [
            n
            for n, e in enumerate(rig.layout)
            if e.frame is not None or e.mode not in (*rotations.EULER_ORDERS, "QUATERNION")
        ]
        """Layout indices of the bones read one by one."""
        moving = [(n, e) for n, e in enumerate(rig.layout) if e.translation >= 0]
        self.location_numbers = np.array([n for n, _ in moving], np.intp)
        self.location_rows = np.array([rows[e.name] for _, e in moving], np.intp)
        self.location_dofs = np.array(
            [[e.translation + i for i in range(3)] for _, e in moving], np.intp
        ).reshape(-1, 3)

    def read(self, obj: Any, previous: Array | None) -> tuple[Array, dict[int, Array]]:
        """θ of every bone but :attr:`others` (zero there), and quaternions' matrices.

        The matrices are the quaternion bones' rotations, by layout index.

        Raises:
            BlenderDataError: A channel that is not finite, or a zero quaternion, naming
                the first such bone in the rig's order.
        """
        bones = obj.pose.bones
        theta = np.zeros(self.n_dofs)
        stored: dict[int, Array] = {}
        bad: list[tuple[int, str]] = []
        if self.euler.numbers.size:
            angles = channel(bones, "rotation_euler", 3).astype(float)[self.euler.rows]
            self._check(np.isfinite(angles).all(axis=1), self.euler.numbers, bad)
            self.euler.put(theta, angles)
        if self.quaternions:
            quaternions = channel(bones, "rotation_quaternion", 4).astype(float)
            for order, group in self.quaternions.items():
                values = quaternions[group.rows]
                finite = np.isfinite(values).all(axis=1)
                self._check(finite, group.numbers, bad)
                nonzero = values.any(axis=1)
                self._check(nonzero | ~finite, group.numbers, bad, zero=True)
                if bad:
                    continue
                compat = None if previous is None else group.near(previous)
                angles, matrices = rotations.quaternions_euler(values, order, compat)
                group.put(theta, angles)
                stored.update(zip(group.numbers.tolist(), matrices, strict=True))
        if self.location_rows.size:
            locations = channel(bones, "location", 3).astype(float)[self.location_rows]
            self._check(np.isfinite(locations).all(axis=1), self.location_numbers, bad)
            theta[self.location_dofs] = locations
        if bad:
            number, kind = min(bad)
            name = self.names[number]
            if kind == "zero":
                raise BlenderDataError(
                    f"bone '{name}' has a zero quaternion (0, 0, 0, 0), which is no "
                    "rotation; clear its rotation (Alt R) or set W to 1"
                )
            raise BlenderDataError(
                f"bone '{name}' has a non-finite (NaN or infinite) rotation or location; "
                "clear it (Alt R, Alt G) or set finite values"
            )
        return theta, stored

    @staticmethod
    def _check(
        good: NDArray[np.bool_],
        numbers: IndexArray,
        bad: list[tuple[int, str]],
        *,
        zero: bool = False,
    ) -> None:
        """Note the first bone (in the rig's order) whose values are not ``good``."""
        failing = numbers[~good]
        if failing.size:
            bad.append((int(failing.min()), "zero" if zero else "not finite"))
