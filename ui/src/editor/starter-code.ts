/** What a new tool or lib starts with: a working example that shows the knot:* modules. */
import type { Parameter } from "../lib/api.ts";

export function starterParameters(kind: "tool" | "lib" | "sink"): Parameter[] {
  return kind === "tool" ? [{ name: "name", type: "string", description: "Who to greet.", required: false }] : [];
}

export function starterCode(kind: "tool" | "lib" | "sink"): string {
  if (kind === "sink") {
    return `// A sink: runs as you, in the sandbox, for each event it subscribes to (Events tab).
// The default export gets the event itself: {id, type, at, data}.
export default async function (event) {
  const { id, type, at, data } = event;
  console.log("event", type, id, at, JSON.stringify(data));
}
`;
  }
  if (kind === "lib") {
    return `// A lib: other tools import it as lib:<name>.
export function shout(text) {
  return String(text).toUpperCase() + "!";
}
`;
  }
  return `import { getString } from "knot:tool";
import { user } from "knot:identity";

// The default export is the tool: it gets the request and returns the result.
export default async function (request) {
  const name = getString("name", "world");
  console.log("greeting", name);
  return { greeting: \`Hello, \${name}!\`, from: user().name };
}
`;
}
