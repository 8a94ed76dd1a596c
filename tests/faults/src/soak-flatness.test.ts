/**
 * The soak's flatness judgement on samples made in the test (no cluster): the rehearsals' own samples,
 * where the load sped up for two samples just before it ended, or the log cleaner ran late, are flat; a
 * rise of live correlations or of the changelog that holds for the last third is not, nor a reconciler's
 * memory that peaks higher.
 */
import { describe, expect, it } from "vitest";
import { flatness, type SoakSample } from "./soak.ts";

const sample = (atS: number, live: number, changelog = 2_500, rss = 140): SoakSample => ({
  atS,
  rssMiB: { r1: rss, r2: rss - 5 },
  liveCorrelations: live,
  changelogRecords: changelog,
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
    expect(flatness(growing, 45)).toMatchObject({ flat: false, detail: { changelogRecords: { middle: 1255 } } });
  });

  it("finds a changelog that grows for the last third, or a reconciler's memory whose peak grows, not flat", () => {
    const changelog = burstAtTheEnd.map((s) => (s.atS >= 150 ? { ...s, changelogRecords: 4_000 } : s));
    expect(flatness(changelog, 45)).toMatchObject({ flat: false });
    const memory = burstAtTheEnd.map((s) => (s.atS === 180 ? sample(180, 349, 2_500, 230) : s));
    expect(flatness(memory, 45)).toMatchObject({ flat: false });
  });
});
