/**
 * Templates (bench/README.md#templates-met): creating and sending an envelope from an active template
 * (`POST /api/templates/{id}/envelopes`, one request) against creating and sending the same envelope
 * by upload (`POST /api/GetUploadUrl`, `PUT` of the document to Blob storage, `PATCH` with its signer
 * and fields and `status: "sent"`), on the same document with the same signer and fields, measured
 * in the same rounds, the order alternating from round to round. Target: the template's way at most
 * 1.3 times the upload's (median of each round's median, as a paired ratio).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { CORPUS_DIR } from '../../tests/support/corpus.js';
import { check, type BenchContext, type SuiteResult } from '../lib/context.js';
import { progress } from '../lib/progress.js';
import { pairedRatio, summarize, type Summary } from '../lib/stats.js';

export interface TemplatesFigures {
  /** Sends per side and round. */
  sendsPerRound: number;
  /** From the template: one request, ms. */
  fromTemplateMs: Summary;
  /** By upload: GetUploadUrl, PUT, PATCH with signer, fields and status, ms. */
  byUploadMs: Summary;
  /** fromTemplate / byUpload, round by round. */
  ratio: Summary;
}

const FIELDS = [
  { type: 'text', page: 1, x: 0.1, y: 0.3, width: 0.5, height: 0.05 },
  { type: 'signature', page: 1, x: 0.1, y: 0.8, width: 0.35, height: 0.08 },
];

export async function benchTemplates(context: BenchContext): Promise<SuiteResult<TemplatesFigures>> {
  const { rounds, sendsPerRound } = context.plan.templates;
  // An owner of its own (a login-storm user, who owns nothing else): its e-mail quota is this suite's.
  const owner = context.seed.loginUsers[1]!;
  const headers = { Authorization: `Bearer ${owner.token}`, 'Content-Type': 'application/json' };
  const document = await readFile(path.join(CORPUS_DIR, 'normal.pdf'));
  const call = async (method: string, route: string, body?: unknown): Promise<any> => {
    const response = await fetch(`${context.apiUrl}${route}`, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await response.text();
    if (response.status >= 300) throw new Error(`templates bench: ${method} ${route} answered ${response.status}: ${text}`);
    return text === '' ? null : JSON.parse(text);
  };
  const put = async (uploadUrl: string): Promise<void> => {
    const response = await fetch(uploadUrl, { method: 'PUT', headers: { 'x-ms-blob-type': 'BlockBlob', 'Content-Type': 'application/pdf' }, body: document });
    await response.text();
    if (response.status !== 201) throw new Error(`templates bench: upload answered ${response.status}`);
  };

  const created = await call('POST', '/templates', { name: 'Bench lease', filename: 'lease.pdf', mimetype: 'application/pdf' });
  await put(created.uploadUrl);
  const templateId = created.template.id;
  await call('PATCH', `/templates/${templateId}`, { roles: [{ id: 'client', name: 'Client' }], fields: FIELDS.map((field) => ({ ...field, roleId: 'client' })), status: 'active' });

  let counter = 0;
  const person = () => ({ email: `bench-template-${++counter}@example.com`, name: 'Carol Client' });
  const sides = {
    fromTemplate: async () => {
      await call('POST', `/templates/${templateId}/envelopes`, { recipients: [{ roleName: 'Client', ...person() }] });
    },
    byUpload: async () => {
      const ticket = await call('POST', '/GetUploadUrl', { filename: 'lease.pdf', mimetype: 'application/pdf' });
      await put(ticket.uploadUrl);
      await call('PATCH', `/envelopes/${ticket.envelopeId}`, { signers: [{ id: 'signer', ...person() }], fields: FIELDS.map((field) => ({ ...field, recipientId: 'signer' })), status: 'sent' });
    },
  };
  type Side = keyof typeof sides;
  const timed = async (side: Side): Promise<number> => {
    const started = performance.now();
    await sides[side]();
    return performance.now() - started;
  };
  progress('templates: warm-up');
  await timed('fromTemplate');
  await timed('byUpload');
  const medians: Record<Side, number[]> = { fromTemplate: [], byUpload: [] };
  for (let round = 0; round < rounds; round++) {
    const order: Side[] = round % 2 === 0 ? ['fromTemplate', 'byUpload'] : ['byUpload', 'fromTemplate'];
    for (const side of order) {
      const times: number[] = [];
      for (let send = 0; send < sendsPerRound; send++) times.push(await timed(side));
      medians[side].push(summarize(times).median);
    }
    progress(`templates, round ${round + 1}/${rounds}: from the template ${medians.fromTemplate.at(-1)!.toFixed(1)} ms, by upload ${medians.byUpload.at(-1)!.toFixed(1)} ms`);
  }
  const figures: TemplatesFigures = {
    sendsPerRound,
    fromTemplateMs: summarize(medians.fromTemplate),
    byUploadMs: summarize(medians.byUpload),
    ratio: pairedRatio(medians.fromTemplate, medians.byUpload),
  };
  return {
    figures,
    targets: [
      check('templates', 'Creating and sending an envelope from a template, at most 1.3 times creating and sending the same envelope by upload and PATCH (median of round medians)', figures.ratio.median, '<=', 1.3),
    ],
  };
}
