// prefs.js — the player's piece colours: a preference for drawing, never a rule.
//
// x always moves first whatever its colour. Accounts keep the choice on the
// server (GET /api/me `prefs`, POST /api/prefs); guests keep it in this
// browser (localStorage). The colours are applied as the CSS variables the
// board, the player cards and the move list use (--red for x, --blue for o),
// and the names ("green piece") follow them in labels and announcements.

import { post, session } from "./api.js";
import { t } from "./i18n.js";

export const PALETTE = {
  red: "#d64541",
  blue: "#2f6fd6",
  green: "#2e9d5b",
  yellow: "#d9a400",
  purple: "#8e44ad",
  orange: "#e67e22",
  black: "#2b2b2b",
  white: "#f2f2f2",
};
export const DEFAULT_COLORS = { x: "red", o: "blue" };
const STORAGE_KEY = "gameclub.pieceColors";

function valid(colors) {
  return Boolean(colors && PALETTE[colors.x] && PALETTE[colors.o] && colors.x !== colors.o);
}

function stored() {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) || "null");
    return valid(value) ? value : null;
  } catch {
    return null;
  }
}

/** The colours in force: the account's, else this browser's, else red and blue. */
export function pieceColors() {
  const fromAccount = session.user && !session.user.guest && session.prefs && session.prefs.colors;
  if (valid(fromAccount)) return { ...fromAccount };
  return stored() || { ...DEFAULT_COLORS };
}

/**
 * The name of side ``c`` by its colour ("Red"; in Russian the plural "Красные",
 * which the verbs of the sentences around it agree with), for labels and
 * announcements. ``colors`` overrides the colours in force (the rules page
 * speaks of red and blue whatever the player chose).
 */
export function colorLabel(c, colors = pieceColors()) {
  const name = colors[c];
  return name ? t(`side.${name}`) : "";
}

/** The name of a piece of side ``c`` ("red piece"). */
export function pieceLabel(c, colors = pieceColors()) {
  const name = colors[c];
  return t("board.pieceOf", { color: name ? t(`palette.${name}`).toLowerCase() : "" });
}

/** Paint the page with the colours in force. */
export function applyColors() {
  const colors = pieceColors();
  const root = document.documentElement;
  root.style.setProperty("--red", PALETTE[colors.x]);
  root.style.setProperty("--blue", PALETTE[colors.o]);
  root.dataset.pieceX = colors.x;
  root.dataset.pieceO = colors.o;
}

/** Choose new colours: stored on the server for accounts, in this browser for guests. */
export async function savePieceColors(colors) {
  if (!valid(colors)) throw new Error(t("prefs.invalid"));
  if (session.user && !session.user.guest) {
    const body = await post("/api/prefs", { colors });
    session.prefs = body.prefs;
  } else {
    localStorage.setItem(STORAGE_KEY, JSON.stringify(colors));
  }
  applyColors();
}
