/**
 * `knot:tool` — arguments and results of a user tool.
 *   import { getInt, returnObject } from "knot:tool";
 * A return* reports the result and ends the run (it throws a private signal the runner knows;
 * if user code catches it and returns again, the last result wins). Results are serialised here,
 * in the guest, with the intrinsic JSON.stringify; only the text crosses to the worker.
 */
import { copyContent } from "./content.ts";
import * as I from "./intrinsics.ts";
import { argumentGetters as args } from "./args.ts";
import { EMIT_KINDS, GUEST_CAPS, GUEST_INPUT_PARAM, GUEST_QUESTIONS_KEY } from "./bindings.ts";
import { checkResultSize, codedError, emit, fail, param, q, returnFailure, returnResult, sendLog } from "./runtime.ts";
import { errorMessage, logLevelProblem, logText, notSerialisable, progressProblem, RETURN_STRING_REFUSED, returnedJson, returnedText } from "./output-rules.ts";
import { encodeToon } from "./toon.ts";

export const { getString, getInt, getFloat, getBool, getList, getStringList, getIntList, getFloatList, getBoolList } = args;

function serialise(value: unknown, what: string): string {
  const text = returnedJson(value);
  return text ?? fail("TOOL_ERROR", notSerialisable(what));
}

export function returnString(text: unknown): never {
  const value = returnedText(text);
  if (value === null) throw codedError("TOOL_ERROR", RETURN_STRING_REFUSED);
  checkResultSize(value.length);
  return returnResult(`{"kind":"text","text":${q(value)}}`, value.length);
}

export function returnObject(value: unknown): never {
  const json = serialise(value, "returnObject");
  return returnResult(`{"kind":"json","value":${json}}`, json.length);
}

export function returnToon(value: unknown): never {
  let text: string;
  try {
    text = encodeToon(value);
  } catch {
    return fail("TOOL_ERROR", "returnToon: the value is not JSON-serialisable");
  }
  return returnResult(`{"kind":"toon","text":${q(text)}}`, text.length);
}

export function returnContent(blocks: unknown): never {
  const json = serialise(copyContent(blocks), "returnContent");
  return returnResult(`{"kind":"content","content":${json}}`, json.length);
}

export function returnError(message: unknown): never {
  return returnFailure("TOOL_ERROR", errorMessage(message));
}

let progressSent = 0;
let progressMessageCharsLeft: number = GUEST_CAPS.progressMessageTotalChars;

export function progress(done: unknown, total?: unknown, message?: unknown): void {
  const problem = progressProblem(done, total, message);
  if (problem !== null) throw codedError("TOOL_ERROR", problem);
  if (progressSent >= GUEST_CAPS.progressEvents) return;
  progressSent += 1;
  let payload = `{"done":${I.JSONStringify(done)}`;
  if (total !== undefined) payload += `,"total":${I.JSONStringify(total)}`;
  if (message !== undefined && progressMessageCharsLeft > 0) {
    const text = I.StringSlice(message, 0, progressMessageCharsLeft < GUEST_CAPS.progressMessageChars ? progressMessageCharsLeft : GUEST_CAPS.progressMessageChars);
    progressMessageCharsLeft -= text.length;
    payload += `,"message":${q(text)}`;
  }
  emit(EMIT_KINDS.progress, `${payload}}`);
}

export function log(level: unknown, message: unknown): void {
  const problem = logLevelProblem(level);
  if (problem !== null) throw codedError("TOOL_ERROR", problem);
  sendLog("log", level as string, logText(message));
}

// ---- input required: ask the person, the client's model or the client's roots (MCP calls only).
// The run ends as "input required"; the host runs the tool again, from the start, with the
// answers in the reserved argument below (so code before an ask runs once per round).
const INPUT_METHODS = ["elicitation/create", "sampling/createMessage", "roots/list"];

interface InputData { answers: Record<string, unknown>; capabilities: unknown[] }

function inputData(): InputData {
  const raw = param(GUEST_INPUT_PARAM) as InputData | undefined;
  if (typeof raw !== "object" || raw === null) throw new I.Error("ask() and friends are only available during an MCP tool call");
  return raw;
}

/** Answers to several questions: `{ key: { method, params } }`; ends the run until they are all answered. */
export async function input(requests: Record<string, { method: string; params?: Record<string, unknown> }>): Promise<Record<string, unknown>> {
  const { answers } = inputData();
  const found: Record<string, unknown> = {};
  const missing: Record<string, unknown> = {};
  let missed = false;
  for (const key of I.ObjectKeys(requests)) {
    const request = requests[key];
    if (typeof request !== "object" || request === null || !I.ArrayIncludes(INPUT_METHODS, request.method)) {
      throw new I.TypeError(`input: request "${key}" needs a method (${I.ArrayJoin(INPUT_METHODS, ", ")})`);
    }
    if (I.ObjectHasOwn(answers, key) && answers[key] !== undefined && answers[key] !== null) found[key] = answers[key];
    else {
      missing[key] = { method: request.method, params: request.params ?? {} };
      missed = true;
    }
  }
  if (missed) {
    const json = serialise({ [GUEST_QUESTIONS_KEY]: missing }, "input");
    return returnResult(`{"kind":"json","value":${json}}`, json.length);
  }
  return found;
}

/** A key for an unnamed question: the same question asks (and is answered) once per run. */
function keyOf(prefix: string, request: unknown): string {
  const text = serialise(request, prefix);
  let hash = 5381;
  for (let i = 0; i < text.length; i++) hash = ((hash * 33) ^ I.StringCharCodeAt(text, i)) >>> 0;
  return `${prefix}-${I.NumberToString(hash, 36)}`;
}

/** Asks the person (MCP elicitation): `{ action: "accept" | "decline" | "cancel", content? }`. */
export async function elicit(message: string, requestedSchema: Record<string, unknown>): Promise<{ action: string; content?: Record<string, unknown> }> {
  const request = { method: "elicitation/create", params: { message: I.String(message), requestedSchema } };
  const key = keyOf("elicit", request);
  return (await input({ [key]: request }))[key] as { action: string; content?: Record<string, unknown> };
}

/** Asks the person a question: the accepted content, or null when they declined or cancelled. */
export async function ask(message: string, requestedSchema: Record<string, unknown>): Promise<Record<string, unknown> | null> {
  const answer = await elicit(message, requestedSchema);
  return answer.action === "accept" ? answer.content ?? {} : null;
}

/** Asks the client's model (MCP sampling): the CreateMessageResult. */
export async function sample(params: Record<string, unknown>): Promise<unknown> {
  const request = { method: "sampling/createMessage", params };
  const key = keyOf("sample", request);
  return (await input({ [key]: request }))[key];
}

/** The client's roots (MCP roots/list). */
export async function listRoots(): Promise<unknown[]> {
  const answer = (await input({ roots: { method: "roots/list", params: {} } })).roots as { roots?: unknown[] };
  return answer.roots ?? [];
}

/** Whether the MCP client declared it can answer this kind of question. */
export function clientSupports(capability: string): boolean {
  const raw = param(GUEST_INPUT_PARAM) as InputData | undefined;
  return typeof raw === "object" && raw !== null && I.ArrayIsArray(raw.capabilities) && I.ArrayIncludes(raw.capabilities, capability);
}
