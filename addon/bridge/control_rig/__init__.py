"""Reach on a generated control rig (Rigify's): solved on its skeleton, written onto its controls.

:mod:`.limbs` finds the rig's switchable limbs and :mod:`.trunk` the controls above
them; :mod:`.model` says what each bone stands for; :mod:`.figure` builds the figure
and reads θ; :mod:`.writing` writes θ onto the controls, placing each limb's controls
(:mod:`.placing`, :mod:`.paws` for a paw's heel) by giving each control a pose
(:mod:`.control_pose`). :mod:`.kind` is what the rest of Reach asks of a control rig.
"""
