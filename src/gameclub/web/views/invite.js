// views/invite.js — invitations to a friend: create (by link or by name), list, answer.
//
// /invite: the form (settings + an optional user name). A link invitation
// shows its URL with a Copy button; the friend opens it and lands on
// /invite/{id}, which offers Accept / Decline. Invitations by name reach the
// friend over the WebSocket (`invited`) on any page (see app.js). When the
// friend accepts, the sender gets `start` and is taken to the game (app.js).

import { del, get, post, session } from "../api.js";
import { field, h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { navigate } from "../router.js";
import { socket } from "../socket.js";
import { errorText, toast } from "../ui.js";
import { accountLink } from "./account.js";
import { DEFAULT_OPTIONS, loadOptions, settingsForm, settingsSummary, sideText } from "./settings.js";

export function inviteUrl(invitation) {
  return new URL(invitation.url || `/invite/${invitation.id}`, location.origin).href;
}

/** A copyable link (read-only input + Copy button). */
export function copyBox(url, id = "invite-link") {
  const input = h("input", { id, type: "text", readonly: true, value: url, class: "link-input",
    "aria-label": t("invite.linkLabel") });
  const button = h("button", { type: "button", class: "copy" }, t("invite.copy"));
  button.addEventListener("click", async () => {
    input.select();
    try {
      await navigator.clipboard.writeText(url);
    } catch {
      document.execCommand && document.execCommand("copy");
    }
    button.textContent = t("invite.copied");
    setTimeout(() => (button.textContent = t("invite.copy")), 2000);
  });
  return h("div", { class: "copy-box" }, input, button);
}

async function accept(invitation) {
  const { game } = await post(`/api/invitations/${encodeURIComponent(invitation.id)}/accept`);
  navigate(`/game/${game}`);
}

async function decline(invitation) {
  await post(`/api/invitations/${encodeURIComponent(invitation.id)}/decline`);
}

/** Invitations as a list with their buttons; ``kind`` is "incoming" or "outgoing". */
export function invitationList(list, kind, onChange = () => {}) {
  if (!list.length) return h("p", { class: "empty" }, t(kind === "incoming" ? "invite.noIncoming" : "invite.noOutgoing"));
  return h("ul", { class: "plain invitations" }, list.map((inv) => {
    const who = kind === "incoming" ? inv.from : inv.to;
    const text = kind === "incoming"
      ? t("invite.from", { name: who ? who.name : "?" })
      : who ? t("invite.to", { name: who.name }) : t("invite.byLink");
    const buttons = [];
    const act = (label, cls, fn) => {
      const b = h("button", { type: "button", class: cls }, label);
      b.addEventListener("click", async () => {
        b.disabled = true;
        try {
          await fn();
          onChange();
        } catch (err) {
          toast(errorText(err), { kind: "error" });
          b.disabled = false;
        }
      });
      buttons.push(b);
    };
    if (kind === "incoming") {
      act(t("invite.accept"), "primary invite-accept", () => accept(inv));
      act(t("invite.decline"), "invite-decline", () => decline(inv));
    } else {
      act(t("invite.cancel"), "invite-cancel", () => del(`/api/invitations/${encodeURIComponent(inv.id)}`));
    }
    return h("li", { dataset: { invitation: inv.id } },
      h("span", {}, text, " — ", settingsSummary(inv)), " ",
      kind === "outgoing" && !inv.to ? h("a", { href: `/invite/${inv.id}` }, t("invite.link")) : null,
      " ", buttons);
  }));
}

/** /invite: create an invitation; lists of open ones. */
export function inviteView(main) {
  const formBox = h("div");
  const result = h("div", { id: "invite-result", aria: { live: "polite" } });
  const lists = h("div");
  mount(main,
    h("h1", { tabindex: -1 }, t("invite.title")),
    h("p", {}, t("invite.intro")),
    h("section", { class: "panel" }, formBox, result),
    lists);

  const refresh = async () => {
    try {
      const inv = await get("/api/invitations");
      mount(lists,
        h("section", { class: "panel" }, h("h2", {}, t("invite.incoming")), invitationList(inv.incoming, "incoming", refresh)),
        h("section", { class: "panel" }, h("h2", {}, t("invite.outgoing")), invitationList(inv.outgoing, "outgoing", refresh)));
    } catch (err) {
      mount(lists, h("p", { class: "form-error" }, errorText(err)));
    }
  };

  const draw = (options) => {
    const settings = settingsForm(options, { rated: true, prefix: "inv", defaults: { color: "random" } });
    const to = h("input", { id: "invite-to", name: "to", type: "text", autocomplete: "off", maxlength: 40,
      placeholder: t("invite.toPlaceholder") });
    const error = h("p", { class: "form-error", role: "alert" });
    const linkButton = h("button", { type: "submit", class: "primary", id: "create-invite-link", value: "link" },
      t("invite.createLink"));
    const nameButton = h("button", { type: "submit", id: "create-invite-name", value: "name" }, t("invite.sendByName"));
    const form = h("form", { id: "invite-form", class: "panel-form" },
      settings.el,
      field(t("invite.toLabel"), to, t("invite.toHint")),
      h("div", { class: "buttons" }, linkButton, nameButton),
      error);
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      error.textContent = "";
      const byName = e.submitter === nameButton;
      const body = { ...settings.read(), to: byName ? to.value.trim() || null : null };
      if (byName && !body.to) {
        error.textContent = t("invite.needName");
        to.focus();
        return;
      }
      try {
        const { invitation } = await post("/api/invitations", body);
        if (invitation.to) {
          mount(result, h("p", { class: "ok" }, t("invite.sentTo", { name: invitation.to.name })));
        } else {
          mount(result, h("p", {}, t("invite.shareLink")), copyBox(inviteUrl(invitation)),
            h("p", { class: "hint" }, t("invite.waiting")));
        }
        refresh();
      } catch (err) {
        error.textContent = errorText(err);
      }
    });
    mount(formBox, form);
  };
  // Drawn once, when the choices are known (so nothing typed is ever redrawn away).
  loadOptions().then(draw, () => draw(DEFAULT_OPTIONS));
  refresh();
  const offs = [socket.on("invited", refresh), socket.on("declined", refresh)];
  return () => offs.forEach((off) => off());
}

/** /invite/{id}: one invitation, to accept or decline (or to share, for its sender). */
export function invitationView(main, { id }) {
  const box = h("section", { class: "panel", id: "invitation" }, h("p", {}, t("common.loading")));
  mount(main, h("h1", { tabindex: -1 }, t("invite.oneTitle")), box);
  let closed = false;

  const draw = async () => {
    let inv;
    try {
      inv = (await get(`/api/invitations/${encodeURIComponent(id)}`)).invitation;
    } catch (err) {
      mount(box, h("p", { class: "form-error" }, errorText(err)), h("a", { href: "/" }, t("nav.home")));
      return;
    }
    if (closed) return;
    const me = session.user;
    const mine = me && inv.from && inv.from.id === me.id;
    const parts = [
      h("p", { class: "invitation-from" }, t("invite.from", { name: inv.from ? inv.from.name : "?" })),
      h("p", {}, settingsSummary(inv)),
      h("p", {}, t("invite.senderPlays", { side: sideText(inv.color, inv.kind) })),
    ];
    if (inv.status !== "open") {
      parts.push(h("p", { class: "status" }, t(`invite.status.${inv.status}`)));
      if (inv.game) parts.push(h("a", { class: "button primary", href: `/game/${inv.game}` }, t("invite.openGame")));
    } else if (mine) {
      parts.push(h("p", {}, t("invite.shareLink")), copyBox(inviteUrl(inv)), h("p", { class: "hint" }, t("invite.waiting")));
      const cancel = h("button", { type: "button", id: "invite-cancel" }, t("invite.cancel"));
      cancel.addEventListener("click", async () => {
        try {
          await del(`/api/invitations/${encodeURIComponent(inv.id)}`);
          draw();
        } catch (err) {
          toast(errorText(err), { kind: "error" });
        }
      });
      parts.push(cancel);
    } else if (inv.rated && (!me || me.guest)) {
      // Rated games are for accounts: say so before any click, and offer the way in.
      const here = `/invite/${encodeURIComponent(inv.id)}`;
      parts.push(h("p", { class: "form-error", id: "invite-needs-account" }, t("invite.ratedNeedsAccount")),
        h("div", { class: "buttons" },
          h("a", { class: "button primary big", id: "invite-signup", href: accountLink("signup", here) },
            t("invite.signupToAccept")),
          h("a", { class: "button", id: "invite-login", href: accountLink("login", here) }, t("account.login"))));
    } else {
      const error = h("p", { class: "form-error", role: "alert" });
      const yes = h("button", { type: "button", class: "primary big", id: "invite-accept" }, t("invite.accept"));
      const no = h("button", { type: "button", id: "invite-decline" }, t("invite.decline"));
      yes.addEventListener("click", async () => {
        yes.disabled = true;
        try {
          await accept(inv);
        } catch (err) {
          error.textContent = errorText(err);
          yes.disabled = false;
        }
      });
      no.addEventListener("click", async () => {
        try {
          await decline(inv);
          draw();
        } catch (err) {
          error.textContent = errorText(err);
        }
      });
      parts.push(h("div", { class: "buttons" }, yes, no), error);
    }
    mount(box, parts);
  };
  draw();
  const off = socket.on("declined", (msg) => msg.invitation === id && draw());
  return () => {
    closed = true;
    off();
  };
}
