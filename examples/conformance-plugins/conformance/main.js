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
// ///
import { elicit, getString, log, progress, returnContent, returnError, returnString, sample } from "knot:tool";

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
