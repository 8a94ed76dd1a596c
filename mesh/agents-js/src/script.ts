/**
 * The scripted behaviour of the mesh workers, shared by every agent so that probes, the orchestrator and
 * tests can steer them with plain text. Directives are words in the first text part of a message:
 *
 * - `need-input`: the task stops in INPUT_REQUIRED (only on workers that support it) until a follow-up
 *   message to the same task supplies the input; then it completes with an artifact.
 * - `chunks=N` (1–20): the artifact is streamed as N `artifactUpdate` chunks (`append` from the second
 *   on, `lastChunk` on the last one).
 * - `delay-ms=N` (0–60000): the worker waits N ms, while WORKING, before it produces the artifact.
 * - `as=TYPE/SUBTYPE`: the worker tries to answer in that media type instead of its configured one (a
 *   guarded worker is refused when its card does not advertise it, and answers in its card's mode).
 *
 * Anything else is the question; a message without directives completes directly.
 */

export interface Script {
  needInput: boolean;
  chunks: number;
  delayMs: number;
  /** A media type the message asks the answer in, or null for the worker's configured one. */
  asMediaType: string | null;
  /** The text with the directives removed, trimmed. */
  question: string;
}

export const maxChunks = 20;
export const maxDelayMs = 60_000;

const directive =
  /(?:^|\s)(need-input|chunks=(\d{1,6})|delay-ms=(\d{1,9})|as=([a-z0-9][a-z0-9.+-]{0,62}\/[a-z0-9][a-z0-9.+-]{0,62}))(?=\s|$)/g;

export function parseScript(text: string): Script {
  const script: Script = { needInput: false, chunks: 1, delayMs: 0, asMediaType: null, question: "" };
  const question = text.replace(
    directive,
    (_match, word: string, chunks: string | undefined, delay: string | undefined, as: string | undefined) => {
      if (word === "need-input") script.needInput = true;
      else if (chunks !== undefined) script.chunks = Math.min(maxChunks, Math.max(1, Number(chunks)));
      else if (delay !== undefined) script.delayMs = Math.min(maxDelayMs, Number(delay));
      else if (as !== undefined) script.asMediaType = as;
      return " ";
    },
  );
  script.question = question.replace(/\s+/g, " ").trim();
  return script;
}

/** Splits `text` into `n` non-empty pieces (fewer when the text is shorter than n). */
export function splitIntoChunks(text: string, n: number): string[] {
  const count = Math.max(1, Math.min(n, text.length));
  const size = Math.ceil(text.length / count);
  const chunks: string[] = [];
  for (let i = 0; i < text.length; i += size) chunks.push(text.slice(i, i + size));
  return chunks.length === 0 ? [""] : chunks;
}
