// views/rules.js — the rules and the beginner's guide (/rules), and the notFound page.
//
// The page has four parts:
//   * the rule in one sentence and what every rule set shares;
//   * the three rule sets (ataxx, pressibus, site-2005) as docs/rules.md
//     states them, each in an <article id="ruleset-NAME" data-ruleset=NAME>;
//   * the beginner's guide of the club page (source 003): set-up, clone or
//     jump, flipping, passing, winning;
//   * the advice of the sources (how to play better).
// The guide and the advice are illustrated with small live boards
// (guide/illustration.js). Every text comes from i18n.js, so the page is
// drawn again as it is when the language changes.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { illustration } from "../guide/illustration.js";

/** What each rule set says, in the order of docs/rules.md (keys rules.set.NAME.ITEM). */
const RULESETS = [
  ["ataxx", ["start", "stuck", "end", "fifty", "check"]],
  ["pressibus", ["start", "stuck", "repetition", "fifty", "blocks"]],
  ["site-2005", ["start", "stuck", "full", "repetition", "fifty"]],
];

const COMMON = ["board", "players", "clone", "jump", "flip", "notation"];

export function rulesView(main) {
  const scenes = [];
  const scene = (id) => {
    const s = illustration(id);
    scenes.push(s);
    return s.el;
  };
  const step = (key, ...boards) => h("article", { class: "guide-step", id: `guide-${key}` },
    h("h3", {}, t(`rules.${key}.title`)), h("p", {}, t(`rules.${key}.text`)), boards);
  const tip = (key, ...boards) => h("article", { class: "guide-step", id: `tip-${key}` },
    h("h3", {}, t(`guide.tip.${key}.title`)), h("p", {}, t(`guide.tip.${key}.text`)), boards);
  const toc = [
    ["#rules-basics", t("rules.common.title")], ["#rulesets", t("rules.sets.title")],
    ["#guide", t("guide.title")], ["#tips", t("guide.tips.title")],
  ];

  mount(main,
    h("h1", { tabindex: -1 }, t("rules.title")),
    h("nav", { class: "rules-toc", "aria-label": t("rules.toc") },
      h("ul", {}, toc.map(([href, text]) => h("li", {}, h("a", { href }, text))))),

    h("section", { class: "panel prose", id: "rules-basics" },
      h("h2", {}, t("rules.oneSentence.title")),
      h("p", { class: "one-sentence" }, t("rules.oneSentence.text")),
      h("h2", {}, t("rules.common.title")),
      h("ul", {}, COMMON.map((k) => h("li", {}, t(`rules.common.${k}`))))),

    h("section", { class: "panel prose", id: "rulesets" },
      h("h2", {}, t("rules.sets.title")),
      h("p", {}, t("rules.sets.intro")),
      RULESETS.map(([name, items]) => h("article", { class: "ruleset", id: `ruleset-${name}`, dataset: { ruleset: name } },
        h("h3", {}, t(`rules.set.${name}.title`)),
        h("p", { class: "hint" }, t(`rules.set.${name}.source`)),
        h("ul", {}, items.map((k) => h("li", { dataset: { rule: k } }, t(`rules.set.${name}.${k}`)))))),
      h("h3", {}, t("rules.order.title")),
      h("p", {}, t("rules.order.text"))),

    h("section", { class: "panel prose guide", id: "guide" },
      h("h2", {}, t("guide.title")),
      h("p", {}, t("guide.intro")),
      h("p", { class: "hint" }, t("guide.legend")),
      step("setup"),
      step("move", scene("cloneJump")),
      step("flip", scene("flip")),
      step("pass", scene("pass"), scene("stuck")),
      step("end")),

    h("section", { class: "panel prose guide", id: "tips" },
      h("h2", {}, t("guide.tips.title")),
      tip("clone"),
      tip("corners", scene("corner")),
      tip("count"),
      tip("line", scene("line")),
      tip("last", scene("last"))),

    h("section", { class: "panel prose" },
      h("h2", {}, t("rules.hints.title")), h("p", {}, t("rules.hints.text")),
      h("p", { class: "hint" }, t("rules.server"))),
    h("a", { href: "/", class: "button primary" }, t("home.playComputer")));

  return () => scenes.forEach((s) => s.destroy());
}

export function notFoundView(main) {
  mount(main, h("h1", { tabindex: -1 }, t("notFound.title")), h("p", {}, h("a", { href: "/" }, t("nav.home"))));
}
