// Role assignments: what the Function App's managed identity may do, and optionally what the operator
// may do. Each is named with guid() over (scope, principal, role), so a redeployment finds the same
// assignment instead of failing on a duplicate. Role ids are Azure built-in roles:
// https://learn.microsoft.com/azure/role-based-access-control/built-in-roles

@description('Name of the storage account the app uses.')
param storageAccountName string

@description('Name of the Key Vault holding the app\'s secrets.')
param keyVaultName string

@description('Name of the Application Insights component the app reports to.')
param applicationInsightsName string

@description('Object (principal) id of the Function App\'s user-assigned managed identity.')
param appPrincipalId string

@description('Object id of the operator (a person or group); empty assigns nothing to an operator.')
param operatorPrincipalId string = ''

@allowed([
  'User'
  'Group'
  'ServicePrincipal'
])
@description('Kind of principal operatorPrincipalId is.')
param operatorPrincipalType string = 'User'

var roleIds = {
  storageBlobDataOwner: 'b7e6dc6d-f1e8-4753-8033-0f276bb0955b' // Storage Blob Data Owner
  storageTableDataContributor: '0a9a7e1f-b9d0-4cc4-a60d-0319b160aaa3' // Storage Table Data Contributor
  storageQueueDataContributor: '974c5e8b-45b9-4653-ba55-5f855dd0fb88' // Storage Queue Data Contributor
  keyVaultSecretsUser: '4633458b-17de-408a-b874-0445c86b69e6' // Key Vault Secrets User
  keyVaultSecretsOfficer: 'b86a8fe4-44ce-4948-aee5-eccb2c155cd7' // Key Vault Secrets Officer
  monitoringMetricsPublisher: '3913510d-42f4-4e42-8a64-420c390055eb' // Monitoring Metrics Publisher
}

resource storageAccount 'Microsoft.Storage/storageAccounts@2023-05-01' existing = {
  name: storageAccountName
}

resource keyVault 'Microsoft.KeyVault/vaults@2023-07-01' existing = {
  name: keyVaultName
}

resource applicationInsights 'Microsoft.Insights/components@2020-02-02' existing = {
  name: applicationInsightsName
}

// Storage Blob Data Owner for the app: the documents and sealed containers, the Functions host's own
// blobs (AzureWebJobsStorage), the deployment package, and user-delegation keys for upload and
// download SAS. Owner rather than Contributor because the Functions host docs ask for it on host storage.
resource appBlobDataOwner 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storageAccount.id, appPrincipalId, roleIds.storageBlobDataOwner)
  scope: storageAccount
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageBlobDataOwner)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Storage Table Data Contributor for the app: users, invitations, envelopes, seals, login attempts,
// signing links, the due index, webhooks and their deliveries.
resource appTableDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storageAccount.id, appPrincipalId, roleIds.storageTableDataContributor)
  scope: storageAccount
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageTableDataContributor)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Storage Queue Data Contributor for the app: it puts outbox messages and webhook delivery attempts
// on the queues, and its queue triggers (connection AzureWebJobsStorage) receive, update (retry
// visibility) and delete them and move failures to the -poison queues. Message Processor and
// Message Sender together would miss the update of a message's visibility on a retry.
resource appQueueDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(storageAccount.id, appPrincipalId, roleIds.storageQueueDataContributor)
  scope: storageAccount
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageQueueDataContributor)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Key Vault Secrets User for the app: resolves the Key Vault references in its app settings.
resource appKeyVaultSecretsUser 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(keyVault.id, appPrincipalId, roleIds.keyVaultSecretsUser)
  scope: keyVault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsUser)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Monitoring Metrics Publisher for the app: sends telemetry to Application Insights with Entra ID
// (the component has local authentication disabled).
resource appMonitoringMetricsPublisher 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(applicationInsights.id, appPrincipalId, roleIds.monitoringMetricsPublisher)
  scope: applicationInsights
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.monitoringMetricsPublisher)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

// Storage Table Data Contributor for the operator: `npm run invite` writes invitation codes with the
// operator's own `az login` identity.
resource operatorTableDataContributor 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(operatorPrincipalId)) {
  name: guid(storageAccount.id, operatorPrincipalId, roleIds.storageTableDataContributor)
  scope: storageAccount
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.storageTableDataContributor)
    principalId: operatorPrincipalId
    principalType: operatorPrincipalType
  }
}

// Key Vault Secrets Officer for the operator: puts in and rotates the JWT secret, the Turnstile secret
// and the sealing certificate (an RBAC-mode vault grants no data access to subscription owners).
resource operatorKeyVaultSecretsOfficer 'Microsoft.Authorization/roleAssignments@2022-04-01' = if (!empty(operatorPrincipalId)) {
  name: guid(keyVault.id, operatorPrincipalId, roleIds.keyVaultSecretsOfficer)
  scope: keyVault
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.keyVaultSecretsOfficer)
    principalId: operatorPrincipalId
    principalType: operatorPrincipalType
  }
}
