"""Regenerate golden/reports/browser-links.json: open the built site's links in Chromium.

The report is committed and shown on the "Por qué" page (build/render/figures.py), so it changes only
when someone runs this on purpose — never as a side effect of the test suite (the same check runs
as tests/browser/test_site_links.py, reporting to a temporary file). Builds the site for the test
date into a temporary directory, serves it on 127.0.0.1 and drives Debian's Chromium.

Run: .venv/bin/python tests/bench/report_browser_links.py [--out golden/reports/browser-links.json]
Exit status 1 if any link fails to land on its passage (the report is written either way).
"""

from __future__ import annotations

import argparse
import functools
import sys
import tempfile
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # tests/: support, link_check

from link_check import check_links, write_report  # noqa: E402
from support import AS_OF, CHROMIUM, CHROMIUM_ARGS, CORPUS, ROOT, SITE_SRC  # noqa: E402

from citavial.build.pipeline import build_site  # noqa: E402


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args) -> None:  # noqa: A002 - stdlib signature
        pass


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "golden" / "reports" / "browser-links.json")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright
    with tempfile.TemporaryDirectory() as tmp:
        site = Path(tmp) / "dist"
        build_site(corpus_dir=CORPUS, out_dir=site, as_of=AS_OF, site_src=SITE_SRC)
        server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(site)))
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=str(CHROMIUM), headless=True,
                                            args=CHROMIUM_ARGS)
                context = browser.new_context(viewport={"width": 1280, "height": 720})
                report = check_links(site, f"http://127.0.0.1:{server.server_address[1]}",
                                     context, every_context=True)
                browser.close()
        finally:
            server.shutdown()
            server.server_close()
    write_report(args.out, report)
    print(f"{report['checked']} links opened in Chromium {report['browser']}, "
          f"{report['failed']} failed; wrote {args.out}")
    return 1 if report["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
