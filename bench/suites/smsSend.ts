/**
 * Sending by text message (bench/README.md#sending-by-text-message): the request that sends an
 * envelope (`PATCH /api/envelopes/{id}` with `status: "sent"`) to one signer with `delivery: ["sms"]`
 * and a phone, against the same send to one signer by e-mail, on drafts prepared beforehand (upload,
 * signer, a signature field) so that only the send is timed, measured in the same rounds, the order
 * alternating. The text, like the e-mail, is a row of the send's outbox batch; the sending request
 * costs no more for it. Target: the text's send at most 1.1 times the e-mail's (median of each
 * round's median, as a paired ratio).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CORPUS_DIR } from '../../tests/support/corpus.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

export interface SmsSendFigures {
  /** Sends per side and round. */
  sendsPerRound: number;
  /** The send of a draft whose signer has `delivery: ["sms"]`, ms. */
  bySmsMs: Summary;
  /** The same send, the signer by e-mail, ms. */
  byEmailMs: Summary;
  /** bySms / byEmail, round by round. */
  ratio: Summary;
}

const FIELDS = [{ recipientId: 'signer', type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.35, height: 0.08 }];

export async function benchSmsSend(context: BenchContext): Promise<SuiteResult<SmsSendFigures>> {
  const { rounds, sendsPerRound } = context.plan.smsSend;
  // An owner of its own (a login-storm user who owns nothing else): its organisation's daily e-mail
  // and text quotas (1000 and 100) are this suite's, and hold the sends of the full plan.
  const owner = context.seed.loginUsers[3]!;
  const headers = { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json' };
  const document = await readFile(path.join(CORPUS_DIR, 'normal.pdf'));
  const call = async (method: string, route: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${context.apiUrl}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`smsSend bench: ${method} ${route} answered ${response.status}: ${text}`);
    return text === '' ? null : JSON.parse(text);
  };

  let counter = 0;
  /** A draft with one signer, by e-mail or by text message, ready to send. */
  const draft = async (side: Side): Promise<string> => {
    counter += 1;
    const ticket = await call('POST', '/GetUploadUrl', { filename: 'lease.pdf', mimetype: 'application/pdf' });
    const uploaded = await fetch(ticket.uploadUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' }, body: document });
    await uploaded.text();
    if (uploaded.status !== 201) throw new Error(`smsSend bench: upload answered ${uploaded.status}`);
    const signer = { id: 'signer', email: `bench-sms-${counter}@example.com`, name: 'Sam Signer', ...(side === 'bySms' ? { phone: `+49151${String(20_000_000 + counter)}`, delivery: ['sms'] } : {}) };
    await call('PATCH', `/envelopes/${ticket.envelopeId}`, { signers: [signer], fields: FIELDS });
    return ticket.envelopeId as string;
  };
  type Side = 'bySms' | 'byEmail';
  const send = async (id: string): Promise<number> => {
    const started = performance.now();
    await call('PATCH', `/envelopes/${id}`, { status: 'sent' });
    return performance.now() - started;
  };

  progress('smsSend: warm-up');
  await send(await draft('bySms'));
  await send(await draft('byEmail'));
  const medians: Record<Side, number[]> = { bySms: [], byEmail: [] };
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ['bySms', 'byEmail'] : ['byEmail', 'bySms'];
    // Every draft of the round first: only the sends are timed.
    const drafts: Record<Side, string[]> = { bySms: [], byEmail: [] };
    for (const side of order) for (let index = 0; index < sendsPerRound; index++) drafts[side].push(await draft(side));
    for (const side of order) {
      const times: number[] = [];
      for (const id of drafts[side]) times.push(await send(id));
      medians[side].push(summarize(times).median);
    }
    progress(`smsSend, round ${round + 1}/${rounds}: by text message ${medians.bySms.at(-1)!.toFixed(1)} ms, by e-mail ${medians.byEmail.at(-1)!.toFixed(1)} ms`);
  }
  const figures: SmsSendFigures = {
    sendsPerRound,
    bySmsMs: summarize(medians.bySms),
    byEmailMs: summarize(medians.byEmail),
    ratio: pairedRatio(medians.bySms, medians.byEmail),
  };
  return {
    figures,
    targets: [check('smsSend', 'Sending an envelope to a signer with delivery ["sms"], at most 1.1 times the same send by e-mail (median of round medians)', figures.ratio.median, '<=', 1.1)],
  };
}
