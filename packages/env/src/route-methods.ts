/**
 * Which methods each path of a service takes, for answering a method it does not take with 405 and an
 * `Allow` header (RFC 9110 §15.5.5) instead of 404. Patterns are written the way fastify writes routes:
 * `:name` is one non-empty path segment, a trailing `*` is the rest of the path.
 */
export interface RouteMethods {
  /** Records that `pattern` takes `methods` (GET implies HEAD). */
  add(pattern: string, methods: string | readonly string[]): void;
  /** The `Allow` value for a request path (query string ignored), or undefined when no route has this path. */
  allowFor(url: string): string | undefined;
}

const escape = (text: string): string => text.replace(/[.+?^${}()|[\]\\]/g, "\\$&");

function matcher(pattern: string): RegExp {
  const body = pattern
    .split("/")
    .map((segment) => (segment.startsWith(":") ? "[^/]+" : segment === "*" ? ".*" : escape(segment)))
    .join("/");
  return new RegExp(`^${body}$`);
}

export function routeMethods(): RouteMethods {
  const routes = new Map<string, { match: RegExp; methods: Set<string> }>();
  return {
    add(pattern, methods) {
      const route = routes.get(pattern) ?? { match: matcher(pattern), methods: new Set<string>() };
      for (const method of [methods].flat()) route.methods.add(method.toUpperCase());
      if (route.methods.has("GET")) route.methods.add("HEAD");
      routes.set(pattern, route);
    },
    allowFor(url) {
      const path = url.split("?", 1)[0] ?? "";
      const allowed = new Set<string>();
      for (const route of routes.values()) if (route.match.test(path)) for (const m of route.methods) allowed.add(m);
      return allowed.size === 0 ? undefined : [...allowed].sort().join(", ");
    },
  };
}
