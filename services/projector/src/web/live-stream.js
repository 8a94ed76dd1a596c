import { askToken, authHeaders, tokenKey } from "./api.js";

const live = document.getElementById("live");
let stream = null;
let refreshTimer = null;

/**
 * The live stream, read with fetch (an EventSource cannot send the read token, and the token never
 * goes into a URL): server-sent events parsed here, reconnecting after 2 s as EventSource would.
 */
export function listen(params, onChange) {
  if (stream) stream.abort();
  const controller = new AbortController();
  stream = controller;
  const fire = () => {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(onChange, 400);
  };
  const state = (text, on) => {
    live.textContent = text;
    live.classList.toggle("on", on);
  };
  const handle = (block) => {
    let type = "message";
    let data = "";
    for (const line of block.split("\n")) {
      if (line.startsWith("event:")) type = line.slice(6).trim();
      else if (line.startsWith("data:")) data += line.slice(5).trim();
    }
    if (type === "task" || type === "worker" || type === "dlq") fire();
    else if (type === "refresh" && data !== "" && JSON.parse(data).reason !== "connected") fire();
  };
  (async () => {
    while (!controller.signal.aborted) {
      try {
        const hadToken = sessionStorage.getItem(tokenKey) !== null;
        const response = await fetch(`/v1/stream${params ? `?${params}` : ""}`, {
          headers: { accept: "text/event-stream", ...authHeaders() },
          signal: controller.signal,
        });
        if (response.status === 401) {
          state("offline", false);
          await askToken(hadToken);
          onChange();
          continue;
        }
        if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
        state("live", true);
        const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
        let buffer = "";
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buffer += value.replace(/\r\n?/g, "\n");
          let end;
          while ((end = buffer.indexOf("\n\n")) >= 0) {
            handle(buffer.slice(0, end));
            buffer = buffer.slice(end + 2);
          }
        }
      } catch {
        if (controller.signal.aborted) return;
      }
      state("reconnecting", false);
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  })();
}
