// Runs site_src/static/util.js's fold under node: reads a JSON array of strings on stdin,
// prints the JSON array of their folds (tests/test_text.py compares them with build/text.py's).
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");
const ctx = {};
ctx.globalThis = ctx;
vm.createContext(ctx);
vm.runInContext(fs.readFileSync(path.join(__dirname, "../../site_src/static/util.js"), "utf8"), ctx);
const texts = JSON.parse(fs.readFileSync(0, "utf8"));
process.stdout.write(JSON.stringify(texts.map((t) => ctx.CitavialUtil.fold(t))) + "\n");
