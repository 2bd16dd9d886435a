/**
 * The recipients the end-to-end tests name, one of each role, as an envelope's `signers` entry takes
 * them. Their addresses are the same in every test: tests that need an address nobody else uses make
 * their own.
 */
export const ada = { email: 'ada@example.com', name: 'Ada Lovelace', role: 'signer' };
export const bea = { email: 'bea@example.com', name: 'Bea Signer', role: 'signer' };
export const bob = { email: 'bob@example.com', name: 'Bob Approver', role: 'approver' };
export const vic = { email: 'vic@example.com', name: 'Vic Viewer', role: 'viewer' };
export const cat = { email: 'cat@example.com', name: 'Cat Copy', role: 'cc' };
