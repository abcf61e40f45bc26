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
import { DEFAULT_OPTIONS, loadOptions, settingsForm, settingsSummary, sideText } from "./settings.js";
import { invitationList } from "./invite.js";

export const QUICK_GAME = { level: "simple", color: "x", rules: "ataxx", blocks: null, clock: null };

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
    await playComputer(QUICK_GAME, quickError);
    quick.disabled = false;
  });

  const hotseat = h("button", { class: "button", id: "play-hotseat", type: "button" }, t("home.hotseat"));
  hotseat.addEventListener("click", async () => {
    hotseat.disabled = true;
    try {
      const { game } = await post("/api/games/hotseat", { rules: "ataxx", blocks: null, clock: null });
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

  mount(main,
    h("section", { class: "hero" },
      h("h1", { tabindex: -1 }, t("home.title")),
      h("p", { class: "tagline" }, t("home.tagline")),
      counts,
      h("p", { class: "welcome" }, t("home.guestsWelcome")),
      h("p", { class: "learn-link" }, t("home.newHere"), " ",
        h("a", { href: "/learn", id: "learn-link" }, t("home.learn"))),
      quick,
      h("p", { class: "hint", id: "quick-hint" }, t("home.quickHint", { color: colorLabel("x").toLowerCase() })),
      quickError,
      h("p", { class: "features" }, t("home.features")),
      h("nav", { class: "hero-links" },
        h("a", { href: "/invite", class: "button" }, t("nav.invite")),
        hotseat,
        h("a", { href: "/editor", class: "button", id: "open-editor" }, t("nav.editor")),
        h("a", { href: "/load", class: "button", id: "open-load" }, t("load.title")),
        h("a", { href: "/watch", class: "button" }, t("nav.watch")),
        h("a", { href: "/rules", class: "button" }, t("nav.rules")))),
    resume,
    incoming,
    h("section", { class: "panel" },
      h("details", { id: "ai-details" },
        h("summary", {}, t("home.computerOptions")), aiBox)),
    h("section", { class: "panel", id: "lobby" },
      h("h2", {}, t("lobby.title")),
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
    const ai = settingsForm(options, { level: true, prefix: "ai" });
    const aiError = h("p", { class: "form-error", role: "alert" });
    const aiForm = h("form", { id: "ai-form", class: "panel-form" },
      ai.el, h("button", { type: "submit", class: "primary" }, t("home.startGame")), aiError);
    mount(aiBox, aiForm);
    aiForm.addEventListener("submit", (e) => {
      e.preventDefault();
      aiError.textContent = "";
      playComputer(ai.read(), aiError);
    });
    const sk = settingsForm(options, { rated: true, prefix: "seek", defaults: { color: "random" } });
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
    if (seeks.length === 0) {
      mount(seeksBox, h("p", { class: "empty" }, t("lobby.noSeeks")));
      return;
    }
    mount(seeksBox, h("table", { class: "list cards", id: "seek-table" },
      h("thead", {}, h("tr", {},
        h("th", { scope: "col" }, t("lobby.player")),
        h("th", { scope: "col" }, t("lobby.rating")),
        h("th", { scope: "col" }, t("lobby.settings")),
        h("th", { scope: "col" }, t("lobby.side")),
        h("th", { scope: "col" }, h("span", { class: "visually-hidden" }, t("lobby.actions"))))),
      h("tbody", {}, seeks.map((seek) => {
        // The protocol promises "mine"; fall back on comparing ids if it is missing.
        seek.mine = seek.mine ?? Boolean(seek.user && session.user && seek.user.id === session.user.id);
        const button = seek.mine
          ? h("button", { type: "button", class: "seek-cancel", dataset: { seek: seek.id } }, t("lobby.cancel"))
          : h("button", { type: "button", class: "seek-accept primary", dataset: { seek: seek.id } }, t("lobby.accept"));
        button.addEventListener("click", () => seekAction(seek, button));
        return h("tr", { dataset: { seek: seek.id } },
          h("td", { dataset: { label: t("lobby.player") } }, seek.user ? seek.user.name : "?"),
          h("td", { dataset: { label: t("lobby.rating") } }, seek.user ? seek.user.rating_text || "" : ""),
          h("td", { class: "wide", dataset: { label: t("lobby.settings") } }, settingsSummary(seek)),
          h("td", { dataset: { label: t("lobby.side") } }, sideText(seek.color)),
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
