/**
 * Every owner function declares the roles it admits in its registration (docs/api.md#roles):
 * `httpFunction` refuses an owner function (`bearer` or `jwt`) without them, and records them in
 * `registeredRoutes` for the guard and the tests; other functions need none.
 */
import { describe, expect, test } from '@jest/globals';
import { disableFunctionsHostRegistration, httpFunction, registeredRoutes } from '../../../src/lib/http/register.js';

disableFunctionsHostRegistration();

const declare = (name: string, options: Record<string, unknown>) => () =>
  httpFunction(name, { methods: ['GET'], authLevel: 'anonymous', route: `test/${name}`, loadHandler: async () => async () => ({ status: 204 }), ...options } as unknown as Parameters<typeof httpFunction>[1]);

describe('declaring roles', () => {
  test('an owner function without roles, or with none, is not registered', () => {
    for (const access of ['bearer', 'jwt']) {
      expect(declare(`NoRoles${access}`, { access })).toThrow('roles');
      expect(declare(`EmptyRoles${access}`, { access, roles: [] })).toThrow('roles');
    }
    expect(registeredRoutes.some((route) => route.name.includes('Roles'))).toBe(false);
  });

  test('an owner function\'s roles are recorded with its route; a public function needs none', () => {
    expect(declare('SendersAndUp', { access: 'bearer', roles: ['owner', 'admin', 'sender'] })).not.toThrow();
    expect(registeredRoutes.find((route) => route.name === 'SendersAndUp')?.roles).toEqual(['owner', 'admin', 'sender']);
    expect(declare('OpenToAll', { access: 'public' })).not.toThrow();
    expect(registeredRoutes.find((route) => route.name === 'OpenToAll')?.roles).toBeUndefined();
  });
});
