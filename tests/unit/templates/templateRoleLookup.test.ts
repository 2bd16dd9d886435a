/**
 * The role a template's text tag names (`templates/detectFields.ts` `roleNamed`, docs/api.md#fields-from-the-document): by
 * name without regard to case, of role `signer`; none given, the first role of role `signer`.
 */
import { describe, expect, test } from '@jest/globals';
import { roleNamed } from '../../../src/lib/templates/detectFields.js';
import type { TemplateRole } from '../../../src/lib/templates/model.js';

const roles: TemplateRole[] = [
  { id: 'w', name: 'Witness', role: 'cc', routingOrder: 1 },
  { id: 'c', name: 'Client', role: 'signer', routingOrder: 1 },
  { id: 'l', name: 'Landlord', role: 'signer', routingOrder: 2 },
];

describe('roleNamed', () => {
  test('by name, without regard to case', () => {
    expect(roleNamed(roles, 'landlord')).toEqual({ assignee: roles[2] });
    expect(roleNamed(roles, 'CLIENT')).toEqual({ assignee: roles[1] });
  });
  test('none given: the first role of role signer, skipping others', () => {
    expect(roleNamed(roles, undefined)).toEqual({ assignee: roles[1] });
    expect(roleNamed([roles[0]!], undefined)).toEqual({ error: 'names no role: the template has no role with role signer' });
  });
  test('an unknown name, or a role not of role signer, is an error naming the roles', () => {
    expect(roleNamed(roles, 'Tenant')).toEqual({ error: 'names no role of this template (its roles: "Witness", "Client", "Landlord")' });
    expect(roleNamed(roles, 'witness')).toEqual({ error: 'names role "Witness", whose role is cc; only a role of role signer fills fields' });
    expect(roleNamed(roles, '2')).toHaveProperty('error');
  });
});
