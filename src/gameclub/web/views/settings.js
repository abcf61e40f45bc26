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
  games: [
    { id: "ataxx", name: "Ataxx", rulesets: [{ name: "ataxx" }, { name: "pressibus" }, { name: "site-2005" }],
      levels: ["random", "simple", "hard", "expert", "master"], default_rules: "ataxx", default_level: "simple" },
    { id: "awele", name: "Awele", rulesets: [{ name: "awele" }, { name: "awari" }, { name: "oware" }],
      levels: ["random", "greedy", "master"], default_rules: "awele", default_level: "greedy" },
  ],
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

/** The games of GET /api/options (a server without the list offers Ataxx alone). */
export function gamesOf(options) {
  if (options.games && options.games.length) return options.games;
  return [{ id: "ataxx", name: "Ataxx", rulesets: options.rulesets, levels: options.levels,
    default_rules: "ataxx", default_level: "simple" }];
}

/** The options of game ``id`` (Ataxx's when the server does not know it). */
export function gameOptions(options, id) {
  const games = gamesOf(options);
  return games.find((g) => g.id === id) || games[0];
}

function fillSelect(el, choices, current) {
  const keep = choices.some(([value]) => value === current) ? current : choices[0][0];
  el.replaceChildren(...choices.map(([value, label]) => h("option", { value, selected: value === keep }, label)));
  el.value = keep;
}

/**
 * The settings fields.
 * @param {object} options  GET /api/options
 * @param {object} cfg  {level: bool, rated: bool, prefix: string, defaults: {...},
 *   board: bool (false: blocks and start come from elsewhere, the board editor: Ataxx only),
 *   game: the game chosen first ("ataxx" or "awele")}
 * @returns {{el: HTMLElement, read: () => object, game: () => string}}
 */
export function settingsForm(options, cfg = {}) {
  const p = cfg.prefix || `f${++formCount}`;
  const d = { color: "x", clock: "none", ...cfg.defaults };
  const board = cfg.board !== false;
  const games = board ? gamesOf(options) : [gameOptions(options, "ataxx")];
  const fields = [];
  // The game comes first: it decides which rule sets, levels and board options follow.
  const game = select(`${p}-game`, games.map((g) => [g.id, t(`games.${g.id}`)]),
    games.some((g) => g.id === cfg.game) ? cfg.game : games[0].id);
  if (games.length > 1) fields.push(field(t("settings.game"), game));
  const current = () => gameOptions(options, game.value);

  let level = null;
  if (cfg.level) {
    level = select(`${p}-level`, [], null);
    fields.push(field(t("settings.level"), level));
  }
  const color = select(`${p}-color`, [], null);
  fields.push(field(t("settings.color"), color));
  const rules = select(`${p}-rules`, [], null);
  const rulesHint = h("small", { class: "hint rules-hint", id: `${p}-rules-hint` });
  const rulesLink = h("a", { class: "rules-link", href: "/rules#rulesets" }, t("settings.rulesLink"));
  const describe = () => {
    rulesHint.replaceChildren(rulesDescription(current().rulesets.find((x) => x.name === rules.value)), " ", rulesLink);
  };
  rules.addEventListener("change", describe);
  fields.push(h("div", { class: "field" }, h("label", { for: rules.id }, t("settings.rules")), rules, rulesHint));

  // Ataxx's board: its starting layout and blocks.
  const start = select(`${p}-start`, [
    ["standard", t("settings.startStandard")], ["four-corners", t("settings.startFour")],
    ["two-corners", t("settings.startTwo")],
  ], d.start || "standard");
  const ataxxFields = [];
  if (board) ataxxFields.push(field(t("settings.start"), start, t("settings.startHint")));

  const blocksMode = select(`${p}-blocks-mode`, [
    ["none", t("settings.blocksNone")], ["random", t("settings.blocksRandom")], ["code", t("settings.blocksCode")],
  ], d.blocksMode || "none");
  const listId = `${p}-blocks-list`;
  const blocksCode = h("input", {
    id: `${p}-blocks-code`, name: `${p}-blocks-code`, type: "text", list: listId, autocomplete: "off",
    spellcheck: "false", placeholder: "3ghx", maxlength: 20, value: d.blocksCode || "",
    "aria-label": t("settings.blocksCodeLabel"),
  });
  const datalist = h("datalist", { id: listId }, (options.blocks || []).map((code) => h("option", { value: code })));
  const syncBlocks = () => {
    blocksCode.hidden = blocksMode.value !== "code";
  };
  blocksMode.addEventListener("change", () => {
    syncBlocks();
    if (blocksMode.value === "code") blocksCode.focus();
  });
  syncBlocks();
  if (board) {
    ataxxFields.push(h("div", { class: "field" },
      h("label", { for: blocksMode.id }, t("settings.blocks")), blocksMode, blocksCode, datalist,
      h("small", { class: "hint" }, t("settings.blocksHint"), " ",
        h("a", { href: "/editor" }, t("editor.link")))));
  }
  const ataxxBox = h("div", { class: "game-fields", dataset: { game: "ataxx" } }, ataxxFields);
  fields.push(ataxxBox);

  // Awele's start: the usual four seeds a pit, or a position typed as Aalina text.
  const aweleStart = select(`${p}-awele-start`, [
    ["standard", t("awele.startStandard")], ["custom", t("awele.startCustom")],
  ], "standard");
  const position = h("input", {
    id: `${p}-position`, name: `${p}-position`, type: "text", autocomplete: "off", spellcheck: "false",
    placeholder: "4-4-4-4-4-4-4-4-4-4-4-4-0-0-S", maxlength: 60, "aria-label": t("awele.positionLabel"),
  });
  const syncPosition = () => {
    position.hidden = aweleStart.value !== "custom";
  };
  aweleStart.addEventListener("change", () => {
    syncPosition();
    if (!position.hidden) position.focus();
  });
  syncPosition();
  const aweleBox = h("div", { class: "game-fields", dataset: { game: "awele" } },
    h("div", { class: "field" }, h("label", { for: aweleStart.id }, t("settings.start")), aweleStart, position,
      h("small", { class: "hint" }, t("awele.positionHint"))));
  if (board && games.some((g) => g.id === "awele")) fields.push(aweleBox);

  const clockChoices = [["none", t("settings.noClock")],
    ...(options.clocks || []).map((c) => [`${c.base}+${c.increment}`, clockText(c)])];
  const clock = select(`${p}-clock`, clockChoices, d.clock);
  fields.push(field(t("settings.clock"), clock));

  let rated = null;
  if (cfg.rated) {
    rated = h("input", { type: "checkbox", id: `${p}-rated`, name: `${p}-rated` });
    fields.push(h("div", { class: "field check" }, rated, h("label", { for: rated.id }, t("settings.rated"))));
  }

  /** The game's own choices: its rule sets, levels and side names; the other game's fields hidden. */
  let firstDraw = true;
  const syncGame = () => {
    const g = current();
    const awele = g.id === "awele";
    fillSelect(rules, g.rulesets.map((r) => [r.name, r.name]),
      firstDraw && d.rules ? d.rules : g.default_rules || g.rulesets[0].name);
    if (level) {
      fillSelect(level, g.levels.map((l) => [l, t(`level.${l}`)]),
        firstDraw && d.level ? d.level : g.default_level || (awele ? "greedy" : "simple"));
    }
    fillSelect(color, [...sideChoices(g.id), ["random", t("settings.colorRandom")]], color.value || d.color);
    rulesLink.href = awele ? "/awele/rules#rulesets" : "/rules#rulesets";
    ataxxBox.hidden = awele;
    aweleBox.hidden = !awele;
    describe();
    firstDraw = false;
  };
  game.addEventListener("change", syncGame);
  syncGame();

  const read = () => {
    const body = { rules: rules.value, color: color.value };
    const awele = game.value === "awele";
    if (games.length > 1) body.game = game.value;
    if (level) body.level = level.value;
    if (board && !awele) {
      if (blocksMode.value === "random") body.blocks = "random";
      else if (blocksMode.value === "code") body.blocks = blocksCode.value.trim() || null;
      else body.blocks = null;
      if (start.value !== "standard") body.start = start.value;
    }
    if (awele && aweleStart.value === "custom") {
      body.start = "custom";
      body.position = position.value.trim();
    }
    if (clock.value === "none") body.clock = null;
    else {
      const [base, increment] = clock.value.split("+").map(Number);
      body.clock = { base, increment };
    }
    if (rated) body.rated = rated.checked;
    return body;
  };
  return { el: h("div", { class: "settings" }, fields), read, game: () => game.value };
}

/**
 * The two sides as <select> choices: in Ataxx named by the colours the player
 * chose ("Red (moves first)"), in Awele South and North.
 */
export function sideChoices(game = "ataxx") {
  if (game === "awele") return [["x", t("settings.colorX", { color: t("awele.side.x") })], ["o", t("awele.side.o")]];
  return [["x", t("settings.colorX", { color: colorLabel("x") })], ["o", colorLabel("o")]];
}

/** The side a seek's or invitation's sender plays: a colour (South or North in Awele), or "Random". */
export function sideText(color, game = "ataxx") {
  if (color !== "x" && color !== "o") return t("settings.seekColor.random");
  return game === "awele" ? t(`awele.side.${color}`) : colorLabel(color);
}

/** One line describing a seek's or invitation's settings, the game named first. */
export function settingsSummary(o) {
  const game = o.kind || "ataxx";
  if (game === "awele") {
    const parts = [t("games.awele"), o.rules, clockText(o.clock)];
    if (o.start === "custom") parts.push(`${t("awele.startFrom")} ${o.position || ""}`.trim());
    parts.push(o.rated ? t("settings.ratedShort") : t("settings.casual"));
    return parts.join(" · ");
  }
  const parts = [t("games.ataxx"), o.rules, `${t("settings.blocks")}: ${blocksText(o.blocks)}`, clockText(o.clock)];
  if (o.start && o.start !== "standard") parts.push(t(`settings.start.${o.start}`));
  parts.push(o.rated ? t("settings.ratedShort") : t("settings.casual"));
  return parts.join(" · ");
}
