// The explore page: the engine (WebAssembly, gzipped and embedded below as base64) answers
// each request as `recommend --format json` would; this script only fills the
// form, asks, and draws the answer. No network, no framework.
"use strict";
// Compiled off the main thread (a browser refuses to compile more than 8 MB
// on it); every answer waits for it.
let engine = null;
const ready = (async () => {
  const bin = atob(document.getElementById("ex-engine").textContent.trim());
  const packed = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) packed[i] = bin.charCodeAt(i);
  // Gzipped in the page (mostly table text); the browser unpacks it, in this
  // renderer (no Blob: its reads go through the browser process, an idle wait
  // a headless browser's virtual time runs past).
  const gunzip = new DecompressionStream("gzip");
  const writer = gunzip.writable.getWriter();
  writer.write(packed);
  writer.close();
  const mod = await WebAssembly.compile(await new Response(gunzip.readable).arrayBuffer());
  // What the engine imports (the OS randomness its dependencies could ask
  // for) is never called while ranking: each import refuses, loudly.
  const imports = {};
  for (const i of WebAssembly.Module.imports(mod)) {
    (imports[i.module] ??= {})[i.name] = () => { throw new Error(`the page has no ${i.module}.${i.name}`); };
  }
  const exp = (await WebAssembly.instantiate(mod, imports)).exports;
  // Text in, text out: copy into the engine's memory, call, read length + bytes.
  engine = (name, text) => {
    const data = new TextEncoder().encode(text);
    const ptr = exp.alloc(data.length);
    new Uint8Array(exp.memory.buffer, ptr, data.length).set(data);
    const out = exp[name](ptr, data.length);
    const len = new DataView(exp.memory.buffer).getUint32(out, true);
    const answer = new TextDecoder().decode(new Uint8Array(exp.memory.buffer, out + 4, len));
    exp.free(ptr, data.length);
    exp.free(out, len + 4);
    return JSON.parse(answer);
  };
})();

const $ = (id) => document.getElementById("ex-" + id);
const esc = (s) => String(s).replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
const FIELDS = ["device", "link", "serialization", "interval", "battery", "container", "compression", "impl", "min-security", "need"];
let profiles = [];

function fill(select, names, keep) {
  select.innerHTML = names.map((n) => `<option>${esc(n)}</option>`).join("");
  if (names.includes(keep)) select.value = keep;
}

function refreshChoices() {
  const c = engine("choices", JSON.stringify(profiles));
  if (c.error) return say(c.error);
  fill($("device"), c.devices, $("device").value || "nrf52840");
  fill($("link"), c.links, $("link").value || "lorawan-eu868-dr5");
  fill($("battery"), c.batteries, $("battery").value || "2xAA");
}

// The form as a request: empty fields keep recommend's defaults.
function request() {
  const r = {};
  for (const f of FIELDS) if ($(f).value !== "") r[f] = f === "min-security" ? Number($(f).value) : $(f).value;
  r.sample = `${$("kind").value}:${$("size").value}`;
  if (r.sample.startsWith("random:")) delete r.serialization;
  for (const f of ["allow-legacy", "allow-leaky"]) if ($(f).checked) r[f] = true;
  if (profiles.length) r.profiles = profiles;
  return r;
}

function setForm(r) {
  profiles = r.profiles || [];
  refreshChoices();
  for (const f of FIELDS) if (r[f] !== undefined) $(f).value = r[f];
  if (r.sample) [$("kind").value, $("size").value] = r.sample.split(":");
  for (const f of ["allow-legacy", "allow-leaky"]) $(f).checked = !!r[f];
}

function say(error) {
  $("out").innerHTML = `<p class="warn">${esc(error)}</p>`;
}

const num = (x, d) => (x === null || x === undefined ? "-" : Number(x).toFixed(d));

// recommend's table, its words (whose code, verdict), the tie, the left-out, the plots.
function render(a, i) {
  if (a.error) return `<p class="warn" data-i="${i}">${esc(a.error)}</p>`;
  const r = a.ranking;
  const head = ["#", "scheme", "container", "implementation", "bits", "msg B", "air B", "frames", "CPU µJ", "radio µJ", "total µJ", "code B", "stack B", "battery d", "timing", "status"];
  const rows = r.rows.map((row, k) => `<tr class="row"><td>${row.rank}</td><td>${esc(row.scheme)}</td><td>${esc(row.container + (row.compression ? "+" + row.compression.scheme : ""))}</td><td>${esc(row.implementation)}</td><td>${row.security_bits}</td><td>${row.sealed_bytes}</td><td>${row.on_air_bytes}</td><td>${row.frames}</td><td>${num(row.cpu_uj, 2)}</td><td>${num(row.radio_uj, 2)}</td><td>${num(row.message_uj, 2)}</td><td>${row.code_size_bytes ?? "-"}</td><td>${row.stack_bytes ?? "-"}</td><td>${num(row.battery_days, 0)}</td><td>${a.said.timing[k]}</td><td>${esc(row.status)}${row.duty_cycle_allowed ? "" : " (not allowed)"}</td></tr>`).join("");
  const whose = [...new Set(r.rows.slice(0, 15).map((row, k) => `<li><b>${esc(row.scheme)}</b>: ${esc(a.said.whose[k])}</li>`))].join("");
  const tie = r.tie ? `<details class="tie"><summary>Tie group: ${r.tie.schemes.length} choices within ${num(r.tie.within_percent, 2)} %; ${esc(r.tie.chosen)} picked by ${esc(r.tie.decided_by)}</summary>${esc(r.tie.sentence)}</details>` : "";
  const left = r.excluded.map((e) => `<li><b>${esc(e.scheme)}</b>: ${esc(e.why)}</li>`).join("");
  return `<div class="ex-result" data-i="${i}">${tie}<table class="ranking" data-i="${i}"><tr>${head.map((h) => `<th>${h}</th>`).join("")}</tr>${rows}</table>
<h3>Energy per message and battery life</h3>${plot(r.rows.slice(0, 15))}
<h3>Whose code</h3><ul>${whose}</ul>
<details><summary>Not ranked (${r.excluded.length}): does not fit, not measured, or below the constraints</summary><ul>${left}</ul></details>
<details open><summary>As <code>recommend</code> prints it</summary><pre>${esc(a.said.text)}</pre></details></div>`;
}

// Stacked bars: CPU and radio µJ per message; battery days beside each.
function plot(rows) {
  if (!rows.length) return "";
  const max = Math.max(...rows.map((r) => r.message_uj)), w = 420, h = 18;
  const bars = rows.map((r, k) => {
    const y = k * (h + 4), c = (r.cpu_uj / max) * w, rad = (r.radio_uj / max) * w;
    return `<text x="0" y="${y + 13}">${esc(r.scheme.slice(0, 34))}</text><rect x="230" y="${y}" width="${c}" height="${h}" fill="#d55"/><rect x="${230 + c}" y="${y}" width="${rad}" height="${h}" fill="#58b"/><text x="${236 + c + rad}" y="${y + 13}">${num(r.message_uj, 2)} µJ · ${num(r.battery_days, 0)} d</text>`;
  }).join("");
  return `<svg class="plot" viewBox="0 0 860 ${rows.length * (h + 4) + 20}" width="100%" font-size="11"><g>${bars}</g><text x="230" y="${rows.length * (h + 4) + 14}"><tspan fill="#d55">■ CPU</tspan> <tspan fill="#58b">■ radio</tspan> (µJ per message) · battery life in days</text></svg>`;
}

// The fragment holds the request (a link to the exact answer); `#batch=` a
// list of them, answered in one load (the browser test's).
function fromFragment() {
  const h = decodeURIComponent(location.hash.slice(1));
  // Anything else is an anchor (the run report's sections).
  if (!h.startsWith("{") && !h.startsWith("batch=")) return null;
  try {
    return h.startsWith("batch=") ? { batch: JSON.parse(h.slice(6)) } : { one: JSON.parse(h) };
  } catch (e) {
    say(`the link's request is not JSON: ${e.message}`);
    return { bad: true };
  }
}

function show(answers, ms) {
  $("out").innerHTML = answers.map(render).join("<hr>");
  $("answer").textContent = JSON.stringify(answers);
  $("answer").dataset.ms = ms.toFixed(1);
  $("timing").textContent = `answered in ${ms.toFixed(0)} ms (since the page began loading)`;
}

// `write`: the person changed the request, so the address now holds it.
function ask(write, r = request()) {
  const link = "#" + encodeURIComponent(JSON.stringify(r));
  if (write && location.hash !== link) history.replaceState(null, "", link);
  const t = performance.now();
  show([engine("answer", JSON.stringify(r))], performance.now());
  $("timing").textContent += ` · this answer ${(performance.now() - t).toFixed(0)} ms`;
}

ready.then(() => {
  $("profile").addEventListener("change", async (ev) => {
    for (const f of ev.target.files) profiles.push(await f.text());
    refreshChoices();
    ask(true);
  });
  $("form").addEventListener("change", () => ask(true));
  window.addEventListener("hashchange", () => {
    const f = fromFragment();
    if (f && f.one) { setForm(f.one); ask(false, f.one); }
  });

  const start = fromFragment();
  if (start && start.batch) {
    refreshChoices();
    show(start.batch.map((r) => engine("answer", JSON.stringify(r))), performance.now());
  } else if (!start || !start.bad) {
    // A link's request is answered as it is, whatever the form can show of it.
    if (start) { setForm(start.one); ask(false, start.one); } else { refreshChoices(); ask(false); }
  }
}, (e) => say(`the engine did not load: ${e.message}`));
