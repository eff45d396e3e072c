"""Benchmarks: what each part of the #51210 index contract is worth, and how fast the
suite runs. ``python -m bench.run`` (see README). Never run as timed tests."""
