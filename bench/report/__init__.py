"""What the benchmarks' results add up to, read from ``bench/results/`` in ``.venv``:

* :mod:`~bench.report.plots`: PNG plots beside the JSON files;
* :mod:`~bench.report.summary`: ``summary.md``, every target met or not.
"""
