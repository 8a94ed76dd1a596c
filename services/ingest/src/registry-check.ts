import { processClientConfig } from "@a2a-ledger/kafka";
import { registryRequest } from "@a2a-ledger/schemas/serde";

/** Whether the schema registry's Confluent-compatible API answers (with this process's registry credentials). */
export async function registryReachable(registryUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await registryRequest(`${registryUrl}/subjects`, { timeoutMs }, processClientConfig().registry);
    return response.status === 200;
  } catch {
    return false;
  }
}
