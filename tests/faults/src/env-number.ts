/** A positive number from the environment, for the suite's scripts (soak, scale-out, pipeline): `fallback` when unset or blank. */
export function positiveNumber(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === "") return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name}=${JSON.stringify(raw)}: expected a positive number`);
  return n;
}
