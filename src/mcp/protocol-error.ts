import { ErrorCode } from "./sdk.ts";

/**
 * A deliberate JSON-RPC error (protocol misuse: unknown tool, bad arguments). The SDK sends `code`,
 * `message` and `data` as they are; unlike the SDK's McpError the message carries no
 * "MCP error -32602:" prefix, which clients add themselves. `data.code` is the knot-tools code.
 */
export class ProtocolError extends Error {
  override readonly name = "ProtocolError";
  readonly code: number;
  readonly data: { readonly code: string; readonly where?: string };

  constructor(code: number, message: string, data: { code: string; where?: string | undefined }) {
    super(message);
    this.code = code;
    this.data = data.where === undefined ? { code: data.code } : { code: data.code, where: data.where };
  }
}

export function invalidParams(message: string, code: string, where?: string): ProtocolError {
  return new ProtocolError(ErrorCode.InvalidParams, message, { code, where });
}
