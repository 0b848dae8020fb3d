/**
 * `[[tool.knot.events]]`: the event types a plugin may `emit` (from `knot:events`), each with a
 * description and an optional permission a sink's owner must hold to receive it. Types are
 * qualified at load like permissions: `order_placed` in plugin `shop` is `plugin.shop.order_placed`.
 */
import { EVENT_TYPE, EVENT_TYPE_ID } from "../../../sandbox/guest/names.ts";
import type { EventDecl } from "../manifest-types.ts";
import { checkKnownKeys, describeValue, readString, readTableArray } from "./checks.ts";
import type { TomlTable } from "./checks.ts";
import { readPermissionRef, type DeclarationContext } from "./declaration-context.ts";
import type { KeyPath } from "./key-path.ts";

const EVENT_KEYS = ["type", "description", "permission"];

export function checkEvents(knot: TomlTable, path: KeyPath, context: DeclarationContext): EventDecl[] {
  const events: EventDecl[] = [];
  for (const element of readTableArray(knot, "events", path, context.report)) {
    checkKnownKeys(element.table, EVENT_KEYS, element.path, context.report);
    const type = readString(element.table, "type", element.path, context.report, { required: true, pattern: EVENT_TYPE_ID, patternName: "an event type of lowercase letters, digits and _ ([a-z][a-z0-9_]*)" });
    const description = readString(element.table, "description", element.path, context.report, { required: true, nonEmpty: true });
    const permission = readPermissionRef(element.table, element.path, context);
    if (type === undefined || description === undefined || permission === undefined) continue;
    const qualified = `plugin.${context.pluginName}.${type}`;
    if (!EVENT_TYPE.test(qualified)) {
      // A sink subscribes by the qualified type, which the subscription rule bounds.
      context.report([...element.path, "type"], `makes the event type "${qualified.slice(0, 40)}…" ${qualified.length} characters long; with "plugin.${context.pluginName}." it may be at most 128`);
      continue;
    }
    if (events.some((e) => e.type === qualified)) {
      context.report([...element.path, "type"], `repeats ${describeValue(type)}`);
      continue;
    }
    events.push({ type: qualified, description, permission, line: context.lineOf(element.path) });
  }
  return events;
}
