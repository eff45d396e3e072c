"""Past one machine: ``server`` starts a throwaway local Redis server, the example
database that every machine of a team can share (mrv2_conformance/exampledb.py)."""
