/**
 * Input required (MCP multi-round-trip requests): a running tool asks the person (elicitation), the
 * client's model (sampling) or the client's roots, and the call ends as an input-required result;
 * the client answers and calls again, and the tool runs again from the start with the answers
 * supplied (re-execution: code before an `ask()` runs once per round, so it should not have side
 * effects a second run would repeat). In 2025-11-25 the SDK turns the same result into real
 * server-to-client requests and runs the handler again, so tools are written once for both.
 *
 * Threat: a client forging or replaying answers (to questions never asked, for another tool or
 * user). Guarantee: answers of earlier rounds travel in `requestState`, sealed by the SDK's HMAC
 * codec under a server key shared by every instance, and name the user and tool they belong to;
 * this round's answers are taken only for the keys the previous round asked. A state that does
 * not verify, or belongs to another user, tool or set of arguments (a confirmation given for one
 * call replayed for another), is refused (-32602) before the tool runs.
 */
import { createHash } from "node:crypto";
import { GUEST_QUESTIONS_KEY } from "../../sandbox/guest/bindings.ts";
import { KnotError } from "../errors.ts";
import { canonicalJson } from "../store/audit-hash.ts";
import { jsonDepth, MAX_JSON_DEPTH } from "../validation/json-depth.ts";
import { elicitationAnswerProblem } from "./elicitation-answer.ts";
import { ProtocolError } from "./protocol-error.ts";
import { ErrorCode, type ClientCapabilities } from "./sdk.ts";

export type InputMethod = "elicitation/create" | "sampling/createMessage" | "roots/list";

export interface InputRequest {
  readonly method: InputMethod;
  readonly params: Record<string, unknown>;
}

/** Thrown through the tool's code when it needs answers it does not have yet (ends this round). */
export class InputNeeded extends KnotError {
  readonly requests: Readonly<Record<string, InputRequest>>;
  constructor(requests: Record<string, InputRequest>) {
    super("INPUT_REQUIRED", `the tool needs input from the client: ${Object.keys(requests).join(", ")}`);
    this.requests = requests;
  }
}

export function isInputNeeded(value: unknown): value is InputNeeded {
  return value instanceof InputNeeded;
}

/** What `requestState` carries between rounds (sealed; visible to the client, not changeable). */
export interface SealedRound {
  readonly user: string;
  readonly tool: string;
  /** The call's arguments (a digest): an answer given for one set of arguments answers no other. */
  readonly args: string;
  readonly answers: Record<string, unknown>;
  /** What the round this state ended asked, by key: its answer must be a result of that kind (and, for elicitation, fit the schema). */
  readonly pending: Readonly<Record<string, AskedQuestion>>;
}

/** A question as sealed into the state: enough to check its answer when it comes. */
export interface AskedQuestion {
  readonly method: InputMethod;
  /** An elicitation's `requestedSchema`. */
  readonly schema?: unknown;
}

/** One answer's JSON, in bytes, at most: the next state carries every answer, and must still fit a request body (1 MiB). */
const MAX_ANSWER_BYTES = 64 * 1024;
/** A sealed state, at most: the client sends it back in a request body (1 MiB by default) beside the arguments and answers. */
export const MAX_STATE_CHARS = 512 * 1024;

/** The questions of a round, as sealed into its state. */
export function askedQuestions(requests: Readonly<Record<string, { method: string; params: Record<string, unknown> }>>): Record<string, AskedQuestion> {
  const asked: Record<string, AskedQuestion> = {};
  for (const [key, request] of Object.entries(requests)) {
    // Every question was checked to be of the three kinds before it was asked (take(), guestQuestions()).
    const method = request.method as InputMethod;
    const schema = method === "elicitation/create" ? request.params.requestedSchema : undefined;
    Object.defineProperty(asked, key, { value: schema === undefined ? { method } : { method, schema }, enumerable: true });
  }
  return asked;
}

/**
 * The questions a state asked, by key. A state sealed by an instance of the release before (a list
 * of keys, no kinds) is still taken while it lives (10 minutes: a rolling deploy), its answers
 * checked only to be some kind of result. Null when it is neither.
 */
function pendingOf(pending: unknown): Record<string, AskedQuestion | null> | null {
  if (Array.isArray(pending)) return Object.fromEntries(pending.filter((key): key is string => typeof key === "string").map((key) => [key, null]));
  if (!isObject(pending)) return null;
  const questions: Record<string, AskedQuestion | null> = {};
  for (const [key, question] of Object.entries(pending)) {
    Object.defineProperty(questions, key, { value: isObject(question) && Object.hasOwn(SHAPES, question.method as string) ? question : null, enumerable: true });
  }
  return questions;
}

/** What a tool reads of an answer: a declined or cancelled elicitation carries no content (it was not checked). */
function keptAnswer(question: AskedQuestion | null, answer: unknown): unknown {
  const elicited = answer as { action?: unknown };
  return question?.method === "elicitation/create" && elicited.action !== "accept" ? { action: elicited.action } : answer;
}

/** Why `answer` does not answer `question` (unknown: any kind of result will do), or null when it does. */
function answerProblem(question: AskedQuestion | null, answer: unknown): string | null {
  let json: string | undefined;
  try {
    json = JSON.stringify(answer);
  } catch {
    json = undefined;
  }
  if (json === undefined) return "it is not JSON";
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_ANSWER_BYTES) return `it is ${bytes} bytes of JSON, over the ${MAX_ANSWER_BYTES} an answer may have`;
  if (question === null) return Object.values(SHAPES).some((shape) => shape(answer)) ? null : "it is not an elicitation, sampling or roots result";
  if (!SHAPES[question.method](answer)) return `it is not a ${question.method} result`;
  if (question.method !== "elicitation/create") return null;
  const elicited = answer as { action: string; content?: unknown };
  return elicited.action === "accept" ? elicitationAnswerProblem(question.schema, elicited.content) : null;
}

/** The inputs of one round of one call, as the tool sees them. */
export interface InputRound {
  /** The answers for these keys, or throws InputNeeded naming every one still missing. */
  take(requests: Record<string, InputRequest>): Record<string, unknown>;
  /** Whether the client declared this capability (in this request's `_meta`, or at initialize). */
  supports(capability: "elicitation" | "sampling" | "roots"): boolean;
  /** A key for the n-th unnamed ask of this run (stable across re-executions of the same code). */
  nextKey(prefix: string): string;
  /** Everything answered so far (sealed into the next state). */
  readonly answers: Readonly<Record<string, unknown>>;
  /** The digest of this call's arguments (sealed into the next state). */
  readonly args: string;
}

/** A digest of a call's arguments; arguments too deep to hash are refused before any tool runs anyway. */
export function argumentsDigest(args: unknown): string {
  if (jsonDepth(args, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) return "unhashable";
  return createHash("sha256").update(canonicalJson(args ?? {})).digest("base64url");
}

const SHAPES: Record<InputMethod, (answer: unknown) => boolean> = {
  "elicitation/create": (a) => isObject(a) && ["accept", "decline", "cancel"].includes(a.action as string) && (a.content === undefined || isObject(a.content)),
  "sampling/createMessage": (a) => isObject(a) && typeof a.role === "string" && a.content !== undefined,
  "roots/list": (a) => isObject(a) && Array.isArray(a.roots),
};

/**
 * The round of one call: earlier answers from the verified state (refused when it belongs to
 * another user or tool), plus this request's responses to the keys the previous round asked.
 */
export function openRound(options: {
  user: string; tool: string; args: unknown; state: unknown; responses: Record<string, unknown> | undefined; capabilities: ClientCapabilities | undefined;
  /** Keys whose answers the SDK set aside as no result object (`droppedInputResponseKeys`). */
  dropped?: readonly string[] | undefined;
}): InputRound {
  const answers: Record<string, unknown> = {};
  // Hashed only when a state comes in or goes out: most calls never ask (~20 µs a call otherwise).
  let digest: string | undefined;
  const args = (): string => (digest ??= argumentsDigest(options.args));
  if (options.state !== undefined) {
    const state = options.state as Partial<SealedRound>;
    const pending = pendingOf(isObject(state) ? state.pending : undefined);
    if (!isObject(state) || state.user !== options.user || state.tool !== options.tool || state.args !== args() || !isObject(state.answers) || pending === null) {
      throw new ProtocolError(ErrorCode.InvalidParams, "Invalid or expired requestState", { code: "INVALID_REQUEST_STATE" });
    }
    Object.assign(answers, state.answers);
    for (const [key, question] of Object.entries(pending)) {
      // An answer that is not a result of what was asked (the SDK drops those that are not objects)
      // is the client's mistake: refused, never sealed into the next round's state.
      const given = options.responses !== undefined && Object.hasOwn(options.responses, key);
      const problem = options.dropped?.includes(key) ? "it is not an object" : given ? answerProblem(question, options.responses![key]) : null;
      if (problem !== null) throw new ProtocolError(ErrorCode.InvalidParams, `Invalid params: inputResponses[${JSON.stringify(key.slice(0, 128))}] does not answer what was asked: ${problem}`, { code: "INVALID_ARGUMENT" });
      if (given) answers[key] = keptAnswer(question, options.responses![key]);
    }
  }
  const counters = new Map<string, number>();
  const capabilities = options.capabilities ?? {};
  return {
    answers,
    get args() {
      return args();
    },
    supports: (capability) => isObject((capabilities as Record<string, unknown>)[capability]),
    nextKey(prefix) {
      const n = (counters.get(prefix) ?? 0) + 1;
      counters.set(prefix, n);
      return `${prefix}-${n}`;
    },
    take(requests) {
      const missing: Record<string, InputRequest> = {};
      const found: Record<string, unknown> = {};
      for (const [key, request] of Object.entries(requests)) {
        const answer = answers[key];
        if (answer !== undefined && SHAPES[request.method]?.(answer)) found[key] = answer;
        else missing[key] = request;
      }
      if (Object.keys(missing).length > 0) throw new InputNeeded(missing);
      return found;
    },
  };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const MAX_QUESTIONS = 16;

/** What the guest may read: the answers so far and the declared capabilities. */
export function guestInput(round: InputRound): { answers: Record<string, unknown>; capabilities: string[] } {
  return { answers: { ...round.answers }, capabilities: (["elicitation", "sampling", "roots"] as const).filter((c) => round.supports(c)) };
}

/**
 * The questions a sandboxed run ended with (a json result `{ __knot_input_required: {...} }`), or
 * null when it answered normally. Untrusted: only well-formed requests of the three kinds pass.
 */
export function guestQuestions(result: { kind: string; value?: unknown }): Record<string, InputRequest> | null {
  if (result.kind !== "json" || !isObject(result.value) || !Object.hasOwn(result.value, GUEST_QUESTIONS_KEY)) return null;
  const asked = result.value[GUEST_QUESTIONS_KEY];
  if (!isObject(asked)) throw new KnotError("TOOL_ERROR", "the tool asked for input in a malformed way");
  const entries = Object.entries(asked);
  if (entries.length === 0 || entries.length > MAX_QUESTIONS) throw new KnotError("TOOL_ERROR", `the tool must ask between 1 and ${MAX_QUESTIONS} questions at once`);
  const requests: Record<string, InputRequest> = {};
  for (const [key, request] of entries) {
    if (key.length > 128 || !isObject(request) || !Object.hasOwn(SHAPES, request.method as string) || !isObject(request.params)) {
      throw new KnotError("TOOL_ERROR", `the tool's question "${key.slice(0, 128)}" is malformed`);
    }
    Object.defineProperty(requests, key, { value: { method: request.method as InputMethod, params: request.params }, enumerable: true });
  }
  return requests;
}
