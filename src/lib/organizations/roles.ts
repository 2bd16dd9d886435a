/**
 * The roles of an organisation's members and what each may do
 * ([docs/api.md#roles](../../../docs/api.md#roles)): `owner` (exactly one: everything, and handing
 * the organisation over), `admin` (members, invitations, webhooks, the organisation's settings, every
 * envelope and template), `sender` (its own envelopes and API keys), `viewer` (reads, changes
 * nothing). Every owner route declares the roles it admits in its registration (`roles`,
 * `src/lib/http/register.ts`); the guard refuses any other with 403 `forbidden-role` before the
 * handler runs.
 */
import { problem } from '../problems.js';

/** Every role, from the most to the least it may do. */
export const ROLES = ['owner', 'admin', 'sender', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** Routes that read: every member (docs/api.md#roles). */
export const EVERY_ROLE: readonly Role[] = ROLES;
/** Routes that change envelopes, templates or the caller's own API keys: every member but viewers. */
export const CHANGING_ROLES: readonly Role[] = ['owner', 'admin', 'sender'];
/** Routes that manage the organisation (members, invitations, webhooks, settings): admins and the owner. */
export const MANAGING_ROLES: readonly Role[] = ['owner', 'admin'];
/** Routes only the owner may call (handing the organisation over). */
export const OWNER_ONLY: readonly Role[] = ['owner'];

/** Whether `value` is a role. */
export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (ROLES as readonly string[]).includes(value);
}

/** `owner or admin`, `owner, admin or sender`: the roles in words, for a problem's detail. */
export function rolesInWords(roles: readonly Role[]): string {
  if (roles.length <= 1) return roles.join('');
  return `${roles.slice(0, -1).join(', ')} or ${roles[roles.length - 1]!}`;
}

/**
 * Refuses a caller whose role is not among `allowed` (docs/api.md#roles).
 * @throws AppError 403 `forbidden-role` naming the roles needed and the caller's
 */
export function assertRole(role: Role, allowed: readonly Role[]): void {
  if (allowed.includes(role)) return;
  throw problem('forbiddenRole', { detail: `This needs the role ${rolesInWords(allowed)}; you are ${role === 'admin' || role === 'owner' ? 'an' : 'a'} ${role} of your organization.` });
}
