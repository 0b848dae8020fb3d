/** Guards unsaved work: navigation and Sign out ask first (router's leave guard), and so does the browser on unload. */
import { useEffect, useRef } from "preact/hooks";
import { setLeaveGuard } from "../lib/router.ts";

/** `onLeave` runs when the user confirms leaving with unsaved changes (they chose to drop them). */
export function useLeaveGuard(dirty: boolean, onLeave: () => void): void {
  const latest = useRef({ dirty, onLeave });
  latest.current = { dirty, onLeave };
  useEffect(() => {
    const beforeUnload = (e: BeforeUnloadEvent) => {
      if (latest.current.dirty) e.preventDefault();
    };
    window.addEventListener("beforeunload", beforeUnload);
    // Once the user said leave, do not ask again: Sign out also navigates, before this view is gone.
    let left = false;
    setLeaveGuard(() => {
      if (left || !latest.current.dirty) return true;
      if (!window.confirm("You have unsaved changes. Leave without saving?")) return false;
      latest.current.onLeave();
      left = true;
      return true;
    });
    return () => {
      window.removeEventListener("beforeunload", beforeUnload);
      setLeaveGuard(null);
    };
  }, []);
}
