"""Index: the search over the passages. Shared here: the index format and its parts (analyze,
bm25, collect, embed, hooks, store, signmatch); make/ writes it at build time, query/ reads and
ranks it at question time, eval/ scores it on the golden set."""
