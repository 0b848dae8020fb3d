/** `knot:identity` for plugin code: the caller of the current handler call, authoritative. */
import { KnotError } from "../../errors.ts";
import { createIdentity, type Identity } from "../../identity/identity.ts";
import { currentContext } from "../call-context.ts";

export function user(): Identity {
  const context = currentContext();
  if (!context) throw new KnotError("BAD_REQUEST", "knot:identity is only available while a handler call is running");
  return createIdentity(context.principal);
}
