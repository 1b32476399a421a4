/* citavial exam simulation page: UI only. Drawing and scoring live in simulacro-core.js.
 * State (the exam in progress and the history of finished exams) is kept in localStorage, so a
 * reload resumes the exam with the clock still running; works from file:// (no requests). */
(function () {
  "use strict";
  var core = window.CitavialSimulacro, data = window.CITAVIAL_BANK;
  var KEY = "citavial.simulacro.v1", PRACTICE_KEY = "citavial.practice.v1";
  var $ = function (id) { return document.getElementById(id); };
  var byId = {};
  data.questions.forEach(function (q) { byId[q.id] = q; });
  var store = load(), pos = 0, ticker = null;

  function load() {
    try {
      var s = JSON.parse(localStorage.getItem(KEY) || "null");
      if (s && s.version === 1 && Array.isArray(s.history)) {
        if (s.exam && (s.bank !== data.version || !s.exam.ids.every(function (id) { return byId[id]; }))) {
          s.exam = null;   // the bank changed under an unfinished exam: drop that exam only
        }
        s.bank = data.version;
        return s;
      }
    } catch (e) { /* corrupt or unavailable storage: start over */ }
    return { version: 1, bank: data.version, exam: null, history: [] };
  }
  function save() {
    try { localStorage.setItem(KEY, JSON.stringify(store)); } catch (e) { /* private mode */ }
  }
  var make = window.CitavialUtil.make, fillQuote = window.CitavialUtil.fillQuote;   /* util.js */
  function show(section) {
    ["s-intro", "s-exam", "s-result"].forEach(function (id) { $(id).hidden = id !== section; });
    // During an exam the answer widget (chat.js) is hidden: no looking answers up mid-exam.
    if (section === "s-exam") document.documentElement.setAttribute("data-exam", "on");
    else document.documentElement.removeAttribute("data-exam");
  }
  /* The address of a finished exam's review (simulacro.html#examen=<finished ms>), so a reload
   * or Back from another page shows the same review. */
  var REVIEW = /^#examen=(\d+)$/;
  function setHash(h) {
    try { window.history.replaceState(null, "", h || window.location.pathname + window.location.search); }
    catch (e) { /* some file:// setups refuse: the review still shows */ }
  }
  function pastExam(finished) {
    for (var i = 0; i < store.history.length; i++) {
      if (store.history[i].finished === finished) return core.reviewable(store.history[i], byId);
    }
    return null;
  }

  /* ---- intro: start, history, per-topic accuracy, export/import ---- */
  function intro() {
    stopClock(); show("s-intro");
    var rows = $("s-history").tBodies[0]; rows.innerHTML = "";
    store.history.slice().reverse().forEach(function (h) {
      var tr = make("tr");
      var d = new Date(h.finished);
      tr.appendChild(make("td", null, d.toLocaleDateString("es-ES") + " " +
                          d.toLocaleTimeString("es-ES", { hour: "2-digit", minute: "2-digit" })));
      tr.appendChild(make("td", h.passed ? "s-pass" : "s-fail", h.passed ? "Apto" : "No apto"));
      tr.appendChild(make("td", null, String(h.errors)));
      tr.appendChild(make("td", null, h.seconds >= 0 ?
        core.clock(Math.min(Math.floor(h.seconds), core.RULES.seconds)) : "—"));
      var cell = make("td");
      if (core.reviewable(h, byId)) {
        var see = make("a", "s-review-link", "Ver corrección");
        see.href = "#examen=" + h.finished;
        see.setAttribute("aria-label", "Ver corrección del simulacro del " + d.toLocaleDateString("es-ES"));
        cell.appendChild(see);
      } else cell.textContent = "—";
      tr.appendChild(cell);
      rows.appendChild(tr);
    });
    $("s-history").hidden = !store.history.length;
    $("s-history-empty").hidden = !!store.history.length;
    var acc = core.accuracy(store.history), body = $("s-accuracy").tBodies[0];
    body.innerHTML = "";
    Object.keys(data.topics).forEach(function (t) {
      if (!acc[t]) return;
      var tr = make("tr"), th = make("th", null, data.topics[t]);
      th.scope = "row"; tr.appendChild(th);
      tr.appendChild(make("td", null, acc[t][0] + " de " + acc[t][1]));
      tr.appendChild(make("td", null, Math.round(100 * acc[t][0] / acc[t][1]) + " %"));
      body.appendChild(tr);
    });
    $("s-accuracy").hidden = !body.rows.length;
    $("s-resume").hidden = !store.exam;
    if (window.CitavialTables) window.CitavialTables.mark();   // the tables just filled
  }

  function start() {
    store.exam = core.newExam(data.questions, Math.floor(Math.random() * 2147483646) + 1, Date.now());
    store.exam.pos = 0; save(); pos = 0; exam();
  }

  /* ---- the exam: one question per screen ---- */
  function exam() {
    show("s-exam"); startClock(); grid(); question();
  }

  function question() {
    var ex = store.exam, q = byId[ex.ids[pos]];
    $("s-counter").textContent = "Pregunta " + (pos + 1) + " de " + ex.ids.length;
    $("s-question").textContent = q.question;
    var box = $("s-options");
    Array.prototype.slice.call(box.querySelectorAll("label")).forEach(function (l) { box.removeChild(l); });
    q.options.forEach(function (o, i) {
      var label = make("label", "s-option"), input = make("input");
      input.type = "radio"; input.name = "s-opt"; input.value = String(i);
      input.checked = ex.answers[pos] === i;
      input.addEventListener("change", function () { ex.answers[pos] = i; save(); grid(); });
      label.appendChild(input);
      label.appendChild(make("span", null, "abc"[i] + ") " + o));
      box.appendChild(label);
    });
    $("s-flag").checked = !!ex.flagged[pos];
    $("s-prev").disabled = pos === 0;
    $("s-next").disabled = pos === ex.ids.length - 1;
    $("s-question").focus({ preventScroll: true });
  }

  function grid() {
    var ex = store.exam, list = $("s-grid"); list.innerHTML = "";
    ex.ids.forEach(function (id, i) {
      var li = make("li"), b = make("button", "s-cell", String(i + 1));
      b.type = "button";
      if (ex.answers[i] !== null) b.classList.add("answered");
      if (ex.flagged[i]) b.classList.add("flagged");
      if (i === pos) b.setAttribute("aria-current", "step");
      b.setAttribute("aria-label", "Pregunta " + (i + 1) + (ex.answers[i] !== null ? ", respondida" : ", sin responder") +
                     (ex.flagged[i] ? ", marcada para revisar" : ""));
      b.addEventListener("click", function () { go(i); });
      li.appendChild(b); list.appendChild(li);
    });
    var open = ex.answers.filter(function (a) { return a === null; }).length;
    var flagged = ex.flagged.filter(Boolean).length;
    $("s-left").textContent = open + " sin responder · " + flagged + " marcadas para revisar";
  }

  function go(i) {
    pos = i; store.exam.pos = i; save(); grid(); question();
  }

  function startClock() {
    stopClock(); tick();
    ticker = window.setInterval(tick, 1000);
  }
  function stopClock() { if (ticker !== null) { window.clearInterval(ticker); ticker = null; } }
  function tick() {
    var left = core.remaining(store.exam, Date.now());
    var el = $("s-timer");
    el.textContent = core.clock(left);
    el.classList.toggle("low", left <= 300);
    if (left <= 0) finish(true);
  }

  function finish(timeUp) {
    var ex = store.exam;
    if (!ex) return;
    if (!timeUp) {
      var open = ex.answers.filter(function (a) { return a === null; }).length;
      var left = open === 1 ? "Te queda 1 pregunta sin responder, que contará como error."
        : "Te quedan " + open + " preguntas sin responder, que contarán como error.";
      if (open && !window.confirm(left + " ¿Terminar el examen?")) return;
    }
    stopClock();
    ex.finished = Math.min(Date.now(), ex.started + core.RULES.seconds * 1000);
    store.history.push(core.summary(ex, byId));
    store.exam = null; save();
    setHash("#examen=" + ex.finished);
    result(ex, timeUp ? "Se acabó el tiempo. " : "");
  }

  /* ---- result and review ---- */
  function result(ex, lead) {
    show("s-result");
    var s = core.score(ex, byId);
    var verdict = $("s-verdict");
    verdict.textContent = s.passed ? "Apto" : "No apto";
    verdict.className = s.passed ? "s-pass" : "s-fail";
    $("s-summary").textContent = lead + s.errors +
      (s.errors === 1 ? " error" : " errores") + " de " + s.total + " preguntas (apto con " +
      core.RULES.maxErrors + " errores como máximo).";
    var list = $("s-review"); list.innerHTML = "";
    ex.ids.forEach(function (id, i) { list.appendChild(reviewItem(byId[id], ex.answers[i], ex.flagged[i], i)); });
    $("s-only-errors").checked = false; list.classList.remove("only-errors");
    $("s-only-errors-n").textContent = "(" + s.errors + ")";
    verdict.focus();
  }

  function reviewItem(q, given, flagged, i) {
    var ok = given === q.correct;
    var li = make("li", "s-item " + (ok ? "ok" : "ko"));
    li.id = "revision-" + (i + 1);
    li.value = i + 1;   // the exam's number, also when "solo errores" hides the rest
    var head = make("p", "s-item-head");
    head.appendChild(make("strong", null, (ok ? "Acierto" : "Error") + " · " + data.topics[q.topic]));
    if (flagged) head.appendChild(make("span", "badge", "Marcada para revisar"));
    li.appendChild(head);
    li.appendChild(make("p", "s-item-q", q.question));
    li.appendChild(make("p", "s-given", "Tu respuesta: " + (given === null ? "sin responder" : "abc"[given] + ") " + q.options[given])));
    if (!ok) li.appendChild(make("p", "s-correct", "Respuesta correcta: " + "abc"[q.correct] + ") " + q.options[q.correct]));
    li.appendChild(make("p", null, q.explanation));
    var bq = make("blockquote", "cita-block"); bq.appendChild(fillQuote(make("p", "s-quote"), q.quote));
    li.appendChild(bq);
    if (q.changed) {
      var warn = make("p", "change-warning", "Atención: este texto cambió el " + q.changed.split("-").reverse().join("/") + ". ");
      var see = make("a", null, "Mira qué ha cambiado");
      see.href = "cambios.html#d-" + q.changed.replace(/-/g, "");
      warn.appendChild(see); li.appendChild(warn);
    }
    var p = make("p"), a = make("a", "chip s-link", "Leer en " + (q.source || "el reglamento") + ": " + q.label);
    // A new tab: the correction stays where it is while the student reads the rule.
    a.href = q.url; a.target = "_blank"; a.rel = "noopener"; p.appendChild(a);
    var perm = make("a", "s-perm", "Practicar esta pregunta");
    perm.href = "practica.html#q=" + encodeURIComponent(q.id);
    p.appendChild(document.createTextNode(" ")); p.appendChild(perm);
    li.appendChild(p);
    return li;
  }

  /* ---- export / import of all progress as one JSON file ---- */
  function exportProgress() {
    var practice = null;
    try { practice = JSON.parse(localStorage.getItem(PRACTICE_KEY) || "null"); } catch (e) { practice = null; }
    var blob = new Blob([JSON.stringify({ schema: "citavial-progress/1", exported: new Date().toISOString(),
                                          practice: practice, simulacro: store.history }, null, 1)],
                        { type: "application/json" });
    var a = make("a"); a.href = URL.createObjectURL(blob);
    a.download = "citavial-progreso.json";
    document.body.appendChild(a); a.click(); document.body.removeChild(a);
    window.setTimeout(function () { URL.revokeObjectURL(a.href); }, 1000);
    $("s-io-status").textContent = "Progreso exportado: " + store.history.length + " simulacros.";
  }

  function importProgress(file) {
    var reader = new FileReader();
    reader.onload = function () {
      var got = null;
      try { got = core.validImport(JSON.parse(String(reader.result))); } catch (e) { got = null; }
      if (!got) {
        $("s-io-status").textContent = "El archivo no es un progreso exportado de citavial (falta \"schema\": \"citavial-progress/1\").";
        return;
      }
      var seen = {};
      store.history.forEach(function (h) { seen[h.finished] = true; });
      var added = got.simulacro.filter(function (h) { return !seen[h.finished]; });
      store.history = store.history.concat(added).sort(function (a, b) { return a.finished - b.finished; });
      save();
      // Practice progress from another version of the bank would be dropped by practica.html:
      // say so instead of claiming it was imported.
      var practice = got.practice && got.practice.bank === data.version ? got.practice : null;
      if (practice) {
        try { localStorage.setItem(PRACTICE_KEY, JSON.stringify(practice)); } catch (e) { /* ignore */ }
      }
      $("s-io-status").textContent = "Progreso importado: " + added.length +
        (added.length === 1 ? " simulacro nuevo" : " simulacros nuevos") +
        (practice ? " y tu progreso de práctica." : got.practice ?
          ". Tu progreso de práctica no se ha importado: es de otra versión del banco de preguntas." : ".");
      intro();
    };
    reader.readAsText(file);
  }

  $("s-start").addEventListener("click", start);
  $("s-resume").addEventListener("click", function () { pos = store.exam.pos || 0; exam(); });
  $("s-prev").addEventListener("click", function () { if (pos > 0) go(pos - 1); });
  $("s-next").addEventListener("click", function () { if (pos < store.exam.ids.length - 1) go(pos + 1); });
  $("s-flag").addEventListener("change", function () { store.exam.flagged[pos] = $("s-flag").checked; save(); grid(); });
  $("s-finish").addEventListener("click", function () { finish(false); });
  $("s-again").addEventListener("click", function () { setHash(""); intro(); });
  $("s-only-errors").addEventListener("change", function () {
    $("s-review").classList.toggle("only-errors", this.checked);
  });
  function route() {
    var m = REVIEW.exec(window.location.hash), past = m && pastExam(Number(m[1]));
    if (past) {
      stopClock();
      var d = new Date(past.finished);
      result(past, "Simulacro del " + d.toLocaleDateString("es-ES") + ": ");
      return true;
    }
    return false;
  }
  window.addEventListener("hashchange", function () { if (!store.exam && !route()) intro(); });
  $("s-export").addEventListener("click", exportProgress);
  $("s-import").addEventListener("change", function () {
    if (this.files && this.files[0]) importProgress(this.files[0]);
    this.value = "";
  });
  $("s-app").hidden = false; $("s-noscript").hidden = true;
  if (store.exam && core.remaining(store.exam, Date.now()) > 0) {
    pos = Math.min(Math.max(store.exam.pos | 0, 0), store.exam.ids.length - 1); exam();
  } else if (store.exam) { pos = 0; show("s-exam"); finish(true); }
  else if (!route()) intro();
})();
