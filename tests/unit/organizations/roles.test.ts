/** The roles and the guard's check of a route's roles (docs/api.md#roles). */
import { describe, expect, test } from '@jest/globals';
import { AppError } from '../../../src/lib/errors.js';
import { assertRole, CHANGING_ROLES, EVERY_ROLE, isRole, MANAGING_ROLES, OWNER_ONLY, ROLES, rolesInWords } from '../../../src/lib/organizations/roles.js';

describe('roles', () => {
  test('four roles, from the most to the least a member may do', () => {
    expect(ROLES).toEqual(['owner', 'admin', 'sender', 'viewer']);
    expect(EVERY_ROLE).toEqual(ROLES);
    expect(CHANGING_ROLES).toEqual(['owner', 'admin', 'sender']);
    expect(MANAGING_ROLES).toEqual(['owner', 'admin']);
    expect(OWNER_ONLY).toEqual(['owner']);
    expect(ROLES.every(isRole)).toBe(true);
    for (const value of ['user', 'Owner', '', null, 1]) expect(isRole(value)).toBe(false);
  });

  test('the roles in words', () => {
    expect(rolesInWords(['owner'])).toBe('owner');
    expect(rolesInWords(['owner', 'admin'])).toBe('owner or admin');
    expect(rolesInWords(['owner', 'admin', 'sender'])).toBe('owner, admin or sender');
  });

  test('a role among those allowed passes; any other is refused with 403 forbidden-role naming the roles needed and the caller\'s', () => {
    expect(() => assertRole('sender', CHANGING_ROLES)).not.toThrow();
    expect(() => assertRole('owner', OWNER_ONLY)).not.toThrow();
    for (const [role, allowed, detail] of [
      ['viewer', CHANGING_ROLES, 'This needs the role owner, admin or sender; you are a viewer of your organization.'],
      ['sender', MANAGING_ROLES, 'This needs the role owner or admin; you are a sender of your organization.'],
      ['admin', OWNER_ONLY, 'This needs the role owner; you are an admin of your organization.'],
    ] as const) {
      let thrown: unknown;
      try {
        assertRole(role, allowed);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AppError);
      expect(thrown).toMatchObject({ code: 'forbidden', type: 'urn:problem:forbidden-role', detail });
    }
  });
});
