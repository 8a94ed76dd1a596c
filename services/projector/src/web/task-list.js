// The task list.
import { api } from "./api.js";
import { listen } from "./live-stream.js";
import { h, short, show, status, taskLink, time } from "./dom.js";

export async function tasksPage(params, refresh) {
  const query = new URLSearchParams(params);
  const body = await api(`/v1/tasks?${query}`);
  const statusSelect = h(
    "select",
    { name: "status", onchange: () => go({ ...params, status: statusSelect.value, cursor: "" }) },
    h("option", { value: "" }, "any status"),
    ...[
      "running",
      "indeterminate",
      "blocked",
      "re-dispatched",
      "reconciled",
      "expired",
      "completed",
      "failed",
      "canceled",
      "rejected",
    ].map((s) => h("option", { value: s, selected: params.status === s }, s)),
  );
  const worker = h("input", { name: "workerId", placeholder: "worker id", value: params.workerId ?? "" });
  const go = (p) => {
    const q = new URLSearchParams(Object.entries(p).filter(([, v]) => v));
    location.hash = `#/tasks?${q}`;
  };
  show(
    h("h1", {}, params.q ? `Tasks matching “${params.q}”` : "Tasks"),
    h(
      "form",
      {
        class: "toolbar",
        onsubmit: (e) => (e.preventDefault(), go({ ...params, workerId: worker.value, cursor: "" })),
      },
      statusSelect,
      worker,
      h("button", { type: "submit" }, "Filter"),
    ),
    h(
      "table",
      { id: "task-list" },
      h(
        "tr",
        {},
        ...[
          "correlation",
          "status",
          "first event",
          "last event",
          "last state",
          "attempts",
          "violations",
          "workers",
        ].map((c) => h("th", {}, c)),
      ),
      ...body.items.map((t) =>
        h(
          "tr",
          { class: "clickable", onclick: () => (location.hash = `#/tasks/${encodeURIComponent(t.correlationId)}`) },
          h("td", {}, taskLink(t.correlationId)),
          h("td", {}, status(t.status)),
          h("td", {}, time(t.firstAt)),
          h("td", {}, time(t.lastAt)),
          h("td", {}, short(t.lastState ?? "—")),
          h("td", {}, t.attemptCount),
          h("td", {}, t.violationCount),
          h("td", {}, t.workers.join(", ")),
        ),
      ),
    ),
    body.items.length === 0 ? h("p", { class: "muted" }, "No tasks.") : null,
    body.nextCursor
      ? h("p", {}, h("button", { onclick: () => go({ ...params, cursor: body.nextCursor }) }, "Next page"))
      : null,
  );
  listen("", refresh);
}
