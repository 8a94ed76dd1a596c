/**
 * A module beside the running code, started as its own node process in the form the running code has:
 * from the TypeScript sources (tests, tsx) `node --import tsx <dir>/<name>.ts`; from the build
 * (`npm run build`) `node <dir>/<name>.js`, with no TypeScript loader.
 */
import { fileURLToPath } from "node:url";

/** The node arguments that run the module `name` (a relative path without extension) beside `fromUrl` (an `import.meta.url`). */
export function siblingNodeArgs(fromUrl: string, name: string): string[] {
  const fromSource = new URL(fromUrl).pathname.endsWith(".ts");
  const path = fileURLToPath(new URL(`${name}${fromSource ? ".ts" : ".js"}`, fromUrl));
  return fromSource ? ["--import", "tsx", path] : [path];
}

/**
 * The export condition under which the workspaces resolve to their TypeScript sources (`src/`); without
 * it they resolve to their build (`dist/`). Tests and tsx scripts run with it, compiled programs without.
 */
export const sourceCondition = "development";

function optionTokens(nodeOptions: string | undefined): string[] {
  return (nodeOptions ?? "").split(/\s+/).filter((t) => t !== "");
}

/** NODE_OPTIONS plus the source condition: a node process started with it imports the other workspaces' src/. */
export function withSourceCondition(nodeOptions: string | undefined): string {
  const tokens = optionTokens(withoutSourceCondition(nodeOptions));
  return [...tokens, `--conditions=${sourceCondition}`].join(" ");
}

/** NODE_OPTIONS without the source condition (undefined when nothing is left): a compiled program must import dist/. */
export function withoutSourceCondition(nodeOptions: string | undefined): string | undefined {
  const tokens = optionTokens(nodeOptions);
  const kept: string[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i] as string;
    if (t === `--conditions=${sourceCondition}` || t === `-C=${sourceCondition}`) continue;
    if ((t === "--conditions" || t === "-C") && tokens[i + 1] === sourceCondition) {
      i++;
      continue;
    }
    kept.push(t);
  }
  return kept.length > 0 ? kept.join(" ") : undefined;
}

/** `env` for a compiled program: its NODE_OPTIONS without the source condition (left out when nothing else is in it). */
export function compiledEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: nodeOptions, ...rest } = env;
  const kept = withoutSourceCondition(nodeOptions);
  return kept === undefined ? rest : { ...rest, NODE_OPTIONS: kept };
}
