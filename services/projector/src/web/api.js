// The projector's API as the page calls it: JSON with the read token (A2A_LEDGER_PROJECTOR_TOKENS), asked for once
// and kept for this tab only; never put in a URL.
import { h, show } from "./dom.js";

export const tokenKey = "a2a-ledger.projector.readToken";
let asking = null;

export const authHeaders = () => {
  const token = sessionStorage.getItem(tokenKey);
  return token ? { authorization: `Bearer ${token}` } : {};
};

/** Asks for the read token (one form for every caller waiting on it); resolves once one is entered. */
export function askToken(rejected) {
  if (rejected) sessionStorage.removeItem(tokenKey);
  asking ??= new Promise((resolve) => {
    const input = h("input", {
      id: "token-input",
      type: "password",
      autocomplete: "current-password",
      required: true,
      "aria-label": "Read token",
    });
    const form = h(
      "form",
      { id: "token-form", class: "card" },
      h("h1", {}, "Read token"),
      h(
        "p",
        {},
        rejected
          ? "That token was refused. Enter a read token of this projector (A2A_LEDGER_PROJECTOR_TOKENS)."
          : "This projector needs a read token (A2A_LEDGER_PROJECTOR_TOKENS). It is kept for this tab only.",
      ),
      input,
      h("button", { type: "submit" }, "Continue"),
    );
    form.addEventListener("submit", (e) => {
      e.preventDefault();
      const token = input.value.trim();
      if (token === "") return;
      sessionStorage.setItem(tokenKey, token);
      asking = null;
      resolve();
    });
    show(form);
    input.focus();
  });
  return asking;
}

/** fetch with the read token; a 401 asks for a token and tries again. */
export async function authorized(path, accept) {
  for (;;) {
    const hadToken = sessionStorage.getItem(tokenKey) !== null;
    const response = await fetch(path, { headers: { accept, ...authHeaders() } });
    if (response.status !== 401) return response;
    await askToken(hadToken);
  }
}

export async function api(path) {
  const response = await authorized(path, "application/json");
  const body = await response.json().catch(() => ({}));
  if (!response.ok)
    throw Object.assign(new Error(body.error || `HTTP ${response.status}`), {
      code: body.code,
      status: response.status,
    });
  return body;
}
