/** Entry point of the dispatcher service: its process (service-process.ts), exiting with its code. */
import { runDispatcherProcess } from "./service-process.ts";

process.exitCode = await runDispatcherProcess();
// Clients that linger (kafkajs timers) must not keep a stopped service alive.
setTimeout(() => process.exit(process.exitCode ?? 0), 1_000).unref();
