/* citavial service worker: the whole study site offline after the first visit.
 * `citavial build` writes this file as sw.js at the site root with BUILD filled in:
 * {version, as_of, as_of_text, files}. One cache per build ("citavial-<version>"): a page and
 * the assets it names always come from the same build. Hashed assets (name.<hash10>.ext) are
 * cache-first; everything else is network-first with a timeout (a bad signal should not keep a
 * student waiting), falling back to this build's copy, then to the Spanish offline page.
 * Network responses are never written into the cache: the cache holds exactly one build. */
"use strict";
var BUILD = "__CITAVIAL_BUILD__";
var CACHE = "citavial-" + BUILD.version;
var SCOPE = new URL("./", self.location.href).href;
var HASHED = /\.[0-9a-f]{10}\.[a-z0-9]+$/;
var NETWORK_TIMEOUT_MS = 4000;
var NOT_CACHED = /^(?:api\/|health$|metrics$)/;   /* the answer worker, when served with the site */

function precache(cache, file) {
  var url = new URL(file, SCOPE).href;
  /* a hashed file already cached by an older build has the same bytes: copy it, don't fetch */
  var old = HASHED.test(file) ? caches.match(url) : Promise.resolve(undefined);
  return old.then(function (hit) {
    if (hit) return cache.put(url, hit);
    return fetch(url, { cache: "no-cache" }).then(function (r) {
      if (!r.ok) throw new Error("precache " + file + ": HTTP " + r.status);
      return cache.put(url, r);
    });
  });
}

self.addEventListener("install", function (event) {
  event.waitUntil(caches.open(CACHE).then(function (cache) {
    return Promise.all(BUILD.files.map(function (f) { return precache(cache, f); }));
  }).then(function () {
    /* first install: nothing to disturb, serve at once; an update waits for the student */
    if (!self.registration.active) return self.skipWaiting();
  }));
});

self.addEventListener("activate", function (event) {
  event.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) {
      return k.indexOf("citavial-") === 0 && k !== CACHE;
    }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

self.addEventListener("message", function (event) {
  var msg = event.data || {};
  if (msg.type === "info" && event.ports[0]) {
    event.ports[0].postMessage({ version: BUILD.version, as_of: BUILD.as_of,
      as_of_text: BUILD.as_of_text });
  } else if (msg.type === "activate") {
    self.skipWaiting();
  }
});

function fromCache(request) {
  return caches.open(CACHE).then(function (cache) {
    return cache.match(request, { ignoreSearch: true }).then(function (hit) {
      if (hit || request.mode !== "navigate") return hit;
      var path = new URL(request.url).href.slice(SCOPE.length).split(/[?#]/)[0];
      if (path === "" || path.slice(-1) === "/") {
        return cache.match(new URL(path + "index.html", SCOPE).href);
      }
      return undefined;
    });
  });
}

function offline(request) {
  return fromCache(request).then(function (hit) {
    if (hit) return hit;
    if (request.mode === "navigate") {
      return caches.open(CACHE).then(function (c) { return c.match(new URL("offline.html", SCOPE).href); });
    }
    return Response.error();
  });
}

function networkFirst(request) {
  return new Promise(function (resolve) {
    var settled = false;
    function fallback() { if (!settled) { settled = true; resolve(offline(request)); } }
    var timer = setTimeout(fallback, NETWORK_TIMEOUT_MS);
    fetch(request).then(function (response) {
      clearTimeout(timer);
      if (settled) return;
      settled = true;
      resolve(response);
    }, function () { clearTimeout(timer); fallback(); });
  });
}

function cacheFirst(request) {
  return fromCache(request).then(function (hit) { return hit || fetch(request); });
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET" || request.url.indexOf(SCOPE) !== 0) return;
  var path = request.url.slice(SCOPE.length).split(/[?#]/)[0];
  if (NOT_CACHED.test(path)) return;
  event.respondWith(HASHED.test(path) ? cacheFirst(request) : networkFirst(request));
});
