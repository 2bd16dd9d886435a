// Key Vault in RBAC mode: the only place the service's secrets live (the JWT signing key, the public
// log's signing key, the Turnstile secret, the sealing certificate and its passphrase, the
// Communication Service's connection string and the shared secret of its events). The Function App reads them through
// Key Vault references in its app settings, with its user-assigned identity (Key Vault Secrets User).
//
// Secrets are normally put in with `az keyvault secret set` (docs/deploy.md). A deployment that is
// given a secure parameter writes that secret too; one that is not given it leaves the secret alone.

@minLength(3)
@maxLength(24)
@description('Name of the vault (3 to 24 letters, digits and hyphens, globally unique).')
param name string

@description('Azure region of the vault.')
param location string

@description('Tags for the vault.')
param tags object = {}

@description('Turn on purge protection: a deleted vault or secret cannot be purged before the 90-day retention ends. Once on, it cannot be turned off.')
param enablePurgeProtection bool = true

@description('Names of the secrets in the vault: { jwtSecret, logSigningKey, turnstileSecretKey, sealP12Base64, sealP12Passphrase, acsConnectionString, acsEventSecret }.')
param secretNames object

@secure()
@description('Optional: writes the JWT signing key (at least 32 bytes). Empty leaves the secret as it is.')
param jwtSecret string = ''

@secure()
@description('Optional: writes the public log\'s signing key (32 random bytes in base64, an Ed25519 seed). Empty leaves the secret as it is.')
param logSigningKey string = ''

@secure()
@description('Optional: writes the Cloudflare Turnstile secret key. Empty leaves the secret as it is.')
param turnstileSecretKey string = ''

@secure()
@description('Optional: writes the sealing certificate, base64 of a PKCS#12 file. Empty leaves the secret as it is.')
param sealP12Base64 string = ''

@secure()
@description('Optional: writes the passphrase of the sealing certificate. Empty leaves the secret as it is.')
param sealP12Passphrase string = ''

@secure()
@description('Optional: writes the Communication Service\'s connection string (ACS_CONNECTION_STRING). Empty leaves the secret as it is.')
param acsConnectionString string = ''

@secure()
@description('Optional: writes the shared secret of Communication Services\' events (ACS_EVENT_SECRET). Empty leaves the secret as it is.')
param acsEventSecret string = ''

resource vault 'Microsoft.KeyVault/vaults@2023-07-01' = {
  name: name
  location: location
  tags: tags
  properties: {
    tenantId: tenant().tenantId
    sku: {
      family: 'A'
      name: 'standard'
    }
    // Access through Azure RBAC role assignments only, no access policies.
    enableRbacAuthorization: true
    enableSoftDelete: true
    softDeleteRetentionInDays: 90
    // The API accepts true or no value, never false.
    enablePurgeProtection: enablePurgeProtection ? true : null
    enabledForDeployment: false
    enabledForDiskEncryption: false
    enabledForTemplateDeployment: false
    publicNetworkAccess: 'Enabled'
    networkAcls: {
      defaultAction: 'Allow'
      bypass: 'AzureServices'
    }
  }
}

resource jwtSecretValue 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(jwtSecret)) {
  parent: vault
  name: secretNames.jwtSecret
  properties: {
    value: jwtSecret
    contentType: 'text/plain'
  }
}

resource logSigningKeyValue 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(logSigningKey)) {
  parent: vault
  name: secretNames.logSigningKey
  properties: {
    value: logSigningKey
    contentType: 'text/plain'
  }
}

resource turnstileSecretValue 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(turnstileSecretKey)) {
  parent: vault
  name: secretNames.turnstileSecretKey
  properties: {
    value: turnstileSecretKey
    contentType: 'text/plain'
  }
}

resource sealP12Value 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(sealP12Base64)) {
  parent: vault
  name: secretNames.sealP12Base64
  properties: {
    value: sealP12Base64
    contentType: 'application/x-pkcs12;base64'
  }
}

resource sealPassphraseValue 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(sealP12Passphrase)) {
  parent: vault
  name: secretNames.sealP12Passphrase
  properties: {
    value: sealP12Passphrase
    contentType: 'text/plain'
  }
}

resource acsConnectionStringValue 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(acsConnectionString)) {
  parent: vault
  name: secretNames.acsConnectionString
  properties: {
    value: acsConnectionString
    contentType: 'text/plain'
  }
}

resource acsEventSecretValue 'Microsoft.KeyVault/vaults/secrets@2023-07-01' = if (!empty(acsEventSecret)) {
  parent: vault
  name: secretNames.acsEventSecret
  properties: {
    value: acsEventSecret
    contentType: 'text/plain'
  }
}

@description('Name of the vault.')
output name string = vault.name

@description('URI of the vault, ending in a slash.')
output uri string = vault.properties.vaultUri
