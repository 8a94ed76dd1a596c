/**
 * A name pattern as the operator writes it in a setting: `*` is any run of characters (newlines too),
 * everything else is literal (`proxy:W1-*`, `acme-*`). Ingest's token scopes and the card keys'
 * worker patterns read patterns this one way.
 */
export function starPattern(pattern: string): (name: string) => boolean {
  if (pattern === "*") return () => true;
  const regex = new RegExp(
    `^${pattern
      .split("*")
      .map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .join(".*")}$`,
    "s",
  );
  return (name) => regex.test(name);
}
