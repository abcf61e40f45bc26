// plot.js — the rating history as an SVG line chart, with a table for screen readers.
//
// Points are {at (epoch ms), rating, rd}; the band around the line is ±RD.
// The chart is decoration for sighted readers: the same data is in a
// visually hidden table next to it.

import { h, s } from "./dom.js";
import { t } from "./i18n.js";

const W = 640;
const H = 240;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

export function ratingPlot(history) {
  if (!history.length) return h("p", { class: "empty" }, t("profile.noRatings"));
  const points = history.map((p, i) => ({ ...p, i }));
  const lo = Math.min(...points.map((p) => p.rating - p.rd));
  const hi = Math.max(...points.map((p) => p.rating + p.rd));
  const span = Math.max(50, hi - lo);
  const min = Math.floor((lo - span * 0.05) / 50) * 50;
  const max = Math.ceil((hi + span * 0.05) / 50) * 50;
  const n = Math.max(1, points.length - 1);
  const x = (i) => PAD.left + ((W - PAD.left - PAD.right) * i) / n;
  const y = (r) => PAD.top + ((H - PAD.top - PAD.bottom) * (max - r)) / (max - min);

  const svg = s("svg", { class: "rating-plot", viewBox: `0 0 ${W} ${H}`, role: "img",
    "aria-label": t("profile.plotLabel", { n: points.length }) });
  const step = Math.max(50, Math.ceil((max - min) / 5 / 50) * 50);
  for (let r = min; r <= max; r += step) {
    svg.append(s("line", { class: "grid", x1: PAD.left, x2: W - PAD.right, y1: y(r), y2: y(r) }),
      s("text", { class: "axis", x: PAD.left - 6, y: y(r) + 4, "text-anchor": "end" }, String(r)));
  }
  const upper = points.map((p) => `${x(p.i)},${y(p.rating + p.rd)}`);
  const lower = points.slice().reverse().map((p) => `${x(p.i)},${y(p.rating - p.rd)}`);
  svg.append(s("polygon", { class: "band", points: [...upper, ...lower].join(" ") }));
  svg.append(s("polyline", { class: "line", points: points.map((p) => `${x(p.i)},${y(p.rating)}`).join(" ") }));
  for (const p of points) {
    svg.append(s("circle", { class: "dot", cx: x(p.i), cy: y(p.rating), r: 3 },
      s("title", {}, `${new Date(p.at).toLocaleDateString()}: ${Math.round(p.rating)} ± ${Math.round(p.rd)}`)));
  }
  const first = new Date(points[0].at).toLocaleDateString();
  const last = new Date(points[points.length - 1].at).toLocaleDateString();
  svg.append(s("text", { class: "axis", x: PAD.left, y: H - 8 }, first),
    s("text", { class: "axis", x: W - PAD.right, y: H - 8, "text-anchor": "end" }, last));

  const table = h("table", { class: "visually-hidden" },
    h("caption", {}, t("profile.ratingHistory")),
    h("thead", {}, h("tr", {}, h("th", {}, t("profile.date")), h("th", {}, t("leaderboard.rating")))),
    h("tbody", {}, points.map((p) => h("tr", {},
      h("td", {}, new Date(p.at).toLocaleString()), h("td", {}, `${Math.round(p.rating)} ± ${Math.round(p.rd)}`)))));
  return h("figure", { class: "plot" }, svg, table);
}
