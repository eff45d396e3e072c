"""Targets that drive another implementation through the suite's interface
(``conformance.target.INTERFACE``). Select one with ``--target adapters.<name>``."""
