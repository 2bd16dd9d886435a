// E-mail through Azure Communication Services: an Email Communication Service with an
// Azure-managed domain (<random>.azurecomm.net, verified by Azure, nothing to put in DNS), a
// Communication Service linked to it, and the app's identity allowed to send through it. The app
// sends with its managed identity to ACS_EMAIL_ENDPOINT (no access key is read or stored).
//
// For a domain of your own, add a CustomerManaged domain to the Email Communication Service, verify
// it (SPF, DKIM, DMARC records), link it here instead and set emailFrom (docs/deploy.md).

@description('Name of the Communication Service (globally unique; it names its endpoint).')
param communicationServiceName string

@description('Name of the Email Communication Service.')
param emailServiceName string

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
@description('Where Communication Services keeps its data at rest; the e-mail and communication services must share it.')
param dataLocation string = 'Europe'

@description('Display name of the sender; the address is DoNotReply@ the Azure-managed domain.')
param senderDisplayName string = 'Envelope Signing'

@description('Object (principal) id of the Function App\'s user-assigned managed identity, which sends the e-mail.')
param appPrincipalId string

@description('Tags for every resource.')
param tags object = {}

var roleIds = {
  communicationAndEmailServiceOwner: '09976791-48a7-449e-bb21-39d1a415f350' // Communication and Email Service Owner
}

resource emailService 'Microsoft.Communication/emailServices@2023-04-01' = {
  name: emailServiceName
  location: 'global'
  tags: tags
  properties: {
    dataLocation: dataLocation
  }
}

resource managedDomain 'Microsoft.Communication/emailServices/domains@2023-04-01' = {
  parent: emailService
  name: 'AzureManagedDomain'
  location: 'global'
  tags: tags
  properties: {
    domainManagement: 'AzureManaged'
    // No tracking pixels or rewritten links in signing e-mails.
    userEngagementTracking: 'Disabled'
  }
}

resource communicationService 'Microsoft.Communication/communicationServices@2023-04-01' = {
  name: communicationServiceName
  location: 'global'
  tags: tags
  properties: {
    dataLocation: dataLocation
    linkedDomains: [
      managedDomain.id
    ]
  }
}

// Communication and Email Service Owner for the app, on this one Communication Service only: the
// built-in role Microsoft documents for sending e-mail with Microsoft Entra ID. A custom role with
// just CommunicationServices/Read, CommunicationServices/Write and EmailServices/write would grant
// less, but creating role definitions needs Owner or User Access Administrator, which the deploy
// pipeline deliberately does not have (docs/deploy.md, step 4).
resource appEmailSender 'Microsoft.Authorization/roleAssignments@2022-04-01' = {
  name: guid(communicationService.id, appPrincipalId, roleIds.communicationAndEmailServiceOwner)
  scope: communicationService
  properties: {
    roleDefinitionId: subscriptionResourceId('Microsoft.Authorization/roleDefinitions', roleIds.communicationAndEmailServiceOwner)
    principalId: appPrincipalId
    principalType: 'ServicePrincipal'
  }
}

@description('The Communication Service endpoint the app sends through (ACS_EMAIL_ENDPOINT).')
output endpoint string = 'https://${communicationService.properties.hostName}'

@description('The sender mailbox (EMAIL_FROM): the display name and DoNotReply@ the Azure-managed domain.')
output sender string = '${senderDisplayName} <DoNotReply@${managedDomain.properties.mailFromSenderDomain}>'

@description('Name of the Communication Service.')
output communicationServiceName string = communicationService.name
