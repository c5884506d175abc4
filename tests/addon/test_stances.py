"""A foot's stances found from its heel's and toe's paths (``addon.bridge.stances``)."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

LEG = 0.9
CYCLE = 1.1  # s: one stride of each foot
HEEL_UP = (0.5, 1.0)  # the share of the cycle the heel is off the ground
TOE_UP = (0.6, 1.05)  # the toe's (past 1: into the next cycle)
LIFT = 0.12  # m: the heel's and toe's highest point in a swing


@pytest.fixture
def stances(reach):
    """The add-on's stance-finding module, as Blender loaded it."""
    return importlib.import_module(f"{reach.__name__}.addon.bridge.stances")


def _walk(fps: float, seconds: float, phase: float, rise: float = 0.0, slide: float = 0.03):
    """A walking foot's heel and toe paths, and its true stances in seconds per point.

    Each stride moves the foot 1.4 m along x (smoothly over the toe's swing) and ``rise``
    up (a stair), and slides it ``slide`` m along x while it stands.
    """
    t = np.arange(int(seconds * fps)) / fps
    cycles = (t / CYCLE + phase) % 1e9
    heel = np.zeros((len(t), 3))
    toe = np.zeros((len(t), 3))
    truth: dict[str, list[tuple[float, float]]] = {"heel": [], "toe": []}
    for point, path, (up, down) in (("heel", heel, HEEL_UP), ("toe", toe, TOE_UP)):
        k = np.floor(cycles - (down - 1.0))  # the stride this frame's stance belongs to
        within = cycles - k  # the cycle's share since that stride's start
        lift = (within >= up) & (within < down)
        swing = np.clip((within - TOE_UP[0]) / (down - TOE_UP[0]), 0.0, 1.0)
        eased = swing * swing * (3.0 - 2.0 * swing)
        stand = np.clip((within - (down - 1.0)) / (up - (down - 1.0)), 0.0, 1.0)
        path[:, 0] = 1.4 * (k + eased) + slide * stand * (1.0 - eased)
        path[:, 0] += 0.2 if point == "toe" else 0.0
        path[:, 2] = rise * (k + eased)
        path[:, 2] += np.where(lift, LIFT * np.sin(np.pi * (within - up) / (down - up)) ** 2, 0.0)
        first, last = np.floor(cycles[0]) - 1, np.ceil(cycles[-1]) + 1
        for stride in np.arange(first, last + 1):
            begin = (stride + down - 1.0 - phase) * CYCLE
            end = (stride + up - phase) * CYCLE
            if end > t[0] and begin < t[-1]:
                truth[point].append((max(begin, t[0]), min(end, t[-1])))
    return heel, toe, truth


def _feet(stances, fps: float, seconds: float = 4.0, rise: float = 0.0, scale: float = 1.0):
    feet, truths = {}, {}
    for name, phase in (("foot.L", 0.0), ("foot.R", 0.5)):
        heel, toe, truth = _walk(fps, seconds, phase, rise)
        feet[name] = stances.Foot(heel * scale, toe * scale)
        truths[name] = truth
    return feet, truths


def _seconds(frames: tuple[int, int] | None, fps: float) -> tuple[float, float] | None:
    return None if frames is None else (frames[0] / fps, frames[1] / fps)


def _inside(interval: tuple[float, float], seconds: float) -> bool:
    """Whether an interval lies clear of the clip's ends (where a stance is cut short)."""
    return interval[0] > 0.2 and interval[1] < seconds - 0.2


def _assert_found(found, truths, fps: float, seconds: float = 4.0, tolerance: float = 0.1):
    """Every true stance of each heel and toe clear of the clip's ends found, its ends
    within ``tolerance`` s, and no other."""
    for name, truth in truths.items():
        for point in ("heel", "toe"):
            got = [_seconds(getattr(s, point), fps) for s in found[name]]
            got = [g for g in got if g is not None and _inside(g, seconds)]
            want = [w for w in truth[point] if _inside(w, seconds)]
            assert len(got) == len(want), (name, point, got, want)
            for (a, b), (c, d) in zip(got, want, strict=True):
                assert abs(a - c) <= tolerance and abs(b - d) <= tolerance, (name, point, got, want)


@pytest.mark.parametrize("fps", [24.0, 30.0, 120.0])
def test_a_walks_stances_are_found_at_every_frame_rate(stances, fps):
    feet, truths = _feet(stances, fps)
    found = stances.find_stances(feet, fps, LEG)
    _assert_found(found, truths, fps)
    for each in found.values():
        for stance in each:  # the heel lands first and lifts first
            if not _inside((stance.start / fps, stance.end / fps), 4.0):
                continue
            assert stance.heel is not None and stance.toe is not None
            assert stance.start == stance.heel[0] <= stance.toe[0]
            assert stance.heel[1] <= stance.toe[1] == stance.end


def test_stances_do_not_depend_on_the_clips_units(stances):
    metres, _ = _feet(stances, 30.0)
    centimetres, _ = _feet(stances, 30.0, scale=100.0)
    find = stances.find_stances
    assert find(metres, 30.0, LEG) == find(centimetres, 30.0, 100.0 * LEG)


def test_stances_on_stairs_are_each_found_where_they_stand(stances):
    feet, truths = _feet(stances, 60.0, rise=0.17)
    found = stances.find_stances(feet, 60.0, LEG)
    _assert_found(found, truths, 60.0)
    heights = {round(float(feet[name].heel[s.start, 2]), 2) for name in feet for s in found[name]}
    assert len(heights) >= 5  # a stance on each stair


def test_motion_capture_jitter_finds_the_same_stances(stances):
    feet, truths = _feet(stances, 120.0)
    rng = np.random.default_rng(3)
    noisy = {
        name: stances.Foot(*(p + rng.normal(0.0, 2e-4, p.shape) for p in (foot.heel, foot.toe)))
        for name, foot in feet.items()
    }
    _assert_found(stances.find_stances(noisy, 120.0, LEG), truths, 120.0)


def test_a_foot_held_up_and_still_does_not_stand(stances):
    frames = 90
    ground = np.zeros((frames, 3))
    toe = ground + np.array([0.2, 0.0, 0.0])
    held = np.tile([0.3, 0.0, 0.4], (frames, 1))  # a knee lifted, the foot still
    found = stances.find_stances(
        {"foot.L": stances.Foot(ground, toe), "foot.R": stances.Foot(held, held)},
        30.0,
        LEG,
    )
    assert found["foot.R"] == []
    assert [(s.start, s.end) for s in found["foot.L"]] == [(0, frames - 1)]


def test_a_slower_threshold_splits_a_sliding_stance_from_the_swing_no_later(stances):
    """A stricter speed test only shortens stances (it never adds one)."""
    feet, _ = _feet(stances, 30.0)
    loose = stances.find_stances(feet, 30.0, LEG)
    strict = stances.find_stances(feet, 30.0, LEG, stances.Thresholds(still=0.1))
    for name in feet:
        for inner in strict[name]:
            assert any(o.start <= inner.start and inner.end <= o.end for o in loose[name])


@pytest.mark.parametrize(
    ("change", "words"),
    [
        ({"frames": 1}, "fewer than two frames"),
        ({"nan": True}, "not finite"),
        ({"fps": 0.0}, "frame rate"),
        ({"leg": -1.0}, "leg length"),
        ({"unequal": True}, "different lengths"),
        ({"none": True}, "no foot"),
    ],
)
def test_paths_that_cannot_be_read_are_refused_by_name(reach, stances, change, words):
    frames = change.get("frames", 30)
    path = np.zeros((frames, 3))
    if change.get("nan"):
        path[3, 2] = np.nan
    feet = {"foot.L": stances.Foot(path, path), "foot.R": stances.Foot(np.zeros_like(path), path)}
    if change.get("unequal"):
        feet["foot.R"] = stances.Foot(np.zeros((31, 3)), np.zeros((31, 3)))
    if change.get("none"):
        feet = {}
    with pytest.raises(reach.addon.errors.BlenderDataError, match=words):
        stances.find_stances(feet, change.get("fps", 30.0), change.get("leg", LEG))
