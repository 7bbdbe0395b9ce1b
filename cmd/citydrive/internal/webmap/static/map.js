// The citydrive operator's map. Roads, water, lots and traffic come from
// the WebAssembly module (map.wasm: roadgraph/world built for the
// browser); the server streams only cars, edits and its pace (/api/stream).
"use strict";

const TILE = 256;            // tile side in pixels
const MIN_MPP = 0.2, MAX_MPP = 51.2;
const MAX_TILES = 300;       // tile cache (LRU)
const TILES_PER_FRAME = 2;   // tiles drawn per animation frame: the page stays responsive
const FLASH_MS = 4000;       // how long a fresh edit flashes
const CHUNK = 32;

const canvas = document.getElementById("view");
const ctx = canvas.getContext("2d");
const statusEl = document.getElementById("status");

const state = {
  seed: null, interval: 500, hour: 17.5,
  x: 0, z: 0, mpp: 1.6, follow: 0,
  cars: new Map(),     // id → {id, prev:{x,z,h,t}, cur:{x,z,h,s,t}}
  names: new Map(),    // id → {name, key, server}
  edited: new Map(),   // "x,z" → time it was last edited (0: before the page loaded)
  history: [], stats: null,
  traffic: [], trafficAt: 0,
  token: sessionStorage.getItem("citydrive-admin-token") || "",
  ready: false, tiles: 0,
};
const tiles = new Map(); // key → {canvas, used}
const queue = [];        // tile keys waiting to be drawn

// ---- the view in the URL: #x=..&z=..&mpp=..[&follow=id][&hour=h]
function readHash() {
  const h = new URLSearchParams(location.hash.slice(1));
  const num = (k, d) => { const v = parseFloat(h.get(k)); return Number.isFinite(v) ? v : d; };
  state.x = num("x", state.x); state.z = num("z", state.z);
  state.mpp = Math.min(MAX_MPP, Math.max(MIN_MPP, num("mpp", state.mpp)));
  state.follow = Math.max(0, Math.floor(num("follow", 0)));
  state.hour = Math.min(23.99, Math.max(0, num("hour", state.hour)));
}
let hashTimer = 0;
function writeHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(() => {
    let h = `x=${state.x.toFixed(1)}&z=${state.z.toFixed(1)}&mpp=${+state.mpp.toFixed(3)}`;
    if (state.follow) h += `&follow=${state.follow}`;
    if (state.hour !== 17.5) h += `&hour=${state.hour}`;
    history.replaceState(null, "", "#" + h);
  }, 150);
}
window.addEventListener("hashchange", () => { readHash(); });

// ---- coordinates: world X right, Z down, as `citydrive map` draws
function toScreen(x, z) {
  return [(x - state.x) / state.mpp + canvas.width / 2, (z - state.z) / state.mpp + canvas.height / 2];
}
function toWorld(px, py) {
  return [state.x + (px - canvas.width / 2) * state.mpp, state.z + (py - canvas.height / 2) * state.mpp];
}

// ---- tiles at power-of-two scales
function tileMPP() {
  let m = MIN_MPP;
  while (m * 2 <= state.mpp * 1.0001) m *= 2;
  return m;
}
function drawTileNow(key) {
  const [m, ti, tj] = key.split(":").map(Number);
  const px = citydriveMap.tile(state.seed, ti * TILE * m, tj * TILE * m, m, TILE);
  if (!px) return;
  const c = document.createElement("canvas");
  c.width = c.height = TILE;
  c.getContext("2d").putImageData(new ImageData(px, TILE, TILE), 0, 0);
  tiles.set(key, { canvas: c, used: performance.now() });
  state.tiles++;
  if (tiles.size > MAX_TILES) {
    let oldest = null, at = Infinity;
    for (const [k, t] of tiles) if (t.used < at) { oldest = k; at = t.used; }
    tiles.delete(oldest);
  }
}

function drawMap(now) {
  const m = tileMPP(), span = TILE * m, k = m / state.mpp;
  const [wx0, wz0] = toWorld(0, 0), [wx1, wz1] = toWorld(canvas.width, canvas.height);
  const i0 = Math.floor(wx0 / span), i1 = Math.floor(wx1 / span);
  const j0 = Math.floor(wz0 / span), j1 = Math.floor(wz1 / span);
  const cx = (i0 + i1 + 1) / 2, cz = (j0 + j1 + 1) / 2;
  const missing = [];
  ctx.fillStyle = "#333";
  ctx.fillRect(0, 0, canvas.width, canvas.height);
  for (let j = j0; j <= j1; j++) for (let i = i0; i <= i1; i++) {
    const key = `${m}:${i}:${j}`;
    const t = tiles.get(key);
    const [sx, sy] = toScreen(i * span, j * span);
    if (t) {
      t.used = now;
      ctx.drawImage(t.canvas, Math.floor(sx), Math.floor(sy), Math.ceil(TILE * k) + 1, Math.ceil(TILE * k) + 1);
    } else missing.push([key, (i + 0.5 - cx) ** 2 + (j + 0.5 - cz) ** 2]);
  }
  missing.sort((a, b) => a[1] - b[1]); // the middle first
  for (let n = 0; n < Math.min(TILES_PER_FRAME, missing.length); n++) drawTileNow(missing[n][0]);
  state.pending = Math.max(0, missing.length - TILES_PER_FRAME);
}

// ---- edits
function drawEdits(now) {
  const side = CHUNK / state.mpp;
  for (const [key, at] of state.edited) {
    const [cx, cz] = key.split(",").map(Number);
    const [sx, sy] = toScreen(cx * CHUNK, cz * CHUNK);
    if (sx < -side || sy < -side || sx > canvas.width || sy > canvas.height) continue;
    const age = now - at;
    if (at && age < FLASH_MS) {
      const a = 0.35 + 0.35 * Math.sin(age / 120);
      ctx.fillStyle = `rgba(255,220,40,${a})`;
    } else ctx.fillStyle = "rgba(255,140,0,0.28)";
    ctx.fillRect(sx, sy, Math.max(side, 2), Math.max(side, 2));
    if (side > 6) { ctx.strokeStyle = "rgba(255,140,0,0.8)"; ctx.strokeRect(sx, sy, side, side); }
  }
}

// ---- traffic, computed here from the seed and the clock
function drawTraffic(now) {
  if (state.mpp > 3.2) return;
  if (now - state.trafficAt > 100) {
    state.trafficAt = now;
    const r = Math.min(1200, Math.hypot(canvas.width, canvas.height) / 2 * state.mpp);
    const v = citydriveMap.traffic(state.seed, state.hour, Date.now() / 1000, state.x, state.z, r);
    state.traffic = v || [];
  }
  const v = state.traffic, L = 4.4 / state.mpp, W = 1.9 / state.mpp;
  ctx.fillStyle = "#e8e8f0";
  for (let i = 0; i + 3 < v.length; i += 4) {
    const [sx, sy] = toScreen(v[i], v[i + 1]);
    if (sx < -10 || sy < -10 || sx > canvas.width + 10 || sy > canvas.height + 10) continue;
    ctx.save(); ctx.translate(sx, sy); ctx.rotate(v[i + 2]);
    ctx.fillRect(-L / 2, -W / 2, Math.max(L, 2), Math.max(W, 1.5));
    ctx.restore();
  }
}

// ---- players' cars, interpolated between the stream's samples
function carAt(c, now) {
  const p = c.prev, q = c.cur;
  if (!p) return { x: q.x, z: q.z };
  // From the sample before the last to the last, over one interval: smooth,
  // one interval behind, never ahead of the server.
  const f = Math.max(0, Math.min(1, (now - q.t) / Math.max(50, q.t - p.t)));
  return { x: p.x + (q.x - p.x) * f, z: p.z + (q.z - p.z) * f };
}
const drawn = []; // what was drawn, for clicks and tests: {id, x, z, h, px, py}
function drawCars(now) {
  drawn.length = 0;
  for (const c of state.cars.values()) {
    const a = carAt(c, now);
    const [sx, sy] = toScreen(a.x, a.z);
    drawn.push({ id: c.id, x: a.x, z: a.z, h: c.cur.h, px: sx, py: sy });
    if (sx < -40 || sy < -40 || sx > canvas.width + 40 || sy > canvas.height + 40) continue;
    const follow = c.id === state.follow;
    ctx.beginPath(); ctx.arc(sx, sy, follow ? 8 : 6, 0, 2 * Math.PI);
    ctx.fillStyle = follow ? "#ff3050" : "#e02030"; ctx.fill();
    ctx.lineWidth = 2; ctx.strokeStyle = "#fff"; ctx.stroke();
    ctx.beginPath(); ctx.moveTo(sx, sy); ctx.lineTo(sx + Math.cos(c.cur.h) * 12, sy + Math.sin(c.cur.h) * 12); ctx.stroke();
    const n = state.names.get(c.id);
    const who = n && n.name ? n.name : "#" + c.id;
    const where = n && n.server && n.server !== "this" ? ` @${n.server}` : ""; // a cluster: the player's server
    const label = `${who}${where} ${(Math.abs(c.cur.s) * 3.6).toFixed(0)} km/h`;
    ctx.font = "11px system-ui"; ctx.fillStyle = "#000b"; ctx.fillRect(sx + 9, sy - 16, ctx.measureText(label).width + 6, 14);
    ctx.fillStyle = "#fff"; ctx.fillText(label, sx + 12, sy - 5);
  }
}

function frame(now) {
  const dpr = 1; // one canvas pixel a CSS pixel: the test reads pixels at CSS positions
  const w = canvas.clientWidth * dpr, h = canvas.clientHeight * dpr;
  if (canvas.width !== w || canvas.height !== h) { canvas.width = w; canvas.height = h; }
  if (state.follow) {
    const c = state.cars.get(state.follow);
    if (c) { const a = carAt(c, now); state.x = a.x; state.z = a.z; writeHash(); }
  }
  if (state.ready) {
    drawMap(now);
    drawEdits(now);
    drawTraffic(now);
    drawCars(now);
    statusEl.textContent = `${state.x.toFixed(0)}, ${state.z.toFixed(0)} · ${state.mpp.toFixed(2)} m/px` +
      (state.pending ? ` · drawing ${state.pending} tiles` : "") + (state.follow ? ` · following #${state.follow}` : "");
  }
  requestAnimationFrame(frame);
}

// ---- input
let drag = null;
canvas.addEventListener("mousedown", e => { drag = { x: e.clientX, y: e.clientY, moved: false }; });
window.addEventListener("mousemove", e => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 2) { drag.moved = true; state.follow = 0; markFollow(); document.getElementById("map").classList.add("dragging"); }
  if (drag.moved) { state.x -= dx * state.mpp; state.z -= dy * state.mpp; drag.x = e.clientX; drag.y = e.clientY; writeHash(); }
});
window.addEventListener("mouseup", e => {
  document.getElementById("map").classList.remove("dragging");
  if (drag && !drag.moved) click(e);
  drag = null;
});
canvas.addEventListener("wheel", e => {
  e.preventDefault();
  const r = canvas.getBoundingClientRect();
  const [wx, wz] = toWorld(e.clientX - r.left, e.clientY - r.top);
  const f = Math.exp(e.deltaY * 0.0015);
  const m = Math.min(MAX_MPP, Math.max(MIN_MPP, state.mpp * f));
  // keep the point under the cursor where it is
  state.x = wx - (e.clientX - r.left - canvas.width / 2) * m;
  state.z = wz - (e.clientY - r.top - canvas.height / 2) * m;
  state.mpp = m;
  writeHash();
}, { passive: false });
function click(e) {
  const r = canvas.getBoundingClientRect();
  const px = e.clientX - r.left, py = e.clientY - r.top;
  let best = 0, bd = 14 * 14;
  for (const d of drawn) { const dd = (d.px - px) ** 2 + (d.py - py) ** 2; if (dd < bd) { bd = dd; best = d.id; } }
  state.follow = best;
  markFollow();
  writeHash();
}

// ---- the stream
function decodeCars(b64, t) {
  const b = Uint8Array.from(atob(b64), c => c.charCodeAt(0));
  let i = 0;
  const uv = () => { let v = 0, s = 1; for (;;) { const c = b[i++]; v += (c & 0x7f) * s; if (c < 0x80) return v; s *= 128; } };
  const sv = () => { const u = uv(); return u % 2 ? -(u + 1) / 2 : u / 2; };
  if (b[i++] !== 1) throw new Error("unknown cars format " + b[0]);
  const n = uv(), seen = new Set();
  for (let k = 0; k < n; k++) {
    const id = uv(), x = sv() / 10, z = sv() / 10, h = b[i++] / 256 * 2 * Math.PI, s = sv() / 10;
    seen.add(id);
    const c = state.cars.get(id);
    const cur = { x, z, h, s, t };
    if (c) { c.prev = c.cur; c.cur = cur; } else state.cars.set(id, { id, prev: null, cur });
  }
  for (const id of state.cars.keys()) if (!seen.has(id)) state.cars.delete(id);
}
function connect() {
  const es = new EventSource("api/stream");
  es.addEventListener("cars", e => decodeCars(e.data, performance.now()));
  es.addEventListener("players", e => {
    state.names = new Map(JSON.parse(e.data).map(p => [p.id, p]));
    renderPlayers();
  });
  es.addEventListener("edits", e => {
    const now = performance.now();
    for (const [x, z] of JSON.parse(e.data)) state.edited.set(`${x},${z}`, now);
  });
  es.addEventListener("history", e => { state.history = JSON.parse(e.data) || []; renderStats(); });
  es.addEventListener("stats", e => {
    state.stats = JSON.parse(e.data);
    const h = state.history;
    if (!h.length || state.stats.t - h[h.length - 1].t >= 5000) h.push(state.stats);
    while (h.length > 120) h.shift();
    renderStats();
  });
  es.onerror = () => { statusEl.textContent = "stream lost; reconnecting…"; };
}

// ---- the panel
function bytes(v) { return v >= 1024 ? (v / 1024).toFixed(1) + " kB/s" : v.toFixed(0) + " B/s"; }
function renderStats() {
  const s = state.stats;
  if (s) {
    document.getElementById("hz").textContent = s.hz;
    document.getElementById("dilation").textContent = s.hz < s.nominal ? `(slowed from ${s.nominal}: time ×${(s.hz / s.nominal).toFixed(2)})` : `(nominal ${s.nominal})`;
    document.getElementById("p99").textContent = s.p99_ms.toFixed(2);
    document.getElementById("nplayers").textContent = s.players;
    document.getElementById("bin").textContent = bytes(s.in_bps);
    document.getElementById("bout").textContent = bytes(s.out_bps);
  }
  const sp = document.getElementById("spark"), g = sp.getContext("2d"), h = state.history;
  g.clearRect(0, 0, sp.width, sp.height);
  if (h.length < 2) return;
  const line = (f, colour) => {
    const top = Math.max(1e-9, ...h.map(f));
    g.beginPath();
    h.forEach((p, i) => { const x = i / (120 - 1) * sp.width, y = sp.height - 2 - f(p) / top * (sp.height - 4); i ? g.lineTo(x, y) : g.moveTo(x, y); });
    g.strokeStyle = colour; g.lineWidth = 1.5; g.stroke();
  };
  line(p => p.p99_ms, "#f0a030");
  line(p => p.players, "#50a0ff");
}
function renderPlayers() {
  const ul = document.getElementById("players");
  ul.textContent = "";
  for (const p of state.names.values()) {
    const li = document.createElement("li");
    li.dataset.id = p.id;
    const name = document.createElement("span");
    name.className = "name";
    const where = p.server && p.server !== "this" ? ` @${p.server}` : "";
    name.textContent = `#${p.id} ${p.name || ""}${where}`;
    name.title = p.remote ? `player ${p.id}, on server ${p.server} (kick them on its map)` : `player ${p.id}`;
    li.append(name);
    if (state.token && !p.remote) for (const act of ["kick", "ban"]) {
      const b = document.createElement("button");
      b.textContent = act; b.dataset.act = act;
      b.onclick = ev => { ev.stopPropagation(); admin(act, { id: p.id }); };
      li.append(b);
    }
    li.onclick = () => { state.follow = p.id; markFollow(); writeHash(); };
    ul.append(li);
  }
  markFollow();
}
function markFollow() {
  for (const li of document.querySelectorAll("#players li")) li.classList.toggle("follow", +li.dataset.id === state.follow);
}

// ---- admin
async function admin(action, body) {
  const msg = document.getElementById("adminMsg");
  const res = await fetch("api/admin/" + action, {
    method: body === undefined ? "GET" : "POST",
    headers: { "Authorization": "Bearer " + state.token, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const out = await res.json().catch(() => ({}));
  msg.textContent = res.ok ? "" : (out.error || res.statusText);
  if (res.ok && out.bans) renderAccess(out);
  return { ok: res.ok, status: res.status, body: out };
}
function renderAccess(st) {
  document.getElementById("allowOnly").checked = st.allow_only;
  const div = document.getElementById("bans");
  div.textContent = "";
  for (const [k, b] of Object.entries(st.bans)) {
    const d = document.createElement("div");
    d.textContent = `banned ${k}${b.reason ? ": " + b.reason : ""}`;
    div.append(d);
  }
}
async function useToken(t) {
  state.token = t;
  sessionStorage.setItem("citydrive-admin-token", t);
  const r = t ? await admin("state") : { ok: false };
  document.getElementById("adminTools").hidden = !r.ok;
  if (!r.ok) state.token = "";
  renderPlayers();
}
document.getElementById("token").addEventListener("change", e => useToken(e.target.value.trim()));
document.getElementById("bcSend").onclick = () => admin("broadcast", { text: document.getElementById("bcText").value });
document.getElementById("sdGo").onclick = () => admin("shutdown", { seconds: +document.getElementById("sdSecs").value });
document.getElementById("pwSet").onclick = () => admin("password", { password: document.getElementById("pw").value });
document.getElementById("allowOnly").onchange = e => admin("allow-only", { on: e.target.checked });
document.getElementById("allowAdd").onclick = () => admin("allow", { key: document.getElementById("allowKey").value, allow: true });
document.getElementById("unbanKey").onclick = () => admin("unban", { key: document.getElementById("allowKey").value });

// ---- start: config, the module, the edited chunks, the stream
window.citydrive = { state, drawn, toScreen, toWorld, admin, useToken };
async function start() {
  readHash();
  const cfg = await (await fetch("api/config")).json();
  state.seed = cfg.seed; state.interval = cfg.interval_ms;
  document.getElementById("seed").textContent = "seed " + cfg.seed;
  const go = new Go();
  const ready = new Promise(r => window.addEventListener("citydrive-map-ready", r, { once: true }));
  const wasm = await WebAssembly.instantiateStreaming(fetch("map.wasm"), go.importObject);
  go.run(wasm.instance);
  await ready;
  const ed = await (await fetch("api/edited")).json();
  for (const [x, z] of ed.columns) state.edited.set(`${x},${z}`, 0);
  state.ready = true;
  connect();
  if (state.token) useToken(state.token);
}
start().catch(e => { statusEl.textContent = "the map failed to start: " + e; console.error(e); });
requestAnimationFrame(frame);
