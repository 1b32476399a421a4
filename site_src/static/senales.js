/* citavial signs page: filter the list by code or name as you type (accents and case ignored,
 * "R101" finds "R-101"); ?q= and #senal-<code> work as links. */
(function () {
  "use strict";
  var input = document.getElementById("senal-q"), status = document.getElementById("senal-estado");
  var items = Array.prototype.slice.call(document.querySelectorAll("li.sign"));
  /* util.js's fold (the gate's), loosened for a filter: "n" finds "ñ", and any hyphen is "-". */
  function fold(s) {
    return window.CitavialUtil.fold(s).replace(/ñ/g, "n").replace(/[\u2010\u2011]/g, "-");
  }
  var keys = items.map(function (li) { return fold(li.getAttribute("data-search")); });
  function filter() {
    var words = fold(input.value).split(/\s+/).filter(Boolean);
    var shown = 0;
    items.forEach(function (li, i) {
      var hit = words.every(function (w) {
        return keys[i].indexOf(w) >= 0 || keys[i].indexOf(w.replace(/-/g, "")) >= 0;
      });
      li.hidden = !hit; if (hit) shown += 1;
    });
    Array.prototype.forEach.call(document.querySelectorAll(".sign-group"), function (g) {
      g.hidden = !g.querySelector("li.sign:not([hidden])");
    });
    status.textContent = words.length ? shown + (shown === 1 ? " señal encontrada" : " señales encontradas") : "";
  }
  input.addEventListener("input", filter);
  input.form.addEventListener("submit", function (e) { e.preventDefault(); filter(); });
  var q = new URLSearchParams(window.location.search).get("q");
  if (q) { input.value = q; filter(); }
})();
