/**
 * Request shapes of the template endpoints (docs/api.md#templates). Strict like the envelope's: unknown
 * fields are refused. A template field is an envelope field (`fieldProperties`, `refineField` of
 * `envelopes/schemas.ts`) naming a role; a recipient at use is a signer entry (`signerInput`) naming a
 * role instead of its own role and routing order, so whatever a signer accepts a recipient accepts.
 */
import { z } from 'zod';
import { SIGNER_ROLES, SIGNING_ORDERS } from '../envelopes/model.js';
import {
  detectedFieldProperties,
  fieldId,
  fieldInput,
  fieldProperties,
  listEnvelopesQuery,
  MAX_EXPIRY_DAYS,
  MAX_FIELDS,
  MAX_ROUTING_ORDER,
  MAX_SIGNERS,
  refineDelivery,
  refineField,
  signerInput,
  updateEnvelopeRequest,
  uploadRequest,
} from '../envelopes/schemas.js';
import { characters, requestTimestamp, trimmedText, wholeNumber } from '../text.js';
import { SUPPORTED_LOCALES } from '../i18n/locales.js';
import { TEMPLATE_STATUSES, TEMPLATE_VISIBILITIES } from './model.js';

/** Longest template name and role name, characters (docs/api.md#templates). */
export const MAX_TEMPLATE_NAME = 200;
export const MAX_ROLE_NAME = 100;
/** At most this many roles (docs/api.md#templates). */
export const MAX_ROLES = MAX_SIGNERS;
/** `expiresInDays` bounds (docs/api.md#templates). */
export const MAX_EXPIRES_IN_DAYS = MAX_EXPIRY_DAYS;

/** `visibility` of create and update (docs/api.md#templates-shared-in-an-organization). */
const visibility = z.enum(TEMPLATE_VISIBILITIES, { error: `must be one of ${TEMPLATE_VISIBILITIES.join(', ')}` }).meta({
  description: '`private`: its creator, admins and the owner use and change it (viewers read it); `organization`: every sender of the organization lists and uses it too (only its creator, admins and the owner change it).',
});

const roleId = characters(1, 100).meta({ description: 'The id of a current role keeps that identity; any other value, or none, gets a new UUID.' });

export const createTemplateRequest = z
  .strictObject({
    name: trimmedText(MAX_TEMPLATE_NAME).meta({ description: `What the template is for: 1 to ${MAX_TEMPLATE_NAME} characters after trimming.`, examples: ['Lease agreement'] }),
    ...uploadRequest.shape,
    visibility: visibility.default('private'),
  })
  .meta({ id: 'CreateTemplateRequest', description: 'A new draft template and where to upload its document: `filename` and `mimetype` as for `POST /api/GetUploadUrl`.' });
export type CreateTemplateRequest = z.infer<typeof createTemplateRequest>;

export const roleInput = z
  .strictObject({
    id: roleId.optional(),
    name: trimmedText(MAX_ROLE_NAME).meta({ description: `1 to ${MAX_ROLE_NAME} characters after trimming, unique in the template (case-insensitive).`, examples: ['Client'] }),
    role: z.enum(SIGNER_ROLES, { error: `must be one of ${SIGNER_ROLES.join(', ')}` }).default('signer'),
    routingOrder: wholeNumber(1, MAX_ROUTING_ORDER)
      .default(1),
  })
  .meta({ id: 'TemplateRoleInput', description: 'A role: at use, one recipient takes it. `id` names an existing role (its fields stay with it).' });
export type RoleInput = z.infer<typeof roleInput>;

export const templateFieldInput = z
  .strictObject({
    id: fieldId.optional(),
    roleId: roleId.meta({ description: 'The role (of role `signer`) whose recipient fills the field: the id of a role of the template, or of one in the same request.' }),
    documentId: fieldInput.shape.documentId.meta({ description: 'The document the field is on (an `id` of the template\'s `documents`); default the first document. `page` counts within that document.' }),
    ...fieldProperties,
    ...detectedFieldProperties,
  })
  .superRefine(refineField)
  .meta({ id: 'TemplateFieldInput', description: 'A field as for envelopes, with `roleId` in place of `recipientId`.' });
export type TemplateFieldInput = z.infer<typeof templateFieldInput>;

/** Whether two list entries repeat an id; names each repeat. */
function uniqueIds(entries: { id?: string | undefined }[], context: z.RefinementCtx, what: string): void {
  const seen = new Map<string, number>();
  entries.forEach((entry, index) => {
    if (entry.id === undefined) return;
    const first = seen.get(entry.id);
    if (first !== undefined) context.addIssue({ code: 'custom', path: [index, 'id'], message: `repeats the id of ${what} ${first}` });
    else seen.set(entry.id, index);
  });
}

const settings = updateEnvelopeRequest.shape;

/** Most envelopes one public link may be limited to (`maxUses`, docs/api.md#public-links). */
export const MAX_PUBLIC_LINK_USES = 1_000_000;

export const publicLinkRecipientInput = z
  .strictObject({
    roleName: characters(1, MAX_ROLE_NAME).meta({ description: 'A role of the template other than the open one (case-insensitive).' }),
    email: signerInput.shape.email,
    name: signerInput.shape.name,
  })
  .meta({ id: 'PublicLinkRecipientInput', description: 'The fixed recipient of a role besides the open one: every envelope the link makes sends that role to this person.' });

export const publicLinkInput = z
  .strictObject({
    enabled: z.boolean({ error: 'must be true or false' }).meta({ description: '`true`: the link works (a new URL when it was off); `false`: its URL answers 404 at once.' }),
    roleName: characters(1, MAX_ROLE_NAME).meta({ description: 'The open role (case-insensitive): whoever opens the link takes it. Exactly one role is open; every other role needs a fixed recipient.' }),
    maxUses: wholeNumber(1, MAX_PUBLIC_LINK_USES, { orNull: true })
      .nullable()
      .optional()
      .meta({ description: 'Envelopes the link makes in all, then 410 `link-exhausted`; absent or `null`: no limit.' }),
    expiresAt: requestTimestamp.nullable().optional().meta({ description: 'From this instant the link answers 410 `link-expired`; absent or `null`: never.' }),
    recipients: z
      .array(publicLinkRecipientInput, { error: 'must be an array' })
      .max(MAX_ROLES, `must hold at most ${MAX_ROLES} recipients`)
      .optional()
      .meta({ description: 'One fixed recipient per role besides the open one.' }),
  })
  .meta({ id: 'PublicLinkInput', description: 'The template\'s public link (docs: Public links). The template must be active (409 `template-not-active`).' });
export type PublicLinkInput = z.infer<typeof publicLinkInput>;

export const updateTemplateRequest = z
  .strictObject({
    name: trimmedText(MAX_TEMPLATE_NAME).optional().meta({ description: `1 to ${MAX_TEMPLATE_NAME} characters after trimming.` }),
    roles: z
      .array(roleInput, { error: 'must be an array' })
      .max(MAX_ROLES, `must hold at most ${MAX_ROLES} roles`)
      .superRefine((roles, context) => {
        uniqueIds(roles, context, 'role');
        const seen = new Map<string, number>();
        roles.forEach((role, index) => {
          const key = role.name.toLowerCase();
          const first = seen.get(key);
          if (first !== undefined) context.addIssue({ code: 'custom', path: [index, 'name'], message: `repeats the name of role ${first} (names are compared without regard to case)` });
          else seen.set(key, index);
        });
      })
      .optional()
      .meta({ description: `Replaces the whole list: at most ${MAX_ROLES}, names unique (case-insensitive), ids unique. Fields of a removed role go with it.` }),
    fields: z
      .array(templateFieldInput, { error: 'must be an array' })
      .max(MAX_FIELDS, `must hold at most ${MAX_FIELDS} fields`)
      .superRefine((fields, context) => uniqueIds(fields, context, 'field'))
      .optional()
      .meta({ description: `Replaces the whole list: at most ${MAX_FIELDS}, ids unique. Once the template is active, every field must fit its document's pages.` }),
    signingOrder: z.enum(SIGNING_ORDERS, { error: `must be one of ${SIGNING_ORDERS.join(', ')}` }).optional(),
    visibility: visibility.optional(),
    remindEveryDays: settings.remindEveryDays,
    expiresInDays: wholeNumber(1, MAX_EXPIRES_IN_DAYS, { orNull: true })
      .nullable()
      .optional()
      .meta({ description: 'An envelope made from the template expires this many days after it is sent (unless the use names `expiresAt`); `null`: `ENVELOPE_TTL_DAYS`.' }),
    locale: z
      .enum(SUPPORTED_LOCALES, { error: `must be one of the supported locales: ${SUPPORTED_LOCALES.join(', ')}` })
      .optional()
      .meta({ description: 'The language of envelopes made from the template (their `locale`): one of the supported locales.' }),
    publicLink: publicLinkInput.optional(),
    output: settings.output.meta({ description: 'What completion seals for envelopes made from the template (their `output`): `separate` (default) or `combined`.' }),
    status: z
      .enum(TEMPLATE_STATUSES, { error: `must be one of ${TEMPLATE_STATUSES.join(', ')}` })
      .optional()
      .meta({ description: '`active` checks and freezes every document (as sending an envelope does); an active template cannot go back to `draft`.' }),
  })
  .meta({ id: 'UpdateTemplateRequest', description: 'What is present is applied; `roles` and `fields` each replace the whole list.' });
export type UpdateTemplateRequest = z.infer<typeof updateTemplateRequest>;

// A recipient at use: a signer entry without its identity, role and routing order (the role gives them).
const { id: _id, recipientId: _recipientId, role: _role, routingOrder: _routingOrder, ...recipientShape } = signerInput.shape;

export const templateRecipientInput = z
  .strictObject({
    roleId: roleId.optional().meta({ description: 'The role this recipient takes, by id.' }),
    roleName: characters(1, MAX_ROLE_NAME).optional().meta({ description: 'The role this recipient takes, by name (case-insensitive). With `roleId` too, both must name the same role (400 naming `roleName` otherwise).' }),
    ...recipientShape,
  })
  .superRefine(refineDelivery)
  .meta({ id: 'TemplateRecipientInput', description: 'The person who takes one role: `roleId` or `roleName` (or both, naming the same role), and what a signer entry carries besides its role and routing order (which come from the role).' });
export type TemplateRecipientInput = z.infer<typeof templateRecipientInput>;

export const prefilledValue = z
  .strictObject({
    fieldId: fieldId.meta({ description: 'A field of the template.' }),
    value: z.unknown().meta({ description: 'The value, of the shape the field\'s type takes (a string, or `true`/`false` for a check box).' }),
  })
  .meta({ id: 'PrefilledValue', description: 'A value the envelope\'s field starts with.' });

export const useTemplateRequest = z
  .strictObject({
    recipients: z
      .array(templateRecipientInput, { error: 'must be an array' })
      .max(MAX_ROLES, `must hold at most ${MAX_ROLES} recipients`)
      .meta({ description: 'Exactly one recipient per role of the template.' }),
    values: z.array(prefilledValue, { error: 'must be an array' }).max(MAX_FIELDS, `must hold at most ${MAX_FIELDS} values`).optional(),
    send: z.boolean({ error: 'must be true or false' }).default(true).meta({ description: '`true` (default): the envelope is sent at once; `false`: it stays `draft`.' }),
    expiresAt: requestTimestamp
      .nullable()
      .optional()
      .meta({ description: `When the envelope expires (at most ${MAX_EXPIRY_DAYS} days ahead); absent: send time + the template's \`expiresInDays\`, else ENVELOPE_TTL_DAYS.` }),
  })
  .meta({ id: 'UseTemplateRequest', description: 'An envelope from an active template.' });
export type UseTemplateRequest = z.infer<typeof useTemplateRequest>;

/** Query of the template list: `limit` and `cursor` as for envelopes (docs/api.md#list-envelopes). */
export const listTemplatesQuery = z.strictObject({ limit: listEnvelopesQuery.shape.limit, cursor: listEnvelopesQuery.shape.cursor });
export type ListTemplatesQuery = z.infer<typeof listTemplatesQuery>;
