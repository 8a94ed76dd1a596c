export { isType, LedgerFeed, type LedgerFeedOptions, type LedgerRecord } from "./ledger-feed.ts";
