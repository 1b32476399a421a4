"""`citavial check`: the build's gate for Markdown notes written by others (run, cache, report)."""
