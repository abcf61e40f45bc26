// views/leaderboard.js — accounts with rated games, best first (/leaderboard).

import { get } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { errorText } from "../ui.js";

export function leaderboardView(main) {
  const box = h("div", {}, h("p", {}, t("common.loading")));
  mount(main, h("h1", { tabindex: -1 }, t("leaderboard.title")), h("p", {}, t("leaderboard.intro")), box);
  get("/api/leaderboard").then(({ players }) => {
    if (!players.length) {
      mount(box, h("p", { class: "empty" }, t("leaderboard.none")));
      return;
    }
    mount(box, h("table", { class: "list", id: "leaderboard" },
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
