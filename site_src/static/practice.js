/* citavial practice page: UI only. Selection and BKT live in practice-core.js. */
(function () {
  "use strict";
  var core = window.CitavialPractice, data = window.CITAVIAL_BANK;
  var KEY = "citavial.practice.v1";
  var $ = function (id) { return document.getElementById(id); };
  var bank = data.questions, byId = {};
  bank.forEach(function (q) { byId[q.id] = q; });
  var state = load(), current = null;
  var MASTERED = 0.95;   // the classic BKT mastery threshold

  function load() {
    try {
      var s = JSON.parse(localStorage.getItem(KEY) || "null");
      if (s && s.version === 1 && s.bank === data.version) return core.repair(s);
    } catch (e) { /* corrupt or unavailable storage: start over */ }
    var fresh = core.newState(Math.floor(Math.random() * 2147483646) + 1);
    fresh.bank = data.version;
    return fresh;
  }
  function save() {
    try { localStorage.setItem(KEY, JSON.stringify(state)); } catch (e) { /* private mode */ }
  }
  function permalink() {
    var m = /^#q=([a-z0-9-]+)$/.exec(window.location.hash);
    return m && byId[m[1]] ? m[1] : null;
  }
  var MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio", "agosto",
                "septiembre", "octubre", "noviembre", "diciembre"];
  function fecha(iso) {   // "2026-10-01" → "1 de octubre de 2026", as the build writes dates
    var p = iso.split("-");
    return Number(p[2]) + " de " + MONTHS[Number(p[1]) - 1] + " de " + p[0];
  }
  function text(el, s) { el.textContent = s; return el; }
  var make = window.CitavialUtil.make, fillQuote = window.CitavialUtil.fillQuote;   /* util.js */

  /* ``id``: a question asked for by its permalink (practica.html#q=<id>); else the selector's. */
  function show(id) {
    current = id && byId[id] ? byId[id] : core.next(state, bank);
    state.current = current.id; save();
    text($("p-topic"), data.topics[current.topic]);
    text($("p-question"), current.question);
    var perm = $("p-perm"); perm.href = "#q=" + encodeURIComponent(current.id);
    perm.setAttribute("data-link", "practica.html#q=" + encodeURIComponent(current.id));
    var opts = $("p-options"); opts.innerHTML = "";
    current.options.forEach(function (o, i) {
      var b = make("button", "option", "abc"[i] + ") " + o);
      b.type = "button"; b.setAttribute("data-i", i);
      b.addEventListener("click", function () { answer(i); });
      opts.appendChild(b);
    });
    $("p-feedback").hidden = true; $("p-next").hidden = true;
    // Focus the question, not option a): a focused option looked like a pre-selected answer.
    // The card scrolls into view only when its top is off screen (after "Siguiente").
    var card = $("p-question");
    card.focus({ preventScroll: true });
    var top = card.getBoundingClientRect().top;
    if (top < 0 || top > window.innerHeight) card.scrollIntoView({ block: "start" });
  }

  function answer(i) {
    var ok = i === current.correct;
    core.record(state, current, ok); state.current = null; save();
    var buttons = $("p-options").querySelectorAll("button");
    Array.prototype.forEach.call(buttons, function (b, j) {
      b.disabled = true;
      if (j === current.correct) b.classList.add("right");
      else if (j === i) b.classList.add("wrong");
    });
    var fb = $("p-feedback"); fb.hidden = false;
    fb.className = "feedback " + (ok ? "ok" : "ko");
    text($("p-verdict"), ok ? "¡Correcto!" : "Incorrecto. La respuesta correcta es la " + "abc"[current.correct] + ").");
    text($("p-explanation"), current.explanation);
    fillQuote($("p-quote"), current.quote);
    var link = $("p-link"); link.href = current.url; text(link, "Leer en " + (current.source || "el reglamento") + ": " + current.label);
    $("p-changed").hidden = !current.changed;
    if (current.changed) {
      text($("p-changed-date"), fecha(current.changed));
      $("p-changed-link").href = "cambios.html#d-" + current.changed.replace(/-/g, "");
    }
    // Focus stays on screen and nothing scrolls (on a phone, focusing "Siguiente" scrolled the
    // options away, or left the focus unseen below them): the verdict under the options when it
    // is in view, else the options group just answered; the verdict is announced (aria-live),
    // and Tab goes on to the rule's link and "Siguiente".
    $("p-next").hidden = false;
    var verdict = $("p-verdict"), box = verdict.getBoundingClientRect();
    var seen = box.top >= 0 && box.bottom <= window.innerHeight;
    (seen ? verdict : $("p-options")).focus({ preventScroll: true });
    progress();
  }

  function answeredIn(topic) {
    return state.log.filter(function (x) { return byId[x.id] && byId[x.id].topic === topic; }).length;
  }

  /* Plain Spanish: a topic is "dominado" when its estimate reaches MASTERED (usually four right
   * answers in a row); topics not yet practised say so instead of showing the prior. */
  function progress() {
    var total = state.log.length, right = state.log.filter(function (x) { return x.correct; }).length;
    text($("p-count"), total ? right + " de " + total + " respuestas correctas" : "Aún no has respondido ninguna pregunta.");
    var list = $("p-mastery"); list.innerHTML = "";
    var topics = Object.keys(data.topics), mastered = 0;
    topics.forEach(function (t) {
      var n = answeredIn(t), m = core.masteryOf(state, t), pct = n ? Math.round(m * 100) : 0;
      var done = n > 0 && m >= MASTERED;
      if (done) mastered += 1;
      var li = make("li"), label = make("span", "m-label", data.topics[t]);
      var bar = make("span", "m-bar"), fill = make("span", "m-fill");
      fill.style.width = pct + "%"; bar.appendChild(fill);
      bar.setAttribute("role", "meter"); bar.setAttribute("aria-valuemin", "0");
      bar.setAttribute("aria-valuemax", "100"); bar.setAttribute("aria-valuenow", String(pct));
      bar.setAttribute("aria-label", "Dominio de " + data.topics[t]);
      var word = !n ? "Sin empezar" : done ? "Dominado" : "En progreso";
      li.appendChild(label); li.appendChild(bar); li.appendChild(make("span", "m-pct", word));
      list.appendChild(li);
    });
    text($("p-dominio"), "Dominio: " + mastered + " de " + topics.length + " temas");
  }

  $("p-next").addEventListener("click", function () { show(); });
  window.addEventListener("hashchange", function () { var id = permalink(); if (id) show(id); });
  $("p-reset").addEventListener("click", function () {
    if (!window.confirm("¿Borrar tu progreso de práctica en este navegador?")) return;
    try { localStorage.removeItem(KEY); } catch (e) { /* ignore */ }
    state = load(); progress(); show();
  });
  $("p-app").hidden = false; $("p-noscript").hidden = true;
  progress();
  var asked = permalink();
  show(asked || (state.current && byId[state.current] ? state.current : null));
})();
