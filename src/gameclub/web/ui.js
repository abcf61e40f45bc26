// ui.js — page-wide feedback: the screen-reader live region and toasts.
//
// `announce(text)` speaks through the one aria-live="polite" region of the
// page (moves, passes, results, offers). `toast(content)` shows a short
// notice (an invitation, a declined offer) that also has its own buttons.

import { h } from "./dom.js";

/** Say ``text`` to screen readers (and show it in the visually hidden live region). */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  // A fresh node per message makes repeated identical texts be read again.
  region.replaceChildren(h("p", {}, text));
}

/**
 * Show a notice; returns a function that removes it.
 * @param {Node|string} content
 * @param {{timeout?: number, kind?: string, key?: string}} opts  timeout 0 keeps it until
 *   closed; a notice with the ``key`` of one still shown replaces it. Errors share one key
 *   unless given another: a new error replaces the last, they never pile up.
 */
export function toast(content, { timeout = 6000, kind = "info", key = kind === "error" ? "error" : null } = {}) {
  const box = document.getElementById("toasts");
  const close = h("button", { class: "toast-close", type: "button", "aria-label": "×" }, "×");
  const el = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" }, content, close);
  if (key) {
    el.dataset.key = key;
    for (const old of box.querySelectorAll(".toast[data-key]")) if (old.dataset.key === key) old.remove();
  }
  const remove = () => el.remove();
  close.addEventListener("click", remove);
  box.append(el);
  if (timeout) setTimeout(remove, timeout);
  return remove;
}

/** A message for an API or socket error: the server's message for people. */
export function errorText(err) {
  return (err && err.message) || String(err);
}
