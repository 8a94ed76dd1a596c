/**
 * Timestamps at the edges: epoch milliseconds, or an RFC 3339 / ISO-8601 date-time with an explicit
 * offset (a time without offset is ambiguous and refused). Parsed by hand: the core reads no clock and
 * does not use Date.
 */
const iso = /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(?:[.,](\d{1,9}))?([Zz]|[+-]\d{2}(?::?\d{2})?)$/;

/**
 * What parseIsoTimestamp reads, as a regular expression for JSON Schema and OpenAPI documents: an
 * ISO-8601 / RFC 3339 date-time with an explicit offset, real calendar dates (leap years included),
 * `T`, `t` or a space between date and time, seconds 00–59, an optional fraction of up to 9 digits
 * after `.` or `,`, and `Z`, `z` or ±hh[[:]mm] with hh ≤ 23. A local time without offset is refused. ECMA-262 and Python `re` read it alike ([0-9], not \d).
 */
export const isoDateTimePattern: string = [
  "^(?:",
  "[0-9]{4}-(?:(?:0[1-9]|1[0-2])-(?:0[1-9]|1[0-9]|2[0-8])|(?:0[13-9]|1[0-2])-(?:29|30)|(?:0[13578]|1[02])-31)",
  "|(?:[0-9]{2}(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29",
  ")[Tt ](?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:[.,][0-9]{1,9})?",
  "(?:[Zz]|[+-](?:[01][0-9]|2[0-3])(?::?[0-5][0-9])?)$",
].join("");

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

const daysInMonth = (y: number, m: number): number =>
  m === 2 ? ((y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28) : [4, 6, 9, 11].includes(m) ? 30 : 31;

/** Epoch milliseconds of an ISO-8601 date-time with offset, or null when it is not one. */
export function parseIsoTimestamp(text: string): number | null {
  const m = iso.exec(text);
  if (m === null) return null;
  const [y, mo, d, h, mi, s] = [m[1], m[2], m[3], m[4], m[5], m[6]].map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return null;
  const ms = m[7] === undefined ? 0 : Math.floor(Number(`0.${m[7]}`) * 1000 + 1e-6);
  let offsetMinutes = 0;
  const zone = m[8] as string;
  if (zone !== "Z" && zone !== "z") {
    const sign = zone.startsWith("-") ? -1 : 1;
    const digits = zone.slice(1).replace(":", "");
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMinutes = sign * (oh * 60 + om);
  }
  return ((daysFromCivil(y, mo, d) * 24 + h) * 60 + mi) * 60_000 + s * 1000 + ms - offsetMinutes * 60_000;
}

/** Epoch ms from either accepted form; a message when neither. */
export function toEpochMillis(value: unknown): { ok: true; value: number } | { ok: false; message: string } {
  if (typeof value === "number") {
    return Number.isSafeInteger(value)
      ? { ok: true, value }
      : { ok: false, message: `expected integer epoch milliseconds, got ${value}` };
  }
  if (typeof value === "string") {
    const ms = parseIsoTimestamp(value);
    return ms === null
      ? {
          ok: false,
          message: `expected an ISO-8601 date-time with offset (e.g. 2025-01-31T12:00:00Z), got ${JSON.stringify(value)}`,
        }
      : { ok: true, value: ms };
  }
  return { ok: false, message: "expected epoch milliseconds or an ISO-8601 date-time" };
}
