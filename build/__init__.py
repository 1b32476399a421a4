"""citavial's build step: corpus → ingest → render → verify → index, each stage a module."""
