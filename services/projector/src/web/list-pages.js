// The queue (indeterminate, blocked and expired correlations), violations, dead letters and staleness pages.
import { api } from "./api.js";
import { h, openDetail, show, short, status, taskLink, time, waited, workerLink } from "./dom.js";
import { listen } from "./live-stream.js";

/** What an operator's resolution asked for, in words. */
function askedTo(r) {
  if (r.action === "FAIL") return "fail it";
  if (r.action === "REDISPATCH") return `re-dispatch it to ${r.workerId}`;
  if (r.action === "RESTART") return r.workerId === null ? "restart it from scratch" : `restart it on ${r.workerId}`;
  return r.action;
}

/** A resolution recorded for a correlation still on the queue (one the rules could not carry out, or not yet). */
const resolutionLine = (r) => h("div", { class: "muted" }, `${time(r.at)} ${r.by} asked to ${askedTo(r)}: ${r.reason}`);

export async function queuePage(refresh) {
  const body = await api("/v1/queue");
  show(
    h("h1", {}, "Queue: indeterminate, blocked and expired, oldest first"),
    h(
      "p",
      {},
      `${body.counts.indeterminate} indeterminate · ${body.counts.blocked} blocked · ${body.counts.expired} expired`,
    ),
    body.items.length === 0
      ? h("p", { class: "muted", id: "queue-empty" }, "Nothing waits for reconciliation or an operator.")
      : h(
          "table",
          { id: "queue" },
          h(
            "tr",
            {},
            ...["waiting", "since", "correlation", "status", "last state", "workers", "why"].map((c) => h("th", {}, c)),
          ),
          ...body.items.map((t) =>
            h(
              "tr",
              { class: "clickable", onclick: () => (location.hash = `#/tasks/${encodeURIComponent(t.correlationId)}`) },
              h("td", {}, waited(t.waitedMs)),
              h("td", {}, time(t.waitingSince)),
              h("td", {}, taskLink(t.correlationId)),
              h("td", {}, status(t.status)),
              h("td", {}, short(t.lastState ?? "—")),
              h("td", {}, t.workers.join(", ")),
              h("td", {}, t.blockedReason ?? t.expiry?.reason ?? "", ...t.resolutions.map(resolutionLine)),
            ),
          ),
        ),
    h("h2", {}, "Resolved by an operator, latest first"),
    body.resolved.length === 0
      ? h("p", { class: "muted", id: "resolved-empty" }, "No operator has resolved a correlation (a2a-ledger resolve).")
      : h(
          "table",
          { id: "resolved" },
          h("tr", {}, ...["at", "correlation", "by", "asked to", "why", "status now"].map((c) => h("th", {}, c))),
          ...body.resolved.map((r) =>
            h(
              "tr",
              { class: "clickable", onclick: () => (location.hash = `#/tasks/${encodeURIComponent(r.correlationId)}`) },
              h("td", {}, time(r.at)),
              h("td", {}, taskLink(r.correlationId)),
              h("td", {}, r.by),
              h("td", {}, askedTo(r)),
              h("td", {}, r.reason),
              h("td", {}, r.status === null ? "—" : status(r.status)),
            ),
          ),
        ),
  );
  listen("", refresh);
}

export async function violationsPage(params) {
  const body = await api(`/v1/violations?${new URLSearchParams(params)}`);
  show(
    h("h1", {}, "Violations"),
    h(
      "table",
      {},
      h("tr", {}, ...["decided", "kind", "worker", "task", "observed", "allowed", "detail"].map((c) => h("th", {}, c))),
      ...body.items.map((v) =>
        h(
          "tr",
          {},
          h("td", {}, time(v.decidedAt)),
          h("td", {}, v.kind),
          h("td", {}, v.workerId ? workerLink(v.workerId) : ""),
          h("td", {}, taskLink(v.correlationId)),
          h("td", { class: "mono" }, v.observed),
          h("td", { class: "mono" }, v.allowed.join(", ")),
          h("td", {}, v.detail),
        ),
      ),
    ),
    body.nextCursor
      ? h(
          "button",
          {
            onclick: () =>
              (location.hash = `#/violations?${new URLSearchParams({ ...params, cursor: body.nextCursor })}`),
          },
          "Next page",
        )
      : null,
  );
}

export async function dlqPage(params, refresh) {
  const body = await api(`/v1/dlq?${new URLSearchParams(params)}`);
  show(
    h("h1", {}, "Dead letters"),
    h(
      "table",
      { id: "dlq" },
      h("tr", {}, ...["recorded", "by", "reason", "detail", "source", "key", "bytes"].map((c) => h("th", {}, c))),
      ...body.items.map((d) =>
        h(
          "tr",
          { class: "clickable", onclick: () => openDetail(`Dead letter ${d.reason}`, d) },
          h("td", {}, time(d.recordedAt)),
          h("td", {}, d.recordedBy),
          h("td", { class: "mono" }, d.reason),
          h("td", {}, d.detail),
          h("td", { class: "mono" }, d.sourceTopic ? `${d.sourceTopic}/${d.sourcePartition}@${d.sourceOffset}` : "—"),
          h("td", { class: "mono" }, d.key ?? ""),
          h("td", {}, d.valueBytes),
        ),
      ),
    ),
    body.nextCursor
      ? h(
          "button",
          { onclick: () => (location.hash = `#/dlq?${new URLSearchParams({ ...params, cursor: body.nextCursor })}`) },
          "Next page",
        )
      : null,
  );
  listen("", refresh);
}

export async function stalenessPage() {
  const body = await api("/v1/staleness");
  show(
    h("h1", {}, "Staleness: how far the views are behind"),
    h(
      "table",
      {},
      h(
        "tr",
        {},
        ...["topic", "partition", "projected up to", "end offset", "records behind", "last record"].map((c) =>
          h("th", {}, c),
        ),
      ),
      ...body.topics.flatMap((t) =>
        t.partitions.map((p) =>
          h(
            "tr",
            {},
            h("td", { class: "mono" }, p.topic),
            h("td", {}, p.partition),
            h("td", {}, p.projectedOffset),
            h("td", {}, p.endOffset ?? "?"),
            h("td", { class: p.lagRecords ? "err" : "" }, p.lagRecords ?? "?"),
            h("td", {}, time(p.lastRecordAt)),
          ),
        ),
      ),
    ),
  );
}
