/**
 * Reading one value out of a service's Prometheus `/metrics` text, the way tests check what a service
 * counted (`@a2a-ledger/env/testing`).
 */

/** The values of the samples of `name` whose labels include `labels`, in the text's order. */
function samples(text: string, name: string, labels: Readonly<Record<string, string>>): number[] {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const values: number[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const rest = line.slice(name.length);
    if (!rest.startsWith("{") && !rest.startsWith(" ")) continue;
    if (wanted.every((w) => rest.includes(w))) values.push(Number(line.slice(line.lastIndexOf(" ") + 1)));
  }
  return values;
}

/** The value of the first sample of `name` whose labels include `labels`; 0 when there is none. */
export function metricValue(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples(text, name, labels)[0] ?? 0;
}

/** The sum of every sample of `name` whose labels include `labels` (a counter over all its other labels); 0 when there is none. */
export function metricSum(text: string, name: string, labels: Readonly<Record<string, string>> = {}): number {
  return samples(text, name, labels).reduce((sum, v) => sum + v, 0);
}
