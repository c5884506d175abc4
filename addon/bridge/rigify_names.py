"""Rigify's naming rules: the prefixes of bones no animator keys, and deform segments.

A generated Rigify rig names its bones by role: ``ORG-`` the original skeleton,
``DEF-`` the deform bones (split in numbered segments ``.001``, ``.002``, …), ``MCH-``
mechanism bones; every other bone is a control. Both kinds of rig read these rules
here: a control rig to tell its controls and skeleton apart, a rig posed bone by bone to
keep chains off mechanism bones, and the masses to see a thigh in ``ORG-thigh.L``.
"""

from __future__ import annotations

import re

SKELETON_PREFIXES = ("DEF-", "ORG-", "MCH-")
"""Rigify's prefixes of bones an animator never keys (deform, original, mechanism)."""

BODY_PREFIX = re.compile(r"^(ORG|DEF)-")
"""A Rigify skeleton bone's prefix: ``ORG-thigh.L`` is a thigh as ``thigh.L`` is."""

SEGMENT_SUFFIX = re.compile(r"\.\d{3}$")
"""A deform bone's segment number (Rigify splits a limb bone's deform bone in parts)."""


def is_control(bone: str) -> bool:
    """Whether an animator keys ``bone`` (not a Rigify deform, original or mechanism bone)."""
    return not bone.startswith(SKELETON_PREFIXES)


def unprefixed(bone: str) -> str:
    """``bone`` without Rigify's deform, original or mechanism prefix."""
    return bone[4:] if bone.startswith(SKELETON_PREFIXES) else bone


def body_name(bone: str) -> str:
    """The name a body part is recognised by: ``bone`` without an ORG- or DEF- prefix."""
    return BODY_PREFIX.sub("", bone)


def deformed_skeleton(deform: str) -> str:
    """The original bone Rigify's deform bone ``deform`` (``DEF-x`` or ``DEF-x.00n``) deforms.

    Returns:
        ``ORG-x``, or "" when ``deform`` is no Rigify deform bone.
    """
    if not deform.startswith("DEF-"):
        return ""
    return f"ORG-{SEGMENT_SUFFIX.sub('', deform.removeprefix('DEF-'))}"
