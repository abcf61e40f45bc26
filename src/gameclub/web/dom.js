// dom.js — tiny helpers to build DOM and SVG trees without innerHTML.
//
// h("button", {class: "big", onclick: fn}, "Play") builds an element; keys
// starting with "on" become event listeners (never inline handlers, so the page
// works under a strict Content-Security-Policy), "dataset" and "aria" objects
// set data-*/aria-* attributes, and text children are escaped by construction.

const SVG_NS = "http://www.w3.org/2000/svg";

function apply(el, attrs) {
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key.startsWith("on") && typeof value === "function") {
      el.addEventListener(key.slice(2).toLowerCase(), value);
    } else if (key === "dataset") {
      for (const [k, v] of Object.entries(value)) el.dataset[k] = v;
    } else if (key === "aria") {
      for (const [k, v] of Object.entries(value)) el.setAttribute(`aria-${k}`, v);
    } else if (key === "class") {
      el.setAttribute("class", Array.isArray(value) ? value.filter(Boolean).join(" ") : value);
    } else if (key === "value" && "value" in el) {
      el.value = value;
    } else if (key === "checked" || key === "selected" || key === "disabled") {
      el[key] = Boolean(value);
      if (value === true) el.setAttribute(key, "");
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function append(el, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/** An HTML element. */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** An SVG element. */
export function s(tag, attrs = {}, ...children) {
  const el = document.createElementNS(SVG_NS, tag);
  apply(el, attrs);
  append(el, children);
  return el;
}

/** Replace all children of ``el``. */
export function mount(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

/** A <select> from [value, label] pairs. */
export function select(name, options, current, attrs = {}) {
  return h("select", { name, id: attrs.id || name, ...attrs },
    options.map(([value, label]) => h("option", { value, selected: value === current }, label)));
}

/** A labelled form field: <label for=id>text</label> + control. */
export function field(label, control, hint) {
  return h("div", { class: "field" },
    h("label", { for: control.id }, label), control,
    hint ? h("small", { class: "hint" }, hint) : null);
}

/** Milliseconds as m:ss (or h:mm:ss), tenths under ten seconds. */
export function formatClock(ms) {
  ms = Math.max(0, ms);
  if (ms < 10000) return `0:0${(Math.floor(ms / 100) / 10).toFixed(1)}`;
  const total = Math.ceil(ms / 1000);
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const seconds = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${seconds}` : `${minutes}:${seconds}`;
}

/** A date (epoch milliseconds) in the reader's locale. */
export function formatDate(ms) {
  return ms ? new Date(ms).toLocaleString() : "";
}
