// Runs site_src/static/search-core.js (the ranking) under node: argv[2] = dist/search-index.js, argv[3] = k.
// Reads one question per line (JSON string) on stdin; prints one JSON object per line:
// {"refs": [ref key (lexical.ref_key)…], "signs": [[code, how]…]}. Shards (search/*.js) are
// loaded on demand as the page loads them, from the directory of search-index.js.
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const ctx = { console };
ctx.globalThis = ctx;
ctx.window = ctx;
vm.createContext(ctx);
const base = path.dirname(process.argv[2]);
vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), ctx);
vm.runInContext(fs.readFileSync(path.join(__dirname, "../../site_src/static/util.js"), "utf8"), ctx);
vm.runInContext(fs.readFileSync(path.join(__dirname, "../../site_src/static/search-core.js"), "utf8"), ctx);
const load = (file) => new Promise((resolve) => {
  vm.runInContext(fs.readFileSync(path.join(base, file), "utf8"), ctx);
  resolve();
});
const index = new ctx.CitavialSearch.Index(ctx.CITAVIAL_SEARCH, load);
const k = Number(process.argv[3] || 10);
const lines = fs.readFileSync(0, "utf8").split("\n").filter(Boolean);
(async () => {
  const out = [];
  for (const l of lines) {
    const q = JSON.parse(l);
    const results = await index.search(q, k);
    out.push(JSON.stringify({ refs: results.map((r) => r.ref),
      signs: index.signHits(q).map((s) => [s.code, s.how]) }));
  }
  process.stdout.write(out.join("\n") + "\n");
})();
