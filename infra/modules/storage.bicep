// The storage account: the service's data (tables, the `documents` and `sealed` containers and the
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
@description('Days a deleted blob or container can still be restored.')
param softDeleteDays int = 7

// The service's containers and tables (docs/api.md#the-envelope, docs/api.md#what-completion-does, docs/api.md#evidence): documents holds the uploads (written
// through SAS), originals the frozen copy made when an envelope leaves draft (never writable by SAS),
// sealed the sealed PDFs, templates the uploads of templates (their frozen copies go to originals).
var containerNames = [
  'documents'
  'originals'
  'sealed'
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
  'webhooks'
  'webhookDeliveries'
  'apiKeys'
  'templates'
  'organizations'
  'bulkJobs'
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

resource containers 'Microsoft.Storage/storageAccounts/blobServices/containers@2023-05-01' = [
  for containerName in containerNames: {
    parent: blobService
    name: containerName
    properties: {
      publicAccess: 'None'
    }
  }
]

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

