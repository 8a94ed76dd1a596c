/**
 * Sums the vitest summaries of every workspace in a test log into one closing line,
 * "tests: N passed, N failed, N skipped", so that one line tells the whole run. A failed test is named
 * again there, with the first lines of its error (up to twelve), so the end of a long log says what
 * failed and why. A suite that
 * failed outside its tests (a file that does not load, a failing `beforeAll` or `afterAll`: vitest's
 * "Failed Suites N") counts as a failure: its tests are reported skipped, and a file that failed before
 * its tests ran must not pass for skips.
 *
 *   tsx scripts/test-summary.ts <log file>
 */
import { readFileSync } from "node:fs";

const file = process.argv[2];
if (!file) {
  console.error("usage: test-summary <log file>");
  process.exit(2);
}
// biome-ignore lint: control characters are what we strip
const text = readFileSync(file, "utf8").replace(/\u001b\[[0-9;]*m/g, "");
const totals = { passed: 0, failed: 0, skipped: 0, todo: 0 };
let files = 0;
const failures: string[] = [];
const lines = text.split("\n");
lines.forEach((line, i) => {
  const workspace = /^(@[^:]+):test:/.exec(line)?.[1] ?? "";
  const unprefixed = (l: string | undefined) => (l ?? "").replace(/^@[^:]+:test:\s*/, "").trim();
  if (!/^FAIL\s/.test(unprefixed(line))) return;
  const error: string[] = [];
  for (const next of lines.slice(i + 1, i + 40).map(unprefixed)) {
    if (/^(FAIL|[✓×❯↓])\s/.test(next) || /^⎯/.test(next) || error.length === 12) break;
    if (next !== "") error.push(next);
  }
  failures.push(`${workspace} ${unprefixed(line)}\n    ${error.join("\n    ")}`.trim().slice(0, 2_000));
});
for (const line of lines) {
  const failedSuites = /Failed Suites (\d+)/.exec(line);
  if (failedSuites) totals.failed += Number(failedSuites[1]);
  const summary = /^\S*:?\s*Tests\s+(.*)\(\d+\)\s*$/.exec(line.replace(/^@[^:]+:test:\s*/, ""));
  if (!summary?.[1]) continue;
  files++;
  for (const part of summary[1].split("|")) {
    const m = /(\d+)\s+(passed|failed|skipped|todo)/.exec(part);
    if (m) totals[m[2] as keyof typeof totals] += Number(m[1]);
  }
}
console.log(`(${files} vitest runs)`);
for (const failure of failures) console.log(failure);
console.log(`tests: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped + totals.todo} skipped`);
