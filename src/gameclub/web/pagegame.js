// pagegame.js — which game the current page is about, for the header's rating.
//
// Pages of one game say so in their path (`/awele/...`, `?game=awele`); a game
// or a replay knows its game only once loaded and tells it here
// (`setPageGames`). A player's page is about both games. What a view said holds
// for the page it said it on only, so a late answer never leaks to the next page.

const listeners = new Set();
let told = null; // {page: the path and query it was told for, games}

function here() {
  return location.pathname + location.search;
}

/** The games a path is about before its page says more ([] while it does not know yet). */
export function gamesOfPath(pathname, search = "") {
  if (pathname.startsWith("/player/")) return ["ataxx", "awele"];
  if (pathname.startsWith("/game/") || pathname.startsWith("/replay/")) return [];
  if (pathname.startsWith("/awele/")) return ["awele"];
  return new URLSearchParams(search).get("game") === "awele" ? ["awele"] : ["ataxx"];
}

/** The games of the page shown now. */
export function pageGames() {
  if (told && told.page === here()) return told.games;
  return gamesOfPath(location.pathname, location.search);
}

/** The current page is about ``games`` (["awele"], ...): listeners redraw. */
export function setPageGames(games) {
  told = { page: here(), games: [...games] };
  for (const fn of listeners) fn(told.games);
}

export function onPageGames(fn) {
  listeners.add(fn);
  return () => listeners.delete(fn);
}
