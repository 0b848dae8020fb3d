// /// script
// requires-runtime = ">=0.1"
//
// [tool.knot]
// version = "1.0.0"
// description = "The MCP conformance suite's server fixture tools, written with the public plugin API. Off unless its folder is in the plugins path."
//
// [[tool.knot.mcp_tools]]
// name = "test_simple_text"
// description = "Returns a simple text response."
// handler = "simple_text"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_image_content"
// description = "Returns an image content block (a 1x1 red PNG)."
// handler = "image_content"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_audio_content"
// description = "Returns an audio content block (a short silent WAV)."
// handler = "audio_content"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_embedded_resource"
// description = "Returns an embedded text resource."
// handler = "embedded_resource"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_multiple_content_types"
// description = "Returns text, image and resource blocks together."
// handler = "multiple_content_types"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_tool_with_logging"
// description = "Sends three info log messages while it runs."
// handler = "tool_with_logging"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_tool_with_progress"
// description = "Reports progress 0, 50 and 100 of 100 while it runs."
// handler = "tool_with_progress"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_error_handling"
// description = "Always fails, to test tool error reporting."
// handler = "error_handling"
// read_only = true
//
// [[tool.knot.mcp_tools]]
// name = "test_sampling"
// description = "Asks the client's model to answer a prompt (MCP sampling)."
// handler = "sampling"
//
// [[tool.knot.mcp_tools.parameters]]
// name = "prompt"
// type = "string"
// description = "The prompt to send to the model."
// required = true
//
// [[tool.knot.mcp_tools]]
// name = "test_elicitation"
// description = "Asks the user for a username and email (MCP elicitation)."
// handler = "elicitation"
//
// [[tool.knot.mcp_tools.parameters]]
// name = "message"
// type = "string"
// description = "The message to show the user."
// required = true
//
// [[tool.knot.mcp_tools]]
// name = "test_elicitation_sep1034_defaults"
// description = "Elicitation with default values for every primitive type (SEP-1034)."
// handler = "elicitation_sep1034_defaults"
//
// [[tool.knot.mcp_tools]]
// name = "test_elicitation_sep1330_enums"
// description = "Elicitation with every enum schema variant (SEP-1330)."
// handler = "elicitation_sep1330_enums"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_elicitation"
// description = "Asks the user's name (input required, one elicitation), then greets them."
// handler = "ir_elicitation"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_sampling"
// description = "Asks the client's model a question (input required, one sampling request)."
// handler = "ir_sampling"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_list_roots"
// description = "Asks the client for its roots (input required, roots/list)."
// handler = "ir_list_roots"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_request_state"
// description = "Asks for a confirmation; the answer comes back with the sealed request state."
// handler = "ir_request_state"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_multiple_inputs"
// description = "Asks three things at once: an elicitation, a sampling request and the roots."
// handler = "ir_multiple_inputs"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_multi_round"
// description = "Asks two questions, one round each."
// handler = "ir_multi_round"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_tampered_state"
// description = "Asks a question; a changed request state is refused."
// handler = "ir_tampered_state"
//
// [[tool.knot.mcp_tools]]
// name = "test_input_required_result_capabilities"
// description = "Asks only what the client declared it can answer."
// handler = "ir_capabilities"
//
// [[tool.knot.mcp_tools]]
// name = "test_missing_capability"
// description = "Needs sampling: refused (-32021) when the client did not declare it."
// handler = "missing_capability"
//
// [[tool.knot.mcp_tools]]
// name = "test_streaming_elicitation"
// description = "Asks the user something (input required, never a server-to-client request)."
// handler = "streaming_elicitation"
//
// [[tool.knot.mcp_tools]]
// name = "test_logging_tool"
// description = "Writes three info log lines (sent only when the client asked for a log level)."
// handler = "logging_tool"
//
// [[tool.knot.mcp_tools]]
// name = "json_schema_2020_12_tool"
// description = "Declares a JSON Schema 2020-12 input schema ($defs, $anchor, allOf/anyOf, if/then/else) that clients receive unchanged."
// handler = "json_schema_2020_12"
// read_only = true
// input_schema = '''
// {
//   "$schema": "https://json-schema.org/draft/2020-12/schema",
//   "type": "object",
//   "$defs": {
//     "address": { "$anchor": "addressDef", "type": "object", "properties": { "street": { "type": "string" }, "city": { "type": "string" } } }
//   },
//   "properties": {
//     "name": { "type": "string" },
//     "address": { "$ref": "#/$defs/address" },
//     "contactMethod": { "type": "string", "enum": ["phone", "email"] },
//     "phone": { "type": "string" },
//     "email": { "type": "string" }
//   },
//   "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
//   "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
//   "then": { "required": ["phone"] },
//   "else": { "required": ["email"] },
//   "additionalProperties": false
// }
// '''
//
// [[tool.knot.mcp_tools]]
// name = "test_custom_header"
// description = "Echoes its region, which 2026-07-28 clients also send in the Mcp-Param-Region header."
// handler = "custom_header"
// read_only = true
//
// [tool.knot.mcp_tools.input_schema]
// type = "object"
// required = ["region"]
// properties.region = { type = "string", description = "Where to look.", "x-mcp-header" = "Region" }
// ///
import { clientSupports, elicit, getString, input, log, progress, returnContent, returnError, returnString, sample } from "knot:tool";

const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/** A valid 8 kHz, 8-bit mono WAV holding 8 samples of silence. */
function silentWav() {
  const samples = 8;
  const wav = Buffer.alloc(44 + samples, 0x80);
  wav.write("RIFF", 0, "ascii");
  wav.writeUInt32LE(36 + samples, 4);
  wav.write("WAVEfmt ", 8, "ascii");
  wav.writeUInt32LE(16, 16);
  wav.writeUInt16LE(1, 20);
  wav.writeUInt16LE(1, 22);
  wav.writeUInt32LE(8000, 24);
  wav.writeUInt32LE(8000, 28);
  wav.writeUInt16LE(1, 32);
  wav.writeUInt16LE(8, 34);
  wav.write("data", 36, "ascii");
  wav.writeUInt32LE(samples, 40);
  return wav.toString("base64");
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export function simple_text() {
  returnString("This is a simple text response for testing.");
}

export function image_content() {
  returnContent([{ type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" }]);
}

export function audio_content() {
  returnContent([{ type: "audio", data: silentWav(), mimeType: "audio/wav" }]);
}

export function embedded_resource() {
  returnContent([{ type: "resource", resource: { uri: "test://embedded-resource", mimeType: "text/plain", text: "This is an embedded resource content." } }]);
}

export function multiple_content_types() {
  returnContent([
    { type: "text", text: "Multiple content types test:" },
    { type: "image", data: RED_PIXEL_PNG, mimeType: "image/png" },
    { type: "resource", resource: { uri: "test://mixed-content-resource", mimeType: "application/json", text: JSON.stringify({ test: "data", value: 123 }) } },
  ]);
}

export async function tool_with_logging() {
  log("info", "Tool execution started");
  await pause(50);
  log("info", "Tool processing data");
  await pause(50);
  log("info", "Tool execution completed");
  returnString("Tool with logging executed successfully");
}

export async function tool_with_progress() {
  progress(0, 100);
  await pause(50);
  progress(50, 100);
  await pause(50);
  progress(100, 100);
  returnString("Tool with progress executed successfully");
}

export function error_handling() {
  returnError("This tool intentionally returns an error for testing");
}

export async function sampling() {
  const answer = await sample({ messages: [{ role: "user", content: { type: "text", text: getString("prompt") } }], maxTokens: 100 });
  const content = Array.isArray(answer.content) ? answer.content[0] : answer.content;
  returnString(`LLM response: ${content?.type === "text" ? content.text : JSON.stringify(content)}`);
}

export async function elicitation() {
  const answer = await elicit(getString("message"), {
    type: "object",
    properties: {
      username: { type: "string", description: "User's response" },
      email: { type: "string", description: "User's email address" },
    },
    required: ["username", "email"],
  });
  returnString(`User response: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

export async function elicitation_sep1034_defaults() {
  const answer = await elicit("Please review and update the form fields with defaults", {
    type: "object",
    properties: {
      name: { type: "string", description: "User name", default: "John Doe" },
      age: { type: "integer", description: "User age", default: 30 },
      score: { type: "number", description: "User score", default: 95.5 },
      status: { type: "string", description: "User status", enum: ["active", "inactive", "pending"], default: "active" },
      verified: { type: "boolean", description: "Verification status", default: true },
    },
  });
  returnString(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

export async function elicitation_sep1330_enums() {
  const answer = await elicit("Please pick from each kind of list", {
    type: "object",
    properties: {
      untitledSingle: { type: "string", description: "Untitled single-select", enum: ["option1", "option2", "option3"] },
      titledSingle: {
        type: "string", description: "Titled single-select",
        oneOf: [{ const: "value1", title: "First Option" }, { const: "value2", title: "Second Option" }, { const: "value3", title: "Third Option" }],
      },
      legacyEnum: { type: "string", description: "Legacy titled enum", enum: ["opt1", "opt2", "opt3"], enumNames: ["Option One", "Option Two", "Option Three"] },
      untitledMulti: { type: "array", description: "Untitled multi-select", items: { type: "string", enum: ["option1", "option2", "option3"] } },
      titledMulti: {
        type: "array", description: "Titled multi-select",
        items: { anyOf: [{ const: "value1", title: "First Choice" }, { const: "value2", title: "Second Choice" }, { const: "value3", title: "Third Choice" }] },
      },
    },
  });
  returnString(`Elicitation completed: action=${answer.action}, content=${JSON.stringify(answer.content ?? {})}`);
}

// ---- 2026-07-28 input required (SEP-2322): each ask ends the round; the handler runs again with the answers.

const NAME_SCHEMA = { type: "object", properties: { name: { type: "string" } }, required: ["name"] };
const askName = (message = "What is your name?") => ({ method: "elicitation/create", params: { message, requestedSchema: NAME_SCHEMA } });
const askModel = (text, maxTokens) => ({ method: "sampling/createMessage", params: { messages: [{ role: "user", content: { type: "text", text } }], maxTokens } });
const ROOTS = { method: "roots/list", params: {} };
const textOf = (sampled) => {
  const content = Array.isArray(sampled?.content) ? sampled.content[0] : sampled?.content;
  return content?.type === "text" ? content.text : JSON.stringify(content ?? null);
};

export async function ir_elicitation() {
  const { user_name } = await input({ user_name: askName() });
  returnString(`Hello, ${user_name.content?.name ?? "stranger"}!`);
}

export async function ir_sampling() {
  const { capital_question } = await input({ capital_question: askModel("What is the capital of France?", 100) });
  returnString(`The model answered: ${textOf(capital_question)}`);
}

export async function ir_list_roots() {
  const { client_roots } = await input({ client_roots: ROOTS });
  returnString(`Roots: ${client_roots.roots.map((root) => root.uri).join(", ")}`);
}

export async function ir_request_state() {
  const requestedSchema = { type: "object", properties: { ok: { type: "boolean" } }, required: ["ok"] };
  const { confirm } = await input({ confirm: { method: "elicitation/create", params: { message: "Please confirm", requestedSchema } } });
  returnString(`state-ok: confirmed=${confirm.content?.ok === true}`);
}

export async function ir_multiple_inputs() {
  const answers = await input({ user_name: askName(), greeting: askModel("Generate a greeting", 50), client_roots: ROOTS });
  returnString(`Name: ${answers.user_name.content?.name}; greeting: ${textOf(answers.greeting)}; roots: ${answers.client_roots.roots.length}`);
}

export async function ir_multi_round() {
  const { step1 } = await input({ step1: askName("Step 1: What is your name?") });
  const colorSchema = { type: "object", properties: { color: { type: "string" } }, required: ["color"] };
  const { step2 } = await input({ step2: { method: "elicitation/create", params: { message: "Step 2: What is your favorite color?", requestedSchema: colorSchema } } });
  returnString(`${step1.content?.name} likes ${step2.content?.color}`);
}

export async function ir_tampered_state() {
  const { user_name } = await input({ user_name: askName() });
  returnString(`Hello, ${user_name.content?.name}!`);
}

export async function ir_capabilities() {
  const wanted = {};
  if (clientSupports("elicitation")) wanted.user_name = askName();
  if (clientSupports("sampling")) wanted.greeting = askModel("Generate a greeting", 50);
  if (clientSupports("roots")) wanted.client_roots = ROOTS;
  if (Object.keys(wanted).length === 0) returnString("The client declared no capability to ask with.");
  const answers = await input(wanted);
  returnString(`Answered: ${Object.keys(answers).sort().join(", ")}`);
}

export async function missing_capability() {
  returnString(`The model said: ${textOf(await sample(askModel("Say hi", 10).params))}`);
}

export async function streaming_elicitation() {
  const answer = await elicit("Anything to add?", { type: "object", properties: { note: { type: "string" } } });
  returnString(`action=${answer.action}`);
}

export function logging_tool() {
  log("info", "first");
  log("info", "second");
  log("info", "third");
  returnString("logged three lines");
}

export function json_schema_2020_12() {
  returnString(`Contact: ${getString("name", "(no name)")}`);
}

export function custom_header() {
  returnString(`Region: ${getString("region")}`);
}
