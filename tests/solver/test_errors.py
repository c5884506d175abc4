"""Bad input raises solver.SolverInputError (a ValueError) naming the item.

Non-convergence and unreachable goals are results, never errors.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import raises_input_error

import solver
from solver import AnyOf, Constraint, Dof, Effector, Figure, Problem, goals, solve
from solver.goals import commensurate

BAD_NUMBERS = [np.nan, np.inf, -np.inf]
X = (1.0, 0.0, 0.0)
Y = (0.0, 1.0, 0.0)
SQUARE = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]


def _arm() -> Figure:
    offset = np.eye(4)
    offset[1, 3] = 0.5
    fig = Figure()
    fig.add_segment("upper_arm", dofs=[Dof.rotation("x", lower=-1.0, upper=1.0), Dof.rotation("z")])
    fig.add_segment(
        "forearm", parent="upper_arm", rest=offset, dofs=[Dof.rotation("x", lower=0.0, upper=2.5)]
    )
    fig.add_segment("hand", parent="forearm", rest=offset)
    fig.add_segment("head", dofs=[Dof.rotation("y")])
    return fig


def _problem(fig: Figure | None = None) -> Problem:
    fig = fig or _arm()
    return Problem(fig, [Constraint(Effector("hand"), goals.Position((0.0, 0.5, 0.5)))])


def test_solver_input_error_is_a_value_error_and_a_reach_error() -> None:
    assert issubclass(solver.SolverInputError, ValueError)
    assert issubclass(solver.SolverInputError, solver.ReachError)
    error = solver.SolverInputError("bad", item="segment 'a'")
    assert error.item == "segment 'a'"


# -- figure: segments ------------------------------------------------------------------


def test_add_segment_raises_if_name_is_duplicate() -> None:
    fig = _arm()
    with raises_input_error("duplicate segment name 'forearm'") as info:
        fig.add_segment("forearm", parent="upper_arm")
    assert info.value.item == "segment 'forearm'"


@pytest.mark.parametrize("name", ["", None, 3])
def test_add_segment_raises_if_name_is_not_a_non_empty_string(name: object) -> None:
    with raises_input_error("segment name must be a non-empty string"):
        Figure().add_segment(name)  # type: ignore[arg-type]


def test_add_segment_raises_if_parent_does_not_exist() -> None:
    with raises_input_error("segment 'b': parent 'nowhere' does not exist"):
        _arm().add_segment("b", parent="nowhere")


def test_add_segment_leaves_figure_unchanged_when_it_raises() -> None:
    fig = _arm()
    with raises_input_error("does not exist"):
        fig.add_segment("b", parent="nowhere")
    assert [s.name for s in fig.segments] == ["upper_arm", "forearm", "hand", "head"]
    assert fig.n_dofs == 4


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_segment_raises_if_rest_matrix_is_not_finite(bad: float) -> None:
    rest = np.eye(4)
    rest[1, 3] = bad
    with raises_input_error("segment 'b': rest matrix holds NaN or infinite"):
        _arm().add_segment("b", rest=rest)


def test_add_segment_raises_if_rest_matrix_has_wrong_shape() -> None:
    with raises_input_error(r"rest matrix must have shape \(4, 4\)"):
        Figure().add_segment("a", rest=np.eye(3))


def test_add_segment_raises_if_rest_matrix_last_row_is_not_0001() -> None:
    rest = np.eye(4)
    rest[3, 0] = 0.5
    with raises_input_error(r"last row must be \(0, 0, 0, 1\)"):
        Figure().add_segment("a", rest=rest)


@pytest.mark.parametrize(
    "linear",
    [
        np.diag([1.0, 2.0, 1.0]),  # non-uniform scale
        np.array([[1.0, 0.5, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]),  # shear
        np.diag([-1.0, 1.0, 1.0]),  # mirror
        np.zeros((3, 3)),  # collapse
    ],
)
def test_add_segment_raises_if_rest_matrix_is_not_a_similarity(linear: np.ndarray) -> None:
    rest = np.eye(4)
    rest[:3, :3] = linear
    with raises_input_error("rest matrix must be a rotation times a uniform positive scale"):
        Figure().add_segment("a", rest=rest)


def test_add_segment_raises_if_dofs_is_a_bare_dof() -> None:
    # A single Dof where a list is expected is bad input, not a TypeError.
    with raises_input_error("segment 'a'.*DOF"):
        Figure().add_segment("a", dofs=Dof.rotation("x"))  # type: ignore[arg-type]


def test_add_segment_raises_if_a_dof_is_not_a_dof() -> None:
    with raises_input_error("segment 'a': DOF 1 must be a solver.Dof"):
        Figure().add_segment("a", dofs=[Dof.rotation("x"), "y"])  # type: ignore[list-item]


def test_kinematics_raises_if_figure_has_no_segments() -> None:
    with raises_input_error("the figure has no segments"):
        Figure().forward(np.zeros(0))


# -- figure: DOFs ----------------------------------------------------------------------


@pytest.mark.parametrize("make", [Dof.rotation, Dof.translation])
def test_dof_raises_if_axis_is_zero(make: object) -> None:
    with raises_input_error("zero vector"):
        make((0.0, 0.0, 0.0))  # type: ignore[operator]


@pytest.mark.parametrize("axis", ["w", "xy", ""])
def test_dof_raises_if_axis_name_is_unknown(axis: str) -> None:
    with raises_input_error(r"unknown axis .*choose 'x', 'y', 'z' or a 3-vector"):
        Dof.rotation(axis)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_dof_raises_if_axis_is_not_finite(bad: float) -> None:
    with raises_input_error("axis holds NaN or infinite"):
        Dof.rotation((bad, 1.0, 0.0))


def test_dof_raises_if_axis_has_wrong_shape() -> None:
    with raises_input_error(r"axis must have shape \(3,\)"):
        Dof.rotation((1.0, 0.0))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_dof_raises_if_lower_bound_is_not_finite(bad: float) -> None:
    with raises_input_error("DOF 'elbow' lower bound must be finite"):
        Dof.rotation("x", lower=bad, upper=1.0, name="elbow")


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_dof_raises_if_upper_bound_is_not_finite(bad: float) -> None:
    with raises_input_error("DOF upper bound must be finite"):
        Dof.translation("x", upper=bad)


def test_dof_raises_if_lower_is_above_upper() -> None:
    with raises_input_error("DOF 'knee': lower bound 1.0 is above upper bound -1.0"):
        Dof.rotation("x", lower=1.0, upper=-1.0, name="knee")


@pytest.mark.parametrize("rigidity", [-0.1, 1.5, 2.0])
def test_dof_raises_if_rigidity_is_outside_0_1(rigidity: float) -> None:
    with raises_input_error(r"rigidity must be in \[0, 1\]"):
        Dof.rotation("x", rigidity=rigidity)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_dof_raises_if_rigidity_is_not_finite(bad: float) -> None:
    with raises_input_error("rigidity must be finite"):
        Dof.rotation("x", rigidity=bad)


def test_dof_raises_if_kind_is_unknown() -> None:
    with raises_input_error("DOF kind must be 'rotation' or 'translation'"):
        Dof("twist", (1.0, 0.0, 0.0))  # type: ignore[arg-type]


def test_dof_index_raises_if_segment_is_unknown() -> None:
    with raises_input_error("unknown segment 'tail'; the figure has 'upper_arm', 'forearm'"):
        _arm().dof_index("tail", 0)


@pytest.mark.parametrize("position", [2, -1, 1.0, "0"])
def test_dof_index_raises_if_dof_position_is_unknown(position: object) -> None:
    with raises_input_error(r"segment 'upper_arm' has no DOF .*it has 2 \(positions 0..1\)"):
        _arm().dof_index("upper_arm", position)  # type: ignore[arg-type]


def test_segment_raises_if_unknown() -> None:
    with raises_input_error("unknown segment 'tail'") as info:
        _arm().segment("tail")
    assert info.value.item == "segment 'tail'"


# -- figure: polygon limits ------------------------------------------------------------


def test_add_polygon_limit_raises_if_segment_is_unknown() -> None:
    with raises_input_error("unknown segment 'shoulder'"):
        _arm().add_polygon_limit("shoulder", (0, 1), SQUARE)


@pytest.mark.parametrize("dofs", [(0, 2), (5, 1), (0, -1)])
def test_add_polygon_limit_raises_if_dof_position_is_unknown(dofs: tuple[int, int]) -> None:
    with raises_input_error("segment 'upper_arm' has no DOF"):
        _arm().add_polygon_limit("upper_arm", dofs, SQUARE)


@pytest.mark.parametrize("dofs", [(0, 0), (0,), (0, 1, 1), 0])
def test_add_polygon_limit_raises_if_dofs_are_not_two_different(dofs: tuple[int, ...]) -> None:
    with raises_input_error("dofs must be two different DOF positions"):
        _arm().add_polygon_limit("upper_arm", dofs, SQUARE)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_polygon_limit_raises_if_a_vertex_is_not_finite(bad: float) -> None:
    vertices = [(-1.0, -1.0), (1.0, bad), (0.0, 1.0)]
    with raises_input_error("polygon limit on 'upper_arm': vertices holds NaN or infinite"):
        _arm().add_polygon_limit("upper_arm", (0, 1), vertices)


def test_add_polygon_limit_raises_if_polygon_is_not_convex() -> None:
    arrow = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.5), (0.0, 2.0)]
    with raises_input_error("polygon limit on 'upper_arm': the polygon is not convex at vertex 3"):
        _arm().add_polygon_limit("upper_arm", (0, 1), arrow)


def test_add_polygon_limit_raises_if_polygon_is_not_convex_in_clockwise_order() -> None:
    arrow = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.5), (0.0, 2.0)][::-1]
    with raises_input_error("not convex"):
        _arm().add_polygon_limit("upper_arm", (0, 1), arrow)


def test_add_polygon_limit_raises_if_polygon_intersects_itself() -> None:
    # A pentagram turns the same way at every vertex but winds around twice.
    angles = np.arange(5) * 4 * np.pi / 5
    star = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    with raises_input_error("winds around more than once"):
        _arm().add_polygon_limit("upper_arm", (0, 1), star)


def test_add_polygon_limit_raises_if_vertices_are_collinear() -> None:
    # Vertex 1 lies on the edge from vertex 0 to vertex 2.
    vertices = [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (1.0, 1.0)]
    with raises_input_error("degenerate polygon, vertices 0, 1 and 2 are collinear"):
        _arm().add_polygon_limit("upper_arm", (0, 1), vertices)


def test_add_polygon_limit_raises_if_a_vertex_is_repeated() -> None:
    vertices = [(0.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0)]
    with raises_input_error("degenerate polygon, vertices 1 and 2 coincide"):
        _arm().add_polygon_limit("upper_arm", (0, 1), vertices)


def test_add_polygon_limit_raises_if_polygon_is_closed_by_repeating_the_first_vertex() -> None:
    vertices = [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)]
    with raises_input_error("degenerate polygon, vertices 3 and 0 coincide"):
        _arm().add_polygon_limit("upper_arm", (0, 1), vertices)


@pytest.mark.parametrize(
    "vertices",
    [
        [(0.0, 0.0), (1.0, 0.0), (0.5, 0.0)],  # all on one line
        [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)],  # a bow tie: its halves cancel
    ],
)
def test_add_polygon_limit_raises_if_polygon_has_zero_area(vertices: list) -> None:
    with raises_input_error("degenerate polygon"):
        _arm().add_polygon_limit("upper_arm", (0, 1), vertices)


def test_add_polygon_limit_raises_if_polygon_has_zero_area_message() -> None:
    with raises_input_error("degenerate polygon with zero area"):
        _arm().add_polygon_limit("upper_arm", (0, 1), [(0.0, 0.0), (1.0, 0.0), (0.5, 0.0)])


@pytest.mark.parametrize("vertices", [[(0.0, 0.0)], [(0.0, 0.0), (1.0, 1.0)]])
def test_add_polygon_limit_raises_if_fewer_than_3_vertices(vertices: list) -> None:
    with raises_input_error("a polygon needs at least 3 vertices"):
        _arm().add_polygon_limit("upper_arm", (0, 1), vertices)


@pytest.mark.parametrize("vertices", [[], [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [[(0, 0)]], "abc"])
def test_add_polygon_limit_raises_if_vertices_are_not_pairs(vertices: object) -> None:
    with raises_input_error("vertices must be|vertices must be numeric"):
        _arm().add_polygon_limit("upper_arm", (0, 1), vertices)  # type: ignore[arg-type]


def test_add_polygon_limit_leaves_limits_unchanged_when_it_raises() -> None:
    fig = _arm()
    before = fig.limits.a_in.shape
    with raises_input_error("not convex"):
        fig.add_polygon_limit("upper_arm", (0, 1), [(0, 0), (2, 0), (2, 2), (1, 0.5), (0, 2)])
    assert fig.limits.a_in.shape == before


# -- figure: linear equalities ---------------------------------------------------------


def test_add_linear_equality_raises_if_segment_is_unknown() -> None:
    with raises_input_error("unknown segment 'spine9'"):
        _arm().add_linear_equality({("upper_arm", 0): 1.0, ("spine9", 0): -1.0})


def test_add_linear_equality_raises_if_dof_position_is_unknown() -> None:
    with raises_input_error("segment 'forearm' has no DOF 1"):
        _arm().add_linear_equality({("forearm", 1): 1.0})


@pytest.mark.parametrize("key", ["upper_arm", ("upper_arm",), ("upper_arm", 0, 1)])
def test_add_linear_equality_raises_if_key_is_not_a_pair(key: object) -> None:
    with raises_input_error(r"keys must be \(segment, dof\) pairs"):
        _arm().add_linear_equality({key: 1.0})  # type: ignore[dict-item]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_linear_equality_raises_if_coefficient_is_not_finite(bad: float) -> None:
    with raises_input_error("linear equality: coefficient of .*'forearm', 0.* must be finite"):
        _arm().add_linear_equality({("upper_arm", 0): 1.0, ("forearm", 0): bad})


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_linear_equality_raises_if_rhs_is_not_finite(bad: float) -> None:
    with raises_input_error("linear equality: rhs must be finite"):
        _arm().add_linear_equality({("upper_arm", 0): 1.0}, rhs=bad)


@pytest.mark.parametrize("coefficients", [{}, {("upper_arm", 0): 0.0}])
def test_add_linear_equality_raises_if_every_coefficient_is_zero(coefficients: dict) -> None:
    with raises_input_error("every coefficient is zero"):
        _arm().add_linear_equality(coefficients)


# -- effectors, goals, constraints -----------------------------------------------------


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_effector_raises_if_point_is_not_finite(bad: float) -> None:
    with raises_input_error("Effector on 'hand': point holds NaN or infinite"):
        Effector("hand", point=(0.0, bad, 0.0))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_effector_raises_if_axis_is_not_finite(bad: float) -> None:
    with raises_input_error("Effector on 'hand' y axis holds NaN or infinite"):
        Effector("hand", y_axis=(0.0, bad, 0.0))


def test_effector_raises_if_axes_are_not_orthogonal() -> None:
    s = np.sqrt(0.5)
    with raises_input_error(
        r"Effector on 'hand': x and y axes must be orthogonal, got x·y = 0.7071"
    ):
        Effector("hand", x_axis=(1.0, 0.0, 0.0), y_axis=(s, s, 0.0))


@pytest.mark.parametrize(
    ("x_axis", "y_axis", "which"),
    [((2.0, 0.0, 0.0), Y, "x"), (X, (0.0, 0.5, 0.0), "y"), (X, (0.0, 0.0, 0.0), "y")],
)
def test_effector_raises_if_an_axis_is_not_unit(x_axis: tuple, y_axis: tuple, which: str) -> None:
    with raises_input_error(f"Effector on 'hand': {which} axis must be a unit vector"):
        Effector("hand", x_axis=x_axis, y_axis=y_axis)


def test_effector_raises_if_point_has_wrong_shape() -> None:
    with raises_input_error(r"point must have shape \(3,\)"):
        Effector("hand", point=(0.0, 1.0))


@pytest.mark.parametrize("segment", ["", None, 7])
def test_effector_raises_if_segment_is_not_a_name(segment: object) -> None:
    with raises_input_error("Effector: segment must be a segment name"):
        Effector(segment)  # type: ignore[arg-type]


GOAL_MAKERS = {
    "Position": lambda p: goals.Position(p),
    "Orientation": None,
    "PositionOrientation": lambda p: goals.PositionOrientation(p, X, Y),
    "Aim": lambda p: goals.Aim(p),
    "Line": lambda p: goals.Line(p, (0.0, 0.0, 1.0)),
    "Plane": lambda p: goals.Plane(p, (0.0, 0.0, 1.0)),
    "HalfSpace": lambda p: goals.HalfSpace(p, (0.0, 0.0, 1.0)),
}


@pytest.mark.parametrize("bad", BAD_NUMBERS)
@pytest.mark.parametrize("kind", [k for k, v in GOAL_MAKERS.items() if v is not None])
def test_goal_raises_if_point_is_not_finite(kind: str, bad: float) -> None:
    with raises_input_error(f"{kind} goal point holds NaN or infinite"):
        GOAL_MAKERS[kind]((0.0, 0.0, bad))  # type: ignore[misc]


@pytest.mark.parametrize(
    ("make", "what"),
    [
        (lambda v: goals.Line((0, 0, 0), v), "Line goal direction"),
        (lambda v: goals.Plane((0, 0, 0), v), "Plane goal normal"),
        (lambda v: goals.HalfSpace((0, 0, 0), v), "HalfSpace goal normal"),
    ],
)
def test_geometric_goal_raises_if_axis_is_zero(make: object, what: str) -> None:
    with raises_input_error(f"{what} is a zero vector"):
        make((0.0, 0.0, 0.0))  # type: ignore[operator]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_plane_raises_if_normal_is_not_finite(bad: float) -> None:
    with raises_input_error("Plane goal normal holds NaN or infinite"):
        goals.Plane((0, 0, 0), (0.0, bad, 1.0))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_orientation_raises_if_an_axis_is_not_finite(bad: float) -> None:
    with raises_input_error("Orientation goal x axis holds NaN or infinite"):
        goals.Orientation((bad, 0.0, 0.0), Y)


def test_orientation_raises_if_axes_are_not_orthonormal() -> None:
    with raises_input_error("Orientation goal: x and y axes must be orthogonal"):
        goals.Orientation(X, X)
    with raises_input_error("Orientation goal: y axis must be a unit vector"):
        goals.Orientation(X, (0.0, 3.0, 0.0))


def test_position_orientation_raises_if_axes_are_not_orthonormal() -> None:
    with raises_input_error("Orientation goal: x and y axes must be orthogonal"):
        goals.PositionOrientation((0, 0, 0), X, (1.0, 0.0, 0.0))


@pytest.mark.parametrize("name", ["c_dx", "c_dy"])
@pytest.mark.parametrize("value", [-0.1, np.nan])
def test_orientation_raises_if_weight_is_negative_or_nan(name: str, value: float) -> None:
    with raises_input_error(f"Orientation goal {name} must be"):
        goals.Orientation(X, Y, **{name: value})


@pytest.mark.parametrize("value", [-0.1, np.inf])
def test_aim_raises_if_c_d_is_negative_or_infinite(value: float) -> None:
    with raises_input_error("Aim goal c_d must be"):
        goals.Aim((0, 0, 1), c_d=value)


@pytest.mark.parametrize("value", [-0.1, 1.1])
def test_position_orientation_raises_if_w_position_is_outside_0_1(value: float) -> None:
    with raises_input_error(r"w_position must be in \[0, 1\]"):
        goals.PositionOrientation((0, 0, 0), X, Y, w_position=value)


def test_position_orientation_raises_if_w_position_is_nan() -> None:
    with raises_input_error("w_position must be finite"):
        goals.PositionOrientation((0, 0, 0), X, Y, w_position=np.nan)


@pytest.mark.parametrize(
    ("degrees", "length", "message"),
    [
        (0.0, 0.01, r"degrees must be in \(0, 360\)"),
        (360.0, 0.01, r"degrees must be in \(0, 360\)"),
        (-5.0, 0.01, r"degrees must be in \(0, 360\)"),
        (5.0, 0.0, "length must be > 0"),
        (5.0, -1.0, "length must be > 0"),
        (np.nan, 0.01, "degrees must be finite"),
        (5.0, np.inf, "length must be finite"),
    ],
)
def test_commensurate_raises_if_angle_or_length_is_out_of_range(
    degrees: float, length: float, message: str
) -> None:
    with raises_input_error(f"commensurate: {message}"):
        commensurate(degrees, length)


def test_goal_potential_raises_if_state_is_not_finite() -> None:
    with raises_input_error("point holds NaN"):
        goals.Position((0, 0, 0)).potential((np.nan, 0, 0), X, Y)


@pytest.mark.parametrize("weight", [-1.0, -1e-12])
def test_constraint_raises_if_weight_is_negative(weight: float) -> None:
    with raises_input_error("Constraint on 'hand': weight must be ≥ 0"):
        Constraint(Effector("hand"), goals.Position((0, 0, 0)), weight=weight)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_constraint_raises_if_weight_is_not_finite(bad: float) -> None:
    with raises_input_error("reach on 'hand': weight must be finite"):
        Constraint(Effector("hand"), goals.Position((0, 0, 0)), weight=bad, name="reach")


def test_constraint_raises_if_effector_is_not_an_effector() -> None:
    with raises_input_error("effector must be a solver.Effector"):
        Constraint("hand", goals.Position((0, 0, 0)))  # type: ignore[arg-type]


def test_constraint_raises_if_goal_is_not_a_goal() -> None:
    with raises_input_error("goal must be one of solver.goals .*Position.*HalfSpace"):
        Constraint(Effector("hand"), (0.0, 0.0, 0.0))  # type: ignore[arg-type]


@pytest.mark.parametrize("start", ["", 5])
def test_constraint_raises_if_chain_start_is_not_a_name(start: object) -> None:
    with raises_input_error("chain_start must be a segment name or None"):
        Constraint(Effector("hand"), goals.Position((0, 0, 0)), chain_start=start)  # type: ignore[arg-type]


def _member() -> Constraint:
    return Constraint(Effector("hand"), goals.Position((0, 0, 0)))


def test_any_of_raises_if_weight_is_negative() -> None:
    with raises_input_error("AnyOf weight must be ≥ 0"):
        AnyOf([_member()], weight=-0.5)


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_any_of_raises_if_weight_is_not_finite(bad: float) -> None:
    with raises_input_error("AnyOf weight must be finite"):
        AnyOf([_member()], weight=bad)


def test_any_of_raises_if_empty() -> None:
    with raises_input_error("AnyOf needs at least one constraint"):
        AnyOf([])


def test_any_of_raises_if_a_member_is_not_a_constraint() -> None:
    with raises_input_error("AnyOf member 1 must be a solver.Constraint"):
        AnyOf([_member(), AnyOf([_member()])])  # type: ignore[list-item]


# -- problems --------------------------------------------------------------------------


def test_problem_raises_if_constraint_list_is_empty() -> None:
    with raises_input_error("Problem needs at least one constraint; the list is empty"):
        Problem(_arm(), [])


def test_problem_raises_if_constraints_is_a_bare_constraint() -> None:
    # Problem(fig, c) instead of Problem(fig, [c]): bad input, not a TypeError.
    with raises_input_error("constraint"):
        Problem(_arm(), _member())  # type: ignore[arg-type]


def test_any_of_raises_if_constraints_is_a_bare_constraint() -> None:
    with raises_input_error("AnyOf"):
        AnyOf(_member())  # type: ignore[arg-type]


def test_problem_raises_if_figure_is_not_a_figure() -> None:
    with raises_input_error("Problem needs a solver.Figure"):
        Problem("arm", [_member()])  # type: ignore[arg-type]


def test_problem_raises_if_an_item_is_not_a_constraint() -> None:
    with raises_input_error("constraint 1 must be a solver.Constraint or solver.AnyOf"):
        Problem(_arm(), [_member(), goals.Position((0, 0, 0))])  # type: ignore[list-item]


def test_problem_raises_if_effector_segment_is_unknown() -> None:
    constraint = Constraint(Effector("tail"), goals.Position((0, 0, 0)))
    with raises_input_error("unknown segment 'tail'; the figure has 'upper_arm'"):
        Problem(_arm(), [constraint])


def test_problem_raises_if_any_of_member_segment_is_unknown() -> None:
    stray = Constraint(Effector("tail"), goals.Position((0, 0, 0)))
    with raises_input_error("unknown segment 'tail'"):
        Problem(_arm(), [AnyOf([_member(), stray])])


def test_problem_raises_if_chain_start_is_unknown() -> None:
    constraint = Constraint(Effector("hand"), goals.Position((0, 0, 0)), chain_start="collarbone")
    with raises_input_error("unknown segment 'collarbone'"):
        Problem(_arm(), [constraint])


@pytest.mark.parametrize("start", ["head", "hand"])
def test_problem_raises_if_chain_start_is_not_an_ancestor(start: str) -> None:
    # "head" is another root; "hand" is a descendant of the effector's segment.
    constraint = Constraint(
        Effector("forearm"), goals.Position((0, 0, 0)), chain_start=start, name="reach"
    )
    with raises_input_error(
        f"reach: chain_start '{start}' is not segment 'forearm' or one of its ancestors"
    ) as info:
        Problem(_arm(), [constraint])
    assert info.value.item == "reach"


def test_objective_raises_if_theta_has_wrong_length() -> None:
    with raises_input_error(r"theta must have shape \(4,\), got \(3,\)"):
        _problem().objective(np.zeros(3))


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_objective_raises_if_theta_is_not_finite(bad: float) -> None:
    with raises_input_error("theta holds NaN or infinite"):
        _problem().objective([0.0, bad, 0.0, 0.0])


def test_objective_raises_if_figure_changed_after_problem() -> None:
    fig = _arm()
    problem = _problem(fig)
    fig.add_segment("finger", parent="hand", dofs=[Dof.rotation("x")])
    with raises_input_error("the figure changed after this Problem was built"):
        problem.objective(np.zeros(fig.n_dofs))
    with raises_input_error("the figure changed after this Problem was built"):
        solve(problem, np.zeros(fig.n_dofs))


# -- solve -----------------------------------------------------------------------------


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_solve_raises_if_theta0_is_not_finite(bad: float) -> None:
    with raises_input_error("theta0 holds NaN or infinite"):
        solve(_problem(), [0.0, 0.0, bad, 0.0])


def test_solve_raises_if_theta0_has_wrong_length() -> None:
    with raises_input_error(r"theta0 must have shape \(4,\)"):
        solve(_problem(), [0.0, 0.0])


def test_solve_raises_if_start_pose_is_above_a_bound() -> None:
    with raises_input_error(
        re.escape("start pose is outside the limits: upper_arm[0] ≤ 1 is violated by 0.25")
    ) as info:
        solve(_problem(), [1.25, 0.0, 0.5, 0.0])
    assert info.value.item == "upper_arm[0] ≤ 1"


def test_solve_raises_if_start_pose_is_below_a_bound() -> None:
    with raises_input_error(re.escape("forearm[0] ≥ 0 is violated by 0.5")):
        solve(_problem(), [0.0, 0.0, -0.5, 0.0])


def test_solve_raises_naming_the_worst_violated_limit() -> None:
    with raises_input_error(re.escape("forearm[0] ≤ 2.5 is violated by 0.75")):
        solve(_problem(), [1.25, 0.0, 3.25, 0.0])


def test_solve_raises_if_start_pose_is_outside_a_polygon() -> None:
    fig = _arm()
    fig.add_polygon_limit("upper_arm", (0, 1), [(-0.5, -0.5), (0.5, -0.5), (0.5, 0.5), (-0.5, 0.5)])
    with raises_input_error(re.escape("polygon of upper_arm[0, 1] edge 1 is violated by 0.2")):
        solve(_problem(fig), [0.7, 0.0, 0.5, 0.0])


def test_solve_raises_if_start_pose_breaks_an_equality() -> None:
    fig = _arm()
    fig.add_linear_equality({("upper_arm", 1): 1.0, ("head", 0): -1.0}, rhs=0.0)
    with raises_input_error(r"equality #0 \(upper_arm\[1\], head\[0\]\) is violated by 0\.7071"):
        solve(_problem(fig), [0.0, 1.0, 0.5, 0.0])


def test_solve_accepts_a_start_pose_on_the_boundary() -> None:
    result = solve(_problem(), [1.0, 0.0, 0.0, 0.0], restarts=0, max_iterations=50)
    assert result.max_violation <= 1e-9


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"time_limit": 0.0}, "time_limit must be > 0 seconds or None"),
        ({"time_limit": -1.0}, "time_limit must be > 0 seconds or None"),
        ({"time_limit": np.nan}, "time_limit must be finite"),
        ({"time_limit": "soon"}, "time_limit must be a number"),
        ({"tolerance": 0.0}, "tolerance must be > 0"),
        ({"tolerance": -1e-9}, "tolerance must be > 0"),
        ({"tolerance": np.inf}, "tolerance must be finite"),
        ({"max_iterations": 0}, "max_iterations must be an integer ≥ 1"),
        ({"max_iterations": 10.0}, "max_iterations must be an integer ≥ 1"),
        ({"max_iterations": True}, "max_iterations must be an integer ≥ 1"),
        ({"restarts": -1}, "restarts must be an integer ≥ 0"),
        ({"restarts": 1.5}, "restarts must be an integer ≥ 0"),
        ({"seed": 0.5}, "seed must be an integer"),
        ({"seed": None}, "seed must be an integer"),
        ({"method": "newton"}, r"unknown method 'newton'; choose one of \('goldfarb',\)"),
    ],
)
def test_solve_raises_if_an_option_is_bad(options: dict, message: str) -> None:
    with raises_input_error(message):
        solve(_problem(), np.zeros(4), **options)


def test_solve_raises_if_problem_is_not_a_problem() -> None:
    with raises_input_error("solve needs a solver.Problem"):
        solve(_arm(), np.zeros(4))  # type: ignore[arg-type]


# -- results that are not errors -------------------------------------------------------


def test_unreachable_goal_is_a_result_not_an_error() -> None:
    # The arm reaches 1.0 from its root at most; the goal is 5 away.
    problem = Problem(_arm(), [Constraint(Effector("hand"), goals.Position((0.0, 5.0, 0.0)))])
    result = solve(problem, [0.5, 0.3, 1.0, 0.0], restarts=2)
    assert result.status == "converged"
    assert result.objective > 0.0
    assert result.objective == pytest.approx(16.0, rel=1e-6)  # straight arm: 5 − 1 = 4
    assert result.max_violation <= 1e-9


def test_iteration_limit_is_a_result_not_an_error() -> None:
    problem = Problem(_arm(), [Constraint(Effector("hand"), goals.Position((0.3, 0.2, 0.5)))])
    result = solve(problem, np.zeros(4), max_iterations=1, restarts=0)
    assert result.status in ("max_iterations", "converged")
    assert result.iterations <= 1
