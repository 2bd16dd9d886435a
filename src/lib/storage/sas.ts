/**
 * Blob SAS URLs (docs/api.md#the-envelope, docs/api.md#create-an-envelope-and-upload-its-document). Two signing paths behind one interface, giving the same
 * permissions and lifetimes: the account key (connection strings, Azurite) or a user delegation key
 * (managed identity; the account allows no shared-key access).
 */
import {
  BlobSASPermissions,
  SASProtocol,
  StorageSharedKeyCredential,
  generateBlobSASQueryParameters,
  type BlobServiceClient,
  type UserDelegationKey,
} from '@azure/storage-blob';

/**
 * `read`: download one blob (document and sealed URLs). `createWrite`: create or overwrite one blob,
 * nothing else: no read, list or delete (upload URLs, docs/api.md#create-an-envelope-and-upload-its-document).
 */
export type SasAccess = 'read' | 'createWrite';

export interface BlobSasOptions {
  access: SasAccess;
  /** Lifetime from now, seconds (1 to 86400). */
  expiresInSeconds: number;
}

export interface SasSigner {
  /** Which key signs: the account key, or a user delegation key obtained with the managed identity. */
  readonly kind: 'sharedKey' | 'userDelegation';
  /**
   * A URL for one blob carrying a SAS limited to that blob, `access` and `expiresInSeconds`.
   * HTTPS-only unless the storage endpoint itself is plain HTTP (Azurite on a laptop).
   */
  blobUrl(containerName: string, blobName: string, options: BlobSasOptions): Promise<string>;
}

export type SasSignerSettings =
  | { kind: 'sharedKey'; blobService: BlobServiceClient }
  | {
      kind: 'userDelegation';
      blobService: BlobServiceClient;
      now?: () => Date;
      /**
       * SAS service version to sign for; default the SDK's own. Only tests set it: Azurite 3.35 (the
       * newest that runs on Node 20) validates user-delegation SAS up to version 2025-07-05.
       */
      version?: string;
    };

const permissionsFor: Record<SasAccess, string> = { read: 'r', createWrite: 'cw' };

/** Containers no SAS may write to: frozen documents (docs/api.md#create-an-envelope-and-upload-its-document) and sealed PDFs. */
const READ_ONLY_CONTAINERS = new Set(['originals', 'sealed']);

function permissionsOf(containerName: string, access: SasAccess): BlobSASPermissions {
  if (access !== 'read' && READ_ONLY_CONTAINERS.has(containerName)) throw new RangeError(`No SAS grants ${access} on container ${containerName}.`);
  return BlobSASPermissions.parse(permissionsFor[access]);
}

/** Creates the signer for the storage account's credential type. */
export function createSasSigner(settings: SasSignerSettings): SasSigner {
  return settings.kind === 'sharedKey'
    ? new SharedKeySasSigner(settings.blobService)
    : new UserDelegationSasSigner(settings.blobService, settings.now ?? (() => new Date()), settings.version);
}

function protocolFor(blobService: BlobServiceClient): SASProtocol {
  return blobService.url.startsWith('https:') ? SASProtocol.Https : SASProtocol.HttpsAndHttp;
}

/**
 * Blob URLs spelled as the SDK spells `getContainerClient(c).getBlockBlobClient(b).url` (each segment
 * of the blob name percent-encoded), without building those two clients for every URL: that was the
 * largest part of a read request's CPU time (bench/README.md).
 */
export class BlobUrls {
  private readonly containers = new Map<string, string>();

  constructor(private readonly blobService: BlobServiceClient) {}

  of(containerName: string, blobName: string): string {
    let containerUrl = this.containers.get(containerName);
    if (containerUrl === undefined) {
      containerUrl = this.blobService.getContainerClient(containerName).url;
      this.containers.set(containerName, containerUrl);
    }
    const url = new URL(containerUrl);
    // The SDK's EscapePath, then its escapeURLPath, which also escapes the one character left: `'`.
    const escaped = blobName.split('/').map(encodeURIComponent).join('/').replace(/'/g, '%27');
    url.pathname = url.pathname.endsWith('/') ? `${url.pathname}${escaped}` : `${url.pathname}/${escaped}`;
    return url.toString();
  }
}

/** Most URLs {@link SameSecondUrls} keeps within one second. */
const SAME_SECOND_URLS = 1_000;

/**
 * The SAS URLs signed in the current wall-clock second, by blob, access and expiry second. A SAS
 * carries its start and expiry in whole seconds (the SDK truncates both), so a URL signed for the
 * same blob, permissions, start second and expiry second with the same key is exactly the string
 * signing again would give: reusing it changes nothing a client can see, and saves the HMAC and the
 * SDK's query building for repeated reads of one envelope. Emptied when the second or the key
 * changes; at most {@link SAME_SECOND_URLS} entries.
 */
class SameSecondUrls {
  private second = Number.NaN;
  private key: unknown;
  private readonly urls = new Map<string, string>();

  /** The URL signed by `sign` for these inputs in second `nowMs` with `key`, signing only the first time. */
  get(nowMs: number, key: unknown, inputs: string, sign: () => string): string {
    const second = Math.floor(nowMs / 1000);
    if (second !== this.second || key !== this.key) {
      this.urls.clear();
      this.second = second;
      this.key = key;
    }
    let url = this.urls.get(inputs);
    if (url === undefined) {
      url = sign();
      if (this.urls.size < SAME_SECOND_URLS) this.urls.set(inputs, url);
    }
    return url;
  }
}

/** What, besides the current second and the key, decides a SAS URL's text. */
function urlInputs(containerName: string, blobName: string, access: SasAccess, expiresOn: Date): string {
  return `${containerName}\n${blobName}\n${access}\n${Math.floor(expiresOn.getTime() / 1000)}`;
}

class SharedKeySasSigner implements SasSigner {
  readonly kind = 'sharedKey';
  private readonly urls: BlobUrls;
  private readonly recent = new SameSecondUrls();

  constructor(private readonly blobService: BlobServiceClient) {
    this.urls = new BlobUrls(blobService);
  }

  async blobUrl(containerName: string, blobName: string, options: BlobSasOptions): Promise<string> {
    const credential = this.blobService.credential;
    if (!(credential instanceof StorageSharedKeyCredential)) {
      throw new RangeError('A shared-key SAS needs a Blob client built with the account key.');
    }
    const now = Date.now();
    const expiresOn = new Date(now + options.expiresInSeconds * 1000);
    return this.recent.get(now, credential, urlInputs(containerName, blobName, options.access, expiresOn), () => {
      const query = generateBlobSASQueryParameters(
        {
          containerName,
          blobName,
          permissions: permissionsOf(containerName, options.access),
          expiresOn,
          protocol: protocolFor(this.blobService),
        },
        credential,
      );
      return `${this.urls.of(containerName, blobName)}?${query.toString()}`;
    });
  }
}

/** How long a user delegation key is requested for, and how much validity it must still have to be reused. */
const KEY_LIFETIME_MS = 2 * 24 * 3600 * 1000;
const KEY_MIN_REMAINING_MS = 24 * 3600 * 1000 + 5 * 60 * 1000;
const CLOCK_SKEW_MS = 5 * 60 * 1000;

class UserDelegationSasSigner implements SasSigner {
  readonly kind = 'userDelegation';
  private key: Promise<UserDelegationKey> | undefined;
  private keyExpiresAt = 0;
  private readonly urls: BlobUrls;
  private readonly recent = new SameSecondUrls();

  constructor(
    private readonly blobService: BlobServiceClient,
    private readonly now: () => Date,
    private readonly version: string | undefined,
  ) {
    this.urls = new BlobUrls(blobService);
  }

  async blobUrl(containerName: string, blobName: string, options: BlobSasOptions): Promise<string> {
    const now = this.now();
    const key = await this.delegationKey(now);
    const expiresOn = new Date(now.getTime() + options.expiresInSeconds * 1000);
    // The start (now less a whole number of seconds) falls in the same second whenever `now` does.
    return this.recent.get(now.getTime(), key, urlInputs(containerName, blobName, options.access, expiresOn), () => {
      const query = generateBlobSASQueryParameters(
        {
          containerName,
          blobName,
          permissions: permissionsOf(containerName, options.access),
          startsOn: new Date(now.getTime() - CLOCK_SKEW_MS),
          expiresOn,
          protocol: protocolFor(this.blobService),
          ...(this.version === undefined ? {} : { version: this.version }),
        },
        key,
        this.blobService.accountName,
      );
      return `${this.urls.of(containerName, blobName)}?${query.toString()}`;
    });
  }

  /** The cached user delegation key, renewed while it still has at least a day (the longest SAS) left. */
  private async delegationKey(now: Date): Promise<UserDelegationKey> {
    if (this.key === undefined || this.keyExpiresAt - now.getTime() < KEY_MIN_REMAINING_MS) {
      const expiresOn = new Date(now.getTime() + KEY_LIFETIME_MS);
      const request = this.blobService.getUserDelegationKey(new Date(now.getTime() - CLOCK_SKEW_MS), expiresOn);
      this.key = request;
      this.keyExpiresAt = expiresOn.getTime();
      request.catch(() => {
        if (this.key === request) this.key = undefined;
      });
    }
    return await this.key;
  }
}
