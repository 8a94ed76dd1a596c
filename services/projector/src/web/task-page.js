// One task: its summary, timeline, attempts compared, violations and events, updated live.
import { api, authorized } from "./api.js";
import { download, failure, h, main, openDetail, show, short, status, time } from "./dom.js";
import { listen } from "./live-stream.js";
import { compareAttempts, renderTimeline } from "./timeline.js";

const observationTypes = [
  "TaskDispatched",
  "TaskStateObserved",
  "ArtifactEmitted",
  "TaskNotFoundObserved",
  "EmissionRefused",
  "AgentCardObserved",
  "ProbeCompleted",
];

export async function taskPage(id) {
  const base = `/v1/tasks/${encodeURIComponent(id)}`;
  let view = await api(`${base}?limit=200`);
  const types = new Set();
  const observers = new Set();
  const filters = { types: new Set(), observers: new Set(), violationsOnly: false };
  // Event types and observers the page has not seen before (also ones arriving live) start visible.
  const learn = () => {
    for (const t of [...observationTypes, ...view.decisions.map((d) => d.type)])
      if (!types.has(t)) types.add(t), filters.types.add(t);
    for (const o of view.attempts.flatMap((a) => a.timeline.map((l) => l.observer)))
      if (!observers.has(o)) observers.add(o), filters.observers.add(o);
  };
  learn();
  let events = view.events.items;
  let next = view.events.nextCursor;
  const timelineHolder = h("div", {});
  const eventsHolder = h("div", {});
  const compareHolder = h("div", {});
  const selA = h(
    "select",
    { name: "attemptA" },
    ...view.attempts.map((a, i) => h("option", { value: a.attempt, selected: i === 0 }, `Attempt ${a.attempt}`)),
  );
  const selB = h(
    "select",
    { name: "attemptB" },
    ...view.attempts.map((a, i) =>
      h("option", { value: a.attempt, selected: i === Math.min(1, view.attempts.length - 1) }, `Attempt ${a.attempt}`),
    ),
  );
  const drawEvents = () => {
    const shown = events.filter(
      (e) =>
        (filters.violationsOnly ? e.type === "ContractViolation" : filters.types.has(e.type)) &&
        (!e.observer || filters.observers.has(e.observer)),
    );
    eventsHolder.replaceChildren(
      h(
        "table",
        { id: "events" },
        h(
          "tr",
          {},
          ...["time", "kind", "type", "observer", "worker", "server task", "attempt", "state"].map((c) =>
            h("th", {}, c),
          ),
        ),
        ...shown.map((e) =>
          h(
            "tr",
            {
              class: "clickable",
              onclick: () =>
                openDetail(
                  `${e.kind} ${e.type}`,
                  e.record,
                  (e.record.causeEventIds ?? []).map((c) => view.causes[c] ?? { eventId: c }),
                ),
            },
            h("td", {}, time(e.occurredAt)),
            h("td", {}, e.kind),
            h("td", {}, e.type),
            // Who said it, as ingest authenticated it (the record's principal; null without ingest tokens).
            h("td", e.record?.principal ? { title: `principal ${e.record.principal}` } : {}, e.observer ?? ""),
            h("td", {}, e.workerId ?? ""),
            h("td", { class: "mono" }, e.serverTaskId ?? ""),
            h("td", {}, e.attempt ?? ""),
            h("td", {}, e.state ? short(e.state) : ""),
          ),
        ),
      ),
      h(
        "p",
        { class: "muted" },
        `${shown.length} of ${events.length} loaded events shown (${view.eventCount} in all)`,
        " ",
        next
          ? h(
              "button",
              {
                id: "more-events",
                onclick: async () => {
                  const page = await api(`${base}?limit=1000&cursor=${encodeURIComponent(next)}`);
                  events = events.concat(page.events.items);
                  next = page.events.nextCursor;
                  drawEvents();
                },
              },
              "Load more events",
            )
          : null,
      ),
    );
  };
  const filterHolder = h("div", { class: "toolbar" });
  const draw = () => {
    filterHolder.replaceChildren(
      h("fieldset", {}, h("legend", {}, "event types"), ...[...types].map((t) => checkbox(filters.types, t))),
      h("fieldset", {}, h("legend", {}, "observers"), ...[...observers].map((o) => checkbox(filters.observers, o))),
      h(
        "label",
        {},
        h("input", {
          type: "checkbox",
          id: "violations-only",
          checked: filters.violationsOnly,
          onchange: (e) => ((filters.violationsOnly = e.target.checked), draw()),
        }),
        " violations only",
      ),
    );
    timelineHolder.replaceChildren(renderTimeline(view, filters));
    compareHolder.replaceChildren(compareAttempts(view, selA.value, selB.value));
    drawEvents();
  };
  const checkbox = (set, value) =>
    h(
      "label",
      {},
      h("input", {
        type: "checkbox",
        checked: set.has(value),
        onchange: (e) => (e.target.checked ? set.add(value) : set.delete(value), draw()),
      }),
      ` ${value}`,
    );
  show(
    h("h1", {}, "Task ", h("span", { class: "mono" }, view.correlationId), " ", status(view.status)),
    h(
      "div",
      { class: "card summary" },
      ...[
        ["first event", time(view.firstAt)],
        ["last event", time(view.lastAt)],
        ["last state", `${short(view.lastState ?? "—")}${view.lastObserver ? ` (${view.lastObserver})` : ""}`],
        ["waiting since", view.waitingSince ? `${time(view.waitingSince)}` : "—"],
        [
          "status from",
          view.statusDecision
            ? `${view.statusDecision.type} ${time(view.statusDecision.decidedAt)}`
            : "observed states",
        ],
        ["attempts", view.attemptCount],
        ["events", view.eventCount],
        ["violations", view.violationCount],
      ].map(([k, v]) => h("div", {}, h("span", {}, k), v)),
      view.blockedReason ? h("div", {}, h("span", {}, "blocked because"), view.blockedReason) : null,
      view.expiry ? h("div", {}, h("span", {}, "expired because"), view.expiry.reason) : null,
    ),
    h(
      "div",
      { class: "toolbar" },
      h(
        "button",
        {
          id: "export-ndjson",
          onclick: async () => {
            const response = await authorized(`${base}/events.ndjson`, "application/x-ndjson");
            if (response.ok) download(`${id}.ndjson`, await response.text(), "application/x-ndjson");
            else failure(Object.assign(new Error(`HTTP ${response.status}`), { status: response.status }));
          },
        },
        "Export NDJSON (replays)",
      ),
      h(
        "button",
        { id: "export-json", onclick: () => download(`${id}.json`, JSON.stringify(view, null, 2), "application/json") },
        "Export JSON",
      ),
    ),
    filterHolder,
    h("h2", {}, "Timeline"),
    timelineHolder,
    h("h2", {}, "Compare attempts"),
    h("div", { class: "toolbar" }, selA, selB),
    compareHolder,
    h("h2", {}, "Violations"),
    view.violations.length === 0
      ? h("p", { class: "muted" }, "None.")
      : h(
          "table",
          { id: "violations" },
          h("tr", {}, ...["decided", "kind", "worker", "observed", "allowed", "detail"].map((c) => h("th", {}, c))),
          ...view.violations.map((v) =>
            h(
              "tr",
              {
                class: "clickable",
                onclick: () =>
                  openDetail(
                    `Violation ${v.kind}`,
                    v,
                    v.causeEventIds.map((c) => view.causes[c] ?? { eventId: c }),
                  ),
              },
              h("td", {}, time(v.decidedAt)),
              h("td", {}, v.kind),
              h("td", {}, v.workerId ?? ""),
              h("td", { class: "mono" }, v.observed),
              h("td", { class: "mono" }, v.allowed.join(", ")),
              h("td", {}, v.detail),
            ),
          ),
        ),
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
