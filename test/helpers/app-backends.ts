/**
 * Runs an app-level suite once per storage backend: the embedded SQLite file startApp makes, and a
 * fresh schema of a throwaway PostgreSQL cluster (test/helpers/postgres.ts), started once per file.
 * Call once per file, at the top level.
 */
import { before, describe } from "node:test";
import { sharedPostgres } from "./postgres.ts";

export type AppBackend = { readonly name: "sqlite" | "postgres"; database(): Promise<{ database?: string }> };

export function forEachAppBackend(suite: (backend: AppBackend) => void): void {
  const cluster = sharedPostgres();
  describe("sqlite", () => suite({ name: "sqlite", database: async () => ({}) }));
  describe("postgres", () => {
    before(() => cluster());
    suite({ name: "postgres", database: async () => ({ database: await (await cluster()).createSchema() }) });
  });
}
