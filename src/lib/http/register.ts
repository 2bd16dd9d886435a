/**
 * Registers an HTTP function with the Azure Functions host (`app.http`) and records it in
 * {@link registeredRoutes}, so the local host and the route tests serve and check exactly what the
 * function files declare: the route table exists once, in `src/functions`.
 *
 * Every function must say which credential it needs (`access`): `public` none, `bearer` an owner's
 * access token (JWT), `signing` a recipient's signing token. For `bearer` and `signing` the guard runs
 * before the handler, which receives the authenticated caller, so no handler can forget it. Every
 * answer, including any thrown error, passes through one mapping to problem details.
 *
 * Nothing heavy loads with a registration: the Functions host imports every function file at start-up,
 * so the handler comes from `loadHandler` on the function's first invocation (`src/handlers`), and the
 * guards, with jose, zod, the services and the storage SDKs, on the first guarded request. Each load
 * happens once and is shared by concurrent first requests; a load that fails answers 500 (logged with a
 * correlation id, like any unexpected error) and is tried again by the next request.
 */
import { app, type HttpMethod, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import type { Actor } from '../envelopes/model.js';
import { onFirstUse } from '../onFirstUse.js';
import { toProblemResponse } from './problem.js';
import { withStandardHeaders } from './respond.js';
import type { SigningCaller } from '../recipients/signingCaller.js';

interface CommonOptions {
  methods: HttpMethod[];
  /** Always `anonymous`: the platform's function keys are not used; bearer tokens are checked in code. */
  authLevel: 'anonymous';
  /** Route template below `/api`, as the Functions host reads it (`envelopes/{id}`). */
  route: string;
}

export type PublicHandler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;
export type BearerHandler = (request: HttpRequest, context: InvocationContext, caller: Actor) => Promise<HttpResponseInit>;
export type SigningHandler = (request: HttpRequest, context: InvocationContext, caller: SigningCaller) => Promise<HttpResponseInit>;

export interface PublicFunctionOptions extends CommonOptions {
  access: 'public';
  /** Imports the handler (`async () => (await import('../handlers/Health.js')).health`); called once. */
  loadHandler: () => Promise<PublicHandler>;
}

export interface BearerFunctionOptions extends CommonOptions {
  access: 'bearer';
  /** Imports the handler, which receives the authenticated owner; called once. */
  loadHandler: () => Promise<BearerHandler>;
}

export interface SigningFunctionOptions extends CommonOptions {
  access: 'signing';
  /** Imports the handler, which receives the authenticated recipient; called once. */
  loadHandler: () => Promise<SigningHandler>;
}

export type HttpFunctionOptions = PublicFunctionOptions | BearerFunctionOptions | SigningFunctionOptions;

export interface RegisteredRoute {
  name: string;
  methods: HttpMethod[];
  authLevel: 'anonymous';
  route: string;
  access: HttpFunctionOptions['access'];
  /** The handler as registered with the host: loading, guard and error mapping included. */
  handler: (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;
}

/** Every function registered so far in this process, in registration order. */
export const registeredRoutes: RegisteredRoute[] = [];

let registerWithFunctionsHost = true;

/**
 * Outside the Functions host (`npm start`, tests) `app.http` only warns that it registers nothing; the
 * local host turns that call off before it imports the function files.
 */
export function disableFunctionsHostRegistration(): void {
  registerWithFunctionsHost = false;
}

/** Whether registrations also go to the Functions host (`false` once the local host turned it off). */
export function registersWithFunctionsHost(): boolean {
  return registerWithFunctionsHost;
}

/** The two guards with the services they read (`guards.ts`); loaded by the first guarded request. */
const loadGuards = onFirstUse(() => import('./guards.js'));

/** How long a stopping Functions host waits for work started after responses, milliseconds. */
export const AFTER_RESPONSE_GRACE_MS = 10_000;

let terminateHookRegistered = false;

/**
 * Makes the Functions host, when it stops this worker (scale-in, deployment), first wait up to
 * {@link AFTER_RESPONSE_GRACE_MS} for the work requests started after their responses
 * (`afterResponse.ts`); what still does not finish is redone by the sweeper (CONTRACT §12.1).
 */
function waitForAfterResponseWorkOnTerminate(): void {
  if (terminateHookRegistered) return;
  terminateHookRegistered = true;
  app.hook.appTerminate(async () => {
    const { afterResponse } = await import('../afterResponse.js');
    await afterResponse.idle(AFTER_RESPONSE_GRACE_MS);
  });
}

/** Registers one HTTP function (see the module comment). */
export function httpFunction(name: string, options: HttpFunctionOptions): void {
  const invoke = guardedInvocation(options);
  const handler = async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    try {
      return withStandardHeaders(await invoke(request, context));
    } catch (error) {
      return toProblemResponse(error, context);
    }
  };
  registeredRoutes.push({ name, methods: options.methods, authLevel: options.authLevel, route: options.route, access: options.access, handler });
  if (registerWithFunctionsHost) {
    app.http(name, { methods: options.methods, authLevel: options.authLevel, route: options.route, handler });
    waitForAfterResponseWorkOnTerminate();
  }
}

/** The guard of `options.access`, then the handler, each loaded on first use. */
function guardedInvocation(options: HttpFunctionOptions): PublicHandler {
  switch (options.access) {
    case 'public': {
      const loadHandler = onFirstUse(options.loadHandler);
      return async (request, context) => await (await loadHandler())(request, context);
    }
    case 'bearer': {
      const loadHandler = onFirstUse(options.loadHandler);
      return async (request, context) => {
        const caller = await (await loadGuards()).authenticateOwner(request);
        return await (await loadHandler())(request, context, caller);
      };
    }
    case 'signing': {
      const loadHandler = onFirstUse(options.loadHandler);
      return async (request, context) => {
        const caller = await (await loadGuards()).authenticateRecipient(request);
        return await (await loadHandler())(request, context, caller);
      };
    }
  }
}
