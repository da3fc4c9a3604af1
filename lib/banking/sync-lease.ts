/** The sync lease moved into the sync engine's stages: lib/banking/sync/lease.ts. */
export * from "./sync/lease";
