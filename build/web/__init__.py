"""Publishing the built site for the web: security policy, hashed and precompressed assets,
sharing metadata (canonical, sitemap, OpenGraph), icons, manifest and service worker.

Runs last, on the whole staged tree, so every page any stage renders gets the same treatment."""
