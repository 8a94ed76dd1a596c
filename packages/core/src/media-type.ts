/** Media type comparison: case-insensitive, parameters ignored, `type/*` and `*\/*` ranges on the allowed side. */
const essences = new Map<string, string>();

export function essence(mediaType: string): string {
  let e = essences.get(mediaType);
  if (e === undefined) {
    const semi = mediaType.indexOf(";");
    e = (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
    // Media types in a mesh are few; the cache stays small, and is bounded for hostile input.
    if (essences.size < 4096) essences.set(mediaType, e);
  }
  return e;
}

export function mediaTypeAllowed(observed: string, allowed: readonly string[]): boolean {
  const o = essence(observed);
  const slash = o.indexOf("/");
  const major = slash === -1 ? o.length : slash;
  for (const a of allowed) {
    const e = essence(a);
    if (e === o || e === "*/*" || e === "*") return true;
    // a `type/*` range of the observed major type
    if (e.length === major + 2 && e.endsWith("/*") && o.startsWith(e.slice(0, major))) return true;
  }
  return false;
}
