/** The one seam for TOML: smol-toml, with errors turned into coded, located KnotErrors. */
import { parse, TomlError } from "smol-toml";
import { KnotError } from "./errors.ts";

export function parseToml(text: string, where: string): Record<string, unknown> {
  try {
    return parse(text) as Record<string, unknown>;
  } catch (error) {
    if (error instanceof TomlError) {
      throw new KnotError("CONFIG_INVALID", `${where} line ${error.line}: ${error.message.split("\n")[0]}`, { where, line: error.line, column: error.column });
    }
    throw error;
  }
}
