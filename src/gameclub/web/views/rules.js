// views/rules.js — how to play, in a few lines (/rules), and the notFound page.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";

export function rulesView(main) {
  mount(main,
    h("h1", { tabindex: -1 }, t("rules.title")),
    h("section", { class: "panel prose" },
      ["setup", "move", "flip", "pass", "end", "hints"].map((k) => [
        h("h2", {}, t(`rules.${k}.title`)), h("p", {}, t(`rules.${k}.text`))]),
      h("p", { class: "hint" }, t("rules.server"))),
    h("a", { href: "/", class: "button primary" }, t("home.playComputer")));
}

export function notFoundView(main) {
  mount(main, h("h1", { tabindex: -1 }, t("notFound.title")), h("p", {}, h("a", { href: "/" }, t("nav.home"))));
}
