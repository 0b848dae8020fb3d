// A user lib (kind "lib"): other user tools import it as lib:text-utils.
export function shout(text) {
  return String(text).toUpperCase() + "!";
}

export function wordCount(text) {
  return String(text).split(/\s+/).filter(Boolean).length;
}
