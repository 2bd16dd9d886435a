/**
 * Registers an HTTP function with the Azure Functions host (`app.http`) and records it in
 * {@link registeredRoutes}, so the local host and the route tests serve and check exactly what the
 * function files declare: the route table exists once, in `src/functions`.
 *
 * Every function must say which credential it needs (`access`): `public` none, `bearer` an owner's
 * access token (JWT), `signing` a recipient's signing token. For `bearer` and `signing` the guard runs
 * before the handler, which receives the authenticated caller, so no handler can forget it. Every
 * answer, including any thrown error, passes through one mapping to problem details.
 */
import { app, type HttpMethod, type HttpRequest, type HttpResponseInit, type InvocationContext } from '@azure/functions';
import type { Actor } from '../envelopes/model.js';
import { getServices } from '../services.js';
import { authenticate } from './bearer.js';
import { authenticateSigningToken, type SigningCaller } from './signingToken.js';
import { toProblemResponse } from './problem.js';
import { withStandardHeaders } from './respond.js';

interface CommonOptions {
  methods: HttpMethod[];
  /** Always `anonymous`: the platform's function keys are not used; bearer tokens are checked in code. */
  authLevel: 'anonymous';
  /** Route template below `/api`, as the Functions host reads it (`envelopes/{id}`). */
  route: string;
}

export interface PublicFunctionOptions extends CommonOptions {
  access: 'public';
  handler: (request: HttpRequest, context: InvocationContext) => Promise<HttpResponseInit>;
}

export interface BearerFunctionOptions extends CommonOptions {
  access: 'bearer';
  handler: (request: HttpRequest, context: InvocationContext, caller: Actor) => Promise<HttpResponseInit>;
}

export interface SigningFunctionOptions extends CommonOptions {
  access: 'signing';
  handler: (request: HttpRequest, context: InvocationContext, caller: SigningCaller) => Promise<HttpResponseInit>;
}

export type HttpFunctionOptions = PublicFunctionOptions | BearerFunctionOptions | SigningFunctionOptions;

export interface RegisteredRoute {
  name: string;
  methods: HttpMethod[];
  authLevel: 'anonymous';
  route: string;
  access: HttpFunctionOptions['access'];
  /** The handler as registered with the host: guard and error mapping included. */
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

/** Registers one HTTP function (see the module comment). */
export function httpFunction(name: string, options: HttpFunctionOptions): void {
  const handler = async (request: HttpRequest, context: InvocationContext): Promise<HttpResponseInit> => {
    try {
      if (options.access === 'public') return withStandardHeaders(await options.handler(request, context));
      if (options.access === 'signing') return withStandardHeaders(await options.handler(request, context, await authenticateSigningToken(request, getServices())));
      const caller = await authenticate(request, getServices());
      return withStandardHeaders(await options.handler(request, context, caller));
    } catch (error) {
      return toProblemResponse(error, context);
    }
  };
  registeredRoutes.push({ name, methods: options.methods, authLevel: options.authLevel, route: options.route, access: options.access, handler });
  if (registerWithFunctionsHost) app.http(name, { methods: options.methods, authLevel: options.authLevel, route: options.route, handler });
}
