/**
 * A topic's offsets (low watermark and last stable offset per partition: kafkajs's admin asks as a
 * read_committed reader would) that survive a leader change. kafkajs's
 * admin gives up at once on NOT_LEADER_OR_FOLLOWER and keeps its cached metadata for five minutes, so a
 * broker that died leaves every later look-up failing; a metadata request (which kafkajs always sends
 * afresh) before each retry moves it to the new leaders.
 */
import type { Admin } from "kafkajs";

export interface PartitionOffsets {
  partition: number;
  offset: string;
  high: string;
  low: string;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function endOffsets(
  admin: Admin,
  topic: string,
  deadline = Date.now() + 30_000,
): Promise<PartitionOffsets[]> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await admin.fetchTopicOffsets(topic);
    } catch (error) {
      // kafkajs also fails with a TypeError ("high.pop(...) is undefined") when a ListOffsets answer lacks
      // the topic, as after brokers restarted in turn: a metadata refresh and a retry answer it.
      const retriable = (error as { retriable?: boolean }).retriable === true || error instanceof TypeError;
      if (!retriable || Date.now() > deadline) throw error;
      await admin.fetchTopicMetadata({ topics: [topic] }).catch(() => undefined);
      await sleep(Math.min(1_000, 100 * 2 ** attempt));
    }
  }
}
