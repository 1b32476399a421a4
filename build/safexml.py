"""One hardened lxml parser for every XML the project reads (corpus, fetched norms).

DTDs are not loaded, entities are not resolved, nothing is fetched from the network, and huge
trees are refused: a billion-laughs or external-entity file fails instead of expanding.
"""

from __future__ import annotations

from pathlib import Path

from lxml import etree

from citavial.build.errors import BuildError
from citavial.build.patterns import XML_ROOT_START


def _parser() -> etree.XMLParser:
    return etree.XMLParser(
        resolve_entities=False,
        load_dtd=False,
        dtd_validation=False,
        no_network=True,
        huge_tree=False,
        remove_comments=True,
        remove_pis=True,
    )




def parse_bytes(data: bytes, where: str) -> etree._Element:
    """Parse ``data`` safely; ``where`` names the source in the error message."""
    root_at = XML_ROOT_START.search(data)
    if b"<!DOCTYPE" in data[: root_at.start() if root_at else len(data)].upper():
        # Refused before parsing: entity bombs and external entities never reach libxml2.
        raise BuildError(where, "declares a DOCTYPE; DTDs and entities are refused",
                         "use the BOE file as served, without a DOCTYPE")
    try:
        root = etree.fromstring(data, parser=_parser())
    except etree.XMLSyntaxError as exc:
        raise BuildError(where, f"is not well-formed XML ({exc})",
                         "restore the file from corpus/MANIFEST.json's source or run `citavial fetch`") from None
    if root is None:
        raise BuildError(where, "is empty", "restore the file")
    if root.getroottree().docinfo.doctype:
        raise BuildError(where, "declares a DOCTYPE; DTDs and entities are refused",
                         "use the BOE file as served, without a DOCTYPE")
    return root


def parse_file(path: Path) -> etree._Element:
    return parse_bytes(Path(path).read_bytes(), str(path))

