// Ask about a hand: pick 12 cards, see every reservation's win chance and expected score
// (dokosim.studies.advise on the server, as `dokosim advise` runs it).
"use strict";

const SUITS = ["C", "S", "H", "D"];
const RANKS = ["A", "T", "K", "Q", "J", "9"];
const counts = {};

function handText() {
  const out = [];
  for (const s of SUITS) for (const r of RANKS) for (let i = 0; i < (counts[r + s] || 0); i++) out.push(r + s);
  return out.join(" ");
}

function drawGrid() {
  const grid = $("#grid");
  grid.innerHTML = "";
  for (const s of SUITS) for (const r of RANKS) {
    const name = r + s, n = counts[name] || 0;
    const cell = document.createElement("div");
    cell.className = "cell" + (n ? "" : " none");
    cell.dataset.card = name;
    cell.innerHTML = cardSVG(name, { w: 44, cls: n ? "chosen" : "" }) + (n ? `<span class="count">${n}</span>` : "");
    cell.addEventListener("click", () => {
      counts[name] = ((counts[name] || 0) + 1) % 3;
      $("#hand").value = handText();
      drawGrid();
    });
    grid.appendChild(cell);
  }
  const total = Object.values(counts).reduce((a, b) => a + b, 0);
  $("#count").textContent = `(${total} chosen)`;
}

function readHandField() {
  for (const k of Object.keys(counts)) delete counts[k];
  for (let tok of $("#hand").value.toUpperCase().split(/[\s,]+/)) {
    if (!tok) continue;
    if (tok.startsWith("10")) tok = "T" + tok.slice(2);
    if (tok.length === 2 && RANKS.includes(tok[0]) && SUITS.includes(tok[1])) counts[tok] = Math.min(2, (counts[tok] || 0) + 1);
  }
  drawGrid();
}

function drawChart(result) {
  // expected score with its 95% interval as horizontal bars; win chance beside it
  const opts = Object.entries(result.options);
  const rowH = 26, left = 130, width = 640, top = 26;
  let lo = 0, hi = 0;
  for (const [, e] of opts) { lo = Math.min(lo, e.score_ci95[0]); hi = Math.max(hi, e.score_ci95[1]); }
  const pad = Math.max(0.5, (hi - lo) * 0.08); lo -= pad; hi += pad;
  const plotW = 360, x = v => left + (v - lo) / (hi - lo) * plotW;
  const wx0 = left + plotW + 30, wW = width - wx0 - 10, wx = p => wx0 + p * wW;
  const h = top + rowH * opts.length + 24;
  let svg = `<svg id="advisechart" width="100%" viewBox="0 0 ${width} ${h}" role="img" aria-label="chart of every reservation's expected score and win chance">`;
  svg += `<text x="${left}" y="14" font-size="12" fill="#5f6b73">expected score (95% interval)</text>`;
  svg += `<text x="${wx0}" y="14" font-size="12" fill="#5f6b73">win chance</text>`;
  svg += `<line x1="${x(0)}" y1="${top - 4}" x2="${x(0)}" y2="${h - 20}" stroke="#888" stroke-dasharray="3,3"/>`;
  opts.forEach(([name, e], i) => {
    const y = top + i * rowH, mid = y + rowH / 2 - 2;
    const best = name === result.recommendation;
    const colour = best ? "#1f6f43" : "#7aa890";
    svg += `<text x="${left - 8}" y="${mid + 4}" font-size="12" text-anchor="end" ${best ? 'font-weight="700"' : ""}>${esc(name.replace(/_/g, " "))}</text>`;
    const x0 = Math.min(x(0), x(e.expected_score)), x1 = Math.max(x(0), x(e.expected_score));
    svg += `<rect class="bar" data-option="${esc(name)}" x="${x0}" y="${y + 3}" width="${Math.max(1, x1 - x0)}" height="${rowH - 10}" fill="${colour}"/>`;
    svg += `<line x1="${x(e.score_ci95[0])}" y1="${mid}" x2="${x(e.score_ci95[1])}" y2="${mid}" stroke="#222" stroke-width="1.5"/>`;
    for (const v of e.score_ci95) svg += `<line x1="${x(v)}" y1="${mid - 5}" x2="${x(v)}" y2="${mid + 5}" stroke="#222" stroke-width="1.5"/>`;
    svg += `<rect x="${wx0}" y="${y + 5}" width="${wW}" height="${rowH - 14}" fill="#e3e8eb"/>`;
    svg += `<rect x="${wx0}" y="${y + 5}" width="${wx(e.win_chance) - wx0}" height="${rowH - 14}" fill="${colour}"/>`;
    svg += `<line x1="${wx(e.win_ci95[0])}" y1="${mid}" x2="${wx(e.win_ci95[1])}" y2="${mid}" stroke="#222" stroke-width="1.5"/>`;
  });
  const axisY = h - 8;
  const step = niceStep(hi - lo);
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    svg += `<text x="${x(v)}" y="${axisY}" font-size="10" text-anchor="middle" fill="#5f6b73">${fmtSigned(v, step < 1 ? 1 : 0)}</text>`;
  }
  for (const p of [0, 0.5, 1]) svg += `<text x="${wx(p)}" y="${axisY}" font-size="10" text-anchor="middle" fill="#5f6b73">${p * 100}%</text>`;
  svg += "</svg>";
  $("#chart").innerHTML = svg;
}

function niceStep(range) {
  const raw = range / 6, p = Math.pow(10, Math.floor(Math.log10(raw)));
  for (const m of [1, 2, 5, 10]) if (raw <= m * p) return m * p;
  return 10 * p;
}

function showResult(result) {
  $("#answer").hidden = false;
  $("#answeredby").textContent = `Answered by ${result.strategy} (dokosim advise's player at all four seats), ` +
    `${result.deals.toLocaleString("en")} deals per option, seed ${result.seed}, seat ${result.seat}, dealer ${result.dealer}`;
  const notes = [];
  const rows = Object.entries(result.options).map(([name, e]) => {
    const label = name.replace(/_/g, " ");
    if (e.note) notes.push(`${label}: ${e.note}`);
    if (e.refused !== undefined) notes.push(`${label}: refused in ${pct(e.refused)} of deals (redealt, counted 0); declared in ${pct(e.declared_share)}`);
    if (e.model_win_chance !== undefined) notes.push(`${label}: model P(win) ${pct(e.model_win_chance)}`);
    return `<tr class="${name === result.recommendation ? "best" : ""}" data-option="${esc(name)}"><td>${esc(name.replace(/_/g, " "))}</td>` +
      `<td>${pct(e.win_chance)}</td><td>[${pct(e.win_ci95[0])}, ${pct(e.win_ci95[1])}]</td>` +
      `<td>${fmtSigned(e.expected_score)}</td><td>[${fmtSigned(e.score_ci95[0])}, ${fmtSigned(e.score_ci95[1])}]</td></tr>`;
  });
  $("#notes").innerHTML = notes.map(n => `<li>${esc(n)}</li>`).join("");
  $("#results tbody").innerHTML = rows.join("");
  $("#recommendation").textContent = result.recommendation_text + ` (${result.seconds} s)`;
  $("#modelnote").textContent = Object.keys(result.options).some(o => o.endsWith("_solo")) ? result.model_note : "";
  drawChart(result);
}

async function ask() {
  showMessage("");
  $("#ask").disabled = true;
  $("#answer").hidden = true;
  try {
    const body = { hand: $("#hand").value, rules: $("#rules").value, seat: +$("#seat").value,
                   dealer: +$("#dealer").value, deals: +$("#deals").value, seed: +$("#seed").value };
    const started = await api("/api/advise", body);
    $("#progresswrap").hidden = false;
    const view = await pollJob(started.job, v => {
      $("#bar").style.width = (100 * v.done / Math.max(1, v.total)) + "%";
      $("#progresstext").textContent = v.state === "running"
        ? `simulating ${v.label ? v.label.replace(/_/g, " ") : "..."}: ${v.done} of ${v.total} options done, ${v.elapsed.toFixed(1)} s`
        : `done in ${v.elapsed.toFixed(1)} s`;
      if (v.state !== "running") $("#bar").style.width = "100%";
    });
    showResult(view.result);
  } catch (e) {
    showMessage(e.message);
    $("#progresswrap").hidden = true;
  } finally {
    $("#ask").disabled = false;
  }
}

startPage({
  bind() {
    drawGrid();
    $("#hand").addEventListener("input", readHandField);
    $("#ask").addEventListener("click", ask);
  },
  fill(m) {
    fillPresets($("#rules"), m.presets);
    $("#deals").value = m.advise_deals;
    $("#deals").max = m.max_deals;
  },
  after() {
    const params = new URLSearchParams(location.search);
    if (params.get("hand")) { $("#hand").value = params.get("hand"); readHandField(); }
  },
});
