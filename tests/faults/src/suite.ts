/**
 * Shared by the scenario files: the cluster for the whole file, acquired before and released after.
 */
import { afterAll, beforeAll } from "vitest";
import { acquireCluster, type ClusterUnderTest, releaseCluster } from "./cluster.ts";

export function clusterSuite(): { readonly cluster: ClusterUnderTest } {
  const holder: { cluster?: ClusterUnderTest } = {};
  beforeAll(async () => {
    holder.cluster = await acquireCluster((l) => console.log(`[faults] ${l}`));
  });
  afterAll(async () => {
    if (holder.cluster !== undefined) await releaseCluster(holder.cluster);
  });
  return {
    get cluster(): ClusterUnderTest {
      if (holder.cluster === undefined) throw new Error("the cluster is not acquired yet");
      return holder.cluster;
    },
  };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
