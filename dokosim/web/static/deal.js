// Look at a deal: a game record drawn as a table of four hands, stepped card by card; the score
// sheet is `dokosim score`'s; per card the double-dummy values and the hint player's values.
"use strict";

let DEAL = null;      // the server's view of the record
let STEP = 0;         // cards played so far on screen
let ANALYSIS = null;  // the whole deal judged double-dummy (a job)
let cardTimer = null;
const PLACES = ["s", "w", "n", "e"];  // seat 0 at the bottom, play goes clockwise

function seatLabel(s) {
  const party = DEAL.parties[s];
  return `seat ${s}${s === DEAL.dealer ? " (dealer)" : ""} <span class="party-${party}">${party === "re" ? "Re" : "Kontra"}</span>`;
}

function drawTable() {
  const n = DEAL.cards.length;
  const played = new Map();  // seat -> list of cards played (up to STEP)
  for (let k = 0; k < STEP; k++) {
    const c = DEAL.cards[k];
    if (!played.has(c.seat)) played.set(c.seat, []);
    played.get(c.seat).push(c.card);
  }
  const nextSeat = STEP < n ? DEAL.cards[STEP].seat : -1;
  const nextCard = STEP < n ? DEAL.cards[STEP].card : null;
  let html = "";
  for (let s = 0; s < 4; s++) {
    const gone = [...(played.get(s) || [])];
    let nextMarked = false;
    const cards = DEAL.hands[s].map(c => {
      const i = gone.indexOf(c);
      if (i >= 0) { gone.splice(i, 1); return cardSVG(c, { w: 36, cls: "played" }); }
      if (s === nextSeat && c === nextCard && !nextMarked) { nextMarked = true; return cardSVG(c, { w: 36, cls: "next" }); }
      return cardSVG(c, { w: 36 });
    }).join("");
    html += `<div class="seat ${PLACES[s]} ${s === nextSeat ? "turn" : ""}" data-seat="${s}"><div class="who">${seatLabel(s)}</div><div class="handcards">${cards}</div></div>`;
  }
  // the trick of the last card played (or nothing before the first)
  let centre = "";
  if (STEP > 0) {
    const t = Math.floor((STEP - 1) / 4);
    const upto = Math.min(STEP, 4 * t + 4);
    centre = `<div class="small">trick ${t + 1}</div><div class="trickcards" id="tablecards">`;
    for (let k = 4 * t; k < upto; k++) {
      centre += `<div class="tc">${cardSVG(DEAL.cards[k].card, { w: 46 })}<span>seat ${DEAL.cards[k].seat}</span></div>`;
    }
    centre += "</div>";
    if (upto === 4 * t + 4) centre += `<div class="small">won by seat ${DEAL.tricks[t].winner}, ${DEAL.tricks[t].eyes} eyes</div>`;
  } else {
    centre = `<div class="small">seat ${DEAL.cards.length ? DEAL.cards[0].seat : "?"} leads</div>`;
  }
  html += `<div class="centre">${centre}</div>`;
  $("#felt").innerHTML = html;
  $("#stepinfo").textContent = `${STEP} of ${n} cards played` + (STEP < n ? `; next: seat ${nextSeat} plays ${nextCard}` : "; the deal is over");
  $("#stepinfo").dataset.step = STEP;
  drawTricks();
  scheduleCardInfo();
}

function drawSummary() {
  const sc = DEAL.score;
  const calls = DEAL.calls.length
    ? DEAL.calls.map(c => `seat ${c.seat} says ${esc(c.call)} after ${c.cards_played} cards`).join("<br>")
    : "none";
  const spec = DEAL.contract_spec || {};
  const who = sc.soloist !== null && sc.soloist !== undefined ? ` (soloist seat ${sc.soloist})`
    : (sc.declarer !== null && sc.declarer !== undefined ? ` (seat ${sc.declarer})` : "");
  $("#summary").innerHTML = `<div><b>Contract:</b> <span id="contract">${esc(DEAL.contract)}</span>${who}` +
    `${spec.compulsory ? " (compulsory)" : ""}; dealer seat ${DEAL.dealer}</div>` +
    `<div><b>Re:</b> seats ${DEAL.parties.map((p, s) => p === "re" ? s : null).filter(s => s !== null).join(", ")}</div>` +
    `<div><b>Calls:</b> <span id="calls">${calls}</span></div>` +
    (spec.type === "poverty" ? `<div><b>Poverty:</b> seat ${spec.seat} passed ${esc((spec.passed || []).join(" "))} to seat ${spec.partner}, ` +
      `who returned ${esc((spec.returned || []).join(" "))} (the hands are shown after the exchange)</div>` : "");
  if (!sc.ok) { $("#scoresheet").innerHTML = `<div class="lostnote">${esc(sc.error)}</div>`; return; }
  if (sc.complete === false) { $("#scoresheet").innerHTML = `unfinished after ${sc.cards_played} cards`; return; }
  const items = {};
  for (const p of sc.points) { const k = `${p.side} ${p.item.replace(/_/g, " ")}`; items[k] = (items[k] || 0) + 1; }
  $("#scoresheet").innerHTML = `<table class="data" id="scoretable">` +
    `<tr><th></th><th>Re</th><th>Kontra</th></tr>` +
    `<tr><td>eyes</td><td id="eyes-re">${sc.eyes.re}</td><td id="eyes-kontra">${sc.eyes.kontra}</td></tr>` +
    `<tr><td>tricks</td><td>${sc.tricks.re}</td><td>${sc.tricks.kontra}</td></tr></table>` +
    `<p>winner: <b id="winner">${esc(sc.winner || "nobody")}</b>; game value <b id="gamevalue">${sc.game_value}</b></p>` +
    `<p class="small">points: ${Object.entries(items).map(([k, n]) => esc(k) + (n > 1 ? ` x${n}` : "")).join(", ")}</p>` +
    `<table class="data"><tr>${[0, 1, 2, 3].map(s => `<th>seat ${s}</th>`).join("")}</tr>` +
    `<tr>${sc.score.map((v, s) => `<td class="seatscore" id="score-${s}">${fmtSigned(v, 0)}</td>`).join("")}</tr></table>`;
}

function drawTricks() {
  const n = DEAL.cards.length;
  const byCard = ANALYSIS ? ANALYSIS.cards : null;
  let html = `<table class="data tricklist"><tr><th>#</th><th>cards (seat:card)</th><th>won by</th><th>eyes</th></tr>`;
  for (let t = 0; t * 4 < n; t++) {
    let cells = "";
    for (let k = 4 * t; k < Math.min(n, 4 * t + 4); k++) {
      const c = DEAL.cards[k];
      let cls = "pc", title = "";
      if (k === STEP - 1) cls += " cur";
      if (byCard && byCard[k]) {
        const a = byCard[k];
        if (a.lost_the_deal) { cls += " lost"; title = `lost the deal: ${a.winner_before} would win before it, ${a.winner_after || "nobody"} after`; }
        else if (a.value_lost > 0 || a.eyes_lost > 0) { cls += " cost"; }
        const parts = [];
        if (a.answered) parts.push(`value ${fmtSigned(a.value_re_before, 0)} → ${fmtSigned(a.value_re_after, 0)} (Re), band ${a.band_before} → ${a.band_after}`);
        else parts.push("game value: not answered");
        if (a.eyes_lost !== undefined) parts.push(`lost ${a.eyes_lost} eyes against the best card`);
        title = (title ? title + "; " : "") + parts.join("; ");
      }
      cells += `<span class="${cls}" data-k="${k}" title="${esc(title)}">${c.seat}:${c.card}</span> `;
    }
    const tr = DEAL.tricks[t];
    html += `<tr><td>${t + 1}</td><td class="cardcell">${cells}</td><td>${tr ? tr.winner : ""}</td><td>${tr ? tr.eyes : ""}</td></tr>`;
  }
  $("#tricks").innerHTML = html + "</table>";
  drawJudged();
  for (const span of document.querySelectorAll(".tricklist .pc")) {
    span.addEventListener("click", () => { STEP = +span.dataset.k; drawTable(); });
  }
}

// The analysis's verdict on the card about to be played (once the analysis is done)
function drawJudged() {
  const box = $("#judged");
  const a = ANALYSIS && STEP < DEAL.cards.length ? ANALYSIS.cards[STEP] : null;
  if (!a) { box.hidden = true; return; }
  const own = a.party === "re" ? "Re" : "Kontra";
  let text = `<b>Card ${STEP + 1}, seat ${a.seat}'s ${esc(a.played)}, judged double dummy:</b> `;
  if (a.answered) {
    text += `band ${esc(a.band_before)} → ${esc(a.band_after)}, game value for Re ${fmtSigned(a.value_re_before, 0)} → ${fmtSigned(a.value_re_after, 0)}`;
    text += a.value_lost > 0 ? `; it cost ${own} ${a.value_lost} point${a.value_lost > 1 ? "s" : ""} of game value` : "; it cost nothing";
  } else {
    text += `the game value before or after it is not answered within ${ANALYSIS.node_limit.toLocaleString("en")} nodes`;
  }
  if (a.eyes_lost !== undefined) text += `; ${a.eyes_lost} eyes lost against the best card`;
  if (a.lost_the_deal) text = `<span class="lostnote">This card lost the deal.</span> ` + text;
  box.innerHTML = text;
  box.hidden = false;
}

function scheduleCardInfo() {
  clearTimeout(cardTimer);
  const k = STEP;
  if (k >= DEAL.cards.length) {
    $("#cardpanel").innerHTML = `<h3>The deal is over</h3><p class="small muted">Step back to see each card's values.</p>`;
    return;
  }
  $("#cardpanel").innerHTML = `<h3>Card ${k + 1}: seat ${DEAL.cards[k].seat} plays ${DEAL.cards[k].card}</h3><p class="muted small">solving…</p>`;
  cardTimer = setTimeout(() => cardInfo(k), 250);
}

async function cardInfo(k) {
  try {
    const info = await api("/api/deal/card", { record: DEAL.record, card: k });
    if (k !== STEP) return;
    const legal = Object.keys(info.hint_values || info.dd_values || {});
    const ddSeen = info.dd_answered ? info.dd_values : null;
    const own = info.party === "re" ? 1 : -1;
    const bestDD = ddSeen ? Math.max(...Object.values(ddSeen).filter(v => v !== null).map(v => own * v)) : null;
    const bestHint = info.hint_values ? Math.max(...Object.values(info.hint_values)) : null;
    let rows = legal.map(c => {
      const dd = ddSeen ? ddSeen[c] : null;
      const hv = info.hint_values ? info.hint_values[c] : null;
      const mark = c === info.played ? " best" : "";
      const ddText = ddSeen ? (dd === null ? "–" : `${dd}${own * dd === bestDD ? " (best)" : ` (${own * dd - bestDD})`}`) : "not answered";
      return `<tr class="${mark}" data-card="${c}"><td>${cardSVG(c, { w: 28 })} ${c}${c === info.played ? " ← played" : ""}</td>` +
        `<td>${ddText}</td><td>${hv === null ? "–" : fmtSigned(hv, 1) + (hv === bestHint ? " (pick)" : "")}</td></tr>`;
    }).join("");
    const band = info.band_answered
      ? `Before it, with every hand open: Re's eyes fall in <b>${esc(info.band)}</b>, ${esc(info.winner)} wins, game value ${fmtSigned(info.value_re, 0)} for Re.`
      : `The game value before it: not answered within ${info.node_limit.toLocaleString("en")} nodes.`;
    const eyes = info.dd_answered ? `Re's final eyes under best play before it: <b>${info.eyes_re}</b>.` :
      `Exact double-dummy eyes: not answered within ${info.node_limit.toLocaleString("en")} nodes (the solver answers the last tricks).`;
    $("#cardpanel").innerHTML = `<h3>Card ${k + 1}: seat ${info.seat} (${info.party === "re" ? "Re" : "Kontra"}) plays ${info.played}</h3>` +
      `<p class="small">${band} ${eyes}</p>` +
      `<table class="data" id="cardvalues"><tr><th>legal card</th><th>Re's eyes after it (double dummy)</th>` +
      `<th>${esc(info.hint_player)} expects for the seat</th></tr>${rows}</table>` +
      `<p class="small muted">Double dummy: every hand open, best play by both sides, no further calls. ` +
      `${esc(info.hint_player)} (the hint of dokosim play): expected score for seat ${info.seat} over ${info.hint_samples || "–"} sampled deals of the cards it cannot see.</p>`;
  } catch (e) {
    if (k === STEP) $("#cardpanel").innerHTML = `<p class="lostnote">${esc(e.message)}</p>`;
  }
}

async function analyse() {
  ANALYSIS = null;
  $("#anabarwrap").hidden = false;
  $("#lostnote").innerHTML = "";
  try {
    const started = await api("/api/deal/analyse", { record: DEAL.record });
    const view = await pollJob(started.job, v => {
      $("#anabar").style.width = (100 * v.done / Math.max(1, v.total)) + "%";
      $("#analysisstate").textContent = v.state === "running" ? `judging every card: ${v.label}` : "";
    }, 400);
    ANALYSIS = view.result;
    $("#anabarwrap").hidden = true;
    const lost = ANALYSIS.lost_the_deal;
    if (lost !== null && lost !== undefined) {
      const a = ANALYSIS.cards[lost];
      $("#lostnote").innerHTML = `<p class="lostnote" id="lostcard" data-k="${lost}">Card ${lost + 1}, seat ${a.seat}'s ${a.played}, lost the deal: ` +
        `before it ${a.winner_before} wins with best play (band ${a.band_before}), after it ${a.winner_after || "nobody"} (band ${a.band_after}).</p>`;
    } else {
      $("#lostnote").innerHTML = `<p class="small muted" id="lostcard">No card turned the winner where the solver answered ` +
        `(${ANALYSIS.answered} of ${ANALYSIS.positions} positions within ${ANALYSIS.node_limit.toLocaleString("en")} nodes each).</p>`;
    }
    $("#analysisstate").textContent = "orange: a card that cost its party; red: the card that lost the deal (hover for the values)";
    drawTricks();
  } catch (e) {
    $("#anabarwrap").hidden = true;
    $("#analysisstate").textContent = `analysis: ${e.message}`;
  }
}

function showDeal(view) {
  DEAL = view;
  STEP = 0;
  ANALYSIS = null;
  $("#deal").hidden = false;
  drawSummary();
  drawTable();
  analyse();
}

async function load(path, body) {
  showMessage("");
  try {
    const view = await api(path, body);
    showDeal(view);
    $("#record").value = JSON.stringify(view.record);
  } catch (e) {
    showMessage(e.message);
  }
}

function step(to) {
  if (!DEAL) return;
  STEP = Math.max(0, Math.min(DEAL.cards.length, to));
  drawTable();
}

startPage({
  bind() {
    $("#showrecord").addEventListener("click", () => load("/api/deal/record", { record: $("#record").value, line: +$("#line").value || 1 }));
    $("#opendataset").addEventListener("click", () => load("/api/deal/dataset", { directory: $("#directory").value, deal_id: +$("#dsdeal").value }));
    $("#openseed").addEventListener("click", () => load("/api/deal/dataset", { seed: +$("#seed").value, deal_id: +$("#seeddeal").value,
                                                                                strategy: $("#strategy").value || undefined }));
    $("#first").addEventListener("click", () => step(0));
    $("#prev").addEventListener("click", () => step(STEP - 1));
    $("#next").addEventListener("click", () => step(STEP + 1));
    $("#last").addEventListener("click", () => step(DEAL ? DEAL.cards.length : 0));
    $("#prevtrick").addEventListener("click", () => step(STEP % 4 ? STEP - STEP % 4 : STEP - 4));
    $("#nexttrick").addEventListener("click", () => step(STEP - STEP % 4 + 4));
    document.addEventListener("keydown", e => {
      if (!DEAL || ["INPUT", "TEXTAREA", "SELECT"].includes(document.activeElement.tagName)) return;
      if (e.key === "ArrowRight") step(STEP + 1);
      else if (e.key === "ArrowLeft") step(STEP - 1);
      else if (e.key === "Home") step(0);
      else if (e.key === "End") step(DEAL.cards.length);
    });
  },
  fill(m) {
    $("#datasets").innerHTML = m.datasets.map(d => `<option value="${esc(d)}">`).join("");
    $("#strategy").placeholder = m.play_strategy;
    if (m.datasets.length) $("#directory").value = m.datasets[0];
  },
  after() {
    if (location.hash === "#played") {
      const stored = sessionStorage.getItem("dokosim-record");
      if (stored) load("/api/deal/record", { record: JSON.parse(stored) });
    }
  },
});
