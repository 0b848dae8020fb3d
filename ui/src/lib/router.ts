/** Hash routes (`#/tools/<id>`): the server only serves `/`, so every view is one page load. */
import { useEffect, useState } from "preact/hooks";

export function currentRoute(): string[] {
  const hash = window.location.hash.replace(/^#\/?/, "");
  return hash === "" ? [] : hash.split("/").map((part) => {
    try {
      return decodeURIComponent(part);
    } catch {
      return part;
    }
  });
}

export function href(...parts: string[]): string {
  return `#/${parts.map(encodeURIComponent).join("/")}`;
}

export function navigate(...parts: string[]): void {
  window.location.hash = href(...parts);
}

/** Hooks the page away from unsaved work: views register a guard that may veto navigation. */
let leaveGuard: (() => boolean) | null = null;
export function setLeaveGuard(guard: (() => boolean) | null): void {
  leaveGuard = guard;
}

/** Asks the current view's guard (if any) whether the user may leave it; false: stay. */
export function mayLeave(): boolean {
  return !leaveGuard || leaveGuard();
}

export function useRoute(): string[] {
  const [route, setRoute] = useState(currentRoute);
  useEffect(() => {
    let last = window.location.hash;
    const onChange = () => {
      if (!mayLeave()) {
        history.replaceState(null, "", last);
        return;
      }
      last = window.location.hash;
      setRoute(currentRoute());
    };
    window.addEventListener("hashchange", onChange);
    return () => window.removeEventListener("hashchange", onChange);
  }, []);
  return route;
}
