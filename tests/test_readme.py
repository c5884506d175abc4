"""The README's example runs and does what it says."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_example_converges_within_the_limits() -> None:
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), flags=re.DOTALL)
    assert blocks, "README has no python example"
    namespace: dict[str, object] = {"print": lambda *args: None}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    result = namespace["result"]
    assert result.status == "converged"  # type: ignore[attr-defined]
    assert result.fun < 1e-12  # type: ignore[attr-defined]
    assert result.max_violation <= 1e-9  # type: ignore[attr-defined]
    problem = namespace["problem"]
    assert np.isclose(problem.objective(result.x)[0], result.fun)  # type: ignore[attr-defined]
