"""Icons generated at build time from one source (site_src/pwa/icon.txt, a palette and a square
pixel grid): PNGs for the manifest and Apple devices, favicon.ico.

Written with zlib and struct from the standard library: a nearest-neighbour upscale of a pixel
grid needs no imaging library, and the output is byte-identical from build to build.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from citavial.build.atomic import write_staged_bytes
from citavial.build.errors import BuildError

# (file, size in px)
ICONS = (("static/icon-192.png", 192), ("static/icon-512.png", 512),
         ("static/apple-touch-icon.png", 180))
FAVICON = ("favicon.ico", 32)


def read_source(path: Path) -> list[list[tuple[int, int, int]]]:
    """The grid as rows of RGB triples; errors name the line and the rule."""
    palette: dict[str, tuple[int, int, int]] = {}
    grid = []
    for n, raw in enumerate(Path(path).read_text("utf-8").splitlines(), 1):
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if "=" in line:
            key, _, value = (s.strip() for s in line.partition("="))
            if len(key) != 1 or len(value) != 7 or not value.startswith("#"):
                raise BuildError(f"{path}:{n}", f"palette line {line!r}",
                                 "write 'X = #rrggbb'")
            palette[key] = tuple(int(value[i:i + 2], 16) for i in (1, 3, 5))  # type: ignore
            continue
        unknown = sorted(set(line) - set(palette))
        if unknown:
            raise BuildError(f"{path}:{n}", f"grid letters {unknown} are not in the palette",
                             "declare them as 'X = #rrggbb' above the grid")
        grid.append([palette[c] for c in line])
    if not grid or any(len(row) != len(grid) for row in grid):
        raise BuildError(str(path), f"grid of {len(grid)} lines of "
                         f"{sorted({len(r) for r in grid})} letters is not square",
                         "write N lines of N letters")
    return grid


def png(grid: list[list[tuple[int, int, int]]], size: int) -> bytes:
    """An RGB PNG of ``size``×``size`` pixels."""
    n = len(grid)
    raw = bytearray()
    for y in range(size):
        raw.append(0)   # filter: none
        row = grid[y * n // size]
        for x in range(size):
            raw.extend(row[x * n // size])

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
            + chunk(b"IDAT", zlib.compress(bytes(raw), 9)) + chunk(b"IEND", b""))


def ico(png_data: bytes, size: int) -> bytes:
    """A one-image .ico that embeds a PNG (supported by every current browser)."""
    return (struct.pack("<HHH", 0, 1, 1)
            + struct.pack("<BBBBHHII", size % 256, size % 256, 0, 0, 1, 32, len(png_data), 22)
            + png_data)


def draw_icons(source: str | Path) -> list[tuple[str, bytes]]:
    """Every icon's (path, bytes), drawn from ``source`` (~0.15 s of CPU)."""
    grid = read_source(Path(source))
    out = [(rel, png(grid, size)) for rel, size in ICONS]
    rel, size = FAVICON
    return out + [(rel, ico(png(grid, size), size))]


def draw_or_none(source: str) -> list[tuple[str, bytes]] | None:
    """draw_icons beside the build (build/beside.py): None for a source it cannot read, whose
    error the build's own process then raises with its line and rule."""
    try:
        return draw_icons(source)
    except BuildError:
        return None


def write_icons(source: Path, stage: Path,
                drawn: list[tuple[str, bytes]] | None = None) -> list[tuple[str, int]]:
    """Write every icon into the staged site (``drawn``: draw_icons(source) already made);
    return [(path, size)]."""
    for rel, data in draw_icons(source) if drawn is None else drawn:
        write_staged_bytes(stage / rel, data)
    return [*ICONS, FAVICON]
