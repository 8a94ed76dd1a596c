// A task's timeline (one lane per attempt, spans per observer, markers for decisions and artifacts) and
// the side-by-side comparison of two attempts.
import { h, main, openDetail, short, time, workerLink } from "./dom.js";

/**
 * Time → horizontal position. Idle gaps are compressed (each gap between consecutive event times
 * weighs log(1 + seconds)), so a ten-minute wait does not squeeze the busy seconds around it into a
 * few pixels; order and relative spacing stay visible. The right 14 % are left for marker labels.
 */
function timelineScale(view) {
  const all = [];
  for (const a of view.attempts) {
    if (a.dispatch?.dispatchedAt) all.push(Date.parse(a.dispatch.dispatchedAt));
    for (const lane of a.timeline)
      for (const s of lane.spans) all.push(Date.parse(s.from), s.to ? Date.parse(s.to) : NaN);
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
    ticks: [0, 0.25, 0.5, 0.75, 1].map((f) => ({
      left: `${left + f * usable}%`,
      label: new Date(timeAt(f * total)).toISOString().slice(11, 19),
    })),
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

export function renderTimeline(view, filters) {
  const scale = timelineScale(view);
  const causesOf = (ids) => (ids ?? []).map((id) => view.causes[id] ?? { eventId: id });
  const axis = h("div", { class: "axis" });
  for (const tick of scale.ticks) axis.append(place(h("span", { class: "tick" }, tick.label), tick.left));
  const root = h(
    "div",
    { class: "timeline", id: "timeline" },
    h("div", { class: "row" }, h("div", { class: "row-label" }, ""), h("div", { class: "track" }, axis)),
  );
  const violationsOnly = filters.violationsOnly;
  for (const attempt of view.attempts) {
    const ids = attempt.serverTasks.map((s) => s.serverTaskId);
    const lane = h(
      "section",
      { class: "lane", dataset: { attempt: String(attempt.attempt) } },
      h(
        "div",
        { class: "lane-title" },
        `Attempt ${attempt.attempt} · `,
        workerLink(attempt.workerId),
        " · server task ",
        h("span", { class: "mono server-task-ids" }, ids.length ? ids.join(", ") : "—"),
        attempt.inferred
          ? h("span", { class: "muted" }, " (inferred: no dispatch seen)")
          : attempt.dispatch
            ? ""
            : h("span", { class: "muted" }, " (re-dispatch commanded: no dispatch seen yet)"),
        attempt.dispatch
          ? h(
              "span",
              { class: "muted" },
              ` · skill ${attempt.dispatch.skillId ?? "—"} · accepts ${attempt.dispatch.acceptedOutputModes.join(", ") || "anything"} · card ${String(attempt.dispatch.cardHash ?? "—").slice(0, 12)}`,
            )
          : "",
      ),
    );
    if (!violationsOnly && filters.types.has("TaskStateObserved")) {
      for (const obs of attempt.timeline) {
        if (!filters.observers.has(obs.observer)) continue;
        const track = h("div", { class: "track" });
        for (const s of obs.spans) {
          const state = short(s.state);
          track.append(
            place(
              h(
                "div",
                {
                  class: `span s-${state}`,
                  title: `${state} by ${obs.observer} from ${time(s.from)} to ${time(s.to)} (${s.sightings} sightings)`,
                  onclick: () => openDetail(`${state} · ${obs.observer}`, s),
                },
                state,
              ),
              scale.at(s.from),
              scale.width(s.from, s.to),
            ),
          );
        }
        lane.append(
          h(
            "div",
            { class: "row", dataset: { observer: obs.observer } },
            h("div", { class: "row-label" }, obs.observer),
            track,
          ),
        );
      }
    }
    const marks = h("div", { class: "track" });
    const pending = [];
    const periods = view.indeterminate.filter((x) => x.attempt === attempt.attempt);
    if (periods.length > 0) {
      const band = h("div", { class: "track" });
      for (const p of periods) {
        band.append(
          place(
            h("div", {
              class: "indeterminate",
              title: `indeterminate since ${time(p.from)}${p.to ? ` until ${time(p.to)} (${p.endedBy})` : " — still waiting"}`,
            }),
            scale.at(p.from),
            scale.width(p.from, p.to),
          ),
        );
        band.append(
          place(
            h(
              "span",
              { class: "indeterminate-label" },
              `indeterminate (${short(p.lastState ?? "?")})${p.to ? `, ended by ${p.endedBy}` : " — waiting"}`,
            ),
            scale.at(p.from),
          ),
        );
      }
      lane.append(h("div", { class: "row" }, h("div", { class: "row-label" }, "reconciliation"), band));
    }
    if (!violationsOnly && filters.types.has("ArtifactEmitted")) {
      for (const a of view.artifacts.filter((x) => x.attempt === attempt.attempt).slice(0, 500)) {
        if (!a.eventIds.length) continue;
        const label = `◆ ${a.mediaTypes.join(", ") || "no media type"}`;
        pending.push({
          at: a.firstAt,
          label,
          el: h(
            "button",
            {
              class: "marker artifact",
              title: `artifact ${a.artifactId}${a.name ? ` (${a.name})` : ""}, ${a.chunks} chunk(s), ${a.sizeBytes} bytes`,
              dataset: { artifactId: a.artifactId },
              onclick: () => openDetail(`Artifact ${a.artifactId}`, a),
            },
            label,
          ),
        });
      }
    }
    if (!violationsOnly && filters.types.has("EmissionRefused")) {
      for (const r of (view.refusedEmissions ?? []).filter((x) => x.attempt === attempt.attempt)) {
        const label = `✕ refused ${short(r.refused)}`;
        pending.push({
          at: r.occurredAt,
          label,
          el: h(
            "button",
            {
              class: "marker refused",
              title: `${r.workerId}'s guard refused to emit ${r.refused} (${r.kind}); its card allows ${r.allowed.join(", ")}`,
              dataset: { eventId: r.eventId },
              onclick: () => openDetail(`Refused emission ${r.kind}`, r),
            },
            label,
          ),
        });
      }
    }
    for (const d of view.decisions.filter(
      (x) =>
        x.attempt === attempt.attempt ||
        (x.attempt === null && attempt.serverTasks.some((s) => s.serverTaskId === x.serverTaskId)),
    )) {
      const isViolation = d.type === "ContractViolation";
      if (violationsOnly && !isViolation) continue;
      if (!violationsOnly && !filters.types.has(d.type)) continue;
      const label = isViolation ? `▲ ${d.record.kind}` : `● ${d.kind === "command" ? "command " : ""}${d.type}`;
      pending.push({
        at: d.occurredAt,
        label,
        el: h(
          "button",
          {
            class: `marker ${isViolation ? "violation" : d.kind}`,
            dataset: { type: d.type, kind: d.kind },
            title: `${d.type} at ${time(d.occurredAt)}`,
            onclick: () => openDetail(`${d.kind} ${d.type}`, d.record, causesOf(d.causeEventIds)),
          },
          label,
        ),
      });
    }
    lane.append(h("div", { class: "row markers" }, h("div", { class: "row-label" }, "decisions · artifacts"), marks));
    stackMarkers(marks, pending, scale);
    root.append(lane);
  }
  const loose = view.decisions.filter(
    (d) =>
      d.attempt === null && !view.attempts.some((a) => a.serverTasks.some((s) => s.serverTaskId === d.serverTaskId)),
  );
  if (loose.length > 0) {
    const marks = h("div", { class: "track" });
    const pending = [];
    for (const d of loose) {
      const isViolation = d.type === "ContractViolation";
      if (violationsOnly && !isViolation) continue;
      if (!violationsOnly && !filters.types.has(d.type)) continue;
      const label = isViolation ? `▲ ${d.record.kind}` : `● ${d.kind === "command" ? "command " : ""}${d.type}`;
      pending.push({
        at: d.occurredAt,
        label,
        el: h(
          "button",
          {
            class: `marker ${isViolation ? "violation" : d.kind}`,
            dataset: { type: d.type, kind: d.kind },
            title: `${d.type} at ${time(d.occurredAt)}`,
            onclick: () => openDetail(`${d.kind} ${d.type}`, d.record, causesOf(d.causeEventIds)),
          },
          label,
        ),
      });
    }
    root.append(
      h(
        "section",
        { class: "lane" },
        h("div", { class: "lane-title" }, "Correlation"),
        h("div", { class: "row markers" }, h("div", { class: "row-label" }, "decisions"), marks),
      ),
    );
    stackMarkers(marks, pending, scale);
  }
  return root;
}

export function compareAttempts(view, a, b) {
  const of = (n) => view.attempts.find((x) => x.attempt === Number(n));
  const column = (attempt) => {
    if (!attempt) return h("div", {}, "—");
    const arts = view.artifacts.filter((x) => x.attempt === attempt.attempt);
    const lost = attempt.serverTasks.filter((s) => s.lostAt);
    return h(
      "div",
      { class: "card" },
      h("h2", {}, `Attempt ${attempt.attempt}`),
      h(
        "table",
        {},
        ...[
          ["worker", attempt.workerId],
          ["server task ids", attempt.serverTasks.map((s) => s.serverTaskId).join(", ") || "—"],
          ["context ids", [...new Set(attempt.serverTasks.map((s) => s.contextId).filter(Boolean))].join(", ") || "—"],
          ["skill", attempt.dispatch?.skillId ?? "—"],
          ["accepted output modes", attempt.dispatch?.acceptedOutputModes.join(", ") || "—"],
          ["card relied on", attempt.dispatch?.cardHash ?? "—"],
          ["dispatched", time(attempt.dispatch?.dispatchedAt)],
          [
            "last states",
            attempt.serverTasks.map((s) => `${s.serverTaskId}: ${short(s.lastState ?? "—")}`).join("; ") || "—",
          ],
          [
            "states seen per observer",
            attempt.timeline
              .map((l) => `${l.observer}: ${l.spans.map((s) => short(s.state)).join(" → ")}`)
              .join("; ") || "—",
          ],
          ["artifacts", arts.map((x) => `${x.name ?? x.artifactId}: ${x.mediaTypes.join(", ")}`).join("; ") || "—"],
          ["lost", lost.map((s) => `${s.serverTaskId} at ${time(s.lostAt)}`).join("; ") || "no"],
        ].map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", { class: "mono" }, v))),
      ),
    );
  };
  return h("div", { class: "compare", id: "compare" }, column(of(a)), column(of(b)));
}
