// views/awele-rules.js — Awele's rules (/awele/rules) and its beginner's guide (/awele/learn).
//
// /awele/rules: the guide first (the board, sowing, capturing, the end, each
// with a small live board: guide/awele-illustration.js), then the rules every
// rule set shares, then the three rule sets as docs/awele.md states them, each
// in an <article id="ruleset-NAME" data-ruleset=NAME>: `awele` (source 001's
// rules, the club's default), `awari` (Romein and Bal's) and `oware` (abapa).
// /awele/learn is the guide alone, the link offered to newcomers. Every text
// comes from i18n.js, so the page is drawn again when the language changes.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { aweleIllustration } from "../guide/awele-illustration.js";

/** What each rule set says (keys awele.set.NAME.ITEM). */
const RULESETS = [
  ["awele", ["source", "slam", "feed", "stuck", "repetition", "end"]],
  ["awari", ["source", "slam", "feed", "stuck", "repetition", "end"]],
  ["oware", ["source", "slam", "feed", "stuck", "repetition", "end"]],
];

const COMMON = ["board", "sow", "lap", "capture", "end", "notation"];

function sceneMaker() {
  const scenes = [];
  const scene = (id) => {
    const s = aweleIllustration(id);
    scenes.push(s);
    return s.el;
  };
  return { scene, destroy: () => scenes.forEach((s) => s.destroy()) };
}

function guideSection(scene) {
  const step = (key, ...boards) => h("article", { class: "guide-step", id: `awele-guide-${key}` },
    h("h3", {}, t(`awele.guide.${key}.title`)), h("p", {}, t(`awele.guide.${key}.text`)), boards);
  return h("section", { class: "panel prose guide", id: "guide" },
    h("h2", {}, t("awele.guide.title")),
    h("p", {}, t("awele.guide.intro")),
    step("board"),
    step("sow", scene("sow")),
    step("capture", scene("capture")),
    step("lap", scene("lap")),
    step("end", scene("end")),
    step("tips"));
}

function playButtons() {
  return h("p", { class: "buttons" },
    h("a", { href: "/", class: "button primary", id: "awele-play" }, t("awele.playLink")),
    h("a", { href: "/awele/rules#rulesets", class: "button", id: "awele-all-rules" }, t("learn.allRules")));
}

/** /awele/rules: how to play first, then the rule sets in full. */
export function aweleRulesView(main) {
  const { scene, destroy } = sceneMaker();
  const toc = [["#guide", t("awele.guide.title")], ["#rules-basics", t("rules.common.title")],
    ["#rulesets", t("rules.sets.title")]];
  mount(main,
    h("h1", { tabindex: -1 }, t("awele.rules.title")),
    h("p", { class: "one-sentence" }, t("awele.oneSentence")),
    h("nav", { class: "rules-toc", "aria-label": t("rules.toc") },
      h("ul", {}, toc.map(([href, text]) => h("li", {}, h("a", { href }, text))))),
    guideSection(scene),
    h("section", { class: "panel prose", id: "rules-basics" },
      h("h2", {}, t("rules.common.title")),
      h("ul", {}, COMMON.map((k) => h("li", { dataset: { rule: k } }, t(`awele.common.${k}`))))),
    h("section", { class: "panel prose", id: "rulesets" },
      h("h2", {}, t("rules.sets.title")),
      h("p", {}, t("awele.sets.intro")),
      RULESETS.map(([name, items]) => h("article", { class: "ruleset", id: `ruleset-${name}`, dataset: { ruleset: name } },
        h("h3", {}, t(`awele.set.${name}.title`)),
        h("ul", {}, items.map((k) => h("li", { dataset: { rule: k } }, t(`awele.set.${name}.${k}`))))))),
    h("section", { class: "panel prose" },
      h("h2", {}, t("rules.hints.title")), h("p", {}, t("awele.hints"))),
    h("p", { class: "buttons" },
      h("a", { href: "/", class: "button primary", id: "awele-play" }, t("awele.playLink")),
      h("a", { href: "/rules", class: "button" }, t("awele.ataxxRules"))));
  return destroy;
}

/** /awele/learn: the beginner's guide on its own page. */
export function aweleLearnView(main) {
  const { scene, destroy } = sceneMaker();
  mount(main,
    h("h1", { tabindex: -1 }, t("awele.learn.title")),
    h("p", { class: "one-sentence" }, t("awele.oneSentence")),
    guideSection(scene),
    playButtons());
  return destroy;
}
