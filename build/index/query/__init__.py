"""Query time: load the prebuilt index and rank passages for one question."""
