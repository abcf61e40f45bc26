// app.js — the entry point: identity, header, socket, routes, page-wide notices.
//
// Loads the identity (GET /api/me, a guest until sign-up or login), opens the
// page's WebSocket, draws the header and routes paths to views. Messages that
// matter on every page are handled here: `start` (a game of yours began: go
// there), `invited` (a friend invites you: accept or decline), `declined`,
// and the connection banner while the socket is reconnecting. The language
// switcher (language.js) draws the header and the current page again in the
// chosen language, without a reload.

import { ApiError, loadMe, logout, post, session } from "./api.js";
import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { applyLanguage, initialLanguage, languageSwitcher } from "./language.js";
import { gameName } from "./views/game.js";
import { onPageGames, pageGames } from "./pagegame.js";
import { navigate, notFound, render, route, start } from "./router.js";
import { socket } from "./socket.js";
import { errorText, toast } from "./ui.js";
import { applyColors } from "./prefs.js";
import { loginView, signupView } from "./views/account.js";
import { editorView } from "./views/editor.js";
import { loadView } from "./views/load.js";
import { prefsView } from "./views/prefs.js";
import { gameView } from "./views/game.js";
import { homeView } from "./views/home.js";
import { invitationView, inviteView } from "./views/invite.js";
import { leaderboardView } from "./views/leaderboard.js";
import { profileView } from "./views/profile.js";
import { replayView } from "./views/replay.js";
import { learnView, notFoundView, rulesView } from "./views/rules.js";
import { aweleLearnView, aweleRulesView } from "./views/awele-rules.js";
import { settingsSummary } from "./views/settings.js";
import { watchView } from "./views/watch.js";

route("/", homeView);
route("/game/:id", gameView);
route("/invite", inviteView);
route("/invite/:id", invitationView);
route("/watch", watchView);
route("/leaderboard", leaderboardView);
route("/player/:name", profileView);
route("/replay/:id", replayView);
route("/login", loginView);
route("/signup", signupView);
route("/rules", rulesView);
route("/learn", learnView);
route("/awele/rules", aweleRulesView);
route("/awele/learn", aweleLearnView);
route("/editor", editorView);
route("/load", loadView);
route("/prefs", prefsView);
notFound(notFoundView);

let stopDrawingWho = null;
let routerStarted = false;

/** The texts outside <main> that are not part of the header. */
function drawStatic() {
  document.getElementById("skip-link").textContent = t("app.skip");
}

/** The switcher's choice: new texts everywhere, in place, remembered for the next visits. */
function changeLanguage(code) {
  applyLanguage(code, { remember: true });
  drawStatic();
  drawHeader();
  if (routerStarted) render();
  window.dispatchEvent(new CustomEvent("localechange", { detail: code }));
  document.getElementById("lang-select").focus();
}

function markCurrent() {
  for (const a of document.querySelectorAll(".site-nav a")) {
    const href = a.dataset.nav;
    const here = href === "/" ? location.pathname === "/" : location.pathname.startsWith(href);
    if (here) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
}

function drawHeader() {
  const header = document.getElementById("site-header");
  const who = h("div", { class: "identity", id: "identity" });
  const navLinks = [
    ["/", t("nav.play")], ["/invite", t("nav.invite")], ["/watch", t("nav.watch")],
    ["/editor", t("nav.editor")], ["/leaderboard", t("nav.leaderboard")], ["/rules", t("nav.rules")],
    ["/awele/rules", t("nav.awele")],
  ];
  // On a phone the header's colours button hides and this link, at the end of the menu, stands in.
  const nav = h("nav", { class: "site-nav", "aria-label": t("nav.label") },
    h("ul", {}, navLinks.map(([href, text]) => h("li", {}, h("a", { href, dataset: { nav: href } }, text))),
      h("li", { class: "phone-only" }, h("a", { href: "/prefs", dataset: { nav: "/prefs" } }, t("prefs.link")))));
  mount(header,
    h("a", { class: "brand", href: "/", "aria-label": t("app.name") },
      h("span", { class: "brand-mark", "aria-hidden": "true" }), h("span", { class: "brand-name" }, t("app.name"))),
    nav, who, languageSwitcher(changeLanguage));
  const drawWho = () => {
    const user = session.user;
    if (!user) return mount(who);
    const name = h("a", { href: `/player/${encodeURIComponent(user.name)}`, id: "my-name", class: "my-name", title: user.name }, user.name);
    const rating = user.guest ? null : h("span", { class: "rating", id: "my-rating" });
    if (rating) drawRating(rating, user);
    const prefs = h("a", { href: "/prefs", class: "button small", id: "prefs-link", title: t("prefs.title") }, t("prefs.link"));
    if (user.guest) {
      mount(who, h("span", { class: "guest-label" }, t("account.guest")), " ", name, " ", prefs, " ",
        h("a", { href: "/login", class: "button small", id: "login-link" }, t("account.login")), " ",
        h("a", { href: "/signup", class: "button small primary", id: "signup-link" }, t("account.signupButton")));
    } else {
      const out = h("button", { type: "button", class: "small", id: "logout" }, t("account.logout"));
      out.addEventListener("click", async () => {
        try {
          await logout();
          socket.restart();
          navigate("/");
        } catch (err) {
          toast(errorText(err), { kind: "error" });
        }
      });
      mount(who, name, rating, " ", prefs, " ", out);
    }
  };
  drawWho();
  if (stopDrawingWho) stopDrawingWho();
  stopDrawingWho = session.onChange(drawWho);
  markCurrent();
}

/** The header's rating again: the page (or what it knows of its game) changed. */
function redrawRating() {
  const el = document.getElementById("my-rating");
  if (el && session.user) drawRating(el, session.user);
}

/**
 * The header's rating: that of the game the page is about (Awele's on Awele's
 * pages), both games' on a page about both (a player's page), none while a
 * game's page does not know its game yet.
 */
function drawRating(el, user) {
  const ratings = session.ratings || { ataxx: user };
  const games = pageGames().filter((g) => ratings[g]);
  el.dataset.games = games.join(" ");
  el.classList.toggle("both", games.length > 1);
  if (games.length === 1) {
    const [game] = games;
    el.title = t("header.rating", { game: gameName(game) });
    mount(el, ` (${ratings[game].rating_text})`);
  } else {
    // Both games' ratings, one above the other: the header stays one line.
    el.removeAttribute("title");
    mount(el, games.map((g) =>
      h("span", { class: "rating-game", dataset: { game: g } }, `${gameName(g)} ${ratings[g].rating_text}`)));
  }
}

function connectionBanner() {
  const banner = document.getElementById("conn-banner");
  let everOpen = false;
  let lost = false;
  socket.on("status", (state) => {
    if (state === "open") {
      if (lost) toast(t("conn.back"), { timeout: 2500 });
      everOpen = true;
      lost = false;
      banner.hidden = true;
      document.body.classList.remove("offline");
    } else if (everOpen) {
      lost = true;
      banner.textContent = t("conn.lost");
      banner.hidden = false;
      document.body.classList.add("offline");
    }
  });
}

function globalMessages() {
  socket.on("start", (msg) => {
    if (location.pathname !== `/game/${msg.game}`) {
      toast(t("notice.gameStarted"), { timeout: 3000 });
      navigate(`/game/${msg.game}`);
    }
  });
  socket.on("invited", ({ invitation }) => {
    const yes = h("button", { type: "button", class: "primary small" }, t("invite.accept"));
    const no = h("button", { type: "button", class: "small" }, t("invite.decline"));
    const close = toast(h("div", { class: "invited", dataset: { invitation: invitation.id } },
      h("p", {}, t("notice.invited", { name: invitation.from ? invitation.from.name : "?" })),
      h("p", { class: "hint" }, settingsSummary(invitation)),
      h("div", { class: "buttons" }, yes, no)), { timeout: 0 });
    yes.addEventListener("click", async () => {
      try {
        const { game } = await post(`/api/invitations/${encodeURIComponent(invitation.id)}/accept`);
        close();
        navigate(`/game/${game}`);
      } catch (err) {
        close();
        toast(errorText(err), { kind: "error" });
      }
    });
    no.addEventListener("click", async () => {
      close();
      try {
        await post(`/api/invitations/${encodeURIComponent(invitation.id)}/decline`);
      } catch (err) {
        toast(errorText(err), { kind: "error" });
      }
    });
  });
  socket.on("declined", () => toast(t("notice.declined")));
}

/** GET /api/me, retried with a back-off while the server is unreachable. */
async function loadIdentity() {
  let delay = 500;
  for (;;) {
    try {
      return await loadMe();
    } catch (err) {
      if (err instanceof ApiError && err.status >= 400 && err.status < 500 && err.status !== 429) throw err;
      const banner = document.getElementById("conn-banner");
      banner.textContent = t("conn.starting");
      banner.hidden = false;
      await new Promise((resolve) => setTimeout(resolve, delay));
      delay = Math.min(10000, delay * 2);
    }
  }
}

async function main() {
  applyLanguage(initialLanguage());
  drawStatic();
  window.addEventListener("routechange", markCurrent);
  window.addEventListener("routechange", redrawRating);
  onPageGames(redrawRating);
  drawHeader();
  connectionBanner();
  globalMessages();
  applyColors(); // this browser's colours at once, an account's once known
  session.onChange(applyColors);
  await loadIdentity();
  document.getElementById("conn-banner").hidden = true;
  socket.connect();
  routerStarted = true;
  start(document.getElementById("main"));
}

main().catch((err) => {
  console.error(err);
  mount(document.getElementById("main"), h("p", { class: "form-error" }, errorText(err)));
});
