"""citavial's build step, one folder per stage: corpus → ingest → render → gate → content → index → web,
run by pipeline.py; the shared vocabulary (models, refs, text, errors, paths…) sits at the top."""
