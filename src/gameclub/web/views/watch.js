// views/watch.js — the games being played now (/watch), to open as a spectator.
//
// GET /api/games/live, refreshed every few seconds while the page is shown.
// Opening a game you do not play in shows it read-only with its spectator count.

import { get } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { errorText } from "../ui.js";
import { gameName, playerName, sideName } from "./game.js";
import { clockText } from "./settings.js";

const REFRESH_MS = 4000;

export function watchView(main) {
  const box = h("div", { id: "live-games" }, h("p", {}, t("common.loading")));
  mount(main, h("h1", { tabindex: -1 }, t("watch.title")), h("p", {}, t("watch.intro")), box);

  const draw = async () => {
    let games;
    try {
      games = (await get("/api/games/live")).games;
    } catch (err) {
      mount(box, h("p", { class: "form-error" }, errorText(err)));
      return;
    }
    if (!games.length) {
      mount(box, h("p", { class: "empty" }, t("watch.none")), h("a", { href: "/", class: "button" }, t("home.playComputer")));
      return;
    }
    // Each side's column is named by Ataxx's colours; an Awele row says South and North in its cells.
    const xName = sideName("x", "ataxx");
    const oName = sideName("o", "ataxx");
    const named = (g, c) => g.kind === "awele"
      ? `${playerName(g.players[c])} (${sideName(c, "awele")})`
      : playerName(g.players[c]);
    const score = (g) => {
      const n = g.kind === "awele" ? g.stores : g.counts;
      return n ? `${n.x}–${n.o}` : "";
    };
    // On a phone each row is drawn as a card (style.css): the cells carry their column's name.
    mount(box, h("table", { class: "list cards", id: "live-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("lobby.game")),
        h("th", { scope: "col" }, xName),
        h("th", { scope: "col" }, oName),
        h("th", { scope: "col" }, t("watch.settings")),
        h("th", { scope: "col" }, t("watch.moves")),
        h("th", { scope: "col" }, t("watch.score")),
        h("th", { scope: "col" }, t("watch.spectators")),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("lobby.actions"))))),
      h("tbody", {}, games.map((g) => h("tr", { dataset: { game: g.id, kind: g.kind || "ataxx" } },
        h("td", { class: "game-cell", dataset: { label: t("lobby.game") } }, gameName(g.kind)),
        h("td", { dataset: { label: xName } }, named(g, "x")),
        h("td", { dataset: { label: oName } }, named(g, "o")),
        h("td", { class: "wide", dataset: { label: t("watch.settings") } },
          `${g.rules} · ${clockText(g.clock)}${g.rated ? ` · ${t("settings.ratedShort")}` : ""}`),
        h("td", { dataset: { label: t("watch.moves") } }, String(g.plies)),
        h("td", { dataset: { label: t("watch.score") } }, score(g)),
        h("td", { dataset: { label: t("watch.spectators") } }, String(g.spectators)),
        h("td", { class: "actions" }, h("a", { class: "button watch-link", href: `/game/${g.id}` }, t("watch.open"))))))));
  };
  draw();
  const timer = setInterval(draw, REFRESH_MS);
  return () => clearInterval(timer);
}
