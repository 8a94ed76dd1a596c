/** Media type comparison: case-insensitive, parameters ignored, `type/*` and `*\/*` ranges on the allowed side. */
export function essence(mediaType: string): string {
  const semi = mediaType.indexOf(";");
  return (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
}

export function mediaTypeAllowed(observed: string, allowed: readonly string[]): boolean {
  const o = essence(observed);
  const slash = o.indexOf("/");
  const major = slash === -1 ? o : o.slice(0, slash);
  for (const a of allowed) {
    const e = essence(a);
    if (e === o || e === "*/*" || e === "*" || e === `${major}/*`) return true;
  }
  return false;
}
