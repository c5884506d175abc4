"""Joint limits as unit-row linear constraints: bounds, polygons, equalities."""

from __future__ import annotations

import numpy as np
import pytest

from solver import Dof, Figure, LinearLimits
from solver.limits import SparseRow, polygon_rows


def _random_convex_polygon(rng: np.random.Generator, m: int) -> np.ndarray:
    """A random convex polygon, counter-clockwise, on a rotated ellipse."""
    # Spread the angles so that no edge is nearly degenerate.
    angles = np.linspace(0.0, 2 * np.pi, m, endpoint=False) + rng.uniform(0, 0.5 / m, size=m)
    radii = rng.uniform(0.3, 1.5, size=2)
    turn = rng.uniform(0, np.pi)
    rotation = np.array([[np.cos(turn), -np.sin(turn)], [np.sin(turn), np.cos(turn)]])
    points = np.stack([radii[0] * np.cos(angles), radii[1] * np.sin(angles)], axis=1)
    return points @ rotation.T + rng.normal(scale=0.5, size=2)


def _inside_ccw(polygon: np.ndarray, point: np.ndarray) -> tuple[bool, float]:
    """Reference test for a CCW convex polygon: (inside, distance-like margin)."""
    edges = np.roll(polygon, -1, axis=0) - polygon
    rel = point - polygon
    cross = (edges[:, 0] * rel[:, 1] - edges[:, 1] * rel[:, 0]) / np.linalg.norm(edges, axis=1)
    return bool(np.all(cross >= 0.0)), float(np.min(np.abs(cross)))


def _inside_rows(rows: np.ndarray, offsets: np.ndarray, point: np.ndarray) -> bool:
    return bool(np.all(rows @ point - offsets >= 0.0))


@pytest.mark.parametrize("seed", range(10))
def test_polygon_rows_cw_and_ccw_give_the_same_region(seed: int) -> None:
    rng = np.random.default_rng(seed)
    ccw = _random_convex_polygon(rng, int(rng.integers(3, 9)))
    shift = int(rng.integers(len(ccw)))
    cw = np.roll(ccw[::-1], shift, axis=0)
    rows_ccw, off_ccw = polygon_rows(ccw, "ccw")
    rows_cw, off_cw = polygon_rows(cw, "cw")
    low, high = ccw.min(axis=0) - 0.5, ccw.max(axis=0) + 0.5
    inside_count = 0
    for point in rng.uniform(low, high, size=(400, 2)):
        expected, margin = _inside_ccw(ccw, point)
        if margin < 1e-9:
            continue
        assert _inside_rows(rows_ccw, off_ccw, point) is expected
        assert _inside_rows(rows_cw, off_cw, point) is expected
        inside_count += expected
    assert 0 < inside_count < 400  # the samples saw both sides


@pytest.mark.parametrize("seed", range(5))
def test_polygon_rows_are_unit_and_pass_through_their_edge(seed: int) -> None:
    rng = np.random.default_rng(seed)
    for polygon in (p := _random_convex_polygon(rng, 6), p[::-1].copy()):
        rows, offsets = polygon_rows(polygon, "p")
        assert rows.shape == (6, 2) and offsets.shape == (6,)
        np.testing.assert_allclose(np.linalg.norm(rows, axis=1), 1.0, atol=1e-15)
        following = np.roll(polygon, -1, axis=0)
        # Row k belongs to the edge from vertex k to vertex k + 1.
        np.testing.assert_allclose(np.einsum("ij,ij->i", rows, polygon), offsets, atol=1e-12)
        np.testing.assert_allclose(np.einsum("ij,ij->i", rows, following), offsets, atol=1e-12)
        # Every vertex is inside every edge's half-plane; the centroid strictly.
        assert np.all(rows @ polygon.T - offsets[:, None] >= -1e-12)
        assert np.all(rows @ polygon.mean(axis=0) - offsets > 0.0)


def test_polygon_rows_of_a_unit_square() -> None:
    square = np.array([(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)])
    rows, offsets = polygon_rows(square, "square")
    np.testing.assert_allclose(rows, [(0, 1), (-1, 0), (0, -1), (1, 0)], atol=1e-15)
    np.testing.assert_allclose(offsets, [0, -1, -1, 0], atol=1e-15)


def test_polygon_limit_rows_sit_on_the_polygon_dofs() -> None:
    fig = Figure()
    fig.add_segment("root", dofs=[Dof.translation("x")])
    fig.add_segment(
        "shoulder", parent="root", dofs=[Dof.rotation("x"), Dof.rotation("y"), Dof.rotation("z")]
    )
    # A triangle over (shoulder[2], shoulder[0]): θ3 horizontal, θ1 vertical.
    triangle = [(-0.5, -0.5), (0.5, -0.5), (0.0, 0.5)]
    fig.add_polygon_limit("shoulder", dofs=(2, 0), vertices=triangle)
    limits = fig.limits
    assert limits.a_in.shape == (3, 4)
    assert np.all(limits.a_in[:, [0, 2]] == 0.0)
    np.testing.assert_allclose(np.linalg.norm(limits.a_in, axis=1), 1.0, atol=1e-15)
    assert all("polygon of shoulder[2, 0]" in label for label in limits.in_labels)
    inside = np.array([9.0, 0.1, 5.0, 0.0])  # θ3 = 0, θ1 = 0.1
    outside = np.array([0.0, 0.4, 0.0, 0.4])  # θ3 = 0.4, θ1 = 0.4: right of the apex
    assert limits.max_violation(inside) == 0.0
    assert limits.max_violation(outside) > 0.0
    # named as the caller calls it (a control rig's control, not its skeleton bone)
    fig.add_polygon_limit("shoulder", dofs=(0, 1), vertices=triangle, name="polygon of arm_fk")
    assert fig.limits.in_labels[3:] == tuple(f"polygon of arm_fk edge {k}" for k in range(3))


def test_bound_rows_are_unit_with_labels() -> None:
    fig = Figure()
    fig.add_segment(
        "a",
        dofs=[
            Dof.rotation("x", lower=-1.0, upper=2.0),
            Dof.rotation("y"),
            Dof.translation("z", upper=0.5),
        ],
    )
    limits = fig.limits
    np.testing.assert_array_equal(limits.a_in, [[1, 0, 0], [-1, 0, 0], [0, 0, -1]])
    np.testing.assert_array_equal(limits.b_in, [-1.0, -2.0, -0.5])
    assert limits.in_labels == ("a[0] ≥ -1", "a[0] ≤ 2", "a[2] ≤ 0.5")
    assert limits.a_eq.shape == (0, 3)
    assert limits.b_eq.shape == (0,)


def test_figure_without_limits_has_empty_rows() -> None:
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x")])
    limits = fig.limits
    assert isinstance(limits, LinearLimits)
    assert limits.a_in.shape == (0, 1)
    assert limits.max_violation(np.array([1e6])) == 0.0
    assert limits.worst(np.array([1e6])) == ("", 0.0)


def test_equality_rows_are_unit() -> None:
    fig = Figure()
    fig.add_segment("spine1", dofs=[Dof.rotation("x")])
    fig.add_segment("spine2", parent="spine1", dofs=[Dof.rotation("x"), Dof.rotation("y")])
    fig.add_linear_equality({("spine1", 0): 3.0, ("spine2", 1): 4.0}, rhs=10.0)
    limits = fig.limits
    np.testing.assert_allclose(limits.a_eq, [[0.6, 0.0, 0.8]], atol=1e-15)
    np.testing.assert_allclose(limits.b_eq, [2.0], atol=1e-15)
    assert "spine1[0]" in limits.eq_labels[0] and "spine2[1]" in limits.eq_labels[0]
    # The constraint means the same after normalising: 3·θ0 + 4·θ2 = 10.
    assert limits.max_violation(np.array([2.0, 7.0, 1.0])) == pytest.approx(0.0, abs=1e-15)
    assert limits.max_violation(np.array([0.0, 0.0, 0.0])) == pytest.approx(2.0)


def test_max_violation_and_worst_pick_the_largest() -> None:
    fig = Figure()
    fig.add_segment(
        "a",
        dofs=[Dof.rotation("x", lower=-1.0, upper=1.0), Dof.rotation("y", lower=0.0)],
    )
    fig.add_linear_equality({("a", 0): 1.0, ("a", 1): -1.0}, rhs=0.0)
    limits = fig.limits
    feasible = np.array([0.5, 0.5])
    assert limits.max_violation(feasible) == 0.0
    assert limits.worst(feasible) == ("", 0.0)

    # a[0] is 0.3 above its upper bound; the equality is off by 0.2 / √2.
    theta = np.array([1.3, 1.5])
    assert limits.max_violation(theta) == pytest.approx(0.3)
    label, amount = limits.worst(theta)
    assert label == "a[0] ≤ 1"
    assert amount == pytest.approx(0.3)

    # Now the equality is the worst: off by 2 / √2 = √2, while a[1] is 1 below 0.
    theta = np.array([1.0, -1.0])
    eq, ineq = limits.violations(theta)
    np.testing.assert_allclose(eq, [2.0 / np.sqrt(2.0)])
    np.testing.assert_allclose(ineq, [0.0, 0.0, 1.0])
    label, amount = limits.worst(theta)
    assert label.startswith("equality #0")
    assert amount == pytest.approx(np.sqrt(2.0))
    assert limits.max_violation(theta) == pytest.approx(np.sqrt(2.0))


@pytest.mark.parametrize("seed", range(20))
def test_max_violation_is_the_largest_row_violation_and_worst_names_it(seed: int) -> None:
    from solver.limits import FEASIBLE, outside_limits

    rng = np.random.default_rng(seed)
    fig = _square_joint()
    fig.add_segment("b", parent="a", dofs=[Dof.rotation("x", lower=-0.3, upper=0.4)])
    if seed % 2:  # with an equality row, and without one
        fig.add_linear_equality({("a", 0): 1.0, ("b", 0): -1.0}, rhs=0.1)
    limits = fig.limits
    for _ in range(20):
        theta = rng.normal(scale=(0.3 if seed % 3 else 1e-9), size=4)
        eq, ineq = limits.violations(theta)
        largest = max(eq.max(initial=0.0), ineq.max(initial=0.0))
        assert limits.max_violation(theta) == largest  # exactly: the same numbers
        label, amount = limits.worst(theta)
        assert amount == largest
        if largest > 0.0:
            rows = [*limits.eq_labels, *limits.in_labels]
            assert label == rows[int(np.argmax(np.concatenate([eq, ineq])))]
        expected = (label, amount) if amount > FEASIBLE else None
        assert outside_limits(limits, theta) == expected


def test_violations_are_zero_on_the_boundary() -> None:
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x", lower=-1.0, upper=1.0)])
    eq, ineq = fig.limits.violations(np.array([1.0]))
    assert eq.shape == (0,)
    np.testing.assert_array_equal(ineq, [0.0, 0.0])


def _square_joint() -> Figure:
    """One joint: DOF 0 in [-1, 1], DOFs 1 and 2 in the square [-0.5, 0.5]² by a polygon."""
    fig = Figure()
    fig.add_segment(
        "a", dofs=[Dof.rotation("x", lower=-1.0, upper=1.0), Dof.rotation("y"), Dof.rotation("z")]
    )
    square = [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)]
    fig.add_polygon_limit("a", dofs=(1, 2), vertices=square)
    return fig


def test_outside_limits_is_none_inside_and_on_the_boundary() -> None:
    from solver.limits import outside_limits

    fig = _square_joint()
    assert outside_limits(fig.limits, np.array([0.2, 0.1, -0.3])) is None
    assert outside_limits(fig.limits, np.array([1.0, 0.5, -0.5])) is None
    assert outside_limits(fig.limits, np.array([1.0 + 1e-10, 0.0, 0.0])) is None


def test_outside_limits_names_the_most_violated_limit() -> None:
    from solver.limits import FEASIBLE, outside_limits

    fig = _square_joint()
    violated = outside_limits(fig.limits, np.array([1.2, 0.0, 0.9]))
    assert violated is not None
    label, amount = violated
    assert label.startswith("polygon of a[1, 2]")
    assert amount == pytest.approx(0.4)
    violated = outside_limits(fig.limits, np.array([1.0 + 10 * FEASIBLE, 0.0, 0.0]))
    assert violated == ("a[0] ≤ 1", pytest.approx(10 * FEASIBLE))


def test_clamp_to_limits_keeps_a_feasible_pose_and_clips_the_bounds() -> None:
    from solver.limits import clamp_to_limits

    fig = _square_joint()
    inside = np.array([0.3, -0.2, 0.4])
    np.testing.assert_array_equal(clamp_to_limits(inside, fig.limits, fig.lower, fig.upper), inside)
    clamped = clamp_to_limits(np.array([-1.7, 0.1, 0.2]), fig.limits, fig.lower, fig.upper)
    np.testing.assert_allclose(clamped, [-1.0, 0.1, 0.2])


@pytest.mark.parametrize("seed", range(5))
def test_clamp_to_limits_moves_a_pose_onto_the_nearest_point_of_a_polygon(seed: int) -> None:
    from solver.limits import clamp_to_limits

    fig = _square_joint()
    rng = np.random.default_rng(seed)
    for _ in range(20):
        theta = rng.uniform(-2.0, 2.0, 3)
        clamped = clamp_to_limits(theta, fig.limits, fig.lower, fig.upper)
        assert fig.limits.max_violation(clamped) <= 1e-9
        # the square's nearest point is the clip into it
        np.testing.assert_allclose(clamped[1:], np.clip(theta[1:], -0.5, 0.5), atol=1e-9)


def test_clamp_to_limits_meets_an_equality() -> None:
    from solver.limits import clamp_to_limits

    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x"), Dof.rotation("y", lower=-1.0, upper=1.0)])
    fig.add_linear_equality({("a", 0): 1.0, ("a", 1): -1.0}, rhs=0.0)
    clamped = clamp_to_limits(np.array([0.4, 0.0]), fig.limits, fig.lower, fig.upper)
    assert fig.limits.max_violation(clamped) <= 1e-12
    np.testing.assert_allclose(clamped, [0.2, 0.2])


def _grouped_chain(rng: np.random.Generator) -> Figure:
    """Five joints, each X bounded, their X turning together in fixed ratios (a group of
    five: four equalities), with a square polygon over the middle joint's X and Z."""
    fig = Figure()
    parent = None
    ratios = rng.uniform(0.3, 2.0, 5) * rng.choice([-1.0, 1.0], 5)
    for k in range(5):
        low, high = rng.uniform(-1.0, -0.1), rng.uniform(0.1, 1.0)
        fig.add_segment(
            f"s{k}",
            parent=parent,
            dofs=[Dof.rotation("x", lower=low, upper=high), Dof.rotation("z")],
        )
        parent = f"s{k}"
    for k in range(1, 5):
        fig.add_linear_equality({(f"s{k}", 0): ratios[0], ("s0", 0): -ratios[k]})
    fig.add_polygon_limit("s2", (0, 1), [(-0.6, -0.5), (0.6, -0.5), (0.6, 0.5), (-0.6, 0.5)])
    return fig


@pytest.mark.parametrize("seed", range(4))
def test_clamp_to_limits_ends_inside_a_group_of_five_at_the_nearest_pose(seed: int) -> None:
    # one row at a time stalled up to 0.06 rad outside such a group; the projection is
    # exact, and no pose inside is nearer (scipy's SLSQP on the same projection)
    from scipy.optimize import minimize

    from solver.limits import FEASIBLE, clamp_to_limits

    rng = np.random.default_rng(seed)
    fig = _grouped_chain(rng)
    limits = fig.limits
    for _ in range(10):
        theta = rng.uniform(-2.0, 2.0, fig.n_dofs)
        clamped = clamp_to_limits(theta, limits, fig.lower, fig.upper)
        assert limits.max_violation(clamped) <= 1e-12 < FEASIBLE
        peer = minimize(
            lambda x, t=theta: 0.5 * np.sum((x - t) ** 2),
            np.clip(theta, fig.lower, fig.upper),
            jac=lambda x, t=theta: x - t,
            constraints=[
                {"type": "eq", "fun": lambda x: limits.a_eq @ x - limits.b_eq},
                {"type": "ineq", "fun": lambda x: limits.a_in @ x - limits.b_in},
            ],
            method="SLSQP",
            options={"ftol": 1e-14, "maxiter": 500},
        )
        assert np.linalg.norm(clamped - theta) <= np.linalg.norm(peer.x - theta) + 1e-7


def test_clamp_to_limits_moves_only_the_free_dofs() -> None:
    from solver.limits import clamp_to_limits

    fig = _grouped_chain(np.random.default_rng(9))
    inside = clamp_to_limits(np.zeros(fig.n_dofs), fig.limits, fig.lower, fig.upper)
    free = np.zeros(fig.n_dofs, dtype=bool)
    free[[0, 2, 4, 5]] = True  # s0, s1, s2 X and s2 Z; s3 and s4 held where they are inside
    theta = np.where(free, 1.5, inside)
    limits = fig.limits.touching(free)
    clamped = clamp_to_limits(theta, limits, fig.lower, fig.upper, free=free)
    np.testing.assert_array_equal(clamped[~free], theta[~free])
    assert limits.max_violation(clamped) <= 1e-12


def test_clamp_to_limits_leaves_a_group_no_pose_can_keep_as_it_was() -> None:
    from solver.limits import clamp_to_limits

    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x", lower=0.5, upper=1.0), Dof.rotation("y")])
    fig.add_segment("b", parent="a", dofs=[Dof.rotation("x", lower=-1.0, upper=-0.5)])
    fig.add_linear_equality({("a", 0): 1.0, ("b", 0): -1.0})  # a.x = b.x: no pose
    theta = np.array([0.7, 0.3, -0.7])
    np.testing.assert_array_equal(clamp_to_limits(theta, fig.limits, fig.lower, fig.upper), theta)


def test_the_rows_known_from_the_limits_terms_are_the_dense_rows() -> None:
    # The inequality rows' products go by the nonzeros the limits were made of, before
    # and after keeping the rows that touch some DOFs; they are the dense products.
    rng = np.random.default_rng(12)
    n = 400
    rows = [SparseRow(((j, 1.0),), -1.0, f"{j} ≥ -1") for j in range(n)]
    rows += [SparseRow(((j, -1.0),), -1.0, f"{j} ≤ 1") for j in range(n)]
    rows += [SparseRow(((j, 0.6), (j + 1, -0.8)), -0.5, f"edge {j}") for j in range(0, n - 1, 3)]
    limits = LinearLimits.from_rows(n, rows, [])
    assert limits.rows_in.sparse
    theta = rng.normal(size=n)
    np.testing.assert_allclose(limits.rows_in @ theta, limits.a_in @ theta, rtol=1e-15)
    chosen = np.zeros(n, dtype=bool)
    chosen[rng.choice(n, 50, replace=False)] = True
    touching = limits.touching(chosen)
    dense = np.flatnonzero(np.any(limits.a_in[:, chosen] != 0.0, axis=1))
    assert touching.in_labels == tuple(limits.in_labels[k] for k in dense)
    np.testing.assert_array_equal(touching.a_in, limits.a_in[dense])
    np.testing.assert_allclose(touching.rows_in @ theta, touching.a_in @ theta, rtol=1e-15)


def test_max_violation_asked_again_answers_for_the_pose_as_it_is_now() -> None:
    """The last answer is kept for the same values (a result's pose, then the next solve's
    start): a pose changed in place, or the same numbers of another type, are measured."""
    fig = Figure()
    fig.add_segment("a", dofs=[Dof.rotation("x", lower=-1.0, upper=1.0)])
    fig.add_segment("b", parent="a", dofs=[Dof.rotation("x", lower=0.0, upper=2.0)])
    limits = fig.limits
    pose = np.array([0.5, 1.0])
    assert limits.max_violation(pose) == 0.0
    assert limits.max_violation(pose.copy()) == 0.0
    pose[0] = 1.5  # changed in place: measured again
    assert limits.max_violation(pose) == pytest.approx(0.5)
    assert limits.max_violation(np.array([0.0, -2.0])) == pytest.approx(2.0)
    assert limits.max_violation(np.array([0, -2], dtype=np.int64)) == pytest.approx(2.0)
    assert limits.max_violation(np.array([0.5, 1.0])) == 0.0
    assert limits.max_violation([1.0, 3.0]) == pytest.approx(1.0)  # a list, as numpy takes it
