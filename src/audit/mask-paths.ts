/**
 * Masking of nested arguments. A mark names a path into the arguments: `password` (a whole
 * argument), `contact.phone` (a member of an object argument), `contacts[].phone` (that member in
 * every element of a list), `tokens[]` (every element). Parameter names are identifiers, so `.` and
 * `[]` never occur inside one.
 *
 * Why fail closed: when a value does not have the shape the declaration promised (a string where an
 * object was declared), the mark cannot be placed precisely, so the whole value under it is masked.
 */

/** A path's steps: member names, and "[]" for every element of a list. */
export function maskPathSteps(path: string): string[] {
  return path.split(/(?=\[\])|\./).flatMap((part) => (part.startsWith("[]") ? ["[]", ...(part.length > 2 ? [part.slice(2)] : [])] : [part])).filter((s) => s !== "");
}

interface MaskTree {
  /** Mask the value here whole. */
  whole: boolean;
  children: Map<string, MaskTree>;
}

function treeOf(paths: Iterable<readonly string[]>): MaskTree {
  const root: MaskTree = { whole: false, children: new Map() };
  for (const steps of paths) {
    let node = root;
    for (const step of steps) {
      let child = node.children.get(step);
      if (!child) node.children.set(step, (child = { whole: false, children: new Map() }));
      node = child;
    }
    node.whole = true;
  }
  return root;
}

/** A copy of `args` with the values at `paths` replaced by `mask(value)`. */
export function maskAtPaths(args: Readonly<Record<string, unknown>>, paths: Iterable<readonly string[]>, mask: (value: unknown) => string): Record<string, unknown> {
  return maskMembers(args, treeOf(paths), mask);
}

function maskMembers(value: Readonly<Record<string, unknown>>, tree: MaskTree, mask: (value: unknown) => string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, member] of Object.entries(value)) {
    const node = tree.children.get(name);
    // defineProperty: a member named `__proto__` stays an own member of the copy.
    Object.defineProperty(out, name, { value: node ? maskValue(member, node, mask) : member, enumerable: true, writable: true, configurable: true });
  }
  return out;
}

function maskValue(value: unknown, node: MaskTree, mask: (value: unknown) => string): unknown {
  if (node.whole) return mask(value);
  const each = node.children.get("[]");
  if (each) {
    if (!Array.isArray(value)) return mask(value);
    return value.map((element) => maskValue(element, each, mask));
  }
  if (value === null || typeof value !== "object" || Array.isArray(value)) return mask(value);
  return maskMembers(value as Record<string, unknown>, node, mask);
}
