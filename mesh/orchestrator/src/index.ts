/** @a2a-ledger/orchestrator — a reference orchestrator of the live mesh, and the ledger feed it reads. */
export { LedgerFeed, isType, type LedgerFeedOptions, type LedgerRecord } from "./ledger-feed.ts";
export { ProxiedWorker, stateName, type MeshWorker, type Call } from "./through-proxy.ts";
export { runStory, correlationsOf, type StoryConfig, type StoryReport, type Chaos } from "./story.ts";
export { parseStoryConfig, readStoryConfig, StoryConfigError } from "./story-config.ts";
export { chaosOverIpc, serveChaos, isChaosRequest, type ChaosAction, type ChaosRequest, type ChaosReply } from "./chaos.ts";
