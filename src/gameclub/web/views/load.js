// views/load.js — restore a saved game (/load): a record, pasted or from a file.
//
// Ataxx records are PGN; Awele records are OGN (Aualé's notation, which
// begins with its `[Variant ...]` tag): the page sends the text as one or the
// other by that tag.
//
// The server reads and checks the record (POST /api/records: every move is
// played again by the rules library) and sends back its positions; a record
// it cannot read is refused with the reason and nothing changes here. The
// record is then shown in the replay viewer; from the move on the board the
// game can go on against the computer, on the hot seat, or with a friend.

import { post } from "../api.js";
import { h, mount, select } from "../dom.js";
import { t } from "../i18n.js";
import { navigate } from "../router.js";
import { errorText } from "../ui.js";
import { copyBox, inviteUrl } from "./invite.js";
import { drawReplay } from "./replay.js";
import { DEFAULT_OPTIONS, gameOptions, loadOptions, sideChoices } from "./settings.js";

/** Whether ``text`` is an Awele record (OGN): it has OGN's Variant tag, or its South/North players. */
export function looksLikeOgn(text) {
  return /^\s*\[(Variant|South|North)\s/m.test(text);
}

export function loadView(main) {
  let cleanup = null;
  const text = h("textarea", { id: "record-text", rows: 10, spellcheck: "false", placeholder: '[Rules "ataxx"]\n\n1. g2 a1a3 *\n\n[Variant "awele"]\n\n1. C a 2. D b *' });
  const file = h("input", { type: "file", id: "record-file", accept: ".pgn,.ogn,text/plain" });
  const error = h("p", { id: "record-error", class: "form-error", role: "alert" });
  const load = h("button", { type: "submit", class: "primary", id: "record-load" }, t("load.submit"));
  const viewer = h("div", { id: "record-viewer" });
  const formEl = h("form", { class: "panel-form", id: "record-form" },
    h("div", { class: "field" }, h("label", { for: text.id }, t("load.paste")), text),
    h("div", { class: "field" }, h("label", { for: file.id }, t("load.file")), file),
    load, error);
  mount(main, h("h1", { tabindex: -1 }, t("load.title")), h("p", { class: "hint" }, t("load.intro")), formEl, viewer);

  file.addEventListener("change", async () => {
    const chosen = file.files && file.files[0];
    if (!chosen) return;
    text.value = await chosen.text();
    formEl.requestSubmit();
  });

  formEl.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    let record;
    try {
      record = await post("/api/records", looksLikeOgn(text.value) ? { ogn: text.value } : { pgn: text.value });
    } catch (err) {
      error.textContent = errorText(err); // the viewer keeps what it showed
      return;
    }
    if (cleanup) cleanup();
    cleanup = show(record);
  });

  function show(record) {
    let ply = record.moves.length;
    const game = { ...record, players: { x: { name: record.players.x }, o: { name: record.players.o } } };
    const continueBox = h("div", { class: "panel", id: "continue-box" });
    const status = h("p", { class: "hint", id: "continue-at" });
    const continueError = h("p", { class: "form-error", role: "alert", id: "continue-error" });
    const inviteBox = h("div");
    let buttons = [];
    const awele = record.kind === "awele";
    const setup = () => (awele
      ? { game: "awele", rules: record.rules, start: "custom", position: record.positions[ply].position }
      : { rules: record.rules, blocks: record.blocks, fen: record.positions[ply].fen });
    const go = async (path, extra) => {
      continueError.textContent = "";
      try {
        const body = await post(path, { ...setup(), ...extra });
        if (body.game) navigate(`/game/${body.game}`);
        else if (body.invitation) mount(inviteBox, h("p", {}, t("invite.shareLink")), copyBox(inviteUrl(body.invitation), "invite-link"));
      } catch (err) {
        continueError.textContent = errorText(err);
      }
    };
    if (record.continuable) {
      const kind = awele ? "awele" : "ataxx";
      const levels = (o) => gameOptions(o, kind);
      const first = levels(DEFAULT_OPTIONS).default_level;
      const level = select("continue-level", levels(DEFAULT_OPTIONS).levels.map((l) => [l, t(`level.${l}`)]), first);
      const color = select("continue-color", sideChoices(kind), "x");
      loadOptions().then((o) => {
        const g = levels(o);
        mount(level, g.levels.map((l) => h("option", { value: l, selected: l === g.default_level }, t(`level.${l}`))));
      }, () => {});
      const ai = h("button", { type: "button", class: "primary", id: "continue-ai" }, t("load.continueComputer"));
      const hot = h("button", { type: "button", id: "continue-hotseat" }, t("load.continueHotseat"));
      const friend = h("button", { type: "button", id: "continue-invite" }, t("load.continueFriend"));
      ai.addEventListener("click", () => go("/api/games/ai", { level: level.value, color: color.value }));
      hot.addEventListener("click", () => go("/api/games/hotseat", {}));
      friend.addEventListener("click", () => go("/api/invitations", { to: null, color: color.value }));
      buttons = [ai, hot, friend];
      mount(continueBox, h("h2", {}, t("load.continue")), status,
        h("div", { class: "field inline" }, h("label", { for: level.id }, t("settings.level")), level),
        h("div", { class: "field inline" }, h("label", { for: color.id }, t("settings.color")), color),
        h("div", { class: "buttons" }, ai, hot, friend), continueError, inviteBox);
    } else {
      mount(continueBox, h("p", { class: "hint", id: "continue-not" }, t("load.notContinuable", { why: record.why_not })));
    }
    return drawReplay(viewer, game, {
      aside: continueBox,
      onPly: (n) => {
        ply = n;
        // The server says of each position whether a game can start from it.
        const here = record.positions[n];
        status.textContent = here.continuable ? t("load.from", { n }) : t("load.notContinuable", { why: here.why_not });
        for (const button of buttons) button.disabled = !here.continuable;
      },
    });
  }

  return () => {
    if (cleanup) cleanup();
  };
}
