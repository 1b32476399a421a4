"""Render: the Regulation → HTML pages, the changes page, the signs page and the figures page."""
