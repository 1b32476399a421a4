/* citavial tables: a table wider than the screen scrolls inside its .table-wrap (site.css; the
 * chat panel's quoted tables: .cv-table-wrap). Such a box gets keyboard focus and a name, unique
 * on the page, so it can be scrolled without a mouse (WCAG 2.1.1); boxes that fit stay out of the
 * tab order. Re-run on resize, and by code that fills or shows a table later
 * (window.CitavialTables.mark: simulacro.js, chat.js). */
(function () {
  "use strict";
  function name(w) {
    var t = w.querySelector("table");
    var base = t && (t.getAttribute("aria-label") || (t.caption && t.caption.textContent));
    return (base || "Tabla").trim() + " (se desplaza en horizontal)";
  }
  function mark() {
    var boxes = document.querySelectorAll(".table-wrap, .cv-table-wrap"), seen = {}, names = [];
    Array.prototype.forEach.call(boxes, function (w, i) {   // a region's name must be unique:
      names[i] = name(w);                                    // a repeated one gets "(k de n)"
      seen[names[i]] = (seen[names[i]] || 0) + 1;
    });
    var count = {};
    Array.prototype.forEach.call(boxes, function (w, i) {
      var n = names[i];
      if (seen[n] > 1) {
        count[n] = (count[n] || 0) + 1;
        n = n.replace(/ \(se desplaza/, " " + count[n] + " de " + seen[n] + " (se desplaza");
      }
      if (w.scrollWidth > w.clientWidth + 1) {
        w.tabIndex = 0;
        w.setAttribute("role", "region");
        w.setAttribute("aria-label", n);
      } else if (w.hasAttribute("tabindex")) {
        w.removeAttribute("tabindex");
        w.removeAttribute("role");
        w.removeAttribute("aria-label");
      }
    });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", mark);
  else mark();
  window.addEventListener("resize", mark);
  window.CitavialTables = { mark: mark };
})();
