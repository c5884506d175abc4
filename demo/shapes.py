"""Meshes for the picture, as plain vertex and face lists (no Blender data)."""

from __future__ import annotations

import math


def octahedron(
    length: float, width: float
) -> tuple[list[tuple[float, float, float]], list[tuple[int, ...]]]:
    """A bone-shaped octahedron from y = -length (head) to 0 (tail), in the bone's frame."""
    ring = -0.75 * length
    vertices = [
        (0.0, -length, 0.0),
        (width, ring, 0.0),
        (0.0, ring, width),
        (-width, ring, 0.0),
        (0.0, ring, -width),
        (0.0, 0.0, 0.0),
    ]
    faces = [(0, 2, 1), (0, 3, 2), (0, 4, 3), (0, 1, 4), (5, 1, 2), (5, 2, 3), (5, 3, 4), (5, 4, 1)]
    return vertices, faces


def slab(half: float, thickness: float) -> tuple[list, list]:
    """A square box, ``2 * half`` wide, with its top face at z = 0."""
    vertices = [(x, y, z) for z in (-thickness, 0.0) for y in (-half, half) for x in (-half, half)]
    faces = [(0, 2, 3, 1), (4, 5, 7, 6), (0, 1, 5, 4), (2, 6, 7, 3), (0, 4, 6, 2), (1, 3, 7, 5)]
    return vertices, faces


def sphere(radius: float, rings: int = 12, segments: int = 24) -> tuple[list, list]:
    """A UV sphere's vertices and faces, centred at the origin."""
    vertices = [(0.0, 0.0, radius)]
    for i in range(1, rings):
        polar = math.pi * i / rings
        for j in range(segments):
            azimuth = 2 * math.pi * j / segments
            vertices.append(
                (
                    radius * math.sin(polar) * math.cos(azimuth),
                    radius * math.sin(polar) * math.sin(azimuth),
                    radius * math.cos(polar),
                )
            )
    vertices.append((0.0, 0.0, -radius))
    faces: list[tuple[int, ...]] = []
    last = len(vertices) - 1
    for j in range(segments):
        faces.append((0, 1 + j, 1 + (j + 1) % segments))
        faces.append(
            (last, 1 + (rings - 2) * segments + (j + 1) % segments, 1 + (rings - 2) * segments + j)
        )
    for i in range(rings - 2):
        for j in range(segments):
            a = 1 + i * segments + j
            b = 1 + i * segments + (j + 1) % segments
            faces.append((a, a + segments, b + segments, b))
    return vertices, faces
