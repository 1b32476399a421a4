/* citavial PWA client: registers the service worker (sw.js at the site root) and, when a new
 * build has been installed in the background, offers it: "Hay una versión nueva del Reglamento
 * (en vigor a …)". The page reloads only when the student asks; progress kept in localStorage
 * (practice, simulacro) is not touched. Does nothing from file://, where service workers do
 * not run. Bundled with chat.js into static/app.<hash>.js by the build. */
(function () {
  "use strict";
  var sw = navigator.serviceWorker;
  var script = document.currentScript;
  if (!sw || !/^https?:$/.test(location.protocol) || !script) return;
  var ROOT = new URL("..", script.src);   /* this file lives in static/ */
  var wanted = false, shown = false;

  function ask(worker) {
    return new Promise(function (resolve) {
      var ch = new MessageChannel();
      ch.port1.onmessage = function (e) { resolve(e.data || {}); };
      worker.postMessage({ type: "info" }, [ch.port2]);
      setTimeout(function () { resolve({}); }, 3000);
    });
  }

  function offer(worker) {
    if (shown) return;
    shown = true;
    ask(worker).then(function (info) {
      var bar = document.createElement("div");
      bar.className = "pwa-update";
      bar.setAttribute("role", "status");
      var text = document.createElement("p");
      text.textContent = "Hay una versión nueva del Reglamento" +
        (info.as_of_text ? " (en vigor a " + info.as_of_text + ")" : "") +
        ". Tu progreso se conserva.";
      var go = document.createElement("button");
      go.type = "button";
      go.textContent = "Actualizar ahora";
      go.addEventListener("click", function () {
        wanted = true;
        go.disabled = true;
        worker.postMessage({ type: "activate" });
      });
      bar.append(text, go);
      document.body.appendChild(bar);
    });
  }

  function watch(reg) {
    if (reg.waiting && sw.controller) offer(reg.waiting);
    reg.addEventListener("updatefound", function () {
      var w = reg.installing;
      if (!w) return;
      w.addEventListener("statechange", function () {
        if (w.state === "installed" && sw.controller) offer(w);
      });
    });
  }

  sw.addEventListener("controllerchange", function () {
    if (wanted) location.reload();   /* the first install also changes controller: no reload */
  });
  window.addEventListener("load", function () {
    sw.register(new URL("sw.js", ROOT).href, { scope: ROOT.href }).then(function (reg) {
      watch(reg);
      return reg.update();
    }).catch(function () { /* no service worker: the site works online as before */ });
  });
})();
