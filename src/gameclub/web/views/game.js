// views/game.js — a live game, for its players and its spectators: /game/{id}.
//
// Everything drawn comes from the server's `state`, `delta` and `presence`
// messages (docs/protocol.md): board, legal destinations, counts, clocks,
// offers, result. socket.js applies each move's `delta` to the state it holds
// and hands this view the new full state, so the view only ever draws whole
// states. The page only asks: moves (with their ply, acknowledged by the
// server), resign, draw offers, abort, claim and rematch. Clocks count down
// locally between two states, from the times the server sent. When the
// socket drops (or a delta is missed), socket.js re-subscribes; the next
// `state` replaces everything here, so the page recovers by itself.

import { get, loadMe, post } from "../api.js";
import { AweleBoard, captureDelay } from "../awele-board.js";
import { Board, moveSquares } from "../board.js";
import { formatClock, h, mount } from "../dom.js";
import { KEYS, t } from "../i18n.js";
import { renderMoveList } from "../movelist.js";
import { setPageGames } from "../pagegame.js";
import { colorLabel } from "../prefs.js";
import { playMoveSound } from "../sound.js";
import { navigate } from "../router.js";
import { socket } from "../socket.js";
import { announce, errorText, toast } from "../ui.js";
import { blocksText, clockText } from "./settings.js";

const OTHER = { x: "o", o: "x" };
/** Endings by the rules: a takeback (computer, hot seat) may reopen such a game. */
const RULES_ENDINGS = new Set(["board-full", "no-pieces", "no-moves", "stuck", "fifty-moves",
  "threefold-repetition", "early-fill", "majority", "draw-24", "no-feed", "repetition"]);
const LOW_TIME_MS = 20000;

/** The name of side ``c``'s colour as this player chose it ("Red" by default for x). */
export function colorName(c) {
  return c === "x" || c === "o" ? colorLabel(c) : "";
}

/** A side's name in ``game``: South and North in Awele, the chosen colours in Ataxx. */
export function sideName(c, game) {
  if (game === "awele") return c === "x" || c === "o" ? t(`awele.side.${c}`) : "";
  return colorName(c);
}

/** The game's name for people ("Ataxx", "Awele"). */
export function gameName(game) {
  return t(`games.${game || "ataxx"}`);
}

export function playerName(p) {
  if (!p) return "?";
  return p.ai ? t("game.computerName", { level: t(`level.${p.ai}`) }) : p.name;
}

export function resultText(result, game = "ataxx") {
  if (!result) return "";
  // Awele says some endings its own way ("stuck": the player to move has no seed).
  const own = `awele.reason.${result.reason}`;
  const reason = game === "awele" && KEYS.includes(own) ? t(own) : t(`reason.${result.reason}`);
  const score = result.score
    ? t(game === "awele" ? "awele.score" : "game.score", { x: result.score[0], o: result.score[1] })
    : "";
  if (result.reason === "aborted") return t("result.aborted");
  // Russian names Ataxx's sides by plural colours ("Красные побеждают"), Awele's by one side ("Юг побеждает").
  const wins = game === "awele" ? "awele.result.wins" : "result.wins";
  const head = result.winner ? t(wins, { color: sideName(result.winner, game) }) : t("result.draw");
  return [head, reason, score].filter(Boolean).join(" — ");
}

/**
 * Why typed ``text`` is no move on a ``width`` x ``height`` board, naming the
 * board's own files and ranks ("a-g", "1-7"); null when it looks like one
 * (the server still decides whether it is legal).
 */
export function moveTextProblem(text, width, height) {
  const files = "abcdefghijklmnopqrstuvwxyz";
  const square = (f, r) => files.indexOf(f) >= 0 && files.indexOf(f) < width && Number(r) >= 1 && Number(r) <= height;
  const m = /^([a-z])(\d{1,2})(?:([a-z])(\d{1,2}))?$/.exec(text);
  if (m && square(m[1], m[2]) && (!m[3] || square(m[3], m[4]))) return null;
  return t("game.badMoveText", { text, files: `a-${files[width - 1]}`, ranks: `1-${height}` });
}

/**
 * Awele: the pit letter a player typed, in the case of the row of ``side``
 * (South plays A-F, North a-f: "c" typed by South is C), or null when the
 * text is no pit letter.
 */
export function aweleMoveText(text, side) {
  if (!/^[a-f]$/i.test(text)) return null;
  return side === "o" ? text.toLowerCase() : text.toUpperCase();
}

/** Who made move number ``ply`` given the side to move after ``n`` moves. */
function moverOf(ply, n, turn) {
  return (n - ply) % 2 === 1 ? OTHER[turn] : turn;
}

export function gameView(main, { id }) {
  let state = null;
  let board = null;
  let pending = false;
  let clockAnchor = 0;
  let presence = null;
  let resignArmed = null;
  let closed = false;
  let flipChoice = null; // the viewer's own choice of orientation (the flip button), else by their side
  let placedFlipped = null; // the orientation the cards were last placed for
  // Awele: the seeds each move captured (index: ply). The state tells the last
  // move's; the earlier ones come from the game's record when the page opens
  // (or after a gap), so the move list can show every capture.
  let captured = [];
  let capturesAsked = false;
  const side = (c) => sideName(c, state && state.kind);
  const isAwele = () => Boolean(state && state.kind === "awele");

  const title = h("h1", { tabindex: -1, class: "game-title" }, t("game.loading"));
  const status = h("p", { id: "game-status", class: "game-status" });
  const watchers = h("p", { id: "spectators", class: "spectators" });
  const settingsLine = h("p", { id: "game-settings", class: "game-settings" });
  const banner = h("div", { id: "result-banner", class: "result-banner", hidden: true });
  const notice = h("div", { id: "game-notice", class: "game-notice" });
  const cards = { x: playerCard("x"), o: playerCard("o") };
  const boardBox = h("div", { class: "board-box", id: "board-box" });
  const moveList = h("div", { class: "moves-box" });
  const actions = h("div", { id: "game-actions", class: "buttons game-actions" });
  const moveInput = h("input", {
    id: "move-input", name: "move", type: "text", autocomplete: "off", autocapitalize: "off",
    spellcheck: "false", maxlength: 8, placeholder: "a1a3", inputmode: "latin",
  });
  const moveForm = h("form", { id: "move-form", class: "move-form" },
    h("label", { for: moveInput.id }, t("game.typeMove")), moveInput,
    h("button", { type: "submit" }, t("game.play")));
  const moveError = h("p", { id: "move-error", class: "form-error", role: "alert" });
  const counts = h("span", { class: "counts-line", id: "piece-counts" });
  const flipButton = h("button", { type: "button", id: "flip-board", class: "small", "aria-pressed": "false" },
    t("game.flip"));
  const boardColumn = h("div", { class: "board-column" });
  const download = h("a", { href: `/api/games/${encodeURIComponent(id)}/pgn`, download: `gameclub-${id}.pgn`,
    id: "download-pgn", class: "button small" }, t("game.downloadPgn"));
  const tools = h("p", { class: "game-tools" },
    download, " ",
    h("a", { href: `/replay/${encodeURIComponent(id)}`, class: "button small", id: "open-replay" },
      t("result.replay")));
  const pgnNote = h("p", { class: "hint", id: "pgn-note" }, t("game.pgnNote"));

  mount(main,
    h("section", { class: "game", id: "game", dataset: { game: id } },
      h("div", { class: "game-head" }, title, status, watchers, settingsLine),
      banner,
      h("div", { class: "game-layout" },
        boardColumn,
        h("aside", { class: "side-column" },
          notice, actions, moveForm, moveError,
          h("h2", {}, t("game.moves")), moveList, tools, pgnNote))));
  const underBoard = h("div", { class: "under-board" }, counts, flipButton);
  placeCards();

  flipButton.addEventListener("click", () => {
    flipChoice = !flipped();
    placeCards();
  });

  moveForm.addEventListener("submit", (e) => {
    e.preventDefault();
    let text = moveInput.value.trim();
    if (!text) return;
    if (isAwele()) {
      const letter = aweleMoveText(text, state.you);
      if (!letter) {
        showError(t("awele.badMoveText", { text }), true);
        return;
      }
      text = letter;
    } else {
      text = text.toLowerCase();
      const problem = state ? moveTextProblem(text, state.width, state.height) : null;
      if (problem) {
        showError(problem, true);
        return;
      }
    }
    play(text, { typed: true }).then((ok) => {
      if (ok) moveInput.value = "";
    });
  });
  moveInput.addEventListener("input", () => {
    moveError.textContent = "";
  });

  /** Seen from the second player's side: the viewer plays o (hot seat: as drawn), unless they chose. */
  function flipped() {
    if (flipChoice !== null) return flipChoice;
    return Boolean(state && state.you === "o" && !state.hotseat);
  }

  /** The player whose side is nearest the viewer is drawn below the board, the other above. */
  function placeCards() {
    const turned = flipped();
    placedFlipped = turned;
    const [top, bottom] = turned ? [cards.x.el, cards.o.el] : [cards.o.el, cards.x.el];
    boardColumn.replaceChildren(top, boardBox, bottom, underBoard);
    if (board) board.setFlipped(turned);
    flipButton.setAttribute("aria-pressed", String(turned));
    flipButton.title = t("game.flipHint");
  }

  function playerCard(color) {
    const name = h("span", { class: "name" });
    const rating = h("span", { class: "rating" });
    const dot = h("span", { class: "presence", role: "img" });
    const count = h("span", { class: "count", dataset: { color } });
    const clock = h("span", { class: "clock", dataset: { color }, role: "timer", aria: { live: "off" } });
    // Ataxx: a dot of the side's piece colour; Awele: the side's name ("South"), drawn like a seed.
    const marker = h("span", { class: `swatch ${color}`, "aria-hidden": "true" });
    const el = h("div", { class: `player-card ${color}`, dataset: { color } },
      marker, h("span", { class: "who" }, dot, name, rating), count, clock);
    return { el, name, rating, dot, count, clock, marker };
  }

  /** An error of this game: one at a time (a new one replaces it), gone after a while. */
  function showError(text, typed) {
    if (typed) moveError.textContent = text;
    else toast(text, { kind: "error", key: `game-${id}` });
    announce(text);
  }

  async function play(move, { typed = false } = {}) {
    if (!state || pending) return false;
    if (!state.you || state.status !== "started") {
      showError(t("game.notYourGame"), typed);
      return false;
    }
    moveError.textContent = "";
    pending = true;
    drawBoard(false);
    drawStatus();
    try {
      await socket.move(id, move, state.moves.length);
      return true;
    } catch (err) {
      showError(errorText(err), typed);
      if (err.code === "stale" || err.code === "not-your-turn") socket.sub(id);
      return false;
    } finally {
      pending = false;
      if (!closed) {
        drawBoard(false);
        drawStatus();
      }
    }
  }

  async function act(kind) {
    try {
      await socket.request({ t: kind, game: id });
      return true;
    } catch (err) {
      if (!closed && err.code !== "unsubscribed") toast(errorText(err), { kind: "error", key: `game-${id}` });
      return false;
    }
  }

  function canPlay() {
    const moves = isAwele() ? (state.legal || []).length : Object.keys(state ? state.dests || {} : {}).length;
    return Boolean(state && !pending && state.status === "started" && state.you &&
      state.you === state.turn && moves > 0);
  }

  /** The drawing of the game being played: Awele's pits, or Ataxx's squares of the board's size. */
  function boardFits() {
    if (!board) return false;
    if (isAwele()) return board.kind === "awele";
    return board.kind !== "awele" && board.width === state.width && board.height === state.height;
  }

  function drawBoard(animate) {
    if (!state) return;
    if (!boardFits()) {
      board = isAwele()
        ? new AweleBoard({ onMove: play })
        : new Board({ width: state.width, height: state.height, onMove: play });
      board.setFlipped(flipped());
      mount(boardBox, board.el);
      moveInput.placeholder = isAwele() ? "C" : "a1a3";
      moveInput.maxLength = isAwele() ? 1 : 8;
      download.href = isAwele() ? `/api/games/${encodeURIComponent(id)}/record` : `/api/games/${encodeURIComponent(id)}/pgn`;
      download.download = `gameclub-${id}.${isAwele() ? "ogn" : "pgn"}`;
      download.textContent = isAwele() ? t("awele.downloadOgn") : t("game.downloadPgn");
      pgnNote.hidden = isAwele();
    }
    if (isAwele()) {
      board.update({ pits: state.pits, stores: state.stores, legal: state.legal || [], canPlay: canPlay(),
        last: state.last, animate });
    } else {
      // A delta's plies: the move and the forced passes after it; all their flips are animated.
      const flips = animate && state.plies ? state.plies.flatMap((p) => p.flipped || []) : null;
      board.update({ cells: state.cells, dests: state.dests, canPlay: canPlay(), last: state.last, animate, flips });
    }
    boardBox.classList.toggle("my-turn", canPlay());
    moveInput.disabled = !canPlay();
    moveForm.hidden = !state.you || state.status !== "started";
  }

  function drawCards() {
    const online = (presence && presence.online) || {};
    for (const c of ["x", "o"]) {
      const p = state.players[c] || {};
      const card = cards[c];
      mount(card.name, p.ai || !p.name
        ? playerName(p)
        : h("a", { href: `/player/${encodeURIComponent(p.name)}` }, p.name));
      card.rating.textContent = p.rating_text ? ` (${p.rating_text})` : "";
      const isOnline = c in online ? online[c] : p.online !== false;
      card.dot.className = `presence ${isOnline ? "online" : "offline"}`;
      card.dot.setAttribute("aria-label", isOnline ? t("game.online") : t("game.offline"));
      card.dot.title = card.dot.getAttribute("aria-label");
      card.count.textContent = isAwele() ? t("awele.stored", { n: state.stores[c] }) : t("game.pieces", { n: state.counts[c] });
      if (isAwele()) {
        card.marker.className = `side-marker ${c}`;
        card.marker.removeAttribute("aria-hidden");
        card.marker.textContent = side(c);
      } else {
        card.marker.className = `swatch ${c}`;
        card.marker.setAttribute("aria-hidden", "true");
        card.marker.textContent = "";
      }
      card.el.classList.toggle("to-move", state.status === "started" && state.turn === c);
      card.el.classList.toggle("you", state.you === c);
    }
    const n = isAwele() ? state.stores : state.counts;
    counts.textContent = t(isAwele() ? "awele.storesLine" : "game.countsLine",
      { xName: side("x"), x: n.x, oName: side("o"), o: n.o });
  }

  function drawClocks() {
    if (!state) return;
    const clocks = state.clocks;
    for (const c of ["x", "o"]) {
      const el = cards[c].clock;
      if (!clocks) {
        el.hidden = true;
        continue;
      }
      el.hidden = false;
      let left = clocks[c];
      const running = state.status === "started" && clocks.running === c;
      if (running) left -= performance.now() - clockAnchor;
      el.textContent = formatClock(left);
      el.classList.toggle("running", running);
      el.classList.toggle("low", left < LOW_TIME_MS);
      el.setAttribute("aria-label", t("game.clockLabel", { color: side(c), time: formatClock(left) }));
    }
  }

  function claimAt() {
    if (presence && "claim_at" in presence) return presence.claim_at;
    return state ? state.claim_at : null;
  }

  function drawNotice() {
    const parts = [];
    if (!state) return;
    const you = state.you;
    const last = state.last;
    if (last && last.auto && last.move === "0000") {
      parts.push(h("p", { class: "pass-notice" }, t("game.forcedPass", { color: side(last.by) })));
    }
    if (state.status === "started" && state.draw_offer) {
      parts.push(h("p", { class: "offer" }, state.draw_offer === you
        ? t("game.drawOffered")
        : t("game.drawOfferFrom", { color: side(state.draw_offer) })));
    }
    const ca = claimAt();
    if (you && state.status === "started" && ca) {
      const wait = Math.max(0, Math.ceil((ca - socket.serverNow()) / 1000));
      parts.push(h("p", { class: "offer", id: "claim-notice" }, wait > 0
        ? t("game.opponentGoneWait", { s: wait })
        : t("game.opponentGone")));
    }
    if (state.status !== "started" && state.rematch_offer && !state.rematch) {
      parts.push(h("p", { class: "offer" }, state.rematch_offer === you
        ? t("game.rematchOffered")
        : t("game.rematchOfferFrom", { color: side(state.rematch_offer) })));
    }
    if (state.status === "started" && state.takeback_offer) {
      parts.push(h("p", { class: "offer", id: "takeback-notice" }, state.takeback_offer === you
        ? t("game.takebackAsked")
        : t("game.takebackFrom", { color: side(state.takeback_offer) })));
    }
    if (state.hotseat && you) parts.push(h("p", { class: "hint", id: "hotseat-notice" }, t("game.hotseatHint")));
    if (!you) parts.push(h("p", { class: "hint", id: "watching-notice" }, t("game.watching")));
    mount(notice, parts);
  }

  function button(label, cls, onClick, attrs = {}) {
    const b = h("button", { type: "button", class: cls, ...attrs }, label);
    b.addEventListener("click", async () => {
      b.disabled = true;
      await onClick(b);
      if (b.isConnected) b.disabled = false;
    });
    return b;
  }

  function drawActions() {
    const out = [];
    const you = state.you;
    const opp = you ? OTHER[you] : null;
    const live = state.status === "started";
    const vsComputer = opp && state.players[opp] && state.players[opp].ai;
    if (you && live) {
      if (state.abortable) out.push(button(t("game.abort"), "abort", () => act("abort"), { id: "abort" }));
      const resign = button(resignArmed ? t("game.resignConfirm") : t("game.resign"),
        resignArmed ? "danger confirm" : "danger", async () => {
          if (resignArmed) {
            clearTimeout(resignArmed);
            resignArmed = null;
            await act("resign");
          } else {
            resignArmed = setTimeout(() => {
              resignArmed = null;
              if (state) drawActions();
            }, 4000);
            drawActions();
          }
        }, { id: "resign" });
      out.push(resign);
      if (!vsComputer && !state.hotseat) { // on the hot seat both sides are you: nobody to offer a draw to
        if (state.draw_offer === opp) {
          out.push(button(t("game.acceptDraw"), "primary", () => act("draw"), { id: "draw-accept" }));
          out.push(button(t("game.declineDraw"), "", () => act("draw-decline"), { id: "draw-decline" }));
        } else if (state.draw_offer !== you) {
          out.push(button(t("game.offerDraw"), "", () => act("draw"), { id: "draw-offer" }));
        }
      }
      if (state.takebacks) out.push(...takebackButtons(vsComputer));
      const ca = claimAt();
      if (ca) {
        const ready = socket.serverNow() >= ca;
        const claim = button(t("game.claim"), "primary", () => act("claim"), { id: "claim" });
        claim.disabled = !ready;
        out.push(claim);
      }
    }
    if (you && !live && state.takebacks && (vsComputer || state.hotseat) && !state.rematch &&
        state.result && RULES_ENDINGS.has(state.result.reason)) {
      out.push(...takebackButtons(vsComputer));
    }
    if (you && !live) {
      // Ataxx speaks of the board ("Same board again"); Awele has one board.
      out.push(button(t(isAwele() ? "awele.playAgain" : "game.playAgain"), "", playAgain, { id: "play-again" }));
      if (state.rematch) {
        out.push(h("a", { class: "button primary", href: `/game/${state.rematch}`, id: "rematch-open" }, t("game.openRematch")));
      } else if (state.rematch_offer === opp) {
        out.push(button(t("game.acceptRematch"), "primary", () => act("rematch"), { id: "rematch-accept" }));
        out.push(button(t("game.declineRematch"), "", () => act("rematch-decline"), { id: "rematch-decline" }));
      } else if (state.rematch_offer !== you) {
        out.push(button(t("game.rematch"), "primary", () => act("rematch"), { id: "rematch" }));
      }
    }
    if (!live) out.push(h("a", { class: "button", href: "/" }, t("game.backHome")));
    mount(actions, out);
  }

  /** Undo: at once against the computer and on the hot seat; against a person, ask. */
  function takebackButtons(vsComputer) {
    const you = state.you;
    const opp = OTHER[you];
    if (vsComputer || state.hotseat) {
      const b = button(t("game.takeback"), "", () => act("takeback"), { id: "takeback" });
      b.disabled = state.moves.length === 0;
      return [b];
    }
    if (state.takeback_offer === opp) {
      return [button(t("game.acceptTakeback"), "primary", () => act("takeback"), { id: "takeback-accept" }),
        button(t("game.declineTakeback"), "", () => act("takeback-decline"), { id: "takeback-decline" })];
    }
    if (state.takeback_offer === you) return [];
    const b = button(t("game.askTakeback"), "", () => act("takeback"), { id: "takeback" });
    b.disabled = state.moves.length === 0;
    return [b];
  }

  /** The same board, rules and start again, against the same kind of opponent. */
  async function playAgain() {
    try {
      const body = await post(`/api/games/${encodeURIComponent(id)}/again`);
      if (body.game) navigate(`/game/${body.game}`);
      else if (body.invitation) {
        toast(t("game.againInvited", { name: body.invitation.to ? body.invitation.to.name : "?" }));
      }
    } catch (err) {
      toast(errorText(err), { kind: "error" });
    }
  }

  function drawBanner() {
    if (!state.result) {
      banner.hidden = true;
      return;
    }
    banner.hidden = false;
    const you = state.you;
    let mood = "neutral";
    if (you && state.result.winner) mood = state.result.winner === you ? "won" : "lost";
    banner.className = `result-banner ${mood}`;
    banner.dataset.reason = state.result.reason;
    banner.dataset.winner = state.result.winner || "none";
    const head = you && state.result.reason !== "aborted"
      ? (state.result.winner === you ? t("result.youWin") : state.result.winner ? t("result.youLose") : t("result.draw"))
      : t("result.over");
    const diff = state.result.rating_diff && you ? state.result.rating_diff[you] : null;
    mount(banner,
      h("strong", { class: "result-head" }, head),
      h("span", { class: "result-text" }, resultText(state.result, state.kind)),
      diff !== null && diff !== undefined
        ? h("span", { class: "rating-diff" }, t("result.ratingDiff", { diff: diff > 0 ? `+${diff}` : String(diff) }))
        : null,
      h("a", { href: `/replay/${id}`, class: "button" }, t("result.replay")));
  }

  function drawStatus() {
    const you = state.you;
    let text;
    if (state.status !== "started") text = resultText(state.result, state.kind) || t("result.over");
    else if (pending) text = t("game.sending");
    else if (state.hotseat && you) text = t("game.toMove", { color: side(state.turn) });
    else if (you && state.turn === you) text = t("game.yourTurn");
    else if (you) text = t("game.waitingFor", { name: playerName(state.players[state.turn]) });
    else text = t("game.toMove", { color: side(state.turn) });
    status.textContent = text;
    const n = state.spectators || 0;
    watchers.textContent = t("game.spectators", { n });
    watchers.dataset.count = String(n);
  }

  /** The rules, the board (its Blocs-Config code, a link to the editor) and the clock. */
  function drawSettings() {
    if (isAwele()) {
      const start = state.start === "custom" && state.start_position
        ? [" · ", t("awele.startFrom"), ": ", h("code", { id: "game-position" }, state.start_position)]
        : [];
      mount(settingsLine, h("span", { class: "game-name", id: "game-name" }, gameName("awele")), " · ",
        h("a", { href: `/awele/rules#ruleset-${state.rules}` }, state.rules), " · ", clockText(state.clock),
        state.rated ? ` · ${t("settings.ratedShort")}` : "", start);
      return;
    }
    const blocks = state.blocks
      ? h("a", { href: `/editor?blocks=${encodeURIComponent(state.blocks)}`, id: "game-blocks" }, state.blocks)
      : h("span", { id: "game-blocks" }, blocksText(null));
    mount(settingsLine, h("span", { class: "game-name", id: "game-name" }, gameName("ataxx")), " · ",
      state.rules, " · ", t("settings.blocks"), ": ", blocks, " · ", clockText(state.clock),
      state.rated ? ` · ${t("settings.ratedShort")}` : "");
  }

  function drawTitle() {
    const x = playerName(state.players.x);
    const o = playerName(state.players.o);
    title.textContent = t("game.title", { x, o });
    document.title = `${x} – ${o} · ${t("app.name")}`;
  }

  function drawAll(animate) {
    drawTitle();
    drawSettings();
    if (placedFlipped !== flipped()) placeCards();
    drawBoard(animate);
    drawCards();
    drawClocks();
    drawNotice();
    drawActions();
    drawBanner();
    drawStatus();
    drawMoves();
  }

  function drawMoves() {
    mount(moveList, renderMoveList(state.moves, { startMover: moverOf(0, state.moves.length, state.turn),
      sideName: isAwele() ? side : undefined, game: state.kind, captured: isAwele() ? captured : [] }));
  }

  /** Awele: what each move captured, from the states seen and, for the moves before, the record. */
  function noteCaptures(msg) {
    if (msg.kind !== "awele") return;
    const n = msg.moves.length;
    captured.length = Math.min(captured.length, n); // a takeback forgets the moves taken back
    if (n > 0 && msg.last && typeof msg.last.seeds === "number") captured[n - 1] = msg.last.seeds;
    let known = true;
    for (let i = 0; i < n - 1; i++) if (captured[i] === undefined) known = false;
    if (known || capturesAsked) return;
    capturesAsked = true;
    get(`/api/games/${encodeURIComponent(id)}`).then((record) => {
      capturesAsked = false;
      if (closed || !state) return;
      (record.positions || []).slice(1).forEach((pos, i) => {
        // Only the moves this page shows (the record may be a move older or newer).
        if (i < state.moves.length && record.moves[i] === state.moves[i] && captured[i] === undefined) {
          captured[i] = pos.last && typeof pos.last.seeds === "number" ? pos.last.seeds : 0;
        }
      });
      drawMoves();
    }, () => {
      capturesAsked = false; // asked again with the next state
    });
  }

  function announceChanges(old, next) {
    const n = next.moves.length;
    const from = old ? old.moves.length : n;
    if (old && n > from) {
      const start = Math.max(from, n - 2);
      for (let i = start; i < n; i++) {
        const mover = moverOf(i, n, next.turn);
        const move = next.moves[i];
        if (next.kind === "awele") {
          const last = i === n - 1 ? next.last : null;
          const seeds = last && last.captured && last.captured.length ? capturedSeeds(old, last) : 0;
          announce(seeds
            ? t("awele.announce.capture", { color: side(mover), pit: move, n: seeds })
            : t("awele.announce.move", { color: side(mover), pit: move }));
        } else if (move === "0000") announce(t("announce.pass", { color: side(mover) }));
        else {
          const flipped = i === n - 1 && next.last ? (next.last.flipped || []).length : null;
          announce(flipped !== null
            ? t("announce.moveFlips", { color: side(mover), move: spokenMove(move), n: flipped })
            : t("announce.move", { color: side(mover), move: spokenMove(move) }));
        }
      }
    }
    if (next.result && (!old || !old.result)) {
      announce(t("announce.result", { text: resultText(next.result, next.kind) }));
      if (old && next.you) loadMe().catch(() => {}); // the header's rating, the games in progress
    }
    else if (next.status === "started" && next.you && next.turn === next.you && (!old || old.turn !== next.turn)) {
      // The move announcement already says it; this adds "your turn" for players.
      setTimeout(() => announce(t("game.yourTurn")), 50);
    }
    if (old && next.draw_offer && next.draw_offer !== old.draw_offer && next.draw_offer !== next.you) {
      announce(t("game.drawOfferFrom", { color: side(next.draw_offer) }));
    }
    if (old && next.takeback_offer && next.takeback_offer !== old.takeback_offer && next.takeback_offer !== next.you) {
      announce(t("game.takebackFrom", { color: side(next.takeback_offer) }));
    }
    if (old && next.moves.length < old.moves.length) announce(t("game.takenBack", { n: old.moves.length - next.moves.length }));
    if (old && next.rematch_offer && next.rematch_offer !== old.rematch_offer && next.rematch_offer !== next.you) {
      announce(t("game.rematchOfferFrom", { color: side(next.rematch_offer) }));
    }
  }

  /** The seeds a move captured: what the mover's store gained. */
  function capturedSeeds(old, last) {
    if (!old || !old.stores || !state || !state.stores) return last.captured.length;
    return Math.max(0, state.stores[last.by] - old.stores[last.by]);
  }

  function spokenMove(move) {
    const { from, to } = moveSquares(move);
    return from ? t("announce.jump", { from, to }) : t("announce.clone", { to });
  }

  const offState = socket.on("state", (msg) => {
    if (msg.game !== id || closed) return;
    const old = state;
    state = msg;
    presence = null;
    clockAnchor = performance.now();
    if (!old || old.kind !== msg.kind) setPageGames([msg.kind || "ataxx"]);
    noteCaptures(msg);
    const animate = Boolean(old && old.moves.length < msg.moves.length);
    announceChanges(old, msg);
    drawAll(animate);
    if (animate && msg.kind === "awele") {
      // A tick per captured pit once the seeds are sown.
      playMoveSound({ flips: (msg.last && msg.last.captured || []).length, flipsAfterMs: captureDelay(msg.last) + 60 });
    } else if (animate) {
      playMoveSound({ flips: (msg.last && msg.last.flipped || []).length });
    }
    if (!old) title.focus({ preventScroll: true });
  });
  const offPresence = socket.on("presence", (msg) => {
    if (msg.game !== id || !state) return;
    presence = msg;
    state.spectators = msg.spectators;
    drawCards();
    drawNotice();
    drawActions();
    drawStatus();
  });
  const offError = socket.on("error", (msg) => {
    if (msg.game !== id || msg.id !== undefined && msg.id !== null) return;
    if (msg.code === "no-such-game") {
      mount(main, h("h1", { tabindex: -1 }, t("game.notFound")), h("a", { href: "/" }, t("nav.home")));
    }
  });
  const offStart = socket.on("start", (msg) => {
    if (msg.game !== id && state && state.rematch === msg.game) navigate(`/game/${msg.game}`);
  });
  const offStatus = socket.on("status", (s) => {
    if (s === "open" || !state) return;
    drawBoard(false);
  });

  // Keyboard: Escape cancels a selection anywhere on the page.
  const onKey = (e) => {
    if (e.key === "Escape" && board) board.cancel();
  };
  document.addEventListener("keydown", onKey);

  let lastClaimCheck = 0;
  const ticker = setInterval(() => {
    drawClocks();
    const ca = state && claimAt();
    if (ca && performance.now() - lastClaimCheck > 500) {
      lastClaimCheck = performance.now();
      drawNotice();
      const claim = document.getElementById("claim");
      if (claim) claim.disabled = socket.serverNow() < ca;
    }
  }, 100);

  socket.sub(id);

  return () => {
    closed = true;
    clearInterval(ticker);
    clearTimeout(resignArmed);
    document.removeEventListener("keydown", onKey);
    offState();
    offPresence();
    offError();
    offStart();
    offStatus();
    socket.unsub(id);
    document.title = t("app.name");
  };
}
