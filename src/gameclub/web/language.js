// language.js — which language the page speaks, and the switcher in the header.
//
// The first visit follows the browser (navigator.languages: the first of
// English, French or Russian it names; English otherwise). Choosing another
// language in the switcher remembers it in localStorage ("gameclub.lang"),
// which then wins over the browser on every later visit. `applyLanguage()`
// switches the texts (i18n.js) and updates `<html lang>`; app.js then draws
// the header and the current page again, in place, without a reload, and
// tells other modules with a `localechange` event on window.

import { h, s } from "./dom.js";
import { LANGUAGES, getLocale, setLocale, supported, t } from "./i18n.js";

export const STORAGE_KEY = "gameclub.lang";

function stored() {
  try {
    return supported(localStorage.getItem(STORAGE_KEY));
  } catch {
    return null; // storage disabled: follow the browser
  }
}

/** The language to start with: the remembered choice, else the browser's, else English. */
export function initialLanguage() {
  const remembered = stored();
  if (remembered) return remembered;
  const wanted = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language];
  for (const tag of wanted) {
    const code = supported(tag);
    if (code) return code;
  }
  return "en";
}

/** Switch the texts to ``code`` and update `<html lang>` (and remember it when ``remember``). */
export function applyLanguage(code, { remember = false } = {}) {
  const lang = setLocale(code);
  document.documentElement.lang = t("app.lang");
  if (remember) {
    try {
      localStorage.setItem(STORAGE_KEY, lang);
    } catch {
      // storage disabled: the choice lasts for this page only
    }
  }
  return lang;
}

/** A small globe (decoration: the label's text says "Language"). */
function globe() {
  const line = { fill: "none", stroke: "currentColor", "stroke-width": 1.5 };
  return s("svg", { class: "lang-icon", viewBox: "0 0 24 24", width: 18, height: 18, "aria-hidden": "true", focusable: "false" },
    s("circle", { cx: 12, cy: 12, r: 9, ...line }),
    s("ellipse", { cx: 12, cy: 12, rx: 4, ry: 9, ...line }),
    s("path", { d: "M3 12h18M5 7.5h14M5 16.5h14", ...line }));
}

/**
 * The switcher: a labelled <select id="lang-select"> of the languages, each
 * named in its own language. ``onChange(code)`` is called with the new choice.
 */
export function languageSwitcher(onChange) {
  const select = h("select", { id: "lang-select", name: "lang", class: "small" },
    LANGUAGES.map(([code, name]) => h("option", { value: code, lang: code, selected: code === getLocale() }, name)));
  select.addEventListener("change", () => onChange(select.value));
  return h("div", { class: "lang-switch" },
    h("label", { for: "lang-select" }, globe(), h("span", { class: "visually-hidden" }, t("lang.label"))),
    select);
}
