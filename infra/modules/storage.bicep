// The storage account: the service's data (tables, the containers (`sealed` under WORM) and the
// notification queues), the Functions host's own storage (AzureWebJobsStorage) and the Flex
// Consumption deployment container.
// Shared-key access is off, so nothing can use an account key or a key-signed SAS: the app signs
// user-delegation SAS with its managed identity, and operators use their Entra ID sign-in.

@minLength(3)
@maxLength(24)
@description('Name of the storage account (3 to 24 lower-case letters and digits, globally unique).')
param name string

@description('Azure region of the account.')
param location string

@description('Tags for the account.')
param tags object = {}

@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_GZRS'
  'Standard_RAGRS'
  'Standard_RAGZRS'
])
@description('Redundancy of the account. ZRS or GZRS keep documents through a zone outage where the region offers zones.')
param skuName string = 'Standard_LRS'

@description('Origins allowed to upload to and read from Blob storage in a browser (Blob CORS); [\'*\'] allows any, [] none.')
param allowedOrigins string[] = []

@description('Name of the blob container the Flex Consumption plan deploys the app package to.')
param deploymentContainerName string

@minValue(1)
@maxValue(365)
@description('Days a deleted blob or container, or a blob\'s earlier version, can still be restored.')
param softDeleteDays int = 7

@minValue(1)
@maxValue(146000)
@description('Days every sealed PDF stays immutable after it is written: the version-level WORM policy of container sealed (docs/deploy.md).')
param sealedRetentionDays int = 3650

// The service's containers and tables (docs/api.md#the-envelope, docs/api.md#what-completion-does, docs/api.md#evidence): documents holds the uploads (written
// through SAS), originals the frozen copy made when an envelope leaves draft (never writable by SAS),
// templates the uploads of templates (their frozen copies go to originals). The sealed PDFs have a
// container of their own, under a WORM policy (sealedContainer below).
var containerNames = [
  'documents'
  'originals'
  'templates'
]
// The tables: TABLES in src/lib/storage/clients.ts (tests/infra holds the two to the same set).
var tableNames = [
  'users'
  'invitations'
  'envelopes'
  'seals'
  'loginAttempts'
  'signingLinks'
  'dueOutbox'
  'dueExpiry'
  'dueReminders'
  'dueCompletions'
  'dueIdempotencyKeys'
  'dueRemovals'
  'dueLog'
  'webhooks'
  'webhookDeliveries'
  'apiKeys'
  'templates'
  'organizations'
  'publicLog'
  'publicLogState'
  'retention'
  'smsNumbers'
  'bulkJobs'
  'publicLinks'
]

// The queues of the queue-triggered functions (QUEUES in src/lib/storage/clients.ts): e-mail, text messages, webhook
// events, webhook delivery attempts, bulk jobs; and the `-poison` queue of each, where the Functions host moves
// a message after 5 failed tries. They all exist from the start, so nothing has to create a queue
// at run time; the poison alert (monitoring.bicep) watches the moves.
var queueNames = [
  'outbox-email'
  'outbox-email-poison'
  'outbox-sms'
  'outbox-sms-poison'
  'outbox-events'
  'outbox-events-poison'
  'webhook-deliveries'
  'webhook-deliveries-poison'
  'bulk-jobs'
  'bulk-jobs-poison'
]

// Browsers upload with PUT and read the SAS URLs with GET (docs/api.md#create-an-envelope-and-upload-its-document).
var corsRule = {
  allowedOrigins: allowedOrigins
  allowedMethods: [
    'GET'
    'HEAD'
    'PUT'
    'OPTIONS'
  ]
  allowedHeaders: [
    'content-type'
    'x-ms-*'
  ]
  exposedHeaders: [
    'content-length'
    'content-type'
    'etag'
    'x-ms-*'
  ]
  maxAgeInSeconds: 3600
}
var corsRules = empty(allowedOrigins) ? [] : [corsRule]

resource account 'Microsoft.Storage/storageAccounts@2023-05-01' = {
  name: name
  location: location
  tags: tags
  kind: 'StorageV2'
  sku: {
    name: skuName
  }
  properties: {
    accessTier: 'Hot'
    // No account keys: every caller authenticates with Entra ID.
    allowSharedKeyAccess: false
    defaultToOAuthAuthentication: true
    allowBlobPublicAccess: false
    allowCrossTenantReplication: false
    minimumTlsVersion: 'TLS1_2'
    supportsHttpsTrafficOnly: true
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
    dnsEndpointType: 'Standard'
  }
}

resource blobService 'Microsoft.Storage/storageAccounts/blobServices@2023-05-01' = {
  parent: account
  name: 'default'
  properties: {
    cors: {
      corsRules: corsRules
    }
    // Every overwrite or deletion keeps the blob's earlier version (restorable, docs/deploy.md); the
    // lifecycle rule below deletes earlier versions after softDeleteDays. Version-level immutability
    // (the sealed container) needs it.
    isVersioningEnabled: true
    // A deleted blob, and a deleted container, can be restored for softDeleteDays.
    deleteRetentionPolicy: {
      enabled: true
      days: softDeleteDays
    }
    containerDeleteRetentionPolicy: {
      enabled: true
      days: softDeleteDays
    }
  }
}

// Earlier versions (left by an overwrite or a deletion, docs/deploy.md) go after softDeleteDays, so that
// versioning does not keep deleted documents for ever: a purge is final once its restore window is over.
// A sealed PDF's version under its WORM period is kept until the period ends, whatever this rule says.
resource lifecycle 'Microsoft.Storage/storageAccounts/managementPolicies@2023-05-01' = {
  parent: account
  name: 'default'
  properties: {
    policy: {
      rules: [
        {
          enabled: true
          name: 'deleteEarlierVersions'
          type: 'Lifecycle'
          definition: {
            filters: {
              blobTypes: [
                'blockBlob'
              ]
            }
            actions: {
              version: {
                delete: {
                  daysAfterCreationGreaterThan: softDeleteDays
                }
              }
            }
          }
        }
      ]
    }
  }
  dependsOn: [
    blobService
  ]
}

resource containers 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = [
  for containerName in containerNames: {
    parent: blobService
    name: containerName
    properties: {
      publicAccess: 'None'
    }
  }
]

// The sealed PDFs (docs/api.md#sealed-pdfs-are-immutable): written once by the service (If-None-Match: *),
// under a version-level immutability policy (WORM): every version stays readable and can be neither
// deleted nor overwritten for sealedRetentionDays after it was written, by the service, an operator or
// anyone holding a key. The policy is left unlocked so that an operator can still lengthen or (before
// anything depends on it) shorten it; locking it (docs/deploy.md) makes it a compliance policy.
resource sealedContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: 'sealed'
  properties: {
    publicAccess: 'None'
    immutableStorageWithVersioning: {
      enabled: true
    }
  }
}

resource sealedImmutability 'Microsoft.Storage/storageAccounts/blobServices/containers/immutabilityPolicies@2023-05-01' = {
  parent: sealedContainer
  name: 'default'
  properties: {
    immutabilityPeriodSinceCreationInDays: sealedRetentionDays
    allowProtectedAppendWrites: false
    allowProtectedAppendWritesAll: false
  }
}

resource deploymentContainer 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = {
  parent: blobService
  name: deploymentContainerName
  properties: {
    publicAccess: 'None'
  }
}

resource tableService 'Microsoft.Storage/storageAccounts/tableServices@2023-05-01' = {
  parent: account
  name: 'default'
  properties: {}
}

resource tables 'Microsoft.Storage/storageAccounts/tableServices/tables@2023-05-01' = [
  for tableName in tableNames: {
    parent: tableService
    name: tableName
  }
]

resource queueService 'Microsoft.Storage/storageAccounts/queueServices@2023-05-01' = {
  parent: account
  name: 'default'
  properties: {}
}

resource queues 'Microsoft.Storage/storageAccounts/queueServices/queues@2023-05-01' = [
  for queueName in queueNames: {
    parent: queueService
    name: queueName
    properties: {
      metadata: {}
    }
  }
]

@description('Name of the storage account (the app\'s STORAGE_ACCOUNT_NAME).')
output name string = account.name

@description('Resource id of the storage account.')
output id string = account.id

@description('Blob endpoint, ending in a slash.')
output blobEndpoint string = account.properties.primaryEndpoints.blob

@description('Queue endpoint, ending in a slash.')
output queueEndpoint string = account.properties.primaryEndpoints.queue

