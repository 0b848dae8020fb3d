/**
 * The product's own event types a sink may subscribe to (plugins declare more, see event-types.ts).
 * No imports: the web UI bundles this file too, to name them in a sink's Events tab.
 */
export const BUILTIN_EVENT_TYPES: readonly string[] = Object.freeze(["tool.saved", "tool.deleted", "tool.run", "grant.changed"]);
