/** @a2a-ledger/mesh-agents — the JS workers of the live mesh (W1, W2) on @a2a-js/sdk. */
export {
  startJsAgent,
  createJsAgentApp,
  defaultWorkerConfig,
  type JsAgentOptions,
  type RunningJsAgent,
} from "./js-agent.ts";
export { jsWorkerCard, meshSkillId, jsonRpcPath, restPath, type JsWorkerKind } from "./cards.ts";
export { parseScript, type Script } from "./script.ts";
export { parseWorkerConfig, readWorkerConfig, WorkerConfigError, type WorkerConfig } from "./worker-config.ts";
export type { OutputMediaType } from "./scripted-executor.ts";
export {
  spawnJsAgent,
  spawnPyAgent,
  spawnListening,
  agentPyDir,
  agentPyPython,
  type AgentProcess,
  type SpawnOptions,
} from "./processes.ts";
export { clientFor, userMessage, type MessageOptions, type Transport } from "./client.ts";
