/* citavial chat widget: asks the local worker (POST /api/ask, SSE) and shows the answer as it
 * streams. Vanilla JS, no dependencies. Everything shown comes from the worker's events and is
 * inserted as text (never as HTML); links are built only from the allowlisted citation URLs,
 * resolved against the site root. Without a worker the site works as before and the widget
 * says "offline". Mount: <div id="citavial-chat" data-api="…optional base URL…"></div>. */
(function () {
  "use strict";
  var mount = document.getElementById("citavial-chat");
  var script = document.currentScript;
  if (!mount || !window.fetch) return;
  var ROOT = new URL("..", script ? script.src : location.href); // chat.js lives in static/
  var bases = mount.dataset.api ? [mount.dataset.api] :
    /^https?:$/.test(location.protocol) ? ["", "http://127.0.0.1:8000"] : ["http://127.0.0.1:8000"];
  var api = null, busy = null, n = 0;
  var REASONS = {
    uncited: "la frase no cita ningún pasaje",
    low_support: "el pasaje citado no respalda la frase",
    number_not_in_passage: "la frase da una cifra que no está en el pasaje citado",
    no_content: "la frase no dice nada comprobable"
  };

  function el(tag, cls, text) {
    var e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text != null) e.textContent = text;
    return e;
  }
  function link(c, text) {
    var a = el("a", "cv-chip", text || c.label);
    a.href = new URL(c.url, ROOT).href; // allowlisted deep link (page#anchor:~:text=…)
    a.setAttribute("aria-label", "Abrir el pasaje citado: " + c.label);
    return a;
  }

  // ---- the panel ----
  var toggle = el("button", "cv-toggle", "Preguntar al Reglamento");
  toggle.type = "button";
  toggle.setAttribute("aria-expanded", "false");
  toggle.setAttribute("aria-controls", "cv-panel");
  var panel = el("section", "cv-panel");
  panel.id = "cv-panel";
  panel.hidden = true;
  panel.setAttribute("aria-label", "Asistente de preguntas");
  var head = el("div", "cv-head");
  head.appendChild(el("h2", "cv-title", "Pregunta sobre el Reglamento"));
  var close = el("button", "cv-close", "×");
  close.type = "button";
  close.setAttribute("aria-label", "Cerrar el asistente");
  head.appendChild(close);
  var note = el("p", "cv-note", "Las respuestas las redacta un modelo de lenguaje pequeño y local: " +
    "léelas junto al pasaje citado. Cada cita enlaza al texto en vigor.");
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
  // without a worker: the static search, with the question already typed (shown only then)
  var search = null;
  function searchHref() {
    if (!search) return;
    var q = input.value.trim();
    search.href = new URL("buscar.html" + (q ? "?q=" + encodeURIComponent(q) : ""), ROOT).href;
  }
  input.addEventListener("input", searchHref);
  panel.append(head, note, log, status, form);
  mount.append(toggle, panel);

  function setStatus(text, offline) {
    status.textContent = text;
    panel.classList.toggle("cv-offline", !!offline);
  }
  function open(show) {
    panel.hidden = !show;
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
    setStatus("Asistente sin conexión: necesita el servicio local de respuestas " +
      "(«citavial serve»), que no responde. El resto del sitio funciona sin él.", true);
    if (!search) {
      search = el("a", "cv-search", "Buscar tu pregunta en el Reglamento (funciona sin conexión)");
      panel.insertBefore(search, form);
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
            return setStatus("El asistente no puede responder: " + h.reason, true);
          }
          return connect(i + 1);
        }
        api = bases[i];
        send.disabled = false;
        if (search) { search.remove(); search = null; }
        setStatus(h.mode === "generative" ? "Listo." :
          "Listo (solo respuestas extractivas: " + h.reason + ").");
      }).catch(function () { clearTimeout(t); connect(i + 1); });
  }

  // ---- one question ----
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    var q = input.value.trim();
    if (q.length < 3) return setStatus("Escribe una pregunta de al menos 3 caracteres.");
    if (api === null) return offline();
    if (busy) busy.abort(); // a new question stops the previous answer (and its generation)
    ask(q);
    input.value = "";
  });

  function ask(q) {
    var item = el("article", "cv-item");
    item.setAttribute("aria-busy", "true");
    item.appendChild(el("p", "cv-q", q));
    var ans = el("p", "cv-a");
    item.appendChild(ans);
    log.appendChild(item);
    var st = { item: item, ans: ans, sources: {}, sent: {}, id: ++n };
    setStatus("Buscando en el Reglamento…");
    busy = new AbortController();
    var ctl = busy;
    fetch(api + "/api/ask", {
      method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ question: q }), signal: ctl.signal
    }).then(function (r) {
      if (!r.ok) return r.json().then(function (j) { fail(st, j.error || ("HTTP " + r.status)); });
      return read(r.body.getReader(), st);
    }).catch(function (err) {
      if (err.name === "AbortError") return end(st, "Respuesta interrumpida.");
      fail(st, "no se pudo contactar con el asistente");
      offline();
    });
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
          if (data) handle(st, name, JSON.parse(data));
        }
        return pump();
      });
    }
    return pump();
  }

  function sentence(st, s) {
    var span = st.sent[s];
    if (!span) {
      span = st.sent[s] = el("span", "cv-s");
      span.dataset.s = s;
      st.ans.appendChild(span);
    }
    return span;
  }

  function handle(st, name, d) {
    log.scrollTop = log.scrollHeight; // keep the newest text in view
    if (name === "sources") {
      d.sources.forEach(function (s) { st.sources[s.n] = s; });
      setStatus(d.sources.length ? "Redactando la respuesta…" : "");
    } else if (name === "token") {
      var span = sentence(st, d.s);
      if (d.text != null) span.appendChild(document.createTextNode(d.text));
      else if (st.sources[d.cite]) {
        span.appendChild(document.createTextNode(" "));
        span.appendChild(link(st.sources[d.cite]));
        span.appendChild(document.createTextNode(" "));
      }
    } else if (name === "retract") {
      retract(st, d);
    } else if (name === "abstain") {
      st.ans.appendChild(el("span", "cv-abstain", d.message));
      st.item.appendChild(el("p", "cv-reason", "Motivo: " + d.reason));
    } else if (name === "citations") {
      cites(st, d);
    } else if (name === "error") {
      fail(st, d.error);
    } else if (name === "done") {
      st.done = d;
    }
  }

  function retract(st, d) {
    var span = sentence(st, d.s), del = el("del");
    while (span.firstChild) del.appendChild(span.firstChild);
    del.querySelectorAll("a").forEach(function (a) { // a retracted sentence cites nothing
      a.replaceWith(el("span", "cv-chip cv-dead", a.textContent));
    });
    span.appendChild(del);
    span.classList.add("cv-retracted");
    span.appendChild(el("span", "cv-why", " [Frase retirada: " + (REASONS[d.reason] || d.reason) + ".]"));
  }

  function cites(st, d) {
    var box = el("div", "cv-cites");
    if (d.extractive) box.appendChild(el("p", "cv-extractive", d.label));
    else box.appendChild(el("p", "cv-sources-title", "Pasajes citados:"));
    d.citations.forEach(function (c) {
      var fig = el("figure", "cv-cite");
      var q = el("blockquote", "cv-quote", c.quote);
      fig.appendChild(q);
      var cap = el("figcaption");
      cap.appendChild(link(c, c.label));
      var boe = el("a", "cv-boe", "BOE");
      boe.href = c.source_url;
      boe.rel = "external";
      cap.append(" · texto en vigor a " + c.as_of + " · ", boe);
      fig.appendChild(cap);
      box.appendChild(fig);
    });
    if (d.citations[0]) box.appendChild(el("p", "cv-license", d.citations[0].source_license));
    st.item.appendChild(box);
  }

  function fail(st, msg) {
    st.item.appendChild(el("p", "cv-error", "Error: " + msg));
    end(st, "Error.");
  }

  function end(st, msg) {
    st.item.setAttribute("aria-busy", "false");
    if (st.id === n) busy = null;
    var d = st.done;
    setStatus(msg || (!d ? "La respuesta se cortó." : d.mode === "abstained" ? "Sin respuesta." :
      d.mode === "extractive" ? "Respuesta extractiva." : "Respuesta completa."));
  }
})();
