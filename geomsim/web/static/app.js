// geomsim serve: the page. Plain JavaScript, no build step, nothing fetched from elsewhere.
// The server holds the game (one session per tab, kept in sessionStorage); the page draws the
// view it sends, moves ghost pieces over the board and asks the server for every verdict.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const KEY = "geomsim-session";
const BOTS = ["", "random", "greedy", "ismcts:100"];
const $ = (id) => document.getElementById(id);

const S = {
  sid: null, view: null, boardText: null, box: null, fullBox: null,
  tool: "view", params: {}, heading: 0,
  ghost: null,          // {x, y} of the ghost, table mm
  press: null,          // pointer pressed: {cx, cy, x, y, turned}
  pan: null,            // panning: {cx, cy, box}
  pending: null, inflight: false, verdict: null,
  analysis: null,       // {name, params} shown
  latencies: [],        // ms from a pointer move to its verdict on the page
  serverMs: [],         // ms the server took for each of those verdicts
  botTimer: null,       // the next reading of the view while a bot thinks
  analysisLegend: null, // the key of the analysis shown: [[colour, words]]
};
window.geomsim = S;  // for tests and the curious

// The server answered the token in the address with a cookie: the token leaves the address bar
// (and the history), the cookie (HttpOnly, SameSite=Strict) goes with every request from now on.
if (new URLSearchParams(location.search).has("token")) history.replaceState(null, "", location.pathname);

// -- talking to the server ----------------------------------------------------------------------
function showError(message) {
  const box = $("error");
  box.textContent = message;
  box.hidden = !message;
}

async function call(method, path, body) {
  const options = { method, headers: {} };
  if (body !== undefined) {
    options.body = JSON.stringify(body);
    options.headers["Content-Type"] = "application/json";
  }
  let response, data;
  try {
    response = await fetch(path, options);
    data = await response.json();
  } catch (e) {
    throw new Error(`no answer from the server (${e.message})`);
  }
  if (!response.ok) {
    const err = new Error(data.error || `HTTP ${response.status}`);
    err.status = response.status;
    err.data = data;
    throw err;
  }
  return data;
}

function api(name, body = {}) {
  return call("POST", `/api/s/${S.sid}/${name}`, { version: S.view.version, ...body });
}

// A request that changes the game: the new view is drawn, an error shown, nothing else.
async function change(name, body = {}) {
  try {
    const data = await api(name, body);
    showError("");
    if (data.view) render(data.view);
    return data;
  } catch (e) {
    showError(e.message);
    return null;
  }
}

async function newSession(body) {
  const data = await call("POST", "/api/sessions", body);
  S.sid = data.session;
  sessionStorage.setItem(KEY, S.sid);
  S.boardText = null;
  S.analysis = null;
  S.analysisLegend = null;
  S.ghost = null;
  render(data.view);
}

async function start() {
  const games = await call("GET", "/api/games");
  const select = $("ng-game");
  for (const g of games.games) select.add(new Option(`${g.name} (${g.min}-${g.max})`, g.name));
  S.sid = sessionStorage.getItem(KEY);
  if (S.sid) {
    try {
      render(await call("GET", `/api/s/${S.sid}/view`));
      return;
    } catch (e) { /* an old tab or a restarted server: start again */ }
  }
  await newSession({});
}

// -- drawing the view ---------------------------------------------------------------------------
function el(tag, attrs = {}, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "onclick") node.addEventListener("click", v);
    else node.setAttribute(k, v);
  }
  if (text !== undefined) node.textContent = text;
  return node;
}

function svgEl(tag, attrs = {}) {
  const node = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  return node;
}

function render(view) {
  // Another moment (a step, a bot's move, an undo, another game): no verdict of the last one
  // stays on screen.
  const moved = !S.view || S.view.version !== view.version || S.view.session !== view.session;
  S.view = view;
  $("title").textContent = `${view.game}: ${view.title}`;
  $("ng-game").value = view.game;
  $("ng-players").value = view.players;
  renderBoard(view.board);
  renderStatus(view);
  renderMovers(view);
  renderHistory(view);
  renderLast(view);
  renderSeats(view);
  renderExpectations(view);
  renderDownloads();
  watchBots(view);
  $("deal").hidden = !view.can_deal;
  renderLegend();
  if (moved) clearVerdict();
  S.verdict = null;
  clearOverlays();
  drawGhost();
  if (S.ghost && currentTool()) schedulePreview(performance.now());  // the table changed
  if (S.analysis) runAnalysis(S.analysis.name, S.analysis.params, false);
}

function renderBoard(board) {
  const svg = $("board");
  if (S.boardText !== board.svg) {
    $("content").innerHTML = board.svg;
    S.boardText = board.svg;
  }
  const key = board.viewBox.join(" ");
  if (S.fullBox !== key) {
    S.fullBox = key;
    S.box = board.viewBox.slice();
  }
  setBox(S.box);
  // Tools: "view" (pan, zoom, pick) and the game's ghost pieces.
  const tools = $("tools");
  tools.replaceChildren();
  const names = ["view", ...board.tools.map((t) => t.name)];
  if (!names.includes(S.tool)) S.tool = "view";
  for (const [i, name] of names.entries()) {
    const label = i === 0 ? "view / pan" : board.tools[i - 1].label;
    const input = el("input", { type: "radio", name: "tool", value: name, id: `tool-${name}` });
    input.checked = name === S.tool;
    input.addEventListener("change", () => { S.tool = name; S.ghost = null; renderParams(); drawGhost(); clearOverlays(); });
    tools.append(input, el("label", { for: `tool-${name}` }, label));
  }
  renderParams();
  renderAnalysisBar(board);
  const viewer = $("viewer");
  viewer.replaceChildren(new Option("the player to move", ""));
  for (let p = 0; p < S.view.players; p++) viewer.add(new Option(`player ${p}`, String(p)));
  viewer.value = S.view.viewer === null ? "" : String(S.view.viewer);
  $("reveal").checked = S.view.reveal;
  // The wheel means the same in every tool: zoom. Turning a ghost has its own gestures.
  const turns = board.tools.some((t) => t.turns);
  $("board-hint").textContent = "Wheel: zoom (in every tool). Drag: pan (view tool; middle button or Alt+drag in any tool)."
    + (turns ? " Turn the ghost: Shift+wheel or ←/→ (5°, Ctrl: 1°), press and drag, or the heading box. A click lays a legal ghost." : "")
    + (board.svg.includes("data-opens=") ? " Click where the board is ringed." : "");
}

// The board's key, and the analysis's below it: a swatch and words each.
function renderLegend() {
  const keys = [];
  const add = (colour, words, shape) => {
    const swatch = el("span", { class: `swatch ${shape || "square"}` });
    if (shape === "ring") swatch.style.borderColor = colour;
    else swatch.style.background = colour;
    const key = el("span", { class: "key" });
    key.append(swatch, words);
    keys.push(key);
  };
  for (const [colour, words, shape] of S.view.board.legend || []) add(colour, words, shape);
  if (S.analysisLegend && S.analysisLegend.length) {
    keys.push(el("span", { class: "key analysis" }, `${S.analysis ? S.analysis.name : "analysis"}:`));
    for (const [colour, words] of S.analysisLegend) add(colour, words, "square");
  }
  $("legend").replaceChildren(...keys);
}

function currentTool() {
  return (S.view.board.tools || []).find((t) => t.name === S.tool) || null;
}

// The anchor of the tool's chosen parameter (e.g. the end of the expedition chosen), if any.
function currentAnchor(tool) {
  const anchors = (S.view.board.data || {}).anchors || {};
  for (const p of tool.params) if (anchors[S.params[p.name]]) return anchors[S.params[p.name]];
  return null;
}

// "From the ring": the ghost points from the anchor to the pointer, its centre on that line at
// most `reach` from the anchor (less 0.01 mm, what rounding the pose may move it).
function fromAnchor(tool, at) {
  const a = currentAnchor(tool);
  if (!a || !tool.turns || !$("from-anchor").checked) return null;
  const dx = at.x - a[0], dy = at.y - a[1], d = Math.hypot(dx, dy);
  if (d < 1e-6) return null;
  const c = Math.min(d, a[3] - 0.01);
  return { ghost: { x: a[0] + (dx / d) * c, y: a[1] + (dy / d) * c }, heading: Math.atan2(dy, dx) * 180 / Math.PI };
}

function renderParams() {
  const box = $("params");
  box.replaceChildren();
  const tool = currentTool();
  $("heading-box").hidden = !(tool && tool.turns);
  $("from-box").hidden = true;
  if (!tool) return;
  for (const p of tool.params) {
    const select = el("select", { id: `param-${p.name}` });
    for (const c of p.choices) select.add(new Option(c, c));
    if (!p.choices.includes(S.params[p.name])) S.params[p.name] = p.choices[0];
    select.value = S.params[p.name];
    select.addEventListener("change", () => { S.params[p.name] = select.value; S.ghost = null; drawGhost(); });
    box.append(el("label", {}, `${p.label} `), select);
  }
  $("from-box").hidden = !(tool.turns && currentAnchor(tool));
}

// The server's bots move in the background: while one thinks, the view is read again.
function watchBots(view) {
  clearTimeout(S.botTimer);
  if (!view.thinking) return;
  S.botTimer = setTimeout(async () => {
    try {
      const now = await call("GET", `/api/s/${S.sid}/view`);
      if (now.version !== S.view.version || !now.thinking) render(now);
      else watchBots(now);
    } catch (e) { showError(e.message); }
  }, 250);
}

function renderStatus(view) {
  const who = view.over ? `game over; winners ${view.winners.join(", ")}` : `to move: player ${view.to_move.join(", ")}`;
  const bots = view.thinking ? "; a bot is thinking" : view.bot_error ? `; ${view.bot_error}` : "";
  $("status").textContent = `step ${view.cursor} of ${view.length}; ${who}; scores ${view.scores.join(" / ")}${bots}`;
  const ul = $("summary");
  ul.replaceChildren(...view.board.summary.map((line) => el("li", {}, line)));
}

function renderMovers(view) {
  const box = $("movers");
  box.replaceChildren();
  const several = view.to_move.length > 1;
  for (const p of view.to_move) {
    const seat = view.seats[p];
    const actions = view.actions[String(p)];
    const block = el(several ? "details" : "div", { class: "mover", id: `mover-${p}` });
    const head = el(several ? "summary" : "div", {}, `player ${p}` + (seat ? ` (bot ${seat})` : "")
      + (several ? ": open to enter this player's sealed choice" : ""));
    block.append(head);
    if (seat) {
      block.append(el("p", {}, "a bot decides: press 'let the bots move'"));
    } else {
      const note = actions.finite ? `${actions.count} legal action(s)` : "a few legal actions drawn at random (the space is continuous: use the board's tools or type one)";
      block.append(el("div", { class: "hint" }, note));
      const list = el("div", { class: "actions" });
      // Rounded for reading (0.01 mm, 0.1 degree); the exact action is what a click plays.
      for (const [i, text] of actions.items.entries()) {
        const label = actions.labels ? actions.labels[i] : text;
        list.append(el("button", { class: "action", type: "button", "data-action": text, title: text, onclick: () => change("apply", { player: p, action: text }) }, label));
      }
      block.append(list);
      const form = el("form", {});
      const input = el("input", { placeholder: "an action in text form", id: `typed-${p}` });
      const check = el("button", { type: "button" }, "check");
      check.addEventListener("click", () => checkTyped(p, input.value));
      form.append(input, el("button", { type: "submit" }, "play"), check);
      form.addEventListener("submit", (e) => { e.preventDefault(); change("apply", { player: p, action: input.value }); });
      block.append(form);
    }
    box.append(block);
  }
}

async function checkTyped(player, text) {
  try {
    const version = S.view.version;
    const r = await api("check", { player, action: text });
    showError("");
    if (version === S.view.version) showVerdict(r, null);
  } catch (e) { showError(e.message); }
}

// "Last events": the steps since the last one played by hand (the bots' and a deal's after it),
// as the view tells them (a sealed choice not yet revealed shows neither its action nor events).
function renderLast(view) {
  const lines = [];
  for (const h of view.last) {
    const by = h.by !== "hand" ? ` [${h.by}]` : "";
    const step = el("li", { class: "step" }, `step ${h.n}, player ${h.player}: ${h.label === null ? "(a sealed choice)" : h.label}${by}`);
    if (h.text) step.title = h.text;
    lines.push(step);
    for (const e of h.events) lines.push(el("li", { class: "ev" }, e));
  }
  for (const o of view.offers) lines.push(el("li", { class: "offer" }, `offered: ${o}`));
  if (!lines.length) lines.push(el("li", { class: "ev" }, "nothing played yet"));
  $("events").replaceChildren(...lines);
}

function renderHistory(view) {
  const ol = $("history");
  ol.replaceChildren();
  for (const h of view.history) {
    const cls = h.n > view.cursor ? "future" : h.n === view.cursor ? "current" : "";
    const li = el("li", { class: cls });
    const words = el("span", {}, `${h.player}: ${h.label === null ? "(a sealed choice)" : h.label}` + (h.by !== "hand" ? ` [${h.by}]` : ""));
    if (h.text) words.title = h.text;  // the exact action behind the rounded words
    li.append(words);
    for (const e of h.events) li.append(el("span", { class: "ev" }, e));
    ol.append(li);
  }
  $("undo").disabled = view.cursor === 0;
  $("back").disabled = view.cursor === 0;
  $("forward").disabled = view.cursor >= view.length;
  const current = ol.querySelector(".current");
  if (current) current.scrollIntoView({ block: "nearest" });
}

function renderSeats(view) {
  const box = $("seats");
  box.replaceChildren();
  for (let p = 0; p < view.players; p++) {
    const select = el("select", { id: `seat-${p}` });
    for (const b of BOTS) select.add(new Option(b || "by hand", b));
    const current = view.seats[p] || "";
    if (!BOTS.includes(current)) select.add(new Option(current, current));
    select.value = current;
    box.append(el("div", { class: "seat" }, `player ${p}: `));
    box.lastChild.append(select);
  }
}

function renderExpectations(view) {
  const ul = $("expectations");
  ul.replaceChildren();
  for (const c of view.expectations) {
    const input = el("input", { type: "checkbox", id: `exp-${c.id}` });
    input.checked = c.ticked;
    input.addEventListener("change", () => change("tick", { id: c.id, ticked: input.checked }));
    const li = el("li", {});
    li.append(input, el("label", { for: `exp-${c.id}` }, ` ${c.words}`));
    ul.append(li);
  }
}

function renderDownloads() {
  for (const [id, name] of [["dl-scenario", "scenario.yaml"], ["dl-setup", "setup.json"], ["dl-png", "moment.png"], ["dl-svg", "moment.svg"]]) {
    $(id).href = `/api/s/${S.sid}/${name}`;
  }
}

// -- analyses (e.g. reach) ------------------------------------------------------------------------
function renderAnalysisBar(board) {
  const bar = $("analysis-bar");
  bar.replaceChildren();
  for (const a of board.analyses) {
    bar.append(el("strong", {}, `${a.label}:`));
    for (const p of a.params) {
      const select = el("select", { id: `analysis-${a.name}-${p.name}` });
      for (const c of p.choices) select.add(new Option(c, c));
      const shown = S.analysis && S.analysis.name === a.name ? S.analysis.params[p.name] : null;
      if (shown) select.value = shown;
      bar.append(el("label", {}, ` ${p.label} `), select);
    }
    const params = () => Object.fromEntries(a.params.map((p) => [p.name, $(`analysis-${a.name}-${p.name}`).value]));
    bar.append(el("button", { type: "button", id: `analysis-${a.name}-run`, onclick: () => runAnalysis(a.name, params(), true) }, "show"));
  }
  if (board.analyses.length) bar.append(el("button", { type: "button", id: "analysis-clear", onclick: clearAnalysis }, "clear"));
}

async function runAnalysis(name, params, fresh) {
  try {
    const r = await api("analysis", { name, params });
    S.analysis = { name, params };
    drawAnalysis(r.analysis, fresh);
  } catch (e) { showError(e.message); }
}

function clearAnalysis() {
  S.analysis = null;
  S.analysisLegend = null;
  renderLegend();
  $("analysis-layer").replaceChildren();
  $("analysis-text").textContent = "";
  for (const node of $("content").querySelectorAll("[data-id]")) {
    node.style.fill = "";
    node.classList.remove("pick");
    const title = node.querySelector("title");
    if (title) title.remove();
  }
}

function drawPaths(layer, paths) {
  for (const p of paths) {
    const path = svgEl("path", { d: p.d, class: p.kind });
    if (p.label) path.append(Object.assign(svgEl("title"), { textContent: p.label }));
    layer.append(path);
  }
}

function drawAnalysis(a, fresh) {
  const content = $("content");
  for (const node of content.querySelectorAll("[data-id]")) {
    const id = node.getAttribute("data-id");
    node.style.fill = a.fills[id] || "";
    node.classList.add("pick");
    let title = node.querySelector("title");
    if (!title) { title = svgEl("title"); node.append(title); }
    title.textContent = a.titles[id] || id;
  }
  const layer = $("analysis-layer");
  layer.replaceChildren();
  drawPaths(layer, a.paths);
  S.analysisLegend = a.legend || [];
  renderLegend();
  if (fresh || !$("analysis-text").textContent) $("analysis-text").textContent = a.text;
}

async function pick(target) {
  if (!S.analysis) return;
  try {
    const r = await api("analysis", { ...S.analysis, target });
    const layer = $("analysis-layer");
    for (const node of layer.querySelectorAll(".chain, .witness, .target")) node.remove();
    drawPaths(layer, r.analysis.paths);
    $("analysis-text").textContent = r.analysis.text;
    showError("");
  } catch (e) { showError(e.message); }
}

// -- the board: pointer, zoom, pan --------------------------------------------------------------
function tableAt(event) {
  const svg = $("board");
  const pt = svg.createSVGPoint();
  pt.x = event.clientX;
  pt.y = event.clientY;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  return S.view.board.mm ? { x: p.x, y: -p.y } : { x: p.x, y: p.y };
}

// Where a table point lies on the screen (client pixels): used by tests to aim the pointer.
S.clientPoint = function (x, y) {
  const svg = $("board");
  const pt = svg.createSVGPoint();
  pt.x = x;
  pt.y = S.view.board.mm ? -y : y;
  const p = pt.matrixTransform(svg.getScreenCTM());
  return { x: p.x, y: p.y };
};

function zoom(factor, around) {
  const [x, y, w, h] = S.box;
  const cx = around ? around.x : x + w / 2;
  const cy = around ? around.y : y + h / 2;
  setBox([cx - (cx - x) * factor, cy - (cy - y) * factor, w * factor, h * factor]);
}

// The part of the board shown; --px (user units per screen pixel) sizes the labels in screen
// pixels (style.css), so that ids stay readable at every zoom.
function setBox(box) {
  const svg = $("board");
  S.box = box;
  svg.setAttribute("viewBox", box.join(" "));
  const px = Math.max(box[2] / (svg.clientWidth || 1), box[3] / (svg.clientHeight || 1));
  svg.style.setProperty("--px", String(px));
}

function svgPoint(event) {
  const svg = $("board");
  const pt = svg.createSVGPoint();
  pt.x = event.clientX;
  pt.y = event.clientY;
  return pt.matrixTransform(svg.getScreenCTM().inverse());
}

function round(value, digits) {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

function normalHeading(h) {
  return round(((h % 360) + 360) % 360, 1);
}

function setHeading(h, event) {
  S.heading = normalHeading(h);
  $("heading").value = S.heading;
  drawGhost();
  schedulePreview(event ? event.timeStamp : performance.now());
}

// A table y as the board's SVG writes it (mm boards have y up).
function flip(y) {
  return S.view.board.mm ? -y : y;
}

function drawGhost() {
  const g = $("ghost");
  g.replaceChildren();
  const tool = currentTool();
  if (!tool) return;
  const a = currentAnchor(tool);
  if (a) g.append(svgEl("circle", { class: "anchor", cx: a[0], cy: flip(a[1]), r: a[2] * 2.2 }));
  if (!S.ghost) return;
  g.setAttribute("class", S.verdict ? (S.verdict.ok ? "ok" : "bad") : "");
  const turn = S.view.board.mm ? -S.heading : S.heading;
  const inner = svgEl("g", { transform: `translate(${S.ghost.x} ${flip(S.ghost.y)}) rotate(${turn})` });
  if (tool.shape.rect) {
    const [L, W] = tool.shape.rect;
    inner.append(svgEl("rect", { class: "body", x: -L / 2, y: -W / 2, width: L, height: W }));
    if (tool.shape.dot) inner.append(svgEl("circle", { class: "dot", cx: tool.shape.dot[0], cy: 0, r: tool.shape.dot[1] }));
    if (tool.turns) {
      inner.append(svgEl("line", { class: "arm", x1: L / 2, y1: 0, x2: L / 2 + 8, y2: 0 }));
      inner.append(svgEl("circle", { class: "handle", cx: L / 2 + 8, cy: 0, r: 2.5 }));
    }
  } else if (tool.shape.disc) {
    inner.append(svgEl("circle", { class: "body", cx: 0, cy: 0, r: tool.shape.disc }));
  }
  g.append(inner);
}


function clearOverlays() {
  $("overlays").replaceChildren();
}

function poseRequest() {
  return { tool: S.tool, params: { ...S.params }, x: round(S.ghost.x, 2), y: round(S.ghost.y, 2), heading: S.heading };
}

function schedulePreview(t0) {
  if (!currentTool() || !S.ghost) return;
  S.pending = { request: poseRequest(), t0 };
  if (!S.inflight) sendPreview();
}

async function sendPreview() {
  const job = S.pending;
  S.pending = null;
  S.inflight = true;
  const version = S.view.version;
  try {
    const r = await api("preview", job.request);
    // Only the verdict of the latest pose, on the moment shown, is shown.
    if (!S.pending && version === S.view.version) {
      showVerdict(r, job.request);
      const ms = performance.now() - job.t0;
      S.latencies.push(ms);
      S.serverMs.push(r.seconds * 1000);
      showTiming(ms, r.seconds);
    }
  } catch (e) {
    // 409: the game moved on (a bot's move); the view read next judges the ghost again.
    if (e.status !== 409) showError(e.message);
  } finally {
    S.inflight = false;
    if (S.pending) sendPreview();
  }
}

function median(values) {
  const v = values.slice().sort((a, b) => a - b);
  return v.length ? v[Math.floor(v.length / 2)] : 0;
}

function showTiming(ms, seconds) {
  const t = $("verdict").querySelector(".timing");
  if (t) t.textContent = `verdict ${ms.toFixed(1)} ms after the pointer moved (server ${(seconds * 1000).toFixed(1)} ms; median ${median(S.latencies).toFixed(1)} ms over ${S.latencies.length})`;
}

function numbers(details) {
  return Object.entries(details).map(([k, v]) => `${k} ${typeof v === "number" ? round(v, 3) : JSON.stringify(v)}`).join(", ");
}

function clearVerdict() {
  S.verdict = null;
  const box = $("verdict");
  box.className = "none";
  const ghost = S.view && S.view.board.tools.length ? "move a ghost piece over the board, or " : "";
  box.replaceChildren(el("div", {}, `No verdict for this moment yet: ${ghost}check an action (type it beside the legal actions).`));
}

function showVerdict(r, request) {
  S.verdict = { ...r, request };
  const box = $("verdict");
  box.className = r.ok ? "ok" : "bad";
  box.replaceChildren(el("div", { class: "action", "data-action": r.action, title: r.action }, `player ${r.player}: ${r.label || r.action}`));
  if (r.ok) {
    box.append(el("div", { class: "legal", id: "verdict-legal" }, "legal"));
  } else {
    const ul = el("ul", {});
    for (const v of r.violations) {
      const li = el("li", { class: "violation" });
      li.append(el("code", { class: "rule" }, v.rule), el("span", { class: "msg" }, ` ${v.message} `), el("span", { class: "numbers" }, numbers(v.details)));
      ul.append(li);
    }
    box.append(ul);
  }
  const overlays = r.overlays || [];
  if (overlays.length) box.append(el("div", { class: "shapes" }, overlays.map((o) => o.label + (o.area_mm2 !== undefined ? ` (drawn: ${o.area_mm2} mm²)` : "")).join("; ")));
  box.append(el("button", { type: "button", id: "expect-verdict", onclick: () => change("expect", { player: r.player, action: r.action }) }, "+ expect this verdict in the saved scenario"));
  box.append(el("div", { class: "timing" }));
  const layer = $("overlays");
  layer.replaceChildren();
  drawPaths(layer, overlays);
  drawGhost();
}

async function layGhost() {
  const v = S.verdict;
  if (!v || !v.request) return;
  if (!v.ok) {
    showError(`not laid: ${v.violations.map((x) => x.rule).join(", ")} (move the ghost until the verdict says legal)`);
    return;
  }
  S.ghost = null;  // before the new moment is drawn: it must not judge the ghost just laid
  drawGhost();
  await change("apply", { player: v.player, action: v.action });
}

// A click on the board in the view tool: an action drawn on it is played, a group it opens
// (an Aztekz cell's turns of the card) shown, an element an analysis answers for picked.
function boardClick(target) {
  const action = target.closest("[data-action]");
  if (action) {
    const movers = S.view.to_move;
    change("apply", { player: movers.length === 1 ? movers[0] : null, action: action.getAttribute("data-action") });
    return;
  }
  const opens = target.closest("[data-opens]");
  const name = opens ? opens.getAttribute("data-opens") : null;
  for (const g of $("content").querySelectorAll("[data-group]")) g.style.display = g.getAttribute("data-group") === name ? "" : "none";
  const picked = target.closest("[data-id]");
  if (picked) pick(picked.getAttribute("data-id"));
}

function setupBoard() {
  const svg = $("board");
  svg.addEventListener("pointerdown", (e) => {
    const tool = currentTool();
    if (e.button === 1 || e.altKey || (!tool && e.button === 0)) {
      S.pan = { cx: e.clientX, cy: e.clientY, box: S.box.slice(), moved: false, target: e.target };
      svg.setPointerCapture(e.pointerId);
      return;
    }
    if (tool && e.button === 0) {
      if (!fromAnchor(tool, tableAt(e))) S.ghost = tableAt(e);
      if (!S.ghost) return;
      S.press = { cx: e.clientX, cy: e.clientY, x: S.ghost.x, y: S.ghost.y, turned: false };
      svg.setPointerCapture(e.pointerId);
    }
  });
  svg.addEventListener("pointermove", (e) => {
    if (S.pan) {
      const scale = S.box[2] / svg.clientWidth;
      const dx = e.clientX - S.pan.cx, dy = e.clientY - S.pan.cy;
      if (Math.abs(dx) + Math.abs(dy) > 3) S.pan.moved = true;
      setBox([S.pan.box[0] - dx * scale, S.pan.box[1] - dy * scale, S.pan.box[2], S.pan.box[3]]);
      return;
    }
    const tool = currentTool();
    if (!tool) return;
    const at = tableAt(e);
    const anchored = fromAnchor(tool, at);
    if (S.press && tool.turns && !anchored && (S.press.turned || Math.hypot(e.clientX - S.press.cx, e.clientY - S.press.cy) > 5)) {
      S.press.turned = true;  // press and drag: the ghost stays, its heading follows the pointer
      S.ghost = { x: S.press.x, y: S.press.y };
      setHeading(Math.atan2(at.y - S.press.y, at.x - S.press.x) * 180 / Math.PI, e);
      return;
    }
    if (anchored) {
      S.ghost = anchored.ghost;
      setHeading(anchored.heading, e);
      return;
    }
    S.ghost = at;
    drawGhost();
    schedulePreview(e.timeStamp);
  });
  svg.addEventListener("pointerup", (e) => {
    if (S.pan) {
      const clicked = !S.pan.moved ? S.pan.target : null;
      S.pan = null;
      if (clicked) boardClick(clicked);
      return;
    }
    if (S.press) {
      const turned = S.press.turned;
      S.press = null;
      if (!turned) waitForVerdict().then(layGhost);
    }
  });
  // The wheel zooms in every tool; with Shift it turns a ghost that turns (Shift+wheel scrolls
  // sideways in some browsers: deltaX then carries it).
  svg.addEventListener("wheel", (e) => {
    e.preventDefault();
    const delta = e.deltaY || e.deltaX;
    if (e.shiftKey) {
      turnGhost(delta > 0 ? -1 : 1, e.ctrlKey, e);
      return;
    }
    zoom(delta > 0 ? 1.15 : 1 / 1.15, svgPoint(e));
  }, { passive: false });
  document.addEventListener("keydown", (e) => {
    if (!["ArrowLeft", "ArrowRight"].includes(e.key) || e.target.closest("input, select, textarea")) return;
    if (turnGhost(e.key === "ArrowLeft" ? 1 : -1, e.ctrlKey, e)) e.preventDefault();
  });
  new ResizeObserver(() => { if (S.box) setBox(S.box); }).observe(svg);
  $("heading").addEventListener("change", () => setHeading(Number($("heading").value) || 0));
  $("from-anchor").addEventListener("change", () => { S.ghost = null; drawGhost(); clearOverlays(); });
  $("zoom-in").addEventListener("click", () => zoom(1 / 1.4));
  $("zoom-out").addEventListener("click", () => zoom(1.4));
  $("zoom-fit").addEventListener("click", () => setBox(S.view.board.viewBox.slice()));
}

// Turn the ghost by 5° (fine: 1°) in `sense` (+1 anticlockwise on the table); false when no
// turning ghost is shown.
function turnGhost(sense, fine, event) {
  const tool = currentTool();
  if (!tool || !tool.turns || !S.ghost) return false;
  setHeading(S.heading + sense * (fine ? 1 : 5), event);
  return true;
}

// A click lays the ghost whose verdict is known: wait for the preview of the pose clicked.
function waitForVerdict() {
  return new Promise((resolve) => {
    const tick = () => (S.inflight || S.pending ? setTimeout(tick, 5) : resolve());
    tick();
  });
}

function setupPanels() {
  $("undo").addEventListener("click", () => change("undo"));
  $("back").addEventListener("click", () => change("back"));
  $("forward").addEventListener("click", () => change("forward"));
  $("seats-apply").addEventListener("click", () => {
    const seats = [];
    for (let p = 0; p < S.view.players; p++) seats.push($(`seat-${p}`).value || null);
    change("seats", { seats });
  });
  $("bots-play").addEventListener("click", () => change("bots"));
  $("deal").addEventListener("click", () => change("deal"));
  $("viewer").addEventListener("change", () => {
    const v = $("viewer").value;
    change("options", { viewer: v === "" ? null : Number(v), reveal: $("reveal").checked });
  });
  $("reveal").addEventListener("change", () => $("viewer").dispatchEvent(new Event("change")));
  $("save-scenario").addEventListener("click", async () => {
    try {
      const response = await fetch(`/api/s/${S.sid}/scenario.yaml`);
      const text = await response.text();
      if (!response.ok) throw new Error(JSON.parse(text).error);
      const pre = $("scenario-text");
      pre.textContent = text;
      pre.hidden = false;
      $("dl-scenario").click();
    } catch (e) { showError(e.message); }
  });
  $("newgame").addEventListener("submit", async (e) => {
    e.preventDefault();
    try {
      await newSession({ game: $("ng-game").value, players: Number($("ng-players").value), seed: Number($("ng-seed").value), deal: $("ng-deal").checked });
      showError("");
    } catch (err) { showError(err.message); }
  });
}

setupBoard();
setupPanels();
start().catch((e) => showError(e.message));
