/** Whether the schema registry's Confluent-compatible API answers. */
export async function registryReachable(registryUrl: string, timeoutMs: number): Promise<boolean> {
  try {
    const response = await fetch(`${registryUrl}/subjects`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}
