// router.js — page routes on real paths (/game/Zt5kQ2aP, /invite/Q9xv3bT1kz, ...).
//
// The server answers every page path with index.html, so links are plain
// <a href="/watch">; clicks on same-site links are caught here and drawn
// without a reload (History API). A route is [pattern, view]; a view is
// `view(main, params) => cleanup?`, and the cleanup runs when the page changes.

const routes = [];
let current = null; // {cleanup}
let mainEl = null;
let fallback = null;

/** Add a route: "/game/:id" style patterns. */
export function route(pattern, view) {
  const names = [];
  const re = new RegExp(
    "^" + pattern.replace(/:([a-zA-Z]+)/g, (_, name) => {
      names.push(name);
      return "([^/]+)";
    }) + "/?$",
  );
  routes.push({ re, names, view });
}

export function notFound(view) {
  fallback = view;
}

function match(path) {
  for (const r of routes) {
    const m = r.re.exec(path);
    if (m) {
      const params = {};
      r.names.forEach((name, i) => (params[name] = decodeURIComponent(m[i + 1])));
      return { view: r.view, params };
    }
  }
  return { view: fallback, params: {} };
}

export function render() {
  if (current && current.cleanup) {
    try {
      current.cleanup();
    } catch (err) {
      console.error(err);
    }
  }
  const { view, params } = match(location.pathname);
  mainEl.replaceChildren();
  const cleanup = view(mainEl, params);
  current = { cleanup: typeof cleanup === "function" ? cleanup : null };
  window.dispatchEvent(new CustomEvent("routechange", { detail: location.pathname }));
}

/** Go to ``path`` (pushing history, or replacing it). */
export function navigate(path, { replace = false } = {}) {
  if (path === location.pathname + location.search && !replace) return;
  if (replace) history.replaceState({}, "", path);
  else history.pushState({}, "", path);
  render();
  scrollToTarget();
}

/** The top of the new page, or the part a ``#fragment`` names ("/rules#rulesets"). */
function scrollToTarget() {
  const target = location.hash ? document.getElementById(decodeURIComponent(location.hash.slice(1))) : null;
  if (target) target.scrollIntoView();
  else window.scrollTo(0, 0);
}

function isPagePath(url) {
  return url.origin === location.origin &&
    !url.pathname.startsWith("/api/") && !url.pathname.startsWith("/static/") &&
    url.pathname !== "/ws";
}

/** Start routing into ``main``. */
export function start(main) {
  mainEl = main;
  document.addEventListener("click", (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = e.target.closest ? e.target.closest("a[href]") : null;
    if (!a || a.target || a.hasAttribute("download") || a.getAttribute("href").startsWith("#")) return;
    const url = new URL(a.href);
    if (!isPagePath(url)) return;
    e.preventDefault();
    navigate(url.pathname + url.search + url.hash);
  });
  window.addEventListener("popstate", render);
  render();
  if (location.hash) scrollToTarget();
}
