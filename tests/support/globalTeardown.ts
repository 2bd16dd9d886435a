/** Jest global teardown: stops the Azurite of {@link globalSetup}. */
export default async function globalTeardown(): Promise<void> {
  await globalThis.testAzurite?.stop();
}
