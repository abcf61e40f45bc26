// views/settings.js — the game settings fields shared by every game-creating form.
//
// Computer games, seeks and invitations send the same fields (rules, blocks,
// clock, colour, rated; docs/protocol.md "Game settings"). `settingsForm()`
// builds them with the choices of GET /api/options and `read()` turns them
// back into a request body. Nothing is checked here: the server decides and
// its error message is shown next to the form.

import { get } from "../api.js";
import { field, h, select } from "../dom.js";
import { t } from "../i18n.js";
import { colorLabel } from "../prefs.js";

let optionsPromise = null;

/** GET /api/options, fetched once per page. */
export function loadOptions() {
  if (!optionsPromise) {
    optionsPromise = get("/api/options").catch((err) => {
      optionsPromise = null;
      throw err;
    });
  }
  return optionsPromise;
}

export const DEFAULT_OPTIONS = {
  rulesets: [{ name: "ataxx" }, { name: "pressibus" }, { name: "site-2005" }],
  levels: ["random", "simple", "hard", "expert", "master"],
  clocks: [],
  blocks: [],
};

export function clockText(clock) {
  if (!clock) return t("settings.noClock");
  return t("settings.clockValue", { minutes: clock.base / 60, increment: clock.increment });
}

export function blocksText(blocks) {
  return blocks ? blocks : t("settings.noBlocks");
}

/** What a rule set is, in the page's language (the server's English line for a rule set this page does not know). */
export function rulesDescription(ruleset) {
  if (!ruleset) return "";
  const key = `settings.rulesDesc.${ruleset.name}`;
  const text = t(key);
  return text === key ? ruleset.description || "" : text;
}

let formCount = 0;

/**
 * The settings fields.
 * @param {object} options  GET /api/options
 * @param {object} cfg  {level: bool, rated: bool, prefix: string, defaults: {...},
 *   board: bool (false: blocks and start come from elsewhere, the board editor)}
 * @returns {{el: HTMLElement, read: () => object}}
 */
export function settingsForm(options, cfg = {}) {
  const p = cfg.prefix || `f${++formCount}`;
  const d = { level: "simple", color: "x", rules: "ataxx", clock: "none", ...cfg.defaults };
  const fields = [];
  let level = null;
  if (cfg.level) {
    level = select(`${p}-level`, options.levels.map((l) => [l, t(`level.${l}`)]), d.level);
    fields.push(field(t("settings.level"), level));
  }
  const colorChoices = [...sideChoices(), ["random", t("settings.colorRandom")]];
  const color = select(`${p}-color`, colorChoices, d.color);
  fields.push(field(t("settings.color"), color));
  const rules = select(`${p}-rules`, options.rulesets.map((r) => [r.name, r.name]), d.rules);
  const rulesHint = h("small", { class: "hint rules-hint", id: `${p}-rules-hint` });
  const describe = () => {
    rulesHint.textContent = rulesDescription(options.rulesets.find((x) => x.name === rules.value));
  };
  rules.addEventListener("change", describe);
  describe();
  fields.push(h("div", { class: "field" }, h("label", { for: rules.id }, t("settings.rules")), rules, rulesHint));

  const board = cfg.board !== false;
  const start = select(`${p}-start`, [
    ["standard", t("settings.startStandard")], ["four-corners", t("settings.startFour")],
    ["two-corners", t("settings.startTwo")],
  ], d.start || "standard");
  if (board) fields.push(field(t("settings.start"), start, t("settings.startHint")));

  const blocksMode = select(`${p}-blocks-mode`, [
    ["none", t("settings.blocksNone")], ["random", t("settings.blocksRandom")], ["code", t("settings.blocksCode")],
  ], d.blocksMode || "none");
  const listId = `${p}-blocks-list`;
  const blocksCode = h("input", {
    id: `${p}-blocks-code`, name: `${p}-blocks-code`, type: "text", list: listId, autocomplete: "off",
    spellcheck: "false", placeholder: "3ghx", maxlength: 20, value: d.blocksCode || "",
    "aria-label": t("settings.blocksCodeLabel"),
  });
  const datalist = h("datalist", { id: listId }, options.blocks.map((code) => h("option", { value: code })));
  const syncBlocks = () => {
    blocksCode.hidden = blocksMode.value !== "code";
  };
  blocksMode.addEventListener("change", () => {
    syncBlocks();
    if (blocksMode.value === "code") blocksCode.focus();
  });
  syncBlocks();
  if (board) {
    fields.push(h("div", { class: "field" },
      h("label", { for: blocksMode.id }, t("settings.blocks")), blocksMode, blocksCode, datalist,
      h("small", { class: "hint" }, t("settings.blocksHint"), " ",
        h("a", { href: "/editor" }, t("editor.link")))));
  }

  const clockChoices = [["none", t("settings.noClock")],
    ...options.clocks.map((c) => [`${c.base}+${c.increment}`, clockText(c)])];
  const clock = select(`${p}-clock`, clockChoices, d.clock);
  fields.push(field(t("settings.clock"), clock));

  let rated = null;
  if (cfg.rated) {
    rated = h("input", { type: "checkbox", id: `${p}-rated`, name: `${p}-rated` });
    fields.push(h("div", { class: "field check" }, rated, h("label", { for: rated.id }, t("settings.rated"))));
  }

  const read = () => {
    const body = { rules: rules.value, color: color.value };
    if (level) body.level = level.value;
    if (board) {
      if (blocksMode.value === "random") body.blocks = "random";
      else if (blocksMode.value === "code") body.blocks = blocksCode.value.trim() || null;
      else body.blocks = null;
      if (start.value !== "standard") body.start = start.value;
    }
    if (clock.value === "none") body.clock = null;
    else {
      const [base, increment] = clock.value.split("+").map(Number);
      body.clock = { base, increment };
    }
    if (rated) body.rated = rated.checked;
    return body;
  };
  return { el: h("div", { class: "settings" }, fields), read };
}

/** The two sides as <select> choices, named by the colours the player chose ("Red (moves first)"). */
export function sideChoices() {
  return [["x", t("settings.colorX", { color: colorLabel("x") })], ["o", colorLabel("o")]];
}

/** The side a seek's or invitation's sender plays: a colour, or "Random". */
export function sideText(color) {
  return color === "x" || color === "o" ? colorLabel(color) : t("settings.seekColor.random");
}

/** One line describing a seek's or invitation's settings. */
export function settingsSummary(o) {
  const parts = [o.rules, `${t("settings.blocks")}: ${blocksText(o.blocks)}`, clockText(o.clock)];
  if (o.start && o.start !== "standard") parts.push(t(`settings.start.${o.start}`));
  parts.push(o.rated ? t("settings.ratedShort") : t("settings.casual"));
  return parts.join(" · ");
}
