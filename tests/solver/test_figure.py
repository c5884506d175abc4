"""Figure building and queries: segments, DOF indexing, bounds, rigidity, caches."""

from __future__ import annotations

import numpy as np
import pytest
from helpers import random_figure_plan, random_theta
from reference import reference_forward

from solver import Dof, Figure, Segment, SolverInputError, kernel


def _three_segment_figure() -> Figure:
    fig = Figure()
    fig.add_segment("hips", dofs=[Dof.translation("z"), Dof.rotation("y", name="twist")])
    fig.add_segment("spine", parent="hips")
    fig.add_segment(
        "chest",
        parent="spine",
        dofs=[Dof.rotation("x", lower=0.2, upper=1.0), Dof.rotation("z", lower=-1.0, upper=-0.1)],
    )
    return fig


def test_n_dofs_counts_every_dof() -> None:
    fig = _three_segment_figure()
    assert fig.n_dofs == 4
    assert len(fig.dofs) == 4


def test_empty_figure_has_no_dofs() -> None:
    assert Figure().n_dofs == 0
    assert Figure().segments == ()


def test_dof_index_follows_add_segment_order() -> None:
    fig = _three_segment_figure()
    assert fig.dof_index("hips", 0) == 0
    assert fig.dof_index("hips", 1) == 1
    assert fig.dof_index("chest", 0) == 2
    assert fig.dof_index("chest", 1) == 3
    assert fig.dof_index("chest", np.int64(1)) == 3


@pytest.mark.parametrize("seed", range(5))
def test_dof_index_is_a_bijection_onto_theta(seed: int) -> None:
    rng = np.random.default_rng(seed)
    _, fig = random_figure_plan(rng, 8)
    indices = [fig.dof_index(s.name, k) for s in fig.segments for k in range(len(s.dofs))]
    assert indices == list(range(fig.n_dofs))


def test_segments_keep_names_parents_and_dof_ranges() -> None:
    fig = _three_segment_figure()
    segments = fig.segments
    assert [s.name for s in segments] == ["hips", "spine", "chest"]
    assert [s.parent for s in segments] == [None, "hips", "spine"]
    assert [s.index for s in segments] == [0, 1, 2]
    assert [s.first_dof for s in segments] == [0, 2, 2]
    assert list(segments[0].dof_indices) == [0, 1]
    assert list(segments[1].dof_indices) == []
    assert list(segments[2].dof_indices) == [2, 3]
    assert all(isinstance(s, Segment) for s in segments)
    assert fig.segment("spine") is segments[1]


def test_add_segment_returns_the_segment_with_its_rest_matrix() -> None:
    fig = Figure()
    rest = np.eye(4)
    rest[:3, 3] = (1.0, 2.0, 3.0)
    segment = fig.add_segment("a", rest=rest)
    np.testing.assert_array_equal(segment.rest, rest)
    assert segment.name == "a"
    assert segment.dofs == ()


def test_add_segment_copies_the_rest_matrix() -> None:
    fig = Figure()
    rest = np.eye(4)
    fig.add_segment("a", rest=rest)
    rest[0, 3] = 5.0
    np.testing.assert_array_equal(fig.forward(np.zeros(0))[0], np.eye(4))


def test_dof_label_names_segment_and_position() -> None:
    fig = _three_segment_figure()
    assert fig.dof_label(0) == "hips[0]"
    assert fig.dof_label(1) == "hips[1] (twist)"
    assert fig.dof_label(3) == "chest[1]"
    assert fig.dof_label(17) == "θ[17]"


def test_zero_pose_moves_zero_to_the_nearest_bound() -> None:
    fig = _three_segment_figure()
    np.testing.assert_array_equal(fig.zero_pose(), [0.0, 0.0, 0.2, -0.1])


@pytest.mark.parametrize("seed", range(5))
def test_zero_pose_is_within_every_limit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    _, fig = random_figure_plan(rng, 8)
    pose = fig.zero_pose()
    assert pose.shape == (fig.n_dofs,)
    assert fig.limits.max_violation(pose) == 0.0


def test_bounds_and_rigidity_arrays() -> None:
    fig = Figure()
    fig.add_segment(
        "a",
        dofs=[
            Dof.rotation("x", lower=-1.0),
            Dof.rotation("y", upper=2.0, rigidity=0.25),
            Dof.translation("z", lower=-0.5, upper=0.5, rigidity=1.0),
        ],
    )
    np.testing.assert_array_equal(fig.lower, [-1.0, -np.inf, -0.5])
    np.testing.assert_array_equal(fig.upper, [np.inf, 2.0, 0.5])
    np.testing.assert_array_equal(fig.rigidity, [0.0, 0.25, 1.0])


def test_equal_bounds_fix_a_dof() -> None:
    dof = Dof.rotation("x", lower=0.3, upper=0.3)
    assert dof.lower == dof.upper == 0.3


def test_adding_a_segment_invalidates_cached_kinematics() -> None:
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x")])
    first = fig.kinematics
    assert fig.kinematics is first  # cached while nothing changes
    assert fig.forward([0.1]).shape == (1, 4, 4)
    rest = np.eye(4)
    rest[1, 3] = 1.0
    fig.add_segment("b", parent="a", rest=rest, dofs=[Dof.translation("y")])
    assert fig.kinematics is not first
    frames = fig.forward([np.pi / 2, 0.5])
    assert frames.shape == (2, 4, 4)
    # b sits 1.5 along a's y axis, which the x rotation turned onto world z.
    np.testing.assert_allclose(frames[1][:3, 3], (0.0, 0.0, 1.5), atol=1e-15)


def test_adding_a_limit_invalidates_cached_limits() -> None:
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x"), Dof.rotation("y")])
    before = fig.limits
    assert before.a_in.shape == (0, 2)
    fig.add_polygon_limit("a", (0, 1), [(-1, -1), (1, -1), (0, 1)])
    assert fig.limits is not before
    assert fig.limits.a_in.shape == (3, 2)
    fig.add_linear_equality({("a", 0): 1.0, ("a", 1): -1.0})
    assert fig.limits.a_eq.shape == (1, 2)


def test_version_counts_changes() -> None:
    fig = Figure()
    start = fig.version
    fig.add_segment("a", dofs=[Dof.rotation("x"), Dof.rotation("y")])
    fig.add_polygon_limit("a", (0, 1), [(-1, -1), (1, -1), (0, 1)])
    fig.add_linear_equality({("a", 0): 1.0}, rhs=0.0)
    assert fig.version == start + 3


def test_check_theta_returns_a_float_copy() -> None:
    fig = _three_segment_figure()
    theta = [0, 1, 2, 3]
    checked = fig.check_theta(theta)
    assert checked.dtype == np.float64
    np.testing.assert_array_equal(checked, theta)


@pytest.mark.parametrize("seed", range(4))
def test_forward_matches_reference_after_incremental_building(seed: int) -> None:
    # The figure is queried after every add_segment: stale caches would show up here.
    rng = np.random.default_rng(seed)
    plan, full = random_figure_plan(rng, 6)
    fig = Figure()
    for k, seg in enumerate(full.segments):
        fig.add_segment(seg.name, parent=seg.parent, rest=seg.rest, dofs=seg.dofs)
        theta = rng.uniform(-1.0, 1.0, size=fig.n_dofs)
        partial = type(plan)(plan.segments[: k + 1])
        np.testing.assert_allclose(
            fig.forward(theta), reference_forward(partial, theta), atol=1e-12
        )
    theta = random_theta(rng, plan)
    np.testing.assert_allclose(fig.forward(theta), full.forward(theta), atol=0)


def test_arm_fixture_reaches_along_y(arm: Figure) -> None:
    assert [s.name for s in arm.segments] == ["shoulder", "elbow", "hand"]
    assert arm.n_dofs == 3
    np.testing.assert_allclose(arm.forward(arm.zero_pose())[2][:3, 3], (0.0, 0.6, 0.0))
    # Bending the elbow by 90° about x turns the hand's offset onto +z.
    np.testing.assert_allclose(
        arm.forward([0.0, 0.0, np.pi / 2])[2][:3, 3], (0.0, 0.3, 0.3), atol=1e-15
    )


def test_random_figure_fixture_is_seeded(random_figure, rng: np.random.Generator) -> None:
    first = random_figure(np.random.default_rng(7), 6)
    second = random_figure(np.random.default_rng(7), 6)
    assert first.n_dofs == second.n_dofs
    theta = rng.uniform(-1.0, 1.0, size=first.n_dofs)
    np.testing.assert_array_equal(first.forward(theta), second.forward(theta))
    assert [s.parent for s in first.segments] == [s.parent for s in second.segments]
    kinds = {d.kind for d in first.dofs}
    assert kinds == {"rotation", "translation"}


@pytest.mark.parametrize("scale", [1.0, 1.7])
def test_a_moved_figure_is_the_figure_carried_by_the_motion(
    scale: float, rng: np.random.Generator
) -> None:
    # An armature whose object moved: every segment's world frame is the motion times
    # its old one, on either path, and the joints' limits are the same.
    plan, fig = random_figure_plan(rng, 9)
    theta = random_theta(rng, plan)
    turn = np.linalg.qr(rng.normal(size=(3, 3)))[0]
    turn[:, 0] *= np.sign(np.linalg.det(turn))  # a rotation, not a mirror
    motion = np.eye(4)
    motion[:3, :3] = scale * turn
    motion[:3, 3] = rng.normal(size=3)
    # compiled before the move, which copies the kinematics and shares the limits
    assert fig.kinematics.n_dofs == fig.n_dofs and fig.limits.a_in.shape[1] == fig.n_dofs
    moved = fig.moved(motion)
    assert moved.n_dofs == fig.n_dofs and moved.limits is fig.limits
    expected = motion @ fig.forward(theta)
    for on in (True, False):
        with kernel.enabled(on):
            np.testing.assert_allclose(moved.forward(theta), expected, atol=1e-12 * scale)
            axes, pivots = moved.kinematics.dof_axes(moved.kinematics.frames(theta))
            _, got_axes, got_pivots = moved.kinematics.pose(theta)
            np.testing.assert_allclose(got_axes, axes, atol=1e-12)
            np.testing.assert_allclose(got_pivots, pivots, atol=1e-12 * scale)
    fresh = Figure()  # built from scratch with the moved rests: the same kinematics
    for segment in moved.segments:
        fresh.add_segment(segment.name, segment.parent, segment.rest, list(segment.dofs))
    np.testing.assert_allclose(fresh.forward(theta), expected, atol=1e-12 * scale)
    with pytest.raises(SolverInputError, match="uniform positive"):
        fig.moved(np.diag([1.0, 2.0, 1.0, 1.0]))


def test_a_figure_moved_frame_after_frame_keeps_its_motions_exactly(
    rng: np.random.Generator,
) -> None:
    # A moving armature's figure is carried along on every frame: numpy's frames, made
    # on first use after many moves, agree with the kernel's, and each copy knows the
    # motion that made it.
    plan, fig = random_figure_plan(rng, 7)
    theta = random_theta(rng, plan)
    expected = fig.forward(theta)
    moved = fig
    for _ in range(70):  # more than a copy leaves to its first use
        turn = np.linalg.qr(np.eye(3) + 0.05 * rng.normal(size=(3, 3)))[0]
        turn[:, 0] *= np.sign(np.linalg.det(turn))
        motion = np.eye(4)
        motion[:3, :3] = turn
        motion[:3, 3] = 0.1 * rng.normal(size=3)
        before, moved = moved, moved.moved(motion)
        np.testing.assert_array_equal(before.motion_to(moved), motion)
        expected = motion @ expected
    with kernel.enabled(False):
        numpy_frames = moved.forward(theta)
    with kernel.enabled(True):
        kernel_frames = moved.forward(theta)
    np.testing.assert_allclose(numpy_frames, expected, atol=1e-12)
    np.testing.assert_allclose(kernel_frames, numpy_frames, atol=1e-12)
    # another figure's motion is measured from the roots' rests
    other = fig.moved(np.eye(4))
    np.testing.assert_allclose(
        moved.motion_to(other) @ moved.segments[0].rest, other.segments[0].rest, atol=1e-12
    )
