"""Benchmarks: what each part of the #51210 index contract is worth, and how fast the
suite runs. ``python -m mrv2_conformance.bench.run`` (bench/README.md). Never run as timed
tests."""
