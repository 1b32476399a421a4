"""What Chromium highlights for a text-fragment link, read off its own rendering: the pixels of
the site's highlight colour (``::target-text``, site_src/static/site.css ``--mark``) in each
table cell's screenshot. Shared by tests/browser/test_cell_links.py and test_copy_link.py."""

from __future__ import annotations

import base64

MARK = (0xff, 0xe5, 0x8a)   # site.css --mark: the background of ::target-text
MIN_PIXELS = 20             # a highlighted word paints hundreds; a cell not highlighted, none

# The cells of a table (the same rows and cells as the locators ``[id=t] tr`` and ``:scope > th,
# :scope > td``). ``_SHOW`` scrolls cell ``first`` into view and returns every cell of ``pending``
# now wholly visible -- inside the viewport and inside the scrolled box around the table (its
# .table-wrap scrolls sideways on a phone): [index, x, y, width, height] in CSS pixels.
_CELLS = """(table) => [...document.querySelectorAll(`[id='${table}'] tr`)].map(
    r => [...r.querySelectorAll(':scope > th, :scope > td')])"""
_SHOW = """([table, first, pending]) => {
  const cells = (""" + _CELLS + """)(table).flat();
  cells[first].scrollIntoView({block: 'center', inline: 'nearest'});
  let view = {left: 0, top: 0, right: innerWidth, bottom: innerHeight};
  for (let e = cells[first].parentElement; e; e = e.parentElement) {
    const s = getComputedStyle(e);
    if (s.overflowX === 'visible' && s.overflowY === 'visible') continue;
    const r = e.getBoundingClientRect(), l = r.left + e.clientLeft, t = r.top + e.clientTop;
    view = {left: Math.max(view.left, l), top: Math.max(view.top, t),
            right: Math.min(view.right, l + e.clientWidth),
            bottom: Math.min(view.bottom, t + e.clientHeight)};
  }
  const out = [];
  for (const i of pending) {
    const r = cells[i].getBoundingClientRect();
    if (r.left >= view.left && r.top >= view.top && r.right <= view.right
        && r.bottom <= view.bottom)
      out.push([i, r.left, r.top, r.width, r.height]);
  }
  return out;
}"""

# Decoded on a blank page of the same context: the site's CSP rightly refuses data: URLs. Each
# shot is a viewport screenshot and the cells it shows whole; each cell's pixels are counted.
_COUNT_MARK = """async ([shots, mark]) => {
  const out = {};
  for (const [b64, cells, width] of shots) {
    const bmp = await createImageBitmap(await (await fetch('data:image/png;base64,' + b64)).blob());
    const canvas = new OffscreenCanvas(bmp.width, bmp.height), g = canvas.getContext('2d');
    g.drawImage(bmp, 0, 0);
    const k = bmp.width / width;   // device pixels per CSS pixel
    for (const [i, x, y, w, h] of cells) {
      const x0 = Math.ceil(x * k), y0 = Math.ceil(y * k);
      const x1 = Math.min(bmp.width, Math.floor((x + w) * k));
      const y1 = Math.min(bmp.height, Math.floor((y + h) * k));
      if (x1 <= x0 || y1 <= y0) { out[i] = 0; continue; }
      const d = g.getImageData(x0, y0, x1 - x0, y1 - y0).data;
      let n = 0;
      for (let p = 0; p < d.length; p += 4)
        if ([0, 1, 2].every(c => Math.abs(d[p + c] - mark[c]) < 4)) n++;
      out[i] = n;
    }
  }
  return out;
}"""


def lit_cells(tab, table_id: str) -> set[tuple[int, int]]:
    """(row, column) of every cell of the table ``table_id`` that shows highlighted words.

    Read off viewport screenshots: the first cell not yet read is scrolled into view, one
    screenshot is taken, and every cell it shows whole is read from it (pixels within the cell's
    box). A table that fits the screen takes one screenshot, not one per cell (three of copy_link's
    row tests: 54.0 -> 18.7 CPU s, n=1 each); a cell hidden by
    the sideways scroll of a phone's table is read from a later screenshot, once it is scrolled
    to; a cell larger than the screen gets a screenshot of its own."""
    counts = tab.evaluate(f"(t) => ({_CELLS})(t).map(r => r.length)", table_id)
    where = [(i, j) for i, n in enumerate(counts) for j in range(n)]
    pending, shots = list(range(len(where))), []
    width = tab.evaluate("innerWidth")
    while pending:
        shown = tab.evaluate(_SHOW, [table_id, pending[0], pending])
        if shown and shown[0][0] == pending[0]:
            shots.append([base64.b64encode(tab.screenshot()).decode(), shown, width])
        else:   # larger than the screen: a screenshot of its own, as Playwright takes it
            i, j = where[pending[0]]
            cell = tab.locator(f"[id='{table_id}'] tr").nth(i).locator(":scope > th, :scope > td").nth(j)
            box = cell.bounding_box()
            shown = [[pending[0], 0, 0, box["width"], box["height"]]]
            shots.append([base64.b64encode(cell.screenshot()).decode(), shown, box["width"]])
        done = {c[0] for c in shown}
        pending = [i for i in pending if i not in done]
    blank = tab.context.new_page()
    try:
        found = blank.evaluate(_COUNT_MARK, [shots, list(MARK)])
    finally:
        blank.close()
    return {where[int(i)] for i, n in found.items() if n > MIN_PIXELS}
