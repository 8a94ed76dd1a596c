// The workers: the list, and one worker's advertised vs verified capabilities, cards, probes and canaries.
import { api } from "./api.js";
import { h, openDetail, pills, show, short, taskLink, time, workerLink } from "./dom.js";
import { listen } from "./live-stream.js";

export async function workersPage(refresh) {
  const body = await api("/v1/workers");
  show(
    h("h1", {}, "Workers"),
    h(
      "table",
      { id: "workers" },
      h(
        "tr",
        {},
        ...[
          "worker",
          "vendor",
          "policy",
          "verified",
          "durable",
          "task store",
          "cards",
          "probes",
          "violations",
          "last seen",
        ].map((c) => h("th", {}, c)),
      ),
      ...body.items.map((w) =>
        h(
          "tr",
          { class: "clickable", onclick: () => (location.hash = `#/workers/${encodeURIComponent(w.workerId)}`) },
          h("td", {}, workerLink(w.workerId)),
          h("td", {}, w.vendor ?? "—"),
          h("td", {}, h("span", { class: `pill ${w.trust.policy}` }, w.trust.policy)),
          h("td", {}, w.verified ? "yes" : "no"),
          h("td", {}, String(w.durable)),
          h("td", {}, w.taskStore ?? "—"),
          h("td", {}, w.cards),
          h("td", {}, w.probes),
          h("td", {}, w.violations),
          h("td", {}, time(w.lastSeen)),
        ),
      ),
    ),
  );
  listen("", refresh);
}

export async function workerPage(id, refresh) {
  const w = await api(`/v1/workers/${encodeURIComponent(id)}`);
  show(
    h(
      "h1",
      {},
      "Worker ",
      h("span", { class: "mono" }, w.workerId),
      " ",
      h("span", { class: `pill ${w.trust.policy}`, id: "policy" }, w.trust.policy),
    ),
    h(
      "div",
      { class: "card" },
      h("b", {}, w.trust.policy === "trust" ? "Trusted: " : "Verified, not trusted: "),
      w.trust.reasons.join("; "),
    ),
    h(
      "div",
      { class: "card summary" },
      ...[
        ["vendor", w.vendor ?? "—"],
        ["card", String(w.cardHash ?? "—").slice(0, 16)],
        ["task store (claimed)", w.taskStore ?? "—"],
        ["durable (verified)", String(w.durable)],
        ["verified", w.verified ? "yes" : "no"],
        ["card signature", w.signature === null || w.signature === undefined ? "not checked" : w.signature],
        ["violations", w.violations],
      ].map(([k, v]) => h("div", {}, h("span", {}, k), v)),
    ),
    h("h2", {}, "Advertised vs verified per skill"),
    w.skills.length === 0
      ? h("p", { class: "muted" }, "No capability snapshot yet.")
      : h(
          "table",
          { id: "skills" },
          h(
            "tr",
            {},
            h("th", {}, "skill"),
            h("th", {}, "advertised states"),
            h("th", {}, "verified states"),
            h("th", {}, "advertised output modes"),
            h("th", {}, "verified output modes"),
            h("th", {}, "durability (claimed / verified)"),
          ),
          ...w.skills.map((s) =>
            h(
              "tr",
              {},
              h("td", { class: "mono" }, s.skillId ?? "(any)"),
              h("td", {}, pills(s.advertised?.states ?? [], s.statesNotVerified)),
              h("td", {}, s.verified ? pills(s.verified.states) : h("span", { class: "muted" }, "not verified")),
              h("td", {}, pills(s.advertised?.outputModes ?? [], s.outputModesNotVerified)),
              h("td", {}, s.verified ? pills(s.verified.outputModes) : h("span", { class: "muted" }, "not verified")),
              h("td", {}, `${s.advertised?.taskStore ?? "—"} / ${s.verified ? String(s.verified.durable) : "—"}`),
            ),
          ),
        ),
    h("h2", {}, "Card history"),
    ...w.cardHistory.map((c, i) =>
      h(
        "div",
        { class: "card card-version" },
        h(
          "div",
          {},
          h("b", {}, `#${i + 1} `),
          h("span", { class: "mono" }, c.cardHash.slice(0, 16)),
          h(
            "span",
            { class: "muted" },
            ` first ${time(c.firstSeen)} · last ${time(c.lastSeen)} · ${c.fetches} fetch(es) · max-age ${c.cacheMaxAgeSeconds ?? "—"}`,
          ),
        ),
        i === 0
          ? h("p", { class: "muted" }, "first card seen")
          : c.changes.length === 0
            ? h("p", { class: "muted" }, "no field changed")
            : h(
                "table",
                { class: "diff" },
                h("tr", {}, h("th", {}, "field"), h("th", {}, "before"), h("th", {}, "after")),
                ...c.changes.map((d) =>
                  h(
                    "tr",
                    {},
                    h("td", { class: "mono" }, d.path || "/"),
                    h("td", { class: "mono diff-before" }, d.before ?? "(absent)"),
                    h("td", { class: "mono diff-after" }, d.after ?? "(absent)"),
                  ),
                ),
              ),
        h("button", { onclick: () => openDetail(`Card ${c.cardHash.slice(0, 12)}`, c.card) }, "Show card"),
      ),
    ),
    h("h2", {}, "Probes"),
    w.probes.length === 0
      ? h("p", { class: "muted" }, "None.")
      : h(
          "table",
          {},
          h(
            "tr",
            {},
            ...["time", "skill", "card", "states observed", "re-observable", "modes emitted", "durable"].map((c) =>
              h("th", {}, c),
            ),
          ),
          ...w.probes.map((p) =>
            h(
              "tr",
              {},
              h("td", {}, time(p.occurredAt)),
              h("td", {}, p.skillId ?? "—"),
              h("td", { class: "mono" }, p.cardHash.slice(0, 12)),
              h("td", {}, pills(p.statesObserved)),
              h("td", {}, pills(p.reobservable)),
              h("td", {}, pills(p.emittedModes)),
              h("td", {}, String(p.durable)),
            ),
          ),
        ),
    h("h2", {}, "Parked canaries"),
    w.parkedCanaries.length === 0
      ? h("p", { class: "muted" }, "None.")
      : h(
          "table",
          {},
          h("tr", {}, ...["server task", "state", "parked", "lost"].map((c) => h("th", {}, c))),
          ...w.parkedCanaries.map((c) =>
            h(
              "tr",
              {},
              h("td", { class: "mono" }, c.serverTaskId),
              h("td", {}, short(c.state)),
              h("td", {}, time(c.parkedAt)),
              h("td", { class: c.lostAt ? "err" : "" }, c.lostAt ? `lost ${time(c.lostAt)}` : "still there"),
            ),
          ),
        ),
    h("h2", {}, "Refused emissions (the worker's own guard)"),
    (w.refusedEmissions ?? []).length === 0
      ? h("p", { class: "muted" }, "None.")
      : h(
          "table",
          { id: "refused-emissions" },
          h("tr", {}, ...["at", "kind", "task", "refused", "card allows"].map((c) => h("th", {}, c))),
          ...w.refusedEmissions.map((r) =>
            h(
              "tr",
              {},
              h("td", {}, time(r.occurredAt)),
              h("td", {}, r.kind),
              h("td", {}, taskLink(r.correlationId)),
              h("td", { class: "mono" }, short(r.refused)),
              h("td", { class: "mono" }, r.allowed.join(", ")),
            ),
          ),
        ),
    h("h2", {}, "Recent violations"),
    w.violationsRecent.length === 0
      ? h("p", { class: "muted" }, "None.")
      : h(
          "table",
          {},
          h("tr", {}, ...["decided", "kind", "task", "observed", "allowed"].map((c) => h("th", {}, c))),
          ...w.violationsRecent.map((v) =>
            h(
              "tr",
              {},
              h("td", {}, time(v.decidedAt)),
              h("td", {}, v.kind),
              h("td", {}, taskLink(v.correlationId)),
              h("td", { class: "mono" }, v.observed),
              h("td", { class: "mono" }, v.allowed.join(", ")),
            ),
          ),
        ),
  );
  listen(`workerId=${encodeURIComponent(id)}`, refresh);
}
