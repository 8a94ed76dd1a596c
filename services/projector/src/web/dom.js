// Building the page: elements from plain DOM (every value through textContent, never innerHTML; positions
// through CSSOM, which the page's CSP allows), the formats every page shares, and the detail panel.
export const main = document.getElementById("main");

export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else el.setAttribute(k, v === true ? "" : String(v));
  }
  for (const c of children.flat())
    if (c !== undefined && c !== null && c !== false)
      el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  return el;
}

export const time = (iso) => (iso ? iso.replace("T", " ").replace(/\.\d+Z$|Z$/, "Z") : "—");
export const status = (s) => h("span", { class: `status ${s}` }, s);
export const short = (s) => String(s).replace(/^TASK_STATE_/, "");
export function waited(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 120) return `${s} s`;
  if (s < 7200) return `${Math.floor(s / 60)} min`;
  if (s < 172800) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86400)} d ${Math.floor((s % 86400) / 3600)} h`;
}
export const link = (href, text) => h("a", { href }, text);
export const taskLink = (id) => link(`#/tasks/${encodeURIComponent(id)}`, id);
export const workerLink = (id) => link(`#/workers/${encodeURIComponent(id)}`, id);
export function show(...nodes) {
  // replaceChildren would print a null or false as text ("nullnull" under a list with no further page).
  main.replaceChildren(...nodes.filter((n) => n !== null && n !== undefined && n !== false));
}
export function failure(error) {
  show(h("p", { class: "err" }, `${error.code ? `${error.code}: ` : ""}${error.message}`));
}

export const pills = (values, missing = []) =>
  values.length === 0
    ? h("span", { class: "muted" }, "none")
    : values.map((v) => h("span", { class: `pill ${missing.includes(v) ? "missing" : ""}` }, short(v)));

export function download(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

// ---------- detail panel ----------
export function openDetail(title, record, causes) {
  document.querySelector(".detail")?.remove();
  const panel = h(
    "aside",
    { class: "detail", "aria-label": "details" },
    h("button", { onclick: () => panel.remove(), class: "close" }, "Close"),
    h("h2", {}, title),
    h("pre", {}, JSON.stringify(record, null, 2)),
    causes && causes.length > 0
      ? [
          h("h2", {}, "Cause events"),
          ...causes.map((c) =>
            h(
              "div",
              { class: "card cause" },
              h(
                "div",
                {},
                h("b", {}, c.type ?? "event"),
                " ",
                h("code", {}, c.eventId),
                " ",
                h("span", { class: "muted" }, time(c.occurredAt), c.observer ? ` · ${c.observer}` : ""),
              ),
              c.record
                ? h("pre", {}, JSON.stringify(c.record, null, 2))
                : h("p", { class: "muted" }, "not in the views (another correlation, not projected yet, or truncated)"),
            ),
          ),
        ]
      : null,
  );
  document.body.append(panel);
}
