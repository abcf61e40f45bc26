// socket.js — the one WebSocket of the page (/ws): reconnects, resyncs, acks.
//
// * Reconnects by itself with a back-off (0.5 s, 1 s, 2 s, ... up to 10 s),
//   then sends `sub` again for every game it follows (and `lobby` if it was
//   watching the lobby): the server answers each with a full `state`.
// * Keeps the version `v` and the last state of every game it follows, and
//   drops a broadcast `state` that is not newer; the answer to its own `sub`
//   is always taken.
// * After a move the server sends a small `delta` (version v + 1): it is
//   applied to the state held and listeners get the new full state as a
//   `state` event (`fromDelta: true`). A delta that does not follow the state
//   held (a version gap) asks for a resync: `sub` with the version held, which
//   the server answers with a full state. `presence` updates are folded into
//   the state held too, so that a state rebuilt later still shows them.
// * `request(msg)` gives the message an id and resolves with the server's
//   `ack` (or rejects with its `error`).
// * A move sent but not acknowledged when the socket closed is sent again
//   after the resync, with the same `ply`, if the game still waits for it;
//   the server applies it at most once.
// * A ping every 20 s; a socket silent for 45 s is treated as dead.

import { loadMe } from "./api.js";

/** Fields of a `delta` that replace the state's field of the same name. */
const DELTA_FIELDS = ["fen", "turn", "counts", "dests", "clocks", "draw_offer", "takeback_offer",
  "abortable", "claim_at"];
/** The same for Awele: the position text, pits, stores and legal pits instead of the board's cells. */
const AWELE_DELTA_FIELDS = ["position", "pits", "stores", "legal", "turn", "clocks", "draw_offer",
  "takeback_offer", "abortable", "claim_at"];

/** The `cells` rows (top row first) of a FEN's board field: digits are runs of empty squares. */
export function cellsOfFen(fen) {
  return fen.split(" ", 1)[0].split("/").map((rank) =>
    rank.replace(/[0-9]/g, (n) => ".".repeat(Number(n))).replace(/-/g, "#"));
}

/**
 * The state after ``delta`` (docs/protocol.md), or null when the delta does not
 * follow ``state`` (another version or another move count): then resync.
 */
export function applyDelta(state, delta) {
  if (!state || delta.v !== state.v + 1 || delta.ply !== state.moves.length ||
      !Array.isArray(delta.plies) || delta.plies.length === 0) return null;
  const next = { ...state, v: delta.v, fromDelta: true, plies: delta.plies };
  const awele = state.kind === "awele";
  for (const name of awele ? AWELE_DELTA_FIELDS : DELTA_FIELDS) next[name] = delta[name];
  next.moves = state.moves.concat(delta.plies.map((p) => p.move));
  next.last = delta.plies[delta.plies.length - 1];
  if (!awele) next.cells = cellsOfFen(delta.fen);
  // On the hot seat the player acts for the side to move.
  if (state.hotseat && state.you) next.you = delta.turn;
  return next;
}

const PING_EVERY_MS = 20000;
const SILENT_LIMIT_MS = 45000;
const MAX_BACKOFF_MS = 10000;

export class SocketError extends Error {
  constructor(code, message) {
    super(message || code);
    this.code = code;
  }
}

class ClubSocket {
  constructor() {
    this.ws = null;
    this.state = "idle"; // idle | connecting | open | closed
    this.attempt = 0;
    this.nextId = 1;
    this.listeners = new Map(); // type -> Set(fn)
    this.games = new Map(); // game id -> {v, awaitingSub, state}
    this.lobby = false;
    this.requests = new Map(); // id -> {resolve, reject, msg}
    this.moves = new Map(); // game id -> {msg, resolve, reject}: moves waiting for their ack
    this.serverOffset = 0; // server clock minus ours, ms
    this.lastHeard = 0;
    this.timer = null;
    this.retry = null;
  }

  /** Listen to messages of type ``t`` ("state", "presence", ...) or "status"; returns an unlisten function. */
  on(type, fn) {
    if (!this.listeners.has(type)) this.listeners.set(type, new Set());
    this.listeners.get(type).add(fn);
    return () => this.listeners.get(type).delete(fn);
  }

  emit(type, data) {
    for (const fn of [...(this.listeners.get(type) || [])]) {
      try {
        fn(data);
      } catch (err) {
        console.error(err);
      }
    }
  }

  /** Server time now (epoch ms), from the offset measured on welcome and pong. */
  serverNow() {
    return Date.now() + this.serverOffset;
  }

  connect() {
    if (this.ws && (this.state === "open" || this.state === "connecting")) return;
    clearTimeout(this.retry);
    this.state = "connecting";
    this.emit("status", this.state);
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    let ws;
    try {
      ws = new WebSocket(`${scheme}//${location.host}/ws`);
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.ws = ws;
    ws.addEventListener("open", () => {
      if (ws !== this.ws) return;
      this.state = "open";
      this.attempt = 0;
      this.lastHeard = Date.now();
      this.emit("status", this.state);
      this.resync();
      clearInterval(this.timer);
      this.timer = setInterval(() => this.heartbeat(), PING_EVERY_MS);
    });
    ws.addEventListener("message", (event) => {
      if (ws !== this.ws) return;
      this.lastHeard = Date.now();
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        return;
      }
      this.receive(msg);
    });
    ws.addEventListener("close", () => {
      if (ws !== this.ws) return;
      this.dropped();
    });
  }

  /** Close and open again (a new session cookie after login / logout). */
  restart() {
    const old = this.ws;
    this.ws = null;
    this.state = "idle";
    if (old) old.close();
    this.failRequests("disconnected");
    this.connect();
  }

  dropped() {
    this.ws = null;
    this.state = "closed";
    clearInterval(this.timer);
    this.failRequests("disconnected");
    this.emit("status", this.state);
    this.scheduleReconnect();
  }

  scheduleReconnect() {
    const delay = Math.min(MAX_BACKOFF_MS, 500 * 2 ** this.attempt);
    this.attempt += 1;
    clearTimeout(this.retry);
    this.retry = setTimeout(() => this.connect(), delay);
  }

  heartbeat() {
    if (this.state !== "open") return;
    if (Date.now() - this.lastHeard > SILENT_LIMIT_MS) {
      // Half-open connection: nothing heard for too long. Start over.
      const ws = this.ws;
      this.dropped();
      try {
        ws.close();
      } catch {
        /* already closed */
      }
      return;
    }
    this.sendRaw({ t: "ping" });
  }

  failRequests(code) {
    for (const [id, req] of this.requests) {
      if (req.msg.t === "move") continue; // kept for the resend after the resync
      req.reject(new SocketError(code, "the connection was lost"));
      this.requests.delete(id);
    }
  }

  sendRaw(msg) {
    if (this.state !== "open" || !this.ws) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  resync() {
    for (const [game, info] of this.games) {
      info.awaitingSub = true;
      this.sendRaw(info.v ? { t: "sub", game, v: info.v } : { t: "sub", game });
    }
    if (this.lobby) this.sendRaw({ t: "lobby" });
  }

  /** Send ``msg`` with an id; resolves with the ack, rejects with the error. */
  request(msg) {
    const id = this.nextId++;
    const full = { ...msg, id };
    return new Promise((resolve, reject) => {
      const req = { resolve, reject, msg: full, sentOn: null };
      this.requests.set(id, req);
      if (this.sendRaw(full)) {
        req.sentOn = this.ws;
      } else if (msg.t !== "move") {
        this.requests.delete(id);
        reject(new SocketError("disconnected", "not connected"));
      }
    });
  }

  /** Play ``move`` as move number ``ply`` of ``game``. */
  move(game, move, ply) {
    return this.request({ t: "move", game, move, ply });
  }

  /** Follow a game: a full state now, then every change. */
  sub(game) {
    const info = this.games.get(game) || { v: 0, awaitingSub: true, state: null };
    info.awaitingSub = true;
    this.games.set(game, info);
    this.sendRaw({ t: "sub", game });
  }

  unsub(game) {
    if (!this.games.delete(game)) return;
    this.sendRaw({ t: "unsub", game });
    for (const [id, req] of this.requests) {
      if (req.msg.game === game) {
        req.reject(new SocketError("unsubscribed", "left the game"));
        this.requests.delete(id);
      }
    }
  }

  watchLobby(on) {
    this.lobby = on;
    this.sendRaw({ t: on ? "lobby" : "unlobby" });
  }

  receive(msg) {
    switch (msg.t) {
      case "welcome":
      case "pong":
        if (typeof msg.now === "number") this.serverOffset = msg.now - Date.now();
        break;
      case "ack": {
        const req = this.requests.get(msg.id);
        if (req) {
          this.requests.delete(msg.id);
          req.resolve(msg);
        }
        break;
      }
      case "error": {
        const req = msg.id !== undefined && msg.id !== null ? this.requests.get(msg.id) : null;
        if (req) {
          this.requests.delete(msg.id);
          req.reject(new SocketError(msg.code, msg.message));
        } else if (msg.code === "not-logged-in") {
          // The session is unknown to the server (a new database): get a new one.
          loadMe().then(() => this.restart(), () => {});
          return;
        }
        break;
      }
      case "state": {
        const info = this.games.get(msg.game);
        if (!info) return; // a game we left
        if (!info.awaitingSub && msg.v <= info.v) return; // stale broadcast
        info.awaitingSub = false;
        info.v = msg.v;
        info.state = msg;
        this.afterState(msg);
        break;
      }
      case "delta": {
        const info = this.games.get(msg.game);
        if (!info || info.awaitingSub || msg.v <= info.v) return; // left, resyncing, or stale
        const next = applyDelta(info.state, msg);
        if (!next) {
          this.resyncGame(msg.game, info);
          return;
        }
        info.v = next.v;
        info.state = next;
        this.afterState(next);
        this.emit("state", next);
        return;
      }
      case "presence": {
        const info = this.games.get(msg.game);
        const state = info && info.state;
        if (state) {
          state.spectators = msg.spectators;
          state.claim_at = msg.claim_at;
          const players = { ...state.players };
          for (const c of ["x", "o"]) {
            if (players[c] && msg.online && c in msg.online) players[c] = { ...players[c], online: msg.online[c] };
          }
          state.players = players;
        }
        break;
      }
      default:
        break;
    }
    this.emit(msg.t, msg);
  }

  /** A version gap: ask for the full state again (``sub`` with the version held). */
  resyncGame(game, info) {
    info.awaitingSub = true;
    this.sendRaw(info.v ? { t: "sub", game, v: info.v } : { t: "sub", game });
  }

  /** After a state: settle moves still waiting from before a reconnect. */
  afterState(state) {
    for (const [id, req] of this.requests) {
      const m = req.msg;
      if (m.t !== "move" || m.game !== state.game) continue;
      if (state.moves.length > m.ply && state.moves[m.ply] === m.move) {
        this.requests.delete(id);
        req.resolve({ t: "ack", id, game: state.game, v: state.v });
      } else if (state.status !== "started" || state.moves.length !== m.ply) {
        this.requests.delete(id);
        req.reject(new SocketError("stale", "the game moved on"));
      } else if (this.state === "open" && req.sentOn !== this.ws) {
        // Still waiting for this very move: send it again (applied at most once).
        req.sentOn = this.ws;
        this.sendRaw(m);
      }
    }
  }
}

/** The page's one socket. */
export const socket = new ClubSocket();
