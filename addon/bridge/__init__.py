"""The one adapter between Blender data and the solver's, one job per module.

Its modules turn armatures into figures, goal empties into goals, pose channels into
θ and back, and solves into poses, keys and reports (each listed in ``docs/files.md``).
The kind of rig an armature is (its own bones, or a generated control rig solved on its
skeleton and written onto its controls) is chosen once, in :mod:`.kinds`.

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
