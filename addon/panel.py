"""The \"Reach\" tab of the 3D viewport's sidebar."""

from __future__ import annotations

classes: tuple[type, ...] = ()
