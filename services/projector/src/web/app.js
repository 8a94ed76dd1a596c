// The lineage page: plain DOM, no framework, no external assets; one module per page (task-list.js,
// task-page.js with timeline.js, worker-pages.js, list-pages.js), the API client (api.js), the live
// stream (live-stream.js) and the shared building blocks (dom.js). This one routes.
import { api } from "./api.js";
import { failure } from "./dom.js";
import { dlqPage, queuePage, stalenessPage, violationsPage } from "./list-pages.js";
import { taskPage } from "./task-page.js";
import { tasksPage } from "./task-list.js";
import { workerPage, workersPage } from "./worker-pages.js";

let route = null;

// ---------- search and routing ----------
// A correlation id opens its task, a worker id its worker page; a server task or context id opens the
// one task it belongs to, or the list of them.
async function search(q) {
  const tasks = await api(`/v1/tasks?q=${encodeURIComponent(q)}&limit=50`);
  if (tasks.items.some((t) => t.correlationId === q)) return (location.hash = `#/tasks/${encodeURIComponent(q)}`);
  const worker = await api(`/v1/workers/${encodeURIComponent(q)}`).catch(() => null);
  if (worker) return (location.hash = `#/workers/${encodeURIComponent(q)}`);
  if (tasks.items.length === 1) return (location.hash = `#/tasks/${encodeURIComponent(tasks.items[0].correlationId)}`);
  location.hash = `#/tasks?${new URLSearchParams({ q })}`;
}

document.getElementById("search").addEventListener("submit", (e) => {
  e.preventDefault();
  const q = document.getElementById("search-input").value.trim();
  if (q) search(q).catch(failure);
});

async function render() {
  const hash = location.hash.replace(/^#/, "") || "/";
  const [path, query = ""] = hash.split("?");
  const params = Object.fromEntries(new URLSearchParams(query));
  const parts = path.split("/").filter(Boolean).map(decodeURIComponent);
  const key = `${hash}`;
  if (route !== key) document.querySelector(".detail")?.remove();
  route = key;
  try {
    if (parts[0] === "tasks" && parts[1]) await taskPage(parts.slice(1).join("/"));
    else if (parts[0] === "workers" && parts[1]) await workerPage(parts.slice(1).join("/"), render);
    else if (parts[0] === "workers") await workersPage(render);
    else if (parts[0] === "queue") await queuePage(render);
    else if (parts[0] === "violations") await violationsPage(params);
    else if (parts[0] === "dlq") await dlqPage(params, render);
    else if (parts[0] === "staleness") await stalenessPage();
    else await tasksPage(params, render);
  } catch (error) {
    failure(error);
  }
}

window.addEventListener("hashchange", render);
render();
