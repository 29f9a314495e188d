"""The journal: the hash-chained store, typed rows, the journaled table and its recovery."""
