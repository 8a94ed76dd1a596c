/** Runs the CLI in-process with captured output. */
import { main } from "../src/main.ts";

export async function run(
  args: string[],
  cwd = process.cwd(),
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = "";
  let stderr = "";
  const code = await main(args, { stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), cwd });
  return { code, stdout, stderr };
}
