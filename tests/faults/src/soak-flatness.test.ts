/**
 * The soak's flatness judgement on samples made in the test (no cluster): the rehearsals' own samples,
 * where the load sped up for two samples just before it ended, or the log cleaner ran late, are flat, as
 * is a changelog that rose with the load's rate; a rise of live correlations or of the changelog per live
 * correlation that holds for the last third is not, nor a changelog that keeps what was written to it,
 * nor a reconciler's memory that peaks higher.
 */
import { describe, expect, it } from "vitest";
import { flatness, type SoakSample } from "./soak.ts";

const sample = (atS: number, live: number, changelog = 2_500, rss = 140, written = 100 * atS + 10_000): SoakSample => ({
  atS,
  rssMiB: { r1: rss, r2: rss - 5 },
  liveCorrelations: live,
  changelogRecords: changelog,
  changelogWritten: written,
  changelogBytes: 0,
  lag: 0,
  acknowledged: 0,
});

/** Live correlations of a three-minute soak that failed on peaks: 349 against 229, two samples as the load sped up. */
const burstAtTheEnd = [
  [11, 124],
  [20, 170],
  [30, 175],
  [41, 189],
  [51, 207],
  [61, 201],
  [71, 219],
  [80, 254],
  [90, 241],
  [100, 229],
  [110, 224],
  [120, 230],
  [136, 228],
  [140, 103],
  [150, 211],
  [160, 232],
  [171, 338],
  [180, 349],
  [191, 181],
].map(([at, live]) => sample(at as number, live as number));

describe("the soak's flatness", () => {
  it("takes a burst of live correlations in two samples for the load's rate, not for growth", () => {
    expect(flatness(burstAtTheEnd, 45)).toMatchObject({ flat: true });
  });

  it("finds live correlations that rise for the whole last third not flat", () => {
    const rising = burstAtTheEnd.map((s) => (s.atS >= 136 ? { ...s, liveCorrelations: s.liveCorrelations + 250 } : s));
    expect(flatness(rising, 45)).toMatchObject({ flat: false });
  });

  it("takes a changelog that the log cleaner compacted a sample or two late for its schedule, not for growth", () => {
    // A rehearsal's samples (t, live, changelog records, the larger reconciler's RSS).
    const cleanerLate = [
      [11, 110, 750, 135],
      [21, 128, 840, 136],
      [31, 123, 1004, 138],
      [41, 122, 1377, 138],
      [51, 127, 1063, 141],
      [61, 147, 1730, 135],
      [70, 148, 796, 134],
      [81, 105, 781, 137],
      [91, 103, 1271, 137],
      [100, 159, 1255, 138],
      [111, 190, 1193, 140],
      [136, 288, 1324, 132],
      [140, 32, 1225, 135],
      [151, 132, 1596, 137],
      [161, 144, 1428, 141],
      [171, 219, 2426, 130],
      [181, 273, 1865, 115],
      [191, 219, 1131, 125],
      [257, 105, 417, 138],
    ].map(([at, live, changelog, rss]) => sample(at as number, live as number, changelog, (rss as number) + 5));
    expect(flatness(cleanerLate, 45)).toMatchObject({ flat: true });
    const growing = cleanerLate.map((s) => (s.atS >= 161 ? { ...s, changelogRecords: s.changelogRecords + 2_000 } : s));
    expect(flatness(growing, 45)).toMatchObject({ flat: false, detail: { changelogPerLive: { middle: 7.89 } } });
  });

  it("takes a changelog that rose with the load's rate for the rate, not for growth", () => {
    // A rehearsal's samples (t, live, changelog records): live correlations 173 → 227 by their medians as
    // the load sped up, the records level. Then the same run with the last third's records 1.6× higher, as
    // a CI run had it (990 → 1,590 records while live went 167 → 202): the records' medians 1,260 → 1,920
    // (1.52×), per live correlation 7.42 → 9.31.
    const rehearsal = [
      [51, 144, 1022],
      [61, 147, 909],
      [71, 189, 891],
      [81, 153, 1264],
      [92, 165, 1201],
      [101, 173, 1283],
      [111, 157, 1221],
      [136, 180, 1122],
      [141, 112, 1260],
      [151, 235, 1497],
      [161, 227, 1200],
      [171, 251, 1460],
      [181, 255, 1803],
      [192, 201, 959],
      [259, 81, 515],
    ].map(([at, live, changelog]) => sample(at as number, live as number, changelog));
    expect(flatness(rehearsal, 45)).toMatchObject({ flat: true });
    const faster = rehearsal.map((s) =>
      s.atS >= 151 ? { ...s, changelogRecords: Math.round(s.changelogRecords * 1.6) } : s,
    );
    const judged = flatness(faster, 45);
    expect(judged).toMatchObject({ flat: true });
    expect(judged.detail.changelogPerLive?.last).toBeGreaterThan(judged.detail.changelogPerLive?.middle ?? Infinity);
  });

  it("finds a changelog that keeps what was written to it not flat, however level it looks between the thirds", () => {
    // Records kept alike in both thirds (a load that slowed as the log grew), but never compacted.
    const kept = burstAtTheEnd.map((s) => ({ ...s, changelogRecords: 2_500, changelogWritten: 2_600 }));
    expect(flatness(kept, 45)).toMatchObject({ flat: false, detail: { changelogKept: { last: 0.96 } } });
  });

  it("finds a changelog that grows for the last third, or a reconciler's memory whose peak grows, not flat", () => {
    const changelog = burstAtTheEnd.map((s) => (s.atS >= 150 ? { ...s, changelogRecords: 4_000 } : s));
    expect(flatness(changelog, 45)).toMatchObject({ flat: false });
    const memory = burstAtTheEnd.map((s) => (s.atS === 180 ? sample(180, 349, 2_500, 230) : s));
    expect(flatness(memory, 45)).toMatchObject({ flat: false });
  });
});
