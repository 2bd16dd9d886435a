/** Jest global teardown: stops the Azurite and the mail catcher of {@link globalSetup}. */
export default async function globalTeardown(): Promise<void> {
  await Promise.all([globalThis.testAzurite?.stop(), globalThis.testMailCatcher?.stop()]);
}
