"""Benchmarks of the solver alone, in ``.venv`` (numpy, scipy), each run as a module:

* :mod:`~bench.solver.versus_scipy`: the 53-DOF human against scipy's SLSQP and
  L-BFGS-B (``solver.json``);
* :mod:`~bench.solver.scale`: chains and trees from 10 to 1,500 DOFs (``scale.json``);
* :mod:`~bench.solver.papers`: the 1990 and 1994 papers' tasks (``papers.json``);
* :mod:`~bench.solver.bank`: the whole problem bank, beside the previous solver and
  SLSQP (``bank.json``);
* :mod:`~bench.solver.methods`: every solver method on the same tasks (``methods.json``).
"""
