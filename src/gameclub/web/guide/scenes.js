// guide/scenes.js — the scripted positions of the rules page's small boards.
//
// A scene: `rows` (top row first, as board.js draws them: x red, o blue,
// "." empty), the side the reader plays (`you`), the rules that decide a
// stuck side ("ataxx": it passes; "site-2005": it loses), whether the other
// side answers (`reply`: guide/mini.js's reply(), the move that leaves it the
// most pieces ahead) and i18n keys: `guide.scene.<id>.title` / `.task`, and
// `note`, a sentence added after every move. Without `reply` a scene stops
// after one move: Reset sets it up again.

export const SCENES = {
  // Red in the middle of a 5×5 board: 8 clone destinations, 16 jump destinations.
  cloneJump: {
    rows: [".....", ".....", "..x..", ".....", "....."],
    you: "x",
  },
  // Jumping into c3 (from a5 or e1) flips all eight blue neighbours.
  flip: {
    rows: ["x....", ".ooo.", ".o.o.", ".ooo.", "....x"],
    you: "x",
  },
  // Blue's only move is a4c2: taking c2 leaves it stuck, so it passes.
  pass: {
    rows: ["oxx.", "xxx.", "xx..", "...."],
    you: "x",
    reply: true,
  },
  // The same position under site-2005: stuck is lost.
  stuck: {
    rows: ["oxx.", "xxx.", "xx..", "...."],
    you: "x",
    reply: true,
    rules: "site-2005",
  },
  // Blue to play: the centre pieces fall easily, the corner a1 cannot be reached.
  corner: {
    rows: ["o...o", ".....", "..xx.", "xx...", "xx..o"],
    you: "o",
    note: "guide.scene.corner.note",
  },
  // Blue to play against a thin red line and a lone red piece.
  line: {
    rows: ["....o", "xxxx.", ".....", ".o...", "x...o"],
    you: "o",
  },
  // One empty square, Blue leads 8–7: the clone into b3 wins 10–6; the jump
  // c1b3 flips the same pieces but hands Blue c1 and the last move (7–9).
  last: {
    rows: ["xxxo", "o.oo", "xxxo", "ooxo"],
    you: "x",
    reply: true,
  },
};
