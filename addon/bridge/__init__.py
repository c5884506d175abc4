"""The one adapter between Blender data and the solver's, one job per module.

* :mod:`.rig`: an armature object → :class:`solver.Figure` (bones, limits, groups);
  :mod:`.joints` the DOFs of one bone, :mod:`.animated` what else poses a bone.
* :mod:`.kinds`: the kind of rig an armature is, chosen once (:mod:`.rig_kind` says what
  every kind answers): :mod:`.plain_rig` its own bones, :mod:`.control_rig` a generated
  control rig solved on its skeleton and written onto its controls.
* :mod:`.pose`: pose-bone channels ↔ θ (read, write); :mod:`.snapshot` exact restores;
  :mod:`.inputs` what a figure is built from, to tell when to build it again.
* :mod:`.goals`: goal empties → solver goals, constraints → :class:`solver.Problem`.
* :mod:`.solving`: one solve and what it achieved; :mod:`.evaluated` the same measured
  on Blender's evaluated pose.
* :mod:`.posing`: the solve step every operator runs (problem, start pose, solve,
  write, judge, stats, keys).
* :mod:`.keys`: keyframes of a posed figure.

Operators, the drag loop and live mode only call these modules. The conventions, which
are Blender's own, reproduced exactly:

* A pose bone's matrix in armature space is
  ``M = M_parent · (B_parent⁻¹ · B) · T(location) · R(rotation)``, with ``B`` the bone's
  rest matrix (``Bone.matrix_local``). The figure's segment for a bone has rest
  ``B_parent⁻¹ · B`` (the root's also carries the armature object's world matrix), so
  Reach's segment frames are the bones' world matrices.
* An Euler order ``"XYZ"`` means ``R = R_z · R_y · R_x``; the segment's rotation DOFs are
  therefore listed in reverse order (Z, Y, X), and writing their angles back into
  ``rotation_euler`` reproduces Blender's matrix. Quaternion and axis-angle bones use the
  Euler order the user chose for the joint and are written back in their own mode.
* Translation DOFs (root bones only, when the figure allows it) come before the
  rotations, as ``T`` comes before ``R``.
"""
