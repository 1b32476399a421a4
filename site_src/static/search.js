/* citavial static search, the page: the form on buscar.html, the results as they arrive (signs
   first, as links to senales.html, never as quotes; then each passage once its shard is read,
   the query's words marked) and a status line that speaks when every result is shown. The
   ranking and the shards are search-core.js's (window.CitavialSearch). */
(function (root) {
  "use strict";
  var Index = root.CitavialSearch.Index, MAX_RESULTS = root.CitavialSearch.MAX_RESULTS;

  /* Text with the words that count for the query marked (DOM nodes, never HTML strings). */
  function marked(index, text, wanted) {
    var frag = document.createDocumentFragment(), last = 0, m;
    var word = /[\p{L}\p{N}]+/gu;
    while ((m = word.exec(text)) !== null) {
      var id = index.markId(m[0]);
      if (id !== undefined && wanted.has(id)) {
        frag.appendChild(document.createTextNode(text.slice(last, m.index)));
        var mark = document.createElement("mark");
        mark.textContent = m[0];
        frag.appendChild(mark);
        last = m.index + m[0].length;
      }
    }
    frag.appendChild(document.createTextNode(text.slice(last)));
    return frag;
  }

  /* In a .table-wrap: a table wider than a phone scrolls inside its box, words whole, never the
     page (site.css; tables.js makes the box keyboard-scrollable once the results are shown). */
  function table(index, rows, wanted, heading) {
    var box = document.createElement("div"), t = document.createElement("table");
    box.className = "table-wrap";
    box.appendChild(t);
    t.className = "hit-table";
    t.setAttribute("aria-label", "Tabla: " + heading);
    rows.forEach(function (row) {
      var tr = document.createElement("tr");
      row.forEach(function (cell) {
        var head = cell[1] && cell[0];    // an empty corner cell is no header (axe)
        var c = document.createElement(head ? "th" : "td");
        if (head) c.scope = "col";
        c.appendChild(marked(index, cell[0], wanted));
        tr.appendChild(c);
      });
      t.appendChild(tr);
    });
    return box;
  }

  function hitItem(index, r, wanted) {
    var li = document.createElement("li");
    li.className = "search-hit";
    var a = document.createElement("a");
    a.href = r.url;
    a.textContent = r.heading;
    li.appendChild(a);
    if (r.norm) {
      var norm = document.createElement("span");
      norm.className = "hit-norm";
      norm.textContent = " · " + r.norm;
      li.appendChild(norm);
    }
    if (r.place) {
      var place = document.createElement("span");
      place.className = "hit-place";
      place.textContent = " · " + r.place;
      li.appendChild(place);
    }
    if (r.rows && r.rows.length) li.appendChild(table(index, r.rows, wanted, r.heading));
    else {
      var p = document.createElement("p");
      p.appendChild(marked(index, r.text, wanted));
      li.appendChild(p);
    }
    return li;
  }

  /* A sign the query names: a pointer to the signs page, never a quote (a vertical sign's
     name comes from the previous catalogue; build/search_cli.py says it in the same words). */
  function signItem(s) {
    var li = document.createElement("li");
    li.className = "sign-hit";
    var a = document.createElement("a");
    a.href = s.url;
    a.textContent = (s.code.indexOf("M-") === 0 ? "Marca vial " : "Señal ") + s.code + " · " + s.name;
    li.appendChild(a);
    var note = document.createElement("span");
    note.className = "hit-place";
    note.textContent = s.inForce ? " (definida en el texto en vigor)" : " (nombre del catálogo anterior)";
    li.appendChild(note);
    return li;
  }

  var generation = 0;   /* a newer search makes an older one's late shards a no-op */

  function said(signs, n, q) {
    var out = signs ? signs + (signs === 1 ? " señal" : " señales") : "";
    if (n) out += (out ? " y " : "") + n + (n === 1 ? " resultado" : " resultados");
    return out ? out + " para «" + q + "»."
      : "Sin resultados para «" + q + "». Prueba con otras palabras.";
  }

  function failed(status, list, err) {
    list.removeAttribute("aria-busy");
    status.textContent = "No se pudo cargar una parte del índice de búsqueda (" + err.message +
      "). Vuelve a cargar la página; si sigue sin cargar, vuelve a generar el sitio con " +
      "«citavial build».";
  }

  /* Signs at once; then the postings of the query's terms; then one hidden slot per result,
     each shown as soon as the docs shard that holds it arrives; the status (a live region)
     speaks once every result is shown. */
  function render(index, input, list, status, signList) {
    var q = input.value.trim(), token = ++generation;
    list.textContent = "";
    if (signList) signList.textContent = "";
    if (!q) { status.textContent = ""; return Promise.resolve(); }
    var signs = signList ? index.signHits(q) : [];
    signs.forEach(function (s) { signList.appendChild(signItem(s)); });
    list.setAttribute("aria-busy", "true");
    return index.prepare(q).then(function () {
      if (token !== generation) return;
      var ranked = index.rank(q, MAX_RESULTS), wanted = new Set(ranked.ids);
      var slots = ranked.rows.map(function () {
        var li = document.createElement("li");
        li.hidden = true;
        list.appendChild(li);
        return li;
      });
      return Promise.all(ranked.rows.map(function (d, i) {
        return index.need("docs", [d]).then(function () {
          if (token !== generation) return;
          var li = hitItem(index, index.result(d, ranked.scores), wanted);
          list.replaceChild(li, slots[i]);
        });
      })).then(function () {
        if (token !== generation) return;
        list.removeAttribute("aria-busy");
        if (window.CitavialTables) window.CitavialTables.mark();
        status.textContent = said(signs.length, ranked.rows.length, q);
      });
    }).catch(function (err) {
      if (token === generation) failed(status, list, err);
    });
  }

  /* Loads a shard by inserting a <script> (no fetch: works from file:// as over HTTP and from
     the service worker's cache), its path relative to search-index.js's own URL. */
  function scriptLoader(base) {
    return function (file) {
      return new Promise(function (resolve, reject) {
        var s = document.createElement("script");
        s.src = new URL(file, base).href;
        s.onload = function () { resolve(); };
        s.onerror = function () { reject(new Error(file)); };
        document.head.appendChild(s);
      });
    };
  }

  function start() {
    var form = document.getElementById("buscar-form");
    if (!form) return;
    var input = document.getElementById("buscar-q");
    var list = document.getElementById("buscar-resultados");
    var status = document.getElementById("buscar-estado");
    var signList = document.getElementById("buscar-senales");
    var script = document.querySelector("script[src*='search-index']");
    if (!root.CITAVIAL_SEARCH || !script) {
      status.textContent = "No se encuentra el índice de búsqueda (search-index.js). " +
        "Vuelve a generar el sitio con «citavial build».";
      return;
    }
    var index = new Index(root.CITAVIAL_SEARCH, scriptLoader(script.src));
    form.addEventListener("submit", function (ev) {
      ev.preventDefault();
      render(index, input, list, status, signList);
      if (root.history && root.history.replaceState && location.protocol !== "file:") {
        root.history.replaceState(null, "", "?q=" + encodeURIComponent(input.value.trim()));
      }
    });
    var initial = new URLSearchParams(location.search).get("q");
    if (initial) { input.value = initial; render(index, input, list, status, signList); }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})(typeof window !== "undefined" ? window : globalThis);
