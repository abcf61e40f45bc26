// analysis.js — the endgame tables' values beside a replayed position.
//
// GET /api/analysis gives, for a position that a table covers (a small Ataxx
// board without blocks, an Awele position with few seeds), the exact value for
// the side to move and the value of every move; elsewhere `table` is null and
// the panel stays hidden. The server needs no tables: without them nothing shows.

import { get } from "./api.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";

function valueText(value, kind) {
  if (kind === "awele") {
    const m = value.margin;
    return t("analysis.seedsLeft", { margin: m > 0 ? `+${m}` : String(m) });
  }
  if (value.result === "draw") return t("analysis.draw");
  const m = value.margin > 0 ? `+${value.margin}` : String(value.margin);
  return t(value.result === "win" ? "analysis.win" : "analysis.loss", { margin: m });
}

function moveText(move) {
  return move === "0000" ? t("moves.pass") : move;
}

/**
 * The panel and its `show(position, sideName)`; the answer to an older request is
 * dropped when a newer one was sent (the user steps through the moves quickly).
 * @param {object} game  {kind, rules, rule_options}
 */
export function tablePanel(game) {
  const kind = game.kind;
  const el = h("section", { class: "table-analysis", id: "table-analysis", hidden: true,
    aria: { live: "polite" } });
  let asked = 0;

  function draw(table, mover, side) {
    const line = [t("analysis.toMove", { color: side(mover), value: valueText(table.value, kind) })];
    if (table.distance) {
      line.push(t(kind === "awele" ? "analysis.distanceAwele" : "analysis.distanceAtaxx",
        { n: table.distance }));
    }
    const sorted = [...table.moves].sort((a, b) =>
      kind === "awele" ? b.value.margin - a.value.margin : rank(b.value) - rank(a.value));
    mount(el,
      h("h2", {}, t("analysis.title")),
      h("p", { id: "table-value" }, line.join(" · ")),
      table.exact ? null : h("p", { class: "hint", id: "table-limit" }, t("analysis.notExact")),
      h("ul", { class: "table-moves", id: "table-moves" },
        sorted.map((m) => h("li", { dataset: { move: m.move, best: String(m.move === table.best) } },
          h("span", { class: "table-move" }, moveText(m.move)), " ",
          h("span", { class: "table-move-value" }, valueText(m.value, kind)),
          m.move === table.best ? h("span", { class: "table-best" }, ` (${t("analysis.best")})`) : null,
          m.exact ? null : h("span", { class: "table-not-exact" }, " *")))));
    el.hidden = false;
  }

  function show(position, mover, side) {
    const n = ++asked;
    if (!position) {
      el.hidden = true;
      return;
    }
    const query = new URLSearchParams({ game: kind, rules: game.rules, position });
    if (game.rule_options) query.set("options", game.rule_options);
    get(`/api/analysis?${query}`).then((answer) => {
      if (n !== asked) return;
      if (answer.table) draw(answer.table, mover, side);
      else el.hidden = true;
    }, () => {
      if (n === asked) el.hidden = true;
    });
  }

  return { el, show };
}

// Ataxx values in order: win before draw before loss, then the margin.
function rank(value) {
  const step = { win: 1, draw: 0, loss: -1 }[value.result];
  return step * 64 + value.margin;
}
