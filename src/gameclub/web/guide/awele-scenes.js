// guide/awele-scenes.js — the positions of the Awele guide's small boards.
//
// A scene: the twelve `pits` (A..F South's, a..f North's), the `stores`, the
// reader plays South and makes one move (Reset sets the scene up again).
// i18n keys: `awele.scene.<id>.title` and `.task`.

export const AWELE_SCENES = {
  // The start: four seeds in every pit; any pit sows four pits on.
  sow: {
    pits: [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4],
    stores: { x: 0, o: 0 },
  },
  // D's four seeds end in b: b makes 3, a before it 2, so both are taken (5 seeds).
  capture: {
    pits: [1, 0, 0, 4, 1, 0, 1, 2, 0, 3, 1, 2],
    stores: { x: 10, o: 10 },
  },
  // F's 13 seeds go round once, skip F itself, and end in b: a capture of 5.
  lap: {
    pits: [1, 1, 0, 0, 0, 13, 0, 1, 1, 1, 1, 1],
    stores: { x: 12, o: 8 },
  },
  // South has 22: any capture of three seeds reaches 25 and wins.
  end: {
    pits: [0, 0, 0, 0, 2, 1, 2, 1, 0, 0, 0, 0],
    stores: { x: 22, o: 20 },
  },
};
