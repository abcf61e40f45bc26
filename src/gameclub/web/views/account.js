// views/account.js — sign up and log in (/signup, /login).
//
// The server checks names and passwords and says what is wrong; its message
// is shown under the form. A new session means a new cookie, so the socket
// is reopened afterwards. `?next=/invite/…` brings the player back to the page
// that sent them here (a rated invitation, say); only paths of this site count.

import { login, signup } from "../api.js";
import { field, h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { navigate } from "../router.js";
import { socket } from "../socket.js";
import { errorText } from "../ui.js";

/** Where to go once signed up or logged in: ``?next=`` when it is a path of this site, else home. */
export function nextPath() {
  const next = new URLSearchParams(location.search).get("next") || "/";
  return next.startsWith("/") && !next.startsWith("//") && !next.startsWith("/\\") ? next : "/";
}

/** ``/signup`` or ``/login`` with the same ``next``. */
export function accountLink(kind, next = nextPath()) {
  return next === "/" ? `/${kind}` : `/${kind}?next=${encodeURIComponent(next)}`;
}

function accountForm(main, kind) {
  const name = h("input", { id: "account-name", name: "name", type: "text", autocomplete: "username",
    required: true, maxlength: 40 });
  const password = h("input", { id: "account-password", name: "password", type: "password", required: true,
    autocomplete: kind === "signup" ? "new-password" : "current-password", maxlength: 200 });
  const error = h("p", { class: "form-error", role: "alert", id: "account-error" });
  const submit = h("button", { type: "submit", class: "primary", id: "account-submit" },
    t(kind === "signup" ? "account.signup" : "account.login"));
  const form = h("form", { class: "panel-form account", id: `${kind}-form` },
    field(t("account.name"), name, kind === "signup" ? t("account.nameHint") : null),
    field(t("account.password"), password, kind === "signup" ? t("account.passwordHint") : null),
    submit, error);
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    submit.disabled = true;
    try {
      await (kind === "signup" ? signup : login)(name.value.trim(), password.value);
      socket.restart();
      navigate(nextPath());
    } catch (err) {
      error.textContent = errorText(err);
      submit.disabled = false;
    }
  });
  const other = kind === "signup"
    ? h("p", {}, t("account.haveAccount"), " ", h("a", { href: accountLink("login") }, t("account.login")))
    : h("p", {}, t("account.noAccount"), " ", h("a", { href: accountLink("signup") }, t("account.signup")));
  mount(main, h("h1", { tabindex: -1 }, t(kind === "signup" ? "account.signupTitle" : "account.loginTitle")),
    h("p", {}, t("account.why")), h("section", { class: "panel" }, form, other));
  name.focus();
}

export const signupView = (main) => accountForm(main, "signup");
export const loginView = (main) => accountForm(main, "login");
