// Runs site_src/static/search.js under node: argv[2] = dist/search-index.js, argv[3] = k.
// Reads one question per line (JSON string) on stdin; prints one JSON object per line:
// {"refs": [ref key (lexical.ref_key)…], "signs": [[code, how]…]}.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const ctx = { console };
ctx.globalThis = ctx;
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(process.argv[2], "utf8").replace("window.CITAVIAL_SEARCH", "globalThis.CITAVIAL_SEARCH"), ctx);
vm.runInContext(fs.readFileSync(path.join(__dirname, "../../site_src/static/search.js"), "utf8"), ctx);
const index = new ctx.CitavialSearch.Index(ctx.CITAVIAL_SEARCH);
const k = Number(process.argv[3] || 10);
const lines = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
const out = lines.map((l) => {
  const q = JSON.parse(l);
  return JSON.stringify({ refs: index.search(q, k).map((r) => r.ref),
    signs: index.signHits(q).map((s) => [s.code, s.how]) });
});
process.stdout.write(out.join("\n") + "\n");
