/**
 * Registers an HTTP function with the Azure Functions host (`app.http`) and records it in
 * {@link registeredRoutes}, so the local host and the route tests serve and check exactly what the
 * function files declare: the route table exists once, in `src/functions`.
 *
 * Every function must say which credential it needs (`access`): `public` none, `bearer` an owner's
 * access token (JWT) or API key, `jwt` an owner's access token only (the API key endpoints,
 * docs/api.md#api-keys), `signing` a recipient's signing token. For all but `public` the guard runs
 * before the handler, which receives the authenticated caller, so no handler can forget it. Every
 * answer, including any thrown error, passes through one mapping to problem details.
 *
 * Request limits (`rateLimits.ts`): every `bearer` function counts its requests per owner, after the
 * guard; `public` functions declared with `limitPerClientAddress` (Register, Login) per client address,
 * before the handler.
 *
 * Nothing heavy loads with a registration: the Functions host imports every function file at start-up,
 * so the handler comes from `loadHandler` on the function's first invocation (`src/handlers`), and the
 * guards, with jose, zod, the services and the storage SDKs, on the first guarded request. Each load
 * happens once and is shared by concurrent first requests; a load that fails answers 500 (logged with a
 * correlation id, like any unexpected error) and is tried again by the next request.
 *
 * Idempotency keys (`idempotency.ts`) come with the registration too: every owner function (`bearer`
 * or `jwt`) that answers `POST` honours `Idempotency-Key` without its handler knowing, unless its
 * answer holds a secret (`answerHoldsSecret: true`: an API key, a webhook's signing secret, a signing
 * link), which must never be stored: such a function refuses the header with 400
 * `idempotency-not-supported` (docs/api.md#idempotency). Every owner `POST` must declare
 * `answerHoldsSecret`, `true` or `false`: registration throws otherwise, so no new endpoint's secret
 * is kept by default.
 *
 * Roles (docs/api.md#roles): every owner function declares the roles of its caller's organisation it
 * admits (`roles`); the guard refuses any other with 403 `forbidden-role` before idempotency keys,
 * limits and the handler. Registration throws for an owner function without them.
 */
import { app, type HttpMethod, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import type { Actor } from '../envelopes/model.js';
import { onFirstUse } from '../onFirstUse.js';
import { flushTelemetry, inRequestSpan } from '../telemetry/index.js';
import { idempotencyKeyOf, refuseIdempotencyKey, runIdempotently } from './idempotency.js';
import { toProblemResponse } from './problem.js';
import { withStandardHeaders } from './respond.js';
import type { SigningCaller } from '../recipients/signingCaller.js';
import type { Role } from '../organizations/roles.js';

interface CommonOptions {
  methods: HttpMethod[];
  /** Always `anonymous`: the platform's function keys are not used; bearer tokens are checked in code. */
  authLevel: 'anonymous';
  /** Route template below `/api`, as the Functions host reads it (`envelopes/{id}`). */
  route: string;
  /**
   * Whether a 2xx answer holds a secret (an API key, a webhook's signing secret, a URL carrying a
   * signing token): `true` makes the function refuse `Idempotency-Key` with 400
   * `idempotency-not-supported`, so the answer is never kept in storage. Required of every owner
   * (`bearer`, `jwt`) function that answers `POST` (registration throws without it).
   */
  answerHoldsSecret?: boolean;
  /**
   * Unset: an owner function's `POST` honours `Idempotency-Key` (`idempotency.ts`) unless its answer
   * holds a secret; any other request ignores it. `'claim-in-transaction'`: honours it, with the key's
   * claim written in the function's own transaction instead of before its work
   * (`storage/idempotentClaim.ts`); only for a function whose whole change is one
   * `EnvelopeRepository.create` (GetUploadUrl), and never with `answerHoldsSecret: true`.
   * `'resumable'`: honours it for a creating function whose creation spans several writes: it mints
   * the ids of what it creates with `resumableId` (`../ids.ts`) and, run again under the claim of a
   * request whose process died, finds and completes or answers what that request left
   * (`idempotency.ts`, docs/api.md#idempotency).
   */
  idempotency?: 'claim-in-transaction' | 'resumable';
  /**
   * The largest request body the function takes, bytes; absent: a JSON body's limit
   * (`body.ts`'s `MAX_JSON_BODY_BYTES`). Only a function whose body is a file raises it
   * (docs/api.md#files-from-signers). A larger body is 413 before the function runs.
   */
  maxBodyBytes?: number;
}

export type PublicHandler = (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;
export type BearerHandler = (request: HttpRequest, context: InvocationContext, caller: Actor) => Promise<HttpResponseInit>;
export type SigningHandler = (request: HttpRequest, context: InvocationContext, caller: SigningCaller) => Promise<HttpResponseInit>;

export interface PublicFunctionOptions extends CommonOptions {
  access: 'public';
  /** Count requests per client address (`AUTH_RATE_LIMIT_PER_MINUTE`): Register and Login. */
  limitPerClientAddress?: boolean;
  /** Imports the handler (`async () => (await import('../handlers/Health.js')).health`); called once. */
  loadHandler: () => Promise<PublicHandler>;
}

/**
 * The roles an owner function admits (docs/api.md#roles): required of every `bearer` and `jwt`
 * function (registration throws without it), checked by the guard before the handler (403
 * `forbidden-role` for any other role).
 */
interface RoleOptions {
  roles: readonly Role[];
}

export interface BearerFunctionOptions extends CommonOptions, RoleOptions {
  access: 'bearer';
  /** Imports the handler, which receives the authenticated owner; called once. */
  loadHandler: () => Promise<BearerHandler>;
}

export interface JwtFunctionOptions extends CommonOptions, RoleOptions {
  access: 'jwt';
  /** Imports the handler, which receives the owner authenticated by an access token (never an API key); called once. */
  loadHandler: () => Promise<BearerHandler>;
}

/**
 * When a `signing` function runs with respect to signer authentication: `'after'` (the default) only
 * for a recipient that has entered its code, when it has one (403 `authentication-required` before);
 * `'before'` also for one that has not, for the few routes that serve the way to authenticate. A
 * locked link answers 423 on both.
 */
export type SigningAuthentication = 'after' | 'before';

export interface SigningFunctionOptions extends CommonOptions {
  access: 'signing';
  /** `'before'`: the handler also runs before the recipient entered its code (see {@link SigningAuthentication}); default `'after'`. */
  signingAuthentication?: SigningAuthentication;
  /** Imports the handler, which receives the authenticated recipient; called once. */
  loadHandler: () => Promise<SigningHandler>;
}

export type HttpFunctionOptions = PublicFunctionOptions | BearerFunctionOptions | JwtFunctionOptions | SigningFunctionOptions;

export interface RegisteredRoute {
  name: string;
  methods: HttpMethod[];
  authLevel: 'anonymous';
  route: string;
  access: HttpFunctionOptions['access'];
  /** As registered (see {@link CommonOptions.answerHoldsSecret}). */
  answerHoldsSecret?: boolean;
  /**
   * `false` when the function refuses `Idempotency-Key`: its answer holds a secret; else as registered
   * (see {@link CommonOptions.idempotency}): the endpoints that never answer `idempotency-outcome-unknown`.
   */
  idempotency?: false | 'claim-in-transaction' | 'resumable';
  /** `signing` functions: whether the handler runs before the recipient authenticated (see {@link SigningAuthentication}). */
  signingAuthentication?: SigningAuthentication;
  /** `bearer` and `jwt` functions: the roles admitted (see {@link RoleOptions}). */
  roles?: readonly Role[];
  /** As registered (see {@link CommonOptions.maxBodyBytes}). */
  maxBodyBytes?: number;
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
/** The request limits (`rateLimits.ts`); loaded by the first limited request. */
const loadRateLimits = onFirstUse(() => import('./rateLimits.js'));
/** The services, for the idempotency keys' repository; loaded by the first request with a key. */
const loadServices = onFirstUse(() => import('../services.js'));

/** How long a stopping Functions host waits for work started after responses, milliseconds. */
export const AFTER_RESPONSE_GRACE_MS = 10_000;

let terminateHookRegistered = false;

/**
 * Makes the Functions host, when it stops this worker (scale-in, deployment), first wait up to
 * {@link AFTER_RESPONSE_GRACE_MS} for the work requests started after their responses
 * (`afterResponse.ts`); what still does not finish is redone by the sweeper (docs/api.md#e-mail).
 * Then the telemetry still buffered is exported (docs/api.md#telemetry).
 */
function waitForAfterResponseWorkOnTerminate(): void {
  if (terminateHookRegistered) return;
  terminateHookRegistered = true;
  app.hook.appTerminate(async () => {
    const { afterResponse } = await import('../afterResponse.js');
    await afterResponse.idle(AFTER_RESPONSE_GRACE_MS);
    await flushTelemetry();
  });
}

/** Registers one HTTP function (see the module comment). */
export function httpFunction(name: string, options: HttpFunctionOptions): void {
  const ownerPost = (options.access === 'bearer' || options.access === 'jwt') && options.methods.includes('POST');
  if (ownerPost && options.answerHoldsSecret === undefined) {
    throw new Error(`${name}: an owner POST must declare answerHoldsSecret (true when its answer holds a secret, which an Idempotency-Key would keep in storage).`);
  }
  if ((options.access === 'bearer' || options.access === 'jwt') && (!Array.isArray(options.roles) || options.roles.length === 0)) {
    throw new Error(`${name}: an owner function must declare the roles it admits (roles: ['owner', 'admin', ...], docs/api.md#roles).`);
  }
  if (options.answerHoldsSecret === true && options.idempotency !== undefined) {
    throw new Error(`${name}: a function whose answer holds a secret refuses Idempotency-Key; it cannot also declare idempotency '${options.idempotency}'.`);
  }
  const invoke = guardedInvocation(options);
  const refusesIdempotencyKeys = options.answerHoldsSecret === true;
  // Each request in a server span when telemetry is on (docs/api.md#telemetry), named by the route's template.
  const handler = async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> =>
    await inRequestSpan(options.route, request, context, async () => {
      try {
        if (refusesIdempotencyKeys) refuseIdempotencyKey(request);
        return withStandardHeaders(await invoke(request, context));
      } catch (error) {
        return toProblemResponse(error, context);
      }
    });
  registeredRoutes.push({
    name,
    methods: options.methods,
    authLevel: options.authLevel,
    route: options.route,
    access: options.access,
    ...(options.answerHoldsSecret === undefined ? {} : { answerHoldsSecret: options.answerHoldsSecret }),
    ...(refusesIdempotencyKeys ? { idempotency: false as const } : options.idempotency === undefined ? {} : { idempotency: options.idempotency }),
    ...(options.access === 'signing' ? { signingAuthentication: options.signingAuthentication ?? 'after' } : {}),
    ...(options.access === 'bearer' || options.access === 'jwt' ? { roles: options.roles } : {}),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    handler,
  });
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
      if (options.limitPerClientAddress === true) {
        return async (request, context) =>
          await (await loadRateLimits()).withinClientAddressRequestLimit(request, context, async () => await (await loadHandler())(request, context));
      }
      return async (request, context) => await (await loadHandler())(request, context);
    }
    case 'bearer':
    case 'jwt': {
      const loadHandler = onFirstUse(options.loadHandler);
      const acceptApiKeys = options.access === 'bearer';
      const roles = options.roles;
      const honoursIdempotencyKeys = options.methods.includes('POST') && options.answerHoldsSecret !== true;
      // What an owner's request passes through, in this order:
      //   1. the guard: who the owner is (401 otherwise), and whether its role admits the function
      //      (403 `forbidden-role`, docs/api.md#roles);
      //   2. idempotency keys (idempotency.ts): a replay, a reused key or a key in use is answered
      //      here, before anything counts the request, so a replay uses no rate-limit budget or quota;
      //   3. rate limits and quotas (rateLimits.ts), which count only requests that will run;
      //   4. the handler, its errors mapped to problem details here, so that a 4xx is kept for replay
      //      like any answer.
      const answer = async (request: HttpRequest, context: InvocationContext, caller: Actor): Promise<HttpResponseInit> =>
        await (await loadRateLimits()).withinOwnerRequestLimit(caller.userId, context, async () => {
          try {
            return withStandardHeaders(await (await loadHandler())(request, context, caller));
          } catch (error) {
            return toProblemResponse(error, context);
          }
        });
      return async (request, context) => {
        const caller = await (await loadGuards()).authenticateOwner(request, { acceptApiKeys, roles });
        const key = honoursIdempotencyKeys && request.method === 'POST' ? idempotencyKeyOf(request) : undefined;
        if (key === undefined) return await answer(request, context, caller);
        const keys = (await loadServices()).getServices().idempotencyKeys;
        return await runIdempotently(request, (read) => answer(read, context, caller), {
          ownerId: caller.userId,
          key,
          keys,
          context,
          claimInTransaction: options.idempotency === 'claim-in-transaction',
          resumable: options.idempotency === 'resumable',
        });
      };
    }
    case 'signing': {
      const loadHandler = onFirstUse(options.loadHandler);
      const signingAuthentication = options.signingAuthentication ?? 'after';
      // The token (401), then signer authentication (423 locked; 403 until the code, unless 'before').
      return async (request, context) => {
        const guards = await loadGuards();
        const caller = await guards.authenticateRecipient(request);
        guards.checkSignerAuthentication(caller, signingAuthentication);
        return await (await loadHandler())(request, context, caller);
      };
    }
  }
}
