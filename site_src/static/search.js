/* citavial static search: no server, no worker. Reads window.CITAVIAL_SEARCH (search-index.js,
   written by `citavial build`) and ranks passages by precomputed BM25 weights.
   Analysis mirrors build/index/export.py: fold case and accents (ñ kept), split into numbers
   and words, drop stop words, map each word to its stem through `forms` (an unseen word falls
   back to the longest known stem that prefixes it). Ties: score desc, ref asc. */
(function () {
  "use strict";
  var FOLD = { "á": "a", "é": "e", "í": "i", "ó": "o", "ú": "u", "ü": "u", "à": "a", "è": "e",
    "ì": "i", "ò": "o", "ù": "u", "â": "a", "ê": "e", "î": "i", "ô": "o", "û": "u", "ä": "a",
    "ë": "e", "ï": "i", "ö": "o" };
  var TOKEN = /\d{1,3}(?:\.\d{3})+(?!\d)|\d+(?:,\d+)?|[\p{L}\p{Nl}\p{No}]+/gu;
  var MAX_RESULTS = 20;
  var MIN_PREFIX = 4;
  var HEAD = 5;   /* places where one passage per group is shown, then the rest in order */

  function fold(text) {
    return text.normalize("NFC").toLowerCase().replace(/[áéíóúüàèìòùâêîôûäëïö]/g,
      function (c) { return FOLD[c]; });
  }

  function Index(data) {
    this.data = data;
    this.stop = new Set(data.stop);
    this.forms = new Map(Object.entries(data.forms));
    this.stemId = new Map();
    for (var i = 0; i < data.stems.length; i++) this.stemId.set(data.stems[i], i);
  }

  Index.prototype.termIds = function (question) {
    var ids = [], m, tok, id;
    var text = fold(question);
    TOKEN.lastIndex = 0;
    while ((m = TOKEN.exec(text)) !== null) {
      tok = m[0];
      id = undefined;
      if (/^\d/.test(tok)) {
        id = this.stemId.get(tok.replace(/\./g, ""));
      } else if (tok.length > 1 && !this.stop.has(tok)) {
        id = this.forms.get(tok);
        for (var len = tok.length; id === undefined && len >= MIN_PREFIX; len--) {
          id = this.stemId.get(tok.slice(0, len));
        }
      }
      if (id !== undefined) ids.push(id);
    }
    return ids;
  };

  /* Ranked passages, one per roll-up group in the first HEAD places (the rest follow), as in
     build/index/export.py's client_search (the reference this code is tested against). */
  Index.prototype.search = function (question, limit) {
    var docs = this.data.docs, scale = this.data.scale;
    var scores = new Float64Array(docs.length);
    var ids = this.termIds(question);
    for (var i = 0; i < ids.length; i++) {
      var post = this.data.postings[ids[i]];
      for (var j = 0; j < post.length; j += 2) scores[post[j]] += post[j + 1] / scale;
    }
    var hits = [];
    for (var d = 0; d < docs.length; d++) if (scores[d] > 0) hits.push(d);
    hits.sort(function (a, b) {
      return scores[b] - scores[a] || (docs[a][0] < docs[b][0] ? -1 : docs[a][0] > docs[b][0] ? 1 : 0);
    });
    var seen = new Set(), head = [], tail = [];
    hits.forEach(function (d) {
      if (head.length < HEAD && !seen.has(docs[d][1])) { head.push(d); seen.add(docs[d][1]); }
      else tail.push(d);
    });
    return head.concat(tail).slice(0, limit || MAX_RESULTS).map(function (d) {
      return { ref: docs[d][0], url: docs[d][2], label: docs[d][3], text: docs[d][4],
        score: Math.round(scores[d] * 1000) / 1000 };
    });
  };

  function render(index, form, input, list, status) {
    var q = input.value.trim();
    list.textContent = "";
    if (!q) { status.textContent = ""; return; }
    var results = index.search(q, MAX_RESULTS);
    status.textContent = results.length
      ? results.length + (results.length === 1 ? " resultado" : " resultados") + " para «" + q + "»."
      : "Sin resultados para «" + q + "». Prueba con otras palabras.";
    results.forEach(function (r) {
      var li = document.createElement("li");
      li.className = "search-hit";
      var a = document.createElement("a");
      a.href = r.url;
      a.textContent = r.label + " · " + r.ref;
      var p = document.createElement("p");
      p.textContent = r.text;
      li.appendChild(a);
      li.appendChild(p);
      list.appendChild(li);
    });
  }

  function start() {
    var form = document.getElementById("buscar-form");
    if (!form) return;
    var input = document.getElementById("buscar-q");
    var list = document.getElementById("buscar-resultados");
    var status = document.getElementById("buscar-estado");
    if (!window.CITAVIAL_SEARCH) {
      status.textContent = "No se encuentra el índice de búsqueda (search-index.js). " +
        "Vuelve a generar el sitio con «citavial build».";
      return;
    }
    var index = new Index(window.CITAVIAL_SEARCH);
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      render(index, form, input, list, status);
      if (window.history && window.history.replaceState && location.protocol !== "file:") {
        window.history.replaceState(null, "", "?q=" + encodeURIComponent(input.value.trim()));
      }
    });
    var initial = new URLSearchParams(location.search).get("q");
    if (initial) { input.value = initial; render(index, form, input, list, status); }
  }

  window.CitavialSearch = { Index: Index, fold: fold };
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
