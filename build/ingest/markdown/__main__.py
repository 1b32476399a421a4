"""``python -m citavial.build.ingest.markdown dump RDL-6/2015``: see dump.py."""

from citavial.build.ingest.markdown.dump import main

raise SystemExit(main())
