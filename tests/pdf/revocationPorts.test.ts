/**
 * Which ports the seal's long-term validation fetches (docs/seal-levels.md#how-the-service-gathers-the-data):
 * a URL a certificate names (OCSP responder, CRL distribution point, AIA caIssuers) is fetched only
 * on ports 80 and 443, unless the operator's own chains (the sealing certificate's, the timestamp
 * authority's) name it. Against the test PKI's real servers on loopback (any port), with loopback
 * allowed as `WEBHOOK_ALLOW_PRIVATE_NETWORKS=true` allows it: a certificate of someone else's
 * signature naming them gets nothing fetched, and the servers see no request.
 */
import { X509Certificate } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, beforeEach, describe, expect, test } from '@jest/globals';
import { checkedFetch, checkSourcePort, CheckedRevocationProvider, clearRevocationCache, fetchChecked, sourceUrlsOf, type FetchPolicy } from '../../src/lib/pdf/revocation.js';
import { startTestPki, type TestPki } from '../support/pki.js';

let pki: TestPki;
let seal: Uint8Array;
let intermediate: Uint8Array;

const der = async (file: string) => new Uint8Array(new X509Certificate(await readFile(file)).raw);

beforeAll(async () => {
  pki = await startTestPki();
  [seal, intermediate] = await Promise.all([der(pki.sealCertificateFile), der(pki.intermediateFile)]);
});
afterAll(async () => {
  await pki.close();
});
beforeEach(() => {
  clearRevocationCache();
});

const loopback: FetchPolicy = { allowPrivate: true };

describe('the port rule', () => {
  test('ports 80 and 443, written or implied by the scheme, pass; any other port is refused naming it', () => {
    for (const url of ['http://ocsp.example.com/', 'http://ocsp.example.com:80/a', 'https://crl.example.com/x.crl', 'https://crl.example.com:443/x.crl', 'http://ocsp.example.com:443/', 'https://ocsp.example.com:80/']) {
      expect(() => checkSourcePort(new URL(url), loopback)).not.toThrow();
    }
    for (const [url, port] of [['http://ocsp.example.com:8081/', 8081], ['https://crl.example.com:8443/x.crl', 8443], ['http://127.0.0.1:22/', 22], ['http://ocsp.example.com:1/', 1], ['https://ocsp.example.com:65535/', 65535]] as const) {
      expect(() => checkSourcePort(new URL(url), loopback)).toThrow(`port ${port} is not allowed`);
    }
  });

  test('a URL the operator\'s chains name may use its port; the same host on another path or port may not', () => {
    const url = new URL(`${pki.ocsp.origin}/ocsp`);
    const policy: FetchPolicy = { allowPrivate: true, anyPortUrls: new Set(sourceUrlsOf([seal, intermediate])) };
    expect(() => checkSourcePort(url, policy)).not.toThrow();
    expect(() => checkSourcePort(new URL(`${pki.ocsp.origin}/other`), policy)).toThrow('is not allowed');
    expect(() => checkSourcePort(new URL(`http://127.0.0.1:${Number(url.port) + 1}/ocsp`), policy)).toThrow('is not allowed');
  });
});

describe('certificates that are not the operator\'s (signatures already in an upload)', () => {
  test('OCSP, CRL and issuer URLs on another port are not fetched: the servers see no request', async () => {
    const before = { ocsp: pki.ocsp.requests, crl: pki.crl.requests };
    const provider = new CheckedRevocationProvider({ ...loopback });
    await expect(provider.getOCSP(seal, intermediate)).rejects.toThrow(/port \d+ is not allowed/);
    expect([...provider.failures.values()].join('\n')).toMatch(/port \d+ is not allowed/);
    expect(provider.obtained.size).toBe(0);
    await expect(fetchChecked(`${pki.crl.origin}/intermediate.crl`, { method: 'GET', accept: 'application/pkix-crl' }, loopback)).rejects.toThrow(/port \d+ is not allowed/);
    await expect(checkedFetch(() => loopback)(`${pki.crl.origin}/intermediate.crt`)).rejects.toThrow(/port \d+ is not allowed/);
    expect({ ocsp: pki.ocsp.requests, crl: pki.crl.requests }).toEqual(before);
  });

  test('the same certificates as the operator\'s chain: fetched on their port, and checked', async () => {
    const before = pki.ocsp.requests;
    const provider = new CheckedRevocationProvider({ ...loopback, anyPortUrls: new Set(sourceUrlsOf([seal, intermediate])) });
    expect(await provider.getOCSP(seal, intermediate)).toBeInstanceOf(Uint8Array);
    expect(provider.obtained.size).toBe(1);
    expect(pki.ocsp.requests).toBe(before + 1);
  });
});
