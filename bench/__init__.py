"""Reach's benchmarks, run from the repository root as modules (``bash tools/bench``).

* :mod:`bench.solver`: the solver alone, in ``.venv`` (numpy, scipy);
* :mod:`bench.blender`: through the add-on, in Blender 5.0 as a Python module
  (``.venv-blender-5.0``);
* :mod:`bench.report`: the plots and ``summary.md`` made from ``bench/results/``;
* :mod:`bench.harness`, :mod:`bench.machine` and :mod:`bench.previous_solver`: what
  they share.

For example ``.venv/bin/python -m bench.solver.bank --quick``: the root is then on
``sys.path``, so ``solver`` and the tests' shared ``tests.fixtures`` import as packages.

Importing this package pins BLAS to one thread (unless ``OPENBLAS_NUM_THREADS`` /
``OMP_NUM_THREADS`` / ``MKL_NUM_THREADS`` are set), so it happens before any benchmark
imports numpy: the matrices are tiny, and on a busy machine threaded BLAS makes times
vary tenfold.
"""

import os

THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS")
"""The BLAS libraries' thread-count variables, each set to 1 unless already set."""

for _variable in THREAD_VARIABLES:
    os.environ.setdefault(_variable, "1")
