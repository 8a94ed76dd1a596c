import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMetrics } from "../src/metrics.ts";
import { buildServer } from "../src/server.ts";
import { bigTask } from "./big-task.ts";
import { produce, type StoryPipeline, storyPipeline, waitForGroupAtEnd } from "./pipeline.ts";

const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const chromiumFlags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const artifacts = new URL("../test-artifacts/", import.meta.url).pathname;

let pipeline: StoryPipeline;
let context: BrowserContext;
let page: Page;
let url: string;
const dir = mkdtempSync(join(tmpdir(), "projector-browser-"));

beforeAll(async () => {
  if (!existsSync(chromiumPath))
    throw new Error(
      `${chromiumPath} is missing: install Debian's chromium (scripts/setup-projector.sh, run by npm test, does)`,
    );
  pipeline = await storyPipeline("projector-browser", dir);
  url = await pipeline.projector.server.listen({ host: "127.0.0.1", port: 0 });
  context = await chromium.launchPersistentContext(join(dir, "chromium-profile"), {
    executablePath: chromiumPath,
    headless: true,
    args: chromiumFlags,
    viewport: { width: 1500, height: 1100 },
  });
  page = context.pages()[0] ?? (await context.newPage());
});

afterAll(async () => {
  await context?.close();
  await pipeline?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("the lineage page in headless Chromium", () => {
  it("shows the DESIGN §1 task: both attempts with their server task ids, the indeterminate period, the re-dispatch and the violations", async () => {
    await page.goto(`${url}/#/tasks/task-42`);
    await page.locator("#timeline").waitFor();
    await expect.poll(() => page.locator("#live").textContent(), { timeout: 10_000 }).toBe("live");
    expect(await page.locator('.lane[data-attempt="1"] .server-task-ids').textContent()).toBe("acme-7f3a");
    expect(await page.locator('.lane[data-attempt="2"] .server-task-ids').textContent()).toBe("gamma-19c2");
    expect(await page.locator('.lane[data-attempt="1"] .indeterminate').count()).toBe(1);
    expect(await page.locator('.lane[data-attempt="1"] .indeterminate-label').textContent()).toContain(
      "indeterminate (INPUT_REQUIRED)",
    );
    expect(await page.locator('.marker[data-type="RedispatchCommanded"][data-kind="decision"]').count()).toBe(1);
    expect(await page.locator('.marker[data-type="RedispatchCommanded"][data-kind="command"]').count()).toBe(1);
    const violations = await page.locator(".marker.violation").allTextContents();
    expect(violations.join(" ")).toContain("DIVERGENT_ARTIFACTS");
    expect(await page.locator('.lane[data-attempt="1"] .row[data-observer="proxy"] .span').allTextContents()).toEqual([
      "WORKING",
      "INPUT_REQUIRED",
    ]);
    expect(await page.locator(".marker.artifact").allTextContents()).toEqual(["◆ text/plain", "◆ text/markdown"]);
    expect(await page.locator("h1 .status").textContent()).toBe("reconciled");
    // Both attempts, and the correlation's own lane: default/4 revokes w-acme's durable-store claim on the loss.
    expect(await page.locator("#timeline .lane-title").allTextContents()).toEqual([
      expect.stringMatching(/^Attempt 1 · w-acme/),
      expect.stringMatching(/^Attempt 2 · w-gamma/),
      "Correlation",
    ]);

    mkdirSync(artifacts, { recursive: true });
    const shot = join(artifacts, "task-42-timeline.png");
    await page.screenshot({ path: shot, fullPage: true });
    console.log(`screenshot: ${shot}`);
  });

  it("opens a decision to its cause events, filters to violations only, and compares the two attempts", async () => {
    await page.locator('.marker[data-type="TaskIndeterminate"]').click();
    const detail = page.locator(".detail");
    await detail.waitFor();
    expect(await detail.locator(".cause").first().textContent()).toContain("not-found-1");
    await detail.locator("button.close").click();
    await page.locator("#violations-only").check();
    expect(await page.locator("#timeline .span").count()).toBe(0);
    expect(await page.locator("#timeline .marker.decision").count()).toBe(0);
    expect(await page.locator("#timeline .marker.violation").count()).toBeGreaterThan(0);
    await page.locator("#violations-only").uncheck();
    const compare = await page.locator("#compare").textContent();
    expect(compare).toContain("acme-7f3a");
    expect(compare).toContain("gamma-19c2");
    expect(compare).toContain("text/markdown");
    const download = page.waitForEvent("download");
    await page.locator("#export-ndjson").click();
    const file = await (await download).path();
    expect(readFileSync(file, "utf8").trim().split("\n")).toHaveLength(pipeline.tasks.length);
  });

  it("updates the open task live when new events arrive", async () => {
    await pipeline.ingest.post([
      {
        type: "TaskStateObserved",
        eventId: "late-poll",
        correlationId: "task-42",
        occurredAt: "2025-06-02T09:25:00Z",
        observer: "auditor",
        workerId: "w-gamma",
        serverTaskId: "gamma-19c2",
        contextId: "ctx-42",
        state: "TASK_STATE_COMPLETED",
        via: "get",
      },
    ]);
    await page.locator('.row[data-observer="auditor"]').waitFor({ timeout: 30_000 });
  });

  it("keeps a task with 10,000 events usable: the timeline draws spans and the events page in", async () => {
    const big = bigTask("big-task", 10_000);
    await produce(pipeline.fixture.topics.observations, big);
    await waitForGroupAtEnd(
      pipeline.admin,
      `reconciler-${pipeline.fixture.suffix}`,
      pipeline.fixture.topics.observations,
      120_000,
    );
    await pipeline.projector.projector.caughtUp(120_000);
    const started = Date.now();
    // The previous test left task-42's timeline (three lanes) on the page, and a change of hash keeps
    // the document: wait for the big task's own lane, not for any lane.
    await page.goto(`${url}/#/tasks/big-task`);
    await page.locator('#timeline .lane[data-attempt="1"] .server-task-ids', { hasText: "big-task-t1" }).waitFor();
    const loadMs = Date.now() - started;
    console.log(`a task with ${big.length} events: timeline drawn ${loadMs} ms after navigation`);
    expect(await page.locator("#timeline .lane").count()).toBe(2);
    expect(await page.locator("#events tr").count()).toBe(201);
    await page.locator("#more-events").click();
    await expect.poll(() => page.locator("#events tr").count(), { timeout: 20_000 }).toBe(1_201);
    expect(loadMs).toBeLessThan(15_000);
  });

  it("lists the tasks with a next-page button only when there is a further page, and no stray text under the table", async () => {
    await page.goto(`${url}/#/tasks`);
    await page.locator("#task-list").waitFor();
    expect(await page.locator("#task-list tr").count()).toBeGreaterThan(2);
    expect(await page.locator("main button", { hasText: "Next page" }).count()).toBe(0);
    expect(await page.locator("main").textContent()).not.toContain("null");
    await page.goto(`${url}/#/tasks?limit=1`);
    await expect.poll(() => page.locator("#task-list tr").count()).toBe(2);
    await page.locator("main button", { hasText: "Next page" }).click();
    await expect.poll(() => page.url()).toContain("cursor=");
    await expect.poll(() => page.locator("#task-list tr").count()).toBe(2);
    expect(await page.locator("main").textContent()).not.toContain("null");
  });

  it("shows the worker page with advertised vs verified per skill and the queue", async () => {
    await page.goto(`${url}/#/workers/w-beta`);
    await page.locator("#skills").waitFor();
    expect(await page.locator("#skills").textContent()).toContain("text/markdown");
    expect(await page.locator("#policy").textContent()).toBe("verify");
    await page.goto(`${url}/#/queue`);
    await page.locator("#queue-empty").waitFor();
    await page.locator("#search-input").fill("gamma-19c2");
    await page.locator("#search button").click();
    await page.locator("#timeline").waitFor();
    expect(page.url()).toContain("#/tasks/task-42");
    await page.locator("#search-input").fill("w-acme");
    await page.locator("#search button").click();
    await page.locator("#skills").waitFor();
    expect(page.url()).toContain("#/workers/w-acme");
    await page.locator("#search-input").fill("ctx-42");
    await page.locator("#search button").click();
    await expect.poll(() => page.url()).toContain("#/tasks/task-42");
  });
});

describe("the lineage page of a projector with read tokens", () => {
  it("asks for the token once, keeps it in sessionStorage, sends it only as a header and never in a URL", async () => {
    const token = "browser-read-token-0123456789";
    const { config, store, stream, projector } = pipeline.projector;
    const guarded = buildServer({
      config: { ...config, tokens: [token] },
      store,
      stream,
      metrics: createMetrics(),
      kafka: projector,
      logger: false,
    });
    const guardedUrl = await guarded.listen({ host: "127.0.0.1", port: 0 });
    const tab = await context.newPage();
    const requests: { url: string; authorization: string | undefined }[] = [];
    tab.on("request", (r) => requests.push({ url: r.url(), authorization: r.headers().authorization }));
    try {
      await tab.goto(`${guardedUrl}/#/tasks/task-42`);
      await tab.locator("#token-form").waitFor();
      await tab.locator("#token-input").fill("wrong-token-0123456789abc");
      await tab.locator("#token-form button").click();
      await tab.locator("#token-form").getByText("That token was refused").waitFor();
      await tab.locator("#token-input").fill(token);
      await tab.locator("#token-form button").click();
      await tab.locator("#timeline").waitFor();
      await expect.poll(() => tab.locator("#live").textContent(), { timeout: 10_000 }).toBe("live");
      expect(await tab.evaluate(() => sessionStorage.getItem("a2a-ledger.projector.readToken"))).toBe(token);
      // Another view of the same tab asks no more.
      await tab.goto(`${guardedUrl}/#/workers/w-beta`);
      await tab.locator("#skills").waitFor();
      const download = tab.waitForEvent("download");
      await tab.goto(`${guardedUrl}/#/tasks/task-42`);
      await tab.locator("#export-ndjson").click();
      expect((await download).suggestedFilename()).toBe("task-42.ndjson");
      expect(requests.some((r) => r.url.includes("/v1/stream") && r.authorization === `Bearer ${token}`)).toBe(true);
      for (const r of requests) expect(r.url.includes(token), r.url).toBe(false);
    } finally {
      await tab.close();
      await guarded.close();
    }
  });
});
