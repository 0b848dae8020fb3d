// A second tool reusing lib:text-utils; identity answers who is asking (the caller, not the owner).
import { shout, wordCount } from "lib:text-utils";
import { user } from "knot:identity";

export default function main(request) {
  const text = String(request.params.text ?? "");
  return { words: wordCount(text), loud: shout(text), askedBy: user().name };
}
