"""Targets that drive another implementation through the suite's interface
(``contract.INTERFACE``). Select one with ``--target adapters.<name>``."""
