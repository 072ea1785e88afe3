// dokosim serve: what every page shares. Cards drawn as SVG, the JSON API, messages.
// Display only: every rule, score and value comes from the server (the dokosim library).
"use strict";

const SUIT_PATHS = {
  D: '<path d="M0,-10 L7,0 L0,10 L-7,0 Z"/>',
  H: '<path d="M0,9 C-13,-1 -9,-12 0,-5 C9,-12 13,-1 0,9 Z"/>',
  S: '<path d="M0,-10 C11,-1 11,7 2,4 L4,10 L-4,10 L-2,4 C-11,7 -11,-1 0,-10 Z"/>',
  C: '<circle cx="0" cy="-5" r="4.2"/><circle cx="-5" cy="2" r="4.2"/><circle cx="5" cy="2" r="4.2"/>' +
     '<path d="M-1,2 L-3,10 L3,10 L1,2 Z"/>',
};
const SUIT_NAMES = { C: "clubs", S: "spades", H: "hearts", D: "diamonds" };
const RANK_LABEL = { A: "A", T: "10", K: "K", Q: "Q", J: "J", "9": "9" };

// A card ("QC", "TH") as an SVG element string; opts: {w, cls, title, data}
function cardSVG(name, opts = {}) {
  const w = opts.w || 56, h = Math.round(w * 1.45);
  const rank = name[0], suit = name[1];
  const red = suit === "H" || suit === "D";
  const colour = red ? "#c8102e" : "#1a1a1a";
  const label = RANK_LABEL[rank] || rank;
  const cls = "card" + (opts.cls ? " " + opts.cls : "");
  const data = opts.data ? Object.entries(opts.data).map(([k, v]) => ` data-${k}="${v}"`).join("") : "";
  const title = opts.title || `${label} of ${SUIT_NAMES[suit] || suit}`;
  return `<svg class="${cls}" width="${w}" height="${h}" viewBox="0 0 60 87" role="img" aria-label="${title}"` +
    ` data-card="${name}"${data}><title>${title}</title>` +
    `<rect x="1" y="1" width="58" height="85" rx="6" class="face"/>` +
    `<text x="6" y="19" font-size="16" font-weight="700" fill="${colour}" font-family="DejaVu Sans, Arial, sans-serif">${label}</text>` +
    `<g transform="translate(12,31) scale(0.6)" fill="${colour}">${SUIT_PATHS[suit] || ""}</g>` +
    `<g transform="translate(33,58) scale(1.45)" fill="${colour}">${SUIT_PATHS[suit] || ""}</g>` +
    `</svg>`;
}

// The back of a card (the bots' hands on the play page)
function cardBack(w = 26) {
  const h = Math.round(w * 1.45);
  return `<svg class="card back" width="${w}" height="${h}" viewBox="0 0 60 87" aria-hidden="true">` +
    `<rect x="1" y="1" width="58" height="85" rx="6" fill="#8c2f39" stroke="#f4f6f7" stroke-width="2"/>` +
    `<rect x="8" y="8" width="44" height="71" rx="3" fill="none" stroke="#e7b8bd" stroke-width="1.5"/></svg>`;
}

function esc(text) {
  return String(text).replace(/[&<>"']/g, c => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" }[c]));
}

function $(sel) { return document.querySelector(sel); }

// The page's message line: errors in red, notes in grey.
function showMessage(text, kind = "error") {
  const box = $("#message");
  if (!box) return;
  box.textContent = text || "";
  box.className = "message " + (text ? kind : "");
  box.hidden = !text;
}

class ApiFailure extends Error {
  constructor(message, status) { super(message); this.status = status; }
}

// POST (or GET without body) to the API; the parsed answer, or ApiFailure with the server's message.
async function api(path, body, method) {
  const init = { method: method || (body === undefined ? "GET" : "POST"), headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiFailure("the server does not answer (is dokosim serve still running?)", 0);
  }
  let data = null;
  try { data = await res.json(); } catch (e) { data = null; }
  if (!res.ok) {
    throw new ApiFailure((data && data.error) || `the server answered ${res.status}`, res.status);
  }
  return data;
}

// Poll a job until it ends; onProgress(jobView) on every answer.
async function pollJob(id, onProgress, interval = 300) {
  for (;;) {
    const view = await api(`/api/jobs/${encodeURIComponent(id)}`);
    if (onProgress) onProgress(view);
    if (view.state !== "running") return view;
    await new Promise(r => setTimeout(r, interval));
  }
}

function fmtSigned(x, digits = 2) {
  if (x === null || x === undefined) return "–";
  return (x >= 0 ? "+" : "") + Number(x).toFixed(digits);
}

function pct(x, digits = 1) {
  if (x === null || x === undefined) return "–";
  return (100 * x).toFixed(digits) + "%";
}

let META = null;
async function meta() {
  if (!META) META = await api("/api/meta");
  return META;
}

function fillPresets(select, presets) {
  select.innerHTML = presets.map(p => `<option value="${esc(p)}">${esc(p)}</option>`).join("");
}

// A page's start, once it is loaded: bind() its controls, fill(m) its fields from the server's
// settings (/api/meta; a failure goes to the message line), then after().
function startPage({ bind, fill, after }) {
  document.addEventListener("DOMContentLoaded", async () => {
    bind();
    try {
      fill(await meta());
    } catch (e) { showMessage(e.message); }
    if (after) after();
  });
}

// The nav bar marks the current page.
document.addEventListener("DOMContentLoaded", () => {
  for (const a of document.querySelectorAll("nav a")) {
    if (a.getAttribute("href") === location.pathname) a.classList.add("current");
  }
});
