"""Property groups: everything the user sets, stored in the .blend file.

One root pointer, ``Object.reach`` (:class:`ReachSettings`), holds an armature's
constraints, joint settings, joint groups, solver settings and last statistics. A
setting an operator also takes (``TRANSLATE_ROOT``, ``GOAL_TYPE``, …) is declared once,
as a property factory both call. The last drag's events are not stored here
(``drag_events`` reads them from :mod:`.records`).
"""

from __future__ import annotations

from functools import partial
from typing import Any

import bpy
from bpy.props import (
    BoolProperty,
    BoolVectorProperty,
    CollectionProperty,
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)
from bpy.types import PropertyGroup

from ..solver.rotations import EULER_ORDERS
from .comfort import ReachStoredBone
from .method_settings import ReachMethod
from .records import EventStats, last_drag
from .vocabulary import AXES, DEFAULT_EULER_ORDER, GOAL_TYPE_UI, GOAL_TYPES

GOAL_TYPE_ITEMS = [(kind, *GOAL_TYPE_UI[kind], k) for k, kind in enumerate(GOAL_TYPES)]

EFFECTOR_ITEMS = [
    ("HEAD", "Head", "The bone's head (its joint)"),
    ("TAIL", "Tail", "The bone's tail (its tip)"),
    ("OFFSET", "Offset", "A point given in the bone's own frame"),
]

BONE_AXIS_ITEMS = [
    (f"{sign}_{axis}", f"{'-' if sign == 'NEG' else ''}{axis}", f"The bone's {text} {axis} axis")
    for axis in "XYZ"
    for sign, text in (("POS", "positive"), ("NEG", "negative"))
]
"""The bone's ±X, ±Y, ±Z axes, for aim and orientation goals."""

ORDER_ITEMS = [
    (o, o, f"Euler {o}: rotate about {o[0]}, then {o[1]}, then {o[2]}") for o in EULER_ORDERS
]

PAIR_ITEMS = [
    ("XY", "X, Y", "Rotations about X and Y"),
    ("XZ", "X, Z", "Rotations about X and Z"),
    ("YZ", "Y, Z", "Rotations about Y and Z"),
]

AXIS_ITEMS = [(a, a, f"Rotation about {a}") for a in AXES]


# Settings an operator sets, declared once for the operator and the property group.
TRANSLATE_ROOT = partial(
    BoolProperty,
    name="Move root",
    description="Root bones may also translate (so the hips can move)",
    default=False,
)
GOAL_TYPE = partial(EnumProperty, name="Type", items=GOAL_TYPE_ITEMS, default="POSITION")
WEIGHT = partial(FloatProperty, name="Weight", min=0.0, soft_max=10.0, default=1.0)
EFFECTOR = partial(EnumProperty, name="Effector", items=EFFECTOR_ITEMS, default="TAIL")
OFFSET = partial(
    FloatVectorProperty,
    name="Offset",
    description="Effector point in the bone's frame",
    size=3,
    subtype="TRANSLATION",
)
CHAIN_START = partial(
    StringProperty,
    name="Chain start",
    description="First bone the constraint may move; empty: up to the root",
)
BAKE_REDUCE = partial(
    BoolProperty,
    name="Reduce keys",
    description="Keep only the keys needed to stay within the tolerance (linear between)",
    default=False,
)
BAKE_TOLERANCE = partial(
    FloatProperty,
    name="Tolerance",
    description="Largest change of a channel (radians, quaternion units or length) "
    "that dropping keys may cause",
    min=0.0,
    default=1e-4,
    precision=6,
)
W_POSITION = partial(
    FloatProperty,
    name="Position weight",
    description="Share of position in a position-and-orientation goal",
    min=0.0,
    max=1.0,
    default=0.5,
)
USE_X, USE_Y = (
    partial(
        BoolProperty,
        name=f"Match {a}",
        description=f"Turn the effector's {a} axis to the goal's",
        default=True,
    )
    for a in "XY"
)
ANY_OF = partial(
    StringProperty,
    name="Any of",
    description="Constraints with the same name here form a set of which the best one is met",
)
CONTACT = partial(
    BoolProperty,
    name="Contact",
    description="A support: with Balance on, the centre of mass stays over the convex hull "
    "of the contacts' goals",
    default=False,
)
MEMBER_AXIS = partial(EnumProperty, name="Axis", items=AXIS_ITEMS, default="X")
MEMBER_RATIO = partial(
    FloatProperty,
    name="Ratio",
    description="This rotation's share (not 0); all members turn in these ratios",
    default=1.0,
)


def _is_empty(_self: Any, obj: Any) -> bool:
    return bool(obj.type == "EMPTY")


class ReachVertex(PropertyGroup):
    """One vertex of a joint's limit polygon: the two rotations, in radians."""

    value: FloatVectorProperty(name="Vertex", size=2, subtype="EULER", unit="ROTATION")  # type: ignore[valid-type]


class ReachJoint(PropertyGroup):
    """Reach's settings of one joint (the pose bone of the same name)."""

    mass: FloatProperty(  # type: ignore[valid-type]
        name="Mass",
        description="The bone's mass, for the figure's centre of mass (filled in by Make Figure)",
        min=0.0,
        soft_max=100.0,
        default=0.0,
        unit="MASS",
    )
    euler_order: EnumProperty(  # type: ignore[valid-type]
        name="Euler order",
        description="Euler angles Reach uses for a quaternion or axis-angle bone",
        items=ORDER_ITEMS,
        default=DEFAULT_EULER_ORDER,
    )
    polygon_axes: EnumProperty(  # type: ignore[valid-type]
        name="Polygon axes",
        description="The two rotations the limit polygon bounds",
        items=PAIR_ITEMS,
        default="XZ",
    )
    polygon: CollectionProperty(type=ReachVertex, name="Limit polygon")  # type: ignore[valid-type]
    active_vertex: IntProperty(name="Active vertex")  # type: ignore[valid-type]
    use_axes: BoolProperty(  # type: ignore[valid-type]
        name="Own axes",
        description=(
            "Turn the joint about its own axes (a hinge or a cone about any axis), limited "
            "by the limits below instead of the bone's IK limits"
        ),
        default=False,
    )
    axes: FloatVectorProperty(  # type: ignore[valid-type]
        name="Joint axes",
        description="The joint's X, Y and Z axes: the bone's axes turned by this rotation",
        size=4,
        subtype="QUATERNION",
        default=(1.0, 0.0, 0.0, 0.0),
    )
    use_limit: BoolVectorProperty(  # type: ignore[valid-type]
        name="Limit", description="Limit the rotation about each joint axis", size=3
    )
    limit_min: FloatVectorProperty(  # type: ignore[valid-type]
        name="Minimum", description="Least rotation about each joint axis", size=3, subtype="EULER"
    )
    limit_max: FloatVectorProperty(  # type: ignore[valid-type]
        name="Maximum", description="Most rotation about each joint axis", size=3, subtype="EULER"
    )
    lock: BoolVectorProperty(  # type: ignore[valid-type]
        name="Lock", description="No rotation about this joint axis", size=3
    )


class ReachGroupMember(PropertyGroup):
    """One rotation in a joint group."""

    bone: StringProperty(name="Bone")  # type: ignore[valid-type]
    axis: MEMBER_AXIS()  # type: ignore[valid-type]
    ratio: MEMBER_RATIO()  # type: ignore[valid-type]


class ReachJointGroup(PropertyGroup):
    """Rotations that turn together in fixed ratios (e.g. the spine's joints)."""

    enabled: BoolProperty(name="Enabled", default=True)  # type: ignore[valid-type]
    members: CollectionProperty(type=ReachGroupMember)  # type: ignore[valid-type]
    active_member: IntProperty(name="Active member")  # type: ignore[valid-type]


class ReachFollower(PropertyGroup):
    """A bone that moves with a control, set by hand (the entry is named after the bone)."""

    control: StringProperty(name="Control", description="The control the bone moves with")  # type: ignore[valid-type]


class ReachConstraint(PropertyGroup):
    """One spatial constraint: an effector on a bone, a goal empty, a goal type."""

    enabled: BoolProperty(name="Enabled", default=True)  # type: ignore[valid-type]
    goal_type: GOAL_TYPE()  # type: ignore[valid-type]
    weight: WEIGHT()  # type: ignore[valid-type]
    bone: StringProperty(name="Bone", description="The effector's bone")  # type: ignore[valid-type]
    effector: EFFECTOR()  # type: ignore[valid-type]
    offset: OFFSET()  # type: ignore[valid-type]
    chain_start: CHAIN_START()  # type: ignore[valid-type]
    goal: PointerProperty(type=bpy.types.Object, name="Goal", poll=_is_empty)  # type: ignore[valid-type]
    w_position: W_POSITION()  # type: ignore[valid-type]
    use_x: USE_X()  # type: ignore[valid-type]
    use_y: USE_Y()  # type: ignore[valid-type]
    angle_degrees: FloatProperty(  # type: ignore[valid-type]
        name="Angle",
        description="This angle weighs as the length below",
        min=0.01,
        max=90.0,
        default=5.0,
    )
    angle_length: FloatProperty(  # type: ignore[valid-type]
        name="Length",
        description="The length the angle weighs as",
        min=1e-6,
        default=0.01,
        unit="LENGTH",
    )
    any_of: ANY_OF()  # type: ignore[valid-type]
    contact: CONTACT()  # type: ignore[valid-type]
    aim_axis: EnumProperty(  # type: ignore[valid-type]
        name="Aim axis",
        description="The bone axis an aim points at the goal (from the effector point)",
        items=BONE_AXIS_ITEMS,
        default="POS_Y",
    )
    match_x_axis: EnumProperty(  # type: ignore[valid-type]
        name="Goal X",
        description="The bone axis turned onto the goal's X axis",
        items=BONE_AXIS_ITEMS,
        default="POS_X",
    )
    match_y_axis: EnumProperty(  # type: ignore[valid-type]
        name="Goal Y",
        description="The bone axis turned onto the goal's Y axis",
        items=BONE_AXIS_ITEMS,
        default="POS_Y",
    )
    priority: IntProperty(  # type: ignore[valid-type]
        name="Priority",
        description="0 is the highest: a level is solved at no cost to the levels above it "
        "(all methods but the Jacobian transpose, which weighs every goal alike)",
        min=0,
        soft_max=5,
        default=0,
    )
    pinned: BoolProperty(  # type: ignore[valid-type]
        name="Pin",
        description="Hold the bone where its goal is, above every priority (Pin)",
        default=False,
    )


class ReachStats(PropertyGroup):
    """The last solve's statistics."""

    status: StringProperty(name="Status")  # type: ignore[valid-type]
    message: StringProperty(name="Message")  # type: ignore[valid-type]
    objective: FloatProperty(name="Objective")  # type: ignore[valid-type]
    residual: FloatProperty(name="Residual", unit="LENGTH")  # type: ignore[valid-type]
    iterations: IntProperty(name="Iterations")  # type: ignore[valid-type]
    milliseconds: FloatProperty(name="Time (ms)")  # type: ignore[valid-type]
    unmet: StringProperty(name="Not met")  # type: ignore[valid-type]
    outcome: StringProperty(name="Outcome")  # type: ignore[valid-type]
    reasons: StringProperty(name="Why not met")  # type: ignore[valid-type]


class ReachPathPoint(PropertyGroup):
    """One goal location of a replayed drag."""

    location: FloatVectorProperty(name="Location", size=3, subtype="TRANSLATION")  # type: ignore[valid-type]


class ReachSettings(PropertyGroup):
    """Everything Reach keeps on an armature object (``Object.reach``)."""

    is_figure: BoolProperty(name="Reach figure", default=False)  # type: ignore[valid-type]
    translate_root: TRANSLATE_ROOT()  # type: ignore[valid-type]
    constraints: CollectionProperty(type=ReachConstraint)  # type: ignore[valid-type]
    active_constraint: IntProperty(name="Active constraint")  # type: ignore[valid-type]
    joints: CollectionProperty(type=ReachJoint)  # type: ignore[valid-type]
    groups: CollectionProperty(type=ReachJointGroup)  # type: ignore[valid-type]
    active_group: IntProperty(name="Active group")  # type: ignore[valid-type]
    followers: CollectionProperty(type=ReachFollower)  # type: ignore[valid-type]
    active_follower: IntProperty(name="Active follower")  # type: ignore[valid-type]
    time_budget: FloatProperty(  # type: ignore[valid-type]
        name="Time budget",
        description="Seconds a drag event or live update may take",
        min=0.001,
        max=10.0,
        default=0.1,
        unit="TIME_ABSOLUTE",
    )
    adaptive: BoolProperty(  # type: ignore[valid-type]
        name="Adaptive",
        description=(
            "Give the solve the budget less what the rest of an event (reading, writing, "
            "judging the pose, the redraw) took lately"
        ),
        default=True,
    )
    tolerance: FloatProperty(  # type: ignore[valid-type]
        name="Tolerance",
        description=(
            "Kuhn–Tucker tolerance of the solve, on the objective divided by the smallest "
            "constraint weight: a solve stops once it can get no closer by more than this"
        ),
        min=1e-15,  # the solver needs it > 0
        default=1e-10,
        precision=12,
    )
    restarts: IntProperty(  # type: ignore[valid-type]
        name="Restarts",
        description="Restarts from other poses when a solve stalls (Solve only)",
        min=0,
        max=1000,
        soft_max=64,
        default=8,
    )
    reach_distance: FloatProperty(  # type: ignore[valid-type]
        name="Met within",
        description="A constraint counts as met when it is this close to its goal",
        min=0.0,
        default=1e-4,
        unit="LENGTH",
        precision=6,
    )
    comfort: FloatProperty(  # type: ignore[valid-type]
        name="Comfort",
        description="Where the goals leave the figure free, relax it this share of the way "
        "toward the comfort pose on every solve, at no cost to any goal (1: the pose nearest "
        "the comfort pose that meets the goals; 0: off, each solve moves as little as it can)",
        min=0.0,
        max=1.0,
        default=1.0,
        subtype="FACTOR",
    )
    comfort_pose: CollectionProperty(type=ReachStoredBone)  # type: ignore[valid-type]
    balance: BoolProperty(  # type: ignore[valid-type]
        name="Balance",
        description="Keep the centre of mass over the support polygon (the convex hull of the "
        "Contact constraints' goals, seen from above), before every other constraint",
        default=False,
    )
    balance_margin: FloatProperty(  # type: ignore[valid-type]
        name="Margin",
        description="How far inside the support polygon's edges the centre of mass stays",
        min=0.0,
        default=0.0,
        unit="LENGTH",
    )
    show_overlay: BoolProperty(  # type: ignore[valid-type]
        name="Overlay",
        description="Draw each constraint in the viewport: a line from its effector to its "
        "goal, green when met, red with the miss when not; pins as squares",
        default=True,
    )
    method: PointerProperty(type=ReachMethod)  # type: ignore[valid-type]
    stats: PointerProperty(type=ReachStats)  # type: ignore[valid-type]
    bake_reduce: BAKE_REDUCE()  # type: ignore[valid-type]
    bake_tolerance: BAKE_TOLERANCE()  # type: ignore[valid-type]
    live: BoolProperty(  # type: ignore[valid-type]
        name="Live",
        description="Live mode was on when the file was saved (it is turned on again on load)",
        default=False,
    )

    @property
    def drag_events(self) -> tuple[EventStats, ...]:
        """The events of the last drag finished on this armature in this session."""
        return last_drag(self.id_data)


classes = (
    ReachVertex,
    ReachJoint,
    ReachGroupMember,
    ReachJointGroup,
    ReachFollower,
    ReachConstraint,
    ReachStats,
    ReachPathPoint,
    ReachMethod,
    ReachStoredBone,
    ReachSettings,
)
