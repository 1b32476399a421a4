/* citavial chat widget: asks the local worker (POST /api/ask, SSE) and shows the answer — the
 * regulation's own words that settle the question, its key fact in bold, a chip linking to
 * exactly those words — then "Fuentes" (collapsed). Vanilla JS, no dependencies. Everything
 * shown comes from the worker's events and is inserted as text (never as HTML); links are built
 * only from allowlisted citation URLs (for a question about a sign, the build's link to it on
 * the signs page) and open in a new tab.
 * The conversation is kept in sessionStorage, so it survives following a link (the panel stays
 * closed until asked for). Without a worker the site works as before and the widget offers the
 * static search.
 * This file holds the panel, the connection and the stream; what an answer shows is
 * chat-view.js's (bundled before it).
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
  var view = window.CitavialChatView(ROOT), el = view.el, link = view.link; // chat-view.js

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
    else if (name === "answer") view.answer(st, d);
    else if (name === "token") view.token(st, d);
    else if (name === "keep") view.keep(st, d);
    else if (name === "retract") view.retract(st, d);
    else if (name === "sign") st.item.append(link(d)); // signs page, never a quote
    else if (name === "abstain") view.abstain(st, d);
    else if (name === "citations") view.cites(st, d);
    else if (name === "error") fail(st, "el asistente falló al responder.");
    else if (name === "done") st.done = d;
    // How many events this answer has handled: a token changes nothing visible, so a test (or
    // whoever inspects the page) needs this to know it was read.
    st.item.setAttribute("data-events", String(++st.handled));
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
