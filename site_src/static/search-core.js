/* citavial static search, the ranking: no server, no DOM. Reads window.CITAVIAL_SEARCH
   (search-index.js, written by `citavial build`: build/index/make/export.py), loads the postings
   of a query's terms and the result data of the passages it shows from shards (search/terms-*.js,
   search/docs-*.js) through the `load` function it is given, and ranks passages EXACTLY as
   `citavial search` does: this file mirrors build/index/query/lexical.py line for line (fold
   from util.js, tokens, everyday words read as the law's (aliases), forms and prefix fallback,
   negation prefixes, designators, integer BM25 sums, ties by ref, roll-up with the top group
   allowed FIRST_UNIT places) and finds the signs a query names exactly as
   build/index/signmatch.py does. tests/test_search_parity.py runs it under node on every golden
   question and on sign queries and compares the top 10 and the signs with the CLI; search.js
   is the page that shows what it ranks. */
(function (root) {
  "use strict";
  var fold = root.CitavialUtil.fold;   /* util.js: build/text.py's fold, ñ kept */
  var TOKEN = /\d{1,3}(?:\.\d{3})+(?!\d)|\d+(?:,\d+)?|[\p{L}\p{Nl}\p{No}]+/gu;
  var DESIGNATOR_WORDS = { art: 1, articulo: 1, articulos: 1 };
  var ROMANS = { i: "I", ii: "II", iii: "III", iv: "IV" };
  var SIGN_CODE = /(?<![\p{L}\p{N}_])([a-z]{1,2})[-\u2010\u2011](\d{1,3}(?:\.\d{1,2})?[a-z]?)(?![\p{L}\p{N}_])/gu;
  var SIGN_QUERY = /(?<![\p{L}\p{N}_])([prsm])[-\u2010\u2011 ]?(\d{1,3}(?:\.\d{1,2})?[a-z]?)(?![\p{L}\p{N}_])/gu;
  var SOFT_PLURAL = "lnrdzj", HYPHENS = "-\u2010\u2011";
  var MAX_RESULTS = 20;

  function foldedTokens(folded) {
    var out = [], m;
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(folded)) !== null) out.push(m[0]);
    return out;
  }

  function tokens(text) { return foldedTokens(fold(text)); }

  /* signmatch.sign_key: a light plural fold ("calles"/"calle", "peatones"/"peaton"). */
  function signKey(tok) {
    if (tok.length > 3 && tok[tok.length - 1] === "s") tok = tok.slice(0, -1);
    if (tok.length > 3 && tok[tok.length - 1] === "e" && SOFT_PLURAL.indexOf(tok[tok.length - 2]) >= 0) {
      tok = tok.slice(0, -1);
    }
    return tok;
  }

  function isDigit(tok) { return tok.charCodeAt(0) >= 48 && tok.charCodeAt(0) <= 57; }

  /* export.decode_posting: "Δrow,weight,…" in base 36 → [row, weight, …] */
  function decodePosting(text) {
    var nums = text ? text.split(",") : [], out = new Int32Array(nums.length), prev = -1;
    for (var i = 0; i < nums.length; i += 2) {
      prev += parseInt(nums[i], 36) + 1;
      out[i] = prev;
      out[i + 1] = parseInt(nums[i + 1], 36);
    }
    return out;
  }

  /* The shard (position in starts) that holds item i: the last start <= i. */
  function shardOf(starts, i) {
    var lo = 0, hi = starts.length - 1;
    while (lo < hi) {
      var mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= i) lo = mid; else hi = mid - 1;
    }
    return lo;
  }

  /* `load(file)` returns a Promise settled once the shard script `file` (a path relative to
     search-index.js) has run, i.e. has put its rows into window.CITAVIAL_SEARCH_PARTS. */
  function Index(data, load) {
    this.data = data;
    this.keys = data.keys;
    this.loadFile = load;
    this.postings = new Array(data.stems.length);
    this.docs = new Array(data.keys.length);
    this.pending = {};
    this.stop = new Set(data.stop);
    this.queryStop = new Set(data.query_stop);
    this.forms = new Map();   /* export.encode_forms: per stem, its words' suffixes */
    for (var f = 0; f < data.forms.length; f++) {
      if (data.forms[f] === null) continue;   /* "" is the stem itself */
      data.forms[f].split(",").forEach(function (w) {
        this.forms.set(w.charAt(0) === "!" ? w.slice(1) : data.stems[f] + w, f);
      }, this);
    }
    this.stemId = new Map();
    for (var i = 0; i < data.stems.length; i++) this.stemId.set(data.stems[i], i);
    /* the tie-break: each passage's position in sorted (full) ref order; a Reglamento
       passage's key is its bare fragment (lexical.ref_key), another norm's its whole ref */
    var keys = data.keys;
    var order = keys.map(function (d, i) { return i; });
    var full = function (k) { return k.indexOf("#") < 0 ? data.norm + "#" + k : k; };
    order.sort(function (a, b) {
      var x = full(keys[a]), y = full(keys[b]);
      return x < y ? -1 : x > y ? 1 : 0;
    });
    this.tiebreak = new Int32Array(order.length);
    for (var r = 0; r < order.length; r++) this.tiebreak[order[r]] = r;
    /* signmatch.prepare: each catalogue name's words */
    this.signs = data.signs || [];
    this.signRow = new Map();
    this.signNames = this.signs.map(function (row, i) {
      this.signRow.set(row[0], i);
      var toks = tokens(row[1]);
      return [toks, toks.map(signKey)];
    }, this);
    this.cue = new Set(data.sign_cue || []);
    this.markingCue = new Set(data.sign_marking_cue || []);
    this.filler = new Set(data.sign_filler || []);
    this.connect = new Set(data.sign_connect || []);
  }

  /* signmatch.code_rows: [start, end, rows, how] per catalogue code the folded text writes. */
  Index.prototype.codeRows = function (folded) {
    var out = [], m, code, signs = this.signs;
    SIGN_QUERY.lastIndex = 0;
    while ((m = SIGN_QUERY.exec(folded)) !== null) {
      code = m[1].toUpperCase() + "-" + m[2];
      var end = m.index + m[0].length;
      if (this.signRow.has(code)) { out.push([m.index, end, [this.signRow.get(code)], "code"]); continue; }
      if (HYPHENS.indexOf(m[0].charAt(1)) < 0) continue;   /* "m 2", "m2": exact codes only */
      var family = [];
      for (var i = 0; i < signs.length; i++) {
        var c = signs[i][0], next = c.charAt(code.length);
        if (c.indexOf(code) === 0 && c.length > code.length && (next === "." || /^\p{L}$/u.test(next))) {
          family.push(i);
        }
      }
      if (family.length) out.push([m.index, end, family, "family"]);
    }
    return out;
  };

  function mask(folded, spans) {
    spans.forEach(function (s) {
      folded = folded.slice(0, s[0]) + " ".repeat(s[1] - s[0]) + folded.slice(s[1]);
    });
    return folded;
  }

  function find(keys, name) {
    for (var i = 0; i + name.length <= keys.length; i++) {
      var j = 0;
      while (j < name.length && keys[i + j] === name[j]) j++;
      if (j === name.length) return i;
    }
    return -1;
  }

  /* signmatch.name_rows: [row, "name" | "partial"] for the names the question writes. */
  Index.prototype.nameRows = function (folded) {
    var stop = this.stop, cue = this.cue, filler = this.filler, connect = this.connect;
    var adjacent = this.data.sign_adjacent;
    var toks = foldedTokens(folded), keys = toks.map(signKey);
    var cuedAny = toks.some(function (t) { return cue.has(t); });
    var marking = toks.some(function (t) { return this.markingCue.has(t); }, this);
    var content = keys.filter(function (k, i) { return !stop.has(toks[i]) && !filler.has(toks[i]); });
    var full = [], partial = [];
    function cued(at) {
      for (var j = Math.max(0, at - adjacent); j < at; j++) {
        var ok = cue.has(toks[j]);
        for (var x = j + 1; ok && x < at; x++) ok = connect.has(toks[x]);
        if (ok) return true;
      }
      return false;
    }
    this.signNames.forEach(function (n, row) {
      var ntoks = n[0], nkeys = n[1];
      var nameContent = nkeys.filter(function (k, i) { return !stop.has(ntoks[i]); });
      var prefer = marking === (this.signs[row][0].indexOf("M-") === 0) ? 0 : 1;
      var at = nkeys.length ? find(keys, nkeys) : -1;
      if (at >= 0) {
        var about = toks.every(function (t, i) {
          return stop.has(t) || filler.has(t) || nkeys.indexOf(keys[i]) >= 0;
        });
        if (cued(at) || (about && (nameContent.length >= 2 || cuedAny))) {
          full.push([prefer, -nkeys.length, row]);
          return;
        }
      }
      if ((content.length >= 2 || (content.length && cuedAny)) && find(nameContent, content) >= 0) {
        partial.push([prefer, nkeys.length, row]);
      }
    }, this);
    var byKey = function (a, b) { return a[0] - b[0] || a[1] - b[1] || a[2] - b[2]; };
    full.sort(byKey);
    partial.sort(byKey);
    return full.map(function (f) { return [f[2], "name"]; })
      .concat(partial.map(function (p) { return [p[2], "partial"]; }));
  };

  /* signmatch.match: [row, how] of the signs a question names, best first. */
  Index.prototype.signMatches = function (question) {
    if (!this.signs.length) return [];
    var folded = fold(question), spans = this.codeRows(folded), out = [];
    if (spans.length) {
      spans.forEach(function (s) { s[2].forEach(function (r) { out.push([r, s[3]]); }); });
    } else out = this.nameRows(folded);
    var seen = new Set();
    return out.filter(function (h) {
      if (seen.has(h[0])) return false;
      seen.add(h[0]);
      return true;
    }).slice(0, this.data.max_signs);
  };

  Index.prototype.signHits = function (question) {
    var signs = this.signs;
    return this.signMatches(question).map(function (h) {
      var row = signs[h[0]];
      return { code: row[0], name: row[1], inForce: !!row[2], how: h[1],
        url: "senales.html#senal-" + row[0] };
    });
  };

  Index.prototype.wordId = function (tok) {
    var found = this.forms.get(tok);
    for (var n = tok.length; found === undefined && n >= this.data.min_prefix; n--) {
      found = this.stemId.get(tok.slice(0, n));
    }
    return found;
  };

  /* The term a shown word counts for (undefined: none), remembered per word: fold works
     character by character (NFKD) and 20 results hold thousands of words, most repeated. */
  Index.prototype.markId = function (word) {
    var memo = this.markIds || (this.markIds = new Map());
    if (memo.has(word)) return memo.get(word);
    var tok = fold(word);
    var id = isDigit(tok) ? this.stemId.get(tok.replace(/\./g, "")) : this.wordId(tok);
    if (tok.length < 2 || this.stop.has(tok)) id = undefined;
    memo.set(word, id);
    return id;
  };

  Index.prototype.termIds = function (question) {
    var codes = this.codeRows(fold(question)), masked = mask(fold(question), codes);
    var toks = foldedTokens(masked), ids = [], tok, found, k, neg;
    var aliases = this.data.aliases || {}, read = [];   /* text.QUERY_ALIASES: "moto" → "motocicleta" */
    toks.forEach(function (t) {
      read.push.apply(read, Object.prototype.hasOwnProperty.call(aliases, t) ? aliases[t] : [t]);
    });
    for (var i = 0; i < read.length; i++) {
      tok = read[i];
      found = undefined;
      if (isDigit(tok)) {
        found = this.stemId.get(tok.replace(/\./g, ""));
      } else if (tok.length >= 2 && !this.stop.has(tok) && !this.queryStop.has(tok)) {
        found = this.wordId(tok);
        for (k = 0; k < this.data.negation.length; k++) {
          neg = this.data.negation[k];
          if (found === undefined && tok.indexOf(neg) === 0 &&
              tok.length - neg.length >= this.data.min_prefix) {
            found = this.wordId(tok.slice(neg.length));
          }
        }
      }
      if (found !== undefined) ids.push(found);
    }
    for (i = 0; i + 1 < toks.length; i++) {
      if (DESIGNATOR_WORDS[toks[i]] && /^\d+$/.test(toks[i + 1])) {
        found = this.stemId.get("art" + toks[i + 1]);
        if (found !== undefined) ids.push(found);
      }
    }
    var m;
    SIGN_CODE.lastIndex = 0;
    while ((m = SIGN_CODE.exec(masked)) !== null) {
      found = this.stemId.get(m[1] + "-" + m[2]);
      if (found !== undefined) ids.push(found);
    }
    codes.forEach(function (c) {   /* a catalogue code, however typed: its own term(s) */
      c[2].forEach(function (r) {
        found = this.stemId.get(this.signs[r][0].toLowerCase());
        if (found !== undefined) ids.push(found);
      }, this);
    }, this);
    return ids;
  };

  /* lexical.named_fragment: the ref fragment a reference-only question names, or null. */
  function namedFragment(question) {
    var toks = tokens(question).filter(function (t) { return t !== "apartado" && t !== "letra"; });
    var isNum = function (t) { return /^\d+$/.test(t); };
    if (toks.length >= 2 && DESIGNATOR_WORDS[toks[0]] && isNum(toks[1])) {
      var frag = "art" + toks[1], rest = toks.slice(2);
      if (rest.length && rest[0] === "bis") { frag += "bis"; rest = rest.slice(1); }
      if (rest.length && isNum(rest[0])) {
        frag += "." + rest[0]; rest = rest.slice(1);
        if (rest.length && rest[0].length === 1 && /^\p{L}$/u.test(rest[0])) {
          frag += "." + rest[0]; rest = rest.slice(1);
        }
      }
      return rest.length ? null : frag;
    }
    if ((toks.length === 2 || toks.length === 3) && toks[0] === "anexo" && ROMANS[toks[1]]) {
      frag = "anexo" + ROMANS[toks[1]];
      if (toks.length === 3) {
        if (!isNum(toks[2])) return null;
        frag += "." + toks[2];
      }
      return frag;
    }
    return null;
  }

  Index.prototype.named = function (question) {
    var frag = namedFragment(question), out = [];
    if (frag === null) return out;
    this.keys.forEach(function (k, i) {
      if (k === frag || k.indexOf(frag + ".") === 0) out.push(i);
    });
    return out;
  };

  /* --- shards: loaded once each, on demand ---------------------------------------------- */

  /* A Promise settled when shard n of `kind` ("terms" | "docs") has been read in. */
  Index.prototype.shard = function (kind, n) {
    var name = kind + "-" + n, self = this;
    if (!this.pending[name]) {
      var info = this.data[kind === "terms" ? "term_shards" : "doc_shards"];
      this.pending[name] = this.loadFile(info.files[n]).then(function () {
        var parts = root.CITAVIAL_SEARCH_PARTS || {}, rows = parts[name], lo = info.starts[n];
        if (!rows) throw new Error(info.files[n]);
        for (var i = 0; i < rows.length; i++) {
          if (kind === "terms") self.postings[lo + i] = decodePosting(rows[i]);
          else self.docs[lo + i] = rows[i];
        }
        delete parts[name];
      });
    }
    return this.pending[name];
  };

  /* A Promise settled when every item (term ids or passage rows) of `kind` is in memory. */
  Index.prototype.need = function (kind, items) {
    var starts = this.data[kind === "terms" ? "term_shards" : "doc_shards"].starts, seen = {};
    var wait = [];
    items.forEach(function (i) {
      var n = shardOf(starts, i);
      if (!seen[n]) { seen[n] = 1; wait.push(this.shard(kind, n)); }
    }, this);
    return Promise.all(wait);
  };

  /* A Promise settled when the postings rank() needs for `question` are loaded. */
  Index.prototype.prepare = function (question) {
    return this.need("terms", this.termIds(question));
  };

  /* What a result shows, once its docs shard is loaded (Index.need("docs", [d])). */
  Index.prototype.result = function (d, scores) {
    var doc = this.docs[d];
    return { ref: this.keys[d], url: doc[0], heading: doc[1], place: doc[2], text: doc[3],
      rows: doc[4], norm: this.data.norms[doc[5]] || "", score: scores ? scores[d] / this.data.scale : 0 };
  };

  /* Ranked passage rows: integer score desc, ref asc; the first `head` places hold one passage
     per group, except the top group, which may hold `first_unit`. Call after prepare(). */
  Index.prototype.rank = function (question, limit) {
    var data = this.data, tb = this.tiebreak, groups = data.groups;
    var scores = new Float64Array(this.keys.length);
    var ids = this.termIds(question);
    for (var i = 0; i < ids.length; i++) {
      var post = this.postings[ids[i]];
      if (post === undefined) throw new Error("postings of term " + ids[i] + " not loaded");
      for (var j = 0; j < post.length; j += 2) scores[post[j]] += post[j + 1];
    }
    var first = this.named(question), pinned = new Set(first);
    var hits = [];
    for (var d = 0; d < scores.length; d++) if (scores[d] > 0 && !pinned.has(d)) hits.push(d);
    hits.sort(function (a, b) { return scores[b] - scores[a] || tb[a] - tb[b]; });
    var seen = new Map(), head = [], tail = [];
    hits.forEach(function (h) {
      var g = groups[h];
      var cap = head.length && groups[head[0]] === g ? data.first_unit : 1;
      if (head.length < data.head && (seen.get(g) || 0) < cap) {
        seen.set(g, (seen.get(g) || 0) + 1);
        head.push(h);
      } else tail.push(h);
    });
    return { rows: first.concat(head, tail).slice(0, limit || MAX_RESULTS), scores: scores,
      ids: ids };
  };

  /* A Promise of the results, every shard they need loaded (the page renders each result
     as soon as its own shard arrives instead: render below). */
  Index.prototype.search = function (question, limit) {
    var self = this;
    return this.prepare(question).then(function () {
      var ranked = self.rank(question, limit);
      return self.need("docs", ranked.rows).then(function () {
        return ranked.rows.map(function (d) { return self.result(d, ranked.scores); });
      });
    });
  };

  root.CitavialSearch = { Index: Index, fold: fold, MAX_RESULTS: MAX_RESULTS };
})(typeof window !== "undefined" ? window : globalThis);
