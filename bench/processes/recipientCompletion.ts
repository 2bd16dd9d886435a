/**
 * Recipient completion of one document against the owner's completion of the same document, both
 * timed in-process as whole function invocations (the registered handler: guard, handler, error
 * mapping; a real `HttpRequest`, no sockets), so both sides pay the same way for what is around the
 * seal:
 * - recipient: `POST /api/signing/complete` of the only signer of a sent envelope with two fields on
 *   page 1 (a typed signature and a text), which completes the envelope (signing-token lookup,
 *   values checked, fields drawn, certificate page, PAdES seal, envelope and action rows);
 * - owner: `POST /api/envelopes/{id}/complete` of a draft with the same signer and no fields (JWT,
 *   user lookup, certificate page, seal).
 * Each side's time ends with its response; the work its commit starts after the response (the
 * outbox dispatch, `afterResponse.ts`) is waited for, untimed, before the next measurement.
 * A fresh process per document; one warm-up of each first (starts the seal worker and loads the
 * fonts). Rounds alternate which side goes first; every envelope is made before the rounds.
 *
 * Argv: JSON {name, path, rounds, warmupPath}. Storage: the environment's (the suite gives this
 * process an Azurite of its own, whose queues nothing consumes, so no e-mail sender writes to the
 * envelopes while they are measured).
 */
import { readFile } from 'node:fs/promises';
import functions, { type HttpResponseInit } from '@azure/functions';
import { afterResponse } from '../../src/lib/afterResponse.js';
import { issueAccessToken } from '../../src/lib/auth/jwt.js';
import { hashPassword } from '../../src/lib/auth/password.js';
import type { Actor } from '../../src/lib/envelopes/model.js';
import { disableFunctionsHostRegistration, registeredRoutes } from '../../src/lib/http/register.js';
import { uuidv7 } from '../../src/lib/ids.js';
import { getServices } from '../../src/lib/services.js';
import { ensureStorage } from '../../src/lib/storage/setup.js';
import { failToParent, finishWithResult } from '../lib/child.js';
import { draftWithSigner, sentEnvelopeWithFields, type SentEnvelope } from '../lib/sentEnvelope.js';

interface Options {
  name: string;
  path: string;
  rounds: number;
  warmupPath: string;
}

export interface RecipientCompletionResult {
  name: string;
  bytes: number;
  /** Wall time of each recipient's completing `POST /api/signing/complete`, ms. */
  recipientMs: number[];
  /** Wall time of each owner's `POST /api/envelopes/{id}/complete` from draft, ms. */
  ownerMs: number[];
}

// @azure/functions is CommonJS: its classes come through the default export under ESM.
const { HttpRequest, InvocationContext } = functions;

try {
  const options = JSON.parse(process.argv[2] ?? '{}') as Options;
  disableFunctionsHostRegistration();
  await import('../../src/functions/CompleteEnvelope.js');
  await import('../../src/functions/CompleteSigning.js');
  const route = (name: string) => {
    const found = registeredRoutes.find((entry) => entry.name === name);
    if (found === undefined) throw new Error(`function ${name} not registered`);
    return found.handler;
  };
  const ownerComplete = route('CompleteEnvelope');
  const recipientComplete = route('CompleteSigning');

  const services = getServices();
  await ensureStorage(services.storage, { allowedOrigins: ['*'] });
  const userId = uuidv7();
  const email = `bench-completion-${userId}@example.com`;
  // Never used to log in: the lowest cost keeps the setup short.
  await services.users.insert({ userId, email, role: 'user', passwordHash: await hashPassword('bench-unused-password', 4), createdAt: new Date().toISOString(), emailVerified: true, verificationSentAt: null });
  const { token: ownerToken } = await issueAccessToken({ sub: userId, email, role: 'user' }, services.config.jwt);
  const actor: Actor = { userId, email, emailVerified: true, ip: '127.0.0.1', userAgent: 'bench', apiKeyId: null, organizationId: userId, role: 'owner' as const };
  const document = new Uint8Array(await readFile(options.path));
  const warmup = new Uint8Array(await readFile(options.warmupPath));

  const expectOk = (side: string, response: HttpResponseInit) => {
    if (response.status !== 200) throw new Error(`${side} complete answered ${response.status}: ${String(response.body)}`);
    // The service's `json` answers carry the JSON text as the body.
    const body = JSON.parse(String(response.body)) as { envelope?: { status?: string } };
    if (side === 'recipient' && body.envelope?.status !== 'completed') throw new Error(`recipient complete left the envelope ${body.envelope?.status}`);
  };
  const timedOwner = async (envelopeId: string): Promise<number> => {
    const request = new HttpRequest({
      method: 'POST',
      url: `http://127.0.0.1/api/envelopes/${envelopeId}/complete`,
      headers: { authorization: `Bearer ${ownerToken}`, 'user-agent': 'bench' },
      params: { id: envelopeId },
    });
    const started = performance.now();
    const response = await ownerComplete(request, new InvocationContext({ functionName: 'CompleteEnvelope' }));
    const ms = performance.now() - started;
    // What the commit started after the response (the outbox dispatch) ends before the next timing.
    await afterResponse.idle();
    expectOk('owner', response);
    return ms;
  };
  const timedRecipient = async (envelope: SentEnvelope): Promise<number> => {
    const body = JSON.stringify({
      consent: true,
      values: [
        { fieldId: envelope.signatureFieldId, value: { typed: 'Sam Signer' } },
        { fieldId: envelope.textFieldId, value: 'Head of Procurement' },
      ],
    });
    const request = new HttpRequest({
      method: 'POST',
      url: 'http://127.0.0.1/api/signing/complete',
      headers: { authorization: `Bearer ${envelope.token}`, 'content-type': 'application/json', 'user-agent': 'bench' },
      body: { string: body },
    });
    const started = performance.now();
    const response = await recipientComplete(request, new InvocationContext({ functionName: 'CompleteSigning' }));
    const ms = performance.now() - started;
    await afterResponse.idle();
    expectOk('recipient', response);
    return ms;
  };

  const warmOwner = await draftWithSigner(services, actor, warmup, 'warmup.pdf');
  const warmRecipient = await sentEnvelopeWithFields(services, actor, warmup, 'warmup.pdf');
  const owners: string[] = [];
  const recipients: SentEnvelope[] = [];
  for (let round = 0; round < options.rounds; round++) {
    owners.push((await draftWithSigner(services, actor, document, `${options.name}.pdf`)).envelopeId);
    recipients.push(await sentEnvelopeWithFields(services, actor, document, `${options.name}.pdf`));
  }
  await timedOwner(warmOwner.envelopeId);
  await timedRecipient(warmRecipient);

  const result: RecipientCompletionResult = { name: options.name, bytes: document.byteLength, recipientMs: [], ownerMs: [] };
  for (let round = 0; round < options.rounds; round++) {
    if (round % 2 === 0) {
      result.ownerMs.push(await timedOwner(owners[round]!));
      result.recipientMs.push(await timedRecipient(recipients[round]!));
    } else {
      result.recipientMs.push(await timedRecipient(recipients[round]!));
      result.ownerMs.push(await timedOwner(owners[round]!));
    }
    process.stderr.write(`[bench]   ${options.name}: recipient complete ${Math.round(result.recipientMs.at(-1)!)} ms, owner complete ${Math.round(result.ownerMs.at(-1)!)} ms\n`);
  }
  finishWithResult(result);
} catch (error) {
  failToParent(error);
}
