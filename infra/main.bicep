// Everything one environment of the envelope signing service runs on, in one subscription-scope
// deployment: a resource group with the Function App (Flex Consumption, Node 22, user-assigned
// managed identity), its storage account (tables, containers, queues), Key Vault, Application
// Insights with Log Analytics and a poison-queue alert, Azure Communication Services for e-mail,
// and the role assignments that tie them together.
//
//   azd up                                  (azure.yaml, parameters from main.parameters.json)
//   az deployment sub create --location <region> --template-file infra/main.bicep \
//     --parameters environmentName=<name> location=<region> operatorPrincipalId=<object id>
//
// docs/deploy.md walks through both; .github/workflows/deploy.yml runs the second on every push to
// main. No secret is a parameter default or an output: secrets live in Key Vault only.
targetScope = 'subscription'

metadata description = 'Envelope signing service on Azure Functions (Flex Consumption) with managed identity, Key Vault and Application Insights.'

@minLength(1)
@maxLength(40)
@description('Name of the environment, such as prod or staging. It names the resource group (rg-<name>) and seeds the other resource names, so one subscription can hold several environments.')
param environmentName string

@minLength(1)
@description('Azure region of every resource. It must offer the Flex Consumption plan with Node 22: az functionapp list-flexconsumption-locations.')
@metadata({
  azd: {
    type: 'location'
  }
})
param location string

@description('Name of the resource group to create; empty means rg-<environmentName>.')
param resourceGroupName string = ''

@description('Comma-separated origins allowed to call the API and to upload to Blob storage from a browser, such as https://sign.example.com; empty or * allows any origin (the API authenticates with bearer tokens, not cookies).')
param allowedOrigins string = ''

@description('Object id of the operator (a person or an Entra ID group) who creates invitation codes and rotates secrets. It gets Storage Table Data Contributor on the storage account and Key Vault Secrets Officer on the vault. Empty assigns nothing.')
param operatorPrincipalId string = ''

@allowed([
  ''
  'User'
  'Group'
  'ServicePrincipal'
])
@description('Kind of principal operatorPrincipalId is; empty means User.')
param operatorPrincipalType string = ''

@allowed([
  ''
  'off'
  'optional'
  'required'
])
@description('Cloudflare Turnstile on Register and Login: off (tokens are ignored), optional (a token that is sent is verified) or required. Put the secret turnstile-secret-key in Key Vault before turning it on. Empty means off.')
param turnstileMode string = ''

@description('Cloudflare Turnstile site key (public, not a secret) of the widget whose secret is turnstile-secret-key: the public link page shows the widget with it. Empty shows none; used only when turnstileMode is not off.')
param turnstileSiteKey string = ''

@description('URL of an RFC 3161 timestamp authority; seals then carry a signature timestamp and, by default, long-term validation data (PAdES B-LTA). Empty seals without one (B-B).')
param tsaUrl string = ''

@description('PAdES level of every seal (SEAL_LEVEL): B-B, B-T, B-LT or B-LTA. Empty means B-LTA with a timestamp authority, else B-B. B-T and above need tsaUrl.')
@allowed([
  ''
  'B-B'
  'B-T'
  'B-LT'
  'B-LTA'
])
param sealLevel string = ''

@description('Origin that links in e-mails point at (PUBLIC_BASE_URL), such as https://sign.example.com when a custom domain fronts the app; empty means the Function App\'s own https://<host name>.')
param publicBaseUrl string = ''

@description('E-mail address told when a queue message is poisoned (an e-mail not sent, a webhook event not delivered); empty shows the alert in the portal only.')
param alertEmail string = ''

@allowed([
  'Africa'
  'Asia Pacific'
  'Australia'
  'Brazil'
  'Canada'
  'Europe'
  'France'
  'Germany'
  'India'
  'Japan'
  'Korea'
  'Norway'
  'Switzerland'
  'UAE'
  'UK'
  'United States'
])
@description('Where Azure Communication Services (e-mail) keeps its data at rest.')
param emailDataLocation string = 'Europe'

@description('Sender of every e-mail (EMAIL_FROM); empty means "Envelope Signing <DoNotReply@<the Azure-managed domain>>". A custom address must belong to a domain linked to the Communication Service.')
param emailFrom string = ''

@description('NCRONTAB schedule of the sweeper (SWEEP_SCHEDULE): six fields, seconds first, UTC. It expires envelopes, sends reminders and re-queues stale notifications.')
param sweepSchedule string = '0 */5 * * * *'

@description('Delays between webhook delivery attempts (WEBHOOK_RETRY_SECONDS), comma-separated seconds; after the last, a delivery is failed.')
param webhookRetrySeconds string = '5,300,1800,7200,18000,36000,36000'

@minValue(1)
@maxValue(365)
@description('Default lifetime of a sent envelope without expiresAt, days (ENVELOPE_TTL_DAYS).')
param envelopeTtlDays int = 30

@minValue(1)
@maxValue(146000)
@description('Days every sealed PDF stays immutable after it is written (SEALED_RETENTION_DAYS): the version-level WORM policy of container sealed. Nobody, not even the subscription owner or someone holding the storage key, can delete or overwrite a sealed PDF before then; once the policy is locked it can only be lengthened.')
param sealedRetentionDays int = 3650

@description('JWT iss claim of the access tokens.')
param jwtIssuer string = 'envelope-signing-service'

@description('JWT aud claim of the access tokens.')
param jwtAudience string = 'envelope-api'

@minValue(60)
@maxValue(86400)
@description('Lifetime of an access token, seconds.')
param jwtTtlSeconds int = 3600

@minValue(10)
@maxValue(15)
@description('bcrypt cost of password hashes; each step doubles the time of a login.')
param bcryptCost int = 12

@minValue(1)
@maxValue(86400)
@description('Lifetime of an upload SAS URL, seconds.')
param uploadUrlTtlSeconds int = 900

@minValue(1)
@description('Requests per owner and minute on the owner endpoints, per instance (RATE_LIMIT_PER_MINUTE).')
param rateLimitPerMinute int = 600

@minValue(1)
@description('Register and Login requests per client address and minute, per instance (AUTH_RATE_LIMIT_PER_MINUTE).')
param authRateLimitPerMinute int = 20

@minValue(0)
@maxValue(99)
@description('Proxies of your own in front of the app (Front Door, Application Gateway) that append to X-Forwarded-For (TRUST_PROXY); 0 when clients reach the app directly.')
param trustProxy int = 0

@minValue(1)
@maxValue(64)
@description('bcrypt hashes running at once per instance; four times as many may wait (MAX_CONCURRENT_PASSWORD_HASHES).')
param maxConcurrentBcryptHashes int = 4

@minValue(1)
@description('E-mails an owner\'s sends and resends may queue per UTC day (EMAIL_DAILY_QUOTA).')
param emailDailyQuota int = 1000

@description('Sender of text messages (SMS_FROM): a number bought in the Communication Service, in E.164 (+18005550100), or an alphanumeric sender id (1 to 11 letters, digits and spaces) where its countries allow one. Empty: no text messages (ACS_CONNECTION_STRING, SMS_FROM and ACS_EVENT_SECRET are not set).')
param smsFrom string = ''

@minValue(1)
@description('Text messages an organization\'s sends and resends may queue per UTC day (SMS_DAILY_QUOTA).')
param smsDailyQuota int = 100

@minValue(60)
@maxValue(86400)
@description('How long the token of an embedded signing view works, seconds (EMBED_TOKEN_TTL_SECONDS).')
param embedTokenTtlSeconds int = 900

@minValue(1)
@maxValue(86400)
@description('Least time between two signed tree heads of the public log, and most before a completion is covered by one, seconds (LOG_STH_INTERVAL_SECONDS).')
param logSthIntervalSeconds int = 3600

@minValue(1024)
@description('Largest document accepted, bytes (default 25 MiB).')
param maxDocumentBytes int = 26214400

@allowed([
  2048
  4096
])
@description('Memory of each Function App instance, MB.')
param instanceMemoryMB int = 2048

@minValue(1)
@maxValue(1000)
@description('Most instances the Function App scales out to; a ceiling on cost under load.')
param maximumInstanceCount int = 40

@minValue(0)
@maxValue(20)
@description('Instances kept warm for the HTTP functions. 0 scales to zero: nothing to pay while idle, a cold start of a few seconds on the first request.')
param httpAlwaysReadyInstances int = 0

@allowed([
  'Standard_LRS'
  'Standard_ZRS'
  'Standard_GRS'
  'Standard_GZRS'
  'Standard_RAGRS'
  'Standard_RAGZRS'
])
@description('Redundancy of the storage account that holds the documents.')
param storageSkuName string = 'Standard_LRS'

@minValue(30)
@maxValue(730)
@description('Days Log Analytics keeps logs and telemetry.')
param logRetentionInDays int = 30

@description('Daily log ingestion cap, GB; -1 means no cap.')
param logDailyQuotaGb int = 1

@description('Purge protection on the Key Vault: deleted secrets and the vault itself stay recoverable for 90 days. Once on, it cannot be turned off.')
param keyVaultPurgeProtection bool = true

@description('Extra tags for every resource.')
param tags object = {}

@secure()
@description('Optional: writes the JWT signing key (at least 32 bytes) to Key Vault. Usually left empty and set with az keyvault secret set (docs/deploy.md).')
param jwtSecret string = ''

@secure()
@description('Optional: writes the public log\'s signing key (32 random bytes in base64, an Ed25519 seed) to Key Vault. Usually left empty and set with az keyvault secret set (docs/deploy.md).')
param logSigningKey string = ''

@secure()
@description('Optional: writes the Cloudflare Turnstile secret key to Key Vault.')
param turnstileSecretKey string = ''

@secure()
@description('Optional: writes the sealing certificate (base64 of a PKCS#12 file) to Key Vault.')
param sealP12Base64 string = ''

@secure()
@description('Optional: writes the passphrase of the sealing certificate to Key Vault.')
param sealP12Passphrase string = ''

@secure()
@description('Optional: writes the Communication Service\'s connection string (ACS_CONNECTION_STRING, from az communication list-key) to Key Vault. Usually left empty and set with az keyvault secret set (docs/deploy.md).')
param acsConnectionString string = ''

@secure()
@description('The shared secret of Communication Services\' events (ACS_EVENT_SECRET, 32 to 128 letters, digits, _ and -): written to Key Vault, and into the Event Grid subscription\'s URL, which is created only when it is given (after the app\'s code is deployed, docs/deploy.md).')
param acsEventSecret string = ''

var resourceToken = toLower(uniqueString(subscription().id, environmentName, location))
// Empty parameters mean the default (azd and the workflow pass '' for an unset variable); spelled
// out so the modules get exactly their allowed values.
var turnstile = turnstileMode == 'required' ? 'required' : (turnstileMode == 'optional' ? 'optional' : 'off')
var operatorKind = operatorPrincipalType == 'Group' ? 'Group' : (operatorPrincipalType == 'ServicePrincipal' ? 'ServicePrincipal' : 'User')
var allTags = union(tags, { 'azd-env-name': environmentName })
var functionAppName = 'func-${resourceToken}'
var deploymentContainerName = 'app-package'

// Names of the secrets in Key Vault; the app settings reference them (functionapp.bicep).
var secretNames = {
  jwtSecret: 'jwt-secret'
  logSigningKey: 'log-signing-key'
  turnstileSecretKey: 'turnstile-secret-key'
  sealP12Base64: 'seal-p12-base64'
  sealP12Passphrase: 'seal-p12-passphrase'
  acsConnectionString: 'acs-connection-string'
  acsEventSecret: 'acs-event-secret'
}

resource rg 'Microsoft.Resources/resourceGroups@2024-03-01' = {
  name: empty(resourceGroupName) ? 'rg-${environmentName}' : resourceGroupName
  location: location
  tags: allTags
}

module identity 'modules/identity.bicep' = {
  name: 'identity'
  scope: rg
  params: {
    name: 'id-${resourceToken}'
    location: location
    tags: allTags
  }
}

module monitoring 'modules/monitoring.bicep' = {
  name: 'monitoring'
  scope: rg
  params: {
    logAnalyticsName: 'log-${resourceToken}'
    applicationInsightsName: 'appi-${resourceToken}'
    location: location
    tags: allTags
    retentionInDays: logRetentionInDays
    dailyQuotaGb: logDailyQuotaGb
    alertEmail: alertEmail
  }
}

module email 'modules/email.bicep' = {
  name: 'email'
  scope: rg
  params: {
    communicationServiceName: 'acs-${resourceToken}'
    emailServiceName: 'ecs-${resourceToken}'
    dataLocation: emailDataLocation
    appPrincipalId: identity.outputs.principalId
    tags: allTags
  }
}

module storage 'modules/storage.bicep' = {
  name: 'storage'
  scope: rg
  params: {
    name: 'st${resourceToken}'
    location: location
    tags: allTags
    skuName: storageSkuName
    allowedOrigins: empty(allowedOrigins) ? ['*'] : split(replace(allowedOrigins, ' ', ''), ',')
    deploymentContainerName: deploymentContainerName
    sealedRetentionDays: sealedRetentionDays
  }
}

module keyVault 'modules/keyvault.bicep' = {
  name: 'keyvault'
  scope: rg
  params: {
    name: 'kv-${resourceToken}'
    location: location
    tags: allTags
    enablePurgeProtection: keyVaultPurgeProtection
    secretNames: secretNames
    jwtSecret: jwtSecret
    logSigningKey: logSigningKey
    turnstileSecretKey: turnstileSecretKey
    sealP12Base64: sealP12Base64
    sealP12Passphrase: sealP12Passphrase
    acsConnectionString: acsConnectionString
    acsEventSecret: acsEventSecret
  }
}

module roles 'modules/roles.bicep' = {
  name: 'roles'
  scope: rg
  params: {
    storageAccountName: storage.outputs.name
    keyVaultName: keyVault.outputs.name
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    appPrincipalId: identity.outputs.principalId
    operatorPrincipalId: operatorPrincipalId
    operatorPrincipalType: operatorKind
  }
}

module functionApp 'modules/functionapp.bicep' = {
  name: 'functionapp'
  scope: rg
  // The app's first start needs its storage, Key Vault and e-mail roles in place.
  dependsOn: [
    roles
    email
  ]
  params: {
    name: functionAppName
    planName: 'plan-${resourceToken}'
    location: location
    tags: allTags
    identityId: identity.outputs.id
    identityClientId: identity.outputs.clientId
    storageAccountName: storage.outputs.name
    deploymentContainerName: deploymentContainerName
    applicationInsightsName: monitoring.outputs.applicationInsightsName
    keyVaultName: keyVault.outputs.name
    secretNames: secretNames
    instanceMemoryMB: instanceMemoryMB
    maximumInstanceCount: maximumInstanceCount
    httpAlwaysReadyInstances: httpAlwaysReadyInstances
    allowedOrigins: empty(allowedOrigins) ? '*' : allowedOrigins
    jwtIssuer: jwtIssuer
    jwtAudience: jwtAudience
    jwtTtlSeconds: jwtTtlSeconds
    bcryptCost: bcryptCost
    turnstileMode: turnstile
    turnstileSiteKey: turnstileSiteKey
    tsaUrl: tsaUrl
    sealLevel: sealLevel
    uploadUrlTtlSeconds: uploadUrlTtlSeconds
    maxDocumentBytes: maxDocumentBytes
    publicBaseUrl: publicBaseUrl
    queueEndpoint: storage.outputs.queueEndpoint
    acsEmailEndpoint: email.outputs.endpoint
    emailFrom: empty(emailFrom) ? email.outputs.sender : emailFrom
    sweepSchedule: sweepSchedule
    webhookRetrySeconds: webhookRetrySeconds
    envelopeTtlDays: envelopeTtlDays
    sealedRetentionDays: sealedRetentionDays
    rateLimitPerMinute: rateLimitPerMinute
    authRateLimitPerMinute: authRateLimitPerMinute
    trustProxy: trustProxy
    maxConcurrentBcryptHashes: maxConcurrentBcryptHashes
    emailDailyQuota: emailDailyQuota
    embedTokenTtlSeconds: embedTokenTtlSeconds
    logSthIntervalSeconds: logSthIntervalSeconds
    smsFrom: smsFrom
    smsDailyQuota: smsDailyQuota
  }
}

module sms 'modules/sms.bicep' = {
  name: 'sms'
  scope: rg
  params: {
    communicationServiceName: email.outputs.communicationServiceName
    appHostName: functionApp.outputs.defaultHostName
    acsEventSecret: acsEventSecret
    tags: allTags
  }
}

@description('Region of the deployment.')
output AZURE_LOCATION string = location

@description('Entra ID tenant of the subscription.')
output AZURE_TENANT_ID string = tenant().tenantId

@description('Resource group holding the environment.')
output AZURE_RESOURCE_GROUP string = rg.name

@description('Name of the Function App (the deploy target).')
output AZURE_FUNCTION_APP_NAME string = functionApp.outputs.name

@description('Base URL of the API; GET <API_BASE_URL>/health answers {"status":"ok"}.')
output API_BASE_URL string = 'https://${functionApp.outputs.defaultHostName}/api'

@description('Name of the storage account (STORAGE_ACCOUNT_NAME for npm run invite).')
output STORAGE_ACCOUNT_NAME string = storage.outputs.name

@description('Name of the Key Vault holding the secrets.')
output AZURE_KEY_VAULT_NAME string = keyVault.outputs.name

@description('Azure Communication Services endpoint the app sends e-mail through.')
output ACS_EMAIL_ENDPOINT string = email.outputs.endpoint
