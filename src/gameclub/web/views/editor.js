// views/editor.js — the board editor (/editor?blocks=3ghx&start=…&fen=…).
//
// Click squares to place or remove blocks: the symmetric copies follow (the
// four quadrants). The Blocs-Config code field follows the drawing and the
// drawing follows the code typed; what the code means (its preferred form,
// twin, block count, whether it may be played and why not) comes from the
// server (GET /api/blocks), which also refuses asymmetric drawings. The start
// position is the standard one, one of the two layouts, or pieces placed
// freely for both sides, checked by GET /api/setup. A random valid board, the
// gallery of ready-to-play boards by block count, a link to share the board,
// and buttons to play it: against the computer, on the hot seat, in the lobby
// or with a friend.

import { get, post } from "../api.js";
import { Board, squareName } from "../board.js";
import { h, mount, select } from "../dom.js";
import { t } from "../i18n.js";
import { navigate } from "../router.js";
import { errorText, toast } from "../ui.js";
import { copyBox, inviteUrl } from "./invite.js";
import { DEFAULT_OPTIONS, loadOptions, settingsForm } from "./settings.js";

const SIZE = 7;
const FILES = "abcdefg";
const GALLERY_PAGE = 60;

/** A square and its mirror images (left-right, top-bottom): the blocks placed together. */
export function orbit(name) {
  const f = FILES.indexOf(name[0]);
  const r = Number(name.slice(1)) - 1;
  const out = new Set();
  for (const file of [f, SIZE - 1 - f]) for (const rank of [r, SIZE - 1 - r]) out.add(squareName(file, rank));
  return [...out];
}

/** Pieces of a FEN's board field: {square: "x" | "o"} (blocks and bad input ignored). */
export function piecesOfFen(fen) {
  const pieces = {};
  const rows = String(fen || "").trim().split(" ")[0].split("/");
  rows.forEach((row, i) => {
    let file = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) file += Number(ch);
      else {
        if ((ch === "x" || ch === "o") && file < SIZE) pieces[squareName(file, SIZE - 1 - i)] = ch;
        file += 1;
      }
    }
  });
  return pieces;
}

/** The FEN of pieces placed freely (no blocks: the server adds those of the board). */
export function fenOfPieces(pieces, turn) {
  const rows = [];
  for (let rank = SIZE - 1; rank >= 0; rank--) {
    let row = "";
    let run = 0;
    for (let file = 0; file < SIZE; file++) {
      const p = pieces[squareName(file, rank)];
      if (!p) {
        run += 1;
        continue;
      }
      if (run) row += String(run);
      run = 0;
      row += p;
    }
    if (run) row += String(run);
    rows.push(row);
  }
  return `${rows.join("/")} ${turn}`;
}

export function editorView(main) {
  const params = new URLSearchParams(location.search);
  let blocks = "0"; // canonical code of the board drawn
  let blockSquares = [];
  let start = params.get("start") || (params.get("fen") ? "custom" : "standard");
  let pieces = params.get("fen") ? piecesOfFen(params.get("fen")) : {};
  let turn = params.get("fen") && params.get("fen").trim().split(" ")[1] === "o" ? "o" : "x";
  let tool = "blocks";
  let setupOk = false;
  let codeOk = true; // false while the code field holds a code that means no board
  let closed = false;
  let form = null;
  let seq = 0;
  let describeSeq = 0;

  const board = new Board({ width: SIZE, height: SIZE, label: t("editor.boardLabel") });
  const code = h("input", { id: "editor-code", type: "text", autocomplete: "off", spellcheck: "false",
    maxlength: 20, placeholder: "3ghx", "aria-describedby": "editor-message" });
  const message = h("p", { id: "editor-message", class: "form-error", role: "alert" });
  const info = {
    canonical: h("dd", { id: "editor-canonical" }), preferred: h("dd", { id: "editor-preferred" }),
    twin: h("dd", { id: "editor-twin" }), count: h("dd", { id: "editor-count" }),
    valid: h("dd", { id: "editor-valid" }),
  };
  const infoList = h("dl", { class: "editor-info", id: "editor-info" },
    h("dt", {}, t("editor.code")), info.canonical,
    h("dt", {}, t("editor.preferred")), info.preferred,
    h("dt", {}, t("editor.twin")), info.twin,
    h("dt", {}, t("editor.count")), info.count,
    h("dt", {}, t("editor.validity")), info.valid);
  const toolName = `editor-tool-${Math.random().toString(36).slice(2, 7)}`;
  const toolRadio = (value, label) => {
    const input = h("input", { type: "radio", name: toolName, id: `tool-${value}`, value, checked: value === tool });
    input.addEventListener("change", () => {
      if (input.checked) tool = value;
    });
    return h("label", { class: "tool", for: input.id }, input, " ", label);
  };
  const pieceTools = h("span", { class: "piece-tools" },
    toolRadio("x", t("editor.toolX")), toolRadio("o", t("editor.toolO")), toolRadio("empty", t("editor.toolEmpty")));
  const tools = h("fieldset", { class: "editor-tools" }, h("legend", {}, t("editor.tools")),
    toolRadio("blocks", t("editor.toolBlocks")), pieceTools);
  const startSelect = select("editor-start", [
    ["standard", t("settings.startStandard")], ["four-corners", t("settings.startFour")],
    ["two-corners", t("settings.startTwo")], ["custom", t("editor.startCustom")],
  ], start);
  const turnSelect = select("editor-turn", [["x", t("editor.turnX")], ["o", t("editor.turnO")]], turn);
  const turnField = h("span", { class: "field inline" }, h("label", { for: "editor-turn" }, t("editor.turn")), turnSelect);
  const setupMessage = h("p", { id: "setup-message", class: "setup-message", role: "status" });
  const linkBox = h("div", { id: "editor-share" });
  const randomButton = h("button", { type: "button", id: "editor-random" }, t("editor.random"));
  const clearButton = h("button", { type: "button", id: "editor-clear" }, t("editor.clear"));
  const playBox = h("div", { class: "editor-play" });
  const playError = h("p", { class: "form-error", role: "alert", id: "editor-play-error" });
  const inviteBox = h("div", { id: "editor-invite-box" });
  const galleryCount = h("select", { id: "gallery-count", "aria-label": t("editor.galleryCount") });
  const galleryList = h("ul", { class: "plain gallery", id: "gallery-list" });
  const galleryMore = h("button", { type: "button", id: "gallery-more", hidden: true }, t("editor.more"));
  const galleryBoards = h("p", { class: "hint" });

  mount(main,
    h("section", { class: "editor", id: "editor" },
      h("h1", { tabindex: -1 }, t("editor.title")),
      h("p", { class: "hint" }, t("editor.intro")),
      h("div", { class: "game-layout" },
        h("div", { class: "board-column" }, h("div", { class: "board-box" }, board.el), setupMessage),
        h("aside", { class: "side-column" },
          h("div", { class: "field" }, h("label", { for: code.id }, t("editor.codeLabel")), code), message,
          infoList,
          h("div", { class: "buttons" }, randomButton, clearButton),
          tools,
          h("div", { class: "field" }, h("label", { for: startSelect.id }, t("settings.start")), startSelect),
          turnField,
          h("h2", {}, t("editor.share")), linkBox,
          h("h2", {}, t("editor.play")), playBox, playError, inviteBox))),
    h("section", { class: "panel", id: "gallery" },
      h("h2", {}, t("editor.gallery")), galleryBoards,
      h("div", { class: "field inline" }, h("label", { for: galleryCount.id }, t("editor.galleryCount")), galleryCount),
      galleryList, galleryMore));

  // -- drawing ------------------------------------------------------------------------

  function localCells() {
    const set = new Set(blockSquares);
    const shown = start === "custom" ? pieces : {};
    const rows = [];
    for (let rank = SIZE - 1; rank >= 0; rank--) {
      let row = "";
      for (let file = 0; file < SIZE; file++) {
        const name = squareName(file, rank);
        row += shown[name] || (set.has(name) ? "#" : ".");
      }
      rows.push(row);
    }
    return rows;
  }

  function setupQuery() {
    const q = new URLSearchParams();
    const rules = form ? form.read().rules : params.get("rules") || "ataxx";
    q.set("rules", rules);
    if (blocks !== "0") q.set("blocks", blocks);
    if (start === "custom") q.set("fen", fenOfPieces(pieces, turn));
    else if (start !== "standard") q.set("start", start);
    return q;
  }

  function gameBody() {
    const q = setupQuery();
    const body = { ...(form ? form.read() : {}), blocks: blocks === "0" ? null : blocks };
    if (q.has("fen")) body.fen = q.get("fen");
    if (q.has("start")) body.start = q.get("start");
    return body;
  }

  function drawShare() {
    const q = setupQuery();
    mount(linkBox, copyBox(`${location.origin}/editor?${q.toString()}`, "editor-link"));
    history.replaceState({}, "", `/editor?${q.toString()}`);
  }

  async function refreshSetup() {
    const mine = ++seq;
    pieceTools.hidden = start !== "custom";
    turnField.hidden = start !== "custom";
    if (start !== "custom" && tool !== "blocks") {
      tool = "blocks";
      document.getElementById("tool-blocks").checked = true;
    }
    if (!codeOk) return drawPlayable(); // the code field is wrong: no board to set up or share
    drawShare();
    try {
      const setup = await get(`/api/setup?${setupQuery().toString()}`);
      if (closed || mine !== seq) return;
      setupOk = true;
      board.update({ cells: setup.cells });
      setupMessage.className = "setup-message ok";
      setupMessage.textContent = t("editor.setupOk", {
        turn: t(`editor.turn${setup.turn.toUpperCase()}`), x: setup.counts.x, o: setup.counts.o,
      });
    } catch (err) {
      if (closed || mine !== seq) return;
      setupOk = false;
      board.update({ cells: localCells() });
      setupMessage.className = "setup-message error";
      setupMessage.textContent = errorText(err);
    }
    drawPlayable();
  }

  /** The play buttons work only for a board that is both described and set up. */
  function drawPlayable() {
    for (const b of playBox.querySelectorAll("button")) b.disabled = !(setupOk && codeOk);
  }

  /** A code that means no board: nothing of the last good board stays on offer. */
  function showInvalidCode(err) {
    codeOk = false;
    message.textContent = errorText(err);
    for (const dd of Object.values(info)) {
      dd.textContent = "—";
      dd.className = "";
    }
    info.valid.textContent = t("editor.noBoard");
    info.valid.className = "error";
    board.el.classList.add("stale");
    setupMessage.className = "setup-message error";
    setupMessage.textContent = t("editor.fixCode");
    mount(linkBox);
    playError.textContent = "";
    drawPlayable();
  }

  function showInfo(d) {
    info.canonical.textContent = d.canonical;
    info.preferred.textContent = d.preferred === d.canonical ? t("editor.isPreferred", { code: d.preferred }) : d.preferred;
    info.twin.textContent = d.twin;
    info.count.textContent = t("editor.blocksOf", { n: d.blocks, max: d.max_blocks });
    info.valid.textContent = d.valid ? t("editor.valid") : t("editor.invalid", { reason: d.reason });
    info.valid.className = d.valid ? "ok" : "error";
  }

  /** Ask the server about a code (``code=``) or a drawing (``squares=``). */
  async function describe(query, { fromTyping = false } = {}) {
    const mine = ++describeSeq; // only the answer to the latest question counts
    try {
      const d = await get(`/api/blocks?${query}`);
      if (closed || mine !== describeSeq) return;
      message.textContent = "";
      codeOk = true;
      board.el.classList.remove("stale");
      blocks = d.canonical;
      blockSquares = d.squares;
      if (!fromTyping || document.activeElement !== code) code.value = d.canonical;
      showInfo(d);
      await refreshSetup();
    } catch (err) {
      if (closed || mine !== describeSeq) return;
      // A code that means nothing leaves no board; a drawing refused (a block on a corner)
      // leaves the board as it was, still playable.
      if (query.startsWith("code=")) showInvalidCode(err);
      else message.textContent = errorText(err);
    }
  }

  board.el.addEventListener("click", (e) => {
    const name = board.squareOf(e.target);
    if (name) edit(name);
  });
  board.el.addEventListener("keydown", (e) => {
    if (e.key === "Enter" || e.key === " ") {
      e.preventDefault();
      edit(board.cursor);
    }
  });

  function edit(name) {
    if (tool === "blocks") {
      const set = new Set(blockSquares);
      const copies = orbit(name);
      if (set.has(name)) copies.forEach((sq) => set.delete(sq));
      else copies.forEach((sq) => set.add(sq));
      describe(`squares=${encodeURIComponent([...set].join(","))}`);
      return;
    }
    if (tool === "empty") delete pieces[name];
    else pieces[name] = tool;
    refreshSetup();
  }

  code.addEventListener("input", () => {
    const text = code.value.trim();
    if (text) describe(`code=${encodeURIComponent(text)}`, { fromTyping: true });
    else showInvalidCode(new Error(t("editor.emptyCode")));
  });
  randomButton.addEventListener("click", async () => {
    try {
      const d = await get("/api/blocks/random?min=1&max=16");
      code.value = d.canonical;
      await describe(`code=${encodeURIComponent(d.canonical)}`);
    } catch (err) {
      message.textContent = errorText(err);
    }
  });
  clearButton.addEventListener("click", () => {
    code.value = "0";
    describe("code=0");
  });
  startSelect.addEventListener("change", () => {
    if (startSelect.value === "custom" && start !== "custom") {
      // Start from the pieces shown now.
      pieces = {};
      for (const [name, sq] of board.squares) if (sq.content === "x" || sq.content === "o") pieces[name] = sq.content;
    }
    start = startSelect.value;
    refreshSetup();
  });
  turnSelect.addEventListener("change", () => {
    turn = turnSelect.value;
    refreshSetup();
  });

  // -- playing the board ----------------------------------------------------------------

  async function create(path, after) {
    playError.textContent = "";
    if (!(setupOk && codeOk)) return;
    try {
      after(await post(path, gameBody()));
    } catch (err) {
      playError.textContent = errorText(err);
    }
  }

  function drawPlay(options) {
    form = settingsForm(options, { level: true, rated: true, board: false, prefix: "ed", defaults: { rules: params.get("rules") || "ataxx" } });
    form.el.addEventListener("change", refreshSetup);
    const ai = h("button", { type: "button", class: "primary", id: "editor-play-ai" }, t("editor.playComputer"));
    const hot = h("button", { type: "button", id: "editor-hotseat" }, t("editor.playHotseat"));
    const seek = h("button", { type: "button", id: "editor-seek" }, t("editor.playSeek"));
    const invite = h("button", { type: "button", id: "editor-invite" }, t("editor.playInvite"));
    ai.addEventListener("click", () => create("/api/games/ai", ({ game }) => navigate(`/game/${game}`)));
    hot.addEventListener("click", () => create("/api/games/hotseat", ({ game }) => navigate(`/game/${game}`)));
    seek.addEventListener("click", () => create("/api/seeks", () => {
      toast(t("editor.seekCreated"));
      navigate("/");
    }));
    invite.addEventListener("click", () => create("/api/invitations", ({ invitation }) => {
      mount(inviteBox, h("p", {}, t("invite.shareLink")), copyBox(inviteUrl(invitation), "invite-link"));
    }));
    mount(playBox, form.el, h("div", { class: "buttons" }, ai, hot, seek, invite));
    // Disabled until the server has set the board up: a click before that would do nothing.
    drawPlayable();
    refreshSetup();
  }
  loadOptions().then(drawPlay, () => drawPlay(DEFAULT_OPTIONS));

  // -- the gallery ------------------------------------------------------------------------

  let galleryOffset = 0;
  async function loadGallery(count, append) {
    if (!append) galleryOffset = 0;
    try {
      const page = await get(`/api/blocks/gallery?blocks=${count}&offset=${galleryOffset}&limit=${GALLERY_PAGE}`);
      if (closed) return;
      const items = page.configs.map((c) => {
        const b = h("button", { type: "button", class: "gallery-code", dataset: { code: c.code } }, c.code);
        b.addEventListener("click", () => {
          code.value = c.code;
          describe(`code=${encodeURIComponent(c.code)}`);
          board.el.scrollIntoView({ block: "nearest" });
        });
        return h("li", {}, b);
      });
      if (append) galleryList.append(...items);
      else mount(galleryList, items);
      galleryOffset += page.configs.length;
      galleryMore.hidden = galleryOffset >= page.total;
      galleryBoards.textContent = t("editor.galleryTotal", { n: page.total, blocks: count });
    } catch (err) {
      mount(galleryList, h("li", { class: "form-error" }, errorText(err)));
    }
  }
  galleryCount.addEventListener("change", () => loadGallery(galleryCount.value, false));
  galleryMore.addEventListener("click", () => loadGallery(galleryCount.value, true));
  get("/api/blocks/gallery").then((index) => {
    if (closed) return;
    mount(galleryCount, index.counts.map((row) =>
      h("option", { value: row.blocks, selected: row.blocks === 4 }, t("editor.galleryOption", { n: row.blocks, total: row.total }))));
    loadGallery(galleryCount.value, false);
  }, (err) => mount(galleryList, h("li", { class: "form-error" }, errorText(err))));

  // -- start ------------------------------------------------------------------------------

  const first = params.get("blocks");
  code.value = first || "0";
  describe(`code=${encodeURIComponent(first || "0")}`);

  return () => {
    closed = true;
  };
}
