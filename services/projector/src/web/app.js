// The lineage page: plain DOM, no framework, no external assets. Every value from the API reaches the
// page through textContent (never innerHTML), and positions through CSSOM, which the page's CSP allows.
const main = document.getElementById("main");
const live = document.getElementById("live");
let stream = null;
// The read token (PROJECTOR_TOKENS), asked for once and kept for this tab only; never put in a URL.
const tokenKey = "a2a-ledger.projector.readToken";
let asking = null;
let refreshTimer = null;
let route = null;

function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

const authHeaders = () => {
  const token = sessionStorage.getItem(tokenKey);
  return token ? { authorization: `Bearer ${token}` } : {};
};

/** Asks for the read token (one form for every caller waiting on it); resolves once one is entered. */
function askToken(rejected) {
  if (rejected) sessionStorage.removeItem(tokenKey);
  asking ??= new Promise((resolve) => {
    const input = h("input", { id: "token-input", type: "password", autocomplete: "current-password", required: true, "aria-label": "Read token" });
    const form = h("form", { id: "token-form", class: "card" },
      h("h1", {}, "Read token"),
      h("p", {}, rejected ? "That token was refused. Enter a read token of this projector (PROJECTOR_TOKENS)." : "This projector needs a read token (PROJECTOR_TOKENS). It is kept for this tab only."),
      input,
      h("button", { type: "submit" }, "Continue"));
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const token = input.value.trim();
      if (token === "") return;
      sessionStorage.setItem(tokenKey, token);
      asking = null;
      resolve();
    });
    show(form);
    input.focus();
  });
  return asking;
}

/** fetch with the read token; a 401 asks for a token and tries again. */
async function authorized(path, accept) {
  for (;;) {
    const hadToken = sessionStorage.getItem(tokenKey) !== null;
    const response = await fetch(path, { headers: { accept, ...authHeaders() } });
    if (response.status !== 401) return response;
    await askToken(hadToken);
  }
}

async function api(path) {
  const response = await authorized(path, "application/json");
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw Object.assign(new Error(body.error || `HTTP ${response.status}`), { code: body.code, status: response.status });
  return body;
}

const time = (iso) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "Z") : "—");
const status = (s) => h("span", { class: `status ${s}` }, s);
const short = (s) => String(s).replace(/^TASK_STATE_/, "");
function waited(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  if (s < 172800) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}
const link = (href, text) => h("a", { href }, text);
const taskLink = (id) => link(`#/tasks/${encodeURIComponent(id)}`, id);
const workerLink = (id) => link(`#/workers/${encodeURIComponent(id)}`, id);
function show(...nodes) {
  main.replaceChildren(...nodes);
}
function failure(error) {
  show(h("p", { class: "err" }, `${error.code ? `${error.code}: ` : ""}${error.message}`));
}

/**
 * The live stream, read with fetch (an EventSource cannot send the read token, and the token never
 * goes into a URL): server-sent events parsed here, reconnecting after 2 s as EventSource would.
 */
function listen(params, onChange) {
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  const fire = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(onChange, 400);
  };
  const state = (text, on) => {
    live.textContent = text;
    live.classList.toggle("on", on);
  };
  const handle = (block) => {
    let type = "message";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) type = line.slice(6).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trim();
    }
    if (type === "task" || type === "worker" || type === "dlq") fire();
    else if (type === "refresh" && data !== "" && JSON.parse(data).reason !== "connected") fire();
  };
  (async () => {
    while (!controller.signal.aborted) {
      try {
        const hadToken = sessionStorage.getItem(tokenKey) !== null;
        const response = await fetch(`/v1/stream${params ? `?${params}` : ""}`, { headers: { accept: "text/event-stream", ...authHeaders() }, signal: controller.signal });
        if (response.status === 401) {
          state("offline", false);
          await askToken(hadToken);
          onChange();
          continue;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        state("live", true);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            handle(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      state("reconnecting", false);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  })();
}

function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---------- detail panel ----------
function openDetail(title, record, causes) {
  document.querySelector(".detail")?.remove();
  const panel = h(
    "aside",
    { class: "detail", "aria-label": "details" },
    h("button", { onclick: () => panel.remove(), class: "close" }, "Close"),
    h("h2", {}, title),
    h("pre", {}, JSON.stringify(record, null, 2)),
    causes && causes.length > 0
      ? [h("h2", {}, "Cause events"), ...causes.map((c) => h("div", { class: "card cause" }, h("div", {}, h("b", {}, c.type ?? "event"), " ", h("code", {}, c.eventId), " ", h("span", { class: "muted" }, time(c.occurredAt), c.observer ? ` · ${c.observer}` : "")), c.record ? h("pre", {}, JSON.stringify(c.record, null, 2)) : h("p", { class: "muted" }, "not in the views (another correlation, not projected yet, or truncated)")))]
      : null,
  );
  document.body.append(panel);
}

// ---------- task list ----------
async function tasksPage(params) {
  const query = new URLSearchParams(params);
  const body = await api(`/v1/tasks?${query}`);
  const statusSelect = h("select", { name: "status", onchange: () => go({ ...params, status: statusSelect.value, cursor: "" }) }, h("option", { value: "" }, "any status"), ...["running", "indeterminate", "blocked", "re-dispatched", "reconciled", "completed", "failed", "canceled", "rejected"].map((s) => h("option", { value: s, selected: params.status === s }, s)));
  const worker = h("input", { name: "workerId", placeholder: "worker id", value: params.workerId ?? "" });
  const go = (p) => {
    const q = new URLSearchParams(Object.entries(p).filter(([, v]) => v));
    location.hash = `#/tasks?${q}`;
  };
  show(
    h("h1", {}, params.q ? `Tasks matching “${params.q}”` : "Tasks"),
    h("form", { class: "toolbar", onsubmit: (e) => (e.preventDefault(), go({ ...params, workerId: worker.value, cursor: "" })) }, statusSelect, worker, h("button", { type: "submit" }, "Filter")),
    h("table", { id: "task-list" }, h("tr", {}, ...["correlation", "status", "first event", "last event", "last state", "attempts", "violations", "workers"].map((c) => h("th", {}, c))), ...body.items.map((t) => h("tr", { class: "clickable", onclick: () => (location.hash = `#/tasks/${encodeURIComponent(t.correlationId)}`) }, h("td", {}, taskLink(t.correlationId)), h("td", {}, status(t.status)), h("td", {}, time(t.firstAt)), h("td", {}, time(t.lastAt)), h("td", {}, short(t.lastState ?? "—")), h("td", {}, t.attemptCount), h("td", {}, t.violationCount), h("td", {}, t.workers.join(", "))))),
    body.items.length === 0 ? h("p", { class: "muted" }, "No tasks.") : null,
    body.nextCursor ? h("p", {}, h("button", { onclick: () => go({ ...params, cursor: body.nextCursor }) }, "Next page")) : null,
  );
  listen("", () => render());
}

// ---------- task timeline ----------
const observationTypes = ["TaskDispatched", "TaskStateObserved", "ArtifactEmitted", "TaskNotFoundObserved", "EmissionRefused", "AgentCardObserved", "ProbeCompleted"];

/**
 * Time → horizontal position. Idle gaps are compressed (each gap between consecutive event times
 * weighs log(1 + seconds)), so a ten-minute wait does not squeeze the busy seconds around it into a
 * few pixels; order and relative spacing stay visible. The right 14 % are left for marker labels.
 */
function timelineScale(view) {
  const all = [];
  for (const a of view.attempts) {
    if (a.dispatch?.dispatchedAt) all.push(Date.parse(a.dispatch.dispatchedAt));
    for (const lane of a.timeline) for (const s of lane.spans) all.push(Date.parse(s.from), s.to ? Date.parse(s.to) : NaN);
    for (const st of a.serverTasks) if (st.lostAt) all.push(Date.parse(st.lostAt));
  }
  for (const p of view.indeterminate) all.push(Date.parse(p.from), p.to ? Date.parse(p.to) : NaN);
  for (const d of view.decisions) all.push(Date.parse(d.occurredAt));
  for (const a of view.artifacts) all.push(Date.parse(a.firstAt));
  const times = [...new Set(all.filter(Number.isFinite))].sort((a, b) => a - b);
  if (times.length === 0) times.push(0);
  if (times.length === 1) times.push(times[0] + 1000);
  const cum = [0];
  for (let i = 1; i < times.length; i++) cum.push(cum[i - 1] + Math.log1p((times[i] - times[i - 1]) / 1000));
  const total = cum[cum.length - 1] || 1;
  const left = 1.5;
  const usable = 84.5;
  const position = (t) => {
    if (t <= times[0]) return 0;
    if (t >= times[times.length - 1]) return total;
    let lo = 0;
    let hi = times.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (times[mid] <= t) lo = mid;
      else hi = mid;
    }
    return cum[lo] + ((cum[hi] - cum[lo]) * (t - times[lo])) / (times[hi] - times[lo]);
  };
  const timeAt = (p) => {
    let i = 1;
    while (i < cum.length - 1 && cum[i] < p) i++;
    const span = cum[i] - cum[i - 1] || 1;
    return times[i - 1] + ((times[i] - times[i - 1]) * (p - cum[i - 1])) / span;
  };
  const pct = (t) => left + (position(t) / total) * usable;
  const at = (iso) => `${iso ? pct(Date.parse(iso)) : left + usable}%`;
  return {
    at,
    pct,
    width: (a, b) => `${Math.max(0.4, (b ? pct(Date.parse(b)) : left + usable) - pct(Date.parse(a)))}%`,
    ticks: [0, 0.25, 0.5, 0.75, 1].map((f) => ({ left: `${left + f * usable}%`, label: new Date(timeAt(f * total)).toISOString().slice(11, 19) })),
  };
}

/** Places markers in as many stacked rows as needed so that their labels do not overlap. */
function stackMarkers(track, markers, scale) {
  const trackPx = Math.max(600, main.clientWidth - 230);
  const rows = [];
  for (const { el, at, label } of markers.sort((a, b) => Date.parse(a.at) - Date.parse(b.at))) {
    const start = scale.pct(Date.parse(at)) - (10 / trackPx) * 100;
    const width = ((label.length * 6.6 + 22) / trackPx) * 100;
    let row = rows.findIndex((end) => end <= start);
    if (row === -1) row = rows.push(0) - 1;
    rows[row] = start + width;
    el.style.left = `${scale.pct(Date.parse(at))}%`;
    el.style.top = `${2 + row * 23}px`;
    track.append(el);
  }
  track.parentElement.style.height = `${Math.max(24, rows.length * 23 + 4)}px`;
}

function place(el, left, width) {
  el.style.left = left;
  if (width) el.style.width = width;
  return el;
}

function renderTimeline(view, filters) {
  const scale = timelineScale(view);
  const causesOf = (ids) => (ids ?? []).map((id) => view.causes[id] ?? { eventId: id });
  const axis = h("div", { class: "axis" });
  for (const tick of scale.ticks) axis.append(place(h("span", { class: "tick" }, tick.label), tick.left));
  const root = h("div", { class: "timeline", id: "timeline" }, h("div", { class: "row" }, h("div", { class: "row-label" }, ""), h("div", { class: "track" }, axis)));
  const violationsOnly = filters.violationsOnly;
  for (const attempt of view.attempts) {
    const ids = attempt.serverTasks.map((s) => s.serverTaskId);
    const lane = h("section", { class: "lane", dataset: { attempt: String(attempt.attempt) } }, h("div", { class: "lane-title" }, `Attempt ${attempt.attempt} · `, workerLink(attempt.workerId), " · server task ", h("span", { class: "mono server-task-ids" }, ids.length ? ids.join(", ") : "—"), attempt.inferred ? h("span", { class: "muted" }, " (inferred: no dispatch seen)") : "", attempt.dispatch ? h("span", { class: "muted" }, ` · skill ${attempt.dispatch.skillId ?? "—"} · accepts ${attempt.dispatch.acceptedOutputModes.join(", ") || "anything"} · card ${String(attempt.dispatch.cardHash ?? "—").slice(0, 12)}`) : ""));
    if (!violationsOnly && filters.types.has("TaskStateObserved")) {
      for (const obs of attempt.timeline) {
        if (!filters.observers.has(obs.observer)) continue;
        const track = h("div", { class: "track" });
        for (const s of obs.spans) {
          const state = short(s.state);
          track.append(place(h("div", { class: `span s-${state}`, title: `${state} by ${obs.observer} from ${time(s.from)} to ${time(s.to)} (${s.sightings} sightings)`, onclick: () => openDetail(`${state} · ${obs.observer}`, s) }, state), scale.at(s.from), scale.width(s.from, s.to)));
        }
        lane.append(h("div", { class: "row", dataset: { observer: obs.observer } }, h("div", { class: "row-label" }, obs.observer), track));
      }
    }
    const marks = h("div", { class: "track" });
    const pending = [];
    const periods = view.indeterminate.filter((x) => x.attempt === attempt.attempt);
    if (periods.length > 0) {
      const band = h("div", { class: "track" });
      for (const p of periods) {
        band.append(place(h("div", { class: "indeterminate", title: `indeterminate since ${time(p.from)}${p.to ? ` until ${time(p.to)} (${p.endedBy})` : " — still waiting"}` }), scale.at(p.from), scale.width(p.from, p.to)));
        band.append(place(h("span", { class: "indeterminate-label" }, `indeterminate (${short(p.lastState ?? "?")})${p.to ? `, ended by ${p.endedBy}` : " — waiting"}`), scale.at(p.from)));
      }
      lane.append(h("div", { class: "row" }, h("div", { class: "row-label" }, "reconciliation"), band));
    }
    if (!violationsOnly && filters.types.has("ArtifactEmitted")) {
      for (const a of view.artifacts.filter((x) => x.attempt === attempt.attempt).slice(0, 500)) {
        if (!a.eventIds.length) continue;
        const label = `◆ ${a.mediaTypes.join(", ") || "no media type"}`;
        pending.push({ at: a.firstAt, label, el: h("button", { class: "marker artifact", title: `artifact ${a.artifactId}${a.name ? ` (${a.name})` : ""}, ${a.chunks} chunk(s), ${a.sizeBytes} bytes`, dataset: { artifactId: a.artifactId }, onclick: () => openDetail(`Artifact ${a.artifactId}`, a) }, label) });
      }
    }
    if (!violationsOnly && filters.types.has("EmissionRefused")) {
      for (const r of (view.refusedEmissions ?? []).filter((x) => x.attempt === attempt.attempt)) {
        const label = `✕ refused ${short(r.refused)}`;
        pending.push({ at: r.occurredAt, label, el: h("button", { class: "marker refused", title: `${r.workerId}'s guard refused to emit ${r.refused} (${r.kind}); its card allows ${r.allowed.join(", ")}`, dataset: { eventId: r.eventId }, onclick: () => openDetail(`Refused emission ${r.kind}`, r) }, label) });
      }
    }
    for (const d of view.decisions.filter((x) => x.attempt === attempt.attempt || (x.attempt === null && attempt.serverTasks.some((s) => s.serverTaskId === x.serverTaskId)))) {
      const isViolation = d.type === "ContractViolation";
      if (violationsOnly && !isViolation) continue;
      if (!violationsOnly && !filters.types.has(d.type)) continue;
      const label = isViolation ? `▲ ${d.record.kind}` : `● ${d.kind === "command" ? "command " : ""}${d.type}`;
      pending.push({ at: d.occurredAt, label, el: h("button", { class: `marker ${isViolation ? "violation" : d.kind}`, dataset: { type: d.type, kind: d.kind }, title: `${d.type} at ${time(d.occurredAt)}`, onclick: () => openDetail(`${d.kind} ${d.type}`, d.record, causesOf(d.causeEventIds)) }, label) });
    }
    lane.append(h("div", { class: "row markers" }, h("div", { class: "row-label" }, "decisions · artifacts"), marks));
    stackMarkers(marks, pending, scale);
    root.append(lane);
  }
  const loose = view.decisions.filter((d) => d.attempt === null && !view.attempts.some((a) => a.serverTasks.some((s) => s.serverTaskId === d.serverTaskId)));
  if (loose.length > 0) {
    const marks = h("div", { class: "track" });
    const pending = [];
    for (const d of loose) {
      const isViolation = d.type === "ContractViolation";
      if (violationsOnly && !isViolation) continue;
      if (!violationsOnly && !filters.types.has(d.type)) continue;
      const label = isViolation ? `▲ ${d.record.kind}` : `● ${d.kind === "command" ? "command " : ""}${d.type}`;
      pending.push({ at: d.occurredAt, label, el: h("button", { class: `marker ${isViolation ? "violation" : d.kind}`, dataset: { type: d.type, kind: d.kind }, title: `${d.type} at ${time(d.occurredAt)}`, onclick: () => openDetail(`${d.kind} ${d.type}`, d.record, causesOf(d.causeEventIds)) }, label) });
    }
    root.append(h("section", { class: "lane" }, h("div", { class: "lane-title" }, "Correlation"), h("div", { class: "row markers" }, h("div", { class: "row-label" }, "decisions"), marks)));
    stackMarkers(marks, pending, scale);
  }
  return root;
}

function compareAttempts(view, a, b) {
  const of = (n) => view.attempts.find((x) => x.attempt === Number(n));
  const column = (attempt) => {
    if (!attempt) return h("div", {}, "—");
    const arts = view.artifacts.filter((x) => x.attempt === attempt.attempt);
    const lost = attempt.serverTasks.filter((s) => s.lostAt);
    return h("div", { class: "card" }, h("h2", {}, `Attempt ${attempt.attempt}`), h("table", {}, ...[
      ["worker", attempt.workerId],
      ["server task ids", attempt.serverTasks.map((s) => s.serverTaskId).join(", ") || "—"],
      ["context ids", [...new Set(attempt.serverTasks.map((s) => s.contextId).filter(Boolean))].join(", ") || "—"],
      ["skill", attempt.dispatch?.skillId ?? "—"],
      ["accepted output modes", attempt.dispatch?.acceptedOutputModes.join(", ") || "—"],
      ["card relied on", attempt.dispatch?.cardHash ?? "—"],
      ["dispatched", time(attempt.dispatch?.dispatchedAt)],
      ["last states", attempt.serverTasks.map((s) => `${s.serverTaskId}: ${short(s.lastState ?? "—")}`).join("; ") || "—"],
      ["states seen per observer", attempt.timeline.map((l) => `${l.observer}: ${l.spans.map((s) => short(s.state)).join(" → ")}`).join("; ") || "—"],
      ["artifacts", arts.map((x) => `${x.name ?? x.artifactId}: ${x.mediaTypes.join(", ")}`).join("; ") || "—"],
      ["lost", lost.map((s) => `${s.serverTaskId} at ${time(s.lostAt)}`).join("; ") || "no"],
    ].map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", { class: "mono" }, v)))));
  };
  return h("div", { class: "compare", id: "compare" }, column(of(a)), column(of(b)));
}

async function taskPage(id) {
  const base = `/v1/tasks/${encodeURIComponent(id)}`;
  let view = await api(`${base}?limit=200`);
  const types = new Set();
  const observers = new Set();
  const filters = { types: new Set(), observers: new Set(), violationsOnly: false };
  // Event types and observers the page has not seen before (also ones arriving live) start visible.
  const learn = () => {
    for (const t of [...observationTypes, ...view.decisions.map((d) => d.type)]) if (!types.has(t)) (types.add(t), filters.types.add(t));
    for (const o of view.attempts.flatMap((a) => a.timeline.map((l) => l.observer))) if (!observers.has(o)) (observers.add(o), filters.observers.add(o));
  };
  learn();
  let events = view.events.items;
  let next = view.events.nextCursor;
  const timelineHolder = h("div", {});
  const eventsHolder = h("div", {});
  const compareHolder = h("div", {});
  const selA = h("select", { name: "attemptA" }, ...view.attempts.map((a, i) => h("option", { value: a.attempt, selected: i === 0 }, `Attempt ${a.attempt}`)));
  const selB = h("select", { name: "attemptB" }, ...view.attempts.map((a, i) => h("option", { value: a.attempt, selected: i === Math.min(1, view.attempts.length - 1) }, `Attempt ${a.attempt}`)));
  const drawEvents = () => {
    const shown = events.filter((e) => (filters.violationsOnly ? e.type === "ContractViolation" : filters.types.has(e.type)) && (!e.observer || filters.observers.has(e.observer)));
    eventsHolder.replaceChildren(
      h("table", { id: "events" }, h("tr", {}, ...["time", "kind", "type", "observer", "worker", "server task", "attempt", "state"].map((c) => h("th", {}, c))), ...shown.map((e) => h("tr", { class: "clickable", onclick: () => openDetail(`${e.kind} ${e.type}`, e.record, (e.record.causeEventIds ?? []).map((c) => view.causes[c] ?? { eventId: c })) }, h("td", {}, time(e.occurredAt)), h("td", {}, e.kind), h("td", {}, e.type), h("td", {}, e.observer ?? ""), h("td", {}, e.workerId ?? ""), h("td", { class: "mono" }, e.serverTaskId ?? ""), h("td", {}, e.attempt ?? ""), h("td", {}, e.state ? short(e.state) : "")))),
      h("p", { class: "muted" }, `${shown.length} of ${events.length} loaded events shown (${view.eventCount} in all)`, " ", next ? h("button", { id: "more-events", onclick: async () => { const page = await api(`${base}?limit=1000&cursor=${encodeURIComponent(next)}`); events = events.concat(page.events.items); next = page.events.nextCursor; drawEvents(); } }, "Load more events") : null),
    );
  };
  const filterHolder = h("div", { class: "toolbar" });
  const draw = () => {
    filterHolder.replaceChildren(
      h("fieldset", {}, h("legend", {}, "event types"), ...[...types].map((t) => checkbox(filters.types, t))),
      h("fieldset", {}, h("legend", {}, "observers"), ...[...observers].map((o) => checkbox(filters.observers, o))),
      h("label", {}, h("input", { type: "checkbox", id: "violations-only", checked: filters.violationsOnly, onchange: (e) => ((filters.violationsOnly = e.target.checked), draw()) }), " violations only"),
    );
    timelineHolder.replaceChildren(renderTimeline(view, filters));
    compareHolder.replaceChildren(compareAttempts(view, selA.value, selB.value));
    drawEvents();
  };
  const checkbox = (set, value) => h("label", {}, h("input", { type: "checkbox", checked: set.has(value), onchange: (e) => (e.target.checked ? set.add(value) : set.delete(value), draw()) }), ` ${value}`);
  show(
    h("h1", {}, "Task ", h("span", { class: "mono" }, view.correlationId), " ", status(view.status)),
    h("div", { class: "card summary" }, ...[
      ["first event", time(view.firstAt)],
      ["last event", time(view.lastAt)],
      ["last state", `${short(view.lastState ?? "—")}${view.lastObserver ? ` (${view.lastObserver})` : ""}`],
      ["waiting since", view.waitingSince ? `${time(view.waitingSince)}` : "—"],
      ["status from", view.statusDecision ? `${view.statusDecision.type} ${time(view.statusDecision.decidedAt)}` : "observed states"],
      ["attempts", view.attemptCount],
      ["events", view.eventCount],
      ["violations", view.violationCount],
    ].map(([k, v]) => h("div", {}, h("span", {}, k), v)), view.blockedReason ? h("div", {}, h("span", {}, "blocked because"), view.blockedReason) : null),
    h("div", { class: "toolbar" },
      h("button", { id: "export-ndjson", onclick: async () => {
        const response = await authorized(`${base}/events.ndjson`, "application/x-ndjson");
        if (response.ok) download(`${id}.ndjson`, await response.text(), "application/x-ndjson");
        else failure(Object.assign(new Error(`HTTP ${response.status}`), { status: response.status }));
      } }, "Export NDJSON (replays)"),
      h("button", { id: "export-json", onclick: () => download(`${id}.json`, JSON.stringify(view, null, 2), "application/json") }, "Export JSON"),
    ),
    filterHolder,
    h("h2", {}, "Timeline"),
    timelineHolder,
    h("h2", {}, "Compare attempts"),
    h("div", { class: "toolbar" }, selA, selB),
    compareHolder,
    h("h2", {}, "Violations"),
    view.violations.length === 0 ? h("p", { class: "muted" }, "None.") : h("table", { id: "violations" }, h("tr", {}, ...["decided", "kind", "worker", "observed", "allowed", "detail"].map((c) => h("th", {}, c))), ...view.violations.map((v) => h("tr", { class: "clickable", onclick: () => openDetail(`Violation ${v.kind}`, v, v.causeEventIds.map((c) => view.causes[c] ?? { eventId: c })) }, h("td", {}, time(v.decidedAt)), h("td", {}, v.kind), h("td", {}, v.workerId ?? ""), h("td", { class: "mono" }, v.observed), h("td", { class: "mono" }, v.allowed.join(", ")), h("td", {}, v.detail)))),
    h("h2", {}, "Events"),
    eventsHolder,
  );
  selA.onchange = selB.onchange = draw;
  draw();
  listen(`correlationId=${encodeURIComponent(id)}`, async () => {
    view = await api(`${base}?limit=200`);
    learn();
    main.querySelector("h1 .status")?.replaceWith(status(view.status));
    if (events.length <= view.events.items.length) {
      events = view.events.items;
      next = view.events.nextCursor;
    }
    draw();
  });
}

// ---------- workers ----------
async function workersPage() {
  const body = await api("/v1/workers");
  show(h("h1", {}, "Workers"), h("table", { id: "workers" }, h("tr", {}, ...["worker", "vendor", "policy", "verified", "durable", "task store", "cards", "probes", "violations", "last seen"].map((c) => h("th", {}, c))), ...body.items.map((w) => h("tr", { class: "clickable", onclick: () => (location.hash = `#/workers/${encodeURIComponent(w.workerId)}`) }, h("td", {}, workerLink(w.workerId)), h("td", {}, w.vendor ?? "—"), h("td", {}, h("span", { class: `pill ${w.trust.policy}` }, w.trust.policy)), h("td", {}, w.verified ? "yes" : "no"), h("td", {}, String(w.durable)), h("td", {}, w.taskStore ?? "—"), h("td", {}, w.cards), h("td", {}, w.probes), h("td", {}, w.violations), h("td", {}, time(w.lastSeen))))));
  listen("", () => render());
}

const pills = (values, missing = []) => (values.length === 0 ? h("span", { class: "muted" }, "none") : values.map((v) => h("span", { class: `pill ${missing.includes(v) ? "missing" : ""}` }, short(v))));

async function workerPage(id) {
  const w = await api(`/v1/workers/${encodeURIComponent(id)}`);
  show(
    h("h1", {}, "Worker ", h("span", { class: "mono" }, w.workerId), " ", h("span", { class: `pill ${w.trust.policy}`, id: "policy" }, w.trust.policy)),
    h("div", { class: "card" }, h("b", {}, w.trust.policy === "trust" ? "Trusted: " : "Verified, not trusted: "), w.trust.reasons.join("; ")),
    h("div", { class: "card summary" }, ...[["vendor", w.vendor ?? "—"], ["card", String(w.cardHash ?? "—").slice(0, 16)], ["task store (claimed)", w.taskStore ?? "—"], ["durable (verified)", String(w.durable)], ["verified", w.verified ? "yes" : "no"], ["violations", w.violations]].map(([k, v]) => h("div", {}, h("span", {}, k), v))),
    h("h2", {}, "Advertised vs verified per skill"),
    w.skills.length === 0 ? h("p", { class: "muted" }, "No capability snapshot yet.") : h("table", { id: "skills" }, h("tr", {}, h("th", {}, "skill"), h("th", {}, "advertised states"), h("th", {}, "verified states"), h("th", {}, "advertised output modes"), h("th", {}, "verified output modes"), h("th", {}, "durability (claimed / verified)")), ...w.skills.map((s) => h("tr", {}, h("td", { class: "mono" }, s.skillId ?? "(any)"), h("td", {}, pills(s.advertised?.states ?? [], s.statesNotVerified)), h("td", {}, s.verified ? pills(s.verified.states) : h("span", { class: "muted" }, "not verified")), h("td", {}, pills(s.advertised?.outputModes ?? [], s.outputModesNotVerified)), h("td", {}, s.verified ? pills(s.verified.outputModes) : h("span", { class: "muted" }, "not verified")), h("td", {}, `${s.advertised?.taskStore ?? "—"} / ${s.verified ? String(s.verified.durable) : "—"}`)))),
    h("h2", {}, "Card history"),
    ...w.cardHistory.map((c, i) => h("div", { class: "card card-version" }, h("div", {}, h("b", {}, `#${i + 1} `), h("span", { class: "mono" }, c.cardHash.slice(0, 16)), h("span", { class: "muted" }, ` first ${time(c.firstSeen)} · last ${time(c.lastSeen)} · ${c.fetches} fetch(es) · max-age ${c.cacheMaxAgeSeconds ?? "—"}`)), i === 0 ? h("p", { class: "muted" }, "first card seen") : c.changes.length === 0 ? h("p", { class: "muted" }, "no field changed") : h("table", { class: "diff" }, h("tr", {}, h("th", {}, "field"), h("th", {}, "before"), h("th", {}, "after")), ...c.changes.map((d) => h("tr", {}, h("td", { class: "mono" }, d.path || "/"), h("td", { class: "mono diff-before" }, d.before ?? "(absent)"), h("td", { class: "mono diff-after" }, d.after ?? "(absent)")))), h("button", { onclick: () => openDetail(`Card ${c.cardHash.slice(0, 12)}`, c.card) }, "Show card"))),
    h("h2", {}, "Probes"),
    w.probes.length === 0 ? h("p", { class: "muted" }, "None.") : h("table", {}, h("tr", {}, ...["time", "skill", "card", "states observed", "re-observable", "modes emitted", "durable"].map((c) => h("th", {}, c))), ...w.probes.map((p) => h("tr", {}, h("td", {}, time(p.occurredAt)), h("td", {}, p.skillId ?? "—"), h("td", { class: "mono" }, p.cardHash.slice(0, 12)), h("td", {}, pills(p.statesObserved)), h("td", {}, pills(p.reobservable)), h("td", {}, pills(p.emittedModes)), h("td", {}, String(p.durable))))),
    h("h2", {}, "Parked canaries"),
    w.parkedCanaries.length === 0 ? h("p", { class: "muted" }, "None.") : h("table", {}, h("tr", {}, ...["server task", "state", "parked", "lost"].map((c) => h("th", {}, c))), ...w.parkedCanaries.map((c) => h("tr", {}, h("td", { class: "mono" }, c.serverTaskId), h("td", {}, short(c.state)), h("td", {}, time(c.parkedAt)), h("td", { class: c.lostAt ? "err" : "" }, c.lostAt ? `lost ${time(c.lostAt)}` : "still there")))),
    h("h2", {}, "Refused emissions (the worker's own guard)"),
    (w.refusedEmissions ?? []).length === 0 ? h("p", { class: "muted" }, "None.") : h("table", { id: "refused-emissions" }, h("tr", {}, ...["at", "kind", "task", "refused", "card allows"].map((c) => h("th", {}, c))), ...w.refusedEmissions.map((r) => h("tr", {}, h("td", {}, time(r.occurredAt)), h("td", {}, r.kind), h("td", {}, taskLink(r.correlationId)), h("td", { class: "mono" }, short(r.refused)), h("td", { class: "mono" }, r.allowed.join(", "))))),
    h("h2", {}, "Recent violations"),
    w.violationsRecent.length === 0 ? h("p", { class: "muted" }, "None.") : h("table", {}, h("tr", {}, ...["decided", "kind", "task", "observed", "allowed"].map((c) => h("th", {}, c))), ...w.violationsRecent.map((v) => h("tr", {}, h("td", {}, time(v.decidedAt)), h("td", {}, v.kind), h("td", {}, taskLink(v.correlationId)), h("td", { class: "mono" }, v.observed), h("td", { class: "mono" }, v.allowed.join(", "))))),
  );
  listen(`workerId=${encodeURIComponent(id)}`, () => render());
}

// ---------- queue, violations, dlq, staleness ----------
async function queuePage() {
  const body = await api("/v1/queue");
  show(
    h("h1", {}, "Queue: indeterminate and blocked, oldest first"),
    h("p", {}, `${body.counts.indeterminate} indeterminate · ${body.counts.blocked} blocked`),
    body.items.length === 0 ? h("p", { class: "muted", id: "queue-empty" }, "Nothing waits for reconciliation.") : h("table", { id: "queue" }, h("tr", {}, ...["waiting", "since", "correlation", "status", "last state", "workers", "why"].map((c) => h("th", {}, c))), ...body.items.map((t) => h("tr", { class: "clickable", onclick: () => (location.hash = `#/tasks/${encodeURIComponent(t.correlationId)}`) }, h("td", {}, waited(t.waitedMs)), h("td", {}, time(t.waitingSince)), h("td", {}, taskLink(t.correlationId)), h("td", {}, status(t.status)), h("td", {}, short(t.lastState ?? "—")), h("td", {}, t.workers.join(", ")), h("td", {}, t.blockedReason ?? "")))),
  );
  listen("", () => render());
}

async function violationsPage(params) {
  const body = await api(`/v1/violations?${new URLSearchParams(params)}`);
  show(h("h1", {}, "Violations"), h("table", {}, h("tr", {}, ...["decided", "kind", "worker", "task", "observed", "allowed", "detail"].map((c) => h("th", {}, c))), ...body.items.map((v) => h("tr", {}, h("td", {}, time(v.decidedAt)), h("td", {}, v.kind), h("td", {}, v.workerId ? workerLink(v.workerId) : ""), h("td", {}, taskLink(v.correlationId)), h("td", { class: "mono" }, v.observed), h("td", { class: "mono" }, v.allowed.join(", ")), h("td", {}, v.detail)))), body.nextCursor ? h("button", { onclick: () => (location.hash = `#/violations?${new URLSearchParams({ ...params, cursor: body.nextCursor })}`) }, "Next page") : null);
}

async function dlqPage(params) {
  const body = await api(`/v1/dlq?${new URLSearchParams(params)}`);
  show(h("h1", {}, "Dead letters"), h("table", { id: "dlq" }, h("tr", {}, ...["recorded", "by", "reason", "detail", "source", "key", "bytes"].map((c) => h("th", {}, c))), ...body.items.map((d) => h("tr", { class: "clickable", onclick: () => openDetail(`Dead letter ${d.reason}`, d) }, h("td", {}, time(d.recordedAt)), h("td", {}, d.recordedBy), h("td", { class: "mono" }, d.reason), h("td", {}, d.detail), h("td", { class: "mono" }, d.sourceTopic ? `${d.sourceTopic}/${d.sourcePartition}@${d.sourceOffset}` : "—"), h("td", { class: "mono" }, d.key ?? ""), h("td", {}, d.valueBytes)))), body.nextCursor ? h("button", { onclick: () => (location.hash = `#/dlq?${new URLSearchParams({ ...params, cursor: body.nextCursor })}`) }, "Next page") : null);
  listen("", () => render());
}

async function stalenessPage() {
  const body = await api("/v1/staleness");
  show(h("h1", {}, "Staleness: how far the views are behind"), h("table", {}, h("tr", {}, ...["topic", "partition", "projected up to", "end offset", "records behind", "last record"].map((c) => h("th", {}, c))), ...body.topics.flatMap((t) => t.partitions.map((p) => h("tr", {}, h("td", { class: "mono" }, p.topic), h("td", {}, p.partition), h("td", {}, p.projectedOffset), h("td", {}, p.endOffset ?? "?"), h("td", { class: p.lagRecords ? "err" : "" }, p.lagRecords ?? "?"), h("td", {}, time(p.lastRecordAt)))))));
}

// ---------- search and routing ----------
// A correlation id opens its task, a worker id its worker page; a server task or context id opens the
// one task it belongs to, or the list of them.
async function search(q) {
  const tasks = await api(`/v1/tasks?q=${encodeURIComponent(q)}&limit=50`);
  if (tasks.items.some((t) => t.correlationId === q)) return (location.hash = `#/tasks/${encodeURIComponent(q)}`);
  const worker = await api(`/v1/workers/${encodeURIComponent(q)}`).catch(() => null);
  if (worker) return (location.hash = `#/workers/${encodeURIComponent(q)}`);
  if (tasks.items.length === 1) return (location.hash = `#/tasks/${encodeURIComponent(tasks.items[0].correlationId)}`);
  location.hash = `#/tasks?${new URLSearchParams({ q })}`;
}

document.getElementById("search").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = document.getElementById("search-input").value.trim();
  if (q) search(q).catch(failure);
});

async function render() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = hash.split("?");
  const params = Object.fromEntries(new URLSearchParams(query));
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const key = `${hash}`;
  if (route !== key) document.querySelector(".detail")?.remove();
  route = key;
  try {
    if (parts[0] === "tasks" && parts[1]) await taskPage(parts.slice(1).join("/"));
    else if (parts[0] === "workers" && parts[1]) await workerPage(parts.slice(1).join("/"));
    else if (parts[0] === "workers") await workersPage();
    else if (parts[0] === "queue") await queuePage();
    else if (parts[0] === "violations") await violationsPage(params);
    else if (parts[0] === "dlq") await dlqPage(params);
    else if (parts[0] === "staleness") await stalenessPage();
    else await tasksPage(params);
  } catch (error) {
    failure(error);
  }
}

window.addEventListener("hashchange", render);
render();
