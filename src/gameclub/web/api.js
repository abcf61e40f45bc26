// api.js — the HTTP JSON API (docs/protocol.md): identity, CSRF token, requests.
//
// Every state-changing request carries the CSRF token last returned by
// GET /api/me (or sign-up / login / logout). A request refused with 403 "csrf"
// (the server restarted with a fresh session table, or the session expired)
// is retried once after reloading the identity. Failures become ApiError with
// the server's stable code and its message for people.

export class ApiError extends Error {
  constructor(status, code, message, retryAfter = null) {
    super(message || code);
    this.status = status;
    this.code = code;
    this.retryAfter = retryAfter;
  }
}

/** The current identity: {user, csrf, games}; listeners hear every change. */
export const session = {
  user: null,
  csrf: "",
  games: [],
  ratings: null, // {ataxx: {rating_text, ...}, awele: {...}}: the rating of each game
  prefs: null, // accounts: {colors: {x, o}}; guests: null (their choice lives in localStorage)
  listeners: new Set(),
  set(body) {
    this.user = body.user;
    this.csrf = body.csrf || this.csrf;
    this.games = body.games || [];
    this.ratings = body.ratings || null;
    if ("prefs" in body) this.prefs = body.prefs;
    for (const fn of this.listeners) fn(this);
  },
  onChange(fn) {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  },
};

async function raw(method, path, body) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") {
    headers["X-CSRF-Token"] = session.csrf;
    headers["Content-Type"] = "application/json";
  }
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      credentials: "same-origin",
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new ApiError(0, "network", err.message);
  }
  let data = null;
  try {
    data = await response.json();
  } catch {
    data = null;
  }
  if (!response.ok) {
    const error = (data && data.error) || {};
    throw new ApiError(response.status, error.code || `http-${response.status}`,
      error.message || response.statusText, response.headers.get("Retry-After"));
  }
  return data;
}

/** GET /api/me: creates a guest session when there is none. */
export async function loadMe() {
  const body = await raw("GET", "/api/me");
  session.set(body);
  return body;
}

/** A request; a "csrf" refusal reloads the identity and tries once more. */
export async function api(method, path, body) {
  try {
    return await raw(method, path, body);
  } catch (err) {
    if (method !== "GET" && err.code === "csrf") {
      await loadMe();
      return raw(method, path, body);
    }
    throw err;
  }
}

export const get = (path) => api("GET", path);
export const post = (path, body = {}) => api("POST", path, body);
export const del = (path) => api("DELETE", path);

/** Sign-up, login and logout start a new session: take the identity they return. */
export async function signup(name, password) {
  session.set(await post("/api/signup", { name, password }));
}
export async function login(name, password) {
  session.set(await post("/api/login", { name, password }));
}
export async function logout() {
  session.set(await post("/api/logout"));
}
