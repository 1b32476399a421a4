"""Corpus: the frozen BOE files, their integrity manifest, `citavial fetch` and the offline images."""
