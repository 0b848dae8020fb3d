// A user tool in TypeScript that reuses lib:text-utils.
import { shout } from "lib:text-utils";
import { getString, returnString } from "knot:tool";

const text: string = getString("text", "hello");
returnString(shout(text));
