/**
 * The soak's flatness judgement on samples made in the test (no cluster): the rehearsal's own samples,
 * where the load sped up for two samples just before it ended, are flat; a rise of live correlations
 * that holds for the last third is not, nor a changelog or a reconciler's memory that peaks higher.
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

  it("finds a changelog or a reconciler's memory whose peak grows not flat", () => {
    const changelog = burstAtTheEnd.map((s) => (s.atS === 171 ? { ...s, changelogRecords: 4_000 } : s));
    expect(flatness(changelog, 45)).toMatchObject({ flat: false });
    const memory = burstAtTheEnd.map((s) => (s.atS === 180 ? sample(180, 349, 2_500, 230) : s));
    expect(flatness(memory, 45)).toMatchObject({ flat: false });
  });
});
