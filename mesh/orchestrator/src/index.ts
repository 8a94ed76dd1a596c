/**
 * @a2a-ledger/orchestrator — a reference orchestrator of the live mesh. The ledger feed it reads is
 * @a2a-ledger/ledger-feed; the IPC channel over which it asks its supervisor for chaos is @a2a-ledger/env's.
 */
export { ProxiedWorker, stateName, type MeshWorker, type Call } from "./through-proxy.ts";
export { runStory, type StoryConfig, type StoryReport, type StoryTasks } from "./story.ts";
export { parseStoryConfig, readStoryConfig, StoryConfigError } from "./story-config.ts";
