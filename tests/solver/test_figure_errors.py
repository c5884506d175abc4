"""Bad figures raise solver.SolverInputError naming the item: segments, DOF positions,
limit polygons and linear equalities.
"""

from __future__ import annotations

import numpy as np
import pytest
from helpers import BAD_NUMBERS, raises_input_error
from problems import arm_and_head

from solver import Dof, Figure

SQUARE = [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]


# -- figure: segments ------------------------------------------------------------------


def test_add_segment_raises_if_name_is_duplicate() -> None:
    fig = arm_and_head()
    with raises_input_error("duplicate segment name 'forearm'") as info:
        fig.add_segment("forearm", parent="upper_arm")
    assert info.value.item == "segment 'forearm'"


@pytest.mark.parametrize("name", ["", None, 3])
def test_add_segment_raises_if_name_is_not_a_non_empty_string(name: object) -> None:
    with raises_input_error("segment name must be a non-empty string"):
        Figure().add_segment(name)  # type: ignore[arg-type]


def test_add_segment_raises_if_parent_does_not_exist() -> None:
    with raises_input_error("segment 'b': parent 'nowhere' does not exist"):
        arm_and_head().add_segment("b", parent="nowhere")


def test_add_segment_leaves_figure_unchanged_when_it_raises() -> None:
    fig = arm_and_head()
    with raises_input_error("does not exist"):
        fig.add_segment("b", parent="nowhere")
    assert [s.name for s in fig.segments] == ["upper_arm", "forearm", "hand", "head"]
    assert fig.n_dofs == 4


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_segment_raises_if_rest_matrix_is_not_finite(bad: float) -> None:
    rest = np.eye(4)
    rest[1, 3] = bad
    with raises_input_error("segment 'b': rest matrix holds NaN or infinite"):
        arm_and_head().add_segment("b", rest=rest)


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


def test_dof_index_raises_if_segment_is_unknown() -> None:
    with raises_input_error("unknown segment 'tail'; the figure has 'upper_arm', 'forearm'"):
        arm_and_head().dof_index("tail", 0)


@pytest.mark.parametrize("position", [2, -1, 1.0, "0"])
def test_dof_index_raises_if_dof_position_is_unknown(position: object) -> None:
    with raises_input_error(r"segment 'upper_arm' has no DOF .*it has 2 \(positions 0..1\)"):
        arm_and_head().dof_index("upper_arm", position)  # type: ignore[arg-type]


def test_segment_raises_if_unknown() -> None:
    with raises_input_error("unknown segment 'tail'") as info:
        arm_and_head().segment("tail")
    assert info.value.item == "segment 'tail'"


# -- figure: polygon limits ------------------------------------------------------------


def test_add_polygon_limit_raises_if_segment_is_unknown() -> None:
    with raises_input_error("unknown segment 'shoulder'"):
        arm_and_head().add_polygon_limit("shoulder", (0, 1), SQUARE)


@pytest.mark.parametrize("dofs", [(0, 2), (5, 1), (0, -1)])
def test_add_polygon_limit_raises_if_dof_position_is_unknown(dofs: tuple[int, int]) -> None:
    with raises_input_error("segment 'upper_arm' has no DOF"):
        arm_and_head().add_polygon_limit("upper_arm", dofs, SQUARE)


@pytest.mark.parametrize("dofs", [(0, 0), (0,), (0, 1, 1), 0])
def test_add_polygon_limit_raises_if_dofs_are_not_two_different(dofs: tuple[int, ...]) -> None:
    with raises_input_error("dofs must be two different DOF positions"):
        arm_and_head().add_polygon_limit("upper_arm", dofs, SQUARE)  # type: ignore[arg-type]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_polygon_limit_raises_if_a_vertex_is_not_finite(bad: float) -> None:
    vertices = [(-1.0, -1.0), (1.0, bad), (0.0, 1.0)]
    with raises_input_error("polygon limit on 'upper_arm': vertices holds NaN or infinite"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), vertices)


def test_add_polygon_limit_raises_if_polygon_is_not_convex() -> None:
    arrow = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.5), (0.0, 2.0)]
    with raises_input_error("polygon limit on 'upper_arm': the polygon is not convex at vertex 3"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), arrow)


def test_add_polygon_limit_raises_if_polygon_is_not_convex_in_clockwise_order() -> None:
    arrow = [(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (1.0, 0.5), (0.0, 2.0)][::-1]
    with raises_input_error("not convex"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), arrow)


def test_add_polygon_limit_raises_if_polygon_intersects_itself() -> None:
    # A pentagram turns the same way at every vertex but winds around twice.
    angles = np.arange(5) * 4 * np.pi / 5
    star = np.stack([np.cos(angles), np.sin(angles)], axis=1)
    with raises_input_error("winds around more than once"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), star)


@pytest.mark.parametrize(
    ("vertices", "message"),
    [
        # Vertex 1 lies on the edge from vertex 0 to vertex 2.
        (
            [(0.0, 0.0), (1.0, 0.0), (2.0, 0.0), (1.0, 1.0)],
            "degenerate polygon, vertices 0, 1 and 2 are collinear",
        ),
        (
            [(0.0, 0.0), (1.0, 0.0), (1.0, 0.0), (0.0, 1.0)],
            "degenerate polygon, vertices 1 and 2 coincide",
        ),
        # Closed by repeating the first vertex.
        (
            [(0.0, 0.0), (1.0, 0.0), (0.0, 1.0), (0.0, 0.0)],
            "degenerate polygon, vertices 3 and 0 coincide",
        ),
    ],
    ids=["collinear", "repeated", "closed"],
)
def test_add_polygon_limit_raises_if_polygon_is_degenerate(vertices: list, message: str) -> None:
    with raises_input_error(message):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), vertices)


@pytest.mark.parametrize(
    "vertices",
    [
        [(0.0, 0.0), (1.0, 0.0), (0.5, 0.0)],  # all on one line
        [(0.0, 0.0), (1.0, 1.0), (1.0, 0.0), (0.0, 1.0)],  # a bow tie: its halves cancel
    ],
)
def test_add_polygon_limit_raises_if_polygon_has_zero_area(vertices: list) -> None:
    with raises_input_error("degenerate polygon"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), vertices)


def test_add_polygon_limit_raises_if_polygon_has_zero_area_message() -> None:
    with raises_input_error("degenerate polygon with zero area"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), [(0.0, 0.0), (1.0, 0.0), (0.5, 0.0)])


@pytest.mark.parametrize("vertices", [[(0.0, 0.0)], [(0.0, 0.0), (1.0, 1.0)]])
def test_add_polygon_limit_raises_if_fewer_than_3_vertices(vertices: list) -> None:
    with raises_input_error("a polygon needs at least 3 vertices"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), vertices)


@pytest.mark.parametrize("vertices", [[], [(0, 0, 0), (1, 0, 0), (0, 1, 0)], [[(0, 0)]], "abc"])
def test_add_polygon_limit_raises_if_vertices_are_not_pairs(vertices: object) -> None:
    with raises_input_error("vertices must be|vertices must be numeric"):
        arm_and_head().add_polygon_limit("upper_arm", (0, 1), vertices)  # type: ignore[arg-type]


def test_add_polygon_limit_leaves_limits_unchanged_when_it_raises() -> None:
    fig = arm_and_head()
    before = fig.limits.a_in.shape
    with raises_input_error("not convex"):
        fig.add_polygon_limit("upper_arm", (0, 1), [(0, 0), (2, 0), (2, 2), (1, 0.5), (0, 2)])
    assert fig.limits.a_in.shape == before


# -- figure: linear equalities ---------------------------------------------------------


def test_add_linear_equality_raises_if_segment_is_unknown() -> None:
    with raises_input_error("unknown segment 'spine9'"):
        arm_and_head().add_linear_equality({("upper_arm", 0): 1.0, ("spine9", 0): -1.0})


def test_add_linear_equality_raises_if_dof_position_is_unknown() -> None:
    with raises_input_error("segment 'forearm' has no DOF 1"):
        arm_and_head().add_linear_equality({("forearm", 1): 1.0})


@pytest.mark.parametrize("key", ["upper_arm", ("upper_arm",), ("upper_arm", 0, 1)])
def test_add_linear_equality_raises_if_key_is_not_a_pair(key: object) -> None:
    with raises_input_error(r"keys must be \(segment, dof\) pairs"):
        arm_and_head().add_linear_equality({key: 1.0})  # type: ignore[dict-item]


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_linear_equality_raises_if_coefficient_is_not_finite(bad: float) -> None:
    with raises_input_error("linear equality: coefficient of .*'forearm', 0.* must be finite"):
        arm_and_head().add_linear_equality({("upper_arm", 0): 1.0, ("forearm", 0): bad})


@pytest.mark.parametrize("bad", BAD_NUMBERS)
def test_add_linear_equality_raises_if_rhs_is_not_finite(bad: float) -> None:
    with raises_input_error("linear equality: rhs must be finite"):
        arm_and_head().add_linear_equality({("upper_arm", 0): 1.0}, rhs=bad)


@pytest.mark.parametrize("coefficients", [{}, {("upper_arm", 0): 0.0}])
def test_add_linear_equality_raises_if_every_coefficient_is_zero(coefficients: dict) -> None:
    with raises_input_error("every coefficient is zero"):
        arm_and_head().add_linear_equality(coefficients)
