/**
 * Reading one value out of a service's Prometheus `/metrics` text, the way tests check what a service
 * counted (`@a2a-ledger/env/testing`).
 */

/** The value of the first sample of `name` whose labels include `labels`; 0 when there is none. */
export function metricValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!rest.startsWith("{") && !rest.startsWith(" ")) continue;
    if (wanted.every((w) => rest.includes(w))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}
