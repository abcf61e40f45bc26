// views/leaderboard.js — accounts with rated games, best first (/leaderboard?game=awele).
//
// One table per game (each game has its own rating): a tab for each, Ataxx's first.

import { get } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { errorText } from "../ui.js";
import { gameName } from "./game.js";

const GAMES = ["ataxx", "awele"];

export function leaderboardView(main) {
  const game = new URLSearchParams(location.search).get("game") === "awele" ? "awele" : "ataxx";
  const box = h("div", {}, h("p", {}, t("common.loading")));
  const tabs = h("nav", { class: "tabs", id: "leaderboard-tabs", "aria-label": t("settings.game") },
    GAMES.map((g) => h("a", {
      href: g === "ataxx" ? "/leaderboard" : `/leaderboard?game=${g}`, class: "button small",
      id: `leaderboard-${g}`, "aria-current": g === game ? "page" : null, dataset: { game: g },
    }, gameName(g))));
  mount(main, h("h1", { tabindex: -1 }, t("leaderboard.title")), tabs,
    h("p", {}, t("leaderboard.intro")), h("h2", { id: "leaderboard-game" }, gameName(game)), box);
  get(`/api/leaderboard?game=${game}`).then(({ players }) => {
    if (!players.length) {
      mount(box, h("p", { class: "empty" }, t("leaderboard.none")));
      return;
    }
    mount(box, h("table", { class: "list", id: "leaderboard", dataset: { game } },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, "#"),
        h("th", { scope: "col" }, t("leaderboard.player")),
        h("th", { scope: "col" }, t("leaderboard.rating")),
        h("th", { scope: "col" }, t("leaderboard.games")))),
      h("tbody", {}, players.map((p, i) => h("tr", {},
        h("td", {}, String(i + 1)),
        h("td", {}, h("a", { href: `/player/${encodeURIComponent(p.name)}` }, p.name)),
        h("td", { title: `RD ${p.rd}` }, p.rating_text),
        h("td", {}, String(p.rated_games)))))));
  }, (err) => mount(box, h("p", { class: "form-error" }, errorText(err))));
}
