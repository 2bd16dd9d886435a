/**
 * A tiny authoritative DNS server on 127.0.0.1 (UDP, RFC 1035 wire format) answering A and AAAA
 * queries from a table the test controls, so resolution of webhook hosts is real DNS (c-ares through
 * `dns.Resolver`) with answers chosen per test: public addresses, private ones, a rebinding that
 * changes between two lookups, names that do not exist (NXDOMAIN).
 */
import { createSocket, type RemoteInfo } from 'node:dgram';
import ipaddr from 'ipaddr.js';

export interface DnsRecords {
  A?: string[];
  AAAA?: string[];
}

export interface FakeDns {
  /** `127.0.0.1:<port>`, for `dns.Resolver#setServers`. */
  server: string;
  /** Records by lower-case name (no trailing dot); change them at any time. */
  records: Map<string, DnsRecords>;
  /** Every query received, `<name> <A|AAAA|type number>`. */
  queries: string[];
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;

/** Starts the server on a free UDP port. */
export async function startFakeDns(): Promise<FakeDns> {
  const socket = createSocket('udp4');
  const records = new Map<string, DnsRecords>();
  const queries: string[] = [];
  socket.on('message', (message: Buffer, remote: RemoteInfo) => {
    const reply = answer(message, records, queries);
    if (reply !== null) socket.send(reply, remote.port, remote.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    records,
    queries,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}

function answer(query: Buffer, records: Map<string, DnsRecords>, queries: string[]): Buffer | null {
  if (query.length < 12 || query.readUInt16BE(4) !== 1) return null;
  // The question: labels, then type and class.
  const labels: string[] = [];
  let offset = 12;
  while (offset < query.length && query[offset] !== 0) {
    const length = query[offset]!;
    labels.push(query.subarray(offset + 1, offset + 1 + length).toString('ascii'));
    offset += 1 + length;
  }
  const questionEnd = offset + 5;
  if (questionEnd > query.length) return null;
  const type = query.readUInt16BE(offset + 1);
  const name = labels.join('.').toLowerCase();
  queries.push(`${name} ${type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : type}`);

  const entry = records.get(name);
  const addresses = entry === undefined ? [] : type === TYPE_A ? (entry.A ?? []) : type === TYPE_AAAA ? (entry.AAAA ?? []) : [];
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // QR, opcode 0, AA, RD copied, RA; RCODE 3 (NXDOMAIN) for unknown names.
  const recursionDesired = query[2]! & 0x01;
  header.writeUInt16BE(0x8400 | (recursionDesired << 8) | 0x0080 | (entry === undefined ? 3 : 0), 2);
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(addresses.length, 6);
  const question = query.subarray(12, questionEnd);
  const answers = addresses.map((address) => {
    const bytes = Buffer.from(ipaddr.parse(address).toByteArray());
    const record = Buffer.alloc(12);
    record.writeUInt16BE(0xc00c, 0); // pointer to the name in the question
    record.writeUInt16BE(type, 2);
    record.writeUInt16BE(1, 4); // class IN
    record.writeUInt32BE(0, 6); // TTL 0: never cached
    record.writeUInt16BE(bytes.length, 10);
    return Buffer.concat([record, bytes]);
  });
  return Buffer.concat([header, question, ...answers]);
}
