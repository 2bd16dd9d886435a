/**
 * How the service names a person it has an address for (docs/api.md#accounts): `Ada Lovelace <ada@example.com>`
 * when a display name is known, else the address alone. The form of RFC 5322's `name-addr`, for people
 * to read (e-mail bodies, the certificate of completion); never used as a header.
 */
export function nameAndAddress(name: string | null | undefined, address: string): string {
  const trimmed = name?.trim() ?? '';
  return trimmed === '' ? address : `${trimmed} <${address}>`;
}
