/* citavial tables: a table wider than the screen scrolls inside its .table-wrap (site.css). Such
 * a box gets keyboard focus and a name, so it can be scrolled without a mouse (WCAG 2.1.1);
 * boxes that fit stay out of the tab order. Re-run on resize, and by pages that fill a table
 * later (window.CitavialTables.mark). */
(function () {
  "use strict";
  function name(w) {
    var t = w.querySelector("table");
    var base = t && (t.getAttribute("aria-label") || (t.caption && t.caption.textContent));
    return (base || "Tabla").trim() + " (se desplaza en horizontal)";
  }
  function mark() {
    Array.prototype.forEach.call(document.querySelectorAll(".table-wrap"), function (w) {
      if (w.scrollWidth > w.clientWidth + 1) {
        w.tabIndex = 0;
        w.setAttribute("role", "region");
        w.setAttribute("aria-label", name(w));
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
