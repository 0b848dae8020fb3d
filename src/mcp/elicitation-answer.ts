/**
 * Whether an elicitation answer's `content` is what the question's `requestedSchema` asked for.
 * The schema is the tool's (a sandboxed user tool's, so untrusted), and MCP restricts it to a flat
 * object of primitive fields (string, number, integer, boolean, and enum or multi-select lists):
 * that subset is checked here by hand, with no regular expressions and nothing compiled, rather
 * than handing a user's schema to a general validator (its `pattern`s would run on the server's
 * thread, and each new schema would be compiled and kept). What the subset does not describe
 * (`format`, unknown keywords) is not checked.
 */
type Spec = Record<string, unknown>;

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);
const codePoints = (text: string): number => {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
};

/** The constants a field may take (`enum`, or `oneOf`/`anyOf` of `{ const }`), or undefined when it lists none. */
function allowedValues(spec: Spec): readonly unknown[] | undefined {
  if (Array.isArray(spec.enum)) return spec.enum;
  const options = Array.isArray(spec.oneOf) ? spec.oneOf : Array.isArray(spec.anyOf) ? spec.anyOf : undefined;
  return options?.filter(isObject).map((option) => option.const);
}

function fieldProblem(name: string, spec: Spec, value: unknown): string | null {
  const allowed = allowedValues(spec);
  switch (spec.type) {
    case "string": {
      if (typeof value !== "string") return `"${name}" must be a string`;
      const length = codePoints(value);
      if (typeof spec.minLength === "number" && length < spec.minLength) return `"${name}" must be at least ${spec.minLength} characters`;
      if (typeof spec.maxLength === "number" && length > spec.maxLength) return `"${name}" must be at most ${spec.maxLength} characters`;
      break;
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value) || (spec.type === "integer" && !Number.isInteger(value))) return `"${name}" must be ${spec.type === "integer" ? "an integer" : "a number"}`;
      if (typeof spec.minimum === "number" && value < spec.minimum) return `"${name}" must be at least ${spec.minimum}`;
      if (typeof spec.maximum === "number" && value > spec.maximum) return `"${name}" must be at most ${spec.maximum}`;
      break;
    }
    case "boolean":
      if (typeof value !== "boolean") return `"${name}" must be true or false`;
      break;
    case "array": {
      if (!Array.isArray(value)) return `"${name}" must be a list`;
      if (typeof spec.minItems === "number" && value.length < spec.minItems) return `"${name}" needs at least ${spec.minItems} choices`;
      if (typeof spec.maxItems === "number" && value.length > spec.maxItems) return `"${name}" takes at most ${spec.maxItems} choices`;
      // A set: the options and the answer are both the client's and the tool's to make long (linear, not their product).
      const items = isObject(spec.items) ? allowedValues(spec.items) : undefined;
      const options = items === undefined ? undefined : new Set(items);
      return options !== undefined && value.some((item) => !options.has(item)) ? `"${name}" may only hold the listed options` : null;
    }
    default:
      return null; // a type outside MCP's subset: not checked
  }
  return allowed !== undefined && !allowed.includes(value) ? `"${name}" must be one of the listed options` : null; // one value: one pass
}

/** Why `content` does not answer a question asked with `schema`, or null when it does. */
export function elicitationAnswerProblem(schema: unknown, content: unknown): string | null {
  if (content !== undefined && !isObject(content)) return "its content must be an object";
  if (!isObject(schema) || !isObject(schema.properties)) return null;
  const properties = schema.properties;
  const given = content ?? {};
  for (const name of Object.keys(given)) {
    if (!Object.hasOwn(properties, name)) return `"${name.slice(0, 64)}" was not asked for`;
    const spec = properties[name];
    const problem = isObject(spec) ? fieldProblem(name, spec, given[name]) : null;
    if (problem !== null) return problem;
  }
  const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === "string") : [];
  const missing = required.find((name) => !Object.hasOwn(given, name));
  return missing === undefined ? null : `"${missing}" is required`;
}
