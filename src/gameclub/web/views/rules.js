// views/rules.js — the beginner's guide (/learn), the rules (/rules), and the notFound page.
//
// /rules has four parts, how to play first (what a newcomer came for):
//   * the beginner's guide of the club page (source 003): set-up, clone or
//     jump, flipping, passing, winning;
//   * the advice of the sources (how to play better);
//   * the rule in one sentence and what every rule set shares;
//   * the three rule sets (ataxx, pressibus, site-2005) as docs/rules.md
//     states them, each in an <article id="ruleset-NAME" data-ruleset=NAME>.
// /learn is the guide and the advice alone, the link offered to newcomers.
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

/** The beginner's guide and the advice, with their live boards; ``scene(id)`` builds one. */
function guideSections(scene) {
  const step = (key, ...boards) => h("article", { class: "guide-step", id: `guide-${key}` },
    h("h3", {}, t(`rules.${key}.title`)), h("p", {}, t(`rules.${key}.text`)), boards);
  const tip = (key, ...boards) => h("article", { class: "guide-step", id: `tip-${key}` },
    h("h3", {}, t(`guide.tip.${key}.title`)), h("p", {}, t(`guide.tip.${key}.text`)), boards);
  return [
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
  ];
}

function sceneMaker() {
  const scenes = [];
  const scene = (id) => {
    const s = illustration(id);
    scenes.push(s);
    return s.el;
  };
  return { scene, destroy: () => scenes.forEach((s) => s.destroy()) };
}

/** /rules: how to play first (a newcomer's question), then the rule sets in full. */
export function rulesView(main) {
  const { scene, destroy } = sceneMaker();
  const toc = [
    ["#guide", t("guide.title")], ["#tips", t("guide.tips.title")],
    ["#rules-basics", t("rules.common.title")], ["#rulesets", t("rules.sets.title")],
  ];

  mount(main,
    h("h1", { tabindex: -1 }, t("rules.title")),
    h("nav", { class: "rules-toc", "aria-label": t("rules.toc") },
      h("ul", {}, toc.map(([href, text]) => h("li", {}, h("a", { href }, text))))),

    guideSections(scene),

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

    h("section", { class: "panel prose" },
      h("h2", {}, t("rules.hints.title")), h("p", {}, t("rules.hints.text")),
      h("p", { class: "hint" }, t("rules.server"))),
    h("a", { href: "/", class: "button primary" }, t("home.playComputer")));

  return destroy;
}

/** /learn: the beginner's guide on its own page, the first thing to open for a newcomer. */
export function learnView(main) {
  const { scene, destroy } = sceneMaker();
  mount(main,
    h("h1", { tabindex: -1 }, t("learn.title")),
    h("p", { class: "one-sentence" }, t("rules.oneSentence.text")),
    guideSections(scene),
    h("p", { class: "buttons" },
      h("a", { href: "/", class: "button primary" }, t("home.playComputer")),
      h("a", { href: "/rules#rulesets", class: "button", id: "learn-rules" }, t("learn.allRules"))));
  return destroy;
}

export function notFoundView(main) {
  mount(main, h("h1", { tabindex: -1 }, t("notFound.title")), h("p", {}, h("a", { href: "/" }, t("nav.home"))));
}
