// The console's service worker: keeps the application shell (index.html, the hashed scripts and
// styles, icons, manifest) so the installed app opens without a network, and the last answer of
// each API read so what was seen stays readable offline. Reads always go to the network first
// (fresh whenever there is one); the copy answers only when the network fails. Sign-out deletes
// the API copies (the page calls caches.delete(API_CACHE)); the session endpoints and the live
// stream are never kept.
const CACHE = "waybill-shell-v1";
const API_CACHE = "waybill-api-v1";
const SHELL = ["/", "/manifest.webmanifest", "/icons/icon.svg", "/icons/icon-192.png", "/icons/icon-512.png"];

self.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(SHELL)).then(() => self.skipWaiting()));
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE && name !== API_CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

function isApi(url) {
  return url.pathname === "/v1" || url.pathname.startsWith("/v1/") || url.pathname.startsWith("/docs");
}

/** API reads worth keeping for offline: not the session endpoints, not the event stream. */
function isKeptRead(url) {
  return url.pathname.startsWith("/v1/") && !url.pathname.startsWith("/v1/auth/") && url.pathname !== "/v1/events/stream";
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (url.origin !== self.location.origin) return;
  if (isKeptRead(url)) {
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok) {
            const copy = response.clone();
            caches.open(API_CACHE).then((cache) => cache.put(url.href, copy));
          }
          return response;
        })
        .catch(() => caches.open(API_CACHE).then((cache) => cache.match(url.href).then((cached) => cached ?? Response.error()))),
    );
    return;
  }
  if (isApi(url)) return; // straight to the network
  if (request.mode === "navigate") {
    // Pages: the network first (a new release shows at once), the cached shell when offline.
    event.respondWith(
      fetch(request)
        .then((response) => {
          if (response.ok) caches.open(CACHE).then((cache) => cache.put("/", response.clone()));
          return response;
        })
        .catch(() => caches.match("/").then((cached) => cached ?? Response.error())),
    );
    return;
  }
  if (url.pathname.startsWith("/assets/") || SHELL.includes(url.pathname)) {
    // Hashed assets never change under one name: the cache first, filled on first use.
    event.respondWith(
      caches.match(request).then(
        (cached) =>
          cached ??
          fetch(request).then((response) => {
            if (response.ok) {
              const copy = response.clone();
              caches.open(CACHE).then((cache) => cache.put(request, copy));
            }
            return response;
          }),
      ),
    );
  }
});
