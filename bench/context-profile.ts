/**
 * `node bench/context-profile.ts [contexts]`: the floor of a sandboxed run (issue 13). In one warm
 * isolate, on this thread: the CPU a fresh V8 context costs, and what putting the guest runtime in
 * it costs (its bindings, the bundle's evaluation, the wrapper modules every run links: knot:tool
 * and the runner), the two things every run's context needs before any of the tool's code.
 */
import { guestBundle } from "../sandbox/host/guest-bundle.ts";
import { installBindings, instantiateGuest, loadGuestCode } from "../sandbox/worker/guest-code.ts";
import { createIsolate } from "../sandbox/worker/ivm.ts";

const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

export function profileContext(contexts: number): string[] {
  const code = loadGuestCode(guestBundle());
  const isolate = createIsolate({ memoryMb: 128, onCatastrophicError: () => undefined });
  const spent = { context: 0, guest: 0 };
  const warmUp = 100;
  try {
    for (let i = 0; i < contexts + warmUp; i += 1) {
      const started = cpuMs();
      const context = isolate.createContextSync();
      const made = cpuMs();
      installBindings(context, () => undefined, () => undefined);
      const guest = instantiateGuest(isolate, context, code);
      const ready = cpuMs();
      guest.release();
      context.release();
      if (i < warmUp) continue;
      spent.context += made - started;
      spent.guest += ready - made;
    }
  } finally {
    isolate.dispose();
  }
  const us = (ms: number) => `${((ms / contexts) * 1000).toFixed(0)} µs`;
  return [`a run's context, CPU in a warm isolate (${contexts} contexts): fresh context ${us(spent.context)}, guest runtime in it ${us(spent.guest)}`];
}

if (import.meta.main) for (const line of profileContext(Number(process.argv[2] ?? 2000))) console.log(line);
