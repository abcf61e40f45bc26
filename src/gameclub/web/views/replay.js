// views/replay.js — step through a recorded game (/replay/{id}).
//
// GET /api/games/{id} gives every position (`positions[i]` after i moves);
// the viewer only shows them. First / back / forward / last buttons, a
// slider, the move list (each move a button) and the keys ←, →, Home, End.
// The squares that changed colour between two positions are the flips.

import { tablePanel } from "../analysis.js";
import { get } from "../api.js";
import { AweleBoard } from "../awele-board.js";
import { Board } from "../board.js";
import { formatDate, h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { renderMoveList } from "../movelist.js";
import { setPageGames } from "../pagegame.js";
import { announce, errorText } from "../ui.js";
import { gameName, playerName, resultText, sideName } from "./game.js";

function flipsBetween(before, after) {
  const flipped = [];
  const height = after.length;
  after.forEach((row, r) => {
    for (let f = 0; f < row.length; f++) {
      const a = before[r][f];
      const b = row[f];
      if ((a === "x" && b === "o") || (a === "o" && b === "x")) {
        flipped.push(`${"abcdefghijklmnopqrstuvwxyz"[f]}${height - r}`);
      }
    }
  });
  return flipped;
}

export function replayView(main, { id }) {
  mount(main, h("h1", { tabindex: -1 }, t("replay.title")), h("p", {}, t("common.loading")));
  let cleanup = null;
  let closed = false;
  get(`/api/games/${encodeURIComponent(id)}`).then((game) => {
    if (!closed) cleanup = drawReplay(main, game, { id });
  }, (err) => {
    mount(main, h("h1", { tabindex: -1 }, t("replay.title")), h("p", { class: "form-error" }, errorText(err)));
  });

  return () => {
    closed = true;
    if (cleanup) cleanup();
  };
}

/**
 * The viewer of a recorded game: a game of the club (GET /api/games/{id}) or a
 * loaded record (POST /api/records). Returns its cleanup.
 * @param {object} opts  {id: the club's game id or null, head: nodes under the title,
 *   aside: nodes for the side column, onPly: (ply) => void, startPly}
 */
export function drawReplay(main, game, opts = {}) {
  const id = opts.id || null;
  {
    const awele = game.kind === "awele";
    const side = (c) => sideName(c, game.kind);
    const total = game.moves.length;
    setPageGames([game.kind || "ataxx"]);
    // Awele: the seeds each move captured (positions[i + 1] is the position after move i).
    const captured = awele
      ? game.moves.map((_, i) => {
        const last = game.positions[i + 1] && game.positions[i + 1].last;
        return last && typeof last.seeds === "number" ? last.seeds : 0;
      })
      : [];
    const startMover = awele
      ? (game.start_position || "").endsWith("-N") ? "o" : "x"
      : game.start_fen.split(" ")[1] === "o" ? "o" : "x";
    let ply = opts.startPly !== undefined ? Math.min(total, opts.startPly) : total;
    const board = awele
      ? new AweleBoard({ label: t("replay.boardLabel") })
      : new Board({ width: game.width, height: game.height, label: t("replay.boardLabel") });
    const position = h("p", { class: "replay-position", id: "replay-position", aria: { live: "polite" } });
    const counts = h("span", { class: "counts-line", id: "replay-counts" });
    const flip = h("button", { type: "button", id: "flip-board", class: "small", "aria-pressed": "false",
      title: t("game.flipHint") }, t("game.flip"));
    flip.addEventListener("click", () => {
      board.setFlipped(!board.flipped);
      flip.setAttribute("aria-pressed", String(board.flipped));
    });
    const slider = h("input", { type: "range", min: 0, max: total, value: ply, id: "replay-slider",
      "aria-label": t("replay.slider") });
    const btn = (label, aria, target) => {
      const b = h("button", { type: "button", "aria-label": aria }, label);
      b.addEventListener("click", () => go(target()));
      return b;
    };
    const moveBox = h("div", { class: "moves-box" });
    // The endgame tables' values, where a table covers the position (else hidden).
    const tables = tablePanel(game);
    const controls = h("div", { class: "buttons replay-controls" },
      btn("«", t("replay.first"), () => 0),
      btn("‹", t("replay.prev"), () => ply - 1),
      btn("›", t("replay.next"), () => ply + 1),
      btn("»", t("replay.last"), () => total));

    function go(n, speak = true) {
      ply = Math.max(0, Math.min(total, n));
      const pos = game.positions[ply];
      const move = ply > 0 ? game.moves[ply - 1] : null;
      if (awele) {
        board.update({ pits: pos.pits, stores: pos.stores, last: ply > 0 ? pos.last || { move } : null, animate: true });
      } else {
        const last = move ? { move, flipped: flipsBetween(game.positions[ply - 1].cells, pos.cells) } : null;
        board.update({ cells: pos.cells, last, animate: true });
      }
      slider.value = String(ply);
      const mover = ply > 0 ? ((ply - 1) % 2 === 0 ? startMover : startMover === "x" ? "o" : "x") : null;
      const moveVars = { n: ply, total, color: side(mover), move: move === "0000" ? t("moves.pass") : move };
      const text = ply === 0
        ? t("replay.start")
        : captured[ply - 1]
          ? t("replay.afterCapture", { ...moveVars, seeds: captured[ply - 1] })
          : t("replay.after", moveVars);
      position.textContent = text;
      const held = awele ? pos.stores : pos.counts;
      counts.textContent = t(awele ? "awele.storesLine" : "game.countsLine",
        { xName: side("x"), x: held.x, oName: side("o"), o: held.o });
      mount(moveBox, renderMoveList(game.moves, { startMover, current: ply, onSelect: (k) => go(k),
        sideName: awele ? side : undefined, game: game.kind, captured }));
      const shown = awele ? pos.position : pos.fen;
      const toMove = !shown ? null : awele ? (shown.endsWith("-N") ? "o" : "x")
        : shown.split(" ")[1] === "o" ? "o" : "x";
      tables.show(shown, toMove, side);
      if (opts.onPly) opts.onPly(ply);
      if (speak) announce(text);
    }
    slider.addEventListener("input", () => go(Number(slider.value), false));
    const onKey = (e) => {
      if (e.target.closest && e.target.closest("input, textarea, select")) return;
      const keys = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: total };
      if (e.key in keys) {
        go(keys[e.key]);
        e.preventDefault();
      }
    };
    document.addEventListener("keydown", onKey);

    const x = playerName(game.players.x);
    const o = playerName(game.players.o);
    const resultLine = typeof game.result === "string"
      ? game.result
      : game.result ? resultText(game.result, game.kind) : t("profile.inProgress");
    const recordText = game.record ? game.record.text : game.pgn;
    const settings = awele
      ? [gameName("awele"), game.rules, game.start === "custom" ? game.start_position : null]
      : [game.rules, game.blocks || t("settings.noBlocks")];
    const editorQuery = new URLSearchParams({ rules: game.rules });
    if (game.blocks) editorQuery.set("blocks", game.blocks);
    mount(main,
      h("section", { class: "game replay", id: "replay", dataset: { game: id || "" } },
        h("div", { class: "game-head" },
          h("h1", { tabindex: -1 }, t("game.title", { x, o })),
          h("p", { id: "replay-settings" }, [...settings, game.created_at ? formatDate(game.created_at) : null]
            .filter(Boolean).join(" · ")),
          // Awele: who played South and who North, marked as on the game page.
          awele ? h("p", { class: "replay-players", id: "replay-players" },
            ["x", "o"].map((c) => h("span", { dataset: { color: c } },
              h("span", { class: `side-marker ${c}` }, side(c)), " ", c === "x" ? x : o))) : null,
          h("p", { class: "replay-result", id: "replay-result" }, resultLine),
          opts.head || null),
        h("div", { class: "game-layout" },
          h("div", { class: "board-column" }, h("div", { class: "board-box" }, board.el),
            h("div", { class: "under-board" }, counts, flip), position, controls, slider),
          h("aside", { class: "side-column" },
            opts.aside || null,
            h("h2", {}, t("game.moves")), moveBox, tables.el,
            id && game.status === "started" ? h("a", { class: "button", href: `/game/${id}` }, t("replay.live")) : null,
            h("p", { class: "buttons" },
              id ? h("a", { class: "button small", id: "download-pgn",
                href: `/api/games/${encodeURIComponent(id)}/${awele ? "record" : "pgn"}`,
                download: `gameclub-${id}.${awele ? "ogn" : "pgn"}` }, t(awele ? "awele.downloadOgn" : "game.downloadPgn")) : null,
              !awele && game.width === 7 && game.height === 7
                ? h("a", { class: "button small", id: "open-editor", href: `/editor?${editorQuery}` }, t("replay.openEditor"))
                : null),
            id && !awele ? h("p", { class: "hint", id: "pgn-note" }, t("game.pgnNote")) : null,
            recordText ? h("details", {}, h("summary", {}, t(awele ? "awele.record" : "replay.pgn")),
              h("pre", { class: "pgn" }, recordText)) : null))));
    go(ply, false);
    return () => document.removeEventListener("keydown", onKey);
  }
}
