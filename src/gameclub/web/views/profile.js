// views/profile.js — a player's page (/player/{name}): ratings, statistics,
// rating history plot and game history (each game opens in the replay viewer).
// Each game has its own rating: both are shown at the top; the statistics and
// the plot are one game's (a tab each, `?game=awele`), the history lists the
// games of both with a filter.

import { get } from "../api.js";
import { formatDate, h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { ratingPlot } from "../plot.js";
import { errorText } from "../ui.js";
import { gameName, playerName, resultText, sideName } from "./game.js";

const GAMES = ["ataxx", "awele"];

const PAGE = 20;

function tally(row) {
  const total = row.win + row.loss + row.draw;
  return [h("td", {}, String(row.win)), h("td", {}, String(row.loss)), h("td", {}, String(row.draw)),
    h("td", {}, total ? `${Math.round((100 * (row.win + row.draw / 2)) / total)}%` : "–")];
}

function statsTable(id, caption, rows) {
  return h("table", { class: "list stats", id },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, ""),
      h("th", { scope: "col" }, t("stats.win")),
      h("th", { scope: "col" }, t("stats.loss")),
      h("th", { scope: "col" }, t("stats.draw")),
      h("th", { scope: "col" }, t("stats.score")))),
    h("tbody", {}, rows.map(([label, row]) => h("tr", {}, h("th", { scope: "row" }, label), tally(row)))));
}

/** Results by board (Blocs-Config) or rule set: all games, then against the computer and people. */
function splitTable(id, caption, rows) {
  const wld = (r) => `${r.win}–${r.loss}–${r.draw}`;
  // Seven columns: on a phone the table scrolls within its box, not the page.
  return h("div", { class: "table-scroll" }, h("table", { class: "list stats", id },
    h("caption", {}, caption),
    h("thead", {}, h("tr", {},
      h("th", { scope: "col" }, ""),
      h("th", { scope: "col" }, t("stats.win")),
      h("th", { scope: "col" }, t("stats.loss")),
      h("th", { scope: "col" }, t("stats.draw")),
      h("th", { scope: "col" }, t("stats.score")),
      h("th", { scope: "col" }, t("stats.vsComputer")),
      h("th", { scope: "col" }, t("stats.vsPeople")))),
    h("tbody", {}, rows.map(([label, key, row]) => h("tr", { dataset: { key } },
      h("th", { scope: "row" }, label), tally(row),
      h("td", { class: "split-ai" }, wld(row.ai)), h("td", { class: "split-people" }, wld(row.people)))))));
}

/** The outcome of ``game`` for the player called ``name``: "win", "loss", "draw" or "". */
function outcomeFor(game, name) {
  const r = game.result;
  if (!r || !r.reason || r.reason === "aborted") return "";
  const mine = game.players.x && game.players.x.name === name ? "x" : "o";
  if (!r.winner) return "draw";
  return r.winner === mine ? "win" : "loss";
}

export function profileView(main, { name }) {
  const game = new URLSearchParams(location.search).get("game") === "awele" ? "awele" : "ataxx";
  const head = h("h1", { tabindex: -1 }, name);
  const ratingsBox = h("div", { id: "profile-ratings" });
  const tabs = h("nav", { class: "tabs", id: "profile-tabs", "aria-label": t("settings.game") },
    GAMES.map((g) => h("a", {
      href: `/player/${encodeURIComponent(name)}${g === "ataxx" ? "" : `?game=${g}`}`, class: "button small",
      id: `profile-${g}`, "aria-current": g === game ? "page" : null, dataset: { game: g },
    }, gameName(g))));
  const info = h("div");
  const plotBox = h("section", { class: "panel" });
  const filter = h("select", { id: "games-filter", name: "games-filter" },
    h("option", { value: "" }, t("games.all")),
    GAMES.map((g) => h("option", { value: g }, gameName(g))));
  const gamesBox = h("div");
  mount(main, head, ratingsBox, tabs, info, plotBox,
    h("section", { class: "panel", id: "game-history" },
      h("div", { class: "field inline" }, h("label", { for: filter.id }, t("lobby.filter")), filter), gamesBox));
  let offset = 0;
  const enc = encodeURIComponent(name);
  filter.addEventListener("change", () => {
    offset = 0;
    drawGames();
  });

  get(`/api/users/${enc}?game=${game}`).then(({ user, stats, ratings }) => {
    // Both games' ratings (a server without per-game ratings: the one rating, Ataxx's).
    const all = ratings || { ataxx: user };
    mount(ratingsBox, h("ul", { class: "plain ratings-line" }, GAMES.filter((g) => all[g]).map((g) => h("li",
      { dataset: { game: g }, class: "profile-rating" }, h("strong", {}, gameName(g)), " ",
      user.guest ? t("profile.guestShort")
        : all[g].rated_games ? t("profile.rating", { rating: all[g].rating_text, games: all[g].rated_games })
          : t("profile.unrated")))));
    const ai = Object.entries(stats.ai || {}).map(([level, row]) => [t(`level.${level}`), row]);
    const opp = (stats.opponents || []).map((row) => [
      h("a", { href: `/player/${encodeURIComponent(row.name)}` }, row.name), row]);
    mount(info,
      h("p", { class: "profile-line" },
        user.guest ? t("profile.guest") : gameName(game),
        user.created_at ? ` · ${t("profile.since", { date: new Date(user.created_at).toLocaleDateString() })}` : ""),
      h("section", { class: "panel stats-grid" },
        statsTable("stats-overall", t("stats.overall"), [[t("stats.all"), stats.overall]]),
        ai.length ? statsTable("stats-ai", t("stats.ai"), ai) : null,
        opp.length ? statsTable("stats-opponents", t("stats.opponents"), opp) : null),
      // Boards (Blocs-Config) are Ataxx's; Awele's results go by rule set only.
      game === "awele" && Object.keys(stats.rules || {}).length
        ? h("section", { class: "panel" }, splitTable("stats-rules", t("stats.rules"),
          Object.entries(stats.rules).map(([name, row]) => [name, name, row])))
        : null,
      game !== "awele" && (stats.boards || []).length
        ? h("section", { class: "panel" },
          splitTable("stats-boards", t("stats.boards"), stats.boards.map((row) => [
            h("a", { href: `/editor?blocks=${encodeURIComponent(row.blocks)}` },
              row.blocks === "0" ? t("settings.noBlocks") : row.blocks), row.blocks, row])),
          h("p", { class: "hint" }, t("stats.boardsHint")),
          splitTable("stats-rules", t("stats.rules"),
            Object.entries(stats.rules || {}).map(([name, row]) => [name, name, row])))
        : null);
  }, (err) => mount(info, h("p", { class: "form-error" }, errorText(err))));

  get(`/api/users/${enc}/ratings?game=${game}`).then(({ history }) => {
    mount(plotBox, h("h2", {}, t("profile.ratingHistory")), ratingPlot(history));
  }, () => mount(plotBox));

  const drawGames = async () => {
    let data;
    try {
      const only = filter.value ? `&game=${filter.value}` : "";
      data = await get(`/api/users/${enc}/games?offset=${offset}&limit=${PAGE}${only}`);
    } catch (err) {
      mount(gamesBox, h("p", { class: "form-error" }, errorText(err)));
      return;
    }
    // The sides' column headings: the games listed name them (Red / South when both are).
    const heading = (c) => filter.value ? sideName(c, filter.value)
      : `${sideName(c, "ataxx")} / ${sideName(c, "awele")}`;
    const rows = data.games.map((g) => {
      const outcome = outcomeFor(g, name);
      const kind = g.kind || "ataxx";
      return h("tr", { dataset: { game: g.id, kind } },
        h("td", { dataset: { label: t("profile.date") } }, formatDate(g.created_at)),
        h("td", { class: "game-cell", dataset: { label: t("lobby.game") } }, gameName(kind)),
        h("td", { dataset: { label: sideName("x", kind) } }, playerName(g.players.x)),
        h("td", { dataset: { label: sideName("o", kind) } }, playerName(g.players.o)),
        h("td", { dataset: { label: t("watch.settings") } }, g.rules + (g.rated ? ` · ${t("settings.ratedShort")}` : "")),
        h("td", { class: `outcome ${outcome} wide`, dataset: { label: t("profile.result") } }, outcome ? t(`stats.${outcome}`) : "",
          g.result && g.result.reason ? h("small", {}, " ", resultText(g.result, kind)) : t("profile.inProgress")),
        h("td", { dataset: { label: t("watch.moves") } }, String(g.plies)),
        h("td", { class: "actions" }, h("a", { class: "button", href: g.result && g.result.reason ? `/replay/${g.id}` : `/game/${g.id}` },
          g.result && g.result.reason ? t("profile.replay") : t("profile.open"))));
    });
    const prev = h("button", { type: "button", disabled: offset === 0 }, t("profile.newer"));
    const next = h("button", { type: "button", disabled: offset + PAGE >= data.total }, t("profile.older"));
    prev.addEventListener("click", () => {
      offset = Math.max(0, offset - PAGE);
      drawGames();
    });
    next.addEventListener("click", () => {
      offset += PAGE;
      drawGames();
    });
    mount(gamesBox, h("h2", {}, t("profile.games", { n: data.total })),
      data.games.length
        ? h("table", { class: "list cards", id: "games-table" },
          h("thead", {}, h("tr", {},
            h("th", { scope: "col" }, t("profile.date")),
            h("th", { scope: "col" }, t("lobby.game")),
            h("th", { scope: "col" }, heading("x")),
            h("th", { scope: "col" }, heading("o")),
            h("th", { scope: "col" }, t("watch.settings")),
            h("th", { scope: "col" }, t("profile.result")),
            h("th", { scope: "col" }, t("watch.moves")),
            h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("lobby.actions"))))),
          h("tbody", {}, rows))
        : h("p", { class: "empty" }, t("profile.noGames")),
      data.total > PAGE ? h("div", { class: "buttons" }, prev, next) : null);
  };
  drawGames();
}
