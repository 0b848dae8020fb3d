/** Kept for the audit writer thread's import (audit-writer.ts); records are made in ../sql/records.ts. */
export { deepFreeze } from "../sql/records.ts";
