// views/home.js — the club's front page and lobby.
//
// A newcomer plays within one click: "Play the computer" starts a game with
// sensible defaults (red, moves first, the simple computer, classic rules).
// Below: games in progress, invitations received, the full computer form,
// and the lobby (open seeks to accept or cancel, and a form to create one),
// with the live "N online · M searching" counts from the `lobby` messages.

import { ApiError, del, get, loadMe, post, session } from "../api.js";
import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { colorLabel } from "../prefs.js";
import { navigate } from "../router.js";
import { socket } from "../socket.js";
import { errorText, toast } from "../ui.js";
import { gameName } from "./game.js";
import { DEFAULT_OPTIONS, loadOptions, settingsForm, settingsSummary, sideText } from "./settings.js";
import { invitationList } from "./invite.js";
import { setPageGames } from "../pagegame.js";

export const QUICK_GAME = { level: "simple", color: "x", rules: "ataxx", blocks: null, clock: null };
/** The same one-click game of Awele: South, against the greedy computer, the club's rules. */
export const QUICK_AWELE = { game: "awele", level: "greedy", color: "x", rules: "awele", clock: null };
const QUICK_GAME_KEY = "gameclub.quickGame";

/** The game the quick buttons start: the one chosen last in this browser, else Ataxx. */
function quickGame() {
  try {
    return localStorage.getItem(QUICK_GAME_KEY) === "awele" ? "awele" : "ataxx";
  } catch {
    return "ataxx";
  }
}

/** POST /api/games/ai and open the game. */
export async function playComputer(body, errorBox) {
  try {
    const { game } = await post("/api/games/ai", body);
    navigate(`/game/${game}`);
  } catch (err) {
    if (errorBox) errorBox.textContent = errorText(err);
    else toast(errorText(err), { kind: "error" });
  }
}

export function countsText(lobby) {
  if (!lobby) return t("lobby.countsUnknown");
  return t("lobby.counts", { online: lobby.online, searching: lobby.searching });
}

export function homeView(main) {
  const counts = h("p", { class: "counts", id: "lobby-counts", aria: { live: "off" } }, countsText(null));
  const quickError = h("p", { class: "form-error", role: "alert" });
  const quick = h("button", { class: "big primary", id: "play-computer", type: "button" }, t("home.playComputer"));
  quick.addEventListener("click", async () => {
    quick.disabled = true;
    await playComputer(chosen.value === "awele" ? QUICK_AWELE : QUICK_GAME, quickError);
    quick.disabled = false;
  });
  // Which game the one-click buttons start (remembered in this browser).
  const chosen = { value: quickGame() };
  const quickHint = h("p", { class: "hint", id: "quick-hint" });
  const gameButtons = ["ataxx", "awele"].map((g) => {
    const b = h("button", { type: "button", class: "small", id: `quick-${g}`, dataset: { game: g } }, gameName(g));
    b.addEventListener("click", () => {
      chosen.value = g;
      try {
        localStorage.setItem(QUICK_GAME_KEY, g);
      } catch {
        // storage disabled: the choice lasts for this page
      }
      drawQuick();
    });
    return b;
  });
  const quickChoice = h("div", { class: "quick-game", id: "quick-game", role: "group", "aria-label": t("settings.game") },
    gameButtons);
  const learn = h("a", { href: "/learn", id: "learn-link" }, t("home.learn"));
  const newHere = h("span", { id: "new-here" });
  const drawQuick = () => {
    for (const b of gameButtons) b.setAttribute("aria-pressed", String(b.dataset.game === chosen.value));
    const awele = chosen.value === "awele";
    quickHint.textContent = awele
      ? t("awele.quickHint", { side: t("awele.side.x") })
      : t("home.quickHint", { color: colorLabel("x").toLowerCase() });
    newHere.textContent = awele ? t("awele.newHere") : t("home.newHere");
    learn.href = awele ? "/awele/learn" : "/learn";
    setPageGames([chosen.value]); // the header's rating: that of the game chosen here
  };
  drawQuick();

  const hotseat = h("button", { class: "button", id: "play-hotseat", type: "button" }, t("home.hotseat"));
  hotseat.addEventListener("click", async () => {
    hotseat.disabled = true;
    try {
      const body = chosen.value === "awele"
        ? { game: "awele", rules: "awele", clock: null }
        : { rules: "ataxx", blocks: null, clock: null };
      const { game } = await post("/api/games/hotseat", body);
      navigate(`/game/${game}`);
    } catch (err) {
      quickError.textContent = errorText(err);
      hotseat.disabled = false;
    }
  });

  const resume = h("section", { class: "panel", id: "my-games", hidden: true });
  const incoming = h("section", { class: "panel", id: "incoming", hidden: true });
  const aiBox = h("div");
  const seekBox = h("div");
  const seeksBox = h("div", { id: "seeks" });
  // The lobby shows the seeks of both games unless a game is chosen here.
  const seekFilter = h("select", { id: "seek-filter", name: "seek-filter" },
    h("option", { value: "" }, t("games.all")),
    h("option", { value: "ataxx" }, gameName("ataxx")),
    h("option", { value: "awele" }, gameName("awele")));
  seekFilter.addEventListener("change", () => drawSeeks());

  mount(main,
    h("section", { class: "hero" },
      h("h1", { tabindex: -1 }, t("home.title")),
      h("p", { class: "tagline" }, t("home.tagline")),
      counts,
      h("p", { class: "welcome" }, t("home.guestsWelcome")),
      h("p", { class: "games-line" }, t("home.games"), " ",
        h("a", { href: "/rules", id: "ataxx-rules-link" }, gameName("ataxx")), " · ",
        h("a", { href: "/awele/rules", id: "awele-rules-link" }, gameName("awele"))),
      h("p", { class: "learn-link" }, newHere, " ", learn),
      quickChoice,
      quick,
      quickHint,
      quickError,
      h("p", { class: "features" }, t("home.features")),
      h("nav", { class: "hero-links" },
        h("a", { href: "/invite", class: "button" }, t("nav.invite")),
        hotseat,
        h("a", { href: "/editor", class: "button", id: "open-editor" }, t("nav.editor")),
        h("a", { href: "/load", class: "button", id: "open-load" }, t("load.title")),
        h("a", { href: "/watch", class: "button" }, t("nav.watch")),
        h("a", { href: "/rules", class: "button" }, t("nav.rules")),
        h("a", { href: "/awele/rules", class: "button", id: "open-awele-rules" }, t("awele.rulesLink")))),
    resume,
    incoming,
    h("section", { class: "panel" },
      h("details", { id: "ai-details" },
        h("summary", {}, t("home.computerOptions")), aiBox)),
    h("section", { class: "panel", id: "lobby" },
      h("h2", {}, t("lobby.title")),
      h("div", { class: "field inline" }, h("label", { for: seekFilter.id }, t("lobby.filter")), seekFilter),
      seeksBox,
      h("details", { id: "seek-details" }, h("summary", {}, t("lobby.createSeek")), seekBox)));

  // Games in progress (after a reload, or a game left open in another tab).
  const showResume = () => {
    const games = session.games || [];
    resume.hidden = games.length === 0;
    mount(resume, h("h2", {}, t("home.yourGames")),
      h("ul", { class: "plain" }, games.map((id) =>
        h("li", {}, h("a", { href: `/game/${id}`, class: "button" }, t("home.resume", { id }))))));
  };
  showResume();
  const offSession = session.onChange(showResume);
  loadMe().catch(() => {}); // games in progress may have changed since the page loaded

  const refreshInvitations = async () => {
    try {
      const inv = await get("/api/invitations");
      incoming.hidden = inv.incoming.length === 0;
      mount(incoming, h("h2", {}, t("invite.incoming")), invitationList(inv.incoming, "incoming", refreshInvitations));
    } catch {
      /* shown again on the next change */
    }
  };
  refreshInvitations();
  const offInvited = socket.on("invited", refreshInvitations);

  // The forms, once the options are known (defaults meanwhile).
  let seeks = [];
  const drawForms = (options) => {
    const ai = settingsForm(options, { level: true, prefix: "ai", game: chosen.value });
    const aiError = h("p", { class: "form-error", role: "alert" });
    const aiForm = h("form", { id: "ai-form", class: "panel-form" },
      ai.el, h("button", { type: "submit", class: "primary" }, t("home.startGame")), aiError);
    mount(aiBox, aiForm);
    aiForm.addEventListener("submit", (e) => {
      e.preventDefault();
      aiError.textContent = "";
      playComputer(ai.read(), aiError);
    });
    const sk = settingsForm(options, { rated: true, prefix: "seek", defaults: { color: "random" }, game: chosen.value });
    const seekError = h("p", { class: "form-error", role: "alert" });
    const seekForm = h("form", { id: "seek-form", class: "panel-form" },
      sk.el, h("button", { type: "submit" }, t("lobby.seekSubmit")), seekError);
    mount(seekBox, seekForm);
    seekForm.addEventListener("submit", async (e) => {
      e.preventDefault();
      seekError.textContent = "";
      try {
        await post("/api/seeks", sk.read());
        await refreshLobby();
      } catch (err) {
        seekError.textContent = errorText(err);
      }
    });
  };
  // Drawn once, when the choices are known (so nothing typed is ever redrawn away).
  loadOptions().then(drawForms, () => drawForms(DEFAULT_OPTIONS));

  const drawSeeks = () => {
    const shown = seeks.filter((seek) => !seekFilter.value || (seek.kind || "ataxx") === seekFilter.value);
    if (shown.length === 0) {
      mount(seeksBox, h("p", { class: "empty" }, t("lobby.noSeeks")));
      return;
    }
    mount(seeksBox, h("table", { class: "list cards", id: "seek-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("lobby.game")),
        h("th", { scope: "col" }, t("lobby.player")),
        h("th", { scope: "col" }, t("lobby.rating")),
        h("th", { scope: "col" }, t("lobby.settings")),
        h("th", { scope: "col" }, t("lobby.side")),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("lobby.actions"))))),
      h("tbody", {}, shown.map((seek) => {
        // The protocol promises "mine"; fall back on comparing ids if it is missing.
        seek.mine = seek.mine ?? Boolean(seek.user && session.user && seek.user.id === session.user.id);
        const button = seek.mine
          ? h("button", { type: "button", class: "seek-cancel", dataset: { seek: seek.id } }, t("lobby.cancel"))
          : h("button", { type: "button", class: "seek-accept primary", dataset: { seek: seek.id } }, t("lobby.accept"));
        button.addEventListener("click", () => seekAction(seek, button));
        const kind = seek.kind || "ataxx";
        return h("tr", { dataset: { seek: seek.id, kind } },
          h("td", { class: "game-cell", dataset: { label: t("lobby.game") } }, gameName(kind)),
          h("td", { dataset: { label: t("lobby.player") } }, seek.user ? seek.user.name : "?"),
          h("td", { dataset: { label: t("lobby.rating") } }, seek.user ? seek.user.rating_text || "" : ""),
          h("td", { class: "wide", dataset: { label: t("lobby.settings") } }, settingsSummary(seek)),
          h("td", { dataset: { label: t(kind === "awele" ? "awele.lobbySide" : "lobby.side") } }, sideText(seek.color, kind)),
          h("td", { class: "actions" }, button));
      }))));
  };

  const seekAction = async (seek, button) => {
    button.disabled = true;
    try {
      if (seek.mine) {
        await del(`/api/seeks/${encodeURIComponent(seek.id)}`);
        await refreshLobby();
      } else {
        const { game } = await post(`/api/seeks/${encodeURIComponent(seek.id)}/accept`);
        navigate(`/game/${game}`);
      }
    } catch (err) {
      toast(errorText(err), { kind: "error" });
      button.disabled = false;
      if (err instanceof ApiError && err.code === "gone") refreshLobby();
    }
  };

  const showLobby = (lobby) => {
    counts.textContent = countsText(lobby);
    seeks = lobby.seeks || [];
    drawSeeks();
  };
  const refreshLobby = async () => {
    try {
      showLobby(await get("/api/lobby"));
    } catch {
      /* the socket brings the next update */
    }
  };
  refreshLobby();
  const offLobby = socket.on("lobby", showLobby);
  socket.watchLobby(true);

  return () => {
    offSession();
    offInvited();
    offLobby();
    socket.watchLobby(false);
  };
}
