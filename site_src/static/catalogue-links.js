/* ANEXO I, 5: the catalogue's index ("3.1 Señales de advertencia de peligro." … "3.18 Otras
 * señales.") becomes links to the signs page, whose groups g1…g18 follow the same chapters in
 * the same order. The link wraps the passage's own text node, so its text is unchanged. */
(function () {
  "use strict";
  var INDEX = /^3\.(\d{1,2})\s(Señales|Paneles|Otras)/;
  Array.prototype.forEach.call(document.querySelectorAll(".unit .body p.passage"), function (p) {
    var m = INDEX.exec(p.textContent);
    var node = p.firstChild;
    if (!m || !node || node.nodeType !== 3 || Number(m[1]) > 18) return;
    var a = document.createElement("a");
    a.href = "senales.html#g" + Number(m[1]);
    a.className = "catalogue-link";
    p.insertBefore(a, node);
    a.appendChild(node);
  });
})();
