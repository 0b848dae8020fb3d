/**
 * A batch of audit rows written only in part (a full disk part-way through an audit journal
 * write, see sqlite/audit-journal.ts): the first `done` rows are as durable as a commit; the rest
 * are not written and may be offered again.
 */
export class PartialBatchError extends Error {
  readonly done: number;
  constructor(done: number, cause: unknown) {
    super(`only ${done} rows of the batch were written`, { cause });
    this.done = done;
  }
}
