// movelist.js — the list of a game's moves, numbered in pairs, passes marked.
//
// Used by the live game (read-only, newest highlighted) and by the replay
// viewer (every move is a button that jumps to the position after it). An
// Awele move that captured says how many seeds ("C ×3").

import { h } from "./dom.js";
import { t } from "./i18n.js";

/**
 * @param {string[]} moves  move texts ("b2", "a1a3", "0000")
 * @param {object} opts
 * @param {"x"|"o"} [opts.startMover]  who made the first move (x unless the position said otherwise)
 * @param {number} [opts.current]  number of moves shown on the board (highlights move current-1)
 * @param {(n: number) => void} [opts.onSelect]  makes each move a button going to the position after it
 * @param {(c: string) => string} [opts.sideName]  a side's name (Awele: South and North; else the colour)
 * @param {string} [opts.game]  "awele" marks the sides as Awele's (not the players' piece colours)
 * @param {Array<number|undefined>} [opts.captured]  Awele: the seeds move i captured (unknown: undefined)
 */
export function renderMoveList(moves, { startMover = "x", current = moves.length, onSelect = null,
  sideName = (c) => t(`color.${c}`), game = "ataxx", captured = [] } = {}) {
  if (!moves.length) return h("p", { class: "empty", id: "move-list" }, t("moves.none"));
  const other = { x: "o", o: "x" };
  const items = moves.map((move, i) => {
    const mover = i % 2 === 0 ? startMover : other[startMover];
    const text = move === "0000" ? t("moves.pass") : move;
    const seeds = captured[i] || 0;
    const label = seeds
      ? t("moves.labelCapture", { n: i + 1, color: sideName(mover), move: text, seeds })
      : t("moves.label", { n: i + 1, color: sideName(mover), move: text });
    const attrs = { class: ["ply", mover, move === "0000" ? "pass" : "", i === current - 1 ? "current" : ""],
      dataset: seeds ? { ply: String(i), captured: String(seeds) } : { ply: String(i) } };
    const shown = [text, seeds ? h("span", { class: "capture", "aria-hidden": "true" }, ` ×${seeds}`) : null];
    const content = onSelect
      ? h("button", { type: "button", "aria-label": label, "aria-current": i === current - 1 ? "step" : null },
        shown)
      : h("span", { "aria-label": label }, shown);
    if (onSelect) content.addEventListener("click", () => onSelect(i + 1));
    return h("li", attrs, h("span", { class: "ply-no", "aria-hidden": "true" }, `${i + 1}.`), content);
  });
  const list = h("ol", { class: ["move-list", game === "awele" ? "awele" : ""], id: "move-list", aria: { label: t("game.moves") } }, items);
  requestAnimationFrame(() => {
    const cur = list.querySelector(".current");
    // Scroll the list itself (never the page) so that the current move shows.
    if (cur && list.scrollHeight > list.clientHeight) {
      list.scrollTop = cur.offsetTop - list.offsetTop - list.clientHeight / 2;
    }
  });
  return list;
}
