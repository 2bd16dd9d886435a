// The Function App's user-assigned managed identity. It is created before everything that trusts it,
// so the role assignments exist by the time the app first starts, and it survives a rebuilt app.

@description('Name of the user-assigned managed identity.')
param name string

@description('Azure region of the identity.')
param location string

@description('Tags for the identity.')
param tags object = {}

resource identity 'Microsoft.ManagedIdentity/userAssignedIdentities@2023-01-31' = {
  name: name
  location: location
  tags: tags
}

@description('Resource id of the identity (for the app\'s identity block and Key Vault references).')
output id string = identity.id

@description('Client (application) id: the app\'s AZURE_CLIENT_ID and AzureWebJobsStorage__clientId.')
output clientId string = identity.properties.clientId

@description('Object (principal) id: the principal of the role assignments.')
output principalId string = identity.properties.principalId

@description('Name of the identity.')
output name string = identity.name
