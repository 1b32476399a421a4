"""Browser-faithful text model, matcher and deep-link generator for URL text fragments.

The citation gate, the renderer and the worker use these so that "the quote is on the page" and
"the link lands on it" are judged the way Chromium judges them. See docs in each module:
``textmodel`` (what text is searchable, in which blocks; ``leading``: a page's chrome before
its <main>, walked once for the pages that share it), ``match`` (how terms and directives
match), ``directive`` (encoding, parsing, and the deep link for a passage), ``wordbreak``.
"""

from citavial.build.gate.fragments.directive import (
    DeepLink,
    decode_term,
    deep_link,
    deep_link_at,
    directive_for,
    encode_term,
    format_directive,
    parse_directive,
    parse_fragment,
)
from citavial.build.gate.fragments.match import Match, TextDirective, find_all, match_directive
from citavial.build.gate.fragments.textmodel import Block, PageText, read_page

__all__ = [
    "Block", "DeepLink", "Match", "PageText", "TextDirective", "decode_term", "deep_link",
    "deep_link_at", "directive_for", "encode_term", "find_all", "format_directive",
    "match_directive", "parse_directive", "parse_fragment", "read_page",
]
