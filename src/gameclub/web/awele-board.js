// awele-board.js — the Awele board drawn in SVG: two rows of six pits, two stores, seeds.
//
// Like board.js it knows no rules: it draws what the server sends (`pits`,
// `stores`, `legal`, `last`) and turns a click, tap or key press on a legal pit
// into move text (the pit's letter). The twelve pits come in Aalina's order:
// South's A..F (South's row, left to right as South sees it), then North's
// a..f, continuing counter-clockwise, so North's a sits above South's F.
// South (x) is drawn at the bottom; `setFlipped(true)` turns the board round
// for North (o). Each pit shows its count and its seeds as small discs; South's
// store is at South's right hand, North's at North's right hand.
//
// A move is animated when `update()` is asked to: the played pit empties, its
// seeds drop one by one into the pits of `last.sown`, then the captured pits
// (`last.captured`) light up and empty into the mover's store. The animation
// is checked against the new position first (the old pits, the sowing and the
// capture must give the new pits), so a takeback or a resync is simply drawn.
// Nothing moves under `prefers-reduced-motion`.
//
// Test hooks: `.board.awele`, every pit `<g class="pit" data-pit="C">` with
// `data-seeds`, state classes `legal`, `last-move`, `sown`, `captured`,
// `cursor`; the stores `[data-store="x"]` / `[data-store="o"]` with `data-seeds`;
// `.board.can-play` while the viewer may move; `.board.animating` during a move.

import { s } from "./dom.js";
import { t } from "./i18n.js";
import { reducedMotion } from "./board.js";

export const PIT_LETTERS = "ABCDEFabcdef";
const CELL = 100; // one pit's square
const STORE = 90; // a store's width
const MARGIN = 30; // room for the pit letters above and below
const PIT_R = 43;
/** Longest sowing (ms): a big pit's seeds drop faster, so that no move takes long to see. */
const SOW_TOTAL_MS = 1100;
const SOW_STEP_MS = 110;
const CAPTURE_MS = 380;

/** The side owning pit ``index`` (0..11): x (South) for A..F, o (North) for a..f. */
export function pitSide(index) {
  return index < 6 ? "x" : "o";
}

/**
 * Where pit ``index`` is drawn: column 0..5 from the left and row 0 (top) or 1
 * (bottom), as South sees the board; turned round for North.
 */
function pitPlace(index, flipped) {
  let col = index < 6 ? index : 11 - index;
  let row = index < 6 ? 1 : 0;
  if (flipped) {
    col = 5 - col;
    row = 1 - row;
  }
  return { col, row };
}

/**
 * The centres of ``n`` seeds in a circle of radius ``radius`` (a sunflower
 * spiral: even spacing for any count) and the disc radius that fits them.
 */
export function seedLayout(n, radius) {
  if (n <= 0) return { r: 0, points: [] };
  if (n === 1) return { r: Math.min(8, radius * 0.3), points: [{ x: 0, y: 0 }] };
  const spacing = radius / Math.sqrt(n + 0.5);
  const r = Math.max(1.6, Math.min(8, spacing * 0.48));
  const golden = Math.PI * (3 - Math.sqrt(5));
  const points = [];
  for (let k = 0; k < n; k++) {
    const d = spacing * Math.sqrt(k + 0.5);
    points.push({ x: d * Math.cos(k * golden), y: d * Math.sin(k * golden) });
  }
  return { r, points };
}

/** The seeds of a store: rows of discs filling a rectangle ``w`` x ``h`` from the bottom. */
function storeLayout(n, w, h) {
  if (n <= 0) return { r: 0, points: [] };
  const perRow = 5;
  const rows = Math.ceil(n / perRow);
  const step = Math.min(w / perRow, h / Math.max(rows, 8));
  const r = Math.max(1.8, step * 0.42);
  const points = [];
  for (let k = 0; k < n; k++) {
    const row = Math.floor(k / perRow);
    const col = k % perRow;
    points.push({ x: (col - (perRow - 1) / 2) * step, y: h / 2 - step / 2 - row * step });
  }
  return { r, points };
}

/** How long one seed takes to drop when ``n`` are sown (ms). */
function sowStep(n) {
  return Math.max(35, Math.min(SOW_STEP_MS, SOW_TOTAL_MS / Math.max(1, n)));
}

/** When the capture of ``last`` shows, from the start of its sowing (ms): 0 when nothing is animated. */
export function captureDelay(last) {
  if (!last || !Array.isArray(last.sown) || reducedMotion()) return 0;
  return sowStep(last.sown.length) * (last.sown.length + 1);
}

function samePosition(a, b) {
  return a.pits.length === b.pits.length && a.pits.every((n, i) => n === b.pits[i]) &&
    a.stores.x === b.stores.x && a.stores.o === b.stores.o;
}

/** Whether ``before`` + the sowing and capture of ``last`` gives ``after`` (else nothing is animated). */
export function sowingFits(before, after, last) {
  if (!before || before.length !== 12 || !after || !last || !Array.isArray(last.sown)) return false;
  const origin = PIT_LETTERS.indexOf(last.move);
  if (origin < 0 || before[origin] !== last.sown.length) return false;
  const pits = before.slice();
  pits[origin] = 0;
  for (const i of last.sown) pits[i] += 1;
  for (const i of last.captured || []) pits[i] = 0;
  return pits.every((n, i) => n === after[i]);
}

export class AweleBoard {
  /**
   * @param {object} opts
   * @param {(move: string) => void} [opts.onMove]  called with the pit's letter when the player plays
   * @param {string} [opts.label]  the board's accessible name
   * @param {(c: string) => string} [opts.sideName]  "South" / "North" for a side
   */
  constructor({ onMove = null, label = t("awele.board.label"), sideName = (c) => t(`awele.side.${c}`) } = {}) {
    this.kind = "awele";
    this.onMove = onMove;
    this.sideName = sideName;
    this.pits = [];
    this.stores = { x: 0, o: 0 };
    this.legal = [];
    this.canPlay = false;
    this.last = null;
    this.flipped = false;
    this.cursor = 0;
    this.timers = [];
    this.queued = null;
    this.shown = null; // {pits, stores} while a move is animated, else null

    const width = STORE * 2 + CELL * 6;
    const height = CELL * 2 + MARGIN * 2;
    this.el = s("svg", {
      class: "board awele",
      viewBox: `0 0 ${width} ${height}`,
      role: "grid",
      "aria-label": label,
      "aria-roledescription": t("awele.board.roledescription"),
    });
    this.el.append(s("rect", { class: "board-bg", x: 0, y: MARGIN - 8, width, height: CELL * 2 + 16, rx: 46 }));
    this.rowEls = [s("g", { role: "row" }), s("g", { role: "row" })];
    this.pitEls = [];
    for (let i = 0; i < 12; i++) {
      const hollow = s("circle", { class: "hollow", r: PIT_R });
      const seeds = s("g", { class: "seeds", "aria-hidden": "true" });
      const badge = s("g", { class: "count", "aria-hidden": "true" },
        s("rect", { x: -21, y: -15, width: 42, height: 30, rx: 15 }), s("text", { y: 8, "text-anchor": "middle" }));
      const letter = s("text", { class: "pit-letter", "text-anchor": "middle", "aria-hidden": "true" }, PIT_LETTERS[i]);
      const g = s("g", {
        class: `pit side-${pitSide(i)}`,
        role: "gridcell",
        tabindex: i === 0 ? 0 : -1,
        dataset: { pit: PIT_LETTERS[i], index: String(i) },
      }, hollow, seeds, badge);
      this.pitEls.push({ g, seeds, badge, text: badge.lastChild, letter });
    }
    this.letters = s("g", { class: "coords", "aria-hidden": "true" });
    this.storeEls = {};
    for (const side of ["x", "o"]) {
      const box = s("rect", { class: "store-bg", width: STORE - 20, height: CELL * 2 - 12, rx: 34 });
      const seeds = s("g", { class: "seeds", "aria-hidden": "true" });
      const text = s("text", { class: "store-count", "text-anchor": "middle" });
      const g = s("g", { class: `store side-${side}`, role: "img", dataset: { store: side } }, box, seeds, text);
      this.storeEls[side] = { g, seeds, text };
    }
    this.el.append(this.storeEls.o.g, this.storeEls.x.g, ...this.rowEls, this.letters);
    this.place();

    this.el.addEventListener("click", (e) => {
      const i = this.pitOf(e.target);
      if (i === null) return;
      this.moveCursor(i, false);
      this.activate(i);
    });
    this.el.addEventListener("keydown", (e) => this.onKey(e));
    this.el.addEventListener("focusin", (e) => {
      const i = this.pitOf(e.target);
      if (i !== null) this.moveCursor(i, false);
    });
  }

  /** The centre of pit ``index`` as drawn. */
  centre(index) {
    const { col, row } = pitPlace(index, this.flipped);
    return { x: STORE + col * CELL + CELL / 2, y: MARGIN + row * CELL + CELL / 2 };
  }

  /** Put the pits, letters and stores where the orientation wants them (rows in reading order too). */
  place() {
    const letters = [];
    for (let i = 0; i < 12; i++) {
      const { x, y } = this.centre(i);
      const pit = this.pitEls[i];
      pit.g.setAttribute("transform", `translate(${x} ${y})`);
      const bottom = pitPlace(i, this.flipped).row === 1;
      // The count sits on the pit's outer rim, the letter outside the board.
      pit.badge.setAttribute("transform", `translate(0 ${bottom ? PIT_R - 4 : -(PIT_R - 4)})`);
      // The seeds sit a little away from the count, so that it never hides them.
      pit.seeds.setAttribute("transform", `translate(0 ${bottom ? -6 : 6})`);
      letters.push(s("text", { x, y: bottom ? MARGIN * 2 + CELL * 2 - 6 : MARGIN - 12, "text-anchor": "middle" },
        PIT_LETTERS[i]));
    }
    this.letters.replaceChildren(...letters);
    for (let row = 0; row < 2; row++) {
      const inRow = [...Array(12).keys()].filter((i) => pitPlace(i, this.flipped).row === row)
        .sort((a, b) => pitPlace(a, this.flipped).col - pitPlace(b, this.flipped).col);
      this.rowEls[row].replaceChildren(...inRow.map((i) => this.pitEls[i].g));
    }
    // South's store at South's right: the right end when South is at the bottom.
    const right = STORE * 2 + CELL * 6 - STORE + 10;
    const left = 10;
    const place = { x: this.flipped ? left : right, o: this.flipped ? right : left };
    for (const side of ["x", "o"]) {
      // Each store's count is at the end of its owner's row: the bottom for the side drawn below.
      const below = this.flipped ? side === "o" : side === "x";
      this.storeEls[side].g.setAttribute("transform", `translate(${place[side]} ${MARGIN + 6})`);
      this.storeEls[side].text.setAttribute("x", String((STORE - 20) / 2));
      this.storeEls[side].text.setAttribute("y", String(below ? CELL * 2 - 30 : 40));
    }
  }

  /** Turn the board round (``true``: North at the bottom, as North sees it). */
  setFlipped(flipped) {
    flipped = Boolean(flipped);
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.finishAnimations();
    this.place();
    this.el.classList.toggle("flipped", flipped);
  }

  /**
   * Draw a position.
   * @param {object} pos
   * @param {number[]} pos.pits  the twelve counts, A..F then a..f
   * @param {{x: number, o: number}} pos.stores
   * @param {string[]} [pos.legal]  the letters the viewer may play now
   * @param {boolean} [pos.canPlay]
   * @param {object} [pos.last]  {move, by, sown, captured, seeds}
   * @param {boolean} [pos.animate]  sow ``last`` seed by seed from the pits drawn before
   */
  update({ pits, stores, legal = [], canPlay = false, last = null, animate = false }) {
    const args = { pits, stores, legal, canPlay, last, animate };
    if (this.timers.length) {
      // A move arrives while the last one is still being sown (the computer answers
      // at once): it is sown once the first has landed.
      if (animate) {
        this.queued = args;
        return;
      }
      // A redraw of the same position (whose turn, a move being sent) lets the sowing run on.
      const target = this.queued || this;
      if (samePosition(target, args)) {
        if (this.queued) this.queued = { ...args, animate: this.queued.animate, last: last || this.queued.last };
        else this.setPlayable(legal, canPlay, last);
        return;
      }
    }
    this.queued = null;
    const before = this.pits;
    const beforeStores = this.stores;
    this.stopAnimation();
    this.pits = pits.slice();
    this.stores = { ...stores };
    this.setPlayable(legal, canPlay, last);
    if (animate && !reducedMotion() && sowingFits(before, pits, last)) {
      this.animateMove(before, beforeStores, last);
    } else {
      this.drawCounts(this.pits, this.stores);
    }
  }

  setPlayable(legal, canPlay, last) {
    this.legal = canPlay ? legal.slice() : [];
    this.canPlay = canPlay;
    this.last = last;
    const sown = new Set(last && last.sown ? last.sown : []);
    const captured = new Set(last && last.captured ? last.captured : []);
    const played = last ? PIT_LETTERS.indexOf(last.move) : -1;
    this.pitEls.forEach((pit, i) => {
      pit.g.classList.toggle("legal", this.legal.includes(PIT_LETTERS[i]));
      pit.g.classList.toggle("last-move", i === played);
      pit.g.classList.toggle("sown", sown.has(i));
      pit.g.classList.toggle("captured", captured.has(i));
      pit.g.classList.toggle("cursor", i === this.cursor);
    });
    this.el.classList.toggle("can-play", canPlay);
    this.refreshLabels();
  }

  /** Counts, seeds and labels of ``pits`` and ``stores`` (the position, or a step of a sowing). */
  drawCounts(pits, stores) {
    pits.forEach((n, i) => this.drawPit(i, n));
    for (const side of ["x", "o"]) this.drawStore(side, stores[side] || 0);
    this.refreshLabels(pits, stores);
  }

  drawPit(i, n) {
    const pit = this.pitEls[i];
    const { r, points } = seedLayout(n, PIT_R - 15);
    pit.seeds.replaceChildren(...points.map((p) => s("circle", { class: "seed", cx: p.x, cy: p.y, r })));
    pit.text.textContent = String(n);
    pit.g.dataset.seeds = String(n);
    pit.g.classList.toggle("empty", n === 0);
  }

  drawStore(side, n) {
    const store = this.storeEls[side];
    const w = STORE - 20;
    const h = CELL * 2 - 12;
    const { r, points } = storeLayout(n, w - 14, h - 70);
    // The seeds fill the store from the end away from its count (the count is at the top for the side drawn above).
    const top = this.flipped ? side === "x" : side === "o";
    const cy = top ? h / 2 + 22 : h / 2 - 22;
    store.seeds.replaceChildren(...points.map((p) => s("circle", {
      class: "seed", cx: w / 2 + p.x, cy: cy + (top ? p.y : -p.y), r,
    })));
    store.text.textContent = String(n);
    store.g.dataset.seeds = String(n);
    store.g.setAttribute("aria-label", t("awele.board.store", { side: this.sideName(side), n }));
  }

  refreshLabels(pits = this.shown ? this.shown.pits : this.pits) {
    const played = this.last ? PIT_LETTERS.indexOf(this.last.move) : -1;
    const captured = new Set(this.last && this.last.captured ? this.last.captured : []);
    this.pitEls.forEach((pit, i) => {
      const parts = [PIT_LETTERS[i], t("awele.board.seeds", { n: pits[i] || 0 }), this.sideName(pitSide(i))];
      if (this.legal.includes(PIT_LETTERS[i])) parts.push(t("awele.board.canPlay"));
      if (i === played) parts.push(t("awele.board.lastMove"));
      if (captured.has(i)) parts.push(t("awele.board.captured"));
      pit.g.setAttribute("aria-label", parts.join(", "));
    });
  }

  /** The sowing of ``last`` from ``before``, seed by seed, then its capture. */
  animateMove(before, beforeStores, last) {
    const shown = { pits: before.slice(), stores: { ...beforeStores } };
    this.shown = shown;
    this.el.classList.add("animating");
    const origin = PIT_LETTERS.indexOf(last.move);
    const step = sowStep(last.sown.length);
    shown.pits[origin] = 0;
    this.drawCounts(shown.pits, shown.stores);
    const hand = s("circle", { class: "seed hand", r: 9, cx: this.centre(origin).x, cy: this.centre(origin).y });
    this.el.append(hand);
    this.hand = hand;
    last.sown.forEach((i, k) => {
      this.timers.push(setTimeout(() => {
        shown.pits[i] += 1;
        this.drawPit(i, shown.pits[i]);
        const { x, y } = this.centre(i);
        hand.setAttribute("cx", String(x));
        hand.setAttribute("cy", String(y));
        this.pitEls[i].g.classList.add("dropping");
        this.timers.push(setTimeout(() => this.pitEls[i].g.classList.remove("dropping"), step));
      }, step * (k + 1)));
    });
    const sownAt = step * (last.sown.length + 1);
    const captured = last.captured || [];
    if (captured.length) {
      this.timers.push(setTimeout(() => {
        hand.remove();
        for (const i of captured) this.pitEls[i].g.classList.add("taking");
      }, sownAt));
    }
    const end = captured.length ? sownAt + CAPTURE_MS : sownAt;
    this.timers.push(setTimeout(() => {
      this.timers = [];
      this.stopAnimation();
      const next = this.queued;
      this.queued = null;
      if (next) this.update(next);
    }, end));
  }

  /** Stop the sowing shown: the position as it is now. */
  stopAnimation() {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    if (this.hand) this.hand.remove();
    this.hand = null;
    for (const pit of this.pitEls) pit.g.classList.remove("dropping", "taking");
    this.el.classList.remove("animating");
    if (this.shown) {
      this.shown = null;
      this.drawCounts(this.pits, this.stores);
    }
  }

  /** End any animation at once, a move waiting for its turn included. */
  finishAnimations() {
    const next = this.queued;
    this.queued = null;
    this.stopAnimation();
    if (next) this.update({ ...next, animate: false });
  }

  pitOf(target) {
    const g = target && target.closest ? target.closest(".pit") : null;
    return g ? Number(g.dataset.index) : null;
  }

  /** A click, tap, Enter or Space on pit ``i``. */
  activate(i) {
    const letter = PIT_LETTERS[i];
    if (!this.canPlay || !this.legal.includes(letter)) return;
    this.finishAnimations();
    if (this.onMove) this.onMove(letter);
  }

  /** Nothing is selected on this board: Escape has nothing to cancel. */
  cancel() {}

  moveCursor(i, focus = true) {
    this.pitEls[this.cursor].g.setAttribute("tabindex", "-1");
    this.pitEls[this.cursor].g.classList.remove("cursor");
    this.cursor = i;
    this.pitEls[i].g.setAttribute("tabindex", "0");
    this.pitEls[i].g.classList.add("cursor");
    if (focus) this.pitEls[i].g.focus();
  }

  /** The arrows follow the board as drawn: left/right along a row, up/down to the other row. */
  onKey(e) {
    const { col, row } = pitPlace(this.cursor, this.flipped);
    const at = (c, r) => [...Array(12).keys()].find((i) => {
      const p = pitPlace(i, this.flipped);
      return p.col === c && p.row === r;
    });
    const moves = { ArrowLeft: [col - 1, row], ArrowRight: [col + 1, row], ArrowUp: [col, 0], ArrowDown: [col, 1],
      Home: [0, row], End: [5, row] };
    if (e.key in moves) {
      const [c, r] = moves[e.key];
      this.moveCursor(at(Math.max(0, Math.min(5, c)), r));
      e.preventDefault();
    } else if (e.key === "Enter" || e.key === " ") {
      this.activate(this.cursor);
      e.preventDefault();
    }
  }
}
