// guide/illustration.js — one small live board of the rules page.
//
// `illustration("cloneJump")` builds the scene of guide/scenes.js with the
// real SVG board (board.js: same look, same hints, keyboard, touch and aria
// labels as in a game) and plays it with guide/mini.js: select a piece, its
// clone and jump destinations appear; play one and the flips are animated,
// a caption (a polite live region) says what happened, and in the scenes
// with an answer the other side replies after a short pause. "Reset" sets
// the scene up again. `destroy()` cancels a pending reply.
//
// Test hooks: the <figure> has `data-scene` and `data-state` ("your-turn",
// "waiting", "over"); `.guide-caption`, `.guide-score`, `.guide-reset`.

import { Board } from "../board.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import { DEFAULT_COLORS, colorLabel, pieceLabel } from "../prefs.js";
import * as mini from "./mini.js";
import { SCENES } from "./scenes.js";

/** How long the other side "thinks" before it answers, in milliseconds. */
export const REPLY_DELAY_MS = 700;

/** The guide's texts speak of Red and Blue, so its boards keep those colours (style.css). */
function colorName(side) {
  return colorLabel(side, DEFAULT_COLORS);
}

function describe(side, result) {
  const color = colorName(side);
  const move = result.kind === "clone"
    ? t("guide.cap.clone", { color, to: result.to })
    : t("guide.cap.jump", { color, from: result.from, to: result.to });
  const flips = result.flipped.length
    ? t("guide.cap.flips", { n: result.flipped.length })
    : t("guide.cap.noFlips");
  return `${move} ${flips}`;
}

function overText({ reason, winner }) {
  const result = winner ? t("result.wins", { color: colorName(winner) }) : t("result.draw");
  return t("guide.cap.over", { reason: t(`reason.${reason}`), result });
}

/** The scene ``id`` of SCENES as a <figure>: {el, destroy}. */
export function illustration(id) {
  const scene = SCENES[id];
  const rules = scene.rules || "ataxx";
  const width = scene.rows[0].length;
  const height = scene.rows.length;
  const title = t(`guide.scene.${id}.title`);

  let rows = scene.rows;
  let toMove = scene.you;
  let over = false;
  let timer = null;
  let lines = [];

  const board = new Board({ width, height, label: t("guide.boardLabel", { title }),
    pieceName: (c) => pieceLabel(c, DEFAULT_COLORS), onMove: (move) => playYours(move) });
  const caption = h("p", { class: "guide-caption", role: "status", "aria-atomic": "true" });
  const score = h("p", { class: "guide-score" });
  const reset = h("button", { type: "button", class: "small guide-reset" }, t("guide.reset"));
  const el = h("figure", { class: "guide-scene", dataset: { scene: id } },
    h("div", { class: "guide-board board-box" }, board.el),
    h("figcaption", {},
      h("p", { class: "guide-task" }, `${t("guide.you", { color: colorName(scene.you) })} ${t(`guide.scene.${id}.task`)}`),
      caption, score, reset));

  function draw(last = null) {
    const canPlay = !over && !timer && toMove === scene.you;
    board.update({
      cells: rows,
      dests: canPlay ? mini.destinations(rows, scene.you) : {},
      canPlay,
      last,
      animate: Boolean(last),
    });
    const n = mini.count(rows);
    score.textContent = t("game.countsLine", { xName: colorName("x"), x: n.x, oName: colorName("o"), o: n.o });
    el.dataset.state = over ? "over" : canPlay ? "your-turn" : "waiting";
    caption.textContent = lines.join(" ");
  }

  /** ``side`` has played ``result``: whose turn now (passes included), or the end. */
  function afterMove(side, result) {
    rows = result.rows;
    lines.push(describe(side, result));
    let next = mini.other(side);
    let now = mini.turn(rows, next, rules);
    if (now.state === "pass") {
      lines.push(t("guide.cap.pass", { color: colorName(next), other: colorName(side) }));
      next = side;
      now = mini.turn(rows, next, rules);
    }
    if (now.state === "over") {
      if (now.reason === "stuck") lines.push(t("guide.cap.stuck", { color: colorName(next) }));
      lines.push(overText(now));
      over = true;
    }
    toMove = next;
    if (scene.note) lines.push(t(scene.note));
    if (!over && !scene.reply) {
      // A one-move scene: it stops here.
      over = true;
      lines.push(t("guide.cap.again"));
    }
    if (!over && toMove !== scene.you) {
      timer = setTimeout(playTheirs, REPLY_DELAY_MS);
    } else if (!over) {
      lines.push(t("game.yourTurn"));
    }
    draw({ move: result.kind === "clone" ? result.to : result.from + result.to, flipped: result.flipped });
  }

  function playYours(move) {
    if (over || timer || toMove !== scene.you) return;
    lines = [];
    afterMove(scene.you, mini.play(rows, scene.you, move));
  }

  function playTheirs() {
    timer = null;
    const side = mini.other(scene.you);
    const move = mini.reply(rows, side);
    if (lines.length && lines[lines.length - 1] === t("game.yourTurn")) lines.pop();
    afterMove(side, mini.play(rows, side, move));
  }

  function restart() {
    clearTimeout(timer);
    timer = null;
    rows = scene.rows;
    toMove = scene.you;
    over = false;
    lines = [];
    draw();
  }

  reset.addEventListener("click", restart);
  restart();
  return { el, destroy: () => clearTimeout(timer) };
}
