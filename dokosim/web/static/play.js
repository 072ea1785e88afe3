// Play a hand against the bots: the server keeps the dokosim.Game and plays the bots; the page
// shows what your seat sees and sends your choices by name.
"use strict";

let TABLE = null;
const PLACES_FROM_ME = ["s", "w", "n", "e"];

function place(seat) { return PLACES_FROM_ME[(seat - TABLE.seat + 4) % 4]; }

let DRAWN = 0;

function draw(view) {
  TABLE = view;
  document.body.dataset.drawn = ++DRAWN;  // (the tests wait for the next drawing)
  $("#game").hidden = false;
  const legalCards = new Set(view.legal.filter(a => a.length === 2 && a !== "re"));
  let html = "";
  for (let s = 0; s < 4; s++) {
    const taken = `${view.tricks_taken[s]} tricks, ${view.eyes_taken[s]} eyes`;
    const turn = !view.terminal && ((view.your_turn && s === view.seat) || (view.next_card_seat === s && !view.your_turn)) ? " turn" : "";
    if (s === view.seat) {
      const cardPhase = view.your_turn && (view.phase === "card" || view.phase === "poverty");
      const cards = view.hand.map(c => cardSVG(c, { w: 54, cls: cardPhase ? (legalCards.has(c) ? "legal" : "dim") : "" })).join("");
      html += `<div class="seat s${turn}" data-seat="${s}"><div class="who">you, seat ${s}${s === view.dealer ? " (dealer)" : ""} · ${taken}</div>` +
        `<div class="handcards" id="myhand">${cards}</div></div>`;
    } else {
      html += `<div class="seat ${place(s)}${turn}" data-seat="${s}"><div class="who">seat ${s} (${esc(view.bots[s])})${s === view.dealer ? " (dealer)" : ""}</div>` +
        `<div class="small">${taken}</div><div class="handcards">${cardBack().repeat(view.cards_left[s])}</div></div>`;
    }
  }
  let centre = "";
  const shown = view.trick.length ? view.trick : (view.last_trick ? view.last_trick.cards : []);
  if (shown.length) {
    centre = `<div class="trickcards" id="tablecards">` + shown.map(c => `<div class="tc">${cardSVG(c.card, { w: 48 })}<span>${c.seat === view.seat ? "you" : "seat " + c.seat}</span></div>`).join("") + "</div>";
    if (!view.trick.length && view.last_trick) centre += `<div class="small">last trick, won by ${view.last_trick.winner === view.seat ? "you" : "seat " + view.last_trick.winner}</div>`;
  } else {
    centre = `<div class="small">${view.phase === "reservation" ? "reservations" : ""}</div>`;
  }
  html += `<div class="centre">${centre}</div>`;
  $("#felt").innerHTML = html;
  for (const svg of document.querySelectorAll("#myhand svg.legal")) {
    svg.addEventListener("click", () => act(svg.dataset.card));
  }
  // what to decide
  const others = view.legal.filter(a => !legalCards.has(a));
  let prompt = "";
  if (view.terminal) prompt = "The deal is over.";
  else if (!view.your_turn) prompt = "The bots are playing…";
  else if (view.phase === "reservation") prompt = "Your reservation:";
  else if (view.phase === "call") prompt = "A call before your card? (pass: none)";
  else if (view.phase === "poverty") prompt = legalCards.size ? "A card to pass (click it):" : "Take the poverty?";
  else prompt = "Your card: click one of the cards framed in yellow (the legal ones).";
  $("#prompt").textContent = prompt;
  $("#actions").innerHTML = view.your_turn ? others.map(a => `<button class="${a === "pass" || a === "healthy" ? "" : "secondary"}" data-action="${esc(a)}">${esc(a === "no_more_calls" ? "pass, and no more calls this deal" : a.replace(/_/g, " "))}</button>`).join("") : "";
  for (const b of document.querySelectorAll("#actions button")) b.addEventListener("click", () => act(b.dataset.action));
  $("#hintbtn").disabled = !view.your_turn;
  $("#status").innerHTML = `<div><b>Contract:</b> <span id="contract">${esc(view.contract || "not decided yet")}</span></div>` +
    `<div><b>Your party:</b> ${esc(view.own_party || "not known yet")}</div>` +
    `<div><b>Calls:</b> ${view.calls.length ? view.calls.map(c => `seat ${c.seat} ${esc(c.call)}`).join(", ") : "none"}</div>` +
    `<div><b>Cards played:</b> <span id="cardsplayed">${view.cards_played}</span> of 48</div>`;
  const log = $("#log");
  log.textContent = view.log.join("\n");
  log.scrollTop = log.scrollHeight;
  if (view.terminal) {
    const r = view.result;
    $("#resultpanel").hidden = false;
    $("#resultpanel").innerHTML = `<h3>Result</h3><p id="result">${esc(r.contract)}, Re = seats ${r.re_seats.join(", ")}; Re ${r.eyes.re} eyes, ` +
      `Kontra ${r.eyes.kontra}; ${esc(r.winner || "nobody")} wins, game value ${r.game_value}</p>` +
      `<p>Score: ${r.score.map((v, s) => `${s === view.seat ? "you" : "seat " + s} ${fmtSigned(v, 0)}`).join(", ")}</p>` +
      `<button id="openviewer">Open this deal in the viewer</button>`;
    $("#openviewer").addEventListener("click", () => {
      sessionStorage.setItem("dokosim-record", JSON.stringify(view.record));
      location.href = "/deal#played";
    });
  } else {
    $("#resultpanel").hidden = true;
  }
}

async function act(action) {
  showMessage("");
  $("#hint").textContent = "";
  try {
    draw(await api("/api/play/act", { table: TABLE.table, action }));
  } catch (e) { showMessage(e.message); }
}

async function newDeal() {
  showMessage("");
  $("#hint").textContent = "";
  $("#newdeal").disabled = true;
  try {
    draw(await api("/api/play/new", { seat: +$("#seat").value, seed: +$("#seed").value, deal_id: +$("#dealid").value,
                                      rules: $("#rules").value, strategy: $("#strategy").value || undefined }));
  } catch (e) { showMessage(e.message); }
  $("#newdeal").disabled = false;
}

async function askHint() {
  $("#hint").textContent = "thinking…";
  try {
    const h = await api("/api/play/hint", { table: TABLE.table });
    $("#hint").innerHTML = `<span class="hint" id="hinttext">hint: ${esc(h.hint)}</span>`;
  } catch (e) { $("#hint").textContent = ""; showMessage(e.message); }
}

startPage({
  bind() {
    $("#newdeal").addEventListener("click", newDeal);
    $("#hintbtn").addEventListener("click", askHint);
  },
  fill(m) {
    fillPresets($("#rules"), m.presets);
    $("#strategy").placeholder = m.play_strategy;
    $("#botsnote").textContent = `bots: ${m.play_strategy} unless named (dokosim play's default); hints by ${m.hint_player}`;
  },
});
