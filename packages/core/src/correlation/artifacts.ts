/**
 * Artifacts as R3 compares them. Servers generate artifact ids per task and names are optional, so a
 * retry's artifacts almost never share an id or a name with the first attempt's. "The same output" of
 * two attempts is therefore: the same name when both artifacts are named, otherwise the same position
 * (the n-th distinct artifact each attempt emitted). Streamed chunks of one artifactId are one artifact,
 * judged once complete: at its last chunk, when it arrived whole, or when its task ended.
 */
import type { ArtifactEmitted } from "@a2a-ledger/schemas";
import { essence } from "../media-type.ts";
import type { ArtifactRecord } from "./state.ts";

let lastArtifact: Pick<ArtifactEmitted, "parts"> | undefined;
let lastMediaTypes: readonly string[] = [];

/**
 * Media types of an artifact (chunk), normalized (essence, lower-case), sorted, without duplicates.
 * The rules and the fold of one step ask for the same observation's in turn: the last answer is kept.
 * Never mutate the returned array.
 */
export function artifactMediaTypes(a: Pick<ArtifactEmitted, "parts">): readonly string[] {
  if (a === lastArtifact) return lastMediaTypes;
  let modes: string[];
  if (a.parts.length === 1) {
    const m = (a.parts[0] as ArtifactEmitted["parts"][number]).mediaType;
    modes = m === null ? [] : [essence(m)];
  } else {
    const set = new Set<string>();
    for (const p of a.parts) if (p.mediaType !== null) set.add(essence(p.mediaType));
    modes = [...set].sort();
  }
  lastArtifact = a;
  lastMediaTypes = modes;
  return modes;
}

export interface OutputIdentity {
  name: string | null;
  ordinal: number;
}

export function sameOutput(a: OutputIdentity, b: OutputIdentity): boolean {
  return a.name !== null && b.name !== null ? a.name === b.name : a.ordinal === b.ordinal;
}

/** How a violation names the output: its name when both sides are named, else its position (#n). */
export function outputLabel(a: OutputIdentity, b: OutputIdentity): string {
  return a.name !== null && b.name !== null ? a.name : `#${a.ordinal}`;
}

export const sameMediaTypes = (a: readonly string[], b: readonly string[]): boolean =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** The artifact as it will be once `obs` is folded in (what R3 judges), without changing `existing`. */
export function artifactAfter(
  existing: ArtifactRecord | undefined,
  obs: ArtifactEmitted,
  ordinalIfNew: number,
  taskEnded: boolean,
): OutputIdentity & { mediaTypes: readonly string[]; complete: boolean; wasComplete: boolean } {
  const modes = artifactMediaTypes(obs);
  const complete = taskEnded || obs.lastChunk !== false || (existing?.complete ?? false);
  if (existing === undefined)
    return { name: obs.name, ordinal: ordinalIfNew, mediaTypes: modes, complete, wasComplete: false };
  const merged = modes.every((m) => existing.mediaTypes.includes(m))
    ? existing.mediaTypes
    : [...new Set([...existing.mediaTypes, ...modes])].sort();
  return {
    name: existing.name ?? obs.name,
    ordinal: existing.ordinal,
    mediaTypes: merged,
    complete,
    wasComplete: existing.complete,
  };
}
