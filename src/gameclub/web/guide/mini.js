// guide/mini.js — a tiny Ataxx for the illustrations of the rules page, and nothing else.
//
// The club's games are played by the server, which owns the rules (the page
// knows none of them: docs/protocol.md). The boards of the rules page are not
// games: they are short scripted scenes on 4×4 or 5×5 boards, so they compute
// their moves here, in the page, with the few rules they need:
//   * a position is a list of rows, top row first, as the server sends them:
//     "x" (red, moves first), "o" (blue), "." (empty), "#" (a block);
//   * a clone goes to an empty square at distance 1 (diagonals count), a jump
//     to an empty square at distance exactly 2; then every opponent piece on the
//     8 squares around the destination changes colour;
//   * a side with no legal move passes ("ataxx", "pressibus") or loses at once
//     ("site-2005"); the game ends when the board is full, when a side has no
//     pieces, or when neither side can move, and more pieces wins (a tie is a
//     draw, or goes to the second player, blue, under "site-2005").
// Threefold repetition, the fifty-move rule and the pressibus early fill are
// left out: no scene lasts long enough to need them. `reply()` is the scenes'
// opponent: the move that leaves it the most pieces ahead (docs/rules.md and
// the server are the reference for real games).

const FILES = "abcdefghijklmnopqrstuvwxyz";

/** The other side. */
export function other(side) {
  return side === "x" ? "o" : "x";
}

function size(rows) {
  return { width: rows[0].length, height: rows.length };
}

/** "c3" -> {file: 2, row: height - 3} (row 0 is the top row). */
function coords(rows, name) {
  const file = FILES.indexOf(name[0]);
  const rank = Number(name.slice(1)) - 1;
  return { file, row: rows.length - 1 - rank };
}

function nameOf(rows, file, row) {
  return `${FILES[file]}${rows.length - row}`;
}

/** What is on square ``name``: "x", "o", "." or "#". */
export function at(rows, name) {
  const { file, row } = coords(rows, name);
  return rows[row][file];
}

/** Pieces of each side and empty squares. */
export function count(rows) {
  const n = { x: 0, o: 0, empty: 0 };
  for (const line of rows) {
    for (const c of line) {
      if (c === "x") n.x++;
      else if (c === "o") n.o++;
      else if (c === ".") n.empty++;
    }
  }
  return n;
}

/**
 * The legal moves of ``side``, as the real board wants them:
 * {from: {clone: [to, ...], jump: [to, ...]}}, only for pieces that can move.
 */
export function destinations(rows, side) {
  const { width, height } = size(rows);
  const dests = {};
  for (let row = 0; row < height; row++) {
    for (let file = 0; file < width; file++) {
      if (rows[row][file] !== side) continue;
      const clone = [];
      const jump = [];
      for (let r = Math.max(0, row - 2); r <= Math.min(height - 1, row + 2); r++) {
        for (let f = Math.max(0, file - 2); f <= Math.min(width - 1, file + 2); f++) {
          if (rows[r][f] !== ".") continue;
          const distance = Math.max(Math.abs(r - row), Math.abs(f - file));
          (distance === 1 ? clone : jump).push(nameOf(rows, f, r));
        }
      }
      if (clone.length || jump.length) dests[nameOf(rows, file, row)] = { clone, jump };
    }
  }
  return dests;
}

/** Whether ``side`` has a legal move. */
export function canMove(rows, side) {
  return Object.keys(destinations(rows, side)).length > 0;
}

/** Every legal move of ``side`` as move text: clones ("b2") first, then jumps ("a1a3"). */
export function moves(rows, side) {
  const clones = new Set();
  const jumps = [];
  for (const [from, d] of Object.entries(destinations(rows, side))) {
    for (const to of d.clone) clones.add(to);
    for (const to of d.jump) jumps.push(from + to);
  }
  return [...[...clones].sort(), ...jumps.sort()];
}

/**
 * Play ``move`` (move text) for ``side``.
 * @returns {{rows: string[], kind: "clone"|"jump", from: string|null, to: string, flipped: string[]}}
 */
export function play(rows, side, move) {
  const jump = move.length >= 4;
  const from = jump ? move.slice(0, 2) : null;
  const to = jump ? move.slice(2, 4) : move.slice(0, 2);
  const grid = rows.map((line) => line.split(""));
  const dest = coords(rows, to);
  if (grid[dest.row][dest.file] !== ".") throw new Error(`mini: ${to} is not empty`);
  if (jump) {
    const src = coords(rows, from);
    const distance = Math.max(Math.abs(src.row - dest.row), Math.abs(src.file - dest.file));
    if (grid[src.row][src.file] !== side || distance !== 2) throw new Error(`mini: illegal jump ${move}`);
    grid[src.row][src.file] = ".";
  } else if (!moves(rows, side).includes(to)) {
    throw new Error(`mini: illegal clone ${move}`);
  }
  grid[dest.row][dest.file] = side;
  const flipped = [];
  const { width, height } = size(rows);
  for (let r = Math.max(0, dest.row - 1); r <= Math.min(height - 1, dest.row + 1); r++) {
    for (let f = Math.max(0, dest.file - 1); f <= Math.min(width - 1, dest.file + 1); f++) {
      if (grid[r][f] === other(side)) {
        grid[r][f] = side;
        flipped.push(nameOf(rows, f, r));
      }
    }
  }
  return { rows: grid.map((line) => line.join("")), kind: jump ? "jump" : "clone", from, to, flipped };
}

/**
 * What happens now that it is ``side``'s turn in ``rows``:
 *   {state: "play"}                          side has a move;
 *   {state: "pass"}                          side has none and passes (the other can move);
 *   {state: "over", reason, winner}          the game is over; winner "x", "o" or null (a draw).
 * reason: "no-pieces", "board-full", "no-moves", "stuck" (site-2005: the side to move loses).
 */
export function turn(rows, side, rules = "ataxx") {
  const n = count(rows);
  const byCount = () => {
    if (n.x !== n.o) return n.x > n.o ? "x" : "o";
    return rules === "site-2005" ? "o" : null;
  };
  if (n.x === 0) return { state: "over", reason: "no-pieces", winner: "o" };
  if (n.o === 0) return { state: "over", reason: "no-pieces", winner: "x" };
  if (n.empty === 0) return { state: "over", reason: "board-full", winner: byCount() };
  if (canMove(rows, side)) return { state: "play" };
  if (rules === "site-2005") return { state: "over", reason: "stuck", winner: other(side) };
  if (!canMove(rows, other(side))) return { state: "over", reason: "no-moves", winner: byCount() };
  return { state: "pass" };
}

/**
 * The scenes' opponent: the move after which ``side`` leads by the most pieces
 * (a clone before a jump on equal counts, then the first in move order), or null.
 */
export function reply(rows, side) {
  let best = null;
  let bestScore = -Infinity;
  for (const move of moves(rows, side)) {
    const n = count(play(rows, side, move).rows);
    const score = side === "x" ? n.x - n.o : n.o - n.x;
    if (score > bestScore) {
      best = move;
      bestScore = score;
    }
  }
  return best;
}
