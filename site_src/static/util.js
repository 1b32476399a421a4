/* citavial's shared page helpers. fold: build/text.py's fold, the gate's comparison form (ñ
   kept), character for character; tests/test_text.py runs it under node against the Python one.
   rng: the seeded PRNG of practice-core.js and simulacro-core.js; make, fillQuote: the DOM
   helpers of practice.js and simulacro.js. Load it before the page scripts that use it. */
(function (root) {
  "use strict";
  var QUOTES = { "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u05f3": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u05f4": '"' };
  var LETTERS = { "ø": "o", "ł": "l", "đ": "d", "ð": "d", "ħ": "h", "æ": "ae", "œ": "oe" };
  /* Where Python's str.casefold differs from toLowerCase on these characters. */
  var CASEFOLD = { "ß": "ss", "ς": "σ", "\u0345": "ι" };
  var DROP = /[\p{Mn}\p{Me}\p{Cf}\p{Cc}]/u;
  var SPACE = /\p{White_Space}/u;

  function fold(text) {
    var out = "";
    for (var ch of text) {
      if (ch === "ñ" || ch === "Ñ") { out += "ñ"; continue; }
      if (QUOTES[ch]) { out += QUOTES[ch]; continue; }
      if (SPACE.test(ch)) { out += " "; continue; }
      var d = ch.normalize("NFKD");
      if (d.length > 1 && d[0] === " ") { out += ch.toLowerCase(); continue; }
      for (var c of d.toLowerCase().normalize("NFKD")) {
        c = CASEFOLD[c] || c;
        if (SPACE.test(c)) out += " ";
        else if (!DROP.test(c)) out += LETTERS[c] || c;
      }
    }
    return out.split(" ").filter(Boolean).join(" ");   /* runs collapsed, ends trimmed, as " ".join(split()) */
  }

  /* Deterministic PRNG (mulberry32): a stored seed replays the same order (practice) or
   * redraws the same exam (simulacro). */
  function rng(seed) {
    var a = seed >>> 0;
    return function () {
      a = (a + 0x6D2B79F5) >>> 0;
      var t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  function make(tag, cls, s) {
    var el = document.createElement(tag);
    if (cls) el.className = cls;
    if (s != null) el.textContent = s;
    return el;
  }
  /* A table-row quote ("cell | cell", e.g. a points row of the Ley's anexo II) shows as a
   * one-row table of its cells, as the guides show it; any other quote as plain text. */
  function fillQuote(el, quote) {
    el.textContent = "";
    var cells = quote.split(" | ");
    if (cells.length < 2) { el.textContent = quote; return el; }
    var table = make("span", "cita-row"), row = make("span");
    table.setAttribute("role", "table");
    table.setAttribute("aria-label", "Fila citada de la tabla");
    row.setAttribute("role", "row");
    cells.forEach(function (c) {
      var cell = make("span", "cita-cell", c); cell.setAttribute("role", "cell"); row.appendChild(cell);
    });
    table.appendChild(row); el.appendChild(table);
    return el;
  }

  var api = { fold: fold, rng: rng, make: make, fillQuote: fillQuote };
  if (typeof module !== "undefined" && module.exports) module.exports = api;   /* node tests */
  else root.CitavialUtil = api;
})(typeof window !== "undefined" ? window : globalThis);
