/* citavial practice page: UI only. Selection and BKT live in practice-core.js. */
(function () {
  "use strict";
  var core = window.CitavialPractice, data = window.CITAVIAL_BANK;
  var KEY = "citavial.practice.v1";
  var $ = function (id) { return document.getElementById(id); };
  var bank = data.questions, byId = {};
  bank.forEach(function (q) { byId[q.id] = q; });
  var state = load(), current = null;

  function load() {
    try {
      var s = JSON.parse(localStorage.getItem(KEY) || "null");
      if (s && s.version === 1 && s.bank === data.version) return s;
    } catch (e) { /* corrupt or unavailable storage: start over */ }
    var fresh = core.newState(Math.floor(Math.random() * 2147483646) + 1);
    fresh.bank = data.version;
    return fresh;
  }
  function save() {
    try { localStorage.setItem(KEY, JSON.stringify(state)); } catch (e) { /* private mode */ }
  }
  function text(el, s) { el.textContent = s; return el; }
  function make(tag, cls, s) {
    var el = document.createElement(tag);
    if (cls) el.className = cls;
    if (s != null) el.textContent = s;
    return el;
  }

  function show() {
    current = core.next(state, bank);
    state.current = current.id; save();
    text($("p-topic"), data.topics[current.topic]);
    text($("p-question"), current.question);
    var opts = $("p-options"); opts.innerHTML = "";
    current.options.forEach(function (o, i) {
      var b = make("button", "option", "abc"[i] + ") " + o);
      b.type = "button"; b.setAttribute("data-i", i);
      b.addEventListener("click", function () { answer(i); });
      opts.appendChild(b);
    });
    $("p-feedback").hidden = true; $("p-next").hidden = true;
    opts.firstChild.focus();
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
    text($("p-quote"), current.quote);
    var link = $("p-link"); link.href = current.url; text(link, "Leer en el reglamento: " + current.label);
    $("p-next").hidden = false; $("p-next").focus();
    progress();
  }

  function progress() {
    var total = state.log.length, right = state.log.filter(function (x) { return x.correct; }).length;
    text($("p-count"), total ? right + " de " + total + " respuestas correctas" : "Aún no has respondido ninguna pregunta.");
    var list = $("p-mastery"); list.innerHTML = "";
    Object.keys(data.topics).forEach(function (t) {
      var m = core.masteryOf(state, t), pct = Math.round(m * 100);
      var li = make("li"), label = make("span", "m-label", data.topics[t]);
      var bar = make("span", "m-bar"), fill = make("span", "m-fill");
      fill.style.width = pct + "%"; bar.appendChild(fill);
      bar.setAttribute("role", "meter"); bar.setAttribute("aria-valuemin", "0");
      bar.setAttribute("aria-valuemax", "100"); bar.setAttribute("aria-valuenow", String(pct));
      bar.setAttribute("aria-label", "Dominio estimado de " + data.topics[t]);
      li.appendChild(label); li.appendChild(bar); li.appendChild(make("span", "m-pct", pct + " %"));
      list.appendChild(li);
    });
  }

  $("p-next").addEventListener("click", show);
  $("p-reset").addEventListener("click", function () {
    if (!window.confirm("¿Borrar tu progreso de práctica en este navegador?")) return;
    try { localStorage.removeItem(KEY); } catch (e) { /* ignore */ }
    state = load(); progress(); show();
  });
  $("p-app").hidden = false; $("p-noscript").hidden = true;
  progress();
  if (state.current && byId[state.current]) { current = byId[state.current]; state.current = null; }
  show();
})();
