/**
 * Module customization hooks (`module.register`) for the cold start's telemetry-off row
 * (`suites/coldStart.ts`): with `data.replace` set, every import of the telemetry's front
 * (`dist/src/lib/telemetry/index.js`) resolves to `noTelemetry.js` instead, the service as built
 * without telemetry; without it, every import resolves as usual. Both sides of the row register these
 * same hooks, so that their cost (a loader thread) is the same on both and only the module differs.
 */
let replace = false;
const TELEMETRY = new URL('../../src/lib/telemetry/index.js', import.meta.url).href;
const STAND_IN = new URL('./noTelemetry.js', import.meta.url).href;

export function initialize(data: { replace: boolean }): void {
  replace = data.replace;
}

type NextResolve = (specifier: string, context: { parentURL?: string }) => Promise<{ url: string; shortCircuit?: boolean }>;

export async function resolve(specifier: string, context: { parentURL?: string }, nextResolve: NextResolve): Promise<{ url: string; shortCircuit?: boolean }> {
  const resolved = await nextResolve(specifier, context);
  return replace && resolved.url === TELEMETRY ? { url: STAND_IN, shortCircuit: true } : resolved;
}
