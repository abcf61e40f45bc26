// guide/awele-mini.js — a tiny Awele for the illustrations of the Awele guide, and nothing else.
//
// The club's Awele games are played by the server, which owns the rules (the
// page knows none: docs/protocol.md). The small boards of /awele/learn are
// scripted one-move scenes, so they sow and capture here with the few rules
// they need (the club's `awele` rules, source 001):
//   * pits in Aalina's order: South's A..F (0..5), North's a..f (6..11);
//     seeds are sown one by one counter-clockwise from the next pit, and a
//     pit of 12 or more skips the pit it was emptied from;
//   * when the last seed makes an opponent's pit 2 or 3, those seeds are
//     captured, then the pit before while it holds 2 or 3, within his row;
//   * a store of 25 or more wins; 24 each is a draw.
// Feeding, grand slams and repetitions are left out: no scene needs them.

export const LETTERS = "ABCDEFabcdef";

/** The side owning pit ``i``. */
export function owner(i) {
  return i < 6 ? "x" : "o";
}

/** The pit letters ``side`` may play: its pits that hold seeds. */
export function legal(pits, side) {
  const first = side === "x" ? 0 : 6;
  return [0, 1, 2, 3, 4, 5].filter((k) => pits[first + k] > 0).map((k) => LETTERS[first + k]);
}

/**
 * Play pit ``letter`` for ``side``.
 * @returns {{pits: number[], stores: {x, o}, sown: number[], captured: number[], seeds: number, over: object|null}}
 *   ``over``: {winner: "x"|"o"|null} once a store reaches 25 (or both 24).
 */
export function play(pits, stores, side, letter) {
  const origin = LETTERS.indexOf(letter);
  if (origin < 0 || owner(origin) !== side || pits[origin] === 0) throw new Error(`awele-mini: ${letter} cannot be played`);
  const next = pits.slice();
  let hand = next[origin];
  next[origin] = 0;
  const sown = [];
  let at = origin;
  while (hand > 0) {
    at = (at + 1) % 12;
    if (at === origin) continue;
    next[at] += 1;
    sown.push(at);
    hand -= 1;
  }
  const captured = [];
  let seeds = 0;
  while (owner(at) !== side && (next[at] === 2 || next[at] === 3)) {
    seeds += next[at];
    next[at] = 0;
    captured.push(at);
    if (at === 0 || at === 6) break; // the start of the opponent's row
    at -= 1;
  }
  const after = { ...stores, [side]: stores[side] + seeds };
  let over = null;
  if (after.x >= 25 || after.o >= 25) over = { winner: after.x >= 25 ? "x" : "o" };
  else if (after.x === 24 && after.o === 24) over = { winner: null };
  return { pits: next, stores: after, sown, captured, seeds, over };
}
