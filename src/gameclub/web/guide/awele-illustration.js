// guide/awele-illustration.js — one small live Awele board of the Awele guide.
//
// `aweleIllustration("capture")` builds the scene of guide/awele-scenes.js
// with the real Awele board (awele-board.js: the same pits, sowing animation,
// keyboard and labels as in a game) and plays the reader's move with
// guide/awele-mini.js; a caption (a polite live region) says what was sown and
// captured. "Reset" sets the scene up again.
//
// Test hooks: the <figure> has `data-scene` and `data-state` ("your-turn",
// "over"); `.guide-caption`, `.guide-score`, `.guide-reset`.

import { AweleBoard } from "../awele-board.js";
import { h } from "../dom.js";
import { t } from "../i18n.js";
import * as mini from "./awele-mini.js";
import { AWELE_SCENES } from "./awele-scenes.js";

/** The scene ``id`` as a <figure>: {el, destroy}. */
export function aweleIllustration(id) {
  const scene = AWELE_SCENES[id];
  const title = t(`awele.scene.${id}.title`);
  let pits = scene.pits;
  let stores = scene.stores;
  let over = false;

  const board = new AweleBoard({ label: t("guide.boardLabel", { title }), onMove: (letter) => playYours(letter) });
  const caption = h("p", { class: "guide-caption", role: "status", "aria-atomic": "true" });
  const score = h("p", { class: "guide-score" });
  const reset = h("button", { type: "button", class: "small guide-reset" }, t("guide.reset"));
  const el = h("figure", { class: "guide-scene awele-scene", dataset: { scene: id } },
    h("div", { class: "guide-board board-box" }, board.el),
    h("figcaption", {},
      h("p", { class: "guide-task" }, `${t("awele.guide.you")} ${t(`awele.scene.${id}.task`)}`),
      caption, score, reset));

  function draw(last = null) {
    const canPlay = !over;
    board.update({ pits, stores, legal: canPlay ? mini.legal(pits, "x") : [], canPlay, last, animate: Boolean(last) });
    score.textContent = t("awele.storesLine", { xName: t("awele.side.x"), x: stores.x, oName: t("awele.side.o"), o: stores.o });
    el.dataset.state = over ? "over" : "your-turn";
  }

  function playYours(letter) {
    if (over) return;
    const result = mini.play(pits, stores, "x", letter);
    pits = result.pits;
    stores = result.stores;
    over = true; // one move a scene: Reset plays it again
    const lines = [t("awele.guide.sown", { pit: letter, n: result.sown.length })];
    lines.push(result.seeds ? t("awele.guide.captured", { n: result.seeds }) : t("awele.guide.noCapture"));
    if (result.over) {
      lines.push(result.over.winner ? t("result.wins", { color: t(`awele.side.${result.over.winner}`) }) : t("result.draw"));
    } else {
      lines.push(t("guide.cap.again"));
    }
    caption.textContent = lines.join(" ");
    draw({ move: letter, by: "x", sown: result.sown, captured: result.captured, seeds: result.seeds });
  }

  function restart() {
    pits = scene.pits;
    stores = scene.stores;
    over = false;
    caption.textContent = "";
    board.update({ pits, stores, legal: [], canPlay: false });
    draw();
  }

  reset.addEventListener("click", restart);
  restart();
  return { el, destroy: () => board.finishAnimations() };
}
