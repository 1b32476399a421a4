"""What Chromium highlights for a text-fragment link, read off its own rendering: the pixels of
the site's highlight colour (``::target-text``, site_src/static/site.css ``--mark``) in each
table cell's screenshot. Shared by tests/browser/test_cell_links.py and test_copy_link.py."""

from __future__ import annotations

import base64

MARK = (0xff, 0xe5, 0x8a)   # site.css --mark: the background of ::target-text
MIN_PIXELS = 20             # a highlighted word paints hundreds; a cell not highlighted, none

# Decoded on a blank page of the same context: the site's CSP rightly refuses data: URLs.
_COUNT_MARK = """async ([shots, mark]) => {
  const out = [];
  for (const b64 of shots) {
    const bmp = await createImageBitmap(await (await fetch('data:image/png;base64,' + b64)).blob());
    const canvas = new OffscreenCanvas(bmp.width, bmp.height), g = canvas.getContext('2d');
    g.drawImage(bmp, 0, 0);
    const d = g.getImageData(0, 0, bmp.width, bmp.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4)
      if ([0, 1, 2].every(k => Math.abs(d[i + k] - mark[k]) < 4)) n++;
    out.push(n);
  }
  return out;
}"""


def lit_cells(tab, table_id: str) -> set[tuple[int, int]]:
    """(row, column) of every cell of the table ``table_id`` that shows highlighted words."""
    rows = tab.locator(f"[id='{table_id}'] tr")
    where = [(i, j) for i in range(rows.count())
             for j in range(rows.nth(i).locator(":scope > th, :scope > td").count())]
    shots = [base64.b64encode(rows.nth(i).locator(":scope > th, :scope > td").nth(j)
                              .screenshot()).decode() for i, j in where]
    blank = tab.context.new_page()
    try:
        counts = blank.evaluate(_COUNT_MARK, [shots, list(MARK)])
    finally:
        blank.close()
    return {at for at, n in zip(where, counts, strict=True) if n > MIN_PIXELS}
