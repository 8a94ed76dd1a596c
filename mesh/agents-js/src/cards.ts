/**
 * The Agent Cards of the JS workers. Both declare their lifecycle contract with the ledger's card
 * extension; W1's card claims more than the worker keeps (a durable store on top of InMemoryTaskStore).
 * A card never follows the worker's configuration: after a reload W1 answers in text/plain while its
 * card still says application/json, which is the divergence the ledger exists to catch.
 */
import type { AgentCard } from "@a2a-js/sdk";
import { duplicateInterfacesForLegacy } from "@a2a-js/sdk/compat/v0_3";
import { lifecycleExtensionUri } from "@a2a-ledger/core";

export type JsWorkerKind = "w1" | "w2";

/** The one skill every mesh worker offers, so that a task can move between them. */
export const meshSkillId = "answer";

/** Where the transports are mounted under the worker's base URL. */
export const jsonRpcPath = "/a2a/jsonrpc";
export const restPath = "/a2a/rest";

interface CardTraits {
  name: string;
  description: string;
  states: string[];
  taskStore: "durable" | "ephemeral";
  outputModes: string[];
}

const traits: Record<JsWorkerKind, CardTraits> = {
  w1: {
    name: "W1",
    description: "Answers questions; asks for missing input when needed. Structured answers in application/json.",
    states: [
      "TASK_STATE_SUBMITTED",
      "TASK_STATE_WORKING",
      "TASK_STATE_INPUT_REQUIRED",
      "TASK_STATE_COMPLETED",
      "TASK_STATE_CANCELED",
      "TASK_STATE_FAILED",
    ],
    taskStore: "durable",
    outputModes: ["application/json"],
  },
  w2: {
    name: "W2",
    description: "Answers questions in one go, in plain text.",
    states: ["TASK_STATE_SUBMITTED", "TASK_STATE_WORKING", "TASK_STATE_COMPLETED"],
    taskStore: "ephemeral",
    outputModes: ["text/plain"],
  },
};

/**
 * The card of a JS worker reachable at `baseUrl` (scheme, host and port, no trailing slash); with
 * `grpcTarget` (`host:port`) it also names its gRPC interface (v1.0 only: the v0.3 gRPC service is
 * another one).
 */
export function jsWorkerCard(kind: JsWorkerKind, baseUrl: string, grpcTarget?: string): AgentCard {
  const t = traits[kind];
  const grpcInterfaces =
    grpcTarget === undefined ? [] : [{ url: grpcTarget, protocolBinding: "GRPC", tenant: "", protocolVersion: "1.0" }];
  return {
    name: t.name,
    description: t.description,
    version: "1.0.0",
    // v1.0 interfaces, mirrored as v0.3 ones so that v0.3 clients (no A2A-Version header) are served too.
    supportedInterfaces: duplicateInterfacesForLegacy(
      [
        { url: `${baseUrl}${jsonRpcPath}`, protocolBinding: "JSONRPC", tenant: "", protocolVersion: "1.0" },
        { url: `${baseUrl}${restPath}`, protocolBinding: "HTTP+JSON", tenant: "", protocolVersion: "1.0" },
        ...grpcInterfaces,
      ],
      ["JSONRPC", "HTTP+JSON"],
    ),
    provider: { organization: "Northwind Agents", url: "https://northwind.example" },
    capabilities: {
      streaming: true,
      pushNotifications: false,
      extendedAgentCard: false,
      extensions: [
        {
          uri: lifecycleExtensionUri,
          description: "Task lifecycle contract: the states this worker emits and how it keeps tasks.",
          required: false,
          params: { states: t.states, taskStore: t.taskStore },
        },
      ],
    },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: t.outputModes,
    skills: [
      {
        id: meshSkillId,
        name: "Answer",
        description: "Answers a question.",
        tags: ["qa"],
        examples: ["what is a ledger?", "need-input draft a report"],
        inputModes: ["text/plain"],
        outputModes: t.outputModes,
        securityRequirements: [],
      },
    ],
    signatures: [],
  };
}
