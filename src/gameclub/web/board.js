// board.js — the Ataxx board drawn in SVG: pieces, hints, input, accessibility.
//
// The board knows no rules. It draws what the server sends (`cells`, `dests`,
// `last`) and turns a player's pointing into move text:
//   * pointing at a piece (mouse) or selecting it (click, tap, Enter/Space)
//     shows its destinations — clones and jumps in different colours;
//   * a click on a destination of the selected piece plays it; a click on an
//     empty square that some piece can clone to plays that clone at once;
//   * arrow keys move a cursor (roving tabindex), Enter/Space select or play,
//     Escape cancels the selection.
// Every square is a focusable grid cell with `data-square="c3"`, state classes
// (has-x, has-o, block, movable, selected, dest-clone, dest-jump, last-from,
// last-to, cursor) and an aria-label such as "c3, red piece, jump destination".
// `setFlipped(true)` turns the board round (rank 1 at the top, file a on the
// right), so that each player sees their side nearest them; the arrow keys
// follow what is seen. A move is animated when `update()` is asked to: a clone
// grows out of a neighbouring piece of its side, a jump travels from its
// square, and the flips turn once it has landed (about a third of a second in
// all; nothing moves for people who ask for reduced motion).

import { s } from "./dom.js";
import { t } from "./i18n.js";
import { pieceLabel } from "./prefs.js";

const CELL = 100;
const MARGIN = 28; // room for the coordinates, left and bottom
const FILES = "abcdefghijklmnopqrstuvwxyz";
/** How long a clone grows or a jump travels, then how long the flips take (ms). */
export const ARRIVE_MS = 160;
export const FLIP_MS = 220;

/** True when the reader asked the system for less motion. */
export function reducedMotion() {
  return Boolean(window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches);
}

export function squareName(file, rank) {
  return `${FILES[file]}${rank + 1}`;
}

/** Source and destination of move text ("b2", "a1a3"; a pass has neither). */
export function moveSquares(move) {
  if (!move || move === "0000") return { from: null, to: null };
  if (move.length >= 4) return { from: move.slice(0, 2), to: move.slice(2, 4) };
  return { from: null, to: move.slice(0, 2) };
}

function pieceKind(content) {
  return content === "x" ? "x" : content === "o" ? "o" : "none";
}

export class Board {
  /**
   * @param {object} opts
   * @param {number} opts.width
   * @param {number} opts.height
   * @param {(move: string) => void} [opts.onMove]  called with move text when the player plays
   * @param {string} [opts.label]  accessible name of the board
   * @param {(c: string) => string} [opts.pieceName]  "red piece" for side c (the colours in force)
   */
  constructor({ width = 7, height = 7, onMove = null, label = t("board.label"), pieceName = pieceLabel } = {}) {
    this.width = width;
    this.pieceName = pieceName;
    this.height = height;
    this.onMove = onMove;
    this.cells = [];
    this.dests = {};
    this.canPlay = false;
    this.selected = null;
    this.hovered = null;
    this.last = null;
    this.cursor = squareName(0, height - 1);
    this.squares = new Map(); // name -> {g, piece, marker, content, file, row}
    this.rows = [];
    this.flipped = false;
    this.timers = [];
    this.movers = [];

    const w = width * CELL;
    const hgt = height * CELL;
    this.el = s("svg", {
      class: "board",
      viewBox: `${-MARGIN} 0 ${w + MARGIN} ${hgt + MARGIN}`,
      role: "grid",
      "aria-label": label,
      "aria-roledescription": t("board.roledescription"),
    });
    this.el.append(s("rect", { class: "board-bg", x: 0, y: 0, width: w, height: hgt, rx: 6 }));
    for (let row = 0; row < height; row++) {
      const rank = height - 1 - row;
      const rowEl = s("g", { role: "row" });
      for (let file = 0; file < width; file++) {
        const name = squareName(file, rank);
        const x = file * CELL;
        const y = row * CELL;
        const cx = x + CELL / 2;
        const cy = y + CELL / 2;
        const piece = s("circle", { class: "piece none", cx, cy, r: 36 });
        const marker = s("circle", { class: "marker", cx, cy, r: 14 });
        const g = s("g", {
          class: "sq",
          role: "gridcell",
          tabindex: name === this.cursor ? 0 : -1,
          dataset: { square: name },
        },
        s("rect", { class: "cell", x: x + 2, y: y + 2, width: CELL - 4, height: CELL - 4, rx: 8 }),
        marker, piece);
        this.squares.set(name, { g, piece, marker, content: ".", file, row });
        rowEl.append(g);
      }
      this.rows.push(rowEl);
      this.el.append(rowEl);
    }
    // Coordinates (decoration: every square's label already names it).
    this.coords = s("g", { class: "coords", "aria-hidden": "true" });
    this.el.append(this.coords);
    this.drawCoords();
    // The pieces in flight (a clone growing, a jump travelling) are drawn above the squares.
    this.flight = s("g", { class: "flight", "aria-hidden": "true" });
    this.el.append(this.flight);

    this.el.addEventListener("click", (e) => this.onClick(e));
    this.el.addEventListener("keydown", (e) => this.onKey(e));
    this.el.addEventListener("pointerover", (e) => this.onPointer(e));
    this.el.addEventListener("pointerleave", () => this.setHover(null));
    this.el.addEventListener("focusin", (e) => {
      const sq = this.squareOf(e.target);
      if (sq) this.moveCursor(sq, false);
    });
  }

  drawCoords() {
    const { width, height } = this;
    const coords = [];
    for (let file = 0; file < width; file++) {
      const shown = this.flipped ? width - 1 - file : file;
      coords.push(s("text", { x: shown * CELL + CELL / 2, y: height * CELL + MARGIN - 6, "text-anchor": "middle" },
        FILES[file]));
    }
    for (let rank = 0; rank < height; rank++) {
      const shown = this.flipped ? rank : height - 1 - rank;
      coords.push(s("text", { x: -MARGIN / 2, y: shown * CELL + CELL / 2 + 8, "text-anchor": "middle" },
        String(rank + 1)));
    }
    this.coords.replaceChildren(...coords);
  }

  /**
   * Turn the board round (``true``: rank 1 at the top, as the second player sees it).
   * The squares keep their names and labels; the rows and cells are put in the
   * order they are seen, for screen readers too.
   */
  setFlipped(flipped) {
    flipped = Boolean(flipped);
    if (flipped === this.flipped) return;
    this.flipped = flipped;
    this.finishAnimations();
    for (const sq of this.squares.values()) {
      const dx = flipped ? (this.width - 1 - 2 * sq.file) * CELL : 0;
      const dy = flipped ? (this.height - 1 - 2 * sq.row) * CELL : 0;
      if (flipped) sq.g.setAttribute("transform", `translate(${dx} ${dy})`);
      else sq.g.removeAttribute("transform");
    }
    const rows = flipped ? [...this.rows].reverse() : this.rows;
    for (const rowEl of rows) {
      const cells = [...rowEl.children].sort((a, b) => {
        const fa = this.squares.get(a.dataset.square).file;
        const fb = this.squares.get(b.dataset.square).file;
        return flipped ? fb - fa : fa - fb;
      });
      rowEl.append(...cells);
      this.el.insertBefore(rowEl, this.coords);
    }
    this.el.classList.toggle("flipped", flipped);
    this.drawCoords();
    // The keyboard starts from the corner seen at the top left, as before the turn.
    if (!this.el.contains(document.activeElement)) {
      this.moveCursor(flipped ? squareName(this.width - 1, 0) : squareName(0, this.height - 1), false);
    }
  }

  /** The centre of square ``name`` as drawn (in the board's SVG units). */
  centre(name) {
    const sq = this.squares.get(name);
    const file = this.flipped ? this.width - 1 - sq.file : sq.file;
    const row = this.flipped ? this.height - 1 - sq.row : sq.row;
    return { x: file * CELL + CELL / 2, y: row * CELL + CELL / 2 };
  }

  /** End any animation at once: every piece shows its final colour. */
  finishAnimations() {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    for (const mover of this.movers) mover.remove();
    this.movers = [];
    for (const sq of this.squares.values()) {
      sq.piece.style.visibility = "";
      sq.piece.setAttribute("class", `piece ${pieceKind(sq.content)}`);
    }
  }

  /**
   * Draw a position.
   * @param {object} pos
   * @param {string[]} pos.cells  rows, top first: x, o, ".", "#"
   * @param {object} [pos.dests]  {from: {clone: [...], jump: [...]}} of the side to move
   * @param {boolean} [pos.canPlay]  the viewer may move now
   * @param {object} [pos.last]  {move, flipped}
   * @param {boolean} [pos.animate]  animate the flips of ``last``
   * @param {string[]} [pos.flips]  the squares to animate instead of ``last``'s flips
   *   (a move followed by forced passes)
   */
  update({ cells, dests = {}, canPlay = false, last = null, animate = false, flips = null }) {
    const before = this.cells;
    const changed = JSON.stringify(cells) !== JSON.stringify(this.cells);
    // A redraw of the same position (hints, whose turn) lets a move's animation run on.
    const animating = this.timers.length > 0 && !changed && !animate;
    if (!animating) this.finishAnimations();
    this.cells = cells;
    this.dests = dests || {};
    this.canPlay = canPlay;
    this.last = last;
    if (changed || !canPlay) this.selected = null;
    if (this.selected && !this.dests[this.selected]) this.selected = null;
    const flipped = new Set(!animate ? [] : flips || (last && last.flipped) || []);
    const { from, to } = moveSquares(last && last.move);
    for (let row = 0; row < this.height; row++) {
      const line = cells[row] || "";
      for (let file = 0; file < this.width; file++) {
        const name = squareName(file, this.height - 1 - row);
        const sq = this.squares.get(name);
        const content = line[file] || ".";
        sq.content = content;
        if (!animating) sq.piece.setAttribute("class", `piece ${pieceKind(content)}`);
        sq.g.classList.toggle("has-x", content === "x");
        sq.g.classList.toggle("has-o", content === "o");
        sq.g.classList.toggle("block", content === "#");
        sq.g.classList.toggle("last-from", name === from);
        sq.g.classList.toggle("last-to", name === to);
        sq.g.classList.toggle("movable", canPlay && Boolean(this.dests[name]));
      }
    }
    this.el.classList.toggle("can-play", canPlay);
    this.refreshHints();
    if (animate && to && !reducedMotion()) this.animateMove(before, from, to, flipped);
  }

  /**
   * The move to ``to`` (from ``from`` for a jump) as it happens: the new piece
   * comes out of its source, then the captured pieces turn. ``before`` is the
   * position before the move (rows, top first), for the flips' old colour and
   * for the neighbour a clone grows from.
   */
  animateMove(before, from, to, flipped) {
    const dest = this.squares.get(to);
    const side = pieceKind(dest.content);
    if (side === "none") return;
    const source = from || this.cloneSource(before, to, side);
    const turning = [...flipped].map((name) => this.squares.get(name)).filter(Boolean);
    for (const sq of turning) sq.piece.setAttribute("class", `piece ${side === "x" ? "o" : "x"}`);
    if (source) {
      const a = this.centre(source);
      const b = this.centre(to);
      const mover = s("circle", { class: `piece ${side} mover`, cx: b.x, cy: b.y, r: 36 });
      this.flight.append(mover);
      this.movers.push(mover);
      dest.piece.style.visibility = "hidden";
      const travel = `translate(${a.x - b.x}px, ${a.y - b.y}px)`;
      const frames = from
        ? [{ transform: travel }, { transform: "translate(0, 0)" }]
        : [{ transform: `${travel} scale(0.4)` }, { transform: "translate(0, 0) scale(1)" }];
      mover.animate(frames, { duration: ARRIVE_MS, easing: "ease-out" });
    }
    this.timers.push(setTimeout(() => {
      this.timers = [];
      for (const mover of this.movers) mover.remove();
      this.movers = [];
      dest.piece.style.visibility = "";
      for (const sq of turning) {
        sq.piece.setAttribute("class", `piece ${side}`);
        sq.piece.animate([{ transform: "scaleX(1)" }, { transform: "scaleX(0.05)" }, { transform: "scaleX(1)" }],
          { duration: FLIP_MS, easing: "ease-in-out" });
      }
    }, source ? ARRIVE_MS : 0));
  }

  /** A square next to ``to`` that held a piece of ``side`` before the move (a clone's origin). */
  cloneSource(before, to, side) {
    if (!before || !before.length) return null;
    const { file, row } = this.squares.get(to);
    for (let dr = -1; dr <= 1; dr++) {
      for (let df = -1; df <= 1; df++) {
        const r = row + dr;
        const f = file + df;
        if ((dr || df) && r >= 0 && r < this.height && f >= 0 && f < this.width && (before[r] || "")[f] === side) {
          return squareName(f, this.height - 1 - r);
        }
      }
    }
    return null;
  }

  /** The piece whose destinations are shown: the selected one, else the one pointed at. */
  shownSource() {
    if (this.selected) return this.selected;
    if (this.hovered && this.dests[this.hovered]) return this.hovered;
    return null;
  }

  refreshHints() {
    const source = this.shownSource();
    const d = source ? this.dests[source] : null;
    const clones = new Set(d ? d.clone : []);
    const jumps = new Set(d ? d.jump : []);
    for (const [name, sq] of this.squares) {
      const g = sq.g;
      g.classList.toggle("selected", name === this.selected);
      g.classList.toggle("source", name === source);
      g.classList.toggle("dest-clone", clones.has(name));
      g.classList.toggle("dest-jump", jumps.has(name));
      g.classList.toggle("cursor", name === this.cursor);
      g.setAttribute("aria-label", this.describe(name, sq.content, clones.has(name), jumps.has(name)));
      g.setAttribute("aria-selected", name === this.selected ? "true" : "false");
    }
  }

  describe(name, content, clone, jump) {
    const parts = [name];
    if (content === "x") parts.push(this.pieceName("x"));
    else if (content === "o") parts.push(this.pieceName("o"));
    else if (content === "#") parts.push(t("board.block"));
    else parts.push(t("board.empty"));
    if (name === this.selected) parts.push(t("board.selected"));
    else if (this.canPlay && this.dests[name]) parts.push(t("board.canMove"));
    if (clone) parts.push(t("board.cloneDest"));
    if (jump) parts.push(t("board.jumpDest"));
    const { from, to } = moveSquares(this.last && this.last.move);
    if (name === from) parts.push(t("board.lastFrom"));
    if (name === to) parts.push(t("board.lastTo"));
    return parts.join(", ");
  }

  squareOf(target) {
    const g = target && target.closest ? target.closest(".sq") : null;
    return g ? g.dataset.square : null;
  }

  onPointer(e) {
    if (e.pointerType && e.pointerType !== "mouse") return; // touch: tap selects instead
    this.setHover(this.squareOf(e.target));
  }

  setHover(name) {
    if (name === this.hovered) return;
    this.hovered = name;
    if (!this.selected) this.refreshHints();
  }

  onClick(e) {
    const name = this.squareOf(e.target);
    if (!name) return;
    this.moveCursor(name, false);
    this.activate(name);
  }

  /** A click, tap, Enter or Space on a square. */
  activate(name) {
    if (!this.canPlay) return;
    const sel = this.selected;
    if (sel) {
      const d = this.dests[sel];
      if (d.clone.includes(name)) return this.play(name);
      if (d.jump.includes(name)) return this.play(sel + name);
      if (name === sel) return this.select(null);
    }
    if (this.dests[name]) return this.select(name);
    // An empty square some piece can clone to: the clone is the same whichever piece makes it.
    if (Object.values(this.dests).some((d) => d.clone.includes(name))) return this.play(name);
    this.select(null);
  }

  select(name) {
    this.selected = name;
    this.refreshHints();
  }

  play(move) {
    this.selected = null;
    this.hovered = null;
    this.refreshHints();
    if (this.onMove) this.onMove(move);
  }

  /** Clear the selection (Escape). */
  cancel() {
    this.select(null);
  }

  moveCursor(name, focus = true) {
    const old = this.squares.get(this.cursor);
    if (old) old.g.setAttribute("tabindex", "-1");
    this.cursor = name;
    const sq = this.squares.get(name);
    sq.g.setAttribute("tabindex", "0");
    for (const [n, q] of this.squares) q.g.classList.toggle("cursor", n === name);
    if (focus) sq.g.focus();
  }

  onKey(e) {
    const file = FILES.indexOf(this.cursor[0]);
    const rank = Number(this.cursor.slice(1)) - 1;
    const steps = {
      ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, 1], ArrowDown: [0, -1],
    };
    if (e.key in steps) {
      const turn = this.flipped ? -1 : 1; // the arrows follow the board as it is seen
      const [df, dr] = steps[e.key].map((step) => step * turn);
      const nf = Math.min(this.width - 1, Math.max(0, file + df));
      const nr = Math.min(this.height - 1, Math.max(0, rank + dr));
      this.moveCursor(squareName(nf, nr));
      e.preventDefault();
    } else if (e.key === "Home" || e.key === "End") {
      const leftmost = this.flipped ? this.width - 1 : 0;
      this.moveCursor(squareName(e.key === "Home" ? leftmost : this.width - 1 - leftmost, rank));
      e.preventDefault();
    } else if (e.key === "Enter" || e.key === " ") {
      this.activate(this.cursor);
      e.preventDefault();
    } else if (e.key === "Escape") {
      this.cancel();
      e.preventDefault();
    }
  }
}
