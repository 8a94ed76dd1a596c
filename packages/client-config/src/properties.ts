/**
 * Java `.properties` text, as Kafka's tools and Confluent's clients read `client.properties`: one
 * `key=value` (or `key: value`, or `key value`) a line, `#` and `!` comments, a trailing backslash
 * continues the line, and `\t \n \r \f \uXXXX \\` escapes. The last of a repeated key wins.
 */
export function parseProperties(text: string): Map<string, string> {
  const result = new Map<string, string>();
  const lines = text.replace(/^\uFEFF/, "").split(/\r\n|\r|\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] as string).replace(/^[ \t\f]+/, "");
    if (line === "" || line.startsWith("#") || line.startsWith("!")) continue;
    // An odd number of trailing backslashes continues the logical line on the next one.
    while (/(^|[^\\])(\\\\)*\\$/.test(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + (lines[++i] as string).replace(/^[ \t\f]+/, "");
    }
    const { key, rest } = splitKey(line);
    result.set(unescape(key), unescape(rest));
  }
  return result;
}

function splitKey(line: string): { key: string; rest: string } {
  let i = 0;
  while (i < line.length) {
    const c = line[i] as string;
    if (c === "\\") {
      i += 2;
      continue;
    }
    if (c === "=" || c === ":" || c === " " || c === "\t" || c === "\f") break;
    i++;
  }
  const key = line.slice(0, i);
  let rest = line.slice(i).replace(/^[ \t\f]+/, "");
  if (rest.startsWith("=") || rest.startsWith(":")) rest = rest.slice(1).replace(/^[ \t\f]+/, "");
  return { key, rest };
}

const escapes: Record<string, string> = { t: "\t", n: "\n", r: "\r", f: "\f" };

function unescape(value: string): string {
  return value.replace(/\\(u[0-9A-Fa-f]{4}|.)/g, (_, e: string) =>
    e.length === 5 ? String.fromCharCode(Number.parseInt(e.slice(1), 16)) : (escapes[e] ?? e),
  );
}
