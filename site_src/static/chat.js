/* citavial chat widget: asks the local worker (POST /api/ask, SSE) and shows the answer — the
 * regulation's own words that settle the question, its key fact in bold, a chip linking to
 * exactly those words — then "Fuentes" (collapsed). Vanilla JS, no dependencies. Everything
 * shown comes from the worker's events and is inserted as text (never as HTML); links are built
 * only from allowlisted citation URLs (for a question about a sign, the build's link to it on
 * the signs page) and open in a new tab.
 * The conversation is kept in sessionStorage, so it survives following a link (the panel stays
 * closed until asked for). Without a worker the site works as before and the widget offers the
 * static search.
 * Mount: <div id="citavial-chat" data-api="…optional base URL…"></div>. */
(function () {
  "use strict";
  var mount = document.getElementById("citavial-chat");
  var script = document.currentScript;
  if (!mount || !window.fetch) return;
  var ROOT = new URL("..", script ? script.src : location.href); // chat.js lives in static/
  var KEY = "citavial.chat", API_KEY = "citavial.api", LOCAL = "http://127.0.0.1:8000";
  var saved = store(localStorage, API_KEY);
  var bases = mount.dataset.api ? [mount.dataset.api] : saved ? [saved] :
    /^https?:$/.test(location.protocol) ? ["", LOCAL] : [LOCAL];
  var api = null, busy = null, n = 0;
  var MONTHS = ("enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre " +
    "diciembre").split(" ");
  var HTTP = {
    429: "Demasiadas preguntas seguidas; espera un segundo y vuelve a preguntar.",
    503: "El asistente está ocupado con otras preguntas; inténtalo en unos segundos.",
    400: "La pregunta no es válida: "
  };

  function store(where, key, value) {
    try {
      if (value === undefined) return where.getItem(key);
      where.setItem(key, value);
    } catch (e) { return null; } // storage off (private mode, file:// rules): keep going
  }
  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function fecha(iso) { // "2026-12-01" → "1 de diciembre de 2026"
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(iso || "");
    return m ? +m[3] + " de " + MONTHS[+m[2] - 1] + " de " + m[1] : iso;
  }
  function out(a) { a.target = "_blank"; a.rel = "noopener"; return a; }
  function link(c, text, url) {
    var a = el("a", "cv-chip", text || c.label);
    a.href = new URL(url || c.url, ROOT).href; // allowlisted deep link (page#anchor:~:text=…)
    // The accessible name starts with the visible text (WCAG 2.5.3), then says where it opens.
    a.setAttribute("aria-label", a.textContent + " (se abre en una pestaña nueva)");
    return out(a);
  }

  // ---- the panel ----
  var toggle = el("button", "cv-toggle", "Preguntar a la ley");
  toggle.type = "button";
  toggle.setAttribute("aria-expanded", "false");
  toggle.setAttribute("aria-controls", "cv-panel");
  var panel = el("section", "cv-panel");
  panel.id = "cv-panel";
  panel.hidden = true;
  panel.setAttribute("aria-label", "Asistente de preguntas");
  var head = el("div", "cv-head");
  head.appendChild(el("h2", "cv-title", "Pregunta sobre la ley de tráfico"));
  var close = el("button", "cv-close", "×");
  close.type = "button";
  close.setAttribute("aria-label", "Cerrar el asistente");
  head.appendChild(close);
  var note = el("p", "cv-note", "Responde con las palabras de la ley en vigor (el Reglamento General de " +
    "Circulación, la Ley sobre Tráfico y los Reglamentos de Vehículos y de Conductores). Puedes " +
    "pegar una pregunta de examen con sus opciones.");
  var log = el("div", "cv-log");
  log.setAttribute("role", "log");
  log.setAttribute("aria-live", "polite");
  var status = el("p", "cv-status");
  status.setAttribute("role", "status");
  var form = el("form", "cv-form");
  var label = el("label", "cv-label", "Tu pregunta");
  label.htmlFor = "cv-q";
  var input = el("textarea", "cv-input");
  input.id = "cv-q";
  input.rows = 2;
  input.maxLength = 500;
  input.placeholder = "¿A qué velocidad se puede circular por autopista?";
  var send = el("button", "cv-send", "Preguntar");
  send.type = "submit";
  form.append(label, input, send);
  var search = null, where = null; // shown only while no worker answers
  function searchHref() {
    if (!search) return;
    var q = input.value.trim();
    search.href = new URL("buscar.html" + (q ? "?q=" + encodeURIComponent(q) : ""), ROOT).href;
  }
  input.addEventListener("input", searchHref);
  panel.append(head, note, log, status, form);
  // The toggle sits in the page header, in the flow: a floating button covered the text (on a
  // phone, option c) of an exam question). The panel docks beside the text column on wide
  // screens (the page makes room for it) and is a bottom sheet on phones (chat.css).
  var header = document.querySelector(".site-header .wrap");
  if (header) header.appendChild(toggle); else mount.appendChild(toggle);
  mount.appendChild(panel);

  function setStatus(text, offline) {
    status.textContent = text;
    panel.classList.toggle("cv-offline", !!offline);
  }
  function open(show) {
    panel.hidden = !show;
    document.documentElement.classList.toggle("cv-docked", !!show);
    toggle.setAttribute("aria-expanded", String(show));
    if (show) { input.focus(); if (api === null) connect(); } else toggle.focus();
  }
  toggle.addEventListener("click", function () { open(panel.hidden); });
  close.addEventListener("click", function () { open(false); });
  panel.addEventListener("keydown", function (e) { if (e.key === "Escape") open(false); });
  input.addEventListener("keydown", function (e) {
    if (e.key === "Enter" && !e.shiftKey) { e.preventDefault(); form.requestSubmit(); }
  });

  // ---- finding the worker ----
  function offline() {
    api = null;
    send.disabled = true;
    setStatus("El asistente no está disponible ahora mismo (sin conexión). Puedes buscar tu " +
      "pregunta en el sitio: la búsqueda y todas las páginas funcionan sin él.", true);
    if (!search) {
      search = el("a", "cv-search", "Buscar tu pregunta (funciona sin conexión)");
      // For whoever runs an assistant elsewhere (a teacher, a school): folded away, and no
      // developer address shown to a student.
      where = el("details", "cv-where-box");
      where.appendChild(el("summary", null, "¿Tu centro tiene el asistente en otra dirección?"));
      var f = el("form", "cv-where");
      var l = el("label", "cv-label", "Dirección del asistente");
      var i = el("input", "cv-input");
      i.id = l.htmlFor = "cv-api";
      i.type = "url";
      i.placeholder = "https://…";
      if (saved) i.value = saved;
      var b = el("button", "cv-connect", "Conectar");
      f.append(l, i, b);
      where.appendChild(f);
      f.addEventListener("submit", function (e) {
        e.preventDefault();
        var v = i.value.trim().replace(/\/+$/, "");
        if (!/^https?:\/\/[^\s/]+$/.test(v)) {
          return setStatus("Escribe la dirección completa, que empieza por http:// o https://", true);
        }
        store(localStorage, API_KEY, v);
        bases = [v];
        connect();
      });
      panel.insertBefore(search, form);
      panel.insertBefore(where, form);
    }
    searchHref();
  }
  function connect(i) {
    i = i || 0;
    if (i >= bases.length) return offline();
    api = "";
    setStatus("Conectando con el asistente…");
    var ctl = new AbortController(), t = setTimeout(function () { ctl.abort(); }, 3000);
    fetch(bases[i] + "/health", { signal: ctl.signal }).then(function (r) { return r.json(); })
      .then(function (h) {
        clearTimeout(t);
        if (!h || h.ok !== true) {
          if (h && h.mode === "unavailable" && i + 1 >= bases.length) {
            api = null; send.disabled = true;
            return setStatus("El asistente no puede responder ahora mismo. La búsqueda del sitio " +
              "funciona sin él.", true);
          }
          return connect(i + 1);
        }
        api = bases[i];
        send.disabled = false;
        if (search) { search.remove(); where.remove(); search = where = null; }
        setStatus("Listo.");
      }).catch(function () { clearTimeout(t); connect(i + 1); });
  }

  // ---- one question ----
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var q = input.value.trim();
    if (q.length < 3) return setStatus("Escribe una pregunta de al menos 3 caracteres.");
    if (api === null) return offline();
    if (busy) busy.abort(); // a new question stops the previous answer
    ask(q); // the box is cleared once the answer starts, so a refused question is not lost
  });

  /* A pasted exam question "… a) x b) y c) z" is echoed with one option per line. */
  function echo(q) {
    if (q.indexOf("\n") < 0 && /(^|\s)a\)\s/.test(q) && /\sb\)\s/.test(q)) {
      q = q.replace(/\s+(?=[a-d]\)\s)/g, "\n");
    }
    return q;
  }

  function item(q) {
    var it = el("article", "cv-item");
    it.appendChild(el("p", "cv-q", echo(q)));
    log.appendChild(it);
    return { item: it, sent: {}, lead: null, answer: null, events: [], q: q, id: ++n,
      handled: 0, over: false };
  }

  function ask(q) {
    var st = item(q);
    st.item.setAttribute("aria-busy", "true");
    setStatus("Buscando en la ley…");
    busy = new AbortController();
    var ctl = busy;
    fetch(api + "/api/ask", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question: q }), signal: ctl.signal
    }).then(function (r) {
      if (!r.ok) {
        return r.json().catch(function () { return {}; }).then(function (j) {
          fail(st, r.status === 400 ? HTTP[400] + (j.error || "") :
            HTTP[r.status] || "el asistente respondió con un error (" + r.status + ").");
          if (r.status === 429 || r.status === 503) retry(st, q);
        });
      }
      if (input.value.trim() === q) input.value = "";
      st.started = true;
      return read(r.body.getReader(), st);
    }).catch(function (err) {
      if (err.name === "AbortError") return end(st, "Respuesta interrumpida.");
      // Only a request that never got an answer means the worker is gone; a stream cut or
      // damaged half-way is this answer's problem, not the connection's.
      if (st.started) return fail(st, "la respuesta llegó incompleta; vuelve a preguntar.");
      fail(st, "no se pudo contactar con el asistente.");
      offline();
    });
  }

  /* After a 429/503 the question is still in the box; one button asks it again. */
  function retry(st, q) {
    if (!input.value.trim()) input.value = q;
    var b = el("button", "cv-retry", "Volver a preguntar");
    b.type = "button";
    b.addEventListener("click", function () {
      b.remove();
      input.value = q;
      form.requestSubmit();
    });
    st.item.appendChild(b);
  }

  function read(reader, st) {
    var dec = new TextDecoder(), buf = "";
    function pump() {
      return reader.read().then(function (r) {
        if (r.done) return end(st);
        buf += dec.decode(r.value, { stream: true });
        var k;
        while ((k = buf.indexOf("\n\n")) >= 0) {
          var block = buf.slice(0, k), name = "message", data = "";
          buf = buf.slice(k + 2);
          block.split("\n").forEach(function (line) {
            if (line.indexOf("event: ") === 0) name = line.slice(7);
            else if (line.indexOf("data: ") === 0) data += line.slice(6);
          });
          var d = null;
          try { d = data ? JSON.parse(data) : null; } catch (e) { d = null; } // a damaged event: skip it
          if (d && typeof d === "object") {
            try { handle(st, name, d); st.events.push([name, d]); } catch (e) { /* idem */ }
          }
        }
        return pump();
      });
    }
    return pump();
  }

  function handle(st, name, d) {
    log.scrollTop = log.scrollHeight; // keep the newest text in view
    if (name === "sources") setStatus(d.sources.length ? "Eligiendo las palabras que responden…" : "");
    else if (name === "answer") answer(st, d);
    else if (name === "token") token(st, d);
    else if (name === "keep") keep(st, d);
    else if (name === "retract") retract(st, d);
    else if (name === "sign") st.item.append(link(d)); // signs page, never a quote
    else if (name === "abstain") abstain(st, d);
    else if (name === "citations") cites(st, d);
    else if (name === "error") fail(st, "el asistente falló al responder.");
    else if (name === "done") st.done = d;
    // How many events this answer has handled: a token changes nothing visible, so a test (or
    // whoever inspects the page) needs this to know it was read.
    st.item.setAttribute("data-events", String(++st.handled));
  }

  function marked(text, spans) { // the answer's words, with its key facts in bold
    var p = el("p", "cv-a"), at = 0;
    (spans || []).forEach(function (s) {
      if (s[0] < at) return;
      p.appendChild(document.createTextNode(text.slice(at, s[0])));
      p.appendChild(el("strong", null, text.slice(s[0], s[1])));
      at = s[1];
    });
    p.appendChild(document.createTextNode(text.slice(at)));
    return p;
  }

  /* Words shown beside the answer's own: a passage of another article part opens under its
   * label, as the sources label it ("art. 104"), and its letters are a list, as the answer's. */
  function beside(box, pieces, cls) {
    var ul = null;
    (pieces || []).forEach(function (p) {
      if (p.heading) box.appendChild(el("p", "cv-part", p.heading));
      if (!p.item) { ul = null; box.appendChild(el("p", cls, p.text)); return; }
      if (!ul || p.heading) ul = box.appendChild(el("ul", "cv-list " + cls + "-list"));
      ul.appendChild(el("li", "cv-li " + cls, p.text));
    });
  }

  function answer(st, d) {
    var box = el("div", "cv-answer");
    box.appendChild(el("p", "cv-label-a", d.label));
    if (d.option) {
      box.appendChild(el("p", "cv-option", d.option.letter ? "Respuesta: " + d.option.letter +
        ") " + d.option.text : d.option.text));
      if (d.option.letter && d.option.words && d.option.url) { // the words that decide it
        var why = el("p", "cv-option-why", "Lo dice el texto: "), w = out(el("a",
          "cv-option-words", "«" + d.option.words + "»"));
        w.href = new URL(d.option.url, ROOT).href; // proven span link (allowlisted page)
        w.setAttribute("aria-label", w.textContent + " (se abre en una pestaña nueva)");
        why.appendChild(w);
        box.appendChild(why);
      }
    }
    if (d.clarify) box.appendChild(el("p", "cv-clarify", d.clarify)); // asks back: not a quote
    beside(box, d.before, "cv-before"); // what names its antecedent ("Dichos ocupantes…")
    if (d.lead_in) box.appendChild(el("p", "cv-lead-in", d.lead_in.text));
    var items = d.items || [], inList = items.some(function (p) { return p.answer; });
    if (d.table) {
      var t = el("table", "cv-table");
      t.appendChild(el("caption", null, "Celdas de la tabla que responden"));
      d.table.cells.forEach(function (c) {
        var tr = el("tr"), th = el("th", null, c.row + " · " + c.column);
        th.scope = "row";
        tr.append(th, el("td", null, c.value + (c.unit ? " " + c.unit : "")));
        tr.lastChild.className = "cv-fact";
        t.appendChild(tr);
      });
      box.appendChild(t);
    } else if (!inList) box.appendChild(marked(d.text, d.emphasis));
    if (items.length) { // the list the answer belongs to or introduces, in the text's order
      var ul = el("ul", "cv-list");
      items.forEach(function (p) {
        var li = el("li", p.answer ? "cv-li cv-li-answer" : "cv-li");
        if (p.answer) li.appendChild(marked(d.text, d.emphasis));
        else li.textContent = p.text;
        ul.appendChild(li);
      });
      box.appendChild(ul);
    }
    if (d.exception) box.appendChild(el("p", "cv-exception", "Excepción: " + d.exception.text));
    beside(box, d.after, "cv-after"); // what qualifies it, the same rule's other cases
    st.answer = box;
    st.item.appendChild(box);
  }

  /* The model's lead: a sentence's words are held here, out of the page and of the live region,
   * until the worker judges it: `keep` shows it, `retract` drops it. One the stream leaves
   * unjudged (done, error, abort, connection lost) is never shown (docs/answers.md). */
  function token(st, d) {
    var held = st.sent[d.s] || (st.sent[d.s] = { text: "", judged: false });
    if (d.text != null && !held.judged) held.text += d.text;
  }

  function keep(st, d) {
    var held = st.sent[d.s];
    if (!held || held.judged || st.over) return;
    held.judged = true;
    if (!st.lead) {
      st.lead = el("p", "cv-lead");
      st.lead.appendChild(el("span", "cv-label-a", "Resumen del modelo (compruébalo): "));
      st.item.insertBefore(st.lead, st.answer);
    }
    var span = el("span", "cv-s", held.text);
    span.setAttribute("data-s", String(d.s));
    var next = Array.prototype.find.call(st.lead.querySelectorAll(".cv-s"), function (e) {
      return +e.getAttribute("data-s") > d.s; // sentence order, whatever the verdicts' order
    });
    st.lead.insertBefore(span, next || null);
  }

  function retract(st, d) {
    var held = st.sent[d.s];
    if (held && !held.judged) { held.judged = true; held.text = ""; } // never shown
  }

  function abstain(st, d) {
    st.item.appendChild(el("p", "cv-abstain", d.message));
    if (d.passages && d.passages.length) sources(st, d.passages, true, "Pasajes que más se acercan");
  }

  function cites(st, d) {
    var first = d.citations[0];
    if (first && st.answer) { // the chip goes right after the words it supports
      var chip = link(first, "Ver estas palabras en " + first.label, first.span_url);
      st.answer.appendChild(chip);
    }
    sources(st, d.citations, false, "Fuentes");
  }

  function sources(st, list, openIt, title) {
    var box = el("details", "cv-cites");
    box.open = !!openIt;
    box.appendChild(el("summary", null, title + " (" + list.length + ")"));
    list.forEach(function (c) {
      var fig = el("figure", "cv-cite");
      var bq = el("blockquote", "cv-quote", c.quote);
      fig.appendChild(bq);
      asTable(c, fig, bq);
      var cap = el("figcaption");
      cap.appendChild(link(c, c.label));
      var boe = out(el("a", "cv-boe", "BOE"));
      boe.href = c.source_url;
      cap.append(" · en vigor a " + fecha(c.as_of) + " · ", boe);
      fig.appendChild(cap);
      box.appendChild(fig);
    });
    if (list[0]) box.appendChild(el("p", "cv-license", list[0].source_license));
    // a table too wide for the panel scrolls in its box, reachable by keyboard (tables.js)
    box.addEventListener("toggle", marks);
    st.item.appendChild(box);
    marks();
  }
  function marks() { if (window.CitavialTables) window.CitavialTables.mark(); }

  /* A quoted table is shown as a table: the worker sends its rows and cells with the citation
   * (`rows`, from the index) — no fetch of the cited page, so it reads the same from file:// as
   * over http — and they are used only if, read in order, they are exactly the quote's words:
   * what is shown is still the verified quote. Otherwise the quote stays one run of text. */
  function flat(s) { return String(s).replace(/\s+/g, " ").trim(); }
  function asTable(c, fig, bq) {
    if (!Array.isArray(c.rows) || !c.rows.length) return;
    var rows = c.rows.map(function (row) {
      return (Array.isArray(row) ? row : []).map(function (cell) {
        return { text: flat(cell && cell.text != null ? cell.text : ""), header: !!(cell && cell.header) };
      });
    });
    /* the page's rule (_macros.html): a first row whose non-empty cells are all headers is the
       column header; then the first cell of every other row heads its row */
    var top = rows[0], headRow = top.some(function (x) { return x.header; }) &&
      top.every(function (x) { return x.header || !x.text; });
    var t = el("table", "cv-table cv-quote-table"), words = [];
    t.setAttribute("aria-label", "Tabla citada: " + c.label);
    rows.forEach(function (row, r) {
      var tr = el("tr");
      row.forEach(function (cell, j) {
        if (cell.text) words.push(cell.text);
        var th = (cell.header || (headRow && top.length > 1 && r > 0 && j === 0)) && !!cell.text;
        var out = el(th ? "th" : "td", null, cell.text);
        if (th) out.scope = headRow && r === 0 ? "col" : "row";
        tr.appendChild(out);
      });
      t.appendChild(tr);
    });
    if (words.join(" ") !== flat(c.quote)) return;
    var box = el("div", "cv-table-wrap");
    box.appendChild(t);
    fig.replaceChild(box, bq);
  }

  function fail(st, msg) {
    if (st.over) return; // already ended (an error event, then the connection dropped)
    st.item.appendChild(el("p", "cv-error", msg));
    end(st, "Sin respuesta.");
  }

  function end(st, msg) {
    if (st.over) return; // once: the stream closing after an error event keeps its message
    st.over = true; // a verdict can no longer arrive: what is still held stays unshown
    st.sent = {};
    st.item.setAttribute("aria-busy", "false");
    if (st.id === n) busy = null;
    var d = st.done;
    setStatus(msg || (!d ? "La respuesta se cortó." : d.mode === "abstained" ? "Sin respuesta." :
      d.mode === "generated" ? "Respuesta con resumen." : "Respuesta extractiva."));
    if (d) save(st);
  }

  // ---- the conversation survives navigation (this tab only) ----
  function save(st) {
    var all = [];
    try { all = JSON.parse(store(sessionStorage, KEY) || "[]"); } catch (e) { all = []; }
    all.push({ q: st.q, events: st.events });
    store(sessionStorage, KEY, JSON.stringify(all.slice(-10)));
  }
  (function restore() {
    var all = [];
    try { all = JSON.parse(store(sessionStorage, KEY) || "[]"); } catch (e) { return; }
    all.forEach(function (rec) {
      var st = item(rec.q);
      rec.events.forEach(function (ev) { st.events.push(ev); handle(st, ev[0], ev[1]); });
    });
    // Never reopened by itself: on the page a citation opens, the panel would cover the very
    // words the link highlights. The toggle says the conversation is there.
    if (all.length) toggle.textContent = "Preguntar a la ley (" + all.length + ")";
  })();
})();
