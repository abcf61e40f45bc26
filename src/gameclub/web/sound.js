// sound.js — short move sounds, made on the spot with WebAudio (no sound files).
//
// A move is a soft low "tock"; each flip adds a quick higher tick after it, so
// that a big capture is heard as one. The sounds are on unless the player turns
// them off on the preferences page; the choice is kept in this browser
// (localStorage "gameclub.sounds"), like a volume setting. Browsers start audio
// only after the page has been touched or clicked: until then nothing sounds,
// and nothing fails.

const STORAGE_KEY = "gameclub.sounds";
let context = null;

/** Whether move sounds are on (they are unless turned off). */
export function soundsOn() {
  try {
    return localStorage.getItem(STORAGE_KEY) !== "off";
  } catch {
    return true;
  }
}

export function setSoundsOn(on) {
  try {
    localStorage.setItem(STORAGE_KEY, on ? "on" : "off");
  } catch {
    // storage disabled: the choice lasts for this page only
  }
}

function audio() {
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return null;
  if (!context) context = new Context();
  return context.state === "running" ? context : null;
}

// The first touch or key press lets the page make sounds (browsers' autoplay rule).
for (const type of ["pointerdown", "keydown"]) {
  window.addEventListener(type, () => {
    const Context = window.AudioContext || window.webkitAudioContext;
    if (!Context || !soundsOn()) return;
    if (!context) context = new Context();
    if (context.state === "suspended") context.resume().catch(() => {});
  }, { passive: true });
}

function tone(ctx, { at, frequency, duration, volume, type = "sine" }) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = type;
  osc.frequency.setValueAtTime(frequency, at);
  gain.gain.setValueAtTime(0.0001, at);
  gain.gain.exponentialRampToValueAtTime(volume, at + 0.005);
  gain.gain.exponentialRampToValueAtTime(0.0001, at + duration);
  osc.connect(gain).connect(ctx.destination);
  osc.start(at);
  osc.stop(at + duration + 0.02);
}

/**
 * The sound of a move that flipped ``flips`` pieces (nothing when sounds are off).
 * ``flipsAfterMs`` puts the ticks where the board shows the flips or captures
 * (Awele: after the seeds are sown).
 */
export function playMoveSound({ flips = 0, flipsAfterMs = 170 } = {}) {
  if (!soundsOn()) return;
  const ctx = audio();
  if (!ctx) return;
  const now = ctx.currentTime;
  tone(ctx, { at: now, frequency: 220, duration: 0.09, volume: 0.25, type: "triangle" });
  for (let i = 0; i < Math.min(flips, 8); i++) {
    tone(ctx, { at: now + flipsAfterMs / 1000 + i * 0.03, frequency: 660 + 40 * i, duration: 0.05, volume: 0.08 });
  }
}
