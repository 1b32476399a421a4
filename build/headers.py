"""The site's HTTP security and caching policy: one definition, used by the page template
(the CSP as a <meta http-equiv>, for static hosting) and by `citavial serve` (as headers).

The page policy allows nothing inline and no other host except the local answer worker, which
the chat widget looks for on the page's own origin, then on http://127.0.0.1:8000 (or the
loopback address a student gives it).
"""

from __future__ import annotations

from citavial.build import patterns

# Any port on loopback: a student can point the widget at a worker started on another port.
WORKER_ORIGINS = ("http://127.0.0.1:*", "http://localhost:*")

# (directive, sources). frame-ancestors is ignored (with a console error) in a <meta> policy,
# so it is sent as a header only; everything else is identical in both.
CSP_DIRECTIVES: tuple[tuple[str, str], ...] = (
    ("default-src", "'self'"),
    ("script-src", "'self'"),
    ("style-src", "'self'"),
    ("img-src", "'self'"),
    ("font-src", "'self'"),
    ("connect-src", " ".join(("'self'",) + WORKER_ORIGINS)),
    ("manifest-src", "'self'"),
    ("worker-src", "'self'"),
    ("object-src", "'none'"),
    ("base-uri", "'none'"),
    ("form-action", "'self'"),
    ("frame-ancestors", "'self'"),
)
HEADER_ONLY = frozenset({"frame-ancestors"})
REFERRER_POLICY = "same-origin"   # nothing of a student's URL (search question) leaves the site

IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"


def csp(meta: bool = False) -> str:
    """The Content-Security-Policy; ``meta=True`` leaves out the header-only directives."""
    return "; ".join(f"{d} {s}" for d, s in CSP_DIRECTIVES if not (meta and d in HEADER_ONLY))


def security_headers() -> dict[str, str]:
    """Headers for every response of `citavial serve` (documented in docs/deploy.md)."""
    return {
        "Content-Security-Policy": csp(),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": REFERRER_POLICY,
        "X-Frame-Options": "SAMEORIGIN",
        "Cross-Origin-Opener-Policy": "same-origin",
        "Permissions-Policy": "camera=(), microphone=(), geolocation=(), interest-cohort=()",
    }


def cache_control(path: str) -> str:
    """Content-hashed assets never change under their name; everything else is revalidated
    (HTML, the service worker, the manifest, JSON), so a new build is seen at once."""
    return IMMUTABLE if patterns.HASHED_ASSET.search(path) else REVALIDATE
