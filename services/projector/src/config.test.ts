import { describeRenamedSettings } from "@a2a-ledger/env/testing";
import { loadConfig } from "./config.ts";

describeRenamedSettings({ service: "PROJECTOR", load: loadConfig });
