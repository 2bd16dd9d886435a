/**
 * Blob SAS URLs (CONTRACT §3, §4). Two signing paths behind one interface, giving the same
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
 * nothing else: no read, list or delete (upload URLs, CONTRACT §4).
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

/** Containers no SAS may write to: frozen documents (CONTRACT §4) and sealed PDFs. */
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

class SharedKeySasSigner implements SasSigner {
  readonly kind = 'sharedKey';
  private readonly urls: BlobUrls;

  constructor(private readonly blobService: BlobServiceClient) {
    this.urls = new BlobUrls(blobService);
  }

  async blobUrl(containerName: string, blobName: string, options: BlobSasOptions): Promise<string> {
    const credential = this.blobService.credential;
    if (!(credential instanceof StorageSharedKeyCredential)) {
      throw new RangeError('A shared-key SAS needs a Blob client built with the account key.');
    }
    const query = generateBlobSASQueryParameters(
      {
        containerName,
        blobName,
        permissions: permissionsOf(containerName, options.access),
        expiresOn: new Date(Date.now() + options.expiresInSeconds * 1000),
        protocol: protocolFor(this.blobService),
      },
      credential,
    );
    return `${this.urls.of(containerName, blobName)}?${query.toString()}`;
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
    const query = generateBlobSASQueryParameters(
      {
        containerName,
        blobName,
        permissions: permissionsOf(containerName, options.access),
        startsOn: new Date(now.getTime() - CLOCK_SKEW_MS),
        expiresOn: new Date(now.getTime() + options.expiresInSeconds * 1000),
        protocol: protocolFor(this.blobService),
        ...(this.version === undefined ? {} : { version: this.version }),
      },
      key,
      this.blobService.accountName,
    );
    return `${this.urls.of(containerName, blobName)}?${query.toString()}`;
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
