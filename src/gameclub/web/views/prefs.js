// views/prefs.js — the player's preferences (/prefs): the colours of the pieces, move sounds.
//
// A preference only: x moves first whatever its colour. Saved on the server
// for accounts, in this browser for guests (see prefs.js). Move sounds are
// kept in this browser for everyone, like a volume setting (see sound.js).

import { session } from "../api.js";
import { h, mount, select } from "../dom.js";
import { t } from "../i18n.js";
import { PALETTE, pieceColors, savePieceColors } from "../prefs.js";
import { setSoundsOn, soundsOn } from "../sound.js";
import { errorText, toast } from "../ui.js";

export function prefsView(main) {
  const current = pieceColors();
  const choices = Object.keys(PALETTE).map((name) => [name, t(`palette.${name}`)]);
  const x = select("pref-x", choices, current.x);
  const o = select("pref-o", choices, current.o);
  const error = h("p", { class: "form-error", role: "alert", id: "prefs-error" });
  const preview = h("p", { class: "prefs-preview", "aria-hidden": "true" },
    h("span", { class: "swatch x" }), " ", h("span", { class: "swatch o" }));
  const save = h("button", { type: "submit", class: "primary", id: "prefs-save" }, t("prefs.save"));
  const reset = h("button", { type: "button", id: "prefs-reset" }, t("prefs.reset"));
  const form = h("form", { class: "panel-form", id: "prefs-form" },
    h("div", { class: "field" }, h("label", { for: x.id }, t("prefs.colorX")), x),
    h("div", { class: "field" }, h("label", { for: o.id }, t("prefs.colorO")), o),
    preview, h("div", { class: "buttons" }, save, reset), error);
  const sounds = h("input", { type: "checkbox", id: "pref-sounds", checked: soundsOn() });
  sounds.addEventListener("change", () => {
    setSoundsOn(sounds.checked);
    toast(t(sounds.checked ? "prefs.soundsOn" : "prefs.soundsOff"), { timeout: 2500, key: "prefs" });
  });
  mount(main, h("h1", { tabindex: -1 }, t("prefs.title")),
    h("p", { class: "hint" }, t("prefs.intro")),
    h("p", { class: "hint" }, session.user && !session.user.guest ? t("prefs.account") : t("prefs.guest")),
    form,
    h("h2", {}, t("prefs.soundsTitle")),
    h("div", { class: "field check" }, sounds, h("label", { for: sounds.id }, t("prefs.sounds"))),
    h("p", { class: "hint" }, t("prefs.soundsHint")));
  const apply = async (colors) => {
    error.textContent = "";
    if (colors.x === colors.o) {
      error.textContent = t("prefs.invalid");
      return;
    }
    try {
      await savePieceColors(colors);
      toast(t("prefs.saved"), { timeout: 2500 });
    } catch (err) {
      error.textContent = errorText(err);
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    apply({ x: x.value, o: o.value });
  });
  reset.addEventListener("click", () => {
    x.value = "red";
    o.value = "blue";
    apply({ x: "red", o: "blue" });
  });
}
