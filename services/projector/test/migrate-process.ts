/** `node --import tsx test/migrate-process.ts <sqlite file | postgres url>`: migrates that store in its own process and prints the active generation. */
import { migrate } from "../src/store/generations.ts";
import { openStore } from "../src/store/open-store.ts";

const location = process.argv[2] ?? "";
const store = openStore(
  location.startsWith("postgres") ? { kind: "postgres", url: location } : { kind: "sqlite", path: location },
);
process.stdout.write(`${await migrate(store)}\n`);
await store.close();
