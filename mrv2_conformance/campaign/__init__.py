"""Fuzzing campaigns: every property of a target run by HypoFuzz for a given time over
N processes, what any of them finds kept in one example database (a directory, or a
Redis server that every machine shares), each find replayed anywhere by the command
the campaign prints (docs/campaigns.md).

HypoFuzz is AGPL-3.0 licensed: it is an optional extra (``pip install
'mrv2-conformance[campaign]'``), imported only by a campaign's own processes; the suite
itself never imports it.

Modules: ``command`` (``mrv2-conformance campaign``), ``fuzz`` (the process that runs
HypoFuzz), ``findings`` (what a campaign left in the database), ``stateful`` (the
engine loop in the form HypoFuzz fuzzes), ``server`` (a throwaway local Redis) and
``measure`` (the table in docs/campaigns.md)."""
