/* citavial "Copiar enlace": a button on every passage and every table row that copies the
 * gate-proven deep link (window.CITAVIAL_LINKS, from deeplinks/<page>.js) and always shows it in a
 * text box too, for where the clipboard is not allowed (file://, old browsers).
 *
 * The buttons carry no text nodes (their label is aria-label + CSS generated content), so the
 * page text that text-fragment links are matched against is exactly the verified text. */
(function () {
  "use strict";
  var links = window.CITAVIAL_LINKS || { passages: {}, rows: {} };
  var panel = null;

  /* The link to share. Opened from disk (file://), a link to this computer's file is no use
   * to anyone else: a build made with --base-url names the published page (<link
   * rel="canonical">), and the link is made against it; without one, the panel says so. */
  var canonical = document.querySelector('link[rel="canonical"]');
  var local = window.location.protocol === "file:";
  function absolute(rel) {
    if (local && canonical) return new URL(rel, canonical.href).href;
    return new URL(rel, window.location.href).href;
  }
  var NOTE = local ? (canonical ? "Enlace a la página publicada (" +
      new URL(canonical.href).host + "), que puedes compartir."
    : "Este enlace lleva a un archivo de tu equipo: sirve para ti, pero no para compartirlo " +
      "con otras personas.") : "";

  /* Said when a row copies its table's link: a text fragment is found by its words and those
   * of the cells beside them, and this row's recur exactly so earlier on the page. */
  var NO_ROW_LINK = "Esta fila no puede tener enlace propio: sus palabras, con las de las " +
    "celdas de al lado, se repiten igual más arriba en esta página, y el enlace llevaría " +
    "allí. Te damos el enlace a la tabla, que sí lleva a su sitio.";

  function button(label, url, why) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "copy-link";
    b.setAttribute("aria-label", label);
    b.setAttribute("title", label);
    b.setAttribute("data-link", url);
    if (why) b.setAttribute("data-why", why);
    b.addEventListener("click", function () { copy(b); });
    return b;
  }

  function showPanel(after, url, copied, why) {
    if (!panel) {
      panel = document.createElement("div");
      panel.className = "copy-panel";
      panel.setAttribute("role", "status");
      var reason = document.createElement("p"); reason.className = "copy-why";
      var msg = document.createElement("span"); msg.className = "copy-msg";
      var input = document.createElement("input");
      input.type = "text"; input.readOnly = true; input.className = "copy-url";
      input.setAttribute("aria-label", "Enlace al pasaje");
      var close = document.createElement("button");
      close.type = "button"; close.className = "copy-close"; close.textContent = "Cerrar";
      close.addEventListener("click", function () { panel.hidden = true; });
      var note = document.createElement("span"); note.className = "copy-note";
      note.textContent = NOTE; note.hidden = !NOTE;
      panel.appendChild(reason); panel.appendChild(msg); panel.appendChild(input); panel.appendChild(close);
      panel.appendChild(note);
    }
    panel.querySelector(".copy-why").textContent = why || "";
    panel.querySelector(".copy-why").hidden = !why;
    panel.querySelector(".copy-msg").textContent = copied ? "Enlace copiado:" : "Copia este enlace:";
    panel.querySelector(".copy-url").value = url;
    after.insertAdjacentElement("afterend", panel);
    panel.hidden = false;
    var input = panel.querySelector(".copy-url");
    input.focus({ preventScroll: true }); input.select();
  }

  function copy(b) {
    var url = absolute(b.getAttribute("data-link"));
    var holder = b.closest("table") ? b.closest(".table-wrap") || b.closest("table") : b.parentElement;
    var done = function (ok) { showPanel(holder, url, ok, b.getAttribute("data-why")); };
    if (navigator.clipboard && window.isSecureContext && window.location.protocol !== "file:") {
      navigator.clipboard.writeText(url).then(function () { done(true); }, function () { done(false); });
    } else {
      done(false);
    }
  }

  Array.prototype.forEach.call(document.querySelectorAll(".unit .body [data-ref][id]:not(.title-cont)"), function (el) {
    var id = el.id, url = links.passages[id] || (window.location.pathname.split("/").pop() + "#" + id);
    if (el.tagName === "TABLE") {
      var rows = links.rows[id] || [];
      Array.prototype.forEach.call(el.rows, function (tr, i) {
        var cell = tr.cells[tr.cells.length - 1];
        // A row with no text (null) has nothing to link to; a row no text fragment can single
        // out ("") gets the table's link, and says why.
        if (!cell || rows[i] === null) return;
        cell.appendChild(rows[i] ? button("Copiar enlace a esta fila", rows[i])
          : button("Copiar enlace a la tabla (esta fila no tiene enlace propio)", url, NO_ROW_LINK));
      });
      el.parentElement.insertBefore(button("Copiar enlace a esta tabla", url), el);
    } else {
      el.appendChild(button("Copiar enlace a este párrafo", url));
    }
  });
})();
